"""What the console shows: the fleet's tables, jackpots, players, rounds, retries, books.

Every table of the fleet: this process's from its rooms, the others' from the
shared lobby rows and the details their hosts publish while a console looks
(server/admin/agent.py), so the view of a table hosted elsewhere is as old as
its host's last step (`updated_ms`). Hold over the last hour comes from the
store's hold statistics:

- `hold`: (stakes − returns) / stakes of the main game (ante + raise), beside
  the variant's element of risk (the house edge per unit of total bet, under
  optimal play: `server/analysis/odds.py`);
- `hold_per_ante`: the same money over the antes, beside the house edge per ante.

An hour of a table is a few hundred hands, so both wander far from the edge;
they are what happened, the edge is what to expect in the long run. The
progressive is shown apart (its return depends on the meter).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from protocol.fairness import verify
from server.admin.agent import Agent
from server.admin.edges import HouseEdges
from server.admin.host import ConsoleHost
from server.game.variants import Variant
from server.stores.admin import HOUR_MS, AdminStore
from server.stores.base import HISTORY_LIMIT, StoreError

#: Publishing intervals a process may miss (a loaded host) before its details are old.
STALE_INTERVALS = 3
#: Seconds the hold statistics of every table are kept between reads.
STATS_CACHE = 2.0
#: Seconds a console's first look waits for the other processes to publish afresh.
FRESH_WAIT = 1.5


class Views:
    def __init__(
        self, host: ConsoleHost, admin: AdminStore, agent: Agent, edges: HouseEdges
    ) -> None:
        self.host = host
        self.admin = admin
        self.agent = agent
        self.edges = edges
        self._stats: tuple[float, dict[str, dict[str, int]]] | None = None

    def stale_ms(self) -> int:
        """How old (ms) a process's published details may be and still be shown: past
        a few publishing intervals, and the lease's TTL, its host is gone (a killed host's
        table used to be shown live for 30 s, long after another had taken it)."""
        config = self.host.config
        return int(1000 * max(config.fleet_ttl, STALE_INTERVALS * config.admin.poll_interval))

    async def fresh_fleet(self) -> None:
        """A console's first look after none looked: the other processes publish their
        tables' details only while one does, so what is in the store is old (their
        tables read as hosted by none, the fleet as this process alone). Wake them on
        the channel and wait, a little, until each has published anew."""
        fleet = self.host.fleet
        if fleet is None or not fleet.others():
            return
        try:
            await fleet.announce_acts()
        except StoreError:
            return  # they publish at their next poll; the view says how old it is
        loop = asyncio.get_running_loop()
        until = loop.time() + FRESH_WAIT
        while loop.time() < until:
            _, processes = await self.admin.published()
            now = int(time.time() * 1000)
            fresh = {p for p, row in processes.items() if now - int(row.get("ts", 0)) <= 1000}
            if set(fleet.others()) <= fresh:
                return
            await asyncio.sleep(0.05)

    # ----- tables ----------------------------------------------------------------

    def table_ids(self) -> list[str]:
        """Every table this process knows: its own (hosted or standing by), and the
        fleet's lobby rows."""
        return sorted(set(self.host.rooms) | {str(r["id"]) for r in self.host.lobby.remote})

    def listed(self, table_id: str) -> bool:
        return table_id in self.host.rooms or self.host.lobby.remote_row(table_id) is not None

    async def known(self, table_id: str) -> bool:
        """A table of the fleet: listed, or published by a host once (one between two
        hosts has no lobby row for a moment)."""
        if self.listed(table_id):
            return True
        details, _ = await self.admin.published()
        return table_id in details

    async def fleet_ids(self, details: dict[str, Any] | None = None) -> list[str]:
        """Every table of the fleet (`known`): one whose hosts are all gone is listed
        too, `unhosted`, so an act can be recorded for it and seen pending. `details`:
        what the hosts published, if read already (a table published between two reads
        would be drawn unhosted)."""
        if details is None:
            details, _ = await self.admin.published()
        return sorted(set(self.table_ids()) | set(details))

    async def tables(self) -> list[dict[str, Any]]:
        details, _ = await self.admin.published()
        ids = await self.fleet_ids(details)
        stats = await self._round_stats(ids)
        return [self._table(t, details, stats.get(t, {})) for t in ids]

    def tables_here(self) -> list[dict[str, Any]]:
        """Without the store (it cannot be reached): every table this process knows, its
        own as they are, the others' as the fleet's lobby last said; no hold figures."""
        return [self._table(t, {}, None) for t in self.table_ids()]

    def table_here(self, table_id: str) -> dict[str, Any] | None:
        """`table` without the store: what needs it (audit, pending acts, history) null."""
        if not self.listed(table_id):
            return None
        out = self._table(table_id, {}, None, full=True)
        return {**out, "audit": None, "pending_acts": None, "history": None}

    async def table(self, table_id: str) -> dict[str, Any] | None:
        if not await self.known(table_id):
            return None
        details, _ = await self.admin.published()
        stats = await self._round_stats([table_id])
        out = self._table(table_id, details, stats.get(table_id, {}), full=True)
        out["audit"], _ = await self.admin.audit(0, 20, target=f"table:{table_id}")
        state = await self.admin.admin_state()
        out["pending_acts"] = [
            a.to_json() for a in state.pending.values() if a.target == f"table:{table_id}"
        ]
        out["history"] = await self.host.store.table_history(table_id, 10)
        return out

    def _table(
        self,
        table_id: str,
        details: dict[str, dict[str, Any]],
        stats: dict[str, int] | None,
        *,
        full: bool = False,
    ) -> dict[str, Any]:
        room = self.host.rooms.get(table_id)
        now = int(time.time() * 1000)
        process: str | None
        updated: int | None
        if room is not None and room.active:
            row, view = room.describe(), self.agent.view(room)
            paused = self.agent.paused.get(table_id)
            if paused is None and room.paused is not None:  # not read back from the store yet
                paused = {**room.paused, "by": None, "action": None}
            if room.closing is not None:  # what its players see: the shutdown
                paused = {**(room.shown_paused() or {}), "by": None, "action": None}
            process, updated = self.host.process_id, now
            suspended = room.suspended.reason if room.suspended else None
        else:
            found = self.host.lobby.remote_row(table_id)
            detail = details.get(table_id)
            fleet = self.host.fleet
            if detail is not None and (
                now - int(detail.get("ts", 0)) > self.stale_ms()
                or (fleet is not None and fleet.silent(str(detail.get("process_id"))))
            ):
                detail = None  # its host is gone, or silent past its leases: not a host
            # a killed host's row stays in the lobby for 3 TTLs: it was named for ~18 s
            # after its lease had lapsed, in the phase it last shared
            gone = found is not None and bool(found.get("silent")) and detail is None
            # the host's own detail first: after a takeover the fleet's lobby can still
            # hold the old host's row (its url) until the new host's next heartbeat
            row = (detail or {}).get("row") or found or (room.describe() if room else {})
            view = (detail or {}).get("view")
            paused = (detail or {}).get("paused") or self.agent.paused.get(table_id)
            # no fresh detail (its host has not published since a console last looked, or
            # is stalled): the host the fleet's lobby lists it at, still alive by its beat
            listed_at = (
                fleet.host_of(table_id) if fleet is not None and found and not gone else None
            )
            process = (detail or {}).get("process_id") or listed_at
            updated = (detail or {}).get("ts")
            suspended = (detail or {}).get("suspended")
            if (found is None or gone) and detail is None:
                row = {**row, "phase": "unhosted", "url": None}
        variant_row = row.get("variant") or {}
        out: dict[str, Any] = {
            "id": table_id,
            "title": row.get("title", table_id),
            "variant": variant_row.get("name"),
            "variant_title": variant_row.get("title"),
            "process_id": process,
            "url": row.get("url"),
            "here": room is not None and room.active,
            "phase": row.get("phase"),
            "paused": paused,
            "suspended": suspended,
            "seats": row.get("seats"),
            "taken": row.get("taken"),
            "spectators": row.get("spectators"),
            "round_id": (view or {}).get("round_id"),
            "players": _players(view),
            "last_hour": hold(stats) if stats is not None else None,
            "house_edge": self._edge(variant_row),
            "updated_ms": updated,
        }
        if full:
            out["row"] = row
            out["view"] = view
        return out

    def _edge(self, variant_row: dict[str, Any]) -> dict[str, Any]:
        variant = self.host.config.variants.get(str(variant_row.get("name")))
        if variant is None or variant.to_public() != variant_row:
            return {"status": "unknown", "house_edge_ante": None, "element_of_risk": None}
        status, figures = self.edges.get(variant)
        return {"status": status, **(figures or {"house_edge_ante": None, "element_of_risk": None})}

    async def _round_stats(self, ids: list[str]) -> dict[str, dict[str, int]]:
        now = time.monotonic()
        cached = self._stats
        if cached is not None and now - cached[0] < STATS_CACHE and set(ids) <= set(cached[1]):
            return cached[1]
        wall = int(time.time() * 1000)
        stats = await self.admin.round_stats(self.table_ids(), wall - HOUR_MS, wall)
        self._stats = (now, stats)
        return stats

    def variant(self, name: str) -> Variant | None:
        return self.host.config.variants.get(name)

    # ----- jackpots, retries, books ------------------------------------------------------

    async def jackpots(self) -> list[dict[str, Any]]:
        meters = await self.host.store.meters()
        out = []
        for name in sorted(set(meters) | set(self.host.config.jackpots)):
            jp = self.host.config.jackpots.get(name)
            out.append(
                {
                    "name": name,
                    "amount": meters.get(name, self.host.meters.get(name, 0)),
                    "seed": jp.seed if jp is not None else None,
                    "contribution_bp": jp.contribution_bp if jp is not None else None,
                    "hits": await self.named(await self.host.store.jackpot_hits(name, 10)),
                }
            )
        return out

    async def named(self, hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Each percent prize with its player's name as it is now (null for a player the
        store no longer knows): the page shows the name, the id beside it."""
        names: dict[str, str | None] = {}
        for player_id in {str(hit.get("player_id")) for hit in hits}:
            profile = await self.admin.player(player_id)
            names[player_id] = profile.get("name") if profile else None
        return [{**hit, "name": names.get(str(hit.get("player_id")))} for hit in hits]

    async def pending(self) -> dict[str, Any]:
        _, processes = await self.admin.published()
        now = int(time.time() * 1000)
        here = self.agent.process_row()
        fleet = [p for pid, p in processes.items() if pid != here["process_id"]]
        fleet = [p for p in fleet if now - int(p.get("ts", 0)) <= self.stale_ms()]
        state = await self.admin.admin_state()
        return {
            "processes": [here, *sorted(fleet, key=lambda p: str(p["process_id"]))],
            "writes": sum(len(p.get("pending", [])) for p in [here, *fleet]),
            "acts": [a.to_json() for a in sorted(state.pending.values(), key=lambda a: a.ts)],
        }

    def pending_here(self) -> dict[str, Any]:
        """`pending` without the store: this process's writes in doubt; the acts waiting
        and the other processes' rows are in the store (null)."""
        here = self.agent.process_row()
        return {"processes": [here], "writes": len(here["pending"]), "acts": None}

    async def books(self) -> dict[str, Any]:
        totals = await self.host.store.totals()
        players = {k: v for k, v in totals.items() if k.startswith("player:")}
        return {
            "accounts": {k: v for k, v in sorted(totals.items()) if k not in players},
            "players": {"accounts": len(players), "total": sum(players.values())},
            "sum": sum(totals.values()),
        }

    # ----- players and rounds ----------------------------------------------------------

    async def find_players(self, query: str) -> list[dict[str, Any]]:
        return await self.admin.find_players(query.strip(), 20) if query.strip() else []

    async def player(self, player_id: str) -> dict[str, Any] | None:
        profile = await self.admin.player(player_id)
        if profile is None:
            return None
        store = self.host.store
        details, _ = await self.admin.published()
        seats = []
        for table_id in self.table_ids():
            view = self._table(table_id, details, {}, full=True)["view"]
            for i, seat in enumerate((view or {}).get("seats") or []):
                if seat and seat.get("player_id") == player_id:
                    seats.append({"table": table_id, "seat": i, "ante": seat.get("ante", 0)})
        audit, _ = await self.admin.audit(0, 20, target=f"player:{player_id}")
        return {
            **profile,
            "wallet": (await store.wallet(player_id)).to_public(),
            "holds": await self.admin.holds(player_id, self.table_ids()),
            "seats": seats,
            "connected_here": self.host.sessions.is_connected(player_id),
            "history": await store.history(player_id, 20),
            "moves": [m.to_json() for m in await store.player_moves(player_id, 20)],
            "audit": audit,
        }

    async def round(self, round_id: str) -> dict[str, Any] | None:
        journal = await self.admin.journal(round_id)
        table_id = journal["table"] if journal else _table_of(round_id, self.table_ids())
        record = None
        if table_id is not None:
            record = _find(await self.host.store.table_history(table_id, HISTORY_LIMIT), round_id)
        players = {
            account.removeprefix("player:")
            for row in (journal or {}).get("ledger", [])
            for account in (row[3], row[4])
            if account.startswith("player:")
        }
        for player_id in sorted(players):
            if record is not None:
                break
            record = _find(await self.host.store.history(player_id, HISTORY_LIMIT), round_id)
        if journal is None and record is None:
            return None
        return {
            "round_id": round_id,
            "table": table_id,
            "journal": journal,
            "record": record,
            "fairness_check": fairness_check(record),
        }


