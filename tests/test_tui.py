"""The terminal table driven by textual's pilot against a live server.

Every wait is bounded (`until`) and waits for a state, never for a time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from clients.connection import ServerError, StudClient, absorb_hand
from clients.tui import LobbyScreen, PlayScreen, StudApp, WatchScreen
from clients.tui import link as link_module
from clients.tui.keys import PLAY_KEYS
from clients.tui.link import sign_in
from clients.tui.render import (
    card_markup,
    fairness_text,
    next_waiting,
    seats_text,
    waiting_hands,
)
from clients.tui.screens import HistoryScreen
from clients.tui.seed import SeedScreen
from clients.tui.words import describe_error, unseen_round_text
from clients.verify import short
from protocol.fairness import commitment, dealt_hands, fair_order
from protocol.messages import BuyChips
from server.stores.base import Wallet
from tests.conftest import ClientFactory, ServerFactory
from tests.decks import shuffles

START = 100_000  # starting credits in tests/conftest.py
PLAYER = ["Kh", "Ks", "Kd", "7c", "7d"]  # full house: raise pays 8:1 at casino-stud, $100 prize
DEALER = ["Ad", "Kc", "9h", "4s", "2d"]  # ace-king: qualifies, up card 2d
LONG = {"betting": 30, "decision": 30, "results": 30}  # nothing moves unless someone acts
SIZE = (150, 40)


def url(server: Any) -> str:
    return f"ws://127.0.0.1:{server.port}/ws"


async def until(pilot: Pilot[Any], predicate: Callable[[], Any], what: str) -> None:
    """Wait (at most 10 s) for `predicate`, then for the redraw it scheduled."""
    loop = asyncio.get_running_loop()
    end = loop.time() + 10
    while not predicate():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.02)
    await pilot.pause()


def hold_reconnects(monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """The terminal's reconnects wait until the returned gate is set."""
    gate = asyncio.Event()

    class HeldBack(StudClient):
        @classmethod
        async def open(cls, url: str, *, history: bool = True, **kwargs: Any) -> StudClient:
            await gate.wait()
            return await StudClient.open(url, history=history, **kwargs)

    monkeypatch.setattr(link_module, "StudClient", HeldBack)
    return gate


async def sees(pilot: Pilot[Any], app: StudApp, selector: str, text: str) -> str:
    """Wait until the widget shows `text`; return all it shows."""
    await until(pilot, lambda: text in shown(app, selector), f"{text!r} in {selector}")
    return shown(app, selector)


def shown(app: StudApp, selector: str) -> str:
    """The plain text a widget of the current screen displays."""
    content = app.screen.query_one(selector, Static).content
    return content.plain if isinstance(content, Text) else str(content)


def phase(app: StudApp) -> str | None:
    return None if app.snapshot is None else str(app.snapshot["phase"])


async def settle(app: StudApp) -> None:
    """Wait until every key already pressed has had its request answered by the server."""
    done = asyncio.Event()

    async def barrier() -> None:
        await app.link.request("ping")  # the server answers in order
        done.set()

    app.submit(barrier)
    await asyncio.wait_for(done.wait(), 10)


