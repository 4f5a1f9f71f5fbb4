"""The store's origin mark, and whether Redis keeps anything on disk.

A Redis restarted without persistence comes back empty: every wallet, token,
operator and meter gone, and the books "sum to zero" over nothing. To a client
it looks like any reconnect. So the first connection to a namespace writes a
random mark (`<prefix>origin`), every store remembers the mark it found, and
each reconnect reads it again: a mark that is gone or different means the data
is not the data this process served from. The store then stays unavailable
(tables pause, as in an outage) until the data is back, and leaves a note
(`<prefix>origin_lost`) in the empty Redis, so that no process starting later
takes the empty store for a new one. A FLUSHALL under a live connection is
found by the writes themselves: the scripts that make money or a lease answer
`store_lost` and write nothing when the mark is gone (`store_lost()` in
scripts/_lib.lua), and the store then reconnects, which reads the mark.
Restoring the backup removes the note with the rest; `stud-server
accept-empty-store` is how an operator accepts the loss instead (then every
process is restarted).
"""

from __future__ import annotations

import secrets
import time
from typing import Any

import asyncio_redis

ORIGIN_KEY = "origin"  # and "origin_lost", the note that it went missing
ACCEPT = "stud-server accept-empty-store"


class DataLost(Exception):
    """Redis answers, but without the data this store was serving from."""


async def find_or_mark(conn: Any, key: str, *, accept_loss: bool = False) -> str:
    """The namespace's mark, written first if it has none (SET NX: one mark wins); a
    namespace a process found emptied is refused until the loss is accepted."""
    lost_key = key + "_lost"
    if accept_loss:
        await conn.delete([lost_key])
    elif await conn.get(key) is None:
        lost = await conn.get(lost_key)
        if lost is not None:
            raise DataLost(
                f"Redis lost its data (a process found it back empty: {lost}): restore the "
                f"backup, or accept the loss with `{ACCEPT}`"
            )
    mark = f"{secrets.token_hex(8)}@{int(time.time() * 1000)}"
    await conn.set(key, mark, only_if_not_exists=True)
    found = await conn.get(key)
    return str(found) if found is not None else mark


async def check(conn: Any, key: str, origin: str) -> None:
    """Raise DataLost unless the namespace still holds `origin`."""
    found = await conn.get(key)
    if found is None:  # the note for processes starting later (nothing else is written)
        note = f"mark {origin!r} missing at {time.strftime('%Y-%m-%d %H:%M:%S %Z')}"
        await conn.set(key + "_lost", note, only_if_not_exists=True)
    if found != origin:
        raise DataLost(
            "Redis came back without its data (the store's origin mark "
            f"{origin!r} is {'gone' if found is None else 'replaced'})"
        )


async def persistence_gap(conn: Any) -> str | None:
    """Why a restart of this Redis would lose everything, or None when it persists
    (AOF or RDB save points) or cannot be asked (CONFIG renamed or refused)."""
    try:
        aof = (await conn.config_get("appendonly")).value
        save = (await conn.config_get("save")).value
    except (asyncio_redis.Error, asyncio_redis.ErrorReply):
        return None
    if aof == "yes" or save:
        return None
    return "Redis keeps nothing on disk (appendonly no, no save points)"


async def eviction_risk(conn: Any) -> str | None:
    """Why this Redis might drop keys (wallets, the round journal) to free memory, or
    None when it never evicts (no `maxmemory`, or `noeviction`: a write refused at the
    limit pauses a table, and nothing is lost) or cannot be asked."""
    try:
        limit = (await conn.config_get("maxmemory")).value
        policy = (await conn.config_get("maxmemory-policy")).value
    except (asyncio_redis.Error, asyncio_redis.ErrorReply):
        return None
    if str(limit) in ("0", "") or policy == "noeviction":
        return None
    return f"Redis evicts keys at its maxmemory ({limit} bytes, maxmemory-policy {policy})"
