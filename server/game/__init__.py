"""The rules of Casino Stud Poker, sans I/O: no asyncio, no sockets, no stores, no clock.

The server drives it by feeding commands and the time and carrying out the
effects it returns, the way the websockets library keeps its protocol core
apart from its asyncio shell.
"""

from server.game.cards import DECK, Card, shuffled_deck
from server.game.categories import Category
from server.game.evaluator import HandValue, evaluate
from server.game.ledger import Hold, JackpotClaim, Reason, Transfer
from server.game.settlement import (
    dealer_qualifies,
    main_outcome,
    percent_claim,
    progressive_prize,
    settle_main,
)
from server.game.table import Decision, Effects, Phase, Refusal, Table, TableConfig, Timers
from server.game.variants import VARIANTS, Odds, Prize, Variant, VariantError, load_variants

__all__ = [
    "DECK",
    "VARIANTS",
    "Card",
    "Category",
    "Decision",
    "Effects",
    "HandValue",
    "Hold",
    "JackpotClaim",
    "Odds",
    "Phase",
    "Prize",
    "Reason",
    "Refusal",
    "Table",
    "TableConfig",
    "Timers",
    "Transfer",
    "Variant",
    "VariantError",
    "dealer_qualifies",
    "evaluate",
    "load_variants",
    "main_outcome",
    "percent_claim",
    "progressive_prize",
    "settle_main",
    "shuffled_deck",
]
