"""A retry loop's failures, logged when they start or change, then once a minute.

A loop that retries every half second through an outage (the store's reconnect,
the fleet's heartbeats, its news channel) wrote a line at each try: hundreds a
minute of the same words, burying the few lines that say what changed. It lives
in server.stores, the lowest layer those loops share.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

#: Seconds between two lines of the same failure going on.
REPEAT_EVERY = 60.0


class RetryLog:
    """The failures of one loop: a line for the first, for one of another cause, and
    one a minute while the same goes on (counting the tries); `recovered` ends a run."""

    def __init__(
        self,
        log: logging.Logger,
        level: int,
        *,
        every: float = REPEAT_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.log, self.level, self.every, self.clock = log, level, every, clock
        self.failures = 0  # in a row, since the last success
        self._cause: str | None = None
        self._logged_at = 0.0

    def failed(
        self, cause: str, message: str, *args: Any, extra: Any = None, exc_info: bool = False
    ) -> None:
        """Another failure; `cause` tells failures apart (a message may hold a delay).
        `exc_info`: the exception being handled goes with the lines that are written."""
        self.failures += 1
        now = self.clock()
        if cause == self._cause and now - self._logged_at < self.every:
            return
        if self.failures > 1:
            message, args = message + " (%d failures in a row)", (*args, self.failures)
        self.log.log(self.level, message, *args, extra=extra, exc_info=exc_info)
        self._cause, self._logged_at = cause, now

    def recovered(self) -> int:
        """The loop succeeded: how many failures went before (0 if none)."""
        failures, self.failures, self._cause = self.failures, 0, None
        return failures
