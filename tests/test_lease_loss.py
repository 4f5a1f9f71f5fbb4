"""A refund that lands just before the table passes to another process is answered
as applied: the money moved and stays moved (the new host's void nets the round).

The table is lost while the write is out, as when the store stalls long enough
for another process to take the lease: the write had landed under the old
lease, and the engine here is reset. The answer used to be `internal_error`
("nothing was applied") for a `leave`, or a refusal from the fresh engine.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest

from clients.connection import ServerError, StudClient
from server.app import StudServer
from server.fleet import Fleet
from server.game.ledger import Hold, Transfer
from server.stores.base import Fence
from server.stores.memory import MemoryStore
from server.stores.redis import RedisStore
from tests.conftest import ClientFactory, ServerFactory, make_config
from tests.redis_fixture import RedisServer, fresh_namespace, private_redis

__all__ = ["private_redis"]  # a fixture used below

START = 100_000  # the conftest wallet


def lose_table_during_the_next_write(
    server: StudServer, write: str = "apply", *, back_here: bool = False
) -> None:
    """The next `write` (`apply`, or `bet` for an ante) lands, then the table is lost
    (`back_here`: and claimed again by this process, under a new epoch)."""
    store = server.store
    assert isinstance(store, MemoryStore)
    landed = getattr(store, write)

    async def write_then_lose(
        fence: Fence, op: str, transfers: Sequence[Transfer], holds: Sequence[Hold], **kw: Any
    ) -> Any:
        result = await landed(fence, op, transfers, holds, **kw)
        delattr(store, write)  # the method again
        server.rooms["alpha"].lose()  # another process took the lease meanwhile
        if back_here:
            await server.hosting.heartbeat()  # and it came back here: a fresh epoch
        return result

    setattr(store, write, write_then_lose)


@pytest.mark.parametrize("request_type", ["leave", "withdraw"])
async def test_a_refund_that_landed_before_the_table_moved_is_answered_ok(
    make_server: ServerFactory, connect: ClientFactory, request_type: str
) -> None:
    server = await make_server()
    ann = await connect(server, "ann")
    await ann.request("sit", table="alpha", seat=0)
    await ann.request("ante", table="alpha", seat=0, amount=500)
    await ann.wait_for(lambda c: c.balance.get("balance") == START - 500)
    lose_table_during_the_next_write(server)
    fields: dict[str, Any] = {"seat": 0} if request_type == "withdraw" else {}
    try:
        await ann.request(request_type, table="alpha", **fields)
    except ServerError as e:  # pragma: no cover - the failure this test is for
        pytest.fail(f"{request_type} was refunded but answered {e.code}: {e}")
    await ann.wait_for(lambda c: c.balance.get("balance") == START)
    if request_type == "withdraw":  # still watching: told where the table went
        assert any(f["t"] == "table_moved" for f in ann.frames)
    totals = await server.store.totals()
    assert totals[f"player:{ann.player_id}"] == START and sum(totals.values()) == 0


@pytest.mark.parametrize("back_here", [False, True])
@pytest.mark.parametrize("request_type", ["ante", "raise"])
async def test_a_bet_that_landed_before_the_table_moved_is_answered_ok(
    make_server: ServerFactory, connect: ClientFactory, request_type: str, back_here: bool
) -> None:
    """An ante or raise written just before the table moved was answered `table_moved`
    though the money had moved (the new host's void refunds it): "failed" for a write
    that was applied. It is answered as applied now, and the round's void nets it."""
    server = await make_server()
    ann = await connect(server, "ann")
    await ann.request("sit", table="alpha", seat=0)
    if request_type == "raise":
        await ann.request("ante", table="alpha", seat=0, amount=500)
        await ann.request("deal", table="alpha")
        await ann.wait_table("alpha", lambda s: s["phase"] == "deciding")
    write = "bet" if request_type == "ante" else "apply"
    lose_table_during_the_next_write(server, write, back_here=back_here)
    fields: dict[str, Any] = {"amount": 500} if request_type == "ante" else {}
    try:
        await ann.request(request_type, table="alpha", seat=0, **fields)
    except ServerError as e:
        pytest.fail(f"the {request_type} was written but answered {e.code}: {e}")
    assert any(f["t"] == "table_moved" for f in ann.frames)  # and told where the table went
    totals = await server.store.totals()
    assert sum(totals.values()) == 0
    staked = 500 if request_type == "ante" else 1_500
    if not back_here:  # in play until the next host's void (back here: voided already)
        assert (await server.store.wallet(ann.player_id)).balance == START - staked
    await server.hosting.heartbeat()  # the table's next host (here, this one again)
    await ann.wait_for(lambda c: c.balance.get("balance") == START)  # the void refunded it
    totals = await server.store.totals()
    assert totals[f"player:{ann.player_id}"] == START and sum(totals.values()) == 0


# ----- where the table went ------------------------------------------------------------


async def _two_processes(redis_url: str) -> tuple[StudServer, StudServer]:
    """Process "p" hosts every table, "q" stands by; each has heard of the other."""
    namespace = fresh_namespace()
    servers = []
    for name in ("p", "q"):
        store = await RedisStore.connect(redis_url, namespace=namespace)
        server = StudServer(
            make_config(), store=store, fleet=Fleet(store, name, f"ws://{name}:1/ws")
        )
        await server.start()
        servers.append(server)
    for server in (*servers, *servers):  # each share reads the entries written before it
        await server.hosting.share()
    return servers[0], servers[1]


@contextlib.asynccontextmanager
async def given_to_q(p: StudServer, q: StudServer) -> AsyncIterator[None]:
    """The table's lease passes to q behind p's back, as when p stood still past its
    lease; p's renewals are held back meanwhile (so none takes the lease back first)."""
    room = p.rooms["alpha"]
    assert room.lease is not None
    gate = asyncio.Event()
    renew = p.hosting.leases.claim_many

    async def held_back(*args: Any, **kwargs: Any) -> Any:
        await gate.wait()
        return await renew(*args, **kwargs)

    p.hosting.leases.claim_many = held_back  # type: ignore[method-assign]
    try:
        await q.store.release("alpha", "p", room.lease.epoch)
        await q.hosting.heartbeat()
        assert q.rooms["alpha"].active
        yield
    finally:
        del p.hosting.leases.claim_many  # the method again
        gate.set()


def _moved_to(c: StudClient) -> list[str]:
    return [f["url"] for f in c.frames if f["t"] == "table_moved" and f["table"] == "alpha"]


async def test_a_write_fenced_off_tells_the_viewers_where_the_table_went(
    private_redis: RedisServer,
) -> None:
    p, q = await _two_processes(private_redis.url)
    try:
        ann = await StudClient.open(f"ws://127.0.0.1:{p.port}/ws")
        await ann.hello(name="ann")
        await ann.request("sit", table="alpha", seat=0)
        async with given_to_q(p, q):
            with pytest.raises(ServerError) as e:  # p writes under its old epoch: refused
                await ann.request("ante", table="alpha", seat=0, amount=100)
        assert e.value.code == "table_moved"
        assert _moved_to(ann) == ["ws://q:1/ws"]
        # before p's lobby lists q's row (its next share), unknown_table names q too: it
        # carried no url for about 2 s
        p.lobby.set_remote([])
        with pytest.raises(ServerError) as e:
            await ann.request("join", table="alpha")
        assert e.value.code == "unknown_table" and e.value.frame["url"] == "ws://q:1/ws"
        await ann.close()
    finally:
        await p.stop(grace=0)
        await q.stop(grace=0)


async def test_a_renewal_refused_tells_the_viewers_where_the_table_went(
    private_redis: RedisServer,
) -> None:
    p, q = await _two_processes(private_redis.url)
    try:
        ann = await StudClient.open(f"ws://127.0.0.1:{p.port}/ws")
        await ann.hello(name="ann")
        await ann.request("join", table="alpha")
        async with given_to_q(p, q):
            pass
        await p.hosting.heartbeat()  # p's renewal finds the lease held by q
        assert not p.rooms["alpha"].active
        await ann.wait_for(lambda c: bool(_moved_to(c)))
        assert _moved_to(ann) == ["ws://q:1/ws"]
        await ann.close()
    finally:
        await p.stop(grace=0)
        await q.stop(grace=0)


async def test_a_player_left_on_the_old_host_is_told_the_void_refunded_the_bets(
    private_redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    """The new host voids the round and refunds its bets, but the player is connected to
    the old one, which no one told: the wallet shown stayed short by the bets, with a
    hold that no longer existed. The new host tells the fleet; the old one pushes it."""
    p, q = await _two_processes(private_redis.url)
    try:
        ann = await StudClient.open(f"ws://127.0.0.1:{p.port}/ws")
        await ann.hello(name="ann")
        await ann.request("sit", table="alpha", seat=0)
        await ann.request("ante", table="alpha", seat=0, amount=500, progressive=True)
        await ann.wait_for(lambda c: c.balance.get("held") == 1_000)
        async with given_to_q(p, q):  # q takes the table: the round is voided there
            pass
        assert (await q.store.wallet(ann.player_id)).balance == START
        voided = [r for r in caplog.records if r.getMessage() == "round voided"]
        assert [r.__dict__["why"] for r in voided] == ["its host is gone; every bet refunded"]
        assert isinstance(voided[0].__dict__.get("started_at"), float)  # as every void's line
        await p.hosting.heartbeat()  # p's renewal finds the lease held by q
        await ann.wait_for(lambda c: bool(_moved_to(c)))
        await ann.wait_for(lambda c: c.balance.get("balance") == START, timeout=10)
        assert ann.balance["held"] == 0 and ann.balance["available"] == START
        await ann.close()
    finally:
        await p.stop(grace=0)
        await q.stop(grace=0)
