"""Bot players and spectators: demos, and the engine of the load generator.

Every bot is one WebSocket connection and one asyncio task (plus the client's
reader task): no threads, no per-bot timers, no frame history, so one process
runs hundreds. A bot sits, antes (sometimes with the progressive), says deal,
and when its cards are out decides with its `Strategy`. It acts on the latest
snapshot (level-triggered, so snapshots merged in transit lose nothing) while a
frame listener sees every snapshot in order to count each settled hand exactly
once and to time each action: from sending it to receiving the first snapshot
that shows it.

A bot reads its own cards from the snapshot, or, when the table deals hands
face down until the showdown (`hands: "private"`), from the `hand` frame the
server sends it alone (`StudClient.view` merges the two).

A table that moves to another server process (`table_moved`, or `unknown_table`
naming where it is) is followed as PROTOCOL.md says: a new connection to the new
host with the same token, the seats taken again there (a spectator watches there).
The round in play at the move was voided (its bets refunded) or settled before it,
which the history says: a settled round not seen at the old host is counted from
it, so the wallet still reconciles with the hands counted.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from websockets.exceptions import ConnectionClosed, WebSocketException

from clients.connection import ServerError, StudClient
from clients.optimal import should_raise

Snapshot = dict[str, Any]
SeatView = dict[str, Any]
#: (the seat's five cards, the dealer's up card) -> raise? By default the exact
#: optimal table (`clients.optimal`); `clients.strategy.should_raise` is the
#: published near-optimal rule.
Strategy = Callable[[Sequence[str], str], bool]

ACTIONS = ("ante", "deal", "raise", "fold")
BUY_CHIPS = 100_000  # cents a bot buys when it runs short
#: Errors that say the table is hosted by another process now.
MOVED_CODES = frozenset({"table_moved", "unknown_table"})
#: tries of a request the server's rate limit drops before the bot gives up on it
RATE_LIMITED_TRIES = 5


class Pace:
    """A bucket like the one the server keeps for the connection (PROTOCOL.md §11,
    `welcome.limits`), so a bot playing fast rounds sends no frame the server would
    drop: it stopped at its first `rate_limited`, and one that only retried was
    dropped again and closed with 1008."""

    def __init__(self, limits: dict[str, Any]) -> None:
        self.rate = float(limits.get("rate_per_second") or 20)
        self.burst = float(limits.get("rate_burst") or 2 * self.rate)
        self.tokens = self.burst - 2  # the hello and a frame of slack
        self.stamp = time.monotonic()

    async def take(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < 1:
            await asyncio.sleep((1 - self.tokens) / self.rate)
            self.tokens, self.stamp = 1.0, time.monotonic()
        self.tokens -= 1

    def empty(self) -> None:
        """The server dropped a frame: its bucket is empty whatever this one says."""
        self.tokens, self.stamp = 0.0, time.monotonic()


#: Seconds between looks at the lobby for a moved table's new host.
FIND_INTERVAL = 0.5


def money(cents: int, *, sign: bool = False) -> str:
    """Integer cents as dollars: 12345 -> "$123.45", with sign=True -> "+$123.45"; zero
    is "$0.00" either way, as the browser says it (clients/web/js/format.js)."""
    text = f"${abs(cents) // 100:,}.{abs(cents) % 100:02d}"
    if cents < 0:
        return "-" + text
    return ("+" + text) if sign and cents > 0 else text


def hand_net(seat: SeatView) -> int:
    """What a settled hand did to the wallet, in cents: `result.net` counts the ante,
    the raise, the progressive stake and any progressive prize (PROTOCOL.md)."""
    return int(seat["result"]["net"])


def prize_paid(seat: SeatView) -> int:
    """Cents the hand's progressive bet paid (fixed or from the meter), 0 if none."""
    prize = (seat.get("result") or {}).get("progressive_prize")
    return int(prize) if isinstance(prize, int) else 0


