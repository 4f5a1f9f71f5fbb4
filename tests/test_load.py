"""`stud-client load`: small, bounded runs against real server processes on loopback.

These check what the load generator reports and that the books balance after a
run; they never assert a timing (the figures live in BENCHMARKS.md).
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from typing import Any

import pytest

from clients.cli import main as cli_main
from clients.connection import StudClient
from clients.load import (
    FanoutOptions,
    LoadOptions,
    RawSocket,
    bucket,
    open_raw,
    pack,
    run_fanout,
    run_load,
    summarize,
    tables_config,
    unpack,
)
from clients.load.report import calls_between, calls_per_hand
from server.config import build_config
from tests.conftest import ServerFactory
from tests.redis_fixture import redis_url, time_limit

__all__ = ["redis_url", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")

LATENCY_KEYS = {"count", "p50", "p95", "p99", "max"}


def check_tables_doc(doc: dict[str, Any], *, store: str, connections: int) -> None:
    for key in (
        "connections",
        "rounds_per_second",
        "hands_per_second",
        "frames_in_per_second",
        "frames_out_per_second",
        "latency_ms",
        "server_cpu_seconds",
        "server_peak_rss_mb",
        "errors",
        "reconciled",
    ):
        assert key in doc, key
    assert doc["store"] == store
    assert doc["connections"] == connections
    assert doc["errors"] == {}
    assert doc["reconciled"] is True, doc["reconcile"]
    assert doc["reconcile"]["sum_of_accounts"] == 0
    assert doc["reconcile"]["house_and_meters_match_bots"] is True
    for who in ("player", "spectator"):
        assert set(doc["latency_ms"][who]) == LATENCY_KEYS
        assert doc["latency_ms"][who]["count"] > 0
        assert doc["latency_ms"][who]["p50"] <= doc["latency_ms"][who]["max"]
    assert doc["hands_per_second"] > 0 and doc["rounds_per_second"] > 0
    assert doc["frames_out_per_second"] > doc["frames_in_per_second"] > 0
    assert doc["server_cpu_seconds"] >= 0 and doc["server_peak_rss_mb"] > 0
    assert doc["generator"]["garbage_after_window"] >= 0  # collected once measuring ended
    json.dumps(doc)  # one JSON document


async def test_load_with_the_memory_store() -> None:
    opts = LoadOptions(tables=3, seats=3, spectators=6, seconds=2.0, pin=False, results=0.05)
    doc = await run_load(opts)
    check_tables_doc(doc, store="memory", connections=15)
    assert doc["reconcile"]["hands"] > 0


async def test_load_with_redis(redis_url: str) -> None:
    opts = LoadOptions(
        tables=2, seats=4, spectators=4, seconds=2.0, pin=False, results=0.05, redis=redis_url
    )
    doc = await run_load(opts)
    check_tables_doc(doc, store="redis", connections=12)
    # a Redis given by URL may serve other processes: totals, but no per-hand figure
    assert doc["redis_calls"]["evalsha"] > 0
    assert doc["redis_calls"]["commands"] >= doc["redis_calls"]["evalsha"]
    assert doc["redis_calls_per_hand"] is None


def test_redis_calls_per_hand_only_of_a_redis_of_its_own() -> None:
    before = {"evalsha": 10, "publish": 1, "hget": 5, "info": 2}
    after = {"evalsha": 30, "publish": 3, "hget": 45, "info": 3}
    calls = calls_between(before, after)
    assert calls == {"evalsha": 20, "publish": 2, "commands": 62}
    assert calls_per_hand(calls, 40.0) == {"evalsha": 0.5, "publish": 0.05, "commands": 1.55}
    assert calls_per_hand(calls, 0) is None  # another process's Redis: hands unknown
    assert calls_between(None, after) is None and calls_per_hand(None, 40.0) is None


async def test_fanout_beside_a_bare_websockets_server() -> None:
    doc = await run_fanout(FanoutOptions(spectators=60, triggers=4, pin=False, pause=0.01))
    assert doc["errors"] == {}
    assert doc["spectators"] == 60 and doc["frame_bytes"] > 0
    for key in ("fanout_ms", "baseline_fanout_ms"):
        assert doc[key]["count"] == 4
        assert 0 < doc[key]["p50"] <= doc[key]["max"]
    assert doc["ratio_vs_websockets"] > 0


def test_cli_prints_one_json_document(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli_main(
        ["load", "--tables", "1", "--seats", "2", "--seconds", "1", "--no-pin", "--results", "0.05"]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0, out
    assert out["connections"] == 2 and out["reconciled"] is True


def test_cli_refuses_runs_out_of_bounds(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["load", "--tables", "0"]) == 2
    assert cli_main(["load", "--tables", "3000", "--seats", "5"]) == 2  # > 12000 connections
    assert cli_main(["load", "--url", "ws://192.0.2.1:8765/ws"]) == 2  # loopback only
    assert cli_main(["load", "--fanout", "10001"]) == 2
    assert "stud-client load:" in capsys.readouterr().err


def test_the_generated_config_is_valid() -> None:
    import tomllib

    text = tables_config(["t1", "t2"], 5, {"betting": 10, "decision": 10, "results": 0.1})
    config = build_config(tomllib.loads(text))
    assert [t.table_id for t in config.tables] == ["t1", "t2"]
    assert all(t.seats == 5 for t in config.tables)


def test_latency_histograms() -> None:
    hist: Counter[int] = Counter()
    for ms in range(1, 101):
        hist[bucket(ms / 1000)] += 1
    s = summarize(hist)
    assert s == {"count": 100, "p50": 50.0, "p95": 95.0, "p99": 99.0, "max": 100.0}
    assert summarize(Counter())["count"] == 0
    assert bucket(0.0012345) == 1230 and bucket(0.5) == 500_000 and bucket(2.5) == 2_500_000


async def test_the_lean_client_speaks_websocket(make_server: ServerFactory) -> None:
    """RawSocket against the real server: handshake, masked frames out, frames in, close."""
    server = await make_server()
    got: list[dict[str, Any]] = []
    closed = asyncio.Event()

    class Handler:
        def on_open(self, sock: RawSocket) -> None:
            sock.send(pack({"t": "hello", "id": 1, "v": 1, "name": "x" * 20}))
            sock.send(pack({"t": "lobby", "id": 2, "watch": False}))  # a reply over 125 bytes

        def on_message(self, data: bytes, now: float) -> None:
            got.append(unpack(data))

        def on_close(self) -> None:
            closed.set()

    sock = await open_raw("127.0.0.1", server.port, "/ws", Handler(), 5)
    for _ in range(200):
        if any(f.get("t") == "ok" and f.get("id") == 2 for f in got):
            break
        await asyncio.sleep(0.01)
    assert [f["t"] for f in got] == ["welcome", "lobby", "ok"]
    sock.close()
    await asyncio.wait_for(closed.wait(), 5)


async def test_the_ledger_endpoint_sums_the_books(make_server: ServerFactory) -> None:
    """GET /ledger (loopback only): aggregate accounts, no player listed, the sum zero."""
    import urllib.request

    server = await make_server()
    client = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    try:
        await client.hello(name="ledgered")
        await client.request("sit", table="alpha")
        await client.request("ante", table="alpha", seat=0, amount=100, progressive=True)

        def get() -> dict[str, Any]:
            url = f"http://127.0.0.1:{server.port}/ledger"
            with urllib.request.urlopen(url, timeout=5) as r:
                data: dict[str, Any] = json.loads(r.read())
                return data

        books = await asyncio.to_thread(get)
    finally:
        await client.close()
    assert books["sum"] == 0
    assert books["players"]["accounts"] == 1
    assert not any(k.startswith("player:") for k in books["accounts"])
    assert {"house", "world", "meter:main"} <= set(books["accounts"])


async def test_load_against_a_running_server(tmp_path: Any) -> None:
    """`--url`: a stud-server started on its own (its lobby rows carry its own public
    address) is found, played and reconciled."""
    from clients.load.machine import free_port
    from clients.load.servers import Child, stud_server_argv, wait_http

    cfg = tmp_path / "tables.toml"
    cfg.write_text(
        tables_config(["u1", "u2"], 2, {"betting": 10.0, "decision": 10.0, "results": 0.05})
    )
    port = free_port()
    argv = stud_server_argv(cfg, port, redis=None, loop="default", log_level="warning")
    server = Child(argv, log=tmp_path / "server.log", cpus=None)
    try:
        await wait_http(server, f"http://127.0.0.1:{port}/healthz")
        opts = LoadOptions(
            url=f"ws://127.0.0.1:{port}/ws", tables=2, seats=2, spectators=2, seconds=1.0,
            pin=False,
        )  # fmt: skip
        doc = await run_load(opts)
    finally:
        server.stop()
    assert doc["errors"] == {}
    assert doc["connections"] == 6
    assert doc["reconciled"] is True, doc["reconcile"]
    assert doc["reconcile"]["hands"] > 0
