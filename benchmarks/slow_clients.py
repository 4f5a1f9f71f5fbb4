"""Clients that never read: what they cost the server, and whether others notice.

Starts `stud-server serve` (memory store) on loopback, has two bots play rounds
at one table and times each of their requests; then adds a dozen spectators of
that table that never read a byte (tiny receive buffers) and one connection
that floods pings and never reads the pongs, and keeps timing. Prints one JSON
document: the server's RSS idle, during and after, how many slow connections it
cut off (`/metrics`), and the bots' request latency before and during.

    python benchmarks/slow_clients.py [--seconds 20] [--spectators 12]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import msgpack

from clients.connection import StudClient

CONFIG = """
[server]
reconnect_grace = 5
[limits]
rate_per_second = 200
[accounts]
max_new_players_per_address = 0
[timers]
betting = 5
decision = 5
results = 0.05
[[tables]]
id = "busy"
seats = 7
min_ante = 100
max_ante = 10000
[[tables]]
id = "quiet"
seats = 7
min_ante = 100
max_ante = 10000
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def metric(port: int, name: str) -> float:
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return 0.0


def masked(opcode: int, payload: bytes) -> bytes:
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return struct.pack("!BB", 0x80 | opcode, 0x80 | len(payload)) + mask + body


def never_reading(port: int, frames: list[bytes]) -> socket.socket:
    """A WebSocket connection with a 4 KiB receive buffer that sends `frames` and reads
    nothing after the handshake."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(
        f"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    reply = b""
    while b"\r\n\r\n" not in reply:
        reply += s.recv(1)
    for frame in frames:
        s.sendall(frame)
    return s


async def bot(
    url: str, name: str, seat: int, latencies: list[tuple[float, float]], stop: asyncio.Event
) -> None:
    """Play rounds at the busy table; record (when, how long) of each request."""
    c = await StudClient.open(url, history=False)
    await c.hello(name=name)
    await c.request("sit", table="busy", seat=seat)
    try:
        while not stop.is_set():
            for t, fields in (
                ("ante", {"seat": seat, "amount": 100}),
                ("deal", {}),
            ):
                t0 = time.perf_counter()
                with contextlib.suppress(Exception):
                    await c.request(t, table="busy", **fields)
                latencies.append((t0, time.perf_counter() - t0))
            await c.wait_table("busy", lambda s: s["phase"] == "deciding", timeout=10)
            t0 = time.perf_counter()
            with contextlib.suppress(Exception):
                await c.request("fold", table="busy", seat=seat)
            latencies.append((t0, time.perf_counter() - t0))
            await c.wait_table("busy", lambda s: s["phase"] == "waiting", timeout=10)
    finally:
        await c.close()


def summary(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    qs = statistics.quantiles(values, n=100) if len(values) > 1 else [values[0]] * 99
    return {
        "n": len(values),
        "p50_ms": round(qs[49] * 1000, 2),
        "p99_ms": round(qs[98] * 1000, 2),
    }


async def main(seconds: float, spectators: int) -> dict[str, Any]:
    port = free_port()
    tmp = Path(tempfile.mkdtemp(prefix="slow-clients-"))
    config = tmp / "tables.toml"
    config.write_text(CONFIG)
    server = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve", "--port", str(port), "--config", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"ws://127.0.0.1:{port}/ws"
    slow: list[socket.socket] = []
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        idle = rss_mb(server.pid)
        stop = asyncio.Event()
        samples: list[tuple[float, float]] = []
        bots = [asyncio.create_task(bot(url, f"b{i}", i, samples, stop)) for i in range(2)]
        await asyncio.sleep(seconds / 2)
        warm = rss_mb(server.pid)
        attached = time.perf_counter()
        hello = masked(0x2, msgpack.packb({"t": "hello", "v": 1, "name": "slow"}))
        join = masked(0x2, msgpack.packb({"t": "join", "table": "busy"}))
        for _ in range(spectators):
            slow.append(await asyncio.to_thread(never_reading, port, [hello, join]))
        flood = await asyncio.to_thread(never_reading, port, [])
        slow.append(flood)
        ping = masked(0x9, b"p" * 125) * 256
        peak = warm
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                await asyncio.to_thread(flood.sendall, ping)
            peak = max(peak, rss_mb(server.pid))
            await asyncio.sleep(0.05)
        stop.set()
        await asyncio.gather(*bots, return_exceptions=True)
        before = [d for t, d in samples if t < attached]
        during = [d for t, d in samples if t >= attached]
        return {
            "spectators_never_reading": spectators,
            "ping_flooders": 1,
            "seconds": seconds,
            "server_rss_mb": {
                "idle": round(idle, 1),
                "playing": round(warm, 1),
                "peak_with_slow_clients": round(peak, 1),
                "over_idle": round(peak - idle, 1),
            },
            "slow_consumers_closed": metric(port, "stud_slow_consumer_closes_total"),
            "bot_request_latency": {"before": summary(before), "during": summary(during)},
        }
    finally:
        for s in slow:
            s.close()
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--spectators", type=int, default=12)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.seconds, args.spectators)), indent=2))
