"""The terminal client's screens: the lobby, a table (watching or playing), the history.

Each screen draws itself from the app's model and passes its keys on to the app
(clients/tui/app.py); `TableApp` is what they read of it and ask of it.
"""

from __future__ import annotations

import contextlib
from typing import Any, ClassVar, Protocol, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from clients.bots import money
from clients.tui.keys import (
    CASINO_PAUSED_KEYS,
    CLOSING_KEYS,
    ELSEWHERE_KEYS,
    FULL_NO_SEAT_KEYS,
    HISTORY_KEYS,
    LOBBY_KEYS,
    NO_SEAT_KEYS,
    OFFLINE_KEYS,
    PAUSED_KEYS,
    PAYTABLE_KEYS,
    PLAY_KEYS,
    SUSPENDED_KEYS,
    WATCH_KEYS,
    WATCH_OFFLINE_KEYS,
    play_keys,
)
from clients.tui.link import Link
from clients.tui.lobby import (
    LOBBY_COLUMNS,
    lobby_detail,
    lobby_row,
    lobby_rows,
    table_titles,
    variant_titles,
)
from clients.tui.moves import TableMoves
from clients.tui.paytable import paytable_text
from clients.tui.render import (
    CHIPS,
    dealer_text,
    history_text,
    info_text,
    legend_text,
    seats_text,
)
from clients.tui.seed import SeedScreen
from clients.tui.words import spectator_sit_text
from clients.verify import Verdict


class SeatsBox(VerticalScroll, can_focus=False):
    """The seats, one a line, scrolled when a short screen cannot show them all (to the
    selected seat, or by PageUp/PageDown); never focused: the keys are the table's."""

    def on_resize(self) -> None:
        """Made shorter (a long message under the table, the link's line): the selected
        seat is scrolled back into view (it stayed below, the player's own seat unseen)."""
        screen = self.screen
        if isinstance(screen, WatchScreen):
            self.call_after_refresh(screen.keep_in_view, screen.stud.selected)


class TableApp(Protocol):
    """What the screens read of the app and ask it to do (StudApp)."""

    player_name: str
    status: str
    table_id: str | None
    table_host: str  # the server the table on screen was last joined at
    account_suspended: str | None  # the operator's reason, once a refusal said so
    selected: int | None
    lobby: dict[str, Any] | None
    jackpots: dict[str, int]
    history: list[dict[str, Any]] | None
    history_verdicts: dict[str, Verdict]
    seed_choice: dict[str, str]
    link: Link
    moves: TableMoves

    @property
    def player_id(self) -> str | None: ...
    @property
    def snapshot(self) -> dict[str, Any] | None: ...
    def seconds_left(self) -> float | None: ...
    def own_seats(self) -> list[int]: ...
    def built_bets(self) -> dict[int, tuple[int, bool]]: ...
    def jackpot_amount(self) -> int | None: ...
    def variant_title(self) -> str: ...
    def head_text(self, width: int | None = None) -> Text: ...
    def message_text(self, width: int | None = None, room: int | None = None) -> Text: ...
    def player_panel(self, width: int | None = None) -> Text: ...
    def fairness_line(self, width: int | None = None) -> Text: ...
    def open_table(self, table_id: str, *, follow: bool = True) -> None: ...
    def leave_table(self) -> None: ...
    def buy_chips(self) -> None: ...
    def set_client_seed(self, seed: str) -> None: ...
    def load_history(self) -> None: ...
    def say(
        self, message: str, *, error: bool = False, link: bool = False, moment: bool = False
    ) -> None: ...


