"""Which tables this process hosts: claimed at start, renewed, taken over, recovered.

Alone (no fleet) a process hosts every table it is configured with. In a
fleet it hosts a table only while it holds the table's lease (server/fleet.py);
it stands by for the others and takes one over when its owner's lease runs
out, first voiding (and refunding) whatever round the old owner left open.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from server.fleet import Fleet
from server.jackpots import JackpotNews
from server.lobby import Lobby
from server.room import Room
from server.stores.base import Store

log = logging.getLogger("stud.hosting")


class Hosting:
    def __init__(
        self,
        rooms: Mapping[str, Room],
        store: Store,
        fleet: Fleet | None,
        jackpots: JackpotNews,
        lobby: Lobby,
        stopping: Callable[[], bool],
    ) -> None:
        self.rooms = rooms
        self.store = store
        self.fleet = fleet
        self.jackpots = jackpots
        self.lobby = lobby
        self.stopping = stopping

    def hosted(self) -> list[Room]:
        return [r for r in self.rooms.values() if r.active]

    async def host(self, room: Room) -> None:
        """Take the table if no live process has it; void what a crashed owner left open."""
        if self.fleet is not None and not await self.fleet.claim(room.id):
            room.active = False
            return
        if not room.active or not room.recovered:
            voided = await self.store.recover(room.id)
            room.recovered = True
            for round_id in voided:
                log.warning(
                    "voided a round left open by a crash; every bet refunded",
                    extra={"round_id": round_id, "table": room.id},
                )
            if voided:
                await self.jackpots.refresh_all()
        room.active = True

    async def heartbeat(self) -> None:
        """Keep our tables, take over those of dead processes, share the lobby."""
        assert self.fleet is not None
        if self.stopping():
            return
        await self.jackpots.ensure()
        for room in self.rooms.values():
            was = room.active
            if was and not await self.fleet.claim(room.id):
                log.error("lost table %s to another process", room.id, extra={"table": room.id})
                room.active = False
                room.closing = True
            elif not was:
                await self.host(room)
                if room.active:
                    log.warning("took over table %s", room.id, extra={"table": room.id})
                    self.lobby.changed()
        await self.fleet.publish_rows([r.describe() for r in self.hosted()])
        local = {r.id for r in self.hosted()}
        self.lobby.set_remote(await self.fleet.remote_rows(local))

    async def release(self) -> None:
        """Give our tables back to the fleet (shutdown)."""
        if self.fleet is not None:
            await self.fleet.close([r.id for r in self.hosted()])
