"""The terminal client with two server processes on one Redis: its server gone, it
goes on at the other (the same player, by the token) and shows the table as the
new host has it, never the round that died with the old one; a table hosted by the
other process opens there. Needs redis-server on the PATH."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest

from clients.tui import LobbyScreen, PlayScreen, StudApp
from server.app import StudServer
from server.fleet import Fleet
from server.stores.redis import RedisStore
from tests.conftest import make_config
from tests.redis_fixture import RedisServer, free_port, private_redis, time_limit
from tests.test_tui import shown, until

__all__ = ["private_redis", "time_limit"]  # fixtures used below

pytestmark = pytest.mark.usefixtures("time_limit")

START = 100_000
FAST = (0.05, 0.2)  # the link's backoff: retries come quick in a test
LONG = {"betting": 30, "decision": 30, "results": 30}


def ws(server: StudServer) -> str:
    return f"ws://127.0.0.1:{server.port}/ws"


@pytest.fixture
async def pair(private_redis: RedisServer) -> AsyncIterator[tuple[StudServer, StudServer]]:
    """Process "first" hosts table east; "second" hosts west and stands by for east."""
    servers: list[StudServer] = []
    try:
        for name, tables in (("first", ["east"]), ("second", ["west", "east"])):
            port = free_port()
            public = f"ws://127.0.0.1:{port}/ws"
            config = make_config(
                tables=[{"id": t, "variant": "casino-stud", "seats": 3} for t in tables],
                wallet={"starting_credits": START, "starting_bonus": 0},
                timers=LONG,
            )
            config = replace(config, port=port, public_url=public, fleet_ttl=1.5)
            store = await RedisStore.connect(private_redis.url, namespace="tui-fleet")
            fleet = Fleet(store, f"proc-{name}", public, ttl=1.5)
            server = StudServer(config, store=store, fleet=fleet)
            await server.start()
            servers.append(server)
        yield servers[0], servers[1]
    finally:
        for server in servers:
            await server.stop(grace=0)


async def test_its_server_gone_the_terminal_goes_on_at_the_other_with_the_truth(
    pair: tuple[StudServer, StudServer],
) -> None:
    """A dealt round dies with its host: the terminal says it is offline while it is
    (the table as last seen, no clock), reaches the other process, which took the table
    over, and shows the table as it is there: no seat, the bet refunded."""
    first, second = pair
    assert first.rooms["east"].active
    app = StudApp(ws(first), "ann", table="east", backoff=FAST)
    async with app.run_test(size=(120, 40)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await until(p, lambda: len(app.link.fleet) == 2, "both processes in the lobby")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat")
        await p.press("3", "d")
        await until(p, lambda: (app.snapshot or {}).get("phase") == "deciding", "the deal")
        assert app.balance["held"] > 0
        await first.stop(grace=0)  # its rounds voided, every bet refunded
        await until(p, lambda: "OFFLINE" in shown(app, "#info"), "offline said")
        assert "Not connected" in shown(app, "#message")
        assert "left" not in shown(app, "#info")  # no clock runs on a table not heard
        await until(p, lambda: app.link.url == ws(second) and app.link.connected, "the other")
        await until(p, lambda: second.rooms["east"].active, "the takeover")
        await until(
            p,
            lambda: app.own_seats() == [] and (app.snapshot or {}).get("phase") == "waiting",
            "the table as its new host has it",
        )
        await until(p, lambda: app.balance.get("held") == 0, "the refund pushed")
        assert app.balance["balance"] == START
        assert "OFFLINE" not in shown(app, "#info") and "Not connected" not in shown(
            app, "#message"
        )


async def test_a_table_of_the_other_process_opens_there(
    pair: tuple[StudServer, StudServer],
) -> None:
    first, second = pair
    app = StudApp(ws(first), "ann", backoff=FAST)
    async with app.run_test(size=(120, 40)) as p:
        await until(p, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await until(p, lambda: len(app.link.fleet) == 2, "both processes in the lobby")
        player = app.player_id
        app.open_table("west")  # as Enter on its row does
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        assert app.link.url == ws(second) and app.table_id == "west"
        assert app.player_id == player  # the same player, by the token
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "a seat there")


async def test_a_table_its_host_left_opens_again_once_this_process_takes_it_over(
    pair: tuple[StudServer, StudServer],
) -> None:
    """The terminal reached the standby before it had taken the table over: back in the
    lobby, told what became of the seats (not sent to the host that just failed, which
    the lobby still named); the table opens by itself once the standby hosts it."""
    first, second = pair
    gate = asyncio.Event()
    claim = second.hosting.leases.claim_many

    async def held_back(*args: Any, **kwargs: Any) -> Any:
        await gate.wait()
        return await claim(*args, **kwargs)

    app = StudApp(ws(first), "ann", table="east", backoff=FAST)
    async with app.run_test(size=(120, 40)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        await until(p, lambda: len(app.link.fleet) == 2, "both processes in the lobby")
        await p.press("s")
        await until(p, lambda: app.own_seats() == [0], "the seat")
        second.hosting.leases.claim_many = held_back  # type: ignore[method-assign]
        gone = ws(first)
        await first.stop(grace=0)
        await until(p, lambda: app.link.url == ws(second) and app.link.connected, "the other")
        await until(p, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        message = shown(app, "#message")
        assert "opens again by itself" in message and gone not in message
        del second.hosting.leases.claim_many
        gate.set()  # the standby takes the table over now
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table again")
        assert app.table_id == "east" and app.own_seats() == []


async def test_a_table_moved_away_is_followed_to_its_new_host(
    pair: tuple[StudServer, StudServer],
) -> None:
    """Its host, cut off past its lease (its renewals held back here), lost the table to
    the other process and told its viewers `table_moved`: the terminal goes along and
    opens the table there, where it used to wait in the lobby."""
    first, second = pair
    gate = asyncio.Event()
    renew = first.hosting.leases.claim_many

    async def held_back(*args: Any, **kwargs: Any) -> Any:
        await gate.wait()
        return await renew(*args, **kwargs)

    app = StudApp(ws(first), "ann", table="east", backoff=FAST)
    async with app.run_test(size=(120, 40)) as p:
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        first.hosting.leases.claim_many = held_back  # type: ignore[method-assign]
        await until(p, lambda: second.rooms["east"].active, "the takeover")
        del first.hosting.leases.claim_many
        gate.set()  # the first learns it lost the table: table_moved
        await until(p, lambda: app.link.url == ws(second), "the new host")
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table there")
        assert app.table_id == "east" and app.link.connected


async def test_a_table_not_where_it_was_looked_for_is_waited_for_and_followed(
    pair: tuple[StudServer, StudServer],
) -> None:
    """Sent to a process by a lobby row that was out of date, the join is refused
    there: the terminal said where the lobby had it (a host just killed) and gave up.
    It waits for the lobby to list the table again, and goes there."""
    first, second = pair
    app = StudApp(ws(first), "ann", backoff=FAST)
    async with app.run_test(size=(120, 40)) as p:
        await until(p, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await until(p, lambda: len(app.link.fleet) == 2, "both processes in the lobby")
        app.open_table("west", follow=False)  # as the join after a follow does
        await until(p, lambda: isinstance(app.screen, PlayScreen), "the table")
        assert app.link.url == ws(second) and app.table_id == "west"
