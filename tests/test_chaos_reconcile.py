"""The chaos test's reconciliation, trusted only because it is seen to catch each fault.

Synthetic evidence (a journal, a store, server logs) is built consistent first,
where every check must pass, and then with one known violation at a time: a
purchase told failed but applied, a double ante, an open round, a stuck hold,
two epochs acting at once... each of which must be reported by the right check.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import pytest

from tests.chaos.evidence import CheckResult, Evidence, Facts, position
from tests.chaos.faults import Fault
from tests.chaos.journal import ERROR, NO_REPLY, OK, Journal, Op, Shown
from tests.chaos.logs import LogRecord, ServerLogs
from tests.chaos.reconcile import reconcile, subset_with_sum
from tests.chaos.store import Moved, RoundState, Row, StoreDump

pytestmark = pytest.mark.chaos

START = 100_000
TABLES = ["alpha", "beta"]


class World:
    """A consistent little run, built step by step: what the store holds, what the
    players were told and shown, and what the servers logged."""

    def __init__(self) -> None:
        self.t = 1000.0
        self.acct: Counter[str] = Counter()
        self.held: dict[str, int] = {}
        self.rounds: dict[str, RoundState] = {}
        self.history: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.journal = Journal()
        self.logs: list[LogRecord] = []
        self.faults: list[Fault] = []
        self.moves: list[Moved] = []
        for table in TABLES:
            self.log("s1#0", "table claimed", table=table, epoch=1)

    def tick(self) -> float:
        self.t += 0.1
        return self.t

    def log(self, identity: str, msg: str, **fields: Any) -> None:
        fields.setdefault("process", identity)
        self.logs.append(LogRecord(identity, self.tick(), msg, fields))

    def player(self, pid: str) -> str:
        self.moved(f"grant:{pid}", f"player:{pid}", START)
        self.journal.players.add(pid)
        return pid

    def op(self, pid: str, t: str, outcome: str = OK, code: str = "", **kw: Any) -> Op:
        fields = kw.pop("fields", {})
        sent = self.tick()
        op = Op(
            bot=f"bot-{pid}",
            player=pid,
            conn=1,
            url="ws://s1",
            op=t,
            fields=fields,
            sent=sent,
            recv=None if outcome == NO_REPLY else sent + 0.01,
            outcome=outcome,
            code=code,
            **kw,
        )
        self.journal.ops.append(op)
        return op

    def buy(
        self, pid: str, amount: int, outcome: str = OK, *, applied: bool = True, key: str = ""
    ) -> None:
        code = "store_unavailable" if outcome == ERROR else ""
        fields: dict[str, Any] = {"amount": amount, **({"key": key} if key else {})}
        self.op(pid, "buy_chips", outcome, code, fields=fields)
        if applied:
            self.moved(
                f"buy:key:{key}" if key else f"buy:{len(self.moves)}", f"player:{pid}", amount
            )

    def moved(self, op: str, target: str, amount: int, source: str = "world") -> None:
        """Money moved outside any round: an account, and its row in the moves journal."""
        reason = "buy-in" if source == "world" else "reseed"
        self.moves.append(Moved(op, Row("", None, reason, source, target, amount)))
        self.acct[source] -= amount
        self.acct[target] += amount

    def move(self, rid: str, seat: int, reason: str, source: str, target: str, amount: int) -> None:
        self.rounds[rid].ledger.append(Row(rid, seat, reason, source, target, amount))
        self.acct[source] -= amount
        self.acct[target] += amount

    def open_round(self, rid: str, table: str) -> None:
        self.rounds[rid] = RoundState(rid, table, "open")

    def ante(self, rid: str, pid: str, seat: int, amount: int, *, told: str = OK) -> None:
        table = self.rounds[rid].table
        code = "store_unavailable" if told == ERROR else ""
        self.op(
            pid,
            "ante",
            told,
            code,
            fields={"table": table, "seat": seat, "amount": amount},
            table=table,
            seat=seat,
            round_id=rid if told == OK else None,
            phase="betting",
        )
        self.move(rid, seat, "ante", f"player:{pid}", "house", amount)

    def settle(self, rid: str, results: list[tuple[str, int, int]], *, show: bool = True) -> None:
        """Settle with (player, seat, payout); each seat is shown its ledger net."""
        rs = self.rounds[rid]
        self.log("s1#0", "round dealt", table=rs.table, round_id=rid, epoch=1)
        for pid, seat, payout in results:
            if payout:
                self.move(rid, seat, "payout", "house", f"player:{pid}", payout)
        rs.state = "settled"
        self.log("s1#0", "round settled", table=rs.table, round_id=rid, epoch=1)
        seats = [{"seat": seat, "player_id": pid} for pid, seat, _ in results]
        self.history[rs.table].insert(
            0, {"record": {"round_id": rid, "seats": seats}, "settled_at": int(self.t * 1000)}
        )
        if show:
            for pid, seat, _ in results:
                net = sum(
                    (r.amount if r.target == f"player:{pid}" else -r.amount)
                    for r in rs.ledger
                    if r.seat == seat and f"player:{pid}" in (r.source, r.target)
                )
                self.journal.shown.append(
                    Shown(f"bot-{pid}", pid, "ws://s1", rs.table, rid, seat, net, "win", 1, self.t)
                )

    def void(self, rid: str) -> None:
        """The server's void: every ante refunded."""
        rs = self.rounds[rid]
        for r in list(rs.ledger):
            if r.reason == "ante":
                self.move(rid, r.seat or 0, "refund", "house", r.source, r.amount)
        rs.state = "voided"
        self.log("s1#0", "round voided", table=rs.table, round_id=rid, epoch=1)

    def evidence(self, **facts: Any) -> Evidence:
        store = StoreDump(
            acct=dict(self.acct),
            held=dict(self.held),
            rounds=self.rounds,
            open_sets={
                t: sorted(
                    r.round_id for r in self.rounds.values() if r.table == t and r.state == "open"
                )
                for t in TABLES
            },
            table_history=dict(self.history),
            moves=list(self.moves),
        )
        facts.setdefault("calm_start", 1000.0)
        facts.setdefault("shutdown_start", self.t + 100)
        facts.setdefault("faults", self.faults)
        return Evidence(
            self.journal,
            store,
            ServerLogs(sorted(self.logs, key=lambda r: r.ts)),
            Facts(START, TABLES, **facts),
        )


