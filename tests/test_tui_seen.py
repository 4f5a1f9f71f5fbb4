"""What a player saw at the terminal that read otherwise than the table, the browser or
the wallet: a raise missing from History, the jackpot news in other words than the
browser's, table titles cut to five letters in a lobby with room to spare."""

from __future__ import annotations

from typing import Any, cast

import pytest
from rich.cells import cell_len
from rich.text import Text

from clients.tui import PlayScreen, StudApp
from clients.tui.lobby import lobby_row
from clients.tui.render import history_hand
from tests.conftest import ClientFactory, ServerFactory
from tests.test_tui import LONG, phase, sees, shown, until, url
from tests.test_tui_small import NAMES, NINE
from tests.test_tui_words import screen_lines


def test_history_shows_a_raised_hand_s_stake_as_the_table_did() -> None:
    """The table showed "$1+$2 P" for a raised hand, History "$1.00 P": the raise was
    gone from the hand's stake."""
    result = {"outcome": "no_qualify", "net": -100, "returned": 200, "progressive_prize": 0}
    seat: dict[str, Any] = {
        "seat": 7, "ante": 100, "progressive": True, "decision": "raise",
        "cards": ["As", "4h", "3s", "Ad", "2c"], "hand": {"label": "One Pair"}, "result": result,
    }  # fmt: skip
    for two_lines in (False, True):
        line = Text.from_markup(history_hand(seat, "you", two_lines=two_lines)).plain
        assert "$1+$2 P" in line, line
    folded = {**seat, "decision": "fold", "result": {**result, "outcome": "fold"}}
    assert "$1.00 P" in Text.from_markup(history_hand(folded, "you")).plain


def jack_row() -> dict[str, Any]:
    """A lobby row whose progressive pays on trips (the labels are the variant's own)."""
    prizes = [{"category": "THREE_OF_A_KIND", "label": "Three of a Kind", "percent_bp": 500}]
    raises = [{"category": "TWO_PAIR", "label": "Two Pair", "odds": "2"}]
    variant = {"name": "jack", "title": "Jackpot Test Stud", "progressive": prizes}
    return {
        "id": "jack-9",
        "title": "Jackpot test",
        "variant": {**variant, "raise_paytable": raises},
    }


def test_the_jackpot_news_says_the_paytable_s_hand_and_the_table_s_title() -> None:
    """The terminal said "with a Three Of A Kind at jack-9" where the browser says
    "with a Three of a Kind at Jackpot test.": the hand as the paytable names it, the
    table by its title, as the README says both clients word it."""
    from clients.tui.words import jackpot_won_text

    frame = {"t": "jackpot_won", "table": "jack-9", "name": "bot6", "amount": 5_087}
    trips = {**frame, "category": "THREE_OF_A_KIND"}
    said = "JACKPOT! bot6 won $50.87 with a Three of a Kind at Jackpot test."
    assert jackpot_won_text(trips, jack_row()) == said
    # lower case on the wire too; a hand the progressive does not list, from the raise's
    two_pair = {**frame, "category": "two_pair"}
    assert jackpot_won_text(two_pair, jack_row()).endswith("with a Two Pair at Jackpot test.")
    # a table the lobby does not list (yet): its id, and the browser's words of the hand
    assert jackpot_won_text({**frame, "category": "FOUR_OF_A_KIND"}, None) == (
        "JACKPOT! bot6 won $50.87 with a Four of a Kind at jack-9."
    )


async def test_the_lobby_tells_the_jackpot_news_with_the_table_s_title(
    make_server: ServerFactory,
) -> None:
    """The news as the lobby says it: the table's title from the lobby, not its id."""
    server = await make_server()
    app = StudApp(url(server), "ann")
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: app.lobby is not None, "the lobby")
        lobby = app.lobby or {}
        titled = [
            {**r, "title": "Alpha Room"} if r["id"] == "alpha" else r for r in lobby["tables"]
        ]
        app._on_frame({**lobby, "tables": titled})  # the test server titles a table by its id
        row = lobby_row(app.lobby, "alpha") or {}
        news = {"t": "jackpot_won", "table": "alpha", "name": "bob", "amount": 5_000}
        app._on_frame({**news, "category": "STRAIGHT_FLUSH"})
        said = await sees(p, app, "#message", "JACKPOT!")
        assert said == f"JACKPOT! bob won $50.00 with a Straight Flush at {row['title']}.", said


