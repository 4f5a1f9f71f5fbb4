"""Bots against a live server: they play, decide by the rule, and every cent reconciles."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from clients.bots import Bot, BotsReport, _Pending, hand_net, money, prize_paid, run_bots
from clients.cli import bots_command
from clients.cli import main as cli_main
from clients.connection import ServerError
from clients.optimal import should_raise
from clients.strategy import should_raise as near_optimal
from tests.conftest import ClientFactory, ServerFactory
from tests.decks import shuffles

START = 100_000  # starting credits in tests/conftest.py


def url(server: object) -> str:
    return f"ws://127.0.0.1:{server.port}/ws"  # type: ignore[attr-defined]


async def reconcile(server: object, report: BotsReport) -> None:
    """Each bot's counted net equals what its wallet says, on the server's books."""
    store = server.store  # type: ignore[attr-defined]
    for b in report.bots:
        wallet = await store.wallet(b.player_id)
        assert wallet.held == 0, b.name
        assert wallet.balance - START - b.bought == b.net, b.name
        assert b.balance_change == b.net, b.name
    totals = await store.totals()
    assert sum(totals.values()) == 0  # double entry still balances


async def test_bots_play_rounds_at_two_tables_and_reconcile(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server()
    watcher = await connect(server, "referee")
    await watcher.request("join", table="alpha")
    report = await run_bots(
        url(server),
        ["alpha", "beta"],
        bots_per_table=3,
        spectators=2,
        rounds=3,
        ante=200,
        progressive_probability=0.5,
        seed=7,
        step_timeout=20,
    )
    assert len(report.bots) == 6 and len(report.spectators) == 4
    for b in report.bots:
        assert b.hands >= 3, b.to_dict()
        assert not b.errors, b.to_dict()
        assert b.raised + b.folded == b.hands
        assert b.auto_folded == 0  # the bots decide before the timer
        assert len(b.latency["ante"]) >= 3 and len(b.latency["deal"]) >= 1
        assert len(b.latency["raise"]) + len(b.latency["fold"]) == b.hands
    assert sum(b.progressive_bets for b in report.bots) > 0
    for s in report.spectators:
        assert not s.errors and s.showdowns >= 3 and s.snapshots > s.showdowns
    await reconcile(server, report)
    # every bot left its seat at the end
    snap = await watcher.wait_table("alpha", lambda s: all(x is None for x in s["seats"]))
    assert snap["phase"] in ("waiting", "showdown")
    # every decision the referee saw at alpha follows the default, exact, table
    decided = 0
    for frame in watcher.frames:
        if frame.get("t") != "table" or frame["phase"] != "showdown":
            continue
        up = frame["dealer"]["cards"][-1]
        for seat in frame["seats"]:
            if seat is not None and seat["result"] is not None:
                expected = "raise" if should_raise(seat["cards"], up) else "fold"
                assert seat["decision"] == expected
                decided += 1
    assert decided >= 9
    text = report.to_text()
    assert "bot1@alpha" in text and "total" in text


async def test_bots_follow_the_rule_on_stacked_hands(make_server: ServerFactory) -> None:
    dealer = ["Ad", "Kc", "9h", "4s", "7d"]  # ace-king: qualifies; up card 7
    pair = ["3c", "3d", "8s", "Th", "Jh"]  # raise: a pair beats the dealer's ace-king
    ak_queen_low = ["As", "Ks", "Qd", "8c", "2h"]  # raise: a Q, 7 below the 4th-highest (8)
    junk = ["2c", "5d", "9s", "Jd", "Qh"]  # fold: below ace-king
    server = await make_server(shuffle=shuffles([pair, ak_queen_low, junk, dealer]))
    report = await run_bots(
        url(server),
        ["alpha"],
        1,
        rounds=1,
        seats_per_bot=3,
        progressive_probability=0,
        strategy=near_optimal,  # the exact table folds AKQ82 against a 7 (test_optimal.py)
    )
    (bot,) = report.bots
    assert bot.seats == [0, 1, 2]
    assert not bot.errors
    assert (bot.hands, bot.raised, bot.folded) == (3, 2, 1)
    # both raised hands win ante 1:1 (+100) and raise 1:1 (+200): AKQ82 beats AK974 on the Q
    assert bot.outcomes == {"win": 2, "fold": 1}
    assert bot.net == 300 + 300 - 100
    await reconcile(server, report)


async def test_seconds_mode_finishes_the_hand_in_play(make_server: ServerFactory) -> None:
    server = await make_server(timers={"betting": 30, "decision": 30, "results": 0.05})
    report = await run_bots(
        url(server), ["beta"], bots_per_table=2, seconds=0.5, seed=1, step_timeout=10
    )
    for b in report.bots:
        assert b.hands >= 1 and not b.errors, b.to_dict()
    await reconcile(server, report)


async def test_cli_prints_json(
    make_server: ServerFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    server = await make_server()

    code = await bots_command(url(server), "alpha", 2, 1, rounds=1, seconds=None, json_out=True)
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [b["name"] for b in out["bots"]] == ["bot1@alpha", "bot2@alpha"]
    assert out["totals"]["hands"] >= 2 and out["totals"]["errors"] == {}


def test_cli_refuses_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli_main(["bots", "--progressive", "2"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit):
        cli_main(["bots", "--seconds", "3", "--rounds", "2"])
    assert "not allowed with" in capsys.readouterr().err
    for command in ("play", "watch"):  # the server would refuse it: said before connecting
        with pytest.raises(SystemExit) as exc:
            cli_main([command, "--name", "Alexandrinacatherinemaria"])
        assert exc.value.code == 2
        assert "--name: must be 1 to 24 characters, got 25" in capsys.readouterr().err


async def test_an_action_is_seen_even_when_the_round_moves_on_at_once() -> None:
    """A raise that ends the round: showdown and the next `waiting` may both arrive
    before the bot looks; the listener still matches the showdown snapshot."""
    bot = Bot("ws://unused", "alpha", "b", rounds=1, deadline=None)
    bot.seats = {0}

    def seat(decision: str | None, result: dict[str, Any] | None) -> dict[str, Any]:
        return {
            "player_id": "p",
            "ante": 100 if decision else 0,
            "progressive": False,
            "ready": bool(decision),
            "decision": decision,
            "auto": False,
            "cards": ["2c", "2d", "5h", "9s", "Jd"] if decision else None,
            "result": result,
        }

    def snap(phase: str, s: dict[str, Any]) -> dict[str, Any]:
        rid = None if phase == "waiting" else "r1"
        return {"t": "table", "table": "alpha", "phase": phase, "round_id": rid, "seats": [s]}

    pending = _Pending("raise", lambda x: x["seats"][0]["decision"] is not None, 0.0)
    bot._pending.append(pending)
    bot.on_frame(snap("deciding", seat(None, None)))
    assert not pending.seen.is_set()
    result = {"outcome": "win", "net": 300, "returned": 600, "progressive_prize": None}
    bot.on_frame(snap("showdown", seat("raise", result)))
    bot.on_frame(snap("waiting", seat(None, None)))
    assert pending.seen.is_set() and len(bot.result.latency["raise"]) == 1
    assert (bot.result.hands, bot.result.raised, bot.result.net) == (1, 1, 300)
    assert bot.done  # one round asked, one round counted
    bot.on_frame(snap("showdown", seat("raise", result)))  # the same round again
    assert bot.result.hands == 1


def test_money_and_hand_net() -> None:
    assert money(12345) == "$123.45" and money(-5) == "-$0.05" and money(0, sign=True) == "$0.00"
    assert money(100_000_00, sign=True) == "+$100,000.00"
    won = {"progressive": True, "result": {"net": 9_600, "progressive_prize": 10_000}}
    assert hand_net(won) == 9_600 and prize_paid(won) == 10_000
    lost = {"progressive": True, "result": {"net": -400, "progressive_prize": 0}}
    assert hand_net(lost) == -400 and prize_paid(lost) == 0
    no_bet = {"progressive": False, "result": {"net": 100, "progressive_prize": None}}
    assert prize_paid(no_bet) == 0


async def test_a_bot_whose_seat_is_taken_away_stops_and_says_so(
    make_server: ServerFactory,
) -> None:
    """An operator removed a bot (a suspension frees its seats): it waited out its whole
    step timeout for a turn that never came, then said only `timeout`, and the run went
    on long past its `--seconds`."""
    server = await make_server(timers={"betting": 30, "decision": 30, "results": 0.05})
    bot = Bot(url(server), "beta", "Gone", rounds=None, deadline=None, step_timeout=600)
    run = asyncio.ensure_future(bot.run(None))
    room = server.rooms["beta"]
    while not bot.result.player_id or not room.table.seats_of(bot.result.player_id):
        await asyncio.sleep(0.01)
    await room.remove_player(bot.result.player_id, by_request=False, fold=False)
    result = await asyncio.wait_for(run, 60)  # (a bound on the test, not a figure)
    assert result.errors == {"seats_lost": 1}, result.to_dict()


async def test_a_request_dropped_by_the_rate_limit_is_sent_again(
    make_server: ServerFactory,
) -> None:
    """A bot stopped at its first `rate_limited`: it now paces its requests to the
    server's bucket (`welcome.limits`), so none is dropped."""
    server = await make_server(
        timers={"betting": 30, "decision": 30, "results": 0.05},
        limits={"rate_per_second": 4, "rate_burst": 4},
    )
    report = await run_bots(
        url(server), ["alpha"], 1, rounds=3, seats_per_bot=3, seed=3, step_timeout=20
    )
    (bot,) = report.bots
    assert bot.hands >= 9, {k: v for k, v in bot.to_dict().items() if k != "latency"}
    assert not bot.errors, bot.errors
    await reconcile(server, report)


