"""What a player reads on the terminal table, at 80x24 to 120x40 with a full table:
the lobby's columns, the link in words, refusals, results, names, the jackpot, the
progressive marker, messages on their own screen, and a spectator's s."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from textual.widgets import DataTable

from clients.tui import PlayScreen, StudApp
from clients.tui.lobby import lobby_rows
from clients.tui.render import (
    info_text,
    legend_text,
    player_text,
    seats_text,
)
from clients.tui.screens import HistoryScreen
from clients.tui.words import describe_error
from server.admin.agent import set_paused
from server.app import StudServer
from tests.conftest import ClientFactory, ServerFactory
from tests.console import Operator
from tests.test_admin_api import make_console
from tests.test_tui import LONG, footer_keys, hold_reconnects, sees, shown, until, url
from tests.test_tui_small import NINE

__all__ = ["make_console"]  # a fixture used below

LONG_NAMES = ["Maximilian Alexandrovich", "Konstantinopoulou", "Terminal_Tom_Longname_X"]


def screen_lines(app: StudApp) -> list[str]:
    """The screen as a person reads it: its rows of text."""
    return [strip.text.rstrip() for strip in app.screen._compositor.render_strips()]


async def test_the_lobby_shows_its_columns_lined_up_with_rows_and_no_scrollbar(
    make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before the lobby came, its headings were drawn as wide as their own words
    ("Table  Now  Free seats  Ante…"), out of line with the rows drawn later; at 80 and
    100 columns a horizontal scrollbar (a stray block on a highlighted row) sat under
    the rows."""
    server = await make_server()
    gate = hold_reconnects(monkeypatch)
    for size in ((100, 30), (80, 24)):
        app = StudApp(url(server), "ann")
        async with app.run_test(size=size) as p:
            await p.pause()
            assert not any("Ante" in line for line in screen_lines(app))
            gate.set()
            table = app.screen.query_one(DataTable)
            await until(p, lambda: table.row_count == 2, "the lobby")  # noqa: B023
            lines = screen_lines(app)
            head = next(i for i, line in enumerate(lines) if "Free" in line)
            assert lines[head + 1].index("Waiting") == lines[head].index("Now"), lines
            assert lines[head].rstrip().endswith("Watch"), lines  # whole: it read "Wat"
            assert "beta" in lines[head + 2] and lines[head + 3].startswith(" ↑/↓"), lines
        gate.clear()


async def full_table(server: Any, connect: ClientFactory, seats: int = 8) -> list[Any]:
    """Seats 1..`seats` of the nine-seat table taken by players with long names."""
    others = []
    for n in range(seats):
        other = await connect(server, LONG_NAMES[n % 2] if n % 3 else f"P{n}")
        await other.request("sit", table="nine", seat=n)
        others.append(other)
    return others


async def test_offline_at_80x24_the_link_is_said_in_words_on_one_line(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """ "Not connected: cannot reach ws://127.0.0.1:51663/ws (ConnectionRefusedError);
    retrying in 7.6s" took two lines (seat 9 went off screen) and named a Python
    exception to the player."""
    server = await make_server(timers=LONG, tables=NINE)
    await full_table(server, connect)
    app = StudApp(url(server), LONG_NAMES[2], table="nine", backoff=(0.05, 0.2))
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [8], "seat 9")
        await sees(p, app, "#message", "You sit at seat 9")
        port = server.port
        await server.stop(grace=0)
        said = await sees(p, app, "#message", "refused")
        assert said.startswith(
            f"Not connected: server 127.0.0.1:{port} refused the connection; retrying in"
        )
        assert "Error" not in said and "ws://" not in said, said
        link = said.splitlines()[0]
        assert cell_len(link) <= 78, link  # whole where it fits
        # the link's line alone: what was said before went with the link
        assert app.screen.query_one("#message").region.height == 1, said
        box = app.screen.query_one("#seats-box")
        top, rows = box.scroll_offset.y, box.scrollable_content_region.height
        assert top == 0 and rows >= 9, (top, rows)  # every seat, the own one too


