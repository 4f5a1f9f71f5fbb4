"""The terminal's words counted in cells, as the browser draws them: a name of wide
letters cut to fit, and the lobby's word for a paused table."""

from __future__ import annotations

import re

import pytest
from rich.cells import cell_len

from clients.tui.lobby import lobby_rows
from clients.tui.render import fit_name, name_cell, seats_text
from clients.tui.unseen import SeatWatch
from clients.tui.words import seats_gone_text
from tests.test_tui_words import nine

WIDE = "王小明的超级幸运牌桌大赢家"  # 13 letters, 26 cells


@pytest.mark.parametrize("cells", range(2, 26))
def test_a_name_of_wide_letters_cut_ends_flush_with_its_ellipsis(cells: int) -> None:
    """A Chinese letter cut in half left a space before the "…" ("王小明的 …"): the cut
    is made by cells, the "…" right after the last whole letter, the column padded after."""
    cut = fit_name(WIDE, cells)
    assert cut.endswith("…") and " " not in cut, repr(cut)
    assert cells - 1 <= cell_len(cut) <= cells, (cells, repr(cut))
    padded = name_cell(WIDE, cells)
    assert cell_len(padded) == cells and padded.rstrip() == cut, repr(padded)


@pytest.mark.parametrize("width", [76, 80, 96, 116])
def test_a_seat_s_wide_name_cut_reads_with_no_gap_before_the_ellipsis(width: int) -> None:
    """At a full table, a seat's Chinese name cut to the column's room: no "的 …"."""
    for phase in ("betting", "deciding", "showdown"):
        snap = nine(phase)
        for n in (0, 3):
            snap["seats"][n]["name"] = WIDE
        lines = seats_text(snap, "p0", 0, width).plain.splitlines()
        wide = [line for line in lines if "王" in line]
        assert len(wide) == 2, wide
        # whole where the line has room for its 26 cells (not on an 80-column screen's)
        names = [line.split("$")[0] for line in wide]
        assert all(("…" in name) != (WIDE in name) for name in names), wide
        assert width > 76 or all("…" in name for name in names), wide
        assert not any(re.search(r"\s…", line) for line in wide), (width, phase, wide)
        assert all(cell_len(line) <= width for line in lines), lines


def test_the_lobby_says_paused_as_the_browser_does() -> None:
    """The lobby's Now read "Waiting · paused" for a table the casino paused, where the
    browser shows its Paused badge and the table itself says Paused: between rounds it is
    Paused, and a round in play under a pause says its phase and Paused."""
    row = {"id": "t", "seats": 5, "taken": 1, "min_ante": 100, "max_ante": 500}
    now = [
        lobby_rows({"tables": [{**row, **extra}]}, {})[0][1][1]
        for extra in (
            {"phase": "waiting", "paused": {"reason": "a dealer change"}},
            {"phase": "betting", "paused": {"reason": "a dealer change"}},
            {"phase": "waiting"},
        )
    ]
    assert now == ["Paused", "Betting · Paused", "Waiting"], now


EMOJI = "Térmínal 终端 🖥️ Player"  # a desktop computer asked to be drawn as an emoji


@pytest.mark.parametrize("width", [80, 120])
def test_an_emoji_s_variation_selector_is_left_out_of_names(width: int) -> None:
    """ "🖥️" is a letter one cell wide plus a selector asking for two: the terminal
    measured it one way and tmux drew it the other, so every redraw of the seat's line
    left a "─" of the frame at its end. Names go out without the selector, one cell."""
    for phase in ("betting", "deciding", "showdown"):
        snap = nine(phase)
        snap["seats"][2]["name"] = EMOJI
        text = seats_text(snap, "p0", 0, width).plain
        assert "🖥" in text and "\ufe0f" not in text, (phase, text)
    assert fit_name(EMOJI, 40) == "Térmínal 终端 🖥 Player"
    row = {"id": "t", "title": EMOJI, "seats": 5, "taken": 1, "min_ante": 100, "max_ante": 500}
    rows = lobby_rows({"tables": [row]}, {})
    assert "\ufe0f" not in repr(rows), rows


def seats_of(*names: str) -> dict[str, object]:
    def seat(n: int, name: str) -> dict[str, object]:
        return {
            "player_id": f"p{n}", "name": name, "ante": 2_500, "progressive": True,
            "ready": True, "decision": None, "cards": [None] * 5, "hand": None, "result": None,
        }  # fmt: skip

    return {"phase": "deciding", "seats": [seat(n, name) for n, name in enumerate(names)]}


