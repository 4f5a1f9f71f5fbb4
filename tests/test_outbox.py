"""The outbox gathers a connection's frames of one event-loop turn into one write."""

from __future__ import annotations

import asyncio
from typing import Any

import msgpack
from websockets.protocol import OPEN, State

from server.metrics import Metrics
from server.outbox import Outbox, binary_frame


class FakeTransport:
    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closing = False

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))

    def get_write_buffer_size(self) -> int:
        return 0

    def is_closing(self) -> bool:
        return self.closing


class FakeProtocol:
    extensions: tuple[Any, ...] = ()

    def __init__(self) -> None:
        self.state: State = OPEN


class FakeConnection:
    def __init__(self) -> None:
        self.protocol = FakeProtocol()
        self.transport = FakeTransport()


def frames(*messages: dict[str, Any]) -> bytes:
    return b"".join(binary_frame(msgpack.packb(m)) for m in messages)


async def test_one_write_per_connection_per_turn_in_order() -> None:
    metrics = Metrics()
    outbox = Outbox(1 << 20, metrics)
    a, b = FakeConnection(), FakeConnection()
    one, two, three = ({"t": "ok", "n": i} for i in range(3))
    outbox.send(a, msgpack.packb(one))  # type: ignore[arg-type]
    outbox.send_all([a, b], msgpack.packb(two))  # type: ignore[list-item]
    outbox.send(a, msgpack.packb(three))  # type: ignore[arg-type]
    assert a.transport.writes == [] and b.transport.writes == []  # not before the turn ends
    await asyncio.sleep(0)
    assert a.transport.writes == [frames(one, two, three)]
    assert b.transport.writes == [frames(two)]
    assert metrics.writes == 2
    outbox.send(a, msgpack.packb(one))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    assert a.transport.writes[1:] == [frames(one)]  # a later turn: a write of its own


async def test_a_sender_before_writing_joins_the_replies_of_its_turn() -> None:
    """A table's snapshot, built at the end of the turn, goes out in the same write as
    the reply gathered before it, even when another connection gathered first (with a
    `call_soon` of its own, the snapshot ran after that write out and cost another)."""
    metrics = Metrics()
    outbox = Outbox(1 << 20, metrics)
    other, player = FakeConnection(), FakeConnection()
    earlier, reply, table = {"t": "ok", "n": 0}, {"t": "ok", "n": 1}, {"t": "table", "seq": 7}
    outbox.send(other, msgpack.packb(earlier))  # type: ignore[arg-type]
    sent: list[str] = []

    def snapshot() -> None:
        sent.append("snapshot")
        outbox.send_all([player, other], msgpack.packb(table))  # type: ignore[list-item]
        outbox.before_writing(lambda: sent.append("registered by a sender"))

    def broken() -> None:
        raise RuntimeError("a bug in one sender")

    loop = asyncio.get_running_loop()
    errors: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: errors.append(context))
    try:
        outbox.before_writing(broken)
        outbox.before_writing(snapshot)
        outbox.send(player, msgpack.packb(reply))  # type: ignore[arg-type]
        assert sent == [] and player.transport.writes == []
        await asyncio.sleep(0)
    finally:
        loop.set_exception_handler(None)
    assert sent == ["snapshot", "registered by a sender"]
    assert player.transport.writes == [frames(reply, table)]
    assert other.transport.writes == [frames(earlier, table)]
    assert metrics.writes == 2
    assert [type(e["exception"]) for e in errors] == [RuntimeError]


async def test_what_was_gathered_goes_before_the_librarys_own_frames() -> None:
    """A close (or pong) the library writes must not overtake the frames sent before it."""
    outbox = Outbox(1 << 20, Metrics())
    a = FakeConnection()
    error = {"t": "error", "code": "bad_request"}
    outbox.send(a, msgpack.packb(error))  # type: ignore[arg-type]
    a.protocol.state = State.CLOSING  # the library's close: state first, then send_data
    outbox.write_gathered(a)  # type: ignore[arg-type]
    a.transport.write(b"<close frame>")
    await asyncio.sleep(0)
    assert a.transport.writes == [frames(error), b"<close frame>"]


async def test_nothing_is_written_to_a_closed_transport_or_after_an_overflow() -> None:
    outbox = Outbox(64, Metrics())
    a, b = FakeConnection(), FakeConnection()
    outbox.send(a, b"x" * 10)  # type: ignore[arg-type]
    a.transport.closing = True  # the peer went away within the turn
    outbox.send(b, b"y" * 10)  # type: ignore[arg-type]
    failed: list[Any] = []
    outbox.overflow = lambda ws: failed.append(ws)  # type: ignore[method-assign]
    # the cap is 64 bytes beyond the largest frame (12 here): 76 in all
    for _ in range(5):
        outbox.send(b, b"z" * 10)  # type: ignore[arg-type]  # 72 gathered: under it
    assert failed == []
    outbox.send(b, b"w" * 10)  # type: ignore[arg-type]  # 84: over the cap
    await asyncio.sleep(0)
    assert a.transport.writes == []
    assert b.transport.writes == [binary_frame(b"y" * 10) + binary_frame(b"z" * 10) * 5]
    assert failed == [b]


async def test_one_frame_bigger_than_the_cap_is_not_an_overflow() -> None:
    """A big lobby may be larger than the cap itself: the cap counts beyond it."""
    outbox = Outbox(64, Metrics())
    c = FakeConnection()
    failed: list[Any] = []
    outbox.overflow = lambda ws: failed.append(ws)  # type: ignore[method-assign]
    outbox.send(c, b"L" * 100)  # type: ignore[arg-type]
    await asyncio.sleep(0)
    assert failed == [] and c.transport.writes == [binary_frame(b"L" * 100)]
    assert outbox.cap == 64 + len(binary_frame(b"L" * 100))


async def test_a_frame_received_mid_turn_does_not_write_what_was_gathered_early() -> None:
    """The library calls send_data after every chunk it receives: gathered frames are
    written then only when it has something of its own to write after them."""
    from websockets.server import ServerProtocol

    outbox = Outbox(1 << 20, Metrics())
    conn = outbox.connection_class()(ServerProtocol(), None)
    conn.protocol.state = OPEN
    transport = FakeTransport()
    conn.transport = transport  # type: ignore[assignment]
    reply, table = {"t": "ok", "id": 1}, {"t": "table", "seq": 3}
    outbox.send(conn, msgpack.packb(reply))
    conn.send_data()  # a frame arrived: the library has nothing to write
    assert transport.writes == []
    outbox.send(conn, msgpack.packb(table))
    await asyncio.sleep(0)
    assert transport.writes == [frames(reply, table)]  # one write at the end of the turn
    outbox.send(conn, msgpack.packb(reply))
    conn.protocol.send_ping(b"k")  # now it has: what was gathered goes first
    conn.send_data()
    assert len(transport.writes) == 3 and transport.writes[1] == frames(reply)
    assert transport.writes[2].startswith(b"\x89")  # the ping, after
