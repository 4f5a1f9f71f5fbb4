"""Several server processes on one Redis: one lobby and the jackpot news.

Which process hosts a table is a lease in the store (server/hosting.py);
this module shares what the processes show: every process writes its tables'
lobby rows to one hash, so any process can list them all with the address to
reach each, and meter changes and jackpot hits go out on a pub/sub channel so
every process pushes them to its clients within a second.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any

import asyncio_redis

from server.stores.redis import RedisStore, parse_redis_url

log = logging.getLogger("stud.fleet")


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
    ) -> None:
        self.store = store
        self.process_id = process_id
        self.public_url = public_url
        self.ttl = ttl
        self.on_meter = on_meter
        self.on_win = on_win
        self.prefix = store.prefix
        self.channel = f"{self.prefix}jackpot"
        self._subscriber: asyncio.Task[None] | None = None
        self._closed = False

    @property
    def heartbeat(self) -> float:
        return self.ttl / 3

    async def start(self) -> None:
        self._subscriber = asyncio.get_running_loop().create_task(self._listen())

    async def close(self, tables: list[str]) -> None:
        self._closed = True
        for table_id in tables:
            try:
                await self._drop_row(table_id)
            except Exception as e:  # shutting down: rows go stale and are ignored anyway
                log.warning("could not drop the lobby row of %s: %s", table_id, e)
        if self._subscriber is not None:
            self._subscriber.cancel()
            await asyncio.gather(self._subscriber, return_exceptions=True)

    async def _drop_row(self, table_id: str) -> None:
        async def drop(conn: Any) -> None:
            await conn.hdel(self._lobby_key(), [table_id])

        await self.store.run("drop lobby row", drop)

    def _lobby_key(self) -> str:
        return f"{self.prefix}lobby"

    # ----- the lobby of every process ------------------------------------------

    async def publish_rows(self, rows: list[dict[str, Any]]) -> None:
        now = time.time()
        values = {
            row["id"]: json.dumps(
                {**row, "url": self.public_url, "owner": self.process_id, "ts": now}
            )
            for row in rows
        }
        if values:
            await self.store.run(
                "publish lobby", lambda conn: conn.hmset(self._lobby_key(), values)
            )

    async def remote_rows(self, local: set[str]) -> list[dict[str, Any]]:
        """Other processes' tables whose rows are fresh."""
        raw = await self.store.run(
            "read lobby", lambda conn: conn.hgetall_asdict(self._lobby_key())
        )
        horizon = time.time() - 3 * self.ttl
        rows = []
        for table_id, text in raw.items():
            if table_id in local:
                continue
            row = json.loads(text)
            if row.get("ts", 0) >= horizon and row.get("owner") != self.process_id:
                row.pop("ts", None)
                row.pop("owner", None)
                rows.append(row)
        return sorted(rows, key=lambda r: str(r["id"]))

    # ----- jackpot news --------------------------------------------------------

    async def announce_meter(self, name: str, amount: int) -> None:
        await self._publish({"kind": "meter", "name": name, "amount": amount})

    async def announce_win(self, frame: dict[str, Any]) -> None:
        """A `jackpot_won` frame, for the players of every other process."""
        await self._publish({"kind": "won", "frame": frame})

    async def _publish(self, news: dict[str, Any]) -> None:
        message = json.dumps({**news, "from": self.process_id})
        await self.store.run("publish news", lambda conn: conn.publish(self.channel, message))

    async def _listen(self) -> None:
        """Follow the jackpot channel, reconnecting with backoff for as long as we run."""
        delay = 0.1
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
                while True:
                    reply = await sub.next_published()
                    data = json.loads(reply.value)
                    if data.get("from") == self.process_id:
                        continue
                    if data.get("kind") == "meter" and self.on_meter is not None:
                        self.on_meter(str(data["name"]), int(data["amount"]))
                    elif data.get("kind") == "won" and self.on_win is not None:
                        self.on_win(dict(data["frame"]))
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.info("jackpot channel lost (%s); retrying in %.1fs", e, delay)
                await asyncio.sleep(delay * random.uniform(0.5, 1.0))
                delay = min(delay * 2, 5.0)
            finally:
                if conn is not None:
                    conn.close()


async def every(interval: float, step: Callable[[], Awaitable[None]], name: str) -> None:
    """Run `step` every `interval` seconds; a failing step is logged, never fatal."""
    while True:
        try:
            await step()
        except asyncio.CancelledError:
            raise
        except Exception as e:
            log.warning("%s failed: %s", name, e)
        await asyncio.sleep(interval)
