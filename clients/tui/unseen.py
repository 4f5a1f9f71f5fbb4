"""The player's round at the table on screen, kept through reconnects and moves.

A round with the player's bets can end out of sight: the link was down while it
was decided and settled, the server shut down and voided it, or its host lost the
table and the new host voided it (PROTOCOL.md section 6, Faults). The next
snapshot just shows no round, and the wallet moves without a word. `RoundWatch`
notices the round gone and keeps it `untold` until the app has asked the history
how it ended (a settled round is in it, a voided one is not) and said so, once.

The new host of a table holds none of the old host's seats: the table shows there with
the player unseated. `SeatWatch` notices the table shown by another process than the
one it was last seen at, and keeps the player's seats there `gone` until said, once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from clients.connection import as_it_stands

IN_PLAY: Final = frozenset({"betting", "deciding"})  # phases a bet of the round is at stake


@dataclass(frozen=True, slots=True)
class Untold:
    table: str
    round_id: str
    shutdown: bool  # gone as its server shut down: voided, and no history to ask there


def own_bet(snap: Mapping[str, Any], me: str | None) -> bool:
    """Whether a seat of `me` has an ante in the snapshot's round."""
    seats = snap.get("seats") or []
    return any(isinstance(s, dict) and s.get("player_id") == me and s.get("ante") for s in seats)


class RoundWatch:
    """The last round seen in play with a bet of the player's, and one gone untold."""

    def __init__(self) -> None:
        self.table: str | None = None
        self.round_id: str | None = None
        self.untold: Untold | None = None
        self.given_up: str | None = None  # a round the server said it gave up: told

    def note(self, snap: Mapping[str, Any], me: str | None) -> Untold | None:
        """A snapshot of the table on screen; returns the round it shows gone, if so.
        A round ends in sight through its showdown, which forgets it; one that is
        simply no longer there ended out of sight."""
        table, rid = str(snap.get("table")), snap.get("round_id")
        gone = None
        if self.round_id is not None and table == self.table and rid != self.round_id:
            paused = snap.get("paused")
            shutdown = isinstance(paused, dict) and bool(paused.get("shutdown"))
            gone = self.untold = Untold(table, self.round_id, shutdown)
            self.round_id = None
        if rid is not None and as_it_stands(dict(snap)).get("phase") in IN_PLAY:
            if own_bet(snap, me) and rid != self.given_up:
                self.table, self.round_id = table, str(rid)
            elif table == self.table and rid == self.round_id:
                self.round_id = None  # the bet withdrawn: nothing of ours in it any more
        elif table == self.table and rid == self.round_id:
            self.round_id = None  # its showdown, seen
        return gone

    def forget(self) -> None:
        """The player left the table, or is another player now: nothing to tell."""
        self.table = self.round_id = None
        self.untold = None

    def give_up(self, round_id: str) -> None:
        """The table starts over (`table_restarted`), its round given up and said so: the
        snapshots still showing it (suspended) and the one without it tell nothing (a
        round gone earlier and not yet told still is)."""
        if round_id == self.round_id:
            self.round_id = None
        self.given_up = round_id


def seats_of(snap: Mapping[str, Any], me: str | None) -> list[int]:
    """The seats of `me` in the snapshot (0-based)."""
    seats: Sequence[Any] = snap.get("seats") or []
    return [i for i, s in enumerate(seats) if isinstance(s, dict) and s.get("player_id") == me]


class SeatWatch:
    """The player's seats at the table on screen, at the process it was last seen at;
    and those lost out of sight, not yet said: left behind by a move to another process
    ("moved"), let go by a server that shut down and started again ("restarted"), or
    let go while the link was down ("away": past the reconnect grace, or a crash)."""

    def __init__(self) -> None:
        self.table: str | None = None
        self.host: str | None = None
        self.seats: list[int] = []
        self.closing = False  # the last snapshot said its server was shutting down
        self.relinking = False  # the link came back: the next snapshot is the first since
        self.gone: tuple[str, list[int], str] | None = None  # (table, seats, why)

    def relinked(self) -> None:
        """The link is back (the table joined again): what the next snapshot lacks of
        ours went while we could not see it."""
        self.relinking = True

    def note(self, snap: Mapping[str, Any], me: str | None, host: str) -> None:
        """A snapshot of the table on screen, from the process at `host`. Shown by another
        process than before, or the first since the link came back, with none of the
        player's seats: those are gone."""
        table, mine = str(snap.get("table")), seats_of(snap, me)
        if table == self.table and self.seats and not mine:
            if host != self.host:
                self.gone = (table, self.seats, "moved")
            elif self.relinking:
                self.gone = (table, self.seats, "restarted" if self.closing else "away")
        paused = snap.get("paused")
        self.closing = isinstance(paused, Mapping) and bool(paused.get("shutdown"))
        self.table, self.host, self.seats, self.relinking = table, host, mine, False

    def take_gone(self, table: str | None) -> tuple[list[int], str]:
        """The seats lost out of sight at `table`, and why, to be said now (none: [])."""
        if self.gone is None or self.gone[0] != table:
            return [], ""
        (_, seats, why), self.gone = self.gone, None
        return seats, why

    def keep_untold(self, table: str, seats: list[int], why: str) -> None:
        """Taken, but not said (the link down again): said after the next join."""
        if seats:
            self.gone = (table, seats, why)

    def forget(self) -> None:
        """The player left the table, or is another player now: nothing to tell."""
        self.table = self.host = self.gone = None
        self.seats = []
        self.closing = self.relinking = False
