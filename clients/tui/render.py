"""What the terminal table shows, as pure functions of the server's frames.

Kept apart from the widgets so that what a player reads (cards with coloured
suits, dollars, hand labels, errors in words) is one place and testable without
a terminal. Everything returns `rich.text.Text` built from Rich markup.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from rich.cells import cell_len
from rich.markup import escape
from rich.text import Text

from clients.bots import hand_net, money, progressive_part
from clients.verify import OUTCOMES as OUTCOMES  # a settled hand's outcome, in the browser's words
from clients.verify import (
    Verdict,
    decision_words,
    how_decided,
    own_hands,
    round_net,
    settled_at,
    short,
)

SUIT_SYMBOLS: Final = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
RED_SUITS: Final = frozenset("dh")
CARD_BACK: Final = "[blue]▒▒[/]"
CHIPS: Final = (100, 500, 1_000, 2_500, 10_000)  # keys 1..5: $1 $5 $10 $25 $100
PHASES: Final = {
    "waiting": "Waiting for bets",
    "betting": "Betting",
    "deciding": "Fold or raise",
    "showdown": "Showdown",
}
#: the phase of a table paused with no round in play: no ante is taken (the browser's word)
PAUSED_PHASE: Final = "Paused"
#: ...and with the server shutting down under it (the casino paused nothing)
SHUTTING_DOWN_PHASE: Final = "Shutting down"
#: why a suspended table waits (the browser says the same)
PAUSED: Final = {
    "store": "the game's data store is not answering or not taking writes. Nothing is lost; "
    "play goes on where it stopped.",
    "lease": "this server cannot renew its hold on the table. Nothing is lost: play goes on "
    "where it stopped, or, if another server takes the table over, the round is voided and "
    "every bet refunded.",
    "store_lost": "the game's data store came back without its data. Play waits until the "
    "casino restores it; nothing is taken or paid meanwhile.",
}
#: the same in fewer words, where the whole would take more than two lines
PAUSED_SHORT: Final = {
    "store": PAUSED["store"],
    "lease": "this server cannot renew its hold on the table. Nothing is lost; if another "
    "server takes it over, the round is voided and every bet refunded.",
    "store_lost": PAUSED["store_lost"],
}
#: the same, where a line is short of room (the browser's badges say "No qualify" too)
SHORT_OUTCOMES: Final = {"no_qualify": "No qualify"}
#: a fold not the player's, short: "Folded (timer) -$26.00 (P -$1)" took the room of
#: every name at a full table at 80 columns (cut to 9 letters)
SHORT_FOLDS: Final = {" (timer)": "Timed out", " (left)": "Left"}

Frame = Mapping[str, Any]


def card_markup(card: str | None) -> str:
    """`"Th"` -> red "10♥"; None (face down) -> a card back. Always 3 cells wide."""
    if card is None:
        return CARD_BACK + " "
    rank = "10" if card[0] == "T" else card[0]
    suit = card[1].lower()
    style = "bold red" if suit in RED_SUITS else "bold"
    return f"[{style}]{rank}{SUIT_SYMBOLS.get(suit, '?')}[/]" + (" " if len(rank) == 1 else "")


def cards_markup(cards: Sequence[str | None] | None) -> str:
    """Five cards take 19 cells whatever their ranks, so seat lines stay aligned."""
    if not cards:
        return ""
    return " ".join(card_markup(c) for c in cards)


def short_money(cents: int) -> str:
    """Whole dollars without the cents ("$25"), as the browser's limits read; else money()."""
    return money(cents).removesuffix(".00")


def seeds_words(joined: str) -> str:
    """A proof's client seeds ("a,,b": one per seat that anted) in words: 'a', none, 'b';
    "none" when no seat set one (the browser says the same)."""
    parts = joined.split(",")
    if all(p == "" for p in parts):
        return "none"
    return ", ".join(repr(p) if p else "none" for p in parts)


def hand_label(hand: Frame | None) -> str:
    return "" if not hand else str(hand.get("label", ""))


def countdown(seconds_left: float | None) -> str:
    if seconds_left is None:
        return ""
    return f"{max(0, int(seconds_left + 0.999))}s"


def folded_by_leaving(snap: Frame | None, seats: list[int]) -> list[int]:
    """Of the player's `seats`, the dealt hands a leave would fold now (undecided); `snap`
    as it stands (a suspended table's round phase: its leave, applied later, folds too)."""
    if snap is None or snap.get("phase") != "deciding":
        return []
    return [i for i in seats if snap["seats"][i]["ante"] and not snap["seats"][i]["decision"]]


def waiting_hands(snap: Frame, seats: Sequence[int]) -> list[int]:
    """Of `seats`, the dealt hands with no decision yet."""
    return [s for s in seats if snap["seats"][s]["cards"] and snap["seats"][s]["decision"] is None]


def next_waiting(waiting: Sequence[int], seat: int) -> int | None:
    """The hand to select once `seat` is decided: the next still waiting after it in
    seat order, else the first, so f and r go down a player's hands in turn."""
    rest = [s for s in waiting if s != seat]
    return next((s for s in rest if s > seat), rest[0] if rest else None)


