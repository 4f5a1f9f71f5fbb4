"""Benchmark the hand evaluator against treys; prints one JSON document.

Run: `.venv/bin/python benchmarks/evaluator.py [--hands N] [--seed S] [--repeat R]`.

All evaluators see the same random hands (fixed seed): ours as pre-parsed
`Card`s, treys as its ints built from the same cards, batch as uint8 arrays of
`Card.index`. Timings are the best of `--repeat` runs, and the run also checks
that all three agree on every hand (our strength == 7462 - treys rank).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from treys import Card as TCard
from treys import Evaluator

from server.game import batch
from server.game import evaluator as scalar
from server.game.cards import DECK, Card
from server.game.evaluator import evaluate


def best_time(run: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def time_ours(hands: Sequence[tuple[Card, ...]], repeat: int) -> float:
    def run() -> None:
        ev = evaluate
        for hand in hands:
            ev(hand)

    return best_time(run, repeat)


def time_treys(hands: Sequence[list[int]], repeat: int) -> float:
    ev = Evaluator().evaluate
    board: list[int] = []

    def run() -> None:
        for hand in hands:
            ev(hand, board)

    return best_time(run, repeat)


def time_treys_five(hands: Sequence[list[int]], repeat: int) -> float:
    """treys' internal 5-card routine, skipping its public wrapper: its best case."""
    five = Evaluator()._five

    def run() -> None:
        for hand in hands:
            five(hand)

    return best_time(run, repeat)


def time_batch(
    array: npt.NDArray[np.uint8], repeat: int, **options: bool
) -> tuple[float, npt.NDArray[np.uint16]]:
    out = np.empty(array.shape[1] if options.get("columns") else array.shape[0], np.uint16)
    seconds = best_time(lambda: batch.evaluate_many(array, out=out, **options), repeat)
    return seconds, out


def rate(count: int, seconds: float) -> float:
    return round(count / seconds)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing (best kept)")
    args = parser.parse_args(argv)
    n: int = args.hands
    repeat: int = args.repeat

    start = time.perf_counter()
    scalar._build()
    scalar_build = time.perf_counter() - start
    start = time.perf_counter()
    batch.strength_table()  # first use builds it
    batch_build = time.perf_counter() - start

    rng = random.Random(args.seed)
    deck = range(52)
    indexes = [rng.sample(deck, 5) for _ in range(n)]
    hands = [tuple(DECK[i] for i in row) for row in indexes]
    treys_card = [TCard.new(card.text) for card in DECK]
    treys_hands = [[treys_card[i] for i in row] for row in indexes]
    rows = np.array(indexes, dtype=np.uint8)
    sorted_rows = np.sort(rows, axis=1)
    cols = np.ascontiguousarray(rows.T)
    sorted_cols = np.ascontiguousarray(sorted_rows.T)

    ours_s = time_ours(hands, repeat)
    treys_s = time_treys(treys_hands, repeat)
    treys_five_s = time_treys_five(treys_hands, repeat)
    batch_repeat = max(repeat, 7)
    timings = {
        "presorted_columns": time_batch(sorted_cols, batch_repeat, presorted=True, columns=True),
        "presorted_rows": time_batch(sorted_rows, batch_repeat, presorted=True),
        "unsorted_columns": time_batch(cols, batch_repeat, columns=True),
        "unsorted_rows": time_batch(rows, batch_repeat),
        "presorted_columns_nocheck": time_batch(
            sorted_cols, batch_repeat, presorted=True, columns=True, check=False
        ),
        "unsorted_columns_nocheck": time_batch(cols, batch_repeat, columns=True, check=False),
    }

    ours = [v.strength for v in map(evaluate, hands)]
    treys_eval = Evaluator().evaluate
    treys_mismatches = sum(
        s != 7462 - treys_eval(h, []) for s, h in zip(ours, treys_hands, strict=True)
    )
    expected = np.array(ours, dtype=np.uint16)
    batch_mismatches = {name: int((out != expected).sum()) for name, (_, out) in timings.items()}

    report: dict[str, Any] = {
        "hands": n,
        "seed": args.seed,
        "repeat": repeat,
        "one_at_a_time": {
            "ours_hands_per_s": rate(n, ours_s),
            "treys_hands_per_s": rate(n, treys_s),
            "ratio_ours_over_treys": round(treys_s / ours_s, 3),
            "treys_private_five_hands_per_s": rate(n, treys_five_s),
            "ratio_ours_over_treys_private_five": round(treys_five_s / ours_s, 3),
        },
        "batch_uint8_hands_per_s": {
            name: rate(n, seconds) for name, (seconds, _) in timings.items()
        },
        "batch_repeat": batch_repeat,
        "table_build_s": {
            "evaluator_import_tables": round(scalar_build, 4),
            "batch_colex_table": round(batch_build, 4),
        },
        "agreement": {
            "treys_mismatches": treys_mismatches,
            "batch_mismatches": batch_mismatches,
        },
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "numpy": np.__version__,
        "machine": {
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "cpu_count": os.cpu_count(),
        },
    }
    return report


if __name__ == "__main__":
    result = main()
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")
    failed = result["agreement"]["treys_mismatches"] or any(
        result["agreement"]["batch_mismatches"].values()
    )
    sys.exit(1 if failed else 0)
