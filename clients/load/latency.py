"""Latency histograms: integer buckets that merge across processes, and their
percentiles in milliseconds.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence


def bucket(seconds: float) -> int:
    """A latency as an integer bucket of 0.01 ms below 10 ms, 0.1 ms below 1 s, then 1 ms:
    small enough to merge across processes, fine enough for p50..p99."""
    us = seconds * 1_000_000
    if us < 10_000:
        return int(us / 10) * 10
    if us < 1_000_000:
        return int(us / 100) * 100
    return int(us / 1000) * 1000


def summarize(hist: Counter[int]) -> dict[str, float]:
    """count, p50, p95, p99 and max in milliseconds (nearest rank)."""
    n = sum(hist.values())
    if not n:
        return {"count": 0, "p50": 0.0, "p95": 0.0, "p99": 0.0, "max": 0.0}
    keys = sorted(hist)
    out: dict[str, float] = {"count": n}
    for name, q in (("p50", 0.50), ("p95", 0.95), ("p99", 0.99)):
        rank, seen = max(1, math.ceil(q * n)), 0
        for k in keys:
            seen += hist[k]
            if seen >= rank:
                out[name] = round(k / 1000, 3)
                break
    out["max"] = round(keys[-1] / 1000, 3)
    return out


def spread(values: Sequence[float]) -> dict[str, float]:
    """p50, p99, max (ms) of a short list of samples in seconds."""
    if not values:
        return {"count": 0, "p50": 0.0, "p99": 0.0, "max": 0.0}
    s = sorted(values)

    def at(q: float) -> float:
        return round(s[max(0, math.ceil(q * len(s)) - 1)] * 1000, 3)

    return {"count": len(s), "p50": at(0.5), "p99": at(0.99), "max": round(s[-1] * 1000, 3)}
