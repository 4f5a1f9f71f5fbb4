"""Money under faults, one server at a time: a paused Redis, a stolen lease, a peer
that never reads, HTTP it was never meant to serve.

Each test runs a real server on loopback over a real `redis-server` of its own
and injects a real fault (SIGSTOP/SIGCONT of Redis, another holder claiming the
table's lease, a raw socket that stops reading). The books are read from the
store at the end: what each player was told must be what the store holds.
"""

from __future__ import annotations

import asyncio
import base64
import math
import os
import signal
import socket
import struct
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from typing import Any

import msgpack
import pytest

from clients.connection import ServerError, StudClient
from protocol.codec import encode
from server import app
from server import cli as app_cli
from server.app import StudServer
from server.fleet import Fleet
from server.outbox import BoundedConnection
from server.standing import Lease
from server.stores.base import Fence
from server.stores.redis import RedisStore
from tests.conftest import ServerFactory, make_config
from tests.redis_fixture import (
    RedisServer,
    fresh_namespace,
    private_redis,
    time_limit,
)

__all__ = ["private_redis", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")

START = 100_000
STORE_TIMEOUT = 0.5


@pytest.fixture
def paused(private_redis: RedisServer) -> Iterator[RedisServer]:
    """The private Redis, always resumed at the end (a failing test must not leave it
    stopped for the fixture's own teardown)."""
    yield private_redis
    if private_redis.process is not None:
        os.kill(private_redis.process.pid, signal.SIGCONT)


def stop(redis: RedisServer) -> None:
    assert redis.process is not None
    os.kill(redis.process.pid, signal.SIGSTOP)


def cont(redis: RedisServer) -> None:
    assert redis.process is not None
    os.kill(redis.process.pid, signal.SIGCONT)


@pytest.fixture
async def on_redis(paused: RedisServer) -> AsyncIterator[tuple[StudServer, RedisStore]]:
    """A server on the private Redis with a short store timeout, and a second store
    connection of its own to read the books with."""
    namespace = fresh_namespace()
    store = await RedisStore.connect(paused.url, namespace=namespace, timeout=STORE_TIMEOUT)
    config = make_config(timers={"betting": 30, "decision": 2, "results": 0.2})
    config = replace(config, store_timeout=STORE_TIMEOUT, store_patience=30.0)
    server = StudServer(config, store=store)
    await server.start()
    books = await RedisStore.connect(paused.url, namespace=namespace)
    try:
        yield server, books
    finally:
        cont(paused)
        await server.stop(grace=0)
        await books.close()


async def client(server: StudServer, name: str) -> StudClient:
    c = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    await c.hello(name=name)
    return c


async def to_deciding(c: StudClient, table: str = "alpha") -> None:
    await c.request("sit", table=table)
    await c.request("ante", table=table, seat=0, amount=100)
    await c.request("deal", table=table)
    await c.wait_table(table, lambda s: s["phase"] == "deciding")


async def assert_books(books: RedisStore, *players: StudClient, expected: dict[str, int]) -> None:
    totals = await books.totals()
    assert sum(totals.values()) == 0
    for c in players:
        wallet = await books.wallet(c.player_id)
        assert wallet.held == 0, c.player_id
        assert wallet.balance == expected[c.player_id], (c.player_id, wallet)
    assert await books.open_rounds("alpha") == []


# ----- a paused store: the table waits, nothing folds, every answer is true ------------


async def test_a_raise_while_redis_is_paused_waits_and_the_table_never_folds(
    on_redis: tuple[StudServer, RedisStore], paused: RedisServer
) -> None:
    server, books = on_redis
    ann = await client(server, "ann")
    watcher = await client(server, "watcher")
    await watcher.request("join", table="alpha")
    await to_deciding(ann)
    stop(paused)
    raised = asyncio.ensure_future(ann.request("raise", table="alpha", seat=0))
    # past the store's timeout the table shows it is paused, to everyone
    snap = await watcher.wait_table("alpha", lambda s: s["phase"] == "suspended", timeout=10)
    assert snap["suspended"]["phase"] == "deciding"
    assert snap["suspended"]["reason"] == "store"
    assert snap["ends_in_ms"] is None
    with pytest.raises(ServerError) as e:
        await watcher.request("sit", table="alpha")
    assert e.value.code == "table_suspended"
    await asyncio.sleep(3)  # longer than the 2 s decision timer: nothing may fold
    assert not raised.done()
    cont(paused)
    await raised  # the true outcome: the raise was applied
    snap = await ann.wait_table("alpha", lambda s: s["phase"] == "showdown", timeout=10)
    seat = snap["seats"][0]
    assert seat["decision"] == "raise" and seat["auto"] is False
    net = seat["result"]["net"]
    await ann.wait_table("alpha", lambda s: s["phase"] == "waiting")
    await assert_books(books, ann, expected={ann.player_id: START + net})
    await ann.close()
    await watcher.close()


async def test_a_buy_in_while_redis_is_paused_is_answered_as_it_landed(
    on_redis: tuple[StudServer, RedisStore], paused: RedisServer
) -> None:
    server, books = on_redis
    ann = await client(server, "ann")
    stop(paused)
    bought = asyncio.ensure_future(ann.request("buy_chips", amount=500))
    await asyncio.sleep(2 * STORE_TIMEOUT + 1)  # well past the timeout: the outcome is unknown
    assert not bought.done()
    cont(paused)
    try:
        await bought
        expected = START + 500
    except ServerError as e:
        assert e.code == "store_unavailable"  # then it must not have been applied
        expected = START
    assert (await books.wallet(ann.player_id)).balance == expected
    await ann.close()


async def test_a_keyed_purchase_given_up_says_its_key_is_spent(paused: RedisServer) -> None:
    """A keyed purchase in doubt past the patience is given up: its key buys nothing
    again. The refusal says so in a field (`given_up`), so a client knows to send a new
    key; a purchase refused before it reached the store has no such field (its key may be
    sent again)."""
    namespace = fresh_namespace()
    store = await RedisStore.connect(paused.url, namespace=namespace, timeout=STORE_TIMEOUT)
    config = replace(make_config(), store_timeout=STORE_TIMEOUT, store_patience=1.0)
    server = StudServer(config, store=store)
    await server.start()
    books = await RedisStore.connect(paused.url, namespace=namespace)
    try:
        ann = await client(server, "ann")
        assert paused.command("SAVE") == "+OK" and paused.process is not None
        stop(paused)
        bought = asyncio.ensure_future(ann.request("buy_chips", amount=500, key="top-up-1"))
        await asyncio.sleep(2 * STORE_TIMEOUT)  # sent, unanswered: in doubt
        paused.process.kill()  # the purchase dies unread in its socket
        paused.process.wait()
        paused.process = None
        await asyncio.sleep(1.0)  # past the patience: given up once Redis takes the mark
        paused.start()  # as saved: the player, no purchase
        with pytest.raises(ServerError) as e:
            await bought
        assert (e.value.code, e.value.frame.get("given_up")) == ("store_unavailable", True)
        with pytest.raises(ServerError) as again:
            await ann.request("buy_chips", amount=500, key="top-up-1")
        assert again.value.frame.get("given_up") is True
        assert (await books.wallet(ann.player_id)).balance == START
        await ann.request("buy_chips", amount=500, key="top-up-2")
        assert (await books.wallet(ann.player_id)).balance == START + 500
        await ann.close()
    finally:
        cont(paused)
        await server.stop(grace=0)
        await books.close()


async def test_a_leave_during_an_outage_is_answered_once_the_refund_landed(
    on_redis: tuple[StudServer, RedisStore], paused: RedisServer
) -> None:
    server, books = on_redis
    ann = await client(server, "ann")
    bob = await client(server, "bob")
    await ann.request("sit", table="alpha")
    await ann.request("ante", table="alpha", seat=0, amount=100)
    await bob.request("join", table="alpha")
    stop(paused)
    # bob's sit is refused once the table knows; ann's ante withdrawal waits, in doubt
    withdraw = asyncio.ensure_future(ann.request("withdraw", table="alpha", seat=0))
    await bob.wait_table("alpha", lambda s: s["phase"] == "suspended", timeout=10)
    cont(paused)
    await withdraw
    await ann.wait_table("alpha", lambda s: s["phase"] == "waiting")
    # and a leave while the store is away waits for it, then refunds
    await ann.request("ante", table="alpha", seat=0, amount=200)
    stop(paused)
    with pytest.raises(ServerError):
        await ann.request("stand", table="alpha", seat=0)  # refused: a bet is in play
    leave = asyncio.ensure_future(ann.request("leave", table="alpha"))
    # still seated until it lands: she watches on (she was shown nothing while it waited)
    await ann.wait_table("alpha", lambda s: s["phase"] == "suspended", timeout=10)
    assert not leave.done()
    cont(paused)
    await asyncio.wait_for(leave, 15)
    await assert_books(books, ann, expected={ann.player_id: START})
    await ann.close()
    await bob.close()


async def test_a_store_that_cannot_be_reached_refuses_at_once_and_applies_nothing(
    paused: RedisServer,
) -> None:
    store = await RedisStore.connect(paused.url, namespace=fresh_namespace(), timeout=1.0)
    config = replace(make_config(), store_timeout=1.0)
    server = StudServer(config, store=store, fleet=Fleet(store, "solo", "", ttl=1.5))
    await server.start()
    try:
        await _unreachable(server, paused)
    finally:
        await server.stop(grace=0)


async def _unreachable(server: StudServer, paused: RedisServer) -> None:
    ann = await client(server, "ann")
    await ann.request("sit", table="alpha")
    paused.stop()  # gone: nothing can be written, and the answer says so at once
    await asyncio.sleep(0.5)  # the server sees its connection closed
    with pytest.raises(ServerError) as e:
        await ann.request("ante", table="alpha", seat=0, amount=100)
    assert e.value.code == "store_unavailable"
    with pytest.raises(ServerError) as e:  # never sent: its key may be sent again
        await ann.request("buy_chips", amount=500, key="top-up-1")
    assert e.value.code == "store_unavailable" and "given_up" not in e.value.frame
    snap = await ann.wait_table("alpha", lambda s: s["phase"] == "suspended")
    assert snap["suspended"]["phase"] == "waiting"
    paused.start()  # empty: but the table resumes and plays
    await ann.wait_table("alpha", lambda s: s["phase"] == "waiting", timeout=15)
    await ann.close()


# ----- fencing: a table whose lease another process took --------------------------------


async def test_a_host_whose_lease_was_taken_stops_and_the_table_plays_elsewhere(
    private_redis: RedisServer,
) -> None:
    namespace = fresh_namespace()
    config = replace(make_config(), fleet_ttl=1.5)
    servers: list[StudServer] = []
    for name in ("first", "second"):
        store = await RedisStore.connect(private_redis.url, namespace=namespace)
        server = StudServer(config, store=store, fleet=Fleet(store, name, f"ws://{name}", ttl=1.5))
        await server.start()
        servers.append(server)
    first, second = servers
    books = await RedisStore.connect(private_redis.url, namespace=namespace)
    try:
        assert first.rooms["alpha"].active and not second.rooms["alpha"].active
        ann = await client(first, "ann")
        await ann.request("sit", table="alpha")
        await ann.request("ante", table="alpha", seat=0, amount=100)
        old_seq = ann.tables["alpha"]["seq"]
        moved = asyncio.ensure_future(ann.wait_for(lambda c: _moved(c, "alpha"), timeout=15))
        # another process holds the lease now, while ann's round is open (as when this
        # one was paused past its lease): its next write is refused by the fence
        old = first.rooms["alpha"].fence
        await books.release("alpha", "first", old.epoch)
        claim = await books.claim("alpha", "intruder", 0, 1.0)
        assert claim.epoch > old.epoch
        with pytest.raises(ServerError) as e:
            await ann.request("withdraw", table="alpha", seat=0)
        assert e.value.code in ("table_moved", "unknown_table")
        await moved  # told where the table went, at once or at the next heartbeat
        assert not first.rooms["alpha"].active
        # the intruder's lease runs out; a standby takes the table and voids the round
        deadline = asyncio.get_running_loop().time() + 15
        while not (first.rooms["alpha"].active or second.rooms["alpha"].active):
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.1)
        host = first if first.rooms["alpha"].active else second
        assert (await books.wallet(ann.player_id)).balance == START  # refunded once
        assert await books.open_rounds("alpha") == []
        # and the table plays normally there, even if it is the process that lost it
        bob = await client(host, "bob")
        await bob.request("sit", table="alpha")
        # the new host's snapshots number above the old host's: a client keeping the
        # highest `seq` keeps the new ones
        assert bob.tables["alpha"]["seq"] > old_seq
        await bob.request("ante", table="alpha", seat=0, amount=100)
        await bob.request("deal", table="alpha")
        await bob.wait_table("alpha", lambda s: s["phase"] == "deciding")
        await bob.request("fold", table="alpha", seat=0)
        await bob.wait_table("alpha", lambda s: s["phase"] == "waiting")
        assert (await books.wallet(bob.player_id)).balance == START - 100
        await bob.close()
        await ann.close()
    finally:
        for server in servers:
            await server.stop(grace=0)
        await books.close()


