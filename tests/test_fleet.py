"""Server processes on one Redis: a shared jackpot, crash recovery, a Redis restart."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from clients.connection import ServerError, StudClient
from server.app import StudServer
from server.fleet import Fleet
from server.stores.base import StoreError
from server.stores.redis import RedisStore
from tests.conftest import make_config
from tests.decks import shuffles
from tests.redis_fixture import (
    RedisServer,
    drop_namespace,
    free_port,
    fresh_namespace,
    private_redis,
    redis_url,
    time_limit,
)

__all__ = ["private_redis", "redis_url", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")

DEALER_AK = ["Ad", "Kc", "9h", "4s", "2d"]
ROYAL = ["Ah", "Kh", "Qh", "Jh", "Th"]
SEED = 100_000
START = 100_000

CONFIG = """
[server]
reconnect_grace = 30
shutdown_grace = 1
fleet_ttl = 1.5
[timers]
betting = 30
decision = 30
results = 0.2
[wallet]
starting_credits = {start}
starting_bonus = 0
[jackpots.main]
seed = {seed}
contribution_bp = 5000
[[tables]]
id = "{table}"
variant = "casino-stud"
seats = 5
min_ante = 100
max_ante = 10000
"""


class ServerProcess:
    """`stud-server serve` as a real OS process: by default hosting `table` alone, with
    this module's config, else with the config `text` given."""

    def __init__(
        self, tmp: Path, table: str, redis: str, namespace: str, *, text: str | None = None
    ) -> None:
        self.name = table
        self.port = free_port()
        self.config = tmp / f"{table}.toml"
        self.config.write_text(text or CONFIG.format(start=START, seed=SEED, table=table))
        self.log = tmp / f"{table}-{self.port}.log"
        self.env = {
            **os.environ,
            "REDIS_URL": redis,
            "STUD_REDIS_NAMESPACE": namespace,
            "STUD_PORT": str(self.port),
        }
        self.process: subprocess.Popen[bytes] | None = None
        self.frozen = False

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def health(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2) as r:
            body: dict[str, Any] = json.loads(r.read())
            return body

    def start(self, hosting: int | None = None) -> None:
        """Start, and wait until it serves (and hosts `hosting` tables, when given)."""
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "server.cli", "serve", "--config", str(self.config)],
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 30
        while True:
            try:
                health = self.health()  # a 503 (stopping) is an OSError too
                if hosting is None or health.get("tables") == hosting:
                    return
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{self.name} did not start:\n{self.log.read_text()[-3000:]}")
            time.sleep(0.05)

    def freeze(self) -> None:
        """SIGSTOP: its kernel still takes connections; nothing answers them."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)
        self.frozen = True

    def kill(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)
            self.process = None

    def stop(self) -> None:
        if self.process is not None:
            if self.frozen:
                self.process.send_signal(signal.SIGCONT)
                self.frozen = False
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
            self.process = None


@pytest.fixture
def namespace(redis_url: str) -> Iterator[str]:
    ns = fresh_namespace()
    yield ns
    asyncio.run(drop_namespace(redis_url, ns))


@pytest.fixture
def processes(tmp_path: Path) -> Iterator[list[ServerProcess]]:
    started: list[ServerProcess] = []
    yield started
    for p in started:
        p.stop()


async def open_client(url: str, name: str | None = None, **hello: Any) -> StudClient:
    client = await StudClient.open(url)
    await client.hello(name=name, **hello)
    return client


async def store_totals(url: str, namespace: str) -> dict[str, int]:
    store = await RedisStore.connect(url, namespace=namespace)
    try:
        return await store.totals()
    finally:
        await store.close()


async def test_two_processes_share_one_jackpot_lobby_and_wallets(
    redis_url: str, namespace: str, processes: list[ServerProcess], tmp_path: Path
) -> None:
    one = ServerProcess(tmp_path, "east", redis_url, namespace)
    two = ServerProcess(tmp_path, "west", redis_url, namespace)
    processes += [one, two]
    await asyncio.gather(asyncio.to_thread(one.start), asyncio.to_thread(two.start))
    alice = await open_client(one.url, "alice")
    watcher = await open_client(two.url, "watcher")
    try:
        # each lobby lists both processes' tables with the address to reach each
        await watcher.request("lobby")
        await watcher.wait_for(lambda c: c.lobby and len(c.lobby["tables"]) == 2, timeout=10)
        assert watcher.lobby is not None
        urls = {t["id"]: t["url"] for t in watcher.lobby["tables"]}
        assert urls == {"east": one.url, "west": two.url}
        assert watcher.lobby["servers"] == [one.url]  # the others, hosting or standing by
        # and its welcome says which address is its own
        assert (alice.welcome["url"], watcher.welcome["url"]) == (one.url, two.url)
        with pytest.raises(ServerError) as e:
            await watcher.request("join", table="east")
        assert e.value.code == "unknown_table" and e.value.frame["url"] == one.url
        # a progressive bet on one process moves the meter every process shows
        await alice.request("sit", table="east")
        await alice.request("ante", table="east", seat=0, amount=100, progressive=True)
        await watcher.wait_for(lambda c: c.jackpots.get("main") == SEED + 50, timeout=10)
        # the same player, resumed on the other process, has the same wallet
        again = await open_client(two.url, None, token=alice.token)
        assert again.player_id == alice.player_id
        assert again.balance["balance"] == START - 200 and again.balance["held"] == 200
        await again.close()
    finally:
        await alice.close()
        await watcher.close()


async def test_a_frozen_host_with_no_standby_is_listed_silent_until_it_runs_again(
    redis_url: str, namespace: str, processes: list[ServerProcess], tmp_path: Path
) -> None:
    """No other process may host its table: its row stays, said `silent`, not as if
    the round it was in went on."""
    frozen = ServerProcess(tmp_path, "east", redis_url, namespace)
    other = ServerProcess(tmp_path, "west", redis_url, namespace)
    processes += [frozen, other]
    await asyncio.gather(asyncio.to_thread(frozen.start), asyncio.to_thread(other.start))
    watcher = await open_client(other.url, "watcher")
    try:
        await watcher.request("lobby")

        def east(c: StudClient) -> dict[str, Any]:
            rows = [t for t in (c.lobby or {}).get("tables", []) if t["id"] == "east"]
            return rows[0] if rows else {}

        await watcher.wait_for(lambda c: east(c).get("silent") is False, timeout=10)
        frozen.freeze()
        await watcher.wait_for(lambda c: east(c).get("silent") is True, timeout=10)
        assert east(watcher)["phase"] == "waiting"  # as it was last shared
        with pytest.raises(ServerError) as e:
            await watcher.request("join", table="east")
        assert e.value.frame["url"] == frozen.url and "not answering" in str(e.value)
        assert frozen.process is not None
        frozen.process.send_signal(signal.SIGCONT)
        frozen.frozen = False
        await watcher.wait_for(lambda c: east(c).get("silent") is False, timeout=10)
    finally:
        await watcher.close()


async def test_a_killed_process_round_is_voided_once_on_restart(
    redis_url: str, namespace: str, processes: list[ServerProcess], tmp_path: Path
) -> None:
    server = ServerProcess(tmp_path, "crashy", redis_url, namespace)
    processes.append(server)
    await asyncio.to_thread(server.start)
    a = await open_client(server.url, "a")
    b = await open_client(server.url, "b")
    for c in (a, b):
        await c.request("sit", table="crashy")
    await a.request("ante", table="crashy", seat=0, amount=500, progressive=True)
    await b.request("ante", table="crashy", seat=1, amount=300)
    await a.request("deal", table="crashy")
    await b.request("deal", table="crashy")
    await a.wait_table("crashy", lambda s: s["phase"] == "deciding")
    await a.request("raise", table="crashy", seat=0)  # the raise is debited too
    before = await store_totals(redis_url, namespace)
    assert before[f"player:{a.player_id}"] == START - 500 - 100 - 1000
    await asyncio.to_thread(server.kill)  # mid-round: b has not decided
    await a.close()
    await b.close()
    for _ in range(2):  # restart twice: the refund happens exactly once
        await asyncio.sleep(1.6)  # the dead owner's claim on the table expires
        await asyncio.to_thread(server.start)
        # the new process takes the lapsed lease once it has been free a third of its TTL
        for _ in range(100):
            totals = await store_totals(redis_url, namespace)
            if totals[f"player:{a.player_id}"] == START:
                break
            await asyncio.sleep(0.05)
        assert totals[f"player:{a.player_id}"] == START
        assert totals[f"player:{b.player_id}"] == START
        assert totals["meter:main"] == SEED
        assert sum(totals.values()) == 0  # double entry: wallets + house + meter = buy-ins
        await asyncio.to_thread(server.stop)
    log = server.log.read_text()
    assert log.count("round voided") == 1


@pytest.fixture
async def fleet_pair(
    redis_url: str, namespace: str
) -> AsyncIterator[tuple[StudServer, StudServer]]:
    """Two servers on one Redis in this process: one deals a stacked royal flush."""
    servers = []
    for table, deck in (("east", [ROYAL, DEALER_AK]), ("west", None)):
        config = make_config(
            tables=[{"id": table, "variant": "casino-stud", "seats": 3}],
            jackpots={"main": {"seed": SEED, "contribution_bp": 5000}},
            wallet={"starting_credits": START, "starting_bonus": 0},
        )
        config = replace(config, fleet_ttl=1.5)
        store = await RedisStore.connect(redis_url, namespace=namespace)
        fleet = Fleet(store, f"proc-{table}", "", ttl=1.5)
        kwargs: dict[str, Any] = {"store": store, "fleet": fleet}
        if deck is not None:
            kwargs["shuffle"] = shuffles(deck)
        server = StudServer(config, **kwargs)
        await server.start()
        servers.append(server)
    yield servers[0], servers[1]
    for server in servers:
        await server.stop(grace=0)


async def test_a_royal_flush_on_one_server_resets_the_jackpot_on_both(
    fleet_pair: tuple[StudServer, StudServer],
) -> None:
    east, west = fleet_pair
    lucky = await open_client(f"ws://127.0.0.1:{east.port}/ws", "lucky")
    far = await open_client(f"ws://127.0.0.1:{west.port}/ws", "far")
    try:
        await far.request("sit", table="west")
        await far.request("ante", table="west", seat=0, amount=100, progressive=True)
        await lucky.request("sit", table="east")
        await lucky.request("ante", table="east", seat=0, amount=100, progressive=True)
        await lucky.wait_for(lambda c: c.jackpots.get("main") == SEED + 100, timeout=10)
        await lucky.request("deal", table="east")
        await lucky.wait_table("east", lambda s: s["phase"] == "deciding")
        await lucky.request("raise", table="east", seat=0)
        won = await far.wait_for(
            lambda c: next((f for f in c.frames if f["t"] == "jackpot_won"), None), timeout=10
        )
        assert won["amount"] == SEED + 100 and won["category"] == "ROYAL_FLUSH"
        await far.wait_for(lambda c: c.jackpots.get("main") == SEED, timeout=10)
        assert west.meters["main"] == SEED and east.meters["main"] == SEED
    finally:
        await lucky.close()
        await far.close()


async def test_the_server_keeps_serving_through_a_redis_restart(
    private_redis: RedisServer,
) -> None:
    store = await RedisStore.connect(private_redis.url, namespace=fresh_namespace(), timeout=2)
    config = make_config(jackpots={"main": {"seed": SEED, "contribution_bp": 5000}})
    server = StudServer(config, store=store, fleet=Fleet(store, "solo", "", ttl=1.5))
    await server.start()
    url = f"ws://127.0.0.1:{server.port}/ws"
    try:
        c = await open_client(url, "steady")
        await c.request("sit", table="alpha")
        await c.request("ante", table="alpha", seat=0, amount=100)
        await c.request("deal", table="alpha")
        await c.wait_table("alpha", lambda s: s["phase"] == "deciding")
        await c.request("fold", table="alpha", seat=0)
        await c.wait_table("alpha", lambda s: s["phase"] == "waiting")
        private_redis.stop()
        with pytest.raises(ServerError) as e:
            await c.request("buy_chips", amount=100)
        assert e.value.code == "store_unavailable"
        health = await asyncio.to_thread(
            lambda: json.loads(
                urllib.request.urlopen(f"http://127.0.0.1:{server.port}/healthz", timeout=5).read()
            )
        )
        assert health["status"] == "ok" and health["store_connected"] is False
        private_redis.start()  # with its data, but its scripts must be loaded again
        fresh = None
        for _ in range(100):
            try:
                fresh = await open_client(url, "after")
                break
            except ServerError:
                await asyncio.sleep(0.1)
        assert fresh is not None
        # the table paused while Redis was away (its lease could not be renewed) and
        # resumes once the lease is renewed on the restarted Redis
        await fresh.request("join", table="beta")
        await fresh.wait_table("beta", lambda s: s["phase"] == "waiting", timeout=15)
        await fresh.request("sit", table="beta")
        await fresh.request("ante", table="beta", seat=0, amount=100, progressive=True)
        await fresh.request("deal", table="beta")
        await fresh.wait_table("beta", lambda s: s["phase"] == "deciding")
        await fresh.request("raise", table="beta", seat=0)
        await fresh.wait_table("beta", lambda s: s["phase"] == "showdown")
        await fresh.close()
        await c.close()
    finally:
        await server.stop(grace=0)


async def test_the_fleet_channel_follows_a_redis_restart(private_redis: RedisServer) -> None:
    """A restarted Redis drops its subscribers: each process subscribes again and says its
    news was lost, and a wallet moved by one process still reaches the other. The channel
    used to wait on a dead connection for good, and cross-process pushes stopped."""
    store = await RedisStore.connect(private_redis.url, namespace=fresh_namespace(), timeout=2)
    heard: asyncio.Queue[str] = asyncio.Queue()
    lost: list[bool] = []
    here = Fleet(store, "here", "", on_news_lost=lambda: lost.append(True))
    there = Fleet(store, "there", "", on_wallet=heard.put_nowait)
    listeners = f"{store.prefix}jackpot"

    async def subscribers() -> int:
        async def numsub(conn: Any) -> int:
            return int((await (await conn.pubsub_numsub([listeners])).asdict())[listeners])

        try:
            return await store.run("count subscribers", numsub)
        except StoreError:  # the store still reconnecting after the restart
            return -1

    try:
        await here.start()
        await there.start()
        for attempt in ("before", "after"):
            for _ in range(300):
                if await subscribers() == 2:
                    break
                await asyncio.sleep(0.05)
            assert await subscribers() == 2, attempt
            await here.announce_wallet(f"p-{attempt}")
            assert await asyncio.wait_for(heard.get(), 10) == f"p-{attempt}"
            if attempt == "before":
                private_redis.stop()
                await asyncio.sleep(0.3)
                private_redis.start()
        assert lost == [True]  # subscribed again, and said so (accounts are checked then)
    finally:
        await here.close([])
        await there.close([])
        await store.close()


async def test_lobby_rows_come_back_after_redis_lost_them(private_redis: RedisServer) -> None:
    """Rows are written only when they change; rows Redis no longer has (expired while
    their process stood still) are noticed at the next heartbeat and all written again."""
    store = await RedisStore.connect(private_redis.url, "stud", timeout=2.0)
    try:
        here = Fleet(store, "here", "ws://here/ws", ttl=3.0)
        there = Fleet(store, "there", "", ttl=3.0)
        rows = [({"id": "quiet"}, {"taken": 0}), ({"id": "busy"}, {"taken": 3})]
        await here.publish_rows(rows)
        assert private_redis.command("DEL", "{stud}:lobby:p:here") == ":1"
        await here.publish_rows(rows)  # nothing changed here, but Redis has no rows
        procs = await there.publish_rows([])
        seen = await there.remote_rows(set(), procs)
        assert sorted(r["id"] for r in seen) == ["busy", "quiet"]
    finally:
        await store.close()


async def test_lobby_rows_are_written_whole_with_their_fixed_part_encoded_once(
    private_redis: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row is its fixed part and its live part as one JSON object, as another process
    reads it; the fixed part is encoded once per table (the same object each heartbeat),
    and only rows whose live part changed are written again."""
    store = await RedisStore.connect(private_redis.url, "stud", timeout=2.0)
    try:
        here = Fleet(store, "here", "ws://here/ws", ttl=3.0)
        there = Fleet(store, "there", "", ttl=3.0)
        variant = {"name": "casino-stud", "paytable": [{"odds": "100:1", "label": 'Royal "R"'}]}
        fixed = {"id": "t1", "variant": variant, "seats": 5}
        other = {"id": "t2", "seats": 3}
        encoded: list[Any] = []
        dumps = json.dumps

        def counted(obj: Any, **kwargs: Any) -> str:
            encoded.append(obj)
            return dumps(obj, **kwargs)

        monkeypatch.setattr(json, "dumps", counted)
        await here.publish_rows([(fixed, {"taken": 0}), (other, {"taken": 1})])
        await here.publish_rows([(fixed, {"taken": 2}), (other, {"taken": 1})])
        monkeypatch.undo()
        assert sum(1 for o in encoded if o is fixed) == 1  # once, though written twice
        assert sum(1 for o in encoded if o is other) == 1
        procs = await there.publish_rows([])
        seen = {r["id"]: r for r in await there.remote_rows(set(), procs)}
        assert seen == {
            "t1": {**fixed, "taken": 2, "url": "ws://here/ws", "silent": False},
            "t2": {**other, "taken": 1, "url": "ws://here/ws", "silent": False},
        }
    finally:
        await store.close()


