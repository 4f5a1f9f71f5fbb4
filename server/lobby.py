"""The lobby: every table a client can play, this process's and (in a fleet) the others'.

A change marks the lobby dirty; watchers get the new lobby at the next
throttled push, so a crowd joining a table costs one lobby frame per interval.
A big lobby goes out less often: each row carries its variant's paytables (about
1.2 KB), so 1,000 tables make a 1.2 MB frame, and a push every interval to every
watcher would be megabytes a second each. Pushes are spaced so that a watcher
gets at most `PUSH_BYTES_PER_SECOND` of them; a `lobby` request is answered
with the current lobby at once, whatever its size.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from websockets.asyncio.server import ServerConnection

from protocol.codec import encode
from server.game.table import TableConfig
from server.metrics import Metrics
from server.outbox import Outbox

#: Lobby bytes a second a watcher is pushed at most (a small lobby: every interval).
PUSH_BYTES_PER_SECOND = 200_000


def fixed_row(config: TableConfig) -> dict[str, Any]:
    """What a table's lobby row says that never changes while the table is hosted (the
    variant with its paytables, above all): built once, not on every heartbeat."""
    return {
        "id": config.table_id,
        "title": config.title or config.table_id,
        "variant": config.variant.to_public(),
        "seats": config.seats,
        "min_ante": config.min_ante,
        "max_ante": config.max_ante,
        "progressive_stake": config.stake,
        "meter_share_bp": config.contribution_bp,
        "hands": config.hands,
        "max_seats_per_player": config.max_seats_per_player,
        "jackpot": config.jackpot,
    }


class Lobby:
    def __init__(
        self,
        local_rows: Callable[[], list[dict[str, Any]]],
        meters: Mapping[str, int],
        metrics: Metrics,
        outbox: Outbox,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.local_rows = local_rows  # this process's hosted tables, as lobby rows
        self.meters = meters
        self.metrics = metrics
        self.outbox = outbox
        self.watchers: set[ServerConnection] = set()
        self.remote: list[dict[str, Any]] = []  # other processes' rows, fresh ones only
        self.servers: list[str] = []  # other processes' addresses, standbys too
        self._dirty = False
        self._clock = clock
        self._next_push = 0.0  # no push before this (clock time): the last one's share

    def changed(self) -> None:
        self._dirty = True

    def watch(self, ws: ServerConnection, on: bool) -> None:
        if on:
            self.watchers.add(ws)
        else:
            self.watchers.discard(ws)

    def set_remote(self, rows: list[dict[str, Any]], servers: list[str] | None = None) -> None:
        servers = self.servers if servers is None else servers
        if rows != self.remote or servers != self.servers:
            self.remote, self.servers = rows, servers
            self.changed()

    def remote_row(self, table_id: str) -> dict[str, Any] | None:
        return next((r for r in self.remote if r["id"] == table_id), None)

    def frame(self) -> dict[str, Any]:
        local = self.local_rows()
        # a table this process just took over is still among the remote rows (its dead
        # host's) until the next heartbeat's read: listed once, here, where it is hosted
        hosted = {row["id"] for row in local}
        remote = [row for row in self.remote if row["id"] not in hosted]
        return {
            "t": "lobby",
            "tables": local + remote,
            "jackpots": dict(self.meters),
            "servers": self.servers,
        }

    def send_now(self, ws: ServerConnection) -> None:
        """Send the lobby at once to `ws`, if it watches it: a player leaving a table
        goes back to the lobby, which the leave just changed; the one in hand is the
        last throttled push, from before the leave (a full table left read "Free seats
        0 of 9" and "Table full" until the next one, seconds for a big lobby)."""
        if ws in self.watchers:
            self.metrics.frames_out += self.outbox.send_all((ws,), encode(self.frame()))

    def flush(self) -> None:
        """Send the lobby to its watchers if it changed since the last push, and the
        last push's bytes have had their time (it stays marked until then)."""
        if not (self._dirty and self.watchers):
            return
        now = self._clock()
        if now < self._next_push:
            return
        self._dirty = False
        data = encode(self.frame())
        self._next_push = now + len(data) / PUSH_BYTES_PER_SECOND
        self.metrics.frames_out += self.outbox.send_all(self.watchers, data)
