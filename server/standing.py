"""A hosted table's standing: the lease it acts under, and why it may be suspended."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

#: A table's snapshots under epoch E number from (E - 1) << SEQ_BITS, so a new host of
#: the table (a higher epoch) numbers above what an older one sent, and a client that
#: keeps the highest `seq` never keeps an old host's snapshot over the new host's. The
#: Redis store's epochs are at least its clock in ms at the claim: an old host would
#: need 1,024 changes a millisecond of its tenure to reach the next one's start. The
#: numbers stay exact in a browser (below 2**53) until epochs reach 2**43 ms (year 2248).
SEQ_BITS = 10


@dataclass(frozen=True, slots=True)
class Lease:
    """This process's hold on the table: its fencing epoch, and until when (event-loop
    clock) the lease is surely still ours; past it the room acts no more until renewed."""

    epoch: int
    valid_until: float

    @property
    def first_seq(self) -> int:
        """The `seq` the table starts at under this lease (0 for a table's first host)."""
        return max(self.epoch - 1, 0) << SEQ_BITS


@dataclass(frozen=True, slots=True)
class Suspension:
    reason: str  # "store": the store does not answer; "lease": the lease is not renewed;
    # "store_lost": the store answers without its data (`RedisStore.data_lost`)
    since: float
    wall_ms: int


#: What a player told `table_suspended` reads, by the suspension's reason.
REASONS = {
    "store": (
        "the game's data store is not answering or not taking writes: play waits for it, "
        "nothing is lost"
    ),
    "lease": (
        "this server has not renewed its hold on the table (it cannot reach the fleet, "
        "or it stood still): play waits; if another server takes the table over, it "
        "voids the round and refunds every bet"
    ),
    "store_lost": (
        "the game's data store came back without its data: play waits until the casino "
        "restores it; nothing more is taken or paid meanwhile"
    ),
}


def shutdown_notice(since_ms: int, grace: int, now_ms: int) -> dict[str, object]:
    """The snapshot's `paused` while the server shuts down (PROTOCOL.md §5): no new
    round, and one not over within the grace (whole seconds) is voided; `voids_in_ms`:
    what is left of it at `now_ms`, when the snapshot is made (as its `ends_in_ms`)."""
    reason = (
        f"this server is shutting down: a round not over within {grace} s is voided, every "
        "bet refunded; no new one starts here"
    )
    left = max(0, since_ms + grace * 1000 - now_ms)
    return {"reason": reason, "since_ms": since_ms, "shutdown": True, "voids_in_ms": left}


def jackpot_won(
    table: str, round_id: str, name: str, amount: int, won: Mapping[str, object]
) -> dict[str, object]:
    """The `jackpot_won` frame every process's players are sent (PROTOCOL.md): `won`
    holds the seat, the player_id and the category."""
    return {
        "t": "jackpot_won",
        "table": table,
        "round_id": round_id,
        **won,
        "name": name,
        "amount": amount,
    }
