"""Exact odds: the published figures, a brute-force check of the counting, the CLI.

The full enumeration takes seconds, so it runs once per session (it is cached
in the process) and each report once per module.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
import sys
import time
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from server.analysis.odds import (
    COMPLETIONS,
    HANDS,
    UP_CARDS,
    OddsReport,
    OutcomeCounts,
    analyze,
    enumeration,
    format_report,
    report_json,
)
from server.analysis.warnings import own_variant_warnings
from server.cli import main
from server.config import load_config
from server.game.cards import DECK, Card, to_cards
from server.game.categories import Category
from server.game.evaluator import evaluate
from server.game.settlement import QUALIFYING_CATEGORY, settle_main
from server.game.variants import VARIANTS, Odds, Prize, Variant

GIVEAWAY_TOML = """
[variants.giveaway]
title = "Giveaway"
base = "stud-poker"

[variants.giveaway.raise_paytable]
{lines}

[[tables]]
id = "gift"
variant = "giveaway"

[[tables]]
id = "plain"
variant = "stud-poker"
""".format(lines="\n".join(f"{c.name} = 1000" for c in Category))


@pytest.fixture(scope="module")
def stud() -> OddsReport:
    return analyze(VARIANTS["stud-poker"])


@pytest.fixture(scope="module")
def giveaway() -> Variant:
    table = {c: Odds(1000) for c in Category}
    return replace(VARIANTS["stud-poker"], name="giveaway", raise_paytable=table)


def brute_force(player: tuple[Card, ...], up: Card) -> tuple[OutcomeCounts, int]:
    """Every dealer completion, by the scalar evaluator and by settlement (ante 100 cents).

    Returns the outcome counts and the raise's total net in cents under stud-poker.
    """
    variant = VARIANTS["stud-poker"]
    mine = evaluate(player)
    rest = [c for c in DECK if c not in player and c is not up]
    nq = win = tie = lose = 0
    net = 0
    for hidden in itertools.combinations(rest, 4):
        dealer = evaluate((up, *hidden))
        net += settle_main(variant, 100, True, mine, dealer)
        if dealer.category < QUALIFYING_CATEGORY:
            nq += 1
        elif mine > dealer:
            win += 1
        elif mine == dealer:
            tie += 1
        else:
            lose += 1
    return OutcomeCounts(nq, win, tie, lose), net


def _sample_pairs() -> list[tuple[tuple[Card, ...], Card]]:
    chosen = [
        ("As Kd 7c 4h 2s", "Qh"),  # ace-king: the hand the strategy splits on
        ("9c 9d 5h 3s 2c", "9h"),  # a pair whose rank the up card matches
        ("2h 5h 8h Jh Kh", "Ah"),  # a flush, the up card in its suit
        ("Qc Js Th 8d 3c", "Qd"),  # no qualifier: only folds or loses
    ]
    pairs = [(to_cards(hand.split()), Card.parse(up)) for hand, up in chosen]
    rng = random.Random(20240517)
    for _ in range(6):
        cards = rng.sample(DECK, 6)
        pairs.append((tuple(cards[:5]), cards[5]))
    return pairs


SAMPLE = _sample_pairs()


def test_published_figures(stud: OddsReport) -> None:
    assert abs(float(stud.house_edge_ante) - 0.052243) <= 5e-7
    assert abs(float(stud.element_of_risk) - 0.025553) <= 5e-7
    assert abs(float(stud.dealer_qualifies) - 0.5632) <= 5e-5


def test_report_is_consistent(stud: OddsReport) -> None:
    assert stud.ante_return == -stud.house_edge_ante
    assert stud.average_total_bet == 1 + 2 * stud.raise_probability
    assert stud.element_of_risk == stud.house_edge_ante / stud.average_total_bet
    assert sum(stud.category_frequency.values()) == 1
    assert stud.category_frequency[Category.ROYAL_FLUSH] == Fraction(4, HANDS)
    # With the standard table a pair or better always raises, a high card never does.
    assert stud.raise_fraction[Category.ONE_PAIR] == 1
    assert stud.raise_fraction[Category.HIGH_CARD] == 0
    assert 0 < stud.raise_fraction[Category.ACE_KING] < 1
    assert not stud.player_edge


def test_classes_cover_every_hand() -> None:
    counts = enumeration()
    assert len(counts.keys) == 134_459
    assert int(counts.weights.sum()) == HANDS
    assert counts.up.shape == (len(counts.keys), UP_CARDS)


def _pair_id(pair: tuple[tuple[Card, ...], Card]) -> str:
    return "".join(c.text for c in pair[0]) + "-" + pair[1].text


@pytest.mark.parametrize(("player", "up"), SAMPLE, ids=[_pair_id(p) for p in SAMPLE])
def test_counts_match_brute_force(stud: OddsReport, player: tuple[Card, ...], up: Card) -> None:
    expected, net_cents = brute_force(player, up)
    assert enumeration().outcome_counts(player, up) == expected
    value = stud.strategy.raise_value(player, up)
    assert value * COMPLETIONS * 100 == net_cents
    assert stud.strategy.should_raise(player, up) == (value > -1)


def test_strategy_ignores_suit_names(stud: OddsReport) -> None:
    rng = random.Random(7)
    for player, up in SAMPLE:
        perm = rng.sample(range(4), 4)

        def move(card: Card) -> Card:
            return DECK[4 * card.rank + perm[card.suit]]  # noqa: B023

        moved = tuple(move(c) for c in player)
        assert stud.strategy.should_raise(moved, move(up)) == stud.strategy.should_raise(player, up)
        assert enumeration().outcome_counts(moved, move(up)) == enumeration().outcome_counts(
            player, up
        )


def test_strategy_rejects_bad_input(stud: OddsReport) -> None:
    with pytest.raises(ValueError):
        stud.strategy.should_raise(["As", "Kd", "7c", "4h", "2s"], "As")
    with pytest.raises(ValueError):
        stud.strategy.should_raise(["As", "As", "7c", "4h", "2s"], "Qh")
    with pytest.raises(ValueError):
        stud.strategy.should_raise(["As", "Kd", "7c", "4h"], "Qh")


def test_counting_identities(stud: OddsReport) -> None:
    """Whole-table checks no sample can give: every (hand, up card) at once."""
    counts = enumeration()
    w = counts.weights[:, None]
    deals = HANDS * UP_CARDS * COMPLETIONS
    # Not qualifying, seen through the player's hands, is the plain frequency.
    not_qualifying = Fraction(int((w * counts.no_qualify).sum()), deals)
    assert not_qualifying == 1 - stud.dealer_qualifies
    # Two qualifying hands: "player beats dealer" and "dealer beats player" are
    # the same event with the seats swapped.
    qualified = (counts.category >= QUALIFYING_CATEGORY)[:, None]
    wins = int((w * counts.win.astype(np.int64)).sum())
    losses = int((w * np.where(qualified, counts.lose, 0).astype(np.int64)).sum())
    assert wins == losses


def test_player_edge_paytable(giveaway: Variant) -> None:
    report = analyze(giveaway)
    assert report.house_edge_ante < 0
    assert report.player_edge
    assert "player has the edge" in format_report(report)


def test_check_config_strict_fails_on_player_edge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "giveaway.toml"
    path.write_text(GIVEAWAY_TOML, encoding="utf-8")
    assert main(["check-config", str(path)]) == 0
    out, err = capsys.readouterr()
    assert "house edge 5.2243% of the ante" in out
    assert "warning: table gift" in err
    assert "table plain" not in err
    assert main(["check-config", "--strict", str(path)]) != 0
    out, err = capsys.readouterr()
    assert "warning: table gift" in err
    assert "ok" not in out.splitlines()[-1]  # not "ok" on the way to an exit status of 1
    assert out.splitlines()[-1].startswith("refused (--strict):")


def test_check_config_strict_passes_presets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "presets.toml"
    path.write_text("", encoding="utf-8")
    assert main(["check-config", "--strict", str(path)]) == 0
    out, err = capsys.readouterr()
    assert "warning" not in err
    assert out.count("house edge") == 4  # the four default tables
    # the variants the tables play, of those known ("4 variants" read as the tables')
    assert out.splitlines()[-1] == "ok: 4 tables, 3 of 3 variants in use", out


def test_odds_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "--variant", "stud-poker", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert abs(data["house_edge_ante"] - 0.052243) <= 5e-7
    assert abs(data["element_of_risk"] - 0.025553) <= 5e-7
    assert abs(data["dealer_qualifies"] - 0.5632) <= 5e-5
    assert data["seconds"] >= 0
    assert (
        Fraction(data["exact"]["house_edge_ante"])
        == analyze(VARIANTS["stud-poker"]).house_edge_ante
    )


def test_odds_text_and_custom_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "giveaway.toml"
    path.write_text(GIVEAWAY_TOML, encoding="utf-8")
    assert main(["odds", "--variant", "giveaway", "--config", str(path)]) == 0
    assert "player has the edge" in capsys.readouterr().out
    assert main(["odds", "--variant", "bermuda"]) == 0
    assert "house edge per ante" in capsys.readouterr().out


def test_odds_unknown_variant(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "--variant", "no-such-game"]) == 2
    err = capsys.readouterr().err
    assert "unknown variant 'no-such-game'" in err
    assert "stud-poker" in err


def test_progressive_is_linear_in_the_meter(stud: OddsReport) -> None:
    be = stud.progressive_break_even_cents
    assert be is not None and be > 0
    assert stud.progressive_return(int(be)) < 1 <= stud.progressive_return(int(be) + 1)
    # Flush $50 on a $1 stake, and so on; royal 100% and straight flush 10% of the meter.
    freq = stud.category_frequency
    assert (
        stud.progressive_fixed
        == 50 * freq[Category.FLUSH]
        + 100 * freq[Category.FULL_HOUSE]
        + 500 * freq[Category.FOUR_OF_A_KIND]
    )
    assert (
        stud.progressive_per_meter_cent
        == (freq[Category.ROYAL_FLUSH] + freq[Category.STRAIGHT_FLUSH] / 10) / 100
    )
    # Twice the stake halves the return of the same prizes.
    assert stud.progressive_return(10**6, 200) == stud.progressive_return(10**6) / 2


def test_progressive_follows_the_strategy() -> None:
    """A folded hand that does not collect changes the figure only where hands fold."""
    casino = analyze(VARIANTS["casino-stud"])
    # Every flush or better raises, so the lost folds cost nothing there.
    for cat in casino.progressive_hit:
        assert casino.progressive_hit[cat] == casino.category_frequency[cat]
    base = VARIANTS["casino-stud"]
    ak = replace(base, name="ak-bonus", progressive={Category.ACE_KING: Prize.fixed(1000)})
    report = analyze(ak)
    share = report.raise_fraction[Category.ACE_KING]
    assert report.progressive_hit[Category.ACE_KING] == (
        report.category_frequency[Category.ACE_KING] * share
    )
    assert report.progressive_break_even_cents is None
    collected = analyze(replace(ak, folded_collects_progressive=True))
    assert collected.progressive_fixed > report.progressive_fixed


def test_report_json_fields(stud: OddsReport) -> None:
    data = report_json(stud)
    json.dumps(data)
    assert data["variant"] == "stud-poker"
    assert set(data["categories"]) == {c.name for c in Category}
    assert data["progressive"]["break_even_meter_cents"] == pytest.approx(
        float(stud.progressive_break_even_cents or 0)
    )


def test_serve_logs_a_player_edge_of_a_variant_the_config_defines(tmp_path: Path) -> None:
    """`serve` warns as `check-config` does, in its log, without holding its start up
    for the analysis; the presets (whose edges are tested here) cost it nothing."""
    path = tmp_path / "giveaway.toml"
    path.write_text(GIVEAWAY_TOML, encoding="utf-8")
    config = load_config(path, env={})
    warned = own_variant_warnings(config)
    assert len(warned) == 1 and warned[0].startswith("table gift: variant giveaway gives")
    assert own_variant_warnings(load_config(None, env={})) == []
    log = tmp_path / "serve.log"
    with open(log, "wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "serve", "--config", str(path), "--port", "0"],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={k: v for k, v in os.environ.items() if not k.startswith(("STUD_", "REDIS"))},
        )
    try:
        for _ in range(1200):
            if "gives the player an edge" in log.read_text() or server.poll() is not None:
                break
            time.sleep(0.05)
        text = log.read_text()
        assert "WARNING stud.config: table gift: variant giveaway gives the player" in text, text
        assert "table plain" not in text
    finally:
        server.terminate()
        server.wait(15)


def test_serve_s_paytable_check_runs_in_a_child_process(tmp_path: Path) -> None:
    """The enumeration takes some 600 MB; run on a thread of the serving process, about
    230 MB of it stayed with the process for good. `serve` asks a child process, which
    gives it all back when it exits: the serving process never loads the analysis."""
    path = tmp_path / "giveaway.toml"
    path.write_text(GIVEAWAY_TOML, encoding="utf-8")
    probe = (
        "import sys, logging\n"
        "from pathlib import Path\n"
        "from server.config import load_config\n"
        "from server.cli import _warn_of_paytables\n"
        "logging.basicConfig(level=logging.WARNING, stream=sys.stdout)\n"
        f"_warn_of_paytables(load_config(Path({str(path)!r}), env={{}}))\n"
        "print('analysis loaded here:', 'server.analysis.odds' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=600, check=True
    )
    assert "table gift: variant giveaway gives the player an edge" in done.stdout, done
    assert "analysis loaded here: False" in done.stdout, done.stdout


@pytest.mark.parametrize("buffered", [True, False])
@pytest.mark.parametrize(
    ("command", "statuses"),
    [
        (["server.cli", "odds", "--variant", "bermuda"], {1}),
        (["clients.cli", "verify", "--help"], {0, 1}),  # 0: argparse ignores a failed write
    ],
)
def test_output_to_a_reader_gone_stops_quietly(
    command: list[str], statuses: set[int], buffered: bool
) -> None:
    """`stud-server odds | head` ended in a BrokenPipeError traceback (or, with stdout
    buffered as it is into a pipe, in "Exception ignored" at exit, status 120)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first line
    try:
        done = subprocess.run(
            [sys.executable, "-m", *command],
            stdout=write,
            stderr=subprocess.PIPE,
            timeout=120,
            env=env,
        )
    finally:
        os.close(write)
    assert b"Traceback" not in done.stderr and b"Exception" not in done.stderr, done.stderr
    assert done.returncode in statuses
