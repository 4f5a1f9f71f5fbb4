"""Hand categories, lowest first, so their order is the order of the rules.

ACE_KING is a high-card hand that holds an ace and a king: Bermuda's paytable
names it, and it is the dealer's qualifying minimum in every variant.
"""

from __future__ import annotations

from enum import IntEnum


class Category(IntEnum):
    HIGH_CARD = 0
    ACE_KING = 1
    ONE_PAIR = 2
    TWO_PAIR = 3
    THREE_OF_A_KIND = 4
    STRAIGHT = 5
    FLUSH = 6
    FULL_HOUSE = 7
    FOUR_OF_A_KIND = 8
    STRAIGHT_FLUSH = 9
    ROYAL_FLUSH = 10

    @property
    def label(self) -> str:
        """The name a player reads: "Four of a Kind", "Ace-King"."""
        return _LABELS[self]


_LABELS = {
    Category.HIGH_CARD: "High Card",
    Category.ACE_KING: "Ace-King",
    Category.ONE_PAIR: "One Pair",
    Category.TWO_PAIR: "Two Pair",
    Category.THREE_OF_A_KIND: "Three of a Kind",
    Category.STRAIGHT: "Straight",
    Category.FLUSH: "Flush",
    Category.FULL_HOUSE: "Full House",
    Category.FOUR_OF_A_KIND: "Four of a Kind",
    Category.STRAIGHT_FLUSH: "Straight Flush",
    Category.ROYAL_FLUSH: "Royal Flush",
}
