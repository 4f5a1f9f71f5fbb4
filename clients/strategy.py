"""The bots' raise-or-fold rule: the published near-optimal Casino Stud strategy.

Raise any pair or better; fold anything below ace-king; with ace-king high,
raise when

1. the dealer's up card is 2 to Q and matches the rank of one of our cards, or
2. the up card is an A or K and we hold a Q or a J, or
3. we hold a Q and the up card ranks below our fourth-highest card;

otherwise fold. It gives up less than 0.01% of the ante against perfect play.

Clients may not import `server.game`, so the few hand facts this rule needs
(pair or better, straight, flush) are classified here from the card strings.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Final

RANKS: Final = "23456789TJQKA"
SUITS: Final = "cdhs"
ACE: Final = RANKS.index("A")
KING: Final = RANKS.index("K")
QUEEN: Final = RANKS.index("Q")
JACK: Final = RANKS.index("J")
WHEEL: Final = frozenset({ACE, 0, 1, 2, 3})  # A-2-3-4-5, the lowest straight


def parse_card(text: str) -> tuple[int, int]:
    """`"Td"` -> (rank 0..12 with deuce 0, suit 0..3); "10d" is accepted too."""
    if len(text) == 3 and text.startswith("10"):
        text = "T" + text[2]
    if len(text) != 2 or text[0].upper() not in RANKS or text[1].lower() not in SUITS:
        raise ValueError(f"not a card: {text!r} (rank 2-9/T/J/Q/K/A + suit c/d/h/s)")
    return RANKS.index(text[0].upper()), SUITS.index(text[1].lower())


def rank_of(text: str) -> int:
    return parse_card(text)[0]


def _ranks_suits(cards: Sequence[str]) -> tuple[list[int], list[int]]:
    if len(cards) != 5:
        raise ValueError(f"a hand is five cards, got {len(cards)}")
    parsed = [parse_card(c) for c in cards]
    if len(set(parsed)) != 5:
        raise ValueError(f"a card appears twice in {list(cards)}")
    return [r for r, _ in parsed], [s for _, s in parsed]


def is_straight(ranks: Sequence[int]) -> bool:
    distinct = set(ranks)
    if len(distinct) != 5:
        return False
    return max(distinct) - min(distinct) == 4 or distinct == WHEEL


def pair_or_better(cards: Sequence[str]) -> bool:
    """Any pair, two pair, trips, straight, flush, full house, quads, straight flush."""
    ranks, suits = _ranks_suits(cards)
    paired = max(Counter(ranks).values()) >= 2
    return paired or len(set(suits)) == 1 or is_straight(ranks)


def is_ace_king(cards: Sequence[str]) -> bool:
    """A high-card hand (no pair, straight or flush) holding an ace and a king."""
    ranks, _ = _ranks_suits(cards)
    return not pair_or_better(cards) and ACE in ranks and KING in ranks


def should_raise(cards: Sequence[str], up_card: str) -> bool:
    """Raise (True) or fold (False) `cards` against the dealer's `up_card`."""
    if pair_or_better(cards):
        return True
    if not is_ace_king(cards):
        return False
    ranks, _ = _ranks_suits(cards)
    up = rank_of(up_card)
    if up <= QUEEN and up in ranks:
        return True
    if up in (ACE, KING) and (QUEEN in ranks or JACK in ranks):
        return True
    fourth_highest = sorted(ranks, reverse=True)[3]
    return QUEEN in ranks and up < fourth_highest
