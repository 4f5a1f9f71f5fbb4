"""Exact odds of a variant: every player hand against every dealer hand, no simulation.

The counting does not depend on the paytable, so it runs once per process
(`enumeration()`, cached) and `analyze` only applies a variant's odds to it.

Counting. For a player hand P and a dealer up card u the dealer holds u plus
four of the 46 other unseen cards: C(46,4) = 163,185 completions. A decision
needs how many of them do not qualify, qualify and lose to P, tie, beat P.
Inclusion-exclusion over P's cards gives them from counts of hands that merely
*contain* a small card set:

    #(hands holding u, none of P) = sum over S in P, |S| <= 4, of (-1)^|S| #(hands holding u + S)

(|S| = 5 would be six cards). For |S| <= 3 the counts come from cumulative
histograms `C_T[s]` = hands holding the set T with strength < s. Their value
depends on T only up to a permutation of suits, so there is one row per suit
class of T: 13, 169, 1,755 and 16,432 rows for 1- to 4-card sets, about 160 MB
in all, stored strength-major so that player hands of equal strength read the
same memory. The 4-subsets of P with u are single hands, evaluated directly.

Symmetry. A five-card hand is represented by the sorted tuple of its per-suit
rank masks: 134,459 classes, each weighted by its size, each against all 47
up cards: 6.3 million (class, up card) pairs instead of 122 million. The
optimal decision is then a table of 134,459 x 52 bits.

Everything is integer counts; the final figures are `Fraction`s. A paytable
line N:M is applied as the exact ratio (the engine's round-down to the cent is
not modelled).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations, permutations
from math import comb
from types import MappingProxyType
from typing import Any, Final, NamedTuple

import numpy as np
import numpy.typing as npt

from server.game.batch import evaluate_many
from server.game.cards import Card, to_card, to_cards
from server.game.categories import Category
from server.game.evaluator import evaluate, strength_tables
from server.game.settlement import QUALIFYING_CATEGORY, RAISE_MULTIPLE
from server.game.variants import FULL_BP, Variant

__all__ = [
    "COMPLETIONS",
    "HANDS",
    "UP_CARDS",
    "Enumeration",
    "OddsReport",
    "OutcomeCounts",
    "Strategy",
    "analyze",
    "enumeration",
    "format_report",
    "report_json",
]

_I64 = npt.NDArray[np.int64]
_I32 = npt.NDArray[np.int32]
_U8 = npt.NDArray[np.uint8]
_Table = npt.NDArray[np.integer[Any]]

#: Five-card hands in a deck.
HANDS: Final = comb(52, 5)
#: Up cards a player hand can face.
UP_CARDS: Final = 47
#: The dealer's four hidden cards for one (player hand, up card).
COMPLETIONS: Final = comb(46, 4)

_CATEGORY_OF: Final = np.array(strength_tables().category, np.uint8)
_STRENGTHS: Final = len(_CATEGORY_OF)
#: The weakest qualifying strength: categories are contiguous blocks of strength.
_QUALIFY: Final = int(np.searchsorted(_CATEGORY_OF, int(QUALIFYING_CATEGORY)))
if np.any(np.diff(_CATEGORY_OF.astype(np.int16)) < 0):  # pragma: no cover
    raise AssertionError("hand strengths are not grouped by category")
_BINOM: Final = [np.array([comb(c, k) for c in range(52)], np.int64) for k in range(6)]
_CARD = np.arange(52, dtype=np.int64)
#: Each card's contribution to the rank mask of each suit.
_SUIT_BIT: Final = np.zeros((4, 52), np.int64)
_SUIT_BIT[_CARD & 3, _CARD] = 1 << (_CARD >> 2)
#: Bound on the histogram band built at once while making a cumulative table.
_BAND_CELLS: Final = 1 << 23
#: Player classes per vectorized step of the counting (x 47 up cards).
_CLASS_BLOCK: Final = 2048


class OutcomeCounts(NamedTuple):
    """The dealer's 163,185 completions for one (player hand, up card), by result."""

    no_qualify: int
    win: int
    tie: int
    lose: int


