"""RNG evidence for the deck: chi-square tests over many shuffles (`stud-server rng-stats`).

Two tests at the 99% level over `shuffles` decks dealt the way the server deals them:

* card by position: C[p, c] counts the decks holding card c at position p. Each
  deck is a uniform random permutation matrix P, whose covariance is
  Q⊗Q / (k-1) with Q = I - J/k (k = 52), so Pearson's X² over the table tends to
  k/(k-1) · χ²((k-1)²), not χ²(k(k-1)): the 52 rows are not independent
  multinomials (a card at position 0 is at no other position), and the deck
  constraint makes each cell k/(k-1) times more variable than the usual
  contingency table. We report X² · (k-1)/k on (k-1)² = 2601 df; its mean is
  exactly 2601 for any sample size. Testing raw X² on 2601 df would reject ~5% of
  fair runs at "99%"; on 2652 df the mean fits but the variance does not.
* first-card serial pairs: the top cards t_0..t_{N-1} of consecutive decks,
  overlapping pairs (t_i, t_{i+1 mod N}) counted in a 52x52 table. Overlapping
  pairs are not independent, so Pearson's ψ²₂ is not χ²; Good's (1953) serial
  statistic ∇ψ² = ψ²₂ - ψ²₁ is asymptotically χ²(k² - k) = χ²(2652). It sees
  rounds that depend on each other (a shoe dealt on without reshuffling, a seed
  and nonce reused), which per-deck counts cannot.

Dealing through `FairShuffler.deck` costs ~75 µs a deck in pure Python (an
hmac.new per 8 words, a generator, Card.parse per card), so `fair` deals with the
real `FairShuffler.commit` (fresh secrets seed, round nonce) and computes the
deck with an equivalent kernel: the seven HMAC-SHA256 blocks a deck needs, from
precomputed key pads, then rejection and Fisher-Yates vectorized with numpy
across the batch. Decks that hit a rejected word (about 1 in 7 million) are
dealt by `protocol.fairness.fair_order` itself, and every `verify_every`-th deck
is also dealt by `FairShuffler.deck` and must match, so each run proves its own
kernel. Chunks run in `workers` spawned processes, each chunk a fresh shuffler
as a fresh server start would make.
"""

from __future__ import annotations

import hashlib
import math
import multiprocessing
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from protocol.fairness import ORDERED_DECK, SEED_BYTES, fair_order
from server.fair import FairShuffler
from server.game.cards import Card, RandBelow, shuffled_deck

K: Final = 52
LEVEL: Final = 0.01  # a test passes when p > LEVEL (99%)
POSITION_DF: Final = (K - 1) ** 2
SERIAL_DF: Final = K * K - K
CHUNK: Final = 50_000  # decks per worker task: one fresh shuffler each
BATCH: Final = 4096  # decks per numpy Fisher-Yates pass
SOURCES: Final = ("fair", "secrets")

U8 = npt.NDArray[np.uint8]
I64 = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]

