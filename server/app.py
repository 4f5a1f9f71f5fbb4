"""The table server process: builds its parts, runs them, stops them.

The parts, each in its own module: `Gateway` (a connection's frames in),
`Requests` (what each message does), `Sessions` (who is connected), `Room`
(one live table), `Hosting` (which tables this process hosts), `Lobby`,
`JackpotNews` (the meters and their news), `HttpRoutes`. `StudServer` wires
them and is the host every `Room` reports to (`RoomHost`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import math
import secrets
import signal
import time
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence, Set
from dataclasses import replace
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve

from protocol.errors import CloseCode
from server.admin.console import AdminConsole
from server.config import Config, ConfigError, shared_settings
from server.dispatch import Requests
from server.durable import Pending
from server.fleet import Fleet, every
from server.game.cards import Card
from server.game.ledger import Transfer
from server.gateway import Gateway
from server.hosting import Hosting
from server.http import Census, HttpRoutes
from server.jackpots import JackpotNews
from server.lobby import Lobby
from server.metrics import Metrics
from server.outbox import Outbox
from server.passwords import Passwords
from server.room import Room
from server.seating import Seating
from server.sessions import SIGNED_OUT, UNKNOWN_AFTER_RESTORE, Sessions
from server.stores.base import Store, StoreError, Wallet
from server.stores.memory import MemoryStore
from server.stores.redis import RedisStore

log = logging.getLogger("stud.server")


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
        self.process_id = fleet.process_id if fleet is not None else secrets.token_hex(6)
        if fleet is not None:
            fleet.on_wallet = self._wallet_news
            fleet.on_signed_out = self._signed_out_news
            fleet.on_news_lost = self.news_lost
            fleet.settings = shared_settings(config)
            fleet.on_origin_lost = self._origin_lost
        if isinstance(self.store, RedisStore):
            # restored: a wallet may differ from the one shown (a buy after the backup was
            # taken), and the reads of wallets meanwhile failed
            self.store.on_data_back = self._data_back
        if fleet is not None and isinstance(fleet.store, RedisStore):
            fleet.store.on_data_back = self._data_back  # whichever link sees it first
        for link in (self.store, fleet.store if fleet is not None else None):
            if isinstance(link, RedisStore):  # a write answered a count it was answered before
                link.on_went_back = self.store_went_back
        self.stopping = False
        self._sampled = math.inf  # loop.time() of the loop watch's last sample (none yet)
        self._woke = -math.inf  # loop.time() the loop last ran again after standing still
        self._stalled_at = -math.inf  # ...and its last sample before it stood still
        self.metrics = Metrics()
        self.pending = Pending()
        self.outbox = Outbox(config.limits.max_unsent_bytes, self.metrics)
        self.metrics.store_retries = lambda: self.pending.retries
        self.metrics.store_abandoned = lambda: self.pending.abandoned
        self.sessions = Sessions(self.metrics, self.outbox)
        self.seating = Seating()  # who sits where, kept by the rooms
        accounts = config.accounts
        self.passwords = Passwords(
            time_cost=accounts.time_cost,
            memory_cost=accounts.memory_cost,
            parallelism=accounts.parallelism,
            threads=accounts.hash_threads,
            max_waiting=accounts.max_waiting_hashes,
        )
        self.jackpots = JackpotNews(
            {name: jp.seed for name, jp in config.jackpots.items()},
            self.store,
            fleet,
            self.metrics,
            self.outbox,
            self.sessions.welcomed,
            self.spawn,
            shown=self._shown_meter,
            pushed=self._pushed_meter,
            per_push=max(1, int(config.jackpot_push_budget * config.jackpot_push_interval)),
            shared=fleet is not None or not isinstance(self.store, MemoryStore),
        )
        self.rooms = {t.table_id: Room(self, t, shuffle) for t in config.tables}
        self.lobby = Lobby(
            lambda: [room.describe() for room in self.hosting.hosted()],
            self.jackpots.meters,
            self.metrics,
            self.outbox,
        )
        self.hosting = Hosting(
            self.rooms,
            self.store,
            fleet,
            self.jackpots,
            self.lobby,
            lambda: self.stopping,
            self.process_id,
            fleet.ttl if fleet is not None else None,
            refunded=self.wallets_moved,
        )
        self.requests = Requests(
            config,
            self.store,
            self.sessions,
            self.rooms,
            self.lobby,
            self.jackpots,
            self.metrics,
            self.pending,
            self.spawn,
            lambda: self.stopping,
            self.passwords,
            self.seating,
            barred=lambda player_id: self.admin.barred(player_id),
            signed_out=self.signed_out,
        )
        self.admin = AdminConsole(self)  # the operator console, and its part of every process
        self.gateway = Gateway(
            config.limits,
            self.sessions,
            self.metrics,
            self.requests.handle,
            self.requests.disconnected,
            self.spawn,
        )
        self.http = HttpRoutes(self, config.static_dir)
        self.started = time.time()
        self.server: Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._rooms_to_refresh: set[Room] = set()
        self._store_lost_shown = False  # what the suspended tables were last told

    # ----- lifecycle -----------------------------------------------------------

    async def start(self) -> None:
        await self.passwords.start()
        if self.fleet is not None:
            differ = await self.fleet.differing_settings()
            if differ:
                raise ConfigError(
                    "[wallet] and [jackpots] must be the same on every process of one Redis: "
                    + "; ".join(differ)
                    + f" (a process killed counts until {3 * self.fleet.ttl:.0f} s after its"
                    " last heartbeat)"
                )
        await self.jackpots.ensure(announce=False)
        if self.fleet is not None:
            await self.fleet.start()
        await self.admin.start()  # paused tables are known before anyone can ante
        # Bound before any lease is claimed, so a taken port fails with no table held;
        # accepting starts once the tables are claimed.
        self.server = await serve(
            self.gateway.handler,
            self.config.host,
            self.config.port,
            process_request=self.http.process_request,
            max_size=self.config.limits.max_frame_bytes,
            compression=None,
            max_queue=32,
            ping_interval=None,  # the outbox's keepalive pings (see `_sweep`)
            close_timeout=5,
            create_connection=self.outbox.connection_class(),
            start_serving=False,
        )
        if not self.config.public_url:  # the port bound, not the 0 asked for ("any")
            given = self.fleet.public_url if self.fleet is not None else ""
            self._default_public_url(given or f"ws://{self.config.host}:{self.port}/ws")
        await self.hosting.claim(list(self.rooms.values()))
        await self.server.start_serving()
        self.spawn(every(self.config.jackpot_push_interval, self._push, "throttled pushes"))
        self.spawn(every(SWEEP_INTERVAL, self._sweep, "connection sweep"))
        self.spawn(self._watch_loop())
        if self.fleet is not None:
            self.spawn(every(self.fleet.renewal, self.hosting.heartbeat, "lease renewal"))
            self.spawn(every(self.fleet.heartbeat, self.hosting.share, "lobby sharing"))
        hosted = [r.id for r in self.hosting.hosted()]
        loop = (
            "uvloop"
            if type(asyncio.get_running_loop()).__module__.startswith("uvloop")
            else "asyncio"
        )
        log.info(
            "serving on %s:%s (%s), tables %s",
            self.config.host,
            self.port,
            loop,
            ", ".join(hosted) or "none (standing by)",
            extra={"port": self.port, "tables": hosted, "event_loop": loop},
        )

    def _default_public_url(self, url: str) -> None:
        """The address the lobby and the welcome give for this process, when the config
        names none: the fleet's, else made of the host and the port bound."""
        self.config = replace(self.config, public_url=url)
        self.requests.config = self.config
        if self.fleet is not None:
            self.fleet.public_url = url

    def _origin_lost(self) -> None:
        """The fleet's heartbeat found the store's mark gone: both connections look again."""
        for store in (self.store, *([self.fleet.store] if self.fleet is not None else [])):
            if isinstance(store, RedisStore):
                store.check_origin_again()

    @property
    def store_data_lost(self) -> bool:
        """Whether Redis answers without the data this process served from (either of
        its connections found the namespace's origin mark gone)."""
        stores = [self.store, *([self.fleet.store] if self.fleet is not None else [])]
        return any(getattr(store, "data_lost", False) for store in stores)

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
        grace = self.config.shutdown_grace if grace is None else grace
        deadline = loop.time() + grace
        # a second past the grace, writes still in doubt give up (a stalled store): their
        # outcome is the store's, and the table's next host voids a round left open
        self.pending.give_up_at = time.monotonic() + grace + 1.0
        await asyncio.gather(*(room.drain(deadline) for room in self.hosting.hosted()))
        await self.hosting.release()
        if self.server is not None:
            connections = len(self.server.connections)
            self.server.close(close_connections=True, code=CloseCode.GOING_AWAY)
            await self.server.wait_closed()
            log.info("connections closed", extra={"connections": connections})
        await self.admin.stop()
        for task in list(self._tasks):
            task.cancel()
        self.passwords.close()
        await self.store.close()
        if self.fleet is not None and self.fleet.store is not self.store:
            await self.fleet.store.close()
        log.info("stopped")

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
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        """A spawned task's end; one that failed is logged (its exception was never read)."""
        self._tasks.discard(task)
        if not task.cancelled() and (e := task.exception()) is not None:
            log.error("a background task failed", exc_info=e)

    # ----- what rooms and routes read (RoomHost, Served) -----------------------

    @property
    def public_url(self) -> str:
        return self.config.public_url

    @property
    def store_patience(self) -> float:
        return self.config.store_patience

    def send_all(self, connections: Iterable[ServerConnection], data: bytes) -> int:
        return self.outbox.send_all(connections, data)

    def before_writing(self, send: Callable[[], None]) -> None:
        self.outbox.before_writing(send)

    def table_lost(self, room: Room) -> None:
        self.requests.table_lost(room.id)

    def url_of(self, process_id: str) -> str:
        return self.fleet.url_of(process_id) if self.fleet is not None and process_id else ""

    def seated(self, table_id: str, players: Set[str]) -> None:
        self.seating.update(table_id, players)

    @property
    def meters(self) -> Mapping[str, int]:
        return self.jackpots.meters

    def census(self) -> Census:
        return Census(
            tables=len(self.hosting.hosted()),  # not the ones it stands by for
            connections=len(self.sessions),
            players=self.sessions.players_connected(),
            suspended=sum(1 for r in self.rooms.values() if r.suspended is not None),
            pending_writes=len(self.pending.writes),
            oldest_pending=self.pending.oldest_seconds(),
        )

    def _shown_meter(
        self, name: str, amount: int
    ) -> tuple[set[ServerConnection], set[ServerConnection]]:
        """The viewers of tables on this meter whose last snapshot showed this amount;
        and those whose snapshot showed another but went out within the last push
        interval: it showed the meter as fresh as a push would, and a busy table's next
        snapshot shows it again (pushes to such viewers were 6 % of all socket writes
        at 300 busy tables). A table that goes quiet instead is pushed to next time."""
        fresh = asyncio.get_running_loop().time() - self.config.jackpot_push_interval
        told: set[ServerConnection] = set()
        lately: set[ServerConnection] = set()
        for room in self.rooms.values():
            if room.config.jackpot != name:
                continue
            shown, viewers = room.audience.shown, room.audience.viewers
            if shown.meter == amount:
                told.update(viewers)
            elif shown.at >= fresh:
                lately.update(viewers)
        return told, lately

    def _pushed_meter(self, name: str, amount: int, conns: set[ServerConnection]) -> None:
        """Viewers were pushed the meter's amount (`Audience.pushed_meter`)."""
        for room in self.rooms.values():
            if room.config.jackpot == name:
                room.audience.pushed_meter(amount, conns)

    def jackpot_seed(self, name: str) -> int:
        return self.config.jackpots[name].seed

    def meter(self, name: str) -> int:
        return self.jackpots.amount(name)

    def is_connected(self, player_id: str) -> bool:
        return self.sessions.is_connected(player_id)

    def stood_still_since(self) -> float | None:
        """When (loop time) the event loop last stood still (a SIGSTOP, a VM paused), if
        it ran again less than `AFTER_WAKING` seconds ago or is running again just now
        (its watch has not sampled since long); else None. A timer coming due then may
        be ahead of a bet or decision sent in time and still unread."""
        now = asyncio.get_running_loop().time()
        if now - self._sampled > LOOP_SAMPLE + WOKE_GAP:
            return self._sampled
        return self._stalled_at if now - self._woke <= AFTER_WAKING else None

    def push_wallet(self, player_id: str, wallet: Wallet) -> None:
        """Tell a player their wallet moved; one not connected here may be connected
        to another process of the fleet (a payout after they moved on, an operator's
        credit asked on another console), so the fleet hears of it."""
        if self.sessions.is_connected(player_id):
            self.sessions.push_wallet(player_id, wallet)
        elif self.fleet is not None:
            self.spawn(self._announce_wallet(self.fleet, player_id))

    def wallets_moved(self, player_ids: Sequence[str]) -> None:
        """Wallets moved by a write that told no one (a void after a takeover): read them
        and push them here, or tell the fleet of those not connected here."""
        for player_id in player_ids:
            if self.sessions.is_connected(player_id):
                self.spawn(self._push_stored_wallet(player_id))
            elif self.fleet is not None:
                self.spawn(self._announce_wallet(self.fleet, player_id))

    async def _announce_wallet(self, fleet: Fleet, player_id: str) -> None:
        try:
            await fleet.announce_wallet(player_id)
        except StoreError as e:
            log.warning("wallet news not sent: %s", e.cause)

    def _wallet_news(self, player_id: str) -> None:
        """Another process moved the wallet of a player who may be connected here."""
        if self.sessions.is_connected(player_id):
            self.spawn(self._push_stored_wallet(player_id))

    async def _push_stored_wallet(self, player_id: str) -> None:
        try:  # read after the news came: it holds the other process's write
            wallet = await self.store.wallet(player_id)
        except StoreError as e:
            log.warning("wallet not read for its news: %s", e.cause)
            return
        self.sessions.push_wallet(player_id, wallet)

    # ----- signed out elsewhere ------------------------------------------------------

    def signed_out(self, player_id: str) -> None:
        """Tokens of the player were revoked here (a logout, a password change): their
        other connections, here and on every process of the fleet, are checked, and a
        connection whose token is gone is closed (it could go on buying and betting)."""
        self.spawn(self._check_tokens([player_id]))
        if self.fleet is not None:
            self.spawn(self._announce_signed_out(self.fleet, player_id))

    async def _announce_signed_out(self, fleet: Fleet, player_id: str) -> None:
        for delay in SIGN_OUT_RETRIES:
            try:
                await fleet.announce_signed_out(player_id)
                return
            except StoreError as e:
                log.warning("sign-out news not sent (%s); again in %.0fs", e.cause, delay)
                await asyncio.sleep(delay)

    def _signed_out_news(self, player_id: str) -> None:
        if self.sessions.is_connected(player_id):
            self.spawn(self._check_tokens([player_id]))

    def news_lost(self) -> None:
        """The fleet's channel was down: what it carried meanwhile is lost, so what it
        would have said is read from the store instead: the operators' acts (a player's
        suspension) at once rather than at the next poll, sign-outs and wallets."""
        self.admin.agent.heard(None, None)
        self.check_accounts()
        self.push_all_wallets()

    def store_went_back(self) -> None:
        """A write was answered a count of writes it was answered before, or a table's
        write found its round unknown to the store: the data went back under a live
        connection (a backup loaded in place), which no reconnect's check saw. It is the
        data back, as when a reconnect finds it; the links count their writes anew (the
        counts they knew are ahead of the loaded data's)."""
        log.error("the store's data went back to older data under a live connection")
        for store in (self.store, self.fleet.store if self.fleet is not None else None):
            if isinstance(store, RedisStore):
                store.restart_age()
        self._data_back()

    def _data_back(self) -> None:
        """The store's data is back after it was found lost: restored from a backup, most
        likely, which holds the rounds in play here only in part or not at all. They start
        over (before any write waiting for the store runs), then are claimed afresh; and
        every connected player's wallet is sent (the restore may have changed it), once
        those the restored data does not hold are gone (theirs would read nothing)."""
        rooms = [room for room in self.rooms.values() if room.active and not room.starting_over]
        for room in rooms:
            room.start_over()
        if rooms:
            self.spawn(self._claim_afresh(rooms))
        players = sorted({s.player.player_id for s in self.sessions if s.player})
        if players:
            self.spawn(self._after_restore(players))

    async def _after_restore(self, player_ids: Sequence[str]) -> None:
        await self._retire_the_unknown(player_ids)
        await self._push_stored_wallets(player_ids)  # to those still connected

    async def _retire_the_unknown(self, player_ids: Sequence[str]) -> None:
        """Close the connections of players the restored data does not hold (made after
        the backup): their wallet is gone with them, and every bet of theirs would be
        refused for funds while they played on."""
        for player_id in player_ids:
            try:
                known = await self.store.player_known(player_id)
            except StoreError as e:
                log.warning("players not checked after the restore: %s", e.cause)
                return
            if known:
                continue
            log.info("player not in the restored data", extra={"player_id": player_id})
            for session in self.sessions.of(player_id):
                await self.sessions.retire(
                    session, CloseCode.POLICY_VIOLATION, UNKNOWN_AFTER_RESTORE
                )

    async def _claim_afresh(self, rooms: list[Room]) -> None:
        """Until every room starting over is claimed afresh (or lost to another process)."""
        while not self.stopping:
            waiting = [room for room in rooms if room.starting_over and room.active]
            if not waiting:
                return
            try:
                await self.hosting.claim(waiting, afresh=True)
            except StoreError as e:
                log.warning("tables not claimed afresh yet: %s", e.cause)
            await asyncio.sleep(CLAIM_AFRESH_RETRY)

    def push_all_wallets(self) -> None:
        """Read and send every connected player's wallet (news of it may be lost)."""
        players = sorted({s.player.player_id for s in self.sessions if s.player})
        if players:
            self.spawn(self._push_stored_wallets(players))

    async def _push_stored_wallets(self, player_ids: Sequence[str]) -> None:
        for player_id in player_ids:  # one by one: a whole server's players at once
            if self.sessions.is_connected(player_id):
                await self._push_stored_wallet(player_id)

    def check_accounts(self) -> None:
        """The fleet's channel was down: a sign-out may have gone unheard, so every
        player connected here is checked, guests too (a guest's token resumes it on
        every process, and its logout on one revokes it for all)."""
        players = {s.player.player_id for s in self.sessions if s.player}
        if players:
            self.spawn(self._check_tokens(sorted(players)))

    async def _check_tokens(self, player_ids: Sequence[str]) -> None:
        for player_id in player_ids:
            for session in self.sessions.of(player_id):
                player = session.player
                if player is None or player.player_id != player_id:
                    continue  # signed out or switched meanwhile
                if not await self._token_stands(player.token, player_id):
                    log.info("connection signed out", extra={"player_id": player_id})
                    await self.sessions.retire(session, CloseCode.POLICY_VIOLATION, SIGNED_OUT)

    async def _token_stands(self, token: str, player_id: str) -> bool:
        """Whether the token still resumes the player; True if the store cannot say, or
        lost the player with the token (a Redis restarted empty): lost is not revoked,
        and the connection is not told it was signed out."""
        for delay in SIGN_OUT_RETRIES:
            try:
                player = await self.store.player_by_token(token)
                if player is not None:
                    return player.player_id == player_id
                return not await self.store.player_known(player_id)
            except StoreError as e:
                log.warning("token not checked (%s); again in %.0fs", e.cause, delay)
                await asyncio.sleep(delay)
        return True

    def lobby_changed(self) -> None:
        self.lobby.changed()

    def refresh_later(self, room: Room) -> None:
        self._rooms_to_refresh.add(room)

    async def meter_moved(self, name: str, transfers: Sequence[Transfer]) -> None:
        await self.jackpots.moved(name, transfers)

    def set_meter(self, name: str, amount: int) -> None:
        self.jackpots.set(name, amount)

    def announce_jackpot(self, message: dict[str, Any]) -> None:
        self.jackpots.announce_win(message)

    # ----- background ----------------------------------------------------------

    async def _watch_loop(self) -> None:
        """Sample how late the event loop runs a timer (every request waits that long). A
        process that stood still (SIGSTOP, a VM paused, starved of CPU) says so: the
        store timeouts and lost tables logged just after are its own doing."""
        loop = asyncio.get_running_loop()
        self._sampled = loop.time()
        while True:  # the tables' timers lean on its samples: a bug must not end it
            due, before = loop.time() + LOOP_SAMPLE, self._sampled
            await asyncio.sleep(LOOP_SAMPLE)
            self._sampled = now = loop.time()
            lag = max(0.0, now - due)
            if lag >= WOKE_GAP:
                self._woke, self._stalled_at = now, before
                for room in self.hosting.hosted():  # the clocks stood still with it
                    try:
                        room.clock.stood_still(before)
                    except Exception:
                        log.exception("clock not given back", extra={"table": room.id})
            try:
                self.metrics.loop_lag.observe(lag)
            except Exception:
                log.exception("the loop's lag not recorded")
            if lag >= STOOD_STILL:
                log.warning(
                    "this process stood still for %.1f s (paused or starved of CPU): what "
                    "timed out meanwhile timed out here, not in Redis or the network",
                    lag,
                    extra={"seconds": round(lag, 3)},
                )

    async def _sweep(self) -> None:
        """Close connections that stopped reading (their buffer never drains) and those
        whose peer is gone (silent through a ping and its timeout); ping silent ones."""
        lost = self.store_data_lost
        if lost != self._store_lost_shown:  # the tables say so (or stop saying it)
            for room in self.hosting.hosted():
                room.store_lost(lost)
            self._store_lost_shown = lost  # once every table was told
        self.outbox.sweep(PING_TIMEOUT)
        self.outbox.keepalive(self.outbox.next_share(), PING_INTERVAL, PING_TIMEOUT)

    async def _push(self) -> None:
        """Throttled pushes: meters, spectator counts and the lobby, at most every interval."""
        await self.jackpots.flush()
        self.refresh_rooms()
        self.lobby.flush()

    def refresh_rooms(self) -> None:
        """Send the tables whose spectator count changed their snapshot again."""
        rooms, self._rooms_to_refresh = self._rooms_to_refresh, set()
        for room in rooms:
            if not room.turns.busy():
                room.audience.count_changed()
                room.publish()
            else:
                self._rooms_to_refresh.add(room)  # a command will publish; retry later