class StudScreen(Screen[None]):
    """A screen that redraws itself from the app's model, once its widgets exist.

    Frames and the clock may ask for a redraw while a screen is still being
    mounted or already going away; `ready` makes that a no-op instead of a crash.
    """

    ready = False

    @property
    def stud(self) -> TableApp:
        return cast(TableApp, self.app)

    def on_mount(self) -> None:
        self.ready = True
        self.refresh_view()

    def on_unmount(self) -> None:
        self.ready = False

    def on_resize(self) -> None:
        """Lines laid out for the width (seats, the history) are laid out again."""
        self.redraw()

    def on_screen_resume(self) -> None:
        """Back on top (from the history or the seed input): catch up on what came meanwhile."""
        self.redraw()

    def redraw(self) -> None:
        if self.ready:
            # a screen being torn down (the app quitting) may have lost its widgets already
            with contextlib.suppress(NoMatches):
                self.refresh_view()

    def refresh_view(self) -> None:
        raise NotImplementedError

    def message_width(self) -> int:
        """The cells of the message line (the screen's less its padding)."""
        return self.query_one("#message", Static).content_region.width or self.size.width - 2


class LobbyScreen(StudScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("h", "app.history", "History"),
        Binding("i", "paytable", "Paytables"),
        Binding("q", "app.quit_app", "Quit"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._rows: list[tuple[str, list[str]]] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(id="head")
            yield Static("Loading the tables…", id="no-tables")
            yield DataTable(id="tables", cursor_type="row", zebra_stripes=True)
            yield Static(LOBBY_KEYS, id="keys")
            yield Static(id="detail")
            yield Static(id="message")
        yield Footer()

    def highlighted(self) -> str | None:
        """The id of the table under the cursor."""
        cursor = self.query_one(DataTable).cursor_row
        return self._rows[cursor][0] if 0 <= cursor < len(self._rows) else None

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.redraw()  # its limits under the rows

    def action_paytable(self) -> None:
        table = self.highlighted()
        if table is not None:
            self.app.push_screen(PaytableScreen(table))

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns(*LOBBY_COLUMNS)
        # shown with its rows: alone, its headings took the width of their words, out of
        # line with the rows to come
        table.display = False
        table.focus()
        super().on_mount()

    def refresh_view(self) -> None:
        app = self.stud
        head = self.query_one("#head", Static)
        head.update(app.head_text(head.content_region.width or None))
        self.query_one("#message", Static).update(app.message_text(self.message_width()))
        # the table's width, less a scrollbar's where many tables show one (kept always,
        # it cut a long title with the room unused)
        grid = self.query_one(DataTable)
        width = (grid.size.width or self.size.width) - grid.scrollbar_size_vertical
        rows = lobby_rows(app.lobby, app.jackpots, width) if app.lobby else []
        if rows != self._rows:
            table = self.query_one(DataTable)
            cursor = table.cursor_row
            # the cursor stays on its table when rows come and go (Enter opened another)
            was = self._rows[cursor][0] if 0 <= cursor < len(self._rows) else None
            ids = [table_id for table_id, _ in rows]
            table.clear()
            for table_id, cells in rows:
                table.add_row(*cells, key=table_id)
            if rows:
                table.move_cursor(row=ids.index(was) if was in ids else min(cursor, len(rows) - 1))
            self._rows = rows
            table.display = bool(rows)
            self.call_after_refresh(self.refresh_view)  # fitted again if a scrollbar came
        detail = self.query_one("#detail", Static)
        row = lobby_row(app.lobby, self.highlighted())
        detail.update(lobby_detail(row, detail.content_region.width or self.size.width - 2))
        none = "Loading the tables…" if app.lobby is None else "No table is open."
        self.query_one("#no-tables", Static).update("" if rows else none)
        self.query_one("#no-tables", Static).display = not rows

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.stud.open_table(event.row_key.value)


class WatchScreen(StudScreen):
    """A table with no controls: what every spectator sees."""

    KEYS_LINE = WATCH_KEYS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("h", "app.history", "History"),
        Binding("l", "leave", "Lobby"),
        Binding("q", "app.quit_app", "Quit"),
        Binding("s", "sit", "Sit", show=False),  # says how to (this client only watches)
        # the seats scroll when a short screen cannot show them all
        Binding("pageup", "seats_page(-1)", "Seats up", show=False),
        Binding("pagedown", "seats_page(1)", "Seats down", show=False),
    ]

    _in_view: int | None = None  # the selected seat last scrolled into view

    #: the footer's keys that need the link: greyed out while it is down (the footer
    #: offered them as acting, and each only said the link was down)
    LINKED_ACTIONS: ClassVar[frozenset[str]] = frozenset({"leave", "buy", "client_seed"})

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.LINKED_ACTIONS and not self.stud.link.connected:
            return None
        return True

    def action_seats_page(self, direction: int) -> None:
        box = self.query_one(SeatsBox)
        if direction > 0:
            box.scroll_page_down(animate=False)
        else:
            box.scroll_page_up(animate=False)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(id="info")
            yield Static(id="fair")
            yield Static(id="dealer")
            with SeatsBox(id="seats-box"):
                yield Static(id="seats")
                yield Static(id="legend")  # last: the first to give way on a short screen
            yield Static(id="player")
            yield Static(self.KEYS_LINE, id="keys")
            yield Static(id="message")
        yield Footer()

    def refresh_view(self) -> None:
        app = self.stud
        snap = app.snapshot
        if snap is None:
            self.query_one("#info", Static).update(f"joining {app.table_id}… ({app.status})")
            return
        self.refresh_clock()
        fair = self.query_one("#fair", Static)
        fair.update(app.fairness_line(fair.content_region.width or None))
        self.query_one("#dealer", Static).update(dealer_text(snap))
        seats = self.query_one("#seats", Static)
        # its width less a scrollbar's, which a full table on a short screen shows
        width = (self.query_one(SeatsBox).content_region.width or self.size.width - 2) - 2
        built = app.built_bets()
        drawn = seats_text(snap, app.player_id, app.selected, width, built=built)
        seats.update(drawn)
        panel = self.query_one("#player", Static)
        said = app.player_panel(panel.content_region.width or None)
        panel.update(said)
        # the marks of the seats and of the player's lines (a Last round's "No qualify")
        shown = Text.assemble(drawn, "\n", said)
        built_p = any(p for _, p in built.values())
        legend = legend_text(snap, shown, built_progressive=built_p, width=width)
        legend.truncate(width, overflow="ellipsis")
        self.query_one("#legend", Static).update(legend)
        self.query_one("#legend", Static).display = bool(legend)
        if app.selected != self._in_view:  # a page scrolled by hand stays where it is
            self._in_view = app.selected
            self.call_after_refresh(self.keep_in_view, app.selected)
        self.query_one("#keys", Static).update(self.keys_line(snap))
        message = self.query_one("#message", Static)
        message.update(app.message_text(self.message_width(), self.message_room()))

    def message_room(self) -> int | None:
        """The lines the message may take and leave every seat and the legend in view: its
        own now, and those the seats' box has to spare (None: not laid out yet)."""
        rows = self.query_one(SeatsBox).scrollable_content_region.height
        if not rows:
            return None
        legend = self.query_one("#legend", Static)
        wanted = len((self.stud.snapshot or {}).get("seats") or []) + int(legend.display)
        return max(1, self.query_one("#message", Static).size.height + rows - wanted)

    def keys_line(self, snap: dict[str, Any]) -> str:
        """The keys the screen lists under the table (the play screen: those of now);
        offline, not l, which waits for the link as the footer shows."""
        if self.stud.link.replaced is not None:
            return ELSEWHERE_KEYS
        if not self.stud.link.connected:
            return WATCH_OFFLINE_KEYS
        return self.KEYS_LINE

    def keep_in_view(self, seat: int | None) -> None:
        """The selected seat's line (one a line), scrolled to when off the seats' view."""
        boxes = self.query(SeatsBox)
        if seat is None or not boxes:
            return
        view = boxes.first()
        top, rows = view.scroll_offset.y, view.scrollable_content_region.height
        last = len((self.stud.snapshot or {}).get("seats") or []) - 1
        # the last seat, with the legend under it: both in view
        below = self.query_one("#legend", Static).size.height if seat == last else 0
        if seat < top:
            view.scroll_to(y=seat, animate=False)
        elif rows and seat + below >= top + rows:
            view.scroll_to(y=seat + below - rows + 1, animate=False)

    def refresh_clock(self) -> None:
        app = self.stud
        info = self.query("#info")
        if self.ready and app.snapshot is not None and info:  # none while torn down
            info.first(Static).update(
                info_text(
                    app.snapshot,
                    app.seconds_left(),
                    app.jackpot_amount(),
                    app.variant_title(),
                    offline=not app.link.connected,
                    elsewhere=app.link.replaced is not None,
                    several_jackpots=len(app.jackpots) > 1,
                    width=info.first(Static).content_region.width or None,
                )
            )

    def action_leave(self) -> None:
        self.stud.leave_table()

    def action_sit(self) -> None:
        stud = self.stud
        stud.say(spectator_sit_text(stud.snapshot, stud.table_id, stud.table_host))


class PlayScreen(WatchScreen):
    """The table with the player's keys."""

    KEYS_LINE = PLAY_KEYS

    def keys_line(self, snap: dict[str, Any]) -> str:
        """The keys that act now: none of the table's while the link is down (the betting
        keys were listed, and sent nothing), no s with every seat taken, with no seat
        none but s (the chips and d deal were offered to a player with no seat), and no
        bet keys while a pause takes no ante (the footer's b still buys: the wallet's)."""
        if self.stud.link.replaced is not None:
            return ELSEWHERE_KEYS
        if not self.stud.link.connected:
            return OFFLINE_KEYS
        if snap.get("suspension"):
            return PAUSED_KEYS
        seats = snap.get("seats") or []
        mine = self.stud.own_seats()
        paused = snap.get("paused")
        open_bets = snap.get("phase") in ("waiting", "betting")
        if paused and open_bets and not any(seats[i].get("ante") for i in mine):
            # no ante is taken (a round whose antes are in is still dealt)
            shutdown = isinstance(paused, dict) and paused.get("shutdown")
            return CLOSING_KEYS if shutdown else CASINO_PAUSED_KEYS
        barred = self.stud.account_suspended is not None  # no seat or bet is taken
        limits = self.stud.link.welcome.get("limits") or {}
        most = limits.get("max_seats_per_player")
        at_most = isinstance(most, int) and len(mine) >= most  # s is refused `seat_limit`
        free = any(s is None for s in seats) and not barred and not at_most
        if not mine:  # no seat: the chips, deal and decisions act on none
            return SUSPENDED_KEYS if barred else NO_SEAT_KEYS if free else FULL_NO_SEAT_KEYS
        undecided = any(seats[i].get("cards") and not seats[i].get("decision") for i in mine)
        width = self.query_one("#keys", Static).content_region.width or None
        return play_keys(
            str(snap.get("phase", "")),
            undecided=undecided,
            free=free,
            several=len(mine) > 1,
            width=width,
        )

    # the footer: the keys of any time; those of the moment are in the keys line above it
    # (the footer listed them all, every phase, and ran off an 80-column screen)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "sit", "Sit", show=False),
        *(Binding(str(i + 1), f"chip({i})", money(c), show=False) for i, c in enumerate(CHIPS)),
        Binding("backspace", "unchip", "Chip back", show=False),
        Binding("p", "progressive", "Progressive", show=False),
        Binding("a", "rebet", "Rebet", show=False),
        Binding("x", "clear", "Clear", show=False),
        Binding("d", "deal", "Deal", show=False),
        Binding("f", "decide('fold')", "Fold", show=False),
        Binding("r", "decide('raise')", "Raise", show=False),
        # not a priority binding: one acts as the key arrives, ahead of the keys typed
        # before it (a burst "1 Tab 2" stacked both chips on the seat Tab moved to)
        Binding("tab", "next_seat", "Next seat", show=False),
        Binding("b", "buy", "Buy $100"),
        Binding("c", "client_seed", "Client seed"),
        Binding("h", "app.history", "History"),
        Binding("l", "leave", "Leave"),
        Binding("q", "app.quit_app", "Quit"),
    ]

    def action_sit(self) -> None:
        self.stud.moves.sit()

    def action_chip(self, index: int) -> None:
        self.stud.moves.add_chip(index)

    def action_unchip(self) -> None:
        self.stud.moves.remove_chip()

    def action_progressive(self) -> None:
        self.stud.moves.toggle_progressive()

    def action_rebet(self) -> None:
        self.stud.moves.rebet()

    def action_clear(self) -> None:
        self.stud.moves.clear_bets()

    def action_deal(self) -> None:
        self.stud.moves.deal()

    def action_decide(self, decision: str) -> None:
        self.stud.moves.decide(decision)

    def action_next_seat(self) -> None:
        self.stud.moves.next_seat()

    def action_buy(self) -> None:
        self.stud.buy_chips()

    def action_client_seed(self) -> None:
        table = self.stud.table_id
        if table is None:
            return
        current = self.stud.seed_choice.get(table, "")
        self.app.push_screen(SeedScreen(table, current), self._seed_chosen)

    def _seed_chosen(self, seed: str | None) -> None:
        if seed is not None:
            self.stud.set_client_seed(seed)


