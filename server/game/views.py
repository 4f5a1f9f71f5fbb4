"""What a table shows: to every viewer, and to one player of their own hands.

The privacy rules live here, apart from the engine: the dealer's four hole cards
only at showdown; another seat's cards face down while deciding unless the table
deals open hands; a player's own cards in a frame to that player alone.
"""

from __future__ import annotations

from typing import Any

from server.game.settlement import dealer_qualifies
from server.game.table import (
    CARDS_PER_HAND,
    Phase,
    Seat,
    Table,
    hand_view,
    result_view,
)

__all__ = ["own_hands", "public_view"]


def public_view(table: Table, now: float) -> dict[str, Any]:
    """The table as every viewer may see it: the dealer's hole cards only at showdown."""
    showdown = table.phase is Phase.SHOWDOWN
    dealer_cards: list[str | None] | None = None
    if table.dealer:
        dealer_cards = [
            c.text if showdown or i == CARDS_PER_HAND - 1 else None
            for i, c in enumerate(table.dealer)
        ]
    hand = table.dealer_hand if showdown else None
    ends = None if table.deadline is None else max(0, round((table.deadline - now) * 1000))
    config = table.config
    return {
        "table": config.table_id,
        "seq": table.seq,
        "phase": str(table.phase),
        "round_id": table.round_id,
        "ends_in_ms": ends,
        "min_ante": config.min_ante,
        "max_ante": config.max_ante,
        "progressive_stake": config.stake,
        "variant": config.variant.name,
        "hands": config.hands,
        "dealer": {
            "cards": dealer_cards,
            "hand": hand_view(hand),
            "qualifies": None if hand is None else dealer_qualifies(hand),
        },
        "seats": [None if s is None else _seat_view(table, s) for s in table.seats],
        "last": table.last,
        "fairness": _fairness_view(table),
    }


def own_hands(table: Table, player_id: str) -> dict[str, Any] | None:
    """The player's own dealt hands, for that player alone (`hand` frame); None when
    they hold none this round."""
    dealt = [s for s in table.seats_of(player_id) if s.cards]
    if not dealt or table.round_id is None:
        return None
    return {
        "t": "hand",
        "table": table.config.table_id,
        "round_id": table.round_id,
        "seats": [
            {"seat": s.index, "cards": [c.text for c in s.cards], "hand": hand_view(s.hand)}
            for s in dealt
        ],
    }


def _fairness_view(table: Table) -> dict[str, str] | None:
    """The commitment while the round runs; the whole proof once it is shown down."""
    if table.phase is Phase.SHOWDOWN and table.proof is not None:
        return table.proof
    if table.commitment is not None and table.round_id is not None:
        return {"commitment": table.commitment, "nonce": table.round_id}
    return None


def _seat_view(table: Table, s: Seat) -> dict[str, Any]:
    hidden = table.config.hands == "private" and table.phase is not Phase.SHOWDOWN
    if s.cards and hidden:  # five backs: each player's own hand comes in `own_hands`
        cards: list[str | None] | None = [None] * len(s.cards)
        hand = None
    else:
        cards = [c.text for c in s.cards] if s.cards else None
        hand = hand_view(s.hand)
    return {
        "player_id": s.player_id,
        "name": s.name,
        "connected": table.connected.get(s.player_id, False),
        "ante": s.ante,
        "progressive": s.progressive,
        "ready": s.player_id in table.ready,
        "decision": None if s.decision is None else str(s.decision),
        "auto": s.auto,
        "left": s.left,
        "next_round": s.next_round,
        "cards": cards,
        "hand": hand,
        "result": None if s.result is None else result_view(s, s.result, table.config.stake),
    }