async def test_a_bet_short_of_play_credits_says_what_it_needs_and_that_bonus_cannot_pay(
    make_server: ServerFactory,
) -> None:
    """It read "Bonus can't be wagered: this bet needs $15.00 available (ante,
    progressive and the possible raise)": led with the bonus, named a progressive
    none had bet."""
    server = await make_server(
        timers=LONG, wallet={"starting_credits": 1_000, "starting_bonus": 5_000}
    )
    app = StudApp(url(server), "ann", table="alpha")
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat")
        await p.press("2", "d")  # $5: with its $10 raise, $15 of the $10 there is
        said = await sees(p, app, "#message", "Not enough")
        assert said.replace("\n", " ") == (
            "Not enough chips: this bet needs $15.00 available (ante $5.00 and the raise it "
            "may call for, $10.00); you have $10.00. Bonus credits ($50.00) cannot be wagered "
            "at this game. Press b to buy chips."
        )
        await p.press("p", "d")
        said = await sees(p, app, "#message", "$16.00")
        assert "(ante $5.00, progressive $1.00 and the raise it may call for, $10.00)" in (
            said.replace("\n", " ")
        )


def test_a_refusal_for_funds_names_no_progressive_it_does_not_know_of() -> None:
    """From the frame alone (not a bet of this terminal's): the parts it may hold."""
    frame = {"code": "insufficient_funds", "needed": 1_500, "available": 1_200, "bonus": 0}
    said = describe_error(frame)
    assert said.startswith("Not enough chips: this bet needs $15.00 available"), said
    assert "you have $12.00" in said and "Bonus" not in said
    frame = {**frame, "code": "bonus_not_playable", "bonus": 5_000}
    assert "Bonus credits ($50.00) cannot be wagered at this game" in describe_error(frame)


def test_the_jackpot_is_named_in_words_not_by_its_id() -> None:
    """ "JACKPOT main $1,000.00", "jackpots: main": the meter's id, which the protocol
    gives no title for; one jackpot needs no name, several are told apart."""
    snap = {
        "title": "Alpha", "variant": "casino-stud", "min_ante": 100, "max_ante": 10_000,
        "phase": "waiting", "jackpot": {"name": "main", "amount": 100_000}, "seats": [],
    }  # fmt: skip
    line = info_text(snap, None, None).plain
    assert "Jackpot $1,000.00" in line and "main" not in line, line
    row = {"id": "a", "seats": 5, "taken": 0, "min_ante": 100, "max_ante": 500, "jackpot": "main"}
    ((_, cells),) = lobby_rows({"tables": [row]}, {"main": 100_000})
    assert cells[4] == "$1,000.00"
    app = StudApp("ws://127.0.0.1:1/ws", "ann")
    app.jackpots = {"main": 100_000}
    head = app.head_text().plain
    assert "jackpot $1,000.00" in head and "main" not in head, head
    # several: each by its id in words
    app.jackpots = {"main": 100_000, "high_roller": 500_000}
    head = app.head_text().plain
    assert "jackpots: High Roller $5,000.00 · Main $1,000.00" in head, head
    rows = lobby_rows({"tables": [row, {**row, "id": "b", "jackpot": "high_roller"}]}, app.jackpots)
    assert [c[4] for _, c in rows] == ["Main $1,000.00", "High Roller $5,000.00"]
    line = info_text(snap, None, None, several_jackpots=True).plain
    assert "Main jackpot $1,000.00" in line, line


async def test_a_message_stays_on_the_screen_it_was_said_on(make_server: ServerFactory) -> None:
    """ "No decision is due now.", said at the table, was still there on the History
    screen, as if about it."""
    server = await make_server(timers=LONG)
    app = StudApp(url(server), "ann", table="alpha")
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat")
        await p.press("f")
        await sees(p, app, "#message", "No decision is due now")
        await p.press("h")
        await until(p, lambda: isinstance(app.screen, HistoryScreen), "the history")
        await sees(p, app, "#history", "No rounds yet")
        assert "No decision" not in shown(app, "#message")
        await p.press("h")
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table again")
        await p.press("f")  # said again at the table: there again
        await sees(p, app, "#message", "No decision is due now")