async def test_a_table_two_hosts_left_rows_for_is_listed_once_at_the_newer(
    private_redis: RedisServer,
) -> None:
    """A host that died (or was paused past its leases) leaves its rows for a while,
    beside those of the process that took its tables over: the lobby lists each table
    once, at the host of the higher epoch, and never shows the epoch itself."""
    store = await RedisStore.connect(private_redis.url, "stud", timeout=2.0)
    try:
        dead = Fleet(store, "dead", "ws://dead/ws", ttl=3.0)
        new = Fleet(store, "new", "ws://new/ws", ttl=3.0)
        reader = Fleet(store, "reader", "ws://reader/ws", ttl=3.0)
        await dead.publish_rows(
            [({"id": "moved"}, {"taken": 2, "epoch": 7}), ({"id": "kept"}, {"epoch": 3})]
        )
        await new.publish_rows([({"id": "moved"}, {"taken": 0, "epoch": 9})])
        procs = await reader.publish_rows([])
        seen = await reader.remote_rows(set(), procs)
        assert seen == [
            {"id": "kept", "url": "ws://dead/ws", "silent": False},  # nobody took it over yet
            {"id": "moved", "taken": 0, "url": "ws://new/ws", "silent": False},
        ]
        # the newer host writes first, the dead one's rows are read later: still the newer
        await dead.publish_rows([({"id": "moved"}, {"taken": 5, "epoch": 7})])
        procs = await reader.publish_rows([])
        seen = await reader.remote_rows(set(), procs)
        assert [r["url"] for r in seen if r["id"] == "moved"] == ["ws://new/ws"]
    finally:
        await store.close()


