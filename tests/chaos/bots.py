"""Players for the chaos run: asyncio clients over real WebSockets that log everything.

A `ChaosBot` plays one table with one or more seats, continuously: sits, antes
(a random amount, sometimes with the progressive), says deal, folds or raises,
now and then withdraws an ante, buys chips, or leaves and comes back. It follows
its table to whichever process hosts it: the lobby row's `url`, the `url` of an
`unknown_table` error, or a `table_moved` frame, and resumes there with its token
(`hello {v, token}`). A snapshot with `suspended` set (or phase `suspended`) is
waited out; an error code it does not know is a refusal like any other.

Every request goes through `Wire.req`, which records it and its reply in the
`Journal` (see journal.py). An ante's round is taken from the first snapshot,
after the reply, that shows the ante on the seat: the round the server put it in.

`race` is a fault: one player's token on several connections of several
processes at once, each racing an ante and a chip purchase against the others.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from typing import Any, Protocol

from websockets.exceptions import ConnectionClosed, WebSocketException

from clients.connection import ServerError, StudClient
from clients.strategy import should_raise
from protocol.codec import PROTOCOL_VERSION
from tests.chaos.journal import (
    ERROR,
    NO_REPLY,
    NOT_SENT,
    OK,
    BalanceSeen,
    Journal,
    Op,
    Seen,
    Shown,
)

log = logging.getLogger("chaos.bots")

#: Seconds a request may wait for its reply before the bot gives the connection up.
REQUEST_TIMEOUT = 5.0
CONNECT_TIMEOUT = 3.0
#: Ante amounts: no one is twice another, nor a progressive stake's house share, so a
#: refund row in a ledger says by its amount which bet it gives back (reconcile.py).
ANTES = (100, 300, 500, 700, 900)
#: Errors after which the bot should look for its table elsewhere.
MOVED = ("unknown_table", "not_owner")
#: A table that shows no change for this long while a round runs is looked up again.
STALE = 6.0


class Owner(Protocol):
    """Whose requests a connection carries."""

    @property
    def name(self) -> str: ...
    @property
    def player_id(self) -> str: ...


class Wire:
    """One connection: a StudClient, with every request and frame journalled."""

    def __init__(
        self, owner: Owner, serial: int, url: str, client: StudClient, journal: Journal
    ) -> None:
        self.owner = owner
        self.serial = serial
        self.url = url
        self.client = client
        self.journal = journal
        self.moved_to: str | None = None  # from a table_moved frame
        self.table_ts: dict[str, float] = {}  # when each table's snapshot last changed
        self._view: dict[str, tuple[Any, Any]] = {}
        self._ante_seen: dict[tuple[str, int], tuple[str, float]] = {}
        self._unattributed: list[Op] = []
        self._shown: dict[tuple[str, int], int] = {}
        #: the wallet as this connection was last told it (`welcome`, then `balance`)
        self.wallet: dict[str, int] | None = None
        self._changed = asyncio.Event()
        client.listeners.append(self._on_frame)

    @property
    def closed(self) -> bool:
        return self.client.closed.done()

    # ----- frames --------------------------------------------------------------

    def _on_frame(self, frame: dict[str, Any]) -> None:
        now = time.time()
        t = frame.get("t")
        if t == "table":
            self._on_table(frame, now)
        elif t == "welcome" and isinstance(frame.get("balance"), dict):
            self.wallet = {k: int(v) for k, v in frame["balance"].items()}
        elif t == "balance":
            self.wallet = {k: int(v) for k, v in frame.items() if k not in ("t", "id")}
            self.journal.balances.append(
                BalanceSeen(
                    self.owner.name,
                    self.owner.player_id,
                    self.url,
                    now,
                    int(frame.get("balance", 0)),
                    int(frame.get("held", 0)),
                    int(frame.get("available", 0)),
                )
            )
        elif t == "table_moved" and isinstance(frame.get("url"), str):
            self.moved_to = str(frame["url"]) or None
        self._changed.set()

    def _on_table(self, snap: dict[str, Any], now: float) -> None:
        table = str(snap.get("table", ""))
        rid = snap.get("round_id")
        phase = snap.get("phase")
        self.table_ts[table] = now
        if self._view.get(table) != (rid, phase):
            self._view[table] = (rid, phase)
            self.journal.seen.append(Seen(table, rid, str(phase), now, self.url))
        pid = self.owner.player_id
        for i, s in enumerate(snap.get("seats") or []):
            if not isinstance(s, dict) or s.get("player_id") != pid or not rid:
                continue
            if int(s.get("ante") or 0) > 0:
                self._ante_seen[(table, i)] = (str(rid), now)
                for op in list(self._unattributed):
                    if op.table == table and op.seat == i:
                        op.round_id = str(rid)
                        self._unattributed.remove(op)
            result = s.get("result")
            if phase == "showdown" and isinstance(result, dict) and "net" in result:
                net = int(result["net"])
                if self._shown.get((str(rid), i)) != net:
                    self._shown[(str(rid), i)] = net
                    self.journal.shown.append(
                        Shown(
                            self.owner.name,
                            pid,
                            self.url,
                            table,
                            str(rid),
                            i,
                            net,
                            str(result.get("outcome", "")),
                            int(snap.get("seq") or 0),
                            now,
                        )
                    )

    async def changed(self, timeout: float) -> None:
        """Wait for the next frame (or `timeout`)."""
        self._changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), timeout)

    # ----- requests ------------------------------------------------------------

    async def req(
        self,
        t: str,
        *,
        round_id: str | None = None,
        phase: str = "",
        live: list[list[Any]] | None = None,
        **fields: Any,
    ) -> Op:
        """Send one request and journal it with its reply; never raises for the reply."""
        seat = fields.get("seat")
        op = Op(
            bot=self.owner.name,
            player=self.owner.player_id,
            conn=self.serial,
            url=self.url,
            op=t,
            fields=dict(fields),
            sent=time.time(),
            table=str(fields.get("table", "")),
            seat=seat if isinstance(seat, int) else None,
            round_id=round_id,
            phase=phase,
            live=live or [],
        )
        self.journal.ops.append(op)
        if self.closed:
            op.outcome = NOT_SENT
            return op
        try:
            reply = await asyncio.wait_for(self.client.request(t, **fields), REQUEST_TIMEOUT)
        except ServerError as e:
            op.outcome, op.code, op.recv = ERROR, e.code, time.time()
            op.data = {k: v for k, v in e.frame.items() if k not in ("t", "id")}
        except TimeoutError:
            op.outcome, op.code = NO_REPLY, "timeout"
            self.abort()  # the server is stuck or gone: give this connection up
        except ConnectionClosed:
            op.outcome = NOT_SENT  # websockets refused to send: the frame never left
        except (ConnectionError, WebSocketException, OSError):
            op.outcome = NO_REPLY
        else:
            op.outcome, op.recv = OK, time.time()
            op.data = {k: v for k, v in reply.items() if k not in ("t", "id")}
            if t == "ante" and isinstance(reply.get("round_id"), str):
                op.round_id = str(reply["round_id"])  # the server says which round it is in
            elif t == "ante" and op.seat is not None:
                seen = self._ante_seen.get((op.table, op.seat))
                if seen is not None and seen[1] >= op.sent:
                    op.round_id = seen[0]
                else:
                    self._unattributed.append(op)
        return op

    def abort(self) -> None:
        """Cut the TCP connection: no close handshake."""
        transport = getattr(self.client.ws, "transport", None)
        if transport is not None:
            transport.abort()

    async def close(self) -> None:
        try:
            await asyncio.wait_for(self.client.close(), 3)
        except (TimeoutError, OSError, WebSocketException):
            self.abort()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.client.closed), 3)


async def open_wire(owner: Owner, serial: int, url: str, journal: Journal) -> Wire | None:
    try:
        client = await asyncio.wait_for(
            StudClient.open(url, history=False, open_timeout=CONNECT_TIMEOUT),
            CONNECT_TIMEOUT + 1,
        )
    except (OSError, TimeoutError, WebSocketException):
        return None
    return Wire(owner, serial, url, client, journal)


class ChaosBot:
    """One player at one table, with `seats` seats, playing until `stop` is set."""

    def __init__(
        self,
        name: str,
        table: str,
        seats: int,
        urls: list[str],
        journal: Journal,
        rng: random.Random,
        stop: asyncio.Event,
    ) -> None:
        self._name = name
        self.table = table
        self.seats = seats
        self.urls = urls
        self.journal = journal
        self.rng = rng
        self.stop = stop
        self._player_id = ""
        self.token: str | None = None
        self.url = rng.choice(urls)
        self.wire: Wire | None = None
        self.serial = 0
        self.identities = 0  # players this bot had to create (a lost token makes another)
        self.failures: list[str] = []  # the bot's own bugs, if any
        self._ready_at: dict[str, float] = {}
        self._done: set[tuple[str, str]] = set()
        self._rejoin_at = 0.0
        self._abort: asyncio.Future[float] | None = None
        self._trouble = 0.0  # when the store last failed one of our requests
        self._leave_by = 0.0  # asked to leave while betting, until then (a fault)
        #: a purchase whose reply was lost: (amount, key, tries), sent again by the next buy
        self._lost_buy: tuple[int, str, int] | None = None
        self._buys = 0
        self.hushed = False  # asked to stop playing and only listen (`hush`)

    @property
    def name(self) -> str:
        return self._name

    @property
    def player_id(self) -> str:
        return self._player_id

    def hush(self) -> None:
        """Send nothing more but stay connected: the harness then compares the wallet
        each connection was last told with the store's, once no money is in flight."""
        self.hushed = True

    def snapshot(self) -> tuple[str, dict[str, Any]] | None:
        """(url, latest snapshot of the bot's table) on its live connection."""
        w = self.wire
        if w is None or w.closed:
            return None
        snap = w.client.view(self.table)  # our own cards of a private deal filled in
        return (w.url, snap) if snap is not None else None

    # ----- the loop ------------------------------------------------------------

    async def run(self) -> None:
        while not self.stop.is_set():
            try:
                await self._session()
            except (ConnectionError, OSError, WebSocketException, TimeoutError):
                pass
            except Exception as e:  # a harness bug: keep it for the report, keep playing
                log.exception("bot %s failed", self.name)
                self.failures.append(f"{type(e).__name__}: {e}")
            finally:
                w, self.wire = self.wire, None
                if w is not None:
                    await w.close()
            await self._sleep(self.rng.uniform(0.2, 0.6))

    async def _sleep(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stop.wait(), seconds)

    def _other_url(self, than: str) -> str:
        others = [u for u in self.urls if u != than]
        return self.rng.choice(others or self.urls)

    async def _session(self) -> None:
        url = self.url
        self.serial += 1
        w = await open_wire(self, self.serial, url, self.journal)
        if w is None:
            self.url = self._other_url(url)
            return
        self.wire = w
        if self.token is not None:
            op = await w.req("hello", v=PROTOCOL_VERSION, token=self.token)
            if op.code == "invalid_token":
                self.token = None  # the store lost the player: start a new one
        else:
            op = await w.req("hello", v=PROTOCOL_VERSION, name=self.name)
        if not op.ok:
            if op.outcome == ERROR:
                self.url = self._other_url(url)
            return
        if op.data.get("player_id") != self._player_id:
            self.identities += 1
            self._lost_buy = None  # the old player's purchase key is not the new one's
        self._player_id = str(op.data["player_id"])
        self.token = str(op.data["token"])
        self.journal.players.add(self._player_id)
        await self._play(w)

    async def _play(self, w: Wire) -> None:
        joined = False
        while not self.stop.is_set() and not w.closed:
            if w.moved_to and w.moved_to != w.url:
                self.url = w.moved_to
                return
            if self.hushed:
                await w.changed(0.3)
                continue
            if self._abort is not None and not self._abort.done() and self._deciding(w):
                await self._abort_now(w)
                return
            now = time.time()
            if not joined:
                if now < self._rejoin_at:
                    await w.changed(self._rejoin_at - now)
                    continue
                op = await w.req("join", table=self.table)
                if op.ok:
                    joined = True
                elif op.outcome in (NO_REPLY, NOT_SENT):
                    return
                elif op.code in MOVED:
                    url = op.data.get("url") or await self._locate(w)
                    if url and url != w.url:
                        self.url = str(url)
                        return
                    await w.changed(0.4)
                else:
                    await w.changed(0.4)
                continue
            snap = w.client.tables.get(self.table)
            quiet = now - w.table_ts.get(self.table, now)
            if snap is not None and snap.get("phase") != "waiting" and quiet > STALE:
                joined = False  # nothing for too long: ask again (or learn where it went)
                continue
            if snap is not None:
                outcome = await self._step(w, snap)
                if outcome == "reconnect":
                    return
                if outcome == "rejoin":
                    joined = False
                    continue
            await w.changed(0.3)

    async def _locate(self, w: Wire) -> str | None:
        """The table's process from the lobby (this one when its row's url is empty)."""
        op = await w.req("lobby", watch=False)
        lobby = w.client.lobby if op.ok else None
        for row in (lobby or {}).get("tables", []):
            if row.get("id") == self.table:
                return str(row.get("url") or w.url)
        return None

    def _ready(self, key: str) -> bool:
        return time.time() >= self._ready_at.get(key, 0.0)

    def _cool(self, key: str, seconds: float) -> None:
        self._ready_at[key] = time.time() + seconds

    def _once(self, round_id: str, action: str) -> bool:
        if (round_id, action) in self._done:
            return False
        self._done.add((round_id, action))
        return True

    def _deciding(self, w: Wire) -> bool:
        snap = w.client.tables.get(self.table)
        return snap is not None and snap.get("phase") == "deciding" and bool(self._mine(snap))

    def _mine(self, snap: dict[str, Any]) -> dict[int, dict[str, Any]]:
        return {
            i: s
            for i, s in enumerate(snap.get("seats") or [])
            if isinstance(s, dict) and s.get("player_id") == self._player_id
        }

    def _verdict(self, op: Op) -> str:
        if op.code == "store_unavailable":
            self._trouble = time.time()
        if op.outcome in (NO_REPLY, NOT_SENT):
            return "reconnect"
        if op.code in MOVED:
            return "rejoin"
        return ""

    async def _step(self, w: Wire, snap: dict[str, Any]) -> str:
        """One action on the latest snapshot: "" to go on, "rejoin", or "reconnect"."""
        rid = snap.get("round_id")
        phase = str(snap.get("phase"))
        if snap.get("suspended") or phase == "suspended":
            return ""
        mine = self._mine(snap)
        table = self.table
        anted = [i for i, s in mine.items() if int(s.get("ante") or 0) > 0]
        if phase == "betting" and rid and anted and time.time() < self._leave_by:
            self._leave_by = 0.0  # asked to leave (a fault): before anything else
            op = await w.req(
                "leave", table=table, round_id=rid, phase=phase, live=[[i, rid] for i in anted]
            )
            if op.ok:
                self._rejoin_at = time.time() + self.rng.uniform(0.5, 1.5)
                return "rejoin"
            return self._verdict(op)
        if len(mine) < self.seats and phase in ("waiting", "betting") and self._ready("sit"):
            op = await w.req("sit", table=table, phase=phase)
            if not op.ok:
                self._cool("sit", 1.5)
            return self._verdict(op)
        if phase in ("waiting", "betting"):
            for i, s in mine.items():
                if int(s.get("ante") or 0) == 0 and self._ready(f"ante{i}"):
                    op = await w.req(
                        "ante",
                        table=table,
                        seat=i,
                        amount=self.rng.choice(ANTES),
                        progressive=self.rng.random() < 0.5,
                        phase=phase,
                    )
                    self._cool(f"ante{i}", 0.5)
                    if op.code in ("insufficient_funds", "bonus_not_playable"):
                        await self._buy(w)
                    return self._verdict(op)
        if phase == "betting" and rid:
            anted = [i for i, s in mine.items() if int(s.get("ante") or 0) > 0]
            if anted and self._once(rid, "withdraw") and self.rng.random() < 0.08:
                op = await w.req(
                    "withdraw", table=table, seat=self.rng.choice(anted), round_id=rid, phase=phase
                )
                return self._verdict(op)
            # a player leaves now and then, and readily when the game just failed them
            troubled = time.time() - self._trouble < 3.0
            why, chance = ("leave-trouble", 0.35) if troubled else ("leave", 0.03)
            if anted and self._once(rid, why) and self.rng.random() < chance:
                op = await w.req(
                    "leave", table=table, round_id=rid, phase=phase, live=[[i, rid] for i in anted]
                )
                if op.ok:
                    self._rejoin_at = time.time() + self.rng.uniform(0.5, 1.5)
                    return "rejoin"
                return self._verdict(op)
            ready = anted and len(anted) == len(mine)
            if ready and self._once(rid, "deal") and self.rng.random() < 0.75:
                op = await w.req("deal", table=table, round_id=rid, phase=phase)
                if op.code == "store_unavailable":
                    self._done.discard((rid, "deal"))
                return self._verdict(op)
        if phase == "deciding" and rid:
            cards = (snap.get("dealer") or {}).get("cards") or []
            up = cards[-1] if cards else None
            for i, s in mine.items():
                hand: list[str] = s.get("cards") or []
                known = bool(hand) and None not in hand  # face down: our `hand` frame is due
                if known and s.get("decision") is None and self._ready(f"decide{i}"):
                    choice = bool(up) and should_raise(hand, str(up))
                    if self.rng.random() < 0.1:
                        choice = not choice
                    decision = "raise" if choice else "fold"
                    op = await w.req(decision, table=table, seat=i, round_id=rid, phase=phase)
                    self._cool(f"decide{i}", 0.4)
                    return self._verdict(op)
        if phase == "showdown" and rid and self._once(rid, "extras") and self.rng.random() < 0.08:
            await self._buy(w)
        return ""

    async def _buy(self, w: Wire) -> Op:
        """A purchase under a key of its own; one whose reply was lost goes again under the
        same key (the server buys it once), as a client should. Every fourth is unkeyed."""
        if self._lost_buy is not None:
            amount, key, tries = self._lost_buy
        else:
            # amounts with odd cents, so the reconciliation can tell purchases apart
            amount, tries = 20_000 + self.rng.randrange(1, 40_000), 0
            self._buys += 1
            key = "" if self._buys % 4 == 0 else f"{self.name}-buy-{self._buys}"
        op = await (
            w.req("buy_chips", amount=amount, key=key) if key else w.req("buy_chips", amount=amount)
        )
        # not known, or not sent while the store is away: the earlier try may have landed
        again = op.unknown or (op.code == "store_unavailable" and tries > 0)
        self._lost_buy = (amount, key, tries + 1) if key and again and tries < 5 else None
        return op

    # ----- faults --------------------------------------------------------------

    def betting_with_ante(self) -> bool:
        seen = self.snapshot()
        if seen is None or seen[1].get("phase") != "betting":
            return False
        return any(int(s.get("ante") or 0) > 0 for s in self._mine(seen[1]).values())

    def leave_soon(self, within: float) -> None:
        """Leave the table at the next step if it is still betting with our ante in it."""
        self._leave_by = time.time() + within

    async def abort_mid_decision(self, within: float) -> float | None:
        """Cut the connection while a decision is due (or after `within` seconds
        regardless); the time it was cut, None when the bot had no connection."""
        loop = asyncio.get_running_loop()
        self._abort = loop.create_future()
        try:
            return await asyncio.wait_for(asyncio.shield(self._abort), within)
        except TimeoutError:
            w = self.wire
            if w is None or w.closed:
                return None
            w.abort()
            return time.time()
        finally:
            self._abort = None

    async def _abort_now(self, w: Wire) -> None:
        """Half the time the decision goes out first and its reply is never read."""
        snap = w.client.tables.get(self.table) or {}
        mine = self._mine(snap)
        undecided = [i for i, s in mine.items() if s.get("cards") and s.get("decision") is None]
        task: asyncio.Task[Op] | None = None
        if undecided and self.rng.random() < 0.5:
            task = asyncio.create_task(
                w.req(
                    self.rng.choice(("raise", "fold")),
                    round_id=snap.get("round_id"),
                    phase="deciding",
                    table=self.table,
                    seat=self.rng.choice(undecided),
                )
            )
            await asyncio.sleep(0.01)  # let the frame leave
        w.abort()
        if self._abort is not None and not self._abort.done():
            self._abort.set_result(time.time())
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)


