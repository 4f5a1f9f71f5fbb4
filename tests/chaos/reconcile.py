"""The reconciliation: what the store applied against what the players were told.

Pure functions of the evidence (`Evidence`: the bots' journal, the store read out
of Redis, the servers' logs, the run's facts), so `tests/test_chaos_reconcile.py`
can feed them synthetic cases with known violations. Each check returns a
`CheckResult` whose `violations` carry enough to debug one: the player, the
round, the seat, the request, what was expected and what was found.

    a  books      every account sums to 0, and is what its rows make it: the round
                  ledgers and the `moves` journal (credits, purchases, seeds, operators)
    b  holds      every hold released; no round open
    c  balances   each player's balance = credits + purchases told ok + the round ledgers
    d  rounds     each round's ledger against what its seats were told and shown
    e  hosts      one host per table at any moment (split-brain seconds = 0)
    f  replies    every reply matches what the store applied (per request, from c and d)
    g  liveness   every table plays again once the faults stop; no `shutting_down`
                  refusal from a server that was not shutting down; clean exits
    h  harness    the harness itself ran as designed (bots, fault injection)
    i  wallets    once no money is in flight, each connected player was last told the
                  wallet the store holds (a stale push, or one never sent, shows here)

Ledger rows are `[round_id, seat, reason, source, target, amount]`: `amount`
cents from `source` to `target`, accounts `player:<id>`, `house`, `meter:<name>`.
A player's net in a round is what the rows gave them minus what the rows took.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from tests.chaos.evidence import (
    SLACK,
    CheckResult,
    Evidence,
    Facts,
    Finding,
    Violation,
    account,
    players_of,
    round_windows,
    row_net,
    table_of,
)
from tests.chaos.faults import Fault
from tests.chaos.hosts import check_hosts, takeovers
from tests.chaos.journal import Op
from tests.chaos.rounds import check_rounds

__all__ = ["CheckResult", "Evidence", "Facts", "Violation", "reconcile"]


# ----- a: the books ----------------------------------------------------------------


def check_books(ev: Evidence) -> CheckResult:
    c = CheckResult("a", "the accounts sum to 0, each as its rows make it")
    total = sum(ev.store.acct.values())
    c.stats = {"accounts": len(ev.store.acct), "sum": total}
    if not ev.store.acct:
        c.add("no_accounts", "the store holds no accounts at all: nothing was read")
    elif total != 0:
        c.add("books_unbalanced", "the accounts do not sum to 0", expected=0, actual=total)
    rebuilt: Counter[str] = Counter()
    rows = [r for rs in ev.store.rounds.values() for r in rs.ledger]
    for r in rows + [m.row for m in ev.store.moves]:
        rebuilt[r.source] -= r.amount
        rebuilt[r.target] += r.amount
    for name in sorted(set(ev.store.acct) | set(rebuilt)):
        if ev.store.acct.get(name, 0) != rebuilt[name]:
            c.add(
                "account_unrecorded",
                "the account is not what the round ledgers and the moves journal make it",
                expected=rebuilt[name],
                actual=ev.store.acct.get(name, 0),
                extra={"account": name},
            )
    c.stats["moves"] = len(ev.store.moves)
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


def once_by_key(groups: dict[str, list[Op]]) -> None:
    """A purchase sent again under its key is one purchase: its tries after the first
    answer count once. An ok settles the key (its other tries bought nothing more);
    otherwise its tries in doubt count as one in doubt, and a refused try of a key
    in doubt or ok changed nothing of its own."""
    settled = {o.fields.get("key") for o in groups["ok"]} - {None}
    doubtful: set[Any] = set()
    kept: list[Op] = []
    for o in groups["unknown"]:
        key = o.fields.get("key")
        if key is None or (key not in settled and key not in doubtful):
            kept.append(o)
            if key is not None:
                doubtful.add(key)
    groups["unknown"] = kept
    groups["failed"] = [
        o for o in groups["failed"] if o.fields.get("key") not in settled | doubtful
    ]


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
    for groups in buys.values():
        once_by_key(groups)
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


def check_wallets_told(ev: Evidence) -> CheckResult:
    c = CheckResult("i", "each connected player was last told the wallet the store holds")
    facts = ev.facts
    if facts.wallets_at_rest is False:
        c.add(
            "money_never_at_rest",
            "with the bots hushed, a round stayed open or cents held: nothing to compare",
        )
    for w in facts.wallets_compared:
        shown, store = w["shown"], w["store"]
        told = {"balance": shown.get("balance"), "held": shown.get("held")}
        if told != store:
            c.add(
                "wallet_told_stale",
                f"the last wallet {w['url']} told this player is not the store's",
                player=w["player"],
                expected=store,
                actual=told,
                extra={"bot": w["bot"]},
            )
    c.stats = {"players_compared": len(facts.wallets_compared)}
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
        check_wallets_told(ev),
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
