"""The fan-out run: one table, N spectators, and how long one state change takes to
reach all of them, beside a bare `websockets` server (`run_fanout`).
"""

from __future__ import annotations

import asyncio
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

from clients.load.latency import spread
from clients.load.machine import (
    Plan,
    free_port,
    loadavg,
    pinned,
    proc_cpu_seconds,
    proc_memory_mb,
    raise_nofile,
)
from clients.load.rawsocket import pack
from clients.load.report import metrics_counters
from clients.load.servers import (
    Child,
    http_get,
    server_loop,
    stud_server_argv,
    tables_config,
    wait_http,
    wait_port,
)
from clients.load.workers import Workers
from protocol.codec import PROTOCOL_VERSION

MAX_FANOUT = 10_000


@dataclass
class FanoutOptions:
    spectators: int = 1000
    triggers: int = 30
    workers: int = 1
    pin: bool = True
    server_loop: str = "default"
    generator_uvloop: bool = True
    connect_concurrency: int = 100
    pause: float = 0.05


async def run_fanout(opts: FanoutOptions) -> dict[str, Any]:
    if not 1 <= opts.spectators <= MAX_FANOUT:
        raise ValueError(f"--fanout must be 1..{MAX_FANOUT}")
    if not 1 <= opts.triggers <= 1000:
        raise ValueError("--triggers must be 1..1000")
    raise_nofile()
    plan = Plan.make(opts.pin)
    with pinned(plan.generator_cpus):
        return await _run_fanout(opts, plan)


