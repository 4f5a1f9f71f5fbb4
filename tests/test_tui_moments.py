"""What the terminal table says is true of now: a refusal about a moment of play goes
when the table moves on, a result names the progressive bet its net counts, and the
keys line offers only keys that act."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from rich.cells import cell_len
from rich.text import Text
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static

from clients.tui import PlayScreen, StudApp
from clients.tui.bets import BetSlip
from clients.tui.keys import (
    ELSEWHERE_KEYS,
    HISTORY_KEYS,
    LOBBY_KEYS,
    OFFLINE_KEYS,
    PAYTABLE_KEYS,
    WATCH_KEYS,
    WATCH_OFFLINE_KEYS,
    play_keys,
)
from clients.tui.render import (
    LAST_ROUND_LAYOUTS,
    fairness_text,
    history_text,
    info_text,
    last_round_text,
    legend_text,
    player_text,
    seats_text,
)
from clients.tui.screens import HistoryScreen, LobbyScreen, PaytableScreen, WatchScreen
from clients.verify import OWN_COMMITMENT_NOTE, Verdict
from tests.conftest import ClientFactory, ServerFactory
from tests.decks import shuffles
from tests.test_tui import LONG, footer_keys, phase, sees, shown, until, url
from tests.test_tui_small import NINE
from tests.test_tui_words import LONG_NAMES, full_table, nine, screen_lines

PAIR = ["Qh", "Qs", "3d", "7c", "9d"]  # one pair: the progressive pays nothing
NO_QUALIFY = ["Jd", "Tc", "8h", "4s", "2c"]  # jack high: the dealer does not qualify
SIZES = [(80, 24), (120, 40)]


def message_style(app: StudApp) -> str:
    content = app.screen.query_one("#message", Static).content
    return str(getattr(content, "style", ""))


@pytest.mark.parametrize("size", SIZES)
async def test_a_refusal_about_a_moment_goes_when_the_table_moves_on(
    make_server: ServerFactory, connect: ClientFactory, size: tuple[int, int]
) -> None:
    """f with nothing to decide said "None of your hands is waiting for a decision." in
    red, and it stayed through the showdown into the next round's bets."""
    server = await make_server(timers={**LONG, "results": 0.2})
    app = StudApp(url(server), "ann", table="alpha")
    bob = await connect(server, "bob")
    async with app.run_test(size=size) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat")
        await bob.request("sit", table="alpha", seat=1)
        await bob.request("ante", table="alpha", seat=1, amount=100)
        await bob.request("deal", table="alpha")
        await p.press("1", "d")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        await p.press("r")
        await until(p, lambda: (app.snapshot or {})["seats"][0]["decision"] == "raise", "raised")
        await p.press("f")
        await sees(p, app, "#message", "Seat 1 was raised already; nothing sent.")
        assert "red" not in message_style(app) and "yellow" in message_style(app)
        await bob.request("fold", table="alpha", seat=1)
        await until(p, lambda: phase(app) == "showdown", "the showdown")
        assert "nothing sent" not in shown(app, "#message")
        await until(p, lambda: phase(app) == "waiting", "the next round")
        await p.press("r")  # said in the next round: there then, gone with it
        await sees(p, app, "#message", "No decision is due now.")
        assert "red" not in message_style(app)
        await p.press("1", "d")
        await bob.request("ante", table="alpha", seat=1, amount=100)
        await bob.request("deal", table="alpha")
        await until(p, lambda: phase(app) == "deciding", "the next deal")
        assert "No decision" not in shown(app, "#message")


def progressive_round(outcome: str, prize: int) -> dict[str, Any]:
    """A showdown of nine long names, each with a progressive bet ($1) that paid `prize`:
    a $25 ante won at even money with the raise pushed (no qualify), or the like."""
    snap = nine("showdown", outcome)
    snap["progressive_stake"] = 100
    for s in snap["seats"]:
        s["progressive"] = True
        ante, net = 2_500, 2_500 - 100 + prize
        s["result"] = {
            "outcome": outcome,
            "net": net,
            "returned": net + ante * 3 + 100,
            "progressive_prize": prize,
        }
    return snap


