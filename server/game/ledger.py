"""Money movements as double-entry transfers between named accounts.

Every cent moves from one account to another with a reason and the round it
belongs to, so conservation is a sum: over all accounts, the total changes only
by transfers from `WORLD` (buy-ins). Amounts are integer cents, always > 0.
An operator's adjustment moves money between a wallet or a meter and `HOUSE`,
never from `WORLD`: it changes who holds the money, not how much there is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

HOUSE: Final = "house"
WORLD: Final = "world"


def player_account(player_id: str) -> str:
    return f"player:{player_id}"


def players_of(accounts: Iterable[str]) -> list[str]:
    """The player ids among ledger accounts, sorted, each once."""
    return sorted({a.removeprefix("player:") for a in accounts if a.startswith("player:")})


def meter_account(jackpot: str) -> str:
    return f"meter:{jackpot}"


class Reason(StrEnum):
    ANTE = "ante"
    RAISE = "raise"
    PROGRESSIVE = "progressive"
    PAYOUT = "payout"
    JACKPOT = "jackpot"
    RESEED = "reseed"
    REFUND = "refund"
    BUY_IN = "buy-in"
    ADJUSTMENT = "adjustment"  # an operator's credit, debit or meter correction


@dataclass(frozen=True, slots=True)
class Transfer:
    """`amount` cents from `source` to `target`."""

    round_id: str
    seat: int | None
    reason: Reason
    source: str
    target: str
    amount: int

    def __post_init__(self) -> None:
        if type(self.amount) is not int or self.amount <= 0:
            raise ValueError(f"transfer amount must be a positive int of cents: {self.amount!r}")
        if self.source == self.target:
            raise ValueError(f"transfer from {self.source} to itself")


@dataclass(frozen=True, slots=True)
class Hold:
    """Funds set aside in a wallet for a raise the player may still make.

    `amount` > 0 places a hold, < 0 releases it. A hold is not a transfer: the
    cents stay the player's, they only stop being available to other bets, so a
    raise can never be refused for want of funds.
    """

    round_id: str
    seat: int
    player_id: str
    amount: int


@dataclass(frozen=True, slots=True)
class JackpotClaim:
    """A percent-of-meter prize; the store resolves it atomically, in seat order."""

    round_id: str
    seat: int
    player_id: str
    category: str
    percent_bp: int
