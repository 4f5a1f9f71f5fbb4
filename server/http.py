"""Plain HTTP on the WebSocket port: health, metrics, the books (loopback only), the web client."""

from __future__ import annotations

import ipaddress
import json
import mimetypes
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import Protocol

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server.metrics import Metrics
from server.stores.base import Store, StoreError

WEB_ROOT = Path(__file__).resolve().parent.parent / "clients" / "web"


def response(status: HTTPStatus, body: bytes, content_type: str) -> Response:
    headers = Headers(
        [
            ("Content-Type", content_type),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"),
            ("X-Content-Type-Options", "nosniff"),
        ]
    )
    return Response(status.value, status.phrase, headers, body)


@dataclass(frozen=True, slots=True)
class Census:
    """How much this process serves right now."""

    tables: int
    connections: int
    players: int
    suspended: int = 0  # tables suspended because the store or their lease is away
    pending_writes: int = 0  # store writes whose outcome is not known yet
    oldest_pending: float = 0.0  # seconds the oldest of them has been in doubt


class Served(Protocol):
    """What the routes read of the server they run in (implemented by `StudServer`)."""

    @property
    def stopping(self) -> bool: ...
    @property
    def store(self) -> Store: ...
    @property
    def metrics(self) -> Metrics: ...
    @property
    def meters(self) -> Mapping[str, int]: ...
    @property
    def store_data_lost(self) -> bool: ...
    def census(self) -> Census: ...


