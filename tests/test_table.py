"""The round engine: a table fed commands and a fixed clock, read through its effects."""

from __future__ import annotations

import copy
from collections import defaultdict
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.game.ledger import (
    HOUSE,
    WORLD,
    Hold,
    Reason,
    Transfer,
    meter_account,
    player_account,
)
from server.game.settlement import percent_claim
from server.game.table import Decision, Effects, Phase, Refusal, Table, TableConfig, Timers
from server.game.variants import VARIANTS
from server.game.views import own_hands, public_view
from tests.decks import shuffles

TIMERS = Timers(betting=10, decision=20, results=5)
DEALER_AK = ["Ad", "Kc", "9h", "4s", "2d"]  # qualifies with ace-king
DEALER_NOTHING = ["Qd", "Jc", "9h", "4s", "2d"]  # does not qualify


def make_table(*decks: list[list[str]], variant: str = "casino-stud", **kw: Any) -> Table:
    config = TableConfig(
        table_id="t1",
        variant=VARIANTS[variant],
        min_ante=100,
        max_ante=10_000,
        seats=kw.pop("seats", 7),
        timers=TIMERS,
        contribution_bp=kw.pop("contribution_bp", 5000),
        hands=kw.pop("hands", "open"),  # the rules tests read every hand from the view
        **kw,
    )
    ids = iter(f"r{i}" for i in range(1000))
    return Table(config, shuffle=shuffles(*decks), round_ids=lambda: next(ids))


def phase_of(t: Table) -> Phase:
    """The phase, read through a call so mypy does not narrow it between steps."""
    return t.phase


def net_by_player(effects: list[Effects]) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for e in effects:
        transfers: list[Transfer] = list(e.transfers)
        if e.settlement:
            transfers += e.settlement.transfers
        for t in transfers:
            if t.source.startswith("player:"):
                out[t.source[7:]] -= t.amount
            if t.target.startswith("player:"):
                out[t.target[7:]] += t.amount
    return dict(out)


def test_a_full_round_raise_wins_with_paytable() -> None:
    player = ["Kh", "Ks", "Kd", "7c", "7d"]  # full house: casino-stud pays 8:1 on the raise
    t = make_table([player, DEALER_AK])
    t.sit("alice", "Alice", 0)
    effects = [t.place_ante(0.0, "alice", 0, 500, progressive=True)]
    assert phase_of(t) is Phase.BETTING and t.deadline == 10.0
    effects.append(t.deal_me_in(1.0, "alice"))
    assert phase_of(t) is Phase.DECIDING and t.deadline == 21.0
    effects.append(t.decide(2.0, "alice", 0, Decision.RAISE))
    assert phase_of(t) is Phase.SHOWDOWN
    s = effects[-1].settlement
    assert s is not None and s.claims == ()
    # ante 1:1 + raise (1000) at 8:1, and the progressive's $100 for a full house
    assert net_by_player(effects)["alice"] == 500 + 8000 + 10_000 - 100
    seat = public_view(t, 2.0)["seats"][0]
    assert seat["result"]["outcome"] == "win" and seat["result"]["net"] == 8500 + 10_000 - 100
    assert seat["result"]["progressive_prize"] == 10_000
    assert seat["result"]["returned"] == 500 + 1000 + 500 + 8000 + 10_000
    assert seat["hand"]["category"] == "FULL_HOUSE"


def test_dealer_not_qualifying_pays_ante_returns_raise() -> None:
    t = make_table([["2h", "5s", "8d", "Tc", "Jd"], DEALER_NOTHING])
    t.sit("a", "A")
    effects = [t.place_ante(0, "a", 0, 300), t.deal_me_in(0, "a")]
    effects.append(t.decide(1, "a", 0, Decision.RAISE))
    assert net_by_player(effects)["a"] == 300
    assert public_view(t, 1)["dealer"]["qualifies"] is False


def test_tie_pushes_and_lower_hand_loses_everything() -> None:
    t = make_table([["Ah", "Ks", "9d", "4c", "2h"], ["As", "Kh", "9c", "4d", "2s"], DEALER_AK])
    t.sit("a", "A", 0)
    t.sit("b", "B", 1)
    effects = [t.place_ante(0, "a", 0, 100), t.place_ante(0, "b", 1, 100)]
    effects += [t.deal_me_in(0, "a"), t.deal_me_in(0, "b")]
    effects += [t.decide(1, "a", 0, Decision.RAISE), t.decide(1, "b", 1, Decision.RAISE)]
    # dealer A-K-9-4-2 (diamonds/clubs...) ties exactly with both
    nets = net_by_player(effects)
    assert nets == {"a": 0, "b": 0}
    t2 = make_table([["Ah", "Ks", "9d", "3c", "2h"], DEALER_AK])
    t2.sit("a", "A")
    eff = [
        t2.place_ante(0, "a", 0, 100),
        t2.deal_me_in(0, "a"),
        t2.decide(0, "a", 0, Decision.RAISE),
    ]
    assert net_by_player(eff)["a"] == -300


