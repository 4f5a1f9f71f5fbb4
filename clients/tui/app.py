"""The terminal table: a textual app for playing (`stud-client play`) or watching.

The app keeps a small model of what the server last said (lobby, the table's
snapshot, the player's own cards of a private deal, wallet, jackpot meters)
plus what only this terminal knows (the chips stacked on each of the player's
seats and their progressive toggles, last round's bets, the selected seat, the
last message). Frames update the model and schedule one redraw of the screen on
top (clients/tui/screens.py); keys change the model or queue a server request
(those of a round at the player's seats in clients/tui/moves.py). Requests run one
at a time in key order, so "sit, 3, 2, d" never antes before the seat exists.

A bet is built for one round: once its ante is on the table the chips are gone
from the seat, and the next round starts with nothing stacked. `a` (rebet)
stacks last round's ante and progressive again on every own seat that had one;
`x` clears what is stacked.

Private deals: a table with `hands: "private"` shows every hand face down until
the showdown, and the player's own cards come in a `hand` frame; `snapshot` is
the table's snapshot with those filled in (clients/connection.py
`with_own_hands`), so the player's own hands are drawn face up and the others'
face down.

A round of the player's that ends out of sight (the link down, the table taken over
by another process, which voids it) is told once the table is back on screen, as the
player's history has it: voided, every bet refunded, or settled (clients/tui/unseen.py).
A table shown by another process than before (its host froze, failed or lost it) holds
none of the player's seats there: that is said too, once, on the same line.

Fairness: the app remembers each round's commitment from before the deal and
the client seeds it may have had in effect, and checks every revealed proof
(at showdown, and in the history screen) against them with `clients.verify`.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, ClassVar, Final

from rich.text import Text
from textual.app import App
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen, Screen
from websockets.exceptions import WebSocketException

from clients.bots import money
from clients.connection import (
    OwnHands,
    ServerError,
    absorb_hand,
    as_it_stands,
    forget_stale_hands,
    with_own_hands,
)
from clients.tui.bets import BetSlip
from clients.tui.leaving import (
    PLAYED_ON_EVERY,
    PlayedOn,
    leave_warnings,
    left_text,
    played_on,
    played_on_text,
)
from clients.tui.link import LEFT_BEHIND, Link, NotConnected
from clients.tui.lobby import jackpots_text, lobby_row
from clients.tui.moves import MOMENT_CODES, TableMoves
from clients.tui.render import (
    LAST_ROUND_LAYOUTS,
    fairness_text,
    folded_by_leaving,
    joined_to_fit,
    last_round_text,
    plain_name,
    player_text,
    record_round_text,
)
from clients.tui.screens import (
    HistoryScreen,
    LobbyScreen,
    PlayScreen,
    StudScreen,
    TableApp,
    WatchScreen,
)
from clients.tui.unseen import RoundWatch, SeatWatch
from clients.tui.witness import FairnessWitness
from clients.tui.words import (
    by_clock,
    clock_fold_text,
    clock_folded,
    describe_error,
    jackpot_won_text,
    lines_of,
    moved_text,
    not_here_text,
    restarted_text,
    seats_gone_text,
    session_lost_text,
    unseen_round_text,
)
from clients.verify import Verdict

BUY_AMOUNT = 10_000  # cents: the b key buys $100 of chips
#: Refusals that say only that this try of a purchase was not taken.
NOT_THIS_TRY: Final = frozenset({"store_unavailable", "rate_limited", "shutting_down"})
HISTORY_ROUNDS: Final = 20  # rounds the history screen asks for
UNSEEN_ROUNDS: Final = 50  # rounds asked for to find one that ended out of sight (the most)
LEAVE_ARMED_SECONDS: Final = 6.0  # a leave that folds hands waits this long for its second l
MOVED: Final = frozenset({"unknown_table", "table_moved"})  # the table is hosted elsewhere
#: said while another connection (a terminal, the browser) plays this session: the link
#: does not take it back by itself (the two took it from each other every few seconds)
ELSEWHERE_TEXT: Final = "Playing elsewhere: another terminal or browser took over · g plays here"

Job = Callable[[], Awaitable[None]]


def clock_ends_ms(frame: Mapping[str, Any]) -> int | None:
    """The table's clock, ms left as the snapshot was made: the phase's own deadline, or
    while its server shuts down the grace left (`paused.voids_in_ms`) when it comes first,
    for a round still betting or deciding (voided then: the browser's clock does so too)."""
    ends, paused = frame.get("ends_in_ms"), frame.get("paused") or {}
    voids = paused.get("voids_in_ms") if paused.get("shutdown") else None
    if ends is None or not isinstance(voids, int) or frame.get("phase") == "showdown":
        return None if ends is None else int(ends)
    return min(int(ends), voids)


class StudApp(App[None]):
    """`watch=True` shows tables without controls; otherwise the player's keys are live."""

    TITLE = "casino-stud"
    # the footer's room goes to the game's keys: textual's palette offers none of them
    ENABLE_COMMAND_PALETTE = False
    CSS = """
    #head, #info { padding: 0 1; background: $boost; }
    /* one line each, cut at the edge: wrapped, they pushed seats off an 80x24 screen */
    #fair, #player { text-wrap: nowrap; text-overflow: ellipsis; }
    #dealer { padding: 1 1 0 1; }
    #seats-box { padding: 1 1 0 1; height: 1fr; }
    #player { padding: 0 1; border-top: solid $primary; }
    #keys { padding: 0 1; color: $text-muted; }
    #message { padding: 0 1; }
    #fair, #history, #detail, #paytable { padding: 0 1; }
    /* the last columns are cut at the edge (LOBBY_COLUMNS): no scrollbar under the rows */
    #tables { overflow-x: hidden; }
    #no-tables { padding: 0 1; color: $text-muted; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit_app", "Quit"),
        # offered only while another connection plays this session (`check_action`)
        Binding("g", "play_here", "Play here"),
    ]

    def __init__(
        self,
        url: str,
        name: str,
        *,
        table: str | None = None,
        watch: bool = False,
        token: str | None = None,
        backoff: tuple[float, float] = (0.25, 8.0),
    ) -> None:
        super().__init__()
        self.url = url
        self.player_name = plain_name(name)
        self.watch_only = watch
        self.start_table = table
        self.table_id: str | None = None
        self.tables: dict[str, dict[str, Any]] = {}
        self.lobby: dict[str, Any] | None = None
        self.balance: dict[str, int] = {}
        self.jackpots: dict[str, int] = {}
        self.slip = BetSlip()  # the chips stacked on our seats, and last round's bets
        self.bets = self.slip.bets
        self.progressive = self.slip.progressive
        self.moves = TableMoves(self)  # what the keys of a round do at our seats
        self.hands: OwnHands = {}  # own cards of private deals, per table
        self.selected: int | None = None
        self.message = ""
        self.message_is_error = False
        self.message_shorter: tuple[str, ...] = ("",)  # the message said, in fewer words
        self.message_spread = False  # it may wrap onto the lines the seats leave free
        self.message_of_link = False  # the message is about the link: gone once it is back
        self.message_on: Screen[Any] | None = None  # the screen it was said on, shown there
        # the (round, phase) of the table a message about a moment of play was said in:
        # gone once the table moves on ("None of your hands is waiting" stayed for rounds)
        self.message_moment: tuple[Any, Any] | None = None
        #: the player's results in the last round settled, in words: its layouts
        self.last_round: tuple[str, ...] = ()
        self.status = "connecting…"
        self._link_up = False  # as last heard by `_on_status`
        self.deadline: float | None = None
        self._leave_armed_until = 0.0  # a leave that folds hands needs a second l by then
        self._quit_armed_until = 0.0  # and a quit that does, a second q
        self.link = Link(
            url,
            name,
            on_frame=self._on_frame,
            on_welcome=self._on_welcome,
            on_status=self._on_status,
            backoff=backoff,
        )
        self.link.token = token  # resume that player (their wallet and seats), if given
        self._jobs: asyncio.Queue[Job] = asyncio.Queue()
        self._redraw_scheduled = False
        self._welcomed_once = False
        # fairness: what this terminal saw itself, so the proof is checked against it
        self.witness = FairnessWitness()
        self.verdicts = self.witness.verdicts
        self.seed_choice = self.witness.seed_choice
        self.client_seeds = self.witness.client_seeds
        self.pending_seeds = self.witness.pending_seeds
        self.history: list[dict[str, Any]] | None = None  # the last `history` received
        self.history_verdicts: dict[str, Verdict] = {}
        self.purchase: tuple[int, str] | None = None  # (amount, key) sent, not yet answered
        self.purchase_lost = False  # a try of it went without an answer
        self.going_to: str | None = None  # the table to open once `link.follow` got there
        self._awaiting: str | None = None  # `awaiting`
        self._awaited_since = 0.0  # when the table on screen was lost (the loop's clock)
        # (table, address): the awaited table's row said its host there was gone (silent)
        self.host_gone: tuple[str, str] | None = None
        self.table_host = url  # the process the table on screen was last joined at
        # the casino suspended the account (the reason, as a refusal gave it): no seat,
        # bet or purchase is taken; heard again after each welcome
        self.account_suspended: str | None = None
        self.round_watch = RoundWatch()  # our round in play, to tell if it ends out of sight
        self.seat_watch = SeatWatch()  # our seats at the table, to tell if a move loses them
        self.played_on: PlayedOn | None = None  # a round our raised hands play on in, left

    # ----- the model ------------------------------------------------------------------

    @property
    def here(self) -> str:
        """This process's address as lobby rows give it (else the one dialled)."""
        return str(self.link.welcome.get("url") or self.link.url)

    @property
    def awaiting(self) -> str | None:
        """The table a failed host left: open it where it goes."""
        return self._awaiting

    @awaiting.setter
    def awaiting(self, table: str | None) -> None:
        if table is not None and table != self._awaiting:
            self._awaited_since = asyncio.get_running_loop().time()
        self._awaiting = table

    @property
    def player_id(self) -> str | None:
        pid = self.link.welcome.get("player_id")
        return None if pid is None else str(pid)

    @property
    def snapshot(self) -> dict[str, Any] | None:
        """The table on screen, with the player's own cards of a private deal in it."""
        snap = None if self.table_id is None else self.tables.get(self.table_id)
        if snap is None:
            return None
        return as_it_stands(with_own_hands(snap, self.hands, self.player_id))

    def own_seats(self) -> list[int]:
        snap, me = self.snapshot, self.player_id
        if snap is None or me is None:
            return []
        return [i for i, s in enumerate(snap["seats"]) if s is not None and s["player_id"] == me]

    def seconds_left(self) -> float | None:
        if self.deadline is None:
            return None
        return self.deadline - asyncio.get_running_loop().time()

    def jackpot_amount(self) -> int | None:
        snap = self.snapshot
        if snap is None or not snap.get("jackpot"):
            return None
        name = str(snap["jackpot"].get("name"))
        amount = self.jackpots.get(name, snap["jackpot"].get("amount"))
        return None if amount is None else int(amount)

    def variant_title(self) -> str:
        """The variant's title from the lobby row (the snapshot only names it)."""
        for row in (self.lobby or {}).get("tables", []):
            if row.get("id") == self.table_id:
                return str((row.get("variant") or {}).get("title", ""))
        return ""

    def folded_collects(self) -> bool | None:
        """Whether a folded hand at the table on screen still collects its progressive
        prize (the variant's flag, from the lobby row); None when the row is not known."""
        for row in (self.lobby or {}).get("tables", []):
            if row.get("id") == self.table_id:
                flag = (row.get("variant") or {}).get("folded_collects_progressive")
                return None if flag is None else bool(flag)
        return None

    def head_text(self, width: int | None = None) -> Text:
        """The lobby's heading, broken between its parts where `width` runs out (it
        wrapped mid-phrase at 80 columns, "balance" on one line, its amount on the next)."""
        bal = self.balance.get("balance")
        parts = ["casino-stud lobby", self.player_name]
        if bal is not None:
            parts.append(f"balance {money(bal)}")
        return Text(joined_to_fit([*parts, jackpots_text(self.jackpots), self.status], width))

    def message_text(self, width: int | None = None, room: int | None = None) -> Text:
        """The last message; while the link is down, first what the link is doing, on one
        line of `width` cells (on two, it pushed the last seat off an 80x24 screen). A
        message said to `spread` takes up to `room` lines, the seats' spare ones (a leave's
        warning of four lines pushed a seat it named off an 80x24 screen)."""
        down = Text("" if self.link.connected else f"Not connected: {self.status}", style="b red")
        if self.link.replaced is not None:
            down = Text(ELSEWHERE_TEXT, style="b red")
        if width:
            down.truncate(width, overflow="ellipsis")
        if not self.message or self.message_on not in (None, self.page()):
            return down
        words = self.message
        lines = max(1, (room or 1) - (1 if down else 0)) if self.message_spread else 1
        if width and self.message_shorter[0] == words and lines_of(words, width) > lines:
            fit = [w for w in self.message_shorter if lines_of(w, width) <= lines]
            words = fit[0] if fit else self.message_shorter[-1]
        said = Text(words, style="red" if self.message_is_error else "yellow")
        return Text.assemble(down, "\n", said) if down else said

    def built_bets(self) -> dict[int, tuple[int, bool]]:
        return {} if self.watch_only else self.slip.built()

    def _round_words(
        self, words: Callable[[Any, str | None, int], str], round_: Any
    ) -> tuple[str, ...]:
        """A round's hands in every layout of the Last round line (none: no hand of ours)."""
        said = tuple(words(round_, self.player_id, k) for k in range(LAST_ROUND_LAYOUTS))
        return said if said[0] else ()

    def player_panel(self, width: int | None = None) -> Text:
        snap = self.snapshot
        stake = int(snap.get("progressive_stake", 0)) if snap else 0
        if self.watch_only:
            return Text(f"watching as {self.player_name} · {self.status}", style="dim")
        sel = self.selected
        chips = self.bets.get(sel, []) if sel is not None else []
        seat = snap["seats"][sel] if snap is not None and sel is not None else None
        placed = int(seat["ante"]) if isinstance(seat, dict) and seat.get("ante") else 0
        progressive = bool(seat.get("progressive")) if placed and seat else False
        if not placed and sel is not None:
            progressive = self.progressive.get(sel, False)
        return player_text(
            self.player_name,
            self.balance,
            chips,
            progressive,
            sel,
            stake,
            self.last_round,
            placed=placed,
            rebet=self.slip.rebet_words(self.moves.rebettable),
            fate="folded by the clock" if by_clock(seat) else "",
            width=width,
            sit=self.moves.can_sit(),
        )

    def fairness_line(self, width: int | None = None) -> Text:
        snap = self.snapshot
        if snap is None:
            return Text("")
        rid = snap.get("round_id")
        verdict = self.verdicts.get(str(rid)) if rid is not None else None
        my_seed = None
        if not self.watch_only and self.table_id is not None:
            my_seed = self.seed_choice.get(self.table_id, "")
        return fairness_text(snap, verdict, my_seed, width)

    def say(
        self,
        message: str,
        *,
        error: bool = False,
        link: bool = False,
        moment: bool = False,
        shorter: Sequence[str] = (),
        spread: bool = False,
    ) -> None:
        """`link`: about the connection, so over once it is back (cleared by the welcome),
        and said on every screen; else said on the screen on top (only there: "No decision
        is due now" went on to the History screen as if about it). `moment`: about the
        table's moment of play, so over once its phase or round moves on. `shorter`: the
        message in fewer words, shortest last, for a line too short for it; `spread`: for
        the lines the seats leave free rather than one."""
        self.message, self.message_is_error, self.message_of_link = message, error, link
        self.message_shorter, self.message_spread = (message, *shorter), spread
        self.message_on = None if link else self.page()
        self.message_moment = self._moment() if moment else None
        self.redraw_soon()

    def _moment(self) -> tuple[Any, Any]:
        """The table on screen's round and phase, as the server last said them."""
        frame = self.tables.get(self.table_id) if self.table_id is not None else None
        return (None, None) if frame is None else (frame.get("round_id"), frame.get("phase"))

    def _forget_moment(self) -> None:
        """A message about a moment of play that is over goes (the table moved on, or is
        no longer on screen)."""
        if self.message_moment is not None and self.message_moment != self._moment():
            self.message, self.message_moment = "", None

    def page(self) -> Screen[Any] | None:
        """The screen on top, under a dialog (the client seed's) if one is open."""
        pages = [s for s in self.screen_stack if not isinstance(s, ModalScreen)]
        return pages[-1] if pages else None

    # ----- frames ---------------------------------------------------------------------

    def _on_frame(self, frame: dict[str, Any]) -> None:
        t = frame.get("t")
        if t == "table":
            table = str(frame["table"])
            old = self.tables.get(table)
            if old is not None and old.get("seq", -1) > frame.get("seq", 0):
                return  # snapshots replace each other whole: keep the newest
            self.tables[table] = frame
            forget_stale_hands(self.hands, frame)
            jp = frame.get("jackpot")
            if isinstance(jp, dict) and jp.get("name") is not None:
                self.jackpots[str(jp["name"])] = int(jp["amount"])
            self.witness.note(frame, self.player_id)
            if table == self.table_id:
                ends = clock_ends_ms(frame)
                now = asyncio.get_running_loop().time()
                self.deadline = None if ends is None else now + ends / 1000
                self._forget_moment()
                self.fix_selection()
                self.slip.settle(frame, self.player_id)
                self.seat_watch.note(frame, self.player_id, self.here)  # told with the round
                gone = self.round_watch.note(frame, self.player_id)
                if gone is not None and not gone.shutdown:  # a shutdown's: once rejoined
                    self.submit(self._tell_untold)
                if frame["phase"] == "showdown":
                    said = self._round_words(last_round_text, frame)
                    self.last_round = said or self.last_round
                timed = clock_folded(old, frame, self.player_id)
                if timed:  # over with the showdown: said for its moment
                    self.say(clock_fold_text(timed), moment=True)
        elif t == "hand":
            absorb_hand(self.hands, frame)
        elif t == "lobby":
            self.lobby = frame
            self.jackpots.update(frame.get("jackpots", {}))
            # the processes hosting tables and those standing by: where to go on from here
            urls = [r.get("url") for r in frame["tables"]] + list(frame.get("servers", []))
            self.link.fleet = sorted({str(u) for u in urls if u})
            self._reopen_awaited(frame)
        elif t == "balance":
            self.balance = {k: v for k, v in frame.items() if k not in ("t", "id")}
            self._ask_played_on()  # a settlement moves the wallet (unless the hand lost)
        elif t == "history":
            self.history = [r for r in frame.get("rounds") or [] if isinstance(r, dict)]
            self.history_verdicts = {
                str(r.get("round_id")): self.witness.check_record(r, self.player_id)
                for r in self.history
            }
        elif t == "jackpot":
            self.jackpots[str(frame["name"])] = int(frame["amount"])
        elif t == "jackpot_won":
            self.say(jackpot_won_text(frame, lobby_row(self.lobby, str(frame.get("table")))))
        elif t == "table_moved" and frame.get("table") == self.table_id:
            self.awaiting = self._close_table()  # followed where the lobby next puts it
            self.say(moved_text(frame), error=True)
        elif t == "table_restarted" and frame.get("table") == self.table_id:
            given_up = frame.get("round_id")
            in_round = given_up is not None and self.round_watch.round_id == given_up
            if given_up is not None:  # given up, not voided with every bet refunded
                self.round_watch.give_up(str(given_up))
            self.say(restarted_text(frame, self.own_seats(), in_round=in_round), error=True)
        elif t == "error" and frame.get("id") is None:  # replies' errors are raised instead
            self.say(describe_error(frame), error=True)
        self.redraw_soon()

    def _reopen_awaited(self, lobby: dict[str, Any] | None, *, here: bool = True) -> None:
        """The table its host left (failed, frozen) is hosted again: here, open it as its
        new host has it (unless not `here`); at another process, go there. A row still
        naming the host it was lost at, or one that failed lately, is that host's own,
        left behind, while that is recent: wait for the takeover (so is a row its server
        no longer answers for, `silent`). A row naming the address of one said silent is
        a new claim there (a process started again in place): go there at once."""
        rows = (lobby or {}).get("tables", [])
        table = self.awaiting
        row = next((r for r in rows if r.get("id") == table), None)
        if table is None or row is None or self.table_id is not None:
            return
        url = str(row.get("url") or "")
        if row.get("silent"):
            self.host_gone = (table, url)
            return
        lost_lately = asyncio.get_running_loop().time() - self._awaited_since < LEFT_BEHIND
        left_behind = self.link.failed_lately(url) or (url == self.table_host and lost_lately)
        if url in ("", self.here):
            if here:
                self.open_table(table, follow=False)
        elif self.host_gone == (table, url) or not left_behind:
            self.going_to, self.awaiting, self.host_gone = table, None, None
            self.link.follow(url)

    async def _tell_untold(self) -> None:
        """Say how our round that ended out of sight ended, from the history (which keeps
        settled rounds only: none there means it was voided), and show the wallet as it
        is now; then, on the same line, our seats a move of the table left behind (its
        new host holds none). Not heard (the link down again): told after the next join."""
        table = self.table_id
        untold, self.round_watch.untold = self.round_watch.untold, None
        if untold is not None and untold.table != table:
            self.round_watch.untold, untold = untold, None  # told when that table is back
        seats, why = self.seat_watch.take_gone(table)
        if table is None or (untold is None and not seats):
            return
        words = []
        if untold is not None:
            record = None
            try:
                if not untold.shutdown:  # (`history` comes before the `ok`)
                    await self.link.request("history", limit=UNSEEN_ROUNDS)
                    rounds = self.history or []
                    record = next((r for r in rounds if r.get("round_id") == untold.round_id), None)
                await self.link.request("balance")
            except (ServerError, ConnectionError, TimeoutError, WebSocketException):
                self.round_watch.untold = untold
                self.seat_watch.keep_untold(table, seats, why)
                return
            words.append(unseen_round_text(record, shutdown=untold.shutdown))
            # its showdown was not seen: the Last round line is this round's (none when
            # voided), never the one before as if it were the last
            self.last_round = () if record is None else self._round_words(record_round_text, record)
        if seats:
            words.append(seats_gone_text(seats, why))
        self.say(" ".join(words))

    def fix_selection(self) -> None:
        mine = self.own_seats()
        if self.selected not in mine:
            self.selected = mine[0] if mine else None
        self.slip.keep_only(mine)

    async def _on_welcome(self, welcome: dict[str, Any], session_lost: bool) -> None:
        # a resumed player's name, as the seats show it
        self.player_name = plain_name(str(welcome.get("name") or self.player_name))
        if self.message_of_link:
            self.message = ""
        self.balance = dict(welcome.get("balance", {}))
        self.account_suspended = None  # (lifted meanwhile, perhaps: the next refusal says)
        self.jackpots.update(welcome.get("jackpots", {}))
        if session_lost:
            self.slip.reset()
            self.round_watch.forget()  # the old player's rounds: not this one's to be told
            self.seat_watch.forget()  # nor the old player's seats
            self.played_on = None  # nor the round the old player left
            self.purchase, self.purchase_lost = None, False  # the old player's, not the new one's
            self.last_round = ()  # the old player's results, beside a History of none
            self.say(session_lost_text(self.link.signed_out, self.watch_only), error=True)
        # a restarted server, or another replica, may not hold our seeds: send them again
        self.client_seeds.clear()
        first = not self._welcomed_once
        self._welcomed_once = True
        try:
            await self.link.request("lobby", watch=True)
            target, self.going_to = self.going_to, None
            if self.table_id is not None:
                self.seat_watch.relinked()  # what the join's snapshot lacks went meanwhile
                await self.link.request("join", table=self.table_id)  # spectators re-join
                # hosted here now: a row naming the host it was at before is where it went
                self.table_host = self.here
                self.submit(self._tell_untold)
                await self._send_seed(self.table_id)
            elif target is not None or (first and self.start_table is not None):
                self.open_table(target or str(self.start_table), follow=False)
        except ServerError as e:
            if e.code in MOVED and self.table_id is not None:  # its host failed, or moved it
                self.awaiting = self._close_table()
                self.say(not_here_text(self.awaiting), error=True)
                self._reopen_awaited(self.lobby)
            else:
                self.say(describe_error(e.frame), error=True)
        if self.purchase is not None:
            self.submit(self._send_purchase)  # its answer was lost: the same key again
        self.redraw_soon()

    def _on_status(self, status: str) -> None:
        self.status = status
        if self.link.connected:
            self._link_up = True
        elif self._link_up:  # it just went down: what was said before is of the table as
            self._link_up = False  # it was ("Bets cleared." under "Not connected")
            if self.message and not self.message_of_link:
                self.message, self.message_moment = "", None
        screen = self._top()
        if screen is not None:
            screen.refresh_bindings()  # the footer's keys that need the link
        self.redraw_soon()

    # ----- drawing ----------------------------------------------------------------------

    def redraw_soon(self) -> None:
        """Coalesce a burst of frames into one redraw."""
        if not self._redraw_scheduled:
            self._redraw_scheduled = True
            self.call_later(self._redraw)

    def _top(self) -> Screen[Any] | None:
        """The screen on top; None once the app is torn down (a redraw or a tick that
        comes then found no screen, and `screen` raised)."""
        return self.screen_stack[-1] if self.screen_stack else None

    def _redraw(self) -> None:
        self._redraw_scheduled = False
        screen = self._top()
        if isinstance(screen, StudScreen):
            screen.redraw()

    def _tick(self) -> None:
        if self.awaiting is not None and self.link.connected:
            # a row passed over as a failed process's own is true once that failure is
            # old, and no new lobby may come to say so: read it again (joins here are
            # left to the lobby's changes, so a refused one is not repeated each tick)
            self._reopen_awaited(self.lobby, here=False)
        screen = self._top()
        if isinstance(screen, WatchScreen) and self.deadline is not None:
            screen.refresh_clock()
        if (
            self.played_on is not None
            and asyncio.get_running_loop().time() >= self.played_on.next_ask
        ):
            self._ask_played_on()

    # ----- lifecycle ----------------------------------------------------------------------

    def on_mount(self) -> None:
        self.push_screen(LobbyScreen())
        self.link.start()
        self.run_worker(self._run_jobs(), name="requests", exclusive=True)
        self.set_interval(0.25, self._tick)

    async def on_unmount(self) -> None:
        await self.link.stop()

    async def action_quit_app(self) -> None:
        """Quit, leaving the table (its seats free at once, not after the reconnect
        grace); when that folds undecided hands, only at a second q, as for l."""
        seats = self.own_seats() if self.table_id is not None else []
        snap, now = self.snapshot, asyncio.get_running_loop().time()
        folds = folded_by_leaving(snap, seats) if self.link.connected else []
        if snap is not None and folds and now > self._quit_armed_until:
            self._quit_armed_until = now + LEAVE_ARMED_SECONDS
            said = leave_warnings(
                snap, folds, seats, collects=self.folded_collects(), quitting=True
            )
            self.say(said[0], error=True, shorter=said[1:], spread=True)
            return
        if self.table_id is not None and self.own_seats() and self.link.connected:
            # free the seats now rather than after the reconnect grace
            with contextlib.suppress(ServerError, ConnectionError, TimeoutError):
                await asyncio.wait_for(self.link.request("leave", table=self.table_id), 2)
        self.exit()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "play_here":  # only while the session plays elsewhere
            return self.link.replaced is not None
        return True

    def action_play_here(self) -> None:
        """Take the session back from the connection that replaced this one."""
        if self.link.replaced is not None:
            self.link.play_here()
            self.redraw_soon()

    def submit(self, job: Job) -> None:
        self._jobs.put_nowait(job)

    async def _run_jobs(self) -> None:
        while True:
            job = await self._jobs.get()
            try:
                await job()
            except ServerError as e:
                if e.code == "account_suspended":
                    self.account_suspended = str(e.frame.get("reason") or "")
                self.say(describe_error(e.frame), error=True, moment=e.code in MOMENT_CODES)
            except NotConnected as e:
                self.say(str(e), error=True, link=True)
            except (ConnectionError, TimeoutError, WebSocketException):
                self.say("The server did not answer; reconnecting…", error=True, link=True)
            self.redraw_soon()

    # ----- what the keys do ------------------------------------------------------------

    def open_table(self, table_id: str, *, follow: bool = True) -> None:
        """Join the table; one hosted by another process of the casino: go there, once."""

        async def job() -> None:
            self.table_id, self.awaiting = table_id, None
            self.deadline = None
            try:
                await self.link.request("join", table=table_id)
            except ServerError as e:
                self.table_id = None
                there = e.frame.get("url")
                if not follow and e.code in MOVED:  # not here yet (its takeover to come)
                    self.awaiting = table_id
                    self.say(not_here_text(table_id), error=True)
                    self._reopen_awaited(self.lobby)
                    return
                if not (follow and e.code in MOVED and isinstance(there, str) and there):
                    raise
                self.going_to = table_id
                self.say(f"Table {table_id} is at another server of the casino: going there…")
                self.link.follow(there)
                return
            except BaseException:
                self.table_id = None
                raise
            self.message, self.table_host, self.host_gone = "", self.here, None
            self.push_screen(WatchScreen() if self.watch_only else PlayScreen())
            self.submit(self._tell_untold)
            await self._send_seed(table_id)

        self.submit(job)

    def leave_table(self) -> None:
        if not self.link.connected:  # the table on screen is as last seen: nothing to warn of
            self.say(
                "Not connected: seats can be left once the link is back.", error=True, link=True
            )
            return
        snap, now = self.snapshot, asyncio.get_running_loop().time()
        folds = folded_by_leaving(snap, self.own_seats())
        if snap is not None and folds and now > self._leave_armed_until:
            self._leave_armed_until = now + LEAVE_ARMED_SECONDS
            said = leave_warnings(snap, folds, self.own_seats(), collects=self.folded_collects())
            self.say(said[0], error=True, shorter=said[1:], spread=True)
            return
        self._leave_armed_until = 0.0
        # what the leave does with the money on our seats, said once left (as the browser)
        told = left_text(snap, self.own_seats(), collects=self.folded_collects())
        follow = played_on(snap, self.own_seats(), now)

        async def job() -> None:
            table_id = self._close_table()
            self.round_watch.forget()  # what becomes of its bets is the leave's to say
            self.seat_watch.forget()  # and its seats were given up, not lost to a move
            if table_id is not None:
                await self.link.request("leave", table=table_id)
                if told is not None:
                    self.say(told[0], error=told[1])
                if follow is not None:  # the leave may have ended its round: look now
                    self.played_on = follow
                    self._ask_played_on()

        self.submit(job)

    def _ask_played_on(self) -> None:
        """Look in the history for the round our raised hands play on in, once at a time."""
        wait = self.played_on
        if wait is not None and not wait.asking:
            wait.asking = True
            self.submit(self._tell_played_on)

    async def _tell_played_on(self) -> None:
        """If the round left with raised hands in it has settled, say what they came to.
        Nothing of it reaches a player no longer at the table but, at times, a wallet push
        (a hand that loses moves nothing then: its raise was paid when raised), so the
        history is also asked every few seconds, for a while."""
        wait, now = self.played_on, asyncio.get_running_loop().time()
        if wait is None:
            return
        wait.next_ask = now + PLAYED_ON_EVERY
        try:
            if now > wait.until:
                self.played_on = None
                return
            if not self.link.connected:
                return  # asked again once back
            await self.link.request("history", limit=UNSEEN_ROUNDS)  # `history` comes first
        except (ServerError, NotConnected, ConnectionError, TimeoutError, WebSocketException):
            return  # asked again at the next push or tick
        finally:
            wait.asking = False
        record = next((r for r in self.history or [] if r.get("round_id") == wait.round_id), None)
        if record is None or self.played_on is not wait:
            return  # not settled yet, or another round waited for
        self.played_on = None
        words, net = played_on_text(wait, record, self.player_id)
        self.say(words, error=net < 0)

    def _close_table(self) -> str | None:
        """Back to the lobby from the table on screen (None: none was); returns its id."""
        table_id, self.table_id = self.table_id, None
        if table_id is None:
            return None
        self.tables.pop(table_id, None)
        self._forget_moment()
        self.slip.reset()
        self.selected = None
        self.deadline = None
        self.last_round = ()  # that table's: reopened, it showed the round before a leave
        if isinstance(self.screen, WatchScreen):
            self.pop_screen()
        return table_id

    def action_history(self) -> None:
        if not isinstance(self.screen, HistoryScreen):
            self.push_screen(HistoryScreen())

    def load_history(self) -> None:
        async def job() -> None:
            await self.link.request("history", limit=HISTORY_ROUNDS)  # `history` comes first

        self.submit(job)

    def set_client_seed(self, seed: str) -> None:
        async def job() -> None:
            table = self.table_id
            if table is None:
                return
            self.seed_choice[table] = seed
            await self._send_seed(table)
            shown = f"“{seed}”" if seed else "none"
            self.say(f"Client seed {shown}: it counts from the next deal.")

        self.submit(job)

    async def _send_seed(self, table: str) -> None:
        """Give the server the seed chosen for `table`, if any. Until it confirms, a deal
        may have used the old seed or the new one, and the check accepts either."""
        seed = self.seed_choice.get(table)
        if seed is None:
            return
        self.pending_seeds[table] = seed
        try:
            await self.link.request("seed", table=table, client_seed=seed)
            self.client_seeds[table] = seed
        finally:
            self.pending_seeds.pop(table, None)

    def buy_chips(self) -> None:
        """`b`: a new purchase, or the one whose answer was lost sent again."""
        if self.purchase is not None and not self.purchase_lost:
            self.say("Your last purchase is still on its way: wait for its answer.", error=True)
            return
        if self.purchase is None:
            self.purchase = (BUY_AMOUNT, f"tui-{secrets.token_hex(12)}")
        self.submit(self._send_purchase)

    async def _send_purchase(self) -> None:
        """The purchase under its key (bought once): a lost answer leaves it to go again
        after the next welcome or on `b`, as does a later try refused as not taken."""
        if self.purchase is None:
            return
        amount, key = self.purchase
        try:
            await self.link.request("buy_chips", amount=amount, key=key)
        except ServerError as e:
            if self.purchase_lost and e.code in NOT_THIS_TRY:
                self.say(
                    f"Your purchase of {money(amount)} is not confirmed yet "
                    f"({describe_error(e.frame)}): press b to send it again; it is bought once.",
                    error=True,
                )
                return
            self.purchase, self.purchase_lost = None, False  # definite: nothing was bought
            raise
        except (ConnectionError, TimeoutError):
            self.purchase_lost = True
            msg = f"No answer yet to your purchase of {money(amount)}: it goes again (or b)."
            self.say(msg, error=True)
            return
        self.purchase, self.purchase_lost = None, False
        self.say(f"Bought {money(amount)} of chips.")


#: The screens read the app through `TableApp`: mypy checks here that StudApp is one.
_SCREENS_READ: type[TableApp] = StudApp
