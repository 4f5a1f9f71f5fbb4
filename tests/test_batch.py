"""Vectorized strengths against the scalar evaluator, over every hand in the deck."""

from __future__ import annotations

from itertools import chain, combinations
from math import comb

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.game import batch
from server.game.batch import evaluate_many, strength_category
from server.game.cards import DECK, Card
from server.game.evaluator import HandValue, evaluate
from tests.test_evaluator import EXPECTED_COUNTS, reference

HANDS = 2_598_960


def strength(text: str) -> int:
    return evaluate(text.split()).strength


@pytest.fixture(scope="module")
def all_hands() -> npt.NDArray[np.uint8]:
    """Every hand as sorted card indexes, in lexicographic order."""
    flat = chain.from_iterable(combinations(range(52), 5))
    return np.fromiter(flat, dtype=np.uint8, count=5 * HANDS).reshape(HANDS, 5)


@pytest.fixture(scope="module")
def scalar_strengths() -> npt.NDArray[np.uint16]:
    """`evaluate` over the same hands in the same order."""
    values = (v.strength for v in map(evaluate, combinations(DECK, 5)))
    return np.fromiter(values, dtype=np.uint16, count=HANDS)


def test_every_hand_matches_evaluate(
    all_hands: npt.NDArray[np.uint8], scalar_strengths: npt.NDArray[np.uint16]
) -> None:
    expected = scalar_strengths
    assert np.array_equal(evaluate_many(all_hands, presorted=True), expected)
    assert np.array_equal(evaluate_many(all_hands), expected)
    columns = np.ascontiguousarray(all_hands.T)
    assert np.array_equal(evaluate_many(columns, columns=True, presorted=True), expected)
    # Every order of the five cards in a row goes through the sorting network.
    rng = np.random.default_rng(7)
    shuffled = rng.permuted(all_hands, axis=1)
    assert not np.array_equal(shuffled, all_hands)
    assert np.array_equal(evaluate_many(shuffled), expected)
    assert np.array_equal(evaluate_many(shuffled.T, columns=True, check=False), expected)
    assert np.array_equal(evaluate_many(shuffled.astype(np.int64)), expected)

    categories = np.bincount(strength_category(expected), minlength=11)
    assert {c: int(categories[c]) for c in EXPECTED_COUNTS} == EXPECTED_COUNTS


def test_reference_over_every_hand(
    all_hands: npt.NDArray[np.uint8], scalar_strengths: npt.NDArray[np.uint16]
) -> None:
    """The slow reference once per distinct strength, at a hand the deck gives it."""
    strengths, first = np.unique(scalar_strengths, return_index=True)
    assert len(strengths) == 7_462
    for strength, row in zip(strengths.tolist(), first.tolist(), strict=True):
        hand = [DECK[i] for i in all_hands[row].tolist()]
        v = HandValue.of(strength)
        assert reference(hand)[1:] == (v.ranks, v.category.name)


def test_table_is_indexed_by_colex_number() -> None:
    table = batch.strength_table()
    assert table.shape == (batch.hand_count(),) == (HANDS,) and table.dtype == np.uint16
    assert not table.flags.writeable
    for text in ("2c 3c 4c 5c 6c", "As Ks Qs Js Ts", "7d 5c 4h 3s 2c", "Kh Ks Kd 4c 4d"):
        cards = sorted(Card.parse(t).index for t in text.split())
        number = sum(comb(c, k) for k, c in enumerate(cards, start=1))
        assert table[number] == strength(text)
    assert table[0] == strength("2c 2d 2h 2s 3c")  # the five lowest indexes
    assert table[-1] == strength("Ks Ac Ad Ah As")  # the five highest


def test_strength_category() -> None:
    strengths = np.arange(7_462, dtype=np.uint16)
    expected = [HandValue.of(s).category for s in range(7_462)]
    assert strength_category(strengths).tolist() == expected
    assert strength_category([7_461, 0]).tolist() == [10, 0]
    with pytest.raises(ValueError, match="out of range"):
        strength_category([7_462])
    with pytest.raises(ValueError, match="out of range"):
        strength_category([-1])


def test_out_parameter_and_empty_input() -> None:
    hands = np.array([[0, 1, 2, 3, 4], [51, 47, 43, 39, 35]], dtype=np.uint8)
    out = np.zeros(2, np.uint16)
    assert evaluate_many(hands, out=out) is out
    assert out.tolist() == [strength("2c 2d 2h 2s 3c"), strength("As Ks Qs Js Ts")]
    assert evaluate_many(np.empty((0, 5), np.uint8)).shape == (0,)
    assert evaluate_many(np.empty((5, 0), np.int32), columns=True).shape == (0,)
    with pytest.raises(ValueError, match="out must be"):
        evaluate_many(hands, out=np.zeros(3, np.uint16))
    with pytest.raises(ValueError, match="out must be"):
        evaluate_many(hands, out=np.zeros(2, np.int64))


@pytest.mark.parametrize(
    ("rows", "options", "message"),
    [
        ([[0, 1, 2, 3, 52]], {}, "out of range 0..51 in row 0"),
        ([[0, 1, 2, 3, 4], [-1, 1, 2, 3, 4]], {}, "out of range 0..51 in row 1"),
        ([[0, 1, 2, 3, 4], [0, 1, 2, 3, 300]], {}, "out of range 0..51 in row 1"),
        (np.array([[0, 1, 2, 3, 4], [9, 1, 2, 3, 60]], np.uint8), {}, "out of range"),
        (
            np.array([[0, 1, 2, 3, 60]], np.uint8),
            {"presorted": True},
            "out of range 0..51 in row 0",
        ),
        ([[0, 1, 2, 3, 4], [5, 9, 5, 6, 7]], {}, "duplicate card in row 1"),
        ([[5, 5, 6, 7, 8]], {"presorted": True}, "duplicate card in row 0"),
        ([[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]], {"presorted": True}, "row 1 is not sorted"),
        ([[0, 1, 2, 3]], {}, r"shape \(N, 5\)"),
        ([0, 1, 2, 3, 4], {}, r"shape \(N, 5\)"),
        ([[0, 1, 2, 3, 4]], {"columns": True}, r"shape \(5, N\)"),
        ([[0.0, 1, 2, 3, 4]], {}, "must be integers"),
    ],
)
def test_bad_input_raises(rows: object, options: dict[str, bool], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        evaluate_many(rows, **options)  # type: ignore[arg-type]


def test_unchecked_bad_input_stays_in_bounds() -> None:
    bad = np.array([[255, 254, 253, 252, 251], [7, 7, 7, 7, 7]], np.uint8)
    result = evaluate_many(bad, check=False)
    assert result.dtype == np.uint16 and (result <= 7_461).all()


hand_rows = st.lists(
    st.lists(st.integers(0, 51), min_size=5, max_size=5, unique=True), min_size=1, max_size=50
)


@given(hand_rows, st.sampled_from([np.uint8, np.int16, np.int64, np.uint32]))
def test_random_rows_match_evaluate(rows: list[list[int]], dtype: type[np.integer]) -> None:
    expected = [evaluate([DECK[i] for i in row]).strength for row in rows]
    array = np.array(rows, dtype=dtype)
    assert evaluate_many(array).tolist() == expected
    assert evaluate_many(array.T, columns=True).tolist() == expected
    assert evaluate_many(np.sort(array, axis=1), presorted=True).tolist() == expected
