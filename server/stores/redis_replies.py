"""What the store's Lua scripts answer, in Python's terms: a refusal ({"err": ...})
as the StoreError base.py words, Redis's own error replies by what they say of the
write, and the rows and values the scripts return."""

from __future__ import annotations

import json
from typing import Any, Final

from server.game.ledger import Hold
from server.stores.base import (
    Claim,
    InvalidRequest,
    OutcomeUnknown,
    StoreError,
    StoreUnavailable,
    Wallet,
    abandoned,
    already_registered,
    closed_error,
    cover_error,
    funds_error,
    not_owner,
    purchase_conflict,
    settle_conflict,
    suspended_error,
    unknown_player,
    unknown_round,
    username_taken,
    with_jackpots,
)


class BuyInRefused(StoreError):
    """The buy_chips script's refusal, before it is worded like MemoryStore's."""

    def __init__(self, balance: int, per_purchase: bool) -> None:
        super().__init__("buy-in refused")
        self.balance = balance
        self.per_purchase = per_purchase  # over max_amount, not max_balance


#: Redis refuses a script's write with these (too few replicas, a failed save, out of
#: memory, a read-only replica, a dataset loading, another script running) only until
#: the script has written (a script that has written is never stopped by them): the
#: refused script applied nothing, and a later try may work
REFUSED_BEFORE_WRITING: Final = (
    "NOREPLICAS",
    "MISCONF",
    "OOM",
    "READONLY",
    "LOADING",
    "BUSY",
    "MASTERDOWN",
)


def error_reply(what: str, message: str, *, write: bool) -> StoreError:
    """What a Redis error reply says of the write. Refused before writing: nothing was
    applied (StoreUnavailable: a request is refused truthfully, a duty waits with its
    table paused). Any other error of a write may have come after part of it (a
    script is not rolled back): its outcome is unknown, to be tried again under its
    operation id. A plain StoreError was retried by no one: a timer's fold refused
    for want of a replica was dropped and the table played on."""
    if message.startswith(REFUSED_BEFORE_WRITING):
        return StoreUnavailable(f"the game's data store (Redis) refused {what}: {message}")
    if write:
        return OutcomeUnknown(
            f"the game's data store (Redis) failed {what}: {message}; the outcome is unknown"
        )
    return StoreError(f"the game's data store (Redis) failed {what}: {message}")


def refusal(data: dict[str, Any]) -> StoreError:
    """The StoreError a script's {"err": ...} reply stands for, worded by base.py."""
    code = data["err"]
    if code == "script_failed":  # one write of a batch, failed by Redis
        return error_reply("a batched write", str(data.get("message")), write=True)
    if code == "funds":
        return funds_error(data["needed"], data["available"], data["bonus"])
    if code == "cover":
        return cover_error(data["account"], data["needed"])
    if code == "closed":
        return closed_error(data["round"], data["state"])
    if code == "conflict":
        return settle_conflict(data["round"])
    if code == "unknown_round":
        return unknown_round(data["round"])
    if code == "wrong_table":
        return InvalidRequest(f"round {data['round']} belongs to table {data['table']}")
    if code == "buy_in_limit":
        return BuyInRefused(data["balance"], bool(data.get("per_purchase")))
    if code == "not_owner":
        return not_owner(data["table"], data["epoch"], str(data.get("holder") or ""))
    if code == "abandoned":
        return abandoned(data["op"])
    if code == "purchase_conflict":
        return purchase_conflict(data["op"], data["first"], data["amount"])
    if code == "username_taken":
        return username_taken(data["username"])
    if code == "already_registered":
        return already_registered(data["username"])
    if code == "suspended":
        return suspended_error(str(data["reason"]))
    if code == "unknown_player":
        return unknown_player(data["player"])
    return StoreError(f"unexpected store reply: {data!r}")


def claim_of(data: dict[str, Any]) -> Claim:
    if "owner" in data:
        return Claim(int(data["epoch"]), owner=str(data["owner"]))
    return Claim(int(data["epoch"]), fresh=bool(data["fresh"]))


def wallets_of(data: dict[str, list[int]]) -> dict[str, Wallet]:
    return {pid: Wallet(*w) for pid, w in data.items()}


def hold_row(h: Hold) -> list[Any]:
    return [h.round_id, h.seat, h.player_id, h.amount]


def history_entry(text: str) -> dict[str, Any]:
    """A history entry as MemoryStore returns it: the record with the extras beside it."""
    data = json.loads(text)
    entry: dict[str, Any] = data.pop("record")
    entry.update(data)
    return with_jackpots(entry)