def progressive_part(seat: Mapping[str, Any]) -> int:
    """What a settled hand's progressive bet put in its net, in cents: its prize, or its
    stake lost when it won nothing (the net counts both: "No qualify +$0.00" was an ante
    won and a progressive lost, said as nothing); 0 without a progressive bet."""
    result = seat.get("result") or {}
    paid = prize_paid(dict(seat))
    if paid or result.get("progressive_prize") != 0:
        return paid
    # the stake, from what the settlement says: net = returned - (ante + raise + stake)
    ante = int(seat.get("ante") or 0)
    raised = 2 * ante if seat.get("decision") == "raise" else 0
    try:
        stake = int(result["returned"]) - int(result["net"]) - ante - raised
    except (KeyError, TypeError, ValueError):
        return 0
    return -stake if stake > 0 else 0


@dataclass
class BotResult:
    name: str
    table: str
    player_id: str = ""
    seats: list[int] = field(default_factory=list)
    hands: int = 0
    raised: int = 0
    folded: int = 0
    auto_folded: int = 0  # folded by the server's timer, not by the bot
    outcomes: Counter[str] = field(default_factory=Counter)
    net: int = 0  # cents, summed from the settled hands
    progressive_bets: int = 0
    jackpot_wins: int = 0  # hands whose progressive bet paid a prize
    jackpot_cents: int = 0
    bought: int = 0  # cents of chips bought during the run
    moves: int = 0  # times its table went to another process, and the bot with it
    start_balance: int | None = None
    end_balance: int | None = None
    errors: Counter[str] = field(default_factory=Counter)
    latency: dict[str, list[float]] = field(default_factory=lambda: {a: [] for a in ACTIONS})

    @property
    def balance_change(self) -> int | None:
        """The wallet's change not explained by buying chips: equals `net` when it reconciles."""
        if self.start_balance is None or self.end_balance is None:
            return None
        return self.end_balance - self.start_balance - self.bought

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "table": self.table,
            "player_id": self.player_id,
            "seats": self.seats,
            "hands": self.hands,
            "raised": self.raised,
            "folded": self.folded,
            "auto_folded": self.auto_folded,
            "outcomes": dict(self.outcomes),
            "net": self.net,
            "progressive_bets": self.progressive_bets,
            "jackpot_wins": self.jackpot_wins,
            "jackpot_cents": self.jackpot_cents,
            "bought": self.bought,
            "moves": self.moves,
            "start_balance": self.start_balance,
            "end_balance": self.end_balance,
            "balance_change": self.balance_change,
            "errors": dict(self.errors),
            "latency_ms": latency_summary(self.latency),
        }


