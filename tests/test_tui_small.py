"""The terminal table on a small screen (80x24) with every seat taken: each seat one
line, the player's own seat in view, the keys of the moment rather than all of them."""

from __future__ import annotations

from typing import cast

import pytest
from rich.cells import cell_len
from textual import events
from textual.widgets._footer import FooterKey

from clients.tui import PlayScreen, StudApp
from clients.tui.screens import HistoryScreen
from tests.conftest import ClientFactory, ServerFactory
from tests.test_tui import LONG, phase, shown, until, url

NINE = [
    {
        "id": "nine",
        "title": "Nine Seat Casino Stud Table",
        "variant": "casino-stud",
        "seats": 9,
        "min_ante": 100,
        "max_ante": 10_000,
    }
]
NAMES = ["Alexandrinacatherinemari", "Konstantinopoulou", "Ferdinandmaximilian"]


async def test_at_80x24_a_full_table_shows_each_seat_on_one_line_and_the_own_in_view(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """Nine seats with long names wrapped onto two lines each: only seats 1-3 showed,
    and a player at seat 7 never saw their cards nor that a decision was due."""
    server = await make_server(timers=LONG, tables=NINE)
    others = {n: await connect(server, NAMES[n % 3]) for n in (0, 1, 2, 3, 4, 5, 7, 8)}
    for n in range(6):
        await others[n].request("sit", table="nine", seat=n)
    app = StudApp(url(server), "Terminalplayerwithlongna", table="nine")
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [6], "seat 7")
        for n, other in others.items():
            if n > 6:
                await other.request("sit", table="nine", seat=n)
            await other.request("ante", table="nine", seat=n, amount=2_500, progressive=True)
            await other.request("deal", table="nine")
        await p.press("5", "d")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        await p.pause()
        box = app.screen.query_one("#seats-box")
        lines = shown(app, "#seats").splitlines()
        assert len(lines) == 9
        width = box.scrollable_content_region.width
        assert all(cell_len(line) <= width for line in lines), [cell_len(x) for x in lines]
        top, rows = box.scroll_offset.y, box.scrollable_content_region.height
        assert top <= 6 < top + rows, (top, rows)  # the own seat, on screen
        assert rows >= 9, rows  # and every other seat: the lines above and below give way
        assert "Deciding…" in lines[6]
        keys = shown(app, "#keys")
        assert "f fold" in keys and "d deal" not in keys  # what can be done now
        # the footer: the keys of any time, each whole on the screen, none of them again in
        # the keys line (the footer listed every key of every phase and ran off at 80)
        footer = {k.description: k.region for k in app.screen.query(FooterKey)}
        assert set(footer) == {"Buy $100", "Client seed", "History", "Leave", "Quit"}, footer
        assert all(r.width and r.right <= 80 for r in footer.values()), footer
        assert not any(k in keys for k in ("buy", "seed", "history", "leave", "quit")), keys
        await p.press("r")
        await until(p, lambda: (app.snapshot or {})["seats"][6]["decision"] == "raise", "raised")
        assert "f fold" not in shown(app, "#keys")  # nothing of ours left to decide


