"""Several server processes on one Redis: one lobby and the jackpot news.

Which process hosts a table is a lease in the store (server/hosting.py);
this module shares what the processes show: every process writes its tables'
lobby rows to one hash, so any process can list them all with the address to
reach each, and meter changes and jackpot hits go out on a pub/sub channel so
every process pushes them to its clients. A meter's news says that it moved;
each process reads the figure (server/jackpots.py). The same channel tells of a
wallet moved, of a player's tokens revoked (each process closes its connections
whose token is gone) and of an operator's act (each process reads the acts now,
a suspension held at once).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import asyncio_redis

from server.stores.base import StoreError
from server.stores.redis import RedisStore, parse_redis_url
from server.stores.retry_log import RetryLog

log = logging.getLogger("stud.fleet")

#: Seconds between looks at whether the channel's connection is still there.
CHANNEL_CHECK = 1.0
#: The longest wait between tries to subscribe again: news published meanwhile is lost
#: (a suspension, a sign-out), so a Redis back is followed within a second, not five.
CHANNEL_RETRY_MAX = 1.0

#: A table's lobby row in two parts: what never changes while it is hosted (the same
#: object every heartbeat: `Room.lobby_fixed`) and what does (`Room.lobby_live`).
LobbyRow = tuple[Mapping[str, Any], Mapping[str, Any]]


#: Write a process's changed lobby rows and its liveness; return every process's entry.
#: lobby:procs: process -> {"ts", "v", "url", "cfg"}; lobby:p:<process>: table -> row
#: (JSON). `cfg` is the process's shared settings as JSON text (cjson would round
#: large integers).
#: The rows come as arguments after the request (table, row, table, row...): JSON
#: inside the request's JSON would be escaped, and decoded in Lua, a second time.
PUBLISH = """
local P, proc, req = ARGV[1], ARGV[2], cjson.decode(ARGV[3])
local origin = redis.call('GET', P .. 'origin')  -- false: Redis was emptied under us
if not origin and req.origin ~= '' then  -- nothing written into the wiped store
  return cjson.encode({procs = {}, had = true, origin = false})
end
local rows = P .. 'lobby:p:' .. proc
local had = redis.call('EXISTS', rows) == 1  -- false: none yet, or Redis lost them
for i = 4, #ARGV, 2 do redis.call('HSET', rows, ARGV[i], ARGV[i + 1]) end
for _, tid in ipairs(req.del) do redis.call('HDEL', rows, tid) end
redis.call('PEXPIRE', rows, req.ttl_ms)
redis.call('HSET', P .. 'lobby:procs', proc,
  cjson.encode({ts = req.now, v = req.v, url = req.url, cfg = req.cfg}))
local out, flat = {}, redis.call('HGETALL', P .. 'lobby:procs')
for i = 1, #flat, 2 do
  local entry = cjson.decode(flat[i + 1])
  if entry.ts < req.now - 2 * req.ttl_ms / 1000 then  -- long gone: forget it
    redis.call('HDEL', P .. 'lobby:procs', flat[i])
  else
    out[flat[i]] = entry
  end
