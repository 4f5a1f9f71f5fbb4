"""A connection to Redis that outlives a Redis restart, for `RedisStore`.

The store's scripts are loaded with SCRIPT LOAD when a connection opens and re-loaded
on NOSCRIPT; the namespace's origin mark is checked on every new connection
(`redis_origin`), so a Redis back without its data is told from one that kept it,
and so is the link's age (`keep_age`: a count of its writes), so a Redis back on
older data (a backup restored while it was down) is told from one that kept all.

Connection loss: a call made while there is no connection fails at once with
`StoreUnavailable` (nothing was sent) and a background task reconnects with
exponential backoff (with jitter, capped at `max_backoff`); calls made meanwhile
wait at most `reconnect_wait` for it. A write that was sent but got no answer
(`timeout`, or the connection lost after sending) raises `OutcomeUnknown`: the
script may still run (a paused Redis reads it when it resumes), so the caller
repeats it with the same operation id until the outcome is definite.
asyncio-redis' own auto_reconnect is off: it retries forever inside
`Connection.create` and its backoff grows to 60 s.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import random
import secrets
import socket
import weakref
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

import asyncio_redis

from server.stores.base import NAMESPACE, OutcomeUnknown, StoreError, StoreUnavailable
from server.stores.redis_origin import ACCEPT, ORIGIN_KEY, DataLost, check, find_or_mark
from server.stores.redis_replies import error_reply
from server.stores.redis_scripts import script_sources
from server.stores.retry_log import RetryLog

__all__ = ["LOST", "RedisLink", "describe", "parse_redis_url"]

log = logging.getLogger("stud.store")
T = TypeVar("T")

#: asyncio-redis' reply parser in C (hiredis, a dependency): replies are parsed without
#: a Python coroutine and future per item (BENCHMARKS.md measures it).
PROTOCOL: Any = asyncio_redis.HiRedisProtocol
#: The key `probe_writes` sets, under the namespace's prefix.
PROBE_KEY = "probe"
#: What asyncio-redis raises when the connection is gone or cannot be made.
LOST = (asyncio_redis.NotConnectedError, OSError, EOFError)
#: How far below the highest count a write may be answered and still be a count of its
#: own: replies come in order, their callers resume nearly so (a turn's writes are one call)
AGE_WINDOW = 4096
#: Per namespace of a Redis: this process's links (the store's, the fleet's) that find
#: its data gone now. The first to find it logs the loss, the last to find it back the
#: return: once per process, not once per connection. Held weakly: a link dropped
#: without `close()` leaves, and never hides the next loss's line.
_FOUND_LOST: dict[str, weakref.WeakSet[RedisLink]] = {}


def parse_redis_url(url: str) -> tuple[str, int, int, str | None]:
    """(host, port, db, password) from redis://[:password@]host[:port][/db] or unix:///path."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return parts.path, 0, 0, unquote(parts.password) if parts.password else None
    if parts.scheme != "redis":
        raise StoreError(f"unsupported Redis URL {url!r}: use redis://host:port/db")
    if parts.username and parts.username != "default":
        raise StoreError("asyncio-redis authenticates with a password only, not an ACL user")
    path = parts.path.strip("/")
    if path and not path.isdigit():
        raise StoreError(f"bad Redis database number in {url!r}")
    password = unquote(parts.password) if parts.password else None
    return parts.hostname or "127.0.0.1", parts.port or 6379, int(path or 0), password


