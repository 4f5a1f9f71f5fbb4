"""Client message schemas, validated on every inbound frame before a table sees it.

Each client message type is a frozen dataclass whose fields carry their wire
rule in an `Annotated` hint (`amount: Annotated[int, MONEY]`), so the class a
handler receives and the schema that admitted it cannot drift apart. The rule
kinds are deliberately tiny: exact types (no bool for int, no float for money),
bounded ranges and lengths, and unknown fields are refused, so nothing a table
acts on was guessed or coerced.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Final, Protocol, get_type_hints

from protocol.codec import kind_name
from protocol.errors import ErrorCode, ProtocolError, RequestId

MAX_SEATS: Final = 9
MAX_MONEY: Final = 10**12  # cents: ten billion dollars, far beyond any limit
MAX_ID_INT: Final = 2**53  # the largest integer a JavaScript client holds exactly
MAX_ID_LEN: Final = 64
_SHOW: Final = 40  # how much of a client's string an error message repeats


# --- rule kinds ---------------------------------------------------------------


class Kind(Protocol):
    """A wire rule: `problem` says what is wrong with a value, or None if it fits."""

    def problem(self, value: object) -> str | None: ...


@dataclass(frozen=True, slots=True)
class Int:
    """An integer in [low, high]; bool and float are refused (True is an int in Python)."""

    low: int
    high: int
    unit: str = ""  # plural: "cents" reads "an integer number of cents", "1 to 9 cents"

    def problem(self, value: object) -> str | None:
        unit = f" {self.unit}" if self.unit else ""
        if type(value) is not int:
            return f"must be an integer{' number of' if unit else ''}{unit}, not {kind_name(value)}"
        if not self.low <= value <= self.high:
            return f"must be from {self.low} to {self.high}{unit}, got {value}"
        return None


@dataclass(frozen=True, slots=True)
class Bool:
    """true or false; 0 and 1 are refused so a typo cannot flip a bet."""

    def problem(self, value: object) -> str | None:
        return None if type(value) is bool else f"must be true or false, not {kind_name(value)}"


@dataclass(frozen=True, slots=True)
class Str:
    """A string of min_len..max_len code points, optionally matching `pattern` in full.

    `printable` refuses control and format characters and surrounding
    whitespace: names are shown to other players.
    """

    min_len: int
    max_len: int
    pattern: re.Pattern[str] | None = None
    shape: str = ""
    printable: bool = False

    def problem(self, value: object) -> str | None:
        if type(value) is not str:
            return f"must be a string, not {kind_name(value)}"
        if not self.min_len <= len(value) <= self.max_len:
            return f"must be {self.min_len} to {self.max_len} characters, got {len(value)}"
        if self.pattern is not None and self.pattern.fullmatch(value) is None:
            return f"must be {self.shape}, got {value[:_SHOW]!r}"
        if self.printable:
            if value != value.strip():  # first: a trailing no-break space is whitespace
                return "must not start or end with whitespace"
            if not value.isprintable():
                return "must be printable text: no control or format characters, no space but ' '"
        return None


@dataclass(frozen=True, slots=True)
class OneOf:
    """One of a fixed set of strings."""

    values: tuple[str, ...]

    def problem(self, value: object) -> str | None:
        if type(value) is not str:
            return f"must be a string, not {kind_name(value)}"
        if value not in self.values:
            return f"must be one of {', '.join(self.values)}; got {value[:_SHOW]!r}"
        return None


@dataclass(frozen=True, slots=True)
class Secret:
    """A password: any string. Its length and strength are the server's to judge
    (`weak_password`); no message about it ever repeats any of it."""

    def problem(self, value: object) -> str | None:
        return None if type(value) is str else f"must be a string, not {kind_name(value)}"


@dataclass(frozen=True, slots=True)
class RequestIdKind:
    """`id`: an int 0..2**53 or a string of 1..64 characters."""

    def problem(self, value: object) -> str | None:
        if type(value) is int:
            return None if 0 <= value <= MAX_ID_INT else f"must be from 0 to {MAX_ID_INT}"
        if type(value) is str:
            ok = 1 <= len(value) <= MAX_ID_LEN
            return None if ok else f"must be 1 to {MAX_ID_LEN} characters"
        return f"must be an integer or a string, not {kind_name(value)}"


VERSION: Final = Int(0, 2**31 - 1)
NAME: Final = Str(1, 24, printable=True)
TOKEN: Final = Str(1, 128, re.compile(r"[\x21-\x7e]+"), "printable ASCII without spaces")
TABLE_ID: Final = Str(1, 32, re.compile(r"[a-z0-9_-]+"), "lowercase letters, digits, _ or -")
SEAT: Final = Int(0, MAX_SEATS - 1)
#: a table snapshot's `seq`, as a request names the one it was made on
SEQ: Final = Int(0, MAX_ID_INT)
MONEY: Final = Int(1, MAX_MONEY, "cents")
BOOL: Final = Bool()
CLIENT_SEED: Final = Str(
    0, 64, re.compile(r"[A-Za-z0-9_.-]*"), "letters, digits, _ . or - (64 at most)"
)
HISTORY_LIMIT: Final = Int(1, 50)
PURCHASE_KEY: Final = Str(
    1, 64, re.compile(r"[A-Za-z0-9_.:-]+"), "1 to 64 of letters, digits, _ . : or -"
)
REQUEST_ID: Final = RequestIdKind()
USERNAME: Final = Str(3, 24, re.compile(r"[A-Za-z0-9_]+"), "3 to 24 of A-Z, a-z, 0-9 or _")
PASSWORD: Final = Secret()


# --- client messages ------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Request:
    """Base of every client message. `id`, when sent, is echoed in the reply."""

    TYPE: ClassVar[str]
    id: RequestId | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TableRequest(Request):
    """A request routed to one table."""

    table: Annotated[str, TABLE_ID]


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatRequest(TableRequest):
    """A request acting on one seat the sender holds."""

    seat: Annotated[int, SEAT]


@dataclass(frozen=True, slots=True, kw_only=True)
class Hello(Request):
    """First message: `v` is the highest protocol version the client speaks."""

    TYPE: ClassVar[str] = "hello"
    v: Annotated[int, VERSION]
    name: Annotated[str | None, NAME] = None
    token: Annotated[str | None, TOKEN] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Ping(Request):
    TYPE: ClassVar[str] = "ping"


@dataclass(frozen=True, slots=True, kw_only=True)
class Lobby(Request):
    """Get the lobby; with watch (the default) keep receiving its updates."""

    TYPE: ClassVar[str] = "lobby"
    watch: Annotated[bool, BOOL] = True


@dataclass(frozen=True, slots=True, kw_only=True)
class Join(TableRequest):
    """Watch a table as a spectator."""

    TYPE: ClassVar[str] = "join"


@dataclass(frozen=True, slots=True, kw_only=True)
class Leave(TableRequest):
    TYPE: ClassVar[str] = "leave"


@dataclass(frozen=True, slots=True, kw_only=True)
class Sit(TableRequest):
    """Take `seat`, or any free seat when it is None."""

    TYPE: ClassVar[str] = "sit"
    seat: Annotated[int | None, SEAT] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Stand(SeatRequest):
    TYPE: ClassVar[str] = "stand"


@dataclass(frozen=True, slots=True, kw_only=True)
class Ante(SeatRequest):
    """`seq`, here and in the other bets and decisions: the snapshot the player acted on,
    so a request that reaches the table after its round moved on is refused, not placed
    in a round the player never saw."""

    TYPE: ClassVar[str] = "ante"
    amount: Annotated[int, MONEY]
    progressive: Annotated[bool, BOOL] = False
    seq: Annotated[int | None, SEQ] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Withdraw(SeatRequest):
    TYPE: ClassVar[str] = "withdraw"
    seq: Annotated[int | None, SEQ] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Deal(TableRequest):
    """The sender is ready (for all their seats at the table)."""

    TYPE: ClassVar[str] = "deal"
    seq: Annotated[int | None, SEQ] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Fold(SeatRequest):
    TYPE: ClassVar[str] = "fold"
    seq: Annotated[int | None, SEQ] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Raise(SeatRequest):
    TYPE: ClassVar[str] = "raise"
    seq: Annotated[int | None, SEQ] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class BuyChips(Request):
    """A top-up. `key` names the purchase, so a client repeating it after a lost reply
    buys once: the player's repeats with the same key buy nothing more."""

    TYPE: ClassVar[str] = "buy_chips"
    amount: Annotated[int, MONEY]
    key: Annotated[str | None, PURCHASE_KEY] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Balance(Request):
    TYPE: ClassVar[str] = "balance"


