"""Per-connection token bucket: a warning first, then the connection is closed.

A frame that finds the bucket empty is dropped. The first drop is answered
with a `rate_limited` warning; more than `rate` further drops within
`WINDOW` seconds of it close the connection; `WINDOW` seconds without a drop
clear the warning (PROTOCOL.md, Limits).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

WINDOW = 10.0


class Verdict(Enum):
    PASS = "pass"
    WARN = "warn"  # dropped, and the sender is told
    DROP = "drop"  # dropped silently: already warned
    CLOSE = "close"  # the flood goes on: close with 1008


@dataclass
class TokenBucket:
    rate: float  # tokens per second
    burst: int
    tokens: float = -1.0
    stamp: float = 0.0
    warned_at: float | None = None
    dropped: int = 0
    last_drop: float = 0.0

    def admit(self, now: float) -> Verdict:
        if self.tokens < 0:
            self.tokens, self.stamp = float(self.burst), now
        self.tokens = min(float(self.burst), self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.warned_at is not None and now - self.last_drop > WINDOW:
            self.warned_at = None
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return Verdict.PASS
        self.last_drop = now
        if self.warned_at is None:
            self.warned_at, self.dropped = now, 0
            return Verdict.WARN
        self.dropped += 1
        if self.dropped > self.rate and now - self.warned_at <= WINDOW:
            return Verdict.CLOSE
        return Verdict.DROP
