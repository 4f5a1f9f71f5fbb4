"""The hand evaluator against the rules, a slow reference, treys, and the full deck."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
from array import array
from collections import Counter
from collections.abc import Sequence
from itertools import combinations, combinations_with_replacement, pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st
from treys import Card as TCard
from treys import Evaluator

from server.game.cards import DECK, Card
from server.game.categories import Category
from server.game.evaluator import HandValue, evaluate

C = Category

# ---------------------------------------------------------------------------
# A slow reference, written straight from the rules and sharing no code or
# tables with the evaluator.

#: Kinds of hand in the order of the rules, weakest first. A high-card hand
#: holding an ace and a king is still a high-card hand for ordering.
RULE_ORDER = [
    "high card",
    "one pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
    "royal flush",
]

Reference = tuple[int, tuple[int, ...], str]


def reference(cards: Sequence[Card]) -> Reference:
    """(kind in RULE_ORDER, tie-break ranks, category name) of five distinct cards."""
    assert len(cards) == 5 and len(set(cards)) == 5
    ranks = sorted((card.rank for card in cards), reverse=True)
    flush = len({card.suit for card in cards}) == 1
    counts = Counter(ranks)
    # Group ranks: bigger groups first, then higher rank first.
    grouped = sorted(counts, key=lambda rank: (counts[rank], rank), reverse=True)
    shape = sorted(counts.values(), reverse=True)

    tie: tuple[int, ...]
    straight_top = None
    if shape == [1, 1, 1, 1, 1]:
        if ranks[0] - ranks[4] == 4:
            straight_top = ranks[0]
        elif ranks == [12, 3, 2, 1, 0]:  # A-5-4-3-2: the ace plays low
            straight_top = 3

    if flush and straight_top == 12:
        kind, tie = "royal flush", (12,)
    elif flush and straight_top is not None:
        kind, tie = "straight flush", (straight_top,)
    elif shape == [4, 1]:
        kind, tie = "four of a kind", tuple(grouped)
    elif shape == [3, 2]:
        kind, tie = "full house", tuple(grouped)
    elif flush:
        kind, tie = "flush", tuple(ranks)
    elif straight_top is not None:
        kind, tie = "straight", (straight_top,)
    elif shape == [3, 1, 1]:
        kind, tie = "three of a kind", tuple(grouped)
    elif shape == [2, 2, 1]:
        kind, tie = "two pair", tuple(grouped)
    elif shape == [2, 1, 1, 1]:
        kind, tie = "one pair", tuple(grouped)
    else:
        kind, tie = "high card", tuple(ranks)

    name = kind.upper().replace(" ", "_")
    if kind == "high card" and 12 in ranks and 11 in ranks:
        name = "ACE_KING"
    return RULE_ORDER.index(kind), tie, name


def reference_order(cards: Sequence[Card]) -> tuple[int, tuple[int, ...]]:
    kind, tie, _ = reference(cards)
    return kind, tie


def sign(x: int) -> int:
    return (x > 0) - (x < 0)


def cards(text: str) -> list[Card]:
    return [Card.parse(t) for t in text.split()]


def value(text: str) -> HandValue:
    return evaluate(text.split())


TREYS: dict[Card, int] = {card: TCard.new(card.text) for card in DECK}


def treys_strength(hand: Sequence[Card]) -> int:
    """treys ranks 1 (royal) ... 7462 (7-5-4-3-2); ours count up from 0."""
    return 7462 - int(Evaluator().evaluate([TREYS[c] for c in hand], []))


hands = st.lists(st.sampled_from(DECK), min_size=5, max_size=5, unique=True)


# ---------------------------------------------------------------------------
# Every hand in the deck.

EXPECTED_COUNTS = {
    C.ROYAL_FLUSH: 4,
    C.STRAIGHT_FLUSH: 36,
    C.FOUR_OF_A_KIND: 624,
    C.FULL_HOUSE: 3_744,
    C.FLUSH: 5_108,
    C.STRAIGHT: 10_200,
    C.THREE_OF_A_KIND: 54_912,
    C.TWO_PAIR: 123_552,
    C.ONE_PAIR: 1_098_240,
    C.ACE_KING: 167_280,
    C.HIGH_CARD: 1_302_540 - 167_280,
}


def test_ace_king_count_from_first_principles() -> None:
    # Three more ranks from deuce..queen, not making A-K-Q-J-T (a straight),
    # in any suits except all five alike (a flush).
    rank_sets = sum(1 for r in combinations(range(11), 3) if set(r) != {8, 9, 10})
    assert rank_sets * (4**5 - 4) == EXPECTED_COUNTS[C.ACE_KING]
    assert sum(EXPECTED_COUNTS.values()) == 2_598_960


def test_every_hand_in_the_deck() -> None:
    """All 2,598,960 hands: category counts, 7,462 values, reference and treys agree."""
    counts: dict[HandValue, int] = {}
    strengths = array("H")
    by_pattern: dict[tuple[tuple[int, ...], bool], Reference] = {}
    mismatches: list[tuple[str, ...]] = []
    for hand in combinations(DECK, 5):
        v = evaluate(hand)
        counts[v] = counts.get(v, 0) + 1
        strengths.append(v.strength)
        # The reference depends on ranks and flushness only: compute it once per pattern.
        a, b, c, d, e = hand
        pattern = (
            (a.rank, b.rank, c.rank, d.rank, e.rank),
            a.suit == b.suit == c.suit == d.suit == e.suit,
        )
        ref = by_pattern.get(pattern)
        if ref is None:
            ref = by_pattern[pattern] = reference(hand)
        if ref[2] != v.category.name or ref[1] != v.ranks:
            mismatches.append(tuple(card.text for card in hand))
    assert mismatches == []

    per_category = Counter[Category]()
    for v, n in counts.items():
        per_category[v.category] += n
    assert dict(per_category) == EXPECTED_COUNTS
    assert len(counts) == 7_462
    assert sorted(v.strength for v in counts) == list(range(7_462))
    assert len(by_pattern) == 6_175 + 1_287  # rank multisets + flush rank sets

    # treys, an independent implementation, over the same hands in the same order.
    treys_five = [TREYS[card] for card in DECK]
    treys_eval = Evaluator().evaluate
    board: list[int] = []
    disagree = sum(
        ours != 7462 - treys_eval(list(hand), board)
        for ours, hand in zip(strengths, combinations(treys_five, 5), strict=True)
    )
    assert disagree == 0


def test_value_order_matches_the_rules() -> None:
    """Sorted by strength, the reference's order strictly increases: one value per tie class."""
    examples: dict[HandValue, tuple[Card, ...]] = {}
    for ranks in combinations_with_replacement(range(13), 5):
        if len(set(ranks)) == 1:
            continue  # five of a rank cannot be dealt
        copies: Counter[int] = Counter()
        hand = []
        for r in ranks:  # the k-th card of a rank gets suit k
            hand.append(DECK[4 * r + copies[r]])
            copies[r] += 1
        if len(set(ranks)) == 5:
            flush = tuple(hand)
            examples.setdefault(evaluate(flush), flush)
            hand[-1] = DECK[4 * ranks[-1] + 1]
        examples.setdefault(evaluate(hand), tuple(hand))
    assert len(examples) == 7_462
    ordered = sorted(examples, key=lambda v: v.strength)
    keys = [reference_order(examples[v]) for v in ordered]
    assert all(x < y for x, y in pairwise(keys))
    assert ordered[0].strength == 0 and ordered[0].ranks == (5, 3, 2, 1, 0)
    assert ordered[-1].strength == 7_461 and ordered[-1].category is C.ROYAL_FLUSH
    # Every ACE_KING above every plain HIGH_CARD, below every pair.
    ak = [v.strength for v in ordered if v.category is C.ACE_KING]
    high = [v.strength for v in ordered if v.category is C.HIGH_CARD]
    pair = [v.strength for v in ordered if v.category is C.ONE_PAIR]
    assert len(ak) == 164 and max(high) < min(ak) and max(ak) < min(pair)