class HttpRoutes:
    def __init__(self, app: Served, static_dir: str = "") -> None:
        self.app = app
        self.root = Path(static_dir).resolve() if static_dir else WEB_ROOT

    def process_request(
        self, connection: ServerConnection, request: Request
    ) -> Response | Awaitable[Response] | None:
        """GET serves, HEAD answers the same without the body, any other method is 405."""
        path = request.path.split("?", 1)[0]
        if path == "/ws":
            if request.method != "GET":
                return not_allowed("GET")
            if self.app.stopping:
                return response(HTTPStatus.SERVICE_UNAVAILABLE, b"shutting down\n", "text/plain")
            return None  # the WebSocket handshake goes on
        if request.method not in ("GET", "HEAD"):
            return not_allowed("GET, HEAD")
        answer = self.route(connection, path)
        if request.method == "GET":
            return answer
        if isinstance(answer, Response):
            return without_body(answer)
        return _headless(answer)

    def route(self, connection: ServerConnection, path: str) -> Response | Awaitable[Response]:
        if path == "/healthz":
            return self.health()
        if path == "/metrics":
            return self.metrics()
        if path == "/ledger":
            if not _loopback(connection.remote_address):
                return not_found()
            return self.ledger()
        return self.static(path)

    def health(self) -> Response:
        app = self.app
        census = app.census()
        status = "stopping" if app.stopping else "ok"
        body = {
            "status": status,
            "tables": census.tables,
            "connections": census.connections,
            "players": census.players,
            "suspended_tables": census.suspended,
            "pending_writes": census.pending_writes,
            "oldest_pending_seconds": round(census.oldest_pending, 3),
            "jackpots": dict(app.meters),
            "store": type(app.store).__name__,
            # Reported, not failed on: a replica whose Redis is away still serves
            # (requests that need the store get store_unavailable) and comes back
            # with it, so restarting the replica would not help.
            "store_connected": getattr(app.store, "connected", True),
            # Redis back without its data: reported, not failed on, for a restart is how
            # an operator accepts an empty store, never something to do by itself.
            "store_data_lost": app.store_data_lost,
        }
        code = HTTPStatus.SERVICE_UNAVAILABLE if app.stopping else HTTPStatus.OK
        return response(code, json.dumps(body).encode(), "application/json")

    async def ledger(self) -> Response:
        """The books in aggregate, for reconciliation (load runs, operators on the host):
        house, world (minus all buy-ins) and each meter, the players' total, and the sum
        of every account, which double entry keeps at zero. Loopback only; no player's
        own balance is listed."""
        try:
            totals = await self.app.store.totals()
        except StoreError as e:
            body = json.dumps({"error": e.code, "message": e.message}).encode()
            return response(HTTPStatus.SERVICE_UNAVAILABLE, body, "application/json")
        players = {k: v for k, v in totals.items() if k.startswith("player:")}
        data = {
            "accounts": {k: v for k, v in sorted(totals.items()) if k not in players},
            "players": {"accounts": len(players), "total": sum(players.values())},
            "sum": sum(totals.values()),
        }
        return response(HTTPStatus.OK, json.dumps(data).encode(), "application/json")

    def metrics(self) -> Response:
        app = self.app
        census = app.census()
        gauges = {
            "stud_connections": (
                "Open WebSocket connections.",
                _constant(float(census.connections)),
            ),
            "stud_tables": ("Tables hosted by this process.", _constant(float(census.tables))),
            "stud_players_connected": (
                "Players with at least one open connection.",
                _constant(float(census.players)),
            ),
            "stud_tables_suspended": (
                "Tables suspended by a fault (store or lease away), not an operator's pause.",
                _constant(float(census.suspended)),
            ),
            "stud_store_pending_writes": (
                "Store writes whose outcome is not known yet (being repeated).",
                _constant(float(census.pending_writes)),
            ),
            "stud_store_oldest_pending_seconds": (
                "Seconds the oldest write in doubt has waited.",
                _constant(census.oldest_pending),
            ),
            "stud_store_data_lost": (
                "1 while Redis answers without the data this process served from.",
                _constant(float(app.store_data_lost)),
            ),
        }
        for name, amount in app.meters.items():
            gauges[f'stud_jackpot_cents{{name="{name}"}}'] = (
                "Progressive meter, cents.",
                _constant(float(amount)),
            )
        text = app.metrics.render(gauges)
        return response(HTTPStatus.OK, text.encode(), "text/plain; version=0.0.4")

    def static(self, path: str) -> Response:
        if path == "/":
            path = "/index.html"
        try:  # any path the file system refuses (too long, a bad byte...) is not found
            target = (self.root / path.lstrip("/")).resolve()
            target.relative_to(self.root)
            found = target.is_file()
            body = target.read_bytes() if found else b""
        except (ValueError, OSError):
            return not_found()
        if not found:
            if path == "/index.html":
                return response(HTTPStatus.OK, FALLBACK_PAGE, "text/html; charset=utf-8")
            return not_found()
        kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind == "application/javascript":
            kind += "; charset=utf-8"
        return response(HTTPStatus.OK, body, kind)


def not_found() -> Response:
    return response(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")


def not_allowed(allow: str) -> Response:
    answer = response(HTTPStatus.METHOD_NOT_ALLOWED, b"method not allowed\n", "text/plain")
    answer.headers["Allow"] = allow
    return answer


def without_body(answer: Response) -> Response:
    """The answer to HEAD: GET's status and headers (Content-Length included), no body."""
    return Response(answer.status_code, answer.reason_phrase, answer.headers, b"")


async def _headless(answer: Awaitable[Response]) -> Response:
    return without_body(await answer)


def _loopback(address: object) -> bool:
    try:
        host = address[0] if isinstance(address, tuple) else ""
        ip = ipaddress.ip_address(str(host).split("%")[0])
        mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
        return (mapped or ip).is_loopback
    except (ValueError, IndexError):
        return False


def _constant(value: float) -> Callable[[], float]:
    return lambda: value


FALLBACK_PAGE = b"""<!doctype html><meta charset="utf-8"><title>casino-stud</title>
<h1>casino-stud</h1><p>The table server is running. WebSocket endpoint: <code>/ws</code>
(binary msgpack frames, see protocol/PROTOCOL.md). Health: <a href="/healthz">/healthz</a>,
metrics: <a href="/metrics">/metrics</a>.</p>
"""
