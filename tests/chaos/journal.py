"""What the bots did and what they were told: the ground truth for the reconciliation.

Every request a bot (or a token racer) sends becomes one `Op` with the reply it
got: `ok` (with the reply's data), `error` (with its code), `no_reply` (the
connection was lost, or the server said nothing within the bot's timeout, before
a reply came) or `not_sent` (the connection was already gone; the server never
saw it). Every showdown result for a bot's own seat is a `Shown`, every `balance`
frame a `BalanceSeen`, and each change of a table's round or phase a bot saw is
a `Seen` (these give each round a lifetime, to line rounds up with faults).

Times are Unix seconds (`time.time()`), the clock the servers' JSON logs use.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

#: Outcomes of a request.
OK, ERROR, NO_REPLY, NOT_SENT = "ok", "error", "no_reply", "not_sent"


@dataclass
class Op:
    """One request and its reply, as the player experienced it."""

    bot: str
    player: str  # player id; "" before the connection was welcomed
    conn: int  # the bot's connection serial
    url: str  # the process it went to
    op: str  # the message type
    fields: dict[str, Any]
    sent: float
    recv: float | None = None
    outcome: str = NO_REPLY
    code: str = ""  # the error code
    data: dict[str, Any] = field(default_factory=dict)  # the reply, without t and id
    table: str = ""
    seat: int | None = None
    #: The round the request concerned: for an ante, the round the server put it in
    #: (from the first snapshot after the reply showing the ante; None when the
    #: connection went before one came); for decisions and withdrawals, the round
    #: the bot saw when it sent the request.
    round_id: str | None = None
    phase: str = ""  # the table's phase as the bot saw it when sending
    #: For `leave`: the seats that had an ante in play while betting when the bot
    #: sent it, as [seat, round_id] (a leave while betting refunds them).
    live: list[list[Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.outcome == OK

    @property
    def told_failed(self) -> bool:
        """The player was told this changed nothing (an error, or it never left)."""
        return self.outcome in (ERROR, NOT_SENT)

    @property
    def unknown(self) -> bool:
        """The player was told nothing: it may or may not have been applied."""
        return self.outcome == NO_REPLY

    def brief(self) -> dict[str, Any]:
        """What a violation quotes of the request."""
        out: dict[str, Any] = {
            "bot": self.bot,
            "op": self.op,
            "url": self.url,
            "sent": round(self.sent, 3),
            "outcome": self.outcome,
        }
        for key in ("code", "table", "seat", "round_id"):
            value = getattr(self, key)
            if value not in ("", None):
                out[key] = value
        if "amount" in self.fields:
            out["amount"] = self.fields["amount"]
        return out


@dataclass
class Shown:
    """A showdown result the player saw for one of their seats."""

    bot: str
    player: str
    url: str
    table: str
    round_id: str
    seat: int
    net: int
    outcome: str
    seq: int
    ts: float


@dataclass
class BalanceSeen:
    bot: str
    player: str
    url: str
    ts: float
    balance: int
    held: int
    available: int


@dataclass
class Seen:
    """A bot saw `table` in `phase` of `round_id` (logged when either changes)."""

    table: str
    round_id: str | None
    phase: str
    ts: float
    url: str


@dataclass
class Journal:
    ops: list[Op] = field(default_factory=list)
    shown: list[Shown] = field(default_factory=list)
    balances: list[BalanceSeen] = field(default_factory=list)
    seen: list[Seen] = field(default_factory=list)
    #: Player ids the bots were welcomed as (every one started with the credits).
    players: set[str] = field(default_factory=set)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ops": [asdict(o) for o in self.ops],
            "shown": [asdict(s) for s in self.shown],
            "balances": [asdict(b) for b in self.balances],
            "seen": [asdict(s) for s in self.seen],
            "players": sorted(self.players),
        }

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_dict()), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> Journal:
        data = json.loads(path.read_text(encoding="utf-8"))
        ops = [Op(**o) for o in data["ops"]]
        for op in ops:  # what the server said wins over the round the bot guessed
            if op.op == "ante" and isinstance((op.data or {}).get("round_id"), str):
                op.round_id = op.data["round_id"]
        return cls(
            ops,
            [Shown(**s) for s in data["shown"]],
            [BalanceSeen(**b) for b in data["balances"]],
            [Seen(**s) for s in data["seen"]],
            set(data["players"]),
        )
