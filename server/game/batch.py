"""Hand strengths for many hands at once, with numpy (simulations, analysis).

`evaluate_many` gives the same numbers as `evaluate(...).strength`, from one
table holding all 2,598,960 hands by colexicographic combination number:
for sorted cards c0 < c1 < c2 < c3 < c4 that is
C(c0,1) + C(c1,2) + C(c2,3) + C(c3,4) + C(c4,5). The table (5.2 MB) is built
on first use, vectorized, from the scalar evaluator's own tables, so the two
cannot disagree by construction of a second rule set.

The index takes two gathers rather than five: the first three cards, packed
6 bits each into one number, look up C(c0,1) + C(c1,2) + C(c2,3) in a 2^18
table; the last two look up C(c3,4) + C(c4,5) in a 2^12 one. Unsorted rows are
sorted with a 9-comparator sorting network of `np.minimum`/`np.maximum` over the
five columns, far cheaper than `np.sort(axis=1)` on short rows.

numpy is needed here only: `server.game` and `evaluate` never import it.
"""

from __future__ import annotations

import threading
from math import comb
from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt

from server.game.evaluator import strength_tables

__all__ = ["evaluate_many", "hand_count", "strength_category", "strength_table"]

Strengths = npt.NDArray[np.uint16]
_U8 = npt.NDArray[np.uint8]

_HANDS: Final = comb(52, 5)
#: A sorting network for five inputs (9 comparators, depth 5).
_NETWORK: Final = ((0, 1), (3, 4), (2, 4), (2, 3), (0, 3), (0, 2), (1, 4), (1, 3), (1, 2))


class _Tables(NamedTuple):
    strength: Strengths  # by colex number, 2,598,960 entries
    first3: npt.NDArray[np.int32]  # by c0 | c1 << 6 | c2 << 12
    last2: npt.NDArray[np.int32]  # by c3 | c4 << 6
    category: _U8  # by strength


_tables: _Tables | None = None
_lock = threading.Lock()


def hand_count() -> int:
    """How many five-card hands there are (the length of `strength_table()`)."""
    return _HANDS


def strength_table() -> Strengths:
    """Strength of every hand by colex number (read-only; built on first call)."""
    return _get_tables().strength


def evaluate_many(
    cards: npt.ArrayLike,
    *,
    presorted: bool = False,
    columns: bool = False,
    check: bool = True,
    out: Strengths | None = None,
) -> Strengths:
    """Strength (0 ... 7461) of each hand in an array of card indices (`Card.index`).

    `cards` is an integer array of shape (N, 5), one hand per row, or with
    `columns=True` of shape (5, N), one hand per column; the column layout is
    faster because each card position is contiguous (rows are copied into
    columns first). uint8 input is fastest (other integer types are converted).
    `presorted=True` promises each hand is already in ascending order and skips
    the sort.

    `check=True` raises ValueError for an index outside 0..51, a duplicate card,
    or (with `presorted`) a hand that is not sorted. It compares neighbouring
    columns once the hands are sorted: about 0.4 ms per million uint8 hands,
    some 5% of a call (plus a min/max pass when the input is not uint8).
    With `check=False` bad input gives meaningless strengths, but never reads
    outside the tables.
    """
    array = np.asarray(cards)
    if array.dtype.kind not in "iu":
        raise ValueError(f"card indices must be integers, not {array.dtype}")
    if array.ndim != 2 or array.shape[0 if columns else 1] != 5:
        want = "(5, N)" if columns else "(N, 5)"
        raise ValueError(f"cards must have shape {want}, got {array.shape}")
    n = array.shape[1 if columns else 0]
    if out is None:
        out = np.empty(n, np.uint16)
    elif out.shape != (n,) or out.dtype != np.uint16:
        raise ValueError(f"out must be a uint16 array of shape ({n},)")
    if n == 0:
        return out
    # Range-check wider types before the cast to uint8 can wrap -1 to 255.
    if check and array.dtype != np.uint8 and (array.min() < 0 or array.max() > 51):
        row = _first_bad_range(array, columns)
        raise ValueError(f"card index out of range 0..51 in row {row}")
    if not columns:
        # One copy into contiguous columns pays for itself: every later pass
        # (network, check, packing) then reads contiguous memory.
        array = array.T
    array = array.astype(np.uint8, order="C", copy=False)
    cols = [array[k] for k in range(5)]
    if not presorted:
        cols = _sort_columns(cols)
    if check:
        _check_sorted(cols, presorted)
    tables = _get_tables()
    c0, c1, c2, c3, c4 = cols
    first3 = np.left_shift(c2, 12, dtype=np.uint32)
    first3 |= np.left_shift(c1, 6, dtype=np.uint32)
    first3 |= c0
    last2 = np.left_shift(c4, 6, dtype=np.uint16)
    last2 |= c3
    # mode="clip" skips numpy's per-element error branch: indices are in range
    # after the check, and with check=False the result is wrong but memory-safe.
    index = np.take(tables.first3, first3, mode="clip")
    index += np.take(tables.last2, last2, mode="clip")
    np.take(tables.strength, index, out=out, mode="clip")
    return out


