"""The keys the terminal's screens list under the table: those that act at the moment,
kept apart from the drawing of the table (render.py)."""

from __future__ import annotations

from typing import Final

PLAY_KEYS: Final = (
    "s sit · 1-5 add $1/$5/$10/$25/$100 · ⌫ remove chip · p progressive · a rebet · x clear · "
    "d deal · f fold · r raise · tab next seat · b buy $100 · c client seed · h history · "
    "l leave · q quit"
)
#: the keys of a round's moment (PLAY_KEYS is all of them, the footer's too)
KEYS_BY_PHASE: Final = {
    "betting": "s sit · 1-5 add $1/$5/$10/$25/$100 · ⌫ remove chip · p progressive · a rebet · "
    "x clear · d deal · tab next seat",
    "deciding": "f fold · r raise · tab next seat · s sit (next round)",
    "decided": "s sit (next round) · tab next seat",  # deciding, nothing of ours left to decide
    "showdown": "s sit (next round) · tab next seat",
}


#: the keys line with no seat at the table: nothing to bet on or decide yet
NO_SEAT_KEYS: Final = "s sit down: your bets and decisions come with a seat"
FULL_NO_SEAT_KEYS: Final = "every seat is taken: you watch until one is free"

#: the keys line while the link is down: the table's keys send nothing until it is back
OFFLINE_KEYS: Final = "offline: the table's keys act once the link is back · h history · q quit"


def play_keys(phase: str, *, undecided: bool = True, free: bool = True) -> str:
    """What can be done now: 80 columns had three lines of every key, some of no use.
    The keys of any time (buy, client seed, history, leave, quit) are the footer's.
    `undecided`: while deciding, a hand of the player's still waits for fold or raise.
    `free`: a seat is free (none: s is not offered, which says every seat is taken)."""
    if phase == "deciding" and not undecided:
        phase = "decided"
    keys = KEYS_BY_PHASE.get(phase, KEYS_BY_PHASE["betting"])  # waiting: bets open too
    if free:
        return keys
    return " · ".join(k for k in keys.split(" · ") if not k.startswith("s sit"))


WATCH_KEYS: Final = "watching · h history · l back to the lobby · q quit"
WATCH_OFFLINE_KEYS: Final = "offline: the table as last seen · h history · q quit"
HISTORY_KEYS: Final = "↑/↓ scroll · r refresh · h or esc back · q quit"
