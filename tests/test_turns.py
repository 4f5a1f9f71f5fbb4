"""Turns at a table: shared turns run together, an exclusive one runs alone, in order."""

from __future__ import annotations

import asyncio

import pytest

from server.turns import Turns


async def test_shared_turns_run_together_and_an_exclusive_one_alone() -> None:
    turns = Turns()
    log: list[str] = []
    release = asyncio.Event()

    async def shared(name: str) -> None:
        async with turns.turn(exclusive=False):
            log.append(f"{name} in")
            await release.wait()
            log.append(f"{name} out")

    async def exclusive(name: str) -> None:
        async with turns.turn(exclusive=True):
            log.append(f"{name} in")
            assert turns.shared == 0
            await asyncio.sleep(0)
            log.append(f"{name} out")

    a = asyncio.create_task(shared("a"))
    b = asyncio.create_task(shared("b"))
    await asyncio.sleep(0)
    assert turns.shared == 2  # both at once
    x = asyncio.create_task(exclusive("x"))
    c = asyncio.create_task(shared("c"))  # arrives after x: waits behind it
    await asyncio.sleep(0)
    assert "x in" not in log and "c in" not in log
    release.set()
    await asyncio.gather(a, b, x, c)
    assert log.index("x in") > log.index("a out") and log.index("x in") > log.index("b out")
    assert log.index("c in") > log.index("x out")
    assert not turns.busy()


async def test_exclusive_turns_follow_one_another_in_arrival_order() -> None:
    turns = Turns()
    order: list[int] = []

    async def job(i: int) -> None:
        async with turns.turn(exclusive=True):
            order.append(i)
            await asyncio.sleep(0)

    await asyncio.gather(*(job(i) for i in range(5)))
    assert order == [0, 1, 2, 3, 4]


async def test_a_cancelled_waiter_holds_nobody_back() -> None:
    turns = Turns()
    gate = asyncio.Event()

    async def hold() -> None:
        async with turns.turn(exclusive=True):
            await gate.wait()

    holder = asyncio.create_task(hold())
    await asyncio.sleep(0)
    waiter = asyncio.create_task(turns.turn(exclusive=True).__aenter__())
    reader_done = asyncio.Event()

    async def reader() -> None:
        async with turns.turn(exclusive=False):
            reader_done.set()

    r = asyncio.create_task(reader())
    await asyncio.sleep(0)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    gate.set()
    await holder
    await asyncio.wait_for(reader_done.wait(), 1)
    await r
    assert not turns.busy()


async def test_an_error_inside_a_turn_ends_it() -> None:
    turns = Turns()
    with pytest.raises(RuntimeError):
        async with turns.turn(exclusive=False):
            raise RuntimeError("boom")
    with pytest.raises(RuntimeError):
        async with turns.turn(exclusive=True):
            raise RuntimeError("boom")
    assert not turns.busy() and turns.shared == 0 and not turns.exclusive
