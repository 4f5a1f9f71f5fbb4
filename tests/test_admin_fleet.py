"""The operator console over a fleet on one Redis: a table's act reaches the process
that hosts it, exactly once, and a paused table stays paused when another process
takes it over."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any

import pytest

from clients.connection import ServerError, StudClient
from server.app import StudServer
from server.fleet import Fleet
from server.stores.redis import RedisStore
from tests.conftest import make_config
from tests.console import Operator, new_id, with_console
from tests.decks import shuffles
from tests.redis_fixture import drop_namespace, fresh_namespace, redis_url, time_limit

__all__ = ["redis_url", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")

START = 100_000
SEED = 100_000
DEALER_AK = ["Ad", "Kc", "9h", "4s", "2d"]
PAIR = ["Kh", "Ks", "7d", "5c", "2h"]
TTL = 1.5

Factory = Callable[..., Awaitable[StudServer]]


@pytest.fixture
async def fleet(redis_url: str) -> AsyncIterator[Factory]:
    """Servers on one Redis namespace, each a process of its own id."""
    namespace = fresh_namespace()
    servers: list[StudServer] = []

    async def start(
        name: str, table: str, console: bool = False, poll: float = 0.2, **kw: Any
    ) -> StudServer:
        config = make_config(
            tables=[{"id": table, "variant": "casino-stud", "seats": 3}],
            jackpots={"main": {"seed": SEED, "contribution_bp": 5000}},
            wallet={"starting_credits": START, "starting_bonus": 0},
        )
        config = replace(config, fleet_ttl=TTL, public_url=f"ws://{name}.example/ws")
        if console:
            config = with_console(config)
        else:
            config = replace(config, admin=replace(config.admin, poll_interval=poll))
        store = await RedisStore.connect(redis_url, namespace=namespace)
        process = Fleet(store, name, config.public_url, ttl=TTL)
        server = StudServer(config, store=store, fleet=process, **kw)
        await server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        await server.stop(grace=0)
    await drop_namespace(redis_url, namespace)


async def player(server: StudServer, name: str) -> StudClient:
    client = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    await client.hello(name=name)
    return client


async def until(check: Callable[[], Awaitable[Any]], what: str) -> Any:
    for _ in range(300):
        value = await check()
        if value:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError(f"never: {what}")


async def test_acts_reach_the_host_of_a_table_and_apply_once(fleet: Factory) -> None:
    east = await fleet("east", "east", console=True)
    west = await fleet("west", "west", shuffle=shuffles([PAIR, DEALER_AK]))
    op = await Operator.sign_in(east)

    async def west_row() -> dict[str, Any] | None:
        tables = {t["id"]: t for t in (await op.get("/api/tables"))["tables"]}
        row = tables.get("west")
        return row if row and row["process_id"] == "west" and row["updated_ms"] else None

    row = await until(west_row, "the console shows west's table with its host")
    assert not row["here"] and row["url"] == "ws://west.example/ws"
    ann = await player(west, "ann")
    try:
        await ann.request("sit", table="west")
        reply = await ann.request("ante", table="west", seat=0, amount=500, progressive=True)
        seated = await until(
            lambda: west_row_with(op, lambda r: bool(r["players"])), "ann seen at west"
        )
        assert seated["players"][0]["player_id"] == ann.player_id
        # pause: carried out by west, whose player sees it
        body = {"action_id": new_id(), "reason": "audit"}
        paused = await op.post("/api/tables/west/pause", body)
        assert paused["state"] == "done"
        assert paused["row"]["details"]["result"]["process_id"] == "west"
        again = await op.post("/api/tables/west/pause", body)
        assert again["replayed"] and again["row"] == paused["row"]
        await ann.wait_table("west", lambda s: s["paused"] is not None)
        # void the running round: every bet back, once
        void = await op.act("/api/tables/west/void", "a misdeal", round_id=reply["round_id"])
        assert void["outcome"] == "applied"
        await ann.wait_for(lambda c: c.balance.get("balance") == START and not c.balance["held"])
        totals = await east.store.totals()
        assert sum(totals.values()) == 0 and totals["meter:main"] == SEED
        with pytest.raises(ServerError) as refused:
            await ann.request("ante", table="west", seat=0, amount=100)
        assert refused.value.code == "table_paused"
        # a suspension asked on east frees the seat on west
        await op.act(f"/api/players/{ann.player_id}/suspend", "a test")
        await ann.wait_table("west", lambda s: s["seats"][0] is None)
        with pytest.raises(ServerError) as barred:
            await ann.request("sit", table="west")
        assert barred.value.code == "account_suspended"
        rows = (await op.get("/api/audit"))["rows"]
        assert [r["action"] for r in rows] == ["suspend", "void", "pause"]
    finally:
        await ann.close()


async def test_a_suspension_holds_on_every_process_once_the_console_has_answered(
    fleet: Factory,
) -> None:
    """The console answered `applied` while another process let the player ante and buy
    chips until its next look for acts (a second, by default): the news now carries the
    suspension, sent before the answer. West looks for acts once a minute here."""
    east = await fleet("east", "east", console=True)
    west = await fleet("west", "west", poll=60.0)
    op = await Operator.sign_in(east)
    bob = await player(west, "bob")
    try:
        await bob.request("sit", table="west")
        suspend = {"action_id": new_id(), "reason": "a chargeback"}
        await op.post(f"/api/players/{bob.player_id}/suspend", suspend)
        for t, fields in (
            ("ante", {"table": "west", "seat": 0, "amount": 500}),
            ("buy_chips", {"amount": 1000}),
            ("sit", {"table": "west"}),
        ):
            with pytest.raises(ServerError) as barred:
                await bob.request(t, **fields)
            assert barred.value.code == "account_suspended", t
            assert barred.value.frame["reason"] == "a chargeback"
        await op.act(f"/api/players/{bob.player_id}/unsuspend", "cleared")

        # a lifted suspension is followed when west reads the news (a suspension is
        # what must hold by the answer): on a loaded machine that is after the answer
        async def lifted() -> bool:
            return west.admin.barred(bob.player_id) is None

        await until(lifted, "west lifts the suspension")
        assert (await bob.request("buy_chips", amount=1000))["t"] == "ok"
        assert bob.balance["balance"] == START + 1000
        # the suspension asked again is a repeat: it applies nothing, and west is told
        # what holds now (the old news would put the lifted suspension back)
        assert east.fleet is not None
        told: list[Any] = []

        async def tell(*news: Any) -> None:
            told.append(news)

        east.fleet.announce_acts = tell  # type: ignore[method-assign,assignment]
        again = await op.post(f"/api/players/{bob.player_id}/suspend", suspend)
        assert again["replayed"] is True and told == [(bob.player_id, None)]
        assert (await bob.request("buy_chips", amount=1000))["t"] == "ok"
    finally:
        await bob.close()


async def test_a_suspension_missed_while_the_channel_was_down_holds_once_it_is_back(
    fleet: Factory,
) -> None:
    """An outside check suspended a player right after a Redis restart and saw their next
    ante on another process taken: that process's channel was not back yet, and it read
    the act only at its next poll. Once back, it reads the acts at once. West looks for
    acts once a minute here."""
    east = await fleet("east", "east", console=True)
    west = await fleet("west", "west", poll=60.0)
    op = await Operator.sign_in(east)
    bob = await player(west, "bob")
    try:
        await bob.request("sit", table="west")
        assert west.fleet is not None
        heard, west.fleet.on_acts = west.fleet.on_acts, None  # the news goes unheard
        await op.act(f"/api/players/{bob.player_id}/suspend", "a chargeback")
        west.fleet.on_acts = heard
        west.news_lost()  # the channel is back
        await until(lambda: _barred(west, bob.player_id), "the suspension read")
        with pytest.raises(ServerError) as barred:
            await bob.request("ante", table="west", seat=0, amount=500)
        assert barred.value.code == "account_suspended"
    finally:
        await bob.close()


async def test_a_suspension_holds_in_the_store_on_a_process_that_has_not_heard_of_it(
    fleet: Factory,
) -> None:
    """West has not heard of the suspension yet (no news, a look for acts once a minute)
    when the player's next ante and chip purchase reach it after the console answered:
    the store refuses them, with the operator's reason, and nothing moved or shows. The
    hand dealt before the suspension still plays out."""
    east = await fleet("east", "east", console=True)
    west = await fleet("west", "west", poll=60.0)
    assert west.fleet is not None
    west.fleet.on_acts = None  # the news goes unheard
    op = await Operator.sign_in(east)
    bob = await player(west, "bob")
    try:
        await bob.request("sit", table="west")
        await bob.request("ante", table="west", seat=0, amount=500, progressive=True)
        await bob.request("deal", table="west")
        await bob.wait_table("west", lambda s: s["phase"] == "deciding")
        suspend = {"action_id": new_id(), "reason": "a chargeback"}
        await op.post(f"/api/players/{bob.player_id}/suspend", suspend)
        assert west.admin.barred(bob.player_id) is None  # west's own check lets it by
        await bob.request("raise", table="west", seat=0)
        await bob.wait_table("west", lambda s: s["phase"] == "waiting")
        wallet = await west.store.wallet(bob.player_id)
        for t, fields in (
            ("ante", {"table": "west", "seat": 0, "amount": 500, "progressive": True}),
            ("ante", {"table": "west", "seat": 0, "amount": 500}),
            ("buy_chips", {"amount": 1000}),
        ):
            with pytest.raises(ServerError) as barred:
                await bob.request(t, **fields)
            assert barred.value.code == "account_suspended", t
            assert barred.value.frame["reason"] == "a chargeback"
        assert await west.store.wallet(bob.player_id) == wallet
        assert sum((await east.store.totals()).values()) == 0
        snap = await bob.wait_table("west", lambda s: s["phase"] == "waiting")
        assert snap["seats"][0]["ante"] in (0, None), snap["seats"][0]
        assert west.rooms["west"].table.seats_of(bob.player_id)  # seated, nothing held
        detail = await op.get(f"/api/players/{bob.player_id}")
        assert detail["holds"] == [], detail
    finally:
        await bob.close()


async def _barred(server: StudServer, player_id: str) -> bool:
    return server.admin.barred(player_id) is not None


async def test_a_console_s_first_look_shows_the_fleet_as_it_is(fleet: Factory) -> None:
    """The other processes publish their tables' details only while a console looks: the
    first look after none did read west's table as hosted by nobody and the fleet as one
    process, until the next poll. West looks for acts once a minute here."""
    east = await fleet("east", "east", console=True)
    await fleet("west", "west", poll=60.0)
    process = east.fleet
    assert process is not None
    await until(_true_async(lambda: "west" in process.others()), "east hears of west")
    op = await Operator.sign_in(east)
    tables = {t["id"]: t for t in (await op.get("/api/tables"))["tables"]}
    assert tables["west"]["process_id"] == "west" and tables["west"]["updated_ms"]
    assert tables["west"]["url"] == "ws://west.example/ws"
    assert (await op.get("/api/overview"))["processes"] == 2


async def test_a_host_that_cannot_publish_is_still_named_as_the_table_s_host(
    fleet: Factory,
) -> None:
    """West is alive (its lobby row beats) but answers no news (as one stopped for a
    moment): the first look showed its table as hosted by nobody. It names west now,
    from the fleet's lobby, with nothing published (`updated_ms` null)."""
    east = await fleet("east", "east", console=True)
    west = await fleet("west", "west", poll=60.0)
    process, deaf = east.fleet, west.fleet
    assert process is not None and deaf is not None
    deaf.on_acts = None  # hears no news: publishes nothing while the console looks
    await until(_true_async(lambda: process.host_of("west") == "west"), "east lists west")
    op = await Operator.sign_in(east)
    tables = {t["id"]: t for t in (await op.get("/api/tables"))["tables"]}
    row = tables["west"]
    assert row["process_id"] == "west" and row["updated_ms"] is None, row
    assert row["phase"] == "waiting" and row["url"] == "ws://west.example/ws"


