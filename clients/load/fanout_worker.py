"""A fan-out generator process: receivers that record when each triggered
broadcast arrives, driven by the parent over a pipe.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from multiprocessing.connection import Connection
from typing import Any

from clients.load.rawsocket import RawSocket, open_raw, pack, unpack
from protocol.codec import PROTOCOL_VERSION


class Receiver:
    """A fan-out spectator: records when each triggered broadcast arrives."""

    def __init__(self, worker: FanoutWorker, index: int, stud: bool) -> None:
        self.worker = worker
        self.index = index
        self.stud = stud
        self.sock: RawSocket | None = None
        loop = asyncio.get_running_loop()
        self.ready: asyncio.Future[None] = loop.create_future()
        self.armed = False
        self.last_seq = -1
        self.arrivals: list[float] = []

    def on_open(self, sock: RawSocket) -> None:
        self.sock = sock
        if self.stud:
            sock.send(
                pack({"t": "hello", "id": 1, "v": PROTOCOL_VERSION, "name": f"fan{self.index}"})
            )
        else:
            self.ready.set_result(None)

    def on_message(self, data: bytes, now: float) -> None:
        f = unpack(data)  # both servers' receivers decode: the same work per frame
        if self.stud:
            t = f.get("t")
            if t == "welcome":
                assert self.sock is not None
                self.sock.send(pack({"t": "join", "table": self.worker.spec["table"]}))
                return
            if t != "table":
                return
            seq = f["seq"]
            if not self.ready.done():
                self.last_seq = seq
                self.ready.set_result(None)
                return
            if not self.armed or seq <= self.last_seq or f.get("last") is None:
                self.last_seq = max(self.last_seq, seq)
                return
            self.last_seq = seq
            if self.index == 0:
                self.worker.sample = data
        elif not self.armed:
            return
        self.arrivals.append(now)
        self.worker.arrived(len(self.arrivals) - 1)

    def on_close(self) -> None:
        if not self.ready.done():
            self.ready.set_exception(ConnectionError("connection_lost"))
        if not self.worker.stopping:
            self.worker.errors["connection_lost"] += 1


class FanoutWorker:
    def __init__(self, spec: dict[str, Any], conn: Connection) -> None:
        self.spec = spec
        self.conn = conn
        self.receivers: list[Receiver] = []
        self.sockets: list[RawSocket] = []
        self.got: Counter[int] = Counter()
        self.errors: Counter[str] = Counter()
        self.sample = b""
        self.stopping = False

    def arrived(self, k: int) -> None:
        self.got[k] += 1
        if self.got[k] == len(self.receivers):
            self.conn.send(("got", k))

    async def run(self) -> None:
        spec = self.spec
        stud = spec["server"] == "stud"
        self.receivers = [Receiver(self, i + spec["offset"], stud) for i in range(spec["count"])]
        gate = asyncio.Semaphore(spec["connect_concurrency"])

        async def one(r: Receiver) -> None:
            async with gate:
                try:
                    sock = await open_raw(spec["host"], spec["port"], spec["path"], r, 30)
                except (OSError, TimeoutError, ConnectionError) as e:
                    self.errors[f"connect:{type(e).__name__}"] += 1
                    return
                self.sockets.append(sock)
                with contextlib.suppress(ConnectionError, TimeoutError):
                    await asyncio.wait_for(asyncio.shield(r.ready), 60)

        await asyncio.gather(*(one(r) for r in self.receivers))
        self.receivers = [r for r in self.receivers if r.ready.done() and not r.ready.exception()]
        self.conn.send(("ready", {"ready": len(self.receivers)}))
        await asyncio.to_thread(self.conn.recv)  # arm
        for r in self.receivers:
            r.armed = True
        self.conn.send(("armed", None))
        await asyncio.to_thread(self.conn.recv)  # stop
        self.stopping = True
        for s in self.sockets:
            s.close()
        if self.sockets:
            await asyncio.wait([s.closed for s in self.sockets], timeout=10)
        for s in self.sockets:
            s.abort()
        self.conn.send(
            (
                "result",
                {
                    "arrivals": [r.arrivals for r in self.receivers],
                    "sample": self.sample,
                    "errors": dict(self.errors),
                },
            )
        )
