"""Writing server frames to connections: built once for many sockets, never unbounded.

Every connection has a cap on bytes written but not yet taken by its peer
(`limits.max_unsent_bytes`), over and above the largest message the server has
sent (a lobby of 1,000 tables is 1.2 MB: a client that reads everything is
never cut off for the size of what it asked for). A frame that would go over it
closes the connection instead (1008): a client too slow to read its table, or
one that floods pings and never reads the pongs, costs at most that in memory
and never slows anyone else. `BoundedConnection` applies the same cap to what
the websockets library writes by itself (pongs, close frames), and `sweep`
closes a connection whose buffer has not drained for a keepalive timeout. The
operating system's buffer for each socket is fixed (`SEND_BUFFER`), not grown
up to megabytes by the kernel's autotuning, so what a peer leaves unread
reaches the cap, and the sweep, soon, whatever its pace.

`keepalive` finds dead peers in passes over the connections, a fifth of them a
second, in place of the library's keepalive, which runs a task per connection
with a timeout around every ping: at 10,000 connections that was 4 % of the
server's CPU. A connection heard from within the interval (a player sends
something every hand) is not pinged at all; a silent one (a spectator) gets a
ping frame gathered with its other frames; one that does not answer within the
timeout is closed (1011).

Frames for one connection are gathered until the end of the event loop's turn
and written with one `transport.write`: a player's reply, wallet and table
snapshot cost one system call, not three. Senders that build their frames at
the end of the turn (a table's snapshot, sent once for all the commands of a
turn) register with `before_writing`, so what they send joins the same write:
scheduled with `call_soon` of their own, they would run after the write out
whenever anything else had been gathered earlier in the turn, and every reply
would cost a write of its own. Whatever the library writes itself goes after
what was gathered before it (`BoundedConnection.send_data`).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import Callable, Iterable
from typing import Any

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.protocol import OPEN

from protocol.errors import CloseCode
from server.metrics import Metrics

#: The keepalive looks at one of this many shares of the connections a pass (each share
#: every this many passes).
KEEPALIVE_SHARES = 5
#: An unmasked ping frame without payload (RFC 6455 5.5.2); the library ignores the pong.
PING_FRAME = bytes((0x89, 0))
#: SO_SNDBUF of every connection's socket (Linux keeps twice this): past it, bytes a
#: peer has not read stay in the transport's buffer, where the cap and the sweep see them.
SEND_BUFFER = 128 * 1024


def binary_frame(data: bytes) -> bytes:
    """`data` as one unmasked, unfragmented binary WebSocket frame (RFC 6455 5.2):
    what a server writes for a message when no extension is negotiated."""
    n = len(data)
    if n < 126:
        return bytes((0x82, n)) + data
    if n < 65536:
        return bytes((0x82, 126)) + n.to_bytes(2, "big") + data
    return bytes((0x82, 127)) + n.to_bytes(8, "big") + data


class BoundedConnection(ServerConnection):
    """A server connection that is cut off, not buffered, when its peer stops reading."""

    outbox: Outbox  # set on the subclass `Outbox.connection_class` makes

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # the outbox's write limit, whatever serve() was given: send_all counts on it
        super().__init__(*args, **{**kwargs, "write_limit": self.outbox.write_limit})
        self.paused_since: float | None = None  # the write buffer over its high-water mark
        self.heard = self.pinged = time.monotonic()  # last bytes from the peer, last ping
        self.outbox.joined(self)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        super().connection_made(transport)

    def data_received(self, data: bytes) -> None:
        self.heard = time.monotonic()
        super().data_received(data)  # may write pongs: they count against the cap too
        if self.transport.get_write_buffer_size() > self.outbox.cap:
            self.outbox.overflow(self)

    def send_data(self) -> None:
        """The library writes what its protocol has for the peer (pongs, close frames,
        EOF) after every chunk received; frames gathered before it go out first. With
        nothing of its own to write, the gathered frames wait for the end of the turn,
        not one write now and another for what the turn gathers next."""
        if self.protocol.writes:
            self.outbox.write_gathered(self)
        super().send_data()

    def pause_writing(self) -> None:
        super().pause_writing()
        self.paused_since = time.monotonic()
        self.outbox.paused.add(self)

    def resume_writing(self) -> None:
        super().resume_writing()
        self.paused_since = None
        self.outbox.paused.discard(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.outbox.paused.discard(self)
        self.outbox.left(self)
        super().connection_lost(exc)


class Outbox:
    def __init__(self, max_unsent: int, metrics: Metrics, write_limit: int = 2**15) -> None:
        self.max_unsent = max_unsent
        self.largest = 0  # the largest frame sent so far: a peer may have it all unread
        self.write_limit = write_limit  # its connections' high-water mark (BoundedConnection)
        self.metrics = metrics
        self._gathered: dict[ServerConnection, bytes] = {}  # frames not yet written
        self._write_soon: asyncio.Handle | None = None
        self._senders: list[Callable[[], None]] = []  # to run before the write out
        # connections whose write buffer is over its high-water mark: what `sweep` looks at
        self.paused: set[ServerConnection] = set()
        self._keepalive_at: float | None = None  # the last `keepalive` pass
        # every connection in one of KEEPALIVE_SHARES sets, a set looked at per pass
        self._shares: list[set[BoundedConnection]] = [set() for _ in range(KEEPALIVE_SHARES)]
        self._share_of: dict[BoundedConnection, int] = {}
        self._joined = self._turn = 0

    def connection_class(self) -> type[BoundedConnection]:
        """The ServerConnection class `serve(create_connection=...)` builds, with this cap."""
        return type("Connection", (BoundedConnection,), {"outbox": self})

    @property
    def cap(self) -> int:
        """Bytes a connection may leave unread: `max_unsent` beyond the largest frame."""
        return self.max_unsent + self.largest

    def send(self, ws: ServerConnection, data: bytes) -> int:
        return self.send_all((ws,), data)

    def send_all(self, connections: Iterable[ServerConnection], data: bytes) -> int:
        """Send one message to many connections; return how many it went to.

        `websockets.broadcast` builds, serializes and queues a frame object per
        connection; a server's frames are never masked, so without extensions (the
        server runs with compression=None) the bytes are the same for every
        connection: frame once, then gather it for each (written at the end of the
        loop's turn). Connections that are closing are skipped, as `broadcast`
        does; one with an extension (a server configured otherwise) goes through
        `broadcast`. A connection whose unsent bytes would pass the cap is closed
        instead.
        """
        frame = binary_frame(data)
        if len(frame) > self.largest:
            self.largest = len(frame)
        sent = 0
        cap = self.cap
        # a transport that is not paused holds at most its high-water mark (the library's
        # write limit): while what is gathered stays under the rest of the cap, its
        # buffer need not be asked
        unasked = cap - self.write_limit
        gathered, paused = self._gathered, self.paused
        for ws in connections:
            protocol = ws.protocol
            if protocol.state is not OPEN:
                continue
            if protocol.extensions:
                self.write_gathered(ws)
                broadcast((ws,), data)
                sent += 1
                continue
            before = gathered.get(ws)
            out = before + frame if before else frame
            if (len(out) > unasked or ws in paused) and (
                ws.transport.get_write_buffer_size() + len(out) > cap
            ):
                self.overflow(ws)
                continue
            gathered[ws] = out
            sent += 1
        if gathered and self._write_soon is None:
            self._write_soon = asyncio.get_running_loop().call_soon(self._write_all)
        return sent

    def before_writing(self, send: Callable[[], None]) -> None:
        """Call `send` at the end of this turn, just before the gathered frames are
        written, so the frames it sends go out in the same writes."""
        self._senders.append(send)
        if self._write_soon is None:
            self._write_soon = asyncio.get_running_loop().call_soon(self._write_all)

    def write_gathered(self, ws: ServerConnection) -> None:
        """Write what was gathered for one connection now (before the library's own
        frames, which must not overtake it)."""
        data = self._gathered.pop(ws, None)
        if data and not ws.transport.is_closing():
            self.metrics.writes += 1
            ws.transport.write(data)

    def _run_senders(self) -> None:
        while self._senders:  # a sender may register another
            senders, self._senders = self._senders, []
            for send in senders:
                try:
                    send()
                except Exception as e:  # one sender's bug must not hold back the others
                    asyncio.get_running_loop().call_exception_handler(
                        {"message": "a sender before the write out failed", "exception": e}
                    )

    def _write_all(self) -> None:
        self._run_senders()
        self._write_soon = None
        gathered, self._gathered = self._gathered, {}
        writes = 0
        for ws, data in gathered.items():
            # gathered while open; a close frame would have written it first (send_data)
            if not ws.transport.is_closing():
                ws.transport.write(data)
                writes += 1
        self.metrics.writes += writes

    def overflow(self, ws: ServerConnection) -> None:
        """Close a connection that does not read what it is sent: a close frame, then the
        socket is dropped with whatever it had not taken (nothing more is buffered)."""
        self._gathered.pop(ws, None)
        if ws.protocol.state is not OPEN:
            return
        self.metrics.slow_closes += 1
        ws.protocol.fail(CloseCode.POLICY_VIOLATION, f"too slow: over {self.cap} bytes unread")
        ws.send_data()
        ws.transport.abort()

    def sweep(self, timeout: float) -> int:
        """Close connections whose write buffer has not drained for `timeout` seconds;
        returns how many. A reading peer drains it; one that stopped reading never does.
        Only the connections paused now are looked at, not every one."""
        now = time.monotonic()
        closed = 0
        for ws in list(self.paused):
            since = getattr(ws, "paused_since", None)
            if since is not None and now - since > timeout and ws.protocol.state is OPEN:
                self._keepalive_close(ws, "keepalive timeout: nothing read")
                closed += 1
        return closed

    def _keepalive_close(self, ws: ServerConnection, reason: str) -> None:
        """Close with 1011 and drop the socket with whatever it had not taken."""
        self._gathered.pop(ws, None)
        self.metrics.keepalive_closes += 1
        ws.protocol.fail(CloseCode.INTERNAL_ERROR, reason)
        ws.send_data()
        ws.transport.abort()

    def joined(self, ws: BoundedConnection) -> None:
        share = self._joined % KEEPALIVE_SHARES
        self._joined += 1
        self._shares[share].add(ws)
        self._share_of[ws] = share

    def left(self, ws: BoundedConnection) -> None:
        share = self._share_of.pop(ws, None)
        if share is not None:
            self._shares[share].discard(ws)

    def next_share(self) -> list[BoundedConnection]:
        """The connections the next keepalive pass looks at: one share of them in turn,
        so a pass over 10,000 connections never holds the loop at once."""
        share = self._shares[self._turn % KEEPALIVE_SHARES]
        self._turn += 1
        return list(share)

    def keepalive(
        self, connections: Iterable[BoundedConnection], interval: float, timeout: float
    ) -> int:
        """Ping each open connection not heard from for `interval` seconds; close one
        that has not answered its ping (nor sent anything) within `timeout`: its peer is
        gone, or too stuck to answer. Returns how many it closed.

        After a gap in these calls (the process was paused, the loop held) nothing is
        closed: the answers may be waiting in the sockets, read once the loop runs."""
        now = time.monotonic()
        last, self._keepalive_at = self._keepalive_at, now
        late = last is not None and now - last > timeout / 2
        closed = 0
        gathered = self._gathered
        for ws in connections:
            heard = ws.heard
            if now - heard <= interval or ws.protocol.state is not OPEN:
                continue
            pinged = ws.pinged
            if pinged <= heard:  # nothing asked since it was last heard: ask
                ws.pinged = now
                before = gathered.get(ws)
                gathered[ws] = before + PING_FRAME if before else PING_FRAME
            elif now - pinged > timeout and not late:
                self._keepalive_close(ws, "keepalive ping timeout")
                closed += 1
        if gathered and self._write_soon is None:
            self._write_soon = asyncio.get_running_loop().call_soon(self._write_all)
        return closed
