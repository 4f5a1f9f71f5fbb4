"""A live table: the round engine driven in real time, with everyone watching.

One `Room` per table. Every command and every timer runs in a turn at the table
(server/turns.py: writes for different seats share one, the rest run alone), so
the engine's check, the store's atomic write and the engine's change happen as
one step; a refused command changes nothing. After each change its audience
(server/audience.py) sends one public snapshot, the same bytes to every viewer.

Money first. A player's command is applied in the store before the engine
moves, under an operation id, so a repeat applies nothing twice; what the
engine does on its own (timers, departures) is owed to the store and repeated
until it lands. While a write is in doubt, or the store or the table's lease
is away, the table is *suspended*: its clock stops, nothing folds or times out,
new commands are refused with `table_suspended` (nothing applied), departures
wait; the round goes on where it was once the store answers (the writes
themselves: server/table_writes.py). Every write carries the table's fence
(the epoch of this process's lease): refused once another process holds the
table, which this room then gives up at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence, Set
from dataclasses import replace
from typing import Any, Protocol, TypeVar

from websockets.asyncio.server import ServerConnection

from protocol.codec import encode
from server.audience import Audience, AudienceHost
from server.clock import RESUME_MINIMUM, TableClock
from server.durable import GaveUp, Pending
from server.fair import FairShuffler
from server.game.cards import Card
from server.game.ledger import Reason, Transfer
from server.game.table import Decision, Effects, Phase, Refusal, Settlement, Table, TableConfig
from server.lobby import fixed_row
from server.standing import REASONS, Lease, Suspension, jackpot_won, shutdown_notice
from server.stores.base import (
    Fence,
    NotOwner,
    RoundUnknown,
    Store,
    StoreError,
    Wallet,
)
from server.table_writes import TableWrites
from server.turns import Turns

log = logging.getLogger("stud.room")
T = TypeVar("T")
#: Seconds a decision waits for a lapsed lease's renewal before it is refused.
LEASE_WAIT = 2.0


class RoomHost(AudienceHost, Protocol):
    """What a room needs from the process hosting it (implemented by `StudServer`)."""

    @property
    def store(self) -> Store: ...
    @property
    def pending(self) -> Pending: ...
    @property
    def public_url(self) -> str: ...
    @property
    def process_id(self) -> str: ...
    @property
    def stopping(self) -> bool: ...
    @property
    def store_data_lost(self) -> bool: ...
    @property
    def store_patience(self) -> float: ...
    # store_patience: seconds a player's write may stay in doubt; stood_still_since: when
    # the process stood still, if it ran again a moment ago; refresh_later: the room's
    # snapshot again at the next push; table_lost: not hosted here, its viewers go;
    # url_of: another process's address or ""; seated: server/seating.py
    def jackpot_seed(self, name: str) -> int: ...
    def is_connected(self, player_id: str) -> bool: ...
    def stood_still_since(self) -> float | None: ...
    def push_wallet(self, player_id: str, wallet: Wallet) -> None: ...
    def refresh_later(self, room: Room) -> None: ...
    def table_lost(self, room: Room) -> None: ...
    def store_went_back(self) -> None: ...  # a write found the store's data older
    def url_of(self, process_id: str) -> str: ...
    def seated(self, table_id: str, players: Set[str]) -> None: ...
    async def meter_moved(self, name: str, transfers: Sequence[Transfer]) -> None: ...
    def set_meter(self, name: str, amount: int) -> None: ...
    def announce_jackpot(self, message: dict[str, Any]) -> None: ...
    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None: ...


PAUSED = "the casino has paused this table: the round in play finishes, no new one starts"
ROUND_VOIDED = (
    "the round was voided before this was confirmed: the game's data was restored from a"
    " backup meanwhile, and what it holds of the round is refunded; your wallet is as it"
    " holds it"
)


class Room:
    def __init__(
        self, host: RoomHost, config: TableConfig, shuffle: Callable[[], list[Card]] | None
    ) -> None:
        self.host = host
        self.config = config
        self._shuffle = shuffle
        self.lobby_fixed = fixed_row(config)  # the lobby row's part that never changes
        self.table = self._new_table()
        self.audience = Audience(host, self, config)
        self.turns = Turns()
        self._reserved: set[int] = set()  # seats with a shared turn's write out
        self.writes = TableWrites(
            config.table_id,
            host,
            now=self.now,
            in_doubt=lambda since: self._suspend("store", since),
            answered=self._resume,
            lost=self._fenced_off,
            went_back=self._store_went_back,
        )
        self.closing: int | None = None  # shutting down since (Unix ms): no new rounds
        self._closing_grace = 0  # seconds the running round was given then
        self.lease: Lease | None = None  # None: not hosted here (standing by, or lost)
        self.moved_to = ""  # where the table went when it was lost ("" not known)
        self.suspended: Suspension | None = None
        self.paused: dict[str, Any] | None = None  # an operator's pause: {reason, since_ms}
        self.starting_over = False  # the store's data came back restored: `start_over`
        self._resumed = asyncio.Event()
        self._resumed.set()
        self._probe: asyncio.Task[None] | None = None
        self._lease_timer: asyncio.TimerHandle | None = None
        self.clock = TableClock(
            lambda: self.table,
            running=lambda: self.lease is not None and self.suspended is None,
            stood_still_since=host.stood_still_since,
            due=lambda: self.host.spawn(self._on_timer()),
            changed=self.publish,
            late=lambda: self._log("timer late: the process stood still", logging.WARNING),
        )
        self._logged_deal: str | None = None
        self.queued = 0  # commands waiting for their turn
        self._idle = asyncio.Event()
        self._idle.set()

    def _new_table(self, first_seq: int = 0) -> Table:
        # Tests stack decks through `shuffle`; a live table always deals provably fair.
        if self._shuffle is not None:
            return Table(self.config, shuffle=self._shuffle, first_seq=first_seq)
        return Table(self.config, shuffler=FairShuffler(), first_seq=first_seq)

    @property
    def store(self) -> Store:
        return self.host.store

    @property
    def id(self) -> str:
        return self.config.table_id

    @property
    def active(self) -> bool:
        """Hosted here (a fleet process may stand by for it)."""
        return self.lease is not None

    @property
    def fence(self) -> Fence:
        assert self.lease is not None
        return Fence(self.id, self.lease.epoch)

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    def _log(self, message: str, level: int = logging.INFO, **extra: Any) -> None:
        epoch = self.lease.epoch if self.lease else None
        extra = {"table": self.id, "epoch": epoch, "process_id": self.host.process_id, **extra}
        log.log(level, message, extra=extra)

    # ----- hosting -------------------------------------------------------------

    def hosted(self, lease: Lease, *, fresh: bool) -> None:
        """This process holds the table under `lease`; `fresh`: a new epoch, so whatever
        round an older one had is void (the store's recovery refunded it)."""
        if self.starting_over and not fresh:
            self.lease = lease  # renewed; the round goes on only under the fresh claim
            return
        if fresh and self.lease is not None and not self.starting_over:
            self.lose()  # the epoch moved under us: whatever this room had is void
        if fresh or self.lease is None:
            # starting over under the same epoch: its viewers stayed, and a `seq` never
            # goes back for them
            first = lease.first_seq
            if self.starting_over:
                first = max(first, self.table.seq + 1)
            self._reset(first)
            if self.starting_over:
                self.starting_over = False
                self.table.touch()
                self.publish()  # its viewers stayed: they see the table start over
        self.lease = lease
        self.moved_to = ""
        # a renewal only moves the end later: the timer set for an earlier end re-arms
        # itself when it fires, one timer a lease's life rather than one a renewal
        if self._lease_timer is None or self._lease_timer.when() > lease.valid_until:
            self._arm_lease_timer()
        if self.suspended is not None and self.suspended.reason in ("lease", "store_lost"):
            self.host.spawn(self._resume_locked())

    def _arm_lease_timer(self) -> None:
        if self._lease_timer is not None:
            self._lease_timer.cancel()
        assert self.lease is not None
        self._lease_timer = asyncio.get_running_loop().call_at(
            self.lease.valid_until, self._lease_lapsed
        )

    def _lease_lapsed(self) -> None:
        """The lease was not renewed in time: the table stops until it is (or is lost).
        Renewed since the timer was set: wait for the new end."""
        self._lease_timer = None
        if self.lease is None:
            return
        if self._lease_valid():
            self._arm_lease_timer()
        else:
            self._suspend("lease", self.now())

    def lose(self, holder: str = "") -> None:
        """Another process (`holder`, "" not known) hosts the table now: stop at once and
        tell the viewers where it went."""
        if self.lease is None:
            return
        self._log("table lost", logging.WARNING, owner=holder)
        self.lease = None
        if self._lease_timer is not None:
            self._lease_timer.cancel()
            self._lease_timer = None
        self.clock.cancel()
        self.moved_to = self.host.url_of(holder)
        data = encode({"t": "table_moved", "table": self.id, "url": self.moved_to})
        self.audience.dismiss(data)
        self.host.table_lost(self)
        self._reset()
        self.host.lobby_changed()

    def start_over(self) -> None:
        """The store's data came back (a backup restored) while this room was playing:
        its round is not the store's any more (it began after the backup, or the backup
        holds only part of it). Every write out gives up, the table waits, and the claim
        made afresh (`Hosting.claim(afresh=True)`) voids what the restored journal holds of
        the round and gives the room a new engine: no bet of the lost round moves money
        on data that never took it."""
        if self.lease is None:
            return
        self.starting_over = True
        self.writes.give_up_all()
        # the engine's round, or the one still shown (its last write in doubt, the engine
        # may have moved on already: a leave that emptied it)
        given_up = self.table.round_id or (self.audience.shown.view or {}).get("round_id")
        self._log(
            "round given up: the store's data was restored", logging.WARNING, round_id=given_up
        )
        # the seats go with the fresh claim's new engine: say why before they vanish
        restarted = {"t": "table_restarted", "table": self.id, "round_id": given_up}
        self.audience.tell(encode({**restarted, "reason": "restored"}))
        self._suspend("lease", self.now())  # unless suspended already (the data was lost)

    def _store_went_back(self) -> None:
        """A write of the table's found its round unknown: the data went back, unless
        this table is starting over for it already (a write sent before it was found,
        answered since)."""
        if not self.starting_over:
            self.host.store_went_back()

    def _fenced_off(self, holder: str) -> None:
        """A write was refused for its epoch: another process holds the table, unless
        this one claimed it again meanwhile (the refused write had the old epoch)."""
        if holder and holder == self.host.process_id and self.lease is not None:
            return
        self.lose(holder)

    def _reset(self, first_seq: int = 0) -> None:
        """A fresh engine: no seats, no round (the store voided what the old one had)."""
        self.clock.cancel()
        self.table = self._new_table(first_seq)
        self.host.seated(self.id, self.table.players())
        self.suspended = None
        self._resumed.set()
        self.audience.shown.reset()
        self._idle.set()

    def _lease_valid(self) -> bool:
        return self.lease is not None and self.now() < self.lease.valid_until

    def _guard(self, *, new_bets: bool = False) -> None:
        """Refuse a command the table cannot take now; nothing has changed yet."""
        if self.lease is None:
            raise Refusal("table_moved", f"table {self.id} is no longer hosted by this server")
        if not self._lease_valid():
            self._suspend("lease", self.now())
        if self.suspended is not None:
            raise Refusal(
                "table_suspended", REASONS[self.suspended.reason], reason=self.suspended.reason
            )
        if new_bets and self.closing is not None:
            raise Refusal("shutting_down", "this server is shutting down: no new bets or seats")

    # ----- suspension ----------------------------------------------------------

    def _suspend(self, reason: str, since: float) -> None:
        """Stop the table's clock as of `since` and show every viewer why."""
        if self.suspended is not None or self.lease is None:
            return
        reason = "store_lost" if self.host.store_data_lost else reason
        self.suspended = Suspension(reason, since, int(time.time() * 1000))
        self._resumed.clear()
        stalled = self.host.stood_still_since()  # the clock stood still with the process
        gave_back = stalled is not None and self.clock.take_stall(stalled)
        frozen_at = min(since, stalled) if stalled is not None and gave_back else since
        self.table.freeze(frozen_at)
        self.table.touch()  # a new snapshot: everyone sees the pause
        self.clock.cancel()
        self._log("table suspended", logging.WARNING, reason=reason)
        self.host.metrics.suspensions += 1
        self.publish()
        if reason == "store":
            self._start_probe()

    def store_lost(self, lost: bool) -> None:
        """The store lost its data (or has it back): a suspended table says so, rather
        than that the store merely does not answer; it resumes once its lease is renewed."""
        if self.suspended is None or (self.suspended.reason == "store_lost") == lost:
            return
        self.suspended = replace(self.suspended, reason="store_lost" if lost else "lease")
        self.table.touch()
        self.publish()

    def _resume(self) -> None:
        """The store answers (the lock is held): the clock runs again, where it stopped."""
        if self.suspended is None or self.starting_over:
            return
        if not self._lease_valid():  # the store answers, but the lease must be renewed first
            if self.suspended.reason != "lease" and self.lease is not None:
                self.suspended = replace(self.suspended, reason="lease")
                self.table.touch()
                self.publish()
            return
        self._log("table resumed", reason=self.suspended.reason)
        self.suspended = None
        self.table.thaw(self.now(), RESUME_MINIMUM)
        self.table.touch()
        self._resumed.set()
        self._reschedule()
        self.publish()

    async def _resume_locked(self) -> None:
        if self.suspended is not None and self.suspended.reason != "store":
            # the lease came back on the fleet's connection, which says nothing of the
            # store's: ask it first (back on older data, its reconnect finds so, and the
            # table starts over instead); not answering, the next renewal asks again
            try:
                await self.store.ping()
            except StoreError:
                return
        async with self.turns.turn(exclusive=True):
            self._resume()

    def _start_probe(self) -> None:
        if self._probe is None or self._probe.done():
            self._probe = asyncio.get_running_loop().create_task(self._probe_store())

    async def _probe_store(self) -> None:
        """Ask the store until it takes writes, then resume (unless a write in doubt holds
        the lock: it resumes the table itself once its outcome is known)."""
        delay = 0.1
        while self.suspended is not None and self.suspended.reason == "store":
            try:
                await self.store.probe_writes()
            except StoreError:
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)
                continue
            await self._resume_locked()
            return

    # ----- viewers (server/audience.py) ------------------------------------------

    def shown_paused(self) -> dict[str, Any] | None:
        """The snapshot's `paused`: a shutdown under way, else the operator's pause (both
        start no new round). The shutdown is the bigger news, an operator's pause or not:
        the table is going, and a round not over within its grace is voided."""
        if self.closing is not None:
            return shutdown_notice(self.closing, self._closing_grace, int(time.time() * 1000))
        return self.paused

    @property
    def settling(self) -> bool:
        return self.writes.duties_out > 0

    def refresh_later(self) -> None:
        self.host.refresh_later(self)

    def add_viewer(self, ws: ServerConnection, player_id: str) -> list[bytes]:
        return self.audience.add(ws, player_id)

    def remove_viewer(self, ws: ServerConnection) -> None:
        player_id = self.audience.remove(ws)
        if player_id is not None:
            self._forget_seed_if_gone(player_id)

    def _forget_seed_if_gone(self, player_id: str) -> None:
        """A client seed is kept while its player sits or watches here (looked for among
        the viewers only when there is one to forget: most players set none)."""
        if (
            player_id in self.table.client_seeds
            and player_id not in self.table.players()
            and not self.audience.watching(player_id)
        ):
            self.table.forget_client_seed(player_id)

    def publish(self, started: float | None = None) -> None:
        self.audience.publish(started)

    # ----- commands ------------------------------------------------------------

    async def run(
        self,
        action: Callable[[], Awaitable[T]],
        started: float | None = None,
        *,
        seat: int | None = None,
        busy: Refusal | None = None,
    ) -> T:
        """Run `action` in a turn at the table (server/turns.py): exclusive, or shared
        when it writes for one `seat` alone (reserved for it while the write is out:
        another write for it meanwhile is refused with `busy`)."""
        self.queued += 1
        began = False
        try:
            async with self.turns.turn(exclusive=seat is None):
                self.queued -= 1
                began = True
                generation = self.writes.generation  # its writes begin now
                try:
                    return await self._action(action, seat, busy)
                except GaveUp as e:
                    if self.writes.generation == generation:
                        raise  # the server is stopping: no answer is true but none
                    raise Refusal("round_voided", ROUND_VOIDED) from e
                finally:
                    self._note_deal()
                    self.host.seated(self.id, self.table.players())
                    self._reschedule()
                    self.publish(started)
        finally:
            if not began:  # cancelled while waiting for its turn
                self.queued -= 1
                self.publish()  # a send put off for this command must not wait for another

    async def _action(
        self, action: Callable[[], Awaitable[T]], seat: int | None, busy: Refusal | None
    ) -> T:
        if seat is None:
            return await action()
        if seat in self._reserved:
            raise busy or Refusal("wrong_phase", f"seat {seat} is being written")
        self._reserved.add(seat)
        try:
            return await action()
        finally:
            self._reserved.discard(seat)

    def _note_deal(self) -> None:
        """Log each deal once, with its epoch (the fencing record of who dealt when)."""
        rid = self.table.round_id
        if self.table.phase in (Phase.DECIDING, Phase.SHOWDOWN) and rid != self._logged_deal:
            self._logged_deal = rid
            self._log("round dealt", round_id=rid)

    def _still_playing(self, engine: Table) -> bool:
        """Whether the table is still hosted here with the engine a write was made for:
        lost meanwhile, or lost and claimed again (a fresh engine), the write's round is
        the store's recovery's to void, not this engine's to go on with."""
        return self.lease is not None and self.table is engine

    async def _await_lease(self) -> None:
        """A lease that lapsed while the process stood still is renewed as soon as it runs
        again: a bet, a Deal or a decision sent meanwhile waits for that a moment, not
        refused at once."""
        if self.lease is None or (self.suspended is None and self._lease_valid()):
            return
        self._suspend("lease", self.now())  # unless suspended already
        if self.suspended is not None and self.suspended.reason == "lease":
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._resumed.wait(), LEASE_WAIT)

    def _refuse_early(self) -> None:
        """Refuse before queueing on the lock while the table is suspended."""
        if self.lease is not None and self.suspended is not None:
            self._guard()

    async def sit(self, player_id: str, name: str, seat: int | None) -> int:
        self._refuse_early()

        async def act() -> int:
            self._guard(new_bets=True)
            index = self.table.sit(player_id, name, seat)
            self.table.set_connected(self.now(), player_id, self.host.is_connected(player_id))
            return index

        return await self.run(act)

    async def stand(self, player_id: str, seat: int) -> None:
        self._refuse_early()

        async def act() -> None:
            self._guard()
            await self._carry_out(self.table.stand(self.now(), player_id, seat))

        await self.run(act)

    async def ante(
        self,
        player_id: str,
        seat: int,
        amount: int,
        progressive: bool,
        started: float,
        seen: int | None = None,
    ) -> str:
        """Place the ante; returns the round it is in. `seen`: the snapshot it was made on
        (`Table.check_seen`), here and in the other bets and decisions."""
        await self._await_lease()
        self._refuse_early()

        async def act() -> str:
            self._guard(new_bets=True)
            self.table.check_seen(seen, deciding=False)
            if self.paused is not None:
                raise Refusal("table_paused", PAUSED, reason=self.paused["reason"])
            engine, effects = (
                self.table,
                self.table.ante_effects(player_id, seat, amount, progressive),
            )
            rid = effects.transfers[0].round_id
            op = self.writes.op(rid, f"{seat}:ante")
            fence, opens = self.fence, engine.phase is Phase.WAITING  # else open in the store
            wallet = await self.writes.request(
                "ante",
                op,
                rid,
                lambda: self.store.bet(fence, op, effects.transfers, effects.holds, opens=opens),
            )
            if self._still_playing(engine):  # else lost meanwhile (or lost and taken again
                # under a new epoch): the bet stands, answered as applied, and the round
                # is voided by the table's new host (this one, perhaps), refunding it
                self.table.take_ante(self.now(), player_id, seat, amount, progressive)
            self.host.push_wallet(player_id, wallet)
            if progressive:
                await self.host.meter_moved(self.config.jackpot, effects.transfers)
            return rid

        # sent again meanwhile (from a new connection, say): as if it had landed
        being_placed = Refusal("already_bet", f"seat {seat} has an ante being placed already")
        return await self.run(act, started, seat=seat, busy=being_placed)

    async def withdraw(self, player_id: str, seat: int, seen: int | None = None) -> None:
        await self._await_lease()
        self._refuse_early()

        async def act() -> None:
            self._guard()
            self.table.check_seen(seen, deciding=False)
            engine, refund = self.table, self.table.withdraw_effects(player_id, seat)
            rid = self.table.round_id
            assert rid is not None
            op = self.writes.op(rid, f"{seat}:withdraw")
            fence = self.fence
            wallets = await self.writes.request(  # the refund first: if it fails, nothing changed
                "withdraw",
                op,
                rid,
                lambda: self.store.apply(fence, op, refund.transfers, refund.holds),
            )
            self._push(wallets)
            if not self._still_playing(engine):
                return  # lost meanwhile: the refund stands, the new host voids the rest
            self.table.withdraw(player_id, seat)
            await self._close_if_emptied(rid)
            await self.host.meter_moved(self.config.jackpot, refund.transfers)

        await self.run(act)

    async def deal(self, player_id: str, started: float, seen: int | None = None) -> None:
        await self._await_lease()
        self._refuse_early()

        async def act() -> None:
            self._guard()
            self.table.check_seen(seen, deciding=False)
            await self._carry_out(self.table.deal_me_in(self.now(), player_id))

        await self.run(act, started)

    async def decide(
        self,
        player_id: str,
        seat: int,
        decision: Decision,
        started: float,
        seen: int | None = None,
    ) -> None:
        await self._await_lease()
        self._refuse_early()

        async def act() -> None:
            self._guard()
            self.table.check_seen(seen, deciding=True)
            # The raise is debited first: if the store refuses, the hand is still undecided.
            engine, effects = self.table, self.table.decision_effects(player_id, seat, decision)
            rid = self.table.round_id
            assert rid is not None
            op = self.writes.op(rid, f"{seat}:{decision}")
            fence = self.fence
            wallets = await self.writes.request(
                str(decision),
                op,
                rid,
                lambda: self.store.apply(fence, op, effects.transfers, effects.holds),
            )
            self._push(wallets)
            if not self._still_playing(engine):
                return  # lost meanwhile: applied (so answered), the new host voids the round
            effects = self.table.decide(self.now(), player_id, seat, decision)
            try:
                await self._settle(effects)
            except (NotOwner, GaveUp) as e:
                # the decision itself is applied (the reply says so); the round's journal
                # keeps the rest, and the table's next host voids the round
                self._log("settlement left to the next host", logging.WARNING, reason=str(e))

        being_placed = Refusal("already_decided", f"seat {seat} has a decision being placed")
        await self.run(act, started, seat=seat, busy=being_placed)

    async def remove_player(
        self, player_id: str, *, by_request: bool = True, fold: bool = True
    ) -> bool:
        """The player leaves: antes back while betting, undecided hands fold (`fold`
        False, an operator's removal: a dealt hand plays on, `Table.release_seats`).
        True when, at its turn, the player held a seat not already going: another
        removal waiting for the table meanwhile may have been first.

        While the table is suspended the departure waits, and is answered once applied.
        """
        removed = False

        async def act() -> bool:
            nonlocal removed
            if self.lease is None:  # lost meanwhile: no seat is left here, the new host
                return True  # voids the round (a leave has what it asked for)
            if self.suspended is not None:
                return False  # suspended while this waited for the lock: wait again
            if not self._lease_valid():
                self._suspend("lease", self.now())
                return False
            removed = self.table.keeps_seat(player_id)
            rid = self.table.round_id
            if fold:
                effects = self.table.remove_player(self.now(), player_id, by_request=by_request)
            else:
                effects = self.table.release_seats(self.now(), player_id) or Effects()
            await self._carry_out(effects)
            await self._close_if_emptied(rid)
            # a settlement reports the meter as the store has it, refunds included
            moved = () if effects.settlement is not None else effects.transfers
            await self.host.meter_moved(self.config.jackpot, moved)
            return True

        while True:
            await self._resumed.wait()
            if await self.run(act) or self.closing is not None:
                self._forget_seed_if_gone(player_id)
                return removed

    async def set_client_seed(self, player_id: str, seed: str) -> None:
        async def act() -> None:
            self.table.set_client_seed(player_id, seed)

        await self.run(act)

    async def set_connected(self, player_id: str, connected: bool) -> None:
        async def act() -> None:
            self.table.set_connected(self.now(), player_id, connected)

        await self.run(act)

    # ----- store writes (server/table_writes.py) -----------------------------

    def _push(self, wallets: dict[str, Wallet]) -> None:
        for pid, wallet in wallets.items():
            self.host.push_wallet(pid, wallet)

    async def _carry_out(self, effects: Effects) -> None:
        """Apply what the engine already did (timers, departures): transfers and holds,
        then the settlement; both are owed, so both are repeated until they land."""
        self._note_deal()  # logged when it happened, not when its writes landed
        if effects.transfers or effects.holds:
            rid = (effects.transfers or effects.holds)[0].round_id
            op = self.writes.op(rid, "effects")
            fence = self.fence
            wallets = await self.writes.duty(
                "effects", op, lambda: self.store.apply(fence, op, effects.transfers, effects.holds)
            )
            self._push(wallets)
        await self._settle(effects)

    async def _close_if_emptied(self, round_id: str | None) -> None:
        """A round whose every ante was taken back holds no money: close it in the journal
        (unless the table was lost meanwhile: its new host voids the round). The refunds
        before it stand, so a close fenced off is no failure of the withdraw or leave
        (it answered `table_moved`, though its refund was written)."""
        if round_id is not None and self.table.round_id is None and self.lease is not None:
            fence, started = self.fence, time.time()
            try:
                await self.writes.duty(
                    "close", f"{round_id}:close", lambda: self.store.void(fence, round_id, [], [])
                )
            except (NotOwner, GaveUp) as e:
                self._log("round's close left to the next host", logging.WARNING, reason=str(e))
                return
            self._log(
                "round voided",
                round_id=round_id,
                why="every ante was taken back",
                started_at=round(started, 3),
            )

    async def _settle(self, effects: Effects) -> None:
        """Pay the round; idempotent by round id, so it is repeated until it lands."""
        s = effects.settlement
        if s is None:
            return
        jp = self.config.jackpot
        seed = self.host.jackpot_seed(jp)
        fence, started = self.fence, time.time()
        settled = await self.writes.duty(
            "settle",
            f"{s.round_id}:settle",
            lambda: self.store.settle(fence, s.round_id, s.transfers, s.claims, jp, seed, s.record),
        )
        self._paid(s, settled, started)

    def _paid(self, s: Settlement, settled: Any, started: float) -> None:
        for paid in settled.paid:
            self.table.record_jackpot(paid.seat, paid.amount)
            seat = self.table.seats[paid.seat]
            category = next(c.category for c in s.claims if c.seat == paid.seat)
            won = {"seat": paid.seat, "player_id": paid.player_id, "category": category}
            name = seat.name if seat else ""
            self.host.announce_jackpot(jackpot_won(self.id, s.round_id, name, paid.amount, won))
            self._log(
                "jackpot won", round_id=s.round_id, amount=paid.amount, paid_by="meter", **won
            )
        # a fixed progressive prize, which the house pays: no news, but a line for operators
        recorded = {seat["seat"]: seat for seat in s.record["seats"]}
        for t in s.transfers:
            if t.reason is Reason.JACKPOT and t.seat is not None:
                hand = recorded[t.seat]
                fixed = {"seat": t.seat, "player_id": hand["player_id"], "paid_by": "house"}
                category = hand["hand"]["category"]
                self._log(
                    "jackpot won", round_id=s.round_id, amount=t.amount, category=category, **fixed
                )
        self._push(settled.wallets)
        for name, amount in settled.meters.items():
            self.host.set_meter(name, amount)
        hands = len(s.record["seats"])
        self.host.metrics.rounds += 1
        self.host.metrics.hands += hands
        # started_at: when the write was first sent. It applied between then and now,
        # under this epoch (the fence refuses it otherwise), so it is when this host acted
        self._log("round settled", round_id=s.round_id, hands=hands, started_at=round(started, 3))

    # ----- timers (server/clock.py) ------------------------------------------

    def _reschedule(self) -> None:
        self.clock.reschedule()
        if self.table.phase is Phase.WAITING:
            self._idle.set()
        else:
            self._idle.clear()

    async def _on_timer(self) -> None:
        async def act() -> None:
            if self.lease is None or self.suspended is not None:
                return
            if not self._lease_valid():
                self._suspend("lease", self.now())
                return
            await self._carry_out(self.table.tick(self.now()))

        try:
            await self.run(act)
        except (NotOwner, GaveUp, Refusal, RoundUnknown) as e:  # the data went back (a
            # restore, a dump loaded in place): the table starts over, as said already
            self._log("timer's writes stopped", logging.WARNING, reason=str(e))
        except Exception:
            log.exception("timer failed", extra={"table": self.id})

    # ----- shutdown ------------------------------------------------------------

    async def drain(self, deadline: float) -> None:
        """No new rounds; let the running one finish until `deadline`, then void it.
        Viewers are shown the shutdown now (`shown_paused`), not when an ante is refused."""
        self.closing = int(time.time() * 1000)
        self._closing_grace = max(0, math.ceil(deadline - self.now()))
        self.table.touch()
        self.publish()
        self.host.lobby_changed()
        remaining = deadline - self.now()
        if remaining > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._idle.wait(), remaining)
        self._resumed.set()  # waiting departures go on (and find the table closing)
        try:
            await self.run(lambda: self._void("shutdown"))
        except (NotOwner, GaveUp, Refusal, RoundUnknown) as e:  # the journal keeps the
            # round: the next host voids it (Refusal, RoundUnknown: the data went back, the
            # table starting over after a restore)
            self._log("round left to the next host", logging.WARNING, reason=str(e))

    async def _void(self, why: str) -> str | None:
        """Refund every bet of the running round once (idempotent by round id); locked."""
        if self.lease is None or self.table.phase not in (Phase.BETTING, Phase.DECIDING):
            return None
        rid = self.table.round_id
        assert rid is not None
        effects = self.table.void_round()
        fence, started = self.fence, time.time()
        await self.writes.duty(
            "void",
            f"{rid}:void",
            lambda: self.store.void(fence, rid, effects.transfers, effects.holds),
        )
        for pid in {t.target.removeprefix("player:") for t in effects.transfers}:
            with contextlib.suppress(StoreError):
                self.host.push_wallet(pid, await self.store.wallet(pid))
        await self.host.meter_moved(self.config.jackpot, effects.transfers)
        self._log(
            "round voided", logging.WARNING, round_id=rid, why=why, started_at=round(started, 3)
        )
        return rid

    # ----- an operator's acts (server/admin/) ------------------------------------

    async def void_round(self, round_id: str) -> bool:
        """Void `round_id` as at shutdown, if it is running here (else False)."""

        async def act() -> bool:
            self._guard()
            if self.table.round_id != round_id:
                return False
            return await self._void("an operator voided it; every bet refunded") is not None

        return await self.run(act)

    def describe(self) -> dict[str, Any]:
        """This table's lobby row."""
        return {**self.lobby_fixed, **self.lobby_live()}

    def lobby_live(self) -> dict[str, Any]:
        """The lobby row's part that changes (`lobby_fixed` is the same object always)."""
        return {
            "taken": sum(1 for s in self.table.seats if s is not None),
            "spectators": self.audience.spectator_count(),
            "phase": "suspended" if self.suspended else str(self.table.phase),
            "paused": self.shown_paused() is not None,
            "closing": self.closing is not None,  # the pause is the server's shutdown
            "silent": False,  # hosted here; other processes' rows: Fleet.remote_rows
            "url": self.host.public_url,
        }