def report_lobby() -> dict[str, Any]:
    """Four nine-seat tables, two jackpots: the lobby an 80-column player saw."""

    def row(table: str, title: str, game: str, jackpot: str) -> dict[str, Any]:
        return {
            "id": table, "title": title, "variant": {"name": table, "title": game},
            "seats": 9, "taken": 9, "min_ante": 100, "max_ante": 10_000, "spectators": 0,
            "phase": "showdown", "jackpot": jackpot,
        }  # fmt: skip

    return {
        "tables": [
            row("bermuda-9", "Bermuda 9", "Bermuda Poker", "main"),
            row("casino-9", "Casino Stud 9", "Casino Stud Poker", "main"),
            row("jack-9", "Jackpot test", "Jackpot Test Stud", "test"),
            row("stud-9", "Stud Poker 9", "Stud Poker", "main"),
        ]
    }


@pytest.mark.parametrize("width", [78, 76])
def test_at_80_columns_the_lobby_cuts_the_game_before_the_table_s_title(width: int) -> None:
    """ "Bermu…", "Casin…", "Jackp…", "Stud …": the titles were cut to five letters with
    the game's column whole beside them, so two tables of one game looked alike. The
    title takes the room; the game gives way first, and the columns before it stay whole."""
    from clients.tui.lobby import LOBBY_COLUMNS, LOBBY_PADDING, lobby_rows

    jackpots = {"main": 1_077_070, "test": 50_280}
    rows = lobby_rows(report_lobby(), jackpots, width)
    titles = [cells[0] for _, cells in rows]
    assert titles == ["Bermuda 9", "Casino Stud 9", "Jackpot test", "Stud Poker 9"], titles
    columns = list(zip(*(cells for _, cells in rows), strict=True))
    widths = [
        max(cell_len(h), *(cell_len(c) for c in col))
        for h, col in zip(LOBBY_COLUMNS, columns, strict=True)
    ]
    assert sum(widths) + LOBBY_PADDING * len(widths) <= width, (widths, rows)
    assert columns[4] == ("Main $10,770.70", "Main $10,770.70", "Test $502.80", "Main $10,770.70")
    assert columns[1] == ("Showdown",) * 4 and columns[6] == ("0",) * 4
    assert any(game.endswith("…") for game in columns[5]), columns[5]  # cut, not gone
    assert all(len(game) >= len("Game") for game in columns[5]), columns[5]
    # with the room for all, nothing is cut
    roomy = lobby_rows(report_lobby(), jackpots, 118)
    assert [cells[5] for _, cells in roomy][1] == "Casino Stud Poker"


async def test_tab_in_the_decision_goes_to_the_hands_still_waiting(
    make_server: ServerFactory,
) -> None:
    """`r` on #8, Tab, `r`, Tab: the Tab stopped on #8, raised already; `f` there sent
    nothing, and the clock folded #9's pair of Aces. In the decision Tab goes round the
    hands still waiting (the browser's nextWaiting), and a decision key on a decided hand
    says what that hand did and which one waits."""
    server = await make_server(timers=LONG)
    app = StudApp(url(server), "ann", table="alpha")
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s", "s", "s")
        await until(p, lambda: app.own_seats() == [0, 1, 2], "three seats")
        await until(p, lambda: app.selected == 2, "the last seat taken selected")
        await p.press("1", "tab", "1", "tab", "1", "d")  # seat 2 selected
        await until(p, lambda: phase(app) == "deciding", "the deal")
        assert app.selected == 1
        await p.press("r")
        await until(p, lambda: decision(app, 1) == "raise", "seat 2 raised")
        tabbed = []
        for _ in range(4):
            await p.press("tab")
            tabbed.append(app.selected)
        assert tabbed == [2, 0, 2, 0], tabbed  # never the raised seat 2
        await p.press("r")
        await until(p, lambda: decision(app, 0) == "raise", "seat 1 raised")
        await p.press("f")  # seat 1 is decided: nothing sent, seat 3 waits
        said = await sees(p, app, "#message", "nothing sent")
        assert said.startswith("Seat 1 was raised already; nothing sent. Seat 3 is"), said
        assert app.selected == 2 and decision(app, 0) == "raise"
        await p.press("tab")  # the only hand waiting: Tab stays on it
        assert app.selected == 2
        await p.press("f")
        await until(p, lambda: decision(app, 2) == "fold", "seat 3 folded")
        await p.press("tab")  # nothing waits: Tab goes round every own seat again
        assert app.selected == 0