class RedisLink:
    """One live connection to Redis, replaced in the background when lost; commands
    and scripts run on it with connection trouble turned into `StoreError`."""

    def __init__(
        self,
        url: str,
        namespace: str = "stud",
        *,
        timeout: float = 5.0,
        reconnect_wait: float = 1.0,
        max_backoff: float = 5.0,
    ) -> None:
        if not NAMESPACE.fullmatch(namespace):
            raise StoreError(f"a namespace is 1-64 of A-Z a-z 0-9 _ . -: {namespace!r}")
        self.url = url
        self.host, self.port, self.db, self._password = parse_redis_url(url)
        self.namespace = namespace
        self.prefix = f"{{{namespace}}}:"
        self.timeout = timeout
        self.reconnect_wait = reconnect_wait
        self.max_backoff = max_backoff
        self._sources = script_sources()
        self._shas: dict[str, str] = {}
        self._loaded_for_callers: set[str] = set()  # eval_script shas loaded once already
        self._conn: Any = None  # asyncio_redis.Connection while connected
        self._ready = asyncio.Event()
        self._reconnecting: asyncio.Task[None] | None = None
        self._closed = False
        self.reconnects = 0
        self.origin = ""  # the namespace's mark, found on the first connection
        self.data_lost = False  # Redis came back without it: unavailable until it is back
        #: called once the data is back (restored), as the connection becomes ready: what
        #: was shown meanwhile may differ from the restored data, and reads of it failed
        self.on_data_back: Callable[[], None] | None = None
        self.returns = 0  # how many times the data came back after it was found lost
        self.accept_loss = False  # `accept-empty-store`: a namespace found emptied is taken
        #: which of the process's connections this is, named in its log lines: "store"
        #: (the tables' money), or "fleet" (leases and the lobby, a connection of its own)
        self.role = "store"
        #: the store's age (scripts/_lib.lua `aged`): a counter of this link's script
        #: writes, and the highest value a write was answered with. Data found younger on
        #: a reconnect went back in time (a backup restored while Redis was down): the
        #: data is back, as after a loss found. None: no age kept (`keep_age` turns it on).
        self.age_key: str | None = None
        self.age = 0
        self._old_ages: list[str] = []  # keys of counts given up, deleted when next connected
        #: the counts answered lately: each write is answered a count of its own, so one
        #: answered twice is the data gone back under this live connection (an older dump
        #: loaded in place), which no reconnect reads
        self._answered: set[int] = set()
        #: called, once per count, when a write's answer finds the data gone back so
        #: (the app starts its tables over and sends every wallet); else the count restarts
        self.on_went_back: Callable[[], None] | None = None

    @property
    def connected(self) -> bool:
        """Whether the store has a live connection right now (for /healthz)."""
        conn = self._conn
        return conn is not None and bool(conn.protocol.is_connected)

    async def close(self) -> None:
        if self.data_lost and not self._closed:
            self._lost_here(-1)  # no return to log: this connection is gone
        self._closed = True
        task, self._reconnecting = self._reconnecting, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        conn, self._conn = self._conn, None
        self._ready.clear()
        ages = self._old_ages + ([self.age_key] if self.age and self.age_key else [])
        if conn is not None and ages and not self.data_lost:
            with contextlib.suppress(*LOST, TimeoutError, asyncio_redis.Error):
                async with asyncio.timeout(min(self.timeout, 1.0)):
                    await conn.delete(ages)  # no one else reads them
        if conn is not None:
            conn.close()
            await asyncio.sleep(0)  # let the transport finish closing

    @property
    def script_shas(self) -> dict[str, str]:
        """Script name -> SHA1 as loaded (for operators and tests)."""
        return dict(self._shas)

    # ----- the connection -----------------------------------------------------

    def _said(self) -> dict[str, str]:
        """The fields of this connection's log lines: where, and which link."""
        return {"redis": self._where(), "link": self.role}

    def _where(self) -> str:
        return f"{self.host}:{self.port}/{self.db}" if self.port else self.host

    async def _open(self) -> None:
        """A new connection, authenticated, its database selected, every script loaded."""
        conn = await asyncio_redis.Connection.create(
            self.host, self.port, auto_reconnect=False, protocol_class=PROTOCOL
        )
        # asyncio-redis checks every argument's type with inspect on each call (a tenth
        # of a table server's CPU under load); our calls are typed and tested.
        conn.protocol.enable_typechecking = False
        try:
            # asyncio-redis sends AUTH/SELECT from a task it does not wait for; our own
            # commands could overtake it, so do both here, in order, before anything else.
            if self._password:
                await conn.auth(self._password)
            if self.db:
                await conn.select(self.db)
            await self._load_scripts(conn)
            back = await self._check_origin(conn) or await self._went_back(conn)
            if back:
                self.restart_age()  # a new line of time: the data's counts are not this link's
            if self._old_ages:
                await conn.delete(self._old_ages)
                self._old_ages = []
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        if back:
            self.returns += 1  # a call waiting for the connection meanwhile sends nothing
            if self.on_data_back is not None:
                self.on_data_back()  # before any waiting call runs on the data back
        self._ready.set()

    async def _check_origin(self, conn: Any) -> bool:
        """Raise DataLost while the namespace's mark is not the one found first; True when
        the data was lost until now (it is back)."""
        key, where = self.prefix + ORIGIN_KEY, {"redis": self._where()}
        if not self.origin:
            self.origin = await find_or_mark(conn, key, accept_loss=self.accept_loss)
            return False
        try:
            await check(conn, key, self.origin)
        except DataLost as e:
            if not self.data_lost and self._lost_here(+1) == 1:
                log.error(
                    "%s: the tables wait until it is restored (or: %s)", e, ACCEPT, extra=where
                )
            self.data_lost = True
            raise
        back, self.data_lost = self.data_lost, False
        if back and self._lost_here(-1) == 0:
            log.warning("Redis has its data again", extra=where)
        return back

    def keep_age(self) -> None:
        """Count this link's writes from now on, under a key of its own: named for the
        host and process, so an operator can tell whose it is."""
        where = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self.age_key, self.age = f"{self.prefix}age:{where}", 0
        self._answered = set()

    def restart_age(self) -> None:
        """The data went back: count anew under a new key (the old one's count, the
        data's, would hide the next time it goes back; it is deleted once connected).
        A count with no write answered yet is kept: nothing of it can be missing."""
        if self.age_key is not None and self.age:
            self._old_ages.append(self.age_key)
            self.keep_age()

    async def _went_back(self, conn: Any) -> bool:
        """Whether the data is older than this link's last write answered: a backup
        restored with its origin mark, never seen empty. It is the data back, as after a
        loss found."""
        if self.age_key is None or not self.age:
            return False
        found = int(await conn.get(self.age_key) or 0)
        if found >= self.age:
            return False
        log.error(
            "Redis came back on older data (a backup restored?): writes answered here are "
            "missing from it (the store's age is %d, this process was answered %d)",
            found,
            self.age,
            extra={"redis": self._where()},
        )
        return True

    def take_age(self, reply: str, key: str | None = None) -> str:
        """A script's reply without the age a write puts in front ("<age>;<reply>"), for
        a write that counted under `key`. A count answered before (or far below the
        highest) means the data went back since: `on_went_back` is told."""
        if not reply[:1].isdigit():
            return reply
        age, _, rest = reply.partition(";")
        if key is not None and key != self.age_key:
            return rest  # counted under a key given up since: another line of time
        count = int(age)
        if count in self._answered or count <= self.age - AGE_WINDOW:
            self._went_back_live()
            return rest
        self._answered.add(count)
        if len(self._answered) > 2 * AGE_WINDOW:
            self._answered = {a for a in self._answered if a > self.age - AGE_WINDOW}
        self.age = max(self.age, count)
        return rest

    def _went_back_live(self) -> None:
        if self.on_went_back is not None:
            self.on_went_back()  # the app restarts every link's count (store_went_back)
        self.restart_age()

    def _lost_here(self, change: int) -> int:
        """Count this link in (`change` +1) or out (-1) of those finding the data gone;
        how many of the process's links to this namespace find it so now."""
        key = f"{self._where()} {self.prefix}"
        finding = _FOUND_LOST.setdefault(key, weakref.WeakSet())
        if change > 0:
            finding.add(self)
        else:
            finding.discard(self)
        count = len(finding)
        if not count:
            del _FOUND_LOST[key]
        return count

    def check_origin_again(self) -> None:
        """The mark was seen missing on a live connection (a FLUSHALL): reconnect, which
        reads it again and, if it is still gone, keeps the store unavailable."""
        if self._conn is not None and not self.data_lost:
            log.warning("the store's origin mark is gone under a live connection: reconnecting")
            self._lost(self._conn, None)

    async def _load_scripts(self, conn: Any) -> None:
        for name, source in self._sources.items():
            self._shas[name] = await conn.script_load(source)

    async def _connection(self) -> Any:
        """The live connection; if there is none, start reconnecting and wait a little."""
        if self._closed:
            raise StoreError("the Redis store is closed")
        conn = self._conn
        if conn is not None and conn.protocol.is_connected:
            return conn
        if conn is not None:
            self._lost(conn, None)
        self._start_reconnect()
        returns = self.returns
        try:
            await asyncio.wait_for(self._ready.wait(), self.reconnect_wait)
        except TimeoutError:
            if self.data_lost:
                raise self._data_lost() from None
            raise self._unavailable("is unreachable; reconnecting in the background") from None
        if self._conn is None:
            raise self._unavailable("was lost again while reconnecting")
        if self.returns != returns:
            # the data came back (a restore) while this call waited: what it was made for
            # may not be in the data now, so it goes back to its caller unsent
            raise self._unavailable("came back with its data restored; nothing was sent")
        return self._conn

    def _lost(self, conn: Any, exc: BaseException | None) -> None:
        if conn is not self._conn:
            return
        log.warning("Redis connection lost: %s", describe(exc), extra=self._said())
        self._conn = None
        self._ready.clear()
        conn.close()
        self._start_reconnect()

    def _start_reconnect(self) -> None:
        if self._closed or (self._reconnecting is not None and not self._reconnecting.done()):
            return
        self._reconnecting = asyncio.create_task(self._reconnect())

    async def _reconnect(self) -> None:
        """Exponential backoff with jitter until connected (or closed)."""
        delay, where = 0.05, self._said()
        failures = RetryLog(log, logging.INFO)
        while not self._closed and self._conn is None:
            try:
                await asyncio.wait_for(self._open(), self.timeout)
            except (
                *LOST,
                TimeoutError,
                DataLost,
                asyncio_redis.ErrorReply,
                asyncio_redis.Error,
            ) as e:
                pause, why = delay * random.uniform(0.5, 1.0), describe(e)
                failures.failed(
                    why, "Redis reconnect failed (%s); next try in %.2fs", why, pause, extra=where
                )
                await asyncio.sleep(pause)
                delay = min(delay * 2, self.max_backoff)
            else:
                self.reconnects += 1
                tries = {**where, "failed_tries": failures.recovered()}
                log.warning("Redis connection restored", extra=tries)

    def _unavailable(self, what: str) -> StoreUnavailable:
        error = StoreUnavailable(f"the game's data store (Redis) {what}; please try again shortly")
        error.cause = f"Redis {what}"  # the log's words: no advice meant for players
        return error

    def _data_lost(self) -> StoreUnavailable:
        # not "try again shortly": it waits for an operator
        error = StoreUnavailable(
            "the game's data store (Redis) came back without its data; "
            "play waits until an operator restores it"
        )
        error.cause = "Redis came back without its data (restore it, or accept the loss)"
        error.data_lost = True
        return error

    async def ping(self) -> None:
        await self._run("a PING", lambda conn: conn.ping())

    async def probe_writes(self) -> None:
        """A harmless write (a key of its own, expiring): a PING is answered by a Redis
        that refuses every write (too few replicas, a failed save, out of memory, a
        read-only replica)."""
        await self._run(
            "a probe write", lambda conn: conn.set(self.prefix + PROBE_KEY, "1", expire=60)
        )

    async def run(
        self, what: str, command: Callable[[Any], Awaitable[T]], *, write: bool = False
    ) -> T:
        """Run `command(connection)` on the live connection; connection trouble (lost,
        unreachable, no answer within `timeout`) becomes StoreError, and a lost
        connection is replaced in the background. A `write` that was sent but not
        answered raises OutcomeUnknown. For plain commands; scripts go through
        `eval_script`, which survives a Redis restart."""
        return await self._run(what, command, write=write)

    async def _run(
        self, what: str, command: Callable[[Any], Awaitable[T]], *, write: bool = False
    ) -> T:
        conn = await self._connection()  # StoreUnavailable here: nothing was sent
        try:
            async with asyncio.timeout(self.timeout):  # no task per call, as wait_for makes
                return await command(conn)
        except LOST as e:
            self._lost(conn, e)
            # the connection went, not (as far as is known) Redis
            if write:
                raise self._unknown(f"connection dropped during {what}") from e
            raise self._unavailable(f"connection dropped during {what}") from e
        except TimeoutError as e:
            if write:
                # the command may be sitting in a paused Redis's socket: drop the
                # connection so its answer cannot be mistaken for a later command's
                self._lost(conn, e)
                raise self._unknown(f"did not answer {what} within {self.timeout}s") from e
            raise self._unavailable(f"did not answer {what} within {self.timeout}s") from e
        except asyncio_redis.ErrorReply as e:
            raise error_reply(what, str(e.args[0] if e.args else e), write=write) from e

    def _unknown(self, what: str) -> OutcomeUnknown:
        return OutcomeUnknown(f"the game's data store (Redis) {what}; the outcome is unknown")

    async def eval_script(
        self,
        source: str,
        keys: Sequence[str] = (),
        args: Sequence[str] = (),
        *,
        write: bool = True,
    ) -> Any:
        """Run a Lua script of the caller's with the store's connection handling.

        EVALSHA on the live connection, the script loaded on NOSCRIPT (first use,
        Redis restarted); connection trouble raises StoreError. Keys should be under
        `prefix`. Returns the reply as asyncio-redis decodes it (int, str, list, None).
        """
        sha = hashlib.sha1(source.encode()).hexdigest()
        first_use = sha not in self._loaded_for_callers

        async def load(conn: Any) -> None:
            await conn.script_load(source)
            self._loaded_for_callers.add(sha)

        return await self._evalsha(
            "a script", sha, list(keys), list(args), load, write=write, first_use=first_use
        )

    async def _evalsha(
        self,
        what: str,
        sha: str,
        keys: list[str],
        args: list[str],
        load: Callable[[Any], Awaitable[None]],
        *,
        write: bool,
        first_use: bool = False,
    ) -> Any:
        """EVALSHA; on NOSCRIPT (Redis restarted, SCRIPT FLUSH; or a caller's script's
        `first_use`, which is no news) `load` and retry once."""

        async def evalsha(conn: Any) -> Any:
            try:
                reply = await conn.evalsha(sha, keys, args)
            except asyncio_redis.ScriptKilledError as e:
                # asyncio-redis turns every error reply to EVALSHA into a bare
                # ScriptKilledError; the reply itself is the exception's __context__.
                message = str(e.__context__ or "the script was killed")
                if message.startswith("NOSCRIPT"):
                    raise _NoScript(
                        f"Redis lost the store's scripts before {what} ran: nothing was applied"
                    ) from e
                raise error_reply(what, message, write=write) from e
            return await _reply_value(reply)

        try:
            return await self._run(what, evalsha, write=write)
        except _NoScript:  # the script did not run: loading it and running it again is safe
            if first_use:
                log.debug("loading a script into Redis on its first use")
            else:
                log.warning("Redis lost the store's scripts (restart or SCRIPT FLUSH): reloading")
            await self._run("SCRIPT LOAD", load)
            return await self._run(what, evalsha, write=write)


async def _reply_value(reply: Any) -> Any:
    """A script's reply as Python, as `EvalScriptReply.return_value()` gives it, but
    without the self-referencing closure that method builds on every call: at
    thousands of script calls a second, garbage that only the cycle collector frees
    (it was all the collector found; with none, its young threshold can be raised,
    see `server.app.tune_gc`). A nested reply (none on the hot path) goes through the
    library."""
    value = reply._value  # the parsed reply, and the protocol that decodes bytes
    if isinstance(value, bytes):
        return reply._protocol.decode_to_native(value)
    if value is None or isinstance(value, int):
        return value
    return await reply.return_value()


class _NoScript(StoreUnavailable):
    """EVALSHA found no script: Redis restarted or its script cache was flushed. Nothing
    ran, so nothing was applied: met again after the reload (flushes a few ms apart),
    it is the store unavailable for now (a bare exception, it dropped a table's duty)."""


def describe(exc: BaseException | None) -> str:
    if exc is None or (isinstance(exc, asyncio_redis.ConnectionLostError) and not exc.exception):
        return "connection closed"
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
