"""The writes of one event-loop turn, sent to the store as one call.

Many players act at once (a table opening for antes, a deal asking every seat
for a decision, rounds ending on many tables), so many per-seat writes and
settlements are started in the same turn. Each waits on a future; at the end
of the turn they go out together, one round trip and one script run for them
all. Every caller keeps its own outcome: the sender's reply holds one per
write, and a failure of the round trip itself is every caller's (each then
repeats its own write under its own operation id).
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable
from typing import Any

#: (script name, payload) of one write: the store gives its own (RedisStore: the request
#: and the text passed beside it, or None).
Write = tuple[str, Any]
#: Writes per store call at most: a turn of a busy server may start hundreds, and
#: one script holds Redis (and everyone's writes behind it) while it runs.
MAX_BATCH = 100


class Batches:
    def __init__(
        self,
        send: Callable[[list[Write]], Awaitable[list[Any]]],
        unknown: Callable[[str], Exception],
    ) -> None:
        self._send = send  # the writes -> their replies, in order
        self._unknown = unknown  # the error of writes whose round trip was cut short
        self._queued: list[tuple[Write, asyncio.Future[Any]]] = []
        self._running: set[asyncio.Task[None]] = set()

    def add(self, name: str, request: Any) -> asyncio.Future[Any]:
        """The write's reply, once this turn's writes have gone out."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        if not self._queued:
            loop.call_soon(self._start)
        self._queued.append(((name, request), future))
        return future

    def _start(self) -> None:
        queued, self._queued = self._queued, []
        loop = asyncio.get_running_loop()
        for i in range(0, len(queued), MAX_BATCH):
            task = loop.create_task(self._run(queued[i : i + MAX_BATCH]))
            self._running.add(task)
            task.add_done_callback(self._running.discard)

    async def _run(self, queued: list[tuple[Write, asyncio.Future[Any]]]) -> None:
        queued = [q for q in queued if not q[1].done()]  # a cancelled caller is not sent
        if not queued:
            return
        try:
            replies = await self._send([write for write, _ in queued])
            if len(replies) != len(queued):  # cannot happen; if it did, ask again by op id
                raise self._unknown(f"answered {len(replies)} of {len(queued)} table writes")
        except asyncio.CancelledError:
            for _, future in queued:  # the store is closing: the writes may have landed
                if not future.done():
                    future.set_exception(self._unknown("stopped during a table write"))
            raise
        except Exception as e:
            for _, future in queued:
                if not future.done():
                    future.set_exception(copy.copy(e))
            return
        for (_, future), reply in zip(queued, replies, strict=True):
            if not future.done():
                future.set_result(reply)
