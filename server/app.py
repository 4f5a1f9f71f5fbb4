"""The table server: connections, identity, the lobby, and routing to tables.

Every inbound frame is decoded with bounds and validated against its schema
before anything acts on it; whatever it holds, the answer is a reply, an
`error` frame with a stable code, or a close with the right close code.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from protocol.codec import PROTOCOL_VERSION, Limits, decode, encode, negotiate_version
from protocol.errors import CloseCode, ErrorCode, ProtocolError, RequestId
from protocol.messages import (
    Ante,
    Balance,
    BuyChips,
    ClientMessage,
    Deal,
    Fold,
    Hello,
    History,
    Join,
    Leave,
    Lobby,
    Ping,
    Raise,
    Seed,
    Sit,
    Stand,
    Withdraw,
    validate,
)
from server.config import Config
from server.fleet import Fleet, every
from server.game.cards import Card
from server.game.ledger import Transfer, meter_account
from server.game.table import Decision, Refusal
from server.http import HttpRoutes
from server.metrics import Metrics
from server.ratelimit import TokenBucket, Verdict
from server.room import Room, send_all
from server.stores.base import Player, Store, StoreError, Wallet
from server.stores.memory import MemoryStore

log = logging.getLogger("stud.server")


@dataclass(eq=False)
class Session:
    """One WebSocket connection and what it has joined."""

    ws: ServerConnection
    bucket: TokenBucket
    player: Player | None = None
    tables: set[str] = field(default_factory=set)


@dataclass(eq=False)
class PlayerPresence:
    sessions: set[Session] = field(default_factory=set)
    grace: asyncio.TimerHandle | None = None


class StudServer:
    def __init__(
        self,
        config: Config,
        store: Store | None = None,
        *,
        shuffle: Callable[[], list[Card]] | None = None,
        fleet: Fleet | None = None,
    ) -> None:
        self.config = config
        self.store: Store = store if store is not None else MemoryStore()
        self.fleet = fleet
        if fleet is not None:
            fleet.on_meter = self.meter_news
            fleet.on_win = self.win_news
        self.remote_tables: list[dict[str, Any]] = []
        self.metrics = Metrics()
        self.rooms = {t.table_id: Room(self, t, shuffle) for t in config.tables}
        self.sessions: set[Session] = set()
        self.presence: dict[str, PlayerPresence] = {}
        self.meters: dict[str, int] = {}
        self.lobby_watchers: set[ServerConnection] = set()
        self.rooms_to_refresh: set[Room] = set()
        self.http = HttpRoutes(self)
        self.started = time.time()
        self.server: Server | None = None
        self.stopping = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self._lobby_dirty = False
        self._meters_dirty = False
        self._meters_to_read: set[str] = set()
        # a meter other processes may move too (Redis): read it at the throttled pace
        self._shared_meters = fleet is not None or not isinstance(self.store, MemoryStore)
        self._decode_limits = Limits(max_frame_bytes=config.limits.max_frame_bytes)

    # ----- lifecycle -----------------------------------------------------------

    async def start(self) -> None:
        for name, jp in self.config.jackpots.items():
            self.meters[name] = await self.store.ensure_meter(name, jp.seed)
        if self.fleet is not None:
            await self.fleet.start()
        for room in self.rooms.values():
            await self._host(room)
        self.server = await serve(
            self.handler,
            self.config.host,
            self.config.port,
            process_request=self.http.process_request,
            max_size=self.config.limits.max_frame_bytes,
            compression=None,
            max_queue=32,
            ping_interval=20,
            ping_timeout=20,
            close_timeout=5,
        )
        self.spawn(self._pump())
        self.spawn(self._watch_loop())
        if self.fleet is not None:
            self.spawn(every(self.fleet.heartbeat, self._heartbeat, "fleet heartbeat"))
        hosted = [r.id for r in self.rooms.values() if r.active]
        log.info(
            "serving on %s:%s, tables %s",
            self.config.host,
            self.port,
            ", ".join(hosted) or "none (standing by)",
            extra={"port": self.port, "tables": hosted},
        )

    async def _host(self, room: Room) -> None:
        """Take the table if no live process has it; void what a crashed owner left open."""
        if self.fleet is not None and not await self.fleet.claim(room.id):
            room.active = False
            return
        if not room.active or not room.recovered:
            voided = await self.store.recover(room.id)
            room.recovered = True
            for round_id in voided:
                log.warning(
                    "voided a round left open by a crash; every bet refunded",
                    extra={"round_id": round_id, "table": room.id},
                )
            if voided:
                await self._refresh_meters()
        room.active = True

    async def _heartbeat(self) -> None:
        """Keep our tables, take over those of dead processes, share the lobby."""
        assert self.fleet is not None
        if self.stopping:
            return
        for name, jp in self.config.jackpots.items():  # a Redis restarted empty gets them back
            self.set_meter(name, await self.store.ensure_meter(name, jp.seed))
        for room in self.rooms.values():
            was = room.active
            if was and not await self.fleet.claim(room.id):
                log.error("lost table %s to another process", room.id, extra={"table": room.id})
                room.active = False
                room.closing = True
            elif not was:
                await self._host(room)
                if room.active:
                    log.warning("took over table %s", room.id, extra={"table": room.id})
                    self.lobby_changed()
        await self.fleet.publish_rows([r.describe() for r in self.rooms.values() if r.active])
        local = {r.id for r in self.rooms.values() if r.active}
        remote = await self.fleet.remote_rows(local)
        if remote != self.remote_tables:
            self.remote_tables = remote
            self.lobby_changed()

    async def _refresh_meters(self) -> None:
        for name, amount in (await self.store.meters()).items():
            self.set_meter(name, amount)

    @property
    def port(self) -> int:
        assert self.server is not None
        sock = next(iter(self.server.sockets))
        port: int = sock.getsockname()[1]
        return port

    async def stop(self, grace: float | None = None) -> None:
        """Graceful shutdown: no new rounds, running ones finish or are voided, close 1001."""
        if self.stopping:
            return
        self.stopping = True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (self.config.shutdown_grace if grace is None else grace)
        await asyncio.gather(*(room.drain(deadline) for room in self.rooms.values() if room.active))
        if self.fleet is not None:
            await self.fleet.close([r.id for r in self.rooms.values() if r.active])
        if self.server is not None:
            self.server.close(close_connections=True, code=CloseCode.GOING_AWAY)
            await self.server.wait_closed()
        for task in list(self._tasks):
            task.cancel()
        await self.store.close()

    async def serve_until_signalled(self) -> None:
        await self.start()
        tune_gc()
        loop = asyncio.get_running_loop()
        done = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, done.set)
        await done.wait()
        log.info("shutting down")
        await self.stop()

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ----- connections ---------------------------------------------------------

    async def handler(self, ws: ServerConnection) -> None:
        limits = self.config.limits
        session = Session(ws, TokenBucket(limits.rate_per_second, limits.rate_burst))
        self.sessions.add(session)
        loop = asyncio.get_running_loop()
        no_hello = loop.call_later(limits.hello_timeout, lambda: self._hello_overdue(session))
        try:
            async for message in ws:
                self.metrics.frames_in += 1
                if isinstance(message, str):
                    await self.close(ws, CloseCode.UNSUPPORTED_DATA, "binary msgpack frames only")
                    return
                verdict = session.bucket.admit(time.monotonic())
                if verdict is Verdict.CLOSE:
                    await self.close(ws, CloseCode.POLICY_VIOLATION, "too many messages")
                    return
                if verdict is Verdict.WARN:
                    self.send_error(
                        session,
                        ProtocolError(
                            ErrorCode.RATE_LIMITED,
                            f"slow down: at most {limits.rate_per_second:g} messages per second; "
                            "keeping on closes the connection",
                        ),
                    )
                if verdict is not Verdict.PASS:
                    continue
                await self.on_frame(session, message)
        except ConnectionClosed:
            pass
        finally:
            no_hello.cancel()
            self.sessions.discard(session)
            await self._disconnected(session)

    def _hello_overdue(self, session: Session) -> None:
        if session.player is None:
            self.spawn(self.close(session.ws, CloseCode.POLICY_VIOLATION, "no hello in time"))

    async def close(self, ws: ServerConnection, code: int, reason: str) -> None:
        self.metrics.closes[code] += 1
        await ws.close(code, reason)

    async def on_frame(self, session: Session, data: bytes) -> None:
        started = time.perf_counter()
        request_id: RequestId | None = None
        try:
            frame = decode(data, self._decode_limits)
            msg = validate(frame)
            request_id = msg.id
            if session.player is None and not isinstance(msg, Hello | Ping):
                raise ProtocolError(ErrorCode.NOT_WELCOMED, "say hello first")
            await self.dispatch(session, msg, started)
        except ProtocolError as e:
            self.send_error(session, e, request_id)
            if e.code is ErrorCode.UNSUPPORTED_VERSION:
                await self.close(session.ws, CloseCode.PROTOCOL_ERROR, "unsupported version")
        except Refusal as e:
            self.send_error(session, _refusal(e), request_id)
        except StoreError as e:
            self.send_error(session, _store_error(e), request_id)
        except ConnectionClosed:
            raise
        except Exception:
            log.exception("request failed")
            self.send_error(
                session,
                ProtocolError(ErrorCode.INTERNAL_ERROR, "the server failed to handle this request"),
                request_id,
            )

    def send(self, ws: ServerConnection, message: dict[str, Any]) -> None:
        self.metrics.frames_out += send_all((ws,), encode(message))

    def reply(self, session: Session, msg: ClientMessage, **data: Any) -> None:
        if msg.id is not None:
            self.send(session.ws, {"t": "ok", "id": msg.id, **data})

    def send_error(self, session: Session, error: ProtocolError, request_id: Any = None) -> None:
        self.metrics.errors[str(error.code)] += 1
        self.send(session.ws, error.to_frame(request_id))

    # ----- requests ------------------------------------------------------------

    async def dispatch(self, session: Session, msg: ClientMessage, started: float) -> None:
        match msg:
            case Hello():
                await self.hello(session, msg)
            case Ping():
                self.send(
                    session.ws,
                    {"t": "pong", "id": msg.id, "server_time_ms": int(time.time() * 1000)},
                )
            case Lobby():
                if msg.watch:
                    self.lobby_watchers.add(session.ws)
                else:
                    self.lobby_watchers.discard(session.ws)
                self.send(session.ws, self.lobby_frame())
                self.reply(session, msg)
            case Balance():
                wallet = await self.store.wallet(self._pid(session))
                self.send(session.ws, {"t": "balance", **wallet.to_public()})
                self.reply(session, msg)
            case BuyChips():
                w = self.config.wallet
                if self.stopping:
                    raise ProtocolError(ErrorCode.SHUTTING_DOWN, "this server is shutting down")
                pid = self._pid(session)
                if msg.amount > w.max_buy_chips:
                    balance = (await self.store.wallet(pid)).balance
                    raise ProtocolError(
                        ErrorCode.BUY_IN_LIMIT,
                        f"at most {w.max_buy_chips} cents per purchase",
                        details={"allowed": max(0, min(w.max_buy_chips, w.max_balance - balance))},
                    )
                wallet = await self.store.buy_chips(pid, msg.amount, w.max_balance)
                self.reply(session, msg)
                self.push_wallet(pid, wallet)
            case Join():
                room = self._room(msg.table)
                self._watch(session, room)
                self.reply(session, msg)
            case Leave():
                room = self._room(msg.table)
                self._at(session, msg.table)
                session.tables.discard(msg.table)
                room.remove_viewer(session.ws)
                await room.remove_player(self._pid(session))
                self.reply(session, msg)
            case Sit():
                room = self._room(msg.table)
                player = self._player(session)
                if msg.table not in session.tables:
                    self._watch(session, room)
                seat = await room.sit(player.player_id, player.name, msg.seat)
                self.reply(session, msg, seat=seat)
            case Stand():
                self._at(session, msg.table)
                await self._room(msg.table).stand(self._pid(session), msg.seat)
                self.reply(session, msg)
            case Ante():
                self._at(session, msg.table)
                await self._room(msg.table).ante(
                    self._pid(session), msg.seat, msg.amount, msg.progressive, started
                )
                self.reply(session, msg)
            case Withdraw():
                self._at(session, msg.table)
                await self._room(msg.table).withdraw(self._pid(session), msg.seat)
                self.reply(session, msg)
            case Deal():
                self._at(session, msg.table)
                await self._room(msg.table).deal(self._pid(session), started)
                self.reply(session, msg)
            case Seed():
                self._at(session, msg.table)
                await self._room(msg.table).set_client_seed(self._pid(session), msg.client_seed)
                self.reply(session, msg)
            case History():
                rounds = await self.store.history(self._pid(session), msg.limit)
                self.send(session.ws, {"t": "history", "rounds": rounds})
                self.reply(session, msg)
            case Fold() | Raise():
                self._at(session, msg.table)
                decision = Decision.FOLD if isinstance(msg, Fold) else Decision.RAISE
                await self._room(msg.table).decide(self._pid(session), msg.seat, decision, started)
                self.reply(session, msg)

    async def hello(self, session: Session, msg: Hello) -> None:
        if session.player is not None:
            raise ProtocolError(ErrorCode.ALREADY_WELCOMED, "this connection already said hello")
        version = negotiate_version(msg.v)
        if version is None:
            raise ProtocolError(
                ErrorCode.UNSUPPORTED_VERSION,
                f"this server speaks protocol version {PROTOCOL_VERSION}",
                details={"supported": [PROTOCOL_VERSION]},
            )
        resumed = False
        if msg.token is not None:
            player = await self.store.player_by_token(msg.token)
            if player is None:
                raise ProtocolError(
                    ErrorCode.INVALID_TOKEN, "unknown session token: say hello with a name"
                )
            resumed = True
        elif msg.name is not None:
            w = self.config.wallet
            player = await self.store.create_player(msg.name, w.starting_credits, w.starting_bonus)
        else:
            raise ProtocolError(
                ErrorCode.MISSING_FIELD, "hello needs a name or a token", field="name"
            )
        session.player = player
        presence = self.presence.setdefault(player.player_id, PlayerPresence())
        was_gone = not presence.sessions
        for older in list(presence.sessions):  # one connection per player: the newest wins
            self.spawn(self.close(older.ws, CloseCode.NORMAL, "replaced by a new connection"))
        presence.sessions.add(session)
        if presence.grace is not None:
            presence.grace.cancel()
            presence.grace = None
        wallet = await self.store.wallet(player.player_id)
        limits = self.config.limits
        seats = {
            room.id: [s.index for s in room.table.seats_of(player.player_id)]
            for room in self.rooms.values()
            if room.table.seats_of(player.player_id)
        }
        self.send(
            session.ws,
            {
                "t": "welcome",
                "id": msg.id,
                "v": version,
                "player_id": player.player_id,
                "token": player.token,
                "name": player.name,
                "resumed": resumed,
                "balance": wallet.to_public(),
                "seats": seats,
                "jackpots": dict(self.meters),
                "limits": {
                    "max_frame_bytes": limits.max_frame_bytes,
                    "rate_per_second": limits.rate_per_second,
                    "max_seats_per_player": self.config.max_seats_per_player,
                },
            },
        )
        for table_id in seats:
            room = self.rooms[table_id]
            self._watch(session, room)
            if was_gone:
                await room.set_connected(player.player_id, True)

    async def _disconnected(self, session: Session) -> None:
        self.lobby_watchers.discard(session.ws)
        for table_id in session.tables:
            self.rooms[table_id].remove_viewer(session.ws)
        if session.player is None:
            return
        pid = session.player.player_id
        presence = self.presence.get(pid)
        if presence is None:
            return
        presence.sessions.discard(session)
        if presence.sessions:
            return
        for room in self.rooms.values():
            if room.table.seats_of(pid):
                await room.set_connected(pid, False)
        if self.stopping:
            return
        loop = asyncio.get_running_loop()
        presence.grace = loop.call_later(
            self.config.reconnect_grace, lambda: self.spawn(self._grace_over(pid))
        )

    async def _grace_over(self, player_id: str) -> None:
        """The player stayed away past the grace: their seats go (after any live round)."""
        presence = self.presence.get(player_id)
        if presence is None or presence.sessions:
            return
        presence.grace = None
        for room in self.rooms.values():
            if room.table.seats_of(player_id):
                await room.remove_player(player_id, by_request=False)
        del self.presence[player_id]

    # ----- helpers -------------------------------------------------------------

    def is_connected(self, player_id: str) -> bool:
        p = self.presence.get(player_id)
        return bool(p and p.sessions)

    def _player(self, session: Session) -> Player:
        if session.player is None:
            raise ProtocolError(ErrorCode.NOT_WELCOMED, "say hello first")
        return session.player

    def _pid(self, session: Session) -> str:
        return self._player(session).player_id

    def _room(self, table_id: str) -> Room:
        room = self.rooms.get(table_id)
        if room is None or not room.active:
            remote = next((r for r in self.remote_tables if r["id"] == table_id), None)
            where = f": it is hosted at {remote['url']}" if remote and remote.get("url") else ""
            raise ProtocolError(
                ErrorCode.UNKNOWN_TABLE,
                f"no table {table_id!r} on this server{where}",
                field="table",
                details={"url": remote["url"]} if where and remote else None,
            )
        return room

    def _at(self, session: Session, table_id: str) -> None:
        if table_id not in session.tables:
            raise ProtocolError(
                ErrorCode.NOT_AT_TABLE, f"join table {table_id!r} first", field="table"
            )

    def _watch(self, session: Session, room: Room) -> None:
        """Add the connection to the table's viewers and send it the snapshot."""
        if (
            room.id not in session.tables
            and len(session.tables) >= self.config.limits.max_tables_per_connection
        ):
            raise ProtocolError(
                ErrorCode.INVALID_FIELD,
                f"at most {self.config.limits.max_tables_per_connection} tables per connection",
                field="table",
            )
        session.tables.add(room.id)
        self.metrics.frames_out += send_all(
            (session.ws,), room.add_viewer(session.ws, self._pid(session))
        )

    # ----- pushes --------------------------------------------------------------

    def push_wallet(self, player_id: str, wallet: Wallet) -> None:
        presence = self.presence.get(player_id)
        if not presence or not presence.sessions:
            return
        data = encode({"t": "balance", **wallet.to_public()})
        self.metrics.frames_out += send_all([s.ws for s in presence.sessions], data)

    def set_meter(self, name: str, amount: int, *, announce: bool = True) -> None:
        if self.meters.get(name) != amount:
            self.meters[name] = amount
            self._meters_dirty = True
            if announce and self.fleet is not None:
                self.spawn(self._announce_meter(name, amount))

    async def _announce_meter(self, name: str, amount: int) -> None:
        assert self.fleet is not None
        try:
            await self.fleet.announce_meter(name, amount)
        except StoreError as e:
            log.warning("meter news not sent: %s", e.message)

    def meter_news(self, name: str, amount: int) -> None:
        """Another process changed a meter: show it, do not echo it."""
        self.set_meter(name, amount, announce=False)

    async def refresh_meter(self, name: str) -> None:
        self.set_meter(name, await self.store.meter(name))

    async def meter_moved(self, name: str, transfers: Sequence[Transfer]) -> None:
        """This process's transfers fed or drew on a meter.

        The embedded store's figure is exact and free: read it. A shared store's costs
        a round trip and can change under us from other processes, so the amount shown
        moves by our own transfers at once and the store's figure is read (and, if it
        changed, announced to the fleet) at the next throttled push: one read per
        interval, not one per bet.
        """
        if not self._shared_meters:
            await self.refresh_meter(name)
            return
        account = meter_account(name)
        delta = sum(t.amount for t in transfers if t.target == account) - sum(
            t.amount for t in transfers if t.source == account
        )
        if delta:
            self.set_meter(name, self.meters.get(name, 0) + delta, announce=False)
        self._meters_to_read.add(name)

    async def _read_meters(self) -> None:
        names, self._meters_to_read = self._meters_to_read, set()
        for name in sorted(names):
            try:
                self.set_meter(name, await self.store.meter(name))
            except StoreError as e:
                self._meters_to_read.add(name)  # next interval
                log.warning("meter not read: %s", e.message)

    def announce_jackpot(self, message: dict[str, Any]) -> None:
        """Tell every player here, and every other process's players, of a jackpot hit."""
        self.win_news(message)
        if self.fleet is not None:
            self.spawn(self._announce_win(message))

    def win_news(self, message: dict[str, Any]) -> None:
        conns = [s.ws for s in self.sessions if s.player is not None]
        self.metrics.frames_out += send_all(conns, encode(message))

    async def _announce_win(self, message: dict[str, Any]) -> None:
        assert self.fleet is not None
        try:
            await self.fleet.announce_win(message)
        except StoreError as e:
            log.warning("jackpot news not sent: %s", e.message)

    def lobby_changed(self) -> None:
        self._lobby_dirty = True

    def lobby_frame(self) -> dict[str, Any]:
        local = [room.describe() for room in self.rooms.values() if room.active]
        return {"t": "lobby", "tables": local + self.remote_tables, "jackpots": dict(self.meters)}

    async def _watch_loop(self) -> None:
        """Sample how late the event loop runs a timer (every request waits that long)."""
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + LOOP_SAMPLE
            await asyncio.sleep(LOOP_SAMPLE)
            self.metrics.loop_lag.observe(max(0.0, loop.time() - due))

    async def _pump(self) -> None:
        """Throttled pushes: lobby changes and meter changes, at most every interval."""
        interval = self.config.jackpot_push_interval
        while True:
            await asyncio.sleep(interval)
            if self._meters_to_read:
                await self._read_meters()
            if self._meters_dirty:
                self._meters_dirty = False
                conns = [s.ws for s in self.sessions if s.player is not None]
                frames = [
                    encode({"t": "jackpot", "name": name, "amount": amount})
                    for name, amount in self.meters.items()
                ]
                # in slices, letting requests in between: writing to 10,000 sockets
                # takes ~100 ms, too long to hold the event loop in one go
                for i in range(0, len(conns), PUSH_SLICE):
                    if i:
                        await asyncio.sleep(0)
                    for frame in frames:
                        self.metrics.frames_out += send_all(conns[i : i + PUSH_SLICE], frame)
            rooms, self.rooms_to_refresh = self.rooms_to_refresh, set()
            for room in rooms:
                if not room.lock.locked():
                    room.table.touch()  # the spectator count is part of the snapshot
                    room.publish()
                else:
                    self.rooms_to_refresh.add(room)  # a command will publish; retry later
            if self._lobby_dirty and self.lobby_watchers:
                self._lobby_dirty = False
                lobby = encode(self.lobby_frame())
                self.metrics.frames_out += send_all(self.lobby_watchers, lobby)


#: Seconds between samples of the event loop's lag.
LOOP_SAMPLE = 0.05

#: Connections written to per slice of a push to everyone (jackpot meters).
PUSH_SLICE = 500

#: Allocations between young-generation collections, and the older generations' ratios.
GC_THRESHOLD = (50_000, 50, 100)


def tune_gc() -> None:
    """Collect less often: a table server allocates many small containers per frame
    (decoded requests, snapshot dicts) that reference counting frees at once, so
    CPython's default (a young collection every 700 allocations, and full ones that
    walk every connection's objects) spends time finding little. Objects made at
    start (config, tables, modules) are frozen out of the collector's walks. Measured
    with `stud-client load`: about a sixth less server CPU per hand (BENCHMARKS.md).
    For the process that serves (`stud-server serve`), not for tests embedding one."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)


def _refusal(e: Refusal) -> ProtocolError:
    details = {k: v for k, v in e.details.items() if k != "field"}
    field_ = e.details.get("field")
    return ProtocolError(ErrorCode(e.code), e.message, field=field_, details=details)


def _store_error(e: StoreError) -> ProtocolError:
    return ProtocolError(ErrorCode(e.code), e.message, details=e.details)
