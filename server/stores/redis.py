"""The Redis store: the shared state of a fleet of server processes, via asyncio-redis.

Every change that moves money or must be atomic is one Lua script (see
`scripts/`): loaded with SCRIPT LOAD when a connection opens, run with EVALSHA,
re-loaded and retried once on NOSCRIPT (Redis restarted or SCRIPT FLUSH); the
bets and applies of one event-loop turn run together in `batch.lua` (one
EVALSHA, each with its own outcome: server/stores/batches.py). A
script runs with nothing else in between and is sent whole or not at all, so a
lost connection never leaves half of one applied; every script checks before
its first write, so a refusal applies nothing (Redis does not roll back a
script that fails after writing: the checks are what make a write all or
nothing). Results match `MemoryStore` call for call; the contract tests run
both.

Keys, all under the prefix `{namespace}:` (one Redis Cluster hash slot, so a
script may touch any of them; tests and deployments never collide):

    acct                     hash  account -> cents ("player:<id>", "house",
                                   "meter:<jackpot>", "world")
    bonus, held              hash  player id -> cents
    players                  hash  player id -> {"name": ..., "username": ... (accounts)}
    tokens                   hash  sha256(session token) -> player id
    tokens:used              hash  sha256(session token) -> when last used (Unix seconds)
    ptokens:<player id>      set   the player's token hashes (revoked on a password change)
    users                    hash  case-folded username -> {"player": id, "hash": argon2id}
    fails:user:<name>        string failed password checks for a username, expiring
    fails:addr:<address>     string failed password checks from a client address, expiring
    seeds                    hash  jackpot -> seed cents (the meters that exist)
    round:<id>               hash  table, state (open|settled|voided), digest, result
    round:<id>:ledger        list  every transfer applied for the round (the journal)
    round:<id>:holds         hash  seat -> cents held, "<seat>:player" -> player id
    round:<id>:ops           hash  operation id -> its first result (JSON), or "dead"
    buyops:<player id>       hash  a player's buy-in operation ids -> the cents bought, or "dead"
    table:<id>:open          set   the table's open round ids
    owner:<table>            string "<process>@<epoch>": the table's lease, with its TTL
    epoch:<table>            string the table's current epoch (grows with every claim)
    hist:player:<id>         list  the player's last HISTORY_LIMIT rounds, newest first
    hist:table:<id>          list  the table's last HISTORY_LIMIT rounds, newest first
    hits:<jackpot>           list  the last HITS_LIMIT percent claims, newest first

Closed rounds expire after `retention` seconds: settling is idempotent within
that window. Amounts and balances stay below 2**53 cents (Lua numbers are
doubles); `MAX_CENTS` is checked on the way in.

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
import hashlib
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

import asyncio_redis
import orjson

from server.game.ledger import Hold, JackpotClaim, Transfer, players_of
from server.stores.base import (
    HISTORY_LIMIT,
    HITS_LIMIT,
    MAX_CENTS,
    NAMESPACE,
    Claim,
    ClaimPaid,
    Credentials,
    Failures,
    Fence,
    InvalidRequest,
    OutcomeUnknown,
    Player,
    Settled,
    StoreError,
    StoreUnavailable,
    Wallet,
    bet_owner,
    buy_in_error,
    check_cents,
    check_entries,
    fold_username,
    new_player,
    one_round,
    purchase_limit_error,
    record_json,
    record_players,
    token_hash,
    transfer_row,
    transfers_digest,
    wallet_ids,
)
from server.stores.batches import Batches
from server.stores.redis_origin import ACCEPT, ORIGIN_KEY, DataLost, check, find_or_mark
from server.stores.redis_replies import (
    BuyInRefused,
    claim_of,
    error_reply,
    history_entry,
    hold_row,
    refusal,
    wallets_of,
)
from server.stores.redis_scripts import BATCHED, script_sources
from server.stores.retry_log import RetryLog

__all__ = ["RedisStore", "parse_redis_url"]

log = logging.getLogger("stud.store")
T = TypeVar("T")

#: asyncio-redis' reply parser in C (hiredis, a dependency): replies are parsed without
#: a Python coroutine and future per item (BENCHMARKS.md measures it).
PROTOCOL: Any = asyncio_redis.HiRedisProtocol
#: What asyncio-redis raises when the connection is gone or cannot be made.
_LOST = (asyncio_redis.NotConnectedError, OSError, EOFError)


def _request_json(request: Any) -> str:
    """A script's request as JSON. orjson takes a tenth of the time of json's encoder
    (2.2 against 0.2 µs a write), which was 4 % of the server at load. Transfer
    digests keep json's encoder: a replay is told by its digest (`transfers_digest`)."""
    return orjson.dumps(request).decode()


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