async def test_play_a_round_while_a_spectator_watches(make_server: ServerFactory) -> None:
    server = await make_server(shuffle=shuffles([PLAYER, DEALER]), timers=LONG)
    player = StudApp(url(server), "ann")
    watcher = StudApp(url(server), "wendy", table="alpha", watch=True)
    async with player.run_test(size=SIZE) as p, watcher.run_test(size=SIZE) as w:
        # the lobby lists both tables with their limits and seats
        await until(p, lambda: player.screen.query_one(DataTable).row_count == 2, "the lobby")
        assert isinstance(player.screen, LobbyScreen)
        lobby = player.screen.query_one(DataTable)
        first, second = lobby.get_row_at(0), lobby.get_row_at(1)
        assert first[0] == "alpha" and first[3] == "$1 – $100"
        assert first[2] == "5 of 5" and first[5] == "Casino Stud Poker"
        assert second[0] == "beta" and second[3] == "$1 – $50"
        # Enter opens the table under the cursor (the first row)
        await p.press("enter")
        await until(p, lambda: isinstance(player.screen, PlayScreen), "the table screen")
        await until(p, lambda: player.snapshot is not None, "the table snapshot")
        await until(w, lambda: isinstance(watcher.screen, WatchScreen), "the watch screen")
        assert not isinstance(watcher.screen, PlayScreen)
        await p.press("s")
        await until(p, lambda: player.own_seats() == [0], "the seat")
        # $10 + $5 + $1 + $1, then one chip back: a $16 ante
        await p.press("3", "2", "1", "1", "backspace")
        assert player.bets == {0: [1_000, 500, 100]}
        await sees(p, player, "#player", "bet $16.00")
        await p.press("p")
        await sees(p, player, "#player", "progressive ON")
        await p.press("d")
        await until(p, lambda: phase(player) == "deciding", "the deal")
        seats = await sees(p, player, "#seats", "K♥  K♠  K♦  7♣  7♦")
        assert "Full House" in seats and "$16.00 P" in seats
        await sees(p, player, "#dealer", "Dealer  ▒▒  ▒▒  ▒▒  ▒▒  2♦")
        await sees(p, player, "#info", "Fold or raise")
        await sees(p, player, "#info", "Jackpot $1,000.50")  # the seed + half the stake
        # the spectator sees the hand face down (hands are private until showdown)
        # and the same hidden dealer
        await until(w, lambda: phase(watcher) == "deciding", "the spectator's deal")
        await sees(w, watcher, "#seats", "▒▒  ▒▒  ▒▒  ▒▒  ▒▒")
        assert "K♥" not in shown(watcher, "#seats")
        assert shown(watcher, "#dealer") == shown(player, "#dealer")
        await p.press("r")
        await until(p, lambda: phase(player) == "showdown", "the showdown")
        # ante 1:1 ($16) + raise $32 at 8:1 ($256) - the $1 stake + the $100 full-house prize
        net = "+$371.00"
        await until(p, lambda: player.balance.get("held") == 0, "the settlement")
        assert player.balance["balance"] == START + 37_100
        seats = await sees(p, player, "#seats", f"Win {net}")
        assert "Full House" in seats and f"Win {net} (incl. P +$100)" in seats
        await sees(p, player, "#player", "balance $1,371.00")
        await sees(p, player, "#player", f"Last round: seat 1 Full House: Win {net}")
        dealer = await sees(p, player, "#dealer", "A♦  K♣  9♥  4♠  2♦")
        assert "Ace-King (qualifies)" in dealer
        await until(w, lambda: phase(watcher) == "showdown", "the spectator's showdown")
        assert watcher.snapshot is not None and player.snapshot is not None
        assert watcher.snapshot["dealer"]["cards"] == DEALER
        assert watcher.snapshot["seats"][0]["cards"] == PLAYER
        await sees(w, watcher, "#seats", f"Win {net}")
        assert shown(watcher, "#dealer") == dealer
        # the spectator has no controls: its s takes no seat
        await w.press("s", "3", "d")
        await settle(watcher)
        assert watcher.own_seats() == [] and watcher.bets == {}
        # l leaves: back to the lobby; the spectator's showdown keeps the hand and its
        # result until the round is over (the seat goes then: tests/test_table.py)
        await p.press("l")
        await until(p, lambda: isinstance(player.screen, LobbyScreen), "the lobby again")
        await settle(player)  # the leave answered: applied
        table = server.rooms["alpha"].table
        assert table.leaving == {player.player_id}
        seat = table.seats[0]
        assert seat is not None and seat.name == "ann" and phase(watcher) == "showdown"
        await sees(w, watcher, "#seats", f"Win {net}")


def test_a_decided_hand_hands_the_selection_on_to_the_next_one_waiting() -> None:
    """f or r on decided seat 2 of three hands selects seat 3, not seat 1 (the order a
    player goes down their hands in)."""
    seats = [{"cards": ["2c"] * 5, "decision": None} for _ in range(3)]
    seats.append({"cards": None, "decision": None})
    assert waiting_hands({"seats": seats}, [0, 1, 2, 3]) == [0, 1, 2]
    assert next_waiting([0, 1, 2], 1) == 2
    assert next_waiting([0, 1, 2], 2) == 0  # the last: round to the first
    assert next_waiting([0, 2], 1) == 2  # the decided one already gone from the list
    assert next_waiting([3], 3) is None


async def test_multi_seat_tab_and_errors_in_words(make_server: ServerFactory) -> None:
    server = await make_server(timers=LONG)
    app = StudApp(url(server), "bob", table="beta")  # straight to the table
    async with app.run_test(size=SIZE) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await until(p, lambda: app.snapshot is not None, "the snapshot")
        await p.press("1")
        await sees(p, app, "#message", "Sit down first")
        await p.press("s", "s")
        await until(p, lambda: app.own_seats() == [0, 1], "two seats")
        await settle(app)
        assert app.selected == 1  # the seat just taken
        await p.press("tab")
        assert app.selected == 0
        await sees(p, app, "#seats", "▶ 1")
        await p.press("tab")
        assert app.selected == 1
        await p.press("d")
        await settle(app)
        await sees(p, app, "#message", "Stack chips first")
        # $100 is over beta's $50 limit: the chip stays off, said in dollars
        await p.press("5")
        await sees(p, app, "#message", "The most you can ante at this table is $50.00.")
        assert app.built_bets() == {}
        await p.press("4", "4", "tab", "d")  # $50 on seat 2; seat 1 sits this one out
        await until(p, lambda: phase(app) == "deciding", "the deal")
        assert app.snapshot is not None and app.snapshot["seats"][1]["ante"] == 5_000
        assert app.snapshot["seats"][0]["cards"] is None
        # r with the seat out of this round selected sends nothing: it used to raise the
        # other seat's $50 hand, which the ▶ did not mark
        assert app.selected == 0
        await p.press("r")
        await settle(app)
        said = "Seat 1 has no hand this round; nothing sent. Seat 2 is selected"
        await sees(p, app, "#message", said)
        assert app.snapshot["seats"][1]["decision"] is None
        assert app.selected == 1
        before = app.balance["balance"]
        await p.press("b")
        await until(p, lambda: app.balance["balance"] == before + 10_000, "the chips bought")
        await sees(p, app, "#message", "Bought $100.00 of chips.")
        await p.press("s", "s")  # a third seat is the limit; the table has only 3 seats
        await settle(app)
        assert app.own_seats() == [0, 1, 2]
        await sees(p, app, "#message", "the most seats")


