"""Settling one hand: the main game (ante + raise) and the progressive prize.

Pure integer-cent arithmetic with the rules of DESIGN.md ("Rules the seeds
leave open"). The round engine turns the results into ledger transfers: the
stake (ante, and the raise if any) has already left the wallet, and `returned`
is what goes back at showdown, so `returned - staked == net` by construction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, TypeAlias

from server.game.cards import Card
from server.game.categories import Category
from server.game.evaluator import HandValue, evaluate
from server.game.variants import FULL_BP, Odds, Prize, Variant

__all__ = [
    "QUALIFYING_CATEGORY",
    "RAISE_MULTIPLE",
    "Hand",
    "MainOutcome",
    "Outcome",
    "contribution",
    "dealer_qualifies",
    "main_outcome",
    "percent_claim",
    "progressive_prize",
    "raise_amount",
    "settle_main",
]

#: The raise is exactly twice the ante (DESIGN.md, from the stud-poker and
#: casino-stud seeds). Bermuda's seed words it as the ante "doubling" (a raise
#: of one ante); DESIGN.md makes 2 x ante normative for every variant.
RAISE_MULTIPLE: Final = 2

#: The dealer plays with ace-king or better.
QUALIFYING_CATEGORY: Final = Category.ACE_KING

#: A hand as the engine holds it: already evaluated, or its five cards.
Hand: TypeAlias = HandValue | Sequence[Card | str]


class Outcome(StrEnum):
    FOLD = "fold"
    NO_QUALIFY = "no_qualify"
    WIN = "win"
    LOSE = "lose"
    PUSH = "push"


@dataclass(frozen=True, slots=True)
class MainOutcome:
    """The main game's result for one hand, in cents.

    `staked` is ante + raise (raise 0 on a fold); `returned` is everything paid
    back at showdown (stakes returned plus winnings); `net = returned - staked`.
    `odds` is the paytable line a win was paid at, None otherwise.
    """

    kind: Outcome
    ante: int
    raise_cents: int
    returned: int
    odds: Odds | None = None

    @property
    def staked(self) -> int:
        return self.ante + self.raise_cents

    @property
    def net(self) -> int:
        return self.returned - self.staked

    @property
    def winnings(self) -> int:
        """What the house pays beyond the returned stake (0 unless net > 0)."""
        return max(self.net, 0)


def raise_amount(ante: int) -> int:
    """The raise that goes with `ante`: the wallet must cover it when the ante is placed."""
    _check_ante(ante)
    return RAISE_MULTIPLE * ante


def dealer_qualifies(dealer: Hand) -> bool:
    """Ace-king or better; a non-qualifying dealer pays the ante and returns the raise."""
    return _value(dealer).category >= QUALIFYING_CATEGORY


def main_outcome(
    variant: Variant, ante: int, raised: bool, player: Hand, dealer: Hand
) -> MainOutcome:
    """Settle ante and raise of one hand against the dealer's."""
    _check_ante(ante)
    if type(raised) is not bool:
        raise TypeError(f"raised must be a bool, got {raised!r}")
    if not raised:
        # Fold: the dealer takes the ante; the hands are not compared.
        return MainOutcome(Outcome.FOLD, ante, 0, returned=0)
    raise_cents = RAISE_MULTIPLE * ante
    stake = ante + raise_cents
    dealer_value = _value(dealer)
    if dealer_value.category < QUALIFYING_CATEGORY:
        # Ante paid even money, raise returned: stake back plus one ante.
        return MainOutcome(Outcome.NO_QUALIFY, ante, raise_cents, returned=stake + ante)
    player_value = _value(player)
    if player_value > dealer_value:
        odds = variant.raise_odds(player_value.category)
        winnings = ante + odds.pays(raise_cents)
        return MainOutcome(Outcome.WIN, ante, raise_cents, returned=stake + winnings, odds=odds)
    if player_value < dealer_value:
        return MainOutcome(Outcome.LOSE, ante, raise_cents, returned=0)
    return MainOutcome(Outcome.PUSH, ante, raise_cents, returned=stake)


def settle_main(variant: Variant, ante: int, raised: bool, player: Hand, dealer: Hand) -> int:
    """The player's net result in cents of ante + raise for one hand."""
    return main_outcome(variant, ante, raised, player, dealer).net


def progressive_prize(variant: Variant, player_hand: Hand, folded: bool) -> Prize | None:
    """The prize a hand that bought the progressive wins, or None.

    It depends on the player's own five cards only, not on the dealer; a folded
    hand collects only where the variant says so.
    """
    if type(folded) is not bool:
        raise TypeError(f"folded must be a bool, got {folded!r}")
    if folded and not variant.folded_collects_progressive:
        return None
    return variant.progressive_prize(_value(player_hand).category)


def percent_claim(meter_cents: int, percent_bp: int) -> int:
    """A percent-of-jackpot prize: floor(meter * bp / 10000); the rest stays in the meter."""
    _check_cents("meter_cents", meter_cents)
    _check_bp("percent_bp", percent_bp)
    return meter_cents * percent_bp // FULL_BP


def contribution(stake_cents: int, contribution_bp: int) -> int:
    """The share of a progressive stake that feeds the meter: floor(stake * bp / 10000).

    Rounding down keeps the meter from ever holding cents nobody staked.
    """
    _check_cents("stake_cents", stake_cents)
    _check_bp("contribution_bp", contribution_bp)
    return stake_cents * contribution_bp // FULL_BP


def _value(hand: Hand) -> HandValue:
    if isinstance(hand, HandValue):
        return hand
    if isinstance(hand, str):
        # A str is a Sequence too; "AsKs..." is not five cards.
        raise TypeError("a hand is a HandValue or a sequence of five cards, not a string")
    return evaluate(hand)


def _check_ante(ante: int) -> None:
    if type(ante) is not int or ante <= 0:
        raise ValueError(f"ante must be a positive int of cents, got {ante!r}")


def _check_cents(name: str, cents: int) -> None:
    if type(cents) is not int or cents < 0:
        raise ValueError(f"{name} must be a non-negative int of cents, got {cents!r}")


def _check_bp(name: str, bp: int) -> None:
    if type(bp) is not int or not 0 <= bp <= FULL_BP:
        raise ValueError(f"{name} must be an int in 0..{FULL_BP} basis points, got {bp!r}")
