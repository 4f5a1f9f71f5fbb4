"""Faults on a seeded schedule, injected while cards are out.

The schedule is a cycle of every kind once (Redis' pause twice: it is the fault
behind most of what went wrong in the field), in an order drawn from the seed,
then another cycle in another order, until the run's time is up and at least
one whole cycle is done; between two faults a pause drawn from the seed. Each
fault waits (a little, bounded) for a table in `deciding` (on the target
process, for a host fault; in `betting` or `deciding` for a Redis fault) so it
lands mid-round, and is recorded with when it started and ended, its kind and
its target.

| kind | what |
|---|---|
| host_kill | SIGKILL of a process hosting tables; restarted (a new incarnation) |
| host_stop | SIGSTOP of a host for 1.5-3 x fleet_ttl, then SIGCONT |
| redis_term | Redis SIGTERM, restarted from its AOF |
| redis_kill | Redis SIGKILL, restarted from its AOF |
| redis_stop | Redis SIGSTOP past store_timeout and past fleet_ttl, then SIGCONT |

While Redis is away, players with an ante in a betting round leave the table.
| client_abort | two players cut their TCP connection mid-decision |
| token_race | one token on a connection to every process, racing antes and chip buys |
"""

from __future__ import annotations

import asyncio
import random
import signal
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from tests.chaos.bots import ChaosBot, race
from tests.chaos.cluster import Cluster, StudProcess
from tests.chaos.journal import Journal

KINDS = (
    "host_kill",
    "host_stop",
    "redis_term",
    "redis_kill",
    "redis_stop",
    "client_abort",
    "token_race",
)
#: One cycle of the schedule.
CYCLE = (*KINDS, "redis_stop")
#: Seconds a fault waits for a table in `deciding` before it strikes anyway.
MID_ROUND_WAIT = 3.0
#: Seconds past the run's time a cycle may take to finish.
FINISH_CYCLE = 60.0


@dataclass
class Fault:
    kind: str
    target: str
    start: float  # the signal (or the first cut connection)
    end: float  # back: continued, restarted and answering, the race over
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def schedule(seed: int, cycle: tuple[str, ...] = CYCLE, cycles: int = 50) -> list[str]:
    """The order of the faults: every kind of a cycle, shuffled per cycle."""
    rng = random.Random(seed)
    out: list[str] = []
    for _ in range(cycles):
        kinds = list(cycle)
        rng.shuffle(kinds)
        out += kinds
    return out