async def test_reconnects_with_the_token_and_keeps_the_seat(
    make_server: ServerFactory, connect: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = await make_server(timers=LONG)
    app = StudApp(url(server), "cleo", table="alpha", backoff=(0.05, 0.2))
    async with app.run_test(size=SIZE) as p:
        await until(p, lambda: app.snapshot is not None, "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat")
        dora = await connect(server, "dora")  # seated, not ready: betting stays open
        await dora.request("join", table="alpha")
        await dora.request("sit", table="alpha")
        await p.press("2", "d")
        await until(p, lambda: phase(app) == "betting", "the ante")
        player_id, first = app.player_id, app.link.client
        (session,) = [s for s in server.sessions if s.player and s.player.player_id == player_id]
        # the connection drops mid-round (a close with 1000 would say another connection
        # of the player's replaced it: the terminal would wait for g)
        session.ws.transport.abort()
        await until(p, lambda: app.link.connects == 2 and app.link.connected, "the reconnect")
        assert app.link.client is not first
        assert app.link.welcome["resumed"] is True and app.player_id == player_id
        assert app.link.welcome["seats"] == {"alpha": [0]}
        await until(
            p,
            lambda: app.snapshot is not None and app.snapshot["seats"][0]["connected"],
            "the seat, connected again",
        )
        assert app.own_seats() == [0]
        await sees(p, app, "#seats", "$5.00")
        # a purchase whose answer is lost with the link goes again after the reconnect,
        # and is bought once
        buy = server.requests.buy_chips

        async def bought_then_dropped(pid: str, msg: BuyChips) -> Wallet:
            monkeypatch.setattr(server.requests, "buy_chips", buy)
            wallet = await buy(pid, msg)
            (session,) = [s for s in server.sessions if s.player and s.player.player_id == pid]
            session.ws.transport.abort()  # its answer lost with the link
            return wallet

        monkeypatch.setattr(server.requests, "buy_chips", bought_then_dropped)
        before = app.balance["balance"]
        await p.press("b")
        await until(p, lambda: app.link.connects == 3 and app.link.connected, "a reconnect")
        await sees(p, app, "#message", "Bought $100.00 of chips.")
        assert app.purchase is None
        await until(p, lambda: app.balance["balance"] == before + 10_000, "the chips")
        assert player_id and (await server.store.wallet(player_id)).balance == before + 10_000
        # the resumed session plays the same round on
        await dora.request("ante", table="alpha", seat=1, amount=100)
        await dora.request("deal", table="alpha")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        await p.press("f")
        await dora.request("fold", table="alpha", seat=1)
        await until(p, lambda: phase(app) == "showdown", "the showdown")
        await sees(p, app, "#seats", "Folded -$5.00")


def test_cards_errors_and_seats_render_in_words() -> None:
    assert card_markup("Th") == "[bold red]10♥[/]"
    assert card_markup("As") == "[bold]A♠[/] "
    assert card_markup(None) == "[blue]▒▒[/] "
    err = {"code": "insufficient_funds", "message": "x", "needed": 1600, "available": 1200}
    assert describe_error(err).startswith("Not enough chips: this bet needs $16.00 available")
    assert describe_error({"code": "wrong_phase", "message": "no decision is due now"}) == (
        "No decision is due now"
    )
    assert describe_error({"code": "seat_taken"}) == "The requested seat is already taken."
    limits = {"code": "ante_out_of_limits", "min_ante": 100, "max_ante": 5_000}
    assert describe_error(limits) == "The ante at this table must be between $1.00 and $50.00."
    seat = {
        "player_id": "p1",
        "name": "ann",
        "connected": False,
        "ante": 500,
        "progressive": True,
        "ready": True,
        "decision": "fold",
        "auto": True,
        "cards": ["2c", "5d", "9s", "Jd", "Qh"],
        "hand": {"category": "HIGH_CARD", "label": "High Card"},
        "result": {"outcome": "fold", "net": -600, "returned": 0, "progressive_prize": 0},
    }
    snap = {"progressive_stake": 100, "seats": [None, seat]}
    text = seats_text(snap, "p1", 1).plain
    assert text.splitlines()[0] == "  1 empty"
    line = text.splitlines()[1]
    assert line.startswith("▶ 2 ann") and "$5.00 P" in line and "High Card" in line
    assert "Folded (timer) -$6.00" in line and "(away)" in line  # the ante and the stake are lost


async def test_client_seed_commitment_verdict_and_history(make_server: ServerFactory) -> None:
    server = await make_server(timers=LONG)  # no stacked deck: the provably fair shuffler
    app = StudApp(url(server), "fay", table="alpha")
    async with app.run_test(size=SIZE) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await until(p, lambda: app.snapshot is not None, "the snapshot")
        await sees(p, app, "#fair", "your client seed none (c to change)")
        # c asks for the seed; a bad one is refused on the spot, Enter sends a good one
        await p.press("c")
        await until(p, lambda: isinstance(app.screen, SeedScreen), "the seed input")
        await p.press("comma", "enter")
        await until(p, lambda: "The seed must be" in shown(app, "#seed-error"), "the refusal")
        await p.press("backspace", *"fay-7", "enter")
        await until(p, lambda: app.client_seeds.get("alpha") == "fay-7", "the seed set")
        assert isinstance(app.screen, PlayScreen)
        await sees(p, app, "#fair", "your client seed 'fay-7' (c to change)")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat")
        await p.press("2", "d")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        assert app.snapshot is not None
        rid, commit = app.snapshot["round_id"], app.snapshot["fairness"]["commitment"]
        await sees(p, app, "#fair", f"Provably fair deal · commitment {short(commit)}")
        await p.press("r")
        await until(p, lambda: phase(app) == "showdown", "the showdown")
        fair = await sees(p, app, "#fair", "fair ✓")
        assert f"fair ✓ · commitment {short(commit)} · client seeds 'fay-7'" in fair
        assert app.verdicts[rid].notes == ()  # checked against the commitment seen in betting
        # h: the history screen, the round with its check and the seed in its proof
        await p.press("h")
        await until(p, lambda: isinstance(app.screen, HistoryScreen), "the history screen")
        text = await sees(p, app, "#history", rid)
        assert app.history is not None and app.history[0]["fairness"]["client_seeds"] == "fay-7"
        head = next(line for line in text.splitlines() if rid in line)
        assert "alpha · Casino Stud Poker" in head and head.endswith("fair ✓")
        cards = " ".join(card_markup(c) for c in app.history[0]["seats"][0]["cards"])
        assert Text.from_markup(cards).plain in text
        assert "client seeds 'fay-7'" in text and "balance $1,000.00 → $" in text
        await p.press("escape")
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table again")


def test_a_proof_that_breaks_the_commitment_seen_before_the_deal_is_not_fair() -> None:
    """A proof consistent with itself still fails when its seed is not the committed one."""
    rid, committed, other = "alpha-1", bytes(range(32)), bytes(32)
    app = StudApp("ws://127.0.0.1:1/ws", "ann")
    seat = {"player_id": "p1", "name": "ann", "cards": None}
    base = {"table": "alpha", "round_id": rid, "seats": [seat], "dealer": {"cards": None}}
    app.witness.note(
        {
            **base,
            "phase": "betting",
            "fairness": {"commitment": commitment(committed), "nonce": rid},
        },
        app.player_id,
    )
    hand, dealer = dealt_hands(fair_order(other, "", rid), 2)
    proof = {
        "commitment": commitment(other),
        "server_seed": other.hex(),
        "client_seeds": "",
        "nonce": rid,
    }
    showdown = {
        **base,
        "phase": "showdown",
        "seats": [{**seat, "cards": hand}],
        "dealer": {"cards": dealer},
        "fairness": proof,
    }
    app.witness.note(showdown, app.player_id)
    assert app.verdicts[rid].problems == (
        "the proof's commitment 66687aad…5f2925 is not the one saved before the deal "
        "(630dcd29…d710dd)",
        "sha256(server_seed) is 66687aad…5f2925, not the commitment saved before the deal "
        "(630dcd29…d710dd)",
    )
    assert fairness_text(showdown, app.verdicts[rid], None).plain.startswith("NOT FAIR: ")


async def test_a_token_from_an_earlier_session_resumes_the_same_player(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server()
    earlier = await connect(server, "gus")
    await earlier.request("sit", table="alpha")
    await earlier.close()
    app = StudApp(url(server), "ignored", token=earlier.token)
    async with app.run_test(size=SIZE) as p:
        await until(p, lambda: app.link.welcome.get("resumed") is True, "a resumed welcome")
        assert app.link.welcome["player_id"] == earlier.player_id
        assert app.link.welcome["seats"] == {"alpha": [0]}
        await sees(p, app, "#head", "gus")  # the player's own name, not the one typed here
        assert app.player_name == "gus"


# ----- the kept bet: explicit rebet and clear ---------------------------------------------

TEN_ROUND = ["2c", "5d", "9s", "Jd", "Qh"]  # high card
TEN_DEALER = ["3c", "4d", "8s", "Td", "Kh"]  # king high: does not qualify
NEXT_ROUND = ["2h", "5c", "9d", "Jc", "Qs"]
NEXT_DEALER = ["3d", "4c", "8h", "Th", "Ks"]


async def test_a_round_starts_empty_rebet_and_clear_are_explicit(
    make_server: ServerFactory,
) -> None:
    deck = shuffles([TEN_ROUND, TEN_DEALER], [NEXT_ROUND, NEXT_DEALER], [NEXT_ROUND, NEXT_DEALER])
    server = await make_server(shuffle=deck, timers={**LONG, "results": 0.2})
    app = StudApp(url(server), "rhea", table="alpha")
    async with app.run_test(size=SIZE) as p:
        await until(p, lambda: app.snapshot is not None, "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat")
        # round 1: $10 with the progressive
        await p.press("3", "p", "d")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        assert app.bets == {} and app.progressive == {}  # the bet is on the table now
        await p.press("f")
        await until(p, lambda: phase(app) == "waiting", "the next round")
        await sees(p, app, "#player", "a rebets seat 1 $10.00 + progressive")
        # a $25 chip now bets $25, without the progressive: nothing was put back silently
        await p.press("4")
        await sees(p, app, "#player", "bet $25.00 (chips: $25)   progressive off")
        await p.press("d")
        await until(p, lambda: phase(app) == "deciding", "the second deal")
        assert app.snapshot is not None
        assert app.snapshot["seats"][0]["ante"] == 2_500
        assert app.snapshot["seats"][0]["progressive"] is False
        await p.press("f")
        await until(p, lambda: phase(app) == "waiting", "the third round")
        # x clears what is stacked; a stacks last round's bet ($25, no progressive) again
        await p.press("1", "x")
        await sees(p, app, "#player", "bet $0.00 (chips: none)")
        await p.press("a")
        await sees(p, app, "#player", "bet $25.00 (chips: $25)   progressive off")
        await p.press("d")
        await until(p, lambda: phase(app) == "deciding", "the third deal")
        assert app.snapshot is not None and app.snapshot["seats"][0]["ante"] == 2_500
        assert "a rebet · x clear" in PLAY_KEYS


# ----- private hands: own cards from the `hand` frame ---------------------------------------

PRIVATE_ANN = ["Kh", "Kd", "7s", "7c", "2d"]


def private_snapshot(phase: str = "deciding", round_id: str = "alpha-1") -> dict[str, Any]:
    down: list[str | None] = [None] * 5

    def seat(player: str, name: str, cards: list[str] | list[str | None]) -> dict[str, Any]:
        return {
            "player_id": player,
            "name": name,
            "connected": True,
            "ante": 500,
            "progressive": False,
            "ready": True,
            "decision": None,
            "auto": False,
            "cards": cards,
            "hand": None,
            "result": None,
        }

    return {
        "t": "table",
        "table": "alpha",
        "seq": 5 if phase == "deciding" else 9,
        "phase": phase,
        "round_id": round_id,
        "hands": "private",
        "min_ante": 100,
        "max_ante": 10_000,
        "progressive_stake": 100,
        "dealer": {"cards": [None, None, None, None, "5s"], "hand": None, "qualifies": None},
        "seats": [seat("p-ann", "ann", down), seat("p-bob", "bob", down)],
        "spectators": 0,
    }


HAND_FRAME = {
    "t": "hand",
    "table": "alpha",
    "round_id": "alpha-1",
    "seats": [
        {"seat": 0, "cards": PRIVATE_ANN, "hand": {"category": "TWO_PAIR", "label": "Two Pair"}}
    ],
}


def test_private_hands_own_cards_face_up_the_others_face_down() -> None:
    app = StudApp("ws://127.0.0.1:1/ws", "ann")
    app.link.welcome = {"player_id": "p-ann"}
    app.table_id = "alpha"
    app.tables["alpha"] = private_snapshot()
    app.hands.clear()
    plain = seats_text(cast_snapshot(app), "p-ann", 0).plain
    assert "K♥" not in plain and plain.count("▒▒") == 10  # before the hand frame: all down
    absorb_hand(app.hands, HAND_FRAME)  # what `_on_frame` does with a `hand` frame
    ann, bob = seats_text(cast_snapshot(app), "p-ann", 0).plain.splitlines()
    assert "K♥  K♦  7♠  7♣  2♦" in ann and "Two Pair" in ann and "Deciding…" in ann
    assert bob.count("▒▒") == 5 and "Deciding…" in bob
    # a spectator (or bob) sees ann's hand face down
    assert "K♥" not in seats_text(app.tables["alpha"], "p-bob", None).plain
    # a snapshot of the next round: last round's cards are not drawn any more
    app.tables["alpha"] = private_snapshot(round_id="alpha-2")
    assert "K♥" not in seats_text(cast_snapshot(app), "p-ann", 0).plain


def cast_snapshot(app: StudApp) -> dict[str, Any]:
    snap = app.snapshot
    assert snap is not None
    return snap


def test_the_shared_connection_and_bots_read_own_cards_from_the_hand_frame() -> None:
    from clients.bots import known_cards
    from clients.connection import absorb_hand, forget_stale_hands, with_own_hands

    store: dict[str, dict[str, Any]] = {}
    snap = private_snapshot()
    assert known_cards(snap["seats"][0]) is None  # face down: a bot must not decide on it
    absorb_hand(store, HAND_FRAME)
    mine = with_own_hands(snap, store, "p-ann")
    assert known_cards(mine["seats"][0]) == PRIVATE_ANN
    assert known_cards(mine["seats"][1]) is None
    assert snap["seats"][0]["cards"] == [None] * 5  # the snapshot itself is untouched
    assert with_own_hands(snap, store, "p-bob") is snap
    # today's server: every hand face up in the snapshot, no hand frame at all
    open_seat = {**snap["seats"][0], "cards": PRIVATE_ANN}
    assert known_cards(with_own_hands({**snap, "seats": [open_seat]}, {}, "p-ann")["seats"][0])
    forget_stale_hands(store, private_snapshot(round_id="alpha-2"))
    assert store == {}


def test_the_lobby_keeps_the_jackpot_cents_at_120_columns() -> None:
    from clients.tui.lobby import LOBBY_COLUMNS, lobby_rows

    row = {
        "id": "casino-high",
        "title": "Casino Stud High Limit",
        "variant": {"title": "Casino Stud Poker"},
        "seats": 9,
        "taken": 3,
        "min_ante": 2_500,
        "max_ante": 100_000,
        "spectators": 120,
        "phase": "deciding",
        "jackpot": "main",
    }
    ((_, cells),) = lobby_rows({"tables": [row]}, {"main": 1_234_567_89})
    assert cells[1] == "Deciding" and cells[4] == "$1,234,567.89"
    widths = [max(len(c), len(h)) for c, h in zip(cells, LOBBY_COLUMNS, strict=True)]
    assert sum(widths) + 2 * len(widths) <= 118  # cells and their padding, inside the border
    # at 80 columns the table, what it is doing, its free seats, limits and jackpot show
    # whole, even with a long title (the jackpot read "main $1", then the phase "Sh")
    ((_, cells),) = lobby_rows({"tables": [{**row, "phase": "showdown"}]}, {"main": 1_000_000})
    widths = [max(len(c), len(h)) for c, h in zip(cells, LOBBY_COLUMNS, strict=True)][:5]
    assert cells[1] == "Showdown" and cells[4] == "$10,000.00"
    assert sum(widths) + 2 * len(widths) <= 78


def test_the_lobby_says_a_silent_server_paused_and_suspended_tables_in_words() -> None:
    """The Now column: a stale phase is not shown as current (the browser's words)."""
    from pathlib import Path

    from clients.tui.lobby import lobby_rows

    row = {"id": "t", "seats": 5, "taken": 1, "min_ante": 100, "max_ante": 500}
    now = {
        lobby_rows({"tables": [{**row, **extra}]}, {})[0][1][1]
        for extra in (
            {"phase": "suspended"},
            {"phase": "betting", "paused": True},
            {"phase": "deciding", "silent": True, "paused": True},
        )
    }
    assert now == {"Suspended", "Betting · Paused", "No answer"}
    lobby_js = (Path(__file__).resolve().parent.parent / "clients/web/js/lobby.js").read_text()
    assert '"No answer"' in lobby_js and '"Suspended"' in lobby_js


def test_the_history_shows_the_other_hands_of_the_round_by_seat_and_name() -> None:
    """As the browser's does: the player's hands, then the others' (seat and name), so
    a round can be read again as it was played."""
    from clients.tui.render import history_text

    def hand(seat: int, pid: str, name: str, outcome: str, net: int) -> dict[str, Any]:
        return {
            "seat": seat, "player_id": pid, "name": name, "ante": 500, "decision": "raise",
            "cards": ["2c", "3c", "4c", "5c", "7d"], "hand": {"label": "High Card"},
            "result": {"outcome": outcome, "net": net},
        }  # fmt: skip

    record = {
        "round_id": "alpha-1",
        "table": "alpha",
        "seats": [
            hand(0, "p-ann", "Ann", "lose", -1_500),
            hand(1, "p-bob", "Bartholomewvanderberg", "win", 1_500),
        ],
        "dealer": DEALER,
        "dealer_hand": {"category": "ACE_KING", "label": "Ace-King"},
        "balance_before": 10_000,
        "balance_after": 8_500,
    }
    lines = history_text([record], "p-ann", {}).plain.splitlines()
    mine = next(i for i, line in enumerate(lines) if line.startswith("  seat 1 "))
    theirs = next(i for i, line in enumerate(lines) if line.startswith("  seat 2 "))
    assert mine < theirs and "Bartholomewvand… " in lines[theirs]  # 16 cells, a cut said
    assert "Win +$15.00" in lines[theirs] and "Lose -$15.00" in lines[mine]
    assert "Ann" not in lines[mine]
    # at 80 columns (76 inside the panel) a hand takes two lines, none wrapped: the bets
    # and the result, then the cards and the hand (the result went to a line of its own)
    narrow = history_text([record], "p-ann", {}, width=76).plain.splitlines()
    assert all(len(line) <= 76 for line in narrow), narrow
    theirs = next(i for i, line in enumerate(narrow) if line.startswith("  seat 2 "))
    assert "Win +$15.00" in narrow[theirs] and "High Card" in narrow[theirs + 1]


def test_the_two_clients_use_the_same_words() -> None:
    """The terminal's seat states, outcomes and phases are the browser's (clients/web/js)."""
    from pathlib import Path

    from clients.tui.lobby import LOBBY_PHASES
    from clients.tui.render import OUTCOMES, PHASES, seat_status

    web = Path(__file__).resolve().parent.parent / "clients" / "web" / "js"
    js = "".join((web / name).read_text(encoding="utf-8") for name in ("format.js", "table.js"))
    lobby_js = (web / "lobby.js").read_text(encoding="utf-8")
    base = {"ante": 500, "ready": True, "decision": None, "auto": False, "cards": ["2c"] * 5}
    states = {
        seat_status(base, "deciding"),
        seat_status(base, "betting"),
        seat_status({**base, "ante": 0}, "betting"),
        seat_status({**base, "decision": "raise"}, "deciding"),
        seat_status({**base, "decision": "fold"}, "deciding"),
        seat_status({**base, "decision": "fold", "auto": True}, "deciding"),
        seat_status({**base, "decision": "fold", "auto": True, "left": True}, "deciding"),
    }
    assert states == {
        "Deciding…", "Ready", "Sitting out", "Raised", "Folded", "Folded (timer)", "Folded (left)"
    }  # fmt: skip
    dealt_without = {**base, "ante": 0, "cards": None}  # sat the round out: still said so
    assert seat_status(dealt_without, "deciding") == seat_status(dealt_without, "showdown")
    assert seat_status(dealt_without, "deciding") == "Sitting out"
    late = {**dealt_without, "next_round": True}  # taken after the deal: it sat nothing out
    assert seat_status(late, "deciding") == seat_status(late, "showdown") == "Next round"
    for words in (*states, "Next round", *OUTCOMES.values(), *PHASES.values()):
        assert f'"{words}"' in js, words
    for words in LOBBY_PHASES.values():
        assert f'"{words}"' in lobby_js, words
    unseen_js = (web / "unseen.js").read_text(encoding="utf-8")  # a round ended out of sight
    voided = unseen_round_text(None, shutdown=False)
    assert voided.startswith("Your round was voided: no hand was ")
    assert voided.removeprefix("Your round was voided: no hand was ") in unseen_js
    assert unseen_round_text(None, shutdown=True).startswith(
        "Your round was voided as the server shut down: "
    )
    assert 'Your round was voided${shutdown ? " as the server shut down" : ""}: ' in unseen_js
    record = {"balance_before": 10_000, "balance_after": 11_500}
    ended = unseen_round_text(record, shutdown=False)
    assert ended == "Your round ended while you were away (+$15.00): History shows how it went."
    assert "`Your round ended while you were away${net}: History shows how it went.`" in unseen_js


async def test_a_round_that_ended_out_of_sight_is_told_as_the_history_has_it(
    make_server: ServerFactory, connect: ClientFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The terminal's link was down while its round was decided (on the player's other
    device) and settled: back, the table shows no round. It says the round ended and
    that History shows how; never that it was voided, which only a round the history
    has no settlement of was."""
    server = await make_server()
    app = StudApp(url(server), "cleo", table="alpha", backoff=(0.05, 0.2))
    async with app.run_test(size=SIZE) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat")
        await p.press("2", "d")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        gate = hold_reconnects(monkeypatch)
        other = await connect(server, None, token=app.link.token)  # the terminal's closes
        await until(p, lambda: not app.link.connected, "the terminal cut off")
        await other.request("raise", table="alpha", seat=0)
        await until(
            p, lambda: (other.tables.get("alpha") or {}).get("phase") == "waiting", "settled"
        )
        await other.close()
        gate.set()
        await sees(p, app, "#message", "Playing elsewhere")  # not taken back by itself
        await p.press("g")  # the player takes it back here
        message = await sees(p, app, "#message", "Your round ended while you were away")
        assert "History shows how it went." in message and "voided" not in message
        assert app.player_id is not None
        wallet = await server.store.wallet(app.player_id)
        await until(p, lambda: app.balance.get("balance") == wallet.balance, "the wallet")


async def test_an_account_signs_in_and_signs_in_again_when_its_token_is_revoked(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """`stud-client play --user NAME`: the password is checked before the table opens
    (`sign_in`), and a token the server no longer takes is replaced by a new login."""
    server = await make_server()
    with pytest.raises(ServerError) as e:
        await sign_in(url(server), "hal", "hal_9000", "open the pod bay")
    assert e.value.code == "bad_credentials"
    first = await sign_in(url(server), "hal", "hal_9000", "open the pod bay", register=True)
    token = await sign_in(url(server), "someone", "HAL_9000", "open the pod bay")
    assert token != first
    await server.store.revoke_token(token)  # e.g. a password change on another device
    app = StudApp(url(server), "hal", token=token)
    app.link.account = ("hal_9000", "open the pod bay")
    async with app.run_test(size=SIZE) as p:
        await until(p, lambda: app.link.welcome.get("username") == "hal_9000", "a login")
        resumed = await server.store.player_by_token(first)
        assert resumed is not None and app.player_id == resumed.player_id
        assert app.link.token not in (token, first)


async def test_a_table_that_moves_away_goes_back_to_the_lobby_and_says_why(
    make_server: ServerFactory,
) -> None:
    """Its host lost the table to another process: the seats here are gone, so the
    table is not left on screen as if it were still in play."""
    server = await make_server(timers=LONG)
    app = StudApp(url(server), "ann", table="alpha")
    async with app.run_test(size=SIZE) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat")
        server.rooms["alpha"].lose()  # another process holds it now
        await until(p, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        assert app.table_id is None and "alpha" not in app.tables
        assert "moved to another server" in shown(app, "#message")
        assert "refunded" in shown(app, "#message")


async def test_leaving_with_an_undecided_hand_takes_a_second_l(make_server: ServerFactory) -> None:
    """As the browser's Leave: the first l says what leaving costs, the second leaves."""
    server = await make_server(timers=LONG)
    app = StudApp(url(server), "ann", table="alpha")
    async with app.run_test(size=SIZE) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat")
        await p.press("2", "d")  # $5, and deal
        await until(p, lambda: phase(app) == "deciding", "the deal")
        room = server.rooms["alpha"]
        lease = room.lease
        assert lease is not None
        room._suspend("lease", room.now())  # suspended: the leave, applied later, folds too
        await until(p, lambda: app.snapshot is not None and "suspension" in app.snapshot, "pause")
        await p.press("l")
        await sees(p, app, "#message", "Leaving now folds your undecided hand on seat #1")
        room.hosted(lease, fresh=False)
        assert "you lose $5.00 of antes" in shown(app, "#message")
        assert isinstance(app.screen, PlayScreen)
        seat = server.rooms["alpha"].table.seats[0]
        assert seat is not None and seat.decision is None  # nothing left, nothing folded
        await p.press("l")
        await until(p, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await settle(app)
        seat = server.rooms["alpha"].table.seats[0]
        assert seat is not None and seat.left  # folded for leaving; the seat goes at the end


async def test_at_80x24_three_hands_leave_the_message_line_on_screen(
    make_server: ServerFactory,
) -> None:
    """A standard terminal: three hands and the last round's words filled the screen
    down past the message line, so refusals, a suspension and "cannot reach" were never
    seen. The seats give way (they scroll) and the message stays."""
    server = await make_server(timers=LONG)
    app = StudApp(url(server), "ann", table="alpha")
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s", "s", "s")
        await until(p, lambda: app.own_seats() == [0, 1, 2], "three seats")
        await p.press("3", "tab", "3", "tab", "3", "d")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        await p.press("f", "tab", "f", "tab", "f")
        await until(p, lambda: phase(app) == "showdown", "the showdown")
        await sees(p, app, "#player", "Last round")
        await p.press("f")  # nothing is due: a refusal in words
        await sees(p, app, "#message", "No decision is due now")
        message = app.screen.query_one("#message", Static).region
        footer = 1
        assert message.height >= 1 and message.bottom <= 24 - footer, message


async def test_offline_the_table_says_so_and_l_warns_of_nothing_it_cannot_know(
    make_server: ServerFactory,
) -> None:
    """Its server gone, the terminal kept the round's clock running to 0 and, asked to
    leave, warned of antes lost to a fold on a round that had been voided (here the
    shutdown's void came first: the table was last seen waiting)."""
    server = await make_server(timers=LONG)
    app = StudApp(url(server), "ann", table="alpha", backoff=(0.05, 0.2))
    async with app.run_test(size=SIZE) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat")
        await p.press("3", "d")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        await server.stop(grace=0)
        info = await sees(p, app, "#info", "OFFLINE: the table as last seen")
        assert " left" not in info  # no clock for a table not heard
        assert "Not connected" in shown(app, "#message")
        await p.press("l")  # greyed out in the footer: it leaves nothing, warns of nothing
        await p.pause()
        assert isinstance(app.screen, PlayScreen) and "antes" not in shown(app, "#message")


async def test_the_lobby_cursor_stays_on_its_table_when_rows_come_and_go(
    make_server: ServerFactory,
) -> None:
    """A table appearing above the one under the cursor moved the cursor onto another
    table, so Enter opened that one."""
    server = await make_server()
    app = StudApp(url(server), "ann")
    async with app.run_test(size=SIZE) as p:
        await until(p, lambda: app.screen.query_one(DataTable).row_count == 2, "the lobby")
        await p.press("down")
        lobby = app.screen.query_one(DataTable)
        assert lobby.get_row_at(lobby.cursor_row)[0] == "beta"
        assert app.lobby is not None
        rows = app.lobby["tables"]
        newcomer = {**rows[0], "id": "aaa", "title": "aaa"}
        app._on_frame({**app.lobby, "tables": [newcomer, *rows]})
        await until(p, lambda: lobby.row_count == 3, "the new row")
        assert lobby.get_row_at(lobby.cursor_row)[0] == "beta"


def test_a_lobby_listing_a_table_twice_is_drawn_with_it_once() -> None:
    """Two rows of one table (a dead host's beside its new host's) made the lobby's
    table raise DuplicateKey, and the terminal exited."""
    from clients.tui.lobby import lobby_rows

    row = {"id": "casino-1", "seats": 5, "taken": 0, "min_ante": 100, "max_ante": 10_000}
    rows = lobby_rows({"tables": [row, {**row, "taken": 1}, {**row, "id": "stud-1"}]}, {})
    assert [table_id for table_id, _ in rows] == ["casino-1", "stud-1"]


def footer_keys(app: StudApp) -> set[str]:
    """The keys the footer shows as acting (a greyed-out one is shown but does not act)."""
    return {
        key
        for key, active in app.screen.active_bindings.items()
        if active.binding.show and active.enabled
    }
