"""What a player saw at the terminal that read otherwise than the table, the browser or
the wallet: a raise missing from History, the jackpot news in other words than the
browser's, table titles cut to five letters in a lobby with room to spare."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from clients.tui.render import history_hand


def test_history_shows_a_raised_hand_s_stake_as_the_table_did() -> None:
    """The table showed "$1+$2 P" for a raised hand, History "$1.00 P": the raise was
    gone from the hand's stake."""
    result = {"outcome": "no_qualify", "net": -100, "returned": 200, "progressive_prize": 0}
    seat: dict[str, Any] = {
        "seat": 7, "ante": 100, "progressive": True, "decision": "raise",
        "cards": ["As", "4h", "3s", "Ad", "2c"], "hand": {"label": "One Pair"}, "result": result,
    }  # fmt: skip
    for two_lines in (False, True):
        line = Text.from_markup(history_hand(seat, "you", two_lines=two_lines)).plain
        assert "$1+$2 P" in line, line
    folded = {**seat, "decision": "fold", "result": {**result, "outcome": "fold"}}
    assert "$1.00 P" in Text.from_markup(history_hand(folded, "you")).plain
