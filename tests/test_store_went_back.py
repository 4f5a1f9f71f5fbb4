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
from server.stores.base import Player
from tests.redis_fixture import RedisServer, fresh_namespace, private_redis, time_limit
from tests.test_store_lost import lone_store, solo

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
