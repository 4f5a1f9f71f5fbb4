"""The embedded store: everything in one process's memory.

Each method runs to completion without awaiting anything, so on one event loop
every method is atomic, which is all the Redis scripts promise too. This is the
reference the Redis store is tested against: same checks, same results.

Closed rounds (their journal and operation ids) are forgotten `retention`
seconds after they close, and a player's purchase ids `purchase_retention` after
the last purchase, as Redis expires their keys: a process serving for weeks keeps
what a retry could still ask for, not every round it ever played. Balances,
players and the bounded histories stay.
"""

from __future__ import annotations

import json
import math
import time
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
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
    players_of,
)
from server.game.settlement import percent_claim
from server.stores.admin import HOUR_MS, STATS_KEPT_MS, RoundStat, round_stat
from server.stores.base import (
    HISTORY_LIMIT,
    HITS_LIMIT,
    MOVES_LIMIT,
    Claim,
    ClaimPaid,
    Credentials,
    Failures,
    Fence,
    InvalidRequest,
    Move,
    Player,
    Settled,
    Wallet,
    abandoned,
    already_registered,
    bet_needed,
    bet_owner,
    buy_in_error,
    check_cents,
    check_entries,
    closed_error,
    cover_error,
    fold_username,
    funds_error,
    new_player,
    not_owner,
    one_round,
    purchase_conflict,
    purchase_limit_error,
    record_json,
    record_players,
    settle_conflict,
    suspended_error,
    token_hash,
    transfers_digest,
    unknown_player,
    unknown_round,
    username_taken,
    wallet_ids,
    with_jackpots,
)

__all__ = ["HISTORY_LIMIT", "MemoryStore"]

#: Failure counters kept before the ended windows are swept out.
_FAILS_KEPT = 10_000
#: What an abandoned operation id is remembered as.
_DEAD = object()
#: Seconds a closed round's journal and op ids are kept. Retries of a write in doubt
#: come within the server's store patience (seconds) and the console looks at recent
#: rounds; a busy table server closes a hundred rounds a second, a few KiB each.
#: Redis keeps them a week, where they outlive the process.
RETENTION = 600.0
#: Seconds a player's purchase ids are kept after the last purchase, as Redis keeps
#: them (PROTOCOL.md promises a key at least 7 days): a client repeats a purchase whose
#: answer was lost when it is back, which may be days later (a laptop closed); they
#: are a few bytes a purchase.
PURCHASE_RETENTION = 7 * 86_400.0


@dataclass
class _Round:
    """A round in the journal: what it moved, so a crash can be undone from here alone."""

    table_id: str
    state: str = "open"  # open | settled | voided
    ledger: list[Transfer] = field(default_factory=list)
    digest: str = ""
    result: Settled | None = None


