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
    moves                    list  every move outside a round ({op, at, transfer}), oldest first
    moves:<player id>        list  the player's last MOVES_LIMIT of those, newest first
    probe                    string written by a suspended table to see the store take writes

Closed rounds expire after `retention` seconds: settling is idempotent within
that window. Amounts and balances stay below 2**53 cents (Lua numbers are
doubles); `MAX_CENTS` is checked on the way in.

The connection, its loss and its restoration: `server.stores.redis_link`.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import asyncio_redis
import orjson

from server.game.ledger import Hold, JackpotClaim, Transfer, players_of
from server.stores.admin import HOUR_MS, STATS_KEPT_MS, round_stat
from server.stores.base import (
    HISTORY_LIMIT,
    HITS_LIMIT,
    MAX_CENTS,
    Claim,
    ClaimPaid,
    Credentials,
    Failures,
    Fence,
    InvalidRequest,
    Move,
    Player,
    Settled,
    StoreError,
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
from server.stores.redis_link import LOST, RedisLink, describe, parse_redis_url
from server.stores.redis_origin import DataLost
from server.stores.redis_replies import (
    BuyInRefused,
    claim_of,
    history_entry,
    hold_row,
    refusal,
    wallets_of,
)
from server.stores.redis_scripts import BATCHED

__all__ = ["RedisStore", "parse_redis_url"]


def _request_json(request: Any) -> str:
    """A script's request as JSON. orjson takes a tenth of the time of json's encoder
    (2.2 against 0.2 µs a write), which was 4 % of the server at load. Transfer
    digests keep json's encoder: a replay is told by its digest (`transfers_digest`)."""
    return orjson.dumps(request).decode()


class RedisStore(RedisLink):
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
        super().__init__(
            url, namespace, timeout=timeout, reconnect_wait=reconnect_wait, max_backoff=max_backoff
        )
        self.retention = retention
        self.wall_clock: Callable[[], float] = time.time  # when a session token was used
        self._batches = Batches(self._send_writes, self._unknown)
        self.keep_age()  # its writes' count: a restore that undoes them is found

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
        role: str = "store",
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
        store.accept_loss, store.role = accept_loss, role
        try:
            await asyncio.wait_for(store._open(), timeout)
        except DataLost as e:
            raise StoreError(f"cannot use Redis at {store._where()}: {e}") from e
        except (*LOST, TimeoutError, asyncio_redis.ErrorReply, asyncio_redis.Error) as e:
            words = describe(e)
            raise StoreError(
                f"cannot use Redis at {store._where()}: {words}",
                credentials=isinstance(e, asyncio_redis.ErrorReply) and _refused_auth(words),
            ) from e
        return store

    # ----- scripts ------------------------------------------------------------

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
            keys = [self.age_key] if write and self.age_key else []
            reply = await self._evalsha(
                what, self._shas[name], keys, args, self._load_scripts, write=write
            )
            data = orjson.loads(self.take_age(reply, keys[0] if keys else None))
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
        keys = [self.age_key] if self.age_key else []
        reply = await self._evalsha(what, sha, keys, args, self._load_scripts, write=True)
        data = orjson.loads(self.take_age(reply, keys[0] if keys else None))
        return [data] if len(writes) == 1 else list(data)

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
            "at": self._wall_ms(),
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

    async def add_failure(self, keys: Sequence[str], window: float, by: int = 1) -> list[int]:
        request = {"keys": list(keys), "window_ms": max(1, int(window * 1000)), "by": by}
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
            "at": self._wall_ms(),
        }
        try:
            data = await self._script("buy_chips", request)
        except BuyInRefused as e:
            if e.per_purchase and max_amount is not None:
                raise purchase_limit_error(max_amount, max_balance, e.balance) from None
            raise buy_in_error(max_balance, e.balance) from None
        return Wallet(*data["ok"])

    async def bet(
        self,
        fence: Fence,
        op: str,
        transfers: Sequence[Transfer],
        holds: Sequence[Hold],
        *,
        opens: bool = True,
    ) -> Wallet:
        player_id, round_id = bet_owner(transfers, holds)
        request = {
            "opens": opens,
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
        request = {"name": name, "seed": seed, "at": self._wall_ms()}
        data = await self._script("ensure_meter", request)
        meter: int = data["ok"]
        return meter

    async def meter(self, name: str) -> int:
        """The meter's cents; a wiped store's absent meter raises (store_lost), never 0:
        a process that showed 0 published it as the jackpot until the restore."""
        data = await self._script("meters", {"name": name}, write=False)
        return int(data["ok"][name])

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
        now = int(time.time() * 1000)
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
            "now": now,
            "stat": [round_id, *round_stat({**record, "settled_at": now}, round_id).to_row()],
            "hour_ms": HOUR_MS,
            "stats_ttl": (STATS_KEPT_MS + HOUR_MS) // 1000,
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

    async def _newest(self, key: str, limit: int, what: str = "a history read") -> list[str]:
        return await self._rows(key, 0, limit, what)

    async def _rows(self, key: str, start: int, count: int, what: str) -> list[str]:
        if count <= 0:
            return []
        start = max(start, 0)

        async def read(conn: Any) -> list[str]:
            rows: list[str] = await conn.lrange_aslist(self.prefix + key, start, start + count - 1)
            return rows

        return await self._run(what, read)

    # ----- accounting ---------------------------------------------------------

    async def totals(self) -> dict[str, int]:
        async def read(conn: Any) -> dict[str, int]:
            raw = await conn.hgetall_asdict(self.prefix + "acct")
            return {k: int(v) for k, v in raw.items()}

        return await self._run("a totals read", read)

    async def moves(self, start: int = 0, count: int = 1000) -> list[Move]:
        rows = await self._rows("moves", start, count, "a moves read")
        return [Move.from_json(json.loads(s)) for s in rows]

    async def player_moves(self, player_id: str, limit: int = 50) -> list[Move]:
        rows = await self._newest(f"moves:{player_id}", limit, "a moves read")
        return [Move.from_json(json.loads(s)) for s in rows]

    def _wall_ms(self) -> int:
        return int(self.wall_clock() * 1000)


def _refused_auth(words: str) -> bool:
    """Whether Redis refused the URL's credentials: none where it wants one (NOAUTH), a
    wrong one (WRONGPASS, or "invalid password" of older releases), or one where it has
    none ("AUTH <password> called without any password configured")."""
    return any(
        mark in words for mark in ("NOAUTH", "WRONGPASS", "invalid password", "AUTH <password>")
    )
