"""The store interface: identity, wallets, the jackpot meter, the round journal, history.

Two implementations pass the same contract tests: `MemoryStore` (one process,
the embedded default) and the Redis store (a fleet of processes). Every method
that moves money is atomic: it applies all of its transfers or none.

Writes are safe to repeat. Each one that moves money carries an operation id
chosen by the caller (`op`), or is idempotent by its round id (settle, void,
recover); repeating it returns the first result and applies nothing twice. So
a write whose outcome is unknown (`OutcomeUnknown`: written, no answer) is
retried with the same id until the answer is definite, and `abandon` makes the
outcome definite without applying: an id it marks dead is a no-op forever.

Every write that touches a table's round or money carries the table's `Fence`:
the epoch of the lease its host holds (`claim`). The store refuses atomically
(`NotOwner`) a write whose epoch is not the table's current one, so a process
that lost a table can never write for it again.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

import orjson

from server.game.ledger import Hold, JackpotClaim, Reason, Transfer

#: Rounds kept in each player's and each table's history (game recall).
HISTORY_LIMIT: Final = 100
#: Moves outside a round kept in each player's own list (the journal keeps them all).
MOVES_LIMIT: Final = 100
#: Jackpot hits kept per jackpot name.
HITS_LIMIT: Final = 1000
#: The largest amount or balance a store accepts. Redis' Lua numbers are doubles,
#: exact for integers up to 2**53; both stores enforce the same bound so they agree.
MAX_CENTS: Final = 2**53 - 1
#: A Redis key namespace: processes sharing one share tables and wallets.
NAMESPACE: Final = re.compile(r"[A-Za-z0-9_.\-]{1,64}")


class StoreError(Exception):
    """A store could not do what was asked; `code` is a protocol error code."""

    code = "store_unavailable"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details
        #: what the process's log says of it: `message` is written for players
        self.cause = message


class StoreUnavailable(StoreError):
    """The store could not be reached and nothing was written: certainly not applied."""

    #: Redis answered, but without the data it served (a wipe): until an operator
    #: restores it or accepts the loss, not for a moment
    data_lost = False


class OutcomeUnknown(StoreError):
    """The write was sent but no answer came (timeout, connection lost after writing):
    it may or may not have been applied. Retry it with the same operation id (or
    `abandon` the id) until the outcome is definite; never report it as a failure."""


class OpAbandoned(StoreUnavailable):
    """The operation id was marked dead by `abandon`: it was not, and never will be, applied."""


class NotOwner(StoreError):
    """The write's epoch is not the table's current one: another process hosts it now."""

    code = "table_moved"
    holder = ""  # the process holding the lease, when known (never shown to a client)


class InsufficientFunds(StoreError):
    code = "insufficient_funds"


class BonusNotPlayable(StoreError):
    """The wallet would cover the bet only with bonus credits, which this game refuses."""

    code = "bonus_not_playable"


class BuyInLimit(StoreError):
    code = "buy_in_limit"


class OpConflict(StoreError):
    """An operation id repeated with other contents (a purchase key with another amount):
    refused, nothing applied."""

    code = "invalid_field"


class RoundConflict(StoreError):
    """A round id settled before with different entries: refused, nothing applied."""

    code = "internal_error"


class RoundUnknown(StoreError):
    """A write for a round the store holds no trace of, though every round is opened by
    its first bet: the data went back under the table (a backup loaded in place). The
    round is not the store's; nothing was applied, and the table starts over."""

    code = "round_voided"


class AccountSuspended(StoreError):
    """An operator suspended the player: the store takes no new bet or chip purchase of
    theirs (nothing was applied), whatever the asking process has heard so far."""

    code = "account_suspended"


class UsernameTaken(StoreError):
    """Another player holds this username (case-folded)."""

    code = "username_taken"


class AlreadyRegistered(StoreError):
    """The player is an account already (under another username)."""

    code = "already_registered"


class InvalidRequest(StoreError):
    """The caller broke the store's contract (a bet of two players, an amount out of range)."""

    code = "internal_error"


