"""The reconciliation: what the store applied against what the players were told.

Pure functions of the evidence (`Evidence`: the bots' journal, the store read out
of Redis, the servers' logs, the run's facts), so `tests/test_chaos_reconcile.py`
can feed them synthetic cases with known violations. Each check returns a
`CheckResult` whose `violations` carry enough to debug one: the player, the
round, the seat, the request, what was expected and what was found.

    a  books      every account sums to 0
    b  holds      every hold released; no round open
    c  balances   each player's balance = credits + purchases told ok + the round ledgers
    d  rounds     each round's ledger against what its seats were told and shown
    e  hosts      one host per table at any moment (split-brain seconds = 0)
    f  replies    every reply matches what the store applied (per request, from c and d)
    g  liveness   every table plays again once the faults stop; no `shutting_down`
                  refusal from a server that was not shutting down; clean exits
    h  harness    the harness itself ran as designed (bots, fault injection)

Ledger rows are `[round_id, seat, reason, source, target, amount]`: `amount`
cents from `source` to `target`, accounts `player:<id>`, `house`, `meter:<name>`.
A player's net in a round is what the rows gave them minus what the rows took.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from tests.chaos.faults import Fault
from tests.chaos.journal import Journal, Op, Shown
from tests.chaos.logs import (
    ACTIONS,
    CANONICAL,
    CLAIM,
    DEAL,
    LOST,
    SETTLE,
    VOID,
    ServerLogs,
    TableEvent,
    table_events,
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


# ----- a: the books ----------------------------------------------------------------


def check_books(ev: Evidence) -> CheckResult:
    c = CheckResult("a", "every account sums to 0")
    total = sum(ev.store.acct.values())
    c.stats = {"accounts": len(ev.store.acct), "sum": total}
    if not ev.store.acct:
        c.add("no_accounts", "the store holds no accounts at all: nothing was read")
    elif total != 0:
        c.add("books_unbalanced", "the accounts do not sum to 0", expected=0, actual=total)
    return c


# ----- b: holds and open rounds ------------------------------------------------------


def check_holds(ev: Evidence) -> CheckResult:
    c = CheckResult("b", "every hold released, no round open")
    store = ev.store
    for pid, amount in sorted(store.held.items()):
        if amount != 0:
            c.add(
                "hold_not_released",
                "the player still has cents held for a raise",
                player=pid,
                expected=0,
                actual=amount,
            )
    open_ids = {rid for ids in store.open_sets.values() for rid in ids}
    open_ids |= {rid for rid, r in store.rounds.items() if r.state == "open"}
    for rid in sorted(open_ids):
        rs = store.rounds.get(rid)
        table = table_of(rid, rs, ev.facts.tables)
        stakes = {}
        if rs is not None:
            for pid in sorted(players_of(rs.ledger)):
                stakes[pid] = row_net(rs.ledger, pid)
        listed = [t for t, ids in store.open_sets.items() if rid in ids]
        c.add(
            "round_open",
            "the round is still open after every server stopped (its bets neither paid "
            "nor refunded)",
            table=table,
            round_id=rid,
            expected="settled or voided",
            actual=rs.state if rs is not None else None,
            extra={"in_open_set_of": listed, "player_nets_in_ledger": stakes},
        )
    for rid, rs in sorted(store.rounds.items()):
        amounts = {k: v for k, v in rs.holds.items() if not k.endswith(":player") and v != "0"}
        if amounts:
            c.add(
                "round_holds_left",
                "the round's holds were never released",
                round_id=rid,
                table=table_of(rid, rs, ev.facts.tables),
                actual=rs.holds,
            )
    c.stats = {
        "held_total": sum(store.held.values()),
        "open_rounds": len(open_ids),
        "rounds": len(store.rounds),
    }
    return c


# ----- c: balances ---------------------------------------------------------------------


def subset_with_sum(ops: Sequence[Op], target: int, limit: int = 64) -> list[Op] | None:
    """Some of the purchases whose amounts add up to `target` exactly, if any."""
    if target <= 0:
        return [] if target == 0 else None
    reach: dict[int, tuple[int, ...]] = {0: ()}
    for i, op in enumerate(ops[:limit]):
        amount = int(op.fields.get("amount", 0))
        for total, picked in list(reach.items()):
            t = total + amount
            if t <= target and t not in reach:
                reach[t] = (*picked, i)
        if target in reach or len(reach) > 200_000:
            break
    return [ops[i] for i in reach[target]] if target in reach else None


def check_balances(ev: Evidence) -> tuple[CheckResult, list[Finding]]:
    """Balance in Redis == starting credits + purchases told ok + every round's net.

    A difference is first explained, if it can be, by purchases that got no reply
    (the player was told nothing: applied or not, both are honest); otherwise the
    purchases told failed that add up to it are named, or those told ok that do.
    """
    c = CheckResult("c", "each balance = credits + purchases told ok + the round ledgers")
    findings: list[Finding] = []
    store = ev.store
    nets: Counter[str] = Counter()
    for rs in store.rounds.values():
        for pid in players_of(rs.ledger):
            nets[pid] += row_net(rs.ledger, pid)
    buys: dict[str, dict[str, list[Op]]] = defaultdict(lambda: defaultdict(list))
    for op in ev.journal.ops:
        if op.op == "buy_chips" and op.player:
            group = "ok" if op.ok else "unknown" if op.unknown else "failed"
            buys[op.player][group].append(op)
    players = {a[len("player:") :] for a in store.acct if a.startswith("player:")}
    players |= ev.journal.players
    checked = explained = 0
    for pid in sorted(players):
        actual = store.acct.get(account(pid))
        if actual is None:
            c.add("player_missing", "the player was welcomed but has no account", player=pid)
            continue
        mine = buys[pid]
        told = sum(int(o.fields["amount"]) for o in mine["ok"])
        expected = ev.facts.starting_credits + told + nets[pid]
        checked += 1
        diff = actual - expected
        if diff == 0:
            continue
        if subset_with_sum(mine["unknown"], diff) is not None:
            explained += 1
            c.notes.append(f"{pid}: {diff:+d} cents from purchases that got no reply")
            continue
        detail = {
            "starting_credits": ev.facts.starting_credits,
            "buys_told_ok": told,
            "round_nets": nets[pid],
            "difference": diff,
        }
        applied = subset_with_sum(mine["unknown"] + mine["failed"], diff) if diff > 0 else None
        missing = subset_with_sum(mine["ok"], -diff) if diff < 0 else None
        if applied:
            failed = [o for o in applied if o.told_failed]
            for o in failed:
                findings.append(Finding(o, "told_failed_applied", f"the balance is {diff:+d}"))
            c.add(
                "buy_in_told_failed_applied",
                f"{len(failed)} purchase(s) the player was told failed were applied",
                player=pid,
                expected=expected,
                actual=actual,
                op=failed[0].brief() if failed else None,
                extra={**detail, "purchases": [o.brief() for o in applied]},
            )
        elif missing:
            for o in missing:
                findings.append(Finding(o, "told_ok_not_applied", f"the balance is {diff:+d}"))
            c.add(
                "buy_in_told_ok_missing",
                f"{len(missing)} purchase(s) the player was told succeeded are not in the balance",
                player=pid,
                expected=expected,
                actual=actual,
                op=missing[0].brief(),
                extra={**detail, "purchases": [o.brief() for o in missing]},
            )
        else:
            c.add(
                "balance_mismatch",
                "the balance is not what the purchases and the round ledgers make it",
                player=pid,
                expected=expected,
                actual=actual,
                extra=detail,
            )
    c.stats = {"players": checked, "explained_by_no_reply": explained}
    return c, findings


# ----- d: rounds -----------------------------------------------------------------------

Key = tuple[str, int, str]  # (round id, seat, player)


def _near(op: Op, window: tuple[float, float] | None, before: float = SLACK) -> bool:
    return window is None or window[0] - before <= op.sent <= window[1] + SLACK


def _amount(op: Op) -> int:
    return int(op.fields.get("amount", 0))


def check_rounds(
    ev: Evidence, windows: dict[str, tuple[float, float]]
) -> tuple[CheckResult, list[Finding]]:
    """Each round's ledger against what its seats were told and shown.

    Per (round r, seat s, player p), from the ledger rows of p at s in r:
      live  = ante rows - refund rows giving one of those antes back (`position`);
      raise = raise rows.
    From the journal (requests of p, acknowledged with `ok`):
      told  = antes the server put in r at s (the round of the first snapshot
              showing the ante after its `ok`)
              - withdrawals of s sent while r was betting
              - leaves that refunded s: a leave sent while r was betting refunds s
                if the table was still betting when the server took it; it was if
                p anted s again in r afterwards, or if s is absent from r's
                settlement record (`hist:table:<id>`); unknown without the record.
    Rules:
      1. live is 0 or 1: never two antes in play on one seat (`double_ante`);
      2. r voided: live = 0 (the void gives every bet back);
      3. r settled: live = told and raise = raises told ok, except that each
         request that got no reply (and each acknowledged ante whose round the bot
         could not see) may account for one more (or one less);
      4. r open: reported by check b;
      5. each result shown at showdown to p for s in r: r is settled (not voided,
         not open) and p's net at s in r's ledger equals the shown `result.net`.
    An excess that nothing told explains names the antes told failed (error replies)
    of that seat and amount around the round, the likely ones applied anyway
    (`ante_applied_unasked`); with none, the withdrawal or leave told ok whose
    refund never reached the ledger (`refund_told_missing`).
    """
    c = CheckResult("d", "each round's ledger matches what its seats were told and shown")
    findings: list[Finding] = []
    store, tables = ev.store, ev.facts.tables

    told_ante: Counter[Key] = Counter()
    told_back: Counter[Key] = Counter()
    amb_back: Counter[Key] = Counter()
    told_raise: Counter[Key] = Counter()
    amb_raise: Counter[Key] = Counter()
    ok_antes: dict[Key, list[Op]] = defaultdict(list)
    back_ops: dict[Key, list[Op]] = defaultdict(list)  # acknowledged refunds (withdraw, leave)
    failed_antes: dict[tuple[str, int, str], list[Op]] = defaultdict(list)
    failed_raises: dict[Key, list[Op]] = defaultdict(list)
    spare: list[Op] = []  # antes that may or may not be in the ledger
    leaves: list[Op] = []
    ops = sorted(ev.journal.ops, key=lambda o: o.sent)
    for op in ops:
        if not op.player or (op.seat is None and op.op != "leave"):
            continue
        if op.op == "ante" and op.seat is not None:
            if op.ok and op.round_id:
                key = (op.round_id, op.seat, op.player)
                told_ante[key] += 1
                ok_antes[key].append(op)
            elif op.ok or op.unknown:
                spare.append(op)
            else:
                failed_antes[(op.table, op.seat, op.player)].append(op)
        elif op.op == "withdraw" and op.round_id and op.seat is not None:
            key = (op.round_id, op.seat, op.player)
            if op.ok:
                told_back[key] += 1
                back_ops[key].append(op)
            elif op.unknown:
                amb_back[key] += 1
        elif op.op == "raise" and op.round_id and op.seat is not None:
            key = (op.round_id, op.seat, op.player)
            if op.ok:
                told_raise[key] += 1
            elif op.unknown:
                amb_raise[key] += 1
            else:
                failed_raises[key].append(op)
        elif op.op == "leave" and (op.ok or op.unknown):
            leaves.append(op)
    for op in leaves:
        for seat, rid in op.live:
            key = (str(rid), int(seat), op.player)
            if op.unknown:
                amb_back[key] += 1
                continue
            again = any(o.sent > op.sent for o in ok_antes.get(key, []))
            rs = store.rounds.get(str(rid))
            record = None
            if rs is not None and rs.state == "settled":
                record = settlement_record(store, str(rid), table_of(str(rid), rs, tables))
            if again:
                told_back[key] += 1
                back_ops[key].append(op)
            elif record is not None:
                seats = {(s.get("seat"), s.get("player_id")) for s in record.get("seats", [])}
                if (int(seat), op.player) not in seats:
                    told_back[key] += 1
                    back_ops[key].append(op)
            else:
                amb_back[key] += 1

    # every (round, seat, player) the ledger or the journal knows of
    keys: set[Key] = set(told_ante) | set(told_raise)
    for rid, rs in store.rounds.items():
        for r in rs.ledger:
            if r.seat is None or r.reason not in ("ante", "raise"):
                continue
            if r.source.startswith("player:"):
                keys.add((rid, r.seat, r.source[len("player:") :]))

    used: set[int] = set()

    def unexplained(key: Key, pos: Position) -> Counter[int]:
        """Ante amounts in the ledger that no acknowledged ante of the seat accounts for."""
        return Counter(pos.antes) - Counter(_amount(o) for o in ok_antes.get(key, []))

    def excuse(key: Key, need: int, amounts: Counter[int]) -> int:
        """Spare antes (no reply, or unseen round) of this seat, of an amount the ledger
        has unexplained, that may account for `need` antes more."""
        rid, seat, pid = key
        table = table_of(rid, store.rounds.get(rid), tables)
        got = 0
        for op in spare:
            if got >= need:
                break
            if id(op) in used or op.player != pid or op.seat != seat or op.table != table:
                continue
            if amounts[_amount(op)] > 0 and _near(op, windows.get(rid), WAITING):
                used.add(id(op))
                amounts[_amount(op)] -= 1
                got += 1
        return got

    checked = 0
    for key in sorted(keys):
        rid, seat, pid = key
        rs = store.rounds.get(rid)
        table = table_of(rid, rs, tables)
        state = rs.state if rs is not None else None
        pos = position(rs.ledger if rs else [], pid, seat)
        where = {"player": pid, "table": table, "round_id": rid, "seat": seat}
        checked += 1
        if pos.live > 1:
            c.add(
                "double_ante",
                f"{pos.live} antes in play on one seat",
                expected="at most 1",
                actual=pos.live,
                extra={"antes": pos.antes, "refunded": pos.refunded},
                **where,
            )
        if state == "open":
            continue  # check b reports it
        if state == "voided":
            if pos.live != 0:
                c.add(
                    "voided_round_kept_ante",
                    "the round was voided but an ante was never given back",
                    expected=0,
                    actual=pos.live,
                    **where,
                )
            continue
        told = told_ante[key] - told_back[key]
        low, high = told - amb_back[key], told
        extra = unexplained(key, pos)
        if pos.live > high:
            high += excuse(key, pos.live - high, extra)
        if pos.live > high:
            window = windows.get(rid)
            suspects = []
            for o in failed_antes.get((table, seat, pid), []):
                if extra[_amount(o)] > 0 and _near(o, window, WAITING):
                    extra[_amount(o)] -= 1
                    suspects.append(o)
            suspects = suspects[: pos.live - high]
            refunds = back_ops.get(key, [])
            if suspects or not refunds:
                for o in suspects:
                    findings.append(Finding(o, "told_failed_applied", f"ante in round {rid}"))
                c.add(
                    "ante_applied_unasked",
                    "the ledger has an ante in play that no acknowledged request accounts for",
                    expected=told,
                    actual=pos.live,
                    op=suspects[0].brief() if suspects else None,
                    extra={
                        "state": state,
                        "antes": pos.antes,
                        "refunded": pos.refunded,
                        "told_failed": [o.brief() for o in suspects],
                    },
                    **where,
                )
            else:
                for o in refunds[: pos.live - high]:
                    findings.append(Finding(o, "told_ok_not_applied", f"no refund in round {rid}"))
                c.add(
                    "refund_told_missing",
                    f"the player was told the ante was given back ({refunds[0].op} ok) but "
                    "the ledger never refunded it: the round kept it",
                    expected=told,
                    actual=pos.live,
                    op=refunds[0].brief(),
                    extra={"state": state, "antes": pos.antes, "refunded": pos.refunded},
                    **where,
                )
        elif pos.live < low:
            oks = ok_antes.get(key, [])
            for o in oks[: low - pos.live]:
                findings.append(Finding(o, "told_ok_not_applied", f"ante in round {rid}"))
            c.add(
                "ante_told_missing",
                "the player was told an ante was taken (and not given back) but the "
                "ledger has none in play",
                expected=told,
                actual=pos.live,
                op=oks[0].brief() if oks else None,
                extra={"state": state, "antes": pos.antes, "refunded": pos.refunded},
                **where,
            )
        if state == "settled":
            raised = told_raise[key]
            if pos.raises > raised + amb_raise[key]:
                suspects = failed_raises.get(key, [])
                excess = pos.raises - raised - amb_raise[key]
                for o in suspects[:excess]:
                    findings.append(Finding(o, "told_failed_applied", f"raise in round {rid}"))
                c.add(
                    "raise_charged_unasked",
                    "a raise was charged that the player was not told was made",
                    expected=raised,
                    actual=pos.raises,
                    op=suspects[0].brief() if suspects else None,
                    extra={"told_failed": [o.brief() for o in suspects]},
                    **where,
                )
            elif pos.raises < raised:
                c.add(
                    "raise_told_missing",
                    "the player was told the raise was made but it was never charged",
                    expected=raised,
                    actual=pos.raises,
                    **where,
                )
        elif state is None and (told_ante[key] or pos.antes):
            c.add(
                "round_missing",
                "the store has no such round, though antes were taken for it",
                expected="a settled or voided round",
                actual=None,
                **where,
            )

    # what the players were shown at showdown
    last: dict[Key, Shown] = {}
    for sh in sorted(ev.journal.shown, key=lambda s: s.ts):
        last[(sh.round_id, sh.seat, sh.player)] = sh
    for key, sh in sorted(last.items()):
        rid, seat, pid = key
        rs = store.rounds.get(rid)
        where = {"player": pid, "table": sh.table, "round_id": rid, "seat": seat, "ts": sh.ts}
        state = rs.state if rs is not None else None
        if state == "voided":
            c.add(
                "shown_settled_but_voided",
                "the player was shown this round's result but the store voided the round",
                expected="settled",
                actual="voided",
                **where,
            )
        elif state != "settled":
            c.add(
                "shown_but_not_settled",
                "the player was shown this round's result but the store never settled it",
                expected="settled",
                actual=state,
                **where,
            )
        else:
            assert rs is not None
            net = row_net(rs.ledger, pid, seat)
            if net != sh.net:
                rows = [
                    [r.reason, r.source, r.target, r.amount] for r in rs.ledger if r.seat == seat
                ]
                c.add(
                    "shown_net_differs",
                    f"the showdown showed net {sh.net:+d} ({sh.outcome}); the ledger moved "
                    f"{net:+d}",
                    expected=sh.net,
                    actual=net,
                    extra={"ledger_rows": rows},
                    **where,
                )
    c.stats = {
        "seats_checked": checked,
        "results_checked": len(last),
        "ambiguous_antes": len(spare),
        "ambiguous_antes_used": len(used),
    }
    return c, findings


# ----- e: hosts --------------------------------------------------------------------------


def merge(intervals: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _epoch_overlaps(
    c: CheckResult, table: str, events: list[TableEvent]
) -> list[tuple[float, float]]:
    """An action by epoch e after the first event of a newer epoch is a split brain."""
    first: dict[int, float] = {}
    claimed: dict[int, str] = {}
    last_claim: TableEvent | None = None
    intervals = []
    for e in events:
        assert e.epoch is not None
        first.setdefault(e.epoch, e.ts)
        if e.kind == CLAIM:
            other = claimed.setdefault(e.epoch, e.identity)
            if other != e.identity:
                c.add(
                    "epoch_reused",
                    f"epoch {e.epoch} claimed by {other} and by {e.identity}",
                    table=table,
                    ts=e.ts,
                )
            before = last_claim.epoch if last_claim is not None else None
            if before is not None and e.epoch < before:
                c.add(
                    "epoch_not_increasing",
                    f"{e.identity} claimed epoch {e.epoch} after epoch {before}",
                    table=table,
                    ts=e.ts,
                )
            last_claim = e
        elif e.kind in ACTIONS:
            newer = [ts for ep, ts in first.items() if ep > e.epoch and ts < e.ts]
            if newer:
                start = min(newer)
                intervals.append((start, e.ts))
                c.add(
                    "two_hosts",
                    f"{e.identity} ({e.msg}, epoch {e.epoch}) acted {e.ts - start:.3f}s after "
                    "a newer epoch took the table",
                    table=table,
                    round_id=e.round_id,
                    ts=e.ts,
                    expected=f"no action by epoch {e.epoch} after {start:.3f}",
                    actual=e.ts,
                )
    return intervals


def _process_overlaps(
    c: CheckResult, table: str, events: list[TableEvent]
) -> list[tuple[float, float]]:
    """Without epochs: an action by process P after another process claimed the
    table since P's own last claim is a split brain; one after P lost it, a stale one."""
    last_claim: dict[str, float] = {}
    lost: dict[str, float] = {}
    claims: list[TableEvent] = []
    intervals = []
    for e in events:
        if e.kind == CLAIM:
            last_claim[e.identity] = e.ts
            lost.pop(e.identity, None)
            claims.append(e)
        elif e.kind == LOST:
            lost[e.identity] = e.ts
        elif e.kind in ACTIONS:
            mine = last_claim.get(e.identity)
            if mine is None:
                c.add(
                    "action_without_claim",
                    f"{e.identity} logged {e.msg!r} for a table it never claimed",
                    table=table,
                    round_id=e.round_id,
                    ts=e.ts,
                )
                continue
            others = [x for x in claims if x.identity != e.identity and mine <= x.ts < e.ts]
            if others:
                start = others[0].ts
                intervals.append((start, e.ts))
                c.add(
                    "two_hosts",
                    f"{e.identity} logged {e.msg!r} {e.ts - start:.3f}s after "
                    f"{others[0].identity} claimed the table ({others[0].msg!r})",
                    table=table,
                    round_id=e.round_id,
                    ts=e.ts,
                    expected=f"no action by {e.identity} after {start:.3f}",
                    actual=e.ts,
                )
            elif e.identity in lost:
                c.add(
                    "action_after_loss",
                    f"{e.identity} logged {e.msg!r} after it lost the table",
                    table=table,
                    round_id=e.round_id,
                    ts=e.ts,
                )
    return intervals


