"""Which tables this process hosts: leases claimed, renewed, lost and taken over.

A table is hosted under a lease in the store (`Store.claim`) with a fencing
epoch that grows with every new holder, and every write for the table carries
that epoch, so a process that lost a table can never write for it again.
Alone (no fleet) the lease never expires. In a fleet it lasts `fleet_ttl` and
is renewed every third of that; a process stands by for tables another holds
and takes one over when its lease runs out, first voiding (and refunding)
whatever round the old holder left open.

The room acts only while its lease is surely still ours: until the time the
renewal was *sent* plus most of the TTL (the store counts the TTL from when
it received the renewal, later). So a process paused, cut off or slow stops
acting before anyone else can claim its tables: never two hosts at once.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence

from server.fleet import Fleet
from server.jackpots import JackpotNews
from server.lobby import Lobby
from server.room import Room
from server.standing import Lease
from server.stores.base import Claim, Fence, Store, StoreError

log = logging.getLogger("stud.hosting")

#: Share of the lease's TTL the room may act on after sending a renewal.
SAFE_SHARE = 0.8
#: Tables renewed per store call of a heartbeat.
CLAIM_SLICE = 200


class Hosting:
    def __init__(
        self,
        rooms: Mapping[str, Room],
        store: Store,
        fleet: Fleet | None,
        jackpots: JackpotNews,
        lobby: Lobby,
        stopping: Callable[[], bool],
        process_id: str,
        ttl: float | None,
        refunded: Callable[[Sequence[str]], None] = lambda players: None,
    ) -> None:
        self.rooms = rooms
        self.store = store
        self.fleet = fleet
        self.jackpots = jackpots
        self.lobby = lobby
        self.stopping = stopping
        self.process_id = process_id
        self.ttl = ttl  # None: the lease never expires (one process, no fleet)
        self.refunded = refunded  # players a void refunded: their wallets to be pushed
        self.released = False  # the leases were given back (shutdown): renew none
        # leases go over the fleet's own connection, never queued behind money writes
        self.leases: Store = fleet.store if fleet is not None else store

    def hosted(self) -> list[Room]:
        return [r for r in self.rooms.values() if r.active]

    async def host(self, room: Room) -> bool:
        """Claim or renew one table's lease (see `claim`)."""
        await self.claim([room])
        return room.active

    async def claim(self, rooms: list[Room], *, afresh: bool = False) -> None:
        """Claim or renew the tables' leases in one store call; a new epoch first voids
        what an older host left open. `afresh`: as if they were not held here (their
        rooms start over: `Room.start_over`), so the claim voids what the journal holds
        open of them and each room gets a new engine."""
        sent = asyncio.get_running_loop().time()
        held = {r.id: r.lease.epoch if r.lease is not None and not afresh else 0 for r in rooms}
        claims = await self.leases.claim_many(held, self.process_id, self.ttl)
        took = asyncio.get_running_loop().time() - sent
        if self.ttl is not None and took > self.ttl / 3:
            log.warning(
                "lease renewal took %.2fs (leases last %.1fs, acted on for %.1fs)",
                took,
                self.ttl,
                SAFE_SHARE * self.ttl,
                extra={"seconds": took, "tables": len(rooms)},
            )
        for room in rooms:
            try:
                await self._take(room, claims[room.id], sent)
            except StoreError as e:  # its recovery did not land: the next heartbeat tries again
                log.warning("table %s not taken yet: %s", room.id, e.cause)

    async def _take(self, room: Room, claim: Claim, sent: float) -> None:
        if not claim.granted:
            if room.starting_over and room.active and not claim.owner:
                return  # free, its lapsed lease waited out first: claimed at a next try
            if room.active:
                log.error(
                    "lost table %s to another process",
                    room.id,
                    extra={"table": room.id, "owner": claim.owner, "epoch": claim.epoch},
                )
                room.lose(claim.owner or "")
            return
        if claim.fresh:
            log.info(
                "table claimed",
                extra={"table": room.id, "epoch": claim.epoch, "process_id": self.process_id},
            )
            started = time.time()  # as every void's line: when its write was first sent
            why = (
                "the store's data was restored; every bet it holds refunded"
                if room.starting_over
                else "its host is gone; every bet refunded"
            )
            voided = await self.store.recover(Fence(room.id, claim.epoch))
            for round_id in voided:
                log.warning(
                    "round voided",
                    extra={
                        "round_id": round_id,
                        "table": room.id,
                        "epoch": claim.epoch,
                        "process_id": self.process_id,
                        "why": why,
                        "started_at": round(started, 3),
                    },
                )
            if voided:
                await self.jackpots.refresh_all()
                await self._tell_refunded(voided)
            self.lobby.changed()
        valid = math.inf if self.ttl is None else sent + SAFE_SHARE * self.ttl
        room.hosted(Lease(claim.epoch, valid), fresh=claim.fresh)

    async def _tell_refunded(self, voided: Sequence[str]) -> None:
        """The players of the rounds voided here are connected elsewhere, if at all (the
        old host, or another process after a reconnect): their wallets are pushed."""
        try:
            players = {p for rid in voided for p in await self.store.round_players(rid)}
        except StoreError as e:  # the refunds stand; the wallets show at the next change
            log.warning("refunded players not read: %s", e.cause)
            return
        self.refunded(sorted(players))

    async def heartbeat(self) -> None:
        """Renew our leases and take over tables whose holder is gone: nothing else, so
        a slow lobby or meter read never holds a renewal back. In slices of
        `CLAIM_SLICE` tables, one store call each: a thousand tables renewed in one go
        held the event loop (and Redis) for tens of milliseconds in front of players."""
        rooms = list(self.rooms.values())
        for i in range(0, len(rooms), CLAIM_SLICE):
            rooms_now = rooms[i : i + CLAIM_SLICE]
            # shutting down: the tables held here are renewed while their rounds finish
            # (a lapsed lease would stop them), none is taken; given back, none is renewed
            if self.stopping():
                rooms_now = [r for r in rooms_now if r.active]
            if self.released:
                return
            if rooms_now:
                await self.claim(rooms_now)

    async def share(self) -> None:
        """Share the lobby with the fleet, and put back meters a restarted Redis lost."""
        assert self.fleet is not None
        if self.stopping():
            return
        try:
            await self.jackpots.ensure()
        except StoreError as e:  # the step's first part: said, not left to its script's name
            e.cause = f"checking the jackpot meters first: {e.cause}"
            raise
        # each row says which lease it was written under: when a dead host's rows are
        # still about, the fleet lists the table at the host with the newer epoch
        rows = [
            (r.lobby_fixed, {**r.lobby_live(), "epoch": r.lease.epoch if r.lease else 0})
            for r in self.hosted()
        ]
        procs = await self.fleet.publish_rows(rows)
        local = {r.id for r in self.hosted()}
        self.lobby.set_remote(await self.fleet.remote_rows(local, procs), self.fleet.servers())

    async def release(self) -> None:
        """Give our tables back (shutdown): a standby takes them without waiting. The
        leases and the lobby rows go at once, so a store that cannot be reached holds
        the shutdown up for one call's wait, not two."""
        self.released = True
        held = {r.id: r.lease.epoch for r in self.hosted() if r.lease is not None}
        if self.fleet is not None:
            await asyncio.gather(self._release(held), self.fleet.close(list(held)))
        else:
            await self._release(held)

    async def _release(self, held: dict[str, int]) -> None:
        try:
            await self.leases.release_many(held, self.process_id)
        except StoreError as e:  # the TTLs free the tables anyway
            log.warning("could not release %d tables: %s", len(held), e.cause)
        else:  # a standby may take them now
            log.info("leases given up", extra={"tables": len(held)})
