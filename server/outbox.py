"""Writing server frames to connections: one frame built once for many sockets."""

from __future__ import annotations

from collections.abc import Iterable

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.protocol import OPEN


def binary_frame(data: bytes) -> bytes:
    """`data` as one unmasked, unfragmented binary WebSocket frame (RFC 6455 5.2):
    what a server writes for a message when no extension is negotiated."""
    n = len(data)
    if n < 126:
        return bytes((0x82, n)) + data
    if n < 65536:
        return bytes((0x82, 126)) + n.to_bytes(2, "big") + data
    return bytes((0x82, 127)) + n.to_bytes(8, "big") + data


def send_all(connections: Iterable[ServerConnection], data: bytes) -> int:
    """Send one message to many connections; return how many it went to.

    `websockets.broadcast` builds, serializes and queues a frame object per
    connection; a server's frames are never masked, so without extensions (the
    server runs with compression=None) the bytes are the same for every
    connection: frame once, then one `transport.write` each. Connections that are
    closing are skipped, as `broadcast` does; one with an extension (a server
    configured otherwise) goes through `broadcast`.
    """
    frame = b""
    sent = 0
    for ws in connections:
        protocol = ws.protocol
        if protocol.state is not OPEN:
            continue
        if protocol.extensions:
            broadcast((ws,), data)
        else:
            if not frame:
                frame = binary_frame(data)
            ws.transport.write(frame)
        sent += 1
    return sent
