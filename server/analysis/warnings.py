"""What a config's tables risk for the house: `check-config` prints it, `serve` logs it.

A paytable that gives the player the edge against optimal play, or a progressive
that returns more than its stake already at the seed meter, is a legal config
that loses the house money. The exact figures need the shared enumeration
(seconds of CPU, once per process), so `serve` works them out in the background,
and only for the variants the config defines itself: the built-in presets'
edges are fixed and tested.
"""

from __future__ import annotations

from fractions import Fraction

from server.analysis.odds import OddsReport, analyze
from server.config import Config
from server.game.table import TableConfig
from server.game.variants import VARIANTS


def percent(value: Fraction) -> str:
    return f"{float(value) * 100:.4f}%"


def table_warnings(config: Config, table: TableConfig, report: OddsReport) -> list[str]:
    """The table's warnings, each a sentence naming the table."""
    found = []
    if report.player_edge:
        found.append(
            f"table {table.table_id}: variant {table.variant.name} gives the player an edge "
            f"of {percent(-report.house_edge_ante)} of the ante"
        )
    seed = config.jackpots[table.jackpot].seed
    if report.progressive_return(seed, table.stake) >= 1:
        found.append(
            f"table {table.table_id}: the progressive returns "
            f"{percent(report.progressive_return(seed, table.stake))} of its stake already at "
            f"the seed meter ({seed} cents)"
        )
    return found


def own_variant_warnings(config: Config) -> list[str]:
    """The warnings of the tables whose variant the config defines (not a preset)."""
    reports: dict[str, OddsReport] = {}
    found = []
    for table in config.tables:
        if VARIANTS.get(table.variant.name) == table.variant:
            continue
        report = reports.get(table.variant.name) or analyze(table.variant)
        reports[table.variant.name] = report
        found += table_warnings(config, table, report)
    return found