class Injector:
    def __init__(
        self,
        cluster: Cluster,
        bots: list[ChaosBot],
        journal: Journal,
        seed: int,
        kinds: tuple[str, ...] = KINDS,
    ) -> None:
        self.cluster = cluster
        self.bots = bots
        self.journal = journal
        self.rng = random.Random(seed ^ 0x5EED)
        self.cycle = tuple(k for k in CYCLE if k in kinds)
        self.order = schedule(seed, self.cycle) if self.cycle else []
        self.faults: list[Fault] = []
        self.errors: list[str] = []

    async def run(self, seconds: float) -> list[Fault]:
        """Inject faults until `seconds` have passed and a whole cycle is done (the
        one under way finishes), at most `FINISH_CYCLE` seconds longer."""
        deadline = time.time() + seconds
        if not self.order:
            await asyncio.sleep(seconds)
        for n, kind in enumerate(self.order):
            await asyncio.sleep(self.rng.uniform(2.0, 3.5))
            late = time.time() >= deadline
            if late and (n >= len(self.cycle) or time.time() >= deadline + FINISH_CYCLE):
                break
            try:
                fault = await self.inject(kind)
            except RuntimeError as e:  # a process that would not come back
                self.errors.append(f"{kind}: {e}")
                await self.cluster.heal()
                continue
            if fault is not None:
                self.faults.append(fault)
        return self.faults

    # ----- where the tables are --------------------------------------------------

    def hosting(self) -> dict[str, set[str]]:
        """url -> tables the bots currently play there."""
        out: dict[str, set[str]] = {}
        for bot in self.bots:
            seen = bot.snapshot()
            if seen is not None:
                out.setdefault(seen[0], set()).add(bot.table)
        return out

    async def mid_round(self, url: str | None = None, phase: str = "deciding") -> bool:
        """Wait (bounded) until some table (hosted at `url`) is in `phase`."""
        deadline = time.monotonic() + MID_ROUND_WAIT
        while time.monotonic() < deadline:
            for bot in self.bots:
                seen = bot.snapshot()
                if seen and seen[1].get("phase") == phase and url in (None, seen[0]):
                    return True
            await asyncio.sleep(0.05)
        return False

    def leave_during_outage(self) -> list[str]:
        """Players with an ante in a betting round leave (up to two): the bots asked."""
        betting = [b for b in self.bots if b.betting_with_ante()]
        chosen = self.rng.sample(betting, k=min(2, len(betting)))
        for b in chosen:
            b.leave_soon(2.0)
        return [b.name for b in chosen]

    def pick_host(self) -> StudProcess:
        alive = [s for s in self.cluster.servers.values() if s.alive and not s.stopped]
        hosting = self.hosting()
        busy = [s for s in alive if hosting.get(s.url)]
        return self.rng.choice(busy or alive)

    # ----- the faults ------------------------------------------------------------

    async def inject(self, kind: str) -> Fault | None:
        settings = self.cluster.settings
        redis = self.cluster.redis
        if kind in ("host_kill", "host_stop"):
            host = self.pick_host()
            tables = sorted(self.hosting().get(host.url, set()))
            mid = await self.mid_round(host.url)
            identity = host.identity
            start = time.time()
            if kind == "host_kill":
                await host.kill()
                down = self.rng.uniform(0.5, 2.0)
                await asyncio.sleep(down)
                await host.start()
                detail = {"identity": identity, "restarted_as": host.identity, "down_s": down}
            else:
                pause = self.rng.uniform(1.5, 3.0) * settings.fleet_ttl
                host.signal(signal.SIGSTOP)
                await asyncio.sleep(pause)
                host.signal(signal.SIGCONT)
                detail = {"identity": identity, "paused_s": pause}
            detail.update(tables=tables, mid_round=mid)
            return Fault(kind, host.name, start, time.time(), detail)
        if kind in ("redis_term", "redis_kill"):
            phase = self.rng.choice(("betting", "deciding"))
            mid = await self.mid_round(phase=phase)
            start = time.time()
            redis.signal(signal.SIGTERM if kind == "redis_term" else signal.SIGKILL)
            leaving = self.leave_during_outage()
            await redis.wait_gone()
            down = self.rng.uniform(0.3, 2.0)
            await asyncio.sleep(down)
            await redis.start()
            detail = {
                "down_s": down,
                "mid_round": mid,
                "phase": phase,
                "restarted_from": "AOF",
                "leaving": leaving,
            }
            return Fault(kind, "redis", start, time.time(), detail)
        if kind == "redis_stop":
            phase = self.rng.choice(("betting", "deciding"))
            mid = await self.mid_round(phase=phase)
            longest = max(settings.store_timeout, settings.fleet_ttl)
            pause = self.rng.uniform(longest + 1.5, longest + 5.5)
            start = time.time()
            redis.signal(signal.SIGSTOP)
            leaving = self.leave_during_outage()
            await asyncio.sleep(pause)
            redis.signal(signal.SIGCONT)
            detail = {"paused_s": pause, "mid_round": mid, "phase": phase, "leaving": leaving}
            return Fault(kind, "redis", start, time.time(), detail)
        if kind == "client_abort":
            deciding = [
                b for b in self.bots if (s := b.snapshot()) and s[1].get("phase") == "deciding"
            ]
            pool = deciding or self.bots
            chosen = self.rng.sample(pool, k=min(2, len(pool)))
            begun = time.time()
            cuts = await asyncio.gather(*(b.abort_mid_decision(4.0) for b in chosen))
            times = [t for t in cuts if t is not None]
            if not times:
                return None
            target = ",".join(b.name for b in chosen)
            return Fault(
                kind, target, min(times), max(times), {"cut": len(times), "asked_at": begun}
            )
        if kind == "token_race":
            ready = [b for b in self.bots if b.token is not None and b.snapshot() is not None]
            if not ready:
                return None
            bot = self.rng.choice(ready)
            await self.mid_round()
            start = time.time()
            detail = await race(bot, self.cluster.urls, self.journal, self.rng)
            return Fault(kind, bot.name, start, time.time(), detail)
        raise ValueError(f"unknown fault kind {kind!r}")