#: Seconds before a SIGKILL within which a round may end in the store with its log line
#: lost with the process (no server can log atomically with a Redis write).
KILL_MARGIN = 1.0


def _ended_near_kill(ev: Evidence, round_id: str, windows: dict[str, tuple[float, float]]) -> bool:
    ends = [windows[round_id][1]] if round_id in windows else []
    rs = ev.store.rounds.get(round_id)
    if rs is not None:
        for entry in ev.store.table_history.get(rs.table, []):
            if (entry.get("record") or {}).get("round_id") == round_id:
                ends.append(int(entry.get("settled_at", 0)) / 1000)
    kills = [f.start for f in ev.facts.faults if f.kind == "host_kill"]
    return any(k - KILL_MARGIN - SLACK <= end <= k + KILL_MARGIN for end in ends for k in kills)


def check_hosts(ev: Evidence) -> tuple[CheckResult, dict[str, list[tuple[float, float]]]]:
    """No moment with two hosts for one table, from the servers' logs.

    Per table, events by time. With an `epoch` on every canonical claim and action
    line of the table, an action (deal, settle, void) by epoch e after the first
    line of any newer epoch is a split brain; otherwise the process identity (its
    log file) stands in: an action by P after another process claimed the table
    since P's own last claim. Each overlap runs from the newer claim to the stale
    action; their union is the table's split-brain seconds (must be 0).

    The check must not pass for want of lines: a canonical line the run must have
    produced but no log holds, a settled or voided round no line speaks of, or a
    table without any line is a violation in itself.
    """
    c = CheckResult("e", "one host per table at any moment")
    events = table_events(ev.logs.records)
    canonical_seen = {e.kind for e in events if not e.legacy}
    store = ev.store
    settled = {rid for rid, r in store.rounds.items() if r.state == "settled"}
    voided = {rid for rid, r in store.rounds.items() if r.state == "voided"}
    lossy = {"host_stop", "redis_stop"}
    needed = {
        CLAIM: True,
        DEAL: bool(settled),
        SETTLE: bool(settled),
        VOID: bool(voided),
        LOST: any(f.kind in lossy for f in ev.facts.faults),
    }
    for msg, kind in CANONICAL.items():
        if needed[kind] and kind not in canonical_seen:
            stand_in = {
                CLAIM: "'took over table', 'serving on' (no claim line at start-up or per epoch)",
                DEAL: "nothing: rounds dealt are invisible, only their ends are seen",
                SETTLE: "nothing",
                VOID: "'round voided at shutdown', 'voided a round left open by a crash...' "
                "(other voids are not logged)",
                LOST: "'lost table T to another process'",
            }[kind]
            c.add(
                "log_line_missing",
                f"no server logged {msg!r} (with table, round_id, epoch, process); "
                f"stood in for by {stand_in}",
                expected=msg,
                actual=None,
            )
    if not any(e.epoch is not None for e in events):
        c.notes.append("no log line has an `epoch`: process identity (log file) used instead")
    by_table: dict[str, list[TableEvent]] = defaultdict(list)
    for e in events:
        by_table[e.table].append(e)
    split: dict[str, list[tuple[float, float]]] = {}
    modes = {}
    for table in ev.facts.tables:
        evs = by_table.get(table, [])
        if not evs:
            c.add("no_log_lines", "no server logged anything about this table", table=table)
            continue
        canon = [e for e in evs if not e.legacy and e.kind != LOST]
        if any(e.kind == CLAIM for e in canon) and all(e.epoch is not None for e in canon):
            modes[table] = "epoch"
            intervals = _epoch_overlaps(c, table, canon)
        else:
            modes[table] = "process"
            intervals = _process_overlaps(c, table, evs)
        split[table] = merge(intervals)
    logged = {(e.round_id, e.kind) for e in events if e.round_id}
    windows = round_windows(ev)
    for kind, rounds in ((SETTLE, settled), (VOID, voided)):
        unlogged = sorted(rid for rid in rounds if (rid, kind) not in logged)
        lost = [rid for rid in unlogged if _ended_near_kill(ev, rid, windows)]
        if lost:
            c.notes.append(
                f"{len(lost)} round(s) ended just before their host was SIGKILLed, "
                f"their {kind} line lost with it: {', '.join(lost[:5])}"
            )
        unlogged = [rid for rid in unlogged if rid not in lost]
        if unlogged:
            c.add(
                "round_not_logged",
                f"{len(unlogged)} {('settled', 'voided')[kind == VOID]} round(s) in the store "
                f"have no {kind} line in any log: the check cannot see who acted on them",
                actual=len(unlogged),
                extra={"rounds": unlogged[:EXAMPLES]},
            )
    seconds = {t: round(sum(hi - lo for lo, hi in iv), 3) for t, iv in split.items()}
    c.stats = {
        "split_brain_seconds": round(sum(seconds.values()), 3),
        "split_brain_seconds_by_table": seconds,
        "mode_by_table": modes,
        "events": len(events),
        "unparsed_log_lines": ev.logs.unparsed,
    }
    return c, split


