"""The exact optimal raise-or-fold decision, read from data the odds tool exported.

`server.analysis.odds` finds the optimal decision of a variant by full
enumeration, but clients may not import the server, so
`server/analysis/strategy_export.py` (run as `python -m tools.export_strategy`)
writes its decisions to `clients/strategy_data/` and this module answers from
that file: `load("casino-stud").should_raise(cards, up_card)`, a few
microseconds a call.

Most hands need no table: the generator checks, per hand category and exactly,
whether every (hand, up card) of the category raises or every one folds (with
the presets: one pair or better always raises, a high card below ace-king
always folds) and stores only the categories that are mixed (ace-king).

Canonical form, shared with the generator. Card index = 4 * rank + suit (rank 0
is the deuce). A hand's suits are relabelled by their rank masks, highest mask
first, which maps every suit-isomorphic hand to one representative (equal
masks are interchangeable, so their order does not matter). A class is the
colex number sum C(c_i, i + 1) of the representative's sorted card indices,
and the up card is the relabelled card's column among the 47 cards the
representative does not hold, in index order.

File, version 1: one line of JSON (format, version, category order, each
variant's table number and raise paytable, each table's per-category policy,
its size and byte range, the payload's sha256), then the binary payload. A
table in the payload is: u32 row count R, u32 class count N (little-endian);
R distinct 47-bit rows of 6 bytes (bit j: raise against column j); then N
pairs of LEB128 varints (colex number minus the previous one, row number),
classes ascending.
"""

from __future__ import annotations

import hashlib
import json
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from math import comb
from pathlib import Path
from typing import Any, Final

from clients import strategy as near_optimal
from clients.strategy import RANKS, SUITS, parse_card

__all__ = [
    "CATEGORIES",
    "FORMAT",
    "PRESETS_FILE",
    "STRATEGIES",
    "VERSION",
    "OptimalStrategy",
    "StrategyDataError",
    "canonical",
    "category_of",
    "load",
    "parse",
    "read_tables",
    "should_raise",
    "suit_masks",
]

FORMAT: Final = "casino-stud/optimal-strategy"
VERSION: Final = 1
#: The data files' package folder and the file holding every preset variant.
DATA_DIR: Final = "strategy_data"
PRESETS_FILE: Final = "presets.bin"
#: Hand categories, lowest first: the order of `server.game.categories.Category`.
CATEGORIES: Final = (
    "HIGH_CARD",
    "ACE_KING",
    "ONE_PAIR",
    "TWO_PAIR",
    "THREE_OF_A_KIND",
    "STRAIGHT",
    "FLUSH",
    "FULL_HOUSE",
    "FOUR_OF_A_KIND",
    "STRAIGHT_FLUSH",
    "ROYAL_FLUSH",
)
#: Per-category policies in a file: every deal raises, every deal folds, or look it up.
RAISE, FOLD, TABLE = "raise", "fold", "table"
ROW_BYTES: Final = 6
UP_COLUMNS: Final = 47

_ACE_KING: Final = (1 << 12) | (1 << 11)
_ROYAL: Final = 0b1_1111_0000_0000
_STRAIGHTS: Final = frozenset([0b1_0000_0000_1111] + [0b11111 << low for low in range(9)])
#: _COLEX[i][c] = C(c, i + 1): the colex number's term for card c at sorted position i.
_COLEX: Final = tuple(tuple(comb(c, i + 1) for c in range(52)) for i in range(5))
_INDEX: Final = {r + s: 4 * i + j for i, r in enumerate(RANKS) for j, s in enumerate(SUITS)}


class StrategyDataError(ValueError):
    """A strategy data file is missing, of another format, corrupt or lacks the variant."""


def _card_index(text: str) -> int:
    index = _INDEX.get(text)
    if index is None:
        rank, suit = parse_card(text)  # the other spellings ("10d", "as"), or ValueError
        index = 4 * rank + suit
    return index


def _hand(cards: Sequence[str]) -> list[int]:
    hand = [_card_index(c) for c in cards]
    if len(hand) != 5 or len(set(hand)) != 5:
        raise ValueError(f"a player hand is five distinct cards, got {list(cards)}")
    return hand


