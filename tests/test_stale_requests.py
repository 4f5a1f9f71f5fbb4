"""A request made on a snapshot the table has moved on from is refused, not applied to a
later round.

A Deal pressed on a link that had silently died reached the server when the link came
back, a round later: the ante was placed in a round the player never saw open, dealt and
folded by the clock, without a word. A request may say which snapshot it was made on
(`seq`); one made before its round's betting (or deciding) closed is `round_moved_on`.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from clients.connection import ServerError
from clients.tui import PlayScreen, StudApp
from server.game.table import Decision, Phase, Refusal, Table
from tests.conftest import ClientFactory, ServerFactory
from tests.decks import shuffles
from tests.test_server_rounds import START, balance_settles, phase
from tests.test_table import DEALER_AK, make_table
from tests.test_tui import SIZE, sees, until, url
from tests.test_tui import phase as tui_phase

HAND = ["Kh", "Ks", "Kd", "7c", "7d"]


def refused(action: Any) -> str:
    with pytest.raises(Refusal) as e:
        action()
    return e.value.code


def test_bets_and_deals_seen_before_the_betting_closed_are_refused() -> None:
    t = make_table([HAND, DEALER_AK], [HAND, DEALER_AK])
    t.sit("ann", "Ann", 0)
    t.sit("bob", "Bob", 1)
    t.place_ante(0.0, "bob", 1, 100)
    betting = t.seq  # what Ann saw: betting open in the first round
    t.tick(10.0)  # the betting timer deals Bob alone
    t.decide(11.0, "bob", 1, Decision.FOLD)
    t.tick(20.0)  # the results pause: waiting again
    assert t.phase is Phase.WAITING
    t.place_ante(21.0, "bob", 1, 100)  # a second round opens
    assert refused(lambda: t.check_seen(betting, deciding=False)) == "round_moved_on"
    # made on what is shown now, or saying nothing: as before
    t.check_seen(t.seq, deciding=False)
    t.check_seen(None, deciding=False)


def test_an_ante_seen_while_waiting_joins_the_round_another_player_opened() -> None:
    """Waiting, Ann antes as Bob opens the round: no betting closed since what she saw."""
    t = make_table([HAND, DEALER_AK])
    t.sit("ann", "Ann", 0)
    t.sit("bob", "Bob", 1)
    waiting = t.seq
    t.place_ante(0.0, "bob", 1, 100)
    t.check_seen(waiting, deciding=False)
    t.place_ante(1.0, "ann", 0, 100)
    assert t.seats[0] is not None and t.seats[0].ante == 100


def test_a_round_emptied_by_its_withdrawals_has_moved_on_too() -> None:
    """Bob opened a round and took his ante back, which ends it; then he opened another.
    Ann's ante made on the first round's betting went into the second, never seen open:
    a round whose betting ended empty has moved on as one that was dealt."""
    t = make_table([HAND, DEALER_AK])
    t.sit("ann", "Ann", 0)
    t.sit("bob", "Bob", 1)
    t.place_ante(0.0, "bob", 1, 100)
    betting = t.seq
    t.withdraw("bob", 1)
    assert t.phase is Phase.WAITING
    t.place_ante(1.0, "bob", 1, 100)
    assert refused(lambda: t.check_seen(betting, deciding=False)) == "round_moved_on"
    t.check_seen(t.seq, deciding=False)


def test_decisions_seen_before_the_deciding_closed_are_refused() -> None:
    t = make_table([HAND, DEALER_AK], [HAND, DEALER_AK])
    t.sit("ann", "Ann", 0)
    t.place_ante(0.0, "ann", 0, 100)
    t.deal_me_in(1.0, "ann")
    deciding = t.seq
    t.check_seen(deciding, deciding=True)  # the round it was made in: fine
    t.tick(30.0)  # the clock folds her
    t.tick(40.0)
    t.place_ante(41.0, "ann", 0, 100)
    t.deal_me_in(42.0, "ann")
    assert t.phase is Phase.DECIDING
    assert refused(lambda: t.check_seen(deciding, deciding=True)) == "round_moved_on"
    t.check_seen(t.seq, deciding=True)


def test_decisions_seen_before_this_round_was_dealt_are_refused() -> None:
    """Ann antes and takes it back (the round ends, no decision ever closed), then antes
    and deals again: a raise made on the first round's betting is not for this hand."""
    t = make_table([HAND, DEALER_AK])
    t.sit("ann", "Ann", 0)
    t.place_ante(0.0, "ann", 0, 100)
    betting = t.seq
    t.withdraw("ann", 0)
    t.place_ante(1.0, "ann", 0, 100)
    t.deal_me_in(2.0, "ann")
    assert t.phase is Phase.DECIDING
    assert refused(lambda: t.check_seen(betting, deciding=True)) == "round_moved_on"
    t.check_seen(t.seq, deciding=True)


