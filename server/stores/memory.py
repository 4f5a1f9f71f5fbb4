"""The embedded store: everything in one process's memory.

Each method runs to completion without awaiting anything, so on one event loop
every method is atomic, which is all the Redis scripts promise too. This is the
reference the Redis store is tested against: same checks, same results.
"""

from __future__ import annotations

import json
import secrets
import time
from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from server.game.ledger import (
    HOUSE,
    WORLD,
    Hold,
    JackpotClaim,
    Reason,
    Transfer,
    meter_account,
    player_account,
)
from server.game.settlement import percent_claim
from server.stores.base import (
    HISTORY_LIMIT,
    HITS_LIMIT,
    ClaimPaid,
    InvalidRequest,
    Player,
    Settled,
    Wallet,
    bet_needed,
    bet_owner,
    buy_in_error,
    check_cents,
    check_entries,
    closed_error,
    cover_error,
    funds_error,
    record_json,
    record_players,
    settle_conflict,
    transfers_digest,
    wallet_ids,
    with_jackpots,
)

__all__ = ["HISTORY_LIMIT", "MemoryStore"]


@dataclass
class _Round:
    """A round in the journal: what it moved, so a crash can be undone from here alone."""

    table_id: str
    state: str = "open"  # open | settled | voided
    ledger: list[Transfer] = field(default_factory=list)
    digest: str = ""
    result: Settled | None = None