def test_deal_order_is_round_robin_with_dealer_fifth_card_up() -> None:
    hands = [["2c", "3c", "4c", "5c", "7d"], ["2h", "3h", "4h", "5h", "7s"], DEALER_AK]
    t = make_table(hands)
    t.sit("a", "A", 2)
    t.sit("b", "B", 5)
    t.place_ante(0, "b", 5, 100)
    t.place_ante(0, "a", 2, 100)
    t.deal_me_in(0, "a")
    t.deal_me_in(0, "b")
    view = public_view(t, 0)
    assert view["seats"][2]["cards"] == hands[0]  # seat order, not ante order
    assert view["seats"][5]["cards"] == hands[1]
    assert view["dealer"]["cards"] == [None, None, None, None, "2d"]
    assert view["dealer"]["hand"] is None


def test_hole_cards_hidden_until_showdown() -> None:
    t = make_table([["2c", "3c", "4c", "5c", "7d"], DEALER_AK])
    t.sit("a", "A")
    views = [repr(public_view(t, 0))]
    t.place_ante(0, "a", 0, 100)
    views.append(repr(public_view(t, 0)))
    t.deal_me_in(0, "a")
    views.append(repr(public_view(t, 0)))
    for v in views:
        for hidden in DEALER_AK[:4]:
            assert f"'{hidden}'" not in v
    t.decide(0, "a", 0, Decision.FOLD)
    assert public_view(t, 0)["dealer"]["cards"] == DEALER_AK


def test_private_hands_are_face_down_to_everyone_until_showdown() -> None:
    hands = [["2c", "3c", "4c", "5c", "7d"], ["Kh", "Kd", "7s", "7c", "2h"]]
    t = make_table([*hands, DEALER_AK], hands="private")
    t.sit("a", "A", 0)
    t.sit("b", "B", 1)
    t.place_ante(0, "a", 0, 100)
    t.place_ante(0, "b", 1, 100)
    t.deal_me_in(0, "a")
    t.deal_me_in(0, "b")
    view = public_view(t, 0)
    assert view["hands"] == "private"
    for seat in view["seats"][:2]:
        assert seat["cards"] == [None] * 5 and seat["hand"] is None
    text = repr(view)
    for card in hands[0] + hands[1]:
        assert f"'{card}'" not in text  # no hand in the public view while deciding
    own = own_hands(t, "a")
    assert own is not None
    assert own["seats"] == [
        {"seat": 0, "cards": hands[0], "hand": {"category": "HIGH_CARD", "label": "High Card"}}
    ]
    assert own["round_id"] == view["round_id"]
    assert own_hands(t, "nobody") is None
    t.decide(0, "a", 0, Decision.FOLD)
    t.decide(0, "b", 1, Decision.RAISE)
    shown = public_view(t, 0)
    assert shown["phase"] == "showdown"
    assert [s["cards"] for s in shown["seats"][:2]] == hands  # all public at showdown


def test_a_seat_out_of_range_is_a_field_error_before_the_seat_limit() -> None:
    t = make_table(seats=7, max_seats_per_player=1)
    t.sit("a", "A", 0)
    with pytest.raises(Refusal) as e:
        t.sit("a", "A", 7)
    assert e.value.code == "invalid_field"
    with pytest.raises(Refusal) as e:
        t.sit("a", "A", 3)
    assert e.value.code == "seat_limit"


def test_a_free_seat_is_not_yours() -> None:
    t = make_table()
    t.sit("a", "A", 0)
    with pytest.raises(Refusal) as e:
        t.stand(0, "a", 4)
    assert e.value.code == "not_your_seat"
    with pytest.raises(Refusal) as e:
        t.place_ante(0, "a", 4, 100)
    assert e.value.code == "not_your_seat"