# ---------------------------------------------------------------------------
# Written-out cases.


def test_wheel_is_the_lowest_straight() -> None:
    wheel = value("Ac 2d 3h 4s 5c")
    six_high = value("2d 3h 4s 5c 6d")
    assert wheel.category is C.STRAIGHT and wheel.ranks == (3,)
    assert wheel < six_high
    assert wheel > value("Ac Ad Ah Ks Qc")  # still beats any three of a kind
    steel = value("Ah 2h 3h 4h 5h")
    assert steel.category is C.STRAIGHT_FLUSH
    assert steel < value("2h 3h 4h 5h 6h")
    assert steel > value("Ac Ad Ah As Kc")


def test_broadway_straights() -> None:
    broadway = value("Ac Kd Qh Js Tc")
    assert broadway.category is C.STRAIGHT and broadway > value("Kd Qh Js Tc 9c")
    royal = value("Ad Kd Qd Jd Td")
    assert royal.category is C.ROYAL_FLUSH and royal.ranks == (12,)
    assert royal.strength == 7_461 and royal.label == "Royal Flush"
    assert value("Kd Qd Jd Td 9d").category is C.STRAIGHT_FLUSH
    assert royal == value("Ts Js Qs Ks As")  # suits never break ties
    assert value("Qd Kd Ad 2d 3d").category is C.FLUSH  # no wrap-around straight
    assert value("Qd Kh Ad 2d 3d").category is C.ACE_KING


