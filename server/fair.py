"""The provably fair deck source the server gives every table (protocol/fairness.py)."""

from __future__ import annotations

import secrets
from collections.abc import Callable

from protocol.fairness import ORDERED_DECK, SEED_BYTES, commitment, fair_order
from server.game.cards import Card

_CARDS = {text: Card.parse(text) for text in ORDERED_DECK}


class FairShuffler:
    """One server seed per round, committed when betting opens, revealed at showdown."""

    def __init__(self, seeds: Callable[[int], bytes] = secrets.token_bytes) -> None:
        self._seeds = seeds
        self._seed = b""
        self._nonce = ""
        self._client_seeds = ""

    def commit(self, nonce: str) -> str:
        self._seed = self._seeds(SEED_BYTES)
        self._nonce = nonce
        self._client_seeds = ""
        return commitment(self._seed)

    def deck(self, client_seeds: str) -> list[Card]:
        self._client_seeds = client_seeds
        cards = _CARDS
        return [cards[c] for c in fair_order(self._seed, client_seeds, self._nonce)]

    def reveal(self) -> dict[str, str]:
        return {
            "commitment": commitment(self._seed),
            "server_seed": self._seed.hex(),
            "client_seeds": self._client_seeds,
            "nonce": self._nonce,
        }
