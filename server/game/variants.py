"""Game variants: the raise paytable and the progressive prizes of each rule set.

The three seeds disagree on payouts and on whether a folded hand still collects
the progressive, so the server does not pick one: each is a preset here, exactly
as its seed gives it, and an operator may add more from a TOML file
(`load_variants`). Everything is integer cents and integer ratios; a float never
reaches a payout.

Pure: no I/O except `load_variants`, which reads the one file it is given.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from types import MappingProxyType
from typing import Any, Final, TypeVar

from server.game.categories import Category

__all__ = [
    "VARIANTS",
    "Odds",
    "Prize",
    "Variant",
    "VariantError",
    "load_variants",
    "parse_variants",
]

#: Basis points in 100%: percents are stored as integer hundredths of a percent.
FULL_BP: Final = 10_000

#: Sanity bound on each side of a ratio, so a typo cannot pay a billion to one.
MAX_RATIO_TERM: Final = 1_000_000

_NAME_RE: Final = re.compile(r"[a-z0-9](?:[a-z0-9_-]{0,38}[a-z0-9])?")
_ODDS_RE: Final = re.compile(r"\s*(\d+)\s*:\s*(\d+)\s*")

_HIGH_TO_LOW: Final = tuple(sorted(Category, reverse=True))

_V = TypeVar("_V")


class VariantError(ValueError):
    """A variant definition is invalid; the message names the offending field."""


def _is_int(value: object) -> bool:
    # bool is an int subclass; True must never be read as 1 cent or 1:1.
    return type(value) is int


@dataclass(frozen=True, slots=True)
class Odds:
    """A payout ratio N:M on the raise: a win of `stake` pays floor(stake * N / M).

    The seeds only use N:1; N:M (e.g. 3:2) lets a custom table pay fractions
    without ever using a float.
    """

    numerator: int
    denominator: int = 1

    def __post_init__(self) -> None:
        for attr in ("numerator", "denominator"):
            value = getattr(self, attr)
            if not _is_int(value) or not 1 <= value <= MAX_RATIO_TERM:
                raise VariantError(
                    f"odds {attr} must be an int in 1..{MAX_RATIO_TERM}, got {value!r}"
                )

    @classmethod
    def parse(cls, value: object) -> Odds:
        """`"5:1"`, `"3:2"` or an int N meaning N:1."""
        if _is_int(value):
            return cls(value)  # type: ignore[arg-type]
        if isinstance(value, str):
            m = _ODDS_RE.fullmatch(value)
            if m is None:
                raise VariantError(f"odds must look like 'N:M', got {value!r}")
            return cls(int(m.group(1)), int(m.group(2)))
        raise VariantError(f"odds must be a 'N:M' string or an int, got {type(value).__name__}")

    def pays(self, stake_cents: int) -> int:
        """Winnings (not counting the returned stake) on `stake_cents`, rounded down."""
        if not _is_int(stake_cents) or stake_cents < 0:
            raise ValueError(f"stake must be a non-negative int of cents, got {stake_cents!r}")
        return stake_cents * self.numerator // self.denominator

    def __str__(self) -> str:
        return f"{self.numerator}:{self.denominator}"


@dataclass(frozen=True, slots=True)
class Prize:
    """A progressive prize: a share of the meter or a fixed amount, exactly one.

    Percent prizes are taken from the shared meter; fixed prizes are paid by the
    house (DESIGN.md, "Money"), so the engine needs to know which kind it holds.
    """

    percent_bp: int | None = None
    fixed_cents: int | None = None

    def __post_init__(self) -> None:
        if (self.percent_bp is None) == (self.fixed_cents is None):
            raise VariantError("a prize is either percent_bp or fixed_cents, exactly one")
        if self.percent_bp is not None and (
            not _is_int(self.percent_bp) or not 1 <= self.percent_bp <= FULL_BP
        ):
            raise VariantError(
                f"percent_bp must be an int in 1..{FULL_BP}, got {self.percent_bp!r}"
            )
        if self.fixed_cents is not None and (
            not _is_int(self.fixed_cents) or self.fixed_cents <= 0
        ):
            raise VariantError(f"fixed_cents must be an int > 0, got {self.fixed_cents!r}")

    @classmethod
    def percent(cls, percent_bp: int) -> Prize:
        return cls(percent_bp=percent_bp)

    @classmethod
    def fixed(cls, cents: int) -> Prize:
        return cls(fixed_cents=cents)

    @property
    def is_percent(self) -> bool:
        return self.percent_bp is not None

    def describe(self) -> str:
        """What the lobby shows: "100% of jackpot", "12.5% of jackpot", "$500", "$12.50"."""
        if self.percent_bp is not None:
            whole, frac = divmod(self.percent_bp, 100)
            text = f"{whole}" if frac == 0 else f"{whole}.{frac:02d}".rstrip("0")
            return f"{text}% of jackpot"
        assert self.fixed_cents is not None
        return _dollars(self.fixed_cents)


def _dollars(cents: int) -> str:
    dollars, rest = divmod(cents, 100)
    return f"${dollars:,}" if rest == 0 else f"${dollars:,}.{rest:02d}"


#: `Variant.spec()`: a variant's fields, in order, its mappings as plain dicts.
VariantSpec = tuple[str, str, dict[Any, Any], dict[Any, Any], bool, int, str]


@dataclass(frozen=True, slots=True)
class Variant:
    """One rule set: what a winning raise pays and what the progressive pays.

    `raise_paytable` covers every category, because any category can win (a
    hand only has to beat the dealer's); `progressive` lists only the winning
    categories. Both are stored as read-only mappings ordered low to high.
    """

    name: str
    title: str
    raise_paytable: Mapping[Category, Odds]
    progressive: Mapping[Category, Prize]
    folded_collects_progressive: bool
    progressive_stake_cents: int = 100
    source: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or _NAME_RE.fullmatch(self.name) is None:
            raise VariantError(
                f"variant name must be 1-40 chars of a-z, 0-9, '-', '_' "
                f"(not starting or ending with '-'/'_'), got {self.name!r}"
            )
        where = f"variants.{self.name}"
        if not isinstance(self.title, str) or not self.title.strip():
            raise VariantError(f"{where}.title: must be a non-empty string, got {self.title!r}")
        if type(self.folded_collects_progressive) is not bool:
            raise VariantError(
                f"{where}.folded_collects_progressive: must be true or false, "
                f"got {self.folded_collects_progressive!r}"
            )
        if not _is_int(self.progressive_stake_cents) or self.progressive_stake_cents <= 0:
            raise VariantError(
                f"{where}.progressive_stake_cents: must be an int > 0, "
                f"got {self.progressive_stake_cents!r}"
            )
        if not isinstance(self.source, str):
            raise VariantError(f"{where}.source: must be a string, got {self.source!r}")
        paytable = _frozen_table(self.raise_paytable, Odds, f"{where}.raise_paytable")
        missing = [c.name for c in Category if c not in paytable]
        if missing:
            raise VariantError(f"{where}.raise_paytable: missing {', '.join(missing)}")
        progressive = _frozen_table(self.progressive, Prize, f"{where}.progressive")
        object.__setattr__(self, "raise_paytable", paytable)
        object.__setattr__(self, "progressive", progressive)

    def __hash__(self) -> int:
        # The generated hash would hash the mapping proxies, which are unhashable.
        return hash(
            (
                self.name,
                self.title,
                tuple(self.raise_paytable.items()),
                tuple(self.progressive.items()),
                self.folded_collects_progressive,
                self.progressive_stake_cents,
                self.source,
            )
        )

    def spec(self) -> VariantSpec:
        """The variant as plain values, which pickle (its read-only mappings do not):
        `Variant(*spec)` builds it again, in a child process say."""
        return (
            self.name,
            self.title,
            dict(self.raise_paytable),
            dict(self.progressive),
            self.folded_collects_progressive,
            self.progressive_stake_cents,
            self.source,
        )

    def raise_odds(self, category: Category) -> Odds:
        """The odds a winning raise with a hand of `category` is paid at."""
        return self.raise_paytable[Category(category)]

    def progressive_prize(self, category: Category) -> Prize | None:
        """The progressive prize for `category`, or None if it wins nothing."""
        return self.progressive.get(Category(category))

    def to_public(self) -> dict[str, Any]:
        """The lobby's view: only str/int/bool/list/dict, high categories first.

        `source` is left out: for a custom variant it is a server file path.
        """
        prizes: list[dict[str, Any]] = []
        for cat in _HIGH_TO_LOW:
            prize = self.progressive.get(cat)
            if prize is None:
                continue
            entry: dict[str, Any] = {"category": cat.name, "label": cat.label}
            if prize.percent_bp is not None:
                entry["percent_bp"] = prize.percent_bp
            else:
                entry["fixed_cents"] = prize.fixed_cents
            entry["text"] = prize.describe()
            prizes.append(entry)
        return {
            "name": self.name,
            "title": self.title,
            "raise_paytable": [
                {"category": cat.name, "label": cat.label, "odds": str(self.raise_paytable[cat])}
                for cat in _HIGH_TO_LOW
            ],
            "progressive": prizes,
            "progressive_stake_cents": self.progressive_stake_cents,
            "folded_collects_progressive": self.folded_collects_progressive,
        }


def _frozen_table(table: object, kind: type[_V], where: str) -> Mapping[Category, _V]:
    if not isinstance(table, Mapping):
        raise VariantError(f"{where}: must be a mapping, got {type(table).__name__}")
    out: dict[Category, _V] = {}
    for key, value in table.items():
        if type(key) is not Category:
            raise VariantError(f"{where}: keys must be Category members, got {key!r}")
        if not isinstance(value, kind):
            raise VariantError(
                f"{where}.{key.name}: must be {kind.__name__}, got {type(value).__name__}"
            )
        out[key] = value
    return MappingProxyType(dict(sorted(out.items())))


# --- The three presets, line by line from their seeds ------------------------

_C = Category


def _odds_table(*pairs: tuple[Category, int]) -> dict[Category, Odds]:
    return {cat: Odds(n) for cat, n in pairs}


_STUD_POKER = Variant(
    name="stud-poker",
    title="Stud Poker",
    # "One Pair or less 1:1": every category up to one pair, so HIGH_CARD and
    # ACE_KING too.
    raise_paytable=_odds_table(
        (_C.HIGH_CARD, 1),
        (_C.ACE_KING, 1),
        (_C.ONE_PAIR, 1),
        (_C.TWO_PAIR, 2),
        (_C.THREE_OF_A_KIND, 3),
        (_C.STRAIGHT, 4),
        (_C.FLUSH, 5),
        (_C.FULL_HOUSE, 7),
        (_C.FOUR_OF_A_KIND, 20),
        (_C.STRAIGHT_FLUSH, 50),
        (_C.ROYAL_FLUSH, 100),
    ),
    progressive={
        _C.FLUSH: Prize.fixed(5_000),
        _C.FULL_HOUSE: Prize.fixed(10_000),
        _C.FOUR_OF_A_KIND: Prize.fixed(50_000),
        _C.STRAIGHT_FLUSH: Prize.percent(1_000),
        _C.ROYAL_FLUSH: Prize.percent(10_000),
    },
    # "Regardless of the outcome of the poker hand, any player holding a
    # Jackpot hand who has wagered the Progressive Jackpot will receive a bonus".
    folded_collects_progressive=True,
    progressive_stake_cents=100,
    source="seed stud-poker.txt",
)

_CASINO_STUD = Variant(
    name="casino-stud",
    title="Casino Stud Poker",
    # "1 pair or less: Even money" covers HIGH_CARD and ACE_KING too.
    raise_paytable=_odds_table(
        (_C.HIGH_CARD, 1),
        (_C.ACE_KING, 1),
        (_C.ONE_PAIR, 1),
        (_C.TWO_PAIR, 2),
        (_C.THREE_OF_A_KIND, 3),
        (_C.STRAIGHT, 4),
        (_C.FLUSH, 6),
        (_C.FULL_HOUSE, 8),
        (_C.FOUR_OF_A_KIND, 20),
        (_C.STRAIGHT_FLUSH, 50),
        (_C.ROYAL_FLUSH, 100),
    ),
    # The seed names the qualifying hands (Royal Flush, Straight Flush, Four of
    # a Kind, Full House, Flush) but leaves the amounts "to be agreed": we use
    # the stud-poker seed's amounts for the same five hands.
    progressive=dict(_STUD_POKER.progressive),
    # "A Progressive Jackpot wager is lost if the player folds his hands".
    folded_collects_progressive=False,
    # The seed gives no stake; the other two seeds' $1 is used.
    progressive_stake_cents=100,
    source=(
        "seed casino-stud-poker.txt; progressive amounts and $1 stake "
        "(left 'to be agreed' by the seed) taken from stud-poker.txt"
    ),
)

_BERMUDA = Variant(
    name="bermuda",
    title="Bermuda Poker",
    raise_paytable=_odds_table(
        # Not in the seed's table: a high card without ace-king can never beat a
        # qualifying dealer (who holds ace-king or better), and against a
        # non-qualifying dealer only the ante is paid, so this line is never
        # used; it is here because a paytable must cover every category.
        (_C.HIGH_CARD, 1),
        (_C.ACE_KING, 1),
        (_C.ONE_PAIR, 1),
        (_C.TWO_PAIR, 2),
        (_C.THREE_OF_A_KIND, 3),
        (_C.STRAIGHT, 4),
        (_C.FLUSH, 5),
        (_C.FULL_HOUSE, 7),
        (_C.FOUR_OF_A_KIND, 20),
        (_C.STRAIGHT_FLUSH, 50),
        (_C.ROYAL_FLUSH, 100),
    ),
    progressive={
        _C.FLUSH: Prize.fixed(10_000),
        _C.FULL_HOUSE: Prize.fixed(15_000),
        _C.FOUR_OF_A_KIND: Prize.fixed(25_000),
        _C.STRAIGHT_FLUSH: Prize.percent(1_000),
        _C.ROYAL_FLUSH: Prize.percent(10_000),
    },
    # "The dealer does not need to qualify for you to win based on the value of
    # your own five-card hand": the prize depends on the player's five cards
    # alone, not on playing the hand out, so a fold still collects.
    folded_collects_progressive=True,
    progressive_stake_cents=100,
    source="seed bermuda-poker.txt",
)

#: The presets by name, read-only.
VARIANTS: Final[Mapping[str, Variant]] = MappingProxyType(
    {v.name: v for v in (_STUD_POKER, _CASINO_STUD, _BERMUDA)}
)


# --- Custom variants from TOML -------------------------------------------------
#
# File format (one file may define several variants):
#
#   [variants.<name>]
#   title = "..."                        required
#   base = "casino-stud"                 optional: a preset to start from
#   replace = true                       required to reuse a preset's name
#   folded_collects_progressive = false  required without base
#   progressive_stake_cents = 500        optional, default 100 (or base's)
#   [variants.<name>.raise_paytable]     without base: every category; with
#   FLUSH = "6:1"  or  FLUSH = 6         base: only the ones that change
#   [variants.<name>.progressive]        without base: required (may be empty);
#   ROYAL_FLUSH = { percent = 100 }      with base: merged over base's prizes,
#   FLUSH = { cents = 7500 }             `FLUSH = false` removes one
#
# Category names are the Category enum names, case-insensitive, '-' read as '_'.

_VARIANT_KEYS: Final = frozenset(
    {
        "title",
        "base",
        "replace",
        "folded_collects_progressive",
        "progressive_stake_cents",
        "raise_paytable",
        "progressive",
    }
)


def load_variants(
    path: str | os.PathLike[str], presets: Mapping[str, Variant] = VARIANTS
) -> dict[str, Variant]:
    """Read and validate a TOML variants file; errors name the file and field."""
    source = os.fspath(path)
    try:
        with open(source, "rb") as f:
            raw = f.read()
    except OSError as exc:
        raise VariantError(f"{source}: cannot read: {exc.strerror or exc}") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise VariantError(f"{source}: not UTF-8: {exc}") from exc
    return parse_variants(text, source=source, presets=presets)


def parse_variants(
    data: str | Mapping[str, Any],
    source: str = "<string>",
    presets: Mapping[str, Variant] = VARIANTS,
) -> dict[str, Variant]:
    """Validate TOML text (or its already-parsed table) into variants by name.

    A name equal to a preset's is refused unless the entry says `replace = true`,
    so a typo cannot silently change a well-known table.
    """
    if isinstance(data, str):
        try:
            doc: Mapping[str, Any] = tomllib.loads(data)
        except tomllib.TOMLDecodeError as exc:
            raise VariantError(f"{source}: invalid TOML: {exc}") from exc
    elif isinstance(data, Mapping):
        doc = data
    else:
        raise VariantError(f"{source}: expected TOML text or a table, got {type(data).__name__}")
    unknown = sorted(str(k) for k in doc if k != "variants")
    if unknown:
        raise VariantError(f"{source}: unknown key {unknown[0]!r} (expected only 'variants')")
    if "variants" not in doc:
        raise VariantError(f"{source}: variants: missing (no [variants.<name>] table)")
    entries = doc["variants"]
    if not isinstance(entries, Mapping):
        raise VariantError(f"{source}: variants: must be a table, got {type(entries).__name__}")
    out: dict[str, Variant] = {}
    for name, entry in entries.items():
        out[name] = _parse_one(name, entry, source, presets)
    return out


def _parse_one(name: object, entry: object, source: str, presets: Mapping[str, Variant]) -> Variant:
    where = f"variants.{name}"
    if not isinstance(name, str) or _NAME_RE.fullmatch(name) is None:
        raise VariantError(
            f"{where}: invalid name {name!r}: use 1-40 chars of a-z, 0-9, '-', '_' "
            "(not starting or ending with '-'/'_')"
        )
    if not isinstance(entry, Mapping):
        raise VariantError(f"{where}: must be a table, got {type(entry).__name__}")
    for key in entry:
        if key not in _VARIANT_KEYS:
            raise VariantError(
                f"{where}: unknown key {key!r} (expected one of {', '.join(sorted(_VARIANT_KEYS))})"
            )

    replace = entry.get("replace", False)
    if type(replace) is not bool:
        raise VariantError(f"{where}.replace: must be true or false, got {replace!r}")
    if name in presets and not replace:
        raise VariantError(
            f"{where}: name clashes with the preset {name!r}; "
            "set replace = true to override it or choose another name"
        )

    base: Variant | None = None
    if "base" in entry:
        base_name = entry["base"]
        if not isinstance(base_name, str):
            raise VariantError(f"{where}.base: must be a string, got {type(base_name).__name__}")
        base = presets.get(base_name)
        if base is None:
            raise VariantError(
                f"{where}.base: unknown preset {base_name!r} "
                f"(expected one of {', '.join(sorted(presets))})"
            )

    if "title" not in entry:
        raise VariantError(f"{where}.title: missing")
    title = entry["title"]
    if not isinstance(title, str) or not title.strip():
        raise VariantError(f"{where}.title: must be a non-empty string, got {title!r}")

    folded = entry.get("folded_collects_progressive")
    if folded is None:
        if base is None:
            raise VariantError(f"{where}.folded_collects_progressive: missing (no base to inherit)")
        folded = base.folded_collects_progressive
    if type(folded) is not bool:
        raise VariantError(
            f"{where}.folded_collects_progressive: must be true or false, got {folded!r}"
        )

    stake = entry.get(
        "progressive_stake_cents", base.progressive_stake_cents if base is not None else 100
    )
    if not _is_int(stake):
        raise VariantError(
            f"{where}.progressive_stake_cents: must be an integer, got {type(stake).__name__}"
        )
    if stake <= 0:
        raise VariantError(f"{where}.progressive_stake_cents: must be > 0, got {stake}")

    paytable = _parse_paytable(entry.get("raise_paytable"), base, f"{where}.raise_paytable")
    progressive = _parse_progressive(entry.get("progressive"), base, f"{where}.progressive")

    origin = f"{source}#{where}"
    if base is not None:
        origin += f" (based on {base.name}: {base.source})"
    return Variant(
        name=name,
        title=title,
        raise_paytable=paytable,
        progressive=progressive,
        folded_collects_progressive=folded,
        progressive_stake_cents=stake,
        source=origin,
    )


def _category(key: object, where: str, seen: dict[Category, str]) -> Category:
    if not isinstance(key, str):
        raise VariantError(f"{where}: category names are strings, got {key!r}")
    try:
        cat = Category[key.strip().upper().replace("-", "_")]
    except KeyError:
        raise VariantError(
            f"{where}.{key}: unknown category (expected one of "
            f"{', '.join(c.name for c in Category)})"
        ) from None
    if cat in seen:
        raise VariantError(f"{where}.{key}: duplicate of {seen[cat]!r}")
    seen[cat] = key
    return cat


def _parse_paytable(table: object, base: Variant | None, where: str) -> dict[Category, Odds]:
    if table is None:
        if base is None:
            raise VariantError(f"{where}: missing (required without base)")
        return dict(base.raise_paytable)
    if not isinstance(table, Mapping):
        raise VariantError(f"{where}: must be a table, got {type(table).__name__}")
    out: dict[Category, Odds] = dict(base.raise_paytable) if base is not None else {}
    seen: dict[Category, str] = {}
    for key, value in table.items():
        cat = _category(key, where, seen)
        try:
            out[cat] = Odds.parse(value)
        except VariantError as exc:
            raise VariantError(f"{where}.{key}: {exc}") from None
    missing = [c.name for c in Category if c not in out]
    if missing:
        raise VariantError(f"{where}: missing {', '.join(missing)}")
    return out


def _parse_progressive(table: object, base: Variant | None, where: str) -> dict[Category, Prize]:
    if table is None:
        if base is None:
            raise VariantError(f"{where}: missing (required without base; may be empty)")
        return dict(base.progressive)
    if not isinstance(table, Mapping):
        raise VariantError(f"{where}: must be a table, got {type(table).__name__}")
    out: dict[Category, Prize] = dict(base.progressive) if base is not None else {}
    seen: dict[Category, str] = {}
    for key, value in table.items():
        cat = _category(key, where, seen)
        if value is False:
            out.pop(cat, None)
            continue
        out[cat] = _parse_prize(value, f"{where}.{key}")
    return out


def _parse_prize(value: object, where: str) -> Prize:
    if not isinstance(value, Mapping):
        raise VariantError(
            f"{where}: must be {{ percent = N }}, {{ cents = N }} or false (to drop "
            f"a base prize), got {value!r}"
        )
    keys = set(value)
    unknown = sorted(str(k) for k in keys - {"percent", "cents"})
    if unknown:
        raise VariantError(f"{where}: unknown key {unknown[0]!r} (expected 'percent' or 'cents')")
    if len(keys) != 1:
        raise VariantError(f"{where}: give exactly one of 'percent' or 'cents'")
    if "cents" in value:
        cents = value["cents"]
        if not _is_int(cents):
            raise VariantError(f"{where}.cents: must be an integer, got {type(cents).__name__}")
        if cents <= 0:
            raise VariantError(f"{where}.cents: must be > 0, got {cents}")
        return Prize.fixed(cents)
    return Prize.percent(_percent_bp(value["percent"], f"{where}.percent"))


def _percent_bp(value: object, where: str) -> int:
    """A percent (int, float or decimal string, at most 2 places) as basis points.

    A TOML float goes through its shortest repr (12.5 -> "12.5"), so the value
    the operator wrote is what is checked, never a binary approximation.
    """
    if type(value) is int or type(value) is float:
        text = repr(value)
    elif isinstance(value, str):
        text = value.strip()
    else:
        raise VariantError(f"{where}: must be a number, got {type(value).__name__}")
    try:
        number = Decimal(text)
    except InvalidOperation:
        raise VariantError(f"{where}: must be a number, got {value!r}") from None
    if not number.is_finite():
        raise VariantError(f"{where}: must be a finite number, got {value!r}")
    if not 0 < number <= 100:
        raise VariantError(f"{where}: must be in (0, 100], got {value}")
    bp = number * 100
    if bp != bp.to_integral_value():
        raise VariantError(f"{where}: at most 2 decimal places, got {value}")
    return int(bp)