def takeovers(ev: Evidence) -> list[dict[str, Any]]:
    """After each SIGKILL of a host: for each table it held, how long until another
    process claimed it (or, without a claim line, first dealt or settled a round)."""
    events = table_events(ev.logs.records)
    out = []
    for f in ev.facts.faults:
        if f.kind != "host_kill":
            continue
        victim = str(f.detail.get("identity", ""))
        held = set()
        for table in ev.facts.tables:
            claims = [e for e in events if e.table == table and e.kind == CLAIM and e.ts <= f.start]
            if claims and claims[-1].identity == victim:
                held.add(table)
        held |= set(f.detail.get("tables", []))
        for table in sorted(held):
            after = [e for e in events if e.table == table and e.ts > f.start]
            by_other = [e for e in after if e.identity != victim]
            first = next((e for e in by_other if e.kind == CLAIM), None)
            how = "claim"
            if first is None:
                first = next((e for e in by_other if e.kind in (DEAL, SETTLE)), None)
                how = "first round elsewhere"
            out.append(
                {
                    "fault_start": f.start,
                    "victim": victim,
                    "table": table,
                    "by": first.identity if first else None,
                    "seconds": round(first.ts - f.start, 3) if first else None,
                    "measured_by": how if first else "never taken over",
                }
            )
    return out