# HMAC-SHA256 (RFC 2104) for a 32-byte key, precomputed pads: 2 hashlib calls a block.
_IPAD: Final = bytes(b ^ 0x36 for b in range(256))
_OPAD: Final = bytes(b ^ 0x5C for b in range(256))
_DRAWS: Final = K - 1  # words a deck consumes without rejection: n = 52, 51, ..., 2
_BLOCKS: Final = -(-_DRAWS // 8)  # 8 words a digest -> 7 digests
_COUNTERS: Final = tuple(str(c).encode() for c in range(_BLOCKS))
_N: Final = np.arange(K, 1, -1, dtype=np.int64)  # the bound of each draw
_LIMIT: Final = 2**32 - (2**32 % _N)  # words at or above are redrawn (Stream.randbelow)
#: ORDERED_DECK position -> Card.index (the identity today; mapped, not assumed).
_CARD_OF: Final = np.array([Card.parse(t).index for t in ORDERED_DECK], dtype=np.uint8)


# -- chi-square distribution -------------------------------------------------------------


def chi2_sf(x: float, df: float) -> float:
    """P(χ²(df) > x): the regularized upper incomplete gamma Q(df/2, x/2), no scipy."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    if x <= 0:
        return 1.0
    a, y = df / 2, x / 2
    if y < a + 1:
        return max(0.0, 1.0 - _lower_series(a, y))
    return _upper_fraction(a, y)


def _prefactor(a: float, y: float) -> float:
    return math.exp(a * math.log(y) - y - math.lgamma(a))


def _lower_series(a: float, y: float) -> float:
    """P(a, y) by its power series: converges fast below y = a + 1 (Numerical Recipes 6.2)."""
    term = total = 1.0 / a
    n = a
    for _ in range(100_000):
        n += 1
        term *= y / n
        total += term
        if term < total * 1e-17:
            return total * _prefactor(a, y)
    raise ArithmeticError(f"incomplete gamma series did not converge for a={a}, y={y}")


def _upper_fraction(a: float, y: float) -> float:
    """Q(a, y) by its continued fraction (modified Lentz): accurate out in the far tail."""
    tiny = 1e-300
    b = y + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 100_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            return h * _prefactor(a, y)
    raise ArithmeticError(f"incomplete gamma fraction did not converge for a={a}, y={y}")


def chi2_critical(df: float, level: float = LEVEL) -> float:
    """The x with P(χ²(df) > x) = level, by bisection on `chi2_sf`."""
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    lo, hi = 0.0, df + 10 * math.sqrt(2 * df) + 100
    while chi2_sf(hi, df) > level:
        lo, hi = hi, 2 * hi
    for _ in range(200):
        mid = (lo + hi) / 2
        if chi2_sf(mid, df) > level:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * hi:
            break
    return (lo + hi) / 2


# -- the two tests ------------------------------------------------------------------------


@dataclass(frozen=True)
class ChiSquare:
    statistic: float
    df: int
    p: float

    @property
    def passed(self) -> bool:
        return self.p > LEVEL

    @property
    def critical(self) -> float:
        return chi2_critical(self.df)


def position_counts(decks: U8) -> I64:
    """C[p, c]: how many of the decks (rows of card indices, top first) hold card c at p."""
    flat = decks.astype(np.int64) + np.arange(0, K * K, K, dtype=np.int64)
    return np.bincount(flat.ravel(), minlength=K * K).reshape(K, K)


def position_test(counts: I64) -> ChiSquare:
    """Uniformity of every position's card, scaled for permutation sampling (module doc)."""
    n = int(counts[0].sum())
    expected = n / K
    pearson = float(((counts - expected) ** 2).sum() / expected)
    statistic = pearson * (K - 1) / K
    return ChiSquare(statistic, POSITION_DF, chi2_sf(statistic, POSITION_DF))


def serial_test(tops: U8) -> ChiSquare:
    """Good's ∇ψ² over the circular sequence of top cards: pairs independent and uniform."""
    t = tops.astype(np.int64)
    n = len(t)
    if n < 2:
        raise ValueError("the serial test needs at least two decks")
    pairs = np.bincount(t * K + np.roll(t, -1), minlength=K * K)
    singles = np.bincount(t, minlength=K)
    psi2 = float(((pairs - n / K**2) ** 2).sum() / (n / K**2))
    psi1 = float(((singles - n / K) ** 2).sum() / (n / K))
    statistic = psi2 - psi1
    return ChiSquare(statistic, SERIAL_DF, chi2_sf(statistic, SERIAL_DF))


# -- dealing --------------------------------------------------------------------------------


class _Recorder:
    """The seed source FairShuffler draws from, remembering each seed it hands out."""

    def __init__(self, source: Callable[[int], bytes]) -> None:
        self.source = source
        self.seeds: list[bytes] = []

    def __call__(self, n: int) -> bytes:
        seed = self.source(n)
        self.seeds.append(seed)
        return seed


class SeededBytes:
    """A deterministic stand-in for `secrets.token_bytes` (SHAKE-256 in counter mode)."""

    def __init__(self, seed: bytes, stream: int) -> None:
        self._prefix = b"rngstats:" + seed + b":" + str(stream).encode() + b":"
        self._counter = 0

    def __call__(self, n: int) -> bytes:
        self._counter += 1
        return hashlib.shake_256(self._prefix + str(self._counter).encode()).digest(n)


@dataclass
class FairDeal:
    decks: U8  # (n, 52) Card.index, top card first
    seeds: list[bytes]
    verified: int  # decks also dealt by FairShuffler.deck and compared
    fallbacks: int  # decks with a rejected word, dealt by fair_order


def fair_decks(
    n: int,
    seeds: Callable[[int], bytes] = secrets.token_bytes,
    label: str = "rng",
    verify_every: int = 1000,
) -> FairDeal:
    """`n` rounds of one fresh FairShuffler: commit (new seed, round nonce), then the deck.

    Client seeds are empty, as in a round where no player sent one.
    """
    recorder = _Recorder(seeds)
    shuffler = FairShuffler(recorder)
    out = np.empty((n, K), dtype=np.uint8)
    verified = fallbacks = 0
    for start in range(0, n, BATCH):
        size = min(BATCH, n - start)
        nonces = [f"{label}-{start + i}" for i in range(size)]
        expected: dict[int, list[int]] = {}
        blocks: list[bytes] = []
        sha = hashlib.sha256
        for i, nonce in enumerate(nonces):
            shuffler.commit(nonce)
            if verify_every and (start + i) % verify_every == 0:
                expected[i] = [c.index for c in shuffler.deck("")]
            key = recorder.seeds[-1]
            if len(key) != SEED_BYTES:
                raise ValueError(f"a server seed has {SEED_BYTES} bytes, not {len(key)}")
            pad = key + bytes(64 - SEED_BYTES)
            inner, outer = sha(pad.translate(_IPAD)), sha(pad.translate(_OPAD))
            inner.update(f":{nonce}:".encode())
            for counter in _COUNTERS:
                h, o = inner.copy(), outer.copy()
                h.update(counter)
                o.update(h.digest())
                blocks.append(o.digest())
        words = np.frombuffer(b"".join(blocks), dtype=">u4").reshape(size, 8 * _BLOCKS)
        draws = words[:, :_DRAWS].astype(np.int64)
        decks = _fisher_yates(draws % _N)
        for row in np.flatnonzero((draws >= _LIMIT).any(axis=1)).tolist():
            order = fair_order(recorder.seeds[start + row], "", nonces[row])
            decks[row] = [ORDERED_DECK.index(c) for c in order]
            fallbacks += 1
        decks = _CARD_OF[decks]
        for i, want in expected.items():
            if decks[i].tolist() != want:
                raise RuntimeError(f"the kernel disagrees with FairShuffler.deck at {nonces[i]}")
            verified += 1
        out[start : start + size] = decks
    return FairDeal(out, recorder.seeds, verified, fallbacks)


def _fisher_yates(js: I64) -> U8:
    """Swap position i = 51..1 with js[:, 51 - i] in every row at once (ORDERED_DECK order)."""
    size = len(js)
    decks = np.tile(np.arange(K, dtype=np.uint8), (size, 1))
    flat = decks.reshape(-1)
    base = np.arange(0, size * K, K, dtype=np.int64)
    for step in range(_DRAWS):
        i = base + (K - 1 - step)
        j = base + js[:, step]
        top = flat[i]
        flat[i] = flat[j]
        flat[j] = top
    return decks


def secrets_decks(n: int, randbelow: RandBelow = secrets.randbelow) -> U8:
    """`n` decks from `shuffled_deck`, the table's non-fair source."""
    return np.array([[c.index for c in shuffled_deck(randbelow)] for _ in range(n)], np.uint8)


# -- the run ---------------------------------------------------------------------------------


@dataclass
class _Tally:
    counts: I64
    tops: U8
    seed_ids: U64  # first 8 bytes of each server seed, to look for repeats
    verified: int
    fallbacks: int


def _chunk(job: tuple[str, int, int, bytes | None, int]) -> _Tally:
    """One worker task: a fresh shuffler (a server start) dealing `count` decks."""
    source, index, count, seed, verify_every = job
    if source == "fair":
        seeds = secrets.token_bytes if seed is None else SeededBytes(seed, index)
        deal = fair_decks(count, seeds, f"rng-{index}", verify_every)
        ids = np.frombuffer(b"".join(s[:8] for s in deal.seeds), dtype=np.uint64)
        tops = deal.decks[:, 0].copy()
        return _Tally(position_counts(deal.decks), tops, ids, deal.verified, deal.fallbacks)
    randbelow: RandBelow = secrets.randbelow
    if seed is not None:
        randbelow = random.Random(SeededBytes(seed, index)(32)).randrange
    decks = secrets_decks(count, randbelow)
    return _Tally(position_counts(decks), decks[:, 0].copy(), np.empty(0, np.uint64), 0, 0)


def start_commitments(processes: int = 2, rounds: int = 1000) -> list[list[str]]:
    """Commitments of `processes` fresh server processes, `rounds` rounds each, same nonces."""
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        return pool.map(_commitments, [rounds] * processes)


def _commitments(rounds: int) -> list[str]:
    shuffler = FairShuffler()
    return [shuffler.commit(f"alpha-{i}") for i in range(rounds)]


def run(
    shuffles: int,
    source: str = "fair",
    workers: int = 2,
    seed: bytes | None = None,
    verify_every: int = 1000,
) -> dict[str, Any]:
    """Deal `shuffles` decks and test them; the JSON document `rng-stats` prints.

    `seed` replaces the entropy (server seeds, or randbelow for `secrets`) by a
    deterministic generator, so a test can pin the outcome while the algorithm
    stays the production one. Results depend on (shuffles, workers, seed) only.
    """
    if source not in SOURCES:
        raise ValueError(f"source must be one of {SOURCES}, not {source!r}")
    if shuffles < 2 or workers < 1:
        raise ValueError("need at least 2 shuffles and 1 worker")
    chunks = max(workers, -(-shuffles // CHUNK))
    sizes = [shuffles // chunks + (i < shuffles % chunks) for i in range(chunks)]
    jobs = [(source, i, size, seed, verify_every) for i, size in enumerate(sizes) if size]
    began = time.perf_counter()
    if workers == 1:
        tallies = [_chunk(job) for job in jobs]
    else:
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            tallies = pool.map(_chunk, jobs, chunksize=1)
    counts = np.sum([t.counts for t in tallies], axis=0)
    position = position_test(counts)
    serial = serial_test(np.concatenate([t.tops for t in tallies]))
    ids = np.concatenate([t.seed_ids for t in tallies])
    seed_repeats = int(len(ids) - len(np.unique(ids)))
    seconds = time.perf_counter() - began
    starts = [c for commits in start_commitments() for c in commits]
    start_repeats = len(starts) - len(set(starts))
    return {
        "shuffles": shuffles,
        "source": source,
        "workers": workers,
        "seeded": seed is not None,
        "position_chi2": position.statistic,
        "position_df": position.df,
        "position_p": position.p,
        "position_critical": position.critical,
        "serial_chi2": serial.statistic,
        "serial_df": serial.df,
        "serial_p": serial.p,
        "serial_critical": serial.critical,
        "seed_repeats": seed_repeats,
        "start_commitments": len(starts),
        "start_repeats": start_repeats,
        "verified_decks": sum(t.verified for t in tallies),
        "fallback_decks": sum(t.fallbacks for t in tallies),
        "pass": position.passed and serial.passed and seed_repeats == 0 and start_repeats == 0,
        "seconds": round(seconds, 3),
        "decks_per_second": round(shuffles / seconds),
    }


def summary(result: dict[str, Any]) -> str:
    """The human-readable form of a `run` result."""

    def line(name: str, key: str) -> str:
        p = result[f"{key}_p"]
        verdict = "pass" if p > LEVEL else "FAIL"
        return (
            f"  {name}: chi2 {result[f'{key}_chi2']:.1f} on {result[f'{key}_df']} df, "
            f"p = {p:.4g} (99% critical {result[f'{key}_critical']:.1f})  {verdict}"
        )

    seeded = ", seeded" if result["seeded"] else ""
    seeds = (
        f"  server seeds repeated: {result['seed_repeats']}; "
        f"{result['verified_decks']} decks re-dealt by FairShuffler.deck matched, "
        f"{result['fallback_decks']} dealt by fair_order after a rejected word"
        if result["source"] == "fair"
        else "  (shuffled_deck: no server seeds)"
    )
    return "\n".join(
        [
            f"{result['shuffles']:,} shuffles from {result['source']}{seeded} on "
            f"{result['workers']} worker(s) in {result['seconds']:.1f} s "
            f"({result['decks_per_second']:,} decks/s)",
            line("card by position", "position"),
            line("first-card serial pairs", "serial"),
            seeds,
            f"  two fresh server starts: {result['start_commitments']} commitments, "
            f"{result['start_repeats']} repeated",
            "PASS" if result["pass"] else "FAIL",
        ]
    )
