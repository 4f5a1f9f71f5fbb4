"""Each variant's exact house edge, for the console's hold figures.

`server/analysis/odds.py` enumerates every deal: seconds of CPU and some
600 MB the first time. So a variant's figures are computed once, the first
time a console asks, never on the event loop, and kept: by default in a child
process (`admin.house_edge = "process"`) that exits afterwards and gives the
memory back; `"thread"` computes in this process (faster again, the counts
stay in memory); `"off"` shows no edge. Until ready, the figures are `None`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import pickle
import sys
from typing import Any

from server.game.variants import Variant, VariantSpec

log = logging.getLogger("stud.admin")


def variant_key(variant: Variant) -> str:
    """A variant's name and what its paytables are: another definition, another key."""
    text = json.dumps(variant.to_public(), sort_keys=True)
    return f"{variant.name}:{hashlib.sha256(text.encode()).hexdigest()[:12]}"


def compute(specs: list[VariantSpec]) -> list[dict[str, Any]]:
    """The figures of each variant (run in a child process or a thread)."""
    from server.analysis.odds import analyze

    out = []
    for s in specs:
        report = analyze(Variant(*s))
        out.append(
            {
                "house_edge_ante": float(report.house_edge_ante),
                "element_of_risk": float(report.element_of_risk),
                "house_edge_ante_exact": str(report.house_edge_ante),
                "element_of_risk_exact": str(report.element_of_risk),
            }
        )
    return out


class HouseEdges:
    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.figures: dict[str, dict[str, Any]] = {}
        self._wanted: dict[str, Variant] = {}
        self._task: asyncio.Task[None] | None = None

    def get(self, variant: Variant) -> tuple[str, dict[str, Any] | None]:
        """("ready", figures), ("computing", None) (started now if it was not), or
        ("off", None)."""
        if self.mode == "off":
            return "off", None
        key = variant_key(variant)
        if key in self.figures:
            return "ready", self.figures[key]
        self._wanted[key] = variant
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._compute())
        return "computing", None

    async def _compute(self) -> None:
        while self._wanted:
            batch, self._wanted = dict(self._wanted), {}
            specs = [v.spec() for v in batch.values()]
            try:
                if self.mode == "thread":
                    results = await asyncio.to_thread(compute, specs)
                else:
                    results = await in_child(specs)
            except Exception:
                log.exception("house edges not computed")
                return
            self.figures.update(zip(batch, results, strict=True))
            log.info("house edges computed", extra={"variants": sorted(batch)})

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)


async def in_child(specs: list[VariantSpec]) -> list[dict[str, Any]]:
    """`compute` in a child Python process (killed if this is cancelled)."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "server.admin.edges",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    try:
        out, _ = await child.communicate(pickle.dumps(specs))
    except BaseException:
        if child.returncode is None:
            child.kill()
            await child.wait()
        raise
    if child.returncode != 0:
        raise RuntimeError(f"the house edge process failed ({child.returncode})")
    results: list[dict[str, Any]] = json.loads(out)
    return results


if __name__ == "__main__":
    print(json.dumps(compute(pickle.load(sys.stdin.buffer))))
