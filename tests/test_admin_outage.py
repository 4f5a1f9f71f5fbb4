"""The operator console while Redis is away: what this process knows of itself (its
tables, their suspension, its own facts) is still shown, marked as read without the
store; what only the store knows is null, and the books are refused (503)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Any

import pytest

from server.app import StudServer
from server.fleet import Fleet
from server.stores.redis import RedisStore
from tests.conftest import make_config
from tests.console import Operator, http, with_console
from tests.redis_fixture import RedisServer, fresh_namespace, private_redis, time_limit

__all__ = ["private_redis", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")

TTL = 1.5


@pytest.fixture
async def console(private_redis: RedisServer) -> AsyncIterator[StudServer]:
    namespace = fresh_namespace()
    config = with_console(make_config(tables=[{"id": "alpha", "variant": "casino-stud"}]))
    config = replace(config, fleet_ttl=TTL, store_timeout=0.5)
    store = await RedisStore.connect(private_redis.url, namespace=namespace, timeout=0.5)
    side = await RedisStore.connect(private_redis.url, namespace=namespace, timeout=0.5)
    server = StudServer(config, store=store, fleet=Fleet(side, "here", "ws://here", ttl=TTL))
    await server.start()
    try:
        yield server
    finally:
        await server.stop(grace=0)
        await side.close()


async def until(check: Callable[[], Any], what: str) -> None:
    for _ in range(400):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"never: {what}")


async def test_the_console_shows_this_process_s_tables_while_redis_is_away(
    console: StudServer, private_redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="stud")
    op = await Operator.sign_in(console)
    gone = await Operator.sign_in(console, "bert")
    assert (await http(op.port, "DELETE", "/api/session", token=gone.token)).status == 200
    before = await op.get("/api/overview")
    assert before["store_reachable"] is True and before["books_sum"] == 0
    private_redis.stop()
    room = console.rooms["alpha"]
    await until(lambda: room.suspended is not None, "the table is suspended")

    overview = await op.get("/api/overview")
    assert overview["store_reachable"] is False
    assert overview["process_id"] == console.process_id
    assert overview["store"] == "RedisStore"
    assert overview["tables"] == 1
    assert overview["jackpots"] == before["jackpots"]
    assert overview["books_sum"] is None and overview["pending_acts"] is None
    assert overview["processes"] is None

    listed = await op.get("/api/tables")
    assert listed["store_reachable"] is False
    [alpha] = listed["tables"]
    assert alpha["id"] == "alpha" and alpha["here"] is True
    assert alpha["suspended"] == room.suspended.reason  # type: ignore[union-attr]
    assert alpha["phase"] == "suspended"
    assert alpha["last_hour"] is None  # the hold statistics are in the store

    detail = await op.get("/api/tables/alpha")
    assert detail["store_reachable"] is False and detail["here"] is True
    assert detail["view"]["table"] == "alpha"
    assert detail["audit"] is None and detail["history"] is None
    assert detail["pending_acts"] is None

    pending = await op.get("/api/pending")
    assert pending["store_reachable"] is False and pending["acts"] is None
    assert [p["process_id"] for p in pending["processes"]] == [console.process_id]

    books = await http(op.port, "GET", "/api/books", token=op.token)
    assert books.status == 503 and books.json["error"] == "store_unavailable"
    # only a token the store confirmed to this process, and not signed out, is taken
    for token in (gone.token, "a-token-nobody-was-given"):
        refused = await http(op.port, "GET", "/api/overview", token=token)
        assert refused.status == 503 and refused.json["error"] == "store_unavailable"

    private_redis.start()
    await until(lambda: room.suspended is None, "the table resumes")
    store = console.store
    assert isinstance(store, RedisStore)
    await until(lambda: store.connected, "the store's connection is back")
    # the log speaks to operators: the cause, not the advice written for players
    said = [r.getMessage() for r in caplog.records if r.name.startswith("stud")]
    assert any("Redis" in line and "failed" in line for line in said), said
    assert not [line for line in said if "try again shortly" in line]
    after = await op.get("/api/overview")
    assert after["store_reachable"] is True and after["books_sum"] == 0
    assert (await op.get("/api/tables"))["store_reachable"] is True
