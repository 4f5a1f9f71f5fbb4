"""The report of a chaos run: JSON for machines, a summary for people."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.chaos.faults import Fault
from tests.chaos.reconcile import CheckResult, Violation

#: Examples of each kind of violation printed in the summary.
SHOWN_PER_KIND = 3


@dataclass
class Report:
    seed: int
    seconds: float
    workdir: str
    wall_seconds: float
    checks: list[CheckResult]
    faults: list[Fault]
    by_kind: dict[str, Any]
    totals: dict[str, Any] = field(default_factory=dict)

    @property
    def violations(self) -> list[Violation]:
        return [v for c in self.checks for v in c.violations]

    @property
    def clean(self) -> bool:
        return not self.violations

    def check(self, name: str) -> CheckResult:
        return next(c for c in self.checks if c.name == name)

    def to_dict(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "seconds": self.seconds,
            "workdir": self.workdir,
            "wall_seconds": round(self.wall_seconds, 1),
            "clean": self.clean,
            "violations": len(self.violations),
            "totals": self.totals,
            "by_fault_kind": self.by_kind,
            "faults": [f.to_dict() for f in self.faults],
            "checks": [c.to_dict() for c in self.checks],
        }

    def save(self, directory: Path) -> None:
        (directory / "report.json").write_text(
            json.dumps(self.to_dict(), indent=1, default=str), encoding="utf-8"
        )
        (directory / "summary.txt").write_text(self.summary(), encoding="utf-8")

    def summary(self) -> str:
        t = self.totals
        lines = [
            f"chaos run: seed {self.seed}, {self.seconds:g}s of faults, "
            f"{self.wall_seconds:.0f}s wall in all",
            f"  {t.get('servers', 0)} servers ({t.get('incarnations', 0)} incarnations), "
            f"{t.get('tables', 0)} tables, {t.get('players', 0)} players, "
            f"{t.get('requests', 0)} requests, rounds settled {t.get('settled', 0)}, "
            f"voided {t.get('voided', 0)}, open {t.get('open', 0)}",
            f"  work dir: {self.workdir}",
            "",
            "faults (kind: injected, settled rounds across, cents moved in them, "
            "split-brain s, violations around them, takeover s):",
        ]
        for kind, fig in sorted(self.by_kind.items()):
            takeover = [
                "never" if x.get("seconds") is None else f"{x['table']} {x['seconds']:.2f}"
                for x in fig.get("takeover_seconds", [])
            ]
            lines.append(
                f"  {kind:13} x{fig.get('injected', 0)}: {fig.get('rounds_across', 0)} rounds, "
                f"{fig.get('cents_moved', 0)} cents, split-brain "
                f"{fig.get('split_brain_seconds', 0.0):.3f}s, "
                f"{fig.get('violations', 0)} violations"
                + (f", takeover {'; '.join(takeover)}" if takeover else "")
            )
        lines.append("")
        lines.append("checks:")
        for c in self.checks:
            verdict = "PASS" if c.passed else f"FAIL ({len(c.violations)})"
            lines.append(f"  {c.name} {verdict:10} {c.title}")
            kinds: dict[str, list[Violation]] = defaultdict(list)
            for v in c.violations:
                kinds[v.kind].append(v)
            for kind, vs in kinds.items():
                lines.append(f"      {kind}: {len(vs)}")
                for v in vs[:SHOWN_PER_KIND]:
                    lines.append(f"        - {v.line()}")
                    if v.op:
                        lines.append(f"          request: {json.dumps(v.op, default=str)}")
            for note in c.notes[:5]:
                lines.append(f"      note: {note}")
        lines.append("")
        lines.append(
            "verdict: clean" if self.clean else f"verdict: {len(self.violations)} violation(s)"
        )
        return "\n".join(lines) + "\n"