class PaytableScreen(StudScreen):
    """A table's limits and paytables, from the lobby, before the player sits."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("i", "back", "Back", show=False),  # the key that opened it closes it
        Binding("q", "app.quit_app", "Quit"),
    ]

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id = table_id

    def compose(self) -> ComposeResult:
        with Vertical():
            with VerticalScroll(id="pays"):
                yield Static(id="paytable")
            yield Static(PAYTABLE_KEYS, id="keys")
            yield Static(id="message")
        yield Footer()

    def refresh_view(self) -> None:
        app = self.stud
        row = lobby_row(app.lobby, self.table_id)
        pays = self.query_one("#paytable", Static)
        if row is None:
            pays.update(Text(f"Table {self.table_id} is no longer in the lobby.", style="dim"))
        else:
            meter = app.jackpots.get(str(row.get("jackpot", "")))
            width = (self.query_one("#pays", VerticalScroll).size.width or self.size.width) - 2
            pays.update(paytable_text(row, meter, width))
        self.query_one("#message", Static).update(app.message_text(self.message_width()))

    def action_back(self) -> None:
        self.app.pop_screen()


class HistoryScreen(StudScreen):
    """The player's last rounds, each with the check of its revealed proof."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("h", "back", "Back", show=False),  # the key that opened it closes it
        Binding("r", "reload", "Refresh"),
        Binding("q", "app.quit_app", "Quit"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(id="head")
            with VerticalScroll(id="rounds"):
                yield Static(id="history")
            yield Static(HISTORY_KEYS, id="keys")
            yield Static(id="message")
        yield Footer()

    def on_mount(self) -> None:
        super().on_mount()
        self.query_one("#rounds", VerticalScroll).focus()
        self.stud.load_history()

    def refresh_view(self) -> None:
        app = self.stud
        self.query_one("#head", Static).update(
            Text(f"Your last rounds · {app.player_name} · {app.status}")
        )
        if app.history is None:
            body = Text("loading…", style="dim")
        else:
            body = history_text(
                app.history,
                app.player_id,
                app.history_verdicts,
                table_titles(app.lobby),
                variant_titles(app.lobby),
                # the panel's width less its padding and a scrollbar's
                width=(self.query_one("#rounds", VerticalScroll).size.width or self.size.width) - 4,
            )
        self.query_one("#history", Static).update(body)
        self.query_one("#message", Static).update(app.message_text(self.message_width()))

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_reload(self) -> None:
        self.stud.load_history()
