"""An asyncio client for the table server, built only on `protocol/`.

It keeps what the server last said (the wallet, the lobby, each table's
snapshot, the player's own cards of a private deal, the jackpots) and lets
callers await replies to requests by id or wait for any condition on that
state. Bots, the terminal client, the load generator and the tests all speak
through it.

Private hands: a table whose snapshot says `hands: "private"` shows every dealt
hand face down (five nils) until the showdown, to every viewer; each player's
own cards come in a `hand` frame sent to them alone. `absorb_hand` keeps that
frame per table and round, and `with_own_hands` gives the snapshot with the
player's own face-down seats filled in from it (`StudClient.view`). A server
that sends every hand face up needs none of it: the snapshot is used as it is.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from protocol.codec import PROTOCOL_VERSION, SERVER_FRAME_LIMITS, decode, encode

#: Where the clients connect unless told (`--url`): a server started with the defaults.
DEFAULT_URL = "ws://127.0.0.1:8765/ws"

log = logging.getLogger("stud.client")


class ServerError(Exception):
    """The server answered a request with an `error` frame."""

    def __init__(self, frame: dict[str, Any]) -> None:
        super().__init__(f"{frame.get('code')}: {frame.get('message')}")
        self.frame = frame
        self.code: str = frame.get("code", "")


FrameListener = Callable[[dict[str, Any]], None]
#: table id -> {"round_id": str, "seats": {seat: {"cards": [...], "hand": {...} | None}}}
OwnHands = dict[str, dict[str, Any]]


def face_down(cards: Any) -> bool:
    """A dealt hand shown face down: a non-empty list with no card in it."""
    return isinstance(cards, list) and len(cards) > 0 and all(c is None for c in cards)


def absorb_hand(store: OwnHands, frame: dict[str, Any]) -> None:
    """Keep a `hand` frame: one of the round already kept adds its seats (the server
    sends it again after a join, a sit or a reconnect); one of another round replaces it."""
    table, rid = frame.get("table"), frame.get("round_id")
    if not isinstance(table, str) or not rid:
        return
    kept = store.get(table)
    seats: dict[int, dict[str, Any]] = (
        dict(kept["seats"]) if kept is not None and kept["round_id"] == rid else {}
    )
    for entry in frame.get("seats") or []:
        seat = entry.get("seat") if isinstance(entry, dict) else None
        if type(seat) is int and isinstance(entry.get("cards"), list):
            seats[seat] = {"cards": entry["cards"], "hand": entry.get("hand")}
    store[table] = {"round_id": rid, "seats": seats}


def forget_stale_hands(store: OwnHands, snap: dict[str, Any]) -> None:
    """A snapshot of another round (or of none): the own cards kept for a round before go."""
    kept = store.get(str(snap.get("table")))
    if kept is not None and kept["round_id"] != snap.get("round_id"):
        del store[str(snap["table"])]


def with_own_hands(snap: dict[str, Any], store: OwnHands, player_id: str | None) -> dict[str, Any]:
    """The snapshot as `player_id` sees it: their own face-down seats of this round hold
    the cards of their `hand` frame. The snapshot itself is not changed; one with nothing
    to fill in is returned as it is."""
    kept = store.get(str(snap.get("table")))
    if kept is None or player_id is None or kept["round_id"] != snap.get("round_id"):
        return snap
    seats: list[Any] | None = None
    for i, seat in enumerate(snap.get("seats") or []):
        own = kept["seats"].get(i)
        if own is None or not isinstance(seat, dict) or seat.get("player_id") != player_id:
            continue
        if not face_down(seat.get("cards")):
            continue
        if seats is None:
            seats = list(snap["seats"])
        seats[i] = {**seat, "cards": own["cards"], "hand": own.get("hand") or seat.get("hand")}
    return snap if seats is None else {**snap, "seats": seats}


def as_it_stands(snap: dict[str, Any]) -> dict[str, Any]:
    """A suspended table's snapshot drawn as it stood: its round's `phase`, with
    `suspension` holding why (PROTOCOL.md section 6, Faults); any other as it is."""
    suspended = snap.get("suspended")
    if not isinstance(suspended, dict):
        return snap
    return {**snap, "phase": suspended.get("phase", snap.get("phase")), "suspension": suspended}


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
        self.hands: OwnHands = {}  # own cards of private deals, per table
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
        try:
            await self.send({"t": t, "id": rid, **fields})
            reply = await fut
        finally:
            # never left behind: one whose frame could not be sent would otherwise be
            # failed by the reader later, its error never retrieved
            self._pending.pop(rid, None)
            if not fut.done():
                fut.cancel()
            elif not fut.cancelled():
                fut.exception()
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
        """Switch this connection to an account (welcomed, or as its first message);
        returns its `welcome`."""
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
            forget_stale_hands(self.hands, frame)
            jp = frame.get("jackpot")  # a table's snapshot carries its meter, as it stands
            if isinstance(jp, dict) and jp.get("name") is not None:
                self.jackpots[str(jp["name"])] = int(jp["amount"])
        elif t == "hand":
            absorb_hand(self.hands, frame)
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

    def view(self, table: str) -> dict[str, Any] | None:
        """The latest snapshot of `table` with this player's own cards of a private deal
        filled in (see the module's docstring), or None before the first one."""
        snap = self.tables.get(table)
        if snap is None:
            return None
        player = self.welcome.get("player_id")
        return with_own_hands(snap, self.hands, None if player is None else str(player))

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
