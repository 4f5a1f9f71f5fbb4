"""The console over a fleet whose host of a table was killed (SIGKILL: no goodbye, its
lobby row and published details left behind): once its heartbeat has stood still for
a TTL its leases have lapsed, and the console names no process as the table's host.
An operator saw the dead process named, in a live phase, for ~18 s after its lease
had gone (until its lobby row aged out)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from server.app import StudServer
from server.fleet import Fleet
from server.stores.redis import RedisStore
from tests.conftest import make_config
from tests.console import Operator, with_console
from tests.redis_fixture import drop_namespace, fresh_namespace, redis_url, time_limit
from tests.test_fleet import SEED, START, ServerProcess

__all__ = ["redis_url", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")

TTL = 1.5  # tests/test_fleet.py's config: the same for every process of the fleet


async def until(check: Callable[[], Awaitable[Any]], what: str) -> Any:
    for _ in range(600):
        value = await check()
        if value:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError(f"never: {what}")


async def test_a_killed_host_is_not_named_once_its_heartbeat_stood_still(
    redis_url: str, tmp_path: Path
) -> None:
    namespace = fresh_namespace()
    west = ServerProcess(tmp_path, "west", redis_url, namespace)
    east: StudServer | None = None
    try:
        west.start(hosting=1)
        config = make_config(
            tables=[{"id": "east", "variant": "casino-stud", "seats": 3}],
            jackpots={"main": {"seed": SEED, "contribution_bp": 5000}},
            wallet={"starting_credits": START, "starting_bonus": 0},
        )
        config = with_console(replace(config, fleet_ttl=TTL, public_url="ws://east.example/ws"))
        store = await RedisStore.connect(redis_url, namespace=namespace)
        east = StudServer(config, store=store, fleet=Fleet(store, "east", "", ttl=TTL))
        await east.start()
        op = await Operator.sign_in(east)

        async def west_row() -> dict[str, Any]:
            tables = {t["id"]: t for t in (await op.get("/api/tables"))["tables"]}
            row: dict[str, Any] = tables["west"]
            return row

        async def hosted() -> bool:
            row = await west_row()
            return row["process_id"] is not None and row["updated_ms"] is not None

        await until(hosted, "the console names west's host")
        west.kill()  # no lease given up, no lobby row dropped, no detail withdrawn

        async def silent() -> bool:
            row = east.lobby.remote_row("west")
            return row is not None and bool(row.get("silent"))

        await until(silent, "east's lobby finds west's host silent")
        row = await west_row()
        assert row["process_id"] is None and row["url"] is None, row
        assert row["phase"] == "unhosted" and row["here"] is False, row
        overview = await op.get("/api/overview")
        assert overview["tables"] == len((await op.get("/api/tables"))["tables"])
    finally:
        west.stop()
        if east is not None:
            await east.stop(grace=0)
        await drop_namespace(redis_url, namespace)
