"""The operators live in the store: a store that lost its data has none, and accepting
the loss keeps it so. The console's sign-in says the store lost its data (not that
Redis did not answer), and `accept-empty-store` says the operators are gone and how
to add them again. Needs redis-server on the PATH."""

from __future__ import annotations

import pytest

from server.app import StudServer
from server.fleet import Fleet
from server.stores.redis import RedisStore
from tests.conftest import make_config
from tests.console import PASSWORD, http, with_console
from tests.redis_fixture import RedisServer, fresh_namespace, private_redis, time_limit
from tests.test_operations import stud
from tests.test_store_lost import flushed

__all__ = ["private_redis", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")


async def test_a_sign_in_while_the_data_is_lost_says_so_and_accepting_says_operators_go(
    private_redis: RedisServer,
) -> None:
    namespace = fresh_namespace()
    store = await RedisStore.connect(private_redis.url, namespace=namespace, timeout=2)
    side = await RedisStore.connect(private_redis.url, namespace=namespace, timeout=2)
    server = StudServer(
        with_console(make_config()), store=store, fleet=Fleet(side, "solo", "", ttl=1.5)
    )
    await server.start()
    try:
        hashed = await server.passwords.hash(PASSWORD)
        await server.admin.admin.put_operator("olga", hashed, replace=False, now_ms=1)
        assert server.admin.port is not None
        await flushed(private_redis, store, side)

        body = {"name": "olga", "password": PASSWORD}
        reply = await http(server.admin.port, "POST", "/api/session", body)
        assert reply.status == 503, reply
        words = reply.json["message"]
        # Redis answered, without its data: not "did not answer"
        assert "did not answer" not in words, words
        assert "without its data" in words, words

        env = {"STUD_REDIS_NAMESPACE": namespace}
        accepted = stud("accept-empty-store", "--redis", private_redis.url, env=env)
        assert accepted.returncode == 0, accepted
        said = accepted.stdout
        assert "operators" in said, said
        add = f"STUD_REDIS_NAMESPACE={namespace} stud-server operator add NAME --redis"
        assert f"{add} {private_redis.url}" in said, said
    finally:
        await server.stop(grace=0)
