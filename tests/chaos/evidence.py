"""The evidence a chaos run gathers and the shapes of its findings; ledger arithmetic.

Shared by the checks (reconcile.py, rounds.py, hosts.py)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from tests.chaos.faults import Fault
from tests.chaos.journal import Journal, Op
from tests.chaos.logs import (
    ServerLogs,
)
from tests.chaos.store import RoundState, Row, StoreDump

#: Seconds around a round's observed lifetime within which a request may have hit it.
SLACK = 2.0
#: An ante sent while the table waits goes into the round its next accepted ante
#: opens, however long after: the seconds before a round a failed ante is looked for.
WAITING = 30.0
#: At most this many examples of one kind of violation are listed one by one.
EXAMPLES = 25


@dataclass
class Violation:
    check: str
    kind: str
    detail: str
    player: str | None = None
    table: str | None = None
    round_id: str | None = None
    seat: int | None = None
    op: dict[str, Any] | None = None
    expected: Any = None
    actual: Any = None
    ts: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, {}, [])}

    def line(self) -> str:
        where = " ".join(
            f"{k}={v}"
            for k, v in (
                ("player", self.player),
                ("table", self.table),
                ("round", self.round_id),
                ("seat", self.seat),
            )
            if v is not None
        )
        told = ""
        if self.expected is not None or self.actual is not None:
            told = f" (expected {self.expected!r}, found {self.actual!r})"
        return f"[{self.kind}] {self.detail}{told}" + (f" {{{where}}}" if where else "")


@dataclass
class CheckResult:
    name: str
    title: str
    violations: list[Violation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return not self.violations

    def add(self, kind: str, detail: str, **kw: Any) -> Violation:
        v = Violation(self.name, kind, detail, **kw)
        self.violations.append(v)
        return v

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "passed": self.passed,
            "violations": [v.to_dict() for v in self.violations],
            "notes": self.notes,
            "stats": self.stats,
        }


@dataclass
class Facts:
    """What the harness knows about the run itself."""

    starting_credits: int
    tables: list[str]
    fleet_ttl: float = 2.0
    faults: list[Fault] = field(default_factory=list)
    calm_start: float | None = None  # faults over, everything healed
    shutdown_start: float | None = None  # the harness sent SIGTERM to the servers
    exits: dict[str, int | None] = field(default_factory=dict)  # identity -> exit status
    bot_failures: list[str] = field(default_factory=list)
    injector_errors: list[str] = field(default_factory=list)
    expected_kinds: list[str] = field(default_factory=list)  # fault kinds the run must inject
    #: at the quiet after the calm (bots hushed, no money in flight): per connected bot,
    #: {bot, player, url, shown: the wallet last told, store: {balance, held}}
    wallets_compared: list[dict[str, Any]] = field(default_factory=list)
    wallets_at_rest: bool | None = None  # None: the run never got that far

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["faults"] = [f.to_dict() for f in self.faults]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Facts:
        faults = [Fault(**f) for f in data.pop("faults", [])]
        return cls(**data, faults=faults)


@dataclass
class Evidence:
    journal: Journal
    store: StoreDump
    logs: ServerLogs
    facts: Facts


@dataclass
class Finding:
    """A request whose reply the store contradicts."""

    op: Op
    verdict: str  # told_failed_applied | told_ok_not_applied
    why: str


# ----- the ledger ----------------------------------------------------------------


def account(player: str) -> str:
    return f"player:{player}"


def row_net(rows: Iterable[Row], player: str, seat: int | None = None) -> int:
    """What the rows gave the player minus what they took (at one seat, if given)."""
    me = account(player)
    net = 0
    for r in rows:
        if seat is not None and r.seat != seat:
            continue
        if r.target == me:
            net += r.amount
        if r.source == me:
            net -= r.amount
    return net


def players_of(rows: Iterable[Row]) -> set[str]:
    out = set()
    for r in rows:
        for a in (r.source, r.target):
            if a.startswith("player:"):
                out.add(a[len("player:") :])
    return out


@dataclass
class Position:
    """One seat's bets in one round, from the ledger."""

    antes: list[int]  # ante amounts placed
    refunded: int  # of those, given back (a refund row of the same amount from the house)
    raises: int

    @property
    def live(self) -> int:
        return len(self.antes) - self.refunded


def position(rows: Iterable[Row], player: str, seat: int) -> Position:
    """Antes placed minus antes refunded, for one seat of one player.

    An ante row moves the ante from the player to the house; a refund of it moves
    the same amount back from the house. Raise refunds (twice an ante) and
    progressive refunds (from the meter, and the house's share of the stake) have
    other amounts: the bots' ante amounts are chosen so no two of these can be
    confused (bots.ANTES), so each refund row of an ante's amount gives back one ante.
    """
    me = account(player)
    antes: list[int] = []
    refunds: Counter[int] = Counter()
    raises = 0
    for r in rows:
        if r.seat != seat:
            continue
        if r.reason == "ante" and r.source == me:
            antes.append(r.amount)
        elif r.reason == "raise" and r.source == me:
            raises += 1
        elif r.reason == "refund" and r.target == me and r.source == "house":
            refunds[r.amount] += 1
    refunded = 0
    for amount in antes:
        if refunds[amount] > 0:
            refunds[amount] -= 1
            refunded += 1
    return Position(antes, refunded, raises)


def table_of(round_id: str, rs: RoundState | None, tables: Sequence[str]) -> str:
    if rs is not None and rs.table:
        return rs.table
    prefixes = [t for t in tables if round_id.startswith(f"{t}-")]
    return max(prefixes, key=len) if prefixes else ""


def round_windows(ev: Evidence) -> dict[str, tuple[float, float]]:
    """Each round's observed lifetime: bots' snapshots and requests, log lines, history."""
    spans: dict[str, list[float]] = defaultdict(list)
    for s in ev.journal.seen:
        if s.round_id:
            spans[s.round_id].append(s.ts)
    for sh in ev.journal.shown:
        spans[sh.round_id].append(sh.ts)
    for op in ev.journal.ops:
        if op.round_id:
            spans[op.round_id] += [t for t in (op.sent, op.recv) if t is not None]
    for rec in ev.logs.records:
        rid = rec.fields.get("round_id")
        if isinstance(rid, str):
            spans[rid].append(rec.ts)
    for entries in ev.store.table_history.values():
        for entry in entries:
            rid = (entry.get("record") or {}).get("round_id")
            if rid and entry.get("settled_at"):
                spans[str(rid)].append(int(entry["settled_at"]) / 1000)
    return {rid: (min(ts), max(ts)) for rid, ts in spans.items() if ts}


def settlement_record(store: StoreDump, round_id: str, table: str) -> dict[str, Any] | None:
    for entry in store.table_history.get(table, []):
        record = entry.get("record") or {}
        if record.get("round_id") == round_id:
            return dict(record)
    return None
