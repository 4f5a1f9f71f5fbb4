"""Retry loops log an outage's failures when they start or change, then once a minute,
not at every try (a heartbeat every half second through a Redis outage wrote hundreds
of lines a minute)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from server.fleet import every
from server.stores.retry_log import RetryLog


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records]


def test_a_failure_going_on_is_logged_once_a_minute_and_a_new_cause_at_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    clock = Clock()
    failures = RetryLog(logging.getLogger("t"), logging.WARNING, clock=clock)
    for _ in range(100):  # 50 s of tries every half second
        failures.failed("down", "store away: %s", "down")
        clock.now += 0.5
    assert lines(caplog) == ["store away: down"]
    clock.now = 61.0
    failures.failed("down", "store away: %s", "down")
    failures.failed("refused", "store away: %s", "refused")
    assert lines(caplog)[1:] == [
        "store away: down (101 failures in a row)",
        "store away: refused (102 failures in a row)",
    ]
    assert failures.recovered() == 102
    failures.failed("refused", "store away: %s", "refused")  # a new run: said at once
    assert lines(caplog)[-1] == "store away: refused"
    assert failures.recovered() == 1 and failures.recovered() == 0


async def test_a_periodic_step_failing_says_so_once_then_that_it_works_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="stud.fleet")
    outcomes = [RuntimeError("Redis away")] * 20 + [None] * 5
    done = asyncio.Event()

    async def step() -> None:
        outcome = outcomes.pop(0)
        if not outcomes:
            done.set()
        if outcome is not None:
            raise outcome

    task = asyncio.create_task(every(0.001, step, "lease renewal"))
    await asyncio.wait_for(done.wait(), 10)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert lines(caplog) == [
        "lease renewal failed: Redis away",
        "lease renewal works again after 20 failures",
    ]
