"""The browser client with two server processes on one Redis: a table hosted by the
other process opens that process's page, and the player goes along (same player,
same wallet).

Needs Debian's Chromium and the page's npm dependency, like tests/test_web.py, and
redis-server on the PATH.
"""

from __future__ import annotations

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
from tests.test_web import WAIT_MS, browser, dollars, needs_chromium, open_page

__all__ = ["browser", "private_redis", "time_limit"]  # fixtures used below

pytestmark = [pytest.mark.usefixtures("time_limit"), needs_chromium]

START = 100_000
BOUGHT = 25_000  # $250 bought on the first server, seen on the second


async def enter_name(page: Page, name: str) -> None:
    await page.get_by_test_id("name-input").fill(name)
    await page.get_by_test_id("enter").click()
    await expect(page.get_by_test_id("player-name")).to_have_text(name, timeout=WAIT_MS)


@pytest.fixture
async def web_pair(private_redis: RedisServer) -> AsyncIterator[tuple[StudServer, StudServer]]:
    """Two servers on one private Redis, hosting table "east" and table "west"."""
    servers: list[StudServer] = []
    try:
        for table in ("east", "west"):
            port = free_port()
            public = f"ws://127.0.0.1:{port}/ws"
            config = make_config(
                tables=[{"id": table, "variant": "casino-stud", "seats": 3}],
                wallet={"starting_credits": START, "starting_bonus": 0},
            )
            config = replace(config, port=port, public_url=public, fleet_ttl=1.5)
            store = await RedisStore.connect(private_redis.url, namespace="web-fleet")
            fleet = Fleet(store, f"proc-{table}", public, ttl=1.5)
            kwargs: dict[str, Any] = {"store": store, "fleet": fleet}
            server = StudServer(config, **kwargs)
            await server.start()
            servers.append(server)
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
    await expect(toast.get_by_test_id("error-message")).to_have_text(
        "This table is on another server:"
    )
    await toast.get_by_test_id("error-open").click()
    await page.wait_for_url(f"http://127.0.0.1:{west.port}/", timeout=WAIT_MS)
    await expect(page.get_by_test_id("table-view")).to_have_attribute("data-table", "west")
    assert await page.evaluate("window.stud.state.me.player_id") == player_id
    assert problems == []