async def _run_fanout(opts: FanoutOptions, plan: Plan) -> dict[str, Any]:
    load_before = loadavg()
    tmp = Path(tempfile.mkdtemp(prefix="stud-fanout-"))
    try:
        cfg = tmp / "fanout.toml"
        cfg.write_text(tables_config(["fanout"], 5, {"betting": 30, "decision": 30, "results": 1}))
        port = free_port()
        server = Child(
            stud_server_argv(cfg, port, redis=None, loop=opts.server_loop, log_level="warning"),
            log=tmp / "server.log",
            cpus=plan.server_cpus,
        )
        try:
            ours = await _fanout_side(opts, plan, "stud", port, server, None)
        finally:
            server.stop()
        bare_port = free_port()
        bare_argv = [sys.executable, "-m", "clients.loadserver", "--port", str(bare_port)]
        if server_loop(opts.server_loop) == "uvloop":
            bare_argv.append("--uvloop")  # on the loop stud-server runs on
        bare = Child(bare_argv, log=tmp / "bare.log", cpus=plan.server_cpus)
        try:
            baseline = await _fanout_side(opts, plan, "bare", bare_port, bare, ours["sample"])
        finally:
            bare.stop()
        p50, b50 = ours["all"]["p50"], baseline["all"]["p50"]
        return {
            "mode": "fanout",
            "spectators": opts.spectators,
            "triggers": opts.triggers,
            "frame_bytes": len(ours["sample"]),
            "fanout_ms": ours["all"],
            "fanout_median_receiver_ms": ours["median"],
            "baseline_fanout_ms": baseline["all"],
            "baseline_median_receiver_ms": baseline["median"],
            "ratio_vs_websockets": round(p50 / b50, 3) if b50 else None,
            "ratio_p99_vs_websockets": round(ours["all"]["p99"] / baseline["all"]["p99"], 3)
            if baseline["all"]["p99"]
            else None,
            "server_send_ms": ours["send_ms"],
            "baseline_send_ms": baseline["send_ms"],
            "send_ratio_vs_websockets": round(ours["send_ms"] / baseline["send_ms"], 3)
            if ours["send_ms"] and baseline["send_ms"]
            else None,
            "server_cpu_seconds": ours["cpu"],
            "baseline_cpu_seconds": baseline["cpu"],
            "server_peak_rss_mb": ours["peak_rss_mb"],
            "server_kib_per_connection": ours["kib_per_connection"],
            "baseline_kib_per_connection": baseline["kib_per_connection"],
            "errors": dict(sorted((Counter(ours["errors"]) + Counter(baseline["errors"])).items())),
            "machine": {
                "cpus": os.cpu_count(),
                "loadavg_before": load_before,
                "loadavg_after": loadavg(),
                "pinned": {"server": plan.server_cpus, "generator": plan.generator_cpus}
                if plan.pin
                else None,
                "server_loop": server_loop(opts.server_loop),
            },
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


async def _fanout_side(
    opts: FanoutOptions, plan: Plan, kind: str, port: int, child: Child, sample: bytes | None
) -> dict[str, Any]:
    """Connect the receivers, trigger `opts.triggers` broadcasts one at a time, and time
    each from the trigger's write to its arrival at the last receiver."""
    from websockets.asyncio.client import connect

    base = f"http://127.0.0.1:{port}"
    if kind == "stud":
        await wait_http(child, base + "/healthz")
    else:
        await wait_port(child, port)
    rss0 = proc_memory_mb(child.pid)["VmRSS"]
    n = max(1, min(opts.workers, opts.spectators))
    counts = [opts.spectators // n + (1 if w < opts.spectators % n else 0) for w in range(n)]
    specs = [
        {
            "mode": "fanout",
            "server": kind,
            "host": "127.0.0.1",
            "port": port,
            "path": "/ws",
            "table": "fanout",
            "count": counts[w],
            "offset": sum(counts[:w]),
            "cpus": plan.generator_cpus or None,
            "uvloop": opts.generator_uvloop,
            "connect_concurrency": max(1, opts.connect_concurrency // n),
        }
        for w in range(n)
    ]
    workers = Workers(specs)
    try:
        ready = await workers.recv_all("ready", 120 + opts.spectators / 20)
        connected = sum(r["ready"] for r in ready)
        await asyncio.sleep(1.5)  # quiet: the spectator-count push has gone out
        rss1 = proc_memory_mb(child.pid)["VmRSS"]
        workers.send_all("arm")
        await workers.recv_all("armed", 30)
        path = "/ws" if kind == "stud" else "/driver"
        starts: list[float] = []
        sends0 = await _send_stats(base, kind)
        cpu0 = proc_cpu_seconds(child.pid)
        async with connect(f"ws://127.0.0.1:{port}{path}", compression=None) as ws:
            if kind == "stud":
                await ws.send(
                    pack({"t": "hello", "id": 1, "v": PROTOCOL_VERSION, "name": "driver"})
                )
                await ws.recv()
            for k in range(opts.triggers):
                if kind == "stud":
                    t = "sit" if k % 2 == 0 else "stand"
                    message = {"t": t, "table": "fanout", "seat": 0}
                    data = pack(message)
                else:
                    assert sample is not None
                    data = sample
                starts.append(time.perf_counter())
                await ws.send(data)
                await workers.recv_all("got", 30)
                await asyncio.sleep(opts.pause)
        cpu1 = proc_cpu_seconds(child.pid)
        sends1 = await _send_stats(base, kind)
        peak = proc_memory_mb(child.pid)["VmHWM"]
        workers.send_all("stop")
        results = await workers.recv_all("result", 60)
    finally:
        workers.stop()
    arrivals = [a for r in results for a in r["arrivals"]]
    last, median = [], []
    for k, t0 in enumerate(starts):
        times = sorted(a[k] for a in arrivals if len(a) > k)
        if times:
            last.append(times[-1] - t0)
            median.append(times[len(times) // 2] - t0)
    errors: Counter[str] = Counter()
    for r in results:
        errors.update(r["errors"])
    if connected < opts.spectators:
        errors["not_connected"] += opts.spectators - connected
    n_sends = sends1[0] - sends0[0]
    return {
        "all": spread(last),
        "median": spread(median),
        "send_ms": round((sends1[1] - sends0[1]) * 1000 / n_sends, 3) if n_sends else None,
        "sample": next((r["sample"] for r in results if r["sample"]), b"") or (sample or b""),
        "cpu": round(cpu1 - cpu0, 2),
        "peak_rss_mb": round(peak, 1),
        "kib_per_connection": round((rss1 - rss0) * 1024 / max(1, connected), 1),
        "errors": dict(errors),
    }


async def _send_stats(base: str, kind: str) -> tuple[float, float]:
    """(broadcasts, seconds spent handing them to the sockets) so far, from the server."""
    if kind == "stud":
        m = metrics_counters((await asyncio.to_thread(http_get, base + "/metrics")).decode())
        return m.get("stud_broadcast_lag_seconds_count", 0), m.get(
            "stud_broadcast_lag_seconds_sum", 0
        )
    data = json.loads(await asyncio.to_thread(http_get, base + "/stats"))
    return data["broadcasts"], data["seconds"]