def jackpot_name(name: str) -> str:
    """A jackpot's id in words ("high_roller" -> "High Roller"): the protocol gives the
    meters no title, and one alone is just "Jackpot" (the browser's word)."""
    return name.replace("_", " ").replace("-", " ").title()


def joined_to_fit(parts: Sequence[str], width: int | None) -> str:
    """`parts` joined with " · ", a new line begun before a part that would run past
    `width` (a part longer than the line stays whole, to be wrapped as text is)."""
    lines: list[str] = []
    for part in parts:
        if lines and (width is None or cell_len(f"{lines[-1]} · {part}") <= width):
            lines[-1] += f" · {part}"
        else:
            lines.append(part)
    return "\n".join(lines)


def info_text(
    snap: Frame,
    seconds_left: float | None,
    jackpot: int | None,
    variant_title: str = "",
    offline: bool = False,
    *,
    elsewhere: bool = False,
    several_jackpots: bool = False,
    width: int | None = None,
) -> Text:
    """Title, game, limits, spectators; the phase with its countdown; the jackpot meter
    (by its name only when `several_jackpots` are known); the casino's pause or the
    server's shutdown under them, on lines of their own (after the phase and the meter
    on one line it was cut: "CLOSING: … a round not over wi…").
    `offline`: the link is down: the table is as last seen, its clock not known.
    `width`: the first two lines are cut to it (the notice wraps)."""
    jp = snap.get("jackpot") or {}
    amount = jackpot if jackpot is not None else jp.get("amount")
    head = [
        f"[b]{escape(str(snap.get('title') or snap.get('table')))}[/b]",
        escape(variant_title or str(snap.get("variant", ""))),
    ]
    watching = f"watching {snap.get('spectators', 0)}"
    low, high, stake = int(snap["min_ante"]), int(snap["max_ante"]), snap.get("progressive_stake")
    # the whole line where it fits; else the whole dollars, then the spectators on the
    # next line (at 80 columns "watching 1" was cut off the end)
    line1 = stake_words = ""
    for say in (money, short_money):
        stake_words = f"progressive {say(int(stake or 0))}"
        line1 = " · ".join([*head, f"ante {say(low)}–{say(high)}", stake_words])
        if width is None or Text.from_markup(f"{line1} · {watching}").cell_len <= width:
            line1, watching = f"{line1} · {watching}", ""
            break
    if width is not None and Text.from_markup(line1).cell_len > width:
        # a long title: the stake goes down beside the spectators (it was cut at 80
        # columns, "· progressive …")
        line1 = line1.removesuffix(f" · {stake_words}")
        watching = f"{stake_words} · {watching}"
    clock = countdown(seconds_left) if snap.get("ends_in_ms") is not None else ""
    label = phase_label(snap)
    line2 = f"[b]{label}[/b]" + (f"  [yellow]{clock} left[/]" if clock else "")
    paused = snap.get("paused")
    suspension = snap.get("suspension")
    notices = []
    if isinstance(suspension, dict):  # a suspended table (clients/connection.py as_it_stands)
        line2 = "[b red]Paused[/b red]" + ("" if label == PAUSED_PHASE else f" ({label})")
        # why, on lines of its own, whole (cut at the line's end, it read "… Nothi…")
        notices.append(f"[red]{paused_why(str(suspension.get('reason')), width)}[/]")
    if paused:  # the casino paused the table: the round in play finishes, no ante is taken
        reason = f": {escape(str(paused.get('reason', '')))}" if paused.get("reason") else ""
        who = "CLOSING" if paused.get("shutdown") else "PAUSED by the casino"
        notices.append(f"[b red]{who}{reason}[/]")
    if offline:  # the link is down, or (`elsewhere`) the session went on elsewhere
        word = "PLAYING ELSEWHERE" if elsewhere else "OFFLINE"
        line2 = f"[b red]{word}[/b red]: the table as last seen ({label})"
    if amount is not None:
        named = f"{jackpot_name(str(jp.get('name', '')))} jackpot" if several_jackpots else ""
        line2 += f"    [b magenta]{escape(named or 'Jackpot')} {money(amount)}[/]"
    # what did not fit the first line, whole, the stake the first to give way (offline:
    # "OFFLINE: the table as last seen (Showdown)    Jackpot $1,002.00    progressiv…")
    parts = watching.split(" · ") if watching else []
    while width and len(parts) > 1:
        if Text.from_markup(f"{line2}    {' · '.join(parts)}").cell_len <= width:
            break
        parts.pop(0)
    if parts:
        line2 += "    " + " · ".join(parts)
    lines = [Text.from_markup(line1), Text.from_markup(line2)]
    if width:
        for line in lines:
            line.truncate(width, overflow="ellipsis")
    if not offline:
        lines += [Text.from_markup(notice) for notice in notices]
    return Text("\n").join(lines)


def phase_label(snap: Frame) -> str:
    """The phase in words; a table the casino paused with no round in play and none to
    start is Paused, not "Waiting for bets" (a round in play goes on); one whose server
    shuts down is Shutting down, as the browser says: the casino paused nothing."""
    phase, paused = str(snap.get("phase", "")), snap.get("paused")
    if paused and phase == "waiting":
        return SHUTTING_DOWN_PHASE if paused.get("shutdown") else PAUSED_PHASE
    return PHASES.get(phase, phase)


