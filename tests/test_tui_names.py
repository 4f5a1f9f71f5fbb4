"""Seat names on the terminal's table at 80 and 120 columns through a round: a name
takes the room its line has, whole up to its 24 letters (wide ones too), one width
from the bets to the decisions, narrower at the showdown only where the results need
the room; the player's own name and the others' alike, and the others' in History."""

from __future__ import annotations

import re
from typing import Any, cast

import pytest
from rich.cells import cell_len

from clients.tui import PlayScreen, StudApp, WatchScreen
from clients.tui.render import history_text, plain_name, seats_text
from clients.tui.screens import HistoryScreen
from tests.conftest import ClientFactory, ServerFactory
from tests.test_tui import LONG, phase, shown, until, url
from tests.test_tui_small import NINE, columns_at, two_hands

#: the seats' lines within an 80- and a 120-column screen (its frame and padding less)
WIDTHS = {80: 76, 120: 116}
OWN = ("Terminal Tomasz Kowalski", "Alexandra Konstantinova")  # 24 and 23 letters
OTHERS = ("Maximilian Alexandrovich", "Bo", "Konstantinopoulou", "Térmínal 终端 🖥️ Player")
PHASES = ("betting", "deciding", "showdown")
#: a bet's column as it reads from the bets to the showdown ("$25+$50" once raised)
BET = re.compile(r"\$25(\.00|\+\$50)")


def table(phase: str, own: str, others: int, outcome: str = "lose") -> dict[str, Any]:
    """A nine-seat table in `phase`: the player ("me") at seat 1 named `own`, `others`
    players after it, the other seats empty. The player's cards and hand are seen from
    the deal on, the others' at the showdown; results there (`outcome` for every hand)."""

    def seat(n: int) -> dict[str, Any] | None:
        if n > others:
            return None
        seen = phase == "showdown" or (phase == "deciding" and n == 0)
        return {
            "player_id": "me" if n == 0 else f"p{n}",
            "name": own if n == 0 else OTHERS[(n - 1) % len(OTHERS)],
            "ante": 2_500, "progressive": n % 2 == 0, "ready": True,
            "decision": "raise" if phase == "showdown" else None,
            "cards": None if phase == "betting"
            else ["Kh", "Ks", "Kd", "7c", "7d"] if seen else [None] * 5,
            "hand": {"label": "Three of a Kind" if n == 2 else "One Pair"} if seen else None,
            "result": {"outcome": outcome, "net": 2_400 if outcome == "no_qualify" else -7_600,
                       "progressive_net": -100 if n % 2 == 0 else 0}
            if phase == "showdown" else None,
        }  # fmt: skip

    return {"phase": phase, "seats": [seat(n) for n in range(9)]}


def names_shown(snap: dict[str, Any], lines: list[str]) -> list[tuple[str, str]]:
    """(name, as its seat's line shows it) for each taken seat: the cells between the
    seat's number and its bet."""
    shown_names = []
    for seat, line in zip(snap["seats"], lines, strict=True):
        if seat is None:
            continue
        bet = BET.search(line)
        assert bet is not None, line
        shown_names.append((plain_name(seat["name"]), line[4 : bet.start()].strip()))
    return shown_names


@pytest.mark.parametrize("columns", sorted(WIDTHS))
@pytest.mark.parametrize("own", OWN)
@pytest.mark.parametrize("others", [0, 1, 4, 8])
@pytest.mark.parametrize("outcome", ["lose", "no_qualify"])
def test_a_name_takes_the_room_its_line_has_through_a_round(
    columns: int, own: str, others: int, outcome: str
) -> None:
    """At 80 columns "Terminal Tomasz…" and "Alexandra Konst…" were cut at the bets with
    some 35 columns of the line blank, and so at the decisions: the names kept room for
    a hand's name and the longest state together, which no dealt line takes beside a
    long name (the hand's name gives way first). Whole at the bets and the decisions, in
    one column; at the showdown cut only where the results fill the line, each hand
    named there (whole names had taken the hands' names' room at 80 columns)."""
    width = WIDTHS[columns]
    edges = {}
    for ph in PHASES:
        snap = table(ph, own, others, outcome)
        lines = seats_text(snap, "me", 0, width).plain.splitlines()
        assert len(lines) == 9 and all(cell_len(line) <= width for line in lines), lines
        pairs = names_shown(snap, lines)
        cut = [(name, seen) for name, seen in pairs if seen != name]
        bets = [BET.search(line) for line in lines]
        edges[ph] = {cell_len(line[: m.end()]) for line, m in zip(lines, bets, strict=True) if m}
        if ph != "showdown" or cut:
            assert all(seen.endswith("…") for _, seen in cut), (ph, lines)
        if ph == "showdown" and outcome == "lose" and others < 2:
            # each hand named ("One Pair": short, as its result) rather than a name whole
            hands = [line for line in lines if "empty" not in line]
            assert all(re.search(r"One Pair|Three of a Kind", x) for x in hands), lines
        if ph == "showdown" and cut:  # the results take the room the names gave way
            assert max(cell_len(line) for line in lines) == width, (ph, lines)
        else:
            assert not cut, (columns, ph, lines)
    assert len(edges["betting"]) == 1 and edges["betting"] == edges["deciding"], edges
    if edges["showdown"] != edges["deciding"]:  # moved left only for the results' room
        assert max(edges["showdown"]) < min(edges["deciding"]), edges