@dataclass
class SpectatorResult:
    name: str
    table: str
    snapshots: int = 0
    showdowns: int = 0
    moves: int = 0  # times it followed the table to another process
    errors: Counter[str] = field(default_factory=Counter)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "table": self.table,
            "snapshots": self.snapshots,
            "showdowns": self.showdowns,
            "moves": self.moves,
            "errors": dict(self.errors),
        }


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile of already sorted values."""
    if not sorted_values:
        return 0.0
    k = max(0, min(len(sorted_values) - 1, round(q * (len(sorted_values) - 1))))
    return sorted_values[k]


def latency_summary(latency: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    """Per action: count and p50/p95/p99/max in milliseconds."""
    out: dict[str, dict[str, float]] = {}
    for action, values in latency.items():
        if not values:
            continue
        s = sorted(values)
        out[action] = {
            "count": len(s),
            "p50": round(percentile(s, 0.50), 3),
            "p95": round(percentile(s, 0.95), 3),
            "p99": round(percentile(s, 0.99), 3),
            "max": round(s[-1], 3),
        }
    return out


@dataclass
class BotsReport:
    bots: list[BotResult]
    spectators: list[SpectatorResult]
    seconds: float

    def latency(self) -> dict[str, list[float]]:
        merged: dict[str, list[float]] = {a: [] for a in ACTIONS}
        for b in self.bots:
            for action, values in b.latency.items():
                merged.setdefault(action, []).extend(values)
        return merged

    def to_dict(self) -> dict[str, Any]:
        errors: Counter[str] = Counter()
        for b in self.bots:
            errors.update(b.errors)
        for s in self.spectators:
            errors.update(s.errors)
        return {
            "seconds": round(self.seconds, 3),
            "bots": [b.to_dict() for b in self.bots],
            "spectators": [s.to_dict() for s in self.spectators],
            "totals": {
                "hands": sum(b.hands for b in self.bots),
                "raised": sum(b.raised for b in self.bots),
                "folded": sum(b.folded for b in self.bots),
                "net": sum(b.net for b in self.bots),
                "jackpot_wins": sum(b.jackpot_wins for b in self.bots),
                "moves": sum(b.moves for b in self.bots),
                "errors": dict(errors),
                "latency_ms": latency_summary(self.latency()),
            },
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def to_text(self) -> str:
        """A fixed-width table for a terminal: one line per bot, then the totals."""
        head = f"{'bot':<24} {'table':<12} {'hands':>5} {'raise':>5} {'fold':>5} "
        head += f"{'net':>12} {'jackpots':>8}  errors"
        lines = [head, "-" * len(head)]
        for b in self.bots:
            errors = ", ".join(f"{k}={v}" for k, v in sorted(b.errors.items())) or "-"
            lines.append(
                f"{b.name:<24} {b.table:<12} {b.hands:>5} {b.raised:>5} {b.folded:>5} "
                f"{money(b.net, sign=True):>12} {b.jackpot_wins:>8}  {errors}"
            )
        d = self.to_dict()["totals"]
        lines.append("-" * len(head))
        lines.append(
            f"{'total':<24} {'':<12} {d['hands']:>5} {d['raised']:>5} {d['folded']:>5} "
            f"{money(d['net'], sign=True):>12} {d['jackpot_wins']:>8}"
        )
        for s in self.spectators:
            errors = ", ".join(f"{k}={v}" for k, v in sorted(s.errors.items())) or "-"
            lines.append(
                f"spectator {s.name} at {s.table}: {s.snapshots} snapshots, "
                f"{s.showdowns} showdowns, errors {errors}"
            )
        for action, st in d["latency_ms"].items():
            lines.append(
                f"{action:>5} -> snapshot: n={int(st['count'])} p50={st['p50']:.1f}ms "
                f"p95={st['p95']:.1f}ms p99={st['p99']:.1f}ms max={st['max']:.1f}ms"
            )
        lines.append(f"{self.seconds:.1f}s")
        return "\n".join(lines)


def own_seats(snap: Snapshot, seats: set[int]) -> list[tuple[int, SeatView]]:
    return [(i, s) for i, s in enumerate(snap["seats"]) if i in seats and s is not None]


def known_cards(seat: SeatView) -> list[str] | None:
    """The seat's five cards if they are known (face up), else None (no hand, or a
    private hand whose `hand` frame has not come yet)."""
    cards = seat.get("cards")
    if isinstance(cards, list) and cards and all(isinstance(c, str) for c in cards):
        return cards
    return None


@dataclass
class _Pending:
    """An action sent and not yet seen in a snapshot."""

    action: str
    check: Callable[[Snapshot], bool]
    sent: float
    seen: asyncio.Event = field(default_factory=asyncio.Event)


class SeatsLost(Exception):
    """The table no longer seats the bot (an operator removed it, or suspended the player)."""


class TableMoved(Exception):
    """Another process hosts the table now; `url` is its address, empty when not known."""

    def __init__(self, url: str) -> None:
        super().__init__(url or "a new host not yet known")
        self.url = url


class Bot:
    """One bot player at one table."""

    def __init__(
        self,
        url: str,
        table: str,
        name: str,
        *,
        rounds: int | None,
        deadline: float | None,
        ante: int | None = None,
        progressive_probability: float = 0.0,
        rng: random.Random | None = None,
        seats: int = 1,
        step_timeout: float = 60.0,
        buy_when_short: bool = True,
        strategy: Strategy = should_raise,
    ) -> None:
        self.url = url
        self.table = table
        self.rounds = rounds
        self.deadline = deadline
        self.ante = ante
        self.progressive_probability = progressive_probability
        self.rng = rng or random.Random()
        self.want_seats = seats
        self.step_timeout = step_timeout
        self.buy_when_short = buy_when_short
        self._paced: StudClient | None = None  # the connection `_pace` is the bucket of
        self._pace = Pace({})
        self.strategy = strategy
        self.result = BotResult(name=name, table=table)
        self.seats: set[int] = set()
        self.done = False
        self._counted: set[str] = set()  # round ids already counted
        self._pending: list[_Pending] = []
        self._moved = asyncio.Event()  # a `table_moved` came for the table
        self._moved_to = ""  # the url it named

    def _time_up(self) -> bool:
        if self.rounds is not None and len(self._counted) >= self.rounds:
            return True
        return self.deadline is not None and asyncio.get_running_loop().time() >= self.deadline

    # ----- every frame, in order ----------------------------------------------------

    def on_frame(self, frame: dict[str, Any]) -> None:
        if frame.get("t") == "table_moved" and frame.get("table") == self.table:
            self._moved_to = str(frame.get("url") or "")
            self._moved.set()
            return
        if frame.get("t") != "table" or frame.get("table") != self.table:
            return
        now = time.perf_counter()
        for p in list(self._pending):
            if p.check(frame):
                self.result.latency[p.action].append((now - p.sent) * 1000)
                self._pending.remove(p)
                p.seen.set()
        if frame["phase"] == "showdown" and frame["round_id"] not in self._counted:
            self._count(frame)

    def _count(self, snap: Snapshot) -> None:
        self._count_hands(snap["round_id"], [s for _, s in own_seats(snap, self.seats)])

    def _count_hands(self, round_id: str, hands: Sequence[SeatView]) -> None:
        mine = [s for s in hands if s.get("result")]
        if not mine:
            return
        self._counted.add(round_id)
        r = self.result
        for s in mine:
            r.hands += 1
            r.outcomes[s["result"]["outcome"]] += 1
            if s.get("decision") == "raise":
                r.raised += 1
            else:
                r.folded += 1
                r.auto_folded += bool(s.get("auto"))
            r.progressive_bets += bool(s.get("progressive"))
            r.net += hand_net(s)
            paid = prize_paid(s)
            if paid > 0:
                r.jackpot_wins += 1
                r.jackpot_cents += paid
        if self._time_up():
            self.done = True

    # ----- the loop -------------------------------------------------------------------

    def _live(self, snap: Snapshot) -> bool:
        """True while one of our seats has money in a round that is not settled."""
        return snap["phase"] in ("betting", "deciding") and any(
            s["ante"] > 0 for _, s in own_seats(snap, self.seats)
        )

    def _seated(self, snap: Snapshot) -> bool:
        """Whether one of the seats taken is still ours (an operator may have removed us)."""
        pid = self.result.player_id
        return any(s.get("player_id") == pid for _, s in own_seats(snap, self.seats))

    def _actionable(self, snap: Snapshot) -> bool:
        if self.seats and not self._seated(snap):
            return True  # nothing of ours there any more: `_play` stops
        if self.done:
            return not self._live(snap)
        mine = own_seats(snap, self.seats)
        phase = snap["phase"]
        if phase in ("waiting", "betting"):
            return any(s["ante"] == 0 for _, s in mine) or any(
                s["ante"] > 0 and not s["ready"] for _, s in mine
            )
        if phase == "deciding":
            return any(known_cards(s) and s["decision"] is None for _, s in mine)
        return False

    async def run(self, gate: asyncio.Semaphore | None = None) -> BotResult:
        """Play until done; `gate` bounds how many connections are opened at once."""
        r = self.result
        client = await _connect(self.url, gate, r.errors)
        if client is None:
            return r
        client.listeners.append(self.on_frame)
        try:
            await client.hello(name=r.name)
            r.player_id = client.player_id
            r.start_balance = client.balance.get("balance")
            while True:
                try:
                    await self._sit_and_play(client)
                    break
                except TableMoved as moved:
                    client = await self._follow(client, moved.url)
        except ServerError as e:
            r.errors[e.code] += 1
        except SeatsLost:
            r.errors["seats_lost"] += 1
        except TimeoutError:
            r.errors["timeout"] += 1
        except (ConnectionError, ConnectionClosed):
            r.errors["connection_lost"] += 1
        finally:
            await self._finish(client)
        return r

    async def _sit_and_play(self, client: StudClient) -> None:
        await self._request(client, "join", table=self.table)
        self.seats.clear()
        for _ in range(self.want_seats):
            reply = await self._request(client, "sit", table=self.table)
            self.seats.add(int(reply["seat"]))
        self.result.seats = sorted(self.seats)
        await self._play(client)

    async def _request(self, client: StudClient, t: str, **fields: Any) -> dict[str, Any]:
        """A table request, paced to the server's rate limit; a refusal that says the
        table moved raises TableMoved. One the limit dropped all the same (not handled,
        so safe to send again) goes again once the bucket has a frame for it."""
        if self._paced is not client:
            self._paced, self._pace = client, Pace(client.welcome.get("limits") or {})
        for attempt in itertools.count(1):
            await self._pace.take()
            try:
                return await client.request(t, **fields)
            except ServerError as e:
                if e.code == "rate_limited" and attempt < RATE_LIMITED_TRIES:
                    self.result.errors[e.code] += 1
                    self._pace.empty()
                    continue
                url = str(e.frame.get("url") or self._moved_to)
                # `unknown_table` alone (no host named, nothing heard of a move) is a mistake
                if e.code == "table_moved" or (e.code in MOVED_CODES and url):
                    raise TableMoved(url) from e
                raise
        raise AssertionError("unreachable")

    async def _follow(self, old: StudClient, url: str) -> StudClient:
        """Go on at the table's new host with the same token (the old one's seats and
        round are gone); count a round settled before the move that went unseen."""
        self.result.moves += 1
        if not url:
            url = await self._find_host(old)
        with contextlib.suppress(Exception):
            await old.close()
        self._moved, self._moved_to, self._pending = asyncio.Event(), "", []
        client = await StudClient.open(url, history=False)
        client.listeners.append(self.on_frame)
        try:
            await client.hello(token=old.token)
            await self._count_unseen(client)
        except BaseException:
            with contextlib.suppress(Exception):
                await client.close()
            raise
        self.url = url
        return client

    async def _find_host(self, client: StudClient) -> str:
        return await find_host(client, self.table, self.step_timeout)

    async def _count_unseen(self, client: StudClient) -> None:
        """The rounds of the table settled before the move but never seen settled here."""
        rounds: list[dict[str, Any]] = []

        def keep(frame: dict[str, Any]) -> None:
            if frame.get("t") == "history":
                rounds.extend(frame.get("rounds") or [])

        client.listeners.append(keep)
        try:
            await client.request("history", limit=10)
        finally:
            client.listeners.remove(keep)
        pid = self.result.player_id
        for record in reversed(rounds):  # oldest first
            if record.get("table") == self.table and record["round_id"] not in self._counted:
                hands = [s for s in record["seats"] if s.get("player_id") == pid]
                self._count_hands(record["round_id"], hands)

    async def _play(self, client: StudClient) -> None:
        while True:
            # the snapshot with our own cards of a private deal (the `hand` frame) in it
            snap = await client.wait_for(
                lambda c: (
                    self._moved.is_set()
                    or ((v := c.view(self.table)) is not None and self._actionable(v) and v)
                ),
                self.step_timeout,
            )
            if self._moved.is_set():
                raise TableMoved(self._moved_to)
            if not self._seated(snap):
                raise SeatsLost  # not a wait for a step that will never come
            if self.done:
                return
            if snap["phase"] in ("waiting", "betting"):
                if not self._live(snap) and self._time_up():
                    self.done = True  # never got (another) hand before the end
                    return
                await self._bet(client, snap)
            elif snap["phase"] == "deciding":
                await self._decide(client, snap)

    async def _bet(self, client: StudClient, snap: Snapshot) -> None:
        amount = self.ante or int(snap["min_ante"])
        for seat, s in own_seats(snap, self.seats):
            if s["ante"] != 0:
                continue
            progressive = self.rng.random() < self.progressive_probability
            try:
                await self._ante(client, seat, amount, progressive)
            except ServerError as e:
                if e.code != "wrong_phase":  # a race with the betting timer: next round
                    raise
                self.result.errors[e.code] += 1
                return
        snap = client.tables[self.table]
        mine = own_seats(snap, self.seats)
        if snap["phase"] == "betting" and any(s["ante"] > 0 and not s["ready"] for _, s in mine):

            def dealt(x: Snapshot) -> bool:
                if x["phase"] != "betting":
                    return True
                return any(s["ready"] for _, s in own_seats(x, self.seats))

            try:
                await self._act(client, "deal", dealt, table=self.table)
            except ServerError as e:
                if e.code != "wrong_phase":
                    raise
                self.result.errors[e.code] += 1

    async def _ante(self, client: StudClient, seat: int, amount: int, progressive: bool) -> None:
        def placed(x: Snapshot) -> bool:
            s = x["seats"][seat]
            return s is not None and s["ante"] > 0

        fields = {"table": self.table, "seat": seat, "amount": amount, "progressive": progressive}
        try:
            await self._act(client, "ante", placed, **fields)
        except ServerError as e:
            if e.code != "insufficient_funds" or not self.buy_when_short:
                raise
            self.result.errors[e.code] += 1
            await client.request("buy_chips", amount=BUY_CHIPS)
            self.result.bought += BUY_CHIPS
            await self._act(client, "ante", placed, **fields)

    async def _decide(self, client: StudClient, snap: Snapshot) -> None:
        up = snap["dealer"]["cards"][-1]
        for seat, s in own_seats(snap, self.seats):
            cards = known_cards(s)
            if cards is None or s["decision"] is not None:
                continue
            action = "raise" if self.strategy(cards, up) else "fold"

            def decided(x: Snapshot, seat: int = seat) -> bool:
                v = x["seats"][seat]
                return v is None or v["decision"] is not None

            try:
                await self._act(client, action, decided, table=self.table, seat=seat)
            except ServerError as e:
                if e.code not in ("wrong_phase", "already_decided"):  # the timer was first
                    raise
                self.result.errors[e.code] += 1

    async def _act(
        self, client: StudClient, action: str, check: Callable[[Snapshot], bool], **fields: Any
    ) -> None:
        pending = _Pending(action, check, time.perf_counter())
        self._pending.append(pending)
        try:
            await asyncio.wait_for(self._request(client, action, **fields), self.step_timeout)
        except BaseException:
            with contextlib.suppress(ValueError):
                self._pending.remove(pending)
            raise
        # The snapshot may come before or after `ok`: act on nothing older than it. The
        # listener checks every snapshot in order, so a round that moves on at once
        # (a raise that ends it, a short results pause) cannot hide it. A table that
        # moved meanwhile sends none here.
        moved = self._moved
        seen = asyncio.ensure_future(pending.seen.wait())
        gone = asyncio.ensure_future(moved.wait())
        try:
            await asyncio.wait(
                (seen, gone), timeout=self.step_timeout, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            seen.cancel()
            gone.cancel()
        if not pending.seen.is_set():
            if moved.is_set():
                raise TableMoved(self._moved_to)
            raise TimeoutError(f"{action} not seen in a snapshot")

    async def _finish(self, client: StudClient) -> None:
        """Give the seats back and read the final wallet; never raises. A bot stopped by
        an error with a hand in play lets the table's clock finish it first (a fold for
        time, the showdown counted): leaving folded it unseen, and `net` missed it."""
        r = self.result
        if not client.closed.done():
            snap = client.tables.get(self.table)
            if r.player_id and snap is not None and self._live(snap):
                try:
                    await client.wait_table(
                        self.table, lambda s: not self._live(s), timeout=self.step_timeout
                    )
                except (TimeoutError, ConnectionError, ConnectionClosed):
                    r.errors["left_in_play"] += 1  # its net may miss that hand
            try:
                if r.player_id:
                    with contextlib.suppress(ServerError, TableMoved):
                        await asyncio.wait_for(self._request(client, "leave", table=self.table), 10)
                    await asyncio.wait_for(self._request(client, "balance"), 10)
                    r.end_balance = client.balance.get("balance")
            except ServerError as e:
                r.errors[f"finish:{e.code}"] += 1
            except (TimeoutError, ConnectionError, ConnectionClosed) as e:
                r.errors[f"finish:{type(e).__name__}"] += 1
        with contextlib.suppress(Exception):
            await client.close()


class Spectator:
    """Joins a table and watches until told to stop; follows the table to the process
    hosting it (PROTOCOL.md, `table_moved`), as a bot does."""

    def __init__(self, url: str, table: str, name: str, *, step_timeout: float = 60.0) -> None:
        self.url = url
        self.table = table
        self.step_timeout = step_timeout
        self.result = SpectatorResult(name=name, table=table)
        self._rounds: set[str] = set()
        self._moved = asyncio.Event()  # a `table_moved` came for the table
        self._moved_to = ""  # the url it named

    def on_frame(self, frame: dict[str, Any]) -> None:
        if frame.get("t") == "table_moved" and frame.get("table") == self.table:
            self._moved_to = str(frame.get("url") or "")
            self._moved.set()
            return
        if frame.get("t") != "table" or frame.get("table") != self.table:
            return
        self.result.snapshots += 1
        if frame["phase"] == "showdown" and frame["round_id"] not in self._rounds:
            self._rounds.add(frame["round_id"])
            self.result.showdowns += 1

    async def run(
        self, stop: asyncio.Event, gate: asyncio.Semaphore | None = None
    ) -> SpectatorResult:
        r = self.result
        client = await _connect(self.url, gate, r.errors)
        if client is None:
            return r
        client.listeners.append(self.on_frame)
        try:
            await client.hello(name=r.name)
            while not await self._watch(client, stop):
                client = await self._follow(client)
        except ServerError as e:
            r.errors[e.code] += 1
        except TimeoutError:
            r.errors["timeout"] += 1
        except (ConnectionError, ConnectionClosed):
            r.errors["connection_lost"] += 1
        finally:
            with contextlib.suppress(Exception):
                await client.close()
        return r

    async def _watch(self, client: StudClient, stop: asyncio.Event) -> bool:
        """Watch the table here until `stop` (True), or until it is found hosted by
        another process (False: `_moved_to` says where, when known)."""
        try:
            await client.request("join", table=self.table)
        except ServerError as e:
            url = str(e.frame.get("url") or self._moved_to)
            # `unknown_table` alone (no host named, nothing heard of a move) is a mistake
            if e.code == "table_moved" or (e.code in MOVED_CODES and url):
                self._moved_to = url
                return False
            raise
        stopped = asyncio.ensure_future(stop.wait())
        moved = asyncio.ensure_future(self._moved.wait())
        waiters: set[asyncio.Future[Any]] = {stopped, moved, client.closed}
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopped.cancel()
            moved.cancel()
        if stop.is_set():
            return True
        if self._moved.is_set():
            return False
        self.result.errors["connection_lost"] += 1
        return True

    async def _follow(self, old: StudClient) -> StudClient:
        """Go on watching at the table's new host, with the same token."""
        self.result.moves += 1
        url = self._moved_to or await find_host(old, self.table, self.step_timeout)
        with contextlib.suppress(Exception):
            await old.close()
        self._moved, self._moved_to = asyncio.Event(), ""
        client = await StudClient.open(url, history=False)
        client.listeners.append(self.on_frame)
        try:
            await client.hello(token=old.token)
        except BaseException:
            with contextlib.suppress(Exception):
                await client.close()
            raise
        self.url = url
        return client