async def test_a_host_not_heard_from_for_its_lease_time_has_its_rows_listed_silent(
    private_redis: RedisServer,
) -> None:
    """A frozen or dead host's rows stay listed until a standby takes its tables over
    (or for 3 TTLs): once its heartbeat has not moved for a TTL, as this process's own
    clock measures it (another machine's clock may be off), they say `silent`."""
    store = await RedisStore.connect(private_redis.url, "stud", timeout=2.0)
    try:
        host = Fleet(store, "host", "ws://host/ws", ttl=3.0)
        reader = Fleet(store, "reader", "ws://reader/ws", ttl=3.0)
        now = [1000.0]
        reader.clock = lambda: now[0]
        await host.publish_rows([({"id": "t1"}, {"phase": "deciding", "silent": False})])

        async def silent() -> bool:
            (row,) = await reader.remote_rows(set(), await reader.publish_rows([]))
            assert row["phase"] == "deciding"  # as it was last shared
            return bool(row["silent"])

        assert not await silent()
        now[0] += 2.9
        assert not await silent()  # one late heartbeat is no silence
        now[0] += 0.2
        assert await silent()
        await host.publish_rows([({"id": "t1"}, {"phase": "deciding", "silent": False})])
        assert not await silent()  # heard again (a freeze that ended)
        assert reader.servers() == ["ws://host/ws"]  # where a client may go on
        now[0] += 3.1
        assert await silent()
        assert reader.servers() == []  # not a place to send anyone to now
    finally:
        await store.close()


