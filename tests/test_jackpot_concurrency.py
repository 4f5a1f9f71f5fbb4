"""One meter, many writers: OS processes x coroutines contribute and claim at once.

Each worker process has its own RedisStore (its own connection) and runs many
coroutines, each playing rounds with the progressive bet; some rounds end with a
percent claim. Afterwards the meter must equal seed + contributions - claims +
reseeds to the cent, every claim must have paid floor(meter * bp / 10000) of the
meter it saw, and nothing may be below zero.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from itertools import pairwise
from typing import Any

import pytest

from server.game.ledger import HOUSE, Hold, JackpotClaim, Reason, Transfer, player_account
from server.game.settlement import percent_claim
from server.stores.base import HITS_LIMIT, Fence
from server.stores.redis import RedisStore
from tests.redis_fixture import (
    drop_namespace,
    fresh_namespace,
    raw_connection,
    redis_url,  # noqa: F401 - a fixture
    time_limit,  # noqa: F401 - a fixture
)

pytestmark = pytest.mark.usefixtures("time_limit")

JP = "world"
METER = f"meter:{JP}"
SEED = 1_000_000
PROCESSES = 4
COROUTINES = 50
ROUNDS = 4
CONTRIBUTION = 37  # cents of each progressive stake that feed the meter
BPS = (10_000, 5_000, 1_000, 100, 1)


async def play(url: str, namespace: str, worker: int) -> dict[str, Any]:
    """One process's share: COROUTINES players, ROUNDS rounds each, on one connection."""
    store = await RedisStore.connect(url, namespace, timeout=30)
    try:
        barrier = await raw_connection(url)
        try:  # start together: every worker is connected before anyone plays
            await barrier.incr(f"{{{namespace}}}:test:ready")
            deadline = time.monotonic() + 60
            while int(await barrier.get(f"{{{namespace}}}:test:ready") or 0) < PROCESSES:
                assert time.monotonic() < deadline, "the other workers never came"
                await asyncio.sleep(0.005)
        finally:
            barrier.close()

        async def player(index: int) -> tuple[int, list[tuple[int, int]]]:
            p = await store.create_player(f"w{worker}c{index}", 1_000_000, 0)
            me = player_account(p.player_id)
            contributed, claims = 0, list[tuple[int, int]]()
            for r in range(ROUNDS):
                rid = f"w{worker}-c{index}-r{r}"
                table = f"t{worker}-{index % 5}"
                bet = [
                    Transfer(rid, 0, Reason.ANTE, me, HOUSE, 100),
                    Transfer(rid, 0, Reason.PROGRESSIVE, me, METER, CONTRIBUTION),
                    Transfer(rid, 0, Reason.PROGRESSIVE, me, HOUSE, 100 - CONTRIBUTION),
                ]
                fence = Fence(table, 0)
                await store.bet(fence, f"{rid}:ante", bet, [Hold(rid, 0, p.player_id, 200)])
                contributed += CONTRIBUTION
                raise_ = Transfer(rid, 0, Reason.RAISE, me, HOUSE, 200)
                await store.apply(
                    fence, f"{rid}:raise", [raise_], [Hold(rid, 0, p.player_id, -200)]
                )
                wins = (index + r) % 3 == 0
                bp = BPS[(worker + index + r) % len(BPS)]
                claim = [JackpotClaim(rid, 0, p.player_id, "ROYAL_FLUSH", bp)] if wins else []
                payout = [Transfer(rid, 0, Reason.PAYOUT, HOUSE, me, 600)]
                record = {"table": table, "seats": [{"seat": 0, "player_id": p.player_id}]}
                settled = await store.settle(fence, rid, payout, claim, JP, SEED, record)
                claims.extend((c.amount, c.meter_after) for c in settled.paid)
            return contributed, claims

        results = await asyncio.gather(*(player(i) for i in range(COROUTINES)))
        return {
            "contributed": sum(c for c, _ in results),
            "claims": [claim for _, cs in results for claim in cs],
        }
    finally:
        await store.close()


def worker(url: str, namespace: str, index: int) -> dict[str, Any]:
    return asyncio.run(play(url, namespace, index))


