"""RNG evidence: the chi-square maths, biased shuffles caught, the production shuffle passing.

Every test is deterministic: statistical inputs come from fixed numpy seeds or,
for the production path, from `run(seed=...)`, which swaps only the entropy
(the 32-byte server seeds FairShuffler draws) for a SHAKE-256 stream. The
algorithm is the production one: FairShuffler.commit, the HMAC stream,
rejection and Fisher-Yates, cross-checked against FairShuffler.deck in the run.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import server.analysis.rngstats as rngstats
from server.analysis.rngstats import (
    POSITION_DF,
    SERIAL_DF,
    SeededBytes,
    chi2_critical,
    chi2_sf,
    fair_decks,
    position_counts,
    position_test,
    run,
    serial_test,
    start_commitments,
)
from server.cli import main
from server.fair import FairShuffler

K = 52
U8 = npt.NDArray[np.uint8]

# P(χ²(df) > x) from scipy.stats.chi2.sf 1.17.1 (computed once by hand; not a dependency).
SF_REFERENCE = [
    (2601, 2601, 0.4963124706565348),
    (2771, 2601, 0.010258991316994565),
    (2500, 2601, 0.9206744542163205),
    (2400, 2601, 0.9978327689228037),
    (3000, 2601, 6.416422225388009e-08),
    (4000, 2601, 4.086866616588208e-63),
    (2652, 2652, 0.49634810009391733),
    (2800, 2652, 0.022499508591450813),
    (2500, 2652, 0.9829614124957002),
    (2703, 2703, 0.49638271632513903),
    (2900, 2704, 0.00449470653811431),
    (2500, 2704, 0.9977295183667972),
    (1.0, 1, 0.31731050786291115),
    (0.5, 3, 0.9188914116546758),
    (150, 100, 0.0009039320423540184),
]


@pytest.mark.parametrize(("x", "df", "expected"), SF_REFERENCE)
def test_chi2_sf_matches_reference_values(x: float, df: int, expected: float) -> None:
    assert chi2_sf(x, df) == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(
    ("df", "critical"),
    # Printed 1% upper critical values (NIST/SEMATECH e-Handbook, table 1.3.6.7.4).
    [(1, 6.635), (2, 9.210), (10, 23.209), (50, 76.154), (100, 135.807)],
)
def test_chi2_critical_matches_printed_tables(df: int, critical: float) -> None:
    assert chi2_critical(df) == pytest.approx(critical, abs=5e-4)


@pytest.mark.parametrize(
    ("df", "critical"),
    # scipy.stats.chi2.isf(0.01, df), as above.
    [(2601, 2771.7229545695204), (2652, 2824.3600043278716), (2704, 2878.0130245009236)],
)
def test_chi2_critical_at_the_degrees_of_freedom_used(df: int, critical: float) -> None:
    assert chi2_critical(df) == pytest.approx(critical, rel=1e-10)
    assert chi2_sf(critical, df) == pytest.approx(0.01, rel=1e-9)


def test_chi2_sf_edges() -> None:
    assert chi2_sf(0, 5) == 1.0
    assert chi2_sf(1e6, 2601) == 0.0
    # even df: the Poisson sum e^{-x/2} Σ_{i<df/2} (x/2)^i / i! is an independent closed form
    x, df = 2700.0, 2652
    poisson = sum(
        math.exp(i * math.log(x / 2) - x / 2 - math.lgamma(i + 1)) for i in range(df // 2)
    )
    assert chi2_sf(x, df) == pytest.approx(poisson, rel=1e-10)
    with pytest.raises(ValueError):
        chi2_sf(1, 0)


# -- the statistics on known distributions ----------------------------------------------------


def uniform_decks(n: int, rng: np.random.Generator) -> U8:
    return np.argsort(rng.random((n, K)), axis=1).astype(np.uint8)


def test_the_degrees_of_freedom_fit_fair_data() -> None:
    """Mean of 300 null statistics: 2601 for positions (2652 if X² were left unscaled), 2652 serial.

    4 standard errors of the mean is ±16.7: the unscaled position statistic or a
    (k-1)² serial df would sit about 50 away.
    """
    rng = np.random.default_rng(20240601)
    positions = [position_test(position_counts(uniform_decks(1000, rng))) for _ in range(300)]
    serials = [serial_test(rng.integers(0, K, 20_000).astype(np.uint8)) for _ in range(300)]
    position_mean = float(np.mean([t.statistic for t in positions]))
    serial_mean = float(np.mean([t.statistic for t in serials]))
    assert abs(position_mean - POSITION_DF) < 4 * math.sqrt(2 * POSITION_DF / 300)
    assert abs(serial_mean - SERIAL_DF) < 4 * math.sqrt(2 * SERIAL_DF / 300)
    # and the 99% level holds roughly: a handful of the 300 fail, not dozens
    assert sum(not t.passed for t in positions + serials) <= 12


def naive_shuffle(n: int, rng: np.random.Generator) -> U8:
    """Swap every position with any position: 52^52 paths onto 52! orders, so biased."""
    decks = np.tile(np.arange(K, dtype=np.uint8), (n, 1))
    rows = np.arange(n)
    for i in range(K):
        j = rng.integers(0, K, n)
        top = decks[:, i].copy()
        decks[:, i] = decks[rows, j]
        decks[rows, j] = top
    return decks


def modulo_shuffle(n: int, rng: np.random.Generator) -> U8:
    """Fisher-Yates with j = byte % (i + 1): low values favoured (5/256 vs 4/256 for 52)."""
    decks = np.tile(np.arange(K, dtype=np.uint8), (n, 1))
    rows = np.arange(n)
    for i in range(K - 1, 0, -1):
        j = rng.integers(0, 256, n) % (i + 1)
        top = decks[:, i].copy()
        decks[:, i] = decks[rows, j]
        decks[rows, j] = top
    return decks


@pytest.mark.parametrize("shuffle", [naive_shuffle, modulo_shuffle])
def test_biased_shuffles_fail_the_position_test(shuffle: Any) -> None:
    # 20,000 decks: the bias adds ~1,500 (modulo) to ~13,000 (naive) to a statistic
    # whose 99% critical value is 171 above its mean, so any seed fails.
    result = position_test(position_counts(shuffle(20_000, np.random.default_rng(7))))
    assert not result.passed
    assert result.p < 1e-50


def test_uniform_decks_pass_the_position_test() -> None:
    assert position_test(position_counts(uniform_decks(20_000, np.random.default_rng(7)))).passed


def test_a_shoe_fails_the_serial_test() -> None:
    """Dealing the next round from the same shoe: its top card never repeats the last one."""
    rng = np.random.default_rng(11)
    first = rng.integers(0, K, 100_000)
    second = (first + 1 + rng.integers(0, K - 1, 100_000)) % K  # uniform, but never `first`
    tops = np.stack([first, second], axis=1).ravel().astype(np.uint8)
    result = serial_test(tops)
    assert not result.passed
    assert result.p < 1e-20
    assert serial_test(rng.integers(0, K, 200_000).astype(np.uint8)).passed


# -- the kernel is the production algorithm ---------------------------------------------------


def test_the_kernel_deals_what_fair_shuffler_deals() -> None:
    deal = fair_decks(2000, SeededBytes(b"kernel", 0), "alpha", verify_every=1)
    assert deal.verified == 2000
    assert len(set(deal.seeds)) == 2000
    assert all(sorted(row) == list(range(K)) for row in deal.decks.tolist())


def test_rejected_words_fall_back_to_fair_order(monkeypatch: pytest.MonkeyPatch) -> None:
    # A real rejection is ~1 deck in 3 million: lower the limit so most decks take that path.
    monkeypatch.setattr(rngstats, "_LIMIT", np.full(K - 1, 2**31, dtype=np.int64))
    deal = fair_decks(300, SeededBytes(b"fallback", 0), verify_every=1)
    assert deal.verified == 300
    assert deal.fallbacks > 250


def test_a_wrong_kernel_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rngstats, "_CARD_OF", np.roll(rngstats._CARD_OF, 1))
    with pytest.raises(RuntimeError, match=r"disagrees with FairShuffler\.deck"):
        fair_decks(10, SeededBytes(b"wrong", 0), verify_every=5)


# -- the production shuffle passes --------------------------------------------------------------


def test_one_million_production_shuffles_pass() -> None:
    """The issue's figure, end to end: 1,000,000 FairShuffler rounds in 2 processes."""
    result = run(1_000_000, "fair", workers=2, seed=b"casino-stud rng evidence")
    assert result["pass"], result
    assert result["position_df"] == 2601 and result["serial_df"] == 2652
    assert result["position_p"] > 0.01 and result["serial_p"] > 0.01
    assert result["verified_decks"] == 1000
    assert result["seed_repeats"] == 0 and result["start_repeats"] == 0


