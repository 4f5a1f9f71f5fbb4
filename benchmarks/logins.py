"""Tables' latency while players sign in: prints one JSON document.

Run: `.venv/bin/python benchmarks/logins.py [--rate 50] [--seconds 20] [--tables 4]`.

Starts `stud-server serve` (memory store, the default argon2id parameters of
`[accounts]` unless `--time-cost` / `--memory-cost` / `--hash-threads` say
otherwise), registers one account per login connection, then runs two phases
of `--seconds` each on the same process:

- `baseline`: bots play at `--tables` tables (two players each, ante, deal,
  raise, as fast as the table allows), and every table request's time from
  send to its `ok` is recorded;
- `logins`: the same, while `--rate` logins a second (open loop: sent on
  schedule whatever the answers) come in on `--connections` other
  connections, each signing in again and again to its own account with the
  right password, so every one costs an argon2id check.

Each phase reports the table requests' p50 / p99 / max in milliseconds, and
the logins phase what became of the logins (`ok`, `busy` past the server's
`max_waiting_hashes`) and their latency. `--pin` puts the server on CPU 0 and
this generator on CPU 1. Loopback only; every loop is bounded in time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from clients.connection import ServerError, StudClient

PASSWORD = "benchmark password 1"

CONFIG = """
[server]
reconnect_grace = 5
shutdown_grace = 1
[timers]
betting = 10
decision = 10
results = 0.05
[limits]
rate_per_second = 500
rate_burst = 1000
[wallet]
starting_credits = 100000000
starting_bonus = 0
max_balance = 1000000000
[accounts]
time_cost = {time_cost}
memory_cost = {memory_cost}
hash_threads = {hash_threads}
max_failures_per_account = 1000000
max_failures_per_address = 1000000
max_new_players_per_address = 0
{tables}
"""

TABLE = """
[[tables]]
id = "t{i}"
variant = "casino-stud"
seats = 2
min_ante = 100
max_ante = 10000
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(ms: list[float]) -> dict[str, Any]:
    return {
        "count": len(ms),
        "p50_ms": round(percentile(ms, 0.50), 2),
        "p99_ms": round(percentile(ms, 0.99), 2),
        "max_ms": round(max(ms, default=0.0), 2),
    }


async def timed(client: StudClient, out: list[float], t: str, **fields: Any) -> None:
    start = time.perf_counter()
    await client.request(t, **fields)
    out.append((time.perf_counter() - start) * 1000)


async def play(table: str, pair: list[StudClient], out: list[float], stop: float) -> None:
    """Two players at a table: ante, deal, raise, round after round, until `stop`."""
    for seat, client in enumerate(pair):
        await client.request("sit", table=table, seat=seat)
    while time.monotonic() < stop:
        await asyncio.gather(
            *(timed(c, out, "ante", table=table, seat=s, amount=100) for s, c in enumerate(pair))
        )
        await asyncio.gather(*(timed(c, out, "deal", table=table) for c in pair))
        await pair[0].wait_table(table, lambda s: s["phase"] == "deciding", timeout=30)
        await asyncio.gather(
            *(timed(c, out, "raise", table=table, seat=s) for s, c in enumerate(pair))
        )
        await pair[0].wait_table(table, lambda s: s["phase"] == "waiting", timeout=30)
    for client in pair:
        await client.request("leave", table=table)


async def sign_ins(
    conns: list[tuple[StudClient, str]], rate: float, stop: float, result: dict[str, Any]
) -> None:
    """Open loop: one login every 1/rate seconds, round robin over the connections."""
    latencies: list[float] = []
    outcomes: dict[str, int] = {}
    busy: dict[int, bool] = {}
    tasks: set[asyncio.Task[None]] = set()

    async def one(i: int) -> None:
        client, username = conns[i]
        busy[i] = True
        start = time.perf_counter()
        try:
            await client.login(username, PASSWORD)
            outcomes["ok"] = outcomes.get("ok", 0) + 1
        except ServerError as e:
            outcomes[e.code] = outcomes.get(e.code, 0) + 1
        latencies.append((time.perf_counter() - start) * 1000)
        busy[i] = False

    sent, skipped, n = 0, 0, 0
    next_at = time.monotonic()
    while time.monotonic() < stop:
        i = n % len(conns)
        n += 1
        if busy.get(i):
            skipped += 1  # this connection's last login is still waiting: not sent twice
        else:
            task = asyncio.create_task(one(i))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            sent += 1
        next_at += 1 / rate
        await asyncio.sleep(max(0.0, next_at - time.monotonic()))
    await asyncio.wait_for(asyncio.gather(*tasks), 60)
    result.update(
        {
            "offered_per_second": rate,
            "sent": sent,
            "not_sent_connection_busy": skipped,
            "outcomes": outcomes,
            "latency": summary(latencies),
        }
    )