def test_kicker_decides_equal_pairs() -> None:
    dealer = value("Tc Td As 7h 2c")
    player = value("Th Ts Ad 5c 3d")
    assert dealer.category is player.category is C.ONE_PAIR
    assert dealer > player
    assert dealer.ranks == (8, 12, 5, 0) and player.ranks == (8, 12, 3, 1)
    assert value("Tc Td As 7h 3c") > dealer  # the last kicker counts too


def test_exact_tie_is_equal_whatever_the_suits() -> None:
    a = value("Kc Kd 9h 7s 2c")
    b = value("Kh Ks 9c 7d 2d")
    assert a == b and not a < b and not a > b and a <= b and a >= b
    assert a is b and hash(a) == hash(b)
    assert value("Ac Jc 8c 6c 2c") == value("Ad Jd 8d 6d 2d")


def test_two_pair_compares_high_pair_low_pair_kicker() -> None:
    base = value("Kc Kd 4h 4s 9c")
    assert base.ranks == (11, 2, 7)
    assert base.label == "Two Pair, Kings and Fours"
    assert value("Qc Qd Jh Js Ac") < base  # high pair first
    assert value("Kh Ks 5c 5d 2c") > base  # then the low pair
    assert value("Kh Ks 4c 4d Tc") > base  # then the kicker
    assert value("Kh Ks 4c 4d 9d") == base


def test_groups_before_kickers() -> None:
    assert value("3c 3d 3h 2s 4c") > value("2c 2d Ah Ks Qc")  # trips beat two pair
    assert value("5c 5d 5h 2s 2c") < value("5s 5c 5d 3s 3c")  # full house: trips, then pair
    assert value("6c 6d 6h 2s 2d") > value("5c 5d 5h As Ac")
    quads = value("9c 9d 9h 9s 2d")
    assert quads.ranks == (7, 0) and quads < value("9c 9d 9h 9s 3d")
    assert value("Kh Ks Kd 4c 4d").label == "Full House, Kings over Fours"


def test_ace_king() -> None:
    ak = value("As Kd 9h 6c 3s")
    assert ak.category is C.ACE_KING and ak.category.name == "ACE_KING"
    assert value("Ah Kc 4d 3s 2h").category is C.ACE_KING
    assert ak > value("Ah Kc 4d 3s 2h")
    aq = value("As Qd Jh 9c 8s")
    assert aq.category is C.HIGH_CARD and aq < value("Ah Kc 4d 3s 2h")
    assert value("Ks Qd Jh 9c 7s").category is C.HIGH_CARD
    assert value("As Kd Kh 6c 3s").category is C.ONE_PAIR
    assert value("As Ks 9s 6s 3s").category is C.FLUSH


def test_strings_and_cards_mixed() -> None:
    mixed: list[Card | str] = [Card.parse("As"), "Kd", DECK[0], "10h", Card.parse("7c")]
    assert evaluate(mixed) is value("As Kd 2c Th 7c")
    assert evaluate(("as", "KD", "2C", "Th", " 7c ")) is value("As Kd 2c Th 7c")
    assert evaluate(iter(cards("As Kd 2c Th 7c"))) is value("As Kd 2c Th 7c")


