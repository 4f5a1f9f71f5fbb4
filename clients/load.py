"""`stud-client load`: how many players and spectators one server process carries.

Two modes, each printing one JSON document:

- **tables** (`--tables T --seats B --spectators S --seconds D`): start a server
  process (or target `--url`), open T tables with B bot seats each and S
  spectators spread over them, play for D seconds, then let every bot finish
  the hand it is in, leave and read its wallet, and check the books.
- **fan-out** (`--fanout N`): one table, N spectators; how long one state change
  takes to reach all of them, beside a bare `websockets` server
  (`clients/loadserver.py`) broadcasting the same bytes to the same N clients.

Layout on a small machine: the server process is pinned to CPU 0 and the
generator's processes to the other CPUs (`--no-pin` leaves placement to the
kernel). The generator is lean so that it is not what is measured: each
connection is a bare RFC 6455 client (`RawSocket`, an `asyncio.Protocol`: no
task, no queue, no future per frame) and every bot and spectator is a state
machine driven by the frames it receives. They speak the real protocol
(msgpack maps, PROTOCOL.md) over real sockets, on loopback only.

Latency: a bot's action is timed from the moment it is written to the socket
until the first snapshot that shows it reaches that bot (`player`) and each
spectator of the table (`spectator`); bots and spectators of one table live in
one process, so one clock times both. Throughput, CPU and memory come from the
server: `/metrics` counters, `/proc/PID/stat` and `/proc/PID/status` (VmRSS,
VmHWM), sampled at the start and end of the measured window; the books from
`GET /ledger` (loopback only) before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import hashlib
import itertools
import json
import math
import multiprocessing
import os
import random
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Protocol, cast

import msgpack

from clients.strategy import should_raise
from protocol.codec import PROTOCOL_VERSION

Frame = dict[str, Any]
ACTIONS = ("ante", "deal", "raise", "fold")
MAX_TABLES = 5_000
MAX_CONNECTIONS = 12_000
MAX_SECONDS = 600.0
MAX_FANOUT = 10_000

# ----- the machine ------------------------------------------------------------------


def raise_nofile() -> int:
    """Lift the soft open-file limit to the hard one; return it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
    return soft


def pin(cpus: Sequence[int] | None) -> None:
    if cpus and hasattr(os, "sched_setaffinity"):
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, set(cpus))


@contextlib.contextmanager
def pinned(cpus: Sequence[int] | None) -> Iterator[None]:
    """This process on `cpus` for the duration (the caller's affinity comes back)."""
    before = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    pin(cpus)
    try:
        yield
    finally:
        if before is not None and cpus:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, before)


def use_uvloop() -> bool:
    """Run this process's loops on uvloop when it is installed."""
    try:
        import uvloop
    except ImportError:
        return False
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    return True