def played() -> World:
    """Two players, a round at each table, a purchase, a withdrawal: all consistent."""
    w = World()
    ann, bob = w.player("ann"), w.player("bob")
    w.buy(ann, 20_001)
    w.open_round("alpha-1", "alpha")
    w.ante("alpha-1", ann, 0, 300)
    w.ante("alpha-1", bob, 1, 500)
    w.op(ann, "raise", table="alpha", seat=0, round_id="alpha-1", fields={"table": "alpha"})
    w.move("alpha-1", 0, "raise", "player:ann", "house", 600)
    w.settle("alpha-1", [(ann, 0, 1800), (bob, 1, 0)])
    w.open_round("beta-1", "beta")
    w.ante("beta-1", bob, 0, 100)
    w.ante("beta-1", bob, 1, 700)
    w.op(bob, "withdraw", table="beta", seat=1, round_id="beta-1", fields={"table": "beta"})
    w.move("beta-1", 1, "refund", "house", "player:bob", 700)
    w.settle("beta-1", [(bob, 0, 200)])
    return w


def kinds(checks: list[CheckResult], name: str) -> set[str]:
    return {v.kind for c in checks if c.name == name for v in c.violations}


def failing(checks: list[CheckResult]) -> dict[str, set[str]]:
    return {c.name: {v.kind for v in c.violations} for c in checks if c.violations}


def test_a_consistent_run_passes_every_check() -> None:
    checks, _ = reconcile(played().evidence())
    assert failing(checks) == {}


def test_a_purchase_told_failed_but_applied_is_reported() -> None:
    w = played()
    w.buy("ann", 33_333, ERROR, applied=True)
    checks, _ = reconcile(w.evidence())
    assert failing(checks) == {"c": {"buy_in_told_failed_applied"}, "f": {"told_failed_applied"}}
    (v,) = [v for c in checks for v in c.violations if c.name == "c"]
    assert v.player == "ann" and v.extra["difference"] == 33_333
    assert v.op is not None and v.op["code"] == "store_unavailable"


def test_a_purchase_told_ok_but_never_applied_is_reported() -> None:
    w = played()
    w.buy("bob", 25_555, OK, applied=False)
    checks, _ = reconcile(w.evidence())
    assert kinds(checks, "c") == {"buy_in_told_ok_missing"}
    assert kinds(checks, "f") == {"told_ok_not_applied"}


