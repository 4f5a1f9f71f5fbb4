"""Five-card poker hand values by table lookup.

Every one of the 7,462 distinct hand values is built once, at import, as an
interned `HandValue`; `evaluate` only finds the right one. Rank patterns that
are not flushes are found by a sum of per-rank keys (`RANK_KEYS`), chosen so
that every multiset of five ranks has its own sum; flushes are found by the OR
of the five rank bits. No category logic runs per call and nothing is
allocated on the fast path.

Strength 0 is 7-5-4-3-2 offsuit and 7461 is a royal flush; equal strength means
a push (suits never break ties). The numbering equals 7462 minus the rank of
Cactus Kev's evaluator (and of treys, which follows it).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Final, NamedTuple, NoReturn

from server.game.cards import DECK, Card
from server.game.categories import Category

#: Per-rank keys (deuce first) whose sums over any five ranks, at most four of
#: a rank, are all distinct, and never equal five times one key (so a hand
#: holding a duplicate card cannot alias a real one). Found by a greedy search.
RANK_KEYS: Final[tuple[int, ...]] = (
    0,
    1,
    6,
    31,
    108,
    366,
    926,
    2286,
    5733,
    12905,
    27316,
    44676,
    94545,
)

_SINGULAR: Final = (
    "Two",
    "Three",
    "Four",
    "Five",
    "Six",
    "Seven",
    "Eight",
    "Nine",
    "Ten",
    "Jack",
    "Queen",
    "King",
    "Ace",
)
_PLURAL: Final = tuple(name + ("es" if name == "Six" else "s") for name in _SINGULAR)

_ACE: Final = 12
_KING: Final = 11
_FIVE: Final = 3


class HandValue:
    """The value of a five-card hand; compare values, never categories alone.

    `ranks` are rank numbers (0 = deuce ... 12 = ace) in the order ties are
    decided: group ranks first (quads, trips, pairs, high pair before low), then
    kickers high to low; a straight (flush) has only its top card, 3 for a wheel.
    There is exactly one object per value: use `HandValue.of(strength)` rather
    than building one.
    """

    __slots__ = ("_verify", "category", "label", "ranks", "strength")

    strength: int
    category: Category
    ranks: tuple[int, ...]
    label: str
    #: True when the rank pattern repeats a rank, so the cards that matched it
    #: may hide a duplicate card and must be checked; also True on `_INVALID`.
    _verify: bool

    def __init__(
        self, strength: int, category: Category, ranks: tuple[int, ...], label: str, verify: bool
    ) -> None:
        setter = object.__setattr__
        setter(self, "strength", strength)
        setter(self, "category", category)
        setter(self, "ranks", ranks)
        setter(self, "label", label)
        setter(self, "_verify", verify)

    @staticmethod
    def of(strength: int) -> HandValue:
        """The interned value with this strength (0 ... 7461)."""
        if type(strength) is not int or not 0 <= strength < len(_BY_STRENGTH):
            raise ValueError(f"hand strength must be an int in 0..{len(_BY_STRENGTH) - 1}")
        return _BY_STRENGTH[strength]

    def __setattr__(self, name: str, value: object) -> NoReturn:
        # Values are shared by every caller; mutating one would corrupt them all.
        raise AttributeError(f"HandValue is immutable (cannot set {name!r})")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"HandValue is immutable (cannot delete {name!r})")

    def __reduce__(self) -> tuple[object, tuple[int]]:
        # Unpickling and copying give back the interned object.
        return (HandValue.of, (self.strength,))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, HandValue):
            return self.strength == other.strength
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        if isinstance(other, HandValue):
            return self.strength != other.strength
        return NotImplemented

    def __lt__(self, other: object) -> bool:
        if isinstance(other, HandValue):
            return self.strength < other.strength
        return NotImplemented

    def __le__(self, other: object) -> bool:
        if isinstance(other, HandValue):
            return self.strength <= other.strength
        return NotImplemented

    def __gt__(self, other: object) -> bool:
        if isinstance(other, HandValue):
            return self.strength > other.strength
        return NotImplemented

    def __ge__(self, other: object) -> bool:
        if isinstance(other, HandValue):
            return self.strength >= other.strength
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.strength)

    def __repr__(self) -> str:
        return (
            f"HandValue(strength={self.strength}, category={self.category.name}, "
            f"label={self.label!r})"
        )

    def __str__(self) -> str:
        return self.label


# ---------------------------------------------------------------------------
# Tables, built once.


def _classify(ranks: tuple[int, ...], flush: bool) -> tuple[Category, tuple[int, ...]]:
    """Category and tie-break ranks of five ranks (any order); rules live only here."""
    count = {r: ranks.count(r) for r in ranks}
    order = tuple(sorted(count, key=lambda r: (count[r], r), reverse=True))
    shape = tuple(count[r] for r in order)
    if shape == (4, 1):
        return Category.FOUR_OF_A_KIND, order
    if shape == (3, 2):
        return Category.FULL_HOUSE, order
    if shape == (3, 1, 1):
        return Category.THREE_OF_A_KIND, order
    if shape == (2, 2, 1):
        return Category.TWO_PAIR, order
    if shape == (2, 1, 1, 1):
        return Category.ONE_PAIR, order
    if shape != (1, 1, 1, 1, 1):
        raise ValueError(f"not a five-card rank pattern: {ranks}")
    high: int | None = None
    if order[0] - order[4] == 4:
        high = order[0]
    elif order == (_ACE, _FIVE, 2, 1, 0):
        high = _FIVE
    if flush:
        if high is None:
            return Category.FLUSH, order
        return (Category.ROYAL_FLUSH if high == _ACE else Category.STRAIGHT_FLUSH), (high,)
    if high is not None:
        return Category.STRAIGHT, (high,)
    if order[0] == _ACE and order[1] == _KING:
        return Category.ACE_KING, order
    return Category.HIGH_CARD, order


def _label(category: Category, ranks: tuple[int, ...]) -> str:
    first = ranks[0]
    if category is Category.ROYAL_FLUSH:
        return category.label
    if category is Category.FULL_HOUSE:
        return f"{category.label}, {_PLURAL[first]} over {_PLURAL[ranks[1]]}"
    if category is Category.TWO_PAIR:
        return f"{category.label}, {_PLURAL[first]} and {_PLURAL[ranks[1]]}"
    if category in (Category.FOUR_OF_A_KIND, Category.THREE_OF_A_KIND, Category.ONE_PAIR):
        return f"{category.label}, {_PLURAL[first]}"
    if category is Category.ACE_KING:
        return f"{category.label}, {_SINGULAR[ranks[2]]} kicker"
    return f"{category.label}, {_SINGULAR[first]} high"


class _Pattern(NamedTuple):
    category: Category
    ranks: tuple[int, ...]
    flush: bool
    multiset: tuple[int, ...]  # the five ranks, highest first


def _patterns() -> list[_Pattern]:
    """Every distinct (rank multiset, flush or not), weakest first."""
    found: list[_Pattern] = []
    descending = range(12, -1, -1)
    for multiset in itertools.combinations_with_replacement(descending, 5):
        if multiset[0] != multiset[4]:  # five of one rank cannot be dealt
            found.append(_Pattern(*_classify(multiset, False), False, multiset))
    for distinct in itertools.combinations(descending, 5):
        found.append(_Pattern(*_classify(distinct, True), True, distinct))
    found.sort(key=lambda p: (p.category, p.ranks))
    return found


class _Tables(NamedTuple):
    by_strength: tuple[HandValue, ...]
    plain: list[HandValue]
    flush: list[HandValue]
    invalid: HandValue


def _build() -> _Tables:
    invalid = HandValue(-1, Category.HIGH_CARD, (), "not a hand", True)
    plain: list[HandValue] = [invalid] * (4 * RANK_KEYS[12] + RANK_KEYS[11] + 1)
    flush: list[HandValue] = [invalid] * (1 << 13)
    values: list[HandValue] = []
    # Each (rank multiset, flush or not) is its own value: 6,175 + 1,287 = 7,462.
    for strength, pattern in enumerate(_patterns()):
        if values and (pattern.category, pattern.ranks) == (values[-1].category, values[-1].ranks):
            raise AssertionError(f"two rank patterns tie at {pattern}")
        repeats = len(set(pattern.multiset)) < 5
        label = _label(pattern.category, pattern.ranks)
        value = HandValue(strength, pattern.category, pattern.ranks, label, repeats)
        values.append(value)
        if pattern.flush:
            flush[sum(1 << r for r in pattern.multiset)] = value
        else:
            key = sum(RANK_KEYS[r] for r in pattern.multiset)
            if plain[key] is not invalid:
                raise AssertionError(f"RANK_KEYS collide at {pattern.multiset}")
            plain[key] = value
    return _Tables(tuple(values), plain, flush, invalid)


_TABLES: Final = _build()
_BY_STRENGTH: Final = _TABLES.by_strength
_PLAIN: Final = _TABLES.plain
_FLUSH: Final = _TABLES.flush
_INVALID: Final = _TABLES.invalid
#: Each card's RANK_KEYS entry, by Card.index.
_CARD_KEY: Final[list[int]] = [RANK_KEYS[card.rank] for card in DECK]


class StrengthTables(NamedTuple):
    """The lookup tables as strengths, for vectorized evaluation (`batch`)."""

    rank_keys: tuple[int, ...]
    #: strength by sum of RANK_KEYS over a non-flush hand's ranks, -1 if none
    plain: list[int]
    #: strength by OR of (1 << rank) over a flush's ranks, -1 if none
    flush: list[int]
    #: category of each strength
    category: list[Category]


def strength_tables() -> StrengthTables:
    return StrengthTables(
        RANK_KEYS,
        [v.strength for v in _PLAIN],
        [v.strength for v in _FLUSH],
        [v.category for v in _BY_STRENGTH],
    )


# ---------------------------------------------------------------------------
# Evaluation.


def evaluate(cards: Iterable[Card | str]) -> HandValue:
    """The value of exactly five distinct cards (`Card`s or strings like "As", "Td").

    Raises ValueError for any other count, a duplicate card, or anything that is
    not a card.
    """
    a: Card
    b: Card
    c: Card
    d: Card
    e: Card
    try:
        a, b, c, d, e = cards  # type: ignore[assignment]
    except (TypeError, ValueError):
        _wrong_count(cards)
    try:
        if a.suit == b.suit == c.suit == d.suit == e.suit:
            v = _FLUSH[a.bit | b.bit | c.bit | d.bit | e.bit]
            if not v._verify:
                return v
        else:
            k = _CARD_KEY
            v = _PLAIN[k[a.index] + k[b.index] + k[c.index] + k[d.index] + k[e.index]]
            # Only a repeated rank can hide a repeated card; the 52 cards are interned.
            if not v._verify or not (
                a is b
                or a is c
                or a is d
                or a is e
                or b is c
                or b is d
                or b is e
                or c is d
                or c is e
                or d is e
            ):
                return v
    except (AttributeError, IndexError, TypeError):
        pass  # strings or foreign objects: the slow path converts or explains
    return _evaluate_slow((a, b, c, d, e))


def _wrong_count(cards: object) -> NoReturn:
    try:
        got = f"{len(cards)} cards"  # type: ignore[arg-type]
    except TypeError:
        got = type(cards).__name__
    raise ValueError(f"a hand is exactly five cards, got {got}") from None


def _evaluate_slow(hand: tuple[object, ...]) -> HandValue:
    cards: list[Card] = []
    for item in hand:
        if type(item) is Card:
            cards.append(item)
        elif isinstance(item, str):
            cards.append(Card.parse(item))
        else:
            raise ValueError(f"not a card: {item!r} (expected a Card or a string like 'As')")
    indexes = [card.index for card in cards]
    for i, card in enumerate(cards):
        if card.index in indexes[:i]:
            raise ValueError(f"duplicate card in hand: {card.text}")
    a, b, c, d, e = (DECK[i] for i in indexes)  # canonical objects, even for a stray copy
    if a.suit == b.suit == c.suit == d.suit == e.suit:
        value = _FLUSH[a.bit | b.bit | c.bit | d.bit | e.bit]
    else:
        k = _CARD_KEY
        value = _PLAIN[k[a.index] + k[b.index] + k[c.index] + k[d.index] + k[e.index]]
    if value is _INVALID:  # pragma: no cover - five distinct cards always have a value
        raise AssertionError(f"no value for {[card.text for card in cards]}")
    return value