@pytest.mark.parametrize("width", [76, 116])
def test_a_result_names_the_progressive_its_net_counts(width: int) -> None:
    """ "No qualify +$0.00" with no word of the $1 progressive the net counted (the ante
    won $1); a prize in the net said only "prog." at 80 columns."""
    lost = progressive_round("no_qualify", 0)
    seats = seats_text(lost, "p0", 0, width)
    lines = seats.plain.splitlines()
    assert len(lines) == 9 and all(cell_len(line) <= width for line in lines), lines
    # "(P -$1)" where the line is short of room: the legend says what P is
    assert all(re.search(r"\+\$24\.00 \((incl\. )?P -\$1\)", line) for line in lines), lines
    assert "P progressive bet" in legend_text(lost, seats).plain
    won = progressive_round("lose", 5_000)
    lines = seats_text(won, "p0", 0, width).plain.splitlines()
    assert all(cell_len(line) <= width for line in lines), lines
    assert all(re.search(r"\((incl\. )?P \+\$50\)", line) for line in lines), lines
    assert "incl. P +$50" in Text.from_markup(last_round_text(won, "p0")).plain
    last = Text.from_markup(last_round_text(lost, "p0")).plain
    assert "Dealer did not qualify +$24.00 (incl. P -$1)" in last, last
    record = {"round_id": "a-1", "seats": [{**lost["seats"][0], "seat": 0}]}
    said = history_text([record], "p0", {}, width=width).plain
    assert re.search(r"\+\$24\.00 \((incl\. )?P -\$1\)", said), said
    assert all(cell_len(x) <= width for x in said.split("\n"))


async def test_at_80x24_a_progressive_that_won_nothing_is_said_with_the_net(
    make_server: ServerFactory,
) -> None:
    """The ante won $1, the progressive lost $1: "No qualify +$0.00", on the seat and in
    the Last round line, said nothing of the $1 lost beside the $1 won."""
    server = await make_server(shuffle=shuffles([PAIR, NO_QUALIFY]), timers=LONG)
    app = StudApp(url(server), LONG_NAMES[0], table="alpha")
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat")
        await p.press("1", "p", "d")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        await p.press("r")
        await until(p, lambda: phase(app) == "showdown", "the showdown")
        # a zero net unsigned, as the browser says it (format.js signedDollars): it read
        # "+$0.00" here and "$0.00" there
        seats = await sees(p, app, "#seats", "$0.00 (")
        assert re.search(r"qualify \$0\.00 \((incl\. )?P -\$1\)", seats), seats
        await sees(p, app, "#player", "Last round: seat 1 One Pair: ")
        player = shown(app, "#player")
        assert " $0.00 (incl. P -$1)" in player and "+$0.00" not in seats + player, player
        assert all(cell_len(line) <= 80 for line in screen_lines(app))
        await p.press("h")
        await until(p, lambda: isinstance(app.screen, HistoryScreen), "the history")
        said = await sees(p, app, "#history", "$0.00 (P -$1)")  # short at 80 columns
        assert " $0.00 (P -$1)" in said and "net $0.00 · balance" in said, said
        assert "+$0.00" not in said, said


def test_every_seat_taken_the_keys_offer_no_seat() -> None:
    for phase_now in ("betting", "deciding", "showdown"):
        assert "s sit" in play_keys(phase_now)
        assert "s sit" not in play_keys(phase_now, free=False), phase_now
    assert "d deal" in play_keys("betting", free=False)
    assert "tab next seat" in play_keys("showdown", free=False)


@pytest.mark.parametrize("width", [40, 58, 78, 96, 118])
def test_the_betting_keys_give_way_by_priority_where_the_line_is_short(width: int) -> None:
    """The bets' keys ran to 111 cells and wrapped at 80 columns. Where they do not fit,
    shorter words; then the least needed go first (tab with one seat, s sit with several):
    the chips and d deal stay whatever the width."""
    full = play_keys("betting")
    for several in (False, True):
        for free in (True, False):
            keys = play_keys("betting", free=free, several=several, width=width)
            assert cell_len(keys) <= width, keys
            assert keys.startswith(("s sit · 1-5 add $1/", "1-5 add $1/")), keys
            assert "d deal" in keys and ("s sit" in keys) <= free, keys
            if cell_len(full) <= width and free:
                assert keys == full
    at_80 = play_keys("betting", width=78)
    assert at_80 == "1-5 add $1/5/10/25/100 · ⌫ undo · p progressive · a rebet · x clear · d deal"
    two_seats = play_keys("betting", several=True, width=78)
    assert "tab seat" in two_seats and "s sit" not in two_seats, two_seats


