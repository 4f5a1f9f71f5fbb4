"""Lobby rows another process of the fleet left: which are said `silent` (their host
is gone or frozen, the table about to move), so a client never goes to a dead host.
Needs redis-server on the PATH."""

from __future__ import annotations

import pytest

from server.fleet import Fleet
from server.stores.redis import RedisStore
from tests.redis_fixture import RedisServer, private_redis, time_limit

__all__ = ["private_redis", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")


async def test_a_dead_hosts_rows_are_listed_silent_once_a_new_process_answers_at_its_address(
    private_redis: RedisServer,
) -> None:
    """A host killed and started again in place: the new process answers at the old
    one's address before it may claim the tables the old one's leases still hold. Those
    rows said `silent: false` until the old heartbeat was a TTL old, then named the same
    address again once the new process claimed the table: a client could not tell the
    dead host's row from the new claim. They are silent as soon as the new process is
    heard from; one that shares the address and is still heard is not."""
    store = await RedisStore.connect(private_redis.url, "stud", timeout=2.0)
    try:
        old = Fleet(store, "old", "ws://host/ws", ttl=3.0)
        reader = Fleet(store, "reader", "ws://reader/ws", ttl=3.0)
        await old.publish_rows([({"id": "t1"}, {"phase": "waiting", "silent": False})])

        async def silent() -> bool:
            (row,) = await reader.remote_rows(set(), await reader.publish_rows([]))
            return bool(row["silent"])

        assert not await silent()
        new = Fleet(store, "new", "ws://host/ws", ttl=3.0)  # in place, hosting nothing yet
        await new.publish_rows([])
        assert await silent()
        assert reader.servers() == ["ws://host/ws"]  # the new one answers there
        await old.publish_rows([({"id": "t1"}, {"phase": "waiting", "silent": False})])
        assert not await silent()  # heard after all: both answer at that address
    finally:
        await store.close()
