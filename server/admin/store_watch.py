"""Whether the console's reads should wait on the store now.

A Redis that stands still (a stall, a SIGSTOP) keeps its connection open: each
read waits the store timeout before it fails, and a console request makes up
to three in a row (its token, the seen mark, the read itself), 10-15 s with
the defaults. Once one store call has failed, the reads this process can
answer without the store answer at once, and one background PING at a time
finds when the store answers again. Acts still go to the store: only it can
apply them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from server.stores.base import Store, StoreError

#: Seconds between PINGs while the store does not answer (doubling up to the last).
PROBE_DELAYS = (0.2, 0.5, 1.0, 2.0)


class StoreWatch:
    def __init__(self, store: Store, spawn: Callable[[Coroutine[Any, Any, Any]], None]) -> None:
        self.store = store
        self._spawn = spawn
        self._failed = False  # a store call failed, and no PING has been answered since
        self._probing = False

    @property
    def away(self) -> bool:
        """The store failed a call lately (or has no connection): don't wait on it."""
        return self._failed or not getattr(self.store, "connected", True)

    def failed(self) -> None:
        """A store call failed: the reads that can go without it do, until it answers."""
        self._failed = True
        if not self._probing:
            self._probing = True
            self._spawn(self._probe())

    async def _probe(self) -> None:
        attempt = 0
        try:
            while True:
                try:
                    await self.store.ping()
                except StoreError:
                    await asyncio.sleep(PROBE_DELAYS[min(attempt, len(PROBE_DELAYS) - 1)])
                    attempt += 1
                    continue
                self._failed = False
                return
        finally:
            self._probing = False
