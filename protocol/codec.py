"""msgpack framing: one map per binary WebSocket frame.

`decode` is the first thing untrusted bytes meet, so it is bounded (every
length msgpack could allocate for is capped, ext types are refused) and total:
whatever the input, it returns a dict or raises `ProtocolError(bad_frame)`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, NoReturn

import msgpack

from protocol.errors import ErrorCode, ProtocolError

#: The version this code speaks; `hello.v` and `welcome.v` carry it.
PROTOCOL_VERSION: Final = 1
SUPPORTED_VERSIONS: Final[frozenset[int]] = frozenset({PROTOCOL_VERSION})


def negotiate_version(client_version: int) -> int | None:
    """The highest supported version <= the client's, or None (-> unsupported_version).

    The client sends the highest version it speaks, so a newer client still
    talks to an older server as long as they share a version.
    """
    usable = [v for v in SUPPORTED_VERSIONS if v <= client_version]
    return max(usable) if usable else None


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds applied while decoding; the defaults fit every client->server message.

    Client frames are small flat maps, so the defaults are tight. A client that
    decodes server frames (lobby, table snapshots) uses `SERVER_FRAME_LIMITS`.
    """

    max_frame_bytes: int = 8192
    max_str_len: int = 4096
    max_bin_len: int = 4096
    max_array_len: int = 64
    max_map_len: int = 32
    max_ext_len: int = 0


#: Limits for frames a client receives from the server (bigger, nested, trusted more).
SERVER_FRAME_LIMITS: Final = Limits(
    max_frame_bytes=1 << 20,
    max_str_len=1 << 16,
    max_bin_len=1 << 16,
    max_array_len=1 << 12,
    max_map_len=1 << 12,
)
DEFAULT_LIMITS: Final = Limits()

_MAX_DETAIL: Final = 160


def encode(message: Mapping[str, Any]) -> bytes:
    """One frame's bytes. `packb` builds a fresh packer per call: safe across tasks."""
    data: bytes = msgpack.packb(message, use_bin_type=True, datetime=False)
    return data


def _reject_ext(code: int, data: bytes) -> NoReturn:
    raise ValueError(f"msgpack ext type {code} is not accepted")


def _why(exc: Exception, limits: Limits) -> str:
    """What was wrong with the frame, in the protocol's words, not the library's."""
    text = str(exc)
    if isinstance(exc, UnicodeDecodeError):
        return "a string is not valid UTF-8"
    if "map key" in text:
        return "a map's keys must be strings"
    if "incomplete input" in text:
        return "it ends before its msgpack value does"
    if "max_ext_len" in text or "ext type" in text:
        return "msgpack ext types are not accepted"
    for name, what in (("max_str_len", "a string"), ("max_bin_len", "a binary value")):
        if name in text:
            return f"{what} is over the limit of {getattr(limits, name)} bytes"
    for name, what in (("max_array_len", "an array"), ("max_map_len", "a map")):
        if name in text:
            return f"{what} is over the limit of {getattr(limits, name)} items"
    if type(exc).__name__ == "StackError":
        return "it is nested too deep"
    if type(exc).__name__ == "FormatError":
        return "it holds a byte that starts no msgpack value"
    return text[:_MAX_DETAIL] or type(exc).__name__


def _bad(message: str) -> ProtocolError:
    return ProtocolError(ErrorCode.BAD_FRAME, message)


def decode(
    data: bytes | bytearray | memoryview | str, limits: Limits = DEFAULT_LIMITS
) -> dict[str, Any]:
    """The frame's map, or `ProtocolError(bad_frame)`; never any other exception.

    `str` is accepted only to be refused with a clear message, because a text
    WebSocket frame arrives as `str`.
    """
    if isinstance(data, str):
        raise _bad("text frames are not accepted: send msgpack in a binary frame")
    if not isinstance(data, bytes | bytearray | memoryview):
        raise _bad(f"a frame is bytes, not {type(data).__name__}")
    size = data.nbytes if isinstance(data, memoryview) else len(data)
    if size > limits.max_frame_bytes:
        raise _bad(f"frame of {size} bytes is over the limit of {limits.max_frame_bytes}")
    try:
        value = msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            use_list=True,
            timestamp=0,
            ext_hook=_reject_ext,
            max_str_len=limits.max_str_len,
            max_bin_len=limits.max_bin_len,
            max_array_len=limits.max_array_len,
            max_map_len=limits.max_map_len,
            max_ext_len=limits.max_ext_len,
        )
    except msgpack.ExtraData:
        raise _bad("trailing bytes after the msgpack map") from None
    except Exception as exc:  # msgpack's C and pure-Python builds raise
        # different types (ValueError, FormatError, StackError, UnicodeDecodeError,
        # TypeError...); all of them mean one thing to a client: a bad frame.
        raise _bad(f"not a valid msgpack frame: {_why(exc, limits)}") from None
    if not isinstance(value, dict):
        raise _bad(f"a frame is a msgpack map, not {kind_name(value)}")
    if len(value) != _map_size(data):  # msgpack keeps the last of a repeated key
        raise _bad("a key appears twice in the frame's map")
    for key in value:
        if type(key) is not str:  # msgpack gives str or bytes keys, never a subclass
            raise _bad("a frame's keys are strings")
    return value


def _map_size(data: bytes | bytearray | memoryview) -> int:
    """The entry count a frame's map header declares (the frame decoded as a map)."""
    first = data[0]
    if first == 0xDE:
        return int.from_bytes(data[1:3], "big")
    if first == 0xDF:
        return int.from_bytes(data[1:5], "big")
    return first & 0x0F  # fixmap


def kind_name(value: object) -> str:
    """The msgpack name of a decoded value (nil, int, str, ...), for error messages."""
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, bytes):
        return "bin"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "map"
    return type(value).__name__
