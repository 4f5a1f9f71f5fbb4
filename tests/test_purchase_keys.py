"""A purchase named by the client's `key` happens once: on both stores, over real
sockets, and when the reply is lost to a closed connection or a stalled Redis."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from clients.connection import ServerError, StudClient
from server.app import StudServer
from server.stores.base import BuyInLimit, OpAbandoned, OpConflict, Store, Wallet
from server.stores.redis import RedisStore
from tests.conftest import ClientFactory, ServerFactory
from tests.redis_fixture import (
    RedisServer,
    drop_namespace,
    fresh_namespace,
    private_redis,
    raw_connection,
    redis_url,
    time_limit,
)
from tests.test_faults import START, STORE_TIMEOUT, client, cont, on_redis, paused, stop
from tests.test_store_contract import F, ante, books

__all__ = ["on_redis", "paused", "private_redis", "redis_url", "time_limit"]

pytestmark = pytest.mark.usefixtures("time_limit")


# ----- the store: a repeat buys nothing and tells the wallet as it is now ----------


async def test_a_repeated_purchase_buys_nothing_and_answers_the_wallet_of_now(
    store: Store,
) -> None:
    p = await store.create_player("a", 10_000, 0)
    assert await store.buy_chips(p.player_id, 500, 20_000, "buy:key:k1") == Wallet(10_500, 0, 0)
    await store.bet(F, "r1:0:ante:1", *ante("r1", 0, p.player_id, 1_000))
    now = await store.wallet(p.player_id)
    assert (now.balance, now.held) == (10_500 - 1_000, 2_000)  # the ante paid, a raise held
    # not the first result (10,500 then): that would show a spent balance as still there
    assert await store.buy_chips(p.player_id, 500, 20_000, "buy:key:k1") == now
    # and a repeat is no new purchase, so the balance limit does not refuse it
    assert await store.buy_chips(p.player_id, 500, 7_000, "buy:key:k1") == now
    await books(store)


async def test_a_repeated_purchase_with_another_amount_is_refused(store: Store) -> None:
    p = await store.create_player("a", 10_000, 0)
    await store.buy_chips(p.player_id, 500, 20_000, "buy:key:k1")
    with pytest.raises(OpConflict) as e:
        await store.buy_chips(p.player_id, 600, 20_000, "buy:key:k1")
    assert e.value.details["amount"] == 500
    assert await store.wallet(p.player_id) == Wallet(10_500, 0, 0)
    # another player's purchase of the same name is their own
    q = await store.create_player("b", 0, 0)
    assert (await store.buy_chips(q.player_id, 600, 20_000, "buy:key:k1")).balance == 600
    await books(store)


async def test_a_repeat_is_told_so_before_the_purchase_limit_is_looked_at(store: Store) -> None:
    p = await store.create_player("a", 10_000, 0)
    await store.buy_chips(p.player_id, 500, 20_000, "buy:key:k1", max_amount=1_000)
    # over the per-purchase limit, but a repeat of another amount: the conflict says so
    with pytest.raises(OpConflict) as e:
        await store.buy_chips(p.player_id, 5_000, 20_000, "buy:key:k1", max_amount=1_000)
    assert e.value.details["amount"] == 500
    # a new purchase over it is refused, with what may be bought now
    with pytest.raises(BuyInLimit) as limit:
        await store.buy_chips(p.player_id, 1_001, 20_000, "buy:key:k2", max_amount=1_000)
    assert limit.value.details == {"allowed": 1_000}
    with pytest.raises(BuyInLimit) as limit:
        await store.buy_chips(p.player_id, 1_001, 11_000, "buy:key:k2", max_amount=1_000)
    assert limit.value.details == {"allowed": 500}
    assert await store.wallet(p.player_id) == Wallet(10_500, 0, 0)
    # a refused key is not used up
    await store.buy_chips(p.player_id, 1_000, 20_000, "buy:key:k2", max_amount=1_000)
    assert await store.wallet(p.player_id) == Wallet(11_500, 0, 0)
    await books(store)


async def test_an_abandoned_purchase_stays_unbought_whatever_its_amount(store: Store) -> None:
    p = await store.create_player("a", 10_000, 0)
    assert await store.abandon("buy:key:k9", player_id=p.player_id) is False
    for amount in (500, 700):
        with pytest.raises(OpAbandoned):
            await store.buy_chips(p.player_id, amount, 20_000, "buy:key:k9")
    assert await store.wallet(p.player_id) == Wallet(10_000, 0, 0)


# ----- the protocol -----------------------------------------------------------------


async def refused(c: StudClient, **fields: object) -> ServerError:
    with pytest.raises(ServerError) as e:
        await c.request("buy_chips", **fields)
    return e.value


async def test_a_keyed_buy_repeated_buys_once_and_a_changed_one_is_refused(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server()
    ann = await connect(server, "Ann")
    bob = await connect(server, "Bob")
    world = (await server.store.totals())["world"]
    for _ in range(3):
        assert (await ann.request("buy_chips", amount=500, key="top-up.1"))["t"] == "ok"
    await ann.wait_for(lambda c: c.balance["balance"] == START + 500)
    e = await refused(ann, amount=900, key="top-up.1")
    assert (e.code, e.frame["field"], e.frame["bought"]) == ("invalid_field", "key", 500)
    # also when the other amount is over the per-purchase limit: the key is what is wrong
    e = await refused(ann, amount=10**12, key="top-up.1")
    assert (e.code, e.frame["bought"]) == ("invalid_field", 500)
    e = await refused(ann, amount=10**12, key="top-up.2")
    assert (e.code, e.frame["allowed"]) == ("buy_in_limit", 1_000_000)
    # another player's key of the same name, and a purchase without a key, are new ones
    await bob.request("buy_chips", amount=900, key="top-up.1")
    await ann.request("buy_chips", amount=100)
    await ann.request("buy_chips", amount=100)
    await ann.wait_for(lambda c: c.balance["balance"] == START + 700)
    await bob.wait_for(lambda c: c.balance["balance"] == START + 900)
    assert (await server.store.totals())["world"] == world - 1_600
    for bad in ("", "x" * 65, "no spaces", "ü"):
        e = await refused(ann, amount=100, key=bad)
        assert (e.code, e.frame["field"]) == ("invalid_field", "key")
    assert (await refused(ann, amount=100, key=7)).frame["field"] == "key"


async def test_a_buy_whose_reply_was_lost_is_repeated_from_a_new_connection(
    make_server: ServerFactory, connect: ClientFactory
) -> None:
    server = await make_server()
    ann = await connect(server, "Ann")
    # sent, and the connection gone before the reply could be read
    await ann.send({"t": "buy_chips", "id": 1, "amount": 2_500, "key": "lost-reply"})
    await ann.close()
    again = await connect(server, None, token=ann.token)
    await again.request("buy_chips", amount=2_500, key="lost-reply")
    await again.request("balance")
    assert again.balance["balance"] == START + 2_500
    assert (await server.store.wallet(again.player_id)).balance == START + 2_500


async def answered(request: Callable[[], Awaitable[object]]) -> None:
    """`request()` again while the store, just back, is still being reconnected to."""
    for _ in range(50):
        try:
            await request()
            return
        except ServerError as e:
            assert e.code == "store_unavailable"  # not sent: nothing can have been applied
            await asyncio.sleep(0.2)
    pytest.fail("the store never answered")


async def test_a_keyed_buy_in_doubt_during_a_redis_stall_lands_once(
    on_redis: tuple[StudServer, RedisStore], paused: RedisServer
) -> None:
    server, store = on_redis
    ann = await client(server, "ann")
    stop(paused)
    first = asyncio.ensure_future(ann.request("buy_chips", amount=500, key="stalled"))
    await asyncio.sleep(2 * STORE_TIMEOUT + 1)  # past the timeout: in doubt, and repeated
    assert not first.done()
    await ann.close()  # the player gives up on this connection; the server does not
    await asyncio.gather(first, return_exceptions=True)
    cont(paused)
    again = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    await answered(lambda: again.hello(token=ann.token))
    await answered(lambda: again.request("buy_chips", amount=500, key="stalled"))
    await again.request("balance")
    assert again.balance["balance"] == START + 500
    assert (await store.wallet(ann.player_id)).balance == START + 500
    assert sum((await store.totals()).values()) == 0
    await again.close()


async def test_a_purchase_remembered_as_its_first_wallet_is_still_bought_once(
    redis_url: str,
) -> None:
    """Purchases made before amounts were kept are remembered by their first wallet:
    repeating one still buys nothing (its amount cannot be compared)."""
    namespace = fresh_namespace()
    store = await RedisStore.connect(redis_url, namespace)
    conn = await raw_connection(redis_url)
    try:
        p = await store.create_player("a", 10_000, 0)
        await conn.hset(f"{{{namespace}}}:buyops:{p.player_id}", "buy:old", "[10500,0,0]")
        assert await store.buy_chips(p.player_id, 500, 20_000, "buy:old") == Wallet(10_000, 0, 0)
        assert await store.buy_chips(p.player_id, 900, 20_000, "buy:old") == Wallet(10_000, 0, 0)
    finally:
        conn.close()
        await store.close()
        await drop_namespace(redis_url, namespace)