def paused_why(reason: str, width: int | None) -> str:
    """Why a suspended table waits, a sentence: whole where it takes two lines at most,
    else in fewer words (the player's seats below keep their room)."""
    why = PAUSED.get(reason, PAUSED["store"])
    if width and len(textwrap.wrap(why, width)) > 2:
        why = PAUSED_SHORT.get(reason, why)
    return why[0].upper() + why[1:]


def dealer_text(snap: Frame) -> Text:
    dealer = snap.get("dealer") or {}
    cards = dealer.get("cards")
    line = "[b]Dealer[/b]  " + (cards_markup(cards) if cards else "[dim]no cards yet[/]")
    hand = hand_label(dealer.get("hand"))
    if hand:
        qualifies = dealer.get("qualifies")
        if qualifies is None:
            qualifies = str((dealer.get("hand") or {}).get("category", "")).lower() != "high_card"
        line += f"   {escape(hand)}" + (" (qualifies)" if qualifies else " (does not qualify)")
    return Text.from_markup(line)


def seat_status(
    seat: Frame, phase: str | None = None, *, short: bool = False, how: bool = True
) -> str:
    """The right-hand column: at showdown the result in dollars, else the seat's state in
    the browser's words (clients/web/js/format.js `seatStatus`): "Raised", "Folded",
    "Folded (timer)", "Folded (left)", "Deciding…", "Ready", "Sitting out", "Next round".
    `short`: the
    result in fewer words, for a narrow screen (the amounts stay whole). A progressive bet's
    part of the net is said after it, in the legend's word for it: "(incl. P -$1)", short
    "(P -$1)". A fold the clock made, or a leave, says so at the showdown too ("Folded
    (timer) -$6.00": it read as the player's own fold); not `how` where a column beside
    it says how each hand was decided (History's)."""
    result = seat.get("result")
    if result:
        outcome = str(result.get("outcome"))
        words = (SHORT_OUTCOMES if short else OUTCOMES).get(outcome) or OUTCOMES.get(outcome)
        words = words or outcome
        if how and outcome == "fold":
            decided = how_decided(seat)
            words = SHORT_FOLDS.get(decided, words) if short else words + decided
        return f"{words} {result_amounts(seat, short=short)}"
    decision = seat.get("decision")
    if decision:
        return decision_words(seat)
    if phase == "deciding" and seat.get("cards"):
        return "Deciding…"
    if phase == "betting" and seat.get("ready"):
        return "Ready" if seat.get("ante") else "Sitting out"
    if phase in ("deciding", "showdown") and not seat.get("cards") and not seat.get("ante"):
        # dealt without this seat: it sat the round out, or was taken after the deal
        return "Next round" if seat.get("next_round") else "Sitting out"
    return ""


def result_amounts(seat: Frame, *, short: bool = False) -> str:
    """A settled hand's net in colour, and the progressive's part of it: "+$24.00 (incl.
    P -$1)"; `short` "(P -$1)", the room of six letters of the names at a full table."""
    net = hand_net(dict(seat))
    colour = "green" if net > 0 else "red" if net < 0 else "white"
    text = f"[b {colour}]{money(net, sign=True)}[/]"
    side = progressive_part(seat)
    if side:
        said = f"({'' if short else 'incl. '}P {money(side, sign=True).removesuffix('.00')})"
        text += f" [b magenta]{said}[/]" if side > 0 else f" {said}"
    return text


#: a seat's progressive bet: a colour of its own (magenta read as the red of hearts and
#: losses), explained by the legend under the seats
PROGRESSIVE_STYLE: Final = "b yellow"
PROGRESSIVE_MARK: Final = f"[{PROGRESSIVE_STYLE}]P[/]"

#: seat line layouts, roomiest first: (narrow columns, with the hand's name, short words)
SEAT_LAYOUTS: Final = (
    (False, True, False),
    (True, True, False),
    (True, True, True),
    (True, False, True),
)
#: a name's cells on a seat line: at most a name's own limit, 24 letters, each up to two
#: cells wide (a 24-cell cap cut "Alexandra Konstantinova🌹" with 30 columns unused)
NAME_CELLS: Final = 48
#: VARIATION SELECTOR-16, which asks for a letter's emoji (two-cell) form
EMOJI_SELECTOR: Final = "\ufe0f"
#: a name's cells where a dealt line leaves fewer (a narrow screen), and with no width
NAME_WANTED: Final = 16
#: a dealt seat with its longest state ("Folded (timer)"): the room names keep from the
#: bets on, so their column stays put through a round
DEALT: Final = {
    "name": "", "ante": 1, "progressive": True, "cards": [None] * 5, "decision": "fold",
    "auto": True,
}  # fmt: skip


def plain_name(name: str) -> str:
    """`name` without emoji variation selectors: "🖥️" (a one-cell letter asking to be
    drawn two wide) was measured one way and drawn the other by some terminals (tmux),
    and each redraw left a stray cell of the frame at the line's end."""
    return name.replace(EMOJI_SELECTOR, "")


def fit_name(name: str, cells: int) -> str:
    """`name` in at most `cells` cells (a Chinese letter takes two); one cut ends with
    "…" (a cut was not seen), right after the last whole letter: a wide letter cut in
    half left a space before it ("王小明的 …"), the padding goes after it instead."""
    name = plain_name(name)
    if cell_len(name) <= cells:
        return name
    kept = ""
    for letter in name:
        if cell_len(kept + letter) + 1 > cells:
            break
        kept += letter
    return f"{kept}…" if cells > 0 else ""


