"""The bots' near-optimal rule, clause by clause and against a brute reading of it."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clients.strategy import is_ace_king, pair_or_better, parse_card, should_raise
from server.game.categories import Category
from server.game.evaluator import evaluate

ORDER = "23456789TJQKA"
DECK = [r + s for r in ORDER for s in "cdhs"]


def h(text: str) -> list[str]:
    return text.split()


@pytest.mark.parametrize(
    "hand",
    [
        "2c 2d 5h 9s Jd",  # one pair, the lowest
        "7c 7d 5h 5s Jd",  # two pair
        "9c 9d 9h 4s Jd",  # trips
        "Ah 2c 3d 4s 5h",  # the wheel
        "9h Tc Jd Qs Kh",  # straight
        "2h 5h 9h Jh Kh",  # flush, no pair
        "3c 3d 3h 8s 8d",  # full house
        "6h 7h 8h 9h Th",  # straight flush
    ],
)
@pytest.mark.parametrize("up", ["As", "Ks", "7c", "2s"])
def test_pair_or_better_always_raises(hand: str, up: str) -> None:
    if up in hand.split():
        up = "Qc" if "Qc" not in hand.split() else "Qd"
    assert should_raise(h(hand), up)


@pytest.mark.parametrize(
    ("hand", "up"),
    [
        ("Ah Qd 9c 5s 3h", "9d"),  # ace-queen high: below ace-king, even with a match
        ("Ah Qd Jc 5s 3h", "Ac"),  # ... even with a Q and J against an ace
        ("Kh Qd Jc 9s 3h", "3c"),  # king high
        ("Ad Kd 9c 5s 3h", "Kc"),  # ace-king, up K matches but K is not 2..Q, no Q/J
        ("Ad Kd 9c 5s 3h", "Ac"),  # the same with an ace up
        ("Ad Kd Jc 5s 3h", "7c"),  # a J only helps against A or K
        ("Ad Kd Qc 8s 3h", "9c"),  # a Q, but the up card is above the 4th-highest (8)
        ("Ad Kd Qc 8s 3h", "Tc"),
        ("Ad Kd 9c 5s 3h", "4d"),  # no Q, no match
        ("Ad Kd 9c 5s 3h", "2d"),  # no Q: a low up card alone is not enough
    ],
)
def test_folds(hand: str, up: str) -> None:
    assert not should_raise(h(hand), up)


@pytest.mark.parametrize(
    ("hand", "up"),
    [
        # clause 1: the up card 2..Q pairs one of ours
        ("Ad Kd 9c 5s 3h", "9s"),
        ("Ad Kd 9c 5s 2h", "2d"),
        ("Ad Kd Qc 5s 3h", "Qs"),
        ("Ad Kd Qc 8s 3h", "8d"),  # equal to the 4th-highest is a match, not "below"
        # clause 2: A or K up and we hold a Q or a J
        ("Ad Kd Jc 5s 3h", "As"),
        ("Ad Kd Jc 5s 3h", "Kc"),
        ("Ad Kd Qc 5s 3h", "Ac"),
        # clause 3: a Q and the up card below our 4th-highest card
        ("Ad Kd Qc 8s 3h", "6c"),
        ("Ad Kd Qc 8s 3h", "4c"),
        ("Ad Kd Qc Js 3h", "Tc"),  # 4th-highest is the J
    ],
)
def test_ace_king_raises(hand: str, up: str) -> None:
    assert should_raise(h(hand), up)


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError):
        should_raise(h("Ad Kd Qc 8s"), "2c")
    with pytest.raises(ValueError):
        should_raise(h("Ad Ad Qc 8s 3h"), "2c")
    with pytest.raises(ValueError):
        parse_card("1x")
    assert parse_card("10h") == parse_card("Th")


# --- a brute reading of the rule, written from the text rather than from the module -------


def brute_straight(hand: list[str]) -> bool:
    ranks = {c[0] for c in hand}
    windows = ["A2345"] + [ORDER[i : i + 5] for i in range(len(ORDER) - 4)]
    return any(ranks == set(w) for w in windows)


def brute_pair_or_better(hand: list[str]) -> bool:
    pair = any(a[0] == b[0] for a, b in combinations(hand, 2))
    flush = len({c[1] for c in hand}) == 1
    return pair or flush or brute_straight(hand)


def brute_should_raise(hand: list[str], up: str) -> bool:
    if brute_pair_or_better(hand):
        return True
    ranks = [c[0] for c in hand]
    if not ("A" in ranks and "K" in ranks):
        return False
    if up[0] in "23456789TJQ" and up[0] in ranks:
        return True
    if up[0] in "AK" and ("Q" in ranks or "J" in ranks):
        return True
    fourth = sorted(ranks, key=ORDER.index, reverse=True)[3]
    return "Q" in ranks and ORDER.index(up[0]) < ORDER.index(fourth)


six_cards = st.lists(st.sampled_from(DECK), min_size=6, max_size=6, unique=True)


@st.composite
def ace_king_deals(draw: st.DrawFn) -> tuple[list[str], str]:
    """Hands holding an A and a K (the only ones the clauses look at) and an up card."""
    ace = draw(st.sampled_from([c for c in DECK if c[0] == "A"]))
    king = draw(st.sampled_from([c for c in DECK if c[0] == "K"]))
    rest = [c for c in DECK if c not in (ace, king)]
    others = draw(st.lists(st.sampled_from(rest), min_size=4, max_size=4, unique=True))
    hand = [ace, king, *others[:3]]
    order = draw(st.permutations(hand))
    return list(order), others[3]


@settings(max_examples=2000)
@given(six_cards)
def test_matches_brute_rule_on_random_deals(cards: list[str]) -> None:
    hand, up = cards[:5], cards[5]
    assert should_raise(hand, up) == brute_should_raise(hand, up)


@settings(max_examples=2000)
@given(ace_king_deals())
def test_matches_brute_rule_on_ace_king_deals(deal: tuple[list[str], str]) -> None:
    hand, up = deal
    assert should_raise(hand, up) == brute_should_raise(hand, up)


@settings(max_examples=1000)
@given(six_cards)
def test_classifier_agrees_with_the_server_evaluator(cards: list[str]) -> None:
    hand = cards[:5]
    category = evaluate(hand).category
    assert pair_or_better(hand) == (category >= Category.ONE_PAIR)
    assert is_ace_king(hand) == (category is Category.ACE_KING)
