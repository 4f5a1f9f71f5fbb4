"""A tables-mode generator process: its share of the tables, with their bots and
spectators, driven by the parent over a pipe.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import random
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Any

from clients.load.machine import on_uvloop
from clients.load.rawsocket import RawSocket, open_raw
from clients.load.simulated import Bot, Client, Spectator, Stats, TableProbe


class Worker:
    """One generator process: its share of the tables, with their bots and spectators."""

    def __init__(self, spec: dict[str, Any], conn: Connection) -> None:
        self.spec = spec
        self.conn = conn
        self.stats = Stats()
        self.bots: list[Bot] = []
        self.spectators: list[Spectator] = []
        self.sockets: list[RawSocket] = []

    async def recv(self) -> Any:
        return await asyncio.to_thread(self.conn.recv)

    async def connect(self, clients: Sequence[Client]) -> None:
        spec = self.spec
        gate = asyncio.Semaphore(spec["connect_concurrency"])

        async def one(c: Client) -> None:
            async with gate:
                try:
                    sock = await open_raw(spec["host"], spec["port"], spec["path"], c, 30)
                except (OSError, TimeoutError, ConnectionError) as e:
                    c.fail(f"connect:{type(e).__name__}")
                    return
                self.sockets.append(sock)
                with contextlib.suppress(ConnectionError, TimeoutError):
                    await asyncio.wait_for(asyncio.shield(c.ready), 60)
                if not c.ready.done():
                    c.fail("setup_timeout")

        await asyncio.gather(*(one(c) for c in clients))

    async def run(self) -> None:
        spec = self.spec
        rng = random.Random(spec["seed"])
        for table in spec["tables"]:
            probe = TableProbe(self.stats)
            for i in range(spec["seats"]):
                self.bots.append(
                    Bot(
                        f"bot{i + 1}@{table}"[:24],
                        table,
                        probe,
                        self.stats,
                        ante=spec["ante"],
                        progressive=spec["progressive"],
                        rng=random.Random(rng.getrandbits(64)),
                    )
                )
            for j in range(spec["spectators"].get(table, 0)):
                self.spectators.append(
                    Spectator(f"watch{j + 1}@{table}"[:24], table, probe, self.stats)
                )
        started = time.perf_counter()
        # spectators first: a table's first snapshots then reach its whole audience
        await self.connect(self.spectators)
        await self.connect(self.bots)
        ready = sum(
            1 for c in [*self.bots, *self.spectators] if c.ready.done() and not c.ready.exception()
        )
        self.conn.send(("ready", {"ready": ready, "ramp_seconds": time.perf_counter() - started}))
        await self.recv()  # go
        # No collector pauses while measuring: a full collection of 10,000 clients'
        # state took up to 200 ms, and every frame in flight meanwhile was timed that
        # much late. What the window leaves for the collector is collected after it.
        gc.collect()
        gc.freeze()
        gc.disable()
        cpu0 = time.process_time()
        self.stats.measuring = True
        # tables start at random moments within one showdown pause, as tables that
        # opened at different times would be, not all in step
        loop = asyncio.get_running_loop()
        stagger = random.Random(spec["seed"])
        by_table: dict[str, list[Bot]] = {}
        for b in self.bots:
            if b.ready.done() and not b.ready.exception():
                by_table.setdefault(b.table, []).append(b)
        for bots in by_table.values():
            delay = stagger.uniform(0, spec["stagger"])
            for b in bots:
                loop.call_later(delay, b.start)
        await self.recv()  # stop
        self.stats.measuring = False
        cpu1 = time.process_time()
        gc.unfreeze()
        gc.enable()
        garbage = gc.collect()
        for b in self.bots:
            b.stop()
        bots_done = [b.done for b in self.bots]
        if bots_done:
            await asyncio.wait(bots_done, timeout=spec["finish_timeout"])
        for b in self.bots:
            if not b.done.done():
                self.stats.errors["finish_timeout"] += 1
                b.finish()
        for spectator in self.spectators:
            spectator.finish()
        closing = [sock.closed for sock in self.sockets]
        if closing:
            await asyncio.wait(closing, timeout=10)
        for sock in self.sockets:
            sock.abort()
        self.conn.send(
            (
                "result",
                {
                    "errors": dict(self.stats.errors),
                    "player": dict(self.stats.player),
                    "spectator": dict(self.stats.spectator),
                    "by_action": {a: dict(c) for a, c in self.stats.by_action.items()},
                    "bots": [b.report() for b in self.bots],
                    "frames_received": sum(s.received for s in self.sockets),
                    "cpu_seconds": cpu1 - cpu0,
                    "uvloop": on_uvloop(),
                    "garbage_after_window": garbage,
                },
            )
        )