@dataclass(frozen=True, slots=True)
class Wallet:
    """Integer cents. `balance` is playable; `held` of it backs possible raises."""

    balance: int
    bonus: int
    held: int

    @property
    def available(self) -> int:
        return self.balance - self.held

    def to_public(self) -> dict[str, int]:
        return {
            "balance": self.balance,
            "bonus": self.bonus,
            "available": self.available,
            "held": self.held,
        }


@dataclass(frozen=True, slots=True)
class Player:
    """A player as one connection knows them: `token` is that connection's (an account
    may have several, one per device); `username` is None for a guest."""

    player_id: str
    name: str
    token: str
    username: str | None = None


@dataclass(frozen=True, slots=True)
class Credentials:
    """What signing in needs of an account: `password_hash` is argon2's encoded string."""

    player_id: str
    username: str
    name: str
    password_hash: str = field(repr=False)


@dataclass(frozen=True, slots=True)
class Failures:
    """A failure counter: failed password checks in the current window, and the
    seconds until that window ends (0 when there is none)."""

    count: int
    retry_after: float


@dataclass(frozen=True, slots=True)
class Fence:
    """A table and the epoch of its host's lease; writes of other epochs are refused."""

    table_id: str
    epoch: int


@dataclass(frozen=True, slots=True)
class Claim:
    """The answer to `claim`: the lease's epoch if it is ours (`fresh` when the epoch is
    new, so the table's open rounds belong to an older host), else who holds it."""

    epoch: int
    fresh: bool = False
    owner: str | None = None  # the other holder when refused

    @property
    def granted(self) -> bool:
        return self.owner is None


@dataclass(frozen=True, slots=True)
class ClaimPaid:
    seat: int
    player_id: str
    amount: int
    meter_after: int


@dataclass(frozen=True, slots=True)
class Settled:
    """The outcome of settling a round; `replayed` when it had been settled before."""

    round_id: str
    paid: tuple[ClaimPaid, ...]
    wallets: dict[str, Wallet]
    meters: dict[str, int]
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class Move:
    """A movement of money outside any round, as the `moves` journal keeps it: `op` is
    the operation that made it once (`grant:<player>` a new player's starting
    credits, `buy:...` a purchase, `seed:<jackpot>` a meter's first seed, an
    operator's act id), `at` the ms since the epoch it was made."""

    op: str
    at: int
    transfer: Transfer

    def to_json(self) -> dict[str, Any]:
        t = self.transfer
        row = [t.round_id, t.seat, str(t.reason), t.source, t.target, t.amount]
        return {"op": self.op, "at": self.at, "transfer": row}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Move:
        rid, seat, reason, source, target, amount = data["transfer"]
        transfer = Transfer(rid, seat, Reason(reason), source, target, int(amount))
        return cls(str(data["op"]), int(data["at"]), transfer)


