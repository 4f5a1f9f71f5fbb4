"""Error codes, close codes and the one exception the protocol layer raises.

Codes are part of the wire contract: clients branch on them, so a code is never
renamed or reused for another meaning. `ERROR_MEANINGS` is the single source of
the one-line explanations; PROTOCOL.md's error table repeats them verbatim and a
test keeps the two identical.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum, StrEnum
from typing import Any, Final

#: A request's `id` as it travels on the wire: an int 0..2**53 or a short string.
RequestId = int | str


class ErrorCode(StrEnum):
    """The `code` of an `error` frame."""

    BAD_FRAME = "bad_frame"
    UNKNOWN_TYPE = "unknown_type"
    MISSING_FIELD = "missing_field"
    INVALID_FIELD = "invalid_field"
    NOT_WELCOMED = "not_welcomed"
    ALREADY_WELCOMED = "already_welcomed"
    UNSUPPORTED_VERSION = "unsupported_version"
    INVALID_TOKEN = "invalid_token"
    UNKNOWN_TABLE = "unknown_table"
    NOT_AT_TABLE = "not_at_table"
    SEAT_TAKEN = "seat_taken"
    NO_FREE_SEAT = "no_free_seat"
    SEAT_LIMIT = "seat_limit"
    NOT_YOUR_SEAT = "not_your_seat"
    NOT_SEATED = "not_seated"
    WRONG_PHASE = "wrong_phase"
    ALREADY_BET = "already_bet"
    NO_BET = "no_bet"
    ALREADY_DECIDED = "already_decided"
    NOT_BETTING = "not_betting"
    ROUND_MOVED_ON = "round_moved_on"
    ANTE_OUT_OF_LIMITS = "ante_out_of_limits"
    INSUFFICIENT_FUNDS = "insufficient_funds"
    BONUS_NOT_PLAYABLE = "bonus_not_playable"
    BUY_IN_LIMIT = "buy_in_limit"
    RATE_LIMITED = "rate_limited"
    SHUTTING_DOWN = "shutting_down"
    TABLE_SUSPENDED = "table_suspended"
    TABLE_PAUSED = "table_paused"
    ACCOUNT_SUSPENDED = "account_suspended"
    TABLE_MOVED = "table_moved"
    ROUND_VOIDED = "round_voided"
    STORE_UNAVAILABLE = "store_unavailable"
    USERNAME_TAKEN = "username_taken"
    WEAK_PASSWORD = "weak_password"
    BAD_CREDENTIALS = "bad_credentials"
    TOO_MANY_ATTEMPTS = "too_many_attempts"
    BUSY = "busy"
    ALREADY_REGISTERED = "already_registered"
    NOT_REGISTERED = "not_registered"
    SEATED = "seated"
    INTERNAL_ERROR = "internal_error"

    @property
    def meaning(self) -> str:
        """One line for humans; the same text as PROTOCOL.md's error table."""
        return ERROR_MEANINGS[self]