# ----- f: replies ------------------------------------------------------------------------


def check_replies(ev: Evidence, findings: list[Finding]) -> CheckResult:
    """Every reply matches what the store applied, request by request (as far as the
    balances and the round ledgers can tell which request it was)."""
    c = CheckResult("f", "every reply matches what the store applied")
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for op in ev.journal.ops:
        counts[op.op][op.outcome if op.outcome != "error" else f"error:{op.code}"] += 1
    for f in findings:
        told = "ok" if f.op.ok else f.op.code or f.op.outcome
        c.add(
            f.verdict,
            f"{f.op.op} answered {told!r} but the store says otherwise ({f.why})",
            player=f.op.player,
            table=f.op.table or None,
            round_id=f.op.round_id,
            seat=f.op.seat,
            op=f.op.brief(),
            ts=f.op.sent,
        )
    c.stats = {"requests": {k: dict(v) for k, v in sorted(counts.items())}}
    return c


# ----- g: liveness ------------------------------------------------------------------------


def check_liveness(ev: Evidence) -> CheckResult:
    c = CheckResult("g", "every table plays again after the faults; clean refusals and exits")
    facts = ev.facts
    calm = facts.calm_start
    played_after: dict[str, int] = Counter()
    if calm is not None:
        for table, entries in ev.store.table_history.items():
            for entry in entries:
                if int(entry.get("settled_at", 0)) >= calm * 1000:
                    played_after[table] += 1
        for table in facts.tables:
            if not played_after[table]:
                replies = Counter(
                    ("ok" if o.ok else o.code or o.outcome)
                    for o in ev.journal.ops
                    if o.table == table and o.sent >= calm and o.op in ("sit", "ante", "deal")
                )
                c.add(
                    "table_never_played_again",
                    "no round was settled at this table after the faults stopped",
                    table=table,
                    expected=">= 1 round",
                    actual=0,
                    extra={"replies_after_calm": dict(replies)},
                )
    else:
        c.add("no_calm_window", "the run never reached the calm after the faults")
    shutdown = facts.shutdown_start
    refused: dict[tuple[str, str], list[Op]] = defaultdict(list)
    for op in ev.journal.ops:
        if op.code == "shutting_down" and (shutdown is None or op.sent < shutdown):
            refused[(op.table or "-", op.url)].append(op)
    for (table, url), ops in sorted(refused.items()):
        c.add(
            "refused_shutting_down",
            f"{len(ops)} request(s) refused `shutting_down` by {url} while no server was "
            "shutting down",
            table=None if table == "-" else table,
            op=ops[0].brief(),
            ts=ops[0].sent,
            actual=len(ops),
            extra={"last": round(ops[-1].sent, 3), "ops": dict(Counter(o.op for o in ops))},
        )
    for identity, code in sorted(facts.exits.items()):
        if code != 0:
            c.add(
                "unclean_exit",
                f"{identity} did not exit 0 on SIGTERM within the bound",
                expected=0,
                actual=code,
            )
    c.stats = {"rounds_after_calm": dict(played_after)}
    return c