class Store(Protocol):
    #: Wall-clock seconds: when a session token was last used (tests set another)
    wall_clock: Callable[[], float]

    async def close(self) -> None: ...
    async def ping(self) -> None:
        """Raise StoreError unless the store answers now."""
        ...

    async def probe_writes(self) -> None:
        """Raise StoreError unless the store takes writes now (a suspended table resumes
        on it: a store that answers but refuses writes must not count as back)."""
        ...

    # identity
    async def create_player(
        self, name: str, credits: int, bonus: int, player: Player | None = None
    ) -> Player:
        """A new player with free-play credits; idempotent by `player` (its id and
        token chosen by the caller), so a retry after an unknown outcome is safe."""
        ...

    async def player_by_token(self, token: str, *, idle: float | None = None) -> Player | None:
        """The token's player, and a use of the token recorded. With `idle` (seconds), a
        resume: a token unused for longer is forgotten (None, for good). Without, a live
        connection's token (checked again, or its connection ending): never expired. A
        token with no use recorded (from an earlier release) counts from now."""
        ...

    async def player_known(self, player_id: str) -> bool:
        """Whether the store holds the player (a Redis restarted empty holds no one:
        their tokens are lost, not revoked)."""
        ...

    # accounts
    async def register(
        self, player_id: str, username: str, password_hash: str, token: str
    ) -> Player:
        """Make the player an account, atomically: claim `username` (unique without
        regard to case: UsernameTaken) and keep its password hash; `token` is listed as
        one of the account's. AlreadyRegistered when the player has another username.
        Idempotent: the same player and username again changes nothing. Grants nothing:
        the player's credits are the ones it got when it was created."""
        ...

    async def credentials(self, username: str) -> Credentials | None:
        """The account with this username (any case), or None."""
        ...

    async def issue_token(self, player_id: str, token: str) -> None:
        """One more session token for the player (a sign-in); stored hashed."""
        ...

    async def revoke_token(self, token: str) -> None:
        """Forget a session token: no hello resumes with it again. Idempotent."""
        ...

    async def set_password(
        self,
        username: str,
        player_id: str,
        old_hash: str,
        new_hash: str,
        *,
        revoke_except: str | None = None,
    ) -> bool:
        """Replace the account's hash if it is still `old_hash` (compare and set); True
        when it is `new_hash` now (a repeat is True again), False when another change
        came first. With `revoke_except` (a token), every other token of the account
        is revoked in the same step."""
        ...

    # failed password checks, counted per key ("user:<name>", "addr:<address>")
    async def failures(self, keys: Sequence[str]) -> list[Failures]:
        """Each key's count in its current window."""
        ...

    async def add_failure(self, keys: Sequence[str], window: float, by: int = 1) -> list[int]:
        """Count one failure under each key, atomically, and return the counts; a key's
        first failure opens its window of `window` seconds (the count is forgotten when it
        ends). `by` -1 takes one back (a check counted before it was made, then passed or
        not made), never below 0 and never moving the window's end."""
        ...

    async def clear_failures(self, key: str) -> None: ...

    # table leases
    async def claim(self, table_id: str, holder: str, epoch: int, ttl: float | None) -> Claim:
        """Hold (or keep holding) the table's lease for `ttl` seconds (None: no expiry).

        `epoch` is the one the caller holds (0 if none). Renewing keeps the epoch; a
        lease taken when it was free gets the next epoch, unless the caller was its
        last holder and nobody claimed it since (then the epoch stays). Refused,
        with the holder, while another holder's lease runs; and refused (owner "")
        until a lease that ran out has been seen free for a third of `ttl`, so its
        holder, only cut off for a moment (a stalled store), renews it first. A
        released lease is taken at once.
        """
        ...

    async def claim_many(
        self, held: Mapping[str, int], holder: str, ttl: float | None
    ) -> dict[str, Claim]:
        """`claim` for several tables (table -> the epoch the caller holds) in one step."""
        ...

    async def release(self, table_id: str, holder: str, epoch: int) -> None:
        """Give the lease up if it is still the caller's."""
        ...

    async def release_many(self, held: Mapping[str, int], holder: str) -> None:
        """`release` for several tables (table -> the epoch the caller holds) in one step:
        a shutdown with the store unreachable waits for one call, not one per table."""
        ...

    # wallets
    async def wallet(self, player_id: str) -> Wallet: ...
    async def buy_chips(
        self,
        player_id: str,
        amount: int,
        max_balance: int,
        op: str,
        *,
        max_amount: int | None = None,
    ) -> Wallet:
        """A top-up, refused (BuyInLimit) past `max_balance`, or over `max_amount` cents.

        Idempotent by `op`: a repeat buys nothing and returns the wallet as it is now
        (the first result would be stale after a bet); a repeat with another amount is
        refused (OpConflict). A repeat is told so before any limit is looked at.
        """
        ...

    async def bet(
        self,
        fence: Fence,
        op: str,
        transfers: Sequence[Transfer],
        holds: Sequence[Hold],
        *,
        opens: bool = True,
    ) -> Wallet:
        """Debit a bet and place its hold, or raise InsufficientFunds / BonusNotPlayable.

        The first bet of a round records the round open in the journal, under the
        table; every transfer is journalled with it. A closed round's bet is refused
        (RoundConflict). `opens` False: the table's round is open already (its first bet
        landed), and a store without it lost it with its data (RoundUnknown).
        Idempotent by `op` within the round.
        """
        ...

    async def apply(
        self, fence: Fence, op: str, transfers: Sequence[Transfer], holds: Sequence[Hold]
    ) -> dict[str, Wallet]:
        """Apply one round's transfers and hold changes that need no funds check (raise,
        fold, refund). All or nothing: InsufficientFunds if a wallet would go below 0.
        Transfers of an open round are journalled; a closed round's are refused
        (RoundConflict), and so is the release of a hold a seat does not have
        (RoundUnknown: its ante went with the data's past). Idempotent by `op` within
        the round.
        """
        ...

    async def abandon(self, op: str, *, round_id: str = "", player_id: str = "") -> bool:
        """Make an operation's outcome definite: True if it was applied (nothing changes),
        False if it was not, in which case the id is marked dead and a late arrival of
        the original is a no-op (OpAbandoned). Round ops by `round_id`, buy-ins by
        `player_id`."""
        ...

    # the jackpot meter
    async def ensure_meter(self, name: str, seed: int) -> int: ...
    async def meter(self, name: str) -> int: ...
    async def meters(self) -> dict[str, int]: ...

    # rounds
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
        """Pay a round and close it in the journal; idempotent by round id.

        Transfers first, then the claims in seat order against the meter (each pays
        floor(meter * bp / 10000), then the house tops the meter up to `seed`), the
        history and the jackpot hits, the round's leftover holds released. A replay
        with the same transfers returns the first result (replayed=True); other
        transfers, or a voided round, raise RoundConflict.
        """
        ...

    async def void(
        self, fence: Fence, round_id: str, transfers: Sequence[Transfer], holds: Sequence[Hold]
    ) -> None:
        """Refund an unsettled round and close it in the journal; idempotent by round id.

        Holds the round still has after `holds` are released too, so none is left stuck.
        """
        ...

    async def recover(self, fence: Fence) -> list[str]:
        """Void every open round of a table from the journal alone (after a crash, or
        when a new epoch takes the table over).

        Each transfer recorded for the round is reversed and each hold released,
        exactly once; settled and voided rounds are never touched. Returns the
        voided round ids, sorted.
        """
        ...

    async def open_rounds(self, table_id: str) -> list[str]: ...

    async def round_players(self, round_id: str) -> list[str]:
        """The players whose wallets a round's journal moved, sorted (after `recover`:
        whom its refunds went to, to be told). Empty once the journal has expired."""
        ...

    # history
    async def history(self, player_id: str, limit: int = 50) -> list[dict[str, Any]]:
        """The player's last settled rounds, newest first (at most HISTORY_LIMIT kept).

        Each entry is the round's record (bets, cards, decisions, results) plus
        `jackpots` {seat: cents claimed}, `balance_after` (the balance once the
        round was settled), `balance_before` (that less the round's net for this
        player, over everything the round moved) and `settled_at` (ms since epoch).
        """
        ...

    async def table_history(self, table_id: str, limit: int = 50) -> list[dict[str, Any]]:
        """The table's last settled rounds, newest first (at most HISTORY_LIMIT kept)."""
        ...

    async def jackpot_hits(self, name: str, limit: int = 50) -> list[dict[str, Any]]:
        """Percent claims resolved against a meter, newest first (at most HITS_LIMIT kept)."""
        ...

    # accounting, for reconciliation
    async def totals(self) -> dict[str, int]:
        """Balances of every account: players, house, meters, and world (minus buy-ins)."""
        ...

    async def moves(self, start: int = 0, count: int = 1000) -> list[Move]:
        """The journal of money moved outside rounds, oldest first, from its `start`th
        row: starting credits, purchases, meters' first seeds, operators' acts. Never
        trimmed: with the round ledgers it makes every account (tests/test_store_moves.py)."""
        ...

    async def player_moves(self, player_id: str, limit: int = 50) -> list[Move]:
        """The player's rows of that journal, newest first (the last MOVES_LIMIT kept)."""
        ...


