"""A write for a seat whose stake the store does not hold moves no money.

Redis loaded an older dump in place (`DEBUG RELOAD NOSAVE`) under a live server:
the round was still open in the reloaded data (or a later ante opened it again),
but a seat's ante was gone with the data. Its raise was debited and its winnings
paid on an ante the house never took, and a withdraw refunded one: money out of
nothing, with the books still summing to 0. A bet made while its round was open
must find the round; a raise, fold or refund must find the seat's hold.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import pytest

from clients.connection import ServerError, StudClient
from server.game.ledger import HOUSE, Hold, Reason, Transfer, player_account
from server.stores.base import RoundUnknown, Store, Wallet
from server.stores.redis import RedisStore
from tests.redis_fixture import RedisServer, fresh_namespace, private_redis, redis_url, time_limit
from tests.test_store_contract import F, ante, books, op, raise_, record
from tests.test_store_lost import solo, started_over

__all__ = ["private_redis", "redis_url", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")


async def test_a_bet_into_a_round_the_store_never_opened_is_refused(store: Store) -> None:
    """The table's round is open (its first bet landed), so a later bet must find it:
    one that does not went with the data's past, and opening the round again took it."""
    p = await store.create_player("a", 10_000, 0)
    before = await books(store)
    with pytest.raises(RoundUnknown) as e:
        await store.bet(F, op(), *ante("r9", 1, p.player_id, 100), opens=False)
    assert e.value.code == "round_voided"
    assert await books(store) == before
    assert await store.wallet(p.player_id) == Wallet(10_000, 0, 0)
    assert await store.open_rounds("alpha") == []
    # the first bet of a round opens it; a later one finds it
    await store.bet(F, op(), *ante("r9", 0, p.player_id, 100))
    await store.bet(F, op(), *ante("r9", 1, p.player_id, 100), opens=False)
    assert (await store.wallet(p.player_id)).held == 400


async def test_a_raise_or_refund_for_a_seat_holding_nothing_is_refused(store: Store) -> None:
    """Seat 1's ante is not in the store (the round is, by seat 0's): its raise, fold or
    refund releases a hold the store never placed, and is refused whole."""
    a = await store.create_player("a", 10_000, 0)
    b = await store.create_player("b", 10_000, 0)
    await store.bet(F, op(), *ante("r1", 0, a.player_id, 100))
    before = await books(store)
    with pytest.raises(RoundUnknown):
        await store.apply(F, op(), *raise_("r1", 1, b.player_id, 100))
    fold = Hold("r1", 1, b.player_id, -200)
    with pytest.raises(RoundUnknown):
        await store.apply(F, op(), [], [fold])
    refund = Transfer("r1", 1, Reason.REFUND, HOUSE, player_account(b.player_id), 100)
    with pytest.raises(RoundUnknown):
        await store.apply(F, op(), [refund], [fold])
    assert await books(store) == before
    assert await store.wallet(b.player_id) == Wallet(10_000, 0, 0)
    # seat 0's own raise finds its hold
    wallets = await store.apply(F, op(), *raise_("r1", 0, a.player_id, 100))
    assert wallets[a.player_id] == Wallet(9_700, 0, 0)


@contextlib.asynccontextmanager
async def ann_and_bob(
    redis: RedisServer,
) -> AsyncIterator[tuple[RedisStore, StudClient, StudClient]]:
    """A server on a namespace of its own; Ann at alpha's seat 1 and Bob at seat 2."""
    server, store, side = await solo(redis.url, fresh_namespace())
    # the fleet's heartbeats find a reload too (tests/test_store_went_back.py); here the
    # table's own write must, whenever it comes
    side.on_went_back = lambda: None
    url = f"ws://127.0.0.1:{server.port}/ws"
    ann, bob = await StudClient.open(url), await StudClient.open(url)
    try:
        for seat, (client, name) in enumerate(((ann, "ann"), (bob, "bob"))):
            await client.hello(name=name)
            await client.request("join", table="alpha")
            await client.request("sit", table="alpha", seat=seat)
        yield store, ann, bob
    finally:
        await ann.close()
        await bob.close()
        await server.stop(grace=0)


async def test_a_raise_on_an_ante_a_reload_took_away_is_refused_and_the_table_starts_over(
    private_redis: RedisServer,
) -> None:
    """The dump holds the round open with Ann's ante, not Bob's: after the reload his
    raise was answered ok and the round paid him for an ante never taken (told +$1.49,
    wallet +$2.00). It is refused `round_voided` now, and the table starts over."""
    async with ann_and_bob(private_redis) as (store, ann, bob):
        before = await store.wallet(bob.player_id)
        await ann.request("ante", table="alpha", seat=0, amount=500)
        assert private_redis.command("SAVE") == "+OK"
        await bob.request("ante", table="alpha", seat=1, amount=100)
        assert private_redis.command("DEBUG", "RELOAD", "NOSAVE") == "+OK"
        await ann.request("deal", table="alpha")
        await bob.request("deal", table="alpha")
        await bob.wait_table("alpha", lambda t: t["phase"] == "deciding")
        with pytest.raises(ServerError) as e:
            await bob.request("raise", table="alpha", seat=1)
        assert e.value.code == "round_voided"
        await started_over(ann)
        assert await store.wallet(bob.player_id) == before