async def test_a_spectator_pressing_s_is_told_how_to_sit(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """s did nothing for a spectator, not even say why."""
    server = await make_server(timers=LONG, tables=NINE)
    others = await full_table(server, connect)
    app = StudApp(url(server), "wendy", table="nine", watch=True)
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: app.snapshot is not None, "the table")
        await p.press("s")
        said = await sees(p, app, "#message", "watching")
        play = f"stud-client play --url {url(server)} --table nine"  # this server, not 8765
        assert play in said.replace("\n", " ") and "1 seat free" in said, said
        await others[0].request("sit", table="nine", seat=8)
        await until(p, lambda: all((app.snapshot or {})["seats"]), "every seat taken")
        await p.press("s")
        said = await sees(p, app, "#message", "Every seat")
        assert play in said.replace("\n", " "), said
        # offline: l waits for the link (greyed in the footer), and so the keys line says
        await server.stop(grace=0)
        keys = await sees(p, app, "#keys", "offline")
        assert not re.search(r"(^|· )[hlq] ", keys), keys  # h and q: in the footer
        assert footer_keys(app) == {"h", "q"}, footer_keys(app)
        assert "Every seat" not in shown(app, "#message")  # the table as it was: gone


def nine(phase: str, outcome: str = "lose") -> dict[str, Any]:
    """A full table of long names in `phase`: cards and hands once dealt, results at the
    showdown (`outcome` for every hand), a progressive on every other seat."""

    def seat(n: int) -> dict[str, Any]:
        name = LONG_NAMES[n % 3] if n % 2 == 0 else f"P{n}"
        dealt = phase != "betting"
        return {
            "player_id": f"p{n}", "name": name, "ante": 2_500, "progressive": n % 2 == 0,
            "ready": True, "decision": "raise" if phase == "showdown" else None,
            "cards": ["Kh", "Ks", "Kd", "7c", "7d"] if dealt else None,
            "hand": {"label": "Three of a Kind" if n == 4 else "One Pair"} if dealt else None,
            "result": {"outcome": outcome, "net": 2_500 if outcome == "no_qualify" else -7_500}
            if phase == "showdown" else None,
        }  # fmt: skip

    return {"phase": phase, "seats": [seat(n) for n in range(9)]}


@pytest.mark.parametrize("width", [76, 96, 116])
def test_a_name_keeps_its_width_through_a_round_and_a_cut_one_says_so(width: int) -> None:
    """Names were cut with nothing to show it ("Terminal_Tom_Lon", "Maximilian
    Alexandrovi"), and the name column went from 24 cells at the bets to 18 once dealt
    and back: every column after it moved."""
    columns = set()
    for phase in ("betting", "deciding", "showdown"):
        lines = seats_text(nine(phase), "p0", 0, width).plain.splitlines()
        assert len(lines) == 9 and all(cell_len(line) <= width for line in lines), lines
        bet = re.search(r"\$25(\.00|\+\$50)", lines[0])  # "$25+$50" once raised
        assert bet is not None, lines[0]
        columns.add(bet.end())  # the column's right edge
        for n, line in enumerate(lines):
            name = nine(phase)["seats"][n]["name"]
            assert name in line or (name[:10] in line and "…" in line), line
    assert len(columns) == 1, (width, columns)
    if width >= 96:  # room for every name whole
        assert all(
            name in seats_text(nine("showdown"), None, 0, width).plain for name in LONG_NAMES
        )


