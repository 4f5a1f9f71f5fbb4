"""Provably fair shuffles, algorithm version 1 (PROTOCOL.md, "Fairness").

Before betting closes the server publishes `commitment = sha256(server_seed)`;
players may add client seeds; the deck is a Fisher-Yates shuffle driven by
HMAC-SHA256(server_seed, "<client_seeds>:<nonce>:<counter>") with rejection
sampling, so every order is equally likely. After showdown the server seed is
revealed and anyone can recompute the deck and check it against the
commitment and the cards that were dealt. It lives in `protocol` because
the server deals with it and every client verifies with it.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator, Sequence
from typing import Final

ALGORITHM: Final = "hmac-sha256-fisher-yates-v1"
SEED_BYTES: Final = 32
MAX_CLIENT_SEED: Final = 64

#: The deck before shuffling: ranks 2..A, each in suits c d h s ("2c", "2d", ... "As").
ORDERED_DECK: Final[tuple[str, ...]] = tuple(r + s for r in "23456789TJQKA" for s in "cdhs")

_WORDS: Final = struct.Struct(">8I")  # one HMAC-SHA256 digest: eight 32-bit big-endian words


def commitment(server_seed: bytes) -> str:
    return hashlib.sha256(server_seed).hexdigest()


def join_client_seeds(seeds: Sequence[str]) -> str:
    """The betting seats' client seeds in seat order, comma-joined ("" for a seat without)."""
    return ",".join(seeds)


class Stream:
    """Uniform integers from the HMAC stream: 32-bit big-endian words, rejection-sampled."""

    def __init__(self, server_seed: bytes, client_seeds: str, nonce: str) -> None:
        self._key = server_seed
        self._prefix = f"{client_seeds}:{nonce}:".encode()
        self._words = self._generate()

    def _generate(self) -> Iterator[int]:
        key, prefix, words = self._key, self._prefix, _WORDS.unpack
        counter = 0
        while True:
            yield from words(hmac.digest(key, prefix + str(counter).encode(), "sha256"))
            counter += 1

    def randbelow(self, n: int) -> int:
        if not 1 <= n <= 2**32:
            raise ValueError(f"randbelow needs 1 <= n <= 2**32, got {n}")
        limit = 2**32 - (2**32 % n)  # words at or above the last multiple of n are redrawn
        while True:
            word = next(self._words)
            if word < limit:
                return word % n


def fair_order(server_seed: bytes, client_seeds: str, nonce: str) -> list[str]:
    """The deck a round with these seeds deals, top card first."""
    randbelow = Stream(server_seed, client_seeds, nonce).randbelow
    deck = list(ORDERED_DECK)
    for i in range(51, 0, -1):
        j = randbelow(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def dealt_hands(deck: Sequence[str], hands: int) -> list[list[str]]:
    """Deal `hands` hands (betting seats in seat order, then the dealer) one card at a time."""
    out: list[list[str]] = [[] for _ in range(hands)]
    top = 0
    for _ in range(5):
        for hand in out:
            hand.append(deck[top])
            top += 1
    return out


def verify(
    *,
    commitment_hex: str,
    server_seed_hex: str,
    client_seeds: str,
    nonce: str,
    seats: Sequence[Sequence[str]],
    dealer: Sequence[str],
) -> list[str]:
    """Check a round's revealed proof against its cards; the problems found, if any."""
    try:
        seed = bytes.fromhex(server_seed_hex)
    except ValueError:
        return ["the server seed is not hex"]
    problems = []
    if commitment(seed) != commitment_hex.lower():
        problems.append("sha256(server_seed) is not the commitment published before the deal")
    hands = dealt_hands(fair_order(seed, client_seeds, nonce), len(seats) + 1)
    for i, (expected, got) in enumerate(zip(hands, seats, strict=False)):
        if list(got) != expected:
            problems.append(f"hand {i + 1} should be {' '.join(expected)}, not {' '.join(got)}")
    if list(dealer) != hands[-1]:
        problems.append(f"the dealer should hold {' '.join(hands[-1])}, not {' '.join(dealer)}")
    return problems