def test_timeouts_fold_the_undecided_and_move_on() -> None:
    t = make_table([["2c", "3c", "4c", "5c", "7d"], DEALER_AK])
    t.sit("a", "A")
    t.place_ante(0, "a", 0, 100, progressive=True)
    assert t.tick(9.99) == Effects()
    assert phase_of(t) is Phase.BETTING
    t.tick(10.0)  # betting timer: deal
    assert phase_of(t) is Phase.DECIDING
    eff = t.tick(30.0)  # decision timer: fold
    assert phase_of(t) is Phase.SHOWDOWN
    assert t.seats[0] is not None and t.seats[0].auto and t.seats[0].decision is Decision.FOLD
    assert eff.holds and eff.holds[0].amount == -200
    assert eff.settlement is not None and eff.settlement.transfers == ()
    t.tick(35.0)
    assert phase_of(t) is Phase.WAITING and t.round_id is None


def test_multi_hand_player_and_seat_limit() -> None:
    t = make_table(
        [
            ["2c", "3c", "4c", "5c", "7d"],
            ["Th", "Ts", "4d", "8h", "9s"],
            ["Jh", "Js", "Qs", "Qd", "2h"],
            DEALER_AK,
        ]
    )
    for seat in (0, 1, 2):
        t.sit("a", "A", seat)
    with pytest.raises(Refusal) as e:
        t.sit("a", "A", 3)
    assert e.value.code == "seat_limit"
    effects = [t.place_ante(0, "a", s, 100) for s in (0, 1, 2)]
    effects.append(t.deal_me_in(0, "a"))  # one "deal" readies every seat of the player
    assert phase_of(t) is Phase.DECIDING
    effects.append(t.decide(0, "a", 0, Decision.FOLD))
    effects.append(t.decide(0, "a", 1, Decision.RAISE))
    effects.append(t.decide(0, "a", 2, Decision.RAISE))
    # fold -100; pair of tens loses to... no: dealer has A-K high, tens win 1:1 -> +100+200;
    # two pair wins 2:1 on the raise -> +100+400
    assert net_by_player(effects)["a"] == -100 + 300 + 500


@pytest.mark.parametrize(
    ("setup", "action", "code"),
    [
        ("seated", lambda t: t.decide(0, "a", 0, Decision.RAISE), "wrong_phase"),
        ("seated", lambda t: t.place_ante(0, "a", 0, 99), "ante_out_of_limits"),
        ("seated", lambda t: t.place_ante(0, "a", 0, 10_001), "ante_out_of_limits"),
        ("seated", lambda t: t.place_ante(0, "b", 0, 100), "not_your_seat"),
        ("seated", lambda t: t.place_ante(0, "a", 3, 100), "not_your_seat"),
        ("seated", lambda t: t.place_ante(0, "a", 9, 100), "invalid_field"),
        ("seated", lambda t: t.deal_me_in(0, "a"), "no_bet"),
        ("seated", lambda t: t.deal_me_in(0, "zed"), "not_seated"),
        ("seated", lambda t: t.sit("b", "B", 0), "seat_taken"),
        ("betting", lambda t: t.place_ante(0, "a", 0, 100), "already_bet"),
        ("betting", lambda t: t.stand(0, "a", 0), "wrong_phase"),
        ("betting", lambda t: t.withdraw("b", 0), "not_your_seat"),
        ("deciding", lambda t: t.place_ante(0, "a", 0, 100), "wrong_phase"),
        ("deciding", lambda t: t.decide(0, "b", 0, Decision.RAISE), "not_your_seat"),
        ("deciding", lambda t: t.withdraw("a", 0), "wrong_phase"),
        ("raised", lambda t: t.decide(0, "a", 0, Decision.RAISE), "already_decided"),
        ("raised", lambda t: t.decide(0, "a", 0, Decision.FOLD), "already_decided"),
        ("raised", lambda t: t.decide(0, "c", 2, Decision.FOLD), "not_betting"),
    ],
)
def test_illegal_actions_are_refused_and_change_nothing(setup: str, action: Any, code: str) -> None:
    t = make_table([["2c", "3c", "4c", "5c", "7d"], ["2h", "3h", "4h", "5h", "7s"], DEALER_AK])
    t.sit("a", "A", 0)
    if setup in ("betting", "deciding", "raised"):
        t.sit("b", "B", 1)
        t.sit("c", "C", 2)
        t.place_ante(0, "a", 0, 100)
        t.place_ante(0, "b", 1, 100)
    if setup in ("deciding", "raised"):
        for p in "abc":
            t.deal_me_in(0, p)
    if setup == "raised":
        t.decide(0, "a", 0, Decision.RAISE)
    before = copy.deepcopy(public_view(t, 0)), t.seq
    with pytest.raises(Refusal) as e:
        action(t)
    assert e.value.code == code, e.value.message
    assert (public_view(t, 0), t.seq) == before