def hold(stats: dict[str, int]) -> dict[str, Any]:
    """The last hour's figures of a table, with its holds (None before any stake)."""
    wagered, antes = stats.get("wagered", 0), stats.get("antes", 0)
    kept = wagered - stats.get("returned", 0)
    return {
        **{k: stats.get(k, 0) for k in ("rounds", "hands", "antes", "wagered", "returned")},
        "progressive_staked": stats.get("progressive_staked", 0),
        "progressive_paid": stats.get("progressive_paid", 0),
        "hold": round(kept / wagered, 6) if wagered else None,
        "hold_per_ante": round(kept / antes, 6) if antes else None,
    }


def fairness_check(record: dict[str, Any] | None) -> dict[str, Any] | None:
    """The round's proof checked here (PROTOCOL.md §13), or None without one."""
    proof = (record or {}).get("fairness") or {}
    if record is None or not isinstance(proof.get("server_seed"), str):
        return None
    problems = verify(
        commitment_hex=str(proof.get("commitment", "")),
        server_seed_hex=proof["server_seed"],
        client_seeds=str(proof.get("client_seeds", "")),
        nonce=str(proof.get("nonce", "")),
        seats=[s.get("cards") or [] for s in record.get("seats", [])],
        dealer=record.get("dealer") or [],
    )
    return {"ok": not problems, "problems": problems}


def _players(view: dict[str, Any] | None) -> list[dict[str, Any]]:
    out = []
    for i, seat in enumerate((view or {}).get("seats") or []):
        if seat:
            out.append(
                {
                    "seat": i,
                    "player_id": seat["player_id"],
                    "name": seat["name"],
                    "connected": seat.get("connected", False),
                    "ante": seat.get("ante", 0),
                }
            )
    return out


def _table_of(round_id: str, table_ids: list[str]) -> str | None:
    """A round id is `<table>-<hex>`: the longest table id it starts with."""
    found = [t for t in table_ids if round_id.startswith(f"{t}-")]
    return max(found, key=len) if found else None


def _find(entries: list[dict[str, Any]], round_id: str) -> dict[str, Any] | None:
    return next((e for e in entries if e.get("round_id") == round_id), None)