def test_a_seeded_run_is_deterministic() -> None:
    """Why the test above cannot flake: its statistics are fixed by the seed."""
    first, second = (run(20_000, "fair", workers=2, seed=b"pinned") for _ in range(2))
    assert first["position_chi2"] == second["position_chi2"]
    assert first["serial_chi2"] == second["serial_chi2"]
    # One statistic alone repeats by chance about once in 100,000 runs (it is a sum of squared
    # counts over 2,704 cells); both together about once in 10^10.
    fresh = run(20_000, "fair", workers=2)
    pinned = (first["position_chi2"], first["serial_chi2"])
    assert (fresh["position_chi2"], fresh["serial_chi2"]) != pinned


def test_secrets_shuffled_deck_passes() -> None:
    """`shuffled_deck` (the non-fair tables), seeded randbelow; pure Python, so 100,000."""
    result = run(100_000, "secrets", workers=2, seed=b"casino-stud rng evidence")
    assert result["pass"], result


# -- two server starts never share a stream ----------------------------------------------------


def test_two_fair_shufflers_never_share_a_stream() -> None:
    one, two = FairShuffler(), FairShuffler()
    nonces = [f"alpha-{i}" for i in range(5000)]
    commitments = [s.commit(n) for n in nonces for s in (one, two)]
    assert len(set(commitments)) == 10_000
    one.commit("alpha-x")
    two.commit("alpha-x")
    assert one.deck("") != two.deck("")