def proc_cpu_seconds(pid: int) -> float:
    """utime + stime of a process, from /proc/PID/stat."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_memory_mb(pid: int) -> dict[str, float]:
    """VmRSS (now) and VmHWM (peak) of a process in MiB, from /proc/PID/status."""
    out: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0]) / 1024
    return out


def loadavg() -> list[float]:
    with contextlib.suppress(OSError):
        return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]
    return []


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


# ----- latency histograms -------------------------------------------------------------


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


# ----- a lean WebSocket client ----------------------------------------------------------

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class Handler(Protocol):
    def on_open(self, sock: RawSocket) -> None: ...
    def on_message(self, data: bytes, now: float) -> None: ...
    def on_close(self) -> None: ...


class RawSocket(asyncio.Protocol):
    """A WebSocket client connection (RFC 6455) as a bare `asyncio.Protocol`.

    Binary messages in and out; pings are answered; a close is echoed. Each
    message is handed to the handler with the time its bytes were read, so a
    busy generator does not add its own queueing to what it measures.
    """

    def __init__(self, host: str, port: int, path: str, handler: Handler) -> None:
        self.handler = handler
        self.transport: asyncio.Transport | None = None
        self._request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: "
        ).encode()
        self._key = base64.b64encode(os.urandom(16))
        self._accept = base64.b64encode(hashlib.sha1(self._key + _GUID).digest())
        self._head = bytearray()
        self._buf = b""
        self._parts: list[bytes] = []
        self.is_open = False
        self.closing = False
        loop = asyncio.get_running_loop()
        self.opened: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        self.received = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is no subclass
        transport = self.transport
        transport.write(self._request + self._key + b"\r\n\r\n")

    def connection_lost(self, exc: Exception | None) -> None:
        self.is_open = False
        if not self.opened.done():
            self.opened.set_exception(ConnectionError(f"connection lost in handshake: {exc}"))
        if not self.closed.done():
            self.closed.set_result(None)
            self.handler.on_close()

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        if not self.is_open:
            self._head += data
            end = self._head.find(b"\r\n\r\n")
            if end < 0:
                return
            head, data = bytes(self._head[:end]), bytes(self._head[end + 4 :])
            self._head = bytearray()
            if not head.startswith(b"HTTP/1.1 101") or self._accept not in head:
                status = head.split(b"\r\n", 1)[0].decode(errors="replace")
                if not self.opened.done():
                    self.opened.set_exception(ConnectionError(f"handshake refused: {status}"))
                self.abort()
                return
            self.is_open = True
            self.opened.set_result(None)
            self.handler.on_open(self)
            if not data:
                return
        buf = self._buf + data if self._buf else data
        pos, n = 0, len(buf)
        while n - pos >= 2:
            b0, b1 = buf[pos], buf[pos + 1]
            length, head_len = b1 & 0x7F, 2
            if length == 126:
                if n - pos < 4:
                    break
                length, head_len = (buf[pos + 2] << 8) | buf[pos + 3], 4
            elif length == 127:
                if n - pos < 10:
                    break
                length, head_len = int.from_bytes(buf[pos + 2 : pos + 10], "big"), 10
            end = pos + head_len + length
            if end > n:
                break
            payload = buf[pos + head_len : end]
            pos = end
            self._frame(b0, payload, now)
        self._buf = buf[pos:] if pos < n else b""

    def _frame(self, b0: int, payload: bytes, now: float) -> None:
        opcode = b0 & 0x0F
        if opcode in (1, 2):
            if b0 & 0x80:
                self.received += 1
                self.handler.on_message(payload, now)
            else:
                self._parts = [payload]
        elif opcode == 0:
            self._parts.append(payload)
            if b0 & 0x80:
                self.received += 1
                self.handler.on_message(b"".join(self._parts), now)
                self._parts = []
        elif opcode == 9:
            self._send(0xA, payload)
        elif opcode == 8:
            if not self.closing:
                self.closing = True
                self._send(0x8, payload[:2])
            if self.transport is not None:
                self.transport.close()

    def send(self, payload: bytes) -> None:
        self._send(0x2, payload)

    def _send(self, opcode: int, payload: bytes) -> None:
        t = self.transport
        if t is None or t.is_closing():
            return
        n = len(payload)
        if n < 126:
            header = bytes((0x80 | opcode, 0x80 | n))
        elif n < 65536:
            header = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
        else:
            header = bytes((0x80 | opcode, 0x80 | 127)) + n.to_bytes(8, "big")
        mask = random.getrandbits(32).to_bytes(4, "big")
        if n:
            key = int.from_bytes((mask * (n // 4 + 1))[:n], "big")
            payload = (int.from_bytes(payload, "big") ^ key).to_bytes(n, "big")
        t.write(header + mask + payload)

    def close(self) -> None:
        """Start the closing handshake (1000); the server closes the TCP connection."""
        if not self.closing and self.is_open:
            self.closing = True
            self._send(0x8, (1000).to_bytes(2, "big"))

    def abort(self) -> None:
        if self.transport is not None:
            self.transport.abort()


async def open_raw(host: str, port: int, path: str, handler: Handler, timeout: float) -> RawSocket:
    loop = asyncio.get_running_loop()
    _, sock = await asyncio.wait_for(
        loop.create_connection(lambda: RawSocket(host, port, path, handler), host, port), timeout
    )
    try:
        await asyncio.wait_for(sock.opened, timeout)
    except BaseException:
        sock.abort()
        raise
    return sock


def pack(message: Frame) -> bytes:
    data: bytes = msgpack.packb(message, use_bin_type=True)
    return data


def unpack(data: bytes) -> Frame:
    frame: Frame = msgpack.unpackb(data, raw=False, strict_map_key=False)
    return frame


# ----- bots and spectators ------------------------------------------------------------


@dataclass(eq=False)
class Act:
    """An action written to the socket and not yet seen in a snapshot."""

    rid: int
    action: str
    check: Callable[[Frame], bool]
    sent: float
    replied: bool = False
    seen: bool = False


class Stats:
    """What one generator process measured."""

    def __init__(self) -> None:
        self.measuring = False
        self.player: Counter[int] = Counter()
        self.spectator: Counter[int] = Counter()
        self.by_action: dict[str, Counter[int]] = {a: Counter() for a in ACTIONS}
        self.errors: Counter[str] = Counter()


class TableProbe:
    """One table's actions in flight: the first snapshot showing each (by `seq`), and
    when that snapshot reaches each spectator of the table."""

    def __init__(self, stats: Stats) -> None:
        self.stats = stats
        self.pending: list[Act] = []
        self.resolved: dict[int, list[float]] = {}
        self.top = -1

    def register(self, act: Act) -> None:
        self.pending.append(act)

    def cancel(self, act: Act) -> None:
        with contextlib.suppress(ValueError):
            self.pending.remove(act)

    def snapshot(self, frame: Frame, now: float) -> int:
        seq: int = frame["seq"]
        if seq > self.top:
            self.top = seq
            if self.pending:
                hits = [a for a in self.pending if a.check(frame)]
                if hits:
                    self.pending = [a for a in self.pending if a not in hits]
                    self.resolved[seq] = [a.sent for a in hits]
                    if len(self.resolved) > 64:
                        del self.resolved[next(iter(self.resolved))]
        return seq

    def seen_by_spectator(self, seq: int, now: float) -> None:
        sent = self.resolved.get(seq)
        if sent and self.stats.measuring:
            for t in sent:
                self.stats.spectator[bucket(now - t)] += 1


class Client:
    """Shared by bots and spectators: requests with ids, the ready and done futures."""

    def __init__(self, name: str, table: str, probe: TableProbe, stats: Stats) -> None:
        self.name = name
        self.table = table
        self.probe = probe
        self.stats = stats
        self.sock: RawSocket | None = None
        self._ids = itertools.count(1)
        self.requests: dict[int, str] = {}
        loop = asyncio.get_running_loop()
        self.ready: asyncio.Future[None] = loop.create_future()
        self.done: asyncio.Future[None] = loop.create_future()
        self.player_id = ""
        self.frames = 0

    def request(self, t: str, **fields: Any) -> int:
        rid = next(self._ids)
        self.requests[rid] = t
        assert self.sock is not None
        self.sock.send(pack({"t": t, "id": rid, **fields}))
        return rid

    def on_open(self, sock: RawSocket) -> None:
        self.sock = sock
        self.request("hello", v=PROTOCOL_VERSION, name=self.name)

    def on_message(self, data: bytes, now: float) -> None:
        raise NotImplementedError

    def fail(self, code: str) -> None:
        self.stats.errors[code] += 1
        if not self.ready.done():
            self.ready.set_exception(ConnectionError(code))
        self.finish()

    def finish(self) -> None:
        if not self.done.done():
            self.done.set_result(None)
        if self.sock is not None:
            self.sock.close()

    def on_close(self) -> None:
        if not self.done.done():
            self.stats.errors["connection_lost"] += 1
            self.finish()
        if not self.ready.done():
            self.ready.set_exception(ConnectionError("connection_lost"))


class Spectator(Client):
    def __init__(self, name: str, table: str, probe: TableProbe, stats: Stats) -> None:
        super().__init__(name, table, probe, stats)
        self.last_seq = -1

    def on_message(self, data: bytes, now: float) -> None:
        self.frames += 1
        f = unpack(data)
        t = f.get("t")
        if t == "table":
            if f["table"] == self.table:
                seq = self.probe.snapshot(f, now)
                if seq > self.last_seq:
                    self.last_seq = seq
                    self.probe.seen_by_spectator(seq, now)
            return
        what = self.requests.pop(f["id"], None) if t in ("ok", "error", "welcome") else None
        if t == "welcome":
            self.player_id = f["player_id"]
            self.request("join", table=self.table)
        elif t == "ok" and what == "join" and not self.ready.done():
            self.ready.set_result(None)
        elif t == "error":
            self.fail(str(f.get("code")))


class Bot(Client):
    """Sits, antes, says deal, raises or folds by the near-optimal rule; level-triggered
    on the latest snapshot, one action in flight at a time."""

    def __init__(
        self,
        name: str,
        table: str,
        probe: TableProbe,
        stats: Stats,
        *,
        ante: int | None,
        progressive: float,
        rng: random.Random,
    ) -> None:
        super().__init__(name, table, probe, stats)
        self.ante = ante
        self.progressive = progressive
        self.rng = rng
        self.seat = -1
        self.snap: Frame | None = None
        self.act: Act | None = None
        self.wait_seq = -1  # after a refusal: act again only on a newer snapshot
        self.playing = False
        self.stopping = False
        self.leaving = False
        self.counted: set[str] = set()
        self.hands = 0
        self.net = 0
        self.bought = 0
        self.start_balance: int | None = None
        self.end_balance: int | None = None
        self.end_held: int | None = None
        self.balance: Frame = {}

    # -- frames --

    def on_message(self, data: bytes, now: float) -> None:
        self.frames += 1
        f = unpack(data)
        t = f.get("t")
        if t == "table":
            if f["table"] == self.table:
                self._snapshot(f, now)
            return
        if t == "balance":
            self.balance = f
            return
        if t not in ("ok", "error", "welcome"):
            return  # jackpot, jackpot_won
        rid = f.get("id")
        what = self.requests.pop(rid, None) if isinstance(rid, int) else None
        if t == "welcome":
            self.player_id = f["player_id"]
            self.start_balance = f["balance"]["balance"]
            self.request("join", table=self.table)
        elif t == "ok":
            self._ok(what, rid, f)
        else:
            self._error(what, f)

    def _snapshot(self, f: Frame, now: float) -> None:
        self.snap = f
        self.probe.snapshot(f, now)
        act = self.act
        if act is not None and not act.seen and act.check(f):
            act.seen = True
            if self.stats.measuring:
                b = bucket(now - act.sent)
                self.stats.player[b] += 1
                self.stats.by_action[act.action][b] += 1
        if f["phase"] == "showdown" and self.seat >= 0 and f["round_id"] not in self.counted:
            me = f["seats"][self.seat]
            if me is not None and me.get("result") and me["player_id"] == self.player_id:
                self.counted.add(f["round_id"])
                self.hands += 1
                self.net += int(me["result"]["net"])
        if act is not None and act.seen and act.replied:
            self.act = None
        self.step()

    def _ok(self, what: str | None, rid: Any, f: Frame) -> None:
        if what == "join":
            self.request("sit", table=self.table)
        elif what == "sit":
            self.seat = int(f["seat"])
            if not self.ready.done():
                self.ready.set_result(None)
        elif what in ACTIONS:
            act = self.act
            if act is not None and act.rid == rid:
                act.replied = True
                if act.seen:
                    self.act = None
                    self.step()
        elif what == "buy_chips":
            self.step()
        elif what == "leave":
            self.request("balance")
        elif what == "balance":
            self.end_balance = int(self.balance.get("balance", -1))
            self.end_held = int(self.balance.get("held", -1))
            self.finish()

    def _error(self, what: str | None, f: Frame) -> None:
        code = str(f.get("code"))
        self.stats.errors[code] += 1
        if what in ACTIONS:
            act, self.act = self.act, None
            if act is not None:
                self.probe.cancel(act)
            self.wait_seq = self.snap["seq"] if self.snap else -1
            if code == "insufficient_funds":
                self.bought += 100_000
                self.request("buy_chips", amount=100_000)
                return
            self.step()
        elif what == "leave":
            self.request("balance")
        elif what == "buy_chips":
            self.bought -= 100_000
            self.leave()
        else:
            self.fail(code)

    # -- decisions --

    def start(self) -> None:
        self.playing = True
        self.step()

    def stop(self) -> None:
        self.stopping = True
        self.step()

    def leave(self) -> None:
        if not self.leaving:
            self.leaving = True
            self.request("leave", table=self.table)

    def step(self) -> None:
        if not self.playing or self.act is not None or self.leaving or self.seat < 0:
            return
        s = self.snap
        if s is None or s["seq"] <= self.wait_seq:
            return
        seat = self.seat
        me = s["seats"][seat]
        if me is None or me["player_id"] != self.player_id:
            self.stats.errors["lost_seat"] += 1
            self.leave()
            return
        phase = s["phase"]
        live = phase in ("betting", "deciding") and me["ante"] > 0
        if self.stopping and not live:
            self.leave()
            return
        if phase in ("waiting", "betting"):
            if me["ante"] == 0:
                amount = self.ante or int(s["min_ante"])
                progressive = self.rng.random() < self.progressive

                def placed(x: Frame) -> bool:
                    v = x["seats"][seat]
                    return v is not None and v["ante"] > 0

                self._act("ante", placed, seat=seat, amount=amount, progressive=progressive)
            elif phase == "betting" and not me["ready"]:

                def dealt(x: Frame) -> bool:
                    v = x["seats"][seat]
                    return x["phase"] != "betting" or (v is not None and v["ready"])

                self._act("deal", dealt)
        elif phase == "deciding" and me["cards"] and me["decision"] is None:
            action = "raise" if should_raise(me["cards"], s["dealer"]["cards"][-1]) else "fold"

            def decided(x: Frame) -> bool:
                v = x["seats"][seat]
                return v is None or v["decision"] is not None

            self._act(action, decided, seat=seat)

    def _act(self, action: str, check: Callable[[Frame], bool], **fields: Any) -> None:
        rid = self.request(action, table=self.table, **fields)
        act = Act(rid, action, check, time.perf_counter())
        self.act = act
        self.probe.register(act)

    def report(self) -> dict[str, Any]:
        return {
            "player_id": self.player_id,
            "hands": self.hands,
            "net": self.net,
            "bought": self.bought,
            "start": self.start_balance,
            "end": self.end_balance,
            "held": self.end_held,
        }


# ----- a generator process ------------------------------------------------------------


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
                },
            )
        )


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


# ----- fan-out receivers -----------------------------------------------------------------


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


# ----- processes the parent starts -------------------------------------------------------


def _child_setup(cpus: Sequence[int] | None) -> Callable[[], None]:
    def setup() -> None:
        pin(cpus)
        raise_nofile()

    return setup


class Child:
    """A server (ours, the bare baseline, redis-server) in its own OS process."""

    def __init__(
        self,
        argv: list[str],
        *,
        log: Path,
        cpus: Sequence[int] | None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.log = log
        with open(log, "ab") as out:
            self.process = subprocess.Popen(
                argv,
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ, **(env or {})},
                preexec_fn=_child_setup(cpus),
                start_new_session=True,
            )
        self.pid = self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def tail(self) -> str:
        with contextlib.suppress(OSError):
            return self.log.read_text(errors="replace")[-3000:]
        return ""

    def stop(self, timeout: float = 20.0) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def http_get(url: str, timeout: float = 10.0) -> bytes:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        body: bytes = r.read()
        return body


async def wait_http(child: Child | None, url: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            await asyncio.to_thread(http_get, url, 1.0)
            return
        except OSError:
            pass
        if (child is not None and not child.alive()) or time.monotonic() > deadline:
            raise RuntimeError(f"no answer from {url}" + (f":\n{child.tail()}" if child else ""))
        await asyncio.sleep(0.1)


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


def tables_config(
    table_ids: Sequence[str], seats: int, timers: dict[str, float], extra_server: str = ""
) -> str:
    """A server config with the given tables, short timers and limits for bots."""
    head = f"""# written by stud-client load