class MemoryStore:
    def __init__(self) -> None:
        self.accounts: dict[str, int] = {}  # no entry until money moves, as in Redis
        self.bonus: dict[str, int] = {}
        self.held: dict[str, int] = {}
        self.holds: dict[tuple[str, int], int] = {}  # (round_id, seat) -> cents
        self.hold_owner: dict[tuple[str, int], str] = {}  # (round_id, seat) -> player id
        self.players: dict[str, Player] = {}
        self.tokens: dict[str, str] = {}
        self.seeds: dict[str, int] = {}
        self.rounds: dict[str, _Round] = {}
        self.ledger: list[Transfer] = []
        self._history: dict[str, deque[dict[str, Any]]] = defaultdict(
            lambda: deque(maxlen=HISTORY_LIMIT)
        )
        self._table_history: dict[str, deque[dict[str, Any]]] = defaultdict(
            lambda: deque(maxlen=HISTORY_LIMIT)
        )
        self._hits: dict[str, deque[dict[str, Any]]] = defaultdict(lambda: deque(maxlen=HITS_LIMIT))

    async def close(self) -> None:
        return None

    # ----- identity -----------------------------------------------------------

    async def create_player(self, name: str, credits: int, bonus: int) -> Player:
        check_cents("credits", credits)
        check_cents("bonus", bonus)
        player = Player(secrets.token_hex(8), name, secrets.token_urlsafe(32))
        self.players[player.player_id] = player
        self.tokens[player.token] = player.player_id
        if credits > 0:
            self._move(
                Transfer("", None, Reason.BUY_IN, WORLD, player_account(player.player_id), credits)
            )
        self.bonus[player.player_id] = bonus
        return player

    async def player_by_token(self, token: str) -> Player | None:
        pid = self.tokens.get(token)
        return None if pid is None else self.players[pid]

    # ----- wallets ------------------------------------------------------------

    def _wallet(self, player_id: str) -> Wallet:
        return Wallet(
            self._balance(player_account(player_id)),
            self.bonus.get(player_id, 0),
            self.held.get(player_id, 0),
        )

    async def wallet(self, player_id: str) -> Wallet:
        return self._wallet(player_id)

    async def buy_chips(self, player_id: str, amount: int, max_balance: int) -> Wallet:
        check_cents("max_balance", max_balance)
        w = self._wallet(player_id)
        if amount <= 0 or w.balance + amount > max_balance:
            raise buy_in_error(max_balance, w.balance)
        self._move(Transfer("", None, Reason.BUY_IN, WORLD, player_account(player_id), amount))
        return self._wallet(player_id)

    async def bet(
        self, table_id: str, transfers: Sequence[Transfer], holds: Sequence[Hold]
    ) -> Wallet:
        player_id, round_id = bet_owner(transfers, holds)
        rnd = self.rounds.get(round_id)
        if rnd is not None and rnd.state != "open":
            raise closed_error(round_id, rnd.state)
        if rnd is not None and rnd.table_id != table_id:
            raise InvalidRequest(f"round {round_id} belongs to table {rnd.table_id}")
        needed = bet_needed(transfers, holds)
        w = self._wallet(player_id)
        if needed > w.available:
            raise funds_error(needed, w.available, w.bonus)
        if rnd is None:
            rnd = self.rounds[round_id] = _Round(table_id)
        for t in transfers:
            self._move(t, rnd)
        for h in holds:
            self._hold(h)
        return self._wallet(player_id)

    async def apply(
        self, transfers: Sequence[Transfer], holds: Sequence[Hold]
    ) -> dict[str, Wallet]:
        check_entries(transfers, holds)
        for rid in sorted({t.round_id for t in transfers} | {h.round_id for h in holds}):
            rnd = self.rounds.get(rid)
            if rnd is not None and rnd.state != "open":
                raise closed_error(rid, rnd.state)
        self._check_covered(transfers)
        for h in holds:
            self._hold(h)
        for t in transfers:
            self._move(t, self.rounds.get(t.round_id))
        return self._wallets_of(transfers, holds)

    # ----- the meter ----------------------------------------------------------

    async def ensure_meter(self, name: str, seed: int) -> int:
        check_cents("seed", seed)
        account = meter_account(name)
        if name not in self.seeds:
            self.seeds[name] = seed
            if self._balance(account) < seed:
                self._move(
                    Transfer("", None, Reason.RESEED, HOUSE, account, seed - self._balance(account))
                )
        return self._balance(account)

    async def meter(self, name: str) -> int:
        return self._balance(meter_account(name))

    async def meters(self) -> dict[str, int]:
        return {name: self._balance(meter_account(name)) for name in self.seeds}

    # ----- rounds -------------------------------------------------------------

    async def settle(
        self,
        round_id: str,
        transfers: Sequence[Transfer],
        claims: Sequence[JackpotClaim],
        jackpot: str,
        seed: int,
        record: dict[str, Any],
    ) -> Settled:
        check_entries(transfers, (), claims)
        check_cents("seed", seed)
        digest = transfers_digest(transfers)
        rnd = self.rounds.get(round_id)
        if rnd is not None and rnd.state == "settled":
            if rnd.digest != digest:
                raise settle_conflict(round_id)
            assert rnd.result is not None
            return replace(rnd.result, replayed=True)
        if rnd is not None and rnd.state == "voided":
            raise closed_error(round_id, "voided")
        text = record_json(record)
        self._check_covered(transfers)
        if rnd is None:
            rnd = self.rounds[round_id] = _Round(str(record.get("table", "")))
        now = _now_ms()
        applied = list(transfers)
        for t in transfers:
            self._move(t, rnd)
        meter = meter_account(jackpot)
        paid: list[ClaimPaid] = []
        for c in sorted(claims, key=lambda c: c.seat):
            before = self._balance(meter)
            amount = percent_claim(max(before, 0), c.percent_bp)
            if amount:
                t = Transfer(
                    round_id, c.seat, Reason.JACKPOT, meter, player_account(c.player_id), amount
                )
                self._move(t, rnd)
                applied.append(t)
            reseed = max(0, seed - self._balance(meter))
            if reseed:
                self._move(Transfer(round_id, c.seat, Reason.RESEED, HOUSE, meter, reseed), rnd)
            paid.append(ClaimPaid(c.seat, c.player_id, amount, self._balance(meter)))
            self._hits[jackpot].append(
                {
                    "round_id": round_id,
                    "table": rnd.table_id,
                    "seat": c.seat,
                    "player_id": c.player_id,
                    "category": c.category,
                    "percent_bp": c.percent_bp,
                    "amount": amount,
                    "meter_before": before,
                    "reseed": reseed,
                    "meter_after": self._balance(meter),
                    "settled_at": now,
                }
            )
        self._release_round(round_id)
        wallets = self._wallets_of(applied, ())
        settled = Settled(round_id, tuple(paid), wallets, {jackpot: self._balance(meter)})
        rnd.state, rnd.digest, rnd.result = "settled", digest, settled
        self._remember(rnd, text, paid, now)
        return settled

    async def void(
        self, round_id: str, transfers: Sequence[Transfer], holds: Sequence[Hold]
    ) -> None:
        check_entries(transfers, holds)
        rnd = self.rounds.get(round_id)
        if rnd is not None and rnd.state == "voided":
            return
        if rnd is not None and rnd.state == "settled":
            raise closed_error(round_id, "settled")
        self._check_covered(transfers)
        if rnd is None:
            rnd = self.rounds[round_id] = _Round("")
        for h in holds:
            self._hold(h)
        for t in transfers:
            self._refund(t, rnd)
        self._release_round(round_id)
        rnd.state = "voided"

    async def recover(self, table_id: str) -> list[str]:
        voided: list[str] = []
        for rid in sorted(self.rounds):
            rnd = self.rounds[rid]
            if rnd.table_id != table_id or rnd.state != "open":
                continue
            for t in reversed(list(rnd.ledger)):
                self._refund(
                    Transfer(rid, t.seat, Reason.REFUND, t.target, t.source, t.amount), rnd
                )
            self._release_round(rid)
            rnd.state = "voided"
            voided.append(rid)
        return voided

    async def open_rounds(self, table_id: str) -> list[str]:
        return sorted(
            rid for rid, r in self.rounds.items() if r.table_id == table_id and r.state == "open"
        )

    # ----- history ------------------------------------------------------------

    async def history(self, player_id: str, limit: int = 50) -> list[dict[str, Any]]:
        return [with_jackpots(e) for e in _newest(self._history.get(player_id), limit)]

    async def table_history(self, table_id: str, limit: int = 50) -> list[dict[str, Any]]:
        return [with_jackpots(e) for e in _newest(self._table_history.get(table_id), limit)]

    async def jackpot_hits(self, name: str, limit: int = 50) -> list[dict[str, Any]]:
        return _newest(self._hits.get(name), limit)

    def _remember(self, rnd: _Round, text: str, paid: list[ClaimPaid], now: int) -> None:
        """Append the round to its players' and its table's history (stored as JSON)."""
        record = json.loads(text)
        jackpots = {str(p.seat): p.amount for p in paid}
        table_entry = dict(record, jackpots=jackpots, settled_at=now)
        self._table_history[rnd.table_id].append(table_entry)
        for player_id in record_players(record):
            account = player_account(player_id)
            net = sum(t.amount for t in rnd.ledger if t.target == account) - sum(
                t.amount for t in rnd.ledger if t.source == account
            )
            after = self._balance(account)
            self._history[player_id].append(
                dict(
                    json.loads(text),
                    jackpots=dict(jackpots),
                    balance_before=after - net,
                    balance_after=after,
                    settled_at=now,
                )
            )

    # ----- accounting ---------------------------------------------------------

    async def totals(self) -> dict[str, int]:
        return dict(self.accounts)

    def _check_covered(self, transfers: Sequence[Transfer]) -> None:
        """Refuse the whole batch before applying any of it if a wallet would go below zero."""
        net: dict[str, int] = defaultdict(int)
        for t in transfers:
            net[t.source] -= t.amount
            net[t.target] += t.amount
        for account, delta in net.items():
            if account.startswith("player:") and self._balance(account) + delta < 0:
                raise cover_error(account, -delta)

    def _balance(self, account: str) -> int:
        return self.accounts.get(account, 0)

    def _move(self, t: Transfer, rnd: _Round | None = None) -> None:
        self.accounts[t.source] = self._balance(t.source) - t.amount
        self.accounts[t.target] = self._balance(t.target) + t.amount
        self.ledger.append(t)
        if rnd is not None and rnd.state == "open":
            rnd.ledger.append(t)

    def _refund(self, t: Transfer, rnd: _Round) -> None:
        """Move a refund; what a meter cannot cover (claimed meanwhile) the house pays."""
        if t.source.startswith("meter:") and self._balance(t.source) < t.amount:
            from_meter = max(self._balance(t.source), 0)
            if from_meter:
                self._move(replace(t, amount=from_meter), rnd)
            self._move(replace(t, source=HOUSE, amount=t.amount - from_meter), rnd)
        else:
            self._move(t, rnd)

    def _hold(self, h: Hold) -> None:
        key = (h.round_id, h.seat)
        if h.amount > 0:
            self.holds[key] = self.holds.get(key, 0) + h.amount
            self.hold_owner[key] = h.player_id
            self.held[h.player_id] = self.held.get(h.player_id, 0) + h.amount
        else:
            released = min(-h.amount, self.holds.pop(key, 0))
            self.hold_owner.pop(key, None)
            self.held[h.player_id] = self.held.get(h.player_id, 0) - released

    def _release_round(self, round_id: str) -> None:
        """A closed round holds nothing: release what its seats still hold."""
        for key in [k for k in self.holds if k[0] == round_id]:
            self.held[self.hold_owner.pop(key)] -= self.holds.pop(key)

    def _wallets_of(
        self, transfers: Sequence[Transfer], holds: Sequence[Hold]
    ) -> dict[str, Wallet]:
        return {pid: self._wallet(pid) for pid in wallet_ids(transfers, holds)}


def _newest(entries: deque[dict[str, Any]] | None, limit: int) -> list[dict[str, Any]]:
    if not entries or limit <= 0:
        return []
    return list(entries)[-limit:][::-1]


def _now_ms() -> int:
    return int(time.time() * 1000)
