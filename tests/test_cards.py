"""Cards and the shuffle."""

from __future__ import annotations

import pickle
import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.game.cards import DECK, Card, shuffled_deck, to_cards


def test_every_card_parses_back_to_itself() -> None:
    assert len(DECK) == 52 and len(set(DECK)) == 52
    for card in DECK:
        assert Card.parse(str(card)) is card
        assert Card.of(card.index) is card
        assert pickle.loads(pickle.dumps(card)) is card
    assert str(Card.parse("As")) == "As"
    assert Card.parse("10h") is Card.parse("Th")
    assert Card.parse(" ks ") is Card.parse("Ks")


@pytest.mark.parametrize("bad", ["1x", "", "A", "Asx", "Zs", "Ax", "11h"])
def test_bad_cards_raise_value_error(bad: str) -> None:
    with pytest.raises(ValueError, match="not a card"):
        Card.parse(bad)


def test_no_53rd_card_can_be_made() -> None:
    with pytest.raises(TypeError):
        Card(0)


def test_non_strings_raise_value_error() -> None:
    with pytest.raises(ValueError):
        Card.parse(12)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Card.of(52)


def test_shuffle_is_fisher_yates_over_randbelow() -> None:
    calls: list[int] = []

    def lowest(n: int) -> int:
        calls.append(n)
        return 0

    deck = shuffled_deck(lowest)
    assert calls == list(range(52, 1, -1))  # randbelow(i + 1) for i = 51 .. 1
    # position i swaps with 0 for i = 51 .. 1: the old top card ends last,
    # and the others move up in order
    assert deck == [*DECK[1:], DECK[0]]


def test_identity_randbelow_leaves_the_deck_in_order() -> None:
    assert shuffled_deck(lambda n: n - 1) == list(DECK)


def test_a_randbelow_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError):
        shuffled_deck(lambda n: n)


@given(st.integers(0, 2**64))
def test_any_seed_gives_a_permutation(seed: int) -> None:
    rng = random.Random(seed)
    assert sorted(shuffled_deck(rng.randrange)) == sorted(DECK)


def test_default_shuffle_is_uniform_enough_on_the_top_card() -> None:
    # 5,200 crypto shuffles: each card tops the deck ~100 times; a biased
    # shuffle (e.g. swapping with any position) skews this far past the bound.
    tops = Counter(shuffled_deck()[0].index for _ in range(5_200))
    chi2 = sum((tops[i] - 100) ** 2 / 100 for i in range(52))
    assert chi2 < 110  # 51 degrees of freedom: p < 1e-6 of a false alarm


def test_to_cards_accepts_mixed_input() -> None:
    assert to_cards(["As", Card.parse("Kd")]) == (Card.parse("As"), Card.parse("Kd"))