[server]
reconnect_grace = 5
shutdown_grace = 10
{extra_server}
[timers]
betting = {timers["betting"]}
decision = {timers["decision"]}
results = {timers["results"]}

[limits]
rate_per_second = 200
rate_burst = 400
hello_timeout = 60

[wallet]
starting_credits = 1000000
starting_bonus = 0

[jackpots.main]
seed = 1000000
contribution_bp = 7000
"""
    rows = [
        f'[[tables]]\nid = "{t}"\nvariant = "casino-stud"\nseats = {seats}\n'
        "min_ante = 100\nmax_ante = 10000\n"
        for t in table_ids
    ]
    return head + "\n" + "\n".join(rows)


@dataclass
class Plan:
    """Where everything runs."""

    pin: bool = True
    server_cpus: list[int] = field(default_factory=list)
    generator_cpus: list[int] = field(default_factory=list)

    @classmethod
    def make(cls, pin_: bool) -> Plan:
        cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        if not pin_ or len(cpus) < 2:
            return cls(False, [], [])
        return cls(True, cpus[:1], cpus[1:])


def stud_server_argv(
    config: Path, port: int, *, redis: str | None, loop: str, log_level: str
) -> list[str]:
    args = ["serve", "--config", str(config), "--port", str(port), "--log-level", log_level]
    if redis:
        args += ["--redis", redis]
    if loop == "uvloop":
        code = (
            "import asyncio, sys, uvloop; asyncio.set_event_loop_policy(uvloop.EventLoopPolicy());"
            " from server.cli import main; sys.exit(main(sys.argv[1:]))"
        )
        return [sys.executable, "-c", code, *args]
    if loop == "asyncio":
        code = (
            "import asyncio, sys; asyncio.set_event_loop_policy(asyncio.DefaultEventLoopPolicy());"
            " from server.cli import main; sys.exit(main(sys.argv[1:]))"
        )
        return [sys.executable, "-c", code, *args]
    return [sys.executable, "-m", "server.cli", *args]


def start_redis(tmp: Path, cpus: Sequence[int] | None) -> tuple[Child, str]:
    exe = shutil.which("redis-server")
    if exe is None:
        raise RuntimeError("--redis spawn needs redis-server on the PATH")
    port = free_port()
    child = Child(
        [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(tmp)],
        log=tmp / "redis.log",
        cpus=cpus,
    )  # fmt: skip
    deadline = time.monotonic() + 10
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                if s.recv(64).startswith(b"+PONG"):
                    break
        except OSError:
            pass
        if not child.alive() or time.monotonic() > deadline:
            raise RuntimeError(f"redis-server did not start:\n{child.tail()}")
        time.sleep(0.05)
    return child, f"redis://127.0.0.1:{port}/0"


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


async def drop_redis_namespace(url: str, namespace: str) -> None:
    """Delete the run's keys from a Redis the caller gave us."""
    import asyncio_redis

    from_url = url.removeprefix("redis://").split("/")[0]
    host, _, port = from_url.rpartition(":")
    if "@" in host:
        return  # a password-protected Redis: leave cleaning to its operator
    conn = await asyncio_redis.Connection.create(host or "127.0.0.1", int(port or 6379))
    try:
        cursor = await conn.scan(match=f"{{{namespace}}}:*")
        keys = await cursor.fetchall()
        for i in range(0, len(keys), 500):
            await conn.delete(keys[i : i + 500])
    finally:
        conn.close()


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