def test_two_server_processes_never_share_a_stream() -> None:
    first, second = start_commitments(processes=2, rounds=1000)
    assert len(first) == len(second) == 1000
    assert len(set(first) | set(second)) == 2000
    assert all(len(c) == 64 for c in first + second)


# -- the command ---------------------------------------------------------------------------------

KEYS = {
    "shuffles",
    "position_chi2",
    "position_df",
    "position_p",
    "serial_chi2",
    "serial_df",
    "serial_p",
    "pass",
    "seconds",
    "decks_per_second",
}


def test_rng_stats_command_prints_json() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "server.cli", "rng-stats", "--shuffles", "20000", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    result = json.loads(proc.stdout)
    assert set(result) >= KEYS
    assert result["shuffles"] == 20_000 and result["source"] == "fair"
    assert result["position_df"] == 2601 and result["serial_df"] == 2652
    assert result["decks_per_second"] > 0
    assert proc.returncode == (0 if result["pass"] else 1), proc.stderr


def test_rng_stats_command_summary_and_exit_codes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code = main(["rng-stats", "--shuffles", "3000", "--workers", "1"])
    out = capsys.readouterr().out
    assert "card by position" in out and "first-card serial pairs" in out
    assert code == (0 if out.rstrip().endswith("PASS") else 1)
    failing = run(3000, "fair", workers=1, seed=b"x") | {"pass": False}
    monkeypatch.setattr(rngstats, "run", lambda *args: failing)
    assert main(["rng-stats", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["pass"] is False
    assert main(["rng-stats", "--shuffles", "1"]) == 2