@pytest.mark.parametrize("columns", sorted(WIDTHS))
def test_a_wide_name_takes_the_room_its_line_has(columns: int) -> None:
    """A name of 24 letters two cells wide is 48 cells: whole at 120 columns from the
    bets to the decisions, and at 80 cut where the line ends, not at 16 cells."""
    wide = "王小明李小龍張三豐王小明李小龍張三豐王小明李小"  # 24 letters, 48 cells
    width = WIDTHS[columns]
    for ph in ("betting", "deciding"):
        snap = table(ph, wide, 2)
        lines = seats_text(snap, "me", 0, width).plain.splitlines()
        assert all(cell_len(line) <= width for line in lines), lines
        (name, seen), *_ = names_shown(snap, lines)
        if columns == 120:
            assert seen == name, lines
        else:
            assert seen.endswith("…") and cell_len(seen) > 16, lines


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_own_name_is_whole_on_the_table_at_80_and_120_columns(
    make_server: ServerFactory, connect: ClientFactory, size: tuple[int, int]
) -> None:
    """A player named "Terminal Tomasz Kowalski" read "Terminal Tomasz…" on an 80x24
    screen beside another named "Alexandra Konst…", with the line's end blank."""
    server = await make_server(timers=LONG, tables=NINE)
    other = await connect(server, OWN[1])
    await other.request("sit", table="nine", seat=1)
    app = StudApp(url(server), OWN[0], table="nine")
    async with app.run_test(size=size) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "seat 1")
        await other.request("ante", table="nine", seat=1, amount=2_500)
        await other.request("deal", table="nine")
        await until(p, lambda: "Ready" in shown(app, "#seats"), "the other's bet")
        await p.press("4")
        await until(p, lambda: app.built_bets() == {0: (2_500, False)}, "$25 built")
        for ph in ("betting", "deciding"):
            if ph == "deciding":
                await p.press("d")
                await until(p, lambda: phase(app) == "deciding", "the deal")
            lines = shown(app, "#seats").splitlines()
            assert OWN[0] in lines[0] and OWN[1] in lines[1], (ph, lines)


@pytest.mark.parametrize("columns", sorted(WIDTHS))
def test_the_history_s_names_take_the_room_their_lines_have(columns: int) -> None:
    """History held the others' names to 16 cells: "Alexandra Konst…" at 120 columns
    with some 27 columns of its line blank, and at 80 (a hand on two lines) with 20.
    Whole where the round's lines have room, in one column."""
    width = WIDTHS[columns]
    record = two_hands()
    mine = cast(list[dict[str, Any]], record["seats"])[0]
    names = [*OWN, OTHERS[0], OTHERS[3]]
    others = [
        {**mine, "seat": n + 2, "player_id": f"o{n}", "name": name} for n, name in enumerate(names)
    ]
    record["seats"] = [mine, *others]
    lines = history_text([record], "me", {}, width=width).plain.splitlines()
    assert all(cell_len(line) <= width for line in lines), lines
    for name in names:
        assert plain_name(name) in "\n".join(lines), (name, lines)
    assert len(columns_at(lines, "$5+$10")) == 1, lines


@pytest.mark.parametrize("columns", sorted(WIDTHS))
def test_a_seat_away_keeps_the_names_one_width_through_a_round(columns: int) -> None:
    """A seat whose player is away reads "Sitting out (away)", or "Folded (timer)
    (away)" once the clock folds its hand: at 80 columns the names, whole at the bets,
    were cut at the decisions to make room for it, moving every column after them."""
    width = WIDTHS[columns]
    edges = []
    for ph in ("betting", "deciding"):
        snap = table(ph, OWN[0], 3)
        snap["seats"][2].update(connected=False, ante=0, cards=None, hand=None)
        snap["seats"][3]["connected"] = False
        if ph == "deciding":
            snap["seats"][3].update(decision="fold", auto=True)
        lines = seats_text(snap, "me", 0, width).plain.splitlines()
        assert all(cell_len(line) <= width for line in lines), lines
        assert "(away)" in lines[2] and "(away)" in lines[3], lines
        bets = [BET.search(line) for line in lines]
        edges.append({cell_len(line[: m.end()]) for line, m in zip(lines, bets, strict=True) if m})
        shown_names = [
            line[4 : m.start()].strip() for line, m in zip(lines, bets, strict=True) if m
        ]
        assert all(cell_len(name) >= 16 for name in shown_names if "…" in name), lines
    assert len(edges[0]) == 1 and edges[0] == edges[1], edges


def sitting_out_away(ph: str, names: tuple[str, ...]) -> dict[str, Any]:
    """A table in `ph` seen by a spectator: `names` at seats 1.., the first two with a
    bet (dealt from the decisions on), the rest away and without one (sitting out)."""
    snap = table(ph, names[0], len(names) - 1)
    for n, seat in enumerate(snap["seats"][: len(names)]):
        seat.update(name=names[n], player_id=f"s{n}")
        if n >= 2:
            seat.update(ante=0, progressive=False, ready=False, connected=False)
            seat.update(cards=None, hand=None, decision=None, result=None)
    return snap


