"""The wire protocol: framing bounds, client message schemas, and PROTOCOL.md itself.

The document is normative, so its examples and tables are parsed here and
checked against the code: a schema change that the document does not follow
(or the reverse) fails a test.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import protocol
from protocol import (
    CLIENT_TYPES,
    DEFAULT_LIMITS,
    ERROR_MEANINGS,
    MAX_MONEY,
    PROTOCOL_VERSION,
    SERVER_FRAME_LIMITS,
    SERVER_TYPES,
    SUPPORTED_VERSIONS,
    Ante,
    Balance,
    BuyChips,
    ChangePassword,
    CloseCode,
    Deal,
    ErrorCode,
    Fold,
    Hello,
    History,
    Join,
    Leave,
    Limits,
    Lobby,
    Login,
    Logout,
    Ping,
    ProtocolError,
    Raise,
    Register,
    Request,
    SeatRequest,
    Seed,
    Sit,
    Stand,
    TableRequest,
    Withdraw,
    decode,
    encode,
    negotiate_version,
    ok_frame,
    pong_frame,
    validate,
)
from protocol.messages import MESSAGE_CLASSES, SCHEMAS, OneOf

DOC = (Path(protocol.__file__).parent / "PROTOCOL.md").read_text(encoding="utf-8")
FLAT_DOC = " ".join(DOC.split())  # prose wraps lines anywhere
FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SCHEMA_CODES = {
    ErrorCode.BAD_FRAME,
    ErrorCode.UNKNOWN_TYPE,
    ErrorCode.MISSING_FIELD,
    ErrorCode.INVALID_FIELD,
}


def refused(frame: Any) -> ProtocolError:
    """The ProtocolError validate raises for `frame` (fails the test if it accepts it)."""
    with pytest.raises(ProtocolError) as info:
        validate(frame)
    return info.value


# --- codec --------------------------------------------------------------------------


def test_round_trip_keeps_types() -> None:
    frame = {"t": "x", "n": -5, "big": 2**64 - 1, "s": "Zoë", "b": b"\x00\xff", "l": [1, None]}
    data = encode(frame)
    assert isinstance(data, bytes)
    assert decode(data) == frame
    assert type(decode(data)["b"]) is bytes  # use_bin_type: bytes stay bin, str stays str


def test_encode_accepts_str_and_int_enums() -> None:
    frame = {"t": "error", "code": ErrorCode.SEAT_TAKEN, "close": CloseCode.GOING_AWAY}
    assert decode(encode(frame)) == {"t": "error", "code": "seat_taken", "close": 1001}


def test_decode_accepts_bytearray_and_memoryview() -> None:
    data = encode({"t": "ping"})
    assert decode(bytearray(data)) == {"t": "ping"}
    assert decode(memoryview(data)) == {"t": "ping"}


def test_values_at_the_bounds_decode() -> None:
    lim = DEFAULT_LIMITS
    frame = {
        "t": "x",
        "s": "a" * lim.max_str_len,
        "a": list(range(lim.max_array_len)),
        "m": {str(i): i for i in range(lim.max_map_len)},
    }
    assert decode(encode(frame)) == frame
    full = {str(i): i for i in range(lim.max_map_len)}
    assert decode(encode(full)) == full


def _bad_frames() -> list[tuple[str, bytes | str]]:
    lim = DEFAULT_LIMITS
    return [
        ("long str", encode({"s": "a" * (lim.max_str_len + 1)})),
        ("long bin", encode({"b": b"a" * (lim.max_bin_len + 1)})),
        ("long array", encode({"a": [0] * (lim.max_array_len + 1)})),
        ("big map", encode({str(i): i for i in range(lim.max_map_len + 1)})),
        ("big nested map", encode({"m": {str(i): i for i in range(lim.max_map_len + 1)}})),
        ("ext", encode({"e": msgpack.ExtType(5, b"abc")})),
        ("empty ext", encode({"e": msgpack.ExtType(5, b"")})),
        ("timestamp", encode({"e": msgpack.Timestamp(1, 0)})),
        ("trailing bytes", encode({"t": "ping"}) + b"\x00"),
        ("two maps", encode({"t": "ping"}) * 2),
        ("array top", msgpack.packb(["t", "ping"])),
        ("int top", msgpack.packb(7)),
        ("str top", msgpack.packb("ping")),
        ("nil top", msgpack.packb(None)),
        ("int key", msgpack.packb({1: "a"})),
        ("bin key at top", msgpack.packb({b"t": "ping"})),
        ("float key", msgpack.packb({1.5: 1})),
        ("garbage", b"\xc1"),
        ("empty", b""),
        ("truncated", encode({"t": "ping"})[:-1]),
        ("bad utf-8", b"\x81\xa1t\xa2\xff\xfe"),
        ("deep nesting", b"\x81\xa1t" + b"\x91" * 5000 + b"\xc0"),
        ("repeated key", b"\x82\xa1t\xa4ping\xa1t\xa4ping"),
        ("repeated key, map16", b"\xde\x00\x02\xa1t\xa4ping\xa1t\xa4ping"),
        ("oversized frame", encode({"s": "a" * 4000, "z": "b" * 4000, "y": "c" * 400})),
        ("text frame", '{"t": "ping"}'),
    ]


@pytest.mark.parametrize(("case", "data"), _bad_frames(), ids=[c for c, _ in _bad_frames()])
def test_bad_frames_are_bad_frame(case: str, data: bytes | str) -> None:
    with pytest.raises(ProtocolError) as info:
        decode(data)
    assert info.value.code is ErrorCode.BAD_FRAME
    # in the protocol's words: nothing of the decoder's own names or settings
    message = info.value.message
    assert message and not re.search(r"strict_|max_\w+_len|Error\b|Unpack|codec", message), message


def test_text_frame_message_says_binary() -> None:
    with pytest.raises(ProtocolError, match="binary"):
        decode('{"t": "ping"}')


def test_nested_bin_keys_are_allowed() -> None:
    assert decode(encode({"m": {b"k": 1}})) == {"m": {b"k": 1}}


def test_limits_are_configurable() -> None:
    tight = Limits(max_frame_bytes=64, max_str_len=3, max_array_len=2, max_map_len=2)
    assert decode(encode({"a": "abc", "b": [1, 2]}), tight) == {"a": "abc", "b": [1, 2]}
    for frame in ({"a": "abcd"}, {"a": [1, 2, 3]}, {"a": 1, "b": 2, "c": 3}):
        with pytest.raises(ProtocolError):
            decode(encode(frame), tight)
    with pytest.raises(ProtocolError, match="over the limit"):
        decode(encode({"a": "x" * 20}), Limits(max_frame_bytes=10))


def test_server_frame_limits_fit_a_big_lobby() -> None:
    lobby = {"t": "lobby", "tables": [{"id": f"t{i}", "seats": 9} for i in range(500)]}
    with pytest.raises(ProtocolError):
        decode(encode(lobby))
    assert decode(encode(lobby), SERVER_FRAME_LIMITS) == lobby


def test_version_negotiation() -> None:
    assert PROTOCOL_VERSION in SUPPORTED_VERSIONS
    assert negotiate_version(PROTOCOL_VERSION) == PROTOCOL_VERSION
    assert negotiate_version(PROTOCOL_VERSION + 5) == max(SUPPORTED_VERSIONS)
    assert negotiate_version(min(SUPPORTED_VERSIONS) - 1) is None


@FUZZ
@given(st.binary(max_size=300))
def test_decode_arbitrary_bytes_only_raises_bad_frame(data: bytes) -> None:
    try:
        result = decode(data)
    except ProtocolError as exc:
        assert exc.code is ErrorCode.BAD_FRAME
    else:
        assert isinstance(result, dict)
        assert all(isinstance(k, str) for k in result)


_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
    | st.binary(max_size=12)
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=6)
        | st.dictionaries(st.text(max_size=4) | st.binary(max_size=4), inner, max_size=6)
    ),
    max_leaves=30,
)
_SMALL = Limits(max_frame_bytes=200, max_str_len=8, max_bin_len=8, max_array_len=4, max_map_len=4)


def _fits(value: Any, lim: Limits) -> bool:
    """Independent oracle: does `value` respect every bound of `lim` (bar frame size)?"""
    if isinstance(value, str):
        return len(value.encode()) <= lim.max_str_len
    if isinstance(value, bytes):
        return len(value) <= lim.max_bin_len
    if isinstance(value, list):
        return len(value) <= lim.max_array_len and all(_fits(v, lim) for v in value)
    if isinstance(value, dict):
        return len(value) <= lim.max_map_len and all(
            _fits(k, lim) and _fits(v, lim) for k, v in value.items()
        )
    return True


@FUZZ
@given(_values)
def test_decode_accepts_exactly_the_frames_within_bounds(value: Any) -> None:
    frame = value if isinstance(value, dict) else {"v": value}
    data = encode(frame)
    expected_ok = (
        all(isinstance(k, str) for k in frame)
        and _fits(frame, _SMALL)
        and len(data) <= _SMALL.max_frame_bytes
    )
    try:
        result = decode(data, _SMALL)
    except ProtocolError as exc:
        assert exc.code is ErrorCode.BAD_FRAME
        assert not expected_ok, exc.message
    else:
        assert expected_ok
        assert result == frame


@FUZZ
@given(_values, st.data())
def test_decode_corrupted_frames_only_raises_bad_frame(value: Any, data: st.DataObject) -> None:
    raw = bytearray(encode({"t": "ante", "v": value}))
    for _ in range(data.draw(st.integers(0, 4))):
        pos = data.draw(st.integers(0, len(raw) - 1))
        raw[pos] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(raw)))
    try:
        decode(bytes(raw[:cut]) + data.draw(st.binary(max_size=4)))
    except ProtocolError as exc:
        assert exc.code is ErrorCode.BAD_FRAME


# --- errors ------------------------------------------------------------------------------


def test_error_frame_shape() -> None:
    err = ProtocolError(
        ErrorCode.INSUFFICIENT_FUNDS, "short", details={"needed": 1600, "available": 1200}
    )
    assert err.to_frame(9) == {
        "t": "error",
        "id": 9,
        "code": "insufficient_funds",
        "message": "short",
        "needed": 1600,
        "available": 1200,
    }
    assert "id" not in err.to_frame()
    assert decode(encode(err.to_frame("r1")))["id"] == "r1"
    assert str(err) == "short"


def test_error_frame_carries_field() -> None:
    frame = ProtocolError(ErrorCode.INVALID_FIELD, "bad", field="seat").to_frame()
    assert frame["field"] == "seat"
    assert "field" not in ProtocolError(ErrorCode.WRONG_PHASE, "later").to_frame()


def test_details_may_not_shadow_the_frame() -> None:
    with pytest.raises(ValueError):
        ProtocolError(ErrorCode.INTERNAL_ERROR, "x", details={"code": "other"})


def test_every_code_has_a_meaning() -> None:
    assert set(ERROR_MEANINGS) == set(ErrorCode)
    for code in ErrorCode:
        assert code.meaning.strip()
        assert code.value == code.name.lower()


def test_close_codes() -> None:
    assert {c.name: c.value for c in CloseCode} == {
        "NORMAL": 1000,
        "GOING_AWAY": 1001,
        "PROTOCOL_ERROR": 1002,
        "UNSUPPORTED_DATA": 1003,
        "POLICY_VIOLATION": 1008,
        "MESSAGE_TOO_BIG": 1009,
        "INTERNAL_ERROR": 1011,
    }


def test_builders() -> None:
    assert ok_frame(4, seat=2) == {"t": "ok", "id": 4, "seat": 2}
    assert pong_frame(None, 5) == {"t": "pong", "server_time_ms": 5}
    assert pong_frame("p", 5) == {"t": "pong", "id": "p", "server_time_ms": 5}
    with pytest.raises(ValueError):
        ok_frame(1, t="error")


# --- messages: valid ---------------------------------------------------------------------

VALID: list[tuple[dict[str, Any], Request]] = [
    ({"t": "hello", "v": 1, "name": "Ann"}, Hello(v=1, name="Ann")),
    ({"t": "hello", "v": 1, "token": "abc.DEF-123_~"}, Hello(v=1, token="abc.DEF-123_~")),
    (
        {"t": "hello", "v": 2, "name": "Zoë 3", "token": "t", "id": 1},
        Hello(id=1, v=2, name="Zoë 3", token="t"),
    ),
    ({"t": "ping"}, Ping()),
    ({"t": "ping", "id": "p-1"}, Ping(id="p-1")),
    ({"t": "lobby"}, Lobby(watch=True)),
    ({"t": "lobby", "watch": False, "id": 0}, Lobby(id=0, watch=False)),
    ({"t": "join", "table": "stud-1"}, Join(table="stud-1")),
    ({"t": "leave", "table": "a_b-9"}, Leave(table="a_b-9")),
    ({"t": "sit", "table": "t"}, Sit(table="t", seat=None)),
    ({"t": "sit", "table": "t", "seat": None}, Sit(table="t", seat=None)),
    ({"t": "sit", "table": "t", "seat": 8}, Sit(table="t", seat=8)),
    ({"t": "stand", "table": "t", "seat": 0}, Stand(table="t", seat=0)),
    (
        {"t": "ante", "table": "t", "seat": 3, "amount": 500},
        Ante(table="t", seat=3, amount=500, progressive=False),
    ),
    (
        {
            "t": "ante",
            "table": "t",
            "seat": 3,
            "amount": MAX_MONEY,
            "progressive": True,
            "id": 2**53,
        },
        Ante(id=2**53, table="t", seat=3, amount=MAX_MONEY, progressive=True),
    ),
    ({"t": "withdraw", "table": "t", "seat": 1}, Withdraw(table="t", seat=1)),
    ({"t": "deal", "table": "t"}, Deal(table="t")),
    ({"t": "fold", "table": "t", "seat": 2}, Fold(table="t", seat=2)),
    (
        {"t": "raise", "table": "t", "seat": 2, "id": "x" * 64},
        Raise(id="x" * 64, table="t", seat=2),
    ),
    ({"t": "buy_chips", "amount": 1}, BuyChips(amount=1)),
    ({"t": "balance"}, Balance()),
    ({"t": "seed", "table": "t", "client_seed": "lucky-7"}, Seed(table="t", client_seed="lucky-7")),
    ({"t": "seed", "table": "t", "client_seed": ""}, Seed(table="t", client_seed="")),
    ({"t": "history"}, History()),
    ({"t": "history", "limit": 5}, History(limit=5)),
    (
        {"t": "register", "username": "Ann_99", "password": "x"},
        Register(username="Ann_99", password="x"),
    ),
    ({"t": "login", "username": "abc", "password": ""}, Login(username="abc", password="")),
    ({"t": "logout", "id": 3}, Logout(id=3)),
    (
        {"t": "change_password", "old": "a" * 200, "new": "b"},
        ChangePassword(old="a" * 200, new="b"),
    ),
]


@pytest.mark.parametrize(("frame", "expected"), VALID)
def test_valid_frames(frame: dict[str, Any], expected: Request) -> None:
    msg = validate(frame)
    assert msg == expected
    assert type(msg) is type(expected)
    assert frame["t"] == msg.TYPE
    # the same frame after a trip through msgpack is still valid
    assert validate(decode(encode(frame))) == expected


def test_every_type_is_covered_by_a_valid_example() -> None:
    assert {frame["t"] for frame, _ in VALID} == CLIENT_TYPES == set(MESSAGE_CLASSES)


def test_request_hierarchy_routes_by_table_and_seat() -> None:
    table_only: tuple[type[Request], ...] = (Join, Leave, Sit, Deal)
    for cls in table_only:
        assert issubclass(cls, TableRequest) and not issubclass(cls, SeatRequest)
    seat: tuple[type[Request], ...] = (Stand, Ante, Withdraw, Fold, Raise)
    for cls in seat:
        assert issubclass(cls, SeatRequest)
    other: tuple[type[Request], ...] = (Hello, Ping, Lobby, BuyChips, Balance)
    for cls in other:
        assert not issubclass(cls, TableRequest)


def test_messages_are_frozen() -> None:
    msg = Ante(table="t", seat=1, amount=5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        msg.amount = 6  # type: ignore[misc]


# --- messages: refused -------------------------------------------------------------------

ANTE = {"t": "ante", "table": "t", "seat": 1, "amount": 500}
MISSING, INVALID, UNKNOWN = ErrorCode.MISSING_FIELD, ErrorCode.INVALID_FIELD, ErrorCode.UNKNOWN_TYPE

REFUSED: list[tuple[str, dict[str, Any], ErrorCode, str]] = [
    # t
    ("no t", {"table": "t"}, MISSING, "t"),
    ("nil t", {"t": None}, MISSING, "t"),
    ("int t", {"t": 3}, INVALID, "t"),
    ("bin t", {"t": b"ping"}, INVALID, "t"),
    ("unknown t", {"t": "steal"}, UNKNOWN, "t"),
    ("server type", {"t": "welcome"}, UNKNOWN, "t"),
    ("case of t", {"t": "PING"}, UNKNOWN, "t"),
    # unknown fields
    ("extra field", {"t": "ping", "x": 1}, INVALID, "x"),
    ("extra nil field", {"t": "balance", "x": None}, INVALID, "x"),
    ("seat on deal", {"t": "deal", "table": "t", "seat": 1}, INVALID, "seat"),
    ("amount on raise", {"t": "raise", "table": "t", "seat": 1, "amount": 1000}, INVALID, "amount"),
    # hello
    ("hello without v", {"t": "hello", "name": "Ann"}, MISSING, "v"),
    ("hello v str", {"t": "hello", "v": "1", "name": "Ann"}, INVALID, "v"),
    ("hello v bool", {"t": "hello", "v": True, "name": "Ann"}, INVALID, "v"),
    ("hello v float", {"t": "hello", "v": 1.0, "name": "Ann"}, INVALID, "v"),
    ("hello v negative", {"t": "hello", "v": -1, "name": "Ann"}, INVALID, "v"),
    ("hello v huge", {"t": "hello", "v": 2**31, "name": "Ann"}, INVALID, "v"),
    ("hello no name no token", {"t": "hello", "v": 1}, MISSING, "name"),
    (
        "hello nil name and token",
        {"t": "hello", "v": 1, "name": None, "token": None},
        MISSING,
        "name",
    ),
    ("name empty", {"t": "hello", "v": 1, "name": ""}, INVALID, "name"),
    ("name too long", {"t": "hello", "v": 1, "name": "a" * 25}, INVALID, "name"),
    ("name control", {"t": "hello", "v": 1, "name": "A\x00n"}, INVALID, "name"),
    ("name newline", {"t": "hello", "v": 1, "name": "Ann\n"}, INVALID, "name"),
    ("name format char", {"t": "hello", "v": 1, "name": "A\u200dn"}, INVALID, "name"),
    ("name blank", {"t": "hello", "v": 1, "name": "   "}, INVALID, "name"),
    ("name leading space", {"t": "hello", "v": 1, "name": " Ann"}, INVALID, "name"),
    ("name bytes", {"t": "hello", "v": 1, "name": b"Ann"}, INVALID, "name"),
    ("token space", {"t": "hello", "v": 1, "token": "a b"}, INVALID, "token"),
    ("token non-ascii", {"t": "hello", "v": 1, "token": "abé"}, INVALID, "token"),
    ("token too long", {"t": "hello", "v": 1, "token": "a" * 129}, INVALID, "token"),
    ("token int", {"t": "hello", "v": 1, "token": 5}, INVALID, "token"),
    # lobby
    ("watch int", {"t": "lobby", "watch": 1}, INVALID, "watch"),
    ("watch str", {"t": "lobby", "watch": "true"}, INVALID, "watch"),
    # table ids
    ("no table", {"t": "join"}, MISSING, "table"),
    ("table empty", {"t": "join", "table": ""}, INVALID, "table"),
    ("table upper", {"t": "join", "table": "Stud"}, INVALID, "table"),
    ("table space", {"t": "leave", "table": "a b"}, INVALID, "table"),
    ("table dot", {"t": "leave", "table": "a.b"}, INVALID, "table"),
    ("table newline", {"t": "leave", "table": "ab\n"}, INVALID, "table"),
    ("table too long", {"t": "join", "table": "a" * 33}, INVALID, "table"),
    ("table int", {"t": "deal", "table": 1}, INVALID, "table"),
    ("table list", {"t": "deal", "table": ["t"]}, INVALID, "table"),
    # seats
    ("sit seat 9", {"t": "sit", "table": "t", "seat": 9}, INVALID, "seat"),
    ("sit seat -1", {"t": "sit", "table": "t", "seat": -1}, INVALID, "seat"),
    ("sit seat bool", {"t": "sit", "table": "t", "seat": False}, INVALID, "seat"),
    ("sit seat str", {"t": "sit", "table": "t", "seat": "1"}, INVALID, "seat"),
    ("stand no seat", {"t": "stand", "table": "t"}, MISSING, "seat"),
    ("stand nil seat", {"t": "stand", "table": "t", "seat": None}, MISSING, "seat"),
    ("fold seat float", {"t": "fold", "table": "t", "seat": 1.0}, INVALID, "seat"),
    ("raise seat bool", {"t": "raise", "table": "t", "seat": True}, INVALID, "seat"),
    ("withdraw seat 2**64", {"t": "withdraw", "table": "t", "seat": 2**64 - 1}, INVALID, "seat"),
    # money
    ("ante no amount", {**ANTE, "amount": None}, MISSING, "amount"),
    ("ante zero", {**ANTE, "amount": 0}, INVALID, "amount"),
    ("ante negative", {**ANTE, "amount": -500}, INVALID, "amount"),
    ("ante over max", {**ANTE, "amount": MAX_MONEY + 1}, INVALID, "amount"),
    ("ante float", {**ANTE, "amount": 500.0}, INVALID, "amount"),
    ("ante fraction", {**ANTE, "amount": 5.5}, INVALID, "amount"),
    ("ante bool", {**ANTE, "amount": True}, INVALID, "amount"),
    ("ante str", {**ANTE, "amount": "500"}, INVALID, "amount"),
    ("ante progressive int", {**ANTE, "progressive": 1}, INVALID, "progressive"),
    ("ante progressive str", {**ANTE, "progressive": "yes"}, INVALID, "progressive"),
    ("ante no seat", {"t": "ante", "table": "t", "amount": 500}, MISSING, "seat"),
    ("ante no table", {"t": "ante", "seat": 1, "amount": 500}, MISSING, "table"),
    ("buy float", {"t": "buy_chips", "amount": 100.0}, INVALID, "amount"),
    ("buy bool", {"t": "buy_chips", "amount": True}, INVALID, "amount"),
    ("buy zero", {"t": "buy_chips", "amount": 0}, INVALID, "amount"),
    ("buy none", {"t": "buy_chips"}, MISSING, "amount"),
    # accounts
    ("username short", {"t": "login", "username": "ab", "password": "p"}, INVALID, "username"),
    (
        "username long",
        {"t": "register", "username": "a" * 25, "password": "p"},
        INVALID,
        "username",
    ),
    ("username dash", {"t": "login", "username": "ann-1", "password": "p"}, INVALID, "username"),
    ("username accent", {"t": "login", "username": "zoë", "password": "p"}, INVALID, "username"),
    (
        "username space",
        {"t": "register", "username": "ann 1", "password": "p"},
        INVALID,
        "username",
    ),
    ("no password", {"t": "login", "username": "ann"}, MISSING, "password"),
    (
        "password int",
        {"t": "login", "username": "ann", "password": 1234567890},
        INVALID,
        "password",
    ),
    (
        "password bin",
        {"t": "register", "username": "ann", "password": b"x" * 12},
        INVALID,
        "password",
    ),
    ("no old", {"t": "change_password", "new": "x" * 12}, MISSING, "old"),
    ("new list", {"t": "change_password", "old": "x", "new": ["x"]}, INVALID, "new"),
    # id
    ("id negative", {"t": "ping", "id": -1}, INVALID, "id"),
    ("id too big", {"t": "ping", "id": 2**53 + 1}, INVALID, "id"),
    ("id bool", {"t": "ping", "id": True}, INVALID, "id"),
    ("id float", {"t": "ping", "id": 1.0}, INVALID, "id"),
    ("id empty str", {"t": "ping", "id": ""}, INVALID, "id"),
    ("id long str", {"t": "ping", "id": "x" * 65}, INVALID, "id"),
    ("id list", {"t": "ping", "id": [1]}, INVALID, "id"),
    ("id bin", {"t": "ping", "id": b"1"}, INVALID, "id"),
]


@pytest.mark.parametrize(
    ("case", "frame", "code", "field"), REFUSED, ids=[case for case, *_ in REFUSED]
)
def test_refused_frames(case: str, frame: dict[str, Any], code: ErrorCode, field: str) -> None:
    err = refused(frame)
    assert (err.code, err.field) == (code, field), err.message
    assert err.message
    out = err.to_frame()
    assert out["code"] == code.value and out["field"] == field


def test_messages_say_what_is_wrong() -> None:
    assert "float" in refused({**ANTE, "amount": 500.0}).message
    assert "bool" in refused({**ANTE, "seat": True}).message
    assert "1 to 1000000000000" in refused({**ANTE, "amount": 0}).message
    # the unit reads as English on both sides of the range
    assert refused({**ANTE, "amount": 0}).message.endswith("1 to 1000000000000 cents, got 0")
    assert "an integer number of cents, not float" in refused({**ANTE, "amount": 5.5}).message
    assert "'x'" in refused({"t": "ping", "x": 1}).message
    assert "steal" in refused({"t": "steal"}).message
    # a trailing no-break space is said to be whitespace, not a control character
    hello = {"t": "hello", "v": 1}
    assert "whitespace" in refused({**hello, "name": "ab\u00a0"}).message
    assert "control" in refused({**hello, "name": "a\x07b"}).message
    assert "A-Z" in refused({"t": "login", "username": "a b", "password": "x" * 10}).message


def test_no_refusal_repeats_a_password() -> None:
    secret = "hunter2-but-longer"
    frames: list[dict[str, Any]] = [
        {"t": "login", "username": "a b", "password": secret},
        {"t": "register", "username": "ann", "password": secret, "extra": 1},
        {"t": "change_password", "old": secret, "new": 5},
        {"t": "change_password", "old": secret},
    ]
    for frame in frames:
        error = refused(frame)
        assert secret not in repr(error.to_frame())
    assert secret not in repr(Login(username="ann", password=secret))


def test_error_echoes_a_valid_id() -> None:
    err = refused({"t": "ante", "id": 41, "table": "t", "seat": 1})
    assert err.to_frame() == {
        "t": "error",
        "id": 41,
        "code": "missing_field",
        "message": err.message,
        "field": "amount",
    }
    assert refused({"t": "nope", "id": "abc"}).to_frame()["id"] == "abc"
    assert refused({"t": "nope", "id": "abc"}).to_frame(7)["id"] == 7


def test_error_never_echoes_an_invalid_id() -> None:
    err = refused({"t": "ping", "id": 1.5})
    assert "id" not in err.to_frame()


def test_first_unknown_field_in_frame_order_is_named() -> None:
    assert refused({"t": "ping", "b": 1, "a": 2}).field == "b"
    assert refused({"t": "ping", "a": 2, "b": 1}).field == "a"


def test_non_str_keys_and_non_maps_are_bad_frames() -> None:
    assert refused({"t": "ping", 1: 2}).code is ErrorCode.BAD_FRAME
    assert refused(["t", "ping"]).code is ErrorCode.BAD_FRAME


def test_one_of_kind() -> None:
    kind = OneOf(("red", "black"))
    assert kind.problem("red") is None
    assert kind.problem("blue") is not None and "red, black" in str(kind.problem("blue"))
    assert kind.problem(1) is not None


def test_every_field_has_a_rule_and_unknown_fields_per_type() -> None:
    for t, specs in SCHEMAS.items():
        names = {spec.name for spec in specs}
        assert names == {f.name for f in dataclasses.fields(MESSAGE_CLASSES[t])} - {"id"}
        assert refused({"t": t, "zzz": 1}).field == "zzz"


@FUZZ
@given(
    st.dictionaries(
        st.sampled_from(
            ["t", "id", "table", "seat", "amount", "progressive", "v", "name", "token", "watch"]
        )
        | st.text(max_size=3),
        _values,
        max_size=6,
    ),
    st.sampled_from(sorted(CLIENT_TYPES)) | _values,
)
def test_validate_only_raises_protocol_errors(body: dict[str, Any], t: Any) -> None:
    frame = {**body, "t": t}
    try:
        msg = validate(frame)
    except ProtocolError as exc:
        assert exc.code in SCHEMA_CODES
        assert exc.message
    else:
        assert t == msg.TYPE
        for f in dataclasses.fields(msg):
            value = getattr(msg, f.name)
            assert not isinstance(value, float | list | dict | bytes)
            if frame.get(f.name) is not None:
                assert value == frame[f.name] and type(value) is type(frame[f.name])


@FUZZ
@given(
    st.integers(0, 8),
    st.integers(1, MAX_MONEY),
    st.booleans(),
    st.from_regex(r"[a-z0-9_-]{1,32}", fullmatch=True),
)
def test_any_in_range_ante_is_accepted(seat: int, amount: int, prog: bool, table: str) -> None:
    frame = {"t": "ante", "table": table, "seat": seat, "amount": amount, "progressive": prog}
    assert validate(frame) == Ante(table=table, seat=seat, amount=amount, progressive=prog)


# --- PROTOCOL.md --------------------------------------------------------------------------


def _examples(direction: str) -> list[Any]:
    blocks = re.findall(rf"^```json {direction}\n(.*?)^```$", DOC, flags=re.M | re.S)
    return [json.loads(block) for block in blocks]


def _walk(value: Any) -> list[Any]:
    out = [value]
    if isinstance(value, list):
        for item in value:
            out += _walk(item)
    elif isinstance(value, dict):
        for item in value.values():
            out += _walk(item)
    return out


def test_doc_client_examples_validate() -> None:
    examples = _examples("client")
    assert {ex["t"] for ex in examples} == CLIENT_TYPES
    for ex in examples:
        msg = validate(decode(encode(ex)))
        assert ex["t"] == msg.TYPE


def test_doc_server_examples_are_well_formed() -> None:
    examples = _examples("server")
    assert {ex["t"] for ex in examples} == SERVER_TYPES
    for ex in examples:
        assert decode(encode(ex), SERVER_FRAME_LIMITS) == ex
        assert not any(isinstance(v, float) for v in _walk(ex)), ex["t"]


def test_doc_error_table_matches_codes() -> None:
    rows = dict(re.findall(r"^\| `([a-z_]+)` \| (.+) \|$", DOC, flags=re.M))
    documented = {code: rows[code] for code in rows if code in {c.value for c in ErrorCode}}
    assert documented == {code.value: code.meaning for code in ErrorCode}


def test_doc_close_code_table_matches() -> None:
    for code in CloseCode:
        assert re.search(rf"^\| {code.value} \| {code.name} \| .+ \|$", DOC, flags=re.M), code


def test_doc_states_the_default_limits() -> None:
    lim = DEFAULT_LIMITS
    assert f"`max_frame_bytes`: {lim.max_frame_bytes} " in FLAT_DOC
    assert f"strings ≤ {lim.max_str_len} bytes" in FLAT_DOC
    assert f"bin ≤ {lim.max_bin_len} bytes" in FLAT_DOC
    assert f"arrays ≤ {lim.max_array_len} items" in FLAT_DOC
    assert f"maps ≤ {lim.max_map_len} entries" in FLAT_DOC
    assert f"# casino-stud wire protocol — version {PROTOCOL_VERSION}" in DOC


def _client_section(t: str) -> str:
    """The prose of §4's entry for `t`, up to its first example."""
    start = DOC.index(f"\n### {t}\n", DOC.index("## 4. Client messages"))
    return DOC[start : DOC.index("```", start)]


@pytest.mark.parametrize("t", sorted(CLIENT_TYPES))
def test_doc_lists_each_client_field_in_schema_order(t: str) -> None:
    documented = re.findall(r"`([a-z_]+)(\?)?`: (?:int|str|bool)\b", _client_section(t))
    expected = [(spec.name, "" if spec.required else "?") for spec in SCHEMAS[t]]
    assert documented == expected