def _true_async(check: Callable[[], bool]) -> Callable[[], Awaitable[bool]]:
    async def run() -> bool:
        return check()

    return run


async def west_row_with(op: Operator, check: Callable[[dict[str, Any]], bool]) -> Any:
    tables = {t["id"]: t for t in (await op.get("/api/tables"))["tables"]}
    row = tables.get("west")
    return row if row is not None and check(row) else None


async def test_a_paused_table_stays_paused_when_another_process_takes_it(fleet: Factory) -> None:
    east = await fleet("east", "east", console=True)
    west = await fleet("west", "west")
    spare = await fleet("spare", "west")  # stands by for west's table
    assert not spare.rooms["west"].active
    op = await Operator.sign_in(east)
    await until(lambda: west_row_with(op, lambda r: r["process_id"] == "west"), "west's host")
    await op.act("/api/tables/west/pause", "until further notice")
    await until(lambda: _true(spare.rooms["west"].paused is not None), "the spare follows it")
    await west.stop()  # gives the table up: the spare takes it at its next heartbeat
    await until(lambda: _true(spare.rooms["west"].active), "the spare hosts west")
    bob = await player(spare, "bob")
    try:
        await bob.request("sit", table="west")
        with pytest.raises(ServerError) as refused:
            await bob.request("ante", table="west", seat=0, amount=100)
        assert refused.value.code == "table_paused"
        resumed = await op.act("/api/tables/west/resume", "over")
        assert resumed["details"]["result"]["process_id"] == "spare"
        await bob.wait_table("west", lambda s: s["paused"] is None)
        await bob.request("ante", table="west", seat=0, amount=100)
    finally:
        await bob.close()


