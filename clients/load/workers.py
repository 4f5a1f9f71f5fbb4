"""The generator processes: the entry point each one runs (spawned), and the
parent's handle on them and their pipes.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import time
from multiprocessing.connection import Connection
from typing import Any

from clients.load.fanout_worker import FanoutWorker
from clients.load.machine import pin, raise_nofile, use_uvloop
from clients.load.table_worker import Worker


def worker_main(spec: dict[str, Any], conn: Connection) -> None:
    """Entry point of a generator process (multiprocessing, spawn)."""
    pin(spec.get("cpus"))
    raise_nofile()
    if spec.get("uvloop", True):
        use_uvloop()
    try:
        if spec["mode"] == "fanout":
            asyncio.run(FanoutWorker(spec, conn).run())
        else:
            asyncio.run(Worker(spec, conn).run())
    except Exception as e:  # tell the parent rather than leave it waiting
        with contextlib.suppress(Exception):
            conn.send(("failed", f"{type(e).__name__}: {e}"))
        raise


class Workers:
    """The generator processes and their pipes."""

    def __init__(self, specs: list[dict[str, Any]]) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.pipes: list[Connection] = []
        self.procs: list[Any] = []
        for spec in specs:
            parent, child = ctx.Pipe()
            p = ctx.Process(target=worker_main, args=(spec, child), daemon=True)
            p.start()
            child.close()
            self.pipes.append(parent)
            self.procs.append(p)

    async def recv_all(self, expect: str, timeout: float) -> list[Any]:
        async def one(pipe: Connection) -> Any:
            while True:
                ready = await asyncio.to_thread(pipe.poll, min(timeout, 5.0))
                if ready:
                    kind, data = pipe.recv()
                    if kind == "failed":
                        raise RuntimeError(f"a generator process failed: {data}")
                    if kind == expect:
                        return data
                elif deadline < time.monotonic():
                    raise TimeoutError(f"generator: no {expect!r} within {timeout}s")

        deadline = time.monotonic() + timeout
        return list(await asyncio.gather(*(one(p) for p in self.pipes)))

    def send_all(self, message: Any) -> None:
        for pipe in self.pipes:
            pipe.send(message)

    def stop(self) -> None:
        for p in self.procs:
            p.join(10)
            if p.is_alive():
                p.kill()
                p.join(5)
