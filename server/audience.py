"""A table's audience: who watches it, and when each change goes out to them.

The room runs the round; this decides when its viewers see it. A change is
sent once, at the end of the loop's turn (a reply and its snapshot share one
write), as one snapshot encoded once for everyone; changes made together go
out as one. Nothing the store has not made durable is shown: while a
settlement is being written, the turn writing it publishes once it lands.
What each snapshot holds is server/snapshots.py's.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Set
from typing import Any, Protocol

from websockets.asyncio.server import ServerConnection

from protocol.codec import encode
from server.game.table import Table, TableConfig
from server.game.views import own_hands
from server.metrics import Metrics
from server.snapshots import Shown
from server.standing import Suspension
from server.viewers import Viewers

#: Snapshot sends a busy table may put off in a row for the commands queued behind.
MAX_DEFERRED = 8


class AudienceHost(Protocol):
    """What an audience needs from its process (implemented by `StudServer`)."""

    @property
    def metrics(self) -> Metrics: ...
    def meter(self, name: str) -> int: ...
    def lobby_changed(self) -> None: ...
    def send_all(self, connections: Iterable[ServerConnection], data: bytes) -> int: ...
    def before_writing(self, send: Callable[[], None]) -> None: ...  # server/outbox.py


class Stage(Protocol):
    """What an audience reads of its table's room (implemented by `Room`)."""

    @property
    def table(self) -> Table: ...
    @property
    def suspended(self) -> Suspension | None: ...
    @property
    def active(self) -> bool: ...  # hosted here
    @property
    def settling(self) -> bool: ...  # an owed write (a settlement) is out
    @property
    def queued(self) -> int: ...  # commands waiting for their turn at the table
    def now(self) -> float: ...
    def shown_paused(self) -> dict[str, Any] | None: ...
    def refresh_later(self) -> None: ...  # its snapshot again at the next throttled push


class Audience:
    """A table's viewers, and what was sent to them."""

    def __init__(self, host: AudienceHost, stage: Stage, config: TableConfig) -> None:
        self.host = host
        self.stage = stage
        self.viewers = Viewers()
        self.shown = Shown(config)  # what the viewers were shown
        self._jackpot = config.jackpot
        self._flush = False  # a snapshot send is due at the end of this turn
        self._started: list[float] = []  # arrival times of the requests it answers
        self._deferred = 0

    def snapshot(self, *, shown: bool = True) -> bytes:
        """The table's snapshot; not `shown` to any viewer: the console's look."""
        stage = self.stage
        return self.shown.snapshot(
            stage.table,
            stage.now(),
            spectators=self.spectator_count(),
            meter=self.host.meter(self._jackpot),
            suspended=stage.suspended,
            writing=stage.settling,
            paused=stage.shown_paused(),
            shown=shown,
        )

    def spectator_count(self) -> int:
        return self.viewers.spectators(self.stage.table.players())

    def watching(self, player_id: str) -> bool:
        return player_id in self.viewers.values()

    def add(self, ws: ServerConnection, player_id: str) -> list[bytes]:
        """Watch the table: its snapshot now, counting the joiner (`count_changed`), and
        the player's own hand while one is dealt."""
        self.viewers.watch(ws, player_id)
        self.count_changed()
        self.watchers_changed()
        frames = [self.snapshot()]
        self.shown.joined(ws)
        own = own_hands(self.stage.table, player_id)
        if own is not None:
            frames.append(encode(own))
        return frames

    def remove(self, ws: ServerConnection) -> str | None:
        """Stop watching; the player who did (None: `ws` was not watching)."""
        player_id = self.viewers.get(ws)
        if self.viewers.unwatch(ws):
            self.watchers_changed()
        return player_id

    def tell(self, frame: bytes) -> None:
        """Send every viewer a frame about the table (news that is no snapshot)."""
        self.host.metrics.frames_out += self.host.send_all(self.viewers, frame)

    def dismiss(self, frame: bytes) -> None:
        """Send every viewer a last frame (the table went elsewhere) and forget them."""
        self.host.metrics.frames_out += self.host.send_all(self.viewers, frame)
        self.viewers.clear()

    def count_changed(self) -> None:
        """The spectator count changed: a new `seq` shows it (one `seq` is one snapshot),
        unless no snapshot of the table's change has been made yet: that one carries the
        count, with the `last` of the request that made it (a new `seq` would clear it);
        nor when the last snapshot made already has it (a sit's joiner: no copy of it)."""
        table = self.stage.table
        built = table.seq == self.shown.built
        if built and self.spectator_count() != self.shown.spectators:
            table.touch()

    def watchers_changed(self) -> None:
        """The spectator count changed: the next throttled push re-sends the snapshot,
        so a crowd arriving costs one broadcast per interval, not one per arrival."""
        self.host.lobby_changed()
        self.stage.refresh_later()

    def publish(self, started: float | None = None) -> None:
        """Send the snapshot to every viewer if the table changed since the last one.

        Deferred to the end of the loop's turn, just before the outbox writes (a reply
        and its snapshot share one write); skipped while more of the table's commands
        wait for their turn (they publish when done, at most `MAX_DEFERRED` times in a
        row): changes made together go out as one snapshot with the latest `seq`.
        """
        if started is not None:
            self._started.append(started)
        if not self._flush:
            self._flush = True
            self.host.before_writing(self._send)

    def _send(self) -> None:
        self._flush = False
        stage = self.stage
        if stage.settling and stage.suspended is None:
            # the engine is ahead of the store (a settlement is being written): the turn
            # writing it publishes once it lands; nothing not durable goes out before
            return
        if stage.queued and self._deferred < MAX_DEFERRED and stage.suspended is None:
            self._deferred += 1  # the queued command's publish sends this change too
            return
        self._deferred = 0
        started, self._started = self._started, []
        table = stage.table
        if table.seq == self.shown.seq or not stage.active:
            return
        t0 = time.perf_counter()
        self.shown.seq = table.seq
        to = self.shown.broadcast_to(self.viewers)
        m = self.host.metrics
        if to or not self.viewers:
            data = self.snapshot()
            m.broadcasts += 1
            m.frames_out += self.host.send_all(to, data)
        # else every viewer joined under this seq and was shown it then: none is made
        # now (it would count its meter as shown to them, though none of them got it)
        if stage.suspended is None:  # while suspended the deal is not shown yet either
            for ws, frame in self.shown.hands(table, self.viewers):
                m.frames_out += self.host.send_all((ws,), frame)
        t1 = time.perf_counter()
        m.broadcast_lag.observe(t1 - t0)
        for t in started:
            m.action_latency.observe(t1 - t)
        self.host.lobby_changed()

    def pushed_meter(self, amount: int, reached: Set[ServerConnection]) -> None:
        """The viewers in `reached` were pushed the meter's amount: the last snapshot no
        longer says what they see. All of them pushed: they see this amount; some (told
        in turn, over the budget): not one amount, so none counts as told."""
        if self.shown.meter == amount or not self.viewers:
            return
        count = sum(1 for ws in self.viewers if ws in reached)
        if count == len(self.viewers):
            self.shown.meter = amount
        elif count:
            self.shown.meter = -1
