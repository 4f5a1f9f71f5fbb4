"""Cards, the deck and the shuffle.

There are exactly 52 `Card` objects, made once at import; parsing returns one
of them, so cards compare by identity and carry precomputed keys that the
evaluator reads without any arithmetic on the hot path.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Sequence
from typing import Final

RANKS: Final = "23456789TJQKA"
SUITS: Final = "cdhs"

#: A source of uniform integers in [0, n): `secrets.randbelow` in play, a seeded
#: function in tests. Never derived from `bytes % n`, which is biased.
RandBelow = Callable[[int], int]


_MADE: list[Card] = []


class Card:
    """One of the 52 cards. `index` is 4 * rank + suit (rank 0 = deuce)."""

    __slots__ = ("bit", "index", "rank", "suit", "text")

    index: int
    rank: int
    suit: int
    bit: int
    text: str

    def __new__(cls, index: int) -> Card:
        if len(_MADE) >= 52:
            raise TypeError("the 52 cards exist already: use Card.parse or Card.of")
        self = object.__new__(cls)
        _MADE.append(self)
        self.index = index
        self.rank, self.suit = divmod(index, 4)
        self.bit = 1 << self.rank
        self.text = RANKS[self.rank] + SUITS[self.suit]
        return self

    @staticmethod
    def parse(text: str) -> Card:
        """`Card.parse("As")`; rank in 23456789TJQKA (10 accepted), suit in cdhs."""
        if not isinstance(text, str):
            raise ValueError(f"a card is a string like 'As', not {type(text).__name__}")
        card = _BY_TEXT.get(text)
        if card is None:
            t = text.strip()
            card = _BY_TEXT.get(t[:-1].upper() + t[-1:].lower())
        if card is None:
            raise ValueError(f"not a card: {text!r} (expected rank 2-9/T/J/Q/K/A + suit c/d/h/s)")
        return card

    @staticmethod
    def of(index: int) -> Card:
        if not 0 <= index < 52:
            raise ValueError(f"card index out of range: {index}")
        return DECK[index]

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card({self.text!r})"

    def __reduce__(self) -> tuple[Callable[[int], Card], tuple[int]]:
        return (Card.of, (self.index,))

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index


#: The 52 cards in index order (2c 2d 2h 2s 3c ... As).
DECK: Final[tuple[Card, ...]] = tuple(Card(i) for i in range(52))

_BY_TEXT: Final[dict[str, Card]] = {c.text: c for c in DECK}
_BY_TEXT.update({"10" + c.text[1]: c for c in DECK if c.text[0] == "T"})


def to_card(card: Card | str) -> Card:
    return card if type(card) is Card else Card.parse(card)  # type: ignore[arg-type]


def to_cards(cards: Iterable[Card | str]) -> tuple[Card, ...]:
    return tuple(to_card(c) for c in cards)


def shuffled_deck(randbelow: RandBelow = secrets.randbelow) -> list[Card]:
    """A fresh deck in Fisher-Yates order driven by `randbelow` (crypto by default)."""
    deck = list(DECK)
    for i in range(51, 0, -1):
        j = randbelow(i + 1)
        if not 0 <= j <= i:
            raise ValueError(f"randbelow({i + 1}) returned {j}")
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def format_cards(cards: Sequence[Card]) -> list[str]:
    return [c.text for c in cards]