async def test_an_ante_into_a_round_a_reload_took_away_is_refused(
    private_redis: RedisServer,
) -> None:
    """The dump holds no round: Bob's ante, which opened it, went with the reload. Ann's
    ante then opened it again in the store, and Bob's withdraw refunded an ante the data
    never took ($1.01 out of nothing). Ann's ante is refused `round_voided` now."""
    async with ann_and_bob(private_redis) as (store, ann, bob):
        before = await store.wallet(bob.player_id)
        assert private_redis.command("SAVE") == "+OK"
        await bob.request("ante", table="alpha", seat=1, amount=100, progressive=True)
        assert private_redis.command("DEBUG", "RELOAD", "NOSAVE") == "+OK"
        with pytest.raises(ServerError) as e:
            await ann.request("ante", table="alpha", seat=0, amount=500)
        assert e.value.code == "round_voided"
        await started_over(ann)
        assert await store.wallet(bob.player_id) == before


async def test_a_void_of_a_round_the_store_never_opened_refunds_nothing(store: Store) -> None:
    """A shutdown's (or an operator's) void refunds what the table holds of its round:
    a store without the round lost its bets with its data, and paying them back paid
    stakes it never took."""
    p = await store.create_player("a", 10_000, 0)
    before = await books(store)
    transfers, holds = ante("r9", 0, p.player_id, 100)
    refunds = [
        Transfer(t.round_id, t.seat, Reason.REFUND, t.target, t.source, t.amount) for t in transfers
    ]
    with pytest.raises(RoundUnknown):
        await store.void(
            F, "r9", refunds, [Hold(h.round_id, h.seat, h.player_id, -h.amount) for h in holds]
        )
    assert await books(store) == before
    assert await store.wallet(p.player_id) == Wallet(10_000, 0, 0)


async def test_a_void_refunding_a_seat_whose_ante_the_store_lacks_refunds_nothing(
    store: Store,
) -> None:
    """The round is in the store (seat 0's ante), seat 1's ante is not: a shutdown's void
    built from the table refunded both, seat 1's out of the house's money."""
    a = await store.create_player("a", 10_000, 0)
    b = await store.create_player("b", 10_000, 0)
    await store.bet(F, op(), *ante("r1", 0, a.player_id, 100))
    before = await books(store)
    refunds = [
        Transfer("r1", seat, Reason.REFUND, HOUSE, player_account(pid), 100)
        for seat, pid in ((0, a.player_id), (1, b.player_id))
    ]
    releases = [Hold("r1", 0, a.player_id, -200), Hold("r1", 1, b.player_id, -200)]
    with pytest.raises(RoundUnknown):
        await store.void(F, "r1", refunds, releases)
    assert await books(store) == before
    assert await store.wallet(b.player_id) == Wallet(10_000, 0, 0)
    await store.void(F, "r1", refunds[:1], releases[:1])  # seat 0's own: refunded
    assert await store.wallet(a.player_id) == Wallet(10_000, 0, 0)


async def test_a_settlement_paying_back_a_raise_the_store_never_took_is_refused(
    store: Store,
) -> None:
    """The seat raised, and the data went back to before its raise: the round was settled
    all the same, paying back (dealer not qualifying) a raise never taken: +$30 on the
    wallet for +$10 told. The ledger must hold each seat's ante, and the raise of each
    seat the record says raised."""
    a = await store.create_player("a", 10_000, 0)
    await store.bet(F, op(), *ante("r1", 0, a.player_id, 100))
    before = await books(store)
    raised = record("r1", (0, a.player_id))
    raised["seats"][0]["decision"] = "raise"
    back = [Transfer("r1", 0, Reason.PAYOUT, HOUSE, player_account(a.player_id), 400)]
    with pytest.raises(RoundUnknown):
        await store.settle(F, "r1", back, [], "main", 100_000, raised)
    assert await books(store) == before
    await store.apply(F, op(), *raise_("r1", 0, a.player_id, 100))
    await store.settle(F, "r1", back, [], "main", 100_000, raised)
    assert await store.wallet(a.player_id) == Wallet(10_100, 0, 0)


async def test_a_void_refunding_more_than_the_seat_has_in_play_refunds_nothing(
    store: Store,
) -> None:
    """The seat raised, and the data went back to before its raise (its ante kept): a void
    built from the table refunded the ante and the raise, the raise out of the house's
    money. Each seat's refunds may not pass what its ledger rows have in play."""
    a = await store.create_player("a", 10_000, 0)
    await store.bet(F, op(), *ante("r1", 0, a.player_id, 100, progressive=True))
    before = await books(store)
    me = player_account(a.player_id)
    stakes = [Transfer("r1", 0, Reason.REFUND, HOUSE, me, cents) for cents in (100, 50, 200)]
    stakes.insert(1, Transfer("r1", 0, Reason.REFUND, "meter:main", me, 50))
    with pytest.raises(RoundUnknown):  # ante, progressive and a raise never taken
        await store.void(F, "r1", stakes, [Hold("r1", 0, a.player_id, -200)])
    assert await books(store) == before
    await store.void(F, "r1", stakes[:3], [Hold("r1", 0, a.player_id, -200)])
    assert await store.wallet(a.player_id) == Wallet(10_000, 0, 0)