async def phase(
    url: str, tables: int, seconds: float, logins: list[tuple[StudClient, str]], rate: float
) -> dict[str, Any]:
    players = [await StudClient.open(url, history=False) for _ in range(2 * tables)]
    for i, p in enumerate(players):
        await p.hello(name=f"bot{i}")
    out: list[float] = []
    stop = time.monotonic() + seconds
    result: dict[str, Any] = {}
    jobs = [play(f"t{i}", players[2 * i : 2 * i + 2], out, stop) for i in range(tables)]
    if logins:
        jobs.append(sign_ins(logins, rate, stop, result))
    started = time.monotonic()
    await asyncio.gather(*jobs)
    elapsed = time.monotonic() - started
    for p in players:
        await p.close()
    report = {
        "table_requests": summary(out),
        "table_requests_per_second": round(len(out) / elapsed),
    }
    if logins:
        report["logins"] = result
    return report


async def run(args: argparse.Namespace, url: str) -> dict[str, Any]:
    conns: list[tuple[StudClient, str]] = []
    for i in range(args.connections):
        client = await StudClient.open(url, history=False)
        await client.hello(name=f"signer{i}")
        username = f"bench_{i}"
        await client.register(username, PASSWORD)
        conns.append((client, username))
    try:
        baseline = await phase(url, args.tables, args.seconds, [], args.rate)
        with_logins = await phase(url, args.tables, args.seconds, conns, args.rate)
    finally:
        for client, _ in conns:
            await client.close()
    return {"baseline": baseline, "logins": with_logins}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=50.0, help="logins a second (50)")
    parser.add_argument("--seconds", type=float, default=20.0, help="each phase's length (20)")
    parser.add_argument("--tables", type=int, default=4, help="tables the bots play at (4)")
    parser.add_argument("--connections", type=int, default=100, help="login connections (100)")
    parser.add_argument("--time-cost", type=int, default=2)
    parser.add_argument("--memory-cost", type=int, default=19_456)
    parser.add_argument("--hash-threads", type=int, default=1)
    parser.add_argument("--pin", action="store_true", help="server on CPU 0, this on CPU 1")
    args = parser.parse_args()

    port = free_port()
    tables = "".join(TABLE.format(i=i) for i in range(args.tables))
    with tempfile.TemporaryDirectory(prefix="stud-logins-") as tmp:
        config = Path(tmp) / "tables.toml"
        config.write_text(
            CONFIG.format(
                time_cost=args.time_cost,
                memory_cost=args.memory_cost,
                hash_threads=args.hash_threads,
                tables=tables,
            )
        )
        command = [sys.executable, "-m", "server.cli", "serve", "--config", str(config)]
        command += ["--port", str(port), "--log-level", "warning"]
        if args.pin:
            command = ["taskset", "-c", "0", *command]
            os.sched_setaffinity(0, {1})
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while True:
                with (
                    contextlib.suppress(OSError),
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1),
                ):
                    break
                if server.poll() is not None or time.monotonic() > deadline:
                    print("the server did not start", file=sys.stderr)
                    return 1
                time.sleep(0.05)
            load_before = os.getloadavg()[0]
            report = asyncio.run(run(args, f"ws://127.0.0.1:{port}/ws"))
        finally:
            server.terminate()
            server.wait(15)
    report["conditions"] = {
        "argon2id": {"time_cost": args.time_cost, "memory_cost_kib": args.memory_cost},
        "hash_threads": args.hash_threads,
        "tables": args.tables,
        "seconds_per_phase": args.seconds,
        "pinned": args.pin,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "loadavg_1m_before": round(load_before, 2),
        "loadavg_1m_after": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