# ----- the tables run --------------------------------------------------------------------


@dataclass
class LoadOptions:
    tables: int = 10
    seats: int = 5
    spectators: int = 0
    seconds: float = 10.0
    redis: str | None = None  # URL, or "spawn"
    url: str | None = None
    workers: int = 1
    pin: bool = True
    results: float = 0.3
    betting: float = 10.0
    decision: float = 10.0
    ante: int | None = None
    progressive: float = 0.25
    seed: int = 1
    server_loop: str = "default"  # default | uvloop | asyncio
    generator_uvloop: bool = True
    log_level: str = "warning"
    connect_concurrency: int = 100
    finish_timeout: float = 60.0
    jackpot_push_interval: float | None = None  # None: the server's default
    server_settings: tuple[str, ...] = ()  # extra KEY = VALUE lines under [server]


def _check(opts: LoadOptions) -> None:
    if not 1 <= opts.tables <= MAX_TABLES:
        raise ValueError(f"--tables must be 1..{MAX_TABLES}")
    if not 1 <= opts.seats <= 9:
        raise ValueError("--seats must be 1..9")
    if opts.spectators < 0 or opts.tables * opts.seats + opts.spectators > MAX_CONNECTIONS:
        raise ValueError(f"at most {MAX_CONNECTIONS} connections in all")
    if not 0 < opts.seconds <= MAX_SECONDS:
        raise ValueError(f"--seconds must be in (0, {MAX_SECONDS:g}]")
    if not 1 <= opts.workers <= 16:
        raise ValueError("--workers must be 1..16")
    if opts.url is not None and not _loopback(opts.url):
        raise ValueError("load runs target loopback only (ws://127.0.0.1:PORT/ws)")


