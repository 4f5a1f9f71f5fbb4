"""What this terminal saw of each deal, so every revealed proof is checked against it.

The witness remembers each round's commitment from before the deal and the
client seeds that may have been in effect, and checks the proof revealed at
showdown (and each history record) with `clients.verify`: a server that
changed the deck after committing, or ignored the player's seed, is caught.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any, Final

from clients.verify import Round, Unreadable, Verdict, check, round_from_record, round_from_snapshot

REMEMBERED_ROUNDS: Final = 500  # per-round memory kept, oldest dropped first


class FairnessWitness:
    def __init__(self) -> None:
        self.commitments: dict[str, tuple[str, bool]] = {}  # round -> (commitment, before deal)
        self.verdicts: dict[str, Verdict] = {}  # round -> check of its showdown proof
        self.seed_choice: dict[str, str] = {}  # table -> the client seed the player chose
        self.client_seeds: dict[str, str] = {}  # table -> the seed this session confirmed
        self.pending_seeds: dict[str, str] = {}  # table -> a seed sent, not yet confirmed
        self.round_seeds: dict[str, frozenset[str]] = {}  # round -> seeds that may have counted

    def note(self, snap: dict[str, Any], me: str | None) -> None:
        """Remember the commitment before the deal and the seeds we may have dealt with;
        check the proof once, at the round's first showdown snapshot."""
        rid, phase, table = snap.get("round_id"), snap.get("phase"), str(snap["table"])
        fair = snap.get("fairness")
        if rid is None:
            return
        rid = str(rid)
        if (
            phase in ("betting", "deciding")
            and isinstance(fair, dict)
            and fair.get("commitment")
            and rid not in self.commitments
        ):
            # seen in betting, before the cards are out, it binds the deck; seen in
            # deciding (joined late) it still binds the seed revealed at showdown
            remember(self.commitments, rid, (str(fair["commitment"]), phase == "betting"))
        if phase in ("deciding", "showdown") and rid not in self.round_seeds:
            seeds = {self.client_seeds[table]} if table in self.client_seeds else set()
            if table in self.pending_seeds:  # sent, maybe too late: either may have counted
                seeds |= {self.pending_seeds[table], self.client_seeds.get(table, "")}
            if seeds:
                remember(self.round_seeds, rid, frozenset(seeds))
        if phase == "showdown" and rid not in self.verdicts:
            try:
                rnd = round_from_snapshot(snap)
            except Unreadable as e:
                remember(self.verdicts, rid, Verdict(rid, (str(e),)))
                return
            owners = {
                i: str(s.get("player_id"))
                for i, s in enumerate(snap.get("seats") or [])
                if isinstance(s, dict)
            }
            remember(self.verdicts, rid, self.check(rnd, owners, me))

    def check_record(self, record: dict[str, Any], me: str | None) -> Verdict:
        rid = str(record.get("round_id"))
        try:
            rnd = round_from_record(record)
        except Unreadable as e:
            return Verdict(rid, (str(e),))
        owners = {
            int(s["seat"]): str(s.get("player_id"))
            for s in record.get("seats") or []
            if isinstance(s, dict) and type(s.get("seat")) is int
        }
        return self.check(rnd, owners, me)

    def check(self, rnd: Round, owners: dict[int, str], me: str | None) -> Verdict:
        """Against the commitment this terminal saw (if it saw one) and, for our own seats
        (`owners`: seat -> player id), the client seeds we may have had in effect."""
        promised, before = self.commitments.get(rnd.round_id, (None, True))
        allowed = self.round_seeds.get(rnd.round_id)
        mine = {h.seat: allowed for h in rnd.hands if allowed and owners.get(h.seat) == me}
        return check(rnd, promised=promised, before_deal=before, my_seeds=mine)


def remember(memory: MutableMapping[str, Any], key: str, value: Any) -> None:
    """Store, forgetting the oldest entries past `REMEMBERED_ROUNDS` (dicts keep order)."""
    memory[key] = value
    while len(memory) > REMEMBERED_ROUNDS:
        del memory[next(iter(memory))]
