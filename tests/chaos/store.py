"""The namespace read out of Redis, directly, for the reconciliation.

Only the keys of the store's own key table (README, docs/OPERATIONS.md) under
`{namespace}:` are read; nothing goes through the server's code. Ledger rows are
`[round_id, seat, reason, source, target, amount]` (server/stores/scripts/_lib.lua).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tests.redis_fixture import raw_connection


@dataclass(frozen=True)
class Row:
    """One ledger row: `amount` cents from `source` to `target`."""

    round_id: str
    seat: int | None
    reason: str
    source: str
    target: str
    amount: int

    @classmethod
    def parse(cls, text: str) -> Row:
        r = json.loads(text)
        seat = r[1] if isinstance(r[1], int) else None
        return cls(str(r[0]), seat, str(r[2]), str(r[3]), str(r[4]), int(r[5]))


@dataclass(frozen=True)
class Moved:
    """One row of the `moves` journal: money moved outside any round, by `op`."""

    op: str
    row: Row

    @classmethod
    def parse(cls, text: str) -> Moved:
        m = json.loads(text)
        return cls(str(m["op"]), Row.parse(json.dumps(m["transfer"])))


@dataclass
class RoundState:
    round_id: str
    table: str = ""
    state: str | None = None  # open | settled | voided; None: no round hash
    ledger: list[Row] = field(default_factory=list)
    holds: dict[str, str] = field(default_factory=dict)


@dataclass
class StoreDump:
    acct: dict[str, int] = field(default_factory=dict)
    held: dict[str, int] = field(default_factory=dict)
    rounds: dict[str, RoundState] = field(default_factory=dict)
    open_sets: dict[str, list[str]] = field(default_factory=dict)  # table -> round ids
    #: table -> its history entries (newest first): {"record": {...}, "settled_at": ms}
    table_history: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    owners: dict[str, str] = field(default_factory=dict)
    players: set[str] = field(default_factory=set)
    moves: list[Moved] = field(default_factory=list)  # the `moves` journal, oldest first

    def player_balance(self, player_id: str) -> int:
        return self.acct.get(f"player:{player_id}", 0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "acct": self.acct,
            "held": self.held,
            "rounds": {rid: asdict(r) for rid, r in self.rounds.items()},
            "open_sets": self.open_sets,
            "table_history": self.table_history,
            "owners": self.owners,
            "players": sorted(self.players),
            "moves": [asdict(m) for m in self.moves],
        }

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_dict()), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> StoreDump:
        data = json.loads(path.read_text(encoding="utf-8"))
        rounds = {}
        for rid, r in data["rounds"].items():
            ledger = [Row(**row) for row in r.pop("ledger")]
            rounds[rid] = RoundState(**r, ledger=ledger)
        return cls(
            acct=data["acct"],
            held=data["held"],
            rounds=rounds,
            open_sets=data["open_sets"],
            table_history=data["table_history"],
            owners=data["owners"],
            players=set(data["players"]),
            moves=[Moved(m["op"], Row(**m["row"])) for m in data.get("moves", [])],
        )


async def dump_store(url: str, namespace: str) -> StoreDump:
    prefix = f"{{{namespace}}}:"
    conn = await raw_connection(url)
    out = StoreDump()
    try:
        cursor = await conn.scan(match=f"{prefix}*")
        keys = sorted(await cursor.fetchall())
        for key in keys:
            name = key[len(prefix) :]
            if name == "acct":
                out.acct = {k: int(v) for k, v in (await conn.hgetall_asdict(key)).items()}
            elif name == "held":
                out.held = {k: int(v) for k, v in (await conn.hgetall_asdict(key)).items()}
            elif name == "moves":
                out.moves = [Moved.parse(r) for r in await conn.lrange_aslist(key, 0, -1)]
            elif name == "players":
                out.players = set((await conn.hgetall_asdict(key)).keys())
            elif name.startswith("round:"):
                rest = name[len("round:") :]
                if rest.endswith(":ledger"):
                    rid = rest[: -len(":ledger")]
                    rows = await conn.lrange_aslist(key, 0, -1)
                    out.rounds.setdefault(rid, RoundState(rid)).ledger = [
                        Row.parse(r) for r in rows
                    ]
                elif rest.endswith(":holds"):
                    rid = rest[: -len(":holds")]
                    holds = await conn.hgetall_asdict(key)
                    out.rounds.setdefault(rid, RoundState(rid)).holds = dict(holds)
                else:
                    data = await conn.hgetall_asdict(key)
                    r = out.rounds.setdefault(rest, RoundState(rest))
                    r.table = str(data.get("table", ""))
                    r.state = data.get("state")
            elif name.startswith("table:") and name.endswith(":open"):
                table = name[len("table:") : -len(":open")]
                out.open_sets[table] = sorted(await conn.smembers_asset(key))
            elif name.startswith("hist:table:"):
                table = name[len("hist:table:") :]
                rows = await conn.lrange_aslist(key, 0, -1)
                out.table_history[table] = [json.loads(r) for r in rows]
            elif name.startswith("owner:"):
                out.owners[name[len("owner:") :]] = str(await conn.get(key))
    finally:
        conn.close()
    return out


async def settled_since(url: str, namespace: str, tables: list[str], since_ms: int) -> set[str]:
    """Tables whose newest history entry was settled at or after `since_ms`."""
    prefix = f"{{{namespace}}}:"
    conn = await raw_connection(url)
    try:
        out = set()
        for table in tables:
            newest = await conn.lindex(f"{prefix}hist:table:{table}", 0)
            if newest and int(json.loads(newest).get("settled_at", 0)) >= since_ms:
                out.add(table)
        return out
    finally:
        conn.close()


@dataclass(frozen=True)
class Wallets:
    """Every player's balance and held cents, and the rounds still open, read at once."""

    balance: dict[str, int]  # player id -> cents
    held: dict[str, int]
    open_rounds: int

    @property
    def at_rest(self) -> bool:
        """No round open and nothing held: no wallet is about to change."""
        return self.open_rounds == 0 and not any(self.held.values())


async def read_wallets(url: str, namespace: str) -> Wallets:
    prefix = f"{{{namespace}}}:"
    conn = await raw_connection(url)
    try:
        acct = await conn.hgetall_asdict(f"{prefix}acct")
        held = await conn.hgetall_asdict(f"{prefix}held")
        cursor = await conn.scan(match=f"{prefix}table:*:open")
        open_rounds = 0
        for key in await cursor.fetchall():
            open_rounds += int(await conn.scard(key))
        players = {k[len("player:") :]: int(v) for k, v in acct.items() if k.startswith("player:")}
        return Wallets(
            balance=players,
            held={k: int(v) for k, v in held.items()},
            open_rounds=open_rounds,
        )
    finally:
        conn.close()