async def find_host(client: StudClient, table: str, timeout: float) -> str:
    """The table's new host, from the lobby, which names it within a few seconds."""
    loop = asyncio.get_running_loop()
    until = loop.time() + timeout
    while True:
        lobby = await client.request("lobby", watch=False)
        for row in lobby.get("tables", []):
            if row.get("id") == table and row.get("url") and not row.get("silent"):
                return str(row["url"])
        if loop.time() >= until:
            raise TimeoutError(f"no host for {table} in the lobby")
        await asyncio.sleep(FIND_INTERVAL)


async def run_bots(
    url: str,
    tables: Sequence[str],
    bots_per_table: int,
    spectators: int = 0,
    *,
    rounds: int | None = None,
    seconds: float | None = None,
    ante: int | None = None,
    progressive_probability: float = 0.25,
    seed: int | None = None,
    seats_per_bot: int = 1,
    step_timeout: float = 60.0,
    connect_concurrency: int = 50,
    strategy: Strategy = should_raise,
) -> BotsReport:
    """Run `bots_per_table` bots and `spectators` spectators at each table.

    Bots stop after `rounds` settled rounds each, or at the first showdown after
    `seconds` (a bet in play is always finished, so wallets reconcile). `ante`
    in cents defaults to each table's minimum. Same `seed`, same choices.
    """
    if rounds is None and seconds is None:
        raise ValueError("give rounds or seconds")
    if not tables or bots_per_table < 0 or spectators < 0:
        raise ValueError("need at least one table and non-negative counts")
    loop = asyncio.get_running_loop()
    started = loop.time()
    deadline = None if seconds is None else started + seconds
    gate = asyncio.Semaphore(connect_concurrency)
    base = random.Random(seed)

    bots = [
        Bot(
            url,
            table,
            f"bot{i + 1}@{table}"[:24],
            rounds=rounds,
            deadline=deadline,
            ante=ante,
            progressive_probability=progressive_probability,
            rng=random.Random(base.getrandbits(64)),
            seats=seats_per_bot,
            step_timeout=step_timeout,
            strategy=strategy,
        )
        for table in tables
        for i in range(bots_per_table)
    ]
    watchers = [
        Spectator(url, table, f"watch{i + 1}@{table}"[:24], step_timeout=step_timeout)
        for table in tables
        for i in range(spectators)
    ]
    stop = asyncio.Event()
    watch_tasks = [asyncio.ensure_future(w.run(stop, gate)) for w in watchers]
    try:
        bot_results = await asyncio.gather(*(b.run(gate) for b in bots))
    finally:
        stop.set()
        watch_results = await asyncio.gather(*watch_tasks)
    return BotsReport(list(bot_results), list(watch_results), loop.time() - started)


async def _connect(
    url: str, gate: asyncio.Semaphore | None, errors: Counter[str]
) -> StudClient | None:
    """Open a connection (at most `gate`'s worth at once); a failure is counted, not raised."""
    try:
        async with gate or contextlib.nullcontext():
            return await StudClient.open(url, history=False)
    except (OSError, WebSocketException) as e:
        errors[f"connect:{type(e).__name__}"] += 1
        return None
