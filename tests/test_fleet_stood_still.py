"""A host process that stood still (SIGSTOP) while a player's decision waited unread
in its socket: the decision stands, never folded for time (PROTOCOL.md §6, Faults).
Real `stud-server` processes on one Redis."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import pytest

from tests.redis_fixture import redis_url, time_limit
from tests.test_fleet import ServerProcess, namespace, open_client, processes

__all__ = ["namespace", "processes", "redis_url", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")


async def raise_while_the_host_stands_still(
    host: ServerProcess, processes: list[ServerProcess], *, decision: int, ttl: int, after: float
) -> None:
    """A player decides (raises) while the host is stopped (SIGSTOP) until `after`
    seconds past the decision's deadline; the raise waits, unread, in the socket. When
    the host runs again the raise stands: answered ok, shown raised, never auto-folded."""
    text = host.config.read_text().replace("decision = 30", f"decision = {decision}")
    host.config.write_text(text.replace("fleet_ttl = 1.5", f"fleet_ttl = {ttl}"))
    processes.append(host)
    await asyncio.to_thread(host.start)
    ann = await open_client(host.url, "ann")
    try:
        await ann.request("sit", table="still")
        await ann.request("ante", table="still", seat=0, amount=100)
        await ann.request("deal", table="still")
        snap = await ann.wait_table("still", lambda s: s["phase"] == "deciding")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + snap["ends_in_ms"] / 1000
        assert host.process is not None
        os.kill(host.process.pid, signal.SIGSTOP)
        try:
            raising = asyncio.ensure_future(ann.request("raise", table="still", seat=0))
            await asyncio.sleep(max(0.0, deadline + after - loop.time()))
        finally:
            os.kill(host.process.pid, signal.SIGCONT)
        assert (await asyncio.wait_for(raising, 15))["t"] == "ok"
        done = await ann.wait_table("still", lambda s: s["phase"] == "showdown")
        seat = done["seats"][0]
        assert seat["decision"] == "raise" and not seat.get("auto")
    finally:
        await ann.close()


@pytest.mark.parametrize("ttl", [60, 2])
async def test_a_raise_sent_while_the_host_stood_still_is_not_folded_for_time(
    tmp_path: Path, redis_url: str, namespace: str, processes: list[ServerProcess], ttl: int
) -> None:
    """The host is stopped (SIGSTOP) past the decision's deadline; the player's raise
    is sent meanwhile and waits, unread, in the socket. When the host runs again its
    timer is due before it reads the raise: PROTOCOL.md §6 (Faults) says no hand is
    folded for time the table stood still, so the raise stands. It used to be folded
    and the raise answered `wrong_phase`. With a lease shorter than the stop (ttl 2),
    the lease has lapsed too: the raise waits for its renewal rather than be refused
    `table_suspended` (and then folded when the client did not send it again)."""
    host = ServerProcess(tmp_path, "still", redis_url, namespace)
    await raise_while_the_host_stands_still(host, processes, decision=2, ttl=ttl, after=1.5)


@pytest.mark.parametrize("after", [-0.02, 0.05, 0.15])
async def test_a_raise_sent_while_the_host_stood_still_until_the_deadline_stands(
    tmp_path: Path, redis_url: str, namespace: str, processes: list[ServerProcess], after: float
) -> None:
    """The host stood still until just about the decision's deadline (`after` it): its
    timer came due less than a second late, or not late at all, and acted before the
    raise waiting unread in the socket was read: the hand was folded for time and the
    raise answered `wrong_phase`. A timer coming due just after the process stood still
    now restarts with time left, as a late one did already (a long lease: no lapse)."""
    host = ServerProcess(tmp_path, "still", redis_url, namespace)
    await raise_while_the_host_stands_still(host, processes, decision=3, ttl=60, after=after)


@pytest.mark.parametrize(("stood", "ttl"), [(5.0, 60), (14.0, 60), (5.0, 2)])
async def test_the_decision_clock_keeps_the_time_it_had_when_the_host_stood_still(
    tmp_path: Path,
    redis_url: str,
    namespace: str,
    processes: list[ServerProcess],
    stood: float,
    ttl: int,
) -> None:
    """The host stood still (SIGSTOP) for `stood` seconds of a 12 s decision, and the
    player, whose link went quiet, sent nothing. The clock ran on meanwhile: after 8 s
    the hand was folded for time before the player's terminal was back (after 14 s,
    the clock restarted with 5 s). A process that stood still now gives every running
    clock back what it had when it stopped: the first snapshot after it runs again
    still waits for the decision, with most of the 12 s to go. With a lease shorter than
    the stall (ttl 2) the table is suspended for it first, and resumed with 5 s."""
    host = ServerProcess(tmp_path, "still", redis_url, namespace)
    text = host.config.read_text().replace("decision = 30", "decision = 12")
    host.config.write_text(text.replace("fleet_ttl = 1.5", f"fleet_ttl = {ttl}"))
    processes.append(host)
    await asyncio.to_thread(host.start)
    ann = await open_client(host.url, "ann")
    try:
        await ann.request("sit", table="still")
        await ann.request("ante", table="still", seat=0, amount=100)
        await ann.request("deal", table="still")
        dealt = await ann.wait_table("still", lambda s: s["phase"] == "deciding")
        assert host.process is not None
        os.kill(host.process.pid, signal.SIGSTOP)
        try:
            await asyncio.sleep(stood)
        finally:
            os.kill(host.process.pid, signal.SIGCONT)
        after = await ann.wait_table(
            "still", lambda s: s["seq"] > dealt["seq"] and not s["suspended"], timeout=30
        )
        assert after["phase"] == "deciding", after["phase"]
        assert after["ends_in_ms"] > dealt["ends_in_ms"] - 3_000, (dealt, after)
        await ann.request("raise", table="still", seat=0)
        done = await ann.wait_table("still", lambda s: s["phase"] == "showdown")
        assert done["seats"][0]["decision"] == "raise"
    finally:
        await ann.close()


async def test_betting_requests_sent_while_the_host_stood_still_wait_for_its_lease(
    tmp_path: Path, redis_url: str, namespace: str, processes: list[ServerProcess]
) -> None:
    """The host stood still (SIGSTOP) past its lease (ttl 2) while one player's `deal`
    and another's `ante` waited unread. Only a fold or a raise used to wait for the
    lease's renewal: the deal and the ante were refused `table_suspended` (the fleet
    blamed) although the table played on at once in betting, and a player who took the
    refusal for the last word sat the round out. Both wait for it now, and are applied."""
    host = ServerProcess(tmp_path, "still", redis_url, namespace)
    text = host.config.read_text().replace("betting = 30", "betting = 60")
    host.config.write_text(text.replace("fleet_ttl = 1.5", "fleet_ttl = 2"))
    processes.append(host)
    await asyncio.to_thread(host.start)
    ann = await open_client(host.url, "ann")
    bob = await open_client(host.url, "bob")
    try:
        for c in (ann, bob):
            await c.request("sit", table="still")
        await ann.request("ante", table="still", seat=0, amount=100)
        assert host.process is not None
        os.kill(host.process.pid, signal.SIGSTOP)
        try:
            dealing = asyncio.ensure_future(ann.request("deal", table="still"))
            betting = asyncio.ensure_future(bob.request("ante", table="still", seat=1, amount=100))
            await asyncio.sleep(4)
        finally:
            os.kill(host.process.pid, signal.SIGCONT)
        assert (await asyncio.wait_for(dealing, 15))["t"] == "ok"
        assert (await asyncio.wait_for(betting, 15))["t"] == "ok"
        snap = await bob.wait_table("still", lambda s: s["seats"][1]["ante"] == 100)
        assert snap["seats"][0]["ready"] is True or snap["phase"] == "deciding"
    finally:
        await ann.close()
        await bob.close()
