"""The operator's acts: checked, applied once by their action id, answered with the audit row.

Every act needs `action_id` (8-64 of A-Z a-z 0-9 _ -, chosen by the caller: the
page makes one per click) and `reason` (1-200 characters). The same id again
answers the first outcome and applies nothing (`replayed: true`); the same id
with another request is refused (409).

- A table's act (pause, resume, void, remove) is recorded in the store and
  carried out by the process hosting the table (server/admin/agent.py); the
  answer waits up to `admin.action_timeout` for its outcome, else says
  `pending` (202): it is carried out when the table's host gets to it, and
  `GET /api/actions/<id>` tells.
- The store's own acts (credit, debit, suspend, unsuspend, reseed, correct) are
  one atomic write each with their audit row; a write whose answer did not come
  is repeated with the same id, so it applies once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from server.admin.agent import Agent
from server.admin.host import ConsoleHost
from server.durable import GaveUp, until_known
from server.fleet import Fleet
from server.stores.admin import (
    ACTION_ID,
    Act,
    Acted,
    ActionConflict,
    AdminStore,
    Submitted,
    suspension,
)
from server.stores.base import MAX_CENTS, StoreError, StoreUnavailable, Wallet

log = logging.getLogger("stud.admin")

T = TypeVar("T", Acted, Submitted)
R = TypeVar("R")
MAX_REASON = 200
NEWS_PATIENCE = 2.0  # seconds an answer waits for the fleet's news of a suspension to go out
TABLE_ACTS = {"pause": (), "resume": (), "void": ("round_id",), "remove": ("player_id",)}
PLAYER_ACTS = ("credit", "debit", "suspend", "unsuspend")
JACKPOT_ACTS = ("reseed", "correct")


class BadAct(Exception):
    """A request the console refuses before anything is recorded (400, 404, 409, 503)."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    body: dict[str, Any]


class Acts:
    def __init__(
        self,
        host: ConsoleHost,
        admin: AdminStore,
        agent: Agent,
        known_table: Callable[[str], Awaitable[bool]],
        timeout: float,
    ) -> None:
        self.host = host
        self.admin = admin
        self.agent = agent
        self.known_table = known_table
        self.timeout = timeout

    # ----- the three kinds of target ---------------------------------------------------

    async def table(self, operator: str, table_id: str, action: str, body: Any) -> Answer:
        if action not in TABLE_ACTS:
            raise BadAct(404, "not_found", f"no table act {action!r}")
        if not await self.known_table(table_id):
            raise BadAct(404, "not_found", f"no table {table_id!r} in the fleet")
        fields = {name: _text(body, name) for name in TABLE_ACTS[action]}
        act = self._act(operator, action, f"table:{table_id}", body, fields)
        submitted = await self._durable(act, lambda: self.admin.submit(act))
        if submitted is None:
            return _in_doubt(act)
        self.agent.wake.set()  # this process may host the table
        self._tell_fleet()  # or another one does
        replayed = submitted.replayed
        if submitted.state != "done":
            submitted = await self.wait(act.id)
        if submitted.state != "done" or submitted.row is None:
            return Answer(
                202,
                {
                    "state": "pending",
                    "action_id": act.id,
                    "message": "recorded: the table's host carries it out when it can",
                },
            )
        return Answer(200, {"state": "done", "row": submitted.row, "replayed": replayed})

    async def player(self, operator: str, player_id: str, action: str, body: Any) -> Answer:
        if action not in PLAYER_ACTS:
            raise BadAct(404, "not_found", f"no player act {action!r}")
        target = f"player:{player_id}"
        if action in ("credit", "debit"):
            known_fields(body, ("action_id", "reason", "amount"))  # a misspelling by its name
            amount = _cents(body, "amount")
            act = self._act(operator, action, target, body, {"amount": amount})
            signed = amount if action == "credit" else -amount
            # a credit is bounded as a top-up is: one mistyped amount cannot mint a fortune;
            # and either act by `[admin] max_adjustment`, refused in the same atomic write
            limit = self.host.config.wallet.max_balance
            act_limit = self.host.config.admin.max_adjustment
            acted = await self._durable(
                act,
                lambda: self.admin.adjust(act, player_id, signed, limit=limit, act_limit=act_limit),
            )
            if acted is not None and acted.row["outcome"] == "applied":
                r = acted.row["details"]["result"]
                wallet: Wallet | None = Wallet(r["balance"], r["bonus"], r["held"])
                if acted.replayed:  # the first's balance: old by now, or never pushed
                    wallet = await self._now(self.host.store.wallet(player_id), "wallet")
                if wallet is not None:
                    self.host.push_wallet(player_id, wallet)
        else:
            act = self._act(operator, action, target, body, {})
            off = action == "suspend"
            acted = await self._durable(act, lambda: self.admin.suspend(act, player_id, off))
            self.agent.wake.set()  # follow it here at once: seats, sit, ante, buy_chips
            if acted is not None and acted.row["outcome"] == "applied":
                # and on every other process before the answer: the news carries it
                news = suspension(act) if off else None
                if acted.replayed:  # what holds now: a suspension may have been lifted since
                    state = await self._now(self.admin.admin_state(), "suspension")
                    news = state.suspended.get(player_id) if state is not None else news
                await _announce_acts(self.host.fleet, player_id, news)
        return _done(act, acted)

    def _tell_fleet(self) -> None:
        self.host.spawn(_announce_acts(self.host.fleet))

    async def jackpot(self, operator: str, name: str, action: str, body: Any) -> Answer:
        if action not in JACKPOT_ACTS:
            raise BadAct(404, "not_found", f"no jackpot act {action!r}")
        known_fields(body, ("action_id", "reason", *(["amount"] if action == "correct" else [])))
        amount = _cents(body, "amount", zero=True) if action == "correct" else None
        fields = {} if amount is None else {"amount": amount}
        act = self._act(operator, action, f"jackpot:{name}", body, fields)
        acted = await self._durable(act, lambda: self.admin.set_meter(act, name, amount))
        if acted is not None and acted.row["outcome"] == "applied":
            after: int | None = acted.row["details"]["result"]["after"]
            if acted.replayed:  # the first's figure: old by now, or never shown
                after = await self._now(self.host.store.meter(name), "meter")
            if after is not None:
                self.host.set_meter(name, after)  # and the fleet
        return _done(act, acted)

    # ----- helpers ----------------------------------------------------------------

    def _act(
        self, operator: str, action: str, target: str, body: Any, fields: dict[str, Any]
    ) -> Act:
        known_fields(body, ("action_id", "reason", *fields))
        action_id = body.get("action_id") if isinstance(body, dict) else None
        if not isinstance(action_id, str) or not ACTION_ID.fullmatch(action_id):
            raise BadAct(400, "bad_request", "action_id: 8-64 of A-Z a-z 0-9 _ -", "action_id")
        reason = _text(body, "reason", MAX_REASON).strip()
        if not 1 <= len(reason) <= MAX_REASON or not reason.isprintable():
            # the audit log is read by people and exported: no control or format characters
            raise BadAct(
                400,
                "bad_request",
                f"reason: 1-{MAX_REASON} printable characters (no control characters), not blank",
                "reason",
            )
        return Act(action_id, operator, int(time.time() * 1000), action, target, reason, fields)

    async def _durable(self, act: Act, call: Callable[[], Awaitable[T]]) -> T | None:
        """The write's outcome, repeated with the act's id while in doubt; None when still
        in doubt at the deadline (a repeat of the request is safe)."""
        deadline = time.monotonic() + self.timeout
        try:
            return await until_known(
                call,
                what=act.action,
                op=act.id,
                pending=self.host.pending,
                stop=lambda: time.monotonic() >= deadline,
            )
        except ActionConflict as e:
            raise BadAct(409, "conflict", e.message, "action_id") from None
        except StoreUnavailable as e:
            raise BadAct(503, "store_unavailable", e.message) from None
        except GaveUp:
            return None

    async def _now(self, read: Awaitable[R], what: str) -> R | None:
        """What holds now, for a repeated act: its first result may be old, or never have
        been told (a write in doubt retried under its id answers as a repeat). None when
        the store does not answer: the act stands, and the next change tells it."""
        try:
            return await read
        except StoreError as e:
            log.warning("%s not read after a repeated act: %s", what, e.cause)
            return None

    async def wait(self, action_id: str) -> Submitted:
        """The act's state once its host finished it, or at the deadline."""
        deadline = time.monotonic() + self.timeout
        while True:
            submitted = await self.admin.action(action_id)
            if submitted is None:
                raise BadAct(404, "not_found", f"no action {action_id!r}")
            left = deadline - time.monotonic()
            if submitted.state == "done" or left <= 0:
                return submitted
            await self.agent.finished(min(0.1, left))
            await asyncio.sleep(0)


