"""A jackpot meter read from a wiped Redis (FLUSHALL under a live connection): the
meter is absent, not $0. An operator saw a process show `"main": 0` in /healthz and
`stud_jackpot_cents 0` until the backup was restored; the figure last known stays up
instead, and the read fails as any read of a lost store does."""

from __future__ import annotations

import pytest

from server.stores.base import StoreError
from tests.redis_fixture import RedisServer, fresh_namespace, private_redis, time_limit
from tests.test_store_lost import solo

__all__ = ["private_redis", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")


async def test_a_meter_gone_with_the_store_is_not_read_as_0(private_redis: RedisServer) -> None:
    server, store, _ = await solo(private_redis.url, fresh_namespace())
    try:
        assert server.jackpots.amount("main") == 100_000  # the seed
        assert private_redis.command("FLUSHALL") == "+OK"
        with pytest.raises(StoreError):
            await store.meter("main")  # absent from a wiped store: no figure at all
        server.jackpots.news("main", 0)  # another process "moved" it: read at the push
        await server.jackpots.flush()
        assert server.jackpots.amount("main") == 100_000
        assert server.jackpots.meters == {"main": 100_000}
    finally:
        await server.stop(grace=0)


async def test_a_meter_read_on_a_store_that_has_its_data_is_its_figure(
    private_redis: RedisServer,
) -> None:
    server, store, _ = await solo(private_redis.url, fresh_namespace())
    try:
        assert await store.meter("main") == 100_000
        assert await store.meter("never-made") == 0  # no meter of that name: nothing in it
    finally:
        await server.stop(grace=0)
