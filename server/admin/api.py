"""The console's routes: the page, and the JSON API under /api/ (docs/ADMIN_API.md).

Every /api/ request but the sign-in needs `Authorization: Bearer <token>` (no
cookie is ever set or read, so another site cannot act with an operator's
browser: no CSRF), is counted against the client address's and the operator's
rate limits, and is logged (operator, method, path, status, address). An act (a
POST but the sign-in) needs the `admin` role, read from the store for each one: a
viewer's is answered 403 `forbidden_role` before its body is read, so nothing is
recorded, applied or audited. The page
is plain files: `/` and `/admin/...` from the console's directory (clients/admin),
`/web/...` from the player client's, whose modules and styles it reuses.
"""

from __future__ import annotations

import json
import logging
import mimetypes
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from http import HTTPStatus
from pathlib import Path
from typing import Any

from server.admin.actions import Acts, BadAct, known_fields
from server.admin.httpd import Request, Response, error, json_response
from server.admin.operators import Limiter, Operators, SignInRefused
from server.admin.store_watch import StoreWatch
from server.admin.views import Views
from server.passwords import PasswordsBusy
from server.stores.admin import ADMIN, SEEN_TTL, AdminStore
from server.stores.base import StoreError

log = logging.getLogger("stud.admin")

#: Audit rows per page at most, and per read of the export.
MAX_PAGE = 500
#: The query parameters each route takes (the others take none): a misspelt one
#: (`limt=`) is refused, as a misspelt body field is, never dropped silently.
QUERY_PARAMETERS: dict[str, tuple[str, ...]] = {
    "players": ("q",),
    "audit": ("offset", "limit", "target"),
}
EXPORT_CHUNK = 1000

#: A 503's words: the store did not answer, so nothing was applied.
UNAVAILABLE = "the game's data store (Redis) did not answer: nothing was applied; try again"
#: ... and when Redis answered, without the data it held (wiped): not a moment's wait
DATA_LOST = (
    "the game's data store (Redis) answered without its data (it was lost): nothing was"
    " applied; restore the backup, or accept the loss (`stud-server accept-empty-store`:"
    " the operators go with the data)"
)

Route = Callable[[str, Request, list[str]], Awaitable[Response]]