def test_withdraw_refunds_everything_and_closes_an_empty_round() -> None:
    t = make_table(contribution_bp=5000)
    t.sit("a", "A")
    placed = t.place_ante(0, "a", 0, 400, progressive=True)
    back = t.withdraw("a", 0)
    assert net_by_player([placed, back]) == {"a": 0}
    assert sum(h.amount for h in placed.holds + back.holds) == 0
    assert phase_of(t) is Phase.WAITING


def test_taking_an_ante_back_takes_the_deal_back_too() -> None:
    """A player who said Deal and then took their ante back stayed ready with nothing at
    stake: their seat read "Sitting out" and the round could be dealt without them,
    though they had chosen neither. Taking back an ante is changing the bet: the player
    is no longer ready until they say Deal again."""
    t = make_table([["Kh", "Ks", "Kd", "7c", "7d"], ["9c", "8d", "4h", "3s", "2h"], DEALER_AK])
    t.sit("a", "A")
    t.sit("b", "B")
    t.place_ante(0, "a", 0, 400)
    t.place_ante(0, "b", 1, 400)
    t.deal_me_in(0, "a")
    t.withdraw("a", 0)
    assert "a" not in t.ready
    assert public_view(t, 0)["seats"][0]["ready"] is False
    t.deal_me_in(1, "b")  # the other player alone ready: betting stays open for "a"
    assert phase_of(t) is Phase.BETTING
    t.place_ante(2, "a", 0, 200)
    t.deal_me_in(3, "a")
    assert phase_of(t) is Phase.DECIDING


def test_void_round_refunds_all_bets_including_raises() -> None:
    t = make_table([["2c", "3c", "4c", "5c", "7d"], ["2h", "3h", "4h", "5h", "7s"], DEALER_AK])
    t.sit("a", "A", 0)
    t.sit("b", "B", 1)
    eff = [t.place_ante(0, "a", 0, 100, True), t.place_ante(0, "b", 1, 200)]
    eff += [t.deal_me_in(0, "a"), t.deal_me_in(0, "b"), t.decide(0, "a", 0, Decision.RAISE)]
    eff.append(t.void_round())
    assert net_by_player(eff) == {"a": 0, "b": 0}
    assert sum(h.amount for e in eff for h in e.holds) == 0
    assert phase_of(t) is Phase.WAITING


def test_percent_progressive_becomes_a_claim_and_folded_casino_stud_hand_collects_nothing() -> None:
    royal = ["Ah", "Kh", "Qh", "Jh", "Th"]
    sf = ["9s", "8s", "7s", "6s", "5s"]
    t = make_table([royal, sf, DEALER_AK])
    t.sit("a", "A", 0)
    t.sit("b", "B", 1)
    t.place_ante(0, "a", 0, 100, True)
    t.place_ante(0, "b", 1, 100, True)
    t.deal_me_in(0, "a")
    t.deal_me_in(0, "b")
    t.decide(0, "b", 1, Decision.FOLD)  # casino-stud: a folded hand loses the progressive
    eff = t.decide(0, "a", 0, Decision.RAISE)
    assert eff.settlement is not None
    claims = eff.settlement.claims
    assert [(c.seat, c.percent_bp, c.category) for c in claims] == [(0, 10_000, "ROYAL_FLUSH")]
    t.record_jackpot(0, 123_456)
    assert public_view(t, 0)["seats"][0]["result"]["progressive_prize"] == 123_456
    assert public_view(t, 0)["seats"][1]["result"]["progressive_prize"] == 0


def test_stud_poker_folded_hand_still_collects_progressive() -> None:
    t = make_table([["8s", "8h", "8d", "8c", "5s"], DEALER_AK], variant="stud-poker")
    t.sit("a", "A")
    eff = [
        t.place_ante(0, "a", 0, 100, True),
        t.deal_me_in(0, "a"),
        t.decide(0, "a", 0, Decision.FOLD),
    ]
    assert net_by_player(eff)["a"] == -100 - 100 + 50_000


