"""What the operator console keeps in the store: operators, their acts and the audit log.

Beside `Store` (base.py), not inside it: the console is a part of its own, and
both stores implement it the same way (`MemoryAdmin`, `RedisAdmin`), tested by
the same contract (tests/test_store_admin.py).

Every act of an operator has an id chosen by the caller (`Act.id`, the console's
`action_id`), and is applied at most once: repeating an id returns the first
outcome and applies nothing; the same id with another request is refused
(`ActionConflict`). Each act leaves one row in the audit log, which is only ever
appended to:

    {id, operator, ts, action, target, reason, outcome, details}

`outcome` is `applied`, `unchanged` (nothing needed doing) or `refused`
(`details.result.code` says why); `details.request` is what was asked,
`details.result` what was done.

Two kinds of act:

- the store's own (`adjust`, `set_meter`, `suspend`): the money or the flag and
  the audit row are written in one atomic step;
- a table's (pause, resume, void, remove): `submit` records the act as pending;
  the process hosting the table picks it up (`admin_state`), carries it out under
  the table's lock and lease, and `finish` writes its outcome and audit row once
  (with the table's paused flag, for pause and resume, in the same step).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from server.stores.base import MAX_CENTS, StoreError

#: Operator names: 1-32 of these (compared without regard to case).
OPERATOR_NAME: Final = re.compile(r"[A-Za-z0-9_.\-]{1,32}")
#: Action ids: chosen by the caller, 8-64 of these.
ACTION_ID: Final = re.compile(r"[A-Za-z0-9_\-]{8,64}")
#: Seconds a console's look keeps the fleet publishing its tables' details.
SEEN_TTL: Final = 10.0
#: A round stays in the hold statistics this long after it was settled (ms).
STATS_KEPT_MS: Final = 3 * 3_600_000
HOUR_MS: Final = 3_600_000
#: Entries of the players hash a name search reads at most (Redis: HSCAN).
MAX_SCAN: Final = 20_000

OUTCOMES: Final = ("applied", "unchanged", "refused")
#: Operator roles: an admin does every act; a viewer reads everything and acts on nothing.
ADMIN: Final = "admin"
VIEWER: Final = "viewer"
ROLES: Final = (ADMIN, VIEWER)


class ActionConflict(StoreError):
    """The action id was used before for another request: nothing was applied."""

    code = "conflict"


@dataclass(frozen=True, slots=True)
class Operator:
    name: str
    password_hash: str = field(repr=False)
    created_ms: int
    #: an operator kept before roles were (no role in its entry) does every act, as then
    role: str = ADMIN


@dataclass(frozen=True, slots=True)
class Act:
    """One operator act as asked: `target` is `table:<id>`, `player:<id>` or
    `jackpot:<name>`; `request` the act's own fields (amount, round_id...)."""

    id: str
    operator: str
    ts: int  # ms since the epoch, when it was asked
    action: str
    target: str
    reason: str
    request: Mapping[str, Any] = field(default_factory=dict)

    @property
    def digest(self) -> str:
        """What a repeat must match (the time it was asked is not part of it)."""
        body = [self.operator, self.action, self.target, self.reason, dict(self.request)]
        return hashlib.sha256(canonical(body).encode()).hexdigest()

    @property
    def audit_targets(self) -> list[str]:
        """The targets its audit row is listed under (`audit(target=...)`): its own, and
        the player its request names when that is another target (a table's `remove`),
        so the player's page shows it too."""
        named = self.request.get("player_id")
        also = f"player:{named}" if isinstance(named, str) and named else self.target
        return [self.target] if also == self.target else [self.target, also]

    @property
    def request_text(self) -> str:
        return canonical(dict(self.request))

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "operator": self.operator,
            "ts": self.ts,
            "action": self.action,
            "target": self.target,
            "reason": self.reason,
            "request": dict(self.request),
            "digest": self.digest,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Act:
        return cls(
            str(data["id"]),
            str(data["operator"]),
            int(data["ts"]),
            str(data["action"]),
            str(data["target"]),
            str(data["reason"]),
            dict(data.get("request") or {}),
        )

    def row(self, outcome: str, result: Mapping[str, Any]) -> dict[str, Any]:
        """The act's audit row once its outcome is known."""
        assert outcome in OUTCOMES, outcome
        return {
            "id": self.id,
            "operator": self.operator,
            "ts": self.ts,
            "action": self.action,
            "target": self.target,
            "reason": self.reason,
            "outcome": outcome,
            "details": {"request": dict(self.request), "result": dict(result)},
        }