async def test_a_row_an_earlier_process_at_this_address_left_never_sends_clients_here(
    private_redis: RedisServer,
) -> None:
    """A process restarted at a dead host's address reads the dead host's rows, with
    its own address in them: it must not redirect a client to itself (a loop); it says
    the table has no host right now. Once another host lists it, it sends them there."""
    namespace = fresh_namespace()
    store = await RedisStore.connect(private_redis.url, namespace=namespace)
    port = free_port()
    here = f"ws://127.0.0.1:{port}/ws"
    config = replace(make_config(), fleet_ttl=1.5, port=port, public_url=here)
    server = StudServer(config, store=store, fleet=Fleet(store, "restarted", here, ttl=1.5))
    await server.start()
    side = await RedisStore.connect(private_redis.url, namespace=namespace)
    c = await StudClient.open(here)
    try:
        await c.hello(name="ann")
        dead = Fleet(side, "dead", here, ttl=1.5)
        await dead.publish_rows([({"id": "ghost"}, {"epoch": 4})])

        async def join_error() -> ServerError:
            with pytest.raises(ServerError) as e:
                await c.request("join", table="ghost")
            return e.value

        deadline = time.monotonic() + 10
        while server.lobby.remote_row("ghost") is None:  # the next heartbeat reads it
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        error = await join_error()
        assert error.code == "unknown_table"
        assert "url" not in error.frame and "hosted at" not in error.frame["message"]
        new = Fleet(side, "new", "ws://new/ws", ttl=1.5)
        await new.publish_rows([({"id": "ghost"}, {"epoch": 5})])
        while (server.lobby.remote_row("ghost") or {}).get("url") != "ws://new/ws":
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        error = await join_error()
        assert error.frame["url"] == "ws://new/ws"
    finally:
        await c.close()
        await server.stop(grace=0)
        await side.close()


