"""What a table's viewers are shown: its public snapshot, and each player's own hand.

The room decides when to send; this decides what, and remembers what went out.
While a settlement is being written, viewers keep seeing what they were last
shown (a showdown whose outcome is in doubt is not revealed); a suspended
table shows only what is durable.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from websockets.asyncio.server import ServerConnection

from protocol.codec import encode
from server.game.table import Phase, Table, TableConfig
from server.game.views import own_hands, public_view
from server.standing import Suspension
from server.viewers import Viewers


class Shown:
    """A table's last snapshot and private hands, as its viewers were shown them."""

    def __init__(self, config: TableConfig) -> None:
        self.title = config.title or config.table_id
        self.jackpot = config.jackpot
        self.meter, self.at = -1, -1.0  # the meter in the last snapshot, and when
        self.reset()

    def reset(self) -> None:
        """A fresh engine: nothing of the old one counts as shown."""
        self.seq = -1  # the last `seq` broadcast to every viewer
        self.built = -1  # the last `seq` a snapshot was made of, for anyone
        self.made = -1  # the `seq` of the last snapshot made (an older one while writing)
        self.spectators = -1  # the spectator count in the snapshot of `built`
        self.view: dict[str, Any] | None = None  # the last snapshot built while running
        self.hands_round: str | None = None  # the round whose private hands went out
        # the connections shown the snapshot of `joiners_seq` as they joined
        self.joiners: set[ServerConnection] = set()
        self.joiners_seq = -1

    def joined(self, ws: ServerConnection) -> None:
        """`ws` was just shown the last snapshot made: its broadcast need not go to it."""
        if self.joiners_seq != self.made:
            self.joiners, self.joiners_seq = set(), self.made
        self.joiners.add(ws)

    def broadcast_to(self, viewers: Viewers) -> Iterable[ServerConnection]:
        """Who the broadcast of `seq` goes to: every viewer but those who joined under
        it (one seq is one snapshot, sent once to each)."""
        joiners = self.joiners if self.joiners_seq == self.seq else ()
        self.joiners, self.joiners_seq = set(), -1
        if not joiners:
            return viewers
        return [ws for ws in viewers if ws not in joiners]

    def snapshot(
        self,
        table: Table,
        now: float,
        *,
        spectators: int,
        meter: int,
        suspended: Suspension | None,
        writing: bool,
        paused: dict[str, Any] | None,
        shown: bool = True,
    ) -> bytes:
        """The public snapshot; `writing`: an owed write (a settlement) is out, so the
        engine is ahead of what is durable. Not `shown` (the console's look): no viewer
        gets it, so nothing here records it as shown (the meter in it above all: its
        viewers would be taken as told that amount, and never pushed it)."""
        if suspended is None and writing and self.view is not None:
            # a settlement is being written: a joiner sees what everyone was last shown,
            # its spectator count too (one seq is one snapshot); the settled one counts it
            if shown:
                self.made = self.view["seq"]
            return encode(self.view)
        if suspended is None:
            view = public_view(table, now)
            view["t"] = "table"
            view["spectators"] = spectators
            view["title"] = self.title
            view["jackpot"] = {"name": self.jackpot, "amount": meter}
            view["suspended"] = None
            view["paused"] = paused
            if shown:
                self.meter, self.at = meter, now
                self.view = view
                self.built = self.made = table.seq
                self.spectators = spectators
            return encode(view)
        # Paused: what is durable. While an owed write is out, what was last shown (a
        # showdown whose settlement is in doubt is not revealed); with none out (a lapsed
        # lease), the table as it stands, every change of it in the store already.
        base = self.view if writing else None
        if base is None:
            base = public_view(table, now)
            base.update(t="table", title=self.title, spectators=0)
            base["jackpot"] = {"name": self.jackpot, "amount": meter}
        view = {
            **base,
            "seq": table.seq,
            "phase": "suspended",
            "ends_in_ms": None,
            "spectators": spectators,
            "suspended": {
                "phase": base["phase"],
                "reason": suspended.reason,
                "since_ms": suspended.wall_ms,
            },
            "paused": paused,
        }
        if shown:
            self.built = self.made = table.seq
            self.spectators = spectators
        return encode(view)

    def hands(self, table: Table, viewers: Viewers) -> list[tuple[ServerConnection, bytes]]:
        """Once per round, right after the snapshot that dealt them: each player's own
        cards, for that player's connections alone (none again for that round)."""
        rid = table.round_id
        if table.phase is not Phase.DECIDING or rid is None or rid == self.hands_round:
            return []
        self.hands_round = rid
        frames: dict[str, bytes | None] = {}
        out = []
        for ws, pid in viewers.items():
            if pid is None:
                continue
            if pid not in frames:
                own = own_hands(table, pid)
                frames[pid] = None if own is None else encode(own)
            frame = frames[pid]
            if frame is not None:
                out.append((ws, frame))
        return out
