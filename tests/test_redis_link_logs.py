"""A process has two Redis connections, its store's and its fleet's, and each says
when it is lost and restored: each line names which (`link`), where two identical
`Redis connection restored` lines used to leave the operator guessing. And a command
lost with its connection says so, not that Redis itself "was lost". Needs
redis-server on the PATH."""

from __future__ import annotations

import asyncio
import logging

import pytest

from server.stores.base import OutcomeUnknown, StoreError
from server.stores.redis import RedisStore
from server.stores.redis_link import RedisLink
from tests.redis_fixture import RedisServer, fresh_namespace, private_redis, time_limit

__all__ = ["private_redis", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")


async def test_each_connection_s_loss_and_return_names_its_link(
    private_redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    namespace = fresh_namespace()
    store = await RedisStore.connect(private_redis.url, namespace=namespace, timeout=1)
    side = await RedisStore.connect(private_redis.url, namespace=namespace, timeout=1, role="fleet")
    try:
        private_redis.stop()
        for link in (store, side):
            with pytest.raises(StoreError):
                await link.ping()
        private_redis.start()
        while not (store.connected and side.connected):
            await asyncio.sleep(0.05)
        for message in ("Redis connection lost", "Redis connection restored"):
            said = [r for r in caplog.records if r.name == "stud.store"]
            links = [getattr(r, "link", None) for r in said if r.getMessage().startswith(message)]
            assert sorted(map(str, links)) == ["fleet", "store"], (message, links)
    finally:
        await store.close()
        await side.close()


class _Dropped:
    """A connection whose command finds the link gone (a network cut, Redis stopped)."""

    class protocol:
        is_connected = True

    async def fail(self) -> None:
        raise ConnectionResetError("connection reset by peer")

    def close(self) -> None:
        pass


@pytest.mark.parametrize("write", [False, True])
async def test_a_command_cut_off_says_the_connection_dropped_not_redis(write: bool) -> None:
    """It said "Redis was lost during the ensure_meter script" (in `lobby sharing
    failed: ...`): what went was the connection, and Redis may be fine."""
    link = RedisLink("redis://127.0.0.1:1/0")
    link._start_reconnect = lambda: None  # type: ignore[method-assign]
    link._conn = _Dropped()
    with pytest.raises(StoreError) as e:
        await link.run("the ensure_meter script", lambda conn: conn.fail(), write=write)
    assert isinstance(e.value, OutcomeUnknown) == write
    assert "connection dropped during the ensure_meter script" in str(e.value), e.value
    assert "was lost" not in str(e.value) and "was lost" not in e.value.cause
