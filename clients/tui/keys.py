"""The keys the terminal's screens list under the table: those that act at the moment,
kept apart from the drawing of the table (render.py)."""

from __future__ import annotations

from typing import Final

from rich.cells import cell_len

#: the keys of the bets in the line's order: (their words, shorter words where the line
#: is short); at 80 columns the whole line wrapped onto a second row
BETTING_KEYS: Final = (
    ("s sit", "s sit"),
    ("1-5 add $1/$5/$10/$25/$100", "1-5 add $1/5/10/25/100"),
    ("⌫ remove chip", "⌫ undo"),
    ("p progressive", "p progressive"),
    ("a rebet", "a rebet"),
    ("x clear", "x clear"),
    ("d deal", "d deal"),
    ("tab next seat", "tab seat"),
)
#: where even the shorter words do not fit, the keys that give way, first to last (the
#: chips and d deal never do): with one seat tab selects nothing else; with several, a
#: further seat (s) is the least needed
GIVE_WAY: Final = ("tab", "s sit", "x clear", "a rebet", "⌫", "p")
GIVE_WAY_SEVERAL: Final = ("s sit", "x clear", "a rebet", "tab", "⌫", "p")

PLAY_KEYS: Final = (
    "s sit · 1-5 add $1/$5/$10/$25/$100 · ⌫ remove chip · p progressive · a rebet · x clear · "
    "d deal · f fold · r raise · tab next seat · b buy $100 · c client seed · h history · "
    "l leave · q quit"
)
#: the keys of a round's moment (PLAY_KEYS is all of them, the footer's too)
KEYS_BY_PHASE: Final = {
    "betting": " · ".join(words for words, _ in BETTING_KEYS),
    "deciding": "f fold · r raise · tab next seat · s sit (next round)",
    "decided": "s sit (next round) · tab next seat",  # deciding, nothing of ours left to decide
    "showdown": "s sit (next round) · tab next seat",
}


#: the keys line with no seat at the table: nothing to bet on or decide yet
NO_SEAT_KEYS: Final = "s sit down: your bets and decisions come with a seat"
FULL_NO_SEAT_KEYS: Final = "every seat is taken: you watch until one is free"
#: the same for an account the casino suspended (s was offered, and refused)
SUSPENDED_KEYS: Final = "account suspended: you can watch; no seat, bet or chip purchase"

#: the keys line while the link is down: the table's keys send nothing until it is back
#: (h and q, which still act, are in the footer under it)
OFFLINE_KEYS: Final = "offline: the table's keys act once the link is back"
#: the keys line while another connection plays this session (another terminal, the
#: browser): the link waits for g rather than take the session back by itself
ELSEWHERE_KEYS: Final = "playing elsewhere: the table's keys act once you play here again"
#: the keys line while the table is suspended: it refuses every bet, decision and seat
#: until it resumes (the chips, f fold and s sit were offered)
PAUSED_KEYS: Final = "paused: the table's keys act once it resumes"
#: the keys line while bets are open at a table the casino paused (or a server shutting
#: down): no ante is taken, so the chips and d deal were offered and d was refused
CASINO_PAUSED_KEYS: Final = "paused by the casino: no ante is taken until it resumes"
CLOSING_KEYS: Final = "closing: this server takes no new bets or seats"


def play_keys(
    phase: str,
    *,
    undecided: bool = True,
    free: bool = True,
    several: bool = False,
    width: int | None = None,
) -> str:
    """What can be done now: 80 columns had three lines of every key, some of no use.
    The keys of any time (buy, client seed, history, leave, quit) are the footer's.
    `undecided`: while deciding, a hand of the player's still waits for fold or raise.
    `free`: a seat is free (none: s is not offered, which says every seat is taken).
    `several`: the player holds more than one seat. `width`: the line's cells, which the
    bets' keys are fitted to (shorter words, then fewer keys)."""
    if phase == "deciding" and not undecided:
        phase = "decided"
    if phase not in KEYS_BY_PHASE or phase == "betting":  # waiting: bets open too
        return betting_keys(free=free, several=several, width=width)
    keys = KEYS_BY_PHASE[phase]
    if free:
        return keys
    return " · ".join(k for k in keys.split(" · ") if not k.startswith("s sit"))


def betting_keys(*, free: bool, several: bool, width: int | None) -> str:
    """The bets' keys in their own words where they fit `width`, else in shorter ones,
    less those that give way (GIVE_WAY) until the line fits."""
    keys = [k for k in BETTING_KEYS if free or k[0] != "s sit"]
    line = " · ".join(words for words, _ in keys)
    if width is None or cell_len(line) <= width:
        return line
    for going in (None, *(GIVE_WAY_SEVERAL if several else GIVE_WAY)):
        keys = [k for k in keys if going is None or not k[0].startswith(going)]
        line = " · ".join(short for _, short in keys)
        if cell_len(line) <= width:
            break
    return line


#: a spectator's keys line: what the footer under it does not show (it listed h, l and q
#: again, right above the footer's "h History  l Lobby  q Quit")
WATCH_KEYS: Final = "watching · s how to take a seat"
WATCH_OFFLINE_KEYS: Final = "offline: the table comes back with the link"
LOBBY_KEYS: Final = "↑/↓ choose a table · Enter to open it"  # (the footer: i Paytables)
PAYTABLE_KEYS: Final = "i again: back to the lobby"
HISTORY_KEYS: Final = "↑/↓ and PgUp/PgDn scroll the rounds"