def test_leaving_while_betting_gives_the_ante_back() -> None:
    t = make_table([["2c", "3c", "4c", "5c", "7d"], DEALER_AK])
    t.sit("a", "A")
    t.place_ante(0, "a", 0, 100)
    assert t.remove_player(0, "a") == Effects(
        (Transfer("t1-r0", 0, Reason.REFUND, "house", "player:a", 100),),
        (Hold("t1-r0", 0, "a", -200),),
    )
    assert t.seats[0] is None and phase_of(t) is Phase.WAITING  # betting: ante given back


def a_and_b_dealt(*, second_seat: bool = False) -> Table:
    """a at #0 and b at #1, a $1 hand each dealt (both seven high; the dealer ace-king);
    with `second_seat`, a also holds #2, with no bet this round."""
    t = make_table([["2c", "3c", "4c", "5c", "7d"], ["2h", "3h", "4h", "5h", "7s"], DEALER_AK])
    t.sit("a", "A", 0)
    t.sit("b", "B", 1)
    if second_seat:
        t.sit("a", "A", 2)
    t.place_ante(0, "a", 0, 100)
    t.place_ante(0, "b", 1, 100)
    t.deal_me_in(0, "a")
    t.deal_me_in(0, "b")
    return t


def test_leaving_mid_decision_folds_and_frees_the_seat_after_the_round() -> None:
    t = a_and_b_dealt()
    t.decide(0, "b", 1, Decision.RAISE)
    eff = t.remove_player(1, "a")  # a leaves undecided: folds, and that ends the round
    assert eff.settlement is not None and phase_of(t) is Phase.SHOWDOWN
    assert t.seats[0] is not None and t.seats[0].decision is Decision.FOLD
    # folded for leaving, not by the clock: viewers and the history say which
    shown = public_view(t, 1)["seats"]
    assert (shown[0]["auto"], shown[0]["left"]) == (True, True)
    assert (shown[1]["auto"], shown[1]["left"]) == (False, False)
    assert eff.settlement.record["seats"][0]["left"] is True
    t.tick(100)
    assert t.seats[0] is None and t.seats[1] is not None


def test_a_removed_player_keeps_a_dealt_hand_to_its_end_and_loses_the_seats_then() -> None:
    t = a_and_b_dealt(second_seat=True)  # a second seat, with no bet this round
    assert t.release_seats(1, "a") == Effects()  # the operator's removal folds nothing
    assert t.seats[0] is not None and t.seats[0].decision is None and "a" in t.leaving
    t.decide(1, "a", 0, Decision.RAISE)  # the hand is still the player's to play
    t.decide(1, "b", 1, Decision.FOLD)
    assert phase_of(t) is Phase.SHOWDOWN and t.seats[0] is not None
    t.tick(100)
    assert t.seats[0] is None and t.seats[2] is None and t.seats[1] is not None
    assert t.release_seats(101, "a") is None  # no seat left: nothing to do


def test_a_removed_player_gets_antes_back_while_betting_and_the_others_may_deal() -> None:
    t = make_table([["2c", "3c", "4c", "5c", "7d"], DEALER_AK])
    t.sit("a", "A", 0)
    t.sit("b", "B", 1)
    t.place_ante(0, "a", 0, 100)
    t.place_ante(0, "b", 1, 100)
    t.deal_me_in(0, "a")
    effects = t.release_seats(1, "b")  # as on leave: the ante back, the seat free at once
    assert effects is not None and net_by_player([effects]) == {"b": 100}
    assert t.seats[1] is None and phase_of(t) is Phase.DECIDING  # a was the last to wait for
    t.sit("b", "B", 1)  # a seat with no bet in play goes at once
    assert t.release_seats(1, "b") == Effects() and t.seats[1] is None


def test_standing_up_can_complete_readiness() -> None:
    t = make_table([["2c", "3c", "4c", "5c", "7d"], DEALER_AK])
    t.sit("a", "A", 0)
    t.sit("b", "B", 1)
    t.place_ante(0, "a", 0, 100)
    t.deal_me_in(0, "a")
    assert phase_of(t) is Phase.BETTING  # waiting for b
    t.stand(0, "b", 1)
    assert phase_of(t) is Phase.DECIDING


def test_a_leaver_without_pending_decisions_keeps_the_seat_until_the_round_ends() -> None:
    t = a_and_b_dealt()
    t.decide(0, "a", 0, Decision.RAISE)
    assert t.remove_player(0, "a") == Effects()  # raised already: the hand plays on
    assert t.seats[0] is not None and "a" in t.leaving
    t.decide(0, "b", 1, Decision.FOLD)
    t.tick(100)
    assert t.seats[0] is None
    t.tick(10)
    t.tick(30)
    t.tick(35)
    assert t.seats[0] is None