def suit_masks(hand: Sequence[int]) -> list[int]:
    """Each suit's rank mask (bit r: rank r, deuce 0) of card indices 4 * rank + suit."""
    masks = [0, 0, 0, 0]
    for index in hand:
        masks[index & 3] |= 1 << (index >> 2)
    return masks


def category_of(masks: Sequence[int]) -> int:
    """The hand's category (position in CATEGORIES) from its four suit rank masks."""
    a, b, c, d = masks
    ranks = a | b | c | d
    distinct = ranks.bit_count()
    if distinct == 5:
        flush = ranks in (a, b, c, d)
        if ranks in _STRAIGHTS:
            if flush:
                return 10 if ranks == _ROYAL else 9
            return 5
        if flush:
            return 6
        return 1 if ranks & _ACE_KING == _ACE_KING else 0
    if distinct == 4:
        return 2
    at_least_three = (a & b & (c | d)) | (c & d & (a | b))
    if distinct == 3:
        return 4 if at_least_three else 3
    return 8 if a & b & c & d else 7  # two ranks: quads or a full house


def canonical(hand: Sequence[int], masks: Sequence[int]) -> tuple[int, list[int], list[int]]:
    """The class (colex number), the representative's sorted cards, each suit's new label."""
    order = sorted(range(4), key=masks.__getitem__, reverse=True)
    relabel = [0, 0, 0, 0]
    for new, old in enumerate(order):
        relabel[old] = new
    rep = sorted((index & ~3) | relabel[index & 3] for index in hand)
    return sum(_COLEX[i][c] for i, c in enumerate(rep)), rep, relabel


@dataclass(frozen=True, eq=False)
class OptimalStrategy:
    """One variant's exact decisions: a policy per category plus the mixed classes' rows."""

    variant: str
    #: True (always raise), False (always fold) or None (look up `rows`), by category.
    policy: tuple[bool | None, ...]
    #: Class (colex number of the representative) -> 47-bit raise row over the up cards.
    rows: dict[int, int]

    def should_raise(self, cards: Sequence[str], up_card: str) -> bool:
        """True when raising beats folding (a fold on an exact tie, as `server.analysis.odds`)."""
        hand = _hand(cards)
        up = _card_index(up_card)
        if up in hand:
            raise ValueError(f"the up card {up_card} is in the player's hand")
        masks = suit_masks(hand)
        fixed = self.policy[category_of(masks)]
        if fixed is not None:
            return fixed
        colex, rep, relabel = canonical(hand, masks)
        mapped = (up & ~3) | relabel[up & 3]
        column = mapped - sum(c < mapped for c in rep)
        return bool(self._row(colex) >> column & 1)

    def raise_mask(self, cards: Sequence[str]) -> int:
        """All 47 decisions of a hand at once: bit u set = raise against up card u.

        u is the card index 4 * rank + suit, suits in "cdhs" order (as `server.game`).
        """
        hand = _hand(cards)
        masks = suit_masks(hand)
        fixed = self.policy[category_of(masks)]
        if fixed is not None:
            return sum(1 << u for u in range(52) if u not in hand) if fixed else 0
        colex, rep, relabel = canonical(hand, masks)
        row = self._row(colex)
        back = [0, 0, 0, 0]
        for old, new in enumerate(relabel):
            back[new] = old
        # Canonical column j is the j-th card the representative lacks: map it back.
        columns = (c for c in range(52) if c not in rep)
        return sum(1 << ((c & ~3) | back[c & 3]) for j, c in enumerate(columns) if row >> j & 1)

    def _row(self, colex: int) -> int:
        row = self.rows.get(colex)
        if row is None:
            raise StrategyDataError(f"{self.variant}: the table lacks hand class {colex}")
        return row


def _varints(data: bytes, offset: int, count: int) -> tuple[list[int], int]:
    out: list[int] = []
    value = shift = 0
    while len(out) < count:
        if offset >= len(data):
            raise StrategyDataError("the table ends inside its class list")
        byte = data[offset]
        offset += 1
        value |= (byte & 0x7F) << shift
        if byte & 0x80:
            shift += 7
        else:
            out.append(value)
            value = shift = 0
    return out, offset


