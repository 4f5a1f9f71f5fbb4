"""Export the exact optimal strategy of each variant as data the clients can read.

`server.analysis.odds` decides every (hand class, up card) by full enumeration;
clients may not import the server, so this writes those decisions to
`clients/strategy_data/` in the format `clients/optimal.py` reads (described
there). Per hand category it checks, exactly, whether every deal raises or
every one folds, and stores rows only for the mixed categories. Variants whose
decisions coincide share one table: the presets all do.

The command is `tools/export_strategy.py`, which runs `main`:

    python -m tools.export_strategy                  # presets -> presets.bin
    python -m tools.export_strategy --check          # exit 1 if the file is stale
    python -m tools.export_strategy --config my.toml --variant house-rules
                                                     # -> house-rules.bin

A variant exported by name is preferred by `clients.optimal.load` to the
presets' file. Run it again whenever a paytable or `server.analysis.odds`
changes; tests/test_optimal.py fails until the committed file is regenerated.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from math import comb
from pathlib import Path
from typing import Any

import numpy as np

from server.analysis.odds import UP_CARDS, analyze, enumeration
from server.config import ConfigError, load_config
from server.game.categories import Category
from server.game.variants import VARIANTS, Variant

# The file format, version 1, as clients/optimal.py reads it. The server may not
# import the clients, so the writer spells the format out and the tests hold the
# two sides to each other (same constants; every table written decodes to itself).
FORMAT = "casino-stud/optimal-strategy"
VERSION = 1
DATA_DIR = "strategy_data"
PRESETS_FILE = "presets.bin"
CATEGORIES = tuple(c.name for c in Category)
RAISE, FOLD, TABLE = "raise", "fold", "table"
ROW_BYTES = 6
UP_COLUMNS = 47

#: The repository's clients/strategy_data/ (this file is server/analysis/strategy_export.py).
OUT_DIR = Path(__file__).resolve().parents[2] / "clients" / DATA_DIR
_ALL_UP = (1 << UP_CARDS) - 1

if UP_CARDS != UP_COLUMNS:  # pragma: no cover
    raise AssertionError("the odds enumeration and the file format disagree on up cards")


@dataclass(frozen=True)
class Table:
    """One variant's decisions, encoded: a policy per category and the mixed classes' rows."""

    policy: dict[str, str]
    classes: int
    rows: int
    data: bytes
    #: What the client must decode: class (colex number) -> 47-bit row.
    decoded: dict[int, int] = field(compare=False, repr=False)


def colex_numbers() -> np.ndarray[Any, np.dtype[np.int64]]:
    """Each class's colex number, the class id in the file (enumeration row order)."""
    cards = enumeration().cards
    colex = np.zeros(len(cards), np.int64)
    for k in range(5):
        terms = np.array([comb(c, k + 1) for c in range(52)], np.int64)
        colex += terms[cards[:, k]]
    return colex


def _varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def table_of(variant: Variant) -> Table:
    """The exact decisions of `variant` from the odds analysis, in the file's table encoding."""
    counts = enumeration()
    bits = analyze(variant).strategy.raise_bits
    # Row bit j: raise against column j, the j-th card the representative lacks.
    column_bits = (bits[:, None] >> counts.up.astype(np.uint64)) & np.uint64(1)
    rows = (column_bits << np.arange(UP_CARDS, dtype=np.uint64)).sum(axis=1, dtype=np.uint64)
    colex, category = colex_numbers(), counts.category
    policy: dict[str, str] = {}
    mixed = np.zeros(len(rows), np.bool_)
    for cat in Category:
        sel = category == int(cat)
        if np.all(rows[sel] == _ALL_UP):
            policy[cat.name] = RAISE
        elif np.all(rows[sel] == 0):
            policy[cat.name] = FOLD
        else:
            policy[cat.name] = TABLE
            mixed |= sel
    order = np.argsort(colex[mixed], kind="stable")
    keys = [int(x) for x in colex[mixed][order]]
    values = [int(x) for x in rows[mixed][order]]
    # Distinct rows, the commonest first, so most row numbers take one varint byte.
    frequency = Counter(values)
    distinct = sorted(frequency, key=lambda r: (-frequency[r], r))
    number = {r: i for i, r in enumerate(distinct)}
    out = bytearray(len(distinct).to_bytes(4, "little") + len(keys).to_bytes(4, "little"))
    for r in distinct:
        out += r.to_bytes(ROW_BYTES, "little")
    previous = 0
    for key, r in zip(keys, values, strict=True):
        out += _varint(key - previous) + _varint(number[r])
        previous = key
    return Table(policy, len(keys), len(distinct), bytes(out), dict(zip(keys, values, strict=True)))


