"""The chaos test, short: money under faults across three real server processes.

`tests/chaos/` starts Redis (AOF) and three `stud-server` processes sharing five
tables, has bots play them, injects every kind of fault once or more while cards
are out (hosts SIGKILLed and SIGSTOPped, Redis SIGTERMed, SIGKILLed and
SIGSTOPped, connections cut mid-decision, one token racing on every process),
then reconciles the store and the logs against what every player was told.
The run must be clean. `make chaos SECONDS=... SEED=...` runs a longer one.
"""

from __future__ import annotations

import faulthandler
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.chaos.run import Options, run_chaos

pytestmark = pytest.mark.chaos

#: Seconds of fault injection: one full cycle of every fault kind fits in it.
SECONDS = 50.0
SEED = 20_250_101
#: Seconds the whole test may take (the run is ~95 s; shared CI machines are slow).
CHAOS_TIME_LIMIT = 240.0


@pytest.fixture
def chaos_time_limit() -> Iterator[None]:
    """As `tests.redis_fixture.time_limit`, with a bound for the whole run: a hang
    dumps every thread's stack and ends the test run instead of blocking CI."""
    faulthandler.dump_traceback_later(CHAOS_TIME_LIMIT, exit=True)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


async def test_money_and_tables_survive_faults(tmp_path: Path, chaos_time_limit: None) -> None:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not on the PATH")
    report = await run_chaos(Options(seconds=SECONDS, seed=SEED, workdir=tmp_path / "chaos"))
    assert report.clean, report.summary()
