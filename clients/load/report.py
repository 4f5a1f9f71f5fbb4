"""What a run reads back from the server and how it checks the books: `/metrics`
counters and histograms, Redis commandstats, the ledger and its reconciliation.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import socket
from typing import Any

from clients.load.servers import http_get


def metrics_counters(text: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("#") or " " not in line:
            continue
        name, _, value = line.rpartition(" ")
        with contextlib.suppress(ValueError):
            out[name] = float(value)
    return out


def histogram_delta(
    before: dict[str, float], after: dict[str, float], name: str
) -> dict[str, float | None] | None:
    """Quantiles of a Prometheus histogram over the window, each given as the upper
    bound of the bucket it falls in (ms): the server's own view of a latency."""
    bounds: list[tuple[float, float]] = []
    for key, value in after.items():
        if key.startswith(name + '_bucket{le="'):
            le = key[len(name) + 12 : -2]
            bound = math.inf if le == "+Inf" else float(le)
            bounds.append((bound, value - before.get(key, 0)))
    bounds.sort()
    n = bounds[-1][1] if bounds else 0
    if not n:
        return None
    out: dict[str, float | None] = {"count": n}
    for label, q in (("p50", 0.5), ("p95", 0.95), ("p99", 0.99)):
        upper = next(b for b, c in bounds if c >= q * n)
        out[label + "_at_most"] = None if upper == math.inf else round(upper * 1000, 3)
    return out


def redis_calls(url: str | None) -> dict[str, int] | None:
    """Calls per command so far (INFO commandstats) of a Redis without a password."""
    if not url or "@" in url:
        return None
    hostport = url.removeprefix("redis://").split("/")[0]
    host, _, port = hostport.rpartition(":")
    try:
        with socket.create_connection((host or "127.0.0.1", int(port or 6379)), timeout=5) as s:
            s.sendall(b"INFO commandstats\r\n")
            data = b""
            while True:
                chunk = s.recv(65536)
                data += chunk
                head, _, rest = data.partition(b"\r\n")
                if head.startswith(b"$") and len(rest) >= int(head[1:]):
                    break
                if not chunk:
                    break
    except (OSError, ValueError):
        return None
    out: dict[str, int] = {}
    for line in data.decode(errors="replace").splitlines():
        if line.startswith("cmdstat_"):
            name, _, stats = line.partition(":")
            fields = dict(kv.split("=", 1) for kv in stats.split(",") if "=" in kv)
            out[name.removeprefix("cmdstat_")] = int(fields.get("calls", 0))
    return out


def calls_between(
    before: dict[str, int] | None, after: dict[str, int] | None
) -> dict[str, int] | None:
    """Redis commands run between two readings: `evalsha` is the servers' script calls
    (one round trip each; scripts cannot call scripts), `publish` their pub/sub news,
    and `commands` every command Redis ran, those inside the scripts included. They
    are every client's of that Redis, not only this run's server's."""
    if before is None or after is None:
        return None

    def delta(name: str) -> int:
        return after.get(name, 0) - before.get(name, 0)

    total = sum(v - before.get(k, 0) for k, v in after.items() if k != "info")
    return {"evalsha": delta("evalsha"), "publish": delta("publish"), "commands": total}


def calls_per_hand(calls: dict[str, int] | None, hands: float) -> dict[str, float] | None:
    """`calls` per hand settled: meaningful only when this run's server was the only
    client of that Redis (the generator spawned it); otherwise None, since other
    processes' calls are in `calls` and their hands are not in `hands`."""
    if calls is None or not hands:
        return None
    return {k: round(v / hands, 3) for k, v in calls.items()}


async def read_ledger(base: str, attempts: int = 4) -> dict[str, Any] | None:
    """The books, or None if the server never answered: a server still busy with the
    window's last rounds (or a store reconnecting, 503) gets a few more tries."""
    for attempt in range(attempts):
        try:
            data: dict[str, Any] = json.loads(await asyncio.to_thread(http_get, base + "/ledger"))
            return data
        except (OSError, ValueError):
            if attempt + 1 < attempts:
                await asyncio.sleep(1.0)
    return None


def reconcile_books(
    bots: list[dict[str, Any]],
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
    *,
    exclusive: bool,
) -> dict[str, Any]:
    """Every wallet, the house and the meter add up.

    - each bot: end balance == start + the nets of the hands it saw settled + chips
      bought, and nothing still held;
    - the books: every account (players, house, meters, world) sums to zero;
    - the house and the meters moved by exactly what the bots lost (when the bots
      were the only players: a server this run started).
    """
    wrong = [
        b
        for b in bots
        if b["end"] is None
        or b["start"] is None
        or b["end"] != b["start"] + b["net"] + b["bought"]
        or b["held"] != 0
    ]
    out: dict[str, Any] = {
        "bots": len(bots),
        "hands": sum(b["hands"] for b in bots),
        "bots_net_cents": sum(b["net"] for b in bots),
        "wallets_ok": not wrong,
        "wallets_wrong": len(wrong),
    }
    if wrong:  # a few, to see what went wrong
        out["wrong_examples"] = wrong[:5]
    if before is None or after is None:
        out["books"] = "unavailable: GET /ledger (loopback only) did not answer"
        out["ok"] = False
        return out
    out["sum_of_accounts"] = after["sum"]
    house_meters = {
        k: after["accounts"].get(k, 0) - before["accounts"].get(k, 0)
        for k in after["accounts"]
        if k == "house" or k.startswith("meter:")
    }
    out["house_and_meters_delta_cents"] = house_meters
    ok = not wrong and after["sum"] == 0
    if exclusive:
        out["house_and_meters_match_bots"] = sum(house_meters.values()) == -out["bots_net_cents"]
        ok = ok and out["house_and_meters_match_bots"]
    out["ok"] = ok
    return out
