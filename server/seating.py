"""Which of this process's tables each player holds a seat at.

Asked on every hello, every closed connection and every end of a reconnect
grace: looking at every table instead costs a thousand tables' seat scans
per connection, seconds of a busy loop when ten thousand clients reconnect
at once. The rooms keep it current: they tell it their players after each
command and when they start afresh.
"""

from __future__ import annotations

from collections.abc import Set


class Seating:
    def __init__(self) -> None:
        self._tables: dict[str, set[str]] = {}  # player id -> table ids
        self._seated: dict[str, frozenset[str]] = {}  # table id -> its players, as told

    def update(self, table_id: str, players: Set[str]) -> None:
        """The players seated at `table_id` now (told after every command: cheap when
        nothing changed)."""
        before = self._seated.get(table_id, frozenset())
        if players == before:
            return
        after = self._seated[table_id] = frozenset(players)
        for player_id in before - after:
            tables = self._tables[player_id]
            tables.discard(table_id)
            if not tables:
                del self._tables[player_id]
        for player_id in after - before:
            self._tables.setdefault(player_id, set()).add(table_id)

    def tables_of(self, player_id: str) -> list[str]:
        """The tables the player is seated at here, by id."""
        return sorted(self._tables.get(player_id, ()))