def test_a_purchase_without_reply_may_go_either_way() -> None:
    w = played()
    w.buy("ann", 21_111, NO_REPLY, applied=True)
    w.buy("bob", 22_222, NO_REPLY, applied=False)
    checks, _ = reconcile(w.evidence())
    assert failing(checks) == {}


def test_a_keyed_purchase_sent_again_counts_once() -> None:
    w = played()
    # in doubt, refused while the store was away, then ok: bought once
    w.buy("ann", 21_111, NO_REPLY, applied=True, key="k1")
    w.buy("ann", 21_111, ERROR, applied=False, key="k1")
    w.buy("ann", 21_111, OK, applied=False, key="k1")
    # in doubt twice, and never answered: bought once at most
    w.buy("bob", 22_222, NO_REPLY, applied=True, key="k2")
    w.buy("bob", 22_222, NO_REPLY, applied=False, key="k2")
    checks, _ = reconcile(w.evidence())
    assert failing(checks) == {}


def test_a_keyed_purchase_bought_twice_is_reported() -> None:
    w = played()
    w.buy("bob", 22_222, NO_REPLY, applied=True, key="k2")
    w.buy("bob", 22_222, OK, applied=True, key="k2")
    checks, _ = reconcile(w.evidence())
    assert kinds(checks, "c") == {"balance_mismatch"}  # one purchase, bought twice


def test_a_double_ante_is_reported_with_the_ante_told_failed() -> None:
    w = played()
    w.open_round("alpha-2", "alpha")
    w.ante("alpha-2", "ann", 0, 300, told=ERROR)  # store_unavailable, applied anyway
    w.ante("alpha-2", "ann", 0, 500)  # the retry
    w.settle("alpha-2", [("ann", 0, 0)])
    checks, _ = reconcile(w.evidence())
    assert kinds(checks, "d") == {"double_ante", "ante_applied_unasked"}
    assert kinds(checks, "f") == {"told_failed_applied"}
    applied = next(v for c in checks for v in c.violations if v.kind == "ante_applied_unasked")
    assert applied.extra["told_failed"][0]["amount"] == 300


def test_an_open_round_and_a_stuck_hold_are_reported() -> None:
    w = played()
    w.open_round("beta-2", "beta")
    w.ante("beta-2", "bob", 0, 900)
    w.held["bob"] = 1800
    w.rounds["beta-2"].holds = {"0": "1800", "0:player": "bob"}
    checks, _ = reconcile(w.evidence())
    assert kinds(checks, "b") == {"round_open", "hold_not_released", "round_holds_left"}
    opened = next(v for c in checks for v in c.violations if v.kind == "round_open")
    assert opened.round_id == "beta-2" and opened.extra["in_open_set_of"] == ["beta"]


def test_a_leave_told_ok_whose_refund_never_landed_is_reported() -> None:
    w = played()
    w.open_round("alpha-3", "alpha")
    w.ante("alpha-3", "ann", 0, 500)
    w.ante("alpha-3", "bob", 1, 100)
    w.op("ann", "leave", table="alpha", round_id="alpha-3", live=[[0, "alpha-3"]])
    # the server refunded her in memory (her seat is not in the settlement), the store never
    w.settle("alpha-3", [("bob", 1, 0)])
    checks, _ = reconcile(w.evidence())
    assert failing(checks) == {"d": {"refund_told_missing"}, "f": {"told_ok_not_applied"}}
    missing = next(v for c in checks for v in c.violations if v.kind == "refund_told_missing")
    assert missing.op is not None and missing.op["op"] == "leave"


def test_a_raise_told_failed_but_charged_on_an_auto_folded_hand_is_reported() -> None:
    w = played()
    w.open_round("beta-3", "beta")
    w.ante("beta-3", "bob", 0, 300)
    w.op(
        "bob",
        "raise",
        ERROR,
        "store_unavailable",
        table="beta",
        seat=0,
        round_id="beta-3",
        fields={"table": "beta"},
    )
    w.move("beta-3", 0, "raise", "player:bob", "house", 600)  # applied when Redis came back
    w.settle("beta-3", [("bob", 0, 0)], show=False)
    w.journal.shown.append(
        Shown("bot-bob", "bob", "ws://s1", "beta", "beta-3", 0, -300, "fold", 1, w.t)
    )
    checks, _ = reconcile(w.evidence())
    assert kinds(checks, "d") == {"raise_charged_unasked", "shown_net_differs"}
    assert kinds(checks, "f") == {"told_failed_applied"}


