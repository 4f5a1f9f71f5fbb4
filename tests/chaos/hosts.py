"""Check e: one host per table at any moment; the takeovers after each kill."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from tests.chaos.evidence import (
    EXAMPLES,
    SLACK,
    CheckResult,
    Evidence,
    round_windows,
)
from tests.chaos.logs import (
    ACTIONS,
    CANONICAL,
    CLAIM,
    DEAL,
    LOST,
    SETTLE,
    VOID,
    TableEvent,
    table_events,
)

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
        named = set(f.detail.get("tables", []))  # what the injector saw it host
        for table in ev.facts.tables:
            claims = [e for e in events if e.table == table and e.kind == CLAIM and e.ts <= f.start]
            # the last claim before the kill says who held it; the injector's list only
            # where no claim line survived (one may die with its killed host): a table
            # the victim lost earlier (to another host, while it was stopped) needs no
            # takeover, and timing one would measure some later, unrelated claim
            if claims[-1].identity == victim if claims else table in named:
                held.add(table)
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