class Api:
    def __init__(
        self,
        operators: Operators,
        views: Views,
        acts: Acts,
        admin: AdminStore,
        watch: StoreWatch,
        limiter: Limiter,
        page_dir: Path,
        web_dir: Path,
    ) -> None:
        self.operators = operators
        self.views = views
        self.acts = acts
        self.admin = admin
        self.watch = watch
        self.limiter = limiter
        self.page_dir = page_dir.resolve()
        self.web_dir = web_dir.resolve()
        self.seen_at = 0.0

    async def handle(self, request: Request) -> Response:
        path = request.path
        if not path.startswith("/api/"):
            if request.method not in ("GET", "HEAD"):
                return _not_allowed("GET, HEAD")
            return self.static(path)
        started = time.monotonic()
        who: dict[str, str] = {}  # the operator, once known: a refused act is logged with it
        try:
            if not self.limiter.admit(f"addr:{request.peer}", started):
                response = self._too_many()
            else:
                response = await self._api(request, who)
        except BadAct as e:
            response = error(HTTPStatus(e.status), e.code, e.message, field=e.field)
        except StoreError as e:
            if e.code == "store_unavailable":  # not a refusal the store answered
                self.watch.failed()
            # an act whose outcome is unknown is answered 202 by the acts; here nothing was
            # applied, whatever the store's words (written for players) said of the call
            words = e.message
            if e.code == "store_unavailable":
                words = DATA_LOST if getattr(e, "data_lost", False) else UNAVAILABLE
            response = error(HTTPStatus.SERVICE_UNAVAILABLE, e.code, words)
        except PasswordsBusy:
            response = error(HTTPStatus.SERVICE_UNAVAILABLE, "busy", "too many sign-ins: retry")
        log.info(
            "console request",
            extra={
                "operator": who.get("operator") or self._last_confirmed(request),
                "method": request.method,
                "path": path,
                "status": response.status,
                "addr": request.peer,
                "ms": round((time.monotonic() - started) * 1000, 1),
            },
        )
        return response

    def _last_confirmed(self, request: Request) -> str | None:
        """Who sent a request refused before its token was checked, as far as this
        process knows; None for the sign-in itself and a token never confirmed here."""
        if request.path.rstrip("/") == "/api/session" and request.method == "POST":
            return None
        return self.operators.last_confirmed(_bearer(request))

    async def _api(self, request: Request, who: dict[str, str]) -> Response:
        parts = [p for p in request.path.split("/")[2:] if p]
        if parts == ["session"] and request.method == "POST":
            return await self.sign_in(request)
        token = _bearer(request)
        # a token the store confirmed earlier stands in for it only for the reads this
        # process answers without the store: never for an act, a sign-out or the rest
        local = request.method == "GET" and parts[:1] in (["overview"], ["tables"], ["pending"])
        operator = await self.operators.check(token, cached=local) if token else None
        if operator is None:
            return _unauthorized()
        who["operator"] = operator  # the request's log line names it, refused or not
        if not self.limiter.admit(f"op:{operator.lower()}", time.monotonic()):
            return self._too_many()
        await self._seen()
        allow = _allowed(parts)
        if allow is None:
            return error(HTTPStatus.NOT_FOUND, "not_found", "no such route")
        if request.method not in allow.split(", "):
            return _not_allowed(allow)
        role = ""  # read for an act and for "who am I", from the store each time
        if request.method == "POST" or (parts == ["session"] and request.method != "DELETE"):
            role = await self.operators.role(operator) or ""
            if not role:  # removed since its token was checked
                return _unauthorized()
            if request.method == "POST" and role != ADMIN:
                log.warning(
                    "operator act refused: role",
                    extra={"operator": operator, "role": role, "path": request.path},
                )
                message = f"{operator} is a {role}: a {role} may read, not act (nothing applied)"
                return error(HTTPStatus.FORBIDDEN, "forbidden_role", message)
        taken = QUERY_PARAMETERS.get(parts[0], ()) if len(parts) == 1 else ()
        for name in request.query:
            if name not in taken:
                raise BadAct(400, "bad_request", f"{name}: not a parameter of this request", name)
        if parts == ["session"]:
            if request.method == "DELETE":
                await self.operators.sign_out(token, operator)
                return json_response(200, {"signed_out": True})
            return json_response(200, {"operator": operator, "role": role})
        if request.method == "POST":
            return await self._post(operator, parts, _body(request))
        return await self._get(parts, request)

    async def _get(self, parts: list[str], request: Request) -> Response:
        views = self.views
        match parts:
            case ["overview"] | ["tables"] | ["tables", _] | ["pending"]:
                return await self._get_known(parts)
            case ["jackpots"]:
                return json_response(200, {"jackpots": await views.jackpots()})
            case ["players"]:
                found = await views.find_players(request.query.get("q", ""))
                return json_response(200, {"players": found})
            case ["players", player_id]:
                return _found(await views.player(player_id), f"no player {player_id!r}")
            case ["rounds", round_id]:
                return _found(await views.round(round_id), f"no round {round_id!r}")
            case ["books"]:
                return json_response(200, await views.books())
            case ["audit"]:
                offset = _int(request.query, "offset", 0, 0, 2**31)
                limit = _int(request.query, "limit", 50, 1, MAX_PAGE)
                target = request.query.get("target") or None
                rows, total = await self.admin.audit(offset, limit, target)
                return json_response(200, {"rows": rows, "total": total, "offset": offset})
            case ["audit.jsonl"]:
                return Response(
                    200,
                    content_type="application/x-ndjson",
                    headers={"Content-Disposition": 'attachment; filename="audit.jsonl"'},
                    stream=self._export(),
                )
            case ["actions", action_id]:
                submitted = await self.admin.action(action_id)
                if submitted is None:
                    return error(HTTPStatus.NOT_FOUND, "not_found", f"no action {action_id!r}")
                return json_response(200, {"state": submitted.state, "row": submitted.row})
        return error(HTTPStatus.NOT_FOUND, "not_found", "no such route")

    async def _get_known(self, parts: list[str]) -> Response:
        """The reads this process can answer from what it knows itself: from the store
        when it answers (`store_reachable` true), else without it, what only the store
        knows null (docs/ADMIN_API.md, "While the store is away")."""
        views = self.views
        reachable = not self.watch.away  # else: not even tried (server/admin/store_watch.py)
        data: dict[str, Any] | None = None
        if reachable:
            try:
                match parts:
                    case ["overview"]:
                        data = await self.overview()
                    case ["tables"]:
                        data = {"tables": await views.tables()}
                    case ["tables", table_id]:
                        data = await views.table(table_id)
                    case _:
                        data = await views.pending()
            except StoreError:
                self.watch.failed()
                reachable = False
        if not reachable:
            match parts:
                case ["overview"]:
                    data = self.overview_here()
                case ["tables"]:
                    data = {"tables": views.tables_here()}
                case ["tables", table_id]:
                    data = views.table_here(table_id)
                case _:
                    data = views.pending_here()
        if data is None:
            return error(HTTPStatus.NOT_FOUND, "not_found", f"no table {parts[-1]!r}")
        return json_response(200, {**data, "store_reachable": reachable})

    async def _post(self, operator: str, parts: list[str], body: Any) -> Response:
        match parts:
            case ["tables", table_id, action]:
                answer = await self.acts.table(operator, table_id, action, body)
            case ["players", player_id, action]:
                answer = await self.acts.player(operator, player_id, action, body)
            case ["jackpots", name, action]:
                answer = await self.acts.jackpot(operator, name, action, body)
            case _:
                return error(HTTPStatus.NOT_FOUND, "not_found", "no such act")
        return json_response(answer.status, answer.body)

    async def sign_in(self, request: Request) -> Response:
        body = _body(request)
        known_fields(body, ("name", "password"))
        name, password = body.get("name"), body.get("password")
        if not isinstance(name, str):
            raise BadAct(400, "bad_request", "name: a string is needed", "name")
        if password is None:
            raise BadAct(400, "bad_request", "password: missing", "password")
        if not isinstance(password, str) or len(password) > 128:
            message = "password: a string of at most 128 characters"
            raise BadAct(400, "bad_request", message, "password")
        try:
            signed = await self.operators.sign_in(name, password, request.peer)
        except SignInRefused as e:
            status = HTTPStatus.TOO_MANY_REQUESTS if e.retry_after else HTTPStatus.UNAUTHORIZED
            answer = error(status, e.code, e.message)
            if e.retry_after:
                answer.headers["Retry-After"] = str(e.retry_after)
            return answer
        return json_response(
            200,
            {
                "token": signed.token,
                "operator": signed.operator,
                "role": signed.role,
                "expires_in": signed.expires_in,
            },
        )

    async def overview(self) -> dict[str, Any]:
        host = self.views.host
        books = await self.views.books()
        pending = await self.views.pending()
        return {
            "process_id": host.process_id,
            "store": type(host.store).__name__,
            "tables": len(await self.views.fleet_ids()),  # as /api/tables lists them
            "books_sum": books["sum"],
            "pending_writes": pending["writes"],
            "pending_acts": len(pending["acts"]),
            "processes": len(pending["processes"]),
            "jackpots": dict(host.meters),
        }

    def overview_here(self) -> dict[str, Any]:
        """`overview` without the store: this process's own facts; the fleet's null."""
        host = self.views.host
        return {
            "process_id": host.process_id,
            "store": type(host.store).__name__,
            "tables": len(self.views.table_ids()),
            "books_sum": None,
            "pending_writes": len(host.pending.writes),  # this process's own
            "pending_acts": None,
            "processes": None,
            "jackpots": dict(host.meters),
        }

    async def _export(self) -> AsyncIterator[bytes]:
        start = 0
        while True:
            lines = await self.admin.audit_lines(start, EXPORT_CHUNK)
            if not lines:
                return
            yield "".join(f"{line}\n" for line in lines).encode()
            start += len(lines)

    async def _seen(self) -> None:
        """The fleet publishes its tables' details while some console looks."""
        now = time.monotonic()
        if now - self.seen_at >= SEEN_TTL / 3:
            idle = now - self.seen_at >= SEEN_TTL  # the fleet may have stopped publishing
            self.seen_at = now
            if self.watch.away:
                return  # nobody can publish meanwhile; the reads say what they know
            try:
                await self.admin.mark_seen(SEEN_TTL)
            except StoreError:
                self.watch.failed()
                return
            self.views.agent.wake.set()
            if idle:
                await self.views.fresh_fleet()

    def _too_many(self) -> Response:
        answer = error(HTTPStatus.TOO_MANY_REQUESTS, "too_many_requests", "slow down")
        answer.headers["Retry-After"] = str(self.limiter.retry_after())
        return answer

    # ----- the page -------------------------------------------------------------------

    def static(self, path: str) -> Response:
        if path in ("/", "/index.html"):
            root, rel = self.page_dir, "index.html"
        elif path.startswith("/admin/"):
            root, rel = self.page_dir, path.removeprefix("/admin/")
        elif path.startswith("/web/"):
            root, rel = self.web_dir, path.removeprefix("/web/")
        else:
            return error(HTTPStatus.NOT_FOUND, "not_found", "not found")
        try:
            target = (root / rel).resolve()
            target.relative_to(root)
            body = target.read_bytes() if target.is_file() else None
        except (ValueError, OSError):
            body = None
        if body is None:
            return error(HTTPStatus.NOT_FOUND, "not_found", "not found")
        kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if target.suffix in (".js", ".mjs"):
            kind = "text/javascript"
        if kind.startswith("text/"):
            kind += "; charset=utf-8"
        return Response(200, body, kind)


