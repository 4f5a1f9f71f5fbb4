"""What the terminal says once a player has left a table mid-decision: the hands the
leave folded and what they cost, the raised hands that play on, and how those ended."""

from __future__ import annotations

from typing import Any

from clients.bots import money
from clients.tui import PlayScreen, StudApp
from clients.tui.screens import LobbyScreen
from tests.conftest import ClientFactory, ServerFactory
from tests.test_tui import LONG, phase, sees, until, url
from tests.test_tui_words import screen_lines


def seat_of(app: StudApp, seat: int) -> dict[str, Any]:
    return dict((app.snapshot or {})["seats"][seat] or {})


async def test_at_80x24_leaving_mid_decision_says_the_fold_and_how_the_raised_hand_ended(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """After the second l the lobby said nothing: not that the hand on seat #3 was
    folded for $5.00, nor that the raised hand on seat #2 played on, nor, once its round
    settled, what it came to. Seat #1 sits the round out, so the round's record lists
    the player's hands first and second: each is named by its own seat."""
    server = await make_server(timers=LONG)
    bob = await connect(server, "bob")
    app = StudApp(url(server), "ann", table="alpha")
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s", "s", "s")
        await until(p, lambda: app.own_seats() == [0, 1, 2], "three seats")
        await until(p, lambda: app.selected == 2, "the last seat taken selected")
        await bob.request("sit", table="alpha", seat=3)
        await bob.request("ante", table="alpha", seat=3, amount=100)
        await p.press("2", "tab", "tab")  # $5 on seat 3, then seat 2 selected
        await until(p, lambda: app.selected == 1, "seat 2")
        await p.press("2", "d")
        await until(p, lambda: seat_of(app, 2)["ready"] and seat_of(app, 1)["ready"], "bets")
        await bob.request("deal", table="alpha")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        assert not seat_of(app, 0)["ante"]  # seat 1 sits the round out
        await p.press("r")
        await until(p, lambda: seat_of(app, 1)["decision"] == "raise", "seat 2 raised")
        title = str((app.snapshot or {}).get("title") or "alpha")
        await p.press("l")
        await sees(p, app, "#message", "Leaving now folds your undecided hand on seat #3")
        await p.press("l")
        await until(p, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        said = await sees(p, app, "#message", "You left")
        assert said == (
            f"You left {title}: your hand on seat #3 was folded, losing $5.00 of antes. "
            "Your raised hand on seat #2 plays on to the showdown; the result goes to your "
            "wallet and History."
        ), said
        assert "History." in " ".join(screen_lines(app))  # whole on screen
        await bob.request("fold", table="alpha", seat=3)
        said = await sees(p, app, "#message", "the round you left settled")
        record = next(r for r in app.history or [] if r.get("table") == "alpha")
        raised = next(s for s in record["seats"] if s["seat"] == 1)
        assert raised["decision"] == "raise" and record["seats"][0] is raised
        folded = next(s for s in record["seats"] if s["seat"] == 2)
        assert folded["result"]["net"] == -500
        assert said == (
            f"{title}: the round you left settled: your hand on seat #3 was folded (-$5.00); "
            f"your raised hand on seat #2 came to {money(raised['result']['net'], sign=True)}. "
            "History shows it."
        ), said
        assert "History shows it." in " ".join(screen_lines(app))


def test_what_a_leave_says_between_the_deal_and_after_the_showdown() -> None:
    """The browser's other words for a leave: bets returned while betting, the result
    at the showdown; and a settled round's raised hands named by their own seats."""
    from clients.tui.leaving import PlayedOn, left_text, played_on_text

    def seat(ante: int, progressive: bool = False, net: int | None = None) -> dict[str, Any]:
        result = None if net is None else {"net": net}
        return {"ante": ante, "progressive": progressive, "decision": None, "result": result}

    betting = {"table": "alpha", "title": "Alpha", "phase": "betting", "progressive_stake": 100}
    betting["seats"] = [seat(500, True), seat(0), seat(1_000)]
    assert left_text(betting, [0, 1, 2]) == (
        "You left Alpha: your bets ($16.00) were returned.",
        False,
    )
    showdown = {**betting, "phase": "showdown", "seats": [seat(500, net=-500), seat(500, net=0)]}
    assert left_text(showdown, [0, 1]) == (
        "You left Alpha at the showdown: your hands on seat #1, #2 came to -$5.00; "
        "History shows the round.",
        True,
    )
    record = {"seats": [{"seat": 4, "player_id": "me", "decision": "raise", "result": {"net": 0}}]}
    said, net = played_on_text(PlayedOn("alpha", "Alpha", "r-1", 0.0), record, "me")
    assert said == (
        "Alpha: the round you left settled: your raised hand on seat #5 came to $0.00. "
        "History shows it."
    )
    assert net == 0


def test_a_settled_round_left_says_every_hand_s_result_the_folded_ones_too() -> None:
    """`l`, `l` with three hands, one raised: the lobby said "your raised hand on seat
    #8 came to $0.00" while the wallet fell $7.00, the two hands the leave folded left
    out. Each hand is said with what it came to, in the record's own seat numbers; the
    net returned is the round's for the player (others' hands are not theirs)."""
    from clients.tui.leaving import PlayedOn, played_on_text

    def hand(seat: int, decision: str, net: int, who: str = "me") -> dict[str, Any]:
        return {"seat": seat, "player_id": who, "decision": decision, "result": {"net": net}}

    record = {
        "seats": [
            hand(0, "raise", 300, "bob"),
            hand(6, "fold", -100),
            hand(7, "raise", 0),
            hand(8, "fold", -600),
        ]
    }
    said, net = played_on_text(PlayedOn("casino-9", "Casino Stud 9", "r-1", 0.0), record, "me")
    assert said == (
        "Casino Stud 9: the round you left settled: your hands on seat #7, #9 were folded "
        "(-$7.00); your raised hand on seat #8 came to $0.00. History shows it."
    )
    assert net == -700


async def test_quitting_mid_decision_says_what_it_folds_and_takes_a_second_q(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """`q` at the decision left the table at once, folding every undecided hand without
    a word, where `l` warns first and closing the browser's tab lets the clock decide.
    The first q now says what quitting folds and that a raised hand plays on; the
    second quits. The first l's warning says that of the raised hand too."""
    server = await make_server(timers=LONG)
    eve = await connect(server, "eve")
    await eve.request("join", table="alpha")
    app = StudApp(url(server), "ann", table="alpha")
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s", "s")
        await until(p, lambda: app.own_seats() == [0, 1], "two seats")
        await p.press("2", "tab", "2", "d")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        await until(p, lambda: app.selected == 0, "seat 1 selected")
        await p.press("r")
        await until(p, lambda: seat_of(app, 0)["decision"] == "raise", "seat 1 raised")
        plays_on = (
            "Your raised hand on seat #1 plays on to the showdown; the result goes to your "
            "wallet and History."
        )
        await p.press("l")
        said = await sees(p, app, "#message", "Leaving now folds")
        assert said == (
            f"Leaving now folds your undecided hand on seat #2: you lose $5.00 of antes. "
            f"{plays_on} Press l again to fold and leave."
        ), said
        await p.press("q")
        said = await sees(p, app, "#message", "Quitting now folds")
        assert said == (
            f"Quitting now folds your undecided hand on seat #2: you lose $5.00 of antes. "
            f"{plays_on} Press q again to fold and quit."
        ), said
        assert app.is_running and seat_of(app, 1)["decision"] is None
        await p.press("q")
        await until(p, lambda: not app.is_running, "the quit")
    seen = await eve.wait_table("alpha", lambda t: t["seats"][1] is None or t["seats"][1]["left"])
    assert seen["seats"][0] is not None and seen["seats"][0]["decision"] == "raise"


async def test_where_a_folded_hand_collects_the_progressive_leaving_does_not_lose_its_stake(
    make_server: ServerFactory,
) -> None:
    """At Stud Poker (beta) and Bermuda a folded hand still collects its progressive
    prize (the variant's flag, in the lobby): the warning said "you lose $5.00 of antes
    and $1.00 of progressive stakes", and the lobby after the leave the same. The stake
    plays on whatever the leave does: only the ante is lost. At Casino Stud (alpha) a
    fold loses the stake with the ante, as said before."""
    server = await make_server(timers=LONG)
    app = StudApp(url(server), "ann", table="beta")
    async with app.run_test(size=(80, 24)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat")
        await p.press("2", "p", "d")
        await until(p, lambda: phase(app) == "deciding", "the deal")
        await p.press("l")
        said = await sees(p, app, "#message", "Leaving now folds")
        assert "you lose $5.00 of antes" in said and "$1.00 of progressive" not in said, said
        assert "progressive stake still plays" in said, said
        await p.press("l")
        await until(p, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        said = await sees(p, app, "#message", "You left")
        assert "losing $5.00 of antes" in said and "progressive stake still plays" in said, said
        await p.press("down", "up")  # alpha is the first row
        app.open_table("alpha")
        await until(p, lambda: isinstance(app.screen, PlayScreen), "alpha")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat at alpha")
        await p.press("2", "p", "d")
        await until(p, lambda: phase(app) == "deciding", "alpha's deal")
        await p.press("l")
        said = await sees(p, app, "#message", "Leaving now folds")
        assert "you lose $5.00 of antes and $1.00 of progressive stakes." in said, said


def test_a_leave_s_warning_without_the_variant_s_rule_says_the_stake_conditionally() -> None:
    """A table whose lobby row is not known (yet): the stake is said lost only where a
    folded hand collects nothing, never as certain."""
    from clients.tui.leaving import leave_warning

    seat = {"ante": 500, "progressive": True, "decision": None}
    snap = {"table": "t", "phase": "deciding", "progressive_stake": 100, "seats": [seat]}
    said = leave_warning(snap, [0], [0], collects=None)
    assert "you lose $5.00 of antes" in said
    assert "$1.00 of progressive stakes unless" in said, said


def test_the_leave_warning_s_fewer_words_keep_what_the_folds_lose() -> None:
    """The shorter warnings (for a screen whose seats leave no room for the whole one)
    name the key, the folds and the raised hand; the two-line one what the folds lose,
    the progressive stakes as the game's rule has them."""
    from clients.tui.leaving import leave_warnings

    def seat(ante: int, decision: str | None, progressive: bool = True) -> dict[str, Any]:
        return {"ante": ante, "progressive": progressive, "decision": decision}

    snap = {"table": "t", "phase": "deciding", "progressive_stake": 100}
    snap["seats"] = [seat(100, None), seat(500, "raise"), seat(100, None, progressive=False)]
    whole, two_lines, shortest = leave_warnings(snap, [0, 2], [0, 1, 2], collects=False)
    assert whole.startswith("Leaving now folds your undecided hands on seat #1, #3"), whole
    assert two_lines == (
        "l again leaves: it folds your hands on seat #1, #3 (you lose $2.00 of antes and "
        "$1.00 of progressive stakes); your raised hand on seat #2 plays on."
    )
    assert shortest == "l again leaves, folding #1, #3; raised #2 plays on."
    kept = leave_warnings(snap, [0, 2], [0, 1, 2], collects=True, quitting=True)[1]
    assert kept.startswith("q again quits:") and "$2.00 of antes; not the progressive" in kept
    maybe = leave_warnings(snap, [0, 2], [0, 1, 2], collects=None)[1]
    assert "$2.00 of antes; perhaps the progressive stakes" in maybe, maybe
