"""docs/ARCHITECTURE.md stays true: every module is listed, every listed one exists,
and the import contracts it describes are the ones `make lint` runs."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "ARCHITECTURE.md"
PACKAGES = ("protocol", "server", "clients")
#: No source file grows past this (one job per module).
MAX_LINES = 900


def modules() -> set[str]:
    found = set()
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "node_modules" in path.parts or path.name == "__init__.py":
                continue
            found.add(path.relative_to(ROOT).as_posix())
    return found


def listed() -> set[str]:
    return set(re.findall(r"`((?:protocol|server|clients)/[\w/]+\.py)`", DOC.read_text()))


def test_every_module_is_in_the_architecture_document() -> None:
    missing = modules() - listed()
    assert not missing, f"add to docs/ARCHITECTURE.md: {sorted(missing)}"


def test_every_module_the_document_lists_exists() -> None:
    gone = listed() - modules()
    assert not gone, f"docs/ARCHITECTURE.md lists modules that do not exist: {sorted(gone)}"


def test_no_source_file_is_over_the_limit() -> None:
    long = {}
    for package in (*PACKAGES, "tests", "tools", "benchmarks"):
        for path in (ROOT / package).rglob("*.py"):
            if "node_modules" in path.parts:
                continue
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > MAX_LINES:
                long[path.relative_to(ROOT).as_posix()] = lines
    assert not long, f"split these (> {MAX_LINES} lines): {long}"


def test_the_layering_contracts_are_configured() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    assert set(config["root_packages"]) == set(PACKAGES)
    kinds = {(c["type"], tuple(c.get("source_modules", ()))) for c in config["contracts"]}
    assert ("forbidden", ("server.game",)) in kinds
    assert ("forbidden", ("protocol",)) in kinds
    assert ("forbidden", ("clients",)) in kinds
    assert ("forbidden", ("server",)) in kinds
    assert ("forbidden", ("server.stores",)) in kinds
    cycles = [c for c in config["contracts"] if c["type"] == "acyclic_siblings"]
    assert cycles and set(cycles[0]["ancestors"]) == set(PACKAGES)