@dataclass(frozen=True, slots=True)
class Acted:
    """An act's audit row; `replayed` when the id had been applied before."""

    row: dict[str, Any]
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class Submitted:
    """A table's act as the store has it: `pending` until its host finished it, then
    `done` with its audit row."""

    state: str
    row: dict[str, Any] | None = None
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class AdminState:
    """What every process follows: table acts waiting for their host, paused tables,
    suspended players (each `{by, reason, since_ms, action}`), and whether a console
    has looked lately (then the fleet publishes its tables' details)."""

    pending: dict[str, Act]
    paused: dict[str, dict[str, Any]]
    suspended: dict[str, dict[str, Any]]
    seen: bool = False


@dataclass(frozen=True, slots=True)
class RoundStat:
    """One settled round in the hold statistics (cents): the main game's stakes (ante +
    raise) and what it paid back, and the progressive's stakes and prizes."""

    round_id: str
    settled_at: int  # ms since the epoch
    hands: int
    antes: int
    wagered: int
    returned: int
    progressive_staked: int
    progressive_paid: int

    def to_row(self) -> list[int]:
        return [
            self.settled_at,
            self.hands,
            self.antes,
            self.wagered,
            self.returned,
            self.progressive_staked,
            self.progressive_paid,
        ]


STAT_FIELDS: Final = (
    "rounds",
    "hands",
    "antes",
    "wagered",
    "returned",
    "progressive_staked",
    "progressive_paid",
)


def round_stat(entry: Mapping[str, Any], round_id: str | None = None) -> RoundStat:
    """A table history entry (`Store.table_history`, percent prizes included) as one
    row of the hold statistics; `round_id` when the entry may not say it (a record as
    the settlement is given it)."""
    antes = wagered = returned = staked = paid = 0
    seats = entry.get("seats") or []
    for seat in seats:
        ante = int(seat.get("ante") or 0)
        raised = 2 * ante if seat.get("decision") == "raise" else 0
        result = seat.get("result") or {}
        back = int(result.get("returned") or 0)
        prize = int(result.get("progressive_prize") or 0)
        antes += ante
        wagered += ante + raised
        returned += back - prize
        if seat.get("progressive"):
            # net = returned - (ante + raise + stake)
            staked += back - int(result.get("net") or 0) - ante - raised
            paid += prize
    return RoundStat(
        str(entry["round_id"] if round_id is None else round_id),
        int(entry.get("settled_at") or 0),
        len(seats),
        antes,
        wagered,
        returned,
        staked,
        paid,
    )


def add_stats(totals: dict[str, int], row: list[int]) -> None:
    """Add one stored row ([settled_at, hands, antes, ...]) to a table's totals."""
    totals["rounds"] = totals.get("rounds", 0) + 1
    for name, value in zip(STAT_FIELDS[1:], row[1:], strict=True):
        totals[name] = totals.get(name, 0) + int(value)


def suspension(act: Act) -> dict[str, Any]:
    """How a suspended player or a paused table is kept: who, why, since when, by which act."""
    return {"by": act.operator, "reason": act.reason, "since_ms": act.ts, "action": act.id}


