"""What Redis itself spends on a hand: the store's money scripts, without the server.

Starts a private `redis-server` on loopback, plays whole rounds at many tables at
once through `RedisStore` and the game engine (antes, deals, raises and folds,
settlements), the tables' writes of one event-loop turn batched as in the server,
and prints one JSON document per run: Redis's CPU per hand (its process), the
script time per hand (`INFO commandstats`, EVALSHA with the commands it ran), and
the commands each hand costs, by name. Nothing else talks to that Redis, so the
figures are the scripts' own; the counts are exact, the times follow the machine.

    python benchmarks/redis_scripts.py [--tables 200] [--seats 5] [--rounds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import tempfile
import time
from pathlib import Path
from typing import Any

from clients.load.machine import proc_cpu_seconds
from clients.load.servers import start_redis
from server.game.table import Decision, Table, TableConfig, Timers
from server.game.variants import VARIANTS
from server.stores.base import Fence
from server.stores.redis import RedisStore

JACKPOT = "main"
SEED = 1_000_000
ANTE = 100


def commandstats(info: str) -> dict[str, tuple[int, int]]:
    """command -> (calls, usec) from an INFO commandstats reply."""
    out: dict[str, tuple[int, int]] = {}
    for line in info.splitlines():
        if line.startswith("cmdstat_"):
            name, _, stats = line.partition(":")
            fields = dict(kv.split("=", 1) for kv in stats.split(",") if "=" in kv)
            out[name.removeprefix("cmdstat_")] = (int(fields["calls"]), int(fields["usec"]))
    return out


def stats(url: str) -> dict[str, tuple[int, int]]:
    """INFO commandstats of the Redis at `url`, read on a socket of its own."""
    host, _, port = url.removeprefix("redis://").split("/")[0].rpartition(":")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(b"INFO commandstats\r\n")
        data = b""
        while b"\r\n" not in data or len(data.partition(b"\r\n")[2]) < int(
            data[1 : data.index(b"\r\n")]
        ):
            chunk = s.recv(65536)
            if not chunk:
                raise ConnectionError("Redis closed the connection")
            data += chunk
    return commandstats(data.partition(b"\r\n")[2].decode())


class Dealer:
    """One table's rounds, its store writes made as the server's room makes them."""

    def __init__(self, store: RedisStore, table: Table, fence: Fence, rng: random.Random) -> None:
        self.store, self.table, self.fence, self.rng = store, table, fence, rng
        self.players: list[tuple[str, int]] = []
        self.ops = 0

    async def play(self, rounds: int) -> int:
        for _ in range(rounds):
            self.table.tick(time.monotonic() + 1)  # the results pause is over
            await asyncio.gather(*(self.ante(pid, s) for pid, s in self.players))
            for pid, _s in self.players:
                self.table.deal_me_in(time.monotonic(), pid)
            await asyncio.gather(*(self.decide(pid, s) for pid, s in self.players))
        return rounds * len(self.players)

    def op(self, rid: str, step: str) -> str:
        self.ops += 1
        return f"{rid}:{step}:{self.ops}"

    async def ante(self, pid: str, seat: int) -> None:
        progressive = self.rng.random() < 0.5
        effects = self.table.ante_effects(pid, seat, ANTE, progressive)
        rid = effects.transfers[0].round_id
        await self.store.bet(
            self.fence, self.op(rid, f"{seat}:ante"), effects.transfers, effects.holds
        )
        self.table.place_ante(time.monotonic(), pid, seat, ANTE, progressive)

    async def decide(self, pid: str, seat: int) -> None:
        decision = Decision.RAISE if self.rng.random() < 0.55 else Decision.FOLD
        effects = self.table.decision_effects(pid, seat, decision)
        rid = self.table.round_id
        assert rid is not None
        op = self.op(rid, f"{seat}:{decision}")
        await self.store.apply(self.fence, op, effects.transfers, effects.holds)
        done = self.table.decide(time.monotonic(), pid, seat, decision)
        s = done.settlement
        if s is not None:
            await self.store.settle(
                self.fence, s.round_id, s.transfers, s.claims, JACKPOT, SEED, s.record
            )


async def seat_table(store: RedisStore, index: int, seats: int, rng: random.Random) -> Dealer:
    """A table of `seats` players, its lease taken and its first round played."""
    tid = f"bench{index}"
    config = TableConfig(
        table_id=tid,
        variant=VARIANTS["casino-stud"],
        min_ante=ANTE,
        max_ante=10 * ANTE,
        seats=seats,
        timers=Timers(betting=60, decision=60, results=0.01),
        jackpot=JACKPOT,
    )
    table = Table(config)
    claim = await store.claim(tid, "bench", 0, None)
    dealer = Dealer(store, table, Fence(tid, claim.epoch), rng)
    for s in range(seats):
        p = await store.create_player(f"b{index}x{s}", 10_000_000, 0)
        table.sit(p.player_id, p.name, s)
        dealer.players.append((p.player_id, s))
    await dealer.play(1)
    return dealer


async def run(opts: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="stud-bench-") as tmp:
        child, url = start_redis(Path(tmp), None)
        try:
            store = await RedisStore.connect(url, "bench")
            try:
                await store.ensure_meter(JACKPOT, SEED)
                rng = random.Random(opts.seed)
                dealers = await asyncio.gather(
                    *(seat_table(store, i, opts.seats, rng) for i in range(opts.tables))
                )
                before, cpu0 = stats(url), proc_cpu_seconds(child.pid)
                t0 = time.perf_counter()
                played = await asyncio.gather(*(d.play(opts.rounds) for d in dealers))
                wall = time.perf_counter() - t0
                after, cpu1 = stats(url), proc_cpu_seconds(child.pid)
            finally:
                await store.close()
        finally:
            child.stop()
    hands = sum(played)
    delta = {
        k: (v[0] - before.get(k, (0, 0))[0], v[1] - before.get(k, (0, 0))[1])
        for k, v in after.items()
    }
    delta.pop("info", None)
    scripts = {k: v for k, v in delta.items() if k in ("evalsha", "eval") and v[0]}
    inner = {k: v for k, v in delta.items() if k not in scripts and v[0]}
    return {
        "tables": opts.tables,
        "seats": opts.seats,
        "rounds": opts.rounds,
        "hands": hands,
        "seconds": round(wall, 2),
        "redis_cpu_us_per_hand": round((cpu1 - cpu0) * 1e6 / hands, 1),
        "script_us_per_hand": round(sum(u for _, u in scripts.values()) / hands, 1),
        "commands_us_per_hand": round(sum(u for _, u in inner.values()) / hands, 1),
        "scripts_per_hand": round(sum(c for c, _ in scripts.values()) / hands, 3),
        "commands_per_hand": round(sum(c for c, _ in inner.values()) / hands, 2),
        "by_command": {
            k: round(c / hands, 2) for k, (c, _) in sorted(inner.items(), key=lambda kv: -kv[1][0])
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seats", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    print(json.dumps(asyncio.run(run(parser.parse_args())), indent=2))


if __name__ == "__main__":
    main()
