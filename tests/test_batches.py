"""Writes of one event-loop turn go out together, each keeping its own outcome."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.stores.base import OutcomeUnknown, StoreUnavailable
from server.stores.batches import MAX_BATCH, Batches, Write


class Sender:
    def __init__(self, fail: Exception | None = None) -> None:
        self.calls: list[list[Write]] = []
        self.fail = fail

    async def __call__(self, writes: list[Write]) -> list[Any]:
        self.calls.append(writes)
        await asyncio.sleep(0)
        if self.fail is not None:
            raise self.fail
        return [{"ok": request} for _, request in writes]


async def test_a_turns_writes_go_in_slices_each_with_its_reply() -> None:
    send = Sender()
    batches = Batches(send, OutcomeUnknown)
    n = 2 * MAX_BATCH + 7
    replies = await asyncio.gather(*(batches.add("bet", i) for i in range(n)))
    assert replies == [{"ok": i} for i in range(n)]
    assert [len(c) for c in send.calls] == [MAX_BATCH, MAX_BATCH, 7]
    assert await batches.add("apply", "later") == {"ok": "later"}  # a later turn: its own
    assert send.calls[-1] == [("apply", "later")]


async def test_a_cancelled_caller_is_not_sent() -> None:
    send = Sender()
    batches = Batches(send, OutcomeUnknown)
    kept, dropped = batches.add("bet", 1), batches.add("bet", 2)
    dropped.cancel()
    assert await kept == {"ok": 1}
    assert send.calls == [[("bet", 1)]]


@pytest.mark.parametrize("error", [StoreUnavailable("not sent"), OutcomeUnknown("cut short")])
async def test_a_failed_round_trip_is_every_callers_own(error: Exception) -> None:
    batches = Batches(Sender(fail=error), OutcomeUnknown)
    outcomes = await asyncio.gather(
        *(batches.add("bet", i) for i in range(3)), return_exceptions=True
    )
    assert all(type(e) is type(error) and str(e) == str(error) for e in outcomes)
    assert len({id(e) for e in outcomes}) == 3  # each raised where it is awaited, apart


async def test_a_reply_short_of_writes_is_an_unknown_outcome_for_all() -> None:
    async def short(writes: list[Write]) -> list[Any]:
        return [{"ok": 1}]

    batches = Batches(short, OutcomeUnknown)
    outcomes = await asyncio.gather(
        *(batches.add("bet", i) for i in range(2)), return_exceptions=True
    )
    assert all(isinstance(e, OutcomeUnknown) for e in outcomes)