async def test_the_keys_line_says_what_acts_offline_and_with_every_seat_taken(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """With every seat taken the keys offered "s sit (next round)", and s said every seat
    was taken; offline they listed the betting keys, which sent nothing."""
    server = await make_server(timers=LONG, tables=NINE)
    await full_table(server, connect)
    app = StudApp(url(server), "ann", table="nine", backoff=(0.05, 0.2))
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        keys = await sees(p, app, "#keys", "s sit")
        assert "1-5" not in keys and "d deal" not in keys, keys  # no seat: nothing to bet on
        await p.press("s")
        await until(p, lambda: app.own_seats() == [8], "the last seat")
        await until(p, lambda: "s sit" not in shown(app, "#keys"), "no s offered")
        assert "1-5 add" in shown(app, "#keys")
        assert footer_keys(app) == {"b", "c", "h", "l", "q"}
        await p.press("1", "x")
        await sees(p, app, "#message", "cleared")
        await server.stop(grace=0)
        said = await sees(p, app, "#message", "Not connected")
        assert "cleared" not in said  # of the table as it was: gone with the link
        keys = await sees(p, app, "#keys", "once the link is back")
        assert "1-5" not in keys and "d deal" not in keys and "s sit" not in keys, keys
        assert footer_keys(app) == {"h", "q"}, footer_keys(app)  # and the keys line not again
        assert cell_len(keys) <= 78, keys
        # the footer's b, c and l said the link was down: greyed out, as the keys line says
        await until(p, lambda: footer_keys(app) == {"h", "q"}, "b, c and l greyed out")
        await p.press("l")
        assert "Not connected" in shown(app, "#message")  # l said nothing of seats


@pytest.mark.parametrize("width", [78, 98, 200])
def test_the_last_round_line_of_three_hands_says_each_result_whole(width: int) -> None:
    """Three hands' results ran past 80 columns on one line and were cut: the third's
    result unseen. Shorter words where the line is short, every amount whole."""
    snap = progressive_round("no_qualify", 0)
    for s in snap["seats"][:3]:
        s["player_id"] = "p0"
    said = [last_round_text(snap, "p0", k) for k in range(LAST_ROUND_LAYOUTS)]
    text = player_text("Ann", {"balance": 100_000}, [], False, 0, 100, said, width=width)
    (line,) = [x for x in text.plain.splitlines() if x.startswith("Last round: ")]
    assert cell_len(line) <= width, line
    assert line.count("+$24.00") == 3 and all(f"{n}" in line for n in (1, 2, 3)), line
    assert ("One Pair" in line) is (width >= 200), line  # the hand's name where it fits


async def test_a_forgotten_session_takes_its_last_round_with_it(
    make_server: ServerFactory,
) -> None:
    """A server that no longer knew the session made a new player, with no History, yet
    the Last round line kept the old player's results."""
    server = await make_server(timers={**LONG, "results": 0.2})
    app = StudApp(url(server), "ann", table="alpha", backoff=(0.05, 0.2))
    async with app.run_test(size=(120, 40)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat")
        await p.press("1", "d")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        await p.press("f")
        await sees(p, app, "#player", "Last round: seat 1")
        assert app.link.client is not None
        app.link.token = "forgotten-by-the-server-0123456789abcdef"
        await app.link.client.close()
        await sees(p, app, "#message", "no longer knew this session")
        assert "Last round" not in shown(app, "#player")


@pytest.mark.parametrize("width", [78, 118])
def test_a_seat_row_shows_the_bet_built_on_it_and_a_raise_beside_the_ante(width: int) -> None:
    """The rows showed "-" for a bet built with chips but not dealt (d deals every built
    bet: the others were seen only by Tab), and a raised seat's row the ante alone."""
    betting = nine("betting")
    for s in betting["seats"][6:]:
        s.update(player_id="p0", ante=0, ready=False, progressive=False)
    text = seats_text(betting, "p0", 7, width, built={6: (1_000, False), 7: (600, True)})
    lines = text.plain.splitlines()
    assert "$10.00" in lines[6] and "built" in lines[6], lines[6]
    assert "$6.00 P" in lines[7] and "built" in lines[7], lines[7]
    assert "built" not in lines[8] and " - " in lines[8], lines[8]
    assert all(cell_len(line) <= width for line in lines), lines
    showdown = nine("showdown")  # every seat raised its $25 ante
    lines = seats_text(showdown, "p0", 0, width).plain.splitlines()
    assert all("$25+$50" in line for line in lines), lines
    assert all(cell_len(line) <= width for line in lines), lines


@pytest.mark.parametrize("width", [78, 118])
def test_the_heading_keeps_the_spectator_count_at_80_columns(width: int) -> None:
    """ "Terminal Nine · Casino Stud Poker · ante $5.00–$100.00 · progressive $1.00 · …":
    the count of spectators was cut off the end at 80 columns."""
    snap = {
        "title": "Terminal Nine", "phase": "betting", "min_ante": 500, "max_ante": 10_000,
        "progressive_stake": 100, "spectators": 3, "ends_in_ms": 9_000,
    }  # fmt: skip
    lines = info_text(snap, 9.0, 1_018_550, "Casino Stud Poker", width=width).plain.split("\n")
    assert all(cell_len(line) <= width and "…" not in line for line in lines), lines
    assert "watching 3" in "".join(lines) and "ante $5" in lines[0], lines
    assert ("$100.00" in lines[0]) is (width > 100), lines  # whole dollars where short


@pytest.mark.parametrize("width", [78, 118])
def test_a_long_table_title_leaves_the_progressive_stake_whole(width: int) -> None:
    """ "Nine Seat Casino Stud Table · Casino Stud Poker · ante $1–$100 · progressive …":
    at 80 columns the stake was cut off the heading."""
    snap = {
        "title": "Nine Seat Casino Stud Table", "phase": "betting", "min_ante": 100,
        "max_ante": 10_000, "progressive_stake": 100, "spectators": 1, "ends_in_ms": 9_000,
    }  # fmt: skip
    lines = info_text(snap, 9.0, 100_250, "Casino Stud Poker", width=width).plain.split("\n")
    assert all(cell_len(line) <= width and "…" not in line for line in lines), lines
    assert lines[0].startswith("Nine Seat Casino Stud Table · Casino Stud Poker · ante $1"), lines
    said = " · ".join(lines)
    assert re.search(r"progressive \$1(\.00)? ", said) and "watching 1" in said, lines
    # offline the phase's words are longer: the stake gives way whole, never "progressiv…"
    offline = info_text(snap, None, 100_250, "Casino Stud Poker", True, width=width).plain
    assert "…" not in offline and "watching 1" in offline, offline


@pytest.mark.parametrize("width", [78, 118, 200])
def test_the_fairness_line_gives_way_by_parts_never_mid_word(width: int) -> None:
    """ "fair ✓ (checked against the proof's own commitment) · commitment ef0765c3…e44109 ·
    client seeds none · your client se…" at 120 columns."""
    snap = {
        "phase": "showdown",
        "fairness": {"commitment": "ef" * 32, "server_seed": "00" * 32, "client_seeds": ""},
    }
    verdict = Verdict("a-1", notes=(OWN_COMMITMENT_NOTE,))
    line = fairness_text(snap, verdict, "", width).plain
    assert cell_len(line) <= width and line.endswith("your client seed none (c to change)"), line
    assert line.startswith("fair ✓ ("), line
    assert ("commitment ef" in line) is (width >= 200), line


@pytest.mark.parametrize("width", [78, 118, 200])
def test_what_rebet_would_stack_is_said_whole_in_the_room_there_is(width: int) -> None:
    """ "Seat 9: bet $0.00 (chips: none)   progressive off ($1.00)   a rebets seat 7 $…"
    at 80 columns: the amounts rebet would stack were cut."""
    slip = BetSlip()
    slip.last_bets = {6: (1_000, True), 7: (600, False), 8: (500, True)}
    words = slip.rebet_words(lambda seat: True)
    text = player_text("Kasia", {"balance": 1_000_500}, [], False, 8, 100, rebet=words, width=width)
    (line,) = [x for x in text.plain.splitlines() if x.startswith("Seat 9")]
    assert cell_len(line) <= width and "a rebets " in line and "…" not in line, line
    wanted = {78: "#7 $10+P, #8 $6, #9 $5+P", 118: "#7 $10+P, #8 $6, #9 $5+P"}
    assert wanted.get(width, "seat 7 $10.00 + progressive, seat 8 $6.00") in line, line


async def test_f_pressed_twice_folds_one_hand_and_then_shows_the_next(
    make_server: ServerFactory,
) -> None:
    """A decision moved the selection to the next waiting hand at once, unsaid: f pressed
    twice folded two hands (r twice raised two)."""
    server = await make_server(timers=LONG)
    app = StudApp(url(server), "ann", table="alpha")
    async with app.run_test(size=(120, 40)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s", "s", "s")
        await until(p, lambda: app.own_seats() == [0, 1, 2], "three seats")
        for _ in range(3):
            await p.press("tab", "1")
        await p.press("d")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        first = app.selected
        assert first is not None
        await p.press("f")
        await until(p, lambda: (app.snapshot or {})["seats"][first]["decision"] == "fold", "f")
        await p.press("f")
        said = await sees(p, app, "#message", "was folded already; nothing sent")
        seats = (app.snapshot or {})["seats"]
        assert [s["decision"] for s in seats[:3]].count("fold") == 1, seats
        assert app.selected != first and f"Seat {(app.selected or 0) + 1} is selected" in said
        await p.press("r")
        chosen = app.selected or 0
        await until(p, lambda: (app.snapshot or {})["seats"][chosen]["decision"] == "raise", "r")


async def test_words_of_bets_closed_of_clearing_and_of_a_table_left(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """A chip at a showdown on a seat with no bet said "This seat's bet is placed"; x
    said "Bets cleared." of every seat as if of the selected one; a Tab left "Seat 1 is
    not waiting" about the hand before; and a table left mid-round and opened again
    showed the Last round of the round before."""
    server = await make_server(timers={**LONG, "results": 2})
    bob = await connect(server, "bob")
    await bob.request("sit", table="alpha", seat=3)
    app = StudApp(url(server), "ann", table="alpha")
    async with app.run_test(size=(120, 40)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s", "s")
        await until(p, lambda: app.own_seats() == [0, 1], "two seats")
        await p.press("1", "tab", "1", "x")
        await sees(p, app, "#message", "Bets cleared on seats 1, 2.")
        await p.press("1", "tab", "d")  # seat 2, sitting this round out, selected
        await until(p, lambda: phase(app) == "betting", "bets open")
        await bob.request("ante", table="alpha", seat=3, amount=100)
        await bob.request("deal", table="alpha")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        assert app.selected == 1
        await p.press("f")
        await sees(p, app, "#message", "has no hand this round; nothing sent")
        dealt = app.selected
        assert dealt == 0
        await p.press("tab")  # the hand waiting, alone: Tab stays on it
        await until(p, lambda: "nothing sent" not in shown(app, "#message"), "said of the other")
        assert app.selected == dealt
        await p.press("tab", "f")
        await bob.request("fold", table="alpha", seat=3)
        await until(p, lambda: phase(app) == "showdown", "the showdown")
        await sees(p, app, "#player", "Last round")
        await p.press("tab")
        if (app.snapshot or {})["seats"][app.selected or 0]["ante"]:
            await p.press("tab")  # the seat that sat the round out
        # a seat that sat this round out stacks chips for the next one (as the browser
        # does): a key pressed at the showdown was refused in a line the next snapshot
        # took away, and the chips were gone
        sat_out = app.selected
        await p.press("1")
        assert sat_out is not None and app.bets == {sat_out: [100]}
        await until(p, lambda: phase(app) in ("waiting", "betting"), "the next round")
        assert app.bets == {sat_out: [100]}
        await p.press("d")
        await bob.request("ante", table="alpha", seat=3, amount=100)
        await bob.request("deal", table="alpha")
        await until(p, lambda: phase(app) == "deciding", "the next deal")
        await p.press("l", "l")  # leaving folds the hand
        await until(p, lambda: app.table_id is None, "the lobby")
        app.open_table("alpha")
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table again")
        await until(p, lambda: phase(app) == "deciding", "the round left, going on")
        assert "Last round" not in shown(app, "#player")


@pytest.mark.parametrize("width", [78, 160])
def test_the_wallet_line_says_held_money_is_part_of_the_balance_and_fits(width: int) -> None:
    """ "balance $9,981.00 (held for raises $34.00)  bonus $2,500.00 (not …" at 80
    columns, and it did not say the held money is counted in the balance."""
    wallet = {"balance": 998_100, "held": 3_400, "bonus": 250_000}
    text = player_text("Reviewer80", wallet, [], False, 0, 100, width=width)
    line = text.plain.splitlines()[0]
    assert cell_len(line) <= width and "…" not in line, line
    assert "balance $9,981.00 ($34.00 of it held" in line and "bonus $2,500.00" in line, line
    assert ("not playable here" in line) is (width >= 160), line


async def test_a_decision_slow_to_be_answered_is_said_sent_and_then_in_doubt(
    make_server: ServerFactory,
) -> None:
    """A frozen server: the screen showed nothing of a raise sent, then only "The server
    did not answer", never that the raise may have been taken."""
    server = await make_server(timers=LONG)
    app = StudApp(url(server), "ann", table="alpha")
    async with app.run_test(size=(120, 40)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat")
        await p.press("1", "d")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        answer = asyncio.Event()
        request = app.link.request

        async def frozen(t: str, **fields: Any) -> dict[str, Any]:
            if t != "raise":
                return await request(t, **fields)
            await answer.wait()
            raise ConnectionError("connection closed while waiting")

        app.link.request = frozen  # type: ignore[method-assign]
        await p.press("r")
        await sees(p, app, "#message", "Your raise for seat 1 is sent; waiting for the answer")
        answer.set()
        said = await sees(p, app, "#message", "was sent, and the server did not answer")
        assert "shows whether it was taken" in said, said


async def test_a_spectator_whose_session_was_forgotten_is_told_it_watches_on(
    make_server: ServerFactory,
) -> None:
    """A spectator was told "you are a new player" by a server that forgot it."""
    server = await make_server(timers=LONG)
    app = StudApp(url(server), "wendy", table="alpha", watch=True)
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: app.snapshot is not None, "the table")
        assert app.link.client is not None
        app.link.token = "forgotten-by-the-server-0123456789abcdef"
        await app.link.client.close()
        said = await sees(p, app, "#message", "no longer knew this session")
        assert "watch on as a new guest" in said and "new player" not in said, said


def test_the_legend_explains_the_short_words_of_the_last_round_line_too() -> None:
    """ "Last round: #1 No qualify +$24.00 (P -$1)" under a table cleared for the next
    round: the legend, made of the seats alone, explained neither."""
    waiting = {"phase": "waiting", "seats": [None] * 9}
    last = [last_round_text(progressive_round("no_qualify", 0), "p0", k) for k in range(4)]
    said = player_text("Ann", {"balance": 100}, [], False, 0, 100, last, width=60)
    legend = legend_text(waiting, Text.assemble(seats_text(waiting, "p0", 0, 60), "\n", said))
    assert "P progressive bet" in legend.plain and "No qualify:" in legend.plain, legend


async def test_offline_the_bet_keys_build_nothing_and_say_so(make_server: ServerFactory) -> None:
    """Offline the keys line says the table's keys act once the link is back (as the
    browser's "Keys: none act until the connection is back"), yet 1-5, ⌫, p, a and x
    went on building the bet in silence, and only d said nothing was sent."""
    server = await make_server(timers=LONG)
    app = StudApp(url(server), "ann", table="alpha", backoff=(0.05, 0.2))
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat")
        await p.press("3")
        await until(p, lambda: app.built_bets() == {0: (1_000, False)}, "$10 built")
        await server.stop(grace=0)
        await sees(p, app, "#message", "Not connected")
        for key in ("2", "backspace", "p", "a", "x"):
            await p.press(key)
            said = await sees(p, app, "#message", "nothing was built")
            assert "once the link is back" in said, (key, said)
            assert app.built_bets() == {0: (1_000, False)}, key  # as it was: kept for later
        await p.press("s")  # a key that asks the server: said not sent, as d says it
        await sees(p, app, "#message", "nothing was sent")
        assert app.own_seats() == [0]
        await p.press("x")
        await sees(p, app, "#message", "nothing was built")
        await p.press("d")
        await sees(p, app, "#message", "nothing was sent")
        await p.press("x", "f")  # judged from the table as last seen, it said "no decision"
        await sees(p, app, "#message", "nothing was sent")


async def test_a_chip_past_the_table_s_most_is_not_stacked(make_server: ServerFactory) -> None:
    """Chips went on past the table's most ante ($1,237.00 "built: d deals it" at a $100
    table), to be refused only at d. As in the browser, the chip that would go past it
    stays off, and the message says the most there is."""
    server = await make_server(timers=LONG, tables=NINE)
    app = StudApp(url(server), "ann", table="nine")
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat")
        await p.press("4", "4", "4", "4")  # $100: the most at this table
        await until(p, lambda: app.built_bets() == {0: (10_000, False)}, "$100 built")
        await p.press("1")
        await sees(p, app, "#message", "The most you can ante at this table is $100.00.")
        assert app.built_bets() == {0: (10_000, False)}
        await p.press("backspace", "5")  # $75 and a $100 chip: over it again
        await until(p, lambda: app.built_bets() == {0: (7_500, False)}, "$75 built")
        await p.press("3")  # $85: under it, stacked
        await until(p, lambda: app.built_bets() == {0: (8_500, False)}, "$85 built")


@pytest.mark.parametrize("width", [78, 118])
def test_many_chips_are_counted_rather_than_cut(width: int) -> None:
    """Forty $1 chips and a $25 read "Seat 1: bet $65.00 ($25 $1 $1 $1 $1 $1 $1 $1 $1 $1
    $1 $1…", the progressive cut off: where the chips one by one do not fit, each kind
    is counted."""
    chips = [2_500] + [100] * 40
    text = player_text("Ann", {"balance": 100_000}, chips, True, 0, 100, width=width).plain
    line = text.splitlines()[1]
    assert cell_len(line) <= width and "…" not in line, line
    assert "$65.00" in line and "$1×40" in line and "$25" in line and "ON" in line, line


@pytest.mark.parametrize("size", SIZES)
async def test_a_hand_the_clock_folded_says_so_on_its_row_and_in_the_message(
    make_server: ServerFactory, connect: ClientFactory, size: tuple[int, int]
) -> None:
    """A hand the deciding clock folded read "Folded -$6.00 (incl. P -$1)" at the
    showdown, as if the player had folded it; the seat's line went on saying "ante $5.00
    placed", and f then said only "No decision is due now." (History alone said
    "folded (timer)")."""
    server = await make_server(timers={**LONG, "decision": 0.5}, tables=NINE)
    others = await full_table(server, connect)
    app = StudApp(url(server), LONG_NAMES[2], table="nine")
    async with app.run_test(size=size) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [8], "seat 9")
        for n, other in enumerate(others):
            await other.request("ante", table="nine", seat=n, amount=100)
            await other.request("deal", table="nine")
        await p.press("1", "p", "d")  # no hand decided: the clock folds them all
        await until(p, lambda: phase(app) == "showdown", "the clock ran out")
        row = next(x for x in shown(app, "#seats").splitlines() if x.startswith("▶ 9 "))
        assert "Folded (timer) -$" in row or "Timed out -$" in row, row  # short: 80 columns
        said = await sees(p, app, "#message", "The clock ran out: your hand on seat #9 was folded.")
        assert "Seat 9: ante $1.00 folded by the clock" in shown(app, "#player")
        assert all(cell_len(line) <= size[0] for line in screen_lines(app))
        await p.press("f")
        said = await sees(p, app, "#message", "No decision is due now")
        assert "seat 9 was folded by the clock" in said, said


@pytest.mark.parametrize("width", [78, 118])
def test_a_long_name_s_wallet_line_keeps_its_bonus_whole_while_money_is_held(width: int) -> None:
    """At 80 columns, a hand in play, the line ended "bonus $2,500…": a 24-letter name,
    the balance and the money held for raises left the bonus no room."""
    wallet = {"balance": 997_100, "held": 2_000, "bonus": 250_000}
    text = player_text("Constantinople Wanderer1", wallet, [], False, 0, 100, width=width)
    line = text.plain.splitlines()[0]
    assert cell_len(line) <= width and "…" not in line, line
    assert "Constantinople Wanderer1" in line and "balance $9,971.00" in line, line
    assert "$20.00" in line and "held" in line and "bonus $2,500.00" in line, line
    wide = {**wallet, "balance": 99_997_100, "held": 200_000, "bonus": 25_000_000}
    line = player_text("W" * 24, wide, [], False, 0, 100, width=width).plain.splitlines()[0]
    assert cell_len(line) <= width and "bonus $250,000.00" in line, line
    assert "balance $999,971.00" in line and "$2,000.00" in line, line


@pytest.mark.parametrize("width", [76, 116])
def test_history_s_round_id_and_proof_fit_the_line_by_parts(width: int) -> None:
    """At 80 columns the round's heading wrapped its id and the proof its server seed
    onto lines of their own, cut mid-phrase, under no indent: both break between their
    parts now, the round's id (whole) with its check on a line of its own."""
    record = {
        "round_id": "casino-1-dd1c9b98b7930d44",
        "table": "casino-1",
        "variant": "casino-stud",
        "settled_at": 1_796_425_349_000,
        "seats": [{**nine("showdown")["seats"][0], "seat": 0}],
        "dealer": ["Ac", "Th", "6h", "8h", "9c"],
        "dealer_hand": {"category": "HIGH_CARD", "label": "High Card"},
        "fairness": {"commitment": "5f" * 32, "client_seeds": "", "server_seed": "10" * 32},
    }
    titles, variants = {"casino-1": "Casino Stud"}, {"casino-stud": "Casino Stud Poker"}
    verdict = {"casino-1-dd1c9b98b7930d44": Verdict("casino-1-dd1c9b98b7930d44")}
    said = history_text([record], "p0", verdict, titles, variants, width=width).plain
    lines = said.splitlines()
    assert all(cell_len(line) <= width for line in lines), lines
    head = lines[: 2 if width < 100 else 1]
    assert "Casino Stud · Casino Stud Poker" in head[0], head
    assert "round casino-1-dd1c9b98b7930d44   fair ✓" in head[-1], head
    assert head[-1].startswith("2026" if width > 100 else "  round "), head
    proof = [line for line in lines if "commitment" in line or "server seed" in line]
    assert "proof: commitment 5f5f5f5f…5f5f5f" in proof[0], proof
    assert "server seed 10101010…101010" in proof[-1], proof
    assert all(line.startswith("  ") for line in proof), proof


@pytest.mark.parametrize("size", SIZES)
async def test_a_spectator_s_keys_are_said_once(
    make_server: ServerFactory, connect: ClientFactory, size: tuple[int, int]
) -> None:
    """ "watching · h history · l back to the lobby · q quit" sat right above the footer
    that lists h, l and q again; the line now says only what the footer does not."""
    server = await make_server(timers=LONG, tables=NINE)
    await full_table(server, connect)
    app = StudApp(url(server), "wendy", table="nine", watch=True)
    async with app.run_test(size=size) as p:
        await until(p, lambda: app.snapshot is not None, "the table")
        await until(p, lambda: footer_keys(app) == {"h", "l", "q"}, "the footer's keys")
        keys = shown(app, "#keys")
        assert "h history" not in keys and "q quit" not in keys and "l back" not in keys, keys
        assert "s " in keys, keys  # the key the footer does not show
        lines = screen_lines(app)
        assert sum("History" in line or "history" in line for line in lines) == 1, lines
        assert all(cell_len(line) <= size[0] for line in lines), lines


@pytest.mark.parametrize("size", SIZES)
async def test_a_rebet_on_three_seats_is_said_on_one_line(
    make_server: ServerFactory, connect: ClientFactory, size: tuple[int, int]
) -> None:
    """ "Rebet: seat 5 $10.00, seat 6 $2.00 + progressive, seat 7 $5.00 + progressive.
    Press d to deal." took two lines at 80 columns: shorter words where it must."""
    server = await make_server(timers=LONG, tables=NINE)
    await full_table(server, connect, seats=6)
    app = StudApp(url(server), LONG_NAMES[1], table="nine")
    async with app.run_test(size=size) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s", "s", "s")
        await until(p, lambda: app.own_seats() == [6, 7, 8], "three seats")
        app.slip.last_bets = {6: (1_000, False), 7: (200, True), 8: (500, True)}
        await p.press("a")
        said = await sees(p, app, "#message", "Rebet: ")
        assert "\n" not in said and said.endswith("Press d to deal."), said
        assert ("seat 7 $10.00, seat 8 $2.00 + progressive" in said) is (size[0] > 100), said
        assert all(cell_len(line) <= size[0] for line in screen_lines(app))


@pytest.mark.parametrize(
    ("screen", "line"),
    [
        (LobbyScreen, LOBBY_KEYS),
        (PaytableScreen, PAYTABLE_KEYS),
        (PlayScreen, ELSEWHERE_KEYS),
        (HistoryScreen, HISTORY_KEYS),
        (WatchScreen, WATCH_KEYS),
        (WatchScreen, WATCH_OFFLINE_KEYS),
        (PlayScreen, OFFLINE_KEYS),
    ],
)
def test_a_keys_line_names_no_key_its_footer_shows(screen: type[Screen[None]], line: str) -> None:
    """History's keys line said "r refresh · h or esc back · q quit" right above a footer
    of "esc Back  h Back  r Refresh  q Quit", and offline the table's said h and q again."""
    bindings = [b for cls in screen.__mro__ for b in getattr(cls, "BINDINGS", [])]
    shown = {b.key for b in bindings if isinstance(b, Binding) and b.show}
    named = {"escape": "esc"}
    for key in shown:
        said = re.escape(named.get(key, key))
        assert not re.search(rf"(?:^|· |: ){said} ", line), (key, line)


@pytest.mark.parametrize("width", [76, 116])
def test_history_s_heading_shortens_a_long_table_title(width: int) -> None:
    """A long table title ran the heading's date, title and game over two lines at 80
    columns, the game's name wrapped under no indent: the title gives way now."""
    record = {
        "round_id": "r-1",
        "table": "t",
        "variant": "casino-stud",
        "settled_at": 1_796_425_349_000,
        "seats": [{**nine("showdown")["seats"][0], "seat": 0}],
        "dealer": ["Ac", "Th", "6h", "8h", "9c"],
        "dealer_hand": {"category": "HIGH_CARD", "label": "High Card"},
    }
    title = "The Grand Salon of the Riviera, High-Limit Room " * 2
    titles, variants = {"t": title}, {"casino-stud": "Casino Stud Poker"}
    lines = history_text([record], "p0", {}, titles, variants, width=width).plain.splitlines()
    assert all(cell_len(line) <= width for line in lines), lines
    assert "The Grand Salon of the Riviera" in lines[0] and "…" in lines[0], lines
    assert lines[0].endswith("· Casino Stud Poker") or "· Casino Stud Poker ·" in lines[0], lines


def test_a_clock_fold_at_80_columns_leaves_the_names_their_room() -> None:
    """At a full table of long names, one hand the clock folded with a progressive said
    "Folded (timer) -$26.00 (P -$1)": the widest line, it cut every name to 9 letters
    ("Maximili…"). Where the line is short it says "Timed out" (or "Left")."""
    snap = nine("showdown", "no_qualify")
    folded = snap["seats"][2]
    folded.update(decision="fold", auto=True)
    folded["result"] = {"outcome": "fold", "net": -2_600, "returned": 0, "progressive_prize": 0}
    lines = seats_text(snap, "p0", 0, 76).plain.splitlines()
    assert all(cell_len(line) <= 76 for line in lines), lines
    assert "Timed out -$26.00 (P -$1)" in lines[2], lines[2]
    assert "Maximilian Al" in lines[0], lines[0]
    folded.update(auto=False, left=True)
    assert "Left -$26.00" in seats_text(snap, "p0", 0, 76).plain.splitlines()[2]
    wide = seats_text(snap, "p0", 0, 160).plain.splitlines()[2]
    assert "Folded (left) -$26.00" in wide, wide
