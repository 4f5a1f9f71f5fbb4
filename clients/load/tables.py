"""The tables run: a server with T tables of B bots and S spectators, played for
D seconds, then measured and reconciled (`run_load`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clients.load.latency import summarize
from clients.load.machine import (
    Plan,
    free_port,
    loadavg,
    pinned,
    proc_cpu_seconds,
    proc_memory_mb,
    raise_nofile,
)
from clients.load.report import (
    calls_between,
    calls_per_hand,
    histogram_delta,
    metrics_counters,
    read_ledger,
    reconcile_books,
    redis_calls,
)
from clients.load.servers import (
    Child,
    drop_redis_namespace,
    http_get,
    server_loop,
    start_redis,
    stud_server_argv,
    tables_config,
    wait_http,
)
from clients.load.simulated import ACTIONS
from clients.load.workers import Workers

MAX_TABLES = 5_000
MAX_CONNECTIONS = 12_000
MAX_SECONDS = 600.0


@dataclass
class LoadOptions:
    tables: int = 10
    seats: int = 5
    spectators: int = 0
    seconds: float = 10.0
    redis: str | None = None  # URL, or "spawn"
    url: str | None = None
    workers: int = 1
    pin: bool = True
    results: float = 0.3
    stagger: float | None = None  # tables start within this many seconds (None: `results`)
    betting: float = 10.0
    decision: float = 10.0
    ante: int | None = None
    progressive: float = 0.25
    seed: int = 1
    server_loop: str = "default"  # default | uvloop | asyncio
    generator_uvloop: bool = True
    log_level: str = "warning"
    keep_server_log: str = ""  # copy the server's log here at the end (a path)
    redis_fsync: str = "none"  # --redis spawn: no AOF, or its appendfsync policy
    connect_concurrency: int = 100
    finish_timeout: float = 60.0
    jackpot_push_interval: float | None = None  # None: the server's default
    server_settings: tuple[str, ...] = ()  # extra KEY = VALUE lines under [server]

    def start_spread(self) -> float:
        """Tables start at random moments within this many seconds: by default one
        showdown pause, as tables opened at different times would, so a paced run's
        rounds spread over its cycle instead of arriving in waves."""
        return self.results if self.stagger is None else self.stagger


def _check(opts: LoadOptions) -> None:
    if not 1 <= opts.tables <= MAX_TABLES:
        raise ValueError(f"--tables must be 1..{MAX_TABLES}")
    if not 1 <= opts.seats <= 9:
        raise ValueError("--seats must be 1..9")
    if opts.spectators < 0 or opts.tables * opts.seats + opts.spectators > MAX_CONNECTIONS:
        raise ValueError(f"at most {MAX_CONNECTIONS} connections in all")
    if not 0 < opts.seconds <= MAX_SECONDS:
        raise ValueError(f"--seconds must be in (0, {MAX_SECONDS:g}]")
    if opts.stagger is not None and not 0 <= opts.stagger <= MAX_SECONDS:
        raise ValueError(f"--stagger must be in [0, {MAX_SECONDS:g}]")
    if not 1 <= opts.workers <= 16:
        raise ValueError("--workers must be 1..16")
    if opts.url is not None and not _loopback(opts.url):
        raise ValueError("load runs target loopback only (ws://127.0.0.1:PORT/ws)")


def _loopback(url: str) -> bool:
    from urllib.parse import urlsplit

    host = urlsplit(url).hostname or ""
    return host == "localhost" or host == "::1" or host.startswith("127.")


def _hosted_at(row_url: str, url: str) -> bool:
    """A lobby row's table is hosted by the server at `url` (loopback): its row names no
    address (none configured) or this server's own, by port and path, whatever name of
    this machine it gives (127.0.0.1, localhost, 0.0.0.0)."""
    if not row_url:
        return True
    row_host, row_port, row_path = _split(row_url)
    _, port, path = _split(url)
    local = _loopback(row_url) or row_host in ("0.0.0.0", "::")
    return local and (row_port, row_path) == (port, path)


def _split(url: str) -> tuple[str, int, str]:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return parts.hostname or "127.0.0.1", parts.port or 80, parts.path or "/ws"


async def run_load(opts: LoadOptions) -> dict[str, Any]:
    _check(opts)
    raise_nofile()
    plan = Plan.make(opts.pin)
    with pinned(plan.generator_cpus):
        return await _run_load(opts, plan)


async def _run_load(opts: LoadOptions, plan: Plan) -> dict[str, Any]:
    load_before = loadavg()
    tmp = Path(tempfile.mkdtemp(prefix="stud-load-"))
    server: Child | None = None
    redis_child: Child | None = None
    namespace = f"load-{os.urandom(4).hex()}"
    redis_url = opts.redis
    workers: Workers | None = None
    try:
        if opts.url is None:
            if redis_url == "spawn":
                redis_child, redis_url = start_redis(tmp, None, opts.redis_fsync)
            table_ids = [f"t{i + 1:05d}" for i in range(opts.tables)]
            cfg = tmp / "tables.toml"
            timers = {"betting": opts.betting, "decision": opts.decision, "results": opts.results}
            extra = "\n".join(
                [
                    *(
                        []
                        if opts.jackpot_push_interval is None
                        else [f"jackpot_push_interval = {opts.jackpot_push_interval}"]
                    ),
                    *opts.server_settings,
                ]
            )
            cfg.write_text(tables_config(table_ids, opts.seats, timers, extra))
            port = free_port()
            server = Child(
                stud_server_argv(
                    cfg, port, redis=redis_url, loop=opts.server_loop, log_level=opts.log_level
                ),
                log=tmp / "server.log",
                cpus=plan.server_cpus,
                env={"STUD_REDIS_NAMESPACE": namespace},
            )
            url = f"ws://127.0.0.1:{port}/ws"
        else:
            url = opts.url
            table_ids = await _lobby_tables(url, opts.tables)
        host, port, path = _split(url)
        base = f"http://{host}:{port}"
        await wait_http(server, base + "/healthz")
        if server is not None:
            print(f"stud-client load: server pid {server.pid} at {url}", file=sys.stderr)
        rss_start = proc_memory_mb(server.pid)["VmRSS"] if server else None

        # tables (with their spectators) dealt round-robin to the generator processes
        per_table = Counter(table_ids[j % len(table_ids)] for j in range(opts.spectators))
        n = max(1, min(opts.workers, len(table_ids)))
        specs = [
            {
                "mode": "tables",
                "host": host,
                "port": port,
                "path": path,
                "tables": table_ids[w::n],
                "seats": opts.seats,
                "spectators": {t: per_table[t] for t in table_ids[w::n]},
                "ante": opts.ante,
                "progressive": opts.progressive,
                "seed": opts.seed * 1000 + w,
                "cpus": plan.generator_cpus or None,
                "uvloop": opts.generator_uvloop,
                "connect_concurrency": max(1, opts.connect_concurrency // n),
                "finish_timeout": opts.finish_timeout,
                "stagger": opts.start_spread(),
            }
            for w in range(n)
        ]
        connections = opts.tables * opts.seats + opts.spectators
        ramp_started = time.monotonic()
        workers = Workers(specs)
        ready = await workers.recv_all("ready", 120 + connections / 20)
        ramp = time.monotonic() - ramp_started
        await asyncio.sleep(1.0)  # the throttled spectator-count push goes out
        health = json.loads(await asyncio.to_thread(http_get, base + "/healthz"))
        rss_connected = proc_memory_mb(server.pid)["VmRSS"] if server else None
        ledger0 = await read_ledger(base)
        m0 = metrics_counters((await asyncio.to_thread(http_get, base + "/metrics")).decode())
        cpu0 = proc_cpu_seconds(server.pid) if server else None
        redis_cpu0 = proc_cpu_seconds(redis_child.pid) if redis_child else None
        calls0 = redis_calls(redis_url)
        t0 = time.monotonic()
        workers.send_all("go")
        await asyncio.sleep(opts.seconds)
        m1 = metrics_counters((await asyncio.to_thread(http_get, base + "/metrics")).decode())
        cpu1 = proc_cpu_seconds(server.pid) if server else None
        redis_cpu1 = proc_cpu_seconds(redis_child.pid) if redis_child else None
        t1 = time.monotonic()
        calls1 = redis_calls(redis_url)
        redis_window = calls_between(calls0, calls1)
        load_during = loadavg()
        workers.send_all("stop")
        results = await workers.recv_all("result", opts.finish_timeout + 60)
        ledger1 = await read_ledger(base)
        memory = proc_memory_mb(server.pid) if server else {}
        window = t1 - t0

        def rate(name: str) -> float:
            return round((m1.get(name, 0) - m0.get(name, 0)) / window, 1)

        errors: Counter[str] = Counter()
        player: Counter[int] = Counter()
        spectator: Counter[int] = Counter()
        by_action: dict[str, Counter[int]] = {a: Counter() for a in ACTIONS}
        bots: list[dict[str, Any]] = []
        for r in results:
            errors.update(r["errors"])
            player.update({int(k): v for k, v in r["player"].items()})
            spectator.update({int(k): v for k, v in r["spectator"].items()})
            for a, c in r["by_action"].items():
                by_action[a].update({int(k): v for k, v in c.items()})
            bots.extend(r["bots"])
        ready_count = sum(r["ready"] for r in ready)
        if ready_count < connections:
            errors["not_connected"] += connections - ready_count
        reconcile = reconcile_books(bots, ledger0, ledger1, exclusive=opts.url is None)
        doc: dict[str, Any] = {
            "mode": "tables",
            "store": "redis" if redis_url else "memory",
            "tables": opts.tables,
            "seats": opts.seats,
            "spectators": opts.spectators,
            "seconds": round(window, 3),
            "connections": health.get("connections", ready_count),
            "rounds_per_second": rate("stud_rounds_total"),
            "hands_per_second": rate("stud_hands_settled_total"),
            "frames_in_per_second": rate("stud_frames_in_total"),
            "frames_out_per_second": rate("stud_frames_out_total"),
            "socket_writes_per_second": rate("stud_socket_writes_total"),
            "broadcasts_per_second": rate("stud_broadcasts_total"),
            "latency_ms": {
                "player": summarize(player),
                "spectator": summarize(spectator),
                "by_action": {a: summarize(c) for a, c in by_action.items() if c},
                # the server's own: a request's arrival to its snapshot handed to the sockets
                "server_action": histogram_delta(m0, m1, "stud_action_seconds"),
                "server_loop_lag": histogram_delta(m0, m1, "stud_event_loop_lag_seconds"),
            },
            "server_cpu_seconds": None if cpu0 is None or cpu1 is None else round(cpu1 - cpu0, 2),
            "server_cpu_percent": None
            if cpu0 is None or cpu1 is None
            else round((cpu1 - cpu0) / window * 100, 1),
            "server_cpu_us_per_hand": None
            if cpu0 is None or cpu1 is None or not rate("stud_hands_settled_total")
            else round((cpu1 - cpu0) * 1e6 / (rate("stud_hands_settled_total") * window), 1),
            "server_peak_rss_mb": round(memory["VmHWM"], 1) if memory else None,
            "server_rss_mb": {
                "start": _round(rss_start),
                "connected": _round(rss_connected),
                "end": _round(memory.get("VmRSS")),
            },
            "server_kib_per_connection": None
            if rss_start is None or rss_connected is None or not ready_count
            else round((rss_connected - rss_start) * 1024 / ready_count, 1),
            "errors": dict(sorted(errors.items())),
            "reconciled": reconcile["ok"],
            "reconcile": reconcile,
            "ramp_seconds": round(ramp, 2),
            "generator": {
                "processes": n,
                "cpu_seconds": round(sum(r["cpu_seconds"] for r in results), 2),
                "frames_received": sum(r["frames_received"] for r in results),
                "uvloop": all(r["uvloop"] for r in results),
                # the collector is off while measuring (table_worker.py); what it
                # found once back on: the window's cyclic garbage, objects
                "garbage_after_window": sum(r["garbage_after_window"] for r in results),
            },
            # a Redis given by URL may serve other processes too (a fleet): their calls
            # count in `redis_calls`, their hands do not, so no per-hand figure then
            "redis_calls": redis_window,
            "redis_calls_per_hand": calls_per_hand(
                redis_window,
                rate("stud_hands_settled_total") * window if redis_child is not None else 0,
            ),
            "redis_cpu_seconds": None
            if redis_cpu0 is None or redis_cpu1 is None
            else round(redis_cpu1 - redis_cpu0, 2),
            "machine": {
                "cpus": os.cpu_count(),
                "loadavg_before": load_before,
                "loadavg_end_of_window": load_during,
                "pinned": {"server": plan.server_cpus, "generator": plan.generator_cpus}
                if plan.pin
                else None,
                "server_loop": server_loop(opts.server_loop),
            },
            "timers": {"betting": opts.betting, "decision": opts.decision, "results": opts.results},
            "stagger_seconds": opts.start_spread(),
            "jackpot_push_interval": opts.jackpot_push_interval,
            "server_settings": list(opts.server_settings),
            "redis_fsync": opts.redis_fsync if opts.redis == "spawn" else None,
        }
        return doc
    finally:
        if workers is not None:
            workers.stop()
        if server is not None:
            server.stop()
            if opts.keep_server_log:
                with contextlib.suppress(OSError):
                    shutil.copyfile(server.log, opts.keep_server_log)
        if redis_child is not None:
            redis_child.stop()
        elif redis_url and opts.url is None:
            with contextlib.suppress(Exception):
                await drop_redis_namespace(redis_url, namespace)
        shutil.rmtree(tmp, ignore_errors=True)


def _round(v: float | None) -> float | None:
    return None if v is None else round(v, 1)


async def _lobby_tables(url: str, count: int, patience: float = 30.0) -> list[str]:
    """The ids of `count` tables the server at `url` hosts itself; a server just
    started may still be claiming its tables, so the lobby is read again for a while."""
    from clients.connection import StudClient

    deadline = time.monotonic() + patience
    while True:
        client = await StudClient.open(url, history=False)
        try:
            await client.hello(name="load")
            await client.request("lobby", watch=False)
            assert client.lobby is not None
            rows = client.lobby["tables"]
        finally:
            await client.close()
        ids = [t["id"] for t in rows if _hosted_at(t.get("url") or "", url)]
        if len(ids) >= count:
            return ids[:count]
        if time.monotonic() > deadline:
            raise ValueError(f"the server at {url} hosts {len(ids)} tables, not {count}")
        await asyncio.sleep(0.5)