# ----- shared by both stores, so they refuse and word things identically -------


def check_cents(name: str, value: int) -> None:
    """Refuse what is not an integer number of cents in [0, MAX_CENTS]."""
    if type(value) is not int or not 0 <= value <= MAX_CENTS:
        raise InvalidRequest(f"{name} must be an int of cents in [0, {MAX_CENTS}]: {value!r}")


def check_entries(
    transfers: Iterable[Transfer],
    holds: Iterable[Hold] = (),
    claims: Iterable[JackpotClaim] = (),
) -> None:
    for t in transfers:
        check_cents("a transfer amount", t.amount)
    for h in holds:
        check_cents("a hold amount", abs(h.amount))
    for c in claims:
        if type(c.percent_bp) is not int or not 0 <= c.percent_bp <= 10_000:
            raise InvalidRequest(f"a claim's percent_bp must be in [0, 10000]: {c.percent_bp!r}")


def bet_owner(transfers: Sequence[Transfer], holds: Sequence[Hold]) -> tuple[str, str]:
    """The one player and the one round a bet belongs to, or InvalidRequest."""
    players = {h.player_id for h in holds} | {
        t.source.removeprefix("player:") for t in transfers if t.source.startswith("player:")
    }
    if len(players) != 1:
        raise InvalidRequest("a bet belongs to exactly one player")
    rounds = {t.round_id for t in transfers} | {h.round_id for h in holds}
    if len(rounds) != 1 or "" in rounds:
        raise InvalidRequest("a bet belongs to exactly one round")
    check_entries(transfers, holds)
    return players.pop(), rounds.pop()