def decision(app: StudApp, seat: int) -> str | None:
    return cast(str | None, ((app.snapshot or {})["seats"][seat] or {}).get("decision"))


def test_a_decision_key_on_a_decided_hand_points_at_those_still_waiting() -> None:
    """The words, whole where the line has room, shorter where it has not."""
    from clients.tui.words import not_waiting_text

    raised = {"cards": ["2c"] * 5, "decision": "raise"}
    said = not_waiting_text(7, raised, [8, 6])
    assert said[0] == (
        "Seat 8 was raised already; nothing sent. Seat 9 is selected, still waiting "
        "(seat 7 too): f fold · r raise."
    )
    assert all(cell_len(s) <= 78 for s in said[1:]) and "seat 9" in said[-1].lower(), said
    out = not_waiting_text(0, {"cards": None, "decision": None}, [1])
    assert out[0] == (
        "Seat 1 has no hand this round; nothing sent. Seat 2 is selected, still waiting: "
        "f fold · r raise."
    )
    assert min(cell_len(s) for s in out) <= 78, out


async def test_at_80x24_the_leave_warning_leaves_every_seat_in_view(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """Nine seats, three of them the player's, a round played (its Last round line
    under the seats), #8 raised: the first l's warning took four lines and pushed seat
    9, one of the hands it named, and the legend off the screen. It says the same in
    fewer words where the seats leave no room for more, and the second l still leaves."""
    server = await make_server(timers={**LONG, "results": 1}, tables=NINE)
    others = {n: await connect(server, NAMES[n % 3]) for n in range(6)}
    for n, other in others.items():
        await other.request("sit", table="nine", seat=n)

    async def others_bet_and_deal() -> None:
        for n, other in others.items():
            await other.request("ante", table="nine", seat=n, amount=100)
            await other.request("deal", table="nine")

    app = StudApp(url(server), "Terry Terminal", table="nine")
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s", "s", "s")
        await until(p, lambda: app.own_seats() == [6, 7, 8], "three seats")
        await p.press("1", "tab", "1", "tab", "1", "d")
        await others_bet_and_deal()
        await until(p, lambda: phase(app) == "deciding", "the first deal")
        for n in range(6):
            await others[n].request("fold", table="nine", seat=n)
        await p.press("f", "tab", "f", "tab", "f")
        await until(p, lambda: phase(app) in ("waiting", "betting"), "the next round")
        await sees(p, app, "#player", "Last round")
        await p.press("1", "tab", "1", "p", "tab", "1", "p", "d")
        await others_bet_and_deal()
        await until(p, lambda: phase(app) == "deciding", "the second deal")
        while app.selected != 7:
            await p.press("tab")
        await p.press("r")
        await until(p, lambda: decision(app, 7) == "raise", "#8 raised")
        await p.press("l")
        await sees(p, app, "#message", "folds your")
        lines = screen_lines(app)
        said = " ".join(shown(app, "#message").split())
        assert "#7, #9" in said and "#8" in said and "l again" in said.lower(), said
        for n in range(1, 10):
            assert any(line[:5].strip(" ▶") == str(n) for line in lines), (n, lines)
        assert any("P progressive bet" in line for line in lines), lines
        assert any("Last round" in line for line in lines), lines
        await p.press("l")
        await until(p, lambda: app.table_id is None, "the lobby")
    # at 120x40 the seats leave room: the warning is said whole
    server = await make_server(timers=LONG, tables=NINE)
    others = {n: await connect(server, NAMES[n % 3]) for n in range(6)}
    for n, other in others.items():
        await other.request("sit", table="nine", seat=n)
    app = StudApp(url(server), "Wide Terminal", table="nine")
    async with app.run_test(size=(120, 40)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s", "s")
        await until(p, lambda: len(app.own_seats()) == 2, "two seats")
        await p.press("1", "tab", "1", "d")
        await others_bet_and_deal()
        await until(p, lambda: phase(app) == "deciding", "the deal at 120")
        await p.press("l")
        said = " ".join((await sees(p, app, "#message", "folds your")).split())
        assert said.startswith("Leaving now folds your undecided hands on seat #7, #8"), said
        assert said.endswith("Press l again to fold and leave."), said
