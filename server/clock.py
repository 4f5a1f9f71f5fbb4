"""A table's clock: the one timer a room keeps for its round's deadline.

The engine only knows deadlines (server/game has no clock); this arms the event
loop's timer for the current one and hands it to the room when it comes due.
A process that stood still (SIGSTOP, a VM paused, starved of CPU) stopped its
clocks with it: a timer then would act before the bets and decisions sent in
time and still unread in the sockets, and the time a player had was spent while
nothing ran. So each clock gets back what it had when the process stopped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from server.game.table import Phase, Table

#: Seconds a timer has at least when a suspended table resumes, or after a stall.
RESUME_MINIMUM = 5.0
#: Seconds late past which a timer means the event loop stood still (a stopped process).
STOOD_STILL = 1.0


class TableClock:
    def __init__(
        self,
        table: Callable[[], Table],
        *,
        running: Callable[[], bool],
        stood_still_since: Callable[[], float | None],
        due: Callable[[], None],
        changed: Callable[[], None],
        late: Callable[[], None],
    ) -> None:
        """`table`: the engine now; `running`: whether its clock may run (hosted here,
        not suspended); `stood_still_since`: the process's (server/app.py); `due`: the
        deadline came; `changed`: the deadline moved (publish it); `late`: log it."""
        self._table = table
        self._running = running
        self._stood_still_since = stood_still_since
        self._due = due
        self._changed = changed
        self._late = late
        self._timer: tuple[asyncio.Handle, float] | None = None  # and its deadline
        self._stall_seen: float | None = None  # when the last stall given time back began

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer[0].cancel()
            self._timer = None

    def reschedule(self) -> None:
        deadline = self._table().deadline
        if deadline is None or not self._running():
            self.cancel()
        elif self._timer is None or self._timer[1] != deadline:
            # most commands leave the deadline as it was: the timer stays (the deadline is
            # kept beside it: uvloop's handle for a deadline passed already has no when())
            self.cancel()
            self._timer = asyncio.get_running_loop().call_at(deadline, self._fire), deadline

    def _fire(self) -> None:
        due = self._timer[1] if self._timer is not None else self.now()
        self._timer = None
        since = self._stood_still_since()
        late = self.now() - due > STOOD_STILL or since is not None
        if not late or self._table().phase is Phase.SHOWDOWN or since == self._stall_seen:
            self._due()
            return
        # it stood still (or just ran again after standing still until about now): bets
        # and decisions sent meanwhile are read after the timers: time
        self._late()
        self.stood_still(since if since is not None else due, timer_due=True)

    def take_stall(self, since: float) -> bool:
        """Whether the stall that began at `since` is not given back yet; from now it is
        (the room freezes the clock as of then: suspended for its lease meanwhile, the
        table resumed with 5 s whatever it had when the process stopped)."""
        if since == self._stall_seen:
            return False
        self._stall_seen = since
        return True

    def stood_still(self, since: float, *, timer_due: bool = False) -> None:
        """The process stood still from `since` (loop time) until now: the running clock
        gets back what it had then, and at least `RESUME_MINIMUM` (a player whose link
        went quiet meanwhile needs a moment to be back): a hand was folded for time
        while its terminal reconnected. Once per stall (its timer, or the loop's watch)."""
        table = self._table()
        if since == self._stall_seen or not self._running():
            return
        if not timer_due and (table.deadline is None or table.phase is Phase.SHOWDOWN):
            return  # no clock runs (a results pause only shows the showdown longer)
        self._stall_seen = since
        table.freeze(since)
        table.thaw(self.now(), RESUME_MINIMUM)
        self.reschedule()
        self._changed()