def test_the_progressive_marker_has_a_legend_and_a_colour_of_its_own() -> None:
    """ "P" was explained nowhere, in the red of hearts and of losses."""
    seats = seats_text(nine("deciding"), None, None, 76)
    marks = [span.style for span in seats.spans if seats.plain[span.start : span.end] == "P"]
    assert marks and all("red" not in str(style) for style in marks), marks
    assert all(str(style) == str(marks[0]) for style in marks)
    legend = legend_text(nine("deciding"), seats)
    assert "P progressive bet" in legend.plain
    assert any(str(s.style) == str(marks[0]) for s in legend.spans)
    none = {
        **nine("betting"),
        "seats": [{**s, "progressive": False} for s in nine("betting")["seats"]],
    }
    assert "P progressive" not in legend_text(none, seats_text(none, None, None, 76)).plain


def test_results_are_in_the_browser_s_words_and_a_short_one_is_explained() -> None:
    """ "No qualify +$1.00" where the browser says "Dealer did not qualify": its words
    where the line has room; at 80 columns the browser's narrow badge, in the legend."""
    roomy = {**nine("showdown", "no_qualify"), "seats": [None] * 8}
    roomy["seats"].append({**nine("showdown", "no_qualify")["seats"][1]})
    assert "Dealer did not qualify +$25.00" in seats_text(roomy, None, None, 116).plain
    assert (
        "Dealer did not qualify" in seats_text(nine("showdown", "no_qualify"), None, 0, 116).plain
    )
    narrow = nine("showdown", "no_qualify")
    seats = seats_text(narrow, None, 0, 76)
    assert "No qualify +$25.00" in seats.plain
    assert "No qualify: the dealer did not qualify" in legend_text(narrow, seats).plain
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    assert '"No qualify"' in readme and '"P"' in readme


async def test_the_own_seat_stays_in_view_when_a_long_message_shortens_the_seats(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """A refusal of three lines, then the link's line, at 80x24: the seats gave way,
    and the player's own seat, the last, went below them unseen. (Offline, the keys line
    takes a line less since, and a message goes with the link: the refusal alone, on a
    screen two rows less, is tried.)"""
    server = await make_server(
        timers=LONG, tables=NINE, wallet={"starting_credits": 1_000, "starting_bonus": 5_000}
    )
    await full_table(server, connect)
    app = StudApp(url(server), LONG_NAMES[2], table="nine", backoff=(0.05, 0.2))
    async with app.run_test(size=(80, 21)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [8], "seat 9")
        await p.press("4", "p", "d")
        await sees(p, app, "#message", "Not enough chips")
        box = app.screen.query_one("#seats-box")

        def in_view() -> bool:
            top, rows = box.scroll_offset.y, box.scrollable_content_region.height
            return rows < 9 and top <= 8 < top + rows

        await until(p, in_view, "the own seat in view")


async def test_a_server_shutting_down_is_said_whole_at_80x24(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """The shutdown notice was put after the phase and its clock on one cut line:
    "CLOSING: … a round not over wi…". It has lines of its own, whole at 80 columns."""
    server = await make_server(timers={**LONG, "results": 0.5}, tables=NINE)
    others = await full_table(server, connect)
    for n, other in enumerate(others):  # a round in play: the shutdown waits for it
        await other.request("ante", table="nine", seat=n, amount=500)
        await other.request("deal", table="nine")
    app = StudApp(url(server), "Terminal_Tom_Longname_X", table="nine")
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await until(p, lambda: (app.snapshot or {}).get("phase") == "deciding", "the deal")
        task = asyncio.ensure_future(server.stop(grace=30))
        await until(p, lambda: bool((app.snapshot or {}).get("paused")), "the notice")
        await p.pause()
        reason = str((app.snapshot or {})["paused"]["reason"])
        text = " ".join(line.strip() for line in screen_lines(app))
        assert reason in " ".join(text.split()), screen_lines(app)
        assert all(cell_len(line) <= 80 for line in screen_lines(app))
        for n, other in enumerate(others):  # the round ends: the server stops
            await other.request("fold", table="nine", seat=n)
        await asyncio.wait_for(task, 40)


async def test_at_80_columns_the_lobby_heading_breaks_between_its_parts(
    make_server: ServerFactory,
) -> None:
    """ "casino-stud lobby · Maximilian Alexandrovich · balance $1,000.00 · jackpot
    $1,000.00 · connected" wrapped at 80 columns wherever the width ran out, "balance" on
    one line and its amount on the next."""
    server = await make_server()
    app = StudApp(url(server), LONG_NAMES[0])
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: app.screen.query_one(DataTable).row_count == 2, "the lobby")
        head = [line for line in screen_lines(app)[:3] if line.strip()]
        assert any(line.endswith("balance $1,000.00") for line in head), head
        assert any(line.strip().startswith("jackpot $") for line in head), head
        assert all(cell_len(line) <= 80 for line in head), head


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_betting_keys_stay_on_one_line_while_chips_are_built(
    make_server: ServerFactory, connect: ClientFactory, size: tuple[int, int]
) -> None:
    """At 80x24 the keys of the bets ("s sit · 1-5 add $1/$5/$10/$25/$100 · ⌫ remove
    chip · …") wrapped onto a second line while chips were stacked, taking a row from
    the seats. Shorter words, then fewer keys: the chips and d deal stay."""
    server = await make_server(timers=LONG, tables=NINE)
    await full_table(server, connect)
    app = StudApp(url(server), LONG_NAMES[2], table="nine")
    async with app.run_test(size=size) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [8], "seat 9")
        await p.press("3", "2")
        await until(p, lambda: app.built_bets() == {8: (1_500, False)}, "$15 built")
        keys = shown(app, "#keys")
        assert app.screen.query_one("#keys").region.height == 1, keys
        assert cell_len(keys) <= size[0] - 2, keys
        assert "1-5 add $1/" in keys and "d deal" in keys, keys
        if size[0] >= 120:  # room for every key in its own words
            assert "⌫ remove chip" in keys and "tab next seat" in keys, keys
        assert all(cell_len(line) <= size[0] for line in screen_lines(app))


