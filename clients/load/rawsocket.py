"""A lean WebSocket client: RFC 6455 over a bare `asyncio.Protocol`, and the
protocol's msgpack frames.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import random
import time
from typing import Any, Protocol, cast

import msgpack

Frame = dict[str, Any]

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class Handler(Protocol):
    def on_open(self, sock: RawSocket) -> None: ...
    def on_message(self, data: bytes, now: float) -> None: ...
    def on_close(self) -> None: ...


class RawSocket(asyncio.Protocol):
    """A WebSocket client connection (RFC 6455) as a bare `asyncio.Protocol`.

    Binary messages in and out; pings are answered; a close is echoed. Each
    message is handed to the handler with the time its bytes were read, so a
    busy generator does not add its own queueing to what it measures.
    """

    def __init__(self, host: str, port: int, path: str, handler: Handler) -> None:
        self.handler = handler
        self.transport: asyncio.Transport | None = None
        self._request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: "
        ).encode()
        self._key = base64.b64encode(os.urandom(16))
        self._accept = base64.b64encode(hashlib.sha1(self._key + _GUID).digest())
        self._head = bytearray()
        self._buf = b""
        self._parts: list[bytes] = []
        self.is_open = False
        self.closing = False
        loop = asyncio.get_running_loop()
        self.opened: asyncio.Future[None] = loop.create_future()
        self.closed: asyncio.Future[None] = loop.create_future()
        self.received = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is no subclass
        transport = self.transport
        transport.write(self._request + self._key + b"\r\n\r\n")

    def connection_lost(self, exc: Exception | None) -> None:
        self.is_open = False
        if not self.opened.done():
            self.opened.set_exception(ConnectionError(f"connection lost in handshake: {exc}"))
        if not self.closed.done():
            self.closed.set_result(None)
            self.handler.on_close()

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        if not self.is_open:
            self._head += data
            end = self._head.find(b"\r\n\r\n")
            if end < 0:
                return
            head, data = bytes(self._head[:end]), bytes(self._head[end + 4 :])
            self._head = bytearray()
            if not head.startswith(b"HTTP/1.1 101") or self._accept not in head:
                status = head.split(b"\r\n", 1)[0].decode(errors="replace")
                if not self.opened.done():
                    self.opened.set_exception(ConnectionError(f"handshake refused: {status}"))
                self.abort()
                return
            self.is_open = True
            self.opened.set_result(None)
            self.handler.on_open(self)
            if not data:
                return
        buf = self._buf + data if self._buf else data
        pos, n = 0, len(buf)
        while n - pos >= 2:
            b0, b1 = buf[pos], buf[pos + 1]
            length, head_len = b1 & 0x7F, 2
            if length == 126:
                if n - pos < 4:
                    break
                length, head_len = (buf[pos + 2] << 8) | buf[pos + 3], 4
            elif length == 127:
                if n - pos < 10:
                    break
                length, head_len = int.from_bytes(buf[pos + 2 : pos + 10], "big"), 10
            end = pos + head_len + length
            if end > n:
                break
            payload = buf[pos + head_len : end]
            pos = end
            self._frame(b0, payload, now)
        self._buf = buf[pos:] if pos < n else b""

    def _frame(self, b0: int, payload: bytes, now: float) -> None:
        opcode = b0 & 0x0F
        if opcode in (1, 2):
            if b0 & 0x80:
                self.received += 1
                self.handler.on_message(payload, now)
            else:
                self._parts = [payload]
        elif opcode == 0:
            self._parts.append(payload)
            if b0 & 0x80:
                self.received += 1
                self.handler.on_message(b"".join(self._parts), now)
                self._parts = []
        elif opcode == 9:
            self._send(0xA, payload)
        elif opcode == 8:
            if not self.closing:
                self.closing = True
                self._send(0x8, payload[:2])
            if self.transport is not None:
                self.transport.close()

    def send(self, payload: bytes) -> None:
        self._send(0x2, payload)

    def _send(self, opcode: int, payload: bytes) -> None:
        t = self.transport
        if t is None or t.is_closing():
            return
        n = len(payload)
        if n < 126:
            header = bytes((0x80 | opcode, 0x80 | n))
        elif n < 65536:
            header = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
        else:
            header = bytes((0x80 | opcode, 0x80 | 127)) + n.to_bytes(8, "big")
        mask = random.getrandbits(32).to_bytes(4, "big")
        if n:
            key = int.from_bytes((mask * (n // 4 + 1))[:n], "big")
            payload = (int.from_bytes(payload, "big") ^ key).to_bytes(n, "big")
        t.write(header + mask + payload)

    def close(self) -> None:
        """Start the closing handshake (1000); the server closes the TCP connection."""
        if not self.closing and self.is_open:
            self.closing = True
            self._send(0x8, (1000).to_bytes(2, "big"))

    def abort(self) -> None:
        if self.transport is not None:
            self.transport.abort()


async def open_raw(host: str, port: int, path: str, handler: Handler, timeout: float) -> RawSocket:
    loop = asyncio.get_running_loop()
    _, sock = await asyncio.wait_for(
        loop.create_connection(lambda: RawSocket(host, port, path, handler), host, port), timeout
    )
    try:
        await asyncio.wait_for(sock.opened, timeout)
    except BaseException:
        sock.abort()
        raise
    return sock


def pack(message: Frame) -> bytes:
    data: bytes = msgpack.packb(message, use_bin_type=True)
    return data


def unpack(data: bytes) -> Frame:
    frame: Frame = msgpack.unpackb(data, raw=False, strict_map_key=False)
    return frame
