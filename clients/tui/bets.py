"""The bets a terminal player is building: chips per own seat, the progressive, last round's.

A bet is built for one round: once its ante is on the table the chips are gone
from the seat, and the next round starts with nothing stacked. Rebet stacks
last round's ante and progressive again on the seats that had one; Clear takes
off what is stacked. Pure bookkeeping: the app says when a seat may take chips.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from clients.bots import money
from clients.tui.render import CHIPS, short_money


class BetSlip:
    def __init__(self) -> None:
        self.bets: dict[int, list[int]] = {}  # own seat -> chips stacked for its next ante
        self.progressive: dict[int, bool] = {}  # own seat -> progressive bet with that ante
        self.last_bets: dict[int, tuple[int, bool]] = {}  # own seat -> last round's ante, prog
        self.last_round: str | None = None

    def reset(self) -> None:
        self.bets.clear()
        self.progressive.clear()
        self.last_bets.clear()

    def keep_only(self, seats: Iterable[int]) -> None:
        """Forget what is stacked on seats that are no longer ours."""
        mine = set(seats)
        for book in (self.bets, self.progressive):
            for seat in [s for s in book if s not in mine]:
                del book[seat]

    def settle(self, snap: dict[str, Any], me: str | None) -> None:
        """Chips stacked on a seat whose ante is now on the table are spent: the seat starts
        the next round empty. Once the cards are out, this round's antes on our seats are
        last round's bets, for rebet."""
        mine = [
            (i, s)
            for i, s in enumerate(snap["seats"])
            if isinstance(s, dict) and s["player_id"] == me
        ]
        for i, s in mine:
            if s["ante"] > 0:
                self.bets.pop(i, None)
                self.progressive.pop(i, None)
        rid = snap.get("round_id")
        if snap["phase"] in ("deciding", "showdown") and rid and rid != self.last_round:
            placed = {i: (int(s["ante"]), bool(s["progressive"])) for i, s in mine if s["ante"]}
            if placed:  # a round we sat out leaves the bets before it
                self.last_bets.clear()
                self.last_bets.update(placed)
                self.last_round = str(rid)

    def amount(self, seat: int) -> int:
        return sum(self.bets.get(seat, []))

    def add(self, seat: int, index: int) -> None:
        self.bets.setdefault(seat, []).append(CHIPS[index])

    def remove(self, seat: int) -> bool:
        if self.bets.get(seat):
            self.bets[seat].pop()
            return True
        return False

    def toggle(self, seat: int) -> bool:
        self.progressive[seat] = on = not self.progressive.get(seat, False)
        return on

    def rebet(self, buildable: Callable[[int], bool]) -> tuple[str, ...]:
        """Stack last round's bets again where they can go; what was stacked, in words,
        roomiest first (none when nothing could be)."""
        again = [s for s in self.last_bets if buildable(s)]
        for seat in again:
            amount, prog = self.last_bets[seat]
            self.bets[seat] = chips_for(amount)
            self.progressive[seat] = prog
        return self._words(sorted(again)) if again else ()

    def clear(self, seats: Iterable[int]) -> None:
        for seat in seats:
            self.bets.pop(seat, None)
            self.progressive.pop(seat, None)

    def built(self) -> dict[int, tuple[int, bool]]:
        """The bets built with chips and not dealt yet, with their progressive, by seat:
        the rows show them (they showed "-", and d deals them all)."""
        return {
            seat: (sum(chips), self.progressive.get(seat, False))
            for seat, chips in self.bets.items()
            if chips
        }

    def rebet_words(self, buildable: Callable[[int], bool]) -> tuple[str, ...]:
        """What rebet would stack again, roomiest words first: "seat 1 $10.00 +
        progressive", "#1 $10+P", the total (several seats); () if nothing (or if it is
        stacked already)."""
        again = [s for s in sorted(self.last_bets) if buildable(s)]
        if all(
            self.amount(s) == self.last_bets[s][0]
            and self.progressive.get(s, False) == self.last_bets[s][1]
            for s in again
        ):
            return ()
        return self._words(again)

    def _words(self, seats: list[int]) -> tuple[str, ...]:
        bets = [(s + 1, *self.last_bets[s]) for s in seats]
        words = [
            ", ".join(f"seat {n} {money(c)}" + (" + progressive" if p else "") for n, c, p in bets),
            ", ".join(f"#{n} {short_money(c)}" + ("+P" if p else "") for n, c, p in bets),
        ]
        if len(bets) > 1:
            stakes = sum(1 for _, _, p in bets if p)
            total = f"{money(sum(c for _, c, _ in bets))} on {len(bets)} seats"
            words.append(total + (f" + {stakes} P" if stakes else ""))
        return tuple(words)


def chips_for(cents: int) -> list[int]:
    """The chips that make up `cents`, largest first (a rebet's stack)."""
    chips = []
    for chip in sorted(CHIPS, reverse=True):
        while cents >= chip:
            chips.append(chip)
            cents -= chip
    return chips