class MemoryStore:
    def __init__(
        self,
        *,
        retention: float = RETENTION,
        purchase_retention: float = PURCHASE_RETENTION,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.retention = retention
        self.purchase_retention = purchase_retention
        self._clock = clock
        # what expires when, as Redis's EXPIRE: ("round", id) or ("buys", player id) ->
        # its time; a later expiry replaces an earlier one
        self._expiry: dict[tuple[str, str], float] = {}
        # the same in the order set, one queue a retention (appending keeps each sorted)
        self._expiring: dict[str, deque[tuple[float, tuple[str, str]]]] = {
            "round": deque(),
            "buys": deque(),
        }
        self.accounts: dict[str, int] = {}  # no entry until money moves, as in Redis
        self.bonus: dict[str, int] = {}
        self.held: dict[str, int] = {}
        self.holds: dict[tuple[str, int], int] = {}  # (round_id, seat) -> cents
        self.hold_owner: dict[tuple[str, int], str] = {}  # (round_id, seat) -> player id
        self._round_holds: dict[str, set[int]] = defaultdict(set)  # round -> seats held
        self.players: dict[str, Player] = {}
        self.tokens: dict[str, str] = {}  # sha256(token) -> player id, as in Redis
        self.token_used: dict[str, float] = {}  # sha256(token) -> when last used (wall clock)
        self.wall_clock: Callable[[], float] = time.time
        self.player_tokens: dict[str, set[str]] = defaultdict(set)  # player -> token hashes
        self.users: dict[str, tuple[str, str]] = {}  # folded username -> (player id, hash)
        self.fails: dict[str, tuple[int, float]] = {}  # key -> (count, window's end)
        # player -> an operator's suspension {by, reason, since_ms, action}: MemoryAdmin
        # keeps it here, so a bet or a purchase is refused as Redis's scripts refuse it
        self.suspended: dict[str, dict[str, Any]] = {}
        self.seeds: dict[str, int] = {}
        self.rounds: dict[str, _Round] = {}
        self._history: dict[str, deque[dict[str, Any]]] = defaultdict(
            lambda: deque(maxlen=HISTORY_LIMIT)
        )
        self._table_history: dict[str, deque[dict[str, Any]]] = defaultdict(
            lambda: deque(maxlen=HISTORY_LIMIT)
        )
        self._hits: dict[str, deque[dict[str, Any]]] = defaultdict(lambda: deque(maxlen=HITS_LIMIT))
        self.epochs: dict[str, int] = {}  # table -> the epoch of its latest claim
        self.leases: dict[str, tuple[str, int, float | None]] = {}  # holder, epoch, expiry
        self.free_since: dict[str, float] = {}  # table -> when its lapsed lease was seen free
        self.round_ops: dict[str, dict[str, object]] = defaultdict(dict)  # round -> op -> result
        self.buy_ops: dict[str, dict[str, object]] = defaultdict(dict)  # player -> op -> amount
        # table -> round -> its row of the hold statistics (admin.round_stat), oldest first,
        # written with the settlement; MemoryAdmin reads them
        self.round_stats: dict[str, dict[str, list[int]]] = defaultdict(dict)
        self.move_journal: list[Move] = []  # every move outside a round, oldest first
        self._player_moves: dict[str, deque[Move]] = defaultdict(lambda: deque(maxlen=MOVES_LIMIT))

    async def close(self) -> None:
        return None

    async def ping(self) -> None:
        return None

    async def probe_writes(self) -> None:
        return None

    # ----- identity -----------------------------------------------------------

    async def create_player(
        self, name: str, credits: int, bonus: int, player: Player | None = None
    ) -> Player:
        check_cents("credits", credits)
        check_cents("bonus", bonus)
        player = player or new_player(name)
        if player.player_id in self.players:
            return self.players[player.player_id]
        self.players[player.player_id] = player
        self._add_token(player.player_id, player.token)
        if credits > 0:
            me = player_account(player.player_id)
            grant = Transfer("", None, Reason.BUY_IN, WORLD, me, credits)
            self.move_outside_round(f"grant:{player.player_id}", self._wall_ms(), grant)
        self.bonus[player.player_id] = bonus
        return player

    async def player_by_token(self, token: str, *, idle: float | None = None) -> Player | None:
        digest = token_hash(token)
        pid = self.tokens.get(digest)
        if pid is None:
            return None
        now = self.wall_clock()
        if idle is not None and now - self.token_used.get(digest, now) > idle:
            await self.revoke_token(token)
            return None
        self.token_used[digest] = now  # a use: a resume, or a live connection's look
        return replace(self.players[pid], token=token)

    async def player_known(self, player_id: str) -> bool:
        return player_id in self.players

    def _add_token(self, player_id: str, token: str) -> None:
        digest = token_hash(token)
        self.tokens[digest] = player_id
        self.token_used[digest] = self.wall_clock()
        self.player_tokens[player_id].add(digest)

    # ----- accounts -----------------------------------------------------------

    async def register(
        self, player_id: str, username: str, password_hash: str, token: str
    ) -> Player:
        player = self.players.get(player_id)
        if player is None:
            raise unknown_player(player_id)
        folded = fold_username(username)
        owner = self.users.get(folded)
        if owner is not None:
            if owner[0] == player_id:
                return replace(player, token=token)  # a repeat: done already
            raise username_taken(username)
        if player.username is not None:
            raise already_registered(player.username)
        self.users[folded] = (player_id, password_hash)
        self.players[player_id] = player = replace(player, username=username)
        self._add_token(player_id, token)
        return replace(player, token=token)

    async def credentials(self, username: str) -> Credentials | None:
        entry = self.users.get(fold_username(username))
        if entry is None:
            return None
        player = self.players[entry[0]]
        assert player.username is not None
        return Credentials(player.player_id, player.username, player.name, entry[1])

    async def issue_token(self, player_id: str, token: str) -> None:
        if player_id not in self.players:
            raise unknown_player(player_id)
        self._add_token(player_id, token)

    async def revoke_token(self, token: str) -> None:
        digest = token_hash(token)
        pid = self.tokens.pop(digest, None)
        self.token_used.pop(digest, None)
        if pid is not None:
            self.player_tokens[pid].discard(digest)

    async def set_password(
        self,
        username: str,
        player_id: str,
        old_hash: str,
        new_hash: str,
        *,
        revoke_except: str | None = None,
    ) -> bool:
        folded = fold_username(username)
        entry = self.users.get(folded)
        if entry is None or entry[0] != player_id:
            raise unknown_player(player_id)
        if entry[1] == new_hash:
            return True
        if entry[1] != old_hash:
            return False
        self.users[folded] = (player_id, new_hash)
        if revoke_except is not None:
            keep = token_hash(revoke_except)
            for digest in self.player_tokens[player_id] - {keep}:
                self.tokens.pop(digest, None)
                self.token_used.pop(digest, None)
            self.player_tokens[player_id] &= {keep}
        return True

    async def failures(self, keys: Sequence[str]) -> list[Failures]:
        now = self._clock()
        out = []
        for key in keys:
            count, end = self.fails.get(key, (0, now))
            out.append(Failures(count, end - now) if end > now else Failures(0, 0.0))
        return out

    async def add_failure(self, keys: Sequence[str], window: float, by: int = 1) -> list[int]:
        now = self._clock()
        if len(self.fails) > _FAILS_KEPT:  # forget the windows that ended
            self.fails = {k: v for k, v in self.fails.items() if v[1] > now}
        counts = []
        for key in keys:
            count, end = self.fails.get(key, (0, now))
            if end <= now:
                count, end = 0, now + window
            count = max(0, count + by)
            if count:
                self.fails[key] = (count, end)
            else:
                self.fails.pop(key, None)
            counts.append(count)
        return counts

    async def clear_failures(self, key: str) -> None:
        self.fails.pop(key, None)

    # ----- table leases -------------------------------------------------------

    async def claim(self, table_id: str, holder: str, epoch: int, ttl: float | None) -> Claim:
        now = time.monotonic()
        current = self.epochs.get(table_id, 0)
        lease = self.leases.get(table_id)
        if lease is not None and lease[2] is not None and lease[2] <= now:
            lease = None  # expired
        expiry = None if ttl is None else now + ttl
        if lease is not None:
            if lease[0] != holder:
                return Claim(current, owner=lease[0])
            self.leases[table_id] = (holder, lease[1], expiry)
            return Claim(lease[1], fresh=lease[1] != epoch)
        if epoch and epoch == current:
            self.free_since.pop(table_id, None)
            self.leases[table_id] = (holder, epoch, expiry)  # ours still: nobody took it
            return Claim(epoch)
        if current and ttl is not None:  # ran out: its holder gets a third of the TTL first
            since = self.free_since.setdefault(table_id, now)
            if now - since < ttl / 3:
                return Claim(current, owner="")
        self.free_since.pop(table_id, None)
        current = max(current + 1, int(time.time() * 1000))  # as Redis: epochs from the clock
        self.epochs[table_id] = current
        self.leases[table_id] = (holder, current, expiry)
        return Claim(current, fresh=True)

    async def claim_many(
        self, held: Mapping[str, int], holder: str, ttl: float | None
    ) -> dict[str, Claim]:
        return {table: await self.claim(table, holder, epoch, ttl) for table, epoch in held.items()}

    async def release(self, table_id: str, holder: str, epoch: int) -> None:
        lease = self.leases.get(table_id)
        if lease is not None and lease[:2] == (holder, epoch):
            del self.leases[table_id]
            self.free_since[table_id] = -math.inf  # given up: a standby takes it at once

    async def release_many(self, held: Mapping[str, int], holder: str) -> None:
        for table, epoch in held.items():
            await self.release(table, holder, epoch)

    def _fence(self, fence: Fence) -> None:
        current = self.epochs.get(fence.table_id, 0)
        if fence.epoch != current:
            lease = self.leases.get(fence.table_id)
            raise not_owner(fence.table_id, current, lease[0] if lease is not None else "")

    def _replay(self, ops: dict[str, object], op: str) -> object | None:
        """The first result of a repeated operation id (None if it is new)."""
        if op not in ops:
            return None
        if ops[op] is _DEAD:
            raise abandoned(op)
        return ops[op]

    async def abandon(self, op: str, *, round_id: str = "", player_id: str = "") -> bool:
        self._forget_due()
        if bool(round_id) == bool(player_id):
            raise InvalidRequest("abandon takes a round id or a player id")
        ops = self.round_ops[round_id] if round_id else self.buy_ops[player_id]
        if op in ops:
            return ops[op] is not _DEAD
        ops[op] = _DEAD
        self._expire(("round", round_id) if round_id else ("buys", player_id))
        return False

    # ----- wallets ------------------------------------------------------------

    def _wallet(self, player_id: str) -> Wallet:
        return Wallet(
            self._balance(player_account(player_id)),
            self.bonus.get(player_id, 0),
            self.held.get(player_id, 0),
        )

    async def wallet(self, player_id: str) -> Wallet:
        return self._wallet(player_id)

    async def buy_chips(
        self,
        player_id: str,
        amount: int,
        max_balance: int,
        op: str,
        *,
        max_amount: int | None = None,
    ) -> Wallet:
        check_cents("max_balance", max_balance)
        self._forget_due()
        ops = self.buy_ops[player_id]
        first = self._replay(ops, op)
        if first is not None:
            assert isinstance(first, int)  # the amount bought
            if first != amount:
                raise purchase_conflict(op, first, amount)
            return self._wallet(player_id)
        self._not_suspended(player_id)
        w = self._wallet(player_id)
        if max_amount is not None and amount > max_amount:
            raise purchase_limit_error(max_amount, max_balance, w.balance)
        if amount <= 0 or w.balance + amount > max_balance:
            raise buy_in_error(max_balance, w.balance)
        bought = Transfer("", None, Reason.BUY_IN, WORLD, player_account(player_id), amount)
        self.move_outside_round(op, self._wall_ms(), bought)
        ops[op] = amount
        self._expire(("buys", player_id))
        return self._wallet(player_id)

    def _not_suspended(self, player_id: str) -> None:
        entry = self.suspended.get(player_id)
        if entry is not None:
            raise suspended_error(str(entry["reason"]))

    async def bet(
        self,
        fence: Fence,
        op: str,
        transfers: Sequence[Transfer],
        holds: Sequence[Hold],
        *,
        opens: bool = True,
    ) -> Wallet:
        player_id, round_id = bet_owner(transfers, holds)
        self._forget_due()
        ops = self.round_ops[round_id]
        first = self._replay(ops, op)
        if first is not None:
            assert isinstance(first, Wallet)
            return first
        self._fence(fence)
        table_id = fence.table_id
        rnd = self.rounds.get(round_id)
        if rnd is None and not opens:  # opened by an earlier bet: gone with the data
            raise unknown_round(round_id)
        if rnd is not None and rnd.state != "open":
            raise closed_error(round_id, rnd.state)
        if rnd is not None and rnd.table_id != table_id:
            raise InvalidRequest(f"round {round_id} belongs to table {rnd.table_id}")
        self._not_suspended(player_id)
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
        ops[op] = wallet = self._wallet(player_id)
        return wallet

    async def apply(
        self, fence: Fence, op: str, transfers: Sequence[Transfer], holds: Sequence[Hold]
    ) -> dict[str, Wallet]:
        check_entries(transfers, holds)
        rid = one_round(transfers, holds)
        self._forget_due()
        ops = self.round_ops[rid]
        first = self._replay(ops, op)
        if first is not None:
            assert isinstance(first, dict)
            return first
        self._fence(fence)
        rnd = self.rounds.get(rid)
        if rnd is None:  # opened by its first bet: one unknown went with the data's past
            raise unknown_round(rid)
        if rnd.state != "open":
            raise closed_error(rid, rnd.state)
        if rnd.table_id != fence.table_id:
            raise InvalidRequest(f"round {rid} belongs to table {rnd.table_id}")
        if any(h.amount < 0 and self.holds.get((rid, h.seat), 0) < -h.amount for h in holds):
            raise unknown_round(rid)  # a seat's stake the store does not hold
        self._check_covered(transfers)
        for h in holds:
            self._hold(h)
        for t in transfers:
            if t.reason is Reason.REFUND:
                self._refund(t, rnd)
            else:
                self._move(t, rnd)
        wallets = self._wallets_of(transfers, holds)
        ops[op] = dict(wallets)
        return wallets

    # ----- the meter ----------------------------------------------------------

    async def ensure_meter(self, name: str, seed: int) -> int:
        check_cents("seed", seed)
        account = meter_account(name)
        if name not in self.seeds:
            self.seeds[name] = seed
            if self._balance(account) < seed:
                paid = Transfer(
                    "", None, Reason.RESEED, HOUSE, account, seed - self._balance(account)
                )
                self.move_outside_round(f"seed:{name}", self._wall_ms(), paid)
        return self._balance(account)

    async def meter(self, name: str) -> int:
        return self._balance(meter_account(name))

    async def meters(self) -> dict[str, int]:
        return {name: self._balance(meter_account(name)) for name in self.seeds}

    # ----- rounds -------------------------------------------------------------

    async def settle(
        self,
        fence: Fence,
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
        self._forget_due()
        rnd = self.rounds.get(round_id)
        if rnd is not None and rnd.state == "settled":
            if rnd.digest != digest:
                raise settle_conflict(round_id)
            assert rnd.result is not None
            return replace(rnd.result, replayed=True)
        self._fence(fence)  # a stale host hears that it lost the table, not why the round ended
        if rnd is not None and rnd.state == "voided":
            raise closed_error(round_id, "voided")
        if rnd is None:  # opened by its first bet: one unknown went with the data's past
            raise unknown_round(round_id)
        if rnd.table_id != fence.table_id:
            raise InvalidRequest(f"round {round_id} belongs to table {rnd.table_id}")
        if not _stakes_held(rnd.ledger, record):
            raise unknown_round(round_id)  # a seat's raise went with the data's past
        text = record_json(record)
        self._check_covered(transfers)
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
        self._note_stat(rnd.table_id, round_stat({**record, "settled_at": now}, round_id), paid)
        wallets = self._wallets_of(applied, ())
        settled = Settled(round_id, tuple(paid), wallets, {jackpot: self._balance(meter)})
        rnd.state, rnd.digest, rnd.result = "settled", digest, settled
        self._expire(("round", round_id))
        self._remember(rnd, text, paid, now)
        return settled

    def _note_stat(self, table_id: str, stat: RoundStat, paid: Sequence[ClaimPaid]) -> None:
        """The round's row of the hold statistics, its percent prizes added; rows past
        the statistics' reach go (as Redis's hourly keys expire)."""
        row = stat.to_row()
        row[6] += sum(p.amount for p in paid)
        kept = self.round_stats[table_id]
        kept[stat.round_id] = row
        horizon = stat.settled_at - STATS_KEPT_MS - HOUR_MS
        while kept and next(iter(kept.values()))[0] < horizon:
            del kept[next(iter(kept))]

    async def void(
        self, fence: Fence, round_id: str, transfers: Sequence[Transfer], holds: Sequence[Hold]
    ) -> None:
        check_entries(transfers, holds)
        self._forget_due()
        rnd = self.rounds.get(round_id)
        self._fence(fence)  # a stale host learns it lost the table
        if rnd is not None and rnd.state == "voided":
            return
        if rnd is not None and rnd.state == "settled":
            raise closed_error(round_id, "settled")
        if rnd is not None and rnd.table_id != fence.table_id:
            raise InvalidRequest(f"round {round_id} belongs to table {rnd.table_id}")
        if rnd is None:  # opened by its first bet: one unknown went with the data's past
            raise unknown_round(round_id)
        staked = {(t.seat, t.source) for t in rnd.ledger if t.reason is Reason.ANTE}
        if any((t.seat, t.target) not in staked for t in transfers):
            raise unknown_round(round_id)  # a seat's ante the store does not hold
        in_play: Counter[int | None] = Counter()  # a seat's stakes, less what came back
        for t in rnd.ledger:
            in_play[t.seat] += t.amount if t.source.startswith("player:") else 0
            in_play[t.seat] -= t.amount if t.target.startswith("player:") else 0
        for t in transfers:
            in_play[t.seat] -= t.amount
        if any(in_play[t.seat] < 0 for t in transfers):
            raise unknown_round(round_id)  # a stake the store does not hold (a raise)
        self._check_covered(transfers)
        for h in holds:
            self._hold(h)
        for t in transfers:
            self._refund(t, rnd)
        self._release_round(round_id)
        rnd.state = "voided"
        self._expire(("round", round_id))

    async def recover(self, fence: Fence) -> list[str]:
        self._fence(fence)
        table_id = fence.table_id
        voided: list[str] = []
        for rid in sorted(self.rounds):
            rnd = self.rounds[rid]
            if rnd.table_id != table_id or rnd.state != "open":
                continue
            for t in reversed(_in_play(rnd.ledger)):  # as recover.lua
                self._refund(
                    Transfer(rid, t.seat, Reason.REFUND, t.target, t.source, t.amount), rnd
                )
            self._release_round(rid)
            rnd.state = "voided"
            self._expire(("round", rid))
            voided.append(rid)
        return voided

    async def open_rounds(self, table_id: str) -> list[str]:
        return sorted(
            rid for rid, r in self.rounds.items() if r.table_id == table_id and r.state == "open"
        )

    async def round_players(self, round_id: str) -> list[str]:
        rnd = self.rounds.get(round_id)
        accounts = {a for t in rnd.ledger for a in (t.source, t.target)} if rnd else set()
        return players_of(accounts)

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

    # ----- retention ----------------------------------------------------------

    def _expire(self, key: tuple[str, str]) -> None:
        """Forget `key` (a round's journal and op ids, or a player's purchase ids)
        after its retention from now; a later call moves it on."""
        keep = self.retention if key[0] == "round" else self.purchase_retention
        self._expiry[key] = when = self._clock() + keep
        self._expiring[key[0]].append((when, key))

    def _forget_due(self) -> None:
        """Forget what expired, before a write looks anything up (as Redis drops an
        expired key before a command reads it)."""
        now = self._clock()
        for queue in self._expiring.values():
            while queue and queue[0][0] <= now:
                self._forget(queue.popleft()[1], now)

    def _forget(self, due: tuple[str, str], now: float) -> None:
        when = self._expiry.get(due)
        if when is None or when > now:
            return  # forgotten already, or its expiry was moved later
        kind, name = due
        if kind == "buys":
            del self._expiry[due]
            self.buy_ops.pop(name, None)
            return
        rnd = self.rounds.get(name)
        if rnd is not None and rnd.state == "open":
            return  # an op id abandoned in a round still open: its close expires it
        del self._expiry[due]
        self.rounds.pop(name, None)
        self.round_ops.pop(name, None)

    # ----- accounting ---------------------------------------------------------

    async def totals(self) -> dict[str, int]:
        return dict(self.accounts)

    async def moves(self, start: int = 0, count: int = 1000) -> list[Move]:
        return self.move_journal[max(start, 0) : max(start, 0) + max(count, 0)]

    async def player_moves(self, player_id: str, limit: int = 50) -> list[Move]:
        return list(self._player_moves.get(player_id, ()))[: max(limit, 0)]

    def move_outside_round(self, op: str, at: int, t: Transfer) -> None:
        """Move money that belongs to no round, with its row in the `moves` journal
        (and in the player's own): MemoryAdmin's acts come through here too."""
        self._move(t)
        move = Move(op, at, t)
        self.move_journal.append(move)
        for account in (t.source, t.target):
            if account.startswith("player:"):
                self._player_moves[account.removeprefix("player:")].appendleft(move)

    def _wall_ms(self) -> int:
        return int(self.wall_clock() * 1000)

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
        if rnd is not None and rnd.state == "open":
            rnd.ledger.append(t)

    def _refund(self, t: Transfer, rnd: _Round | None) -> None:
        """Move a refund; a meter gives back only what it holds above its seed (a share
        reseeded away since, by a hit or an operator, is the house's), the house the rest."""
        if not t.source.startswith("meter:"):
            self._move(t, rnd)
            return
        spare = self._balance(t.source) - self.seeds.get(t.source.removeprefix("meter:"), 0)
        from_meter = min(max(spare, 0), t.amount)
        if from_meter:
            self._move(replace(t, amount=from_meter), rnd)
        if from_meter < t.amount:
            self._move(replace(t, source=HOUSE, amount=t.amount - from_meter), rnd)

    def _hold(self, h: Hold) -> None:
        key = (h.round_id, h.seat)
        if h.amount > 0:
            self.holds[key] = self.holds.get(key, 0) + h.amount
            self.hold_owner[key] = h.player_id
            self._round_holds[h.round_id].add(h.seat)
            self.held[h.player_id] = self.held.get(h.player_id, 0) + h.amount
        else:
            released = min(-h.amount, self.holds.pop(key, 0))
            self.hold_owner.pop(key, None)
            self.held[h.player_id] = self.held.get(h.player_id, 0) - released

    def _release_round(self, round_id: str) -> None:
        """A closed round holds nothing: release what its seats still hold."""
        for seat in self._round_holds.pop(round_id, ()):
            key = (round_id, seat)
            if key in self.holds:
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


def _in_play(ledger: Iterable[Transfer]) -> list[Transfer]:
    """The round's transfers not given back by a later one (an ante withdrawn and its
    refund go together), in order: what a round voided from its journal reverses."""
    kept: dict[int, Transfer] = {}
    waiting: dict[tuple[int | None, str, str, int], list[int]] = defaultdict(list)
    for i, t in enumerate(ledger):
        undone = waiting[(t.seat, t.target, t.source, t.amount)]
        if undone:
            del kept[undone.pop()]
        else:
            kept[i] = t
            waiting[(t.seat, t.source, t.target, t.amount)].append(i)
    return [kept[i] for i in sorted(kept)]


def _stakes_held(ledger: Sequence[Transfer], record: Mapping[str, Any]) -> bool:
    """Whether the round's ledger holds the raise of every seat the record says raised: a
    settlement paid one back that the data never took. (A seat's ante is checked by its
    decision's release of the hold the ante placed, before any settlement.)"""
    raises = {t.seat for t in ledger if t.reason is Reason.RAISE}
    return all(
        s.get("decision") != "raise" or s["seat"] in raises for s in record.get("seats") or []
    )