def _loopback(url: str) -> bool:
    from urllib.parse import urlsplit

    host = urlsplit(url).hostname or ""
    return host == "localhost" or host == "::1" or host.startswith("127.")


def _split(url: str) -> tuple[str, int, str]:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return parts.hostname or "127.0.0.1", parts.port or 80, parts.path or "/ws"


async def run_load(opts: LoadOptions) -> dict[str, Any]:
    _check(opts)
    raise_nofile()
    plan = Plan.make(opts.pin)
    with pinned(plan.generator_cpus):
        return await _run_load(opts, plan)


async def _run_load(opts: LoadOptions, plan: Plan) -> dict[str, Any]:
    load_before = loadavg()
    tmp = Path(tempfile.mkdtemp(prefix="stud-load-"))
    server: Child | None = None
    redis_child: Child | None = None
    namespace = f"load-{os.urandom(4).hex()}"
    redis_url = opts.redis
    workers: Workers | None = None
    try:
        if opts.url is None:
            if redis_url == "spawn":
                redis_child, redis_url = start_redis(tmp, None)
            table_ids = [f"t{i + 1:05d}" for i in range(opts.tables)]
            cfg = tmp / "tables.toml"
            timers = {"betting": opts.betting, "decision": opts.decision, "results": opts.results}
            extra = "\n".join(
                [
                    *(
                        []
                        if opts.jackpot_push_interval is None
                        else [f"jackpot_push_interval = {opts.jackpot_push_interval}"]
                    ),
                    *opts.server_settings,
                ]
            )
            cfg.write_text(tables_config(table_ids, opts.seats, timers, extra))
            port = free_port()
            server = Child(
                stud_server_argv(
                    cfg, port, redis=redis_url, loop=opts.server_loop, log_level=opts.log_level
                ),
                log=tmp / "server.log",
                cpus=plan.server_cpus,
                env={"STUD_REDIS_NAMESPACE": namespace},
            )
            url = f"ws://127.0.0.1:{port}/ws"
        else:
            url = opts.url
            table_ids = await _lobby_tables(url, opts.tables)
        host, port, path = _split(url)
        base = f"http://{host}:{port}"
        await wait_http(server, base + "/healthz")
        if server is not None:
            print(f"stud-client load: server pid {server.pid} at {url}", file=sys.stderr)
        rss_start = proc_memory_mb(server.pid)["VmRSS"] if server else None

        # tables (with their spectators) dealt round-robin to the generator processes
        per_table = Counter(table_ids[j % len(table_ids)] for j in range(opts.spectators))
        n = max(1, min(opts.workers, len(table_ids)))
        specs = [
            {
                "mode": "tables",
                "host": host,
                "port": port,
                "path": path,
                "tables": table_ids[w::n],
                "seats": opts.seats,
                "spectators": {t: per_table[t] for t in table_ids[w::n]},
                "ante": opts.ante,
                "progressive": opts.progressive,
                "seed": opts.seed * 1000 + w,
                "cpus": plan.generator_cpus or None,
                "uvloop": opts.generator_uvloop,
                "connect_concurrency": max(1, opts.connect_concurrency // n),
                "finish_timeout": opts.finish_timeout,
                "stagger": min(opts.results, 5.0),
            }
            for w in range(n)
        ]
        connections = opts.tables * opts.seats + opts.spectators
        ramp_started = time.monotonic()
        workers = Workers(specs)
        ready = await workers.recv_all("ready", 120 + connections / 20)
        ramp = time.monotonic() - ramp_started
        await asyncio.sleep(1.0)  # the throttled spectator-count push goes out
        health = json.loads(await asyncio.to_thread(http_get, base + "/healthz"))
        rss_connected = proc_memory_mb(server.pid)["VmRSS"] if server else None
        ledger0 = await _ledger(base)
        m0 = metrics_counters((await asyncio.to_thread(http_get, base + "/metrics")).decode())
        cpu0 = proc_cpu_seconds(server.pid) if server else None
        redis_cpu0 = proc_cpu_seconds(redis_child.pid) if redis_child else None
        calls0 = redis_calls(redis_url)
        t0 = time.monotonic()
        workers.send_all("go")
        await asyncio.sleep(opts.seconds)
        m1 = metrics_counters((await asyncio.to_thread(http_get, base + "/metrics")).decode())
        cpu1 = proc_cpu_seconds(server.pid) if server else None
        redis_cpu1 = proc_cpu_seconds(redis_child.pid) if redis_child else None
        t1 = time.monotonic()
        calls1 = redis_calls(redis_url)
        load_during = loadavg()
        workers.send_all("stop")
        results = await workers.recv_all("result", opts.finish_timeout + 60)
        ledger1 = await _ledger(base)
        memory = proc_memory_mb(server.pid) if server else {}
        window = t1 - t0

        def rate(name: str) -> float:
            return round((m1.get(name, 0) - m0.get(name, 0)) / window, 1)

        errors: Counter[str] = Counter()
        player: Counter[int] = Counter()
        spectator: Counter[int] = Counter()
        by_action: dict[str, Counter[int]] = {a: Counter() for a in ACTIONS}
        bots: list[dict[str, Any]] = []
        for r in results:
            errors.update(r["errors"])
            player.update({int(k): v for k, v in r["player"].items()})
            spectator.update({int(k): v for k, v in r["spectator"].items()})
            for a, c in r["by_action"].items():
                by_action[a].update({int(k): v for k, v in c.items()})
            bots.extend(r["bots"])
        ready_count = sum(r["ready"] for r in ready)
        if ready_count < connections:
            errors["not_connected"] += connections - ready_count
        reconcile = _reconcile(bots, ledger0, ledger1, exclusive=opts.url is None)
        doc: dict[str, Any] = {
            "mode": "tables",
            "store": "redis" if redis_url else "memory",
            "tables": opts.tables,
            "seats": opts.seats,
            "spectators": opts.spectators,
            "seconds": round(window, 3),
            "connections": health.get("connections", ready_count),
            "rounds_per_second": rate("stud_rounds_total"),
            "hands_per_second": rate("stud_hands_settled_total"),
            "frames_in_per_second": rate("stud_frames_in_total"),
            "frames_out_per_second": rate("stud_frames_out_total"),
            "broadcasts_per_second": rate("stud_broadcasts_total"),
            "latency_ms": {
                "player": summarize(player),
                "spectator": summarize(spectator),
                "by_action": {a: summarize(c) for a, c in by_action.items() if c},
                # the server's own: a request's arrival to its snapshot handed to the sockets
                "server_action": histogram_delta(m0, m1, "stud_action_seconds"),
                "server_loop_lag": histogram_delta(m0, m1, "stud_event_loop_lag_seconds"),
            },
            "server_cpu_seconds": None if cpu0 is None or cpu1 is None else round(cpu1 - cpu0, 2),
            "server_cpu_percent": None
            if cpu0 is None or cpu1 is None
            else round((cpu1 - cpu0) / window * 100, 1),
            "server_cpu_us_per_hand": None
            if cpu0 is None or cpu1 is None or not rate("stud_hands_settled_total")
            else round((cpu1 - cpu0) * 1e6 / (rate("stud_hands_settled_total") * window), 1),
            "server_peak_rss_mb": round(memory["VmHWM"], 1) if memory else None,
            "server_rss_mb": {
                "start": _round(rss_start),
                "connected": _round(rss_connected),
                "end": _round(memory.get("VmRSS")),
            },
            "server_kib_per_connection": None
            if rss_start is None or rss_connected is None or not ready_count
            else round((rss_connected - rss_start) * 1024 / ready_count, 1),
            "errors": dict(sorted(errors.items())),
            "reconciled": reconcile["ok"],
            "reconcile": reconcile,
            "ramp_seconds": round(ramp, 2),
            "generator": {
                "processes": n,
                "cpu_seconds": round(sum(r["cpu_seconds"] for r in results), 2),
                "frames_received": sum(r["frames_received"] for r in results),
                "uvloop": opts.generator_uvloop,
            },
            "redis_calls_per_hand": _calls_per_hand(calls0, calls1, rate, window),
            "redis_cpu_seconds": None
            if redis_cpu0 is None or redis_cpu1 is None
            else round(redis_cpu1 - redis_cpu0, 2),
            "machine": {
                "cpus": os.cpu_count(),
                "loadavg_before": load_before,
                "loadavg_end_of_window": load_during,
                "pinned": {"server": plan.server_cpus, "generator": plan.generator_cpus}
                if plan.pin
                else None,
                "server_loop": opts.server_loop,
            },
            "timers": {"betting": opts.betting, "decision": opts.decision, "results": opts.results},
            "jackpot_push_interval": opts.jackpot_push_interval,
            "server_settings": list(opts.server_settings),
        }
        return doc
    finally:
        if workers is not None:
            workers.stop()
        if server is not None:
            server.stop()
        if redis_child is not None:
            redis_child.stop()
        elif redis_url and opts.url is None:
            with contextlib.suppress(Exception):
                await drop_redis_namespace(redis_url, namespace)
        shutil.rmtree(tmp, ignore_errors=True)


def _calls_per_hand(
    before: dict[str, int] | None,
    after: dict[str, int] | None,
    rate: Callable[[str], float],
    window: float,
) -> dict[str, float] | None:
    """Redis commands per hand settled: `evalsha` is the server's script calls (one
    round trip each; scripts cannot call scripts), `publish` its pub/sub news, and
    `commands` every command Redis ran, those inside the scripts included."""
    hands = rate("stud_hands_settled_total") * window
    if before is None or after is None or not hands:
        return None

    def per_hand(name: str) -> float:
        return round(((after or {}).get(name, 0) - (before or {}).get(name, 0)) / hands, 3)

    total = sum(v - before.get(k, 0) for k, v in after.items() if k != "info")
    return {
        "evalsha": per_hand("evalsha"),
        "publish": per_hand("publish"),
        "commands": round(total / hands, 3),
    }


def _round(v: float | None) -> float | None:
    return None if v is None else round(v, 1)


async def _ledger(base: str) -> dict[str, Any] | None:
    try:
        data: dict[str, Any] = json.loads(await asyncio.to_thread(http_get, base + "/ledger"))
        return data
    except (OSError, ValueError):
        return None


def _reconcile(
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


async def _lobby_tables(url: str, count: int) -> list[str]:
    from clients.connection import StudClient

    client = await StudClient.open(url, history=False)
    try:
        await client.hello(name="load")
        await client.request("lobby", watch=False)
        assert client.lobby is not None
        ids = [t["id"] for t in client.lobby["tables"] if not t.get("url")]
    finally:
        await client.close()
    if len(ids) < count:
        raise ValueError(f"the server at {url} hosts {len(ids)} tables, not {count}")
    return ids[:count]


# ----- the fan-out run -------------------------------------------------------------------


@dataclass
class FanoutOptions:
    spectators: int = 1000
    triggers: int = 30
    workers: int = 1
    pin: bool = True
    server_loop: str = "default"
    generator_uvloop: bool = True
    connect_concurrency: int = 100
    pause: float = 0.05


async def run_fanout(opts: FanoutOptions) -> dict[str, Any]:
    if not 1 <= opts.spectators <= MAX_FANOUT:
        raise ValueError(f"--fanout must be 1..{MAX_FANOUT}")
    if not 1 <= opts.triggers <= 1000:
        raise ValueError("--triggers must be 1..1000")
    raise_nofile()
    plan = Plan.make(opts.pin)
    with pinned(plan.generator_cpus):
        return await _run_fanout(opts, plan)


async def _run_fanout(opts: FanoutOptions, plan: Plan) -> dict[str, Any]:
    load_before = loadavg()
    tmp = Path(tempfile.mkdtemp(prefix="stud-fanout-"))
    try:
        cfg = tmp / "fanout.toml"
        cfg.write_text(tables_config(["fanout"], 5, {"betting": 30, "decision": 30, "results": 1}))
        port = free_port()
        server = Child(
            stud_server_argv(cfg, port, redis=None, loop=opts.server_loop, log_level="warning"),
            log=tmp / "server.log",
            cpus=plan.server_cpus,
        )
        try:
            ours = await _fanout_side(opts, plan, "stud", port, server, None)
        finally:
            server.stop()
        bare_port = free_port()
        bare_argv = [sys.executable, "-m", "clients.loadserver", "--port", str(bare_port)]
        if opts.server_loop == "uvloop":
            bare_argv.append("--uvloop")
        bare = Child(bare_argv, log=tmp / "bare.log", cpus=plan.server_cpus)
        try:
            baseline = await _fanout_side(opts, plan, "bare", bare_port, bare, ours["sample"])
        finally:
            bare.stop()
        p50, b50 = ours["all"]["p50"], baseline["all"]["p50"]
        return {
            "mode": "fanout",
            "spectators": opts.spectators,
            "triggers": opts.triggers,
            "frame_bytes": len(ours["sample"]),
            "fanout_ms": ours["all"],
            "fanout_median_receiver_ms": ours["median"],
            "baseline_fanout_ms": baseline["all"],
            "baseline_median_receiver_ms": baseline["median"],
            "ratio_vs_websockets": round(p50 / b50, 3) if b50 else None,
            "ratio_p99_vs_websockets": round(ours["all"]["p99"] / baseline["all"]["p99"], 3)
            if baseline["all"]["p99"]
            else None,
            "server_send_ms": ours["send_ms"],
            "baseline_send_ms": baseline["send_ms"],
            "send_ratio_vs_websockets": round(ours["send_ms"] / baseline["send_ms"], 3)
            if ours["send_ms"] and baseline["send_ms"]
            else None,
            "server_cpu_seconds": ours["cpu"],
            "baseline_cpu_seconds": baseline["cpu"],
            "server_peak_rss_mb": ours["peak_rss_mb"],
            "server_kib_per_connection": ours["kib_per_connection"],
            "baseline_kib_per_connection": baseline["kib_per_connection"],
            "errors": dict(sorted((Counter(ours["errors"]) + Counter(baseline["errors"])).items())),
            "machine": {
                "cpus": os.cpu_count(),
                "loadavg_before": load_before,
                "loadavg_after": loadavg(),
                "pinned": {"server": plan.server_cpus, "generator": plan.generator_cpus}
                if plan.pin
                else None,
                "server_loop": opts.server_loop,
            },
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


async def _fanout_side(
    opts: FanoutOptions, plan: Plan, kind: str, port: int, child: Child, sample: bytes | None
) -> dict[str, Any]:
    """Connect the receivers, trigger `opts.triggers` broadcasts one at a time, and time
    each from the trigger's write to its arrival at the last receiver."""
    from websockets.asyncio.client import connect

    base = f"http://127.0.0.1:{port}"
    if kind == "stud":
        await wait_http(child, base + "/healthz")
    else:
        await _wait_port(child, port)
    rss0 = proc_memory_mb(child.pid)["VmRSS"]
    n = max(1, min(opts.workers, opts.spectators))
    counts = [opts.spectators // n + (1 if w < opts.spectators % n else 0) for w in range(n)]
    specs = [
        {
            "mode": "fanout",
            "server": kind,
            "host": "127.0.0.1",
            "port": port,
            "path": "/ws",
            "table": "fanout",
            "count": counts[w],
            "offset": sum(counts[:w]),
            "cpus": plan.generator_cpus or None,
            "uvloop": opts.generator_uvloop,
            "connect_concurrency": max(1, opts.connect_concurrency // n),
        }
        for w in range(n)
    ]
    workers = Workers(specs)
    try:
        ready = await workers.recv_all("ready", 120 + opts.spectators / 20)
        connected = sum(r["ready"] for r in ready)
        await asyncio.sleep(1.5)  # quiet: the spectator-count push has gone out
        rss1 = proc_memory_mb(child.pid)["VmRSS"]
        workers.send_all("arm")
        await workers.recv_all("armed", 30)
        path = "/ws" if kind == "stud" else "/driver"
        starts: list[float] = []
        sends0 = await _send_stats(base, kind)
        cpu0 = proc_cpu_seconds(child.pid)
        async with connect(f"ws://127.0.0.1:{port}{path}", compression=None) as ws:
            if kind == "stud":
                await ws.send(
                    pack({"t": "hello", "id": 1, "v": PROTOCOL_VERSION, "name": "driver"})
                )
                await ws.recv()
            for k in range(opts.triggers):
                if kind == "stud":
                    t = "sit" if k % 2 == 0 else "stand"
                    message = {"t": t, "table": "fanout", "seat": 0}
                    data = pack(message)
                else:
                    assert sample is not None
                    data = sample
                starts.append(time.perf_counter())
                await ws.send(data)
                await workers.recv_all("got", 30)
                await asyncio.sleep(opts.pause)
        cpu1 = proc_cpu_seconds(child.pid)
        sends1 = await _send_stats(base, kind)
        peak = proc_memory_mb(child.pid)["VmHWM"]
        workers.send_all("stop")
        results = await workers.recv_all("result", 60)
    finally:
        workers.stop()
    arrivals = [a for r in results for a in r["arrivals"]]
    last, median = [], []
    for k, t0 in enumerate(starts):
        times = sorted(a[k] for a in arrivals if len(a) > k)
        if times:
            last.append(times[-1] - t0)
            median.append(times[len(times) // 2] - t0)
    errors: Counter[str] = Counter()
    for r in results:
        errors.update(r["errors"])
    if connected < opts.spectators:
        errors["not_connected"] += opts.spectators - connected
    n_sends = sends1[0] - sends0[0]
    return {
        "all": spread(last),
        "median": spread(median),
        "send_ms": round((sends1[1] - sends0[1]) * 1000 / n_sends, 3) if n_sends else None,
        "sample": next((r["sample"] for r in results if r["sample"]), b"") or (sample or b""),
        "cpu": round(cpu1 - cpu0, 2),
        "peak_rss_mb": round(peak, 1),
        "kib_per_connection": round((rss1 - rss0) * 1024 / max(1, connected), 1),
        "errors": dict(errors),
    }


async def _send_stats(base: str, kind: str) -> tuple[float, float]:
    """(broadcasts, seconds spent handing them to the sockets) so far, from the server."""
    if kind == "stud":
        m = metrics_counters((await asyncio.to_thread(http_get, base + "/metrics")).decode())
        return m.get("stud_broadcast_lag_seconds_count", 0), m.get(
            "stud_broadcast_lag_seconds_sum", 0
        )
    data = json.loads(await asyncio.to_thread(http_get, base + "/stats"))
    return data["broadcasts"], data["seconds"]


async def _wait_port(child: Child, port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            if not child.alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the baseline server did not start:\n{child.tail()}") from None
            await asyncio.sleep(0.05)


# ----- the command --------------------------------------------------------------------


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tables", type=int, default=10, help="tables to open (10)")
    p.add_argument("--seats", type=int, default=5, help="bot seats per table, 1-9 (5)")
    p.add_argument("--spectators", type=int, default=0, help="spectators, spread over the tables")
    p.add_argument("--seconds", type=float, default=10.0, help="measured play time (10)")
    p.add_argument(
        "--redis", help="redis://HOST:PORT/DB for the server's store, or 'spawn' for a private one"
    )
    p.add_argument("--url", help="target this running server (loopback) instead of starting one")
    p.add_argument(
        "--fanout", type=int, metavar="N", help="fan-out mode: one table, N spectators (<= 10000)"
    )
    p.add_argument("--triggers", type=int, default=30, help="fan-out: broadcasts timed (30)")
    p.add_argument("--workers", type=int, default=1, help="generator processes (1)")
    p.add_argument("--no-pin", action="store_true", help="do not pin server/generator to CPUs")
    p.add_argument("--results", type=float, default=0.3, help="showdown pause, seconds (0.3)")
    p.add_argument("--progressive", type=float, default=0.25, help="chance of a progressive bet")
    p.add_argument("--seed", type=int, default=1, help="seed of the bots' choices")
    p.add_argument(
        "--server-loop",
        choices=["default", "uvloop", "asyncio"],
        default="default",
        help="the server's event loop (default: what stud-server picks)",
    )
    p.add_argument("--no-uvloop", action="store_true", help="generator on the asyncio loop")
    p.add_argument(
        "--jackpot-push-interval",
        type=float,
        help="the server's [server] jackpot_push_interval (default: the server's default)",
    )
    p.add_argument(
        "--server-setting",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="another [server] setting for the run, TOML value (e.g. fleet_ttl=30); repeatable",
    )
    p.add_argument("--server-log-level", default="warning", help="server log level (warning)")


def load_command(args: argparse.Namespace) -> int:
    """Run the load or the fan-out measure and print its JSON; 1 on errors or books off,
    2 on bad arguments."""
    try:
        return _load_command(args)
    except ValueError as e:
        print(f"stud-client load: {e}", file=sys.stderr)
        return 2


def _setting(text: str) -> str:
    key, eq, value = text.partition("=")
    if not eq or not key.strip().replace("_", "").isalnum() or not value.strip():
        raise ValueError(f"--server-setting wants KEY=VALUE, not {text!r}")
    return f"{key.strip()} = {value.strip()}"


def _load_command(args: argparse.Namespace) -> int:
    raise_nofile()
    if not 0 <= args.progressive <= 1:
        raise ValueError("--progressive must be in 0..1")
    if args.fanout is not None:
        fopts = FanoutOptions(
            spectators=args.fanout,
            triggers=args.triggers,
            workers=args.workers,
            pin=not args.no_pin,
            server_loop=args.server_loop,
            generator_uvloop=not args.no_uvloop,
        )
        doc = asyncio.run(run_fanout(fopts))
        print(json.dumps(doc, indent=2))
        return 1 if doc["errors"] else 0
    opts = LoadOptions(
        tables=args.tables,
        seats=args.seats,
        spectators=args.spectators,
        seconds=args.seconds,
        redis=args.redis,
        url=args.url,
        workers=args.workers,
        pin=not args.no_pin,
        results=args.results,
        progressive=args.progressive,
        seed=args.seed,
        server_loop=args.server_loop,
        generator_uvloop=not args.no_uvloop,
        log_level=args.server_log_level,
        jackpot_push_interval=args.jackpot_push_interval,
        server_settings=tuple(_setting(x) for x in args.server_setting),
    )
    doc = asyncio.run(run_load(opts))
    print(json.dumps(doc, indent=2))
    return 0 if doc["reconciled"] and not doc["errors"] else 1
