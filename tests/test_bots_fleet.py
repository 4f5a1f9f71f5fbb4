"""Bots at a table that moves to another server process: they go along, as
PROTOCOL.md tells a client to, and their wallets still reconcile with the hands
they counted. They used to wait out their step timeout at the old host and stop
with `timeout`. Needs redis-server on the PATH."""

from __future__ import annotations

import asyncio
import random

import pytest

from clients.bots import Bot, Spectator
from tests.redis_fixture import RedisServer, private_redis, time_limit
from tests.test_tui_fleet import Casino, hold_renewals, ws

__all__ = ["private_redis", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")

START = 100_000  # the casino's starting credits (tests/test_tui_fleet.py)
QUICK = {"betting": 30, "decision": 30, "results": 0.5}  # under the rate limit


async def test_a_bot_follows_its_table_to_the_new_host_and_reconciles(
    private_redis: RedisServer,
) -> None:
    casino = Casino(private_redis)
    try:
        first = await casino.start("first", ["east"], QUICK)
        second = await casino.start("second", ["west", "east"], QUICK)
        bot = Bot(
            ws(first),
            "east",
            "Rover",
            rounds=None,
            deadline=None,  # set below, once it has played on at the new host
            seats=2,
            progressive_probability=0.5,
            rng=random.Random(5),
            step_timeout=20,
        )
        run = asyncio.ensure_future(bot.run(None))
        while bot.result.hands < 4:  # two rounds at the first host
            await asyncio.sleep(0.01)
        gate = hold_renewals(first)  # it stands still: the second takes the table
        while not second.rooms["east"].active:
            await asyncio.sleep(0.01)
        gate.set()  # the first hears it lost the table: `table_moved`
        while bot.result.moves == 0 or not second.rooms["east"].table.seats_of(
            bot.result.player_id
        ):
            await asyncio.sleep(0.01)
        there = bot.result.hands
        while bot.result.hands < there + 4:  # two rounds at the new host
            await asyncio.sleep(0.01)
        bot.deadline = asyncio.get_running_loop().time()  # stop at the next showdown
        result = await asyncio.wait_for(run, 120)  # (a bound on the test, not a figure)
        assert result.errors == {} and result.moves == 1, result.to_dict()
        assert result.raised + result.folded == result.hands
        assert result.balance_change == result.net, result.to_dict()
        wallet = await second.store.wallet(result.player_id)
        assert wallet.held == 0
        assert wallet.balance - START - result.bought == result.net
        assert second.rooms["east"].table.seats_of(result.player_id) == []  # left at the end
    finally:
        await casino.stop()


async def test_a_spectator_follows_its_table_to_the_process_hosting_it(
    private_redis: RedisServer,
) -> None:
    """A spectator sent to a process that does not host its table goes on at the one
    that does (`unknown_table` names it), and follows the table when it moves again
    (`table_moved`). It used to stop at once with `unknown_table`, the run failing."""
    casino = Casino(private_redis)
    stop = asyncio.Event()
    try:
        first = await casino.start("first", ["east"], QUICK)
        second = await casino.start("second", ["west", "east"], QUICK)
        watcher = Spectator(ws(second), "east", "Owl")  # east is the first's
        run = asyncio.ensure_future(watcher.run(stop))
        while watcher.result.moves == 0 or watcher.result.snapshots == 0:
            assert not run.done(), run.result().to_dict()
            await asyncio.sleep(0.01)
        gate = hold_renewals(first)  # it stands still: the second takes the table
        while not second.rooms["east"].active:
            await asyncio.sleep(0.01)
        gate.set()  # the first hears it lost the table: `table_moved`
        while watcher.result.moves < 2 or not second.rooms["east"].audience.spectator_count():
            assert not run.done(), run.result().to_dict()
            await asyncio.sleep(0.01)
        stop.set()
        result = await asyncio.wait_for(run, 60)  # (a bound on the test, not a figure)
        assert result.errors == {} and result.moves == 2, result.to_dict()
    finally:
        stop.set()
        await casino.stop()