async def test_a_lease_lapsed_in_a_stall_goes_back_to_its_holder_not_a_standby(
    private_redis: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The holder's renewals cannot get through (as when Redis stalls past the TTL and
    every lease lapses at once), and a standby looks at the lapsed lease before the
    holder's renewal lands. A lapsed lease goes to another process only once it has
    been free a third of the TTL, so the holder, renewing as soon as it can, takes it
    back with its epoch and its round goes on. (Before, the standby took the table at
    its first look and voided the round.)"""
    namespace = fresh_namespace()
    ttl = 3.0
    config = replace(make_config(), fleet_ttl=ttl)
    servers: list[StudServer] = []
    for name in ("holder", "standby"):
        store = await RedisStore.connect(private_redis.url, namespace=namespace)
        server = StudServer(config, store=store, fleet=Fleet(store, name, f"ws://{name}", ttl=ttl))
        await server.start()
        servers.append(server)
    holder, standby = servers
    try:
        assert holder.rooms["alpha"].active and not standby.rooms["alpha"].active
        ann = await client(holder, "ann")
        await to_deciding(ann)
        round_id, epoch = ann.tables["alpha"]["round_id"], holder.rooms["alpha"].fence.epoch
        gate = asyncio.Event()
        renew = holder.hosting.leases.claim_many

        async def stalled(*args: Any, **kwargs: Any) -> Any:
            await gate.wait()
            return await renew(*args, **kwargs)

        monkeypatch.setattr(holder.hosting.leases, "claim_many", stalled)
        await asyncio.sleep(ttl + 0.2)  # the lease has lapsed in Redis
        await standby.hosting.heartbeat()  # the standby looks first
        assert not standby.rooms["alpha"].active
        gate.set()  # the holder's renewal lands
        await asyncio.sleep(ttl / 3 + 0.5)  # past the standby's wait, more looks of both
        assert holder.rooms["alpha"].active and not standby.rooms["alpha"].active
        assert holder.rooms["alpha"].fence.epoch == epoch
        await ann.wait_table("alpha", lambda s: s["phase"] == "deciding")
        await ann.request("raise", table="alpha", seat=0)
        done = await ann.wait_table("alpha", lambda s: s["phase"] == "showdown")
        assert done["round_id"] == round_id and done["seats"][0]["decision"] == "raise"
        assert not any(f["t"] == "table_moved" for f in ann.frames)
        await ann.close()
    finally:
        for server in servers:
            await server.stop(grace=0)


async def test_a_lease_renewed_many_times_lapses_at_the_end_of_the_last(
    make_server: ServerFactory,
) -> None:
    """Renewals only move a lease's end later; the table stops at the last one's end
    (not the first's, nor never), and plays on once a renewal lands again."""
    server = await make_server()
    room = server.rooms["alpha"]
    assert room.lease is not None
    epoch = room.lease.epoch
    loop = asyncio.get_running_loop()
    start = loop.time()
    for end in (0.3, 0.6, 0.9):  # renewed twice before the first end comes
        room.hosted(Lease(epoch, start + end), fresh=False)
    while room.suspended is None and loop.time() < start + 5:
        await asyncio.sleep(0.01)
    assert room.suspended is not None and room.suspended.reason == "lease"
    assert loop.time() >= start + 0.9
    room.hosted(Lease(epoch, math.inf), fresh=False)
    while room.suspended is not None and loop.time() < start + 10:
        await asyncio.sleep(0.01)
    assert room.suspended is None and room.active and room.lease.epoch == epoch


def _moved(c: StudClient, table: str) -> bool:
    return any(f.get("t") == "table_moved" and f.get("table") == table for f in c.frames)


async def test_writes_of_a_stale_epoch_never_reach_the_books(private_redis: RedisServer) -> None:
    namespace = fresh_namespace()
    store = await RedisStore.connect(private_redis.url, namespace=namespace)
    server = StudServer(make_config(), store=store, fleet=Fleet(store, "p", "", ttl=30))
    await server.start()
    books = await RedisStore.connect(private_redis.url, namespace=namespace)
    try:
        ann = await client(server, "ann")
        await ann.request("sit", table="alpha")
        stale = server.rooms["alpha"].fence
        await books.release("alpha", "p", stale.epoch)
        await books.claim("alpha", "other", 0, 30)
        before = await books.totals()
        with pytest.raises(ServerError) as e:
            await ann.request("ante", table="alpha", seat=0, amount=100)
        assert e.value.code == "table_moved"
        assert await books.totals() == before
        assert not server.rooms["alpha"].active
        with pytest.raises(ServerError) as e:
            await ann.request("join", table="alpha")
        assert e.value.code == "unknown_table"
        assert await books.open_rounds("alpha") == []
        assert Fence("alpha", stale.epoch) == stale
        await ann.close()
    finally:
        await server.stop(grace=0)
        await books.close()


# ----- connections that never read ----------------------------------------------------


def _raw_websocket(port: int, rcvbuf: int = 4096) -> socket.socket:
    """A WebSocket handshake on a raw socket with a tiny receive buffer; nothing read after."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(
        (
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    reply = b""
    while b"\r\n\r\n" not in reply:
        reply += s.recv(1)
    assert b" 101 " in reply.split(b"\r\n", 1)[0]
    return s


def _masked(opcode: int, payload: bytes) -> bytes:
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    assert len(payload) < 126
    return struct.pack("!BB", 0x80 | opcode, 0x80 | len(payload)) + mask + body


def _metric(port: int, name: str) -> float:
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"{name} not in /metrics")


async def test_a_ping_flood_that_never_reads_is_cut_off(make_server: ServerFactory) -> None:
    server = await make_server(limits={"max_unsent_bytes": 65_536})
    raw = await asyncio.to_thread(_raw_websocket, server.port)
    ping = _masked(0x9, b"x" * 125)
    try:
        for _ in range(2_000):  # up to 2000 x 64 pings: 16 MB of pongs nobody reads
            try:
                await asyncio.to_thread(raw.sendall, ping * 64)
            except OSError:
                break  # the server dropped the connection: what this test waits for
            if await asyncio.to_thread(_metric, server.port, "stud_slow_consumer_closes_total"):
                break
    finally:
        raw.close()
    assert await asyncio.to_thread(_metric, server.port, "stud_slow_consumer_closes_total") >= 1
    assert not any(s.ws.transport.get_write_buffer_size() > 65_536 for s in server.sessions)


async def test_a_spectator_that_never_reads_is_cut_off(make_server: ServerFactory) -> None:
    server = await make_server(
        limits={"max_unsent_bytes": 65_536, "rate_per_second": 100_000, "rate_burst": 100_000}
    )
    raw = await asyncio.to_thread(_raw_websocket, server.port)
    hello = _masked(0x2, msgpack.packb({"t": "hello", "v": 1, "name": "never reads"}))
    await asyncio.to_thread(raw.sendall, hello)
    lobby = _masked(0x2, msgpack.packb({"t": "lobby", "watch": False}))  # a lobby back each
    try:
        for _ in range(1_000):
            try:
                await asyncio.to_thread(raw.sendall, lobby * 50)
            except OSError:
                break
            if await asyncio.to_thread(_metric, server.port, "stud_slow_consumer_closes_total"):
                break
            await asyncio.sleep(0.01)
    finally:
        raw.close()
    assert await asyncio.to_thread(_metric, server.port, "stud_slow_consumer_closes_total") >= 1
    # everyone else plays on
    c = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    await c.hello(name="still here")
    await c.request("sit", table="alpha")
    await c.close()


def _server_frames(s: socket.socket, until: float) -> list[tuple[int, bytes]]:
    """The (opcode, payload) of each unmasked frame the server sends, until it closes
    the socket or `until` (monotonic) passes."""
    s.settimeout(0.05)
    data, frames = b"", []
    while time.monotonic() < until:
        try:
            chunk = s.recv(65536)
        except TimeoutError:
            continue
        except OSError:
            break
        if not chunk:
            break
        data += chunk
        while len(data) >= 2 and len(data) >= 2 + (data[1] & 0x7F):
            assert data[1] < 126  # control frames and short messages only here
            n = data[1]
            frames.append((data[0] & 0x0F, data[2 : 2 + n]))
            data = data[2 + n :]
    return frames


async def test_a_silent_peer_is_pinged_and_one_that_never_answers_is_closed(
    make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A connection heard from within the interval is never pinged; a silent one is; one
    that stays silent through the ping and its timeout is closed 1011, and counted."""
    monkeypatch.setattr(app, "PING_INTERVAL", 0.5)
    monkeypatch.setattr(app, "PING_TIMEOUT", 0.5)
    monkeypatch.setattr(app, "SWEEP_INTERVAL", 0.05)
    server = await make_server()
    dead = await asyncio.to_thread(_raw_websocket, server.port)
    talking = await asyncio.to_thread(_raw_websocket, server.port)
    answers = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")  # its library pongs

    def keep_talking() -> list[tuple[int, bytes]]:
        frames: list[tuple[int, bytes]] = []
        until = time.monotonic() + 3.0
        while time.monotonic() < until:
            talking.sendall(_masked(0x9, b"hi"))  # answered by a pong: heard, never pinged
            frames += _server_frames(talking, time.monotonic() + 0.1)
        return frames

    try:
        seen_dead, seen_talking = await asyncio.gather(
            asyncio.to_thread(_server_frames, dead, time.monotonic() + 10.0),
            asyncio.to_thread(keep_talking),
        )
        assert seen_dead[0] == (0x9, b"")  # a ping, and nothing answered it
        assert seen_dead[-1][0] == 0x8  # then the close frame: 1011, before the socket went
        assert struct.unpack("!H", seen_dead[-1][1][:2])[0] == 1011
        assert b"keepalive" in seen_dead[-1][1]
        assert seen_talking and set(seen_talking) == {(0xA, b"hi")}  # its pongs, no ping
        assert not answers.closed.done()
        assert (await answers.request("ping"))["t"] == "pong"
        assert await asyncio.to_thread(_metric, server.port, "stud_keepalive_closes_total") == 1
    finally:
        dead.close()
        talking.close()
        await answers.close()


async def test_after_a_pause_the_keepalive_asks_again_before_it_closes(
    make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that was paused (SIGSTOP, a held loop) finds every peer silent and its
    pings old: the pongs may be waiting unread, so that pass closes nobody."""
    monkeypatch.setattr(app, "SWEEP_INTERVAL", 3600.0)  # the passes below are the only ones
    server = await make_server()
    raw = await asyncio.to_thread(_raw_websocket, server.port)
    try:
        assert server.server is not None
        (ws,) = server.server.all_connections
        assert isinstance(ws, BoundedConnection)
        outbox, now = server.outbox, time.monotonic()
        ws.heard = ws.pinged = now - 100
        assert outbox.keepalive([ws], 20, 20) == 0  # silent, nothing asked yet: a ping
        assert ws.pinged > ws.heard
        await asyncio.sleep(0)  # written at the end of the turn
        ws.pinged = now - 50  # asked 50 s ago, no answer
        outbox._keepalive_at = now - 60  # and the last pass was a minute ago
        assert outbox.keepalive([ws], 20, 20) == 0
        assert outbox.keepalive([ws], 20, 20) == 1  # the next pass, on time: closed
        frames = await asyncio.to_thread(_server_frames, raw, time.monotonic() + 5)
        assert [op for op, _ in frames] == [0x9, 0x8]
    finally:
        raw.close()


# ----- HTTP: GET and HEAD, and nothing that answers 500 ------------------------------


def _http(port: int, method: str, path: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method)
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return reply.status, dict(reply.headers), reply.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"])
async def test_only_get_and_head_are_served(make_server: ServerFactory, method: str) -> None:
    server = await make_server()
    for path in ("/", "/healthz", "/metrics", "/ledger", "/nope"):
        status, headers, _ = await asyncio.to_thread(_http, server.port, method, path)
        assert status == 405, (method, path)
        assert headers["Allow"] == "GET, HEAD"
    status, headers, _ = await asyncio.to_thread(_http, server.port, method, "/ws")
    assert (status, headers["Allow"]) == (405, "GET")


async def test_head_answers_like_get_without_a_body(make_server: ServerFactory) -> None:
    server = await make_server()
    for path in ("/", "/healthz", "/metrics", "/ledger", "/nope"):
        got = await asyncio.to_thread(_http, server.port, "GET", path)
        head = await asyncio.to_thread(_http, server.port, "HEAD", path)
        assert head[0] == got[0], path
        assert head[2] == b"", path
        assert head[1]["Content-Type"] == got[1]["Content-Type"]


@pytest.mark.parametrize(
    "path", ["/" + "a" * 300, "/js/" + "b" * 5000, "/%00", "/..%2f..%2fetc/passwd", "/a/" * 200]
)
async def test_bad_paths_are_not_found_never_a_server_error(
    make_server: ServerFactory, path: str
) -> None:
    server = await make_server()
    status, _, _ = await asyncio.to_thread(_http, server.port, "GET", path)
    assert status in (404, 414), path


async def test_a_lobby_bigger_than_the_cap_reaches_a_client_that_reads(
    make_server: ServerFactory,
) -> None:
    """The cap bounds what a peer leaves unread, not the size of one message: a lobby
    of many tables (about 1.2 KB a row: 1.2 MB at 1,000 tables, over the default
    1 MiB) goes to a client that reads it, and the next one too."""
    tables = [{"id": f"t{i}", "variant": "casino-stud", "seats": 5} for i in range(80)]
    server = await make_server(tables=tables, limits={"max_unsent_bytes": 65_536})
    c = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    try:
        await c.hello(name="reads everything")
        for _ in range(2):
            await c.request("lobby")
        lobbies = [f for f in c.frames if f["t"] == "lobby"]
        assert len(lobbies) == 2 and len(lobbies[-1]["tables"]) == 80
        assert len(encode(lobbies[-1])) > 65_536
        await c.request("ping")  # still connected, and answered
    finally:
        await c.close()
    assert server.metrics.slow_closes == 0


async def test_a_client_that_asks_but_never_reads_is_cut_off(make_server: ServerFactory) -> None:
    """Sending keeps a connection 'heard', so the keepalive never closes it; what it
    leaves unread must. The operating system's own buffer for the socket is bounded,
    so the cap is reached at a moderate pace too, not only by a flood."""
    server = await make_server(limits={"max_unsent_bytes": 65_536})
    raw = await asyncio.to_thread(_raw_websocket, server.port)
    hello = _masked(0x2, msgpack.packb({"t": "hello", "v": 1, "name": "never reads"}))
    await asyncio.to_thread(raw.sendall, hello)
    lobby = _masked(0x2, msgpack.packb({"t": "lobby", "watch": False}))
    try:
        for _ in range(1_200):  # 10 a second, under the rate limit: at most two minutes
            try:
                await asyncio.to_thread(raw.sendall, lobby)
            except OSError:
                break  # dropped: what this test waits for
            if server.metrics.slow_closes or server.metrics.keepalive_closes:
                break
            await asyncio.sleep(0.1)
    finally:
        raw.close()
    assert server.metrics.slow_closes + server.metrics.keepalive_closes == 1


async def test_a_withdraw_whose_refund_landed_before_the_table_moved_is_answered_ok(
    private_redis: RedisServer,
) -> None:
    """The refund was written, then the lease went to another process before the
    emptied round's close: the close's fenced write answered the withdraw
    `table_moved`, though its refund stood (PROTOCOL: answered as applied)."""
    namespace = fresh_namespace()
    config = replace(make_config(), fleet_ttl=1.5)
    store = await RedisStore.connect(private_redis.url, namespace=namespace)
    server = StudServer(config, store=store, fleet=Fleet(store, "first", "ws://first", ttl=1.5))
    await server.start()
    books = await RedisStore.connect(private_redis.url, namespace=namespace)
    try:
        ann = await client(server, "ann")
        await ann.request("sit", table="alpha")
        await ann.request("ante", table="alpha", seat=0, amount=100)
        apply = store.apply

        async def refund_then_lose_the_lease(fence: Fence, op: str, *rest: Any) -> Any:
            wallets = await apply(fence, op, *rest)
            if ":withdraw:" in op:  # taken over between the refund and the close
                await books.release("alpha", "first", fence.epoch)
                await books.claim("alpha", "intruder", 0, 1.0)
            return wallets

        store.apply = refund_then_lose_the_lease  # type: ignore[method-assign,assignment]
        await ann.request("withdraw", table="alpha", seat=0)  # ok: the refund stands
        assert (await books.wallet(ann.player_id)).balance == START
        await ann.close()
    finally:
        await server.stop(grace=0)
        await books.close()


async def test_a_redis_paused_past_the_ttl_gives_the_table_back_to_its_holder(
    private_redis: RedisServer,
) -> None:
    """CLIENT PAUSE ALL past the TTL: every lease lapses the moment the pause ends. The
    holder's fleet connection, in its reconnect backoff (it had grown to seconds), came
    back after a standby had waited its third of the TTL: the standby took the table and
    voided the round of a holder that was alive. (Whether a connection is mid-backoff
    when the pause ends is chance: the backoff's cap is checked too.)"""
    ttl = 2.0
    config = replace(
        make_config(timers={"betting": 30, "decision": 30, "results": 0.2}),
        fleet_ttl=ttl,
        store_timeout=1.0,
        redis_url=private_redis.url,
        redis_namespace=fresh_namespace(),
    )
    servers: list[StudServer] = []
    for _ in ("holder", "standby"):
        server = StudServer(config, **await app_cli._stores(config))
        await server.start()
        servers.append(server)
    holder, standby = servers
    try:
        assert all(s.fleet is not None and s.fleet.store.max_backoff <= ttl / 12 for s in servers)
        assert holder.rooms["alpha"].active and not standby.rooms["alpha"].active
        ann = await client(holder, "ann")
        await to_deciding(ann)
        round_id, epoch = ann.tables["alpha"]["round_id"], holder.rooms["alpha"].fence.epoch
        private_redis.command("CLIENT", "PAUSE", str(int(ttl * 5_000)), "ALL")
        await asyncio.sleep(ttl * 5 + ttl)  # the pause, then a TTL of looks by both
        assert holder.rooms["alpha"].active and not standby.rooms["alpha"].active
        assert holder.rooms["alpha"].fence.epoch == epoch
        await ann.wait_table("alpha", lambda s: s["phase"] == "deciding", timeout=10)
        await ann.request("raise", table="alpha", seat=0)
        done = await ann.wait_table("alpha", lambda s: s["phase"] == "showdown")
        assert done["round_id"] == round_id and done["seats"][0]["decision"] == "raise"
        await ann.close()
    finally:
        for server in servers:
            await server.stop(grace=0)
            await server.store.close()


async def test_a_shutdown_ends_with_a_request_in_doubt_and_answers_it_nothing_untrue(
    on_redis: tuple[StudServer, RedisStore], paused: RedisServer
) -> None:
    """A raise in doubt behind a stalled Redis kept retrying its cancel for as long as
    Redis stood still, and the shutdown waited for it: a SIGTERM never ended. At the
    shutdown's grace the request stops; its player is told nothing untrue (no answer,
    the connection closed with 1001), and the table's next host settles what landed."""
    server, books = on_redis
    ann = await client(server, "ann")
    await to_deciding(ann)
    stop(paused)
    raised = asyncio.ensure_future(ann.request("raise", table="alpha", seat=0))
    try:
        await asyncio.sleep(1.0)  # the raise is in doubt now
        assert server.pending.writes
        await asyncio.wait_for(server.stop(grace=1), 60)  # a bound on a hang, not a timing
    finally:
        cont(paused)
    with pytest.raises(Exception) as e:
        await raised
    assert not isinstance(e.value, ServerError), e.value  # no "failed" for a write in doubt
    assert ann.ws.close_code == 1001
    assert sum((await books.totals()).values()) == 0  # whatever landed, nothing was lost
