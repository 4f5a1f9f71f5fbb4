"""Turns at a table: many shared ones at once, or one exclusive one.

A table's commands used to run one after another, each holding the table for
its store round trip, so five players' antes cost five round trips in a row.
Writes that touch only their own seat (an ante, a fold or raise) take a
*shared* turn: they run together, each checked and reserved before its write
and applied after it. Anything that changes the round for everyone (a deal, a
withdrawal, a departure, a timer, a settlement) takes an *exclusive* turn, once
every shared turn has ended. Turns are granted in arrival order, so a waiting
exclusive turn holds back later shared ones and is never starved.
"""

from __future__ import annotations

import asyncio
from collections import deque
from types import TracebackType


class Turns:
    def __init__(self) -> None:
        self.shared = 0  # shared turns running now
        self.exclusive = False  # an exclusive turn is running now
        self._waiting: deque[tuple[bool, asyncio.Future[None]]] = deque()

    def busy(self) -> bool:
        return self.exclusive or self.shared > 0 or bool(self._waiting)

    def waiting(self) -> int:
        return sum(1 for _, f in self._waiting if not f.done())

    def turn(self, *, exclusive: bool) -> Turn:
        """`async with turns.turn(exclusive=...)`: wait for the turn, hold it inside."""
        return Turn(self, exclusive)

    def _free(self, exclusive: bool) -> bool:
        if exclusive:
            return not self.exclusive and self.shared == 0
        return not self.exclusive

    async def _acquire(self, exclusive: bool) -> None:
        if not self._waiting and self._free(exclusive):
            self._take(exclusive)
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((exclusive, fut))
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self._release(exclusive)  # granted as we were cancelled: give it back
            else:
                self._grant()  # we may have held others back
            raise

    def _take(self, exclusive: bool) -> None:
        if exclusive:
            self.exclusive = True
        else:
            self.shared += 1

    def _release(self, exclusive: bool) -> None:
        if exclusive:
            self.exclusive = False
        else:
            self.shared -= 1
        self._grant()

    def _grant(self) -> None:
        """Grant waiting turns in order, as far as the first that cannot run yet."""
        while self._waiting:
            exclusive, fut = self._waiting[0]
            if fut.done():  # cancelled while waiting
                self._waiting.popleft()
                continue
            if not self._free(exclusive):
                return
            self._waiting.popleft()
            self._take(exclusive)
            fut.set_result(None)
            if exclusive:
                return


class Turn:
    """One turn as an async context manager: a class, not `asynccontextmanager`, whose
    generator machinery cost more than the turn itself on every command."""

    __slots__ = ("_exclusive", "_turns")

    def __init__(self, turns: Turns, exclusive: bool) -> None:
        self._turns = turns
        self._exclusive = exclusive

    async def __aenter__(self) -> None:
        await self._turns._acquire(self._exclusive)

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._turns._release(self._exclusive)