def test_processes_share_one_meter_to_the_cent(redis_url: str) -> None:  # noqa: F811
    namespace = fresh_namespace()

    async def setup() -> None:
        store = await RedisStore.connect(redis_url, namespace)
        try:
            assert await store.ensure_meter(JP, SEED) == SEED
        finally:
            await store.close()

    asyncio.run(setup())
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(PROCESSES, mp_context=spawn) as pool:
        futures = [pool.submit(worker, redis_url, namespace, i) for i in range(PROCESSES)]
        results = [f.result(timeout=90) for f in futures]

    async def inspect() -> tuple[dict[str, int], list[dict[str, Any]]]:
        store = await RedisStore.connect(redis_url, namespace)
        try:
            return await store.totals(), await store.jackpot_hits(JP, HITS_LIMIT)
        finally:
            await store.close()
            await drop_namespace(redis_url, namespace)

    totals, hits = asyncio.run(inspect())
    contributed = sum(r["contributed"] for r in results)
    claims = [c for r in results for c in r["claims"]]
    assert contributed == PROCESSES * COROUTINES * ROUNDS * CONTRIBUTION
    assert 0 < len(claims) == len(hits) < HITS_LIMIT
    hits.reverse()  # oldest first: the order Redis resolved them in
    assert sorted(claims) == sorted((h["amount"], h["meter_after"]) for h in hits)
    for h in hits:
        assert h["amount"] == percent_claim(h["meter_before"], h["percent_bp"])
        assert 0 <= h["amount"] <= h["meter_before"]
        assert h["meter_after"] == max(SEED, h["meter_before"] - h["amount"])
        assert h["reseed"] == h["meter_after"] - (h["meter_before"] - h["amount"])
    for before, after in pairwise(hits):
        # between two claims the meter only grew (by contributions): no claim lost one
        assert after["meter_before"] >= before["meter_after"]
    paid = sum(h["amount"] for h in hits)
    reseeds = sum(h["reseed"] for h in hits)
    assert any(h["percent_bp"] == 10_000 for h in hits)
    assert totals[METER] == SEED + contributed - paid + reseeds
    assert sum(totals.values()) == 0
    assert all(v >= 0 for k, v in totals.items() if k.startswith(("player:", "meter:")))
    house_per_round = 100 + (100 - CONTRIBUTION) + 200 - 600  # ante, stake, raise, payout
    assert totals[HOUSE] == -SEED - reseeds + PROCESSES * COROUTINES * ROUNDS * house_per_round


async def test_two_simultaneous_full_claims(redis_url: str) -> None:  # noqa: F811
    """Two processes' royal flushes at the same instant: the first takes the meter,
    the second the reseeded value, whichever Redis runs first."""
    namespace = fresh_namespace()
    a = await RedisStore.connect(redis_url, namespace)
    b = await RedisStore.connect(redis_url, namespace)
    try:
        await a.ensure_meter(JP, SEED)
        alice = await a.create_player("alice", 500_000, 0)
        bob = await b.create_player("bob", 500_000, 0)
        feed = Transfer("feed", 0, Reason.PROGRESSIVE, player_account(alice.player_id), METER, 123)
        await a.bet(Fence("t0", 0), "feed:ante", [feed], [])
        await a.settle(Fence("t0", 0), "feed", [], [], JP, SEED, {"table": "t0", "seats": []})
        meter = SEED + 123
        assert await b.meter(JP) == meter

        def royal(rid: str, pid: str) -> list[JackpotClaim]:
            return [JackpotClaim(rid, 0, pid, "ROYAL_FLUSH", 10_000)]

        rec = {"table": "t1", "seats": []}
        for store, rid, pid in ((a, "ra", alice.player_id), (b, "rb", bob.player_id)):
            ante = Transfer(rid, 0, Reason.ANTE, player_account(pid), HOUSE, 100)
            await store.bet(Fence("t1", 0), f"{rid}:ante", [ante], [])  # opens the round
        first, second = await asyncio.wait_for(
            asyncio.gather(
                a.settle(Fence("t1", 0), "ra", [], royal("ra", alice.player_id), JP, SEED, rec),
                b.settle(Fence("t1", 0), "rb", [], royal("rb", bob.player_id), JP, SEED, rec),
            ),
            30,
        )
        paid = sorted([first.paid[0].amount, second.paid[0].amount])
        assert paid == [SEED, meter]
        assert first.paid[0].meter_after == second.paid[0].meter_after == SEED
        assert await a.meter(JP) == SEED
        hits = await a.jackpot_hits(JP)
        assert [h["amount"] for h in hits] == [SEED, meter]  # newest first
        totals = await a.totals()
        assert sum(totals.values()) == 0
        assert totals[METER] == SEED
    finally:
        await a.close()
        await b.close()
        await drop_namespace(redis_url, namespace)