async def test_a_heartbeat_renews_many_tables_in_slices(private_redis: RedisServer) -> None:
    """Every table is renewed, a slice per store call, so one heartbeat of a thousand
    tables never holds the event loop or Redis for all of them at once."""
    from server.hosting import CLAIM_SLICE

    store = await RedisStore.connect(private_redis.url, namespace=fresh_namespace(), timeout=2)
    calls: list[int] = []
    claim_many = store.claim_many

    async def counted(held: Any, holder: str, ttl: float | None) -> Any:
        calls.append(len(held))
        return await claim_many(held, holder, ttl)

    store.claim_many = counted  # type: ignore[method-assign]
    n = 2 * CLAIM_SLICE + 50
    tables = [
        {"id": f"t{i:04d}", "variant": "casino-stud", "seats": 5, "min_ante": 100, "max_ante": 500}
        for i in range(n)
    ]
    server = StudServer(
        make_config(tables=tables), store=store, fleet=Fleet(store, "p", "", ttl=1.5)
    )
    await server.start()
    try:
        calls.clear()
        await server.hosting.heartbeat()  # the background renewals may run meanwhile
        assert max(calls) == CLAIM_SLICE and 50 in calls
        assert all(room.active for room in server.rooms.values())
        epochs = {room.id: room.lease.epoch for room in server.rooms.values() if room.lease}
        await server.hosting.heartbeat()  # a renewal keeps every table's epoch
        assert {r.id: r.lease.epoch for r in server.rooms.values() if r.lease} == epochs
    finally:
        await server.stop(grace=0)


