"""Fixtures: real servers on loopback ports, real WebSocket clients."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any

import pytest

from clients.connection import StudClient
from server.app import StudServer
from server.config import Config, build_config
from server.game.cards import Card
from server.stores.base import Store
from server.stores.memory import MemoryStore
from server.stores.redis import RedisStore
from tests.redis_fixture import drop_namespace, fresh_namespace

TEST_TABLES = [
    {"id": "alpha", "variant": "casino-stud", "seats": 5, "min_ante": 100, "max_ante": 10_000},
    {"id": "beta", "variant": "stud-poker", "seats": 3, "min_ante": 100, "max_ante": 5_000},
]

#: argon2id parameters for tests: the same algorithm and code path, at a lower cost.
CHEAP_ARGON2: dict[str, Any] = {"time_cost": 1, "memory_cost": 1024, "parallelism": 1}


def make_config(**overrides: Any) -> Config:
    data: dict[str, Any] = {
        "tables": overrides.pop("tables", TEST_TABLES),
        "timers": overrides.pop("timers", {"betting": 30, "decision": 30, "results": 0.2}),
        "jackpots": overrides.pop("jackpots", {"main": {"seed": 100_000, "contribution_bp": 5000}}),
        "wallet": overrides.pop("wallet", {"starting_credits": 100_000, "starting_bonus": 5_000}),
        # real argon2id, with a small cost so the suite stays quick
        "accounts": {**CHEAP_ARGON2, **overrides.pop("accounts", {})},
    }
    for section in ("limits", "server", "variants"):
        if section in overrides:
            data[section] = overrides.pop(section)
    config = build_config(data)
    return replace(
        config, port=0, reconnect_grace=overrides.pop("reconnect_grace", 30.0), **overrides
    )


ServerFactory = Callable[..., Awaitable[StudServer]]


@pytest.fixture
async def make_server() -> AsyncIterator[ServerFactory]:
    servers: list[StudServer] = []

    async def factory(
        shuffle: Callable[[], list[Card]] | None = None, **overrides: Any
    ) -> StudServer:
        server = StudServer(make_config(**overrides), shuffle=shuffle)
        await server.start()
        servers.append(server)
        return server

    yield factory
    for server in servers:
        await server.stop(grace=0)


ClientFactory = Callable[..., Awaitable[StudClient]]


@pytest.fixture
async def connect() -> AsyncIterator[ClientFactory]:
    clients: list[StudClient] = []

    async def factory(server: StudServer, name: str | None = "player", **hello: Any) -> StudClient:
        client = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
        clients.append(client)
        if name is not None or hello:
            await client.hello(name=name if not hello.get("token") else None, **hello)
        return client

    yield factory
    for client in clients:
        await client.close()


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    """Each store in turn, the Redis one in a namespace of its own (a module using it
    imports the `redis_url` fixture: tests/redis_fixture.py)."""
    if request.param == "memory":
        yield MemoryStore()
        return
    url: str = request.getfixturevalue("redis_url")
    namespace = fresh_namespace()
    redis = await RedisStore.connect(url, namespace)
    try:
        yield redis
    finally:
        await redis.close()
        await drop_namespace(url, namespace)


__all__ = ["CHEAP_ARGON2", "TEST_TABLES", "make_config"]