def check_harness(ev: Evidence) -> CheckResult:
    c = CheckResult("h", "the harness ran as designed")
    for failure in ev.facts.bot_failures:
        c.add("bot_failure", failure)
    for error in ev.facts.injector_errors:
        c.add("injector_error", error)
    if not ev.journal.ops:
        c.add("no_requests", "the bots sent nothing")
    if not ev.journal.shown:
        c.add("no_results", "the bots were shown no showdown result at all")
    injected = {f.kind for f in ev.facts.faults}
    for kind in ev.facts.expected_kinds:
        if kind not in injected:
            c.add("fault_not_injected", f"no {kind} fault was injected: nothing proven of it")
    return c


# ----- everything -----------------------------------------------------------------------------


def reconcile(ev: Evidence) -> tuple[list[CheckResult], dict[str, Any]]:
    """Every check, and the figures per fault kind for the report."""
    windows = round_windows(ev)
    balances, buy_findings = check_balances(ev)
    rounds, round_findings = check_rounds(ev, windows)
    hosts, split = check_hosts(ev)
    checks = [
        check_books(ev),
        check_holds(ev),
        balances,
        rounds,
        hosts,
        check_replies(ev, buy_findings + round_findings),
        check_liveness(ev),
        check_harness(ev),
    ]
    _tag_faults(checks, windows, ev.facts.faults)
    figures = fault_figures(ev, windows, split)
    for check in checks:
        for v in check.violations:
            for kind in v.extra.get("faults", []):
                entry = figures.setdefault(kind, {"injected": 0})
                entry["violations"] = entry.get("violations", 0) + 1
    return checks, figures