def test_a_new_engine_refuses_what_was_seen_of_the_one_before() -> None:
    """A table started over (a restore) or taken over starts above every `seq` shown: a
    request made on an older engine's snapshot is for a round that is gone."""
    old = make_table([HAND, DEALER_AK])
    old.sit("ann", "Ann", 0)
    seen = old.seq
    new = Table(old.config, first_seq=seen + 100)
    assert refused(lambda: new.check_seen(seen, deciding=False)) == "round_moved_on"
    new.check_seen(new.seq, deciding=False)


async def test_an_ante_and_deal_sent_for_a_round_gone_are_refused_and_take_nothing(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server(
        shuffle=shuffles([HAND, DEALER_AK], [HAND, DEALER_AK]),
        timers={"betting": 0.3, "decision": 0.3, "results": 0.2},
    )
    ann, bob = await connect(server, "ann"), await connect(server, "bob")
    for c, seat in ((ann, 0), (bob, 1)):
        await c.request("join", table="alpha")
        await c.request("sit", table="alpha", seat=seat)
    await bob.request("ante", table="alpha", seat=1, amount=100)
    seen = (await ann.wait_table("alpha", phase("betting")))["seq"]
    first = (await ann.wait_table("alpha", phase("betting")))["round_id"]
    # Ann's link dies here; the round is dealt, folded by the clock and over
    await ann.wait_table("alpha", phase("waiting"))
    await bob.request("ante", table="alpha", seat=1, amount=100)
    snap = await ann.wait_table("alpha", lambda s: s["round_id"] not in (None, first))
    # ...and her Deal of the first round comes through now
    for t, fields in (
        ("ante", {"seat": 0, "amount": 500}),
        ("deal", {}),
        ("withdraw", {"seat": 0}),
    ):
        with pytest.raises(ServerError) as e:
            await ann.request(t, table="alpha", seq=seen, **fields)
        assert e.value.code == "round_moved_on", t
    now = await ann.wait_table("alpha", lambda s: s["seq"] >= snap["seq"])
    assert now["seats"][0]["ante"] == 0 and not now["seats"][0]["ready"]
    await balance_settles(ann, START)
    # the same ante made on what is shown now is taken
    reply = await ann.request("ante", table="alpha", seat=0, amount=500, seq=now["seq"])
    assert reply["round_id"] == snap["round_id"]


async def test_a_raise_sent_for_a_round_gone_is_refused(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server(
        shuffle=shuffles([HAND, DEALER_AK], [HAND, DEALER_AK]),
        timers={"betting": 30, "decision": 0.3, "results": 0.2},
    )
    ann = await connect(server, "ann")
    await ann.request("join", table="alpha")
    await ann.request("sit", table="alpha", seat=0)
    await ann.request("ante", table="alpha", seat=0, amount=100)
    await ann.request("deal", table="alpha")
    seen = (await ann.wait_table("alpha", phase("deciding")))["seq"]
    await ann.wait_table("alpha", phase("waiting"))  # the clock folded the hand
    await ann.request("ante", table="alpha", seat=0, amount=100)
    await ann.request("deal", table="alpha")
    await ann.wait_table("alpha", lambda s: s["phase"] == "deciding" and s["seq"] > seen)
    with pytest.raises(ServerError) as e:
        await ann.request("raise", table="alpha", seat=0, seq=seen)
    assert e.value.code == "round_moved_on"
    await ann.request("fold", table="alpha", seat=0)  # her own choice for this round
    await balance_settles(ann, START - 200)


async def test_the_terminal_s_deal_on_a_table_that_moved_on_is_refused_and_said(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    """The terminal sends the snapshot its keys acted on: with the screen a round behind
    (frames held up by the network), its ante is refused and the player told."""
    server = await make_server(timers={"betting": 3, "decision": 0.3, "results": 0.2})
    table = server.rooms["alpha"].table
    bob = await connect(server, "bob")
    await bob.request("join", table="alpha")
    await bob.request("sit", table="alpha", seat=1)
    app = StudApp(url(server), "ann", table="alpha")
    async with app.run_test(size=SIZE) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat")
        await bob.request("ante", table="alpha", seat=1, amount=100)
        await until(p, lambda: tui_phase(app) == "betting", "the betting")
        behind = copy.deepcopy(app.tables["alpha"])
        await until(p, lambda: table.round_id is None, "round 1 played out without her")
        await bob.request("ante", table="alpha", seat=1, amount=100)
        app.tables["alpha"] = behind  # what a screen the network held back still shows
        await p.press("1", "d")
        await sees(p, app, "#message", "The round had moved on")
        seat = table.seats[0]
        assert seat is not None and seat.ante == 0 and table.phase is Phase.BETTING
