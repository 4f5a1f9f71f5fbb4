"""Store writes carried through to a definite outcome.

A write whose answer did not come (`OutcomeUnknown`) may still be applied, so
it is never reported as failed: it is repeated with the same operation id
until the store answers. Two kinds of write:

- a *request* (a player's ante, raise, buy-in): certainly not applied when the
  first try could not be sent (`StoreUnavailable`: say so at once); once in
  doubt, repeated for `patience` seconds, then abandoned: the store marks the
  id dead, or reports it applied, and either answer is the truth.
- a *duty* (a settlement, a refund, a void): the table owes it, so it is
  repeated until it lands, however long the store is away, and so is one that
  failed for no reason a refusal names (a plain `StoreError`, any other
  exception): dropped, its table would show a round that was never written and
  play on with it open.

`Pending` counts what is in doubt right now, for /metrics and /healthz.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from server.stores.base import OpAbandoned, OutcomeUnknown, StoreError, StoreUnavailable
from server.stores.retry_log import RetryLog

log = logging.getLogger("stud.durable")
T = TypeVar("T")

#: Seconds between tries: doubling from the first to the last.
FIRST_DELAY = 0.05
MAX_DELAY = 2.0


@dataclass(frozen=True, slots=True)
class PendingWrite:
    what: str  # "ante", "settle", "buy_chips"...
    table: str  # "" for a player's own write
    op: str
    since: float  # time.monotonic() of the first try


class Pending:
    """The writes whose outcome is not known yet, and how many retries were made."""

    def __init__(self) -> None:
        self.writes: dict[int, PendingWrite] = {}
        self.retries = 0
        self.abandoned = 0
        self._ids = itertools.count()
        #: time.monotonic() past which the server is stopping: every write still in doubt
        #: gives up (GaveUp), its outcome left to the store and the table's next host
        self.give_up_at: float | None = None

    def giving_up(self) -> bool:
        return self.give_up_at is not None and time.monotonic() >= self.give_up_at

    def add(self, write: PendingWrite) -> int:
        key = next(self._ids)
        self.writes[key] = write
        return key

    def done(self, key: int) -> None:
        self.writes.pop(key, None)

    def oldest_seconds(self) -> float:
        if not self.writes:
            return 0.0
        return time.monotonic() - min(w.since for w in self.writes.values())


class GaveUp(Exception):
    """The server is stopping, or the write's table started over (the store's data was
    restored): a write's outcome stays unknown (the round journal keeps a table's, so
    its next host voids whatever landed); a request of it is answered nothing."""


async def until_known(
    call: Callable[[], Awaitable[T]],
    *,
    what: str,
    op: str,
    pending: Pending,
    table: str = "",
    duty: bool = False,
    patience: float = 10.0,
    abandon: Callable[[], Awaitable[bool]] | None = None,
    in_doubt: Callable[[], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> T:
    """`call()` until its outcome is definite; returns its result or raises its refusal.

    `in_doubt` runs once, when the first try fails (a table suspends itself then).
    A request raises StoreUnavailable only when nothing can have been applied:
    the first try was never sent, or `abandon()` marked the id dead. `stop()`
    true, or the server stopping past its grace (`pending.give_up_at`), ends the
    retries with GaveUp: the outcome stays unknown, and is said to no one as failed.
    """
    started = time.monotonic()
    key: int | None = None
    delay = FIRST_DELAY
    doubt = False  # an earlier try may have been applied
    failure: Exception | None = None  # the last try's, for the log
    bugs = RetryLog(log, logging.ERROR)  # a bug's traceback once, then a line a minute
    try:
        while True:
            try:
                overdue = time.monotonic() - started >= patience
                if doubt and not duty and abandon is not None and overdue:
                    if await abandon():
                        return await call()  # applied: the replay returns its result
                    pending.abandoned += 1
                    raise OpAbandoned(
                        f"the store did not confirm the {what} in time; it was not applied",
                        op=op,
                    )
                return await call()
            except OpAbandoned:
                raise
            except StoreUnavailable as e:
                if not doubt and not duty:
                    raise  # never sent: certainly not applied
                failure = e
            except OutcomeUnknown as e:
                doubt, failure = True, e
            except StoreError as e:
                if type(e) is not StoreError:
                    raise  # a refusal: a definite answer
                if not duty and not doubt:
                    raise  # a request's first try failed for no reason a refusal names
                # else the write was in doubt already: this says nothing of its outcome
                doubt, failure = True, e
            except Exception as e:  # no fault the store names (a bug): a duty still waits
                if not duty:
                    raise
                doubt, failure = True, e
                bugs.failed(
                    repr(e), "a duty's write failed unexpectedly", extra={"op": op}, exc_info=True
                )
            if key is None:
                key = pending.add(PendingWrite(what, table, op, started))
                log.warning(
                    "store write in doubt; repeating it with the same operation id",
                    extra={"what": what, "table": table, "op": op, "error": _cause(failure)},
                )
                if in_doubt is not None:
                    in_doubt()
            if (stop is not None and stop()) or pending.giving_up():
                raise GaveUp(f"stopped before the {what} ({op}) was confirmed")
            pending.retries += 1
            await asyncio.sleep(delay)
            delay = min(delay * 2, MAX_DELAY)
            if (stop is not None and stop()) or pending.giving_up():  # no try more
                raise GaveUp(f"stopped before the {what} ({op}) was confirmed")
    finally:
        if key is not None:
            pending.done(key)
            log.info(
                "store write no longer in doubt",
                extra={"what": what, "table": table, "op": op},
            )


def _cause(failure: BaseException | None) -> str:
    """What the log says of a failed write: a store's cause, not its players' words."""
    return failure.cause if isinstance(failure, StoreError) else str(failure)