def canonical(value: Any) -> str:
    """JSON as both stores keep it: sorted keys, no spaces."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, allow_nan=False)


def fold_operator(name: str) -> str:
    return name.lower()


def conflict(action_id: str) -> ActionConflict:
    return ActionConflict(
        f"action {action_id} was used before for another request; nothing was applied",
        action_id=action_id,
    )


class AdminStore(Protocol):
    async def prepare(self) -> None:
        """Ready to be used (Redis: the scripts loaded)."""
        ...

    # ----- operators --------------------------------------------------------------
    async def put_operator(
        self, name: str, password_hash: str, *, replace: bool, now_ms: int, role: str = ADMIN
    ) -> bool:
        """Add an operator (False if the name exists and not `replace`). Replacing one
        (a new password, a new role) revokes every token it had."""
        ...

    async def get_operator(self, name: str) -> Operator | None: ...
    async def list_operators(self) -> list[Operator]: ...
    async def remove_operator(self, name: str) -> bool:
        """Forget an operator and revoke its tokens; False if there was none."""
        ...

    async def issue_operator_token(self, name: str, token: str, ttl: float) -> None:
        """A bearer token for the operator, valid `ttl` seconds (kept hashed)."""
        ...

    async def operator_for_token(self, token: str) -> str | None:
        """The operator a live token belongs to; None when unknown, expired, revoked or
        its operator is gone. Player tokens live elsewhere and are never found here."""
        ...

    async def revoke_operator_token(self, token: str) -> None: ...

    # ----- the store's own acts (atomic with their audit row) ------------------------
    async def adjust(
        self,
        act: Act,
        player_id: str,
        amount: int,
        *,
        limit: int = MAX_CENTS,
        act_limit: int = 0,
    ) -> Acted:
        """Credit (`amount` > 0) or debit (< 0) a wallet from or to the house (ledger
        reason `adjustment`). One act may move at most `act_limit` cents either way
        (`over_act_limit`; 0: no such limit); a debit takes only available money (not
        held for a raise); a credit may not bring the balance past `limit`
        (`over_limit`)."""
        ...

    async def set_meter(self, act: Act, name: str, amount: int | None) -> Acted:
        """Set a meter to `amount` cents (None: to its seed), the difference moving
        between the meter and the house (`reseed` up to the seed with None, else
        `adjustment`); atomic against the claims of every table."""
        ...

    async def suspend(self, act: Act, player_id: str, suspended: bool) -> Acted:
        """Suspend a player (or lift it); every process follows `admin_state`."""
        ...

    # ----- a table's acts, carried out by its host ---------------------------------------
    async def submit(self, act: Act) -> Submitted:
        """Record a table's act as pending (idempotent by id; another request under the
        same id: ActionConflict)."""
        ...

    async def finish(
        self, act: Act, row: dict[str, Any], paused: dict[str, Any] | None = None
    ) -> Acted:
        """The host's outcome: done, its audit row appended, out of the pending set, in
        one step, once (a repeat returns the first row). For a pause or resume,
        `paused` is the table's new flag: `{"set": {...}}` or `{"clear": true}`."""
        ...

    async def action(self, action_id: str) -> Submitted | None: ...
    async def admin_state(self) -> AdminState: ...

    # ----- the audit log ----------------------------------------------------------
    async def audit(
        self, offset: int, limit: int, target: str | None = None
    ) -> tuple[list[dict[str, Any]], int]:
        """Rows newest first from `offset`, and how many there are (of `target`)."""
        ...

    async def audit_lines(self, start: int, count: int) -> list[str]:
        """Rows oldest first, as JSON lines (the export)."""
        ...

    # ----- the fleet's view ---------------------------------------------------------
    async def mark_seen(self, ttl: float) -> None:
        """A console is looking: processes publish their tables' details for `ttl` s."""
        ...

    async def publish(
        self, process_id: str, process: dict[str, Any], tables: dict[str, dict[str, Any]]
    ) -> None:
        """This process's row and its hosted tables' details, for every console."""
        ...

    async def published(self) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
        """(table -> detail, process -> row) as last published."""
        ...

    # ----- reads ----------------------------------------------------------------
    async def find_players(self, query: str, limit: int) -> list[dict[str, Any]]:
        """Players whose id or username is `query`, or whose name contains it (any case):
        `{player_id, name, username}`."""
        ...

    async def player(self, player_id: str) -> dict[str, Any] | None: ...
    async def holds(self, player_id: str, table_ids: list[str]) -> list[dict[str, Any]]:
        """The player's holds in the open rounds of these tables: `{round_id, table,
        seat, amount}`."""
        ...

    async def journal(self, round_id: str) -> dict[str, Any] | None:
        """A round's journal: `{round_id, table, state, ledger, holds}` (None when the
        store has none: never opened, or expired)."""
        ...

    async def round_stats(
        self, table_ids: list[str], since_ms: int, now_ms: int
    ) -> dict[str, dict[str, int]]:
        """Per table, the sums of `STAT_FIELDS` over the rounds settled since `since_ms`."""
        ...