@pytest.mark.parametrize(
    ("hand", "message"),
    [
        (["As", "Kd", "Qh", "Jc"], "exactly five cards, got 4"),
        (["As", "Kd", "Qh", "Jc", "Tc", "9c"], "exactly five cards, got 6"),
        ([], "exactly five cards, got 0"),
        (None, "exactly five cards, got NoneType"),
        (["As", "Kd", "Qh", "Jc", "1x"], "not a card: '1x'"),
        (["As", "Kd", "Qh", "Jc", None], "not a card: None"),
        (["As", "Kd", "Qh", "Jc", 51], "not a card: 51"),
        (["As", "Kd", "Qh", "Jc", "As"], "duplicate card in hand: As"),
        (["As", "As", "As", "As", "As"], "duplicate card in hand: As"),
        (["As", "Ks", "Qs", "Js", "Ks"], "duplicate card in hand: Ks"),  # all one suit
        (["Ac", "Ad", "Ah", "As", "Ac"], "duplicate card in hand: Ac"),  # five aces
        (["Kh", "Kd", "2c", "3c", "Kh"], "duplicate card in hand: Kh"),
    ],
)
def test_bad_hands_raise(hand: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        evaluate(hand)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    ["As Ks Qs Js Ks", "Ac Ad Ah As Ac", "Kh Kd 2c 3c Kh", "2c 2c 3d 4h 5s", "9d 8d 7d 9d 6d"],
)
def test_duplicate_card_objects_raise(text: str) -> None:
    with pytest.raises(ValueError, match="duplicate card"):
        evaluate(cards(text))


@given(hands, st.sampled_from(list(combinations(range(5), 2))))
def test_a_repeated_card_anywhere_raises(hand: list[Card], positions: tuple[int, int]) -> None:
    i, j = positions
    hand[j] = hand[i]
    with pytest.raises(ValueError, match=f"duplicate card in hand: {hand[i].text}"):
        evaluate(hand)
    with pytest.raises(ValueError, match="duplicate card"):
        evaluate([card.text for card in hand])


# ---------------------------------------------------------------------------
# HandValue as an object.


def test_hand_value_object() -> None:
    v = value("Kh Ks Kd 4c 4d")
    assert HandValue.of(v.strength) is v
    assert pickle.loads(pickle.dumps(v)) is v
    assert copy.copy(v) is v and copy.deepcopy(v) is v
    assert "FULL_HOUSE" in repr(v) and str(v) == v.label
    with pytest.raises(AttributeError):
        v.strength = 0
    for bad in (-1, 7_462, 1.0):
        with pytest.raises(ValueError):
            HandValue.of(bad)  # type: ignore[arg-type]
    assert v != "Full House" and v != v.strength
    with pytest.raises(TypeError):
        _ = v < 3


def test_labels() -> None:
    assert value("7c 5d 4h 3s 2c").label == "High Card, Seven high"
    assert value("As Kd 9h 6c 3s").label == "Ace-King, Nine kicker"
    assert value("Tc Td As 7h 2c").label == "One Pair, Tens"
    assert value("6c 6d 6h As 2c").label == "Three of a Kind, Sixes"
    assert value("Ac 2d 3h 4s 5c").label == "Straight, Five high"
    assert value("Kd Jd 9d 6d 3d").label == "Flush, King high"
    assert value("Ac Ad Ah As 2c").label == "Four of a Kind, Aces"
    assert value("Tc 9c 8c 7c 6c").label == "Straight Flush, Ten high"
    for v in (HandValue.of(s) for s in range(7_462)):
        assert v.label.startswith(v.category.label)


def test_server_game_imports_without_numpy() -> None:
    code = (
        "import sys; import server.game; from server.game.evaluator import evaluate; "
        "evaluate('As Ks Qs Js Ts'.split()); assert 'numpy' not in sys.modules, 'numpy loaded'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------------------
# Properties.


@given(hands)
def test_matches_reference_and_treys(hand: list[Card]) -> None:
    v = evaluate(hand)
    _, tie, name = reference(hand)
    assert (v.category.name, v.ranks) == (name, tie)
    assert v.strength == treys_strength(hand)


@given(hands, hands)
def test_comparison_is_a_total_order_consistent_with_strength(a: list[Card], b: list[Card]) -> None:
    x, y = evaluate(a), evaluate(b)
    expected = sign(
        (reference_order(a) > reference_order(b)) - (reference_order(a) < reference_order(b))
    )
    assert sign(x.strength - y.strength) == expected
    assert [x < y, x == y, x > y].count(True) == 1
    assert (x < y) == (y > x) == (not x >= y) == (x.strength < y.strength)
    assert (x <= y) == (y >= x) == (not x > y)
    assert (x == y) == (x is y) == (hash(x) == hash(y)) == (x.strength == y.strength)
    assert (x != y) is not (x == y)


@given(hands, st.permutations(range(5)))
def test_order_of_cards_does_not_matter(hand: list[Card], order: list[int]) -> None:
    v = evaluate(hand)
    assert evaluate([hand[i] for i in order]) is v
    assert evaluate(tuple(hand[i].text for i in order)) is v
