"""A small HTTP/1.1 server on asyncio streams, for the operator console's port.

The table port's HTTP comes from the websockets library, whose request parser
refuses any body (`websockets/http11.py`: "unsupported request body"), and a
JSON API needs POST bodies. So the console has its own: one request per
connection (`Connection: close`), every part bounded (request line, header
count and size, a `Content-Length` body; no chunked bodies: 501), a deadline
for reading the request, and a cap on connections at once. A peer the console
does not accept (`allowed`) is answered 403 before anything is read.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

log = logging.getLogger("stud.admin.http")

MAX_LINE = 8192  # bytes of the request line, and of any one header line
MAX_HEADERS = 64
MAX_HEADER_BYTES = 16_384
MAX_BODY = 65_536
READ_TIMEOUT = 10.0  # seconds to read a whole request
WRITE_TIMEOUT = 30.0  # seconds a peer may take to read the answer
MAX_CONNECTIONS = 64


class BadRequest(Exception):
    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True, slots=True)
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]  # lower-cased names; a repeated header keeps its last value
    body: bytes
    peer: str  # the client's address

    def header(self, name: str) -> str:
        return self.headers.get(name.lower(), "")


@dataclass(slots=True)
class Response:
    status: int
    body: bytes = b""
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)
    stream: AsyncIterator[bytes] | None = None  # instead of `body`: sent as it comes


Handler = Callable[[Request], Awaitable[Response]]

SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    # scripts only from this origin; inline style attributes are how the table view
    # places its seats (dom.js sets them), so styles allow them
    "Content-Security-Policy": (
        "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
    ),
}


class HttpServer:
    def __init__(
        self, handler: Handler, host: str, port: int, allowed: Callable[[str], bool]
    ) -> None:
        self.handler = handler
        self.host = host
        self.requested_port = port
        self.allowed = allowed
        self.server: asyncio.Server | None = None
        self.open = 0

    async def start(self) -> None:
        self.server = await asyncio.start_server(
            self._serve, self.host, self.requested_port, limit=MAX_LINE
        )

    @property
    def port(self) -> int:
        assert self.server is not None
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.server.wait_closed(), 5)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer_info: Any = writer.get_extra_info("peername")
        peer = str(peer_info[0]) if isinstance(peer_info, tuple) and peer_info else ""
        self.open += 1
        try:
            if not self.allowed(peer):
                await self._send(writer, error(HTTPStatus.FORBIDDEN, "forbidden", "not from here"))
                return
            if self.open > MAX_CONNECTIONS:
                await self._send(writer, error(HTTPStatus.SERVICE_UNAVAILABLE, "busy", "busy"))
                return
            try:
                request = await asyncio.wait_for(read_request(reader, writer, peer), READ_TIMEOUT)
            except BadRequest as e:
                await self._send(writer, error(e.status, "bad_request", e.message))
                return
            except TimeoutError:  # a body shorter than its Content-Length, a stalled peer
                why = f"the request did not arrive in full within {READ_TIMEOUT:g} s"
                await self._send(writer, error(HTTPStatus.REQUEST_TIMEOUT, "request_timeout", why))
                return
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            try:
                response = await self.handler(request)
            except Exception:
                log.exception("console request failed", extra={"path": request.path})
                response = error(HTTPStatus.INTERNAL_SERVER_ERROR, "internal_error", "failed")
            await self._send(writer, response, head=request.method == "HEAD")
        except (ConnectionError, TimeoutError):
            pass
        finally:
            self.open -= 1
            writer.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer.wait_closed(), 1)

    async def _send(
        self, writer: asyncio.StreamWriter, response: Response, *, head: bool = False
    ) -> None:
        """The answer (to HEAD: its status and headers only)."""
        status = HTTPStatus(response.status)
        headers = {
            "Content-Type": response.content_type,
            **SECURITY_HEADERS,
            **response.headers,
            "Connection": "close",
        }
        if response.stream is None:
            headers["Content-Length"] = str(len(response.body))
        top = f"HTTP/1.1 {status.value} {status.phrase}\r\n"
        top += "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
        writer.write(top.encode("latin-1"))
        if head:
            await asyncio.wait_for(writer.drain(), WRITE_TIMEOUT)
            return
        if response.stream is None:
            writer.write(response.body)
            await asyncio.wait_for(writer.drain(), WRITE_TIMEOUT)
            return
        async for chunk in response.stream:  # close-delimited: the end of the body is EOF
            writer.write(chunk)
            await asyncio.wait_for(writer.drain(), WRITE_TIMEOUT)


async def read_request(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, peer: str
) -> Request:
    line = await _line(reader)
    parts = line.split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise BadRequest(HTTPStatus.BAD_REQUEST, "not an HTTP/1.x request line")
    method, target, _ = parts
    headers: dict[str, str] = {}
    size = 0
    while True:
        raw = await _line(reader)
        if raw == "":
            break
        size += len(raw)
        if len(headers) >= MAX_HEADERS or size > MAX_HEADER_BYTES:
            raise BadRequest(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "too many headers")
        name, sep, value = raw.partition(":")
        if not sep or not name or name != name.strip():
            raise BadRequest(HTTPStatus.BAD_REQUEST, "a malformed header line")
        headers[name.lower()] = value.strip()
    if "transfer-encoding" in headers:
        raise BadRequest(HTTPStatus.NOT_IMPLEMENTED, "chunked bodies are not accepted")
    body = b""
    length = headers.get("content-length", "0") or "0"
    if not length.isdigit():
        raise BadRequest(HTTPStatus.BAD_REQUEST, "a bad Content-Length")
    if int(length) > MAX_BODY:
        raise BadRequest(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"bodies are at most {MAX_BODY} B")
    if int(length):
        if headers.get("expect", "").lower() == "100-continue":
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        body = await reader.readexactly(int(length))
    split = urlsplit(target)
    if not split.path.startswith("/"):
        raise BadRequest(HTTPStatus.BAD_REQUEST, "the target must be a path")
    query = dict(parse_qsl(split.query, keep_blank_values=True))
    return Request(method.upper(), unquote(split.path), query, headers, body, peer)


async def _line(reader: asyncio.StreamReader) -> str:
    try:
        raw = await reader.readuntil(b"\n")
    except asyncio.LimitOverrunError as e:
        raise BadRequest(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "a line is too long") from e
    except ValueError as e:  # the stream's limit, reported this way past the buffer
        raise BadRequest(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "a line is too long") from e
    try:
        return raw.decode("latin-1").rstrip("\r\n")
    except UnicodeDecodeError as e:  # pragma: no cover - latin-1 decodes any byte
        raise BadRequest(HTTPStatus.BAD_REQUEST, "not text") from e


def json_response(status: int, data: Any) -> Response:
    return Response(status, json.dumps(data, separators=(",", ":")).encode())


def error(
    status: HTTPStatus, code: str, message: str, field: str | None = None, **details: Any
) -> Response:
    """An error body as ADMIN_API.md gives it: `error`, `message` and `field` (null when
    no one field is at fault) always, whatever the status."""
    body = {"error": code, "message": message, "field": field, **details}
    return json_response(status.value, body)