def _overlaps(lo: float, hi: float, f: Fault) -> bool:
    return lo <= f.end and hi >= f.start


def _tag_faults(
    checks: list[CheckResult], windows: dict[str, tuple[float, float]], faults: list[Fault]
) -> None:
    """Name the faults each violation's round (or moment) overlaps."""
    for check in checks:
        for v in check.violations:
            span = windows.get(v.round_id) if v.round_id else None
            if span is None and v.ts is not None:
                span = (v.ts, v.ts)
            if span is None:
                continue
            near = [f.kind for f in faults if _overlaps(span[0] - SLACK, span[1], f)]
            if near:
                v.extra["faults"] = sorted(set(near))


def fault_figures(
    ev: Evidence,
    windows: dict[str, tuple[float, float]],
    split: dict[str, list[tuple[float, float]]],
) -> dict[str, Any]:
    faults = ev.facts.faults
    settled = {rid: r for rid, r in ev.store.rounds.items() if r.state == "settled"}
    out: dict[str, Any] = {}
    for kind, group in itertools.groupby(sorted(faults, key=lambda f: f.kind), lambda f: f.kind):
        fs = list(group)
        across = sorted(
            rid
            for rid in settled
            if (w := windows.get(rid)) is not None and any(_overlaps(*w, f) for f in fs)
        )
        out[kind] = {
            "injected": len(fs),
            "rounds_across": len(across),
            "cents_moved": sum(r.amount for rid in across for r in settled[rid].ledger),
            "split_brain_seconds": 0.0,
            "takeover_seconds": [],
            "windows": [[round(f.start, 3), round(f.end, 3), f.target] for f in fs],
        }
    ordered = sorted(faults, key=lambda f: f.start)
    for intervals in split.values():
        for lo, hi in intervals:
            cause = [f for f in ordered if f.start <= lo]
            kind = cause[-1].kind if cause else "before any fault"
            entry = out.setdefault(kind, {"injected": 0, "split_brain_seconds": 0.0})
            entry["split_brain_seconds"] = round(entry["split_brain_seconds"] + hi - lo, 3)
    for t in takeovers(ev):
        out.setdefault("host_kill", {"injected": 0}).setdefault("takeover_seconds", []).append(t)
    return out