def _bearer(request: Request) -> str:
    scheme, _, token = request.header("authorization").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def _body(request: Request) -> dict[str, Any]:
    if "content-length" not in request.headers:  # its body, if any, was never read
        raise BadAct(400, "bad_request", "a request body needs a Content-Length")
    if not request.body:
        return {}
    kind = request.header("content-type").partition(";")[0].strip().lower()
    if kind != "application/json":
        raise BadAct(415, "bad_request", "the body must be application/json (Content-Type)")
    try:
        data = json.loads(request.body)
    except (ValueError, UnicodeDecodeError):
        raise BadAct(400, "bad_request", "the body must be one JSON object") from None
    if not isinstance(data, dict):
        raise BadAct(400, "bad_request", "the body must be one JSON object")
    return data


def _found(data: dict[str, Any] | None, missing: str) -> Response:
    if data is None:
        return error(HTTPStatus.NOT_FOUND, "not_found", missing)
    return json_response(200, data)


def _int(query: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    text = query.get(name)
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        value = low - 1
    if not low <= value <= high:
        raise BadAct(400, "bad_request", f"{name}: a whole number, {low:,}-{high:,}", name)
    return value


def _allowed(parts: list[str]) -> str | None:
    """The methods a route of the API takes (its `Allow`), or None for no such route."""
    match parts:
        case ["session"]:
            return "GET, HEAD, POST, DELETE"
        case ["tables", _, _] | ["players", _, _] | ["jackpots", _, _]:
            return "POST"  # an act
        case (
            ["overview"]
            | ["tables"]
            | ["tables", _]
            | ["jackpots"]
            | ["players"]
            | ["players", _]
            | ["rounds", _]
            | ["pending"]
            | ["books"]
            | ["audit"]
            | ["audit.jsonl"]
            | ["actions", _]
        ):
            return "GET, HEAD"
    return None


def _unauthorized() -> Response:
    answer = error(HTTPStatus.UNAUTHORIZED, "unauthorized", "sign in: a bearer token")
    answer.headers["WWW-Authenticate"] = 'Bearer realm="casino-stud console"'
    return answer


def _not_allowed(allow: str) -> Response:
    answer = error(HTTPStatus.METHOD_NOT_ALLOWED, "method_not_allowed", "method not allowed")
    answer.headers["Allow"] = allow
    return answer
