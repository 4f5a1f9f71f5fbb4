"""Benchmark the exact odds analysis; prints one JSON document.

Run: `.venv/bin/python benchmarks/odds.py [--variant NAME ...]`.

Each variant runs in a fresh process, so its time includes the whole
enumeration (which a single process shares between variants) and its peak
resident memory is its own: `peak_rss_mb` is the child's maximum RSS, interpreter
and numpy included; `import_rss_mb` is the RSS before the analysis started.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from typing import Any


def run_one(name: str) -> dict[str, Any]:
    """In the child: analyze one preset and measure it."""
    from server.analysis.odds import analyze
    from server.game.variants import VARIANTS

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    report = analyze(VARIANTS[name])
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    be = report.progressive_break_even_cents
    return {
        "variant": name,
        "seconds": round(seconds, 3),
        "enumeration_seconds": round(report.enumeration_seconds, 3),
        "import_rss_mb": round(before / 1024, 1),
        "peak_rss_mb": round(peak / 1024, 1),
        "house_edge_ante": float(report.house_edge_ante),
        "element_of_risk": float(report.element_of_risk),
        "dealer_qualifies": float(report.dealer_qualifies),
        "raise_probability": float(report.raise_probability),
        "progressive_break_even_dollars": None if be is None else round(float(be) / 100, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", action="append", help="a preset (default: all three)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_one(args.child)))
        return
    names = args.variant or ["stud-poker", "casino-stud", "bermuda"]
    results = []
    for name in names:
        out = subprocess.run(
            [sys.executable, __file__, "--child", name],
            check=True,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": os.getcwd()},
        ).stdout
        results.append(json.loads(out))
    print(
        json.dumps(
            {
                "python": platform.python_version(),
                "machine": platform.machine(),
                "cpus": os.cpu_count(),
                "results": results,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
