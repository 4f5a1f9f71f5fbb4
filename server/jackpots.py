"""The progressive meters as this process shows them, and news of them.

The amount every client sees is cached here and pushed at a throttled pace
(`jackpot_push_interval`), never once per bet, and to at most
`jackpot_push_budget` connections a second: a push costs a socket write per
connection, so on a crowded server connections are told in turn. In a fleet
the meters are shared: other processes move them too, so changes and jackpot
hits also go out on the fleet's pub/sub channel and come in from it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any

from websockets.asyncio.server import ServerConnection

from protocol.codec import encode
from server.fleet import Fleet
from server.game.ledger import Transfer, meter_account
from server.metrics import Metrics
from server.outbox import Outbox
from server.stores.base import Store, StoreError
from server.stores.retry_log import RetryLog

log = logging.getLogger("stud.jackpots")

#: Connections a table snapshot showed a meter's amount; and those it showed another
#: amount within the last push interval.
Shown = tuple[set[ServerConnection], set[ServerConnection]]

#: Connections written to per slice of a push to everyone (jackpot meters).
PUSH_SLICE = 500


class JackpotNews:
    def __init__(
        self,
        seeds: Mapping[str, int],
        store: Store,
        fleet: Fleet | None,
        metrics: Metrics,
        outbox: Outbox,
        audience: Callable[[], list[ServerConnection]],
        spawn: Callable[[Coroutine[Any, Any, Any]], None],
        *,
        shared: bool,
        shown: Callable[[str, int], Shown] = lambda name, amount: (set(), set()),
        pushed: Callable[[str, int, set[ServerConnection]], None] = lambda *told: None,
        per_push: int = 1 << 30,
    ) -> None:
        self.seeds = seeds
        self.store = store
        self.fleet = fleet
        self.metrics = metrics
        self.outbox = outbox
        self.audience = audience  # every welcomed connection
        # connections a table snapshot showed this amount; and another one, lately
        self.shown = shown
        # ...and these were just pushed an amount: what their tables' snapshots showed
        # is no longer what they see (a later amount that equals it must reach them)
        self.pushed = pushed
        self.spawn = spawn
        self.meters: dict[str, int] = {}
        # meter frames per push at most; beyond it connections are told in turn
        self.per_push = per_push
        self._turn: dict[str, int] = {}  # per meter: where the next push's turn starts
        self._dirty: set[str] = set()  # meters changed since everyone was told
        # per meter: connections not yet pushed its last change (over the budget, or
        # their table's snapshot was fresh): a later push tells them, unless their
        # table's next snapshot does first
        self._owed: dict[str, set[ServerConnection]] = {}
        self._to_read: set[str] = set()  # meters to read from the store at the next push
        self._to_announce: set[str] = set()  # meters our own bets moved since the last one
        self._heard: dict[str, int] = {}  # per meter: how many news of it came so far
        # a meter other processes may move too (Redis): read it at the throttled pace
        self._shared = shared
        # the reads of `_to_read` failing push after push (Redis away): said when they
        # start or their kind changes, then once a minute
        self._read_failures: dict[str, RetryLog] = {}  # meter -> its reads' failures
        if fleet is not None:
            fleet.on_meter = self.news
            fleet.on_win = self.win_news

    def _failures_of(self, name: str) -> RetryLog:
        """One meter's failed reads: another's success does not end them."""
        failures = self._read_failures.get(name)
        if failures is None:
            failures = self._read_failures[name] = RetryLog(log, logging.WARNING)
        return failures

    async def ensure(self, *, announce: bool = True) -> None:
        """Create every configured meter at its seed if it does not exist (a Redis
        restarted empty gets them back) and show what the store holds."""
        for name, seed in self.seeds.items():
            heard = self._heard.get(name, 0)
            self._show_read(name, await self.store.ensure_meter(name, seed), heard, announce)

    def amount(self, name: str) -> int:
        return self.meters.get(name, 0)

    def set(self, name: str, amount: int, *, announce: bool = True) -> None:
        """Show `amount`; with `announce`, it is what our own write left in the store,
        and the fleet is told the meter moved."""
        if self.meters.get(name) != amount:
            self.meters[name] = amount
            self._dirty.add(name)
            if announce:
                self._announce(name)
                if self._shared:  # another's write may have followed ours: read it then
                    self._to_read.add(name)

    def _show_read(self, name: str, amount: int, heard: int, announce: bool = False) -> None:
        """Show a figure read from the store, unless news of the meter came while the
        read was on its way: the figure may be older than that news. The meter is then
        read again at the next push, by a read sent after the news."""
        if self._heard.get(name, 0) == heard:
            self.set(name, amount, announce=announce)
        else:
            self._to_read.add(name)

    def _announce(self, name: str) -> None:
        if self.fleet is not None:
            self.spawn(self._announce_meter(name, self.meters.get(name, 0)))

    async def _announce_meter(self, name: str, amount: int) -> None:
        assert self.fleet is not None
        try:
            await self.fleet.announce_meter(name, amount)
        except StoreError as e:
            log.warning("meter news not sent: %s", e.cause)

    def news(self, name: str, amount: int) -> None:
        """Another process moved a meter: read it at the next push.

        The news's own amount is not shown: it may be older than a read of ours that
        was already on its way (news and replies come on different connections), and
        a stale figure would stay up. A read sent after the news came sees the mover's
        write, which was made before its news went out."""
        self._heard[name] = self._heard.get(name, 0) + 1
        self._to_read.add(name)

    async def refresh(self, name: str) -> None:
        self.set(name, await self.store.meter(name))

    async def refresh_all(self) -> None:
        heard = dict(self._heard)
        for name, amount in (await self.store.meters()).items():
            self._show_read(name, amount, heard.get(name, 0), announce=True)

    async def moved(self, name: str, transfers: Sequence[Transfer]) -> None:
        """This process's transfers fed or drew on a meter.

        The embedded store's figure is exact and free: read it. A shared store's costs
        a round trip and can change under us from other processes, so the amount shown
        moves by our own transfers at once; at the next throttled push the store's
        figure is read and the fleet told the meter moved: one read and one message per
        interval, not one per bet.
        """
        if not self._shared:
            await self.refresh(name)
            return
        account = meter_account(name)
        delta = sum(t.amount for t in transfers if t.target == account) - sum(
            t.amount for t in transfers if t.source == account
        )
        if delta:
            self.set(name, self.meters.get(name, 0) + delta, announce=False)
            self._to_announce.add(name)
        self._to_read.add(name)

    async def _read_pending(self) -> None:
        names, self._to_read = self._to_read, set()
        moved, self._to_announce = self._to_announce, set()
        for name in sorted(names):
            heard = self._heard.get(name, 0)
            try:
                self._show_read(name, await self.store.meter(name), heard)
            except StoreError as e:
                self._to_read.add(name)  # next interval
                kind = type(e).__name__
                self._failures_of(name).failed(
                    kind, "meter not read: %s", e.cause, extra={"meter": name}
                )
            else:
                if after := self._failures_of(name).recovered():
                    log.info("meter read again after %d failed reads", after, extra={"meter": name})
        for name in sorted(moved):
            self._announce(name)  # our writes are in the store: others read them

    # ----- jackpot hits --------------------------------------------------------

    def announce_win(self, message: dict[str, Any]) -> None:
        """Tell every player here, and every other process's players, of a jackpot hit."""
        self.win_news(message)
        if self.fleet is not None:
            self.spawn(self._announce_win(message))

    def win_news(self, message: dict[str, Any]) -> None:
        self.metrics.frames_out += self.outbox.send_all(self.audience(), encode(message))

    async def _announce_win(self, message: dict[str, Any]) -> None:
        assert self.fleet is not None
        try:
            await self.fleet.announce_win(message)
        except StoreError as e:
            log.warning("jackpot news not sent: %s", e.cause)

    # ----- the throttled push --------------------------------------------------

    async def flush(self) -> None:
        """Read the meters our bets moved, then push the changed ones to everyone."""
        if self._to_read:
            await self._read_pending()
        if not self._dirty and not self._owed:
            return
        dirty, self._dirty = self._dirty, set()
        everyone = self.audience()
        for name in sorted(dirty | self._owed.keys()):
            amount = self.meters[name]
            frame = encode({"t": "jackpot", "name": name, "amount": amount})
            told, lately = self.shown(name, amount)
            if name in dirty:
                due = everyone
            else:  # the ones not told at the pushes before
                owed = self._owed[name]
                due = [ws for ws in everyone if ws in owed]
            conns = [ws for ws in due if ws not in told and ws not in lately]
            later = {ws for ws in due if ws in lately}
            if len(conns) > self.per_push:
                # over the budget: the next `per_push` in turn now, the others later
                start = self._turn.get(name, 0) % len(conns)
                conns = conns[start:] + conns[:start]
                later.update(conns[self.per_push :])
                conns = conns[: self.per_push]
                self._turn[name] = start + self.per_push
            if later:
                self._owed[name] = later
            else:
                self._owed.pop(name, None)
            if conns:
                self.pushed(name, amount, set(conns))
            # in slices, letting requests in between: writing to 10,000 sockets
            # takes ~100 ms, too long to hold the event loop in one go
            for i in range(0, len(conns), PUSH_SLICE):
                if i:
                    await asyncio.sleep(0)
                self.metrics.frames_out += self.outbox.send_all(conns[i : i + PUSH_SLICE], frame)
