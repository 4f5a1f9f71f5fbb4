"""Variant presets against their seeds, and the TOML loader's validation."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.game.categories import Category
from server.game.variants import (
    VARIANTS,
    Odds,
    Prize,
    Variant,
    VariantError,
    load_variants,
    parse_variants,
)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "variants" / "high-roller.toml"

C = Category

# --- The seeds' tables, copied line by line --------------------------------

# stud-poker.txt, "Player's Hand Bonus Payout" (raise).
STUD_POKER_RAISE = {
    # "One Pair or less 1:1"
    C.HIGH_CARD: "1:1",
    C.ACE_KING: "1:1",
    C.ONE_PAIR: "1:1",
    C.TWO_PAIR: "2:1",  # "Two Pair 2:1"
    C.THREE_OF_A_KIND: "3:1",  # "Three of a Kind 3:1"
    C.STRAIGHT: "4:1",  # "Straight 4:1"
    C.FLUSH: "5:1",  # "Flush 5:1"
    C.FULL_HOUSE: "7:1",  # "Full House 7:1"
    C.FOUR_OF_A_KIND: "20:1",  # "Four of a Kind 20:1"
    C.STRAIGHT_FLUSH: "50:1",  # "Straight Flush 50:1"
    C.ROYAL_FLUSH: "100:1",  # "Royal Flush 100:1"
}
# stud-poker.txt, progressive "Bonus Payout".
STUD_POKER_PROGRESSIVE = {
    C.FLUSH: "$50",  # "Flush $50"
    C.FULL_HOUSE: "$100",  # "Full House $100"
    C.FOUR_OF_A_KIND: "$500",  # "Four of a Kind $500"
    C.STRAIGHT_FLUSH: "10% of jackpot",  # "Straight Flush 10% of Jackpot"
    C.ROYAL_FLUSH: "100% of jackpot",  # "Royal Flush 100% of Jackpot"
}

# casino-stud-poker.txt, "Odds and Bonus Payments".
CASINO_STUD_RAISE = {
    # "1 pair or less: Even money"
    C.HIGH_CARD: "1:1",
    C.ACE_KING: "1:1",
    C.ONE_PAIR: "1:1",
    C.TWO_PAIR: "2:1",  # "2 pairs: 2 to 1"
    C.THREE_OF_A_KIND: "3:1",  # "Three of a Kind: 3 to 1"
    C.STRAIGHT: "4:1",  # "Straight: 4 to 1"
    C.FLUSH: "6:1",  # "Flush: 6 to 1"
    C.FULL_HOUSE: "8:1",  # "Full House: 8 to 1"
    C.FOUR_OF_A_KIND: "20:1",  # "Four of a Kind: 20 to 1"
    C.STRAIGHT_FLUSH: "50:1",  # "Straight Flush: 50 to 1"
    C.ROYAL_FLUSH: "100:1",  # "Royal Flush: 100 to 1"
}
# casino-stud-poker.txt lists exactly these qualifying hands: "Royal Flush,
# Straight Flush, Four of a Kind, Full House, Flush"; amounts "to be agreed"
# (decided: stud-poker's).
CASINO_STUD_PROGRESSIVE_HANDS = {
    C.ROYAL_FLUSH,
    C.STRAIGHT_FLUSH,
    C.FOUR_OF_A_KIND,
    C.FULL_HOUSE,
    C.FLUSH,
}

# bermuda-poker.txt, "A winning hand pays out according to the following odds".
BERMUDA_RAISE = {
    C.ROYAL_FLUSH: "100:1",  # "| Royal Flush | 100:1 |"
    C.STRAIGHT_FLUSH: "50:1",  # "| Straight Flush | 50:1 |"
    C.FOUR_OF_A_KIND: "20:1",  # "| Four of a Kind | 20:1 |"
    C.FULL_HOUSE: "7:1",  # "| Full House | 7:1 |"
    C.FLUSH: "5:1",  # "| Flush | 5:1 |"
    C.STRAIGHT: "4:1",  # "| Straight | 4:1 |"
    C.THREE_OF_A_KIND: "3:1",  # "| Three of a Kind | 3:1 |"
    C.TWO_PAIR: "2:1",  # "| Two Pair | 2:1 |"
    C.ONE_PAIR: "1:1",  # "| One Pair | 1:1 |"
    C.ACE_KING: "1:1",  # "| Ace-King | 1:1 |"
    C.HIGH_CARD: "1:1",  # not in the seed: never used, table must be complete
}
# bermuda-poker.txt, progressive "Payout".
BERMUDA_PROGRESSIVE = {
    C.ROYAL_FLUSH: "100% of jackpot",  # "| Royal Flush | 100% of the Jackpot |"
    C.STRAIGHT_FLUSH: "10% of jackpot",  # "| Straight Flush | 10% of the Jackpot |"
    C.FOUR_OF_A_KIND: "$250",  # "| Four of a Kind | $250 |"
    C.FULL_HOUSE: "$150",  # "| Full House | $150 |"
    C.FLUSH: "$100",  # "| Flush | $100 |"
}


def _raise_table(v: Variant) -> dict[Category, str]:
    return {cat: str(v.raise_odds(cat)) for cat in Category}


def _progressive_table(v: Variant) -> dict[Category, str]:
    return {cat: prize.describe() for cat, prize in v.progressive.items()}


def test_exactly_three_presets() -> None:
    assert sorted(VARIANTS) == ["bermuda", "casino-stud", "stud-poker"]
    for name, v in VARIANTS.items():
        assert v.name == name
        assert v.progressive_stake_cents == 100  # "$1.00 per hand" / "$1 bet"
        assert v.source
    with pytest.raises(TypeError):
        VARIANTS["x"] = VARIANTS["bermuda"]  # type: ignore[index]


def test_stud_poker_matches_seed() -> None:
    v = VARIANTS["stud-poker"]
    assert _raise_table(v) == STUD_POKER_RAISE
    assert _progressive_table(v) == STUD_POKER_PROGRESSIVE
    # "Regardless of the outcome of the poker hand ..."
    assert v.folded_collects_progressive is True


def test_casino_stud_matches_seed() -> None:
    v = VARIANTS["casino-stud"]
    assert _raise_table(v) == CASINO_STUD_RAISE
    assert set(v.progressive) == CASINO_STUD_PROGRESSIVE_HANDS
    assert _progressive_table(v) == STUD_POKER_PROGRESSIVE  # decided: stud-poker's amounts
    assert "to be agreed" in v.source
    # "A Progressive Jackpot wager is lost if the player folds"
    assert v.folded_collects_progressive is False


def test_bermuda_matches_seed() -> None:
    v = VARIANTS["bermuda"]
    assert _raise_table(v) == BERMUDA_RAISE
    assert _progressive_table(v) == BERMUDA_PROGRESSIVE
    # "The dealer does not need to qualify for you to win based on ... your own five-card hand"
    assert v.folded_collects_progressive is True


def test_preset_prize_kinds_and_amounts() -> None:
    v = VARIANTS["bermuda"]
    assert v.progressive_prize(C.ROYAL_FLUSH) == Prize(percent_bp=10_000)
    assert v.progressive_prize(C.STRAIGHT_FLUSH) == Prize(percent_bp=1_000)
    assert v.progressive_prize(C.FOUR_OF_A_KIND) == Prize(fixed_cents=25_000)
    assert v.progressive_prize(C.STRAIGHT) is None
    assert v.progressive_prize(C.HIGH_CARD) is None


def test_to_public_is_plain_and_ordered() -> None:
    pub = VARIANTS["casino-stud"].to_public()
    # Plain types only: JSON round-trips it unchanged.
    assert json.loads(json.dumps(pub)) == pub
    assert pub["name"] == "casino-stud"
    assert pub["title"] == "Casino Stud Poker"
    assert pub["progressive_stake_cents"] == 100
    assert pub["folded_collects_progressive"] is False
    assert "source" not in pub
    cats = [row["category"] for row in pub["raise_paytable"]]
    assert cats == [c.name for c in sorted(Category, reverse=True)]
    assert pub["raise_paytable"][0] == {
        "category": "ROYAL_FLUSH",
        "label": "Royal Flush",
        "odds": "100:1",
    }
    assert pub["raise_paytable"][4] == {"category": "FLUSH", "label": "Flush", "odds": "6:1"}
    prizes = pub["progressive"]
    assert [p["category"] for p in prizes] == [
        "ROYAL_FLUSH",
        "STRAIGHT_FLUSH",
        "FOUR_OF_A_KIND",
        "FULL_HOUSE",
        "FLUSH",
    ]
    assert prizes[0]["percent_bp"] == 10_000 and "fixed_cents" not in prizes[0]
    assert prizes[2]["fixed_cents"] == 50_000 and "percent_bp" not in prizes[2]
    assert prizes[2]["text"] == "$500"


# --- Odds and Prize ----------------------------------------------------------


@pytest.mark.parametrize(
    ("odds", "stake", "expected"),
    [
        (Odds(1), 2000, 2000),
        (Odds(100), 3, 300),
        (Odds(3, 2), 5, 7),  # 7.5 rounds down
        (Odds(3, 2), 4, 6),
        (Odds(5, 3), 1, 1),
        (Odds(1, 2), 1, 0),
    ],
)
def test_odds_pays_floor(odds: Odds, stake: int, expected: int) -> None:
    assert odds.pays(stake) == expected


@given(n=st.integers(1, 1_000_000), m=st.integers(1, 1_000_000), stake=st.integers(0, 10**12))
def test_odds_pays_is_exact_floor(n: int, m: int, stake: int) -> None:
    paid = Odds(n, m).pays(stake)
    assert type(paid) is int
    assert paid * m <= stake * n < (paid + 1) * m


@pytest.mark.parametrize(
    ("text", "expected"),
    [("5:1", Odds(5)), (" 3 : 2 ", Odds(3, 2)), (7, Odds(7, 1)), ("100:1", Odds(100))],
)
def test_odds_parse(text: object, expected: Odds) -> None:
    assert Odds.parse(text) == expected


@pytest.mark.parametrize("bad", ["5", "5:0", "0:1", "-1:1", "1.5:1", True, 1.5, 0, None, "a:b"])
def test_odds_parse_rejects(bad: object) -> None:
    with pytest.raises(VariantError):
        Odds.parse(bad)


def test_odds_pays_rejects_bad_stake() -> None:
    with pytest.raises(ValueError):
        Odds(1).pays(-1)
    with pytest.raises(ValueError):
        Odds(1).pays(1.0)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("prize", "text"),
    [
        (Prize.percent(10_000), "100% of jackpot"),
        (Prize.percent(1_000), "10% of jackpot"),
        (Prize.percent(1_250), "12.5% of jackpot"),
        (Prize.percent(1), "0.01% of jackpot"),
        (Prize.fixed(50_000), "$500"),
        (Prize.fixed(1_250), "$12.50"),
        (Prize.fixed(5), "$0.05"),
        (Prize.fixed(123_456_700), "$1,234,567"),
    ],
)
def test_prize_describe(prize: Prize, text: str) -> None:
    assert prize.describe() == text


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"percent_bp": 100, "fixed_cents": 100},
        {"percent_bp": 0},
        {"percent_bp": 10_001},
        {"percent_bp": True},
        {"fixed_cents": 0},
        {"fixed_cents": -5},
        {"fixed_cents": 1.0},
    ],
)
def test_prize_rejects(kwargs: dict[str, Any]) -> None:
    with pytest.raises(VariantError):
        Prize(**kwargs)


def test_variant_requires_complete_paytable() -> None:
    base = VARIANTS["stud-poker"]
    table = dict(base.raise_paytable)
    del table[C.HIGH_CARD]
    with pytest.raises(VariantError, match=r"variants\.x\.raise_paytable: missing HIGH_CARD"):
        Variant("x", "X", table, {}, folded_collects_progressive=True)


def test_variant_tables_are_read_only_copies() -> None:
    table = dict(VARIANTS["stud-poker"].raise_paytable)
    v = Variant("x", "X", table, {}, folded_collects_progressive=False)
    table[C.FLUSH] = Odds(999)
    assert v.raise_odds(C.FLUSH) == Odds(5)
    with pytest.raises(TypeError):
        v.raise_paytable[C.FLUSH] = Odds(1)  # type: ignore[index]
    assert hash(v) == hash(Variant("x", "X", table | {C.FLUSH: Odds(5)}, {}, False))


# --- TOML ----------------------------------------------------------------------


def test_example_file_loads() -> None:
    variants = load_variants(EXAMPLE)
    assert sorted(variants) == ["high-roller", "three-two"]
    hr = variants["high-roller"]
    assert hr.title == "High Roller Stud"
    assert hr.progressive_stake_cents == 500
    assert hr.folded_collects_progressive is False
    # Overridden lines ...
    assert hr.raise_odds(C.ROYAL_FLUSH) == Odds(200)
    assert hr.raise_odds(C.STRAIGHT_FLUSH) == Odds(75)
    assert hr.raise_odds(C.FOUR_OF_A_KIND) == Odds(25)
    # ... the rest inherited from casino-stud.
    assert hr.raise_odds(C.FLUSH) == Odds(6)
    assert hr.raise_odds(C.FULL_HOUSE) == Odds(8)
    assert hr.raise_odds(C.ONE_PAIR) == Odds(1)
    assert hr.progressive_prize(C.STRAIGHT_FLUSH) == Prize.percent(1_250)
    assert hr.progressive_prize(C.FLUSH) == Prize.fixed(7_500)
    assert hr.progressive_prize(C.STRAIGHT) == Prize.fixed(1_000)
    assert hr.progressive_prize(C.THREE_OF_A_KIND) is None
    assert str(EXAMPLE) in hr.source and "casino-stud" in hr.source

    tt = variants["three-two"]
    assert tt.raise_odds(C.ONE_PAIR) == Odds(3, 2)
    assert tt.raise_odds(C.HIGH_CARD) == Odds(1)
    assert tt.folded_collects_progressive is True
    assert tt.progressive_stake_cents == 100
    assert set(tt.progressive) == {C.ROYAL_FLUSH, C.STRAIGHT_FLUSH, C.FOUR_OF_A_KIND}
    # The presets are untouched.
    assert VARIANTS["casino-stud"].raise_odds(C.ROYAL_FLUSH) == Odds(100)


def _full_entry(**over: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "title": "X",
        "folded_collects_progressive": False,
        "raise_paytable": {c.name: str(o) for c, o in VARIANTS["bermuda"].raise_paytable.items()},
        "progressive": {"ROYAL_FLUSH": {"percent": 100}},
    }
    entry.update(over)
    return entry


def test_parse_from_dict_without_base() -> None:
    v = parse_variants({"variants": {"x": _full_entry()}}, source="cfg")["x"]
    assert _raise_table(v) == BERMUDA_RAISE
    assert v.progressive == {C.ROYAL_FLUSH: Prize.percent(10_000)}
    assert v.source == "cfg#variants.x"


def test_category_names_case_insensitive_and_dashes() -> None:
    text = """
    [variants.x]
    title = "X"
    base = "bermuda"
    [variants.x.raise_paytable]
    royal-flush = 150
    Straight_Flush = "60:1"
    """
    v = parse_variants(text)["x"]
    assert v.raise_odds(C.ROYAL_FLUSH) == Odds(150)
    assert v.raise_odds(C.STRAIGHT_FLUSH) == Odds(60)
    assert v.folded_collects_progressive is True  # inherited


def test_base_prize_can_be_removed() -> None:
    text = """
    [variants.x]
    title = "X"
    base = "stud-poker"
    progressive = { flush = false, straight = { cents = 2500 } }
    """
    v = parse_variants(text)["x"]
    assert v.progressive_prize(C.FLUSH) is None
    assert v.progressive_prize(C.STRAIGHT) == Prize.fixed(2500)
    assert v.progressive_prize(C.FULL_HOUSE) == Prize.fixed(10_000)


@pytest.mark.parametrize(
    ("percent", "bp"),
    [(100, 10_000), (12.5, 1_250), ("12.5", 1_250), (0.01, 1), (33.33, 3_333), (0.1, 10)],
)
def test_percent_to_basis_points(percent: object, bp: int) -> None:
    doc = {"variants": {"x": _full_entry(progressive={"FLUSH": {"percent": percent}})}}
    assert parse_variants(doc)["x"].progressive_prize(C.FLUSH) == Prize.percent(bp)


def test_replace_preset_only_when_asked() -> None:
    doc = {"variants": {"bermuda": _full_entry()}}
    with pytest.raises(VariantError, match=r"variants\.bermuda: name clashes with the preset"):
        parse_variants(doc)
    doc = {"variants": {"bermuda": _full_entry(replace=True)}}
    assert parse_variants(doc)["bermuda"].title == "X"
    assert VARIANTS["bermuda"].title == "Bermuda Poker"


def _paytable_without(name: str) -> dict[str, str]:
    table = _full_entry()["raise_paytable"]
    assert isinstance(table, dict)
    del table[name]
    return table


INVALID: list[tuple[str, dict[str, Any], str]] = [
    (
        "missing category",
        _full_entry(raise_paytable=_paytable_without("FLUSH")),
        r"^variants\.x\.raise_paytable: missing FLUSH$",
    ),
    (
        "negative cents",
        _full_entry(progressive={"FLUSH": {"cents": -5}}),
        r"^variants\.x\.progressive\.FLUSH\.cents: must be > 0, got -5$",
    ),
    (
        "zero cents",
        _full_entry(progressive={"FLUSH": {"cents": 0}}),
        r"^variants\.x\.progressive\.FLUSH\.cents: must be > 0, got 0$",
    ),
    (
        "percent too high",
        _full_entry(progressive={"FLUSH": {"percent": 150}}),
        r"^variants\.x\.progressive\.FLUSH\.percent: must be in \(0, 100\], got 150$",
    ),
    (
        "percent zero",
        _full_entry(progressive={"FLUSH": {"percent": 0}}),
        r"^variants\.x\.progressive\.FLUSH\.percent: must be in \(0, 100\], got 0$",
    ),
    (
        "percent too precise",
        _full_entry(progressive={"FLUSH": {"percent": 12.345}}),
        r"^variants\.x\.progressive\.FLUSH\.percent: at most 2 decimal places",
    ),
    (
        "percent nan",
        _full_entry(progressive={"FLUSH": {"percent": float("nan")}}),
        r"^variants\.x\.progressive\.FLUSH\.percent: must be a finite number",
    ),
    (
        "percent wrong type",
        _full_entry(progressive={"FLUSH": {"percent": [1]}}),
        r"^variants\.x\.progressive\.FLUSH\.percent: must be a number, got list",
    ),
    (
        "percent and cents",
        _full_entry(progressive={"FLUSH": {"percent": 1, "cents": 1}}),
        r"^variants\.x\.progressive\.FLUSH: give exactly one of 'percent' or 'cents'",
    ),
    (
        "prize unknown key",
        _full_entry(progressive={"FLUSH": {"dollars": 5}}),
        r"^variants\.x\.progressive\.FLUSH: unknown key 'dollars'",
    ),
    (
        "prize not a table",
        _full_entry(progressive={"FLUSH": 500}),
        r"^variants\.x\.progressive\.FLUSH: must be \{ percent = N \}",
    ),
    (
        "cents wrong type",
        _full_entry(progressive={"FLUSH": {"cents": 12.5}}),
        r"^variants\.x\.progressive\.FLUSH\.cents: must be an integer, got float",
    ),
    (
        "unknown category in paytable",
        _full_entry(raise_paytable=_full_entry()["raise_paytable"] | {"FIVE_OF_A_KIND": 5}),
        r"^variants\.x\.raise_paytable\.FIVE_OF_A_KIND: unknown category",
    ),
    (
        "unknown category in progressive",
        _full_entry(progressive={"royal": {"percent": 100}}),
        r"^variants\.x\.progressive\.royal: unknown category",
    ),
    (
        "duplicate category",
        _full_entry(raise_paytable=_full_entry()["raise_paytable"] | {"flush": 5}),
        r"^variants\.x\.raise_paytable\.flush: duplicate of 'FLUSH'$",
    ),
    (
        "bad odds",
        _full_entry(raise_paytable=_full_entry()["raise_paytable"] | {"FLUSH": "5-1"}),
        r"^variants\.x\.raise_paytable\.FLUSH: odds must look like 'N:M', got '5-1'$",
    ),
    (
        "odds wrong type",
        _full_entry(raise_paytable=_full_entry()["raise_paytable"] | {"FLUSH": 5.5}),
        r"^variants\.x\.raise_paytable\.FLUSH: odds must be a 'N:M' string or an int, got float$",
    ),
    (
        "zero odds",
        _full_entry(raise_paytable=_full_entry()["raise_paytable"] | {"FLUSH": "0:1"}),
        r"^variants\.x\.raise_paytable\.FLUSH: odds numerator must be an int in 1\.\.",
    ),
    (
        "unknown key",
        _full_entry(colour="red"),
        r"^variants\.x: unknown key 'colour'",
    ),
    (
        "missing title",
        {k: v for k, v in _full_entry().items() if k != "title"},
        r"^variants\.x\.title: missing$",
    ),
    (
        "title wrong type",
        _full_entry(title=5),
        r"^variants\.x\.title: must be a non-empty string, got 5$",
    ),
    (
        "folded flag wrong type",
        _full_entry(folded_collects_progressive="no"),
        r"^variants\.x\.folded_collects_progressive: must be true or false, got 'no'$",
    ),
    (
        "folded flag missing without base",
        {k: v for k, v in _full_entry().items() if k != "folded_collects_progressive"},
        r"^variants\.x\.folded_collects_progressive: missing",
    ),
    (
        "paytable missing without base",
        {k: v for k, v in _full_entry().items() if k != "raise_paytable"},
        r"^variants\.x\.raise_paytable: missing \(required without base\)$",
    ),
    (
        "progressive missing without base",
        {k: v for k, v in _full_entry().items() if k != "progressive"},
        r"^variants\.x\.progressive: missing",
    ),
    (
        "stake zero",
        _full_entry(progressive_stake_cents=0),
        r"^variants\.x\.progressive_stake_cents: must be > 0, got 0$",
    ),
    (
        "stake wrong type",
        _full_entry(progressive_stake_cents="100"),
        r"^variants\.x\.progressive_stake_cents: must be an integer, got str$",
    ),
    (
        "stake bool",
        _full_entry(progressive_stake_cents=True),
        r"^variants\.x\.progressive_stake_cents: must be an integer, got bool$",
    ),
    (
        "unknown base",
        _full_entry(base="texas"),
        r"^variants\.x\.base: unknown preset 'texas' \(expected one of bermuda, casino-stud",
    ),
    (
        "replace wrong type",
        _full_entry(replace="yes"),
        r"^variants\.x\.replace: must be true or false, got 'yes'$",
    ),
    (
        "paytable not a table",
        _full_entry(raise_paytable="all 1:1"),
        r"^variants\.x\.raise_paytable: must be a table, got str$",
    ),
]


@pytest.mark.parametrize(
    ("entry", "message"), [(e, m) for _, e, m in INVALID], ids=[i for i, _, _ in INVALID]
)
def test_invalid_entries_name_the_field(entry: dict[str, Any], message: str) -> None:
    with pytest.raises(VariantError, match=message):
        parse_variants({"variants": {"x": entry}})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", r"variants: missing"),
        ("[other]\na = 1\n", r"unknown key 'other'"),
        ("variants = 5\n", r"variants: must be a table, got int"),
        ("[variants.x\n", r"invalid TOML"),
        ("[variants.X]\ntitle = 'x'\n", r"variants\.X: invalid name 'X'"),
        ("[variants.-x]\ntitle = 'x'\n", r"variants\.-x: invalid name"),
        ("[variants]\nx = 5\n", r"variants\.x: must be a table, got int"),
    ],
)
def test_invalid_documents(text: str, message: str) -> None:
    with pytest.raises(VariantError, match=message):
        parse_variants(text, source="file.toml")


def test_load_variants_errors_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[variants.x]\ntitle = "X"\nbase = "bermuda"\nprogressive_stake_cents = -1\n')
    with pytest.raises(VariantError, match=r"progressive_stake_cents: must be > 0, got -1"):
        load_variants(bad)
    with pytest.raises(VariantError, match=re.escape(str(tmp_path / "missing.toml"))):
        load_variants(tmp_path / "missing.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("[variants.x\n")
    with pytest.raises(VariantError, match=re.escape(str(broken)) + r": invalid TOML"):
        load_variants(broken)


def test_variant_error_is_value_error() -> None:
    assert issubclass(VariantError, ValueError)
