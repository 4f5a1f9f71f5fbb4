"""The browser client with two server processes on one Redis: a table hosted by the
other process opens that process's page, and the player goes along (same player,
same wallet).

Needs Debian's Chromium and the page's npm dependency, like tests/test_web.py, and
redis-server on the PATH.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from server.app import StudServer
from server.fleet import Fleet
from server.stores.redis import RedisStore
from tests.conftest import make_config
from tests.redis_fixture import RedisServer, free_port, private_redis, time_limit
from tests.test_web import (
    WAIT_MS,
    browser,
    build_ante,
    dollars,
    expect_phase,
    needs_chromium,
    open_page,
    shot,
)

__all__ = ["browser", "private_redis", "time_limit"]  # fixtures used below

pytestmark = [pytest.mark.usefixtures("time_limit"), needs_chromium]

START = 100_000
BOUGHT = 25_000  # $250 bought on the first server, seen on the second


async def enter_name(page: Page, name: str) -> None:
    await page.get_by_test_id("name-input").fill(name)
    await page.get_by_test_id("enter").click()
    await expect(page.get_by_test_id("player-name")).to_have_text(name, timeout=WAIT_MS)


async def start_pair(redis_url: str, tables: list[str]) -> list[StudServer]:
    """Two servers on one Redis, both ready to host every table of `tables` (a table
    goes to the first to claim it): "east" and "west" in turn when `tables` is empty."""
    servers: list[StudServer] = []
    for name in ("east", "west"):
        port = free_port()
        public = f"ws://127.0.0.1:{port}/ws"
        config = make_config(
            tables=[{"id": t, "variant": "casino-stud", "seats": 3} for t in tables or [name]],
            wallet={"starting_credits": START, "starting_bonus": 0},
        )
        config = replace(config, port=port, public_url=public, fleet_ttl=1.5)
        store = await RedisStore.connect(redis_url, namespace="web-fleet")
        fleet = Fleet(store, f"proc-{name}", public, ttl=1.5)
        kwargs: dict[str, Any] = {"store": store, "fleet": fleet}
        server = StudServer(config, **kwargs)
        try:
            await server.start()
        except BaseException:
            for started in servers:
                await started.stop(grace=0)
            raise
        servers.append(server)
    return servers


@pytest.fixture
async def web_pair(private_redis: RedisServer) -> AsyncIterator[tuple[StudServer, StudServer]]:
    """Two servers on one private Redis, hosting table "east" and table "west"."""
    servers = await start_pair(private_redis.url, [])
    try:
        yield servers[0], servers[1]
    finally:
        for server in servers:
            await server.stop(grace=0)


async def test_open_a_table_of_the_other_server_as_the_same_player(
    web_pair: tuple[StudServer, StudServer], browser: Browser
) -> None:
    east, west = web_pair
    problems: list[str] = []
    page = await open_page(browser, f"http://127.0.0.1:{east.port}/", problems)
    await enter_name(page, "rover")
    # the lobby lists both tables: this server's with Play, the other's with Open
    await expect(page.get_by_test_id("play-east")).to_be_visible()
    remote = page.get_by_test_id("remote-west")
    await expect(remote).to_be_visible(timeout=WAIT_MS)
    await expect(remote).to_have_attribute("data-href", f"http://127.0.0.1:{west.port}/?table=west")
    await expect(page.get_by_test_id("play-west")).to_have_count(0)
    await page.get_by_test_id("buy-amount").fill(str(BOUGHT // 100))
    await page.get_by_test_id("buy-chips").click()
    await expect(page.get_by_test_id("balance")).to_have_attribute(
        "data-cents", str(START + BOUGHT)
    )
    player_id = await page.evaluate("window.stud.state.me.player_id")
    assert isinstance(player_id, str) and player_id

    await remote.click()
    await page.wait_for_url(f"http://127.0.0.1:{west.port}/", timeout=WAIT_MS)
    view = page.get_by_test_id("table-view")
    await expect(view).to_have_attribute("data-table", "west")
    await expect(page.get_by_test_id("table-title")).to_be_visible()
    await expect(page.get_by_test_id("balance")).to_have_attribute(
        "data-cents", str(START + BOUGHT)
    )
    await expect(page.get_by_test_id("balance")).to_have_text(dollars(START + BOUGHT))
    await expect(page.get_by_test_id("player-name")).to_have_text("rover")
    assert await page.evaluate("window.stud.state.me.player_id") == player_id
    # the parameter and the token fragment are gone from the address bar
    assert page.url == f"http://127.0.0.1:{west.port}/"
    assert await page.evaluate("location.hash") == ""
    # back in this server's lobby, the first server's table is the remote one now
    await page.get_by_test_id("leave").click()
    await expect(page.get_by_test_id("remote-east")).to_be_visible()
    await expect(page.get_by_test_id("play-west")).to_be_visible()
    # asked for a table it does not host, a server's page offers the one that does
    await page.goto(f"http://127.0.0.1:{east.port}/?table=west")
    toast = page.get_by_test_id("error").filter(has=page.get_by_test_id("error-open"))
    await expect(toast).to_have_attribute("data-code", "unknown_table")
    # it says which table, and where (it used to end at "another server:", naming nothing)
    await expect(toast.get_by_test_id("error-message")).to_have_text(
        f"Table “west” is hosted by another server of the casino (127.0.0.1:{west.port}):"
    )
    await toast.get_by_test_id("error-open").click()
    await page.wait_for_url(f"http://127.0.0.1:{west.port}/", timeout=WAIT_MS)
    await expect(page.get_by_test_id("table-view")).to_have_attribute("data-table", "west")
    assert await page.evaluate("window.stud.state.me.player_id") == player_id
    assert problems == []


async def test_a_table_that_moves_to_the_other_server_is_followed_there(
    private_redis: RedisServer, browser: Browser
) -> None:
    """The page's server stood still past its lease (its renewals held back here) and
    the other took the table over: the page goes on through the other server, at the
    table as it is hosted there, and says once that its seat is gone (no round was in
    play: nothing is said of a void). It used to drop to the lobby with a link."""
    first, second = await start_pair(private_redis.url, ["east"])
    try:
        assert first.rooms["east"].active and not second.rooms["east"].active
        problems: list[str] = []
        page = await open_page(browser, f"http://127.0.0.1:{first.port}/", problems)
        await enter_name(page, "rover")
        await page.get_by_test_id("play-east").click()
        await expect(page.get_by_test_id("table-view")).to_have_attribute("data-table", "east")
        await expect(page.get_by_test_id("seat-0-name")).to_contain_text("rover")
        gate = asyncio.Event()
        renew = first.hosting.leases.claim_many

        async def held_back(*args: Any, **kwargs: Any) -> Any:
            await gate.wait()
            return await renew(*args, **kwargs)

        first.hosting.leases.claim_many = held_back  # type: ignore[method-assign]
        loop = asyncio.get_running_loop()
        end = loop.time() + 20
        while not second.rooms["east"].active:  # the lease lapses, and is taken over
            assert loop.time() < end, "the other server never took the table"
            await asyncio.sleep(0.05)
        del first.hosting.leases.claim_many
        gate.set()  # the first server's renewal lands: the table is the other's now
        await page.wait_for_function(
            f"window.stud.conn.url === 'ws://127.0.0.1:{second.port}/ws'"
            " && window.stud.state.tables.east !== undefined",
            timeout=30_000,
        )
        view = page.get_by_test_id("table-view")
        await expect(view).to_have_attribute("data-table", "east")
        await expect(view).to_have_attribute("data-role", "spectator")
        told = page.locator('.toast[data-code="table-moved"]')
        await expect(told).to_contain_text("“east” moved to another server of the casino")
        await expect(told).to_contain_text("Your seat #1 there is gone")
        await expect(told).not_to_contain_text("voided")
        # the page plays on there: a seat taken again is the other server's
        await page.get_by_test_id("take-seat").click()
        await expect(page.get_by_test_id("seat-0-name")).to_contain_text("rover")
        assert any(s.player_id for s in second.rooms["east"].table.seats if s is not None)
        assert problems == []
    finally:
        for server in (first, second):
            await server.stop(grace=0)


async def test_a_table_restarted_on_a_restored_backup_says_why_the_seat_went(
    private_redis: RedisServer, browser: Browser
) -> None:
    """Redis went down and came back on a backup taken before the player's round: the
    table starts over with every seat free. The seat and the bet just vanished from the
    page; it now says why, and what became of the round."""
    first, second = await start_pair(private_redis.url, ["east"])
    try:
        problems: list[str] = []
        page = await open_page(browser, f"http://127.0.0.1:{first.port}/", problems)
        await enter_name(page, "rover")
        await page.get_by_test_id("play-east").click()
        await expect(page.get_by_test_id("seat-0-name")).to_contain_text("rover")
        assert private_redis.command("SAVE") == "+OK"  # the backup
        shutil.copy(private_redis.dir / "dump.rdb", private_redis.dir / "backup.rdb")
        await build_ante(page, 0, [(500, "left")])
        await page.get_by_test_id("deal").click()
        await expect_phase([page], "deciding")
        private_redis.stop()  # and back on the backup
        shutil.copy(private_redis.dir / "backup.rdb", private_redis.dir / "dump.rdb")
        private_redis.start()
        told = page.locator('.toast[data-code="table_restarted"]')
        await expect(told).to_contain_text(
            "The casino restored its data from a backup: what was played since is undone, "
            "and “east” starts over",
            timeout=30_000,
        )
        await expect(told).to_contain_text("Your round there was given up")
        await expect(told).to_contain_text("Your seat #1 is free again")
        view = page.get_by_test_id("table-view")
        await expect(view).to_have_attribute("data-phase", "waiting", timeout=30_000)
        await expect(page.get_by_test_id("seat-0-name")).to_have_count(0)
        await shot(page, "restarted-on-backup-1280.png")
        assert problems == []
    finally:
        for server in (first, second):
            await server.stop(grace=0)