def fit_name_ends(name: str, cells: int) -> str:
    """`name` in at most `cells` cells, cut in its middle: its start, "…", its end
    ("Alexandr…ntinova"), for a name whose start alone reads as another's."""
    name = plain_name(name)
    if cell_len(name) <= cells or cells < 5:  # no room for a start and an end
        return fit_name(name, cells)
    head = fit_name(name, (cells + 1) // 2 + 1).removesuffix("…")
    tail = ""
    for letter in reversed(name):
        if cell_len(head + "…" + letter + tail) > cells:
            break
        tail = letter + tail
    return f"{head}…{tail}"


def distinct_names(names: Sequence[str], cells: int) -> list[str]:
    """`names` fitted into `cells` cells each, told apart: two different names cut to the
    same start ("Alexandra Konst…" twice at 80 columns) keep their ends instead."""
    fitted = [fit_name(n, cells) for n in names]
    alike: dict[str, set[str]] = {}
    for name, cut in zip(names, fitted, strict=True):
        alike.setdefault(cut, set()).add(plain_name(name))
    return [
        fit_name_ends(name, cells) if cut and len(alike[cut]) > 1 else cut
        for name, cut in zip(names, fitted, strict=True)
    ]


def name_cell(name: str, cells: int, fitted: str | None = None) -> str:
    """`name` fitted into exactly `cells` cells (or as `fitted` already), as markup:
    padded by cells (str's padding counts letters, and a wide letter or an escaped "["
    moved the columns)."""
    fitted = fit_name(name, cells) if fitted is None else fitted
    return escape(fitted) + " " * max(0, cells - cell_len(fitted))


def round_name_cells(width: int, longest: int, *, away: bool = False, bet: bool = True) -> int:
    """The cells a name takes through a round at `width`: what a dealt seat's line leaves
    in the closest layout (its cards and longest state; its hand's name gives way to the
    names, as the layouts do), at least `NAME_WANTED` and at most `NAME_CELLS`. The same at
    the bets and the decisions (the name column went from 24 cells to 18 once cards were
    dealt, and back, moving every column after it), and at the showdown unless its
    results need the room. The room was that of a line with its hand named, which no
    dealt line beside a long name takes: at 80 columns "Terminal Tomasz…" beside 35 blank.
    `away`: a seat's player is away, and its state says so: "Folded (timer) (away)" where
    it has a `bet`, else "Sitting out (away)" at most (room kept for the first beside any
    seat away held names to 18 cells at 80 columns, 21 when none has a bet)."""
    closest, seat = SEAT_LAYOUTS[-1], {**DEALT, "connected": not away}
    if away and not bet:
        seat.update(ante=0, cards=None, decision=None)
    dealt = seat_line(False, 8, seat, None, "deciding", *closest, cut=0, labels=0).cell_len
    return min(longest, NAME_CELLS, max(NAME_WANTED, width - dealt))


def seats_text(
    snap: Frame,
    me: str | None,
    selected: int | None,
    width: int | None = None,
    *,
    built: Mapping[int, tuple[int, bool]] | None = None,
) -> Text:
    """One line per seat: marker, name, ante, progressive, cards, hand, status. Within
    `width` cells a line never wraps (a seat on two lines pushed the player's own off an
    80x24 screen): every seat takes the roomiest layout that leaves its names room (at
    the showdown, one with the hands named if it leaves them 16 cells), and the names
    take what the widest line leaves (they were cut to 10 or 16 letters beside blank
    columns); what still does not fit is cut at the edge. `built`: the bets built
    with chips on the player's seats and not dealt yet, seat -> (cents, progressive)."""
    built = built or {}
    phase = str(snap.get("phase", ""))
    seats = list(enumerate(snap.get("seats") or []))
    taken = [s for _, s in seats if s]
    longest = max((cell_len(str(s.get("name", ""))) for s in taken), default=0)
    # columns no seat fills take no room: the cards before a deal, hands not yet named
    cards = any(s.get("cards") for s in taken)
    labels = max((len(hand_label(s.get("hand"))) for s in taken), default=0)

    def lines(layout: tuple[bool, bool, bool], cut: int) -> list[Text]:
        named = labels if layout[1] else 0
        names = distinct_names([str(s.get("name", "")) if s else "" for _, s in seats], cut)
        return [
            Text.from_markup(f"{'▶' if i == selected else ' '} {i + 1} [dim]empty[/]")
            if seat is None
            else seat_line(
                i == selected,
                i,
                seat,
                me,
                phase,
                *layout,
                cut=cut,
                cards=cards,
                labels=named,
                built=built.get(i),
                fitted=names[i],
            )
            for i, seat in seats
        ]

    if width is None:
        return Text("\n").join(lines(SEAT_LAYOUTS[0], NAME_WANTED))
    room = {
        layout: width - max((line.cell_len for line in lines(layout, 0)), default=0)
        for layout in SEAT_LAYOUTS
    }
    away = [s for s in taken if not s.get("connected", True)]
    bet = any(s.get("ante") or s.get("cards") for s in away)
    wanted = round_name_cells(width, longest, away=bool(away), bet=bet)
    layout = next((lay for lay in SEAT_LAYOUTS if room[lay] >= wanted), None)
    if phase == "showdown" and labels and layout is not None and not layout[1]:
        # the results need the room: each hand named, before a name's last letters
        named = [lay for lay in SEAT_LAYOUTS if lay[1] and room[lay] >= NAME_WANTED]
        layout = next(iter(named), layout)
    layout = layout or max(SEAT_LAYOUTS, key=lambda lay: room[lay])
    shown = lines(layout, max(0, min(wanted, room[layout])))
    for line in shown:
        line.truncate(width, overflow="ellipsis")
    return Text("\n").join(shown)


def seat_line(
    selected: bool,
    i: int,
    seat: Frame,
    me: str | None,
    phase: str,
    *layout: bool,
    cut: int,
    cards: bool = True,
    labels: int = 16,
    built: tuple[int, bool] | None = None,
    fitted: str | None = None,
) -> Text:
    """A taken seat's line in one of `SEAT_LAYOUTS` (narrow columns: one space between,
    a result's long words or short ones): its name in `cut` cells (`fitted`: as already
    cut to them, told apart from the others'), the cards' column
    (none when no seat has cards), the hand's name in `labels` cells (0: none). The bet
    column: the ante, "$25+$50" once raised; a bet `built` and not dealt, dim."""
    narrow, _, short = layout
    gap = " " if narrow else "  "
    name = name_cell(str(seat.get("name", "")), cut, fitted)
    shown_name = f"[b cyan]{name}[/]" if seat.get("player_id") == me else name
    gone = "" if seat.get("connected", True) else " [dim](away)[/]"
    ante = int(seat.get("ante") or 0)
    prog = PROGRESSIVE_MARK if seat.get("progressive") else " "
    status = seat_status(seat, phase, short=short)
    if not ante:
        bet = "-"
        if built and built[0] and phase in ("waiting", "betting"):
            bet = f"[dim]{money(built[0]):>9}[/]"
            prog = f"[dim]{PROGRESSIVE_MARK}[/]" if built[1] else prog
            status = status or "[dim]built: d deals it[/]"
    else:
        bet = stake_words(seat)
    hand = cards_markup(seat.get("cards")) or "[dim]–[/]" + " " * (18 if cards else 0)
    label = f"{escape(hand_label(seat.get('hand'))):<{labels}} " if labels else ""
    return Text.from_markup(
        f"{'▶' if selected else ' '} {i + 1} {shown_name} {bet:>9} {prog}{gap}{hand}{gap}"
        f"{label}{status}{gone}"
    )


def stake_words(seat: Frame) -> str:
    """A hand's bet: its ante, "$25+$50" once raised (the table's bet column and History
    alike: History showed a raised hand's stake as its ante alone)."""
    ante = int(seat.get("ante") or 0)
    if seat.get("decision") == "raise":
        return f"{short_money(ante)}+{short_money(2 * ante)}"
    return money(ante)


#: a result's short word for its progressive's part ("(P -$1)" for "(incl. P -$1)")
SHORT_PROGRESSIVE: Final = re.compile(r"\(P [+-]\$[\d,.]+\)")


def legend_text(
    snap: Frame, seats: Text, *, built_progressive: bool = False, width: int | None = None
) -> Text:
    """What the marks and short words `seats` shows mean, those shown only: the
    progressive mark (a net's "incl. P" too, a bet built with one), a net's short word
    for the progressive's part ("(P -$1)", the first shown named as it reads), and the
    browser's narrow badge ("No qualify") for its words; in the roomiest words that fit
    `width` (the short words are shown where a line is short of room: so is this one)."""
    said = seats.plain
    short = SHORT_PROGRESSIVE.search(said)
    marked = built_progressive or short is not None or "incl. P " in said
    mark = ""
    if marked or any(s and s.get("progressive") for s in snap.get("seats") or []):
        mark = f"{PROGRESSIVE_MARK} progressive bet"
    example = escape(short.group(0)) if short else ""
    marks = [mark]  # roomiest first
    if mark and example:
        marks = [
            f"{mark}[dim] · [/]{example}: the progressive's part of the net",
            f"{mark}, {example} its part of the net",
            f"{mark}, {example} its result",
            f"{PROGRESSIVE_MARK} progressive, {example} its part of the net",
            f"{PROGRESSIVE_MARK} progressive, {example} its result",
        ]
    nq = SHORT_OUTCOMES["no_qualify"]
    qualify = [""]
    if nq in said:
        qualify = [f"{nq}: the dealer did not qualify", f"{nq}: dealer did not qualify"]
    tries = [
        Text.from_markup("[dim] · [/]".join(p for p in (m, q) if p), style="dim")
        for m in marks
        for q in qualify
    ]
    tries.sort(key=lambda t: -t.cell_len)  # roomiest first, whichever part gives way
    return next((t for t in tries if width is None or t.cell_len <= width), tries[-1])


def bets_closed_text(snap: Frame | None, seat: int) -> str:
    """Why no chip goes on `seat` now: its bet placed, or bets closed for the round
    (it said "This seat's bet is placed" of a seat with no bet at a showdown)."""
    seats = (snap or {}).get("seats") or []
    s = seats[seat] if seat < len(seats) else None
    if isinstance(s, dict) and s.get("ante"):
        return "This seat's bet is placed: wait for the next round."
    return "Bets are closed until this round is over: stack chips for the next one then."


def bet_total(chips: Sequence[int]) -> int:
    return sum(chips)


#: the Last round line's layouts, roomiest first: three hands in the first ran past 80
#: columns, cut mid-word, the third hand's result unseen
LAST_ROUND_LAYOUTS: Final = 4


def hands_words(hands: Iterable[tuple[int, Frame | None]], me: str | None, layout: int = 0) -> str:
    """(seat, hand) pairs: the settled hands of `me` in words, "seat 1 One Pair: Win +$5.00";
    `layout` 1 without the hand's name, in short words; 2 shorter still, "#1 Win +$5.00";
    3 the amounts alone, "#1 +$5.00" (the seats and History say how)."""
    parts = []
    for i, seat in hands:
        if seat is None or seat.get("player_id") != me or not seat.get("result"):
            continue
        if layout == 0:
            parts.append(f"seat {i + 1} {hand_label(seat.get('hand'))}: {seat_status(seat)}")
        elif layout == 1:
            parts.append(f"seat {i + 1}: {seat_status(seat, short=True)}")
        elif layout == 2:
            parts.append(f"#{i + 1} {seat_status(seat, short=True)}")
        else:
            parts.append(f"#{i + 1} {result_amounts(seat, short=True)}")
    return ("; " if layout < 2 else " · ").join(parts)


def last_round_text(snap: Frame, me: str | None, layout: int = 0) -> str:
    """The player's hands at a showdown, kept on screen after the table clears."""
    return hands_words(enumerate(snap.get("seats") or []), me, layout)


def record_round_text(record: Frame, me: str | None, layout: int = 0) -> str:
    """The player's hands in a history record (PROTOCOL.md `history`) as `last_round_text`
    words them: the last round of one whose showdown was not seen (it settled out of sight)."""
    seats = [s for s in record.get("seats") or [] if isinstance(s, dict)]
    return hands_words(((int(s.get("seat", 0)), s) for s in seats), me, layout)


def player_text(
    name: str,
    balance: Mapping[str, int],
    chips: Sequence[int],
    progressive: bool,
    selected: int | None,
    stake: int,
    last_round: Sequence[str] = (),
    *,
    placed: int = 0,
    rebet: Sequence[str] = (),
    fate: str = "",
    width: int | None = None,
    sit: bool = True,
) -> Text:
    """The player's own lines: wallet in dollars, the selected seat's bet (being built
    with chips, or `placed` cents already on the table), its progressive, what Rebet
    would bet again (`rebet`, in words), what became of a placed one when not its
    player's doing (`fate`: "folded by the clock"; it went on saying "placed"), and how
    the last round went (`last_round`: its layouts, roomiest first; the first that fits
    `width` is shown). `sit`: with no seat, whether s takes one now (no seat free, the
    session played elsewhere: the keys line says why, and s is not offered here)."""
    bal = balance.get("balance")
    held, bonus = balance.get("held"), balance.get("bonus")
    firsts = []  # roomiest first: at 80 columns "bonus $2,500.00 (not …" was cut, and with
    # a long name and money held, "bonus $2,500…"
    for held_words, bonus_words in (
        ("of it held for raises", " (not playable here)"),
        ("of it held", " (not playable)"),
        ("of it held", ""),
        ("held", ""),
    ):
        first = f"balance [b]{money(bal) if bal is not None else '?'}[/]"
        if held:  # a part of the balance, kept for the raises of the hands in play
            first += f" ({money(held)} {held_words})"
        if bonus:
            first += f"  bonus {money(bonus)}{bonus_words}"
        firsts.append(first)
    cells = cell_len(name)
    spare = {f: cells if width is None else width - Text.from_markup(f).cell_len - 2
             for f in firsts}  # fmt: skip
    fit = [f for f in firsts if spare[f] >= cells]
    first = (fit or firsts)[0 if fit else -1]  # else the name gives way, cut where it says so
    line = f"[b cyan]{escape(fit_name(name, max(1, min(cells, spare[first]))))}[/]  {first}"
    if selected is None:
        line += f"\n[dim]No seat{': press s to sit' if sit else ''}.[/]"
    elif placed:
        line += (
            f"\nSeat {selected + 1}: ante [b]{money(placed)}[/] {fate or 'placed'}"
            f"   progressive [b]{'ON' if progressive else 'off'}[/] ({money(stake)})"
        )
    else:
        chip_list = " ".join(short_money(c) for c in chips) or "none"
        # each kind counted, largest first: forty $1 chips one by one cut the line
        kinds = sorted(set(chips), reverse=True)
        counted = " ".join(
            short_money(c) + (f"×{chips.count(c)}" if chips.count(c) > 1 else "") for c in kinds
        )
        bet, on = money(bet_total(chips)), "ON" if progressive else "off"
        seats = (  # roomiest first
            f"Seat {selected + 1}: bet [b]{bet}[/] (chips: {chip_list})"
            f"   progressive [b]{on}[/] ({money(stake)})",
            f"Seat {selected + 1}: bet [b]{bet}[/] ({chip_list}) · progressive [b]{on}[/]",
            f"Seat {selected + 1}: bet [b]{bet}[/] ({counted or 'none'}) · progressive [b]{on}[/]",
        )
        # the first of rebet's words that fits (at 80 columns "a rebets seat 7 $…")
        ends = (" · x clears", "")
        tails = [f"   [dim]a rebets {escape(w)}{end}[/]" for end in ends for w in rebet]
        lines = [s + t for s in seats for t in tails] or list(seats)
        fits = [x for x in lines if width is None or Text.from_markup(x).cell_len <= width]
        line += "\n" + (fits[0] if fits else seats[-1])
    if last_round:
        room = None if width is None else width - len("Last round: ")
        fits = [w for w in last_round if room is None or Text.from_markup(w).cell_len <= room]
        line += f"\nLast round: {(fits or last_round)[0 if fits else -1]}"
    return Text.from_markup(line)


def verdict_markup(verdict: Verdict | None, *, caveat: bool = True) -> str:
    """A check of the revealed proof: green "fair ✓" (with caveats, unless `caveat` is
    false: "fair ✓ (…)" says there are some) or red "NOT FAIR"."""
    if verdict is None:
        return "[dim]not checked[/]"
    if verdict.fair:
        said = escape("; ".join(verdict.notes)) if caveat else "…"
        return "[b green]fair ✓[/]" + (f" [dim]({said})[/]" if verdict.notes else "")
    return "[b red]NOT FAIR[/]: " + escape("; ".join(verdict.problems))


def fairness_text(
    snap: Frame, verdict: Verdict | None, my_seed: str | None, width: int | None = None
) -> Text:
    """The provably fair line: the short commitment while the round runs, the verdict at
    showdown, and (when playing) the client seed this player has set. Within `width`
    cells the parts a player reads least give way first (the commitment's digits, then
    the seeds of the round, then the verdict's caveat): the line was cut mid-word, "your
    client se…", at 120 columns."""
    fair = snap.get("fairness")
    phase = snap.get("phase")
    verdict_part, commit, seeds, caveat = "", "", "", True
    if isinstance(fair, dict) and fair.get("commitment"):
        commit = f"commitment {short(str(fair['commitment']))}"
        if phase == "showdown":
            seeds = f"client seeds {escape(seeds_words(str(fair.get('client_seeds', ''))))}"
        else:
            verdict_part = "Provably fair deal"
    elif phase != "waiting":
        verdict_part = "[dim]no fairness proof for this round[/]"
    mine = ""
    if my_seed is not None:
        mine = f"your client seed {escape(repr(my_seed)) if my_seed else 'none'} (c to change)"

    def line(*, commit_: bool, seeds_: bool, caveat_: bool) -> Text:
        first = verdict_part
        if seeds:  # a showdown: the verdict leads
            first = verdict_markup(verdict, caveat=caveat_)
        parts = [first, commit if commit_ else "", seeds if seeds_ else "", mine]
        return Text.from_markup(" · ".join(p for p in parts if p))

    tries = [
        line(commit_=True, seeds_=True, caveat_=caveat),
        line(commit_=False, seeds_=True, caveat_=True),
        line(commit_=False, seeds_=False, caveat_=True),
        line(commit_=False, seeds_=False, caveat_=False),
    ]
    return next((t for t in tries if width is None or t.cell_len <= width), tries[-1])


def history_text(
    rounds: Sequence[Frame],
    me: str | None,
    verdicts: Mapping[str, Verdict],
    titles: Mapping[str, str] | None = None,
    variants: Mapping[str, str] | None = None,
    width: int | None = None,
) -> Text:
    """The player's last rounds, newest first: when, where, own hands and results, the
    others' hands, the dealer, jackpot prizes, the wallet before and after, and the check
    of each proof.
    `titles` and `variants` (from the lobby) turn table and variant ids into names. Under
    100 `width` cells, or where a hand's line would not fit (a long result, its
    progressive's part), a round's hands take two lines each (one wrapped its result onto
    a line alone); there, or where the long words would cut a name, results in short
    words ("No qualify")."""
    if not rounds:
        return Text("No rounds yet: play one and come back.", style="dim")
    blocks = []
    for r in rounds:
        rid = str(r.get("round_id", "?"))
        table = str(r.get("table", "?"))
        variant = str(r.get("variant", ""))
        title = (titles or {}).get(table, table)
        game = escape((variants or {}).get(variant, variant))
        if width is not None:  # a long title gives way to the date and the game
            title = fit_name(title, max(12, width - cell_len(f"{settled_at(r)}   · {game}")))
        where = f"[b]{settled_at(r)}[/]  {escape(title)} · {game}"
        which = f"round {escape(rid)}   {verdict_markup(verdicts.get(rid))}"
        head = f"{where} · {which}"
        if width is not None and Text.from_markup(head).cell_len > width:
            # at 80 columns the id wrapped onto a line of its own, under no indent
            head = f"{where}\n  {which}"
        lines = [head]
        mine = own_hands(r, me)
        # "you" where the others' names go: the columns line up; then the others' hands,
        # as the browser's history shows them
        hands = [(s, "you" if me else None) for s in mine] + [
            (s, str(s.get("name", "")))
            for s in r.get("seats") or []
            if isinstance(s, dict) and s not in mine
        ]
        two_lines = width is not None and (
            width < 100
            or any(Text.from_markup(history_hand(s, who)).cell_len > width for s, who in hands)
        )
        narrow = width is not None and width < 100  # the long words where there is room
        cells = history_name_cells(hands, width, two_lines=two_lines, short=narrow)
        longest = max((cell_len(plain_name(who or "")) for _, who in hands), default=0)
        if width is not None and cells < min(NAME_CELLS, longest):
            # short of room: "No qualify" goes first, as on the seats, before a name is cut
            narrow = True
            cells = history_name_cells(hands, width, two_lines=two_lines, short=narrow)
        # two names cut alike ("Alexandra Konst…" twice) keep their ends instead
        fitted = distinct_names([who or "" for _, who in hands], cells)
        lines += [
            history_hand(s, who, two_lines=two_lines, short=narrow, fitted=cut, cells=cells)
            for (s, who), cut in zip(hands, fitted, strict=True)
        ]
        dealer_hand = r.get("dealer_hand") or {}
        qualifies = str(dealer_hand.get("category", "HIGH_CARD")) != "HIGH_CARD"
        lines.append(
            f"  dealer  {cards_markup(r.get('dealer'))}  {escape(hand_label(dealer_hand))}"
            + ((" (qualifies)" if qualifies else " (does not qualify)") if dealer_hand else "")
        )
        for seat, amount in sorted((r.get("jackpots") or {}).items()):
            lines.append(f"  [b magenta]jackpot: seat {int(seat) + 1} won {money(int(amount))}[/]")
        net = round_net(r)
        if net is not None:
            colour = "green" if net > 0 else "red" if net < 0 else "white"
            lines.append(
                f"  net [b {colour}]{money(net, sign=True)}[/] · balance "
                f"{money(int(r['balance_before']))} → {money(int(r['balance_after']))}"
            )
        fair = r.get("fairness")
        if isinstance(fair, dict):
            proof = joined_to_fit(
                [
                    f"proof: commitment {short(str(fair.get('commitment', '')))}",
                    f"client seeds {seeds_words(str(fair.get('client_seeds', '')))}",
                    f"server seed {short(str(fair.get('server_seed', '')))}",
                ],
                None if width is None else width - 2,
            )  # broken between its parts (the server seed wrapped alone, under no indent)
            lines.append(f"[dim]{escape(textwrap.indent(proof, '  '))}[/]")
        blocks.append("\n".join(lines))
    return Text.from_markup("\n\n".join(blocks))


#: the cells of another player's name in History's hands, at least
HISTORY_NAME_CELLS: Final = 16


def history_name_cells(
    hands: Sequence[tuple[Frame, str | None]], width: int | None, *, two_lines: bool, short: bool
) -> int:
    """The cells of the names in a round's `hands` (seat, name) in History: what its
    widest line leaves them (its hands on `two_lines` or one, in `short` words), whole
    names up to their 24 letters, at least `HISTORY_NAME_CELLS` (they were held to it:
    "Alexandra Konst…" at 120 columns beside some 27 blank)."""
    longest = max((cell_len(plain_name(who)) for _, who in hands if who), default=0)
    if width is None or longest <= HISTORY_NAME_CELLS:
        return HISTORY_NAME_CELLS
    bare = max(
        cell_len(Text.from_markup(line).plain.split("\n")[0])
        for line in (
            history_hand(s, who, two_lines=two_lines, short=short, cells=0) for s, who in hands
        )
    )
    return max(HISTORY_NAME_CELLS, min(longest, NAME_CELLS, width - bare))


def history_hand(
    seat: Frame,
    name: str | None = None,
    *,
    two_lines: bool = False,
    short: bool = False,
    fitted: str | None = None,
    cells: int = HISTORY_NAME_CELLS,
) -> str:
    """A hand of a past round: seat (and `name`, another player's, fitted into `cells`
    as on the seats: a Chinese letter or an emoji takes two), bets, cards, result;
    `two_lines`: the seat, bets and result, then the cards, the hand and the decision
    below them (beside the result, an 80-column line had no room for its progressive's
    part); `short`: the result in fewer words; `fitted`: the name as already cut."""
    decision = decision_words(seat)
    ante = stake_words(seat)
    prog = PROGRESSIVE_MARK if seat.get("progressive") else " "
    who = f" [dim]{name_cell(name, cells, fitted)}[/]" if name is not None else ""
    seat_no = f"  seat {int(seat.get('seat', 0)) + 1}{who}  {ante:>9} {prog}"
    cards = cards_markup(seat.get("cards"))
    result = seat_status(seat, short=short, how=False) if seat.get("result") else ""
    if (seat.get("result") or {}).get("outcome") == "fold" and seat.get("decision") == "fold":
        # the decision's column says it: "Folded (timer)  Folded -$101.00" read twice
        result = result_amounts(seat, short=short)
    if two_lines:
        return (
            f"{seat_no}  {result}\n"
            f"          {cards}  {escape(hand_label(seat.get('hand'))):<16} {decision}"
        )
    return f"{seat_no}  {cards}  {escape(hand_label(seat.get('hand'))):<16} {decision:<8} {result}"