@pytest.mark.parametrize("columns", sorted(WIDTHS))
def test_seats_away_without_a_bet_leave_the_names_the_room_their_lines_have(
    columns: int,
) -> None:
    """Three seats away with no bet ("Phoner2 … (away)") held the other names to 18
    cells at 80 columns ("Maximilian Oberha…") with some 40 columns blank: the names
    kept room for "Folded (timer) (away)", a state only a seat away with a bet can
    reach. A seat away without one reads "Sitting out (away)" at most: the names take
    what that leaves, the same from the bets to the decisions."""
    width = WIDTHS[columns]
    names = ("Maximilian Oberhauser", "Krzysztof Wojciechowski", *["Phoner2"] * 3)
    edges, widest = [], []
    for ph in ("betting", "deciding"):
        snap = sitting_out_away(ph, names)
        lines = seats_text(snap, None, None, width).plain.splitlines()
        assert all(cell_len(line) <= width for line in lines), lines
        assert "(away)" in lines[2], lines
        shown_names = [line[4:].split("  ")[0] for line in lines[: len(names)]]
        assert shown_names[0] == names[0], lines  # 21 letters: whole at 80 columns too
        cut = [name for name in shown_names if name.endswith("…")]
        widest.append(max(cell_len(line) for line in lines))
        edges.append({cell_len(line[: line.index(" - ")]) for line in lines[2:5]})
        if cut:  # cut only where the decisions' lines are full
            assert ph == "betting" or widest[-1] == width, lines
    assert len(edges[0]) == 1 and edges[0] == edges[1], edges


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_spectator_sees_names_whole_beside_seats_away(
    make_server: ServerFactory, connect: ClientFactory, size: tuple[int, int]
) -> None:
    """`stud-client watch` at 80x24 while waiting for bets read "Maximilian Oberha…"
    beside a seat whose player was away, with some 40 columns of the line blank."""
    server = await make_server(timers=LONG, tables=NINE)
    long_name = await connect(server, "Maximilian Oberhauser")
    await long_name.request("sit", table="nine", seat=0)
    gone = await connect(server, "Phoner2")
    await gone.request("sit", table="nine", seat=1)
    await gone.close()
    app = StudApp(url(server), "Wendy", table="nine", watch=True)
    async with app.run_test(size=size) as p:
        await until(p, lambda: isinstance(app.screen, WatchScreen), "the watch screen")
        await until(p, lambda: "(away)" in shown(app, "#seats"), "the seat away")
        lines = shown(app, "#seats").splitlines()
        assert "Maximilian Oberhauser " in lines[0], lines


def no_qualify_round(other: str) -> dict[str, Any]:
    """A round the player ("me") folded and `other` raised against a dealer who did not
    qualify."""
    record = two_hands()
    mine, theirs = cast(list[dict[str, Any]], record["seats"])
    mine.update(decision="fold", result={"outcome": "fold", "net": -100})
    theirs.update(name=other, result={"outcome": "no_qualify", "net": 100})
    return record


@pytest.mark.parametrize("columns", sorted(WIDTHS))
@pytest.mark.parametrize("other", [OWN[0], "Bo"])
def test_history_says_no_qualify_before_it_cuts_a_name(columns: int, other: str) -> None:
    """At 120 columns a "Dealer did not qualify" row cut "Terminal Tomasz…" and kept the
    long words: where a line is short of room, "No qualify" goes first (as on the
    seats), and the name takes what that leaves; the long words where names are whole."""
    width = WIDTHS[columns]
    lines = history_text([no_qualify_round(other)], "me", {}, width=width).plain.splitlines()
    assert all(cell_len(line) <= width for line in lines), lines
    assert other in "\n".join(lines) and "…" not in "\n".join(lines[1:4]), lines
    stakes = [re.search(r"\$5(\.00|\+\$10)", x) for x in lines if x.startswith("  seat ")]
    assert len({cell_len(m.string[: m.end()]) for m in stakes if m}) == 1, lines  # one column
    if columns == 120 and other == "Bo":
        assert "Dealer did not qualify" in "\n".join(lines), lines


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_history_screen_shows_a_long_name_whole_beside_no_qualify(
    size: tuple[int, int],
) -> None:
    """As the terminal draws History (`h`) at 80x24 and 120x40."""
    app = StudApp("ws://127.0.0.1:1/ws", "Ann")  # nothing to connect to: a history given
    async with app.run_test(size=size) as p:
        await app.link.stop()
        app.link.welcome = {"player_id": "me"}
        app.history = [no_qualify_round(OWN[0])]
        await app.push_screen(HistoryScreen())
        await until(p, lambda: "Terminal" in shown(app, "#history"), "the history")
        rows = [s.text for s in app.screen._compositor.render_strips()]
        assert any(OWN[0] in row and "No qualify" in row for row in rows), rows