async def test_a_request_the_rate_limit_dropped_all_the_same_goes_again() -> None:
    """The frame was dropped, not handled: sending it again is safe."""

    class Dropping:
        def __init__(self) -> None:
            self.welcome = {"limits": {"rate_per_second": 50, "rate_burst": 10}}
            self.sent = 0

        async def request(self, t: str, **fields: Any) -> dict[str, Any]:
            self.sent += 1
            if self.sent < 3:
                raise ServerError({"t": "error", "code": "rate_limited", "message": "slow"})
            return {"t": "ok"}

    bot = Bot("ws://unused", "alpha", "bot", rounds=1, deadline=None)
    client = Dropping()
    assert await bot._request(client, "deal", table="alpha") == {"t": "ok"}  # type: ignore[arg-type]
    assert client.sent == 3 and bot.result.errors == {"rate_limited": 2}


async def test_a_bot_stopped_by_an_error_mid_hand_counts_the_hand_it_leaves(
    make_server: ServerFactory,
) -> None:
    """A bot stopped at an error with a dealt hand left at once; the leave folded the
    hand unseen, so `net` missed its loss and no longer matched the wallet."""
    server = await make_server(timers={"betting": 30, "decision": 1, "results": 0.2})

    def failing(cards: Any, up: Any) -> bool:
        raise ServerError({"t": "error", "code": "store_unavailable", "message": "refused"})

    report = await run_bots(
        url(server), ["alpha"], 1, rounds=2, seed=5, step_timeout=20, strategy=failing
    )
    (bot,) = report.bots
    assert bot.errors == {"store_unavailable": 1}, bot.errors
    assert (bot.hands, bot.auto_folded) == (1, 1), bot.to_dict()
    await reconcile(server, report)
