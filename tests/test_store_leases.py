"""Table leases with an epoch, on both stores (the store contract's fixture): claims,
renewals, releases, expiry. The fence they give writes: tests/test_store_contract.py."""

from __future__ import annotations

import asyncio
import time

import pytest

from server.stores.base import Store
from tests.redis_fixture import redis_url, time_limit

__all__ = ["redis_url", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")

TABLE = "alpha"


async def test_claims_grow_the_epoch_and_renewals_keep_it(store: Store) -> None:
    first = await store.claim(TABLE, "east", 0, 30)
    assert (first.fresh, first.granted) == (True, True)
    assert first.epoch >= time.time() * 1000 - 60_000  # from the clock: they keep growing
    e1 = first.epoch
    renewed = await store.claim(TABLE, "east", e1, 30)
    assert (renewed.epoch, renewed.fresh) == (e1, False)
    refused = await store.claim(TABLE, "west", 0, 30)
    assert (refused.granted, refused.owner, refused.epoch) == (False, "east", e1)
    await store.release(TABLE, "west", e1)  # not west's: nothing happens
    assert not (await store.claim(TABLE, "west", 0, 30)).granted
    await store.release(TABLE, "east", e1)
    taken = await store.claim(TABLE, "west", 0, 30)
    assert (taken.fresh, taken.granted) == (True, True) and taken.epoch > e1
    e2 = taken.epoch
    # a lease run out and taken by nobody: its last holder keeps its epoch
    await store.release(TABLE, "west", e2)
    again = await store.claim(TABLE, "west", e2, 30)
    assert (again.epoch, again.fresh) == (e2, False)
    # a claim repeated after an unknown outcome finds the lease its first try took
    await store.release(TABLE, "west", e2)
    retry = await store.claim(TABLE, "east", 0, 30)
    assert (await store.claim(TABLE, "east", 0, 30)) == retry
    assert retry.fresh and retry.epoch > e2
    # the old holder cannot come back with its old epoch while east holds the table
    assert not (await store.claim(TABLE, "west", e2, 30)).granted


async def test_a_lease_expires(store: Store) -> None:
    first = await store.claim(TABLE, "east", 0, 0.2)
    assert not (await store.claim(TABLE, "west", 0, 0.2)).granted
    await asyncio.sleep(0.35)
    assert not (await store.claim(TABLE, "west", 0, 0.2)).granted  # seen free just now
    await asyncio.sleep(0.1)  # free for a third of the TTL since
    taken = await store.claim(TABLE, "west", 0, 0.2)
    assert taken.granted and taken.fresh and taken.epoch > first.epoch


async def test_a_lapsed_lease_waits_a_third_of_its_ttl_for_its_holder(store: Store) -> None:
    """A lease that ran out goes to another process only once it has been seen free for
    a third of its TTL. A holder that was only cut off (Redis stalled past the TTL, and
    every lease lapsed at once) renews as soon as Redis answers, and takes it back first
    with its epoch, so its round in play is kept rather than voided by a standby."""
    ttl = 0.6
    first = await store.claim(TABLE, "east", 0, ttl)
    await asyncio.sleep(0.7)  # lapsed while nobody could renew
    assert not (await store.claim(TABLE, "west", 0, ttl)).granted  # the standby's look
    back = await store.claim(TABLE, "east", first.epoch, ttl)  # the holder's renewal
    assert (back.granted, back.epoch, back.fresh) == (True, first.epoch, False)
    await asyncio.sleep(0.25)
    assert not (await store.claim(TABLE, "west", 0, ttl)).granted  # east holds it again
    # east gone for good: west takes the table once it has been free a third of the TTL
    await asyncio.sleep(0.6)
    assert not (await store.claim(TABLE, "west", 0, ttl)).granted
    await asyncio.sleep(0.25)
    taken = await store.claim(TABLE, "west", 0, ttl)
    assert taken.granted and taken.fresh and taken.epoch > first.epoch


async def test_many_leases_released_in_one_step_are_only_the_callers(store: Store) -> None:
    ours = await store.claim("t-a", "east", 0, 30)
    theirs = await store.claim("t-b", "west", 0, 30)
    await store.release_many({"t-a": ours.epoch, "t-b": theirs.epoch, "t-c": 7}, "east")
    assert (await store.claim("t-a", "west", 0, 30)).granted  # east's: given up
    assert (await store.claim("t-b", "east", 0, 30)).owner == "west"  # west's: kept
    assert (await store.claim("t-c", "east", 0, 30)).fresh  # never held: still free
    stale = await store.claim("t-d", "east", 0, 30)
    await store.release_many({"t-d": stale.epoch - 1}, "east")  # an older epoch of ours
    assert (await store.claim("t-d", "west", 0, 30)).owner == "east"
    await store.release_many({}, "east")  # nothing to give up: nothing sent
