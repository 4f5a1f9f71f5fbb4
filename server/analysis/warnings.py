"""What a config's tables risk for the house: `check-config` prints it, `serve` logs it.

A paytable that gives the player the edge against optimal play, or a progressive
that returns more than its stake already at the seed meter, is a legal config
that loses the house money. The exact figures need the shared enumeration
(seconds of CPU and some 600 MB), so `serve` works them out in a child process
(the serving process kept about 230 MB of it for good when it ran on a thread
there), and only for the variants the config defines itself: the built-in
presets' edges are fixed and tested.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import subprocess
import sys
from fractions import Fraction
from typing import TYPE_CHECKING

from server.config import Config
from server.game.table import TableConfig
from server.game.variants import VARIANTS, Variant, VariantSpec

if TYPE_CHECKING:
    from server.analysis.odds import OddsReport

#: What the child needs of a table: its id, its variant, its meter's seed, its stake.
Check = tuple[str, VariantSpec, int, int]


def percent(value: Fraction) -> str:
    return f"{float(value) * 100:.4f}%"


def table_warnings(config: Config, table: TableConfig, report: OddsReport) -> list[str]:
    """The table's warnings, each a sentence naming the table."""
    seed = config.jackpots[table.jackpot].seed
    return _warnings(table.table_id, table.variant.name, seed, table.stake, report)


def _warnings(table_id: str, variant: str, seed: int, stake: int, report: OddsReport) -> list[str]:
    found = []
    if report.player_edge:
        found.append(
            f"table {table_id}: variant {variant} gives the player an edge "
            f"of {percent(-report.house_edge_ante)} of the ante"
        )
    if report.progressive_return(seed, stake) >= 1:
        found.append(
            f"table {table_id}: the progressive returns "
            f"{percent(report.progressive_return(seed, stake))} of its stake already at "
            f"the seed meter ({seed} cents)"
        )
    return found


def _checks(config: Config) -> list[Check]:
    """The tables whose variant the config defines (not a preset)."""
    return [
        (t.table_id, t.variant.spec(), config.jackpots[t.jackpot].seed, t.stake)
        for t in config.tables
        if VARIANTS.get(t.variant.name) != t.variant
    ]


def _checked(checks: list[Check]) -> list[str]:
    from server.analysis.odds import analyze  # the enumeration: loaded where it runs

    reports: dict[bytes, OddsReport] = {}  # by variant: tables may share one
    found = []
    for table_id, spec, seed, stake in checks:
        key = pickle.dumps(spec)
        report = reports.get(key) or analyze(Variant(*spec))
        reports[key] = report
        found += _warnings(table_id, spec[0], seed, stake, report)
    return found


def own_variant_warnings(config: Config) -> list[str]:
    """The warnings of the tables whose variant the config defines, worked out here."""
    return _checked(_checks(config))


def own_variant_warnings_in_child(config: Config) -> list[str]:
    """`own_variant_warnings` worked out in a child Python process at the lowest
    priority, which gives the enumeration's memory back when it exits."""
    checks = _checks(config)
    if not checks:
        return []
    done = subprocess.run(
        [sys.executable, "-m", "server.analysis.warnings"],
        input=pickle.dumps(checks),
        capture_output=True,
        check=True,
    )
    found: list[str] = json.loads(done.stdout)
    return found


if __name__ == "__main__":
    with contextlib.suppress(OSError):
        os.nice(19)  # beside a serving process: its tables come first
    print(json.dumps(_checked(pickle.load(sys.stdin.buffer))))
