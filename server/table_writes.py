"""A table's writes to the store, each carried to its true outcome (server/durable.py).

Two kinds, as there: a player's *request* (an ante, a raise) is answered with
what the store did, however long it takes to say; a *duty* (a settlement, a
refund, a void) is owed by the table and repeated until it lands. While either
is in doubt the table is suspended; the store's answer to the last write in doubt
resumes it (the clock would run while another's player waits), and a fence
refused means the table is hosted elsewhere now. The table (server/room.py)
says what each of those does to it through the callables given here.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

from server.durable import Pending, until_known
from server.stores.base import (
    NotOwner,
    OpAbandoned,
    RoundUnknown,
    Store,
    StoreError,
    StoreUnavailable,
)

T = TypeVar("T")

log = logging.getLogger("stud.room")  # the table's own lines


class WritesHost(Protocol):
    """What the writes need of the process (a part of `server.room.RoomHost`)."""

    @property
    def store(self) -> Store: ...
    @property
    def pending(self) -> Pending: ...
    @property
    def store_patience(self) -> float: ...


class TableWrites:
    """The writes of one table, and how many of its duties are out."""

    def __init__(
        self,
        table_id: str,
        host: WritesHost,
        *,
        now: Callable[[], float],
        in_doubt: Callable[[float], None],
        answered: Callable[[], None],
        lost: Callable[[str], None],
        went_back: Callable[[], None],
    ) -> None:
        self.table_id = table_id
        self.host = host
        self._now = now
        self._in_doubt = in_doubt  # the store may not have it: suspend (since then)
        self._resume = answered  # the store answered every write in doubt: resume
        self._lost = lost  # another process (its id, "" not known) holds the table
        self._went_back = went_back  # the store does not know the round: its data went back
        self._ops = itertools.count(1)
        self.duties_out = 0  # owed writes out: the engine moved already, not yet durable
        self.doubts_out = 0  # writes whose outcome is in doubt now: the table resumes at 0
        #: bumped when the table starts over (`give_up_all`): writes begun before it stop
        self.generation = 0

    def give_up_all(self) -> None:
        """Every write out stops trying (GaveUp): the engine they were made for is gone
        (the store's data was restored: their outcome is the restored data's, and the
        table's claim under a new engine voids whatever of its round the data holds)."""
        self.generation += 1

    def _stop(self) -> Callable[[], bool]:
        generation = self.generation
        return lambda: self.generation != generation

    def op(self, round_id: str, step: str) -> str:
        """An operation id: the round, the seat and step, and a number unique to this
        table's writes, so a withdrawn and placed-again ante is a new operation."""
        return f"{round_id}:{step}:{next(self._ops)}"

    async def request(
        self, what: str, op: str, round_id: str, call: Callable[[], Awaitable[T]]
    ) -> T:
        """A player's write: its true outcome, however long the store takes to give it."""
        started = self._now()
        store = self.host.store
        doubted = Doubted(self, started)
        try:
            try:
                result = await until_known(
                    call,
                    what=what,
                    op=op,
                    table=self.table_id,
                    pending=self.host.pending,
                    patience=self.host.store_patience,
                    abandon=lambda: store.abandon(op, round_id=round_id),
                    in_doubt=doubted,
                    stop=self._stop(),
                )
            finally:
                doubted.over()
        except NotOwner as e:
            self._lost(e.holder)
            raise
        except RoundUnknown:
            self._answered()
            self._went_back()
            raise
        except OpAbandoned:
            self._answered()  # the store answered: the write is definitely not applied
            raise
        except StoreUnavailable as e:
            # the table's suspension says `store`; an operator needs Redis's own words
            log.warning(
                "store refused a write; nothing of it was applied",
                extra={"what": what, "table": self.table_id, "op": op, "error": e.cause},
            )
            self._in_doubt(started)  # resumed by the table's probe once the store answers
            raise
        except StoreError:
            self._answered()  # a refusal is an answer: nothing was applied
            raise
        self._answered()
        return result

    async def duty(self, what: str, op: str, call: Callable[[], Awaitable[T]]) -> T:
        """A write the table owes: repeated until it lands (or the server stops)."""
        started = self._now()
        doubted = Doubted(self, started)
        self.duties_out += 1
        try:
            result = await until_known(
                call,
                what=what,
                op=op,
                table=self.table_id,
                pending=self.host.pending,
                duty=True,
                in_doubt=doubted,
                stop=self._stop(),
            )
        except NotOwner as e:
            self._lost(e.holder)
            raise
        except RoundUnknown:
            self._went_back()
            raise
        finally:
            self.duties_out -= 1
            doubted.over()
        self._answered()
        return result

    def _answered(self) -> None:
        """A write's outcome is known: the table resumes, unless another is in doubt yet
        (its clock would run while that write's player waits for an answer)."""
        if self.doubts_out == 0:
            self._resume()


class Doubted:
    """One write's part in `TableWrites.doubts_out`: counted once it is in doubt (the
    table suspends then), until its outcome is known (`over`)."""

    def __init__(self, writes: TableWrites, started: float) -> None:
        self.writes, self.started, self.counted = writes, started, False

    def __call__(self) -> None:
        if not self.counted:
            self.counted = True
            self.writes.doubts_out += 1
        self.writes._in_doubt(self.started)

    def over(self) -> None:
        if self.counted:
            self.counted = False
            self.writes.doubts_out -= 1