def test_a_result_shown_for_a_round_the_store_voided_is_reported() -> None:
    w = played()
    w.open_round("alpha-4", "alpha")
    w.ante("alpha-4", "ann", 0, 100)
    w.void("alpha-4")
    w.journal.shown.append(
        Shown("bot-ann", "ann", "ws://s1", "alpha", "alpha-4", 0, -100, "fold", 9, w.t)
    )
    checks, _ = reconcile(w.evidence())
    assert failing(checks) == {"d": {"shown_settled_but_voided"}}


def test_two_epochs_acting_at_once_are_reported_in_split_brain_seconds() -> None:
    w = played()
    w.log("s2#0", "table claimed", table="alpha", epoch=2)
    claimed = w.t
    w.t += 2.5
    w.log("s1#0", "round settled", table="alpha", round_id="alpha-1", epoch=1)
    checks, _ = reconcile(w.evidence())
    assert kinds(checks, "e") == {"two_hosts"}
    hosts = next(c for c in checks if c.name == "e")
    assert hosts.stats["mode_by_table"]["alpha"] == "epoch"
    assert hosts.stats["split_brain_seconds"] == pytest.approx(w.t - claimed, abs=0.01)


def test_without_epochs_the_process_identity_finds_two_hosts() -> None:
    w = played()
    for r in w.logs:
        r.fields.pop("epoch", None)
    w.log("s2#0", "table claimed", table="beta")
    w.log("s1#0", "round settled", table="beta", round_id="beta-1")
    w.faults.append(Fault("redis_stop", "redis", w.t - 5, w.t - 1))
    checks, figures = reconcile(w.evidence())
    assert kinds(checks, "e") == {"two_hosts", "log_line_missing"}
    assert figures["redis_stop"]["split_brain_seconds"] > 0
    hosts = next(c for c in checks if c.name == "e")
    assert hosts.stats["mode_by_table"]["beta"] == "process"
    # a stall longer than the lease must show as a "table lost" line, and none was written
    (missing,) = [v for v in hosts.violations if v.kind == "log_line_missing"]
    assert missing.expected == "table lost"


def test_missing_log_lines_fail_the_host_check_instead_of_passing_it() -> None:
    w = played()
    w.logs.clear()
    checks, _ = reconcile(w.evidence(faults=[Fault("host_stop", "s1", 1000.0, 1001.0)]))
    hosts = kinds(checks, "e")
    assert {"log_line_missing", "no_log_lines", "round_not_logged"} <= hosts
    missing = {
        str(v.expected) for c in checks for v in c.violations if v.kind == "log_line_missing"
    }
    assert missing == {"table claimed", "round dealt", "round settled", "table lost"}


def test_a_table_that_never_plays_again_and_shutting_down_refusals_are_reported() -> None:
    w = played()
    w.op("ann", "ante", ERROR, "shutting_down", table="beta", seat=0, fields={"table": "beta"})
    checks, _ = reconcile(w.evidence(calm_start=w.t - 0.05))
    assert kinds(checks, "g") == {"table_never_played_again", "refused_shutting_down"}


def test_unbalanced_books_are_reported() -> None:
    w = played()
    w.acct["house"] += 1
    checks, _ = reconcile(w.evidence())
    assert "books_unbalanced" in kinds(checks, "a")


def test_money_moved_without_a_row_is_reported() -> None:
    w = played()
    w.moved("seed:main", "meter:main", 5_000, source="house")  # a meter seeded, recorded
    assert failing(reconcile(w.evidence())[0]) == {}
    w.acct["house"] -= 700  # paid out of nothing any record shows, the books still at 0
    w.acct["player:bob"] += 700
    checks, _ = reconcile(w.evidence())
    assert kinds(checks, "a") == {"account_unrecorded"}
    found = {
        v.extra["account"]: (v.expected, v.actual)
        for c in checks
        if c.name == "a"
        for v in c.violations
    }
    assert found["player:bob"][1] - found["player:bob"][0] == 700


