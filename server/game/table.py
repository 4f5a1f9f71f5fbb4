"""One table's seats and rounds as a pure state machine.

The server feeds it commands and the time (`now`, seconds on any monotonic
clock) and carries out what it returns: `Effects` (transfers, holds, jackpot
claims) to apply to the stores, and a public view to broadcast. Nothing here
reads a clock, sleeps, or touches a socket or a store, so every rule can be
tested by feeding events and reading effects.

A command that is not allowed raises `Refusal` before changing anything.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from server.game.cards import Card, shuffled_deck
from server.game.categories import Category
from server.game.evaluator import HandValue, evaluate
from server.game.ledger import (
    HOUSE,
    Hold,
    JackpotClaim,
    Reason,
    Transfer,
    meter_account,
    player_account,
)
from server.game.settlement import contribution, main_outcome, progressive_prize
from server.game.variants import Variant

MAX_SEATS = 9  # 9 hands x 5 + the dealer's 5 = 50 <= 52 cards
HANDS_MODES = ("private", "open")
CARDS_PER_HAND = 5
RAISE_MULTIPLE = 2


class Phase(StrEnum):
    WAITING = "waiting"
    BETTING = "betting"
    DECIDING = "deciding"
    SHOWDOWN = "showdown"


class Decision(StrEnum):
    RAISE = "raise"
    FOLD = "fold"


class Refusal(Exception):
    """A command the rules do not allow now; `code` matches the protocol's error codes."""

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details


@dataclass(frozen=True, slots=True)
class Timers:
    betting: float = 15.0
    decision: float = 20.0
    results: float = 6.0

    def __post_init__(self) -> None:
        for name in ("betting", "decision", "results"):
            if not getattr(self, name) > 0:
                raise ValueError(f"timers.{name} must be > 0 seconds")


@dataclass(frozen=True, slots=True)
class TableConfig:
    table_id: str
    variant: Variant
    min_ante: int
    max_ante: int
    seats: int = 7
    max_seats_per_player: int = 3
    progressive_stake: int | None = None  # None: the variant's stake
    jackpot: str = "main"
    contribution_bp: int = 7000  # share of each progressive stake that feeds the meter
    timers: Timers = field(default_factory=Timers)
    title: str = ""
    hands: str = "private"  # "private": each hand to its player alone until showdown; "open"

    def __post_init__(self) -> None:
        if not 1 <= self.seats <= MAX_SEATS:
            raise ValueError(f"seats must be 1..{MAX_SEATS}, got {self.seats}")
        if not 1 <= self.min_ante <= self.max_ante:
            raise ValueError(
                f"need 1 <= min_ante <= max_ante, got {self.min_ante}..{self.max_ante}"
            )
        if not 1 <= self.max_seats_per_player <= self.seats:
            raise ValueError("max_seats_per_player must be 1..seats")
        if not 0 <= self.contribution_bp <= 10_000:
            raise ValueError("contribution_bp must be 0..10000")
        if self.progressive_stake is not None and self.progressive_stake <= 0:
            raise ValueError("progressive_stake must be > 0 cents")
        if self.hands not in HANDS_MODES:
            raise ValueError(f"hands must be one of {', '.join(HANDS_MODES)}, got {self.hands!r}")

    @property
    def stake(self) -> int:
        """The progressive stake in cents at this table."""
        return self.progressive_stake or self.variant.progressive_stake_cents


@dataclass(frozen=True, slots=True)
class Settlement:
    """A round's showdown: payouts, percent jackpot claims in seat order, the record."""

    round_id: str
    transfers: tuple[Transfer, ...]
    claims: tuple[JackpotClaim, ...]
    record: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Effects:
    """What a command asks of the stores: first transfers and holds, then a settlement."""

    transfers: tuple[Transfer, ...] = ()
    holds: tuple[Hold, ...] = ()
    settlement: Settlement | None = None

    def __add__(self, other: Effects) -> Effects:
        return Effects(
            self.transfers + other.transfers,
            self.holds + other.holds,
            other.settlement or self.settlement,
        )


