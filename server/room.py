"""A live table: the round engine driven in real time, with everyone watching.

One `Room` per table. Every command and every timer runs under the room's lock,
so the engine's check, the wallet's atomic debit and the engine's change happen
as one step; a refused command changes nothing. After each change the room
encodes one public snapshot and hands the same bytes to every viewer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any, Protocol, TypeVar

from websockets.asyncio.server import ServerConnection

from protocol.codec import encode
from server.fair import FairShuffler
from server.game.cards import Card
from server.game.ledger import Transfer
from server.game.table import (
    Decision,
    Effects,
    Phase,
    Refusal,
    Settlement,
    Table,
    TableConfig,
)
from server.metrics import Metrics
from server.outbox import send_all
from server.stores.base import Store, StoreError, Wallet

log = logging.getLogger("stud.room")
T = TypeVar("T")
#: Snapshot sends a busy table may put off in a row for the commands queued behind.
MAX_DEFERRED = 8


class RoomHost(Protocol):
    """What a room needs from the process hosting it (implemented by `StudServer`)."""

    @property
    def store(self) -> Store: ...
    @property
    def metrics(self) -> Metrics: ...
    @property
    def public_url(self) -> str: ...
    def jackpot_seed(self, name: str) -> int: ...
    def meter(self, name: str) -> int: ...
    def is_connected(self, player_id: str) -> bool: ...
    def push_wallet(self, player_id: str, wallet: Wallet) -> None: ...
    def lobby_changed(self) -> None: ...
    def refresh_later(self, room: Room) -> None:
        """Re-send the room's snapshot at the next throttled push (spectator count)."""

    async def meter_moved(self, name: str, transfers: Sequence[Transfer]) -> None: ...
    def set_meter(self, name: str, amount: int) -> None: ...
    def announce_jackpot(self, message: dict[str, Any]) -> None: ...
    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None: ...