def test_at_120_columns_a_name_longer_than_24_cells_is_shown_whole() -> None:
    """A name is 24 letters at most, but a wide letter takes two cells: "Alexandra
    Konstantinova🌹" was cut to "Alexandra Konstantinova…" with some 30 columns unused."""
    name = "Alexandra Konstantinova🌹"  # 24 letters, 25 cells
    lines = seats_text(seats_of(name, "Bo"), None, None, 116).plain.splitlines()
    assert name in lines[0], lines[0]
    assert all(cell_len(line) <= 116 for line in lines)


def test_two_names_cut_alike_are_told_apart() -> None:
    """Both read "Alexandra Konst…" (at 80 columns, where they are whole now): a name cut
    to the same letters as another's keeps its end instead, each cut said by its "…"."""
    names = ("Alexandra Konstantinova", "Alexandra Konstantinidis", "Alexandra Konstantinova")
    lines = seats_text(seats_of(*names), None, None, 60).plain.splitlines()
    cells = [line[4:].split("  ")[0].strip() for line in lines]
    assert all("…" in c for c in cells), cells
    assert cells[0] != cells[1], cells
    assert cells[0] == cells[2]  # one name, one way of cutting it
    assert all(cell_len(line) <= 60 for line in lines)


def test_the_history_tells_two_names_cut_alike_apart() -> None:
    """History's other hands named both players "Alexandra Konst…" too."""
    from clients.tui.render import history_text

    def hand(n: int, name: str) -> dict[str, object]:
        return {
            "seat": n, "player_id": f"p{n}", "name": name, "ante": 100, "progressive": False,
            "cards": ["Kh", "Ks", "Kd", "7c", "7d"], "hand": {"label": "Full House"},
            "decision": "raise", "result": {"outcome": "win", "net": 900},
        }  # fmt: skip

    names = ("Alexandra Konstantinova", "Alexandra Konstantinidis")
    record = {
        "round_id": "r-1", "table": "alpha", "variant": "casino-stud", "settled_at": 0,
        "seats": [hand(n, name) for n, name in enumerate(names)],
        "dealer": ["Ad", "Kc", "9h", "4s", "2d"], "dealer_hand": {"category": "ACE_KING"},
    }  # fmt: skip
    for width in (76, 116):
        lines = history_text([record], "me", {}, width=width).plain.splitlines()
        seats = [line for line in lines if line.lstrip().startswith("seat")]
        assert len(seats) == 2 and seats[0] != seats[1], seats
        cells = [line.split("$")[0].split(maxsplit=2)[2].strip() for line in seats]
        assert cells[0] != cells[1], cells


def test_the_lobby_says_a_table_whose_server_shuts_down_is_shutting_down() -> None:
    """The row's `paused` is set by a shutdown too: the lobby read "Betting · Paused",
    though the casino paused nothing (the table itself said Shutting down)."""
    row = {"id": "t", "seats": 5, "taken": 1, "min_ante": 100, "max_ante": 500}
    now = [
        lobby_rows({"tables": [{**row, "paused": True, "closing": True, **extra}]}, {})[0][1][1]
        for extra in ({"phase": "waiting"}, {"phase": "betting"})
    ]
    assert now == ["Closing", "Betting · Closing"], now


def test_seats_let_go_while_away_are_said_whatever_the_host() -> None:
    """The server shut down (its tables given up) and started again at the same address:
    back, the terminal only showed "No seat: press s to sit.", where the browser says
    the server restarted and the seat was let go. A move to another process was the only
    loss of seats it told."""
    me = "p-ann"
    seated = {"table": "t", "seats": [{"player_id": me}, None]}
    closing = {**seated, "paused": {"reason": "shutting down", "shutdown": True}}
    empty = {"table": "t", "seats": [None, None]}
    watch = SeatWatch()
    watch.note(closing, me, "ws://a")
    watch.relinked()  # the link came back (same address)
    watch.note(empty, me, "ws://a")
    seats, why = watch.take_gone("t")
    assert seats == [0] and why == "restarted"
    said = seats_gone_text(seats, why)
    assert "shut down and was started again" in said and "#1" in said and "press s" in said
    # back within the grace, the seat still there: nothing to say
    watch.note(seated, me, "ws://a")
    watch.relinked()
    watch.note(seated, me, "ws://a")
    assert watch.take_gone("t") == ([], "")
    # let go while away for another reason (past the reconnect grace)
    watch.relinked()
    watch.note(empty, me, "ws://a")
    seats, why = watch.take_gone("t")
    assert seats == [0] and "While you were away" in seats_gone_text(seats, why)
    # standing up with the link up is no loss to tell
    watch.note(seated, me, "ws://a")
    watch.note(empty, me, "ws://a")
    assert watch.take_gone("t") == ([], "")
