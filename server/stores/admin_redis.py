"""The operator console's data in Redis, beside a `RedisStore` (its connection, its
reconnects, its key prefix).

Every write is one Lua script (`scripts/admin_*.lua`, with `_lib.lua` and
`_admin.lua` prepended, run through `RedisStore.eval_script`, so a Redis restart
reloads them); every act is atomic with its audit row and idempotent by its id.
Keys, under the store's prefix (see `scripts/_admin.lua`):

    operators, optoken:<sha256>, optokens:<name>   operators and their bearer tokens
    action:<id>, admin:pending                    each act once; table acts awaiting a host
    audit, audit:by:<target>                      the audit log (lists, append-only); a row
                                                  is also under the player its act names
    paused, suspended                             paused tables, suspended players
    adjustments                                   the ledger of operators' money moves
    admin:seen, admin:tables, admin:procs         the fleet's view for the console
    stats:<table>:<hour>                          hold statistics of settled rounds
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from server.stores.admin import (
    ADMIN,
    HOUR_MS,
    MAX_SCAN,
    Act,
    Acted,
    AdminState,
    Operator,
    Submitted,
    canonical,
    conflict,
    fold_operator,
    suspension,
)
from server.stores.base import MAX_CENTS, StoreError, StoreUnavailable, token_hash
from server.stores.redis import RedisStore
from server.stores.redis_scripts import with_age

__all__ = ["RedisAdmin"]

#: Seconds an act's id is remembered once done (a repeat within it applies nothing).
ACT_RETENTION = 7 * 86_400


def _sources() -> dict[str, str]:
    root = resources.files("server.stores") / "scripts"
    lib = "\n".join((root / f).read_text(encoding="utf-8") for f in ("_lib.lua", "_admin.lua"))
    return {
        name: with_age(lib, name, (root / f"{name}.lua").read_text(encoding="utf-8"))
        for name in ("admin_acts", "admin_write", "admin_read")
    }


class RedisAdmin:
    def __init__(self, store: RedisStore) -> None:
        self.store = store
        self._sources = _sources()

    async def prepare(self) -> None:
        """Load the scripts now (a first EVALSHA would find none and say Redis lost them)."""

        async def load(conn: Any) -> None:
            for source in self._sources.values():
                await conn.script_load(source)

        await self.store.run("SCRIPT LOAD", load)

    async def _call(
        self, script: str, request: dict[str, Any], text: str | None = None, *, write: bool
    ) -> Any:
        args = [self.store.prefix, json.dumps(request, separators=(",", ":"))]
        if text is not None:
            args.append(text)
        keys = [self.store.age_key] if write and self.store.age_key else []
        reply = await self.store.eval_script(self._sources[script], keys, args, write=write)
        data = json.loads(self.store.take_age(reply, keys[0] if keys else None))
        if "err" in data:
            if data["err"] == "store_lost":  # a FLUSHALL under the live connection
                self.store.check_origin_again()
                raise StoreUnavailable("the game's data store (Redis) came back without its data")
            if data["err"] == "conflict":
                raise conflict(data["action_id"])
            raise StoreError(f"unexpected store reply: {data!r}")
        return data

    async def _read(self, op: str, **request: Any) -> Any:
        return (await self._call("admin_read", {"op": op, **request}, write=False))["ok"]

    async def _write(self, op: str, **request: Any) -> Any:
        return (await self._call("admin_write", {"op": op, **request}, write=True))["ok"]

    # ----- operators --------------------------------------------------------------

    async def put_operator(
        self, name: str, password_hash: str, *, replace: bool, now_ms: int, role: str = ADMIN
    ) -> bool:
        entry = canonical({"name": name, "hash": password_hash, "created_ms": now_ms, "role": role})
        return bool(
            await self._write("put", folded=fold_operator(name), entry=entry, replace=replace)
        )

    async def get_operator(self, name: str) -> Operator | None:
        data = await self._read("operator", folded=fold_operator(name))
        return None if data is None else _operator(data)

    async def list_operators(self) -> list[Operator]:
        found = [_operator(d) for d in await self._read("operators")]
        return sorted(found, key=lambda o: fold_operator(o.name))

    async def remove_operator(self, name: str) -> bool:
        return bool(await self._write("remove", folded=fold_operator(name)))

    async def issue_operator_token(self, name: str, token: str, ttl: float) -> None:
        await self._write(
            "issue",
            folded=fold_operator(name),
            name=name,
            hash=token_hash(token),
            ttl_ms=max(1, int(ttl * 1000)),
        )

    async def operator_for_token(self, token: str) -> str | None:
        name = await self._read("token", hash=token_hash(token))
        return None if name is None else str(name)

    async def revoke_operator_token(self, token: str) -> None:
        await self._write("revoke", hash=token_hash(token))

    # ----- the store's own acts ------------------------------------------------------

    async def _act(self, op: str, act: Act, **request: Any) -> Acted:
        data = await self._call(
            "admin_acts",
            {
                "op": op,
                "act": _head(act),
                "digest": act.digest,
                "request_text": act.request_text,
                "ttl": ACT_RETENTION,
                **request,
            },
            write=True,
        )
        return Acted(data["ok"]["row"], replayed=bool(data["replayed"]))

    async def adjust(
        self,
        act: Act,
        player_id: str,
        amount: int,
        *,
        limit: int = MAX_CENTS,
        act_limit: int = 0,
    ) -> Acted:
        return await self._act(
            "adjust",
            act,
            player=player_id,
            amount=amount,
            max=min(limit, MAX_CENTS),
            act_max=max(act_limit, 0),
        )

    async def set_meter(self, act: Act, name: str, amount: int | None) -> Acted:
        return await self._act("meter", act, name=name, amount=-1 if amount is None else amount)

    async def suspend(self, act: Act, player_id: str, suspended: bool) -> Acted:
        entry = canonical(suspension(act))
        return await self._act("suspend", act, player=player_id, suspend=suspended, entry=entry)

    # ----- a table's acts -------------------------------------------------------------

    async def submit(self, act: Act) -> Submitted:
        data = await self._call(
            "admin_acts",
            {
                "op": "submit",
                "act": _head(act),
                "digest": act.digest,
                "act_text": canonical(act.to_json()),
            },
            write=True,
        )
        ok = data["ok"]
        return Submitted(ok["state"], ok.get("row"), replayed=bool(data["replayed"]))

    async def finish(
        self, act: Act, row: dict[str, Any], paused: dict[str, Any] | None = None
    ) -> Acted:
        flag = None
        if paused is not None:
            flag = {"set": canonical(paused["set"])} if "set" in paused else {"clear": True}
        data = await self._call(
            "admin_acts",
            {
                "op": "finish",
                "act": _head(act),
                "digest": act.digest,
                "paused": flag,
                "ttl": ACT_RETENTION,
            },
            canonical(row),
            write=True,
        )
        return Acted(data["ok"]["row"], replayed=bool(data["replayed"]))

    async def action(self, action_id: str) -> Submitted | None:
        data = await self._read("action", id=action_id)
        return None if data is None else Submitted(data["state"], data.get("row"))

    async def admin_state(self) -> AdminState:
        data = await self._read("state")
        return AdminState(
            {k: Act.from_json(v) for k, v in data["pending"].items()},
            data["paused"],
            data["suspended"],
            seen=bool(data["seen"]),
        )

    # ----- the audit log ----------------------------------------------------------

    async def audit(
        self, offset: int, limit: int, target: str | None = None
    ) -> tuple[list[dict[str, Any]], int]:
        data = await self._read(
            "audit", offset=max(offset, 0), limit=max(limit, 0), target=target or ""
        )
        return list(data["rows"]), int(data["total"])

    async def audit_lines(self, start: int, count: int) -> list[str]:
        async def read(conn: Any) -> list[str]:
            key = self.store.prefix + "audit"
            first = max(start, 0)
            rows: list[str] = await conn.lrange_aslist(key, first, first + count - 1)
            return rows

        if count <= 0:
            return []
        return [canonical(json.loads(r)) for r in await self.store.run("an audit read", read)]

    # ----- the fleet's view ---------------------------------------------------------

    async def mark_seen(self, ttl: float) -> None:
        await self._write("seen", ttl_ms=max(1, int(ttl * 1000)))

    async def publish(
        self, process_id: str, process: dict[str, Any], tables: dict[str, dict[str, Any]]
    ) -> None:
        await self._write(
            "publish",
            process=process_id,
            row=canonical(process),
            tables={k: canonical(v) for k, v in tables.items()},
        )

    async def published(self) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
        data = await self._read("published")
        return dict(data["tables"]), dict(data["processes"])

    # ----- reads ----------------------------------------------------------------

    async def find_players(self, query: str, limit: int) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = await self._read(
            "find", query=query, folded=query.lower(), limit=limit, max_scan=MAX_SCAN
        )
        return found

    async def player(self, player_id: str) -> dict[str, Any] | None:
        data: dict[str, Any] | None = await self._read("player", player=player_id)
        return data

    async def holds(self, player_id: str, table_ids: list[str]) -> list[dict[str, Any]]:
        if not table_ids:
            return []
        rows: list[dict[str, Any]] = await self._read(
            "holds", player=player_id, tables=list(table_ids)
        )
        return sorted(rows, key=lambda h: (h["round_id"], h["seat"]))

    async def journal(self, round_id: str) -> dict[str, Any] | None:
        data: dict[str, Any] | None = await self._read("journal", round=round_id)
        if data is not None:
            data["holds"] = sorted(data["holds"], key=lambda h: h["seat"])
        return data

    async def round_stats(
        self, table_ids: list[str], since_ms: int, now_ms: int
    ) -> dict[str, dict[str, int]]:
        if not table_ids:
            return {}
        data: dict[str, dict[str, int]] = await self._read(
            "stats", tables=list(table_ids), since=since_ms, now=now_ms, hour_ms=HOUR_MS
        )
        return data


def _head(act: Act) -> dict[str, Any]:
    """The act's fields a script writes into its audit row."""
    return {
        "id": act.id,
        "operator": act.operator,
        "ts": act.ts,
        "action": act.action,
        "target": act.target,
        "reason": act.reason,
        "also": act.audit_targets[1:],  # listed under these too (a player it names)
    }


def _operator(data: dict[str, Any]) -> Operator:
    """An entry as kept; one written before roles were has none: an admin, as then."""
    role = str(data.get("role") or ADMIN)
    return Operator(str(data["name"]), str(data["hash"]), int(data["created_ms"]), role)