def bet_needed(transfers: Sequence[Transfer], holds: Sequence[Hold]) -> int:
    """What a bet needs available: its transfers plus the holds it places."""
    return sum(t.amount for t in transfers) + sum(h.amount for h in holds if h.amount > 0)


def funds_error(needed: int, available: int, bonus: int) -> StoreError:
    """InsufficientFunds, or BonusNotPlayable when only bonus credits would cover the bet."""
    # the bonus is named only where it would have covered the bet: beside a bet that
    # even both could not cover, it read as the reason for the refusal
    cls = BonusNotPlayable if needed <= available + bonus else InsufficientFunds
    short = cls is BonusNotPlayable and bonus
    return cls(
        f"this bet needs {needed} cents available (ante, progressive and the raise it "
        f"may call for); you have {available}"
        + (f" plus {bonus} in bonus credits, which cannot be wagered here" if short else ""),
        needed=needed,
        available=available,
        bonus=bonus,
    )


def suspended_error(reason: str) -> AccountSuspended:
    """The refusal a player gets for a suspension, from a process's own check or the store's."""
    return AccountSuspended(
        "the casino has suspended this account: no seats, bets or chip purchases",
        reason=reason,
    )


def buy_in_error(max_balance: int, balance: int) -> BuyInLimit:
    return BuyInLimit(
        f"a top-up may bring the balance to at most {max_balance} cents",
        max_balance=max_balance,
        allowed=max(0, max_balance - balance),
    )


def purchase_limit_error(max_amount: int, max_balance: int, balance: int) -> BuyInLimit:
    return BuyInLimit(
        f"at most {max_amount} cents per purchase",
        allowed=max(0, min(max_amount, max_balance - balance)),
    )


def purchase_conflict(op: str, first: int, amount: int) -> OpConflict:
    return OpConflict(
        f"purchase {op} was made for {first} cents, not {amount}", op=op, amount=first
    )


def cover_error(account: str, needed: int) -> InsufficientFunds:
    return InsufficientFunds(f"{account} cannot pay {needed} cents", needed=needed)


def closed_error(round_id: str, state: str) -> RoundConflict:
    """A bet, an apply or a void for a round that is already closed."""
    if state == "settled":
        return RoundConflict(f"round {round_id} was settled; it cannot be changed or voided")
    return RoundConflict(f"round {round_id} was voided")


def unknown_round(round_id: str) -> RoundUnknown:
    return RoundUnknown(
        f"round {round_id} is not in the game's data store, which went back to older "
        "data (restored from a backup): the round is given up and nothing was applied"
    )


