"""Settlement of the main game and the progressive, against the rules and seeds."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from server.game.cards import DECK, Card
from server.game.categories import Category
from server.game.evaluator import HandValue, evaluate
from server.game.settlement import (
    MainOutcome,
    Outcome,
    contribution,
    dealer_qualifies,
    main_outcome,
    percent_claim,
    progressive_prize,
    raise_amount,
    settle_main,
)
from server.game.variants import VARIANTS, Odds, Prize, Variant, load_variants

C = Category
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "variants" / "high-roller.toml"
ALL_VARIANTS: list[Variant] = [*VARIANTS.values(), *load_variants(EXAMPLE).values()]


def hand(text: str) -> HandValue:
    return evaluate(text.split())


# One player hand per category, none sharing a card with DEALER_AK.
PLAYER = {
    C.HIGH_CARD: "Qc Jd 9h 6c 3s",
    C.ACE_KING: "As Kd 9h 6c 3s",
    C.ONE_PAIR: "Jc Jd 4h 8s 2c",
    C.TWO_PAIR: "4c 4d Jh Js Ad",
    C.THREE_OF_A_KIND: "9c 9d 9s Ac 8c",
    C.STRAIGHT: "5c 4d 3h 2s Ad",
    C.FLUSH: "Kd Jd 9d 6d 3d",
    C.FULL_HOUSE: "Kh Ks Kd 4c 4d",
    C.FOUR_OF_A_KIND: "6c 6d 6h 6s 2d",
    C.STRAIGHT_FLUSH: "Tc 9c 8c 7c 6c",
    C.ROYAL_FLUSH: "As Ks Qs Js Ts",
}
DEALER_AK = "Ah Kc 8d 5s 2h"  # the weakest kind of qualifying hand
DEALER_NO_HAND = "Qh Jc 8d 5s 2h"  # queen high: does not qualify

# Raise odds N (all N:1) written from each seed's table, low category to high.
SEED_ODDS = {
    # stud-poker.txt: One Pair or less 1:1, Two Pair 2:1, ... Royal Flush 100:1
    "stud-poker": [1, 1, 1, 2, 3, 4, 5, 7, 20, 50, 100],
    # casino-stud-poker.txt: 1 pair or less even, 2 pairs 2 to 1, ... flush 6, full house 8
    "casino-stud": [1, 1, 1, 2, 3, 4, 6, 8, 20, 50, 100],
    # bermuda-poker.txt: Ace-King 1:1, One Pair 1:1, ... Flush 5:1, Full House 7:1
    "bermuda": [1, 1, 1, 2, 3, 4, 5, 7, 20, 50, 100],
}


def test_example_hands_have_their_categories() -> None:
    for cat, cards in PLAYER.items():
        assert hand(cards).category == cat, cards
    assert hand(DEALER_AK).category == C.ACE_KING
    assert hand(DEALER_NO_HAND).category == C.HIGH_CARD


@pytest.mark.parametrize(
    ("cards", "qualifies"),
    [
        (DEALER_AK, True),
        (DEALER_NO_HAND, False),
        ("Ah Qc 8d 5s 2h", False),  # ace without king
        ("Kh Qc 8d 5s 2h", False),  # king without ace
        ("2h 2c 7d 5s 3h", True),  # lowest pair
        ("Ah Kh Qh Jh Th", True),
    ],
)
def test_dealer_qualifies(cards: str, qualifies: bool) -> None:
    assert dealer_qualifies(hand(cards)) is qualifies
    assert dealer_qualifies(cards.split()) is qualifies


# --- Every outcome kind --------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SEED_ODDS))
@pytest.mark.parametrize("cat", [c for c in Category if c >= C.ACE_KING])
def test_win_pays_ante_even_and_raise_at_seed_odds(name: str, cat: Category) -> None:
    variant = VARIANTS[name]
    ante = 1_000
    n = SEED_ODDS[name][cat]
    out = main_outcome(variant, ante, True, hand(PLAYER[cat]), hand(DEALER_AK))
    assert out.kind is Outcome.WIN
    assert out.net == ante + 2 * ante * n
    # Stakes back (ante + raise) plus winnings.
    assert out.returned == 3 * ante + ante + 2 * ante * n
    assert out.odds is not None and out.odds.pays(2 * ante) == 2 * ante * n
    assert settle_main(variant, ante, True, hand(PLAYER[cat]), hand(DEALER_AK)) == out.net


def test_win_literal_amounts_casino_stud() -> None:
    v = VARIANTS["casino-stud"]
    dealer = hand(DEALER_AK)
    # $5 ante, $10 raise: flush pays $5 + 6 x $10 = $65; royal $5 + $1000.
    assert settle_main(v, 500, True, hand(PLAYER[C.FLUSH]), dealer) == 6_500
    assert settle_main(v, 500, True, hand(PLAYER[C.ROYAL_FLUSH]), dealer) == 100_500
    assert settle_main(v, 500, True, hand(PLAYER[C.ONE_PAIR]), dealer) == 1_500


def test_fractional_odds_round_down() -> None:
    three_two = load_variants(EXAMPLE)["three-two"]
    # One pair at 3:2: a raise of 6 pays 9.
    out = main_outcome(three_two, 3, True, hand(PLAYER[C.ONE_PAIR]), hand(DEALER_AK))
    assert out.net == 3 + 9
    assert out.returned == 9 + 12
    # 4:3 on a raise of 2 cents is 2.67 cents: the player gets 2, never a fraction.
    table = dict(VARIANTS["stud-poker"].raise_paytable) | {C.ONE_PAIR: Odds(4, 3)}
    four_three = Variant("four-three", "4:3", table, {}, folded_collects_progressive=False)
    out = main_outcome(four_three, 1, True, hand(PLAYER[C.ONE_PAIR]), hand(DEALER_AK))
    assert out.net == 1 + 2
    assert out.returned == 3 + 3


@pytest.mark.parametrize("cat", list(Category))
def test_dealer_not_qualified_pays_ante_only(cat: Category) -> None:
    ante = 700
    for variant in ALL_VARIANTS:
        out = main_outcome(variant, ante, True, hand(PLAYER[cat]), hand(DEALER_NO_HAND))
        assert out.kind is Outcome.NO_QUALIFY
        assert out.net == ante
        assert out.returned == 2 * ante + 2 * ante
        assert out.odds is None


def test_bermuda_seed_example() -> None:
    # "Your ante is $20 ... Raise ... The dealer fails to qualify ... You are up $20."
    out = main_outcome(
        VARIANTS["bermuda"], 2_000, True, hand(PLAYER[C.ONE_PAIR]), hand(DEALER_NO_HAND)
    )
    assert out.kind is Outcome.NO_QUALIFY
    assert out.net == 2_000


def test_player_below_no_hand_dealer_still_wins_ante() -> None:
    # "you can win, even if you have no qualifying hand": K-high vs Q-high dealer,
    # and even a lower hand, since the dealer does not play.
    v = VARIANTS["casino-stud"]
    assert settle_main(v, 100, True, hand("7c 5d 4h 3c 2s"), hand(DEALER_NO_HAND)) == 100


@pytest.mark.parametrize("cat", [c for c in Category if c < C.ROYAL_FLUSH])
def test_lose_costs_ante_and_raise(cat: Category) -> None:
    ante = 250
    dealer = hand("Ah Kh Qh Jh Th")
    for variant in ALL_VARIANTS:
        out = main_outcome(variant, ante, True, hand(PLAYER[cat]), dealer)
        assert out.kind is Outcome.LOSE
        assert out.net == -3 * ante
        assert out.returned == 0


def test_casino_stud_seed_kicker_example() -> None:
    # "Dealer - 10, 10, A, 7, 2 / Player - 10, 10, A, 5, 3: The Dealer wins as the 7
    # outranks the 5."
    dealer = hand("Tc Td Ah 7s 2c")
    player = hand("Th Ts Ad 5c 3d")
    assert settle_main(VARIANTS["casino-stud"], 1_000, True, player, dealer) == -3_000
    assert settle_main(VARIANTS["casino-stud"], 1_000, True, dealer, player) == 1_000 + 2_000


@pytest.mark.parametrize(
    ("player", "dealer"),
    [
        ("Jc Jd 4h 8s 2c", "Jh Js 4d 8c 2h"),  # same pair, same kickers
        ("As Ks Qs Js Ts", "Ah Kh Qh Jh Th"),  # royal vs royal: suits never break ties
        ("As Kd 9h 6c 3s", "Ah Kc 9d 6s 3h"),  # ace-king tie
        ("5c 4d 3h 2s Ad", "5h 4c 3d 2h Ac"),  # wheel vs wheel
    ],
)
def test_exact_tie_pushes(player: str, dealer: str) -> None:
    ante = 900
    for variant in ALL_VARIANTS:
        out = main_outcome(variant, ante, True, hand(player), hand(dealer))
        assert out.kind is Outcome.PUSH
        assert out.net == 0
        assert out.returned == 3 * ante


@pytest.mark.parametrize("dealer", [DEALER_AK, DEALER_NO_HAND, "Ah Kh Qh Jh Th"])
@pytest.mark.parametrize("cat", [C.HIGH_CARD, C.ONE_PAIR, C.ROYAL_FLUSH])
def test_fold_loses_the_ante(cat: Category, dealer: str) -> None:
    for variant in ALL_VARIANTS:
        out = main_outcome(variant, 1_234, False, hand(PLAYER[cat]), hand(dealer))
        assert out == MainOutcome(Outcome.FOLD, 1_234, 0, returned=0)
        assert out.net == -1_234
        assert out.staked == 1_234


def test_accepts_cards_as_well_as_values() -> None:
    v = VARIANTS["stud-poker"]
    p, d = PLAYER[C.FLUSH], DEALER_AK
    by_value = main_outcome(v, 100, True, hand(p), hand(d))
    assert main_outcome(v, 100, True, p.split(), d.split()) == by_value
    cards: Sequence[Card] = [Card.parse(t) for t in p.split()]
    assert main_outcome(v, 100, True, cards, hand(d)) == by_value
    with pytest.raises(TypeError):
        main_outcome(v, 100, True, "KdJd9d6d3d", d.split())


@pytest.mark.parametrize("ante", [0, -100, True, 1.5, "100", None])
def test_bad_ante_is_refused(ante: object) -> None:
    with pytest.raises(ValueError):
        settle_main(VARIANTS["bermuda"], ante, True, hand(DEALER_AK), hand(DEALER_AK))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        raise_amount(ante)  # type: ignore[arg-type]


def test_raise_is_twice_the_ante() -> None:
    assert raise_amount(1) == 2
    assert raise_amount(2_500) == 5_000
    out = main_outcome(VARIANTS["bermuda"], 2_500, True, hand(DEALER_AK), hand(DEALER_AK))
    assert out.raise_cents == 5_000


def test_raised_must_be_bool() -> None:
    with pytest.raises(TypeError):
        settle_main(VARIANTS["bermuda"], 1, 1, hand(DEALER_AK), hand(DEALER_AK))  # type: ignore[arg-type]


# --- Properties ----------------------------------------------------------------

ten_cards = st.permutations(DECK).map(lambda deck: deck[:10])


@given(
    variant=st.sampled_from(ALL_VARIANTS),
    ante=st.integers(1, 10**9),
    raised=st.booleans(),
    cards=ten_cards,
)
def test_settlement_invariants(
    variant: Variant, ante: int, raised: bool, cards: Sequence[Card]
) -> None:
    player, dealer = evaluate(cards[:5]), evaluate(cards[5:])
    out = main_outcome(variant, ante, raised, player, dealer)
    stake = ante + (2 * ante if raised else 0)
    assert type(out.net) is int and type(out.returned) is int
    assert out.returned >= 0
    assert out.returned - stake == out.net
    assert out.staked == stake
    max_win = ante + max(odds.pays(2 * ante) for odds in variant.raise_paytable.values())
    assert -3 * ante <= out.net <= max_win
    assert settle_main(variant, ante, raised, player, dealer) == out.net

    # The rules, restated independently of the implementation's branches.
    if not raised:
        assert (out.kind, out.net) == (Outcome.FOLD, -ante)
    elif dealer.category < C.ACE_KING:
        assert (out.kind, out.net) == (Outcome.NO_QUALIFY, ante)
    elif player == dealer:
        assert (out.kind, out.net) == (Outcome.PUSH, 0)
    elif player < dealer:
        assert (out.kind, out.net) == (Outcome.LOSE, -3 * ante)
    else:
        assert out.kind is Outcome.WIN
        assert out.net == ante + variant.raise_odds(player.category).pays(2 * ante)
        assert out.net >= 2 * ante  # every paytable line pays at least 1:2 on the raise


@given(variant=st.sampled_from(ALL_VARIANTS), ante=st.integers(1, 10**9), cards=ten_cards)
def test_swapping_a_win_gives_a_full_loss(
    variant: Variant, ante: int, cards: Sequence[Card]
) -> None:
    a, b = evaluate(cards[:5]), evaluate(cards[5:])
    # Symmetric only when either side would qualify as the dealer; ties push.
    assume(dealer_qualifies(a) and dealer_qualifies(b) and a != b)
    high, low = (a, b) if a > b else (b, a)
    win = main_outcome(variant, ante, True, high, low)
    assert win.kind is Outcome.WIN and win.net > 0
    loss = main_outcome(variant, ante, True, low, high)
    assert loss.kind is Outcome.LOSE and loss.net == -3 * ante


# --- Progressive ---------------------------------------------------------------

# Seed amounts: (category, prize) pairs; casino-stud uses stud-poker's (decided).
STUD_PRIZES = {
    C.FLUSH: Prize.fixed(5_000),
    C.FULL_HOUSE: Prize.fixed(10_000),
    C.FOUR_OF_A_KIND: Prize.fixed(50_000),
    C.STRAIGHT_FLUSH: Prize.percent(1_000),
    C.ROYAL_FLUSH: Prize.percent(10_000),
}
BERMUDA_PRIZES = {
    C.FLUSH: Prize.fixed(10_000),
    C.FULL_HOUSE: Prize.fixed(15_000),
    C.FOUR_OF_A_KIND: Prize.fixed(25_000),
    C.STRAIGHT_FLUSH: Prize.percent(1_000),
    C.ROYAL_FLUSH: Prize.percent(10_000),
}


@pytest.mark.parametrize(
    ("name", "prizes", "folded_collects"),
    [
        ("stud-poker", STUD_PRIZES, True),
        ("casino-stud", STUD_PRIZES, False),
        ("bermuda", BERMUDA_PRIZES, True),
    ],
)
@pytest.mark.parametrize("cat", list(Category))
def test_progressive_prize(
    name: str, prizes: dict[Category, Prize], folded_collects: bool, cat: Category
) -> None:
    variant = VARIANTS[name]
    value = hand(PLAYER[cat])
    assert progressive_prize(variant, value, folded=False) == prizes.get(cat)
    expected_folded = prizes.get(cat) if folded_collects else None
    assert progressive_prize(variant, value, folded=True) == expected_folded
    assert progressive_prize(variant, PLAYER[cat].split(), folded=False) == prizes.get(cat)


def test_progressive_folded_must_be_bool() -> None:
    with pytest.raises(TypeError):
        progressive_prize(VARIANTS["bermuda"], hand(DEALER_AK), folded=None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("meter", "bp", "claim"),
    [
        (1_000_000, 10_000, 1_000_000),
        (1_000_000, 1_000, 100_000),
        (1_234_567, 1_000, 123_456),  # 123456.7 -> down to the cent
        (99, 1_000, 9),
        (9, 1_000, 0),
        (0, 10_000, 0),
        (12_345, 1_250, 1_543),  # 1543.125
        (5, 0, 0),
    ],
)
def test_percent_claim(meter: int, bp: int, claim: int) -> None:
    assert percent_claim(meter, bp) == claim


@pytest.mark.parametrize(
    ("stake", "bp", "share"),
    [(100, 5_000, 50), (100, 1_500, 15), (99, 3_333, 32), (1, 9_999, 0), (500, 10_000, 500)],
)
def test_contribution(stake: int, bp: int, share: int) -> None:
    assert contribution(stake, bp) == share


@pytest.mark.parametrize(
    ("amount", "bp"), [(-1, 100), (100, -1), (100, 10_001), (1.0, 100), (100, 50.0), (True, 1)]
)
def test_percent_claim_and_contribution_refuse_bad_input(amount: object, bp: object) -> None:
    with pytest.raises(ValueError):
        percent_claim(amount, bp)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        contribution(amount, bp)  # type: ignore[arg-type]


@given(amount=st.integers(0, 10**15), bp=st.integers(0, 10_000))
def test_percent_claim_and_contribution_floor(amount: int, bp: int) -> None:
    for f in (percent_claim, contribution):
        got = f(amount, bp)
        assert type(got) is int
        assert 0 <= got <= amount
        # Exactly the floor: got <= amount * bp / 10000 < got + 1.
        assert got * 10_000 <= amount * bp < (got + 1) * 10_000
    assert percent_claim(amount, 10_000) == amount
    assert percent_claim(amount, 0) == 0