class Racer:
    """The owner of a racing connection: the same player as the bot it races for."""

    def __init__(self, name: str, player_id: str) -> None:
        self._name = name
        self._player_id = player_id

    @property
    def name(self) -> str:
        return self._name

    @property
    def player_id(self) -> str:
        return self._player_id


async def race(
    bot: ChaosBot, urls: list[str], journal: Journal, rng: random.Random
) -> dict[str, Any]:
    """One token on a connection to every process at once (on the table's own process
    the racer replaces the bot's connection, which resumes): each joins the table,
    then races an ante on one of the player's seats and a chip purchase against the
    others. What it did, for the fault record."""
    if bot.token is None or not bot.player_id:
        return {"skipped": "the bot has no identity yet"}
    token, table = bot.token, bot.table
    targets = list(urls)
    owner = Racer(f"{bot.name}~race", bot.player_id)
    joined: list[Wire] = []
    wires: list[Wire] = []

    async def connect(k: int, url: str) -> None:
        w = await open_wire(owner, 1000 + k, url, journal)
        if w is None:
            return
        wires.append(w)
        hello = await w.req("hello", v=PROTOCOL_VERSION, token=token)
        if hello.ok and (await w.req("join", table=table)).ok:
            joined.append(w)

    await asyncio.gather(*(connect(k, u) for k, u in enumerate(targets)))

    async def fire(w: Wire) -> None:
        snap = w.client.tables.get(table) or {}
        seats = [
            i
            for i, s in enumerate(snap.get("seats") or [])
            if isinstance(s, dict) and s.get("player_id") == owner.player_id
        ]
        moves = [w.req("buy_chips", amount=20_000 + rng.randrange(1, 40_000))]
        if seats:
            moves.append(
                w.req(
                    "ante",
                    table=table,
                    seat=rng.choice(seats),
                    amount=rng.choice(ANTES),
                    progressive=rng.random() < 0.5,
                    phase=str(snap.get("phase", "")),
                )
            )
        await asyncio.gather(*moves)
        await asyncio.sleep(0.5)  # the snapshot that shows the ante, for its round

    try:
        await asyncio.gather(*(fire(w) for w in joined))
    finally:
        for w in wires:
            w.abort()
    return {"player": owner.player_id, "connections": len(wires), "joined": len(joined)}


__all__ = ["ANTES", "OK", "ChaosBot", "Wire", "race"]