def not_owner(table_id: str, current: int, holder: str = "") -> NotOwner:
    """The fence refused a write: the table's lease has another epoch now."""
    e = NotOwner(
        f"table {table_id} has a new host (epoch {current}): this process no longer hosts it",
        table=table_id,
        epoch=current,
    )
    e.holder = holder
    return e


def abandoned(op: str) -> OpAbandoned:
    return OpAbandoned(f"operation {op} was abandoned: it was not applied", op=op)


def one_round(transfers: Sequence[Transfer], holds: Sequence[Hold]) -> str:
    """The one round a batch of table effects belongs to, or InvalidRequest."""
    rounds = {t.round_id for t in transfers} | {h.round_id for h in holds}
    if len(rounds) != 1 or "" in rounds:
        raise InvalidRequest("a table's batch belongs to exactly one round")
    return rounds.pop()


def fold_username(username: str) -> str:
    """The form usernames are compared in (they are ASCII letters, digits and _)."""
    return username.lower()


def token_hash(token: str) -> str:
    """Session tokens are kept hashed, so a copy of the data cannot be used to log in."""
    return hashlib.sha256(token.encode()).hexdigest()


def username_taken(username: str) -> UsernameTaken:
    return UsernameTaken(f"the username {username!r} is taken", username=username)


def already_registered(username: str) -> AlreadyRegistered:
    return AlreadyRegistered(f"this player is the account {username!r} already")


def unknown_player(player_id: str) -> InvalidRequest:
    return InvalidRequest(f"no player {player_id!r}")


def new_player(name: str) -> Player:
    """A player id and session token, chosen before the store is asked (retries reuse them)."""
    return Player(secrets.token_hex(8), name, secrets.token_urlsafe(32))


def settle_conflict(round_id: str) -> RoundConflict:
    return RoundConflict(f"round {round_id} was settled with other entries")


def wallet_ids(transfers: Iterable[Transfer], holds: Iterable[Hold] = ()) -> list[str]:
    """The players whose wallets a batch touches, sorted."""
    ids = {h.player_id for h in holds}
    for t in transfers:
        for account in (t.source, t.target):
            if account.startswith("player:"):
                ids.add(account.removeprefix("player:"))
    return sorted(ids)


def record_players(record: dict[str, Any]) -> list[str]:
    """The players of a round record's seats, in seat order, each once."""
    out: list[str] = []
    for seat in record.get("seats", []):
        if seat["player_id"] not in out:
            out.append(seat["player_id"])
    return out


def record_json(record: dict[str, Any]) -> str:
    """The record as stored: JSON, so both stores keep (and return) the same data.
    orjson with sorted keys writes json's compact bytes (non-ASCII text as UTF-8) at a
    fraction of the cost: this was a settlement's largest encoding."""
    return orjson.dumps(record, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS).decode()


def transfer_row(t: Transfer) -> list[Any]:
    return [t.round_id, t.seat, str(t.reason), t.source, t.target, t.amount]


def transfers_digest(transfers: Sequence[Transfer]) -> str:
    """What a settled round remembers of its entries, to tell a replay from a conflict."""
    text = json.dumps([transfer_row(t) for t in transfers], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def with_jackpots(entry: dict[str, Any]) -> dict[str, Any]:
    """A history entry whose seat results include the percent prizes the meter paid.

    The record is written before the claims are resolved, so each seat's
    `progressive_prize`, `returned` and `net` gain what `jackpots` says was paid.
    """
    jackpots = entry.get("jackpots") or {}
    if not jackpots:
        return entry
    seats = []
    for seat in entry.get("seats", []):
        paid = jackpots.get(str(seat.get("seat")))
        result = seat.get("result")
        if paid and result is not None:
            result = {
                **result,
                "progressive_prize": (result.get("progressive_prize") or 0) + paid,
                "returned": result["returned"] + paid,
                "net": result["net"] + paid,
            }
            seat = {**seat, "result": result}
        seats.append(seat)
    return {**entry, "seats": seats}