ERROR_MEANINGS: Final[Mapping[ErrorCode, str]] = {
    ErrorCode.BAD_FRAME: (
        "The frame is not one msgpack map with string keys: not msgpack, not a map, "
        "trailing bytes, over a decoding bound. (A text frame closes the connection with "
        "1003 instead.)"
    ),
    ErrorCode.UNKNOWN_TYPE: "`t` is not the name of a client message type.",
    ErrorCode.MISSING_FIELD: "A required field is absent or nil; `field` names it.",
    ErrorCode.INVALID_FIELD: (
        "A field has the wrong type, is out of range, or is not part of the message; "
        "`field` names it."
    ),
    ErrorCode.NOT_WELCOMED: "Only `hello`, `login` and `ping` are accepted before `welcome`.",
    ErrorCode.ALREADY_WELCOMED: "`hello` was sent on a connection that is already welcomed.",
    ErrorCode.UNSUPPORTED_VERSION: (
        "The server speaks no protocol version <= `v`; `supported` lists the versions it "
        "speaks. The server then closes with 1002."
    ),
    ErrorCode.INVALID_TOKEN: (
        "The resume token is unknown, revoked (`logout`, a password change) or unused for "
        "longer than the server keeps idle tokens; send `hello` again with a `name` and no "
        "`token`, or `login`."
    ),
    ErrorCode.UNKNOWN_TABLE: "No table has this id.",
    ErrorCode.NOT_AT_TABLE: "You are not watching this table.",
    ErrorCode.SEAT_TAKEN: "The requested seat is already taken.",
    ErrorCode.NO_FREE_SEAT: "Every seat at the table is taken.",
    ErrorCode.SEAT_LIMIT: ("You already hold `limits.max_seats_per_player` seats at this table."),
    ErrorCode.NOT_YOUR_SEAT: "The seat is free or held by another player.",
    ErrorCode.NOT_SEATED: "You hold no seat at this table.",
    ErrorCode.WRONG_PHASE: "The action is not allowed in the table's current phase.",
    ErrorCode.ALREADY_BET: (
        "The seat already has an ante this round, or one still being placed"
        " (withdraw it to change it)."
    ),
    ErrorCode.NO_BET: "The seat has no ante to withdraw.",
    ErrorCode.ALREADY_DECIDED: (
        "The seat has already folded or raised this round,"
        " or a fold or raise is still being placed."
    ),
    ErrorCode.NOT_BETTING: "The seat has no hand in this round (it placed no ante).",
    ErrorCode.ROUND_MOVED_ON: (
        "The request's `seq` names a snapshot older than the close of the betting (`ante`, "
        "`withdraw`, `deal`) or of the decisions (`fold`, `raise`, or than the deal of the "
        "hand they decide) it was made for: the round it was meant for has moved on, and "
        "nothing was applied. Look at the table "
        "as it is now before acting again."
    ),
    ErrorCode.ANTE_OUT_OF_LIMITS: (
        "The ante is outside the table's limits; `min_ante` and `max_ante` give them (cents)."
    ),
    ErrorCode.INSUFFICIENT_FUNDS: (
        "Available play credits do not cover ante + progressive stake + the possible raise; "
        "`needed` and `available` give the amounts (cents)."
    ),
    ErrorCode.BONUS_NOT_PLAYABLE: (
        "Play credits are short and only bonus credits would cover the bet, which cannot be "
        "wagered at this game; `needed` and `available` give the amounts (cents)."
    ),
    ErrorCode.BUY_IN_LIMIT: (
        "The chip purchase is over the limit; `allowed` is the largest amount accepted now (cents)."
    ),
    ErrorCode.RATE_LIMITED: (
        "Too many frames: this one was dropped, not handled (the reply carries its `id`). "
        "Keeping on closes the connection with 1008."
    ),
    ErrorCode.SHUTTING_DOWN: "The server is shutting down: no new sits, antes or chip purchases.",
    ErrorCode.TABLE_SUSPENDED: (
        "The table is suspended (its snapshot says why): nothing was applied; try again "
        "when it resumes. `reason`: `store` (the data store does not answer, or refuses "
        "writes for now), `lease` (this server cannot renew its hold on the table in the "
        "store the servers share) or `store_lost` (the store came back without its data)."
    ),
    ErrorCode.TABLE_PAUSED: (
        "The casino has paused this table (its snapshot's `paused` says why): the round in "
        "play finishes, no ante is taken until it resumes; nothing was applied."
    ),
    ErrorCode.ACCOUNT_SUSPENDED: (
        "The casino has suspended this player: no seat, ante or chip purchase (nothing was "
        "applied); `reason` says why."
    ),
    ErrorCode.TABLE_MOVED: (
        "Another server process hosts this table now: the request was not applied; "
        "`table_moved` says where it went. (A request written just before the move is "
        "answered as applied instead, and a bet of it is refunded with the rest of the "
        "round by the new host's void.)"
    ),
    ErrorCode.ROUND_VOIDED: (
        "The round was voided before this was confirmed: the store's data was restored from"
        " a backup meanwhile. What the backup holds of the round is refunded; the wallet"
        " pushed is what the player has."
    ),
    ErrorCode.STORE_UNAVAILABLE: (
        "The game's data store could not be reached and nothing was applied: the request "
        "never reached it, or it was cancelled before it could apply. Try again (a cancelled "
        "keyed `buy_chips`, `given_up: true`, with a new key)."
    ),
    ErrorCode.USERNAME_TAKEN: (
        "Another account has this username (usernames are compared without regard to case)."
    ),
    ErrorCode.WEAK_PASSWORD: (
        "The password is refused: it must be 10 to 128 characters and not the username."
    ),
    ErrorCode.BAD_CREDENTIALS: (
        "Wrong username or password (the same answer for an unknown username and a wrong password)."
    ),
    ErrorCode.TOO_MANY_ATTEMPTS: (
        "Too many failed password checks for this account or from this address: none is "
        "checked before `retry_after` seconds. To a `hello` with a `name`: too many new "
        "players made from this address; none is made before `retry_after` seconds."
    ),
    ErrorCode.BUSY: (
        "The server is checking too many passwords right now: nothing was changed; try again "
        "after `retry_after` seconds."
    ),
    ErrorCode.ALREADY_REGISTERED: "This connection's player is an account already.",
    ErrorCode.NOT_REGISTERED: "A guest has no password: `register` first.",
    ErrorCode.SEATED: (
        "You hold a seat at a table of this server, or left one with a hand still in play: "
        "leave it, or wait for that round to settle, before you sign in or out (nothing was "
        "changed)."
    ),
    ErrorCode.INTERNAL_ERROR: "An unexpected server fault; nothing was applied.",
}


