"""Check d: each round's ledger against what its seats were told and shown."""

from __future__ import annotations

from collections import Counter, defaultdict

from tests.chaos.evidence import (
    SLACK,
    WAITING,
    CheckResult,
    Evidence,
    Finding,
    Position,
    position,
    row_net,
    settlement_record,
    table_of,
)
from tests.chaos.journal import Op, Shown

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