class Room:
    def __init__(
        self, host: RoomHost, config: TableConfig, shuffle: Callable[[], list[Card]] | None
    ) -> None:
        self.host = host
        self.config = config
        # Tests stack decks through `shuffle`; a live table always deals provably fair.
        if shuffle is not None:
            self.table = Table(config, shuffle=shuffle)
        else:
            self.table = Table(config, shuffler=FairShuffler())
        self.viewers: dict[ServerConnection, str | None] = {}  # connection -> player id
        self.lock = asyncio.Lock()
        self.closing = False
        self.active = True  # hosted here (a fleet process may stand by for it)
        self.recovered = False
        self._timer: asyncio.TimerHandle | None = None
        self._sent_seq = -1
        self._flush: asyncio.Handle | None = None  # a snapshot send scheduled this turn
        self._started: list[float] = []  # arrival times of the requests it answers
        self._queued = 0  # commands waiting for the lock
        self._deferred = 0
        self._idle = asyncio.Event()
        self._idle.set()

    @property
    def store(self) -> Store:
        return self.host.store

    @property
    def id(self) -> str:
        return self.config.table_id

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    # ----- viewers -------------------------------------------------------------

    def snapshot(self) -> bytes:
        view = self.table.view(self.now())
        view["t"] = "table"
        view["spectators"] = self.spectator_count()
        view["title"] = self.config.title or self.id
        jp = self.config.jackpot
        view["jackpot"] = {"name": jp, "amount": self.host.meter(jp)}
        return encode(view)

    def spectator_count(self) -> int:
        seated = self.table.players()
        return sum(1 for pid in self.viewers.values() if pid not in seated)

    def add_viewer(self, ws: ServerConnection, player_id: str) -> bytes:
        self.viewers[ws] = player_id
        self.watchers_changed()
        return self.snapshot()

    def remove_viewer(self, ws: ServerConnection) -> None:
        if self.viewers.pop(ws, None) is not None:
            self.watchers_changed()

    def watchers_changed(self) -> None:
        """The spectator count changed: the next throttled push re-sends the snapshot,
        so a crowd arriving costs one broadcast per interval, not one per arrival."""
        self.host.lobby_changed()
        self.host.refresh_later(self)

    def publish(self, started: float | None = None) -> None:
        """Send the snapshot to every viewer if the table changed since the last one.

        The send is deferred to the end of the event loop's turn (`call_soon`), and
        skipped while more commands for this table are queued on its lock (they publish
        when they finish, at most `MAX_DEFERRED` times in a row): changes made together
        (several players' frames read at once, a command and what it sets off) go out
        as one snapshot, encoded once, with the latest `seq` (PROTOCOL.md allows gaps).
        """
        if started is not None:
            self._started.append(started)
        if self._flush is None:
            self._flush = asyncio.get_running_loop().call_soon(self._send_snapshot)

    def _send_snapshot(self) -> None:
        self._flush = None
        if self._queued and self._deferred < MAX_DEFERRED:
            self._deferred += 1  # the queued command's publish sends this change too
            return
        self._deferred = 0
        started, self._started = self._started, []
        if self.table.seq == self._sent_seq:
            return
        t0 = time.perf_counter()
        self._sent_seq = self.table.seq
        data = self.snapshot()
        m = self.host.metrics
        m.broadcasts += 1
        m.frames_out += send_all(self.viewers, data)
        t1 = time.perf_counter()
        m.broadcast_lag.observe(t1 - t0)
        for t in started:
            m.action_latency.observe(t1 - t)
        self.host.lobby_changed()

    # ----- commands ------------------------------------------------------------

    async def run(self, action: Callable[[], Awaitable[T]], started: float | None = None) -> T:
        self._queued += 1
        try:
            await self.lock.acquire()
        except BaseException:
            self.publish()  # a send put off for this command must not wait for another
            raise
        finally:
            self._queued -= 1
        try:
            return await action()
        finally:
            self._reschedule()
            self.publish(started)
            self.lock.release()

    async def sit(self, player_id: str, name: str, seat: int | None) -> int:
        async def act() -> int:
            if self.closing:
                raise Refusal("shutting_down", "this server is shutting down: no new seats")
            index = self.table.sit(player_id, name, seat)
            self.table.set_connected(player_id, self.host.is_connected(player_id))
            return index

        return await self.run(act)

    async def stand(self, player_id: str, seat: int) -> None:
        async def act() -> None:
            await self._carry_out(self.table.stand(self.now(), player_id, seat))

        await self.run(act)

    async def ante(
        self, player_id: str, seat: int, amount: int, progressive: bool, started: float
    ) -> Wallet:
        async def act() -> Wallet:
            if self.closing:
                raise Refusal("shutting_down", "this server is shutting down: no new bets")
            effects = self.table.ante_effects(player_id, seat, amount, progressive)
            wallet = await self.store.bet(self.id, effects.transfers, effects.holds)
            self.table.place_ante(self.now(), player_id, seat, amount, progressive)
            self.host.push_wallet(player_id, wallet)
            if progressive:
                await self.host.meter_moved(self.config.jackpot, effects.transfers)
            return wallet

        return await self.run(act, started)

    async def withdraw(self, player_id: str, seat: int) -> None:
        async def act() -> None:
            refund = self.table.withdraw_effects(player_id, seat)
            await self._apply(refund)  # the refund first: if it fails, nothing changed
            rid = self.table.round_id
            self.table.withdraw(player_id, seat)
            await self._close_if_emptied(rid)
            await self.host.meter_moved(self.config.jackpot, refund.transfers)

        await self.run(act)

    async def deal(self, player_id: str, started: float) -> None:
        async def act() -> None:
            await self._carry_out(self.table.deal_me_in(self.now(), player_id))

        await self.run(act, started)

    async def decide(self, player_id: str, seat: int, decision: Decision, started: float) -> None:
        async def act() -> None:
            # The raise is debited first: if the store fails, the hand is still undecided.
            await self._apply(self.table.decision_effects(player_id, seat, decision))
            effects = self.table.decide(self.now(), player_id, seat, decision)
            await self._settle(effects)

        await self.run(act, started)

    async def remove_player(self, player_id: str, *, by_request: bool = True) -> None:
        """The player leaves: antes back while betting, undecided hands fold."""

        async def act() -> None:
            rid = self.table.round_id
            now = self.now()
            effects = self.table.remove_player(now, player_id, by_request=by_request)
            # Refunds that did not reach the store leave the round open in the journal,
            # so recovery gives them back; closing it here would lose them.
            if await self._carry_out(effects):
                await self._close_if_emptied(rid)
            # a settlement reports the meter as the store has it, refunds included
            moved = () if effects.settlement is not None else effects.transfers
            await self.host.meter_moved(self.config.jackpot, moved)

        await self.run(act)

    async def set_client_seed(self, player_id: str, seed: str) -> None:
        async def act() -> None:
            self.table.set_client_seed(player_id, seed)

        await self.run(act)

    async def set_connected(self, player_id: str, connected: bool) -> None:
        async def act() -> None:
            self.table.set_connected(player_id, connected)

        await self.run(act)

    # ----- effects -------------------------------------------------------------

    async def _carry_out(self, effects: Effects) -> bool:
        """Apply what the engine already did: transfers and holds, then the settlement.

        Used where the engine moves first (timers, departures); a store failure
        here is logged, and the round's settlement or the crash recovery puts
        the books right (settling releases any hold the round still has).
        Returns False when the transfers could not be applied.
        """
        applied = True
        try:
            await self._apply(effects)
        except StoreError as e:
            applied = False
            log.error(
                "could not apply %d transfers: %s",
                len(effects.transfers),
                e.message,
                extra={"round_id": self.table.round_id, "table": self.id},
            )
        await self._settle(effects)
        return applied

    async def _apply(self, effects: Effects) -> None:
        if effects.transfers or effects.holds:
            wallets = await self.store.apply(effects.transfers, effects.holds)
            for pid, wallet in wallets.items():
                self.host.push_wallet(pid, wallet)

    async def _close_if_emptied(self, round_id: str | None) -> None:
        """A round whose every ante was taken back holds no money: close it in the journal."""
        if round_id is not None and self.table.round_id is None:
            await self.store.void(round_id, [], [])

    async def _settle(self, effects: Effects) -> None:
        """Pay the round; settling is idempotent, so a store failure is retried until it lands."""
        s = effects.settlement
        if s is None:
            return
        record = s.record
        try:
            await self._pay(s, record)
        except StoreError as e:
            log.error("settlement failed (%s); retrying", e.message, extra={"round_id": s.round_id})
            self.host.spawn(self._settle_later(s, record))

    async def _settle_later(self, s: Settlement, record: dict[str, Any]) -> None:
        delay = 0.2
        while True:
            await asyncio.sleep(delay)
            try:
                async with self.lock:
                    await self._pay(s, record)
                    self.publish()
            except StoreError:
                delay = min(delay * 2, 5.0)
                continue
            log.warning("round settled after a retry", extra={"round_id": s.round_id})
            return

    async def _pay(self, s: Settlement, record: dict[str, Any]) -> None:
        jp = self.config.jackpot
        seed = self.host.jackpot_seed(jp)
        settled = await self.store.settle(s.round_id, s.transfers, s.claims, jp, seed, record)
        for paid in settled.paid:
            self.table.record_jackpot(paid.seat, paid.amount)
            seat = self.table.seats[paid.seat]
            self.host.announce_jackpot(
                {
                    "t": "jackpot_won",
                    "table": self.id,
                    "round_id": s.round_id,
                    "seat": paid.seat,
                    "player_id": paid.player_id,
                    "name": seat.name if seat else "",
                    "category": next(c.category for c in s.claims if c.seat == paid.seat),
                    "amount": paid.amount,
                }
            )
        for pid, wallet in settled.wallets.items():
            self.host.push_wallet(pid, wallet)
        for name, amount in settled.meters.items():
            self.host.set_meter(name, amount)
        self.host.metrics.rounds += 1
        self.host.metrics.hands += len(s.record["seats"])
        log.info(
            "round settled",
            extra={"round_id": s.round_id, "table": self.id, "hands": len(s.record["seats"])},
        )

    # ----- timers --------------------------------------------------------------

    def _reschedule(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        deadline = self.table.deadline
        if deadline is not None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_at(deadline, self._fire)
        if self.table.phase is Phase.WAITING:
            self._idle.set()
        else:
            self._idle.clear()

    def _fire(self) -> None:
        self._timer = None
        self.host.spawn(self._on_timer())

    async def _on_timer(self) -> None:
        async def act() -> None:
            await self._carry_out(self.table.tick(self.now()))

        try:
            await self.run(act)
        except Exception:
            log.exception("timer failed", extra={"table": self.id})

    # ----- shutdown ------------------------------------------------------------

    async def drain(self, deadline: float) -> None:
        """No new rounds; let the running one finish until `deadline`, then void it."""
        self.closing = True
        remaining = deadline - self.now()
        if remaining > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._idle.wait(), remaining)

        async def act() -> None:
            if self.table.phase in (Phase.BETTING, Phase.DECIDING):
                rid = self.table.round_id
                effects = self.table.void_round()
                assert rid is not None
                await self.store.void(rid, effects.transfers, effects.holds)
                for pid in {t.target.removeprefix("player:") for t in effects.transfers}:
                    self.host.push_wallet(pid, await self.store.wallet(pid))
                log.warning("round voided at shutdown", extra={"round_id": rid, "table": self.id})

        await self.run(act)

    def describe(self) -> dict[str, Any]:
        """This table's lobby row."""
        t = self.table
        return {
            "id": self.id,
            "title": self.config.title or self.id,
            "variant": self.config.variant.to_public(),
            "seats": self.config.seats,
            "taken": sum(1 for s in t.seats if s is not None),
            "min_ante": self.config.min_ante,
            "max_ante": self.config.max_ante,
            "progressive_stake": self.config.stake,
            "max_seats_per_player": self.config.max_seats_per_player,
            "spectators": self.spectator_count(),
            "phase": str(t.phase),
            "jackpot": self.config.jackpot,
            "url": self.host.public_url,
        }