def test_a_hand_left_at_the_showdown_stays_on_view_until_the_round_ends() -> None:
    """Its seats used to go at once, so every other viewer's showdown lost its results;
    a seat with no hand this round goes at once (nothing of it is on view)."""
    t = a_and_b_dealt(second_seat=True)
    t.decide(0, "a", 0, Decision.RAISE)
    t.decide(0, "b", 1, Decision.FOLD)
    assert phase_of(t) is Phase.SHOWDOWN
    assert t.remove_player(1, "a") == Effects()  # settled already: nothing moves
    shown = public_view(t, 1)["seats"][0]
    assert shown["player_id"] == "a" and shown["result"] is not None
    assert t.seats[2] is None
    t.tick(100)
    assert t.seats[0] is None and t.seats[1] is not None


def test_a_leaver_s_seat_with_no_bet_is_freed_at_once_beside_a_hand_in_play() -> None:
    """PROTOCOL.md `leave`: each seat is freed as soon as it has no bet in play. A seat
    taken while deciding stayed the leaver's until the round ended beside their hand,
    and no one else could sit there meanwhile."""
    t = a_and_b_dealt(second_seat=True)
    t.decide(0, "a", 0, Decision.RAISE)
    assert t.remove_player(1, "a") == Effects()
    assert t.seats[2] is None and t.seats[0] is not None and t.seats[0].going
    assert t.sit("b", "B", 2) == 2  # free for another player at once
    t.decide(1, "b", 1, Decision.FOLD)
    t.tick(100)
    assert t.seats[0] is None and t.seats[2] is not None


def test_sitting_again_after_leaving_keeps_the_new_seat_only() -> None:
    """A player who left a hand in play and sat again got every left seat back: the
    sit undid the leave (and kept them `seated` for sign-ins for good)."""
    t = a_and_b_dealt()
    t.decide(0, "a", 0, Decision.RAISE)
    t.decide(0, "b", 1, Decision.FOLD)
    t.remove_player(1, "a")  # at the showdown: seat 0 stays on view, going
    assert not t.keeps_seat("a") and "a" in t.leaving
    assert t.sit("a", "A") == 2
    assert t.keeps_seat("a") and "a" in t.leaving  # seat 2 kept, seat 0 still going
    t.tick(100)
    assert t.seats[0] is None and t.seats[2] is not None and t.leaving == set()


# ----- money is conserved across any sequence of actions ---------------------------

PLAYERS = ["p0", "p1", "p2"]

action = st.one_of(
    st.tuples(st.just("sit"), st.sampled_from(PLAYERS), st.one_of(st.none(), st.integers(0, 3))),
    st.tuples(st.just("stand"), st.sampled_from(PLAYERS), st.integers(0, 3)),
    st.tuples(
        st.just("ante"),
        st.sampled_from(PLAYERS),
        st.integers(0, 3),
        st.sampled_from([50, 100, 250, 5_000, 20_000, 60_000]),
        st.booleans(),
    ),
    st.tuples(st.just("withdraw"), st.sampled_from(PLAYERS), st.integers(0, 3)),
    st.tuples(st.just("deal"), st.sampled_from(PLAYERS)),
    st.tuples(st.just("decide"), st.sampled_from(PLAYERS), st.integers(0, 3), st.booleans()),
    st.tuples(st.just("tick"), st.floats(0, 25)),
    st.tuples(st.just("leave"), st.sampled_from(PLAYERS)),
)