def _done(act: Act, acted: Acted | None) -> Answer:
    if acted is None:
        return _in_doubt(act)
    return Answer(200, {"state": "done", "row": acted.row, "replayed": acted.replayed})


def _in_doubt(act: Act) -> Answer:
    return Answer(
        202,
        {
            "state": "unknown",
            "action_id": act.id,
            "message": "the store has not confirmed it yet: repeat the request (same "
            "action_id) or ask GET /api/actions/<id>; it applies at most once",
        },
    )


def known_fields(body: Any, known: tuple[str, ...]) -> None:
    """A field the request does not take is refused: a misspelt one would be dropped
    silently, and the operator think it applied."""
    for name in body if isinstance(body, dict) else ():
        if name not in known:
            raise BadAct(400, "bad_request", f"{name}: not a field of this request", name)


def _text(body: Any, name: str, limit: int = 128) -> str:
    value = body.get(name) if isinstance(body, dict) else None
    if not isinstance(value, str) or not value or len(value) > limit:
        raise BadAct(400, "bad_request", f"{name}: a string of 1-{limit} characters", name)
    return value


def _cents(body: Any, name: str, *, zero: bool = False) -> int:
    value = body.get(name) if isinstance(body, dict) else None
    low = 0 if zero else 1
    if type(value) is not int or not low <= value <= MAX_CENTS:
        raise BadAct(400, "bad_request", f"{name}: whole cents, {low} to {MAX_CENTS}", name)
    return value


async def _announce_acts(
    fleet: Fleet | None, player_id: str | None = None, news: dict[str, Any] | None = None
) -> None:
    if fleet is None:
        return
    try:
        await asyncio.wait_for(fleet.announce_acts(player_id, news), NEWS_PATIENCE)
    except (StoreError, TimeoutError) as e:  # each process still reads it at its next poll
        log.warning("acts news not sent: %s", e)
