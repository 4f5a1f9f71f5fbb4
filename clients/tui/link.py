"""A player's session that outlives its connections.

The token from the first `welcome` is kept for the life of the process; when
the connection drops, `Link` reconnects with exponential backoff (and jitter, so
a restarted server is not hit by every client at once) and says `hello` with
the token, so the server resumes the same player and seats. A token the server
no longer knows (a restarted server without Redis) falls back to a new player
with the same name (the last welcome's: a player resumed by its token keeps its
own, not the one this process was started with), and says so; for an account
(`account`: the username and password `stud-client play --user` asked for, kept
in memory only) it signs in again instead; if that password no longer signs in
(changed on another device, which also closes this connection), it goes on as a
new guest and says so.

A casino may run several server processes on one store: the token is good at
any of them. `fleet` holds the others' addresses (the lobby's rows name those
hosting tables; `known`, the ones the player named, a standby among them);
a process that cannot be reached is left for the next of them, so a player whose
server died reaches the one that took its tables over. `follow` moves the link
to another process on purpose (a table hosted there).

One connection per player on each process: a newer one with the same session (another
terminal, the browser's "Play here", `--user` signed in elsewhere) closes this one with
1000 (PROTOCOL.md section 3). Reconnecting would take the session back, and the two
would take it from each other for ever: the link says it plays elsewhere (`replaced`)
and waits for the player to take it back on purpose (`play_here`).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
import socket
from collections.abc import Awaitable, Callable
from typing import Any, Final
from urllib.parse import urlsplit

from websockets.exceptions import ConnectionClosed, WebSocketException

from clients.connection import FrameListener, ServerError, StudClient

Welcomed = Callable[[dict[str, Any], bool], Awaitable[None]]  # (welcome, session_lost)
StatusListener = Callable[[str], None]


#: Seconds a lobby row naming a process just failed (or left) reads as its own, left
#: behind: a dead host's row is said `silent` well within this (its leases' time).
LEFT_BEHIND: Final = 15.0


class NotConnected(ConnectionError):
    """A request while the link is down; the caller shows it and the player retries."""


#: A hello refused for what it says, not for how the server is now: trying again is no use.
REFUSED_FOR_GOOD: Final = frozenset(
    {"bad_frame", "missing_field", "invalid_field", "unknown_type", "unsupported_version"}
)

#: the status while another connection plays the session (the app offers its key)
ELSEWHERE_STATUS: Final = "playing elsewhere"

#: the close code of a connection the same player's newer one replaced (PROTOCOL.md §8)
REPLACED_CODE: Final = 1000


def replaced_by_server(client: StudClient) -> str | None:
    """The server's reason when it closed `client` first with 1000 (its player connected
    again elsewhere), else None: a close this side began (a `follow`, a ping unanswered)
    or any other code is a lost link, reconnected as ever."""
    protocol = client.ws.protocol
    rcvd = protocol.close_rcvd
    if rcvd is None or rcvd.code != REPLACED_CODE or not protocol.close_rcvd_then_sent:
        return None
    return rcvd.reason or "replaced by a new connection"


def unreachable(url: str, e: BaseException) -> str:
    """Why a connection to `url` failed, in a player's words (never an exception's name),
    short enough that the status with its retry fits one line of 80 columns."""
    where = f"server {urlsplit(url).netloc or url}"
    if isinstance(e, ConnectionRefusedError):
        return f"{where} refused the connection"  # nothing listens there: not running
    if isinstance(e, TimeoutError):
        return f"{where} does not answer"  # it takes the connection, says nothing
    if isinstance(e, socket.gaierror):
        return f"{where} is not found"  # no such host name
    if isinstance(e, WebSocketException):
        return f"{where} did not open a game connection"  # not a casino-stud server
    return f"{where} cannot be reached"


class Link:
    def __init__(
        self,
        url: str,
        name: str,
        *,
        on_frame: FrameListener,
        on_welcome: Welcomed,
        on_status: StatusListener,
        backoff: tuple[float, float] = (0.25, 8.0),
        request_timeout: float = 15.0,
        liveness: tuple[float, float] = (2.0, 3.0),
    ) -> None:
        self.url = url
        self.home = url  # the process first asked for: the ring of processes starts there
        self.name = name
        self.on_frame = on_frame
        self.on_welcome = on_welcome
        self.on_status = on_status
        self.backoff = backoff
        self.request_timeout = request_timeout
        # a link can die without a close (Wi-Fi gone, a frozen server): a WebSocket ping
        # every liveness[0] seconds, the link lost when one has no pong in liveness[1]
        self.liveness = liveness
        self.token: str | None = None
        self.account: tuple[str, str] | None = None  # (username, password) to sign in with
        self.signed_out: str | None = None  # the account whose password no longer signs in
        self.client: StudClient | None = None
        self.welcome: dict[str, Any] = {}
        self.connects = 0  # successful hellos, for the status line and tests
        self.fleet: list[str] = []  # the casino's other processes, to try when this one is down
        self.known: list[str] = []  # more of them, given by the player (a standby hosts nothing)
        self._stopping = False
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()  # cuts a wait before the next try short (`follow`)
        self._going: str | None = None  # the process `follow` asked for
        self._closing: asyncio.Task[None] | None = None
        self._failed: dict[str, float] = {}  # url -> when a try to reach it last failed
        self.refused: str | None = None  # the server's words for a hello no retry can change
        # the server's reason while another connection of the player's plays (this one was
        # replaced): no reconnect until `play_here`
        self.replaced: str | None = None

    @property
    def connected(self) -> bool:
        return self.client is not None and not self.client.closed.done()

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        self._stopping = True
        client = self.client
        if client is not None:
            with contextlib.suppress(Exception):
                await client.close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def follow(self, url: str) -> None:
        """Go on at the process at `url` (the same player, by the token): the connection
        here closes and the link reconnects there at once."""
        self._going = url
        self._wake.set()
        if self.client is not None:  # (the task kept: the loop holds only a weak reference)
            self._closing = asyncio.get_running_loop().create_task(self.client.close())

    def play_here(self) -> None:
        """Take the session back from the connection that replaced this one (the player
        asked): the link connects again at once, which closes that one."""
        if self.replaced is not None:
            self.replaced = None
            self._wake.set()

    def failed_lately(self, url: str, within: float = LEFT_BEHIND) -> bool:
        """Whether a try to reach `url` failed in the last `within` seconds: a lobby row
        naming it is its own, left behind, not where a table went."""
        when = self._failed.get(url)
        return when is not None and asyncio.get_running_loop().time() - when < within

    def _next_url(self) -> str:
        """After a failed try: the next process of the casino, in turn (this one if alone)."""
        ring = list(dict.fromkeys([self.home, *self.known, *self.fleet]))  # one order always
        return ring[(ring.index(self.url) + 1) % len(ring)] if self.url in ring else ring[0]

    async def request(self, t: str, **fields: Any) -> dict[str, Any]:
        client = self.client
        if self.replaced is not None:
            raise NotConnected("playing elsewhere: nothing was sent; g plays here again")
        if client is None or client.closed.done():
            raise NotConnected("not connected to the server: nothing was sent; reconnecting…")
        try:
            return await asyncio.wait_for(client.request(t, **fields), self.request_timeout)
        except ConnectionClosed:  # the frame could not be sent: the link died just now
            raise NotConnected("the connection was lost: nothing was sent; reconnecting…") from None

    async def _run(self) -> None:
        delay, misses = self.backoff[0], 0
        while not self._stopping:
            if self.replaced is not None:
                self.on_status(ELSEWHERE_STATUS)
                await self._wake.wait()  # `play_here`, or `follow` (a table elsewhere)
                self.replaced, delay, misses = None, self.backoff[0], 0
            if self._going is not None:
                self.url, self._going, delay = self._going, None, self.backoff[0]
            self._wake.clear()
            self.on_status("connecting…" if self.connects == 0 else "reconnecting…")
            try:
                client = await StudClient.open(
                    self.url,
                    history=False,
                    ping_interval=self.liveness[0],
                    ping_timeout=self.liveness[1],
                    close_timeout=1.0,  # a dead link answers no close either: don't wait on it
                    # a frozen process takes the TCP connection, then never answers
                    open_timeout=sum(self.liveness),
                )
            except (OSError, WebSocketException, TimeoutError) as e:
                misses += 1
                gone = self.url
                self._failed[gone] = asyncio.get_running_loop().time()
                # twice in a row: not a blip, the process is down; a hang once: it is
                # frozen (its kernel still takes the connection, nothing answers it)
                if misses >= 2 or isinstance(e, TimeoutError):
                    self.url, misses = self._next_url(), 0
                also = f"; trying {urlsplit(self.url).netloc} next" if self.url != gone else ""
                await self._wait(delay, f"{unreachable(gone, e)}{also}")
                delay = min(delay * 2, self.backoff[1])
                continue
            client.listeners.append(self.on_frame)
            try:
                session_lost = await self._hello(client)
                if self._going is not None:  # asked to go to another process meanwhile
                    continue
                self.client = client
                self.connects += 1
                delay, misses = self.backoff[0], 0
                self._failed.pop(self.url, None)
                self.on_status("connected")
                await self.on_welcome(self.welcome, session_lost)
                await client.closed
                self.replaced = replaced_by_server(client)
            except ServerError as e:
                if e.code in REFUSED_FOR_GOOD:
                    # the same hello gets the same answer (a name over the limit): say it
                    # and stop, not 'connection lost; retrying' for ever
                    self.refused = str(e.frame.get("message") or e.code)
                    self.on_status(f"the server refused to let you in: {self.refused}")
                    return
                self.on_status(f"connection failed: {e}")
            except (ConnectionError, ConnectionClosed, TimeoutError) as e:
                self.on_status(f"connection failed: {e}")
            finally:
                self.client = None
                with contextlib.suppress(Exception):
                    await client.close()
            if not self._stopping and self._going is None and self.replaced is None:
                await self._wait(delay, "connection lost")
                delay = min(delay * 2, self.backoff[1])

    async def _hello(self, client: StudClient) -> bool:
        """Resume with the token if there is one; True when it was refused and the
        server made a new player (the old seats and wallet are gone)."""
        if self.token is not None:
            try:
                self.welcome = await asyncio.wait_for(
                    client.hello(token=self.token), self.request_timeout
                )
                self._named()
                return False
            except ServerError as e:
                if e.code != "invalid_token":
                    raise
        session_lost = self.token is not None
        if self.account is not None:
            try:
                self.welcome = await asyncio.wait_for(
                    client.login(*self.account), self.request_timeout
                )
                session_lost = False  # the account is the same, wherever it signs in
            except ServerError as e:
                if e.code not in ("bad_credentials", "too_many_attempts"):
                    raise
                # the password was changed on another device, which signed this one out:
                # go on as a new guest, and never try the old password again (each try
                # would count towards the account's lockout)
                self.signed_out = self.account[0]
                self.account = None
        if self.account is None:  # a guest, or one that could not sign in
            self.welcome = await asyncio.wait_for(
                client.hello(name=self.name), self.request_timeout
            )
        self.token = str(self.welcome["token"])
        self._named()
        return session_lost

    def _named(self) -> None:
        """Keep the name the player has now (a resumed one's, not the one this process
        was started with): a new player made once the token is lost goes on under it."""
        self.name = str(self.welcome.get("name") or self.name)

    async def _wait(self, delay: float, why: str) -> None:
        """The pause before the next try, counted down second by second on the status
        line (it read "retrying in 8s" until the try)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + delay * random.uniform(0.8, 1.2)
        while (left := end - loop.time()) > 0 and not self._wake.is_set():
            self.on_status(f"{why}; retrying in {math.ceil(left)}s")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), left - math.ceil(left) + 1)


async def sign_in(
    url: str, name: str, username: str, password: str, *, register: bool = False
) -> str:
    """Check an account's password before the table opens; its session token.

    With `register`, a new guest called `name` becomes the account `username`
    first. Raises ServerError (bad_credentials, username_taken, ...) as the server
    words it, and OSError when the server cannot be reached.
    """
    client = await StudClient.open(url, history=False)
    try:
        if register:
            await client.hello(name=name)
            await client.register(username, password)
            return client.token
        welcome = await client.login(username, password)  # first: no guest is made
        return str(welcome["token"])
    finally:
        await client.close()