@dataclass(frozen=True, slots=True, kw_only=True)
class Seed(TableRequest):
    """The player's client seed for the provably fair shuffle of the next deals."""

    TYPE: ClassVar[str] = "seed"
    client_seed: Annotated[str, CLIENT_SEED]


@dataclass(frozen=True, slots=True, kw_only=True)
class History(Request):
    """The player's last rounds, newest first (game recall)."""

    TYPE: ClassVar[str] = "history"
    limit: Annotated[int, HISTORY_LIMIT] = 50


@dataclass(frozen=True, slots=True, kw_only=True)
class Register(Request):
    """Make the connection's guest an account (its wallet, history and seats stay)."""

    TYPE: ClassVar[str] = "register"
    username: Annotated[str, USERNAME]
    password: Annotated[str, PASSWORD] = field(repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class Login(Request):
    """Switch the connection to an account; answered by `welcome`."""

    TYPE: ClassVar[str] = "login"
    username: Annotated[str, USERNAME]
    password: Annotated[str, PASSWORD] = field(repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class Logout(Request):
    """Revoke the connection's token; the connection is then no longer welcomed."""

    TYPE: ClassVar[str] = "logout"


@dataclass(frozen=True, slots=True, kw_only=True)
class ChangePassword(Request):
    TYPE: ClassVar[str] = "change_password"
    old: Annotated[str, PASSWORD] = field(repr=False)
    new: Annotated[str, PASSWORD] = field(repr=False)


#: Every client message; `match` on it and mypy checks the cases are exhaustive.
ClientMessage = (
    Hello
    | Ping
    | Lobby
    | Join
    | Leave
    | Sit
    | Stand
    | Ante
    | Withdraw
    | Deal
    | Fold
    | Raise
    | BuyChips
    | Balance
    | Seed
    | History
    | Register
    | Login
    | Logout
    | ChangePassword
)

MESSAGE_CLASSES: Final[Mapping[str, type[ClientMessage]]] = {
    cls.TYPE: cls
    for cls in (
        Hello,
        Ping,
        Lobby,
        Join,
        Leave,
        Sit,
        Stand,
        Ante,
        Withdraw,
        Deal,
        Fold,
        Raise,
        BuyChips,
        Balance,
        Seed,
        History,
        Register,
        Login,
        Logout,
        ChangePassword,
    )
}
CLIENT_TYPES: Final = frozenset(MESSAGE_CLASSES)
SERVER_TYPES: Final = frozenset(
    {
        "welcome",
        "ok",
        "error",
        "pong",
        "lobby",
        "table",
        "hand",
        "table_moved",
        "table_restarted",
        "balance",
        "jackpot",
        "jackpot_won",
        "history",
    }
)


# --- the validator ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FieldSpec:
    name: str
    kind: Kind
    required: bool
    default: Any


def _specs(cls: type[Request]) -> tuple[FieldSpec, ...]:
    """Read each field's rule from its `Annotated` hint; fail at import if one is missing."""
    hints = get_type_hints(cls, include_extras=True)
    specs = []
    for f in fields(cls):
        if f.name == "id":
            continue
        metadata = getattr(hints[f.name], "__metadata__", ())
        if not metadata:
            raise TypeError(f"{cls.__name__}.{f.name} has no wire rule")
        required = f.default is MISSING
        specs.append(FieldSpec(f.name, metadata[0], required, None if required else f.default))
    return tuple(specs)


SCHEMAS: Final[Mapping[str, tuple[FieldSpec, ...]]] = {
    t: _specs(cls) for t, cls in MESSAGE_CLASSES.items()
}
#: The keys a message of each type may carry: its fields, `t` and `id`.
_KEYS: Final[Mapping[str, frozenset[str]]] = {
    t: frozenset(spec.name for spec in specs) | {"t", "id"} for t, specs in SCHEMAS.items()
}


def _fail(code: ErrorCode, field: str | None, message: str) -> ProtocolError:
    return ProtocolError(code, message, field=field)


def request_id_of(frame: Any) -> RequestId | None:
    """The frame's `id` if it is a valid one (what a reply to it echoes), else None."""
    if not isinstance(frame, Mapping):
        return None
    rid = frame.get("id")
    if rid is None or REQUEST_ID.problem(rid) is not None:
        return None
    result: RequestId = rid
    return result


def validate(frame: Mapping[str, Any]) -> ClientMessage:
    """The typed request a decoded frame carries, or a ProtocolError naming the fault.

    nil counts as absent, so an optional field sent as nil takes its default and
    a required one sent as nil is missing. A valid `id` is stored on the error so
    `to_frame()` echoes it.
    """
    if not isinstance(frame, Mapping):
        raise _fail(ErrorCode.BAD_FRAME, None, f"a frame is a map, not {kind_name(frame)}")
    rid = frame.get("id")
    if rid is not None:
        problem = REQUEST_ID.problem(rid)
        if problem is not None:
            raise _fail(ErrorCode.INVALID_FIELD, "id", f"id {problem}")
    try:
        return _validate(frame, rid)
    except ProtocolError as exc:
        exc.request_id = rid
        raise


def _validate(frame: Mapping[str, Any], rid: RequestId | None) -> ClientMessage:
    t = frame.get("t")
    if t is None:
        raise _fail(ErrorCode.MISSING_FIELD, "t", "every message needs `t`, its type")
    if type(t) is not str:
        raise _fail(ErrorCode.INVALID_FIELD, "t", f"t must be a string, not {kind_name(t)}")
    cls = MESSAGE_CLASSES.get(t)
    if cls is None:
        raise _fail(ErrorCode.UNKNOWN_TYPE, "t", f"unknown message type {t[:_SHOW]!r}")
    specs = SCHEMAS[t]
    allowed = _KEYS[t]
    for key in frame:
        if type(key) is not str:
            raise _fail(ErrorCode.BAD_FRAME, None, "a frame's keys are strings")
        if key not in allowed:
            raise _fail(ErrorCode.INVALID_FIELD, key[:_SHOW], f"{t} has no field {key[:_SHOW]!r}")
    values: dict[str, Any] = {}
    for spec in specs:
        value = frame.get(spec.name)
        if value is None:
            if spec.required:
                raise _fail(ErrorCode.MISSING_FIELD, spec.name, f"{t} needs `{spec.name}`")
            values[spec.name] = spec.default
            continue
        problem = spec.kind.problem(value)
        if problem is not None:
            raise _fail(ErrorCode.INVALID_FIELD, spec.name, f"{spec.name} {problem}")
        values[spec.name] = value
    if cls is Hello and values["name"] is None and values["token"] is None:
        raise _fail(ErrorCode.MISSING_FIELD, "name", "hello needs a `name` when it has no `token`")
    return cls(id=rid, **values)


# --- server vocabulary -------------------------------------------------------------------


class Phase(StrEnum):
    """`table.phase`."""

    WAITING = "waiting"
    BETTING = "betting"
    DECIDING = "deciding"
    SHOWDOWN = "showdown"


class Decision(StrEnum):
    """`seat.decision`."""

    RAISE = "raise"
    FOLD = "fold"


class Outcome(StrEnum):
    """`seat.result.outcome`."""

    WIN = "win"
    LOSE = "lose"
    PUSH = "push"
    FOLD = "fold"
    NO_QUALIFY = "no_qualify"


class Action(StrEnum):
    """`table.last.action`: the player request that produced a snapshot."""

    SIT = "sit"
    STAND = "stand"
    ANTE = "ante"
    WITHDRAW = "withdraw"
    DEAL = "deal"
    FOLD = "fold"
    RAISE = "raise"


def ok_frame(request_id: RequestId, **data: Any) -> dict[str, Any]:
    """`ok` for a request that carried `id`; `data` is the reply's payload (e.g. seat=3)."""
    if "t" in data or "id" in data:
        raise ValueError("ok data may not set t or id")
    return {"t": "ok", "id": request_id, **data}


def pong_frame(request_id: RequestId | None, server_time_ms: int) -> dict[str, Any]:
    """`pong`, echoing the ping's id when it had one."""
    frame: dict[str, Any] = {"t": "pong"}
    if request_id is not None:
        frame["id"] = request_id
    frame["server_time_ms"] = server_time_ms
    return frame