def strength_category(strengths: npt.ArrayLike) -> _U8:
    """The `Category` value (0 ... 10) of each strength, as uint8."""
    array = np.asarray(strengths)
    if array.dtype.kind not in "iu":
        raise ValueError(f"strengths must be integers, not {array.dtype}")
    table = _get_tables().category
    if array.size and (array.min() < 0 or array.max() >= len(table)):
        raise ValueError(f"strength out of range 0..{len(table) - 1}")
    return np.take(table, array)


def _sort_columns(cols: list[_U8]) -> list[_U8]:
    for i, j in _NETWORK:
        cols[i], cols[j] = np.minimum(cols[i], cols[j]), np.maximum(cols[i], cols[j])
    return cols


def _check_sorted(cols: list[_U8], presorted: bool) -> None:
    ok = cols[0] < cols[1]
    for k in range(1, 4):
        ok &= cols[k] < cols[k + 1]
    ok &= cols[4] <= 51
    if ok.all():
        return
    row = int(np.argmin(ok))
    hand = [int(c[row]) for c in cols]
    if max(hand) > 51:
        raise ValueError(f"card index out of range 0..51 in row {row}")
    if len(set(hand)) < 5:
        raise ValueError(f"duplicate card in row {row}")
    raise ValueError(f"row {row} is not sorted ascending ({hand}) but presorted=True")


def _first_bad_range(array: npt.NDArray[np.integer], columns: bool) -> int:
    bad = (array < 0) | (array > 51)
    return int(np.argmax(bad.any(axis=0 if columns else 1)))


def _get_tables() -> _Tables:
    global _tables
    if _tables is None:
        with _lock:
            if _tables is None:
                _tables = _build_tables()
    return _tables


def _colex_hands() -> list[_U8]:
    """The five sorted columns of every hand, in colex order (row i has number i).

    The colex order of k-subsets of range(m) is a prefix of that of range(n), so
    level k is level k-1's prefixes with each possible new largest card appended.
    """
    cols: list[_U8] = [np.arange(52, dtype=np.uint8)]
    for k in range(2, 6):
        sizes = [comb(m, k - 1) for m in range(k - 1, 52)]
        total = sum(sizes)
        cols = [np.concatenate([col[:size] for size in sizes]) for col in cols]
        cols.append(np.repeat(np.arange(k - 1, 52, dtype=np.uint8), sizes))
        assert len(cols[-1]) == total
    return cols


def _build_tables() -> _Tables:
    scalar = strength_tables()
    cols = _colex_hands()
    ranks = [col >> 2 for col in cols]
    rank_keys = np.array(scalar.rank_keys, np.int32)
    key = rank_keys[ranks[0]]
    for r in ranks[1:]:
        key += rank_keys[r]
    strength = np.take(np.array(scalar.plain, np.int16), key)
    suit = cols[0] & 3
    flush = (cols[1] & 3) == suit
    for col in cols[2:]:
        flush &= (col & 3) == suit
    bits = np.zeros(int(flush.sum()), np.int16)
    for r in ranks:
        bits |= np.left_shift(1, r[flush], dtype=np.int16)
    strength[flush] = np.take(np.array(scalar.flush, np.int16), bits)
    if strength.min() < 0:  # pragma: no cover - a broken scalar table
        raise AssertionError("a hand without a strength")
    table = strength.astype(np.uint16)

    c = [np.array([comb(card, k) for card in range(64)], np.int32) for k in range(1, 6)]
    first3 = (c[2][:, None, None] + c[1][None, :, None] + c[0][None, None, :]).ravel()
    last2 = (c[4][:, None] + c[3][None, :]).ravel()
    category = np.array(scalar.category, np.uint8)
    for array in (table, first3, last2, category):
        array.flags.writeable = False
    return _Tables(table, first3, last2, category)
