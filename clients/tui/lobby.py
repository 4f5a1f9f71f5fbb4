"""The terminal's lobby, as pure functions of the server's `lobby` frame: a row per
table (its title cut to fit, what it is doing now, its seats, antes, jackpot, game and
watchers), the meters for the heading, and the titles History names tables and games by."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from rich.cells import cell_len

from clients.bots import money
from clients.tui.paytable import limits_words
from clients.tui.render import (
    Frame,
    fit_name,
    jackpot_name,
    joined_to_fit,
    plain_name,
    short_money,
)

#: the lobby's word for a table's phase (the browser's lobby uses the same)
LOBBY_PHASES: Final = {
    "waiting": "Waiting",
    "betting": "Betting",
    "deciding": "Deciding",
    "showdown": "Showdown",
    "suspended": "Suspended",
}
#: a lobby row whose server has stopped or frozen: its phase is stale (PROTOCOL.md `silent`)
SILENT_HOST: Final = "No answer"
#: a paused table's word, the browser's badge's: alone between rounds, after a round's phase
PAUSED_WORD: Final = "Paused"
#: ...and a table whose server shuts down (its row's `closing`)
CLOSING_WORD: Final = "Closing"  # short: the Now column is narrow at 80


def table_titles(lobby: Frame | None) -> dict[str, str]:
    """Table id -> its title, from the lobby."""
    rows = (lobby or {}).get("tables", [])
    return {str(t.get("id")): str(t.get("title") or t.get("id")) for t in rows}


def variant_titles(lobby: Frame | None) -> dict[str, str]:
    """Variant name -> its title, from the lobby's rows."""
    variants = [t.get("variant") or {} for t in (lobby or {}).get("tables", [])]
    return {str(v["name"]): str(v.get("title") or v["name"]) for v in variants if v.get("name")}


def jackpots_text(jackpots: Mapping[str, int]) -> str:
    """The meters for a heading: "jackpot $1,000.00", or each by name when several."""
    if len(jackpots) == 1:
        return f"jackpot {money(next(iter(jackpots.values())))}"
    listed = " · ".join(f"{jackpot_name(k)} {money(v)}" for k, v in sorted(jackpots.items()))
    return f"jackpots: {listed or '-'}"


def lobby_rows(
    lobby: Frame, jackpots: Mapping[str, int], width: int | None = None
) -> list[tuple[str, list[str]]]:
    """(table id, cells) per lobby table, by title, cells in the order of `LOBBY_COLUMNS`; within
    `width` cells, the titles and games cut to what the other columns leave (a long title
    took the room of the last ones at 80 columns: the game cut, Watch gone)."""
    rows = []
    listed: set[str] = set()
    # one jackpot (the usual casino): its amount alone; several: each by its name
    several = len({str(t.get("jackpot", "")) for t in lobby.get("tables", [])} | set(jackpots)) > 1
    for t in lobby.get("tables", []):
        if str(t["id"]) in listed:  # never twice (a row key is unique): the first stands
            continue
        listed.add(str(t["id"]))
        variant = t.get("variant") or {}
        seats, taken = int(t.get("seats", 0)), int(t.get("taken", 0))
        jackpot = str(t.get("jackpot", ""))
        meter = jackpots.get(jackpot)
        named = jackpot_name(jackpot) if several else ""
        rows.append(
            (
                str(t["id"]),
                [
                    plain_name(str(t.get("title") or t["id"])),
                    lobby_now(t),
                    f"{seats - taken} of {seats}",
                    f"{short_money(int(t['min_ante']))} – {short_money(int(t['max_ante']))}",
                    f"{named} {money(meter)}".strip() if meter is not None else named,
                    str(variant.get("title") or variant.get("name", "")),
                    str(t.get("spectators", 0)),
                ],
            )
        )
    # one order, whichever process answers (each lists its own tables first): by title
    rows.sort(key=lambda row: (row[1][0].casefold(), row[0]))
    if width is not None and rows:
        fit_title_and_game(rows, width)
    return rows


def fit_title_and_game(rows: list[tuple[str, list[str]]], width: int) -> None:
    """Cut the titles and games of `rows` to what the other columns leave of `width`
    cells: the game first, down to its heading's width, then the title (the titles were
    cut to five letters beside a whole game: two tables of one game looked alike, and the
    game is mostly in the title)."""

    def cells_of(k: int) -> int:
        return max(cell_len(LOBBY_COLUMNS[k]), *(cell_len(cells[k]) for _, cells in rows))

    t, g = 0, LOBBY_COLUMNS.index("Game")
    others = sum(cells_of(k) + LOBBY_PADDING for k in range(len(LOBBY_COLUMNS)) if k not in (t, g))
    room = width - others - 2 * LOBBY_PADDING  # the title's and the game's
    if cells_of(t) + cells_of(g) <= room:
        return
    least_game = cell_len(LOBBY_COLUMNS[g])
    title = max(cell_len(LOBBY_COLUMNS[t]), min(cells_of(t), room - least_game))
    game = max(least_game, room - title)
    for _, cells in rows:
        cells[t], cells[g] = fit_name(cells[t], title), fit_name(cells[g], game)


def lobby_row(lobby: Frame | None, table_id: str | None) -> Frame | None:
    """The lobby's row of `table_id`, if it lists it."""
    rows = (lobby or {}).get("tables", [])
    return next((r for r in rows if table_id is not None and r.get("id") == table_id), None)


def lobby_detail(row: Frame | None, width: int | None = None) -> str:
    """Under the rows, the highlighted table's limits, its progressive stake among them
    (shown before a player sits, as the browser's lobby shows them; no column had room
    for it at 80 columns); broken between its parts where `width` runs out."""
    if row is None:
        return ""
    title = plain_name(str(row.get("title") or row.get("id", "")))
    ante, stake = limits_words(row).split(" · ")
    return joined_to_fit([f"{title}: {ante}", stake], width)


def lobby_now(row: Frame) -> str:
    """A lobby row's Now cell: its phase, unless its server is silent. A table the casino
    paused says Paused, as the browser's badge and the table itself do ("Waiting · paused"
    read as a table taking bets): alone between rounds, after the phase of one in play."""
    if row.get("silent"):
        return SILENT_HOST
    phase = LOBBY_PHASES.get(str(row.get("phase")), str(row.get("phase", "")))
    if not row.get("paused"):
        return phase
    word = CLOSING_WORD if row.get("closing") else PAUSED_WORD  # the casino paused nothing
    return word if row.get("phase") == "waiting" else f"{phase} · {word}"


#: What a player picks a table by first: an 80-column terminal cuts the last columns (the
#: jackpot read "main $1", then the phase "Sh"); the game is mostly in the table's title.
#: Short headings ("3 of 9" says seats; "Watching" was cut to "Wat" at 80 columns).
LOBBY_COLUMNS: Final = ("Table", "Now", "Free", "Ante", "Jackpot", "Game", "Watch")
#: the cells a lobby column takes beside its widest words (the DataTable's padding)
LOBBY_PADDING: Final = 2