def _class_key(masks: Sequence[npt.NDArray[np.integer[Any]]]) -> _I64:
    """The four suit masks sorted high to low, 13 bits each: equal iff suit-isomorphic."""
    m = [np.asarray(x, np.int64) for x in masks]
    for i, j in ((0, 1), (2, 3), (0, 2), (1, 3), (1, 2)):
        m[i], m[j] = np.maximum(m[i], m[j]), np.minimum(m[i], m[j])
    return (m[0] << 39) | (m[1] << 26) | (m[2] << 13) | m[3]


def _all_sets(k: int) -> list[_I64]:
    """Every k-card set as k sorted columns, in colex order (row i has colex number i)."""
    cols: list[_I64] = [_CARD.copy()]
    for j in range(2, k + 1):
        sizes = [comb(m, j - 1) for m in range(j - 1, 52)]
        cols = [np.concatenate([col[:size] for size in sizes]) for col in cols]
        cols.append(np.repeat(np.arange(j - 1, 52, dtype=np.int64), sizes))
    return cols


def _or_masks(cols: Sequence[_I64]) -> list[_I64]:
    """Per-suit rank masks of sets given as columns of card indices (broadcastable)."""
    masks = []
    for bit in _SUIT_BIT:
        mask = bit[cols[0]]
        for col in cols[1:]:
            mask = mask | bit[col]
        masks.append(mask)
    return masks


def _set_keys(cols: Sequence[_I64]) -> _I64:
    return _class_key(_or_masks(cols))


class _SetClasses(NamedTuple):
    """The suit classes of k-card sets and how to find the class of any set."""

    keys: _I64  # sorted class keys: class id = position
    of_set: _I64  # class id of each set, by colex number
    representative: npt.NDArray[np.bool_]  # one set per class (its lowest colex number)
    by_tuple: npt.NDArray[np.uint16]  # class id by the flat index of an ordered k-tuple


def _set_classes(k: int) -> _SetClasses:
    sets = _all_sets(k)
    classes, first, inverse = np.unique(_set_keys(sets), return_index=True, return_inverse=True)
    representative = np.zeros(len(inverse), np.bool_)
    representative[first] = True
    # Every ordering of every set; a tuple that repeats a card is never looked up.
    by_tuple = np.zeros(52**k, np.uint16)
    for ordering in permutations(sets):
        flat = np.zeros(len(inverse), np.int64)
        for col in ordering:
            flat = flat * 52 + col
        by_tuple[flat] = inverse
    return _SetClasses(classes, inverse.astype(np.int64), representative, by_tuple)


def _subset_indices(cols: Sequence[_I64], k: int) -> Iterator[_I64]:
    """Colex number of each k-subset of each sorted hand (one array per subset position)."""
    for subset in combinations(range(5), k):
        index = np.zeros(len(cols[0]), np.int64)
        for j, c in enumerate(subset):
            index += _BINOM[j + 1][cols[c]]
        yield index