async def test_a_shutdown_gives_every_lease_back_in_one_call_even_with_redis_gone(
    private_redis: RedisServer,
) -> None:
    """Leases go back in one store call: with Redis up, every table is free at once for
    a standby; with Redis gone, the shutdown waits for one call, not one per table."""
    tables = [
        {"id": f"t{i:02d}", "variant": "casino-stud", "seats": 5, "min_ante": 100, "max_ante": 500}
        for i in range(12)
    ]
    calls: list[int] = []

    async def serve(name: str) -> tuple[StudServer, RedisStore]:
        store = await RedisStore.connect(private_redis.url, namespace="shutdown", timeout=2)
        release_many = store.release_many

        async def counted(held: Any, holder: str) -> None:
            calls.append(len(held))
            await release_many(held, holder)

        store.release_many = counted  # type: ignore[method-assign]
        server = StudServer(
            make_config(tables=tables), store=store, fleet=Fleet(store, name, "", ttl=30)
        )
        await server.start()
        return server, store

    first, _ = await serve("first")
    assert all(room.active for room in first.rooms.values())
    await first.stop(grace=0)
    assert calls == [12]
    second, _ = await serve("second")  # free at once, though the TTL has 30 s to run
    assert all(room.active for room in second.rooms.values())
    private_redis.stop()
    await second.stop(grace=0)
    assert calls == [12, 12]