end
return cjson.encode({procs = out, had = had, origin = origin})
"""

#: Forget a process's lobby rows (it is shutting down).
DROP = """
redis.call('DEL', ARGV[1] .. 'lobby:p:' .. ARGV[2])
redis.call('HDEL', ARGV[1] .. 'lobby:procs', ARGV[2])
return 1
"""


class Fleet:
    def __init__(
        self,
        store: RedisStore,
        process_id: str,
        public_url: str,
        *,
        ttl: float = 6.0,
        on_meter: Callable[[str, int], None] | None = None,
        on_win: Callable[[dict[str, Any]], None] | None = None,
        on_wallet: Callable[[str], None] | None = None,
        on_signed_out: Callable[[str], None] | None = None,
        on_news_lost: Callable[[], None] | None = None,
        on_acts: Callable[[str | None, dict[str, Any] | None], None] | None = None,
    ) -> None:
        self.store = store
        # back within a twelfth of the TTL once Redis answers again: a stall past the
        # TTL lapses every lease, a standby takes one free for a third of the TTL, and
        # this connection's backoff, grown to seconds in the stall, let it (a CLIENT
        # PAUSE of 10 s moved live tables and voided their rounds)
        store.max_backoff = min(store.max_backoff, ttl / 12)
        self.process_id = process_id
        self.public_url = public_url
        self.ttl = ttl
        self.on_meter = on_meter
        self.on_win = on_win
        self.on_wallet = on_wallet
        self.on_signed_out = on_signed_out
        self.on_acts = on_acts
        self.on_news_lost = on_news_lost  # the channel came back: what it carried meanwhile is lost
        self.on_origin_lost: Callable[[], None] = store.check_origin_again
        self.prefix = store.prefix
        self.channel = f"{self.prefix}jackpot"
        self._subscriber: asyncio.Task[None] | None = None
        self._closed = False
        self._published: dict[str, LobbyRow] = {}  # table -> the row last written
        self._fixed_text: dict[str, tuple[Mapping[str, Any], str]] = {}  # table -> its JSON
        self._version = 0  # grows when this process's rows change
        # process -> (its rows' version, [(the lease epoch of each row, the row)])
        self._remote: dict[str, tuple[int, list[tuple[int, dict[str, Any]]]]] = {}
        self._urls: dict[str, str] = {}  # process -> its public address, from the last share
        self._hosts: dict[str, str] = {}  # table -> the process whose row the lobby lists
        self._quiet: set[str] = set()  # processes found silent at the last share
        self.settings: Mapping[str, int] = {}  # what every process must share (`shared_settings`)
        # process -> (the heartbeat time it last wrote, this clock's time when that was new)
        self._heard: dict[str, tuple[float, float]] = {}
        self._first: dict[str, float] = {}  # process -> this clock's time it was first heard
        self._answering: list[str] = []  # the other processes' addresses: `servers`
        self.clock: Callable[[], float] = time.monotonic
        self._started = self.clock()  # when this process began: at its address, the latest

    @property
    def heartbeat(self) -> float:
        """Seconds between lobby shares (and lease renewals: see `renewal`)."""
        return self.ttl / 3

    @property
    def renewal(self) -> float:
        """Seconds between lease renewals: a table is acted on for 80% of the TTL after
        a renewal is sent, so several may be late (a loaded host) before any lapses."""
        return self.ttl / 6

    async def start(self) -> None:
        self._subscriber = asyncio.get_running_loop().create_task(self._listen())

    async def close(self, tables: list[str]) -> None:
        self._closed = True
        try:  # our rows go at once; a standby's lobby lists its own when it takes over
            await self.store.eval_script(DROP, [], [self.prefix, self.process_id])
        except Exception as e:  # shutting down: rows go stale and are ignored anyway
            log.warning("could not drop this process's lobby rows: %s", e)
        if self._subscriber is not None:
            self._subscriber.cancel()
            await asyncio.gather(self._subscriber, return_exceptions=True)

    # ----- the lobby of every process ------------------------------------------

    async def publish_rows(self, rows: Sequence[LobbyRow]) -> dict[str, dict[str, Any]]:
        """Write the rows that changed since the last heartbeat (one round trip, also
        when none did: it says this process is alive); returns every process's entry
        (process -> {ts, v}) for `remote_rows`. Rows Redis no longer has (restarted
        empty, flushed, expired) are all written again at once."""
        wrote_before = bool(self._published)
        now = time.time()
        current: dict[str, LobbyRow] = {
            fixed["id"]: (fixed, {**live, "url": self.public_url}) for fixed, live in rows
        }
        changed = [
            (tid, self._row_text(tid, *row))
            for tid, row in current.items()
            if self._published.get(tid) != row  # the fixed part: the same object, no walk
        ]
        gone = [tid for tid in self._published if tid not in current]
        for tid in gone:
            self._fixed_text.pop(tid, None)
        if changed or gone:
            self._version += 1
        request = {
            "now": now,
            "v": self._version,
            "ttl_ms": int(3 * self.ttl * 1000),
            "del": gone,
            "url": self.public_url,
            "cfg": json.dumps(dict(self.settings), sort_keys=True),
            "origin": self.store.origin,
        }
        reply = await self.store.eval_script(
            PUBLISH,
            [],
            [self.prefix, self.process_id, json.dumps(request), *itertools.chain(*changed)],
        )
        self._published = current
        data = json.loads(reply)
        if self.store.origin and data.get("origin") != self.store.origin:
            self.on_origin_lost()  # emptied (a FLUSHALL) with no reconnect to tell it
            if not data.get("origin"):  # the script wrote nothing: no lobby to read
                raise StoreError("Redis came back without its data")
        if wrote_before and not data["had"] and len(changed) < len(current):
            self._published = {}  # every row counts as changed: all are written again
            return await self.publish_rows(rows)
        procs = {str(k): dict(v) for k, v in data["procs"].items()}
        self._urls = {p: str(e.get("url") or "") for p, e in procs.items()}
        return procs

    async def differing_settings(self) -> list[str]:
        """How this process's shared settings differ from a live process's (empty: they
        agree, or no process that publishes them is alive)."""
        key = f"{self.prefix}lobby:procs"

        async def read(conn: Any) -> dict[str, str]:
            procs: dict[str, str] = await conn.hgetall_asdict(key)
            return procs

        horizon = time.time() - 3 * self.ttl
        for proc, text in sorted((await self.store.run("read the processes", read)).items()):
            entry = json.loads(text)
            if proc == self.process_id or float(entry.get("ts", 0)) < horizon:
                continue
            if not isinstance(entry.get("cfg"), str):
                continue  # a process of an earlier release: it says nothing
            theirs = json.loads(entry["cfg"])
            if not theirs or not self.settings:
                continue  # a bare fleet (a tool, a test) shares no settings
            heard = max(0.0, time.time() - float(entry["ts"]))
            where = f"{entry.get('url') or 'process ' + proc} (heard from {heard:.0f} s ago)"
            found = [
                f"{k} is {theirs.get(k, 'not set')} on {where}, {self.settings.get(k, 'not set')}"
                " here"
                for k in sorted(set(self.settings) | set(theirs))
                if theirs.get(k) != self.settings.get(k)
            ]
            if found:
                return found
        return []

    def others(self) -> list[str]:
        """The other processes heard from at the last share (alive within 3 TTLs)."""
        return list(self._remote)

    def url_of(self, process_id: str) -> str:
        """Where a process of the fleet serves its clients ("" not known: a process of an
        earlier release, or one not heard from since the last share)."""
        return self._urls.get(process_id, "")

    def _row_text(self, tid: str, fixed: Mapping[str, Any], live: Mapping[str, Any]) -> str:
        """The row as one JSON object; the fixed part (the variant and its paytables,
        nine tenths of a row) is encoded once per table, not on every heartbeat."""
        cached = self._fixed_text.get(tid)
        if cached is None or cached[0] is not fixed:
            cached = self._fixed_text[tid] = (fixed, json.dumps(fixed, separators=(",", ":")))
        head, body = cached[1], json.dumps(live, separators=(",", ":"))
        if head == "{}":
            return body
        if body == "{}":
            return head
        return f"{head[:-1]},{body[1:]}"  # a key in both: the live one (read last) wins

    async def remote_rows(
        self, local: set[str], procs: dict[str, dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """Other processes' tables, from each live process's rows: read again only when
        that process says they changed (its version), so a quiet fleet reads nothing.

        A table is listed once, at its newest host: a process that died (or was paused
        past its leases) leaves rows behind for a while, beside the rows of the process
        that took its tables over. The newest host is the one whose lease has the higher
        epoch (each row says which it was written under), then the fresher heartbeat.

        A row whose host has not written a heartbeat for a TTL (its leases have lapsed)
        says `silent`: its phase and counts are as last shared."""
        horizon = time.time() - 3 * self.ttl
        live = {
            p: (int(e.get("v", 0)), float(e.get("ts", 0)))
            for p, e in procs.items()
            if p != self.process_id and float(e.get("ts", 0)) >= horizon
        }
        for proc in [p for p in self._remote if p not in live]:
            del self._remote[proc]
        silent = self._quiet = self._silent(live)
        self._answering = sorted(
            {self._urls.get(p, "") for p in live if p not in silent} - {"", self.public_url}
        )
        for proc, (version, _) in live.items():
            cached = self._remote.get(proc)
            if cached is not None and cached[0] == version:
                continue
            raw = await self._rows_of(proc)
            self._remote[proc] = (version, [_epoch_and_row(text) for text in raw.values()])
        newest: dict[str, tuple[tuple[int, float], dict[str, Any]]] = {}
        for proc, (_, rows) in self._remote.items():
            heard = live[proc][1]
            for epoch, row in rows:
                tid = row["id"]
                if tid in local:
                    continue
                held = newest.get(tid)
                if held is None or (epoch, heard) > held[0]:
                    newest[tid] = ((epoch, heard), row)
                    self._hosts[tid] = proc
        for tid in [t for t in self._hosts if t not in newest]:
            del self._hosts[tid]
        return [
            {**newest[tid][1], "silent": self._hosts[tid] in silent}
            for tid in sorted(newest, key=str)
        ]

    def _silent(self, live: Mapping[str, tuple[int, float]]) -> set[str]:
        """The processes whose heartbeat has not moved for a TTL. Measured by this
        process's clock from when it saw each heartbeat change, so another machine's
        clock being off does not make a live host look silent (or a dead one alive);
        a heartbeat seen for the first time counts from when it was written."""
        now, wall = self.clock(), time.time()
        for proc, (_, ts) in live.items():
            seen = self._heard.get(proc)
            if seen is None:
                self._heard[proc] = (ts, now - max(0.0, wall - ts))
            elif seen[0] != ts:
                self._heard[proc] = (ts, now)
            self._first.setdefault(proc, self._heard[proc][1])
        for proc in [p for p in self._heard if p not in live]:
            del self._heard[proc]
            self._first.pop(proc, None)
        return {p for p, (_, at) in self._heard.items() if now - at > self.ttl} | self._replaced()

    def _replaced(self) -> set[str]:
        """The processes another one answers for at their address, first heard after their
        heartbeat last moved: one killed and started again in place. The new one cannot
        claim their tables before the leases lapse, and its rows will name the same
        address: silent now, the old rows are never taken for its claim."""
        newer = [(self.public_url, self.process_id, self._started)]
        newer += [(self._urls.get(q, ""), q, first) for q, first in self._first.items()]
        return {
            p
            for p, (_, at) in self._heard.items()
            if any(u and u == self._urls.get(p) and q != p and at < t for u, q, t in newer)
        }

    def servers(self) -> list[str]:
        """The other processes' addresses, those heard from within a TTL at the last
        share: standbys hosting no table too, which no lobby row names."""
        return list(self._answering)

    def silent(self, process_id: str) -> bool:
        """Whether the process's heartbeat had stood still for a TTL at the last share
        (killed, or stopped): its leases have lapsed, it hosts nothing now."""
        return process_id in self._quiet

    def host_of(self, table_id: str) -> str | None:
        """The other process whose lobby row lists the table (None: none does)."""
        return self._hosts.get(table_id)

    async def _rows_of(self, proc: str) -> dict[str, str]:
        key = f"{self.prefix}lobby:p:{proc}"

        async def read(conn: Any) -> dict[str, str]:
            rows: dict[str, str] = await conn.hgetall_asdict(key)
            return rows

        return await self.store.run("read lobby", read)

    # ----- jackpot news --------------------------------------------------------

    async def announce_meter(self, name: str, amount: int) -> None:
        # the amount is for processes of an earlier release, during a rolling upgrade:
        # this one reads the figure instead (JackpotNews.news)
        await self._publish({"kind": "meter", "name": name, "amount": amount})

    async def announce_win(self, frame: dict[str, Any]) -> None:
        """A `jackpot_won` frame, for the players of every other process."""
        await self._publish({"kind": "won", "frame": frame})

    async def announce_wallet(self, player_id: str) -> None:
        """A wallet moved for a player not connected here: the process they are on
        reads it and tells them."""
        await self._publish({"kind": "wallet", "player_id": player_id})

    async def announce_signed_out(self, player_id: str) -> None:
        """Some of a player's tokens were revoked (a logout, a password change): each
        process checks its connections of that player against the store."""
        await self._publish({"kind": "signed_out", "player_id": player_id})

    async def announce_acts(
        self, player_id: str | None = None, suspension: dict[str, Any] | None = None
    ) -> None:
        """An operator's act or flag was recorded: every process reads them now, not at
        its next poll. A player's suspension (None: lifted) comes with the news, so it
        holds on every process before the console has answered."""
        await self._publish({"kind": "acts", "player_id": player_id, "suspension": suspension})

    async def _publish(self, news: dict[str, Any]) -> None:
        message = json.dumps({**news, "from": self.process_id})
        await self.store.run("publish news", lambda conn: conn.publish(self.channel, message))

    async def _listen(self) -> None:
        """Follow the jackpot channel, reconnecting with backoff for as long as we run."""
        delay = 0.1
        subscribed_before = False
        lost = RetryLog(log, logging.INFO)
        while not self._closed:
            conn = None
            try:
                host, port, _, password = parse_redis_url(self.store.url)
                conn = await asyncio_redis.Connection.create(host, port, auto_reconnect=False)
                if password:
                    await conn.auth(password)
                sub = await conn.start_subscribe()
                await sub.subscribe([self.channel])
                delay = 0.1
                if lost.recovered():
                    log.info("jackpot channel subscribed again")
                if subscribed_before and self.on_news_lost is not None:
                    self.on_news_lost()
                subscribed_before = True
                while True:
                    reply = await _next_published(conn, sub)
                    data = json.loads(reply.value)
                    if data.get("from") == self.process_id:
                        continue
                    if data.get("kind") == "meter" and self.on_meter is not None:
                        self.on_meter(str(data["name"]), int(data["amount"]))
                    elif data.get("kind") == "won" and self.on_win is not None:
                        self.on_win(dict(data["frame"]))
                    elif data.get("kind") == "wallet" and self.on_wallet is not None:
                        self.on_wallet(str(data["player_id"]))
                    elif data.get("kind") == "signed_out" and self.on_signed_out is not None:
                        self.on_signed_out(str(data["player_id"]))
                    elif data.get("kind") == "acts" and self.on_acts is not None:
                        self.on_acts(data.get("player_id"), data.get("suspension"))
            except asyncio.CancelledError:
                raise
            except Exception as e:
                pause = delay * random.uniform(0.5, 1.0)
                lost.failed(str(e), "jackpot channel lost (%s); retrying in %.1fs", e, pause)
                await asyncio.sleep(pause)
                delay = min(delay * 2, CHANNEL_RETRY_MAX)
            finally:
                if conn is not None:
                    conn.close()


async def _next_published(conn: Any, sub: Any) -> Any:
    """The channel's next message, or ConnectionError once its connection is gone:
    asyncio-redis never wakes a subscriber whose connection closed (a Redis restart),
    so the channel would wait for good and every process's news to this one be lost."""
    getter = asyncio.ensure_future(sub.next_published())
    try:
        while True:
            done, _ = await asyncio.wait({getter}, timeout=CHANNEL_CHECK)
            if done:
                return getter.result()
            if not conn.protocol.is_connected:
                raise ConnectionError("the channel's connection closed")
    finally:
        getter.cancel()


def _epoch_and_row(text: str) -> tuple[int, dict[str, Any]]:
    """A shared row as clients see it, and the lease epoch it was written under (not
    theirs to see: it only ranks the rows two hosts of one table left)."""
    row: dict[str, Any] = json.loads(text)
    return int(row.pop("epoch", 0)), row


async def every(interval: float, step: Callable[[], Awaitable[None]], name: str) -> None:
    """Run `step` every `interval` seconds, at a fixed rate (a slow step is not followed
    by a whole interval more); a failing step is logged (RetryLog), never fatal."""
    loop = asyncio.get_running_loop()
    failures = RetryLog(log, logging.WARNING)
    while True:
        began = loop.time()
        try:
            await step()
        except asyncio.CancelledError:
            raise
        except Exception as e:
            why = e.cause if isinstance(e, StoreError) else str(e)  # the log's words
            bug = not isinstance(e, StoreError)  # a bug's traceback with its first line
            failures.failed(why, "%s failed: %s", name, why, exc_info=bug)
        else:
            if after := failures.recovered():
                plural = "failure" if after == 1 else "failures"
                log.info("%s works again after %d %s", name, after, plural)
        await asyncio.sleep(max(0.0, began + interval - loop.time()))