async def test_a_long_table_title_leaves_the_lobby_s_last_columns_whole(
    make_server: ServerFactory,
) -> None:
    """A long table title took the room of the lobby's last columns at 80 columns: the
    game was cut and Watch gone. The columns before the game and Watch stay whole; the
    game gives way first (it is mostly in the title), then the title, cut where it
    says so."""
    title = "The Grand Salon of the Nine Seat Casino Stud Table"
    server = await make_server(timers=LONG, tables=[{**NINE[0], "title": title}])
    for size in ((80, 24), (120, 40)):
        app = StudApp(url(server), "ann")
        async with app.run_test(size=size) as p:
            table = app.screen.query_one(DataTable)
            await until(p, lambda: table.row_count == 1, "the lobby")  # noqa: B023
            lines = screen_lines(app)
            head = next(i for i, line in enumerate(lines) if "Free" in line)
            assert lines[head].rstrip().endswith("Watch"), lines
            assert " Cas" in lines[head + 1] and "$1 – $100" in lines[head + 1], lines
            assert lines[head + 1].rstrip().endswith("0"), lines
            assert (title in lines[head + 1]) is (size[0] > 100), lines
            assert "…" in lines[head + 1] or size[0] > 100, lines


@pytest.mark.parametrize("width", [76, 116])
def test_wide_letters_in_a_name_take_their_cells(width: int) -> None:
    """A name's room was counted in letters: twenty Chinese letters (two cells each) made
    a 98-cell wallet line at 80 columns, and a seat's name column wider than the others,
    moving every column after it."""
    wide = "王小明李小龍張三豐王小明李小龍張三豐王小"  # 20 letters, 40 cells
    wallet = {"balance": 998_100, "held": 3_400, "bonus": 250_000}
    line = player_text(wide, wallet, [], False, 0, 100, width=width).plain.splitlines()[0]
    assert cell_len(line) <= width, line
    snap = nine("deciding")
    snap["seats"][2]["name"] = wide
    lines = seats_text(snap, "p0", 0, width).plain.splitlines()
    assert all(cell_len(line) <= width for line in lines), lines
    ends = [re.search(r"\$25\.00", line) for line in lines]  # the bet column's right edge
    edges = {cell_len(line[: end.end()]) for line, end in zip(lines, ends, strict=True) if end}
    assert len(edges) == 1 and all(ends), (edges, lines)