class CloseCode(IntEnum):
    """WebSocket close codes the server uses (RFC 6455 section 7.4.1)."""

    NORMAL = 1000
    GOING_AWAY = 1001  # server shutdown
    PROTOCOL_ERROR = 1002  # e.g. after unsupported_version
    UNSUPPORTED_DATA = 1003  # a text frame
    POLICY_VIOLATION = 1008  # flood after a rate_limited warning, repeated abuse
    MESSAGE_TOO_BIG = 1009  # frame over limits.max_frame_bytes
    INTERNAL_ERROR = 1011


#: Keys an error frame owns; `details` may not shadow them.
_RESERVED: Final = frozenset({"t", "id", "code", "message", "field"})


class ProtocolError(Exception):
    """A request the server refuses, carried up to the connection as an `error` frame.

    Raised by the codec and the validator, and by the server for rule violations,
    so that every refusal reaches the client in the same shape. `details` holds
    code-specific extras (e.g. `needed`/`available` for insufficient_funds) and
    is merged into the frame at top level.
    """

    code: ErrorCode
    message: str
    field: str | None
    details: dict[str, Any]
    request_id: RequestId | None

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        field: str | None = None,
        details: Mapping[str, Any] | None = None,
        request_id: RequestId | None = None,
    ) -> None:
        super().__init__(message)
        self.code = ErrorCode(code)
        self.message = message
        self.field = field
        self.details = dict(details or {})
        clash = _RESERVED.intersection(self.details)
        if clash:
            raise ValueError(f"details may not set {sorted(clash)}")
        self.request_id = request_id

    def to_frame(self, request_id: RequestId | None = None) -> dict[str, Any]:
        """The `error` frame; `request_id` (else the one validation saw) is echoed as `id`."""
        frame: dict[str, Any] = {"t": "error"}
        rid = request_id if request_id is not None else self.request_id
        if rid is not None:
            frame["id"] = rid
        frame["code"] = str(self.code)
        frame["message"] = self.message
        if self.field is not None:
            frame["field"] = self.field
        frame.update(self.details)
        return frame

    def __repr__(self) -> str:
        return f"ProtocolError({self.code.value!r}, {self.message!r}, field={self.field!r})"