@dataclass(frozen=True, slots=True)
class SeatResult:
    outcome: str  # win | lose | push | no_qualify | fold
    net: int  # main game, cents
    returned: int  # main game, cents paid back at showdown
    progressive_fixed: int = 0  # fixed prize in cents, paid by the house
    progressive_bp: int = 0  # percent-of-meter prize, resolved by the store
    jackpot_paid: int | None = None  # what the meter paid, once the claim is resolved


@dataclass(slots=True)
class Seat:
    index: int
    player_id: str
    name: str
    ante: int = 0
    progressive: bool = False
    cards: tuple[Card, ...] = ()
    decision: Decision | None = None
    auto: bool = False  # decided for the player: by the timer, or when they left
    left: bool = False  # folded because its player left the table (auto too)
    going: bool = False  # its player left it (or was removed): freed when the round ends
    next_round: bool = False  # taken after the deal: no hand this round, not sat out
    hand: HandValue | None = None
    result: SeatResult | None = None

    def clear_round(self) -> None:
        self.ante = 0
        self.progressive = False
        self.cards = ()
        self.decision = None
        self.auto = False
        self.left = False
        self.next_round = False
        self.hand = None
        self.result = None


class Shuffler(Protocol):
    """A deck source that commits to each round's deck before betting closes.

    The server's is provably fair (server/fair.py); the engine only asks it for
    a commitment when a round opens, the deck when betting closes (with the
    betting seats' client seeds, in seat order, comma-joined), and the proof
    to reveal at showdown.
    """

    def commit(self, nonce: str) -> str: ...
    def deck(self, client_seeds: str) -> list[Card]: ...
    def reveal(self) -> dict[str, str]: ...


def new_round_id() -> str:
    return secrets.token_hex(8)