class Wallets:
    """A model of the wallet store: debits checked against available funds, holds, claims."""

    def __init__(self, seed: int) -> None:
        self.accounts: dict[str, int] = defaultdict(int)
        self.held: dict[str, int] = defaultdict(int)
        self.seed = seed
        for p in PLAYERS:
            self.move(Transfer("", None, Reason.BUY_IN, WORLD, player_account(p), 100_000))
        self.move(Transfer("", None, Reason.RESEED, HOUSE, meter_account("main"), seed))

    def move(self, t: Transfer) -> None:
        self.accounts[t.source] -= t.amount
        self.accounts[t.target] += t.amount

    def available(self, p: str) -> int:
        return self.accounts[player_account(p)] - self.held[p]

    def apply(self, e: Effects) -> None:
        for h in e.holds:
            self.held[h.player_id] += h.amount
        for t in e.transfers:
            self.move(t)
        if e.settlement:
            for t in e.settlement.transfers:
                self.move(t)
            meter = meter_account("main")
            for c in e.settlement.claims:
                paid = percent_claim(self.accounts[meter], c.percent_bp)
                if paid:
                    self.move(
                        Transfer(
                            "", c.seat, Reason.JACKPOT, meter, player_account(c.player_id), paid
                        )
                    )
                if self.accounts[meter] < self.seed:
                    self.move(
                        Transfer(
                            "",
                            c.seat,
                            Reason.RESEED,
                            HOUSE,
                            meter,
                            self.seed - self.accounts[meter],
                        )
                    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    actions=st.lists(action, max_size=60),
    variant=st.sampled_from(sorted(VARIANTS)),
    seed=st.integers(0, 2**32),
)
def test_money_is_conserved_and_refusals_change_nothing(
    actions: list[tuple[Any, ...]], variant: str, seed: int
) -> None:
    import random

    rng = random.Random(seed)
    from server.game.cards import shuffled_deck

    config = TableConfig(
        table_id="t",
        variant=VARIANTS[variant],
        min_ante=100,
        max_ante=50_000,
        seats=4,
        timers=TIMERS,
        contribution_bp=3333,
    )
    t = Table(config, shuffle=lambda: shuffled_deck(rng.randrange))
    w = Wallets(seed=1_000_000)
    start_total = sum(v for k, v in w.accounts.items() if k != WORLD)
    now = 0.0
    for act in actions:
        before = (copy.deepcopy(public_view(t, now)), t.seq)
        try:
            match act:
                case ("sit", p, seat):
                    t.sit(p, p.upper(), seat)
                case ("stand", p, seat):
                    w.apply(t.stand(now, p, seat))
                case ("ante", p, seat, amount, prog):
                    e = t.ante_effects(p, seat, amount, prog)
                    need = sum(x.amount for x in e.transfers) + sum(h.amount for h in e.holds)
                    if need > w.available(p):
                        continue  # the wallet refuses; the engine was not touched
                    w.apply(t.place_ante(now, p, seat, amount, prog))
                case ("withdraw", p, seat):
                    w.apply(t.withdraw(p, seat))
                case ("deal", p):
                    w.apply(t.deal_me_in(now, p))
                case ("decide", p, seat, raised):
                    w.apply(t.decide(now, p, seat, Decision.RAISE if raised else Decision.FOLD))
                case ("tick", dt):
                    now += dt
                    w.apply(t.tick(now))
                case ("leave", p):
                    w.apply(t.remove_player(now, p))
        except Refusal:
            assert (public_view(t, now), t.seq) == before, f"refused {act} but changed the table"
        total = sum(v for k, v in w.accounts.items() if k != WORLD)
        assert total == start_total
        for p in PLAYERS:
            assert w.available(p) >= 0, "a decision was left without funds"
            assert w.held[p] >= 0
        assert w.accounts[meter_account("main")] >= 0
    # drain: every round ends and every hold is released
    for _ in range(3):
        now += 100
        w.apply(t.tick(now))
    assert phase_of(t) is Phase.WAITING
    assert all(v == 0 for v in w.held.values())
    assert sum(v for k, v in w.accounts.items() if k != WORLD) == start_total


@given(
    st.lists(
        st.tuples(st.sampled_from(["sit", "stand", "remove"]), st.sampled_from("abc")), max_size=30
    )
)
def test_players_are_who_sits_after_any_sitting_and_leaving(steps: list[tuple[str, str]]) -> None:
    """`players()` is remade only when a seat is taken or freed: it never goes stale."""
    t = make_table(seats=4, max_seats_per_player=2)
    for i, (step, who) in enumerate(steps):
        try:
            if step == "sit":
                t.sit(who, who, None)
            elif step == "stand":
                t.stand(float(i), who, t.seats_of(who)[0].index if t.seats_of(who) else 0)
            else:
                t.remove_player(float(i), who)
        except Refusal:
            pass
        assert t.players() == {s.player_id for s in t.seats if s is not None}


def test_betting_does_not_wait_for_a_player_away_with_no_ante() -> None:
    t = make_table([["2c", "3c", "4c", "5c", "7d"], DEALER_AK])
    t.sit("a", "A", 0)
    t.sit("b", "B", 1)
    t.set_connected(0, "b", False)  # away within the reconnect grace, nothing bet
    t.place_ante(0, "a", 0, 100)
    t.deal_me_in(1, "a")
    assert phase_of(t) is Phase.DECIDING