@pytest.mark.parametrize(
    ("size", "reason", "last_words"),
    [
        ((80, 24), "lease", "refunded."),
        ((80, 24), "store_lost", "meanwhile."),
        ((120, 40), "store_lost", "meanwhile."),
        ((120, 40), "lease", "refunded."),
    ],
)
async def test_a_paused_table_says_why_whole_and_offers_none_of_its_keys(
    make_server: ServerFactory,
    connect: ClientFactory,
    size: tuple[int, int],
    reason: str,
    last_words: str,
) -> None:
    """A suspended table's reason was cut ("…this server cannot renew its hold on the
    table. Nothi…" at 80 columns), and the keys line still offered the chips, d deal and
    s sit, which the table refuses until it resumes. The reason reads whole, the
    player's own seats stay on screen, and the keys line says nothing of the table acts."""
    server = await make_server(timers=LONG, tables=NINE)
    await full_table(server, connect, seats=6)
    app = StudApp(url(server), LONG_NAMES[2], table="nine")
    async with app.run_test(size=size) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s", "s", "s")
        await until(p, lambda: app.own_seats() == [6, 7, 8], "three seats")
        room = server.rooms["nine"]
        room._suspend(reason, room.now())
        await until(p, lambda: "suspension" in (app.snapshot or {}), "the pause")
        await p.pause()
        info = shown(app, "#info")
        assert "…" not in info and info.rstrip().endswith(last_words), info
        lines = screen_lines(app)
        assert any(line.rstrip().endswith(last_words) for line in lines), lines
        box = app.screen.query_one("#seats-box")
        top, rows = box.scroll_offset.y, box.scrollable_content_region.height
        assert top <= 6 and top + rows > 8, (top, rows)  # the own seats 7-9 in view
        keys = shown(app, "#keys")
        for offered in ("s sit", "d deal", "1-5", "f fold", "r raise"):
            assert offered not in keys, keys
        assert "resumes" in keys, keys


async def test_a_suspended_account_is_told_why_and_offered_no_seat(
    make_console: Callable[..., Awaitable[StudServer]],
) -> None:
    """Suspended by the casino, the player's seat went and s was refused, in words that
    left out the operator's reason; the keys line went on offering "s sit down". The
    refusal says why, and the keys line what the player may still do."""
    server = await make_console(timers=LONG)
    op = await Operator.sign_in(server)
    app = StudApp(url(server), "sam", table="alpha")
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat")
        await op.act(f"/api/players/{app.player_id}/suspend", "chip dumping")
        await until(p, lambda: app.own_seats() == [], "the seat gone")
        await p.press("s")
        said = await sees(p, app, "#message", "chip dumping")
        assert "suspended" in said, said
        keys = shown(app, "#keys")
        assert "s sit" not in keys and "suspended" in keys, keys


async def test_the_lobby_keeps_one_order_and_gives_a_long_title_the_spare_room(
    make_server: ServerFactory,
) -> None:
    """The rows came in the order the process answering listed them (its own tables
    first): after a move the same lobby read "Nine…, stud-1, bermuda-1, solo", then
    "bermuda-1, Nine…, solo, stud-1". They go by title now. And at 80 columns "Nine Sea…"
    was cut with room left over at the end of the row (kept for a scrollbar not shown)."""
    tables = [
        *NINE,
        {"id": "stud-1", "variant": "stud-poker", "seats": 7},
        {"id": "bermuda-1", "variant": "bermuda", "seats": 7},
        {"id": "solo", "variant": "casino-stud", "seats": 1},
    ]
    server = await make_server(tables=tables)
    app = StudApp(url(server), "ann")
    async with app.run_test(size=(80, 24)) as p:
        table = app.screen.query_one(DataTable)
        await until(p, lambda: table.row_count == 4, "the lobby")
        await p.pause()
        lines = screen_lines(app)
        head = next(i for i, line in enumerate(lines) if "Free" in line)
        firsts = [line.split()[0] for line in lines[head + 1 : head + 5]]
        assert firsts == ["bermuda-1", "Nine", "solo", "stud-1"], lines
        assert cell_len(lines[head]) == 80 - 1, lines  # Watch ends where the screen does


