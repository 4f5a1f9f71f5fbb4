"""The simulated clients of a tables run: bots and spectators, state machines
driven by the frames they receive, and what they measure (`Stats`, `TableProbe`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from clients.load.latency import bucket
from clients.load.rawsocket import Frame, RawSocket, pack, unpack
from clients.strategy import should_raise
from protocol.codec import PROTOCOL_VERSION

ACTIONS = ("ante", "deal", "raise", "fold")


@dataclass(eq=False)
class Act:
    """An action written to the socket and not yet seen in a snapshot."""

    rid: int
    action: str
    check: Callable[[Frame], bool]
    sent: float
    replied: bool = False
    seen: bool = False


class Stats:
    """What one generator process measured."""

    def __init__(self) -> None:
        self.measuring = False
        self.player: Counter[int] = Counter()
        self.spectator: Counter[int] = Counter()
        self.by_action: dict[str, Counter[int]] = {a: Counter() for a in ACTIONS}
        self.errors: Counter[str] = Counter()


class TableProbe:
    """One table's actions in flight: the first snapshot showing each (by `seq`), and
    when that snapshot reaches each spectator of the table."""

    def __init__(self, stats: Stats) -> None:
        self.stats = stats
        self.pending: list[Act] = []
        self.resolved: dict[int, list[float]] = {}
        self.top = -1

    def register(self, act: Act) -> None:
        self.pending.append(act)

    def cancel(self, act: Act) -> None:
        with contextlib.suppress(ValueError):
            self.pending.remove(act)

    def snapshot(self, frame: Frame, now: float) -> int:
        seq: int = frame["seq"]
        if seq > self.top:
            self.top = seq
            if self.pending:
                hits = [a for a in self.pending if a.check(frame)]
                if hits:
                    self.pending = [a for a in self.pending if a not in hits]
                    self.resolved[seq] = [a.sent for a in hits]
                    if len(self.resolved) > 64:
                        del self.resolved[next(iter(self.resolved))]
        return seq

    def seen_by_spectator(self, seq: int, now: float) -> None:
        sent = self.resolved.get(seq)
        if sent and self.stats.measuring:
            for t in sent:
                self.stats.spectator[bucket(now - t)] += 1


class Client:
    """Shared by bots and spectators: requests with ids, the ready and done futures."""

    def __init__(self, name: str, table: str, probe: TableProbe, stats: Stats) -> None:
        self.name = name
        self.table = table
        self.probe = probe
        self.stats = stats
        self.sock: RawSocket | None = None
        self._ids = itertools.count(1)
        self.requests: dict[int, str] = {}
        loop = asyncio.get_running_loop()
        self.ready: asyncio.Future[None] = loop.create_future()
        self.done: asyncio.Future[None] = loop.create_future()
        self.player_id = ""
        self.frames = 0

    def request(self, t: str, **fields: Any) -> int:
        rid = next(self._ids)
        self.requests[rid] = t
        assert self.sock is not None
        self.sock.send(pack({"t": t, "id": rid, **fields}))
        return rid

    def on_open(self, sock: RawSocket) -> None:
        self.sock = sock
        self.request("hello", v=PROTOCOL_VERSION, name=self.name)

    def on_message(self, data: bytes, now: float) -> None:
        raise NotImplementedError

    def fail(self, code: str) -> None:
        self.stats.errors[code] += 1
        if not self.ready.done():
            self.ready.set_exception(ConnectionError(code))
        self.finish()

    def finish(self) -> None:
        if not self.done.done():
            self.done.set_result(None)
        if self.sock is not None:
            self.sock.close()

    def on_close(self) -> None:
        if not self.done.done():
            self.stats.errors["connection_lost"] += 1
            self.finish()
        if not self.ready.done():
            self.ready.set_exception(ConnectionError("connection_lost"))


class Spectator(Client):
    def __init__(self, name: str, table: str, probe: TableProbe, stats: Stats) -> None:
        super().__init__(name, table, probe, stats)
        self.last_seq = -1

    def on_message(self, data: bytes, now: float) -> None:
        self.frames += 1
        f = unpack(data)
        t = f.get("t")
        if t == "table":
            if f["table"] == self.table:
                seq = self.probe.snapshot(f, now)
                if seq > self.last_seq:
                    self.last_seq = seq
                    self.probe.seen_by_spectator(seq, now)
            return
        what = self.requests.pop(f["id"], None) if t in ("ok", "error", "welcome") else None
        if t == "welcome":
            self.player_id = f["player_id"]
            self.request("join", table=self.table)
        elif t == "ok" and what == "join" and not self.ready.done():
            self.ready.set_result(None)
        elif t == "error":
            self.fail(str(f.get("code")))


class Bot(Client):
    """Sits, antes, says deal, raises or folds by the near-optimal rule; level-triggered
    on the latest snapshot, one action in flight at a time."""

    def __init__(
        self,
        name: str,
        table: str,
        probe: TableProbe,
        stats: Stats,
        *,
        ante: int | None,
        progressive: float,
        rng: random.Random,
    ) -> None:
        super().__init__(name, table, probe, stats)
        self.ante = ante
        self.progressive = progressive
        self.rng = rng
        self.seat = -1
        self.snap: Frame | None = None
        self.act: Act | None = None
        self.wait_seq = -1  # after a refusal: act again only on a newer snapshot
        self.playing = False
        self.stopping = False
        self.leaving = False
        self.counted: set[str] = set()
        self.hands = 0
        self.net = 0
        self.bought = 0
        self.start_balance: int | None = None
        self.end_balance: int | None = None
        self.end_held: int | None = None
        self.balance: Frame = {}
        self.hand: tuple[str, dict[int, list[str]]] = ("", {})  # round id -> seat -> cards

    # -- frames --

    def on_message(self, data: bytes, now: float) -> None:
        self.frames += 1
        f = unpack(data)
        t = f.get("t")
        if t == "table":
            if f["table"] == self.table:
                self._snapshot(f, now)
            return
        if t == "balance":
            self.balance = f
            return
        if t == "hand":  # our own cards at a private table, after the deal's snapshot
            if f["table"] == self.table:
                self.hand = (str(f["round_id"]), {int(h["seat"]): h["cards"] for h in f["seats"]})
                self.step()
            return
        if t not in ("ok", "error", "welcome"):
            return  # jackpot, jackpot_won
        rid = f.get("id")
        what = self.requests.pop(rid, None) if isinstance(rid, int) else None
        if t == "welcome":
            self.player_id = f["player_id"]
            self.start_balance = f["balance"]["balance"]
            self.request("join", table=self.table)
        elif t == "ok":
            self._ok(what, rid, f)
        else:
            self._error(what, f)

    def _snapshot(self, f: Frame, now: float) -> None:
        self.snap = f
        self.probe.snapshot(f, now)
        act = self.act
        if act is not None and not act.seen and act.check(f):
            act.seen = True
            if self.stats.measuring:
                b = bucket(now - act.sent)
                self.stats.player[b] += 1
                self.stats.by_action[act.action][b] += 1
        paused = f.get("suspended") or {}
        shown = f["phase"] == "showdown" or paused.get("phase") == "showdown"
        if shown and self.seat >= 0 and f["round_id"] not in self.counted:
            me = f["seats"][self.seat]
            if me is not None and me.get("result") and me["player_id"] == self.player_id:
                self.counted.add(f["round_id"])
                self.hands += 1
                self.net += int(me["result"]["net"])
        if act is not None and act.seen and act.replied:
            self.act = None
        self.step()

    def _ok(self, what: str | None, rid: Any, f: Frame) -> None:
        if what == "join":
            self.request("sit", table=self.table)
        elif what == "sit":
            self.seat = int(f["seat"])
            if not self.ready.done():
                self.ready.set_result(None)
        elif what in ACTIONS:
            act = self.act
            if act is not None and act.rid == rid:
                act.replied = True
                if act.seen:
                    self.act = None
                    self.step()
        elif what == "buy_chips":
            self.step()
        elif what == "leave":
            self.request("balance")
        elif what == "balance":
            self.end_balance = int(self.balance.get("balance", -1))
            self.end_held = int(self.balance.get("held", -1))
            self.finish()

    def _error(self, what: str | None, f: Frame) -> None:
        code = str(f.get("code"))
        self.stats.errors[code] += 1
        if what in ACTIONS:
            act, self.act = self.act, None
            if act is not None:
                self.probe.cancel(act)
            self.wait_seq = self.snap["seq"] if self.snap else -1
            if code == "insufficient_funds":
                self.bought += 100_000
                self.request("buy_chips", amount=100_000)
                return
            self.step()
        elif what == "leave":
            self.request("balance")
        elif what == "buy_chips":
            self.bought -= 100_000
            self.leave()
        else:
            self.fail(code)

    # -- decisions --

    def start(self) -> None:
        self.playing = True
        self.step()

    def stop(self) -> None:
        self.stopping = True
        self.step()

    def leave(self) -> None:
        if not self.leaving:
            self.leaving = True
            self.request("leave", table=self.table)

    def step(self) -> None:
        if not self.playing or self.act is not None or self.leaving or self.seat < 0:
            return
        s = self.snap
        if s is None or s["seq"] <= self.wait_seq:
            return
        seat = self.seat
        me = s["seats"][seat]
        if me is None or me["player_id"] != self.player_id:
            self.stats.errors["lost_seat"] += 1
            self.leave()
            return
        phase = s["phase"]
        live = phase in ("betting", "deciding") and me["ante"] > 0
        if self.stopping and not live:
            self.leave()
            return
        if phase in ("waiting", "betting"):
            if me["ante"] == 0:
                amount = self.ante or int(s["min_ante"])
                progressive = self.rng.random() < self.progressive

                def placed(x: Frame) -> bool:
                    v = x["seats"][seat]
                    return v is not None and v["ante"] > 0

                self._act("ante", placed, seat=seat, amount=amount, progressive=progressive)
            elif phase == "betting" and not me["ready"]:

                def dealt(x: Frame) -> bool:
                    v = x["seats"][seat]
                    return x["phase"] != "betting" or (v is not None and v["ready"])

                self._act("deal", dealt)
        elif phase == "deciding" and me["cards"] and me["decision"] is None:
            cards = me["cards"]
            if None in cards:  # face down (a private table): ours come in a `hand` frame
                rid, seats = self.hand
                if rid != s["round_id"] or seat not in seats:
                    return
                cards = seats[seat]
            action = "raise" if should_raise(cards, s["dealer"]["cards"][-1]) else "fold"

            def decided(x: Frame) -> bool:
                v = x["seats"][seat]
                return v is None or v["decision"] is not None

            self._act(action, decided, seat=seat)

    def _act(self, action: str, check: Callable[[Frame], bool], **fields: Any) -> None:
        rid = self.request(action, table=self.table, **fields)
        act = Act(rid, action, check, time.perf_counter())
        self.act = act
        self.probe.register(act)

    def report(self) -> dict[str, Any]:
        return {
            "player_id": self.player_id,
            "hands": self.hands,
            "net": self.net,
            "bought": self.bought,
            "start": self.start_balance,
            "end": self.end_balance,
            "held": self.end_held,
        }
