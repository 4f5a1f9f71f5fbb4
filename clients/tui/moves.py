"""The player's moves at their seats: sitting down, building a bet with chips (add,
take back, progressive, rebet, clear), the deal, and fold or raise.

Kept apart from the app (clients/tui/app.py), which holds the model of what the server
said and the link's comings and goings: these are the keys of one round, each checked
against the table as it stands before anything is built or sent. They read and change
the app through `MovesHost`, which `StudApp` implements.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, Protocol

from websockets.exceptions import WebSocketException

from clients.bots import money
from clients.connection import ServerError
from clients.tui.bets import BetSlip
from clients.tui.link import Link, NotConnected
from clients.tui.render import CHIPS, bets_closed_text, next_waiting, waiting_hands
from clients.tui.words import by_clock, decided_text, describe_error, not_waiting_text

#: a bet key's answer while the link is down: the keys line says the table's keys act once
#: it is back (the browser greys its chips and circles), so nothing is built meanwhile
OFFLINE_BUILD: Final = "Offline: nothing was built; the bet keys act once the link is back."
SLOW_ANSWER = 1.0  # seconds a decision goes unanswered before the screen says it is sent
#: Refusals about a moment of play: stale once the table's phase or round moves on (the
#: browser's MOMENT_CODES, clients/web/js/notices.js)
MOMENT_CODES: Final = frozenset(
    {
        "wrong_phase",
        "already_bet",
        "already_decided",
        "not_betting",
        "round_moved_on",
        "no_bet",
        "not_seated",
        "table_suspended",
        "table_paused",
    }
)
Job = Callable[[], Awaitable[None]]


class MovesHost(Protocol):
    """What the moves read and change of the app (StudApp)."""

    table_id: str | None
    selected: int | None
    slip: BetSlip
    link: Link
    message: str
    message_moment: tuple[Any, Any] | None
    account_suspended: str | None

    @property
    def player_id(self) -> str | None: ...
    @property
    def snapshot(self) -> dict[str, Any] | None: ...
    def own_seats(self) -> list[int]: ...
    def fix_selection(self) -> None: ...
    def submit(self, job: Job) -> None: ...
    def redraw_soon(self) -> None: ...
    def say(
        self,
        message: str,
        *,
        error: bool = False,
        link: bool = False,
        moment: bool = False,
        shorter: Sequence[str] = (),
    ) -> None: ...


class TableMoves:
    """The keys of a round at the player's seats; requests go through the host's queue,
    one at a time in key order."""

    def __init__(self, host: MovesHost) -> None:
        self.host = host

    def sit(self) -> None:
        async def job() -> None:
            if self.host.table_id is None:
                return
            reply = await self.host.link.request("sit", table=self.host.table_id)
            self.host.account_suspended = None  # seated: the suspension was lifted
            self.host.fix_selection()
            self.host.selected = int(reply["seat"])
            self.host.say(
                f"You sit at seat {self.host.selected + 1}. Stack chips with 1-5, then d to deal."
            )

        self.host.submit(job)

    def can_sit(self) -> bool:
        """Whether s would take a seat now, as the keys line offers it: the session played
        here over a link that is up, the table neither suspended nor closing, the account
        not suspended, a seat free and the player under the table's most seats."""
        host, snap = self.host, self.host.snapshot
        if snap is None or host.link.replaced is not None or not host.link.connected:
            return False
        paused = snap.get("paused")
        if snap.get("suspension") or (isinstance(paused, dict) and paused.get("shutdown")):
            return False
        most = (host.link.welcome.get("limits") or {}).get("max_seats_per_player")
        if isinstance(most, int) and len(host.own_seats()) >= most:
            return False  # s is refused `seat_limit`
        seats = snap.get("seats") or []
        return host.account_suspended is None and any(s is None for s in seats)

    def no_seat_text(self) -> str:
        """A key that needs a seat, pressed with none: s where it takes one ("press s" was
        said at a table with every seat taken, where s was refused)."""
        if self.can_sit():
            return "Sit down first: press s."
        return "You have no seat here, and none can be taken now (the keys line says why)."

    def buildable(self, seat: int | None) -> bool:
        """Can a bet still be stacked on this seat (ours, no ante yet, bets open)? At a
        showdown a seat that sat the round out stacks for the next one, as in the browser."""
        snap = self.host.snapshot
        if seat is None or snap is None or snap["phase"] not in ("waiting", "betting", "showdown"):
            return False
        s = snap["seats"][seat]
        return isinstance(s, dict) and s["player_id"] == self.host.player_id and not s["ante"]

    def offline(self) -> bool:
        """The link is down: a bet key says so and builds nothing (what was built before
        stays, for once the link is back)."""
        if self.host.link.connected:
            return False
        self.host.say(OFFLINE_BUILD, error=True, link=True)
        return True

    def add_chip(self, index: int) -> None:
        if self.offline():
            return
        if self.host.selected is None:
            self.host.say(self.no_seat_text(), error=True)
            return
        if not self.buildable(self.host.selected):
            self.host.say(bets_closed_text(self.host.snapshot, self.host.selected), moment=True)
            return
        most = (self.host.snapshot or {}).get("max_ante")
        if (
            isinstance(most, int)
            and self.host.slip.amount(self.host.selected) + CHIPS[index] > most
        ):
            # as the browser: the chip stays off (it was stacked, and refused only at d)
            self.host.say(f"The most you can ante at this table is {money(most)}.", error=True)
            return
        self.host.slip.add(self.host.selected, index)
        self.host.message = ""
        self.host.redraw_soon()

    def remove_chip(self) -> None:
        if self.offline():
            return
        if self.host.selected is not None and self.host.slip.remove(self.host.selected):
            self.host.redraw_soon()

    def toggle_progressive(self) -> None:
        if self.offline():
            return
        seat = self.host.selected
        if seat is None:
            self.host.say(self.no_seat_text(), error=True)
            return
        if not self.buildable(seat):
            self.host.say(bets_closed_text(self.host.snapshot, seat), moment=True)
            return
        on = self.host.slip.toggle(seat)
        self.host.say(f"Progressive bet {'on' if on else 'off'} for seat {seat + 1}.")

    def rebettable(self, seat: int) -> bool:
        return seat in self.host.own_seats() and self.buildable(seat)

    def rebet(self) -> None:
        """Stack last round's ante and progressive again on every own seat that had one."""
        if self.offline():
            return
        words = self.host.slip.rebet(self.rebettable)
        if not words:
            self.host.say(
                "Nothing to rebet: no bet of last round can go on a seat now.", moment=True
            )
            return
        said = [f"Rebet: {w}. Press d to deal." for w in words]
        self.host.say(said[0], shorter=said[1:])  # three seats took two lines at 80 columns

    def clear_bets(self) -> None:
        """Take every chip (and the progressive) off the seats whose bets are not placed;
        said seat by seat ("Bets cleared." alone read as the selected seat's)."""
        if self.offline():
            return
        seats = [s for s in self.host.own_seats() if self.buildable(s)]
        self.host.slip.clear(seats)
        if not seats:
            self.host.say("No bet to clear: bets are placed or closed.", moment=True)
            return
        where = "seat" + ("s " if len(seats) > 1 else " ") + ", ".join(str(s + 1) for s in seats)
        self.host.say(f"Bets cleared on {where}.")

    def next_seat(self) -> None:
        """The next own seat after the selected one, round to the first; in the decision,
        the next of the hands still waiting (a Tab stopped on a hand raised already, an
        f there sent nothing, and the clock folded the one left waiting)."""
        mine = self.host.own_seats()
        if not mine:
            return
        snap, sel = self.host.snapshot, self.host.selected
        deciding = snap is not None and snap["phase"] == "deciding"
        ring = (waiting_hands(snap, mine) if deciding and snap else []) or mine
        self.host.selected = next((s for s in ring if sel is not None and s > sel), ring[0])
        if self.host.message_moment is not None:  # about the hand selected before ("Seat 8 is
            self.host.message, self.host.message_moment = "", None  # not waiting"): not this one
        self.host.redraw_soon()

    def deal(self) -> None:
        async def job() -> None:
            snap, table = self.host.snapshot, self.host.table_id
            if snap is None or table is None:
                return
            if not self.host.link.connected:  # the table on screen is as last seen
                raise NotConnected("not connected to the server: nothing was sent; reconnecting…")
            mine = self.host.own_seats()
            if not mine:
                self.host.say(self.no_seat_text(), error=True)
                return
            if snap["phase"] not in ("waiting", "betting"):
                self.host.say("Cards are out: wait for the next round.", moment=True)
                return
            antes = 0
            for seat in mine:
                amount = sum(self.host.slip.bets.get(seat, []))
                if snap["seats"][seat]["ante"] == 0 and amount > 0:
                    prog = self.host.slip.progressive.get(seat, False)
                    try:
                        # `seq`: the table as seen, so an ante the network delivers a
                        # round late is refused, not placed in a round never seen open
                        await self.host.link.request(
                            "ante",
                            table=table,
                            seat=seat,
                            amount=amount,
                            progressive=prog,
                            seq=snap["seq"],
                        )
                    except ServerError as e:  # said with the parts of the bet refused
                        stake = int(snap.get("progressive_stake") or 0) if prog else 0
                        said = describe_error(e.frame, (amount, stake))
                        self.host.say(said, error=True, moment=e.code in MOMENT_CODES)
                        return
                    antes += 1
            live = [
                s
                for s in self.host.own_seats()
                if (self.host.snapshot or snap)["seats"][s]["ante"] > 0
            ]
            if not antes and not live:
                self.host.say("Stack chips first: keys 1-5 add $1, $5, $10, $25, $100.", error=True)
                return
            await self.host.link.request("deal", table=table, seq=snap["seq"])
            self.host.message = ""

        self.host.submit(job)

    def decide(self, decision: str) -> None:
        async def job() -> None:
            snap, table = self.host.snapshot, self.host.table_id
            if snap is None or table is None:
                return
            if not self.host.link.connected:  # the table on screen is as last seen
                raise NotConnected("not connected to the server: nothing was sent; reconnecting…")
            if snap["phase"] != "deciding":
                sel, timed = self.host.selected, ""
                if sel is not None and by_clock(snap["seats"][sel]):
                    timed = f": seat {sel + 1} was folded by the clock"
                self.host.say(f"No decision is due now{timed}.", moment=True)
                return
            undecided = waiting_hands(snap, self.host.own_seats())
            # the selected seat only, the one marked: never another hand in its place
            seat = self.host.selected
            if not undecided:  # the hand marked is named ("None of your hands is waiting"
                # said nothing of the one raised a moment ago)
                words: tuple[str, ...] = ("None of your hands is waiting for a decision.",)
                if seat is not None and seat in self.host.own_seats():
                    words = not_waiting_text(seat, snap["seats"][seat], [])
                self.host.say(words[0], moment=True, shorter=words[1:])
                return
            if seat is None or seat not in undecided:
                after = None if seat is None else next_waiting(undecided, seat)
                if seat is None or after is None:
                    waiting = ", ".join(str(s + 1) for s in undecided)
                    where = "Your selected hand" if seat is None else f"Seat {seat + 1}"
                    said = f"{where} is not waiting; nothing sent. Tab to {waiting}."
                    self.host.say(said, moment=True)
                    return
                # a hand decided or out of the round: the next waiting one is selected,
                # and nothing is sent to it before the player sees it is the one marked
                self.host.selected = after
                others = [s for s in undecided if s != after]
                words = not_waiting_text(seat, snap["seats"][seat], [after, *others])
                self.host.say(words[0], moment=True, shorter=words[1:])
                return
            # the selection stays on the decided hand: it moved on to the next waiting one,
            # so a second f or r, pressed again, folded or raised another hand unseen
            if not await self._decided(decision, table, seat, snap["seq"]):
                return
            # a hand of the player's still waiting is said, and that the selection is not
            # on it: "r r" meant for two hands raised one, and the clock folded the other
            now = self.host.snapshot or snap
            left = [s for s in waiting_hands(now, self.host.own_seats()) if s != seat]
            if left:
                words = decided_text(seat, decision, left)
                self.host.say(words[0], moment=True, shorter=words[1:])
            else:
                self.host.message = ""

        self.host.submit(job)

    async def _decided(self, decision: str, table: str, seat: int, seq: int) -> bool:
        """Send the decision; one slow to be answered is said to be on its way, and one
        sent but never answered is said to be in doubt, not failed (a frozen server
        showed nothing of a raise sent, then only that it did not answer). True once
        answered."""
        sent = asyncio.ensure_future(
            self.host.link.request(decision, table=table, seat=seat, seq=seq)
        )
        done, _ = await asyncio.wait({sent}, timeout=SLOW_ANSWER)
        if not done:
            self.host.say(f"Your {decision} for seat {seat + 1} is sent; waiting for the answer…")
        try:
            await sent
        except NotConnected:
            raise  # never sent
        except (ConnectionError, TimeoutError, WebSocketException):
            self.host.say(
                f"Your {decision} for seat {seat + 1} was sent, and the server did not answer:"
                " the table shows whether it was taken once the link is back.",
                error=True,
                link=True,
            )
            return False
        return True
