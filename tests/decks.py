"""Stacked decks: the cards each hand should get, turned into the deck order that deals them."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from server.game.cards import DECK, Card


def stacked(hands: Sequence[Sequence[str]]) -> list[Card]:
    """A deck that deals `hands` (betting seats in seat order, the dealer last), one card
    at a time to each hand, five times, as the table deals."""
    n = len(hands)
    parsed = [[Card.parse(c) for c in h] for h in hands]
    if any(len(h) != 5 for h in parsed):
        raise ValueError("each hand needs five cards")
    used = [c for h in parsed for c in h]
    if len(set(used)) != len(used):
        raise ValueError("a card appears twice")
    deck: list[Card] = []
    for k in range(5):
        for h in range(n):
            deck.append(parsed[h][k])
    deck.extend(c for c in DECK if c not in used)
    return deck


def shuffles(*decks: Sequence[Sequence[str]]) -> Callable[[], list[Card]]:
    """A shuffle function that returns the given stacked decks in turn."""
    queue = [stacked(d) for d in decks]

    def shuffle() -> list[Card]:
        if not queue:
            raise AssertionError("the test ran out of stacked decks")
        return queue.pop(0)

    return shuffle