async def test_a_shutdown_keeps_its_leases_while_the_running_round_finishes(
    private_redis: RedisServer,
) -> None:
    """The leases held are renewed through the shutdown's grace: a round in betting
    deals, is decided by its timer and settles, never paused for a lapsed lease (its
    lease is acted on for 1.2 s here, the round takes 3 s) nor voided."""
    store = await RedisStore.connect(private_redis.url, namespace=fresh_namespace(), timeout=2)
    config = make_config(timers={"betting": 2, "decision": 1, "results": 0.2})
    server = StudServer(config, store=store, fleet=Fleet(store, "p", "", ttl=1.5))
    await server.start()
    client = await open_client(f"ws://127.0.0.1:{server.port}/ws", "ann")
    books = await RedisStore.connect(private_redis.url, namespace=store.namespace)
    try:
        await client.request("sit", table="alpha")
        await client.request("ante", table="alpha", seat=0, amount=100)
        await server.stop(grace=10)
        phases = [f["phase"] for f in client.frames if f["t"] == "table"]
        assert "suspended" not in phases, phases
        assert phases[-1] == "waiting" and "showdown" in phases  # settled, then the next
        assert (await books.wallet(client.player_id)).balance == START - 100  # folded
        assert await books.open_rounds("alpha") == []
    finally:
        await client.close()
        await books.close()


async def test_a_standby_counts_none_of_the_tables_it_stands_by_for(
    private_redis: RedisServer,
) -> None:
    """/healthz's `tables` and /metrics' stud_tables are the tables a process hosts: a
    standby configured with the same tables hosts none of them."""
    namespace = fresh_namespace()
    servers: list[StudServer] = []
    try:
        for name in ("host", "standby"):
            store = await RedisStore.connect(private_redis.url, namespace=namespace, timeout=2)
            server = StudServer(make_config(), store=store, fleet=Fleet(store, name, "", ttl=30))
            await server.start()
            servers.append(server)
        host, standby = servers
        assert host.census().tables == len(host.rooms) > 0
        assert standby.census().tables == 0
    finally:
        for server in reversed(servers):
            await server.stop(grace=0)


async def test_a_process_that_cannot_bind_its_port_claims_no_table(
    private_redis: RedisServer,
) -> None:
    """A `serve` whose port is taken fails before it claims a lease: its tables are free
    at once for another process, not held for a lease's time by one that never served."""
    namespace = fresh_namespace()
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    servers: list[StudServer] = []
    try:
        store = await RedisStore.connect(private_redis.url, namespace=namespace, timeout=2)
        config = replace(make_config(), host="127.0.0.1", port=taken.getsockname()[1])
        unbound = StudServer(config, store=store, fleet=Fleet(store, "unbound", "", ttl=30))
        servers.append(unbound)
        with pytest.raises(OSError):
            await unbound.start()
        store = await RedisStore.connect(private_redis.url, namespace=namespace, timeout=2)
        server = StudServer(make_config(), store=store, fleet=Fleet(store, "next", "", ttl=30))
        servers.append(server)
        await server.start()
        assert server.census().tables == len(server.rooms) > 0
    finally:
        taken.close()
        for server in reversed(servers):
            await server.stop(grace=0)


def _get(port: int, path: str) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as reply:
        return str(reply.read().decode())