def test_betting_ends_when_the_last_player_not_ready_goes_away_with_no_ante() -> None:
    t = make_table([["2c", "3c", "4c", "5c", "7d"], DEALER_AK])
    t.sit("a", "A", 0)
    t.sit("b", "B", 1)
    t.place_ante(0, "a", 0, 100)
    t.deal_me_in(1, "a")
    assert phase_of(t) is Phase.BETTING  # b may still bet
    t.set_connected(2, "b", False)
    assert t.deadline == 2  # the betting's timer runs out now: the server deals at once
    assert phase_of(t) is Phase.BETTING
    t.tick(2)
    assert phase_of(t) is Phase.DECIDING


def test_betting_waits_for_a_player_away_with_an_ante_in() -> None:
    t = make_table([["2c", "3c", "4c", "5c", "7d"], ["2h", "3h", "4h", "5h", "7s"], DEALER_AK])
    t.sit("a", "A", 0)
    t.sit("b", "B", 1)
    t.place_ante(0, "a", 0, 100)
    t.place_ante(0, "b", 1, 100)
    t.set_connected(1, "b", False)
    t.deal_me_in(1, "a")
    assert phase_of(t) is Phase.BETTING and t.deadline == TIMERS.betting
    t.set_connected(2, "b", True)
    t.deal_me_in(3, "b")
    assert phase_of(t) is Phase.DECIDING


def test_a_frozen_table_closes_its_betting_only_when_the_clock_runs_again() -> None:
    t = make_table([["2c", "3c", "4c", "5c", "7d"], DEALER_AK])
    t.sit("a", "A", 0)
    t.sit("b", "B", 1)
    t.place_ante(0, "a", 0, 100)
    t.deal_me_in(1, "a")
    t.freeze(2)
    t.set_connected(3, "b", False)
    assert t.deadline is None and phase_of(t) is Phase.BETTING
    t.thaw(50, minimum=2)
    assert t.deadline == 52  # not cut short by the time it stood still


def test_a_seat_taken_after_the_deal_says_it_plays_from_the_next_round() -> None:
    """A seat taken mid-round has no hand, as one that sat the round out: the view tells
    them apart (`next_round`), so it is not shown "Sitting out" of a round it never had."""
    t = make_table([["2h", "5c", "8d", "Js", "Kh"], DEALER_AK])
    t.sit("alice", "Alice", 0)
    t.sit("bob", "Bob", 1)  # sits the round out
    t.place_ante(0.0, "alice", 0, 500, progressive=False)
    t.deal_me_in(1.0, "alice")
    t.deal_me_in(1.0, "bob")
    assert phase_of(t) is Phase.DECIDING
    t.sit("cara", "Cara", 2)  # after the deal
    seats = public_view(t, 0.0)["seats"]
    assert [s["next_round"] for s in seats[:3]] == [False, False, True]
    t.decide(2.0, "alice", 0, Decision.FOLD)
    assert phase_of(t) is Phase.SHOWDOWN
    t.sit("dan", "Dan", 3)  # at the showdown
    assert [s["next_round"] for s in public_view(t, 0.0)["seats"][:4]] == [False, False, True, True]
    t.tick(100.0)  # the round over: a seat like the others
    assert phase_of(t) is Phase.WAITING
    assert [s["next_round"] for s in public_view(t, 0.0)["seats"][:4]] == [False] * 4


def test_a_decision_after_the_last_one_ended_the_round_is_already_decided() -> None:
    """A fold sent right behind the raise that ended the round (the showdown came at
    once) is `already_decided`, as it was a moment before: the seat's choice stands on
    the table; a seat that had no hand is still `wrong_phase`."""
    t = make_table([["2h", "5c", "8d", "Js", "Kh"], DEALER_AK])
    t.sit("alice", "Alice", 0)
    t.sit("bob", "Bob", 1)
    t.place_ante(0.0, "alice", 0, 500, progressive=False)
    t.deal_me_in(1.0, "alice")
    t.deal_me_in(1.0, "bob")
    t.decide(2.0, "alice", 0, Decision.RAISE)
    assert phase_of(t) is Phase.SHOWDOWN
    with pytest.raises(Refusal) as e:
        t.decide(2.0, "alice", 0, Decision.FOLD)
    assert e.value.code == "already_decided"
    with pytest.raises(Refusal) as e:
        t.decide(2.0, "bob", 1, Decision.FOLD)
    assert e.value.code == "wrong_phase"
