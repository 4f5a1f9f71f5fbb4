"""Who watches a table: each connection and its player, and how many sit nowhere.

Every snapshot and lobby row carries the spectator count, and counting the
viewers each time was 1.2 % of the server's CPU at 10,000 connections: the
count is kept until the viewers or the seats change. Change the viewers only
through `watch`, `unwatch` and `clear`, which note it.
"""

from __future__ import annotations

from websockets.asyncio.server import ServerConnection


class Viewers(dict[ServerConnection, str]):
    """connection -> player id, for a table."""

    def __init__(self) -> None:
        super().__init__()
        self._version = 0  # bumped by every change of the viewers
        self._counted: tuple[frozenset[str], int] | None = None  # (seated, version) counted
        self._count = 0

    def watch(self, ws: ServerConnection, player_id: str) -> None:
        self[ws] = player_id
        self._version += 1

    def unwatch(self, ws: ServerConnection) -> bool:
        """Stop watching; False if `ws` was not watching."""
        if ws not in self:
            return False
        del self[ws]
        self._version += 1
        return True

    def clear(self) -> None:
        super().clear()
        self._version += 1

    def spectators(self, seated: frozenset[str]) -> int:
        """The viewers not in `seated`: the table's players, a set the table makes
        again only when a seat is taken or freed, so the same set object means the
        same seats (and it is held here, so its identity is never reused)."""
        counted = self._counted
        if counted is None or counted[0] is not seated or counted[1] != self._version:
            self._count = sum(1 for pid in self.values() if pid not in seated)
            self._counted = (seated, self._version)
        return self._count
