"""What leaving a table says once the player has left it, in the browser's words
(clients/web/js/leaving.js).

The second l leaves at once: the hands still undecided are folded, and their antes
and progressive stakes lost; a hand already raised plays on to the showdown without
the player. The lobby then says both, and `PlayedOn` keeps the round the raised hands
play on in until its settlement is found in the player's history, to say what each of
the player's hands came to there, the folded ones too. A history record lists only the
seats dealt in, so its order is not the table's: every hand is named by its own `seat`,
never by its place in a list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from clients.bots import money
from clients.tui.render import folded_by_leaving

#: a round played on is looked for in the history this long after the leave at most,
#: and asked for this often (besides at each wallet push and lobby change)
PLAYED_ON_SECONDS: Final = 120.0
PLAYED_ON_EVERY: Final = 3.0

Frame = Mapping[str, Any]


def hands_on(seats: Sequence[int]) -> str:
    """ "hand on seat #2", "hands on seat #1, #3" (0-based `seats`)."""
    plural = "s" if len(seats) > 1 else ""
    return f"hand{plural} on seat {', '.join(f'#{i + 1}' for i in seats)}"


def fold_cost(
    snap: Frame, folds: Sequence[int], collects: bool | None, *, short: bool = False
) -> str:
    """What the hands `folds` stake and a fold loses: "$5.00 of antes and $1.00 of
    progressive stakes". Where a folded hand still collects its progressive prize (the
    variant's `folded_collects_progressive`, `collects`: Stud Poker, Bermuda) the stake
    plays on whatever the fold: only the antes are lost. Not known (None): said so.
    `short`: why a stake plays on, or may, left unsaid."""
    antes = sum(int(snap["seats"][i]["ante"]) for i in folds)
    staked = [i for i in folds if snap["seats"][i]["progressive"]]
    stakes = len(staked) * int(snap.get("progressive_stake") or 0)
    lost = f"{money(antes)} of antes"
    if not stakes:
        return lost
    if short and collects is not False:
        return f"{lost}; {'perhaps ' if collects is None else 'not '}the progressive stakes"
    if collects is None:
        return (
            f"{lost}, and {money(stakes)} of progressive stakes unless this game pays "
            "a folded hand its progressive prize"
        )
    if collects:
        many = len(staked) > 1
        return (
            f"{lost} (the {money(stakes)} progressive stake{'s' if many else ''} still "
            f"play{'' if many else 's'}: at this game a folded hand is paid its progressive prize)"
        )
    return f"{lost} and {money(stakes)} of progressive stakes"


def raised_hands(snap: Frame, seats: Sequence[int]) -> list[int]:
    """Of the player's `seats`, the hands raised, that a leave leaves in play."""
    if snap.get("phase") != "deciding":
        return []
    return [i for i in seats if snap["seats"][i]["decision"] == "raise"]


def playing_on(snap: Frame, seats: Sequence[int]) -> str:
    """The player's raised hands that go on to the showdown without them, in words."""
    raised = raised_hands(snap, seats)
    if not raised:
        return ""
    plays = "play" if len(raised) > 1 else "plays"
    return (
        f"Your raised {hands_on(raised)} {plays} on to the showdown; "
        "the result goes to your wallet and History."
    )


def leave_warning(
    snap: Frame,
    folds: Sequence[int],
    seats: Sequence[int],
    *,
    collects: bool | None,
    quitting: bool = False,
) -> str:
    """What leaving (or quitting, which leaves) costs, said before the second l (or q)
    does it, as the browser's Leave: the undecided hands `folds` of the player's `seats`
    it folds (`collects`: whether a folded hand still collects the progressive here, None
    when not known), and the raised hands that play on."""
    return leave_warnings(snap, folds, seats, collects=collects, quitting=quitting)[0]