def test_ledger_positions_tell_refunds_by_amount() -> None:
    rows = [
        Row("r", 0, "ante", "player:p", "house", 300),
        Row("r", 0, "progressive", "player:p", "meter:main", 70),
        Row("r", 0, "refund", "house", "player:p", 600),  # a raise refund, not the ante's
        Row("r", 0, "refund", "meter:main", "player:p", 70),
        Row("r", 0, "ante", "player:p", "house", 500),
        Row("r", 0, "refund", "house", "player:p", 500),
    ]
    pos = position(rows, "p", 0)
    assert (pos.antes, pos.refunded, pos.live) == ([300, 500], 1, 1)


def test_subset_sums_name_the_purchases() -> None:
    ops = [Op("b", "p", 1, "u", "buy_chips", {"amount": a}, 0.0) for a in (20_001, 30_002, 40_003)]
    found = subset_with_sum(ops, 70_005)
    assert found is not None and [o.fields["amount"] for o in found] == [30_002, 40_003]
    assert subset_with_sum(ops, 12) is None


def test_a_round_settled_as_its_host_was_killed_may_lack_its_log_line() -> None:
    w = played()
    w.open_round("beta-9", "beta")
    w.ante("beta-9", "bob", 0, 100)
    w.settle("beta-9", [("bob", 0, 200)])
    w.logs = [r for r in w.logs if r.fields.get("round_id") != "beta-9"]
    # not near any kill: the check cannot see who settled it, and says so
    checks, _ = reconcile(w.evidence())
    assert kinds(checks, "e") == {"round_not_logged"}
    # SIGKILLed in the same instant: the line died with the process
    w.faults.append(Fault("host_kill", "s1", w.t + 0.01, w.t + 2, {"identity": "s1#0"}))
    checks, _ = reconcile(w.evidence())
    assert kinds(checks, "e") == set()
    hosts = next(c for c in checks if c.name == "e")
    assert any("beta-9" in note for note in hosts.notes)


def test_a_takeover_is_timed_only_for_the_tables_the_killed_host_held() -> None:
    w = played()  # s1#0 claimed alpha and beta
    w.log("s2#0", "table claimed", table="beta", epoch=2)  # beta moved while s1 stalled
    w.log("s1#0", "table lost", table="beta", epoch=1)
    killed = w.t + 0.01
    # the injector still names both of s1's tables
    w.faults.append(Fault("host_kill", "s1", killed, killed + 1, {"identity": "s1#0"}))
    w.faults[-1].detail["tables"] = ["alpha", "beta"]
    w.t = killed + 2.0
    w.log("s2#0", "table claimed", table="alpha", epoch=3)
    w.t += 10.0
    w.log("s3#0", "table claimed", table="beta", epoch=4)  # later, for reasons of its own
    _, figures = reconcile(w.evidence())
    assert figures["host_kill"]["takeover_seconds"] == [
        {
            "fault_start": killed,
            "victim": "s1#0",
            "table": "alpha",
            "by": "s2#0",
            "seconds": pytest.approx(2.1, abs=0.15),
            "measured_by": "claim",
        }
    ]


def test_a_wallet_told_that_is_not_the_store_s_at_the_quiet_is_reported() -> None:
    w = played()
    store = {"balance": w.acct["player:ann"], "held": 0}
    true = {"bot": "a", "player": "ann", "url": "ws://s1", "store": store}
    told = {"balance": store["balance"], "held": 0, "available": store["balance"], "bonus": 5}
    checks, _ = reconcile(
        w.evidence(wallets_at_rest=True, wallets_compared=[{**true, "shown": told}])
    )
    assert failing(checks) == {}
    stale = {**told, "balance": store["balance"] - 600, "available": store["balance"] - 600}
    checks, _ = reconcile(
        w.evidence(wallets_at_rest=True, wallets_compared=[{**true, "shown": stale}])
    )
    assert kinds(checks, "i") == {"wallet_told_stale"}
    (v,) = next(c for c in checks if c.name == "i").violations
    assert v.player == "ann" and v.actual == {"balance": store["balance"] - 600, "held": 0}
    # a round left open with the bots hushed: nothing could be compared, and it says so
    checks, _ = reconcile(w.evidence(wallets_at_rest=False))
    assert kinds(checks, "i") == {"money_never_at_rest"}