async def test_a_table_paused_between_rounds_says_paused_not_waiting_for_bets(
    make_console: Callable[..., Awaitable[StudServer]],
) -> None:
    """An operator paused the table with no round in play: every ante was refused, and
    its phase still read "Waiting for bets" above the banner saying it was paused. It
    says Paused (the browser's word), the banner kept; once resumed, Waiting for bets."""
    server = await make_console(timers=LONG)
    op = await Operator.sign_in(server)
    app = StudApp(url(server), "sam", table="alpha")
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        assert (app.snapshot or {}).get("phase") == "waiting"
        await sees(p, app, "#info", "Waiting for bets")
        await op.act("/api/tables/alpha/pause", "new cards")
        info = await sees(p, app, "#info", "PAUSED by the casino: new cards")
        phase_line = info.splitlines()[1]
        assert phase_line.startswith("Paused") and "Waiting" not in info, info
        assert "Paused" in (Path(__file__).parent.parent / "clients/web/js/table.js").read_text()
        await op.act("/api/tables/alpha/resume", "done")
        info = await sees(p, app, "#info", "Waiting for bets")
        assert "PAUSED" not in info and "Paused" not in info, info


def test_a_round_in_play_under_a_pause_keeps_its_phase() -> None:
    """It plays on to its end: its phase is said, with the banner."""
    snap = {**nine("deciding"), "min_ante": 100, "max_ante": 500, "paused": {"reason": "x"}}
    lines = info_text(snap, None, None, width=76).plain.splitlines()
    assert lines[1].startswith("Fold or raise") and "PAUSED by the casino: x" in lines, lines
    waiting = info_text({**snap, "phase": "waiting"}, None, None, width=76).plain.splitlines()
    assert waiting[1].startswith("Paused") and "Waiting" not in waiting[1], waiting
    offline = info_text({**snap, "phase": "waiting"}, None, None, offline=True).plain.splitlines()
    assert offline[1].startswith("OFFLINE: the table as last seen (Paused)"), offline


def test_a_table_shutting_down_is_not_said_paused() -> None:
    """The server's shutdown sets `paused` with `shutdown`: the casino paused nothing,
    and the browser says "Shutting down" (then "Offline"); the terminal said Paused."""
    shutdown = {"reason": "this server is shutting down", "shutdown": True}
    snap = {**nine("waiting"), "min_ante": 100, "max_ante": 500, "paused": shutdown}
    lines = info_text(snap, None, None, width=76).plain.splitlines()
    assert lines[1].startswith("Shutting down") and "Paused" not in "".join(lines), lines
    offline = info_text(snap, None, None, offline=True).plain.splitlines()
    assert offline[1].startswith("OFFLINE: the table as last seen (Shutting down)"), offline


def test_a_table_played_elsewhere_is_not_said_offline() -> None:
    """The session went on in another terminal or a browser: the link is fine, and the
    keys line says so, but the table's line read "OFFLINE: the table as last seen"."""
    snap = {**nine("deciding"), "min_ante": 100, "max_ante": 500}
    lines = info_text(snap, None, None, offline=True, elsewhere=True).plain.splitlines()
    assert lines[1].startswith("PLAYING ELSEWHERE: the table as last seen (Fold or raise)")


