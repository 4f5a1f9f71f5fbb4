"""A connection's frames in: decoding, schemas, rate limits, errors and close codes.

Every inbound frame is decoded with bounds and validated against its schema
before anything acts on it; whatever it holds, the answer is a reply, an
`error` frame with a stable code, or a close with the right close code. One
connection's frames are handled in order, one at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.protocol import OPEN

from protocol.codec import Limits as DecodeLimits
from protocol.codec import decode
from protocol.errors import CloseCode, ErrorCode, ProtocolError, RequestId
from protocol.messages import ClientMessage, Hello, Login, Ping, request_id_of, validate
from server.config import Limits
from server.durable import GaveUp
from server.game.table import Refusal
from server.metrics import Metrics
from server.ratelimit import TokenBucket, Verdict
from server.sessions import Session, Sessions
from server.stores.base import StoreError

log = logging.getLogger("stud.server")

#: Acts on one validated message: (session, message, arrival time from perf_counter).
Handle = Callable[[Session, ClientMessage, float], Awaitable[None]]


class Gateway:
    def __init__(
        self,
        limits: Limits,
        sessions: Sessions,
        metrics: Metrics,
        handle: Handle,
        closed: Callable[[Session], Awaitable[None]],
        spawn: Callable[[Coroutine[Any, Any, Any]], None],
    ) -> None:
        self.limits = limits
        self.sessions = sessions
        self.metrics = metrics
        self.handle = handle
        self.closed = closed  # after the connection is gone: seats, viewers, grace
        self.spawn = spawn
        self._decode_limits = DecodeLimits(max_frame_bytes=limits.max_frame_bytes)

    async def handler(self, ws: ServerConnection) -> None:
        limits = self.limits
        session = Session(ws, TokenBucket(limits.rate_per_second, limits.rate_burst))
        self.sessions.opened(session)
        loop = asyncio.get_running_loop()
        no_hello = loop.call_later(limits.hello_timeout, lambda: self._hello_overdue(session))
        try:
            async for message in ws:
                self.metrics.frames_in += 1
                if isinstance(message, str):
                    await self._close_unread(
                        ws, CloseCode.UNSUPPORTED_DATA, "binary msgpack frames only"
                    )
                    return
                verdict = session.bucket.admit(time.monotonic())
                if verdict is Verdict.CLOSE:
                    await self._close_unread(ws, CloseCode.POLICY_VIOLATION, "too many messages")
                    return
                if verdict is not Verdict.PASS:
                    self._dropped(session, message, warn=verdict is Verdict.WARN)
                    continue
                session.busy = True
                try:
                    await self.on_frame(session, message)
                finally:
                    session.busy = False
                if session.closing is not None:  # answered: now it may close
                    await self.sessions.close(ws, *session.closing)
                    return
        except ConnectionClosed:
            pass
        finally:
            no_hello.cancel()
            self._count_close(ws)
            await self.closed(session)

    async def _close_unread(self, ws: ServerConnection, code: int, reason: str) -> None:
        """Close, reading (and dropping) what the client still sends meanwhile: frames left
        unread hold the socket's reading paused, so the client's reply to the close would
        wait behind them and both ends would wait out the close timeout."""
        closing = asyncio.ensure_future(self.sessions.close(ws, code, reason))
        with contextlib.suppress(ConnectionClosed):
            async for _ in ws:
                pass
        await closing

    def _count_close(self, ws: ServerConnection) -> None:
        """Count a close the server started, by its code, once the connection is done:
        ours (a flood, no hello, a slow reader) and websockets' own alike (a frame over
        the size limit, 1009; a broken frame, 1002), which no code of ours sees sent."""
        protocol = ws.protocol
        if protocol.close_sent is not None and protocol.close_rcvd_then_sent is not True:
            self.metrics.closes[protocol.close_sent.code] += 1

    def _dropped(self, session: Session, message: bytes, *, warn: bool) -> None:
        """A frame over the rate is not handled. A request among them is still answered,
        `rate_limited` with its id, so no client waits for a reply that will never come;
        the first dropped frame is answered even without one (the warning)."""
        try:
            request_id = request_id_of(decode(message, self._decode_limits))
        except ProtocolError:
            request_id = None
        if request_id is None and not warn:
            return
        rate = self.limits.rate_per_second
        self.sessions.send_error(
            session,
            ProtocolError(
                ErrorCode.RATE_LIMITED,
                f"slow down: at most {rate:g} messages per second; this one was not handled, "
                "and keeping on closes the connection",
            ),
            request_id,
        )

    def _hello_overdue(self, session: Session) -> None:
        """Close a connection that has not said hello in time. One whose hello is being
        answered is not closed for it: a new player's creation in doubt (a stalled store)
        is repeated until its outcome is known, and the answer says which; a hello
        the store failed (nothing made) leaves a whole timeout for another."""
        if session.player is not None or session.ws.protocol.state is not OPEN:
            return
        timeout = self.limits.hello_timeout
        since = time.monotonic() - session.answered_at
        if session.busy or since < timeout:
            later = timeout if session.busy else timeout - since
            asyncio.get_running_loop().call_later(later, self._hello_overdue, session)
            return
        self.spawn(self.sessions.close(session.ws, CloseCode.POLICY_VIOLATION, "no hello in time"))

    def _hello_failed(self, session: Session) -> None:
        """A hello or login the store failed (held past the timeout, perhaps): a whole
        timeout for another; a wrong password or token gives none."""
        if session.player is None:
            session.answered_at = time.monotonic()

    async def on_frame(self, session: Session, data: bytes) -> None:
        started = time.perf_counter()
        request_id: RequestId | None = None
        try:
            frame = decode(data, self._decode_limits)
            msg = validate(frame)
            request_id = msg.id
            # a `login` may come first, instead of `hello`: no guest is made to sign in
            if session.player is None and not isinstance(msg, Hello | Ping | Login):
                raise ProtocolError(ErrorCode.NOT_WELCOMED, "say hello first")
            await self.handle(session, msg, started)
        except ProtocolError as e:
            self.sessions.send_error(session, e, request_id)
            if e.code is ErrorCode.STORE_UNAVAILABLE:  # a token's lookup or a login's
                self._hello_failed(session)  # counter left in doubt, nothing done
            if e.code is ErrorCode.UNSUPPORTED_VERSION:
                await self.sessions.close(
                    session.ws, CloseCode.PROTOCOL_ERROR, "unsupported version"
                )
        except Refusal as e:
            self.sessions.send_error(session, refusal_error(e), request_id)
        except StoreError as e:
            self.sessions.send_error(session, store_error(e), request_id)
            if e.code == "store_unavailable":
                self._hello_failed(session)
        except GaveUp as e:
            # the server stopped with the write in doubt: no answer is true but none (it
            # may have landed); the connection closes with 1001, the next host settles it
            log.info("request left in doubt by the shutdown", extra={"why": str(e)})
        except ConnectionClosed:
            raise
        except Exception:
            log.exception("request failed")
            self.sessions.send_error(
                session,
                ProtocolError(ErrorCode.INTERNAL_ERROR, "the server failed to handle this request"),
                request_id,
            )


def refusal_error(e: Refusal) -> ProtocolError:
    details = {k: v for k, v in e.details.items() if k != "field"}
    field_ = e.details.get("field")
    return ProtocolError(ErrorCode(e.code), e.message, field=field_, details=details)


def store_error(e: StoreError) -> ProtocolError:
    return ProtocolError(ErrorCode(e.code), e.message, details=e.details)