#: Seconds between the tries of a sign-out's news and token checks (a store that stays
#: down past them leaves the connection open: its next resume is refused all the same).
SIGN_OUT_RETRIES = (1.0, 2.0, 4.0, 8.0, 15.0)

#: WebSocket keepalive: a connection silent for the interval is pinged; one silent for
#: the interval and the timeout is closed.
PING_INTERVAL = 20.0
PING_TIMEOUT = 20.0
#: Seconds between looks for connections whose buffer never drains.
SWEEP_INTERVAL = 1.0
#: Seconds between tries to claim afresh the tables that start over after a restore.
CLAIM_AFRESH_RETRY = 1.0

#: Seconds between samples of the event loop's lag.
LOOP_SAMPLE = 0.05
#: A timer this late (seconds) means the process itself stood still.
STOOD_STILL = 2.0
#: A sample this late (seconds) means the loop stood still: what was sent meanwhile is
#: unread in the sockets, and a table's timer coming due within `AFTER_WAKING` seconds
#: of its end does not act before it is read (`stood_still_since`).
WOKE_GAP = 1.0
AFTER_WAKING = 1.0

#: Allocations between young-generation collections, and the older generations' ratios.
GC_THRESHOLD = (200_000, 50, 100)


def tune_gc() -> None:
    """Collect less often: a table server allocates many small containers per frame
    (decoded requests, snapshot dicts) that reference counting frees at once, so
    CPython's default (a young collection every 700 allocations, and full ones that
    walk every connection's objects) spends time finding little. Objects made at
    start (config, tables, modules) are frozen out of the collector's walks. A young
    collection still reads the header of every object the young ones point to, about
    1 µs per young object at 10,000 connections; the hot path makes no reference
    cycles (tests/test_store_redis.py), so it finds nothing, and runs at 200,000: a
    quarter as often as at 50,000, about half the collector's time in all. Measured
    with `stud-client load` (BENCHMARKS.md).
    For the process that serves (`stud-server serve`), not for tests embedding one."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)
