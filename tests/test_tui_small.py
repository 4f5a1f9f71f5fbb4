"""The terminal table on a small screen (80x24) with every seat taken: each seat one
line, the player's own seat in view, the keys of the moment rather than all of them."""

from __future__ import annotations

from rich.cells import cell_len

from clients.tui import PlayScreen, StudApp
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