async def test_a_redis_back_empty_pauses_the_tables_and_says_so(
    private_redis: RedisServer, processes: list[ServerProcess], tmp_path: Path
) -> None:
    """A Redis that keeps nothing is warned about at start; when it comes back empty the
    process says so (log ERROR, /healthz, /metrics, its tables) and deals nothing on the
    empty store, nor does a process started later, until an operator accepts the loss
    (`accept-empty-store`) and restarts the processes."""
    assert private_redis.command("CONFIG", "SET", "save", "") == "+OK"
    proc = ServerProcess(tmp_path, "alpha", private_redis.url, fresh_namespace())
    processes.append(proc)
    proc.start()
    assert "keeps nothing on disk" in proc.log.read_text()
    before = await open_client(proc.url, "before")
    await before.request("join", table="alpha")
    private_redis.stop()
    private_redis.forget()
    private_redis.start()
    health: dict[str, Any] = {}
    for _ in range(300):  # the next lease renewal finds the mark gone
        health = json.loads(await asyncio.to_thread(_get, proc.port, "/healthz"))
        if health["store_data_lost"] and health["suspended_tables"] == 1:
            break
        await asyncio.sleep(0.1)
    assert health["store_data_lost"] is True and health["suspended_tables"] == 1
    assert "stud_store_data_lost 1" in await asyncio.to_thread(_get, proc.port, "/metrics")
    # the viewer is told the store lost its data, not that it merely does not answer
    await before.wait_table(
        "alpha", lambda s: (s["suspended"] or {}).get("reason") == "store_lost", timeout=15
    )
    with pytest.raises(ServerError) as paused:
        await before.request("sit", table="alpha")
    assert paused.value.code == "table_suspended" and "without its data" in str(paused.value)
    await before.close()
    errors = [line for line in proc.log.read_text().splitlines() if " ERROR " in line]
    assert errors and all("without its data" in line for line in errors), errors
    assert len(errors) <= 2  # once for each of its two connections, not on every retry
    with pytest.raises(ServerError) as refused:
        await open_client(proc.url, "after")  # a new guest would be a wallet on nothing
    assert refused.value.code == "store_unavailable"
    assert "without its data" in str(refused.value)
    # a process started now does not take the emptied store for a new one
    late = ServerProcess(tmp_path, "beta", private_redis.url, proc.env["STUD_REDIS_NAMESPACE"])
    processes.append(late)  # stopped at the end should it ever start
    with pytest.raises(RuntimeError):
        late.start()
    assert late.process is not None and late.process.wait(10) == 1
    assert "accept-empty-store" in late.log.read_text()
    accepted = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "server.cli", "accept-empty-store"],
        env=proc.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert accepted.returncode == 0 and "restart every" in accepted.stdout, accepted.stderr
    proc.stop()
    proc.start()  # restarted after the operator accepted the empty store
    health = json.loads(await asyncio.to_thread(_get, proc.port, "/healthz"))
    assert health["store_data_lost"] is False
    after = await open_client(proc.url, "after")
    await after.close()


async def test_a_process_whose_wallet_or_jackpots_differ_from_a_live_one_refuses_to_start(
    private_redis: RedisServer, processes: list[ServerProcess], tmp_path: Path
) -> None:
    """`[wallet]` and `[jackpots]` must be the same on every process: one with other
    starting credits or another meter contribution would hand out other money and feed
    the shared meter otherwise. It refuses to start, naming what differs."""
    namespace = fresh_namespace()
    first = ServerProcess(tmp_path, "alpha", private_redis.url, namespace)
    processes.append(first)
    first.start()
    other = ServerProcess(tmp_path, "beta", private_redis.url, namespace)
    text = other.config.read_text()
    text = text.replace(f"starting_credits = {START}", "starting_credits = 5000")
    other.config.write_text(text.replace("contribution_bp = 5000", "contribution_bp = 100"))
    processes.append(other)  # stopped at the end should it ever start
    with pytest.raises(RuntimeError):
        other.start()
    assert other.process is not None and other.process.wait(10) == 2
    said = other.log.read_text()
    assert "wallet.starting_credits" in said and "jackpots.main.contribution_bp" in said, said
    assert "5000" in said and str(START) in said
    same = ServerProcess(tmp_path, "gamma", private_redis.url, namespace)
    processes.append(same)
    same.start()  # the same settings: it joins


async def test_a_redis_flushed_under_a_live_connection_is_found_out(
    private_redis: RedisServer,
) -> None:
    """FLUSHALL on the wrong server breaks no connection, so no reconnect looks at the
    mark: the lobby's heartbeat reads it too, and a process finds the loss within
    seconds instead of writing on into the emptied store."""
    store = await RedisStore.connect(private_redis.url, namespace=fresh_namespace(), timeout=2)
    server = StudServer(make_config(), store=store, fleet=Fleet(store, "solo", "", ttl=1.5))
    await server.start()
    try:
        assert not server.store_data_lost
        assert private_redis.command("FLUSHALL") == "+OK"
        for _ in range(300):
            if server.store_data_lost:
                break
            await asyncio.sleep(0.05)
        assert server.store_data_lost
    finally:
        await server.stop(grace=0)