def _cumulative(
    cols: Sequence[_I64], strength: _I64, bounds: _I64, k: int, classes: _SetClasses
) -> _Table:
    """C[s, c]: hands holding the class-c representative k-set with strength < s.

    `cols`/`strength` are every hand sorted by strength; `bounds[s]` is where
    strength s starts. Built a band of strengths at a time to bound the int64
    histogram; stored in the smallest integer type the counts fit.
    """
    n = len(classes.keys)
    most = comb(52 - k, 5 - k)
    dtype = np.uint8 if most < 1 << 8 else np.uint16 if most < 1 << 16 else np.int32
    out = np.zeros((_STRENGTHS + 1, n), dtype)
    step = max(1, _BAND_CELLS // n)
    for s0 in range(0, _STRENGTHS, step):
        s1 = min(s0 + step, _STRENGTHS)
        lo, hi = int(bounds[s0]), int(bounds[s1])
        part = [c[lo:hi] for c in cols]
        row = (strength[lo:hi] - s0) * n
        pieces = []
        for index in _subset_indices(part, k):
            keep = classes.representative[index]
            pieces.append(row[keep] + classes.of_set[index[keep]])
        hist = np.bincount(np.concatenate(pieces), minlength=(s1 - s0) * n)
        out[s0 + 1 : s1 + 1] = np.cumsum(hist.reshape(s1 - s0, n), axis=0) + out[s0]
    return out


def _canonical(cards: tuple[Card, ...]) -> tuple[int, list[int]]:
    """Class key of a hand and the suit relabelling that maps it onto its representative."""
    masks = [0, 0, 0, 0]
    for card in cards:
        masks[card.suit] |= card.bit
    order = sorted(range(4), key=lambda s: masks[s], reverse=True)
    relabel = [0] * 4
    key = 0
    for new, old in enumerate(order):
        relabel[old] = new
        key |= masks[old] << (13 * (3 - new))
    return key, relabel


@dataclass(frozen=True, eq=False)
class Enumeration:
    """Outcome counts of every (player hand class, up card), independent of any paytable.

    Row i is the suit class with key `keys[i]` (sorted); its representative is
    `cards[i]`, the hand whose suit masks are in descending order, and
    `weights[i]` hands belong to it. Column j is the j-th card not in
    `cards[i]` in index order (`up[i, j]`).
    """

    keys: _I64
    weights: _I64
    cards: _U8
    strength: _I64
    category: _U8
    up: _U8
    no_qualify: _I32
    win: _I32
    tie: _I32
    seconds: float

    @property
    def lose(self) -> _I32:
        return COMPLETIONS - self.no_qualify - self.win - self.tie

    def locate(self, player: Iterable[Card | str], up: Card | str) -> tuple[int, int]:
        """(class row, up-card column) of a concrete player hand and up card."""
        hand = to_cards(player)
        card = to_card(up)
        if len(hand) != 5 or len({c.index for c in hand}) != 5:
            raise ValueError("a player hand is five distinct cards")
        if card in hand:
            raise ValueError(f"the up card {card} is in the player's hand")
        key, relabel = _canonical(hand)
        row = int(np.searchsorted(self.keys, key))
        if row >= len(self.keys) or int(self.keys[row]) != key:  # pragma: no cover
            raise AssertionError(f"no class for {[c.text for c in hand]}")
        mapped = 4 * card.rank + relabel[card.suit]
        column = mapped - int(np.count_nonzero(self.cards[row] < mapped))
        return row, column

    def outcome_counts(self, player: Iterable[Card | str], up: Card | str) -> OutcomeCounts:
        """How the 163,185 dealer completions fall for this player hand and up card."""
        row, col = self.locate(player, up)
        nq, win, tie = (int(a[row, col]) for a in (self.no_qualify, self.win, self.tie))
        return OutcomeCounts(nq, win, tie, COMPLETIONS - nq - win - tie)


_cached: Enumeration | None = None
_lock = threading.Lock()


def enumeration() -> Enumeration:
    """The shared counts, computed on first use and kept for the process."""
    global _cached
    if _cached is None:
        with _lock:
            if _cached is None:
                _cached = _enumerate()
    return _cached


def _enumerate() -> Enumeration:
    """Classes, cumulative tables, then the counts; the tables are dropped at the end."""
    start = time.perf_counter()
    hands = _all_sets(5)
    as_u8 = np.stack(hands).astype(np.uint8)
    strength = evaluate_many(as_u8, columns=True, presorted=True).astype(np.int64)
    del as_u8

    # Player classes: hands with the same multiset of suit masks.
    keys, weights = np.unique(_set_keys(hands), return_counts=True)
    shifts = np.arange(13, dtype=np.int64)
    present = np.stack(
        [(keys[:, None] >> (13 * (3 - s) + shifts)) & 1 for s in range(4)], axis=-1
    ).reshape(len(keys), 52)
    cards = np.nonzero(present)[1].reshape(-1, 5).astype(np.uint8)
    up = np.nonzero(present == 0)[1].reshape(-1, UP_CARDS).astype(np.uint8)
    class_strength = evaluate_many(cards, presorted=True).astype(np.int64)

    # Cumulative tables of dealer hands by strength, per suit class of 1- to 4-card sets.
    order = np.argsort(strength, kind="stable")
    by_strength = strength[order]
    sorted_cols = [c[order] for c in hands]
    bounds = np.searchsorted(by_strength, np.arange(_STRENGTHS + 1))
    del hands, order, strength
    levels = []
    for k in (1, 2, 3, 4):
        classes = _set_classes(k)
        table = _cumulative(sorted_cols, by_strength, bounds, k, classes)
        levels.append(_Level(k, table, classes.by_tuple))
    del sorted_cols, by_strength

    nq, win, tie = _count(levels, cards, class_strength, up)
    return Enumeration(
        keys=keys.astype(np.int64),
        weights=weights.astype(np.int64),
        cards=cards,
        strength=class_strength,
        category=_CATEGORY_OF[class_strength],
        up=up,
        no_qualify=nq,
        win=win,
        tie=tie,
        seconds=time.perf_counter() - start,
    )


class _Level(NamedTuple):
    """Inclusion-exclusion level: sets of u plus k - 1 player cards."""

    k: int
    table: _Table  # (strength + 1, classes) cumulative counts
    by_tuple: npt.NDArray[np.uint16]


def _count(levels: list[_Level], cards: _U8, strength: _I64, up: _U8) -> tuple[_I32, _I32, _I32]:
    """Inclusion-exclusion counts for every (class, up card), weakest classes first."""
    shape = (len(cards), UP_CARDS)
    out_nq = np.empty(shape, np.int32)
    out_win = np.zeros(shape, np.int32)
    out_tie = np.zeros(shape, np.int32)
    flat = [lv.table.ravel() for lv in levels]
    below = [lv.table[_QUALIFY].astype(np.int32) for lv in levels]
    order = np.argsort(strength, kind="stable")
    for a in range(0, len(order), _CLASS_BLOCK):
        rows = order[a : a + _CLASS_BLOCK]
        player = cards[rows].astype(np.int64)
        u = up[rows].astype(np.int64).ravel()
        s = np.repeat(strength[rows], UP_CARDS)
        # Only a qualifying player hand can win or tie against a qualifying dealer.
        ranked = bool(strength[rows].max() >= _QUALIFY)
        nq = np.zeros(len(u), np.int32)
        lt = np.zeros(len(u), np.int32)  # dealer weaker than the player
        le = np.zeros(len(u), np.int32)  # weaker or equal
        for level, table, counts_below in zip(levels, flat, below, strict=True):
            k, n = level.k, level.table.shape[1]
            add = np.add if k % 2 == 1 else np.subtract
            lead = u * 52 ** (k - 1)
            row_lt = s * n
            for subset in combinations(range(5), k - 1):
                rest = np.zeros(len(rows), np.int64)
                for j in subset:
                    rest = rest * 52 + player[:, j]
                cls = level.by_tuple[lead + np.repeat(rest, UP_CARDS)].astype(np.int64)
                add(nq, counts_below[cls], out=nq)
                if ranked:
                    at = row_lt + cls
                    add(lt, table[at], out=lt, casting="unsafe")
                    add(le, table[at + n], out=le, casting="unsafe")
        # |S| = 4: the five hands "u + four of P", each a single hand.
        p = [np.repeat(player[:, i], UP_CARDS) for i in range(5)]
        direct = np.stack([np.stack([p[j] for j in range(5) if j != i] + [u]) for i in range(5)])
        d = evaluate_many(direct.transpose(1, 0, 2).reshape(5, -1), columns=True, check=False)
        d = d.reshape(5, -1).astype(np.int64)
        nq += (d < _QUALIFY).sum(axis=0, dtype=np.int32)
        out_nq[rows] = nq.reshape(-1, UP_CARDS)
        if ranked:
            lt += (d < s).sum(axis=0, dtype=np.int32)
            le += (d <= s).sum(axis=0, dtype=np.int32)
            qualified = s >= _QUALIFY
            win = np.where(qualified, lt - nq, 0)
            tie = np.where(qualified, le - lt, 0)
            if win.min() < 0 or tie.min() < 0:  # pragma: no cover - a counting bug
                raise AssertionError("inclusion-exclusion gave a negative count")
            out_win[rows] = win.reshape(-1, UP_CARDS)
            out_tie[rows] = tie.reshape(-1, UP_CARDS)
    if out_nq.min() < 0 or (out_nq + out_win + out_tie).max() > COMPLETIONS:  # pragma: no cover
        raise AssertionError("inclusion-exclusion gave an impossible count")
    return out_nq, out_win, out_tie


@dataclass(frozen=True, eq=False)
class Strategy:
    """The optimal raise/fold decision of one variant for every hand and up card.

    `raise_bits[i]` has bit c set when the class-i representative should raise
    against up card index c (a fold when raising has exactly the fold's value).
    """

    counts: Enumeration
    variant: Variant
    raise_bits: npt.NDArray[np.uint64]

    def should_raise(self, player_cards: Iterable[Card | str], up_card: Card | str) -> bool:
        """True when raising beats folding for this hand against this up card."""
        row, column = self.counts.locate(player_cards, up_card)
        card = int(self.counts.up[row, column])
        return bool((int(self.raise_bits[row]) >> card) & 1)

    def raise_value(self, player_cards: Iterable[Card | str], up_card: Card | str) -> Fraction:
        """The raise's exact expected net in antes (a fold is -1): the reason for a decision."""
        hand = to_cards(player_cards)
        nq, win, _, lose = self.counts.outcome_counts(hand, up_card)
        odds = self.variant.raise_odds(evaluate(hand).category)
        r = RAISE_MULTIPLE
        paid = 1 + Fraction(r * odds.numerator, odds.denominator)
        return (nq + win * paid - (1 + r) * lose) / COMPLETIONS


@dataclass(frozen=True, eq=False)
class OddsReport:
    """Exact figures of one variant under optimal play (all in antes unless named)."""

    variant: str
    title: str
    #: P(dealer's five cards qualify), over all hands.
    dealer_qualifies: Fraction
    #: The player's expected net result per ante (negative: the house wins).
    ante_return: Fraction
    house_edge_ante: Fraction
    #: House edge per unit of total money bet (ante + raise).
    element_of_risk: Fraction
    raise_probability: Fraction
    average_total_bet: Fraction
    #: P(player's five cards are of the category), same for the dealer.
    category_frequency: Mapping[Category, Fraction]
    #: Share of (hand, up card) deals of each category that raise.
    raise_fraction: Mapping[Category, Fraction]
    #: P(the progressive pays that category's prize) under the strategy.
    progressive_hit: Mapping[Category, Fraction]
    progressive_stake_cents: int
    #: Progressive return per unit staked = fixed + per_meter_cent * meter_cents.
    progressive_fixed: Fraction
    progressive_per_meter_cent: Fraction
    #: Meter (cents) at which the progressive returns its stake; None if no percent prize.
    progressive_break_even_cents: Fraction | None
    seconds: float
    #: Time the shared enumeration took when it was built (maybe by an earlier call).
    enumeration_seconds: float
    strategy: Strategy = field(repr=False)

    @property
    def player_edge(self) -> bool:
        """The paytable loses the house money against optimal play."""
        return self.house_edge_ante < 0

    def progressive_return(self, meter_cents: int, stake_cents: int | None = None) -> Fraction:
        """Expected progressive payout per unit staked at this meter (1 = break-even).

        Fixed prizes scale with 1/stake, percent prizes with meter/stake: a table
        with another stake than the variant's gets its own figure.
        """
        scale = Fraction(self.progressive_stake_cents, stake_cents or self.progressive_stake_cents)
        return scale * (self.progressive_fixed + self.progressive_per_meter_cent * meter_cents)


def analyze(variant: Variant) -> OddsReport:
    """The exact odds of `variant` with the ante game played optimally."""
    start = time.perf_counter()
    counts = enumeration()
    r = RAISE_MULTIPLE
    num = np.array([variant.raise_odds(c).numerator for c in Category], np.int64)
    den = np.array([variant.raise_odds(c).denominator for c in Category], np.int64)
    n = num[counts.category][:, None]
    m = den[counts.category][:, None]
    nq = counts.no_qualify.astype(np.int64)
    win = counts.win.astype(np.int64)
    lose = COMPLETIONS - nq - win - counts.tie
    # Raise value x M x COMPLETIONS, against the fold's -1 ante (ties pay 0).
    value = m * nq + (m + r * n) * win - (1 + r) * m * lose
    raised = value > -m * COMPLETIONS
    del value

    bits = np.zeros(len(raised), np.uint64)
    for j in range(UP_CARDS):
        bits |= np.where(
            raised[:, j], np.left_shift(np.uint64(1), counts.up[:, j], dtype=np.uint64), 0
        )
    strategy = Strategy(counts, variant, bits)

    w = counts.weights
    per_class = {
        "raised": raised.sum(axis=1),
        "nq": np.where(raised, nq, 0).sum(axis=1),
        "win": np.where(raised, win, 0).sum(axis=1),
        "lose": np.where(raised, lose, 0).sum(axis=1),
    }
    deals = HANDS * UP_CARDS
    total_value = Fraction(0)
    raised_deals = 0
    freq: dict[Category, Fraction] = {}
    raise_share: dict[Category, Fraction] = {}
    raised_by_cat: dict[Category, int] = {}
    for cat in Category:
        sel = counts.category == int(cat)
        ws = w[sel]
        hands = int(ws.sum())
        sums = {k: int((ws * v[sel]).sum()) for k, v in per_class.items()}
        odds = variant.raise_odds(cat)
        total_value += (
            sums["nq"]
            + sums["win"] * (1 + Fraction(r * odds.numerator, odds.denominator))
            - (1 + r) * sums["lose"]
            - (hands * UP_CARDS - sums["raised"]) * COMPLETIONS
        )
        raised_deals += sums["raised"]
        raised_by_cat[cat] = sums["raised"]
        freq[cat] = Fraction(hands, HANDS)
        raise_share[cat] = Fraction(sums["raised"], hands * UP_CARDS) if hands else Fraction(0)

    ante_return = total_value / (deals * COMPLETIONS)
    raise_probability = Fraction(raised_deals, deals)
    average_bet = 1 + r * raise_probability
    house_edge = -ante_return

    hit: dict[Category, Fraction] = {}
    fixed = Fraction(0)
    per_meter = Fraction(0)
    stake = variant.progressive_stake_cents
    for cat, prize in variant.progressive.items():
        if variant.folded_collects_progressive:
            hit[cat] = freq[cat]
        else:
            hit[cat] = Fraction(raised_by_cat[cat], deals)
        if prize.fixed_cents is not None:
            fixed += hit[cat] * Fraction(prize.fixed_cents, stake)
        elif prize.percent_bp is not None:
            per_meter += hit[cat] * Fraction(prize.percent_bp, FULL_BP * stake)
    break_even = (1 - fixed) / per_meter if per_meter else None

    return OddsReport(
        variant=variant.name,
        title=variant.title,
        dealer_qualifies=sum(
            (f for c, f in freq.items() if c >= QUALIFYING_CATEGORY), start=Fraction(0)
        ),
        ante_return=ante_return,
        house_edge_ante=house_edge,
        element_of_risk=house_edge / average_bet,
        raise_probability=raise_probability,
        average_total_bet=average_bet,
        category_frequency=MappingProxyType(freq),
        raise_fraction=MappingProxyType(raise_share),
        progressive_hit=MappingProxyType(hit),
        progressive_stake_cents=stake,
        progressive_fixed=fixed,
        progressive_per_meter_cent=per_meter,
        progressive_break_even_cents=break_even,
        seconds=time.perf_counter() - start,
        enumeration_seconds=counts.seconds,
        strategy=strategy,
    )


def _exact(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def report_json(report: OddsReport) -> dict[str, Any]:
    """The report as JSON-ready data: fractions as floats, and exactly as "n/d" strings."""
    main = {
        "dealer_qualifies": report.dealer_qualifies,
        "house_edge_ante": report.house_edge_ante,
        "element_of_risk": report.element_of_risk,
        "ante_return": report.ante_return,
        "raise_probability": report.raise_probability,
        "average_total_bet": report.average_total_bet,
    }
    be = report.progressive_break_even_cents
    return {
        "variant": report.variant,
        **{k: float(v) for k, v in main.items()},
        "categories": {
            c.name: {
                "frequency": float(report.category_frequency[c]),
                "raised": float(report.raise_fraction[c]),
            }
            for c in Category
        },
        "progressive": {
            "stake_cents": report.progressive_stake_cents,
            "fixed_return": float(report.progressive_fixed),
            "return_per_meter_cent": float(report.progressive_per_meter_cent),
            "break_even_meter_cents": None if be is None else float(be),
            "hit": {c.name: float(p) for c, p in report.progressive_hit.items()},
        },
        "exact": {k: _exact(v) for k, v in main.items()},
        "seconds": round(report.seconds, 3),
        "enumeration_seconds": round(report.enumeration_seconds, 3),
    }


def _pct(x: Fraction, places: int = 4) -> str:
    return f"{float(x) * 100:.{places}f}%"


def _dollars(cents: Fraction) -> str:
    return f"${float(cents) / 100:,.2f}"


def format_report(report: OddsReport) -> str:
    """Human text: the headline figures, the strategy by category, the progressive."""
    lines = [
        f"{report.title} ({report.variant}): exact, by full enumeration",
        f"  dealer qualifies (ace-king or better)  {_pct(report.dealer_qualifies)}",
        f"  house edge per ante                    {_pct(report.house_edge_ante)}",
        f"  element of risk (per total bet)        {_pct(report.element_of_risk)}",
        f"  raise probability (optimal play)       {_pct(report.raise_probability)}",
        f"  average total bet                      {float(report.average_total_bet):.6f} antes",
    ]
    if report.player_edge:
        lines.append("  WARNING: the player has the edge: this paytable loses the house money")
    lines.append("  category            frequency    raised")
    for cat in sorted(Category, reverse=True):
        lines.append(
            f"    {cat.label:<16}{_pct(report.category_frequency[cat]):>12}"
            f"{_pct(report.raise_fraction[cat], 2):>10}"
        )
    stake = _dollars(Fraction(report.progressive_stake_cents))
    lines.append(f"  progressive ({stake} stake), return per stake:")
    lines.append(
        f"    {float(report.progressive_fixed):.6f}"
        f" + {float(report.progressive_per_meter_cent) * 100:.4e} x meter in dollars"
    )
    be = report.progressive_break_even_cents
    if be is None:
        lines.append("    no percent prize: the return does not depend on the meter")
    elif be <= 0:
        lines.append("    the player has the edge at any meter")
    else:
        lines.append(f"    break-even meter {_dollars(be)}")
    lines.append(f"  computed in {report.seconds:.2f} s")
    return "\n".join(lines)
