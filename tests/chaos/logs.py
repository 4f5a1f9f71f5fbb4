"""The servers' JSON logs (`--log-format json`), as per-table events.

Each incarnation of each server writes its own file, so the file is the process
identity ("s1#0", "s1#1" after a restart). The lines a table's history is made
of, as the server is to write them (every one with `ts`, `table`, `epoch` and
`process`; the round lines with `round_id`):

    "table claimed"   the process took the table (its epoch, the fencing token)
    "round dealt"     a round's cards went out
    "round settled"   a round was paid
    "round voided"    a round was voided and refunded
    "table lost"      the process found the table taken and stopped hosting it

Lines the server writes today stand in where those are missing ("legacy"):
"took over table T", the table list of "serving on ...", "lost table T to another
process", "round voided at shutdown" and "voided a round left open by a crash;
every bet refunded" (which is also a claim: only a new owner voids that way).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CLAIM, DEAL, SETTLE, VOID, LOST = "claim", "deal", "settle", "void", "lost"
ACTIONS = (DEAL, SETTLE, VOID)
CANONICAL = {
    "table claimed": CLAIM,
    "round dealt": DEAL,
    "round settled": SETTLE,
    "round voided": VOID,
    "table lost": LOST,
}
RECOVERY_VOID = "voided a round left open by a crash; every bet refunded"


@dataclass(frozen=True)
class LogRecord:
    identity: str  # the log file: which incarnation of which server
    ts: float
    msg: str
    fields: dict[str, Any]
    line: int = 0


@dataclass(frozen=True)
class TableEvent:
    table: str
    kind: str  # CLAIM, DEAL, SETTLE, VOID, LOST
    ts: float
    identity: str
    epoch: int | None
    round_id: str | None
    msg: str
    legacy: bool  # a stand-in line of today's server, not one of CANONICAL


@dataclass
class ServerLogs:
    records: list[LogRecord] = field(default_factory=list)
    unparsed: int = 0  # lines that were not one JSON object
    files: list[str] = field(default_factory=list)


def read_logs(files: Iterable[tuple[str, Path]]) -> ServerLogs:
    out = ServerLogs()
    for identity, path in files:
        out.files.append(f"{identity}: {path}")
        if not path.exists():
            continue
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                out.unparsed += 1
                continue
            if not isinstance(rec, dict) or not isinstance(rec.get("ts"), int | float):
                out.unparsed += 1
                continue
            fields = {k: v for k, v in rec.items() if k not in ("ts", "msg")}
            ts, msg = float(rec["ts"]), str(rec.get("msg"))
            # a write's line comes once it is confirmed; it applied, under its epoch,
            # between `started_at` (when it was first sent) and the line
            if isinstance(rec.get("started_at"), int | float):
                ts = float(rec["started_at"])
            out.records.append(LogRecord(identity, ts, msg, fields, n))
    return out


def _epoch(fields: dict[str, Any]) -> int | None:
    value = fields.get("epoch")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _round(fields: dict[str, Any]) -> str | None:
    value = fields.get("round_id")
    return str(value) if value else None


def table_events(records: Iterable[LogRecord]) -> list[TableEvent]:
    """Every claim, action and loss of a table, canonical and legacy, by time."""
    out: list[TableEvent] = []
    for r in records:
        f = r.fields
        table = f.get("table")

        def add(kind: str, legacy: bool, table: Any = table, r: LogRecord = r) -> None:
            if isinstance(table, str) and table:
                ev = TableEvent(
                    table, kind, r.ts, r.identity, _epoch(r.fields), _round(r.fields), r.msg, legacy
                )
                out.append(ev)

        if r.msg in CANONICAL:
            add(CANONICAL[r.msg], False)
        elif r.msg.startswith("took over table"):
            add(CLAIM, True)
        elif r.msg.startswith("lost table"):
            add(LOST, True)
        elif r.msg == "round voided at shutdown":
            add(VOID, True)
        elif r.msg == RECOVERY_VOID:
            add(CLAIM, True)
            add(VOID, True)
        elif r.msg.startswith("serving on") and isinstance(f.get("tables"), list):
            for t in f["tables"]:
                add(CLAIM, True, table=t)
    out.sort(key=lambda e: e.ts)
    return out