@pytest.mark.parametrize("how", ["pause", "lease"])
async def test_a_paused_table_offers_b_which_buys_and_no_deal_the_table_refuses(
    make_server: ServerFactory, how: str
) -> None:
    """Paused by the casino, the keys line went on offering the chips and d deal, and d
    was refused ("the casino has paused this table"): no ante is taken until it resumes.
    The footer's b stays: a purchase is the wallet's, which a paused or suspended table
    does not hold, and it buys."""
    server = await make_server(timers=LONG)
    app = StudApp(url(server), "ann", table="alpha")
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat")
        room = server.rooms["alpha"]
        if how == "pause":
            set_paused(room, {"reason": "a dealer change", "since_ms": 1})
            await until(p, lambda: (app.snapshot or {}).get("paused"), "the pause")
        else:
            room._suspend(how, room.now())
            await until(p, lambda: "suspension" in (app.snapshot or {}), "the suspension")
        await p.pause()
        keys = shown(app, "#keys")
        for offered in ("s sit", "d deal", "1-5", "f fold", "r raise"):
            assert offered not in keys, keys
        assert "resumes" in keys, keys
        assert {"b", "c", "h", "l", "q"} <= footer_keys(app)
        await p.press("b")
        await sees(p, app, "#message", "Bought $100.00 of chips.")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_lobby_shows_the_progressive_stake_and_the_paytables_before_a_seat(
    make_server: ServerFactory, size: tuple[int, int]
) -> None:
    """The lobby showed the antes but neither the progressive stake nor any paytable:
    a player learnt them only once at the table. Under the rows, the highlighted
    table's limits, its stake among them; i shows its paytables, and whether a folded
    hand still collects the progressive there."""
    from clients.tui.screens import LobbyScreen, PaytableScreen

    server = await make_server()
    app = StudApp(url(server), "ann")
    async with app.run_test(size=size) as p:
        table = app.screen.query_one(DataTable)
        await until(p, lambda: table.row_count == 2, "the lobby")
        said = await sees(p, app, "#detail", "progressive $1 a hand")
        assert said == "alpha: ante $1 – $100 · progressive $1 a hand", said
        assert "i" in footer_keys(app)  # i Paytables
        await p.press("down")
        said = await sees(p, app, "#detail", "beta: ante $1 – $50")
        await p.press("i")
        await until(p, lambda: isinstance(app.screen, PaytableScreen), "the paytables")
        pays = await sees(p, app, "#paytable", "Raise pays")
        assert "Progressive pays" in pays and "Royal Flush" in pays, pays
        assert "A folded hand still collects its progressive prize." in pays, pays  # Stud Poker
        assert "100% of jackpot ($1,000.00)" in pays, pays
        lines = screen_lines(app)
        assert all(cell_len(line) <= size[0] for line in lines), lines
        assert any(line.count("Straight Flush") == 2 for line in lines), lines  # side by side
        await p.press("escape")
        await until(p, lambda: isinstance(app.screen, LobbyScreen), "back to the lobby")
        await p.press("up", "i")
        pays = await sees(p, app, "#paytable", "Raise pays")
        assert "A folded hand collects no progressive prize." in pays, pays  # Casino Stud


def test_the_clock_counts_to_a_shutdown_s_end_when_it_comes_first() -> None:
    """While its server shuts down, a round still deciding when the grace ends is voided:
    the clock read the round's own 43 s beside the strip's 'within 30 s'."""
    from clients.tui.app import clock_ends_ms

    shutdown = {"reason": "shutting down", "shutdown": True, "since_ms": 1, "voids_in_ms": 26_000}
    deciding = {"phase": "deciding", "ends_in_ms": 43_000, "paused": shutdown}
    assert clock_ends_ms(deciding) == 26_000
    assert clock_ends_ms({**deciding, "ends_in_ms": 9_000}) == 9_000  # the round's first
    assert clock_ends_ms({**deciding, "phase": "showdown"}) == 43_000  # nothing to void
    assert clock_ends_ms({**deciding, "paused": {"reason": "dealer change"}}) == 43_000
    assert clock_ends_ms({**deciding, "ends_in_ms": None}) is None
