"""Data swapped back under a live connection is found at the next write answered.

An operator loaded an older dump in place (`DEBUG RELOAD NOSAVE`) under two live
processes. The one whose next write touched a round the dump lacked found it and
started over; the other went on dealing and settling on the older data for as long as
it ran: the rounds it had settled since the dump were gone (a $50 prize a player was
told of among them), its players were never sent their wallets, and nothing was
logged. Each write a link makes bumps its count of writes (the store's age) and is
answered the new count: a count answered twice means the data went back.
"""

from __future__ import annotations

import asyncio
import logging

import pytest

from clients.connection import StudClient
from server.app import StudServer
from server.fleet import Fleet
from server.stores.base import Player
from server.stores.redis import RedisStore
from tests.conftest import make_config
from tests.redis_fixture import RedisServer, fresh_namespace, private_redis, time_limit
from tests.test_store_lost import dealt, lone_store, solo, started_over

__all__ = ["private_redis", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")


async def test_a_link_finds_the_data_gone_back_at_its_next_write(
    private_redis: RedisServer,
) -> None:
    async with lone_store(private_redis) as (store, _back):
        went: list[str | None] = []
        store.on_went_back = lambda: went.append(store.age_key)
        await store.create_player("ann", 1_000, 0, Player("p-ann", "ann", "t-ann"))
        assert private_redis.command("SAVE") == "+OK"
        for i in range(3):  # writes the dump will not hold
            await store.buy_chips("p-ann", 100, 100_000, f"buy:{i}")
        assert went == []
        key = store.age_key
        assert private_redis.command("DEBUG", "RELOAD", "NOSAVE") == "+OK"
        await store.buy_chips("p-ann", 100, 100_000, "buy:after")
        assert went == [key]  # once, for the key counting then
        assert store.age_key != key  # a new count: the next writes are not found again
        await store.buy_chips("p-ann", 100, 100_000, "buy:later")
        assert went == [key]
        assert (await store.wallet("p-ann")).balance == 1_200


async def test_a_process_finds_a_dump_reloaded_under_it_and_tells_its_players(
    private_redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    """Ann only bought chips: no round of hers is in doubt, and her wallet went back with
    the data. The fleet's next heartbeat finds it: the process says so and sends Ann the
    wallet the data holds."""
    caplog.set_level(logging.INFO)
    server, store, _side = await solo(private_redis.url, fresh_namespace())
    ann = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    try:
        await ann.hello(name="ann")
        before = (await store.wallet(ann.player_id)).balance
        assert private_redis.command("SAVE") == "+OK"
        await ann.request("buy_chips", amount=5_000)
        await ann.wait_for(lambda c: c.balance.get("balance") == before + 5_000)
        assert private_redis.command("DEBUG", "RELOAD", "NOSAVE") == "+OK"
        await ann.wait_for(lambda c: c.balance.get("balance") == before, timeout=15)
        for _ in range(100):
            if any("went back to older data" in r.getMessage() for r in caplog.records):
                break
            await asyncio.sleep(0.05)
        said = [r for r in caplog.records if "went back to older data" in r.getMessage()]
        assert len(said) == 1 and said[0].levelno == logging.ERROR
    finally:
        await ann.close()
        await server.stop(grace=0)


async def test_the_clock_s_fold_of_a_round_the_store_lost_is_no_failure(
    private_redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The decision clock folded a hand whose ante went with a dump loaded in place: its
    write was refused (the round unknown), which was logged as a timer failing, with a
    traceback, for an event handled as documented."""
    caplog.set_level(logging.INFO)
    namespace = fresh_namespace()
    store = await RedisStore.connect(private_redis.url, namespace=namespace, timeout=2)
    side = await RedisStore.connect(private_redis.url, namespace=namespace, timeout=2)
    timers = {"betting": 30, "decision": 1, "results": 0.2}
    server = StudServer(
        make_config(timers=timers), store=store, fleet=Fleet(side, "solo", "", ttl=1.5)
    )
    await server.start()
    for link in (store, side):  # the clock's own write must find it, not a count's
        link.on_went_back = lambda: None
    ann = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    try:
        await ann.hello(name="ann")
        await ann.request("join", table="alpha")
        await ann.request("sit", table="alpha", seat=0)
        assert private_redis.command("SAVE") == "+OK"
        await dealt(ann)
        assert private_redis.command("DEBUG", "RELOAD", "NOSAVE") == "+OK"
        await started_over(ann)
        assert not [r for r in caplog.records if r.getMessage() == "timer failed"]
        assert [r for r in caplog.records if r.getMessage() == "timer's writes stopped"]
    finally:
        await ann.close()
        await server.stop(grace=0)