class RedisStore:
    """A `Store` on Redis; build it with `await RedisStore.connect(url)`."""

    def __init__(
        self,
        url: str,
        namespace: str = "stud",
        *,
        timeout: float = 5.0,
        reconnect_wait: float = 1.0,
        max_backoff: float = 5.0,
        retention: int = 7 * 86_400,
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
        self.retention = retention
        self.wall_clock: Callable[[], float] = time.time  # when a session token was used
        self._sources = script_sources()
        self._shas: dict[str, str] = {}
        self._loaded_for_callers: set[str] = set()  # eval_script shas loaded once already
        self._batches = Batches(self._send_writes, self._unknown)
        self._conn: Any = None  # asyncio_redis.Connection while connected
        self._ready = asyncio.Event()
        self._reconnecting: asyncio.Task[None] | None = None
        self._closed = False
        self.reconnects = 0
        self.origin = ""  # the namespace's mark, found on the first connection
        self.data_lost = False  # Redis came back without it: unavailable until it is back
        self.accept_loss = False  # `accept-empty-store`: a namespace found emptied is taken

    @property
    def connected(self) -> bool:
        """Whether the store has a live connection right now (for /healthz)."""
        conn = self._conn
        return conn is not None and bool(conn.protocol.is_connected)

    @classmethod
    async def connect(
        cls,
        url: str,
        namespace: str = "stud",
        *,
        timeout: float = 5.0,
        reconnect_wait: float = 1.0,
        max_backoff: float = 5.0,
        retention: int = 7 * 86_400,
        accept_loss: bool = False,
    ) -> RedisStore:
        """Connect and load the scripts, or raise StoreError: a server should not start
        without its store, so the first connection is not retried. `accept_loss`: take a
        namespace a process found emptied as a new one (redis_origin)."""
        store = cls(
            url,
            namespace,
            timeout=timeout,
            reconnect_wait=reconnect_wait,
            max_backoff=max_backoff,
            retention=retention,
        )
        store.accept_loss = accept_loss
        try:
            await asyncio.wait_for(store._open(), timeout)
        except DataLost as e:
            raise StoreError(f"cannot use Redis at {store._where()}: {e}") from e
        except (*_LOST, TimeoutError, asyncio_redis.ErrorReply, asyncio_redis.Error) as e:
            raise StoreError(f"cannot use Redis at {store._where()}: {_describe(e)}") from e
        return store

    async def close(self) -> None:
        self._closed = True
        task, self._reconnecting = self._reconnecting, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        conn, self._conn = self._conn, None
        self._ready.clear()
        if conn is not None:
            conn.close()
            await asyncio.sleep(0)  # let the transport finish closing

    @property
    def script_shas(self) -> dict[str, str]:
        """Script name -> SHA1 as loaded (for operators and tests)."""
        return dict(self._shas)

    # ----- the connection -----------------------------------------------------

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
            await self._check_origin(conn)
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        self._ready.set()

    async def _check_origin(self, conn: Any) -> None:
        key, where = self.prefix + ORIGIN_KEY, {"redis": self._where()}
        if not self.origin:
            self.origin = await find_or_mark(conn, key, accept_loss=self.accept_loss)
            return
        try:
            await check(conn, key, self.origin)
        except DataLost as e:
            if not self.data_lost:
                log.error(
                    "%s: the tables wait until it is restored (or: %s)", e, ACCEPT, extra=where
                )
            self.data_lost = True
            raise
        if self.data_lost:
            log.warning("Redis has its data again", extra=where)
        self.data_lost = False

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
        try:
            await asyncio.wait_for(self._ready.wait(), self.reconnect_wait)
        except TimeoutError:
            if self.data_lost:
                raise self._data_lost() from None
            raise self._unavailable("is unreachable; reconnecting in the background") from None
        if self._conn is None:
            raise self._unavailable("was lost again while reconnecting")
        return self._conn

    def _lost(self, conn: Any, exc: BaseException | None) -> None:
        if conn is not self._conn:
            return
        log.warning("Redis connection lost: %s", _describe(exc), extra={"redis": self._where()})
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
        delay, where = 0.05, {"redis": self._where()}
        failures = RetryLog(log, logging.INFO)
        while not self._closed and self._conn is None:
            try:
                await asyncio.wait_for(self._open(), self.timeout)
            except (
                *_LOST,
                TimeoutError,
                DataLost,
                asyncio_redis.ErrorReply,
                asyncio_redis.Error,
            ) as e:
                pause, why = delay * random.uniform(0.5, 1.0), _describe(e)
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
        return StoreUnavailable(f"the game's data store (Redis) {what}; please try again shortly")

    def _data_lost(self) -> StoreUnavailable:
        # not "try again shortly": it waits for an operator
        return StoreUnavailable(
            "the game's data store (Redis) came back without its data; "
            "play waits until an operator restores it"
        )

    async def ping(self) -> None:
        await self._run("a ping", lambda conn: conn.ping())

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
        except _LOST as e:
            self._lost(conn, e)
            if write:
                raise self._unknown(f"was lost during {what}") from e
            raise self._unavailable(f"was lost during {what}") from e
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

    async def _script(
        self, name: str, request: Any, text: str | None = None, *, write: bool = True
    ) -> Any:
        """Run one of the store's scripts; its {"err": ...} reply becomes the StoreError."""
        if name in BATCHED and write:
            data = await self._batches.add(name, (request, text))
        else:
            args = [self.prefix, _request_json(request)]
            if text is not None:
                args.append(text)
            what = f"the {name} script"
            reply = await self._evalsha(
                what, self._shas[name], [], args, self._load_scripts, write=write
            )
            data = orjson.loads(reply)
        if data.get("err") == "store_lost":  # a FLUSHALL under this live connection
            self.check_origin_again()
            raise self._data_lost()
        if "err" in data:
            raise refusal(data)
        return data

    async def _send_writes(self, writes: list[tuple[str, Any]]) -> list[Any]:
        """One write runs its own script; several run in `batch.lua`, one EVALSHA. Each
        write is (script, (request, text or None)); a text (a round record) goes as an
        argument of its own, not escaped inside the request's JSON."""
        if len(writes) == 1:
            name, (request, text) = writes[0]
            sha, what = self._shas[name], f"the {name} script"
            args = [self.prefix, _request_json(request)]
            if text is not None:
                args.append(text)
        else:
            items: list[list[Any]] = []
            texts: list[str] = []
            for name, (request, text) in writes:
                if text is None:
                    items.append([name, request])
                else:
                    texts.append(text)
                    items.append([name, request, 2 + len(texts)])  # its ARGV index
            sha, what = self._shas["batch"], f"{len(writes)} table writes"
            args = [self.prefix, _request_json(items), *texts]
        reply = orjson.loads(
            await self._evalsha(what, sha, [], args, self._load_scripts, write=True)
        )
        return [reply] if len(writes) == 1 else list(reply)

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

    # ----- identity -----------------------------------------------------------

    async def create_player(
        self, name: str, credits: int, bonus: int, player: Player | None = None
    ) -> Player:
        check_cents("credits", credits)
        check_cents("bonus", bonus)
        player = player or new_player(name)
        request = {
            "id": player.player_id,
            "name": name,
            "token_hash": token_hash(player.token),
            "now": self.wall_clock(),
            "credits": credits,
            "bonus": bonus,
        }
        await self._script("create_player", request)
        return player

    async def player_by_token(self, token: str, *, idle: float | None = None) -> Player | None:
        request = {"op": "resume", "token_hash": token_hash(token), "now": self.wall_clock()}
        found = await self._script("token", {**request, "idle": -1 if idle is None else idle})
        if not found["ok"]:
            return None
        return Player(found["ok"]["id"], found["ok"]["name"], token, found["ok"].get("username"))

    async def player_known(self, player_id: str) -> bool:
        async def known(conn: Any) -> bool:
            return bool(await conn.hexists(self.prefix + "players", player_id))

        return await self._run("a player lookup", known)

    # ----- accounts -----------------------------------------------------------

    async def register(
        self, player_id: str, username: str, password_hash: str, token: str
    ) -> Player:
        request = {
            "id": player_id,
            "username": username,
            "folded": fold_username(username),
            "hash": password_hash,
            "token_hash": token_hash(token),
            "now": self.wall_clock(),
        }
        data = (await self._script("register", request))["ok"]
        return Player(player_id, data["name"], token, data["username"])

    async def credentials(self, username: str) -> Credentials | None:
        async def lookup(conn: Any) -> Credentials | None:
            entry = await conn.hget(self.prefix + "users", fold_username(username))
            if entry is None:
                return None
            account = json.loads(entry)
            profile = await conn.hget(self.prefix + "players", account["player"])
            if profile is None:
                return None
            data = json.loads(profile)
            return Credentials(account["player"], data["username"], data["name"], account["hash"])

        return await self._run("a credentials lookup", lookup)

    async def issue_token(self, player_id: str, token: str) -> None:
        await self._script(
            "token",
            {
                "op": "issue",
                "id": player_id,
                "token_hash": token_hash(token),
                "now": self.wall_clock(),
            },
        )

    async def revoke_token(self, token: str) -> None:
        await self._script("token", {"op": "revoke", "token_hash": token_hash(token)})

    async def set_password(
        self,
        username: str,
        player_id: str,
        old_hash: str,
        new_hash: str,
        *,
        revoke_except: str | None = None,
    ) -> bool:
        request = {
            "id": player_id,
            "folded": fold_username(username),
            "old": old_hash,
            "new": new_hash,
            "keep": "" if revoke_except is None else token_hash(revoke_except),
        }
        return bool((await self._script("set_password", request))["ok"])

    async def failures(self, keys: Sequence[str]) -> list[Failures]:
        async def read(conn: Any) -> list[Failures]:
            out = []
            for key in keys:
                full = f"{self.prefix}fails:{key}"
                count = int(await conn.get(full) or 0)
                ttl_ms = await conn.pttl(full)
                out.append(Failures(count, max(ttl_ms, 0) / 1000) if count else Failures(0, 0.0))
            return out

        return await self._run("a failures read", read)

    async def add_failure(self, keys: Sequence[str], window: float) -> list[int]:
        request = {"keys": list(keys), "window_ms": max(1, int(window * 1000))}
        counts: list[int] = (await self._script("fail", request))["ok"]
        return counts

    async def clear_failures(self, key: str) -> None:
        async def clear(conn: Any) -> None:
            await conn.delete([f"{self.prefix}fails:{key}"])

        await self._run("clearing failures", clear, write=True)

    # ----- table leases -------------------------------------------------------

    async def claim(self, table_id: str, holder: str, epoch: int, ttl: float | None) -> Claim:
        return (await self.claim_many({table_id: epoch}, holder, ttl))[table_id]

    async def claim_many(
        self, held: Mapping[str, int], holder: str, ttl: float | None
    ) -> dict[str, Claim]:
        request = {
            "holder": holder,
            "ttl_ms": 0 if ttl is None else max(1, int(ttl * 1000)),
            "tables": [[table, epoch] for table, epoch in held.items()],
        }
        data = (await self._script("claim", request))["ok"] if held else {}
        return {table: claim_of(answer) for table, answer in data.items()}

    async def release(self, table_id: str, holder: str, epoch: int) -> None:
        await self.release_many({table_id: epoch}, holder)

    async def release_many(self, held: Mapping[str, int], holder: str) -> None:
        if held:
            tables = [[table, epoch] for table, epoch in held.items()]
            await self._script("release", {"holder": holder, "tables": tables})

    async def abandon(self, op: str, *, round_id: str = "", player_id: str = "") -> bool:
        if bool(round_id) == bool(player_id):
            raise InvalidRequest("abandon takes a round id or a player id")
        request = {"op": op, "round": round_id, "player": player_id, "ttl": self.retention}
        return bool((await self._script("abandon", request))["ok"])

    # ----- wallets ------------------------------------------------------------

    async def wallet(self, player_id: str) -> Wallet:
        return (await self._wallets([player_id]))[player_id]

    async def _wallets(self, player_ids: Sequence[str]) -> dict[str, Wallet]:
        data = await self._script("wallets", list(player_ids), write=False)
        return wallets_of(data["ok"])

    async def buy_chips(
        self,
        player_id: str,
        amount: int,
        max_balance: int,
        op: str,
        *,
        max_amount: int | None = None,
    ) -> Wallet:
        check_cents("max_balance", max_balance)
        request = {
            "player": player_id,
            "amount": max(min(amount, MAX_CENTS + 1), -1),  # out of range is refused anyway
            "max_balance": max_balance,
            "max_amount": -1 if max_amount is None else max_amount,
            "op": op,
            "ttl": self.retention,
        }
        try:
            data = await self._script("buy_chips", request)
        except BuyInRefused as e:
            if e.per_purchase and max_amount is not None:
                raise purchase_limit_error(max_amount, max_balance, e.balance) from None
            raise buy_in_error(max_balance, e.balance) from None
        return Wallet(*data["ok"])

    async def bet(
        self, fence: Fence, op: str, transfers: Sequence[Transfer], holds: Sequence[Hold]
    ) -> Wallet:
        player_id, round_id = bet_owner(transfers, holds)
        request = {
            "table": fence.table_id,
            "epoch": fence.epoch,
            "op": op,
            "ttl": self.retention,
            "round": round_id,
            "player": player_id,
            "transfers": [transfer_row(t) for t in transfers],
            "holds": [hold_row(h) for h in holds],
        }
        data = await self._script("bet", request)
        return Wallet(*data["ok"])

    async def apply(
        self, fence: Fence, op: str, transfers: Sequence[Transfer], holds: Sequence[Hold]
    ) -> dict[str, Wallet]:
        check_entries(transfers, holds)
        request = {
            "table": fence.table_id,
            "epoch": fence.epoch,
            "op": op,
            "ttl": self.retention,
            "round": one_round(transfers, holds),
            "transfers": [transfer_row(t) for t in transfers],
            "holds": [hold_row(h) for h in holds],
            "players": wallet_ids(transfers, holds),
        }
        data = await self._script("apply", request)
        return wallets_of(data["ok"])

    # ----- the meter ----------------------------------------------------------

    async def ensure_meter(self, name: str, seed: int) -> int:
        check_cents("seed", seed)
        data = await self._script("ensure_meter", {"name": name, "seed": seed})
        meter: int = data["ok"]
        return meter

    async def meter(self, name: str) -> int:
        async def read(conn: Any) -> int:
            return int(await conn.hget(self.prefix + "acct", f"meter:{name}") or 0)

        return await self._run("a meter read", read)

    async def meters(self) -> dict[str, int]:
        data = await self._script("meters", {}, write=False)
        return {k: int(v) for k, v in data["ok"].items()}

    # ----- rounds -------------------------------------------------------------

    async def settle(
        self,
        fence: Fence,
        round_id: str,
        transfers: Sequence[Transfer],
        claims: Sequence[JackpotClaim],
        jackpot: str,
        seed: int,
        record: dict[str, Any],
    ) -> Settled:
        check_entries(transfers, (), claims)
        check_cents("seed", seed)
        text = record_json(record)
        request = {
            "round": round_id,
            "digest": transfers_digest(transfers),
            "table": fence.table_id,
            "epoch": fence.epoch,
            "transfers": [transfer_row(t) for t in transfers],
            "claims": [
                [c.round_id, c.seat, c.player_id, c.category, c.percent_bp]
                for c in sorted(claims, key=lambda c: c.seat)
            ],
            "jackpot": jackpot,
            "seed": seed,
            "players": record_players(record),
            "now": int(time.time() * 1000),
            "ttl": self.retention,
            "history_cap": HISTORY_LIMIT,
            "hits_cap": HITS_LIMIT,
        }
        data = await self._script("settle", request, text)
        result = data["ok"]
        return Settled(
            round_id,
            tuple(ClaimPaid(*row) for row in result["paid"]),
            wallets_of(result["wallets"]),
            {k: int(v) for k, v in result["meters"].items()},
            replayed=bool(data["replayed"]),
        )

    async def void(
        self, fence: Fence, round_id: str, transfers: Sequence[Transfer], holds: Sequence[Hold]
    ) -> None:
        check_entries(transfers, holds)
        request = {
            "table": fence.table_id,
            "epoch": fence.epoch,
            "round": round_id,
            "transfers": [transfer_row(t) for t in transfers],
            "holds": [hold_row(h) for h in holds],
            "ttl": self.retention,
        }
        await self._script("void", request)

    async def recover(self, fence: Fence) -> list[str]:
        request = {"table": fence.table_id, "epoch": fence.epoch, "ttl": self.retention}
        data = await self._script("recover", request)
        voided: list[str] = data["ok"]
        return voided

    async def open_rounds(self, table_id: str) -> list[str]:
        async def read(conn: Any) -> list[str]:
            return sorted(await conn.smembers_asset(f"{self.prefix}table:{table_id}:open"))

        return await self._run("an open rounds read", read)

    async def round_players(self, round_id: str) -> list[str]:
        async def read(conn: Any) -> list[str]:
            rows: list[str] = await conn.lrange_aslist(
                f"{self.prefix}round:{round_id}:ledger", 0, -1
            )
            return rows

        # a row: [round_id, seat, reason, source, target, cents]
        accounts = {
            a
            for row in await self._run("a round's journal read", read)
            for a in json.loads(row)[3:5]
        }
        return players_of(accounts)

    # ----- history ------------------------------------------------------------

    async def history(self, player_id: str, limit: int = 50) -> list[dict[str, Any]]:
        return [history_entry(s) for s in await self._newest(f"hist:player:{player_id}", limit)]

    async def table_history(self, table_id: str, limit: int = 50) -> list[dict[str, Any]]:
        return [history_entry(s) for s in await self._newest(f"hist:table:{table_id}", limit)]

    async def jackpot_hits(self, name: str, limit: int = 50) -> list[dict[str, Any]]:
        return [json.loads(s) for s in await self._newest(f"hits:{name}", limit)]

    async def _newest(self, key: str, limit: int) -> list[str]:
        if limit <= 0:
            return []

        async def read(conn: Any) -> list[str]:
            rows: list[str] = await conn.lrange_aslist(self.prefix + key, 0, limit - 1)
            return rows

        return await self._run("a history read", read)

    # ----- accounting ---------------------------------------------------------

    async def totals(self) -> dict[str, int]:
        async def read(conn: Any) -> dict[str, int]:
            raw = await conn.hgetall_asdict(self.prefix + "acct")
            return {k: int(v) for k, v in raw.items()}

        return await self._run("a totals read", read)


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


def _describe(exc: BaseException | None) -> str:
    if exc is None or (isinstance(exc, asyncio_redis.ConnectionLostError) and not exc.exception):
        return "connection closed"
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