async def _true(value: bool) -> bool:
    return value


async def test_a_table_no_process_hosts_is_listed_unhosted(fleet: Factory) -> None:
    """ADMIN_API.md: every table of the fleet is listed; one that no process hosts now
    has no process and the phase `unhosted` (it used to drop out of the list), once
    what its host last published is older than the lease's TTL (not 30 s as before)."""
    east = await fleet("east", "east", console=True)
    west = await fleet("west", "west")
    op = await Operator.sign_in(east)
    await until(lambda: west_row_with(op, lambda r: r["process_id"] == "west"), "west's host")
    await west.stop()  # its lobby row goes; nobody else is configured with the table
    row = await until(lambda: west_row_with(op, lambda r: r["phase"] == "unhosted"), "unhosted")
    assert row["process_id"] is None and row["url"] is None and row["here"] is False
    listed = (await op.get("/api/tables"))["tables"]
    assert (await op.get("/api/overview"))["tables"] == len(listed)  # the unhosted one too


async def test_a_credit_asked_on_one_process_reaches_the_player_on_another(
    fleet: Factory,
) -> None:
    """A credit or debit through east's console moves the wallet in the store; ann is
    connected to west only, and west tells her at once (she used to see the old
    balance until her next bet)."""
    east = await fleet("east", "east", console=True)
    west = await fleet("west", "west")
    op = await Operator.sign_in(east)
    ann = await player(west, "ann")
    try:
        assert not east.sessions.is_connected(ann.player_id)
        await op.act(f"/api/players/{ann.player_id}/credit", "goodwill", amount=2_500)
        await ann.wait_for(lambda c: c.balance.get("balance") == START + 2_500)
        await op.act(f"/api/players/{ann.player_id}/debit", "correction", amount=500)
        await ann.wait_for(lambda c: c.balance.get("balance") == START + 2_000)
    finally:
        await ann.close()