class Table:
    """Seats, the current round and its timers for one table."""

    def __init__(
        self,
        config: TableConfig,
        *,
        shuffle: Callable[[], list[Card]] = shuffled_deck,
        round_ids: Callable[[], str] = new_round_id,
        shuffler: Shuffler | None = None,
        first_seq: int = 0,
    ) -> None:
        """`first_seq`: where `seq` starts, above every `seq` an earlier engine of this
        table showed (a new host of the table starts above the old host's)."""
        self.config = config
        self._shuffle = shuffle
        self._shuffler = shuffler
        self.commitment: str | None = None
        self.proof: dict[str, str] | None = None
        self.client_seeds: dict[str, str] = {}
        self._round_ids = round_ids
        self.seats: list[Seat | None] = [None] * config.seats
        self.seating = 0  # bumped whenever a seat is taken or freed: who sits here changed
        self._players: tuple[int, frozenset[str]] = (0, frozenset())
        self.phase = Phase.WAITING
        self.round_id: str | None = None
        self.deadline: float | None = None
        self.dealer: tuple[Card, ...] = ()
        self.dealer_hand: HandValue | None = None
        self.ready: set[str] = set()
        self.connected: dict[str, bool] = {}
        self.last: dict[str, Any] | None = None
        self.seq = first_seq
        # the `seq` of the first snapshot after the last betting, and the last deciding,
        # closed: a request made on an older one was for a round that has moved on (a
        # new engine's begin above every `seq` an older engine showed)
        self.bets_closed_at = first_seq
        self.decisions_closed_at = first_seq
        self._upcoming_round_id: str | None = None
        self._frozen: float | None = None  # seconds the running timer had left when frozen

    # ----- queries -------------------------------------------------------------

    def seats_of(self, player_id: str) -> list[Seat]:
        return [s for s in self.seats if s is not None and s.player_id == player_id]

    def players(self) -> frozenset[str]:
        """Who sits here; made again only when a seat was taken or freed (it is asked
        after every command, and most commands move no one)."""
        if self._players[0] != self.seating:
            self._players = self.seating, frozenset(s.player_id for s in self.seats if s)
        return self._players[1]

    def betting_seats(self) -> list[Seat]:
        return [s for s in self.seats if s is not None and s.ante > 0]

    @property
    def leaving(self) -> set[str]:
        """Players with seats that go at the end of the round (they left, or were
        removed, with a hand in it); a seat taken since is theirs to keep."""
        return {s.player_id for s in self.seats if s is not None and s.going}

    def keeps_seat(self, player_id: str) -> bool:
        """Whether the player holds a seat here that is not going at the round's end."""
        return any(not s.going for s in self.seats_of(player_id))

    def has_hand_in_play(self, player_id: str) -> bool:
        """True while a hand of the player's may still win or lose (not folded, not settled)."""
        live = self.phase in (Phase.BETTING, Phase.DECIDING)
        return live and any(
            s.ante > 0 and s.decision is not Decision.FOLD for s in self.seats_of(player_id)
        )

    def has_live_bet(self, player_id: str) -> bool:
        """True while the player has money on the table that is not settled yet."""
        live = self.phase in (Phase.BETTING, Phase.DECIDING)
        return live and any(s.ante > 0 for s in self.seats_of(player_id))

    # ----- seats ---------------------------------------------------------------

    def sit(self, player_id: str, name: str, seat: int | None = None) -> int:
        if seat is not None and not 0 <= seat < len(self.seats):  # the field first (§10)
            raise Refusal("invalid_field", f"seat must be 0..{len(self.seats) - 1}", field="seat")
        mine = self.seats_of(player_id)
        if len(mine) >= self.config.max_seats_per_player:
            raise Refusal(
                "seat_limit",
                f"at most {self.config.max_seats_per_player} seats per player at this table",
            )
        if seat is None:
            free = [i for i, s in enumerate(self.seats) if s is None]
            if not free:
                raise Refusal("no_free_seat", "every seat at this table is taken")
            seat = free[0]
        elif self.seats[seat] is not None:
            raise Refusal("seat_taken", f"seat {seat} is taken")
        late = self.phase in (Phase.DECIDING, Phase.SHOWDOWN)
        self.seats[seat] = Seat(seat, player_id, name, next_round=late)
        self.seating += 1
        self.connected.setdefault(player_id, True)
        self._changed({"seat": seat, "action": "sit"})
        return seat

    def stand(self, now: float, player_id: str, seat: int) -> Effects:
        """Give up a seat with no bet in play; the others may be all ready then."""
        s = self._own_seat(player_id, seat)
        if s.ante > 0 and self.phase in (Phase.BETTING, Phase.DECIDING):
            raise Refusal("wrong_phase", "a seat with a bet in play can be left after the round")
        self.seats[seat] = None
        self.seating += 1
        if not self.seats_of(player_id):
            self.ready.discard(player_id)
            self.connected.pop(player_id, None)
        self._changed({"seat": seat, "action": "stand"})
        return self._advance(now)

    def remove_player(self, now: float, player_id: str, *, by_request: bool = True) -> Effects:
        """The player leaves the table (or stayed away past the reconnect grace).

        While betting, their antes are given back; while deciding, their
        undecided hands fold. Each seat is freed as soon as it has no bet in
        play: at once, or when the round settles. A hand at the showdown stays
        on view, with its result, until the round is over: it was part of it.
        """
        mine = self.seats_of(player_id)
        if not mine:
            return Effects()
        last = {"seat": mine[0].index, "action": "stand"} if by_request else None
        effects = Effects()
        if self.phase is Phase.BETTING:
            for s in mine:
                if s.ante:
                    effects += self._refund_seat(s)
                    s.clear_round()
        elif self.phase is Phase.DECIDING:
            for s in mine:
                if s.ante and s.decision is None:
                    effects += self._apply_decision(s, Decision.FOLD, auto=True)
                    s.left = True
        shown = self.phase is Phase.SHOWDOWN and any(s.ante for s in mine)
        if self.has_live_bet(player_id) or shown:
            for s in mine:
                if s.ante:
                    s.going = True
                else:  # no bet in play: another player may sit there now
                    self.seats[s.index] = None
                    self.seating += 1
            self._changed(last)
        else:
            self._free_seats(player_id)
            self._changed(last)
        return effects + self._advance(now)

    def release_seats(self, now: float, player_id: str) -> Effects | None:
        """The player is removed from the table (an operator's act). A dealt hand plays on
        to its end (nothing is folded for the player) and its seats go when the round is
        over; while betting, antes are given back and the seats go at once, as when the
        player leaves. None when the player holds no seat here."""
        mine = self.seats_of(player_id)
        if not mine:
            return None
        dealt = self.phase in (Phase.DECIDING, Phase.SHOWDOWN)
        if dealt and any(s.ante for s in mine):
            for s in mine:
                s.going = True
            self._changed(None)
            return Effects()
        return self.remove_player(now, player_id, by_request=False)

    def _free_seats(self, player_id: str) -> None:
        for s in self.seats_of(player_id):
            self.seats[s.index] = None
            self.seating += 1
        self.ready.discard(player_id)
        self.connected.pop(player_id, None)

    def _advance(self, now: float) -> Effects:
        """Move on if a departure left the round with nothing more to wait for."""
        if self.phase is Phase.BETTING:
            if not self.betting_seats():
                self._end_empty_betting()
            elif self._all_ready():
                return self._deal(now)
        elif self.phase is Phase.DECIDING and all(
            b.decision is not None for b in self.betting_seats()
        ):
            return self._showdown(now)
        return Effects()

    def touch(self) -> None:
        """Something the snapshot shows changed outside the engine (the spectator count)."""
        self._changed(None)

    def set_client_seed(self, player_id: str, seed: str) -> None:
        """The player's seed for the shuffle of every deal from now on (empty: none)."""
        if "," in seed or len(seed) > 64:
            raise Refusal(
                "invalid_field",
                "a client seed is up to 64 characters, no commas",
                field="client_seed",
            )
        if seed:
            self.client_seeds[player_id] = seed
        else:  # the same shuffle as none: nothing to keep
            self.client_seeds.pop(player_id, None)

    def forget_client_seed(self, player_id: str) -> None:
        """The player neither sits nor watches here any more (kept, a table open for
        months held the seed of every spectator it ever had)."""
        self.client_seeds.pop(player_id, None)

    def set_connected(self, now: float, player_id: str, connected: bool) -> None:
        """A player's last connection closed (or one is back). The betting is not held
        for one gone with nothing bet: when the rest are ready, its timer ends now (the
        server's clock then deals, as for any timer, and not while the table is frozen)."""
        if player_id not in self.players() or self.connected.get(player_id) == connected:
            return
        self.connected[player_id] = connected
        self._changed(None)
        if connected or self.phase is not Phase.BETTING or not self._all_ready():
            return
        if self.deadline is not None:
            self.deadline = min(self.deadline, now)
        elif self._frozen is not None:
            self._frozen = 0.0

    def _all_ready(self) -> bool:
        """Whether the betting may close before its timer: every seated player said Deal,
        or is away (within the reconnect grace) with no ante to wait for."""
        if self.players() <= self.ready:
            return True
        return all(
            p in self.ready
            or (not self.connected.get(p, True) and not any(s.ante for s in self.seats_of(p)))
            for p in self.players()
        )

    def check_seen(self, seen: int | None, *, deciding: bool) -> None:
        """Refuse a request made on the snapshot `seen` (its `seq`, when the client says)
        if the table has since closed the betting (`deciding`: the decisions) it was
        made for: a Deal pressed on a link that silently died reached the server when the
        link came back, and was placed in a round the player never saw open. A decision
        is for the hand dealt last: one made before that deal is for none of its cards."""
        closed = self.bets_closed_at
        if deciding:
            closed = max(closed, self.decisions_closed_at)
        if seen is None or seen >= closed:
            return
        if deciding and closed == self.bets_closed_at:
            said = f"this hand was dealt (table seq {closed}) after the table you saw (seq {seen})"
        else:
            what = "decisions" if deciding else "betting"
            said = f"the {what} you saw (table seq {seen}) closed before this reached the table "
            said += f"(seq {closed})"
        raise Refusal("round_moved_on", f"{said}: nothing was applied")

    # ----- betting -------------------------------------------------------------

    def check_ante(self, player_id: str, seat: int, amount: int, progressive: bool) -> None:
        """Refuse an ante the rules do not allow now; funds are the wallet's to check."""
        s = self._own_seat(player_id, seat)
        if self.phase not in (Phase.WAITING, Phase.BETTING):
            raise Refusal("wrong_phase", f"antes are taken between rounds, not while {self.phase}")
        if s.ante > 0:
            raise Refusal("already_bet", f"seat {seat} already has an ante this round")
        lo, hi = self.config.min_ante, self.config.max_ante
        if type(amount) is not int or not lo <= amount <= hi:
            raise Refusal(
                "ante_out_of_limits",
                f"the ante must be between {lo} and {hi} cents",
                min_ante=lo,
                max_ante=hi,
            )

    def ante_effects(self, player_id: str, seat: int, amount: int, progressive: bool) -> Effects:
        """What `place_ante` will return, without changing anything: the wallet checks
        and applies these first, and only then is the ante placed."""
        self.check_ante(player_id, seat, amount, progressive)
        rid, me = self._next_round_id(), player_account(player_id)
        transfers = [Transfer(rid, seat, Reason.ANTE, me, HOUSE, amount)]
        if progressive:
            stake = self.config.stake
            to_meter = contribution(stake, self.config.contribution_bp)
            if to_meter:
                meter = meter_account(self.config.jackpot)
                transfers.append(Transfer(rid, seat, Reason.PROGRESSIVE, me, meter, to_meter))
            if stake - to_meter:
                transfers.append(
                    Transfer(rid, seat, Reason.PROGRESSIVE, me, HOUSE, stake - to_meter)
                )
        hold = Hold(rid, seat, player_id, RAISE_MULTIPLE * amount)
        return Effects(tuple(transfers), (hold,))

    def place_ante(
        self, now: float, player_id: str, seat: int, amount: int, progressive: bool = False
    ) -> Effects:
        """Take an ante (and the progressive) whose funds the wallet has already covered;
        returns what `ante_effects` said it would."""
        effects = self.ante_effects(player_id, seat, amount, progressive)
        self.take_ante(now, player_id, seat, amount, progressive)
        return effects

    def take_ante(
        self, now: float, player_id: str, seat: int, amount: int, progressive: bool = False
    ) -> None:
        """`place_ante` for a server that built and applied the effects already: checked
        again, not built again."""
        self.check_ante(player_id, seat, amount, progressive)
        if self.phase is Phase.WAITING:
            self._open_round(now)
        s = self.seats[seat]
        assert s is not None
        s.ante = amount
        s.progressive = progressive
        self._changed({"seat": seat, "action": "ante"})

    def withdraw_effects(self, player_id: str, seat: int) -> Effects:
        """What `withdraw` will return, without changing anything (the refund goes first)."""
        s = self._own_seat(player_id, seat)
        if self.phase is not Phase.BETTING:
            raise Refusal("wrong_phase", "an ante can only be taken back while betting is open")
        if s.ante == 0:
            raise Refusal("no_bet", f"seat {seat} has no ante to take back")
        return self._refund_seat(s)

    def withdraw(self, player_id: str, seat: int) -> Effects:
        """Take an ante back while betting is still open."""
        effects = self.withdraw_effects(player_id, seat)
        s = self.seats[seat]
        assert s is not None
        s.clear_round()
        # taking an ante back changes the bet: the player's Deal is taken back with it
        # (left ready with nothing at stake they read "Sitting out", chosen by no one)
        self.ready.discard(player_id)
        self._changed({"seat": seat, "action": "withdraw"})
        if not self.betting_seats():
            self._end_empty_betting()
        return effects

    def deal_me_in(self, now: float, player_id: str) -> Effects:
        """The player is ready ("Deal"); betting closes once every seated player is (or
        is away with nothing bet)."""
        if not self.seats_of(player_id):
            raise Refusal("not_seated", "take a seat before you deal")
        if self.phase is Phase.WAITING:
            raise Refusal("no_bet", "place an ante before you deal")
        if self.phase is not Phase.BETTING:
            raise Refusal("wrong_phase", f"cards are already dealt ({self.phase})")
        self.ready.add(player_id)
        self._changed({"seat": self.seats_of(player_id)[0].index, "action": "deal"})
        if self._all_ready():
            return self._deal(now)
        return Effects()

    # ----- decisions -----------------------------------------------------------

    def decision_effects(self, player_id: str, seat: int, decision: Decision) -> Effects:
        """The raise (or fold) `decide` will make, without changing anything, so the
        wallet can apply it first; the showdown it may set off is not included."""
        return self._decision_transfers(self._deciding_seat(player_id, seat), decision)

    def _deciding_seat(self, player_id: str, seat: int) -> Seat:
        """The player's seat, if a decision is due from it now."""
        s = self._own_seat(player_id, seat)
        if self.phase is Phase.SHOWDOWN and s.decision is not None:  # the last one ended it
            raise Refusal("already_decided", f"seat {seat} chose to {s.decision}: showdown")
        if self.phase is not Phase.DECIDING:
            raise Refusal("wrong_phase", f"no decision is due now ({self.phase})")
        if s.ante == 0:
            raise Refusal("not_betting", f"seat {seat} has no hand this round")
        if s.decision is not None:
            raise Refusal("already_decided", f"seat {seat} already chose to {s.decision}")
        return s

    def decide(self, now: float, player_id: str, seat: int, decision: Decision) -> Effects:
        s = self._deciding_seat(player_id, seat)
        effects = self._apply_decision(s, decision, auto=False)
        self._changed({"seat": seat, "action": str(decision)})
        if all(b.decision is not None for b in self.betting_seats()):
            effects += self._showdown(now)
        return effects

    # ----- time ----------------------------------------------------------------

    def tick(self, now: float) -> Effects:
        """Act on a timer that has run out; the server calls this at `deadline`."""
        if self.deadline is None or now < self.deadline:
            return Effects()
        self.last = None
        if self.phase is Phase.BETTING:
            return self._deal(now)
        if self.phase is Phase.DECIDING:
            effects = Effects()
            for s in self.betting_seats():
                if s.decision is None:
                    effects += self._apply_decision(s, Decision.FOLD, auto=True)
            return effects + self._showdown(now)
        if self.phase is Phase.SHOWDOWN:
            self._end_round()
        return Effects()

    def freeze(self, now: float) -> None:
        """Stop the clock (the table is suspended): the running timer keeps what it has left."""
        if self.deadline is not None:
            self._frozen = max(0.0, self.deadline - now)
            self.deadline = None
            self._bump()

    def thaw(self, now: float, minimum: float = 0.0) -> None:
        """Start the clock again; a timer resumes with at least `minimum` seconds, so
        nobody's decision is cut short by the time the table stood still."""
        if self._frozen is not None:
            self.deadline = now + max(self._frozen, minimum)
            self._frozen = None
            self._bump()

    @property
    def frozen(self) -> bool:
        return self._frozen is not None

    def void_round(self) -> Effects:
        """Give back every bet of an unsettled round (shutdown past its deadline)."""
        if self.phase not in (Phase.BETTING, Phase.DECIDING):
            return Effects()
        effects = Effects()
        for s in self.betting_seats():
            effects += self._refund_seat(s)
        self._changed(None)
        self._end_round()
        self.bets_closed_at = self.decisions_closed_at = self.seq
        return effects

    def record_jackpot(self, seat: int, paid: int) -> None:
        """Show what the meter paid a seat's percent prize, once the store resolved it."""
        s = self.seats[seat]
        if s is not None and s.result is not None:
            s.result = _replace_paid(s.result, paid)
            self._changed(None)

    # ----- internals -----------------------------------------------------------

    def _own_seat(self, player_id: str, seat: int) -> Seat:
        if type(seat) is not int or not 0 <= seat < len(self.seats):
            raise Refusal("invalid_field", f"seat must be 0..{len(self.seats) - 1}", field="seat")
        s = self.seats[seat]
        if s is None:
            raise Refusal("not_your_seat", f"seat {seat} is free: it is not yours")
        if s.player_id != player_id:
            raise Refusal("not_your_seat", f"seat {seat} belongs to another player")
        return s

    def _changed(self, last: dict[str, Any] | None) -> None:
        """A player request (or, with None, a timer or the server) changed the table."""
        self.seq += 1
        self.last = last

    def _bump(self) -> None:
        """A change that follows from the request being handled: `last` stays its."""
        self.seq += 1

    def _next_round_id(self) -> str:
        if self.round_id is not None:
            return self.round_id
        if self._upcoming_round_id is None:
            self._upcoming_round_id = f"{self.config.table_id}-{self._round_ids()}"
        return self._upcoming_round_id

    def _open_round(self, now: float) -> None:
        self.round_id = self._next_round_id()
        self._upcoming_round_id = None
        self.phase = Phase.BETTING
        self.deadline = now + self.config.timers.betting
        if self._shuffler is not None:
            self.commitment = self._shuffler.commit(self.round_id)
        self.ready.clear()

    def _deal(self, now: float) -> Effects:
        """Close betting: one card at a time to each betting seat in order, then the dealer."""
        betting = self.betting_seats()
        if not betting:
            self._end_empty_betting()
            return Effects()
        if self._shuffler is not None:
            seeds = ",".join(self.client_seeds.get(s.player_id, "") for s in betting)
            deck = self._shuffler.deck(seeds)
        else:
            deck = self._shuffle()
        if len(deck) != 52 or len(set(deck)) != 52:
            raise ValueError("the shuffle must return the 52 distinct cards")
        hands: list[list[Card]] = [[] for _ in range(len(betting) + 1)]
        top = 0
        for _ in range(CARDS_PER_HAND):
            for hand in hands:
                hand.append(deck[top])
                top += 1
        for s, hand in zip(betting, hands, strict=False):
            s.cards = tuple(hand)
            s.hand = evaluate(s.cards)
        self.dealer = tuple(hands[-1])
        self.dealer_hand = evaluate(self.dealer)
        self.phase = Phase.DECIDING
        self.deadline = now + self.config.timers.decision
        self._bump()
        self.bets_closed_at = self.seq
        return Effects()

    def _apply_decision(self, s: Seat, decision: Decision, *, auto: bool) -> Effects:
        effects = self._decision_transfers(s, decision)
        s.decision = decision
        s.auto = auto
        return effects

    def _decision_transfers(self, s: Seat, decision: Decision) -> Effects:
        assert self.round_id is not None
        rid = self.round_id
        release = Hold(rid, s.index, s.player_id, -RAISE_MULTIPLE * s.ante)
        if decision is Decision.FOLD:
            return Effects((), (release,))
        bet = Transfer(
            rid,
            s.index,
            Reason.RAISE,
            player_account(s.player_id),
            HOUSE,
            RAISE_MULTIPLE * s.ante,
        )
        return Effects((bet,), (release,))

    def _showdown(self, now: float) -> Effects:
        """Reveal the dealer, settle every betting seat, claim jackpots in seat order."""
        assert self.round_id is not None and self.dealer_hand is not None
        rid, variant = self.round_id, self.config.variant
        transfers: list[Transfer] = []
        claims: list[JackpotClaim] = []
        for s in self.betting_seats():
            assert s.hand is not None and s.decision is not None
            raised = s.decision is Decision.RAISE
            outcome = main_outcome(variant, s.ante, raised, s.hand, self.dealer_hand)
            me = player_account(s.player_id)
            if outcome.returned:
                transfers.append(Transfer(rid, s.index, Reason.PAYOUT, HOUSE, me, outcome.returned))
            fixed = bp = 0
            prize = progressive_prize(variant, s.hand, not raised) if s.progressive else None
            if prize is not None and prize.fixed_cents:
                fixed = prize.fixed_cents
                transfers.append(Transfer(rid, s.index, Reason.JACKPOT, HOUSE, me, fixed))
            elif prize is not None and prize.percent_bp:
                bp = prize.percent_bp
                claims.append(JackpotClaim(rid, s.index, s.player_id, s.hand.category.name, bp))
            s.result = SeatResult(str(outcome.kind), outcome.net, outcome.returned, fixed, bp)
        self.phase = Phase.SHOWDOWN
        self.deadline = now + self.config.timers.results
        if self._shuffler is not None:
            self.proof = self._shuffler.reveal()
        self._bump()
        self.decisions_closed_at = self.seq
        return Effects(settlement=Settlement(rid, tuple(transfers), tuple(claims), self._record()))

    def _record(self) -> dict[str, Any]:
        """The round for history and recall; percent jackpot prizes are added when paid."""
        return {
            "round_id": self.round_id,
            "table": self.config.table_id,
            "variant": self.config.variant.name,
            "dealer": [c.text for c in self.dealer],
            "dealer_hand": hand_view(self.dealer_hand),
            "fairness": self.proof,
            "seats": [
                {
                    "seat": s.index,
                    "player_id": s.player_id,
                    "name": s.name,
                    "ante": s.ante,
                    "progressive": s.progressive,
                    "cards": [c.text for c in s.cards],
                    "hand": hand_view(s.hand),
                    "decision": None if s.decision is None else str(s.decision),
                    "auto": s.auto,
                    "left": s.left,
                    "result": None
                    if s.result is None
                    else result_view(s, s.result, self.config.stake),
                }
                for s in self.betting_seats()
            ],
        }

    def _refund_seat(self, s: Seat) -> Effects:
        """Every cent the seat bet this round goes back where it came from."""
        assert self.round_id is not None
        rid, me = self.round_id, player_account(s.player_id)
        out = [Transfer(rid, s.index, Reason.REFUND, HOUSE, me, s.ante)]
        holds: tuple[Hold, ...] = ()
        if s.decision is Decision.RAISE:
            amount = RAISE_MULTIPLE * s.ante
            out.append(Transfer(rid, s.index, Reason.REFUND, HOUSE, me, amount))
        elif s.decision is None:
            holds = (Hold(rid, s.index, s.player_id, -RAISE_MULTIPLE * s.ante),)
        if s.progressive:
            stake = self.config.stake
            to_meter = contribution(stake, self.config.contribution_bp)
            if to_meter:
                meter = meter_account(self.config.jackpot)
                out.append(Transfer(rid, s.index, Reason.REFUND, meter, me, to_meter))
            if stake - to_meter:
                out.append(Transfer(rid, s.index, Reason.REFUND, HOUSE, me, stake - to_meter))
        return Effects(tuple(out), holds)

    def _end_round(self) -> None:
        for s in self.seats:
            if s is not None:
                s.clear_round()
        for s in [s for s in self.seats if s is not None and s.going]:
            self.seats[s.index] = None
            self.seating += 1
            if not self.seats_of(s.player_id):
                self.ready.discard(s.player_id)
                self.connected.pop(s.player_id, None)
        self._reset_round()

    def _end_empty_betting(self) -> None:
        """A round whose every ante went ends at once; it has moved on as a dealt one has
        (`check_seen`): an ante made on its betting is not for the next round."""
        self._reset_round()
        self.bets_closed_at = self.seq

    def _reset_round(self) -> None:
        self.phase = Phase.WAITING
        self.round_id = None
        self.deadline = None
        self._frozen = None
        self.dealer = ()
        self.dealer_hand = None
        self.commitment = None
        self.proof = None
        self.ready.clear()
        self._bump()