def export(variants: Iterable[Variant]) -> bytes:
    """A data file holding `variants`, one table per distinct set of decisions."""
    return build(variants)[0]


def build(variants: Iterable[Variant]) -> tuple[bytes, dict[str, Table]]:
    """The data file and each variant's encoded table (for the tests that decode it back)."""
    tables: list[Table] = []
    entries: dict[str, dict[str, Any]] = {}
    for variant in sorted(variants, key=lambda v: v.name):
        table = table_of(variant)
        if table not in tables:
            tables.append(table)
        entries[variant.name] = {
            "table": tables.index(table),
            "raise_paytable": {c.name: str(variant.raise_odds(c)) for c in Category},
        }
    payload = b"".join(t.data for t in tables)
    specs = []
    offset = 0
    for t in tables:
        specs.append(
            {
                "policy": t.policy,
                "classes": t.classes,
                "rows": t.rows,
                "offset": offset,
                "length": len(t.data),
            }
        )
        offset += len(t.data)
    header = {
        "format": FORMAT,
        "version": VERSION,
        "categories": list(CATEGORIES),
        "variants": entries,
        "tables": specs,
        "sha256": hashlib.sha256(payload).hexdigest(),
    }
    line = json.dumps(header, sort_keys=True, separators=(",", ":")).encode("ascii")
    data = line + b"\n" + payload
    return data, {name: tables[entry["table"]] for name, entry in entries.items()}


def targets(config: str | None, names: Sequence[str]) -> dict[str, list[Variant]]:
    """File name -> the variants it holds: the presets, or each named variant alone."""
    if not names:
        return {PRESETS_FILE: list(VARIANTS.values())}
    known = dict(load_config(config).variants) if config else dict(VARIANTS)
    missing = [n for n in names if n not in known]
    if missing:
        raise ConfigError(f"unknown variant {missing[0]!r} (have {', '.join(sorted(known))})")
    return {f"{n}.bin": [known[n]] for n in names}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", help="TOML config file whose [variants] are searched too")
    parser.add_argument(
        "--variant", action="append", default=[], help="export this variant alone (repeatable)"
    )
    parser.add_argument("--out", type=Path, default=OUT_DIR, help=f"folder ({OUT_DIR})")
    parser.add_argument("--check", action="store_true", help="exit 1 if a file would change")
    args = parser.parse_args(argv)
    try:
        files = targets(args.config, args.variant)
    except ConfigError as e:
        print(f"export_strategy: {e}", file=sys.stderr)
        return 2
    stale = 0
    for name, variants in files.items():
        data = export(variants)
        path = args.out / name
        header = json.loads(data.partition(b"\n")[0])
        shared = Counter(v["table"] for v in header["variants"].values())
        held = ", ".join(f"{n} (table {e['table']})" for n, e in header["variants"].items())
        summary = f"{path}: {len(data):,} bytes, {len(header['tables'])} table(s): {held}"
        if args.check:
            same = path.is_file() and path.read_bytes() == data
            stale += not same
            print(("up to date: " if same else "STALE: ") + summary)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        print("wrote " + summary)
        for i, spec in enumerate(header["tables"]):
            mixed = [c for c, p in spec["policy"].items() if p == TABLE]
            print(
                f"  table {i} ({shared[i]} variant(s)): stored {', '.join(mixed) or 'nothing'}; "
                f"{spec['classes']:,} classes, {spec['rows']} distinct rows"
            )
    return 1 if stale else 0
