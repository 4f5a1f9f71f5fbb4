"""A hosted table's standing: the lease it acts under, and why it may be suspended."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Lease:
    """This process's hold on the table: its fencing epoch, and until when (event-loop
    clock) the lease is surely still ours; past it the room acts no more until renewed."""

    epoch: int
    valid_until: float


@dataclass(frozen=True, slots=True)
class Suspension:
    reason: str  # "store": the store does not answer; "lease": the lease is not renewed
    since: float
    wall_ms: int


#: What a player told `table_suspended` reads, by the suspension's reason.
REASONS = {
    "store": "the game's data store is not answering: the table is paused, nothing is lost",
    "lease": "this server cannot reach the fleet to keep the table: the table is paused",
}