def _decode_table(name: str, spec: dict[str, Any], payload: bytes) -> OptimalStrategy:
    try:
        policy_names = spec["policy"]
        policy = tuple({RAISE: True, FOLD: False, TABLE: None}[policy_names[c]] for c in CATEGORIES)
        start, length = int(spec["offset"]), int(spec["length"])
        data = payload[start : start + length]
        n_rows, n_classes = struct.unpack_from("<II", data)
    except (KeyError, TypeError, ValueError, struct.error) as e:
        raise StrategyDataError(f"{name}: malformed table entry: {e!r}") from None
    rows_end = 8 + ROW_BYTES * n_rows
    if len(data) < rows_end:
        raise StrategyDataError(f"{name}: the table ends inside its rows")
    distinct = [
        int.from_bytes(data[i : i + ROW_BYTES], "little") for i in range(8, rows_end, ROW_BYTES)
    ]
    numbers, end = _varints(data, rows_end, 2 * n_classes)
    if end != len(data) or n_classes != spec.get("classes"):
        raise StrategyDataError(f"{name}: the table's size does not match its header")
    if numbers and max(numbers[1::2]) >= n_rows:
        raise StrategyDataError(f"{name}: a class names a row the table lacks")
    rows: dict[int, int] = {}
    colex = 0
    for delta, row in zip(numbers[::2], numbers[1::2], strict=True):
        colex += delta
        rows[colex] = distinct[row]
    return OptimalStrategy(name, policy, rows)


def read_tables(data: bytes) -> tuple[dict[str, Any], bytes]:
    """Split a data file into its checked header and payload."""
    line, sep, payload = data.partition(b"\n")
    try:
        header: dict[str, Any] = json.loads(line) if sep else {}
    except ValueError as e:
        raise StrategyDataError(f"the header is not JSON: {e}") from None
    if header.get("format") != FORMAT or header.get("version") != VERSION:
        raise StrategyDataError(
            f"not a {FORMAT} file of version {VERSION}: "
            f"{header.get('format')!r} version {header.get('version')!r}"
        )
    if header.get("categories") != list(CATEGORIES):
        raise StrategyDataError("the file orders the hand categories differently")
    if hashlib.sha256(payload).hexdigest() != header.get("sha256"):
        raise StrategyDataError("the payload does not match its sha256: the file is corrupt")
    return header, payload


def parse(data: bytes, variant: str) -> OptimalStrategy:
    """The decisions of `variant` from the bytes of a data file."""
    header, payload = read_tables(data)
    entry = header.get("variants", {}).get(variant)
    if entry is None:
        have = ", ".join(sorted(header.get("variants", {})))
        raise StrategyDataError(f"no optimal strategy for variant {variant!r} (have {have})")
    try:
        spec = header["tables"][entry["table"]]
    except (KeyError, IndexError, TypeError) as e:
        raise StrategyDataError(f"{variant}: no table entry: {e!r}") from None
    return _decode_table(variant, spec, payload)


@cache
def load(variant: str = "casino-stud", path: str | Path | None = None) -> OptimalStrategy:
    """The exported decisions of `variant`, from `path` or the package's data.

    Without a path, `strategy_data/<variant>.bin` (a variant exported from a
    config file) is preferred to the presets' file. Cached: bots share one copy.
    """
    if path is not None:
        return parse(Path(path).read_bytes(), variant)
    folder = resources.files("clients").joinpath(DATA_DIR)
    own = folder.joinpath(f"{variant}.bin")
    source = own if own.is_file() else folder.joinpath(PRESETS_FILE)
    try:
        data = source.read_bytes()
    except OSError as e:
        raise StrategyDataError(f"cannot read the strategy data: {e}") from None
    return parse(data, variant)


def should_raise(cards: Sequence[str], up_card: str) -> bool:
    """The exact decision at any preset table: the bots' default `Strategy`.

    stud-poker, casino-stud and bermuda have one and the same optimal play (their
    paytables differ only on flushes and full houses, which always raise), so the
    presets' file maps all three to one table and casino-stud's answers for each.
    """
    return load().should_raise(cards, up_card)


#: The bots' strategies by the name `stud-client bots --strategy` takes.
STRATEGIES: Final[dict[str, Callable[[Sequence[str], str], bool]]] = {
    "optimal": should_raise,
    "near-optimal": near_optimal.should_raise,
}
