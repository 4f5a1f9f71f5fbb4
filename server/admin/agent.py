"""What every process does for the operator console, with or without a console port.

A table's act must be carried out by the process hosting the table: in an
exclusive turn at the table and with its lease's fence, like every other write for it. So the
console (on any process) only records the act in the store (`AdminStore.submit`),
and each process's `Agent`, every `admin.poll_interval` seconds (at once when
the act was asked here), reads what is pending (one store call), carries out
the acts for the tables it hosts, and finishes each in the store with its
outcome and audit row, once. Every effect is idempotent (a pause is a flag, a
void is idempotent by round id, a removal frees seats that are then gone), so
an act a host carried out but could not finish before it died is carried out
again by the table's next host, and applies nothing twice.

The same read brings the paused tables and the suspended players: the agent
shows each of its tables paused or not (standing by too, so a table taken over
is paused from its first moment), refuses suspended players (`barred`), and
frees their seats between rounds. While a console looks (`seen`), a process of
a fleet also publishes its tables' details (snapshot, host, pause) for every
console. (The hold statistics are written by each round's settlement, in the
store's settle script.)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import asdict
from typing import Any

from protocol.codec import SERVER_FRAME_LIMITS, decode
from server.admin.host import ConsoleHost
from server.durable import GaveUp, until_known
from server.game.table import Refusal
from server.room import Room
from server.stores.admin import Act, AdminState, AdminStore, suspension
from server.stores.base import NotOwner, StoreError

log = logging.getLogger("stud.admin")

#: The table acts, carried out by the table's host.
TABLE_ACTS = ("pause", "resume", "void", "remove")


def set_paused(room: Room, paused: dict[str, Any] | None) -> bool:
    """Pause the table (`{reason, since_ms}`: antes refused, the round in play goes on)
    or resume it (None), shown to every viewer at once. True if it changed."""
    if paused == room.paused:
        return False
    room.paused = paused
    room.table.touch()  # a new snapshot: every viewer sees it
    room.publish()
    room.host.lobby_changed()
    return True


def public_pause(entry: dict[str, Any] | None) -> dict[str, Any] | None:
    """What players see of a pause (the snapshot's `paused`): no operator's name."""
    if entry is None:
        return None
    return {"reason": entry["reason"], "since_ms": entry["since_ms"]}


class Agent:
    def __init__(self, host: ConsoleHost, admin: AdminStore, interval: float) -> None:
        self.host = host
        self.admin = admin
        self.interval = interval
        self.paused: dict[str, dict[str, Any]] = {}  # table -> {by, reason, since_ms, action}
        self.suspended: dict[str, dict[str, Any]] = {}  # player -> the same
        self.running: dict[str, asyncio.Task[None]] = {}  # act id -> carrying it out
        self.wake = asyncio.Event()
        self._finished = asyncio.Event()
        self._releasing: set[tuple[str, str]] = set()  # (table, player) being freed
        self._touched: dict[str, int] = {}  # table -> the step when an act set its flag
        # player -> (the step when news of their suspension came, the suspension or None)
        self._heard: dict[str, tuple[int, dict[str, Any] | None]] = {}
        self._step = 0
        self._failing = False
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    def barred(self, player_id: str) -> dict[str, Any] | None:
        """The player's suspension, or None (for sit, ante and buy_chips)."""
        return self.suspended.get(player_id)

    def heard(self, player_id: str | None, entry: dict[str, Any] | None) -> None:
        """Another process's console acted: a player's suspension (`entry`, None when
        lifted) holds here at once, and a step reads the rest now."""
        if player_id is not None:
            self._heard[player_id] = (self._step, entry)
            self._set_suspension(player_id, entry)
        self.wake.set()

    def _set_suspension(self, player_id: str, entry: dict[str, Any] | None) -> None:
        suspended = dict(self.suspended)
        if entry is None:
            suspended.pop(player_id, None)
        else:
            suspended[player_id] = entry
        self.suspended = suspended

    # ----- running ---------------------------------------------------------------

    async def start(self) -> None:
        """One step now, before the tables are hosted: their pauses are known before
        anyone can ante; then one every interval."""
        try:
            await self.step()
        except StoreError as e:
            log.warning("operator acts not read at start: %s", e.cause)
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        self._stopping = True
        tasks = [t for t in (self._task, *self.running.values()) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), self.interval)
            self.wake.clear()
            try:
                await self.step()
            except StoreError as e:
                if not self._failing:
                    log.warning("operator acts not read: %s", e.cause)
                self._failing = True
            except Exception:
                log.exception("operator acts step failed")
            else:
                if self._failing:
                    log.info("operator acts read again")
                self._failing = False

    async def step(self) -> None:
        self._step += 1
        began = self._step
        state = await self.admin.admin_state()
        self._follow(state, began)
        for act in state.pending.values():
            self._take(act)
        if state.seen and self.host.fleet is not None:
            await self._publish()

    async def finished(self, timeout: float) -> None:
        """Wait until this process finishes an act (or `timeout` passes)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._finished.wait(), timeout)

    def _pulse(self) -> None:
        self._finished.set()
        self._finished = asyncio.Event()

    # ----- paused tables and suspended players -----------------------------------------

    def _follow(self, state: AdminState, began: int) -> None:
        self.paused = dict(state.paused)
        for room in self.host.rooms.values():
            if self._busy(room.id) or self._touched.get(room.id, -1) >= began:
                continue  # an act of ours is changing it: the store may not show it yet
            set_paused(room, public_pause(state.paused.get(room.id)))
        self.suspended = state.suspended
        for player_id, (step, entry) in list(self._heard.items()):
            if step >= began:  # news that came while this read was out: it may not show it
                self._set_suspension(player_id, entry)
            else:
                del self._heard[player_id]
        for player_id in self.suspended:
            for room in self._hosted():
                key = (room.id, player_id)
                seated = room.table.seats_of(player_id)
                if seated and room.table.keeps_seat(player_id) and key not in self._releasing:
                    self._releasing.add(key)
                    self.host.spawn(self._release(room, player_id))

    def _busy(self, table_id: str) -> bool:
        target = f"table:{table_id}"
        return any(
            act_target == target for act_target in (t.get_name() for t in self.running.values())
        )

    async def _release(self, room: Room, player_id: str) -> None:
        try:
            await room.remove_player(player_id, by_request=False, fold=False)
            log.info(
                "suspended player's seats released",
                extra={"table": room.id, "player_id": player_id},
            )
        except (Refusal, NotOwner, GaveUp, StoreError) as e:
            log.info("seats of a suspended player not released yet: %s", e)
        finally:
            self._releasing.discard((room.id, player_id))

    def _hosted(self) -> list[Room]:
        return [r for r in self.host.rooms.values() if r.active]

    # ----- a table's acts ---------------------------------------------------------------

    def _take(self, act: Act) -> None:
        room = self.host.rooms.get(act.target.removeprefix("table:"))
        if room is None or not room.active or act.id in self.running or self._stopping:
            return
        task = asyncio.get_running_loop().create_task(self._carry_out(room, act))
        task.set_name(act.target)  # what `_busy` looks for
        self.running[act.id] = task
        task.add_done_callback(lambda _: self.running.pop(act.id, None))

    async def _carry_out(self, room: Room, act: Act) -> None:
        try:
            outcome, result, flag = await self._apply(room, act)
        except Refusal as e:
            if e.code in ("table_moved", "table_suspended"):
                return  # pending still: this host once it resumes, or the next one
            outcome, result, flag = "refused", {"code": e.code}, None
        except (NotOwner, GaveUp, StoreError) as e:
            log.warning("operator act not carried out yet: %s", e, extra={"action": act.id})
            return  # pending still, and idempotent: tried again
        row = act.row(outcome, {**result, "process_id": self.host.process_id})
        try:
            await until_known(
                lambda: self.admin.finish(act, row, flag),
                what="finish",
                op=act.id,
                table=room.id,
                pending=self.host.pending,
                duty=True,  # until it lands: the flag on the room must reach the store
                stop=lambda: self._stopping,
            )
        except (GaveUp, StoreError) as e:
            log.warning("operator act not finished: %s", e, extra={"action": act.id})
            return
        self._touched[room.id] = self._step
        if flag is not None:  # shown at once, before the next step reads it back
            if "set" in flag:
                self.paused[room.id] = flag["set"]
            else:
                self.paused.pop(room.id, None)
        log.info(
            "operator act carried out",
            extra={
                "action": act.id,
                "act": act.action,
                "table": room.id,
                "operator": act.operator,
                "outcome": outcome,
            },
        )
        self._pulse()

    async def _apply(
        self, room: Room, act: Act
    ) -> tuple[str, dict[str, Any], dict[str, Any] | None]:
        """(outcome, result, the table's new paused flag or None) of one act."""
        if act.action == "pause":
            if room.paused is not None:
                return "unchanged", {"code": "paused_already"}, None
            entry = suspension(act)
            set_paused(room, public_pause(entry))
            return "applied", {}, {"set": entry}
        if act.action == "resume":
            if room.paused is None:
                return "unchanged", {"code": "not_paused"}, None
            set_paused(room, None)
            return "applied", {}, {"clear": True}
        if act.action == "void":
            round_id = str(act.request.get("round_id", ""))
            if await room.void_round(round_id):
                return "applied", {"round_id": round_id}, None
            journal = await self.admin.journal(round_id)
            state = journal["state"] if journal and journal["table"] == room.id else None
            if state == "voided":
                return "unchanged", {"code": "voided_already"}, None
            code = {"settled": "settled", "open": "not_running"}.get(state or "", "unknown_round")
            return "refused", {"code": code}, None
        if act.action == "remove":
            player_id = str(act.request.get("player_id", ""))
            not_seated = "unchanged", {"code": "not_seated"}, None
            if not room.table.seats_of(player_id):
                if not await self.host.store.player_known(player_id):  # a typo, say
                    return "refused", {"code": "unknown_player"}, None
                return not_seated
            leaving = "unchanged", {"code": "leaving", "at_round_end": True}, None
            if not room.table.keeps_seat(player_id):  # removed (or left) already: going
                return leaving
            if not await room.remove_player(player_id, by_request=False, fold=False):
                if not room.active:  # lost meanwhile: the act waits for the next host
                    raise Refusal("table_moved", f"table {room.id} is hosted elsewhere now")
                # another removal (or the player's leave) had the table's turn first
                return leaving if room.table.seats_of(player_id) else not_seated
            at_end = player_id in room.table.leaving
            return "applied", {"player_id": player_id, "at_round_end": at_end}, None
        return "refused", {"code": "unknown_action"}, None

    # ----- what the console shows ----------------------------------------------------------

    def view(self, room: Room) -> dict[str, Any] | None:
        """The snapshot the table's viewers see now. Nothing not written yet is in it: a
        command changes the engine only once its write lands, and while a settlement is
        being written the snapshot is the one shown before (server/snapshots.py). (A
        copy kept from when a command was last not at the table showed another round.)"""
        if not room.active:
            return None
        view: dict[str, Any] = decode(room.audience.snapshot(shown=False), SERVER_FRAME_LIMITS)
        return view

    def detail(self, room: Room) -> dict[str, Any]:
        return {
            "table": room.id,
            "process_id": self.host.process_id,
            "url": self.host.public_url,
            "ts": int(time.time() * 1000),
            "row": room.describe(),
            "view": self.view(room),
            "paused": self.paused.get(room.id),
            "suspended": room.suspended.reason if room.suspended else None,
        }

    def process_row(self) -> dict[str, Any]:
        host = self.host
        return {
            "process_id": host.process_id,
            "url": host.public_url,
            "ts": int(time.time() * 1000),
            "census": asdict(host.census()),
            "tables": sorted(r.id for r in self._hosted()),
            "pending": [
                {**asdict(w), "since_s": round(time.monotonic() - w.since, 3)}
                for w in host.pending.writes.values()
            ],
            "stopping": host.stopping,
        }

    async def _publish(self) -> None:
        tables = {room.id: self.detail(room) for room in self._hosted()}
        await self.admin.publish(self.host.process_id, self.process_row(), tables)
