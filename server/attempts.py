"""Password checks counted before they are made, for players and operators alike.

The limits were read before the check and the failure counted after it, so checks
sent at once all read the count before any was added and all were made. Each check
is counted first here (one atomic add under every key); one over a limit is taken
back and refused; one that passes, or could not be made, is taken back by the caller.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

from server.stores.base import Store, StoreError

log = logging.getLogger("stud.attempts")


class Throttled(Exception):
    """A counter is over its limit: no check was made (and none counted)."""

    def __init__(self, keys: list[str], retry_after: int) -> None:
        super().__init__(f"over the limit: {keys}")
        self.keys = keys
        self.retry_after = retry_after


async def count_check(store: Store, keys: list[str], limits: Sequence[int], window: float) -> None:
    """Count one check under each key before it is made; Throttled (taken back) when a
    key is over its limit. A write left in doubt raises the store's OutcomeUnknown."""
    counts = await store.add_failure(keys, window)
    over = [key for key, n, limit in zip(keys, counts, limits, strict=True) if n > limit]
    if over:
        await take_back(store, keys, window)
        waits = await store.failures(over)
        raise Throttled(over, max(1, math.ceil(max(f.retry_after for f in waits))))


async def take_back(store: Store, keys: list[str], window: float) -> None:
    """Take back a check counted in advance (best effort: left counted, it errs on the
    side of the limit)."""
    if not keys:
        return
    try:
        await store.add_failure(keys, window, by=-1)
    except StoreError as e:
        log.info("a password check left counted: %s", e.message)
