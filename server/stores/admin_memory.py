"""The operator console's data in one process's memory, beside a `MemoryStore`.

Each method runs to completion without awaiting, so on one event loop each is
atomic, as each Redis script is. Money moves through the `MemoryStore`'s own
accounts and ledger, so the books it keeps stay one.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from server.game.ledger import HOUSE, Reason, Transfer, meter_account, player_account
from server.stores.admin import (
    ADMIN,
    MAX_SCAN,
    STAT_FIELDS,
    Act,
    Acted,
    AdminState,
    Operator,
    Submitted,
    add_stats,
    canonical,
    conflict,
    fold_operator,
    suspension,
)
from server.stores.base import MAX_CENTS, Wallet, token_hash, transfer_row
from server.stores.memory import MemoryStore

__all__ = ["MemoryAdmin"]


class MemoryAdmin:
    def __init__(self, store: MemoryStore, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock  # wall clock, seconds: token expiry (tests move it)
        self.operators: dict[str, Operator] = {}  # folded name -> operator
        self.tokens: dict[str, tuple[str, float]] = {}  # sha256(token) -> (name, expiry)
        self.actions: dict[str, dict[str, Any]] = {}  # id -> {digest, state, act, row}
        self.pending: dict[str, Act] = {}
        self.paused: dict[str, dict[str, Any]] = {}
        self.suspended = store.suspended  # the store refuses their bets and purchases
        self.audit_rows: list[dict[str, Any]] = []
        self.by_target: dict[str, list[int]] = defaultdict(list)  # target -> row indexes
        self.adjustments: list[tuple[str, Transfer]] = []  # the ledger of operators' moves
        self.seen_until = 0.0
        self.details: dict[str, dict[str, Any]] = {}
        self.processes: dict[str, dict[str, Any]] = {}
        self.stats = store.round_stats  # table -> round -> row: written with the settlement

    async def prepare(self) -> None:
        return None

    # ----- operators --------------------------------------------------------------

    async def put_operator(
        self, name: str, password_hash: str, *, replace: bool, now_ms: int, role: str = ADMIN
    ) -> bool:
        folded = fold_operator(name)
        if folded in self.operators and not replace:
            return False
        if folded in self.operators:
            self._revoke_all(folded)
        self.operators[folded] = Operator(name, password_hash, now_ms, role)
        return True

    async def get_operator(self, name: str) -> Operator | None:
        return self.operators.get(fold_operator(name))

    async def list_operators(self) -> list[Operator]:
        return sorted(self.operators.values(), key=lambda o: fold_operator(o.name))

    async def remove_operator(self, name: str) -> bool:
        folded = fold_operator(name)
        if self.operators.pop(folded, None) is None:
            return False
        self._revoke_all(folded)
        return True

    def _revoke_all(self, folded: str) -> None:
        for digest in [d for d, (n, _) in self.tokens.items() if fold_operator(n) == folded]:
            del self.tokens[digest]

    async def issue_operator_token(self, name: str, token: str, ttl: float) -> None:
        now = self.clock()
        self.tokens = {d: v for d, v in self.tokens.items() if v[1] > now}  # forget expired
        self.tokens[token_hash(token)] = (name, now + ttl)

    async def operator_for_token(self, token: str) -> str | None:
        entry = self.tokens.get(token_hash(token))
        if entry is None or entry[1] <= self.clock():
            return None
        operator = self.operators.get(fold_operator(entry[0]))
        return operator.name if operator is not None else None

    async def revoke_operator_token(self, token: str) -> None:
        self.tokens.pop(token_hash(token), None)

    # ----- the store's own acts ------------------------------------------------------

    def _replay(self, act: Act) -> Acted | None:
        first = self.actions.get(act.id)
        if first is None:
            return None
        if first["digest"] != act.digest:
            raise conflict(act.id)
        return Acted(first["row"], replayed=True) if first.get("row") else None

    def _record(self, act: Act, row: dict[str, Any]) -> Acted:
        row = json.loads(canonical(row))  # what Redis keeps: JSON
        self.actions[act.id] = {"digest": act.digest, "state": "done", "row": row}
        for target in act.audit_targets:  # its own, and a player it names
            self.by_target[target].append(len(self.audit_rows))
        self.audit_rows.append(row)
        return Acted(row)

    def _move(self, act: Act, t: Transfer) -> None:
        self.store.move_outside_round(act.id, act.ts, t)
        self.adjustments.append((act.id, t))

    def _wallet(self, player_id: str) -> Wallet:
        s = self.store
        return Wallet(
            s.accounts.get(player_account(player_id), 0),
            s.bonus.get(player_id, 0),
            s.held.get(player_id, 0),
        )

    async def adjust(
        self,
        act: Act,
        player_id: str,
        amount: int,
        *,
        limit: int = MAX_CENTS,
        act_limit: int = 0,
    ) -> Acted:
        first = self._replay(act)
        if first is not None:
            return first
        if player_id not in self.store.players:
            return self._record(act, act.row("refused", {"code": "unknown_player"}))
        if act_limit > 0 and abs(amount) > act_limit:
            refusal = {"code": "over_act_limit", "limit": act_limit}
            return self._record(act, act.row("refused", refusal))
        w = self._wallet(player_id)
        if amount < 0 and w.available < -amount:
            refusal = {"code": "insufficient_funds", "available": w.available}
            return self._record(act, act.row("refused", refusal))
        cap = min(limit, MAX_CENTS)
        if amount > 0 and w.balance + amount > cap:
            refusal = {"code": "over_limit", "balance": w.balance, "limit": cap}
            return self._record(act, act.row("refused", refusal))
        me = player_account(player_id)
        source, target = (HOUSE, me) if amount > 0 else (me, HOUSE)
        self._move(act, Transfer("", None, Reason.ADJUSTMENT, source, target, abs(amount)))
        w = self._wallet(player_id)
        result = {"amount": amount, "balance": w.balance, "bonus": w.bonus, "held": w.held}
        return self._record(act, act.row("applied", result))

    async def set_meter(self, act: Act, name: str, amount: int | None) -> Acted:
        first = self._replay(act)
        if first is not None:
            return first
        if name not in self.store.seeds:
            return self._record(act, act.row("refused", {"code": "unknown_jackpot"}))
        seed = self.store.seeds[name]
        account = meter_account(name)
        before = self.store.accounts.get(account, 0)
        if amount is not None and amount < seed:  # PROTOCOL.md §7: never below its seed
            refusal = {"code": "below_seed", "seed": seed, "amount": before}
            return self._record(act, act.row("refused", refusal))
        target = seed if amount is None else amount
        reason = Reason.RESEED if amount is None else Reason.ADJUSTMENT
        if target == before:
            result = {"name": name, "before": before, "after": before, "seed": seed}
            return self._record(act, act.row("unchanged", result))
        if target > before:
            t = Transfer("", None, reason, HOUSE, account, target - before)
        else:
            t = Transfer("", None, reason, account, HOUSE, before - target)
        self._move(act, t)
        after = self.store.accounts.get(account, 0)
        result = {"name": name, "before": before, "after": after, "seed": seed}
        return self._record(act, act.row("applied", result))

    async def suspend(self, act: Act, player_id: str, suspended: bool) -> Acted:
        first = self._replay(act)
        if first is not None:
            return first
        if player_id not in self.store.players:
            return self._record(act, act.row("refused", {"code": "unknown_player"}))
        was = player_id in self.suspended
        if was == suspended:
            return self._record(act, act.row("unchanged", {"suspended": was}))
        if suspended:
            self.suspended[player_id] = suspension(act)
        else:
            del self.suspended[player_id]
        return self._record(act, act.row("applied", {"suspended": suspended}))

    # ----- a table's acts -------------------------------------------------------------

    async def submit(self, act: Act) -> Submitted:
        first = self.actions.get(act.id)
        if first is not None:
            if first["digest"] != act.digest:
                raise conflict(act.id)
            return Submitted(first["state"], first.get("row"), replayed=True)
        self.actions[act.id] = {"digest": act.digest, "state": "pending"}
        self.pending[act.id] = act
        return Submitted("pending")

    async def finish(
        self, act: Act, row: dict[str, Any], paused: dict[str, Any] | None = None
    ) -> Acted:
        first = self.actions.get(act.id)
        if first is not None and first["digest"] != act.digest:
            raise conflict(act.id)
        if first is not None and first.get("row"):
            return Acted(first["row"], replayed=True)
        self.pending.pop(act.id, None)
        table = act.target.removeprefix("table:")
        if paused is not None and "set" in paused:
            self.paused[table] = json.loads(canonical(paused["set"]))
        elif paused is not None:
            self.paused.pop(table, None)
        return self._record(act, row)

    async def action(self, action_id: str) -> Submitted | None:
        first = self.actions.get(action_id)
        if first is None:
            return None
        return Submitted(first["state"], first.get("row"))

    async def admin_state(self) -> AdminState:
        return AdminState(
            dict(self.pending),
            {k: dict(v) for k, v in self.paused.items()},
            {k: dict(v) for k, v in self.suspended.items()},
            seen=self.clock() < self.seen_until,
        )

    # ----- the audit log ----------------------------------------------------------

    async def audit(
        self, offset: int, limit: int, target: str | None = None
    ) -> tuple[list[dict[str, Any]], int]:
        rows = (
            self.audit_rows
            if target is None
            else [self.audit_rows[i] for i in self.by_target.get(target, [])]
        )
        total = len(rows)
        end = max(0, total - max(offset, 0))
        start = max(0, end - max(limit, 0))
        return [json.loads(canonical(r)) for r in reversed(rows[start:end])], total

    async def audit_lines(self, start: int, count: int) -> list[str]:
        return [canonical(r) for r in self.audit_rows[max(start, 0) : max(start, 0) + count]]

    # ----- the fleet's view ---------------------------------------------------------

    async def mark_seen(self, ttl: float) -> None:
        self.seen_until = self.clock() + ttl

    async def publish(
        self, process_id: str, process: dict[str, Any], tables: dict[str, dict[str, Any]]
    ) -> None:
        self.processes[process_id] = json.loads(canonical(process))
        for table_id, detail in tables.items():
            self.details[table_id] = json.loads(canonical(detail))

    async def published(self) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
        return dict(self.details), dict(self.processes)

    # ----- reads ----------------------------------------------------------------

    def _profile(self, player_id: str) -> dict[str, Any] | None:
        p = self.store.players.get(player_id)
        if p is None:
            return None
        return {"player_id": p.player_id, "name": p.name, "username": p.username}

    async def find_players(self, query: str, limit: int) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        seen: set[str] = set()

        def add(player_id: str) -> None:
            profile = self._profile(player_id)
            if profile is not None and player_id not in seen and len(out) < limit:
                seen.add(player_id)
                out.append(profile)

        add(query)
        user = self.store.users.get(query.lower())
        if user is not None:
            add(user[0])
        needle = query.lower()
        for scanned, p in enumerate(self.store.players.values()):
            if len(out) >= limit or scanned >= MAX_SCAN:
                break
            if needle in p.name.lower():
                add(p.player_id)
        return out

    async def player(self, player_id: str) -> dict[str, Any] | None:
        profile = self._profile(player_id)
        if profile is None:
            return None
        return {**profile, "suspended": self.suspended.get(player_id)}

    async def holds(self, player_id: str, table_ids: list[str]) -> list[dict[str, Any]]:
        out = []
        for (rid, seat), amount in sorted(self.store.holds.items()):
            rnd = self.store.rounds.get(rid)
            if rnd is None or rnd.table_id not in table_ids or rnd.state != "open":
                continue
            if self.store.hold_owner.get((rid, seat)) == player_id:
                out.append({"round_id": rid, "table": rnd.table_id, "seat": seat, "amount": amount})
        return out

    async def journal(self, round_id: str) -> dict[str, Any] | None:
        rnd = self.store.rounds.get(round_id)
        if rnd is None:
            return None
        holds = [
            {"seat": seat, "player_id": self.store.hold_owner.get((rid, seat)), "amount": amount}
            for (rid, seat), amount in sorted(self.store.holds.items())
            if rid == round_id
        ]
        return {
            "round_id": round_id,
            "table": rnd.table_id,
            "state": rnd.state,
            "ledger": [transfer_row(t) for t in rnd.ledger],
            "holds": holds,
        }

    async def round_stats(
        self, table_ids: list[str], since_ms: int, now_ms: int
    ) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for table_id in table_ids:
            totals = dict.fromkeys(STAT_FIELDS, 0)
            for row in self.stats.get(table_id, {}).values():
                if since_ms <= row[0] <= now_ms:
                    add_stats(totals, row)
            out[table_id] = totals
        return out