def hand_view(hand: HandValue | None) -> dict[str, str] | None:
    """A hand as the protocol names it (snapshots and the round's record)."""
    if hand is None:
        return None
    return {"category": hand.category.name, "label": hand.category.label}


def result_view(s: Seat, r: SeatResult, stake: int) -> dict[str, Any]:
    """The seat's whole result: main game and progressive together, as the wallet sees it."""
    prize = r.progressive_fixed + (r.jackpot_paid or 0) if s.progressive else None
    returned = r.returned + (prize or 0)
    raised = RAISE_MULTIPLE * s.ante if s.decision is Decision.RAISE else 0
    staked = s.ante + raised + (stake if s.progressive else 0)
    return {
        "outcome": r.outcome,
        "net": returned - staked,
        "returned": returned,
        "progressive_prize": prize,
    }


def _replace_paid(r: SeatResult, paid: int) -> SeatResult:
    return SeatResult(
        r.outcome, r.net, r.returned, r.progressive_fixed, r.progressive_bp, jackpot_paid=paid
    )


__all__ = [
    "MAX_SEATS",
    "RAISE_MULTIPLE",
    "Category",
    "Decision",
    "Effects",
    "Phase",
    "Refusal",
    "Seat",
    "SeatResult",
    "Settlement",
    "Table",
    "TableConfig",
    "Timers",
    "hand_view",
    "result_view",
]