async def test_a_short_screen_scrolls_to_the_own_seat_and_by_page(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server(timers=LONG, tables=NINE)
    for n in range(8):
        other = await connect(server, NAMES[n % 3])
        await other.request("sit", table="nine", seat=n)
    app = StudApp(url(server), "Ann", table="nine")
    async with app.run_test(size=(80, 16)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        box = app.screen.query_one("#seats-box")
        await until(p, lambda: box.max_scroll_y > 0, "more seats than rows")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [8], "the last seat")
        await until(p, lambda: box.scroll_offset.y == box.max_scroll_y, "scrolled to it")
        await p.press("pageup")
        await until(p, lambda: box.scroll_offset.y < box.max_scroll_y, "a page up")
        await p.press("pagedown")
        await until(p, lambda: box.scroll_offset.y == box.max_scroll_y, "a page down")


def test_seat_names_take_the_room_a_line_has() -> None:
    """At 80 columns names were cut to 10 letters with some 35 columns left blank; at
    120 to 16 with 20 blank: a name takes what a dealt line of the round leaves (the
    cards' room is kept for them from the bets on), at least 16 cells, whole up to 24
    letters (at 80 columns too: they were still cut to 16 there)."""
    from clients.tui.render import seats_text

    def seat(name: str) -> dict[str, object]:
        return {"player_id": name, "name": name, "ante": 500, "ready": True, "cards": None}

    snap = {"phase": "betting", "seats": [seat(n) for n in NAMES]}
    for width in (76, 116):
        lines = seats_text(snap, None, None, width).plain.splitlines()
        assert all(cell_len(line) <= width for line in lines)
        for name, line in zip(NAMES, lines, strict=True):
            assert name in line, line


def two_hands() -> dict[str, object]:
    """A round of two hands: the player's ("me") and another's, with a long name."""

    def hand(seat: int, pid: str, name: str) -> dict[str, object]:
        return {
            "seat": seat, "player_id": pid, "name": name, "ante": 500, "decision": "raise",
            "cards": ["2c", "3c", "4c", "5c", "7d"], "hand": {"label": "High Card"},
            "result": {"outcome": "win", "net": 1_000},
        }  # fmt: skip

    return {"round_id": "a-1", "seats": [hand(0, "me", "Ann"), hand(1, "x", NAMES[0])]}


def test_the_history_lines_up_the_player_s_own_hands_with_the_others() -> None:
    """The player's own hands had no name, so their columns sat 16 to the left."""
    from clients.tui.render import history_text

    lines = history_text([two_hands()], "me", {}).plain.splitlines()
    mine, theirs = (next(x for x in lines if x.startswith(f"  seat {n} ")) for n in (1, 2))
    assert mine.index("$5+$10") == theirs.index("$5+$10") and "you" in mine


async def test_the_history_is_laid_out_again_when_the_terminal_narrows() -> None:
    """Opened at 120 columns and narrowed to 80, it kept its wide lines, each wrapped."""
    app = StudApp("ws://127.0.0.1:1/ws", "Ann")  # nothing to connect to: a history given
    async with app.run_test(size=(120, 40)) as p:
        await app.link.stop()  # no status of tries to redraw the screen: the resize alone
        app.history = [two_hands()]
        await app.push_screen(HistoryScreen())
        await p.pause()
        assert all(len(x) <= 116 for x in shown(app, "#history").splitlines())
        assert len(shown(app, "#history").splitlines()) == 4  # a line a hand, wide
        await p.resize_terminal(80, 24)
        await until(p, lambda: len(shown(app, "#history").splitlines()) == 6, "two a hand")
        assert all(len(x) <= 76 for x in shown(app, "#history").splitlines())


def burst(app: StudApp, *keys: str) -> None:
    """The keys as a terminal hands over keys typed in one burst: all at once, none
    handled before the next comes (a pilot's press waits for each to be handled)."""
    assert app._driver is not None
    for key in keys:
        event = events.Key(key, key if len(key) == 1 else None)
        event.set_sender(app)
        app._driver.send_message(event)


async def test_keys_typed_in_one_burst_act_on_the_seat_selected_as_each_is_pressed(
    make_server: ServerFactory,
) -> None:
    """Three seats, keys typed faster than the screen redraws: "1 Tab 2 Tab 3" stacked
    all three chips ($16) on the seat selected after the last Tab (Tab acted as soon as
    it came, the chips after it), and "3 p Tab 2 Tab 1 p" put $16 on one seat with both
    progressive presses cancelling out. Each key acts on the seat selected when pressed."""
    server = await make_server(timers=LONG)
    app = StudApp(url(server), "ann", table="alpha")
    async with app.run_test(size=(120, 40)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s", "s", "s")
        await until(p, lambda: app.own_seats() == [0, 1, 2], "three seats")
        await until(p, lambda: app.selected == 2, "the last seat taken selected")
        burst(app, "1", "tab", "2", "tab", "3")
        await until(p, lambda: app.selected == 1, "two tabs on")
        assert app.built_bets() == {2: (100, False), 0: (500, False), 1: (1_000, False)}
        burst(app, "x", "3", "p", "tab", "2", "tab", "1", "p")
        await until(p, lambda: app.selected == 0, "two tabs on again")
        assert app.built_bets() == {1: (1_000, True), 2: (500, False), 0: (100, True)}


#: names of letters two cells wide: Chinese, and emoji
WIDE_NAMES = ["王小明的超级幸运牌桌大赢家", "李娜", "🃏🎰💰🍀"]


def wide_hands() -> dict[str, object]:
    """`two_hands` with three more hands, of players whose names have wide letters."""
    round_ = two_hands()
    seats = cast(list[dict[str, object]], round_["seats"])
    others = [
        {**seats[0], "seat": n + 2, "player_id": f"w{n}", "name": name}
        for n, name in enumerate(WIDE_NAMES)
    ]
    return {**round_, "seats": seats + others}


def columns_at(lines: list[str], word: str) -> set[int]:
    """The cells before `word` on each line of a hand that holds it."""
    return {cell_len(x[: x.index(word)]) for x in lines if x.lstrip().startswith("seat ")}


@pytest.mark.parametrize("width", [None, 76, 116])
def test_the_history_lines_up_names_of_wide_letters(width: int | None) -> None:
    """A Chinese name or emoji pushed the bet column 2-14 cells right: names were padded
    by letters, and such a letter takes two cells."""
    from clients.tui.render import history_text

    lines = history_text([wide_hands()], "me", {}, width=width).plain.splitlines()
    assert len(columns_at(lines, "$5+$10")) == 1, lines
    assert len(columns_at(lines, "+$10.00")) == 1, lines
    if width is None or width > 100:  # cards beside the bets: their column too
        assert len(columns_at(lines, "2♣")) == 1, lines


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_history_screen_lines_up_names_of_wide_letters(size: tuple[int, int]) -> None:
    """As the terminal draws it, a wide letter two cells."""
    app = StudApp("ws://127.0.0.1:1/ws", "Ann")
    async with app.run_test(size=size) as p:
        await app.link.stop()
        app.link.welcome = {"player_id": "me"}
        app.history = [wide_hands()]
        await app.push_screen(HistoryScreen())
        await until(p, lambda: "李娜" in shown(app, "#history"), "the history")
        rows = [s.text for s in app.screen._compositor.render_strips()]
        assert len(columns_at(rows, "$5+$10")) == 1, rows
        assert len(columns_at(rows, "+$10.00")) == 1, rows


async def test_at_the_seat_limit_the_keys_offer_no_seat(make_server: ServerFactory) -> None:
    """With the most seats a player may hold (three) at a table with seats free, the
    keys line offered "s sit (next round)", and s was refused for the seat limit."""
    server = await make_server(timers=LONG, tables=NINE)
    app = StudApp(url(server), "ann", table="nine")
    async with app.run_test(size=(120, 40)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s", "s")
        await until(p, lambda: len(app.own_seats()) == 2, "two seats")
        assert "s sit" in shown(app, "#keys")
        await p.press("s")
        await until(p, lambda: len(app.own_seats()) == 3, "three seats")
        assert "s sit" not in shown(app, "#keys")
        await p.press("2", "d")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        assert "s sit" not in shown(app, "#keys")
