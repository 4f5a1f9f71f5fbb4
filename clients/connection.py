"""An asyncio client for the table server, built only on `protocol/`.

It keeps what the server last said (the wallet, the lobby, each table's
snapshot, the jackpots) and lets callers await replies to requests by id or
wait for any condition on that state. Bots, the terminal client, the load
generator and the tests all speak through it.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from protocol.codec import PROTOCOL_VERSION, SERVER_FRAME_LIMITS, decode, encode

log = logging.getLogger("stud.client")


class ServerError(Exception):
    """The server answered a request with an `error` frame."""

    def __init__(self, frame: dict[str, Any]) -> None:
        super().__init__(f"{frame.get('code')}: {frame.get('message')}")
        self.frame = frame
        self.code: str = frame.get("code", "")


FrameListener = Callable[[dict[str, Any]], None]


class StudClient:
    """One connection. `history=False` keeps no list of past frames (bots, load runs);
    `listeners` see every frame in order, so nothing between two wake-ups is missed."""

    def __init__(self, ws: ClientConnection, *, history: bool = True) -> None:
        self.ws = ws
        self.history = history
        self.frames: list[dict[str, Any]] = []  # every frame received, in order
        self.raw: list[bytes] = []
        self.listeners: list[FrameListener] = []
        self.tables: dict[str, dict[str, Any]] = {}
        self.lobby: dict[str, Any] | None = None
        self.balance: dict[str, int] = {}
        self.jackpots: dict[str, int] = {}
        self.errors: list[dict[str, Any]] = []
        self.welcome: dict[str, Any] = {}
        self._ids = itertools.count(1)
        self._pending: dict[Any, asyncio.Future[dict[str, Any]]] = {}
        self._changed = asyncio.Condition()
        self._reader = asyncio.get_running_loop().create_task(self._read())
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    @classmethod
    async def open(cls, url: str, *, history: bool = True, **kwargs: Any) -> StudClient:
        ws = await connect(
            url, max_size=SERVER_FRAME_LIMITS.max_frame_bytes, compression=None, **kwargs
        )
        return cls(ws, history=history)

    @property
    def player_id(self) -> str:
        return str(self.welcome["player_id"])

    @property
    def token(self) -> str:
        return str(self.welcome["token"])

    async def close(self) -> None:
        await self.ws.close()
        await asyncio.gather(self._reader, return_exceptions=True)

    # ----- sending -------------------------------------------------------------

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(encode(message))

    async def request(self, t: str, **fields: Any) -> dict[str, Any]:
        """Send a request with a fresh id; return its reply or raise ServerError."""
        rid = next(self._ids)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        await self.send({"t": t, "id": rid, **fields})
        try:
            reply = await fut
        finally:
            self._pending.pop(rid, None)
        if reply.get("t") == "error":
            raise ServerError(reply)
        return reply

    async def hello(self, name: str | None = None, token: str | None = None) -> dict[str, Any]:
        fields: dict[str, Any] = {"v": PROTOCOL_VERSION}
        if name is not None:
            fields["name"] = name
        if token is not None:
            fields["token"] = token
        return self._welcomed(await self.request("hello", **fields))

    async def login(self, username: str, password: str) -> dict[str, Any]:
        """Switch this (welcomed) connection to an account; returns its `welcome`."""
        return self._welcomed(await self.request("login", username=username, password=password))

    async def register(self, username: str, password: str) -> dict[str, Any]:
        """Make this connection's guest an account (its wallet and seats stay)."""
        reply = await self.request("register", username=username, password=password)
        self.welcome = {**self.welcome, "username": reply.get("username", username)}
        return reply

    def _welcomed(self, welcome: dict[str, Any]) -> dict[str, Any]:
        self.welcome = welcome
        self.balance = dict(welcome.get("balance", {}))
        self.jackpots.update(welcome.get("jackpots", {}))
        return welcome

    # ----- receiving -----------------------------------------------------------

    async def _read(self) -> None:
        try:
            async for data in self.ws:
                if isinstance(data, str):
                    continue
                frame = decode(data, SERVER_FRAME_LIMITS)
                if self.history:
                    self.raw.append(data)
                    self.frames.append(frame)
                self._absorb(frame)
                for listener in list(self.listeners):
                    try:
                        listener(frame)
                    except Exception:  # a listener's bug must not look like a dead connection
                        log.exception("frame listener failed")
                async with self._changed:
                    self._changed.notify_all()
        except Exception as e:  # the connection is gone: fail whoever waits
            for fut in self._pending.values():
                if not fut.done():
                    fut.set_exception(ConnectionError(str(e)))
        finally:
            for fut in self._pending.values():
                if not fut.done():
                    fut.set_exception(ConnectionError("connection closed"))
            if not self.closed.done():
                self.closed.set_result(None)
            async with self._changed:
                self._changed.notify_all()

    def _absorb(self, frame: dict[str, Any]) -> None:
        t = frame.get("t")
        if t == "table":
            self.tables[frame["table"]] = frame
        elif t == "balance":
            self.balance = {k: v for k, v in frame.items() if k not in ("t", "id")}
        elif t == "lobby":
            self.lobby = frame
            self.jackpots.update(frame.get("jackpots", {}))
        elif t == "jackpot":
            self.jackpots[frame["name"]] = frame["amount"]
        elif t == "error":
            self.errors.append(frame)
        rid = frame.get("id")
        if (
            rid is not None
            and rid in self._pending
            and t in ("ok", "error", "welcome", "pong", "lobby", "balance")
        ):
            fut = self._pending[rid]
            if not fut.done():
                fut.set_result(frame)

    async def wait_for(self, predicate: Callable[[StudClient], Any], timeout: float = 10.0) -> Any:
        """Wait until `predicate(self)` is truthy; return its value."""

        async def wait() -> Any:
            async with self._changed:
                while True:
                    value = predicate(self)
                    if value:
                        return value
                    if self.closed.done():
                        raise ConnectionError("connection closed while waiting")
                    await self._changed.wait()

        return await asyncio.wait_for(wait(), timeout)

    async def wait_table(
        self, table: str, predicate: Callable[[dict[str, Any]], Any], timeout: float = 10.0
    ) -> dict[str, Any]:
        """Wait for a snapshot of `table` that satisfies `predicate`; return it."""

        def check(c: StudClient) -> dict[str, Any] | None:
            snap = c.tables.get(table)
            return snap if snap is not None and predicate(snap) else None

        result: dict[str, Any] = await self.wait_for(check, timeout)
        return result
