"""What the terminal's message line says of events and refusals, in a player's words
(money in dollars, no codes): pure functions of frames, as render.py's drawing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from clients.bots import money
from clients.connection import DEFAULT_URL
from clients.verify import round_net
from protocol.errors import ERROR_MEANINGS, ErrorCode

Frame = Mapping[str, Any]
#: measures how words wrap (the screen's own console is not needed to count lines)
_MEASURE = Console(width=1_000, color_system=None, legacy_windows=False)


def lines_of(words: str, width: int) -> int:
    """The lines `words` take wrapped at `width` cells, as the message line wraps them."""
    if cell_len(words) <= width:
        return 1
    return len(Text(words).wrap(_MEASURE, width))


def session_lost_text(signed_out: str | None, watch_only: bool) -> str:
    """A welcome as someone new: the account `signed_out` (its password changed or
    locked), or a session the server no longer knew (a spectator was told "you are a
    new player")."""
    if signed_out:
        return (
            f"Signed out of {signed_out}: its password no longer signs in (changed elsewhere,"
            " or locked after failed tries). You play as a new guest; start again with --user."
        )
    if watch_only:
        return "The server no longer knew this session: you watch on as a new guest."
    return "The server no longer knew this session: you are a new player."


def moved_text(frame: Frame) -> str:
    """A `table_moved` frame in words: what became of the player's seats and bets."""
    where = frame.get("url")
    there = f" at {where}" if isinstance(where, str) and where else ""
    return (
        f"Table {frame.get('table')} moved to another server of the casino{there}: your seats "
        "here are gone, and a round in play is refunded by its new host. It opens there by "
        "itself once the lobby lists it."
    )


def restarted_text(frame: Frame, seats: Sequence[int], *, in_round: bool) -> str:
    """A `table_restarted` frame in words: the casino restored its data from a backup
    and the table starts over, every seat free. `seats`: the player's there (0-based);
    `in_round`: they had bets on the round given up. The browser's words
    (clients/web/js/moved.js `restartedNotice`), with the key to sit."""
    head = (
        "The casino restored its data from a backup: what was played since is undone, and "
        f"table {frame.get('table')} starts over"
    )
    if not seats:
        return f"{head}, every seat free."
    parts = [f"{head}."]
    if in_round:
        parts.append("Your round there was given up: what the backup holds of it is refunded.")
    parts.append("Your wallet shows what you have.")
    where = ", ".join(f"#{i + 1}" for i in seats)
    seat_is = "seats {} are" if len(seats) > 1 else "seat {} is"
    parts.append(f"Your {seat_is.format(where)} free again: press s to sit.")
    return " ".join(parts)


def jackpot_won_text(frame: Frame, row: Frame | None) -> str:
    """A `jackpot_won` frame in the browser's words (clients/web/js/notices.js
    `showBanner`): the hand as the table's paytables name it ("Three of a Kind", where
    its category read "Three Of A Kind"), the table by its title from its lobby `row`."""
    category = str(frame.get("category", ""))
    variant = (row or {}).get("variant") or {}
    listed = [*(variant.get("progressive") or []), *(variant.get("raise_paytable") or [])]
    what = next(
        (
            str(r["label"])
            for r in listed
            if str(r.get("category", "")).upper() == category.upper() and r.get("label")
        ),
        " ".join(w if w in ("of", "a") else w.title() for w in category.lower().split("_")),
    )
    title = (row or {}).get("title") or frame.get("table")
    return (
        f"JACKPOT! {frame.get('name')} won {money(int(frame.get('amount', 0)))} "
        f"with a {what} at {title}."
    )


def not_waiting_text(seat: int, hand: Frame | None, waiting: Sequence[int]) -> tuple[str, ...]:
    """A decision key pressed on `seat` (0-based), not waiting: what that hand did, and
    that the first of `waiting` is selected now, the others waiting too (none: that
    hand's words alone); shorter words after, for a short line. Where a hand waits, the
    browser's toast says the same (clients/web/js/play.js `decideByKey`)."""
    hand = hand or {}
    done = (
        f"Seat {seat + 1} has no hand this round"
        if not hand.get("cards")
        else f"Seat {seat + 1} was {'raised' if hand.get('decision') == 'raise' else 'folded'} "
        "already"
    )
    if not waiting:  # none of the player's hands waits: the one pressed on is named all the same
        return (f"{done}; nothing sent.",)
    now, *rest = waiting
    also = ""
    if rest:
        many = len(rest) > 1
        also = f" (seat{'s' if many else ''} {', '.join(str(s + 1) for s in rest)} too)"
    return (
        f"{done}; nothing sent. Seat {now + 1} is selected, still waiting{also}: f fold · r raise.",
        f"{done}; nothing sent. Seat {now + 1} is selected: f fold · r raise.",
        f"{done}; nothing sent. Now seat {now + 1}: f or r.",
    )


def decided_text(seat: int, decision: str, waiting: Sequence[int]) -> tuple[str, ...]:
    """A decision taken on `seat` (0-based) while other hands of the player's still wait
    (`waiting`): which, and that the selection stays on the hand decided, so the same key
    again only selects the next (nothing sent); shorter words after, for a short line."""
    done = "raised" if decision == "raise" else "folded"
    now, *rest = waiting
    also = ""
    if rest:
        also = f" (seat{'s' if len(rest) > 1 else ''} {', '.join(str(s + 1) for s in rest)} too)"
    key = decision[0]
    seats = ", ".join(str(s + 1) for s in waiting)
    wait = f"Seats {seats} wait" if rest else f"Seat {now + 1} waits"
    return (
        f"Seat {seat + 1} {done}. Seat {now + 1} is still waiting{also}: Tab or {key} again "
        f"selects it, nothing sent; then f fold · r raise.",
        f"Seat {seat + 1} {done}. Seat {now + 1} still waiting{also}: Tab or {key} selects it, "
        "nothing sent.",
        f"Seat {seat + 1} {done}. {wait}: Tab or {key} selects seat {now + 1}, nothing sent.",
        f"Seat {seat + 1} {done}; seat {now + 1} waits: Tab to it.",
    )


def not_here_text(table: str | None) -> str:
    """At a process that does not host the table on screen (`unknown_table` or
    `table_moved` to its re-join): what became of the seats, and what happens next. (Its
    lobby row may still name a host that just failed: no address is claimed.)"""
    return (
        f"Table {table} is not hosted by this server (its host failed, or moved it): your "
        "seats there are gone, and a round in play is refunded by its new host. It opens "
        "again by itself once a server of the casino has taken it over."
    )


def unseen_round_text(record: Frame | None, *, shutdown: bool) -> str:
    """The player's round that ended out of sight (the link down, the table gone to
    another process), as the player's history has it: no record (the history keeps
    settled rounds only), or its server shutting down, means it was voided, every bet
    refunded. The browser's words (clients/web/js/unseen.js, `tellUnseenRound`)."""
    if record is None:
        why = " as the server shut down" if shutdown else ""
        return (
            f"Your round was voided{why}: no hand was played out, and every bet of it "
            "(antes, raises, progressive) was refunded."
        )
    net = round_net(record)
    signed = "" if net is None else f" ({money(net, sign=True)})"
    return f"Your round ended while you were away{signed}: History shows how it went."


def seats_gone_text(seats: Sequence[int], why: str = "moved") -> str:
    """The player's seats (0-based) lost out of sight, with the key to sit: the table's old
    host held them and its new host holds none ("moved": the browser's words,
    clients/web/js/moved.js `movedNotice`); its server shut down, giving its tables up,
    and started again ("restarted"); or they were let go while the link was down."""
    if not seats:
        return ""
    where = ", ".join(f"#{i + 1}" for i in seats)
    many = len(seats) > 1
    yours = f"your seat{'s' if many else ''} {where}"
    if why == "restarted":
        return (
            f"Its server shut down and was started again, giving its tables up: {yours} "
            f"{'were' if many else 'was'} let go: press s to sit."
        )
    if why == "away":
        return f"While you were away {yours} {'were' if many else 'was'} let go: press s to sit."
    return f"{yours[0].upper()}{yours[1:]} there {'are' if many else 'is'} gone: press s to sit."


def spectator_sit_text(snap: Frame | None, table: str | None, url: str = DEFAULT_URL) -> str:
    """A spectator's s: how to take a seat (this client only watches), or that none is free;
    the command names the server watched unless it is the one dialled by default."""
    seats = (snap or {}).get("seats") or []
    free = sum(1 for s in seats if s is None)
    server = "" if url == DEFAULT_URL else f" --url {url}"
    play = f"stud-client play{server} --table {table}"
    if snap is not None and not free:
        return f"Every seat is taken. You are watching: to play once one is free, start {play}."
    count = f" ({free} seat{'s' if free != 1 else ''} free)" if snap is not None else ""
    return f"You are watching: to play{count}, start {play}."


def funds_text(frame: Frame, bet: tuple[int, int] | None = None) -> str | None:
    """An `insufficient_funds` or `bonus_not_playable` refusal in words: what the bet
    needs, of what, and what there is; then that bonus credits cannot pay for it (the
    browser's words). `bet`: the ante and progressive stake this terminal sent (0: none),
    so the parts are named with their amounts; else the parts a bet may hold."""
    needed, available = frame.get("needed"), frame.get("available")
    if not (isinstance(needed, int) and isinstance(available, int)):
        return None
    if bet is None:
        parts = "its ante, the raise it may call for and any progressive stake"
    else:
        ante, stake = bet
        raised = needed - ante - stake
        parts = f"ante {money(ante)}" + (f", progressive {money(stake)}" if stake else "")
        parts += f" and the raise it may call for, {money(raised)}" if raised > 0 else ""
    said = (
        f"Not enough chips: this bet needs {money(needed)} available ({parts}); "
        f"you have {money(available)}."
    )
    bonus = frame.get("bonus")
    if isinstance(bonus, int) and bonus > 0:
        said += f" Bonus credits ({money(bonus)}) cannot be wagered at this game."
    elif frame.get("code") == "bonus_not_playable":
        said += " Bonus credits cannot be wagered at this game."
    return said + " Press b to buy chips."


def describe_error(frame: Frame, bet: tuple[int, int] | None = None) -> str:
    """An `error` frame in words a player understands, money in dollars; `bet`: the
    ante and progressive stake of the request refused, if this terminal built it."""
    code = str(frame.get("code", ""))
    message = str(frame.get("message", ""))
    if code in ("insufficient_funds", "bonus_not_playable"):
        said = funds_text(frame, bet)
        if said is not None:
            return said
    if code == "ante_out_of_limits":
        lo, hi = frame.get("min_ante"), frame.get("max_ante")
        if isinstance(lo, int) and isinstance(hi, int):
            return f"The ante at this table must be between {money(lo)} and {money(hi)}."
    if code == "seat_limit":
        return "You already hold the most seats a player may have at this table."
    if code == "no_free_seat":
        return "Every seat at this table is taken; you can still watch."
    if code == "buy_in_limit":
        return f"That top-up is over the limit. {message}"
    if code == "rate_limited":
        return "Slow down: too many keys at once."
    if code == "account_suspended":
        return suspended_text(frame.get("reason"))
    if code == "round_moved_on":
        return "The round had moved on before that reached the table: nothing was bet or changed."
    if message:
        return message[0].upper() + message[1:]
    try:
        return ERROR_MEANINGS[ErrorCode(code)]
    except ValueError:
        return f"The server refused: {code}"


def suspended_text(reason: object) -> str:
    """An `account_suspended` refusal with the operator's reason (it read only "The
    casino has suspended this account: no seats, bets or chip purchases")."""
    why = str(reason or "").strip().rstrip(".")
    said = (
        f"The casino has suspended your account ({why})"
        if why
        else ("The casino has suspended your account")
    )
    return f"{said}: no seats, bets or chip purchases; you can still watch."


def clock_folded(old: Frame | None, new: Frame, me: str | None) -> list[int]:
    """The seats (0-based) of `me` the deciding clock folded between two snapshots of a
    round: undecided in `old`, folded by the timer in `new` (not for leaving)."""
    if old is None or me is None or old.get("round_id") != new.get("round_id"):
        return []
    before, after = old.get("seats") or [], new.get("seats") or []
    return [
        i
        for i, (was, now) in enumerate(zip(before, after, strict=False))
        if was and now and now.get("player_id") == me and was.get("player_id") == me
        and was.get("cards") and not was.get("decision")
        and now.get("decision") == "fold" and now.get("auto") and not now.get("left")
    ]  # fmt: skip


def clock_fold_text(seats: Sequence[int]) -> str:
    """Hands the clock folded, in the browser's words (clients/web/js/unseen.js
    `noticeUnseenDecisions`)."""
    many = len(seats) > 1
    where = ", ".join(f"#{i + 1}" for i in seats)
    return (
        f"The clock ran out: your hand{'s' if many else ''} on seat {where} "
        f"{'were' if many else 'was'} folded."
    )


def by_clock(seat: Any) -> bool:
    """A hand folded by the deciding clock (not for a player who left)."""
    return (
        isinstance(seat, Mapping)
        and seat.get("decision") == "fold"
        and bool(seat.get("auto"))
        and not seat.get("left")
    )