def leave_warnings(
    snap: Frame,
    folds: Sequence[int],
    seats: Sequence[int],
    *,
    collects: bool | None,
    quitting: bool = False,
) -> tuple[str, ...]:
    """`leave_warning`, then in fewer words, shortest last: at 80x24 its four lines pushed
    a seat it named off the screen. Each still says the key that leaves, the hands it
    folds and the raised hands that play on; all but the shortest what the folds lose."""
    doing, key, verb = ("Quitting", "q", "quit") if quitting else ("Leaving", "l", "leave")
    rest = playing_on(snap, seats)
    raised = raised_hands(snap, seats)
    plays = "play" if len(raised) > 1 else "plays"
    on = f"; your raised {hands_on(raised)} {plays} on" if raised else ""
    lost = fold_cost(snap, folds, collects, short=True)
    numbers = ", ".join(f"#{i + 1}" for i in folds)
    raised_numbers = ", ".join(f"#{i + 1}" for i in raised)
    return (
        f"{doing} now folds your undecided {hands_on(folds)}: "
        f"you lose {fold_cost(snap, folds, collects)}."
        f"{f' {rest}' if rest else ''} Press {key} again to fold and {verb}.",
        f"{key} again {verb}s: it folds your {hands_on(folds)} (you lose {lost}){on}.",
        f"{key} again {verb}s, folding {numbers}"
        f"{f'; raised {raised_numbers} {plays} on' if raised else ''}.",
    )


def left_text(
    snap: Frame | None, seats: Sequence[int], *, collects: bool | None = None
) -> tuple[str, bool] | None:
    """What leaving the table `snap` (as it stands) did with the money on the player's
    `seats`, and whether it lost any; None when it touched none. `collects`: as for
    `leave_warning`."""
    if snap is None:
        return None
    title = str(snap.get("title") or snap.get("table"))
    folds = folded_by_leaving(snap, list(seats))
    rest = playing_on(snap, seats)
    if folds:
        were = "were" if len(folds) > 1 else "was"
        said = f"You left {title}: your {hands_on(folds)} {were} folded, losing "
        return f"{said}{fold_cost(snap, folds, collects)}.{f' {rest}' if rest else ''}", True
    phase = snap.get("phase")
    if phase == "betting":
        stake = int(snap.get("progressive_stake") or 0)
        back = sum(
            int(snap["seats"][i]["ante"]) + (stake if snap["seats"][i]["progressive"] else 0)
            for i in seats
        )
        if back:
            return f"You left {title}: your bets ({money(back)}) were returned.", False
    settled = [i for i in seats if phase == "showdown" and snap["seats"][i].get("result")]
    if settled:
        net = sum(int(snap["seats"][i]["result"]["net"]) for i in settled)
        return (
            f"You left {title} at the showdown: your {hands_on(settled)} came to "
            f"{money(net, sign=True)}; History shows the round.",
            net < 0,
        )
    return (f"You left {title}. {rest}", False) if rest else None


@dataclass(slots=True)
class PlayedOn:
    """The round the player's raised hands play on in after they left its table."""

    table: str
    title: str
    round_id: str
    until: float  # the loop's clock: looked for no longer
    next_ask: float = 0.0  # the loop's clock: the history asked again from then
    asking: bool = False  # a history request for it is under way


def played_on(snap: Frame | None, seats: Sequence[int], now: float) -> PlayedOn | None:
    """The round to follow after leaving the table `snap` from `seats` (None: no raised
    hand of the player's plays on)."""
    if snap is None or not raised_hands(snap, seats) or snap.get("round_id") is None:
        return None
    title = str(snap.get("title") or snap.get("table"))
    return PlayedOn(str(snap.get("table")), title, str(snap["round_id"]), now + PLAYED_ON_SECONDS)


def played_on_text(wait: PlayedOn, record: Frame, me: str | None) -> tuple[str, int]:
    """How the hands of `me` ended in the round's history `record`, and their net: those
    folded (by the leave, or before it) with what they lost, then the raised ones. The
    raised hands alone read "came to $0.00" while the wallet had fallen by the folds'
    $7.00 (the browser's words, clients/web/js/leaving.js)."""
    mine = [
        s for s in record.get("seats") or [] if isinstance(s, dict) and s.get("player_id") == me
    ]

    def net_of(hands: Sequence[Frame]) -> int:
        return sum(int((s.get("result") or {}).get("net") or 0) for s in hands)

    raised = [s for s in mine if s.get("decision") == "raise"]
    folded = [s for s in mine if s.get("decision") == "fold"]
    said = []
    if folded:
        were = "were" if len(folded) > 1 else "was"
        said.append(
            f"your {hands_on([int(s['seat']) for s in folded])} {were} folded "
            f"({money(net_of(folded), sign=True)})"
        )
    said.append(
        f"your raised {hands_on([int(s['seat']) for s in raised])} came to "
        f"{money(net_of(raised), sign=True)}"
    )
    return (
        f"{wait.title}: the round you left settled: {'; '.join(said)}. History shows it.",
        net_of(raised) + net_of(folded),
    )
