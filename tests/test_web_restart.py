"""The browser client when its server, the only one, is shut down in order (SIGTERM:
the round in play finishes, the tables are given up) and started again on the same
Redis: the page says once what became of the player's seats and round, as it does
after a crash (tests/test_web_failover.py); it said only "The table is open: take a
seat." Started again without its data (the memory store), the server knows the player
no more: the page claims no void nor refund of a round the new player's history
cannot hold (it said "was voided ... refunded" of a round that was settled).

Needs Debian's Chromium and the page's npm dependency, like tests/test_web.py, and
redis-server on the PATH (or REDIS_URL).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace

from playwright.async_api import Browser, Page, expect

from server.app import StudServer
from server.config import Config
from server.stores.redis import RedisStore
from tests.conftest import make_config
from tests.redis_fixture import drop_namespace, free_port, fresh_namespace, redis_url
from tests.test_web import (
    ARTIFACTS,
    browser,
    build_ante,
    expect_phase,
    needs_chromium,
    open_page,
    resize,
)
from tests.test_web_fleet import enter_name
from tests.test_web_layout import PHONE

__all__ = ["browser", "redis_url"]  # fixtures used below

pytestmark = needs_chromium

START = 100_000
BACK_MS = 60_000  # the page's reconnect backoff, on two CPUs shared with the browser


def config_at(port: int) -> Config:
    config = make_config(
        tables=[{"id": "shared", "title": "Nine Seats", "variant": "casino-stud", "seats": 9}],
        timers={"betting": 60, "decision": 60, "results": 0.5},
        wallet={"starting_credits": START, "starting_bonus": 0},
    )
    return replace(config, port=port, public_url=f"ws://127.0.0.1:{port}/ws")


def server_at(redis: str, namespace: str, port: int) -> Callable[[], Awaitable[StudServer]]:
    """Starts the one server of the casino at `port`, on `redis` (again and again)."""

    async def start() -> StudServer:
        server = StudServer(config_at(port), await RedisStore.connect(redis, namespace=namespace))
        await server.start()
        return server

    return start


async def play_until_shut_down(page: Page, server: StudServer) -> None:
    """Ann sits, deals, and raises as the server shuts down in order; it plays the round
    out (the page shows its showdown) and gives its tables up."""
    await enter_name(page, "Ann")
    await page.get_by_test_id("play-shared").click()
    await expect(page.get_by_test_id("seat-0-name")).to_contain_text("Ann")
    await build_ante(page, 0, [(500, "left")])
    await page.get_by_test_id("deal").click()
    await expect(page.get_by_test_id("raise-0")).to_be_visible()
    # SIGTERM's stop: no new round; the round in play finishes, then the tables go
    stopping = asyncio.ensure_future(server.stop(grace=30))
    await expect(page.get_by_test_id("table-paused")).to_contain_text("shutting down")
    await page.get_by_test_id("raise-0").click()
    await expect_phase([page], "showdown")
    await asyncio.wait_for(stopping, 30)
    await expect(page.get_by_test_id("table-paused")).to_contain_text("This server shut down")


async def test_a_server_shut_down_and_started_again_says_what_became_of_the_seats(
    redis_url: str, browser: Browser
) -> None:
    namespace = fresh_namespace()
    start = server_at(redis_url, namespace, free_port())
    server = await start()
    again: StudServer | None = None
    try:
        problems: list[str] = []
        page = await open_page(browser, f"http://127.0.0.1:{server.port}/", problems)
        await play_until_shut_down(page, server)
        again = await start()

        told = page.locator('.toast[data-code="table-moved"]')
        await expect(told).to_be_visible(timeout=BACK_MS)
        await expect(told).to_contain_text(
            "“Nine Seats” is back: its server shut down and was started again."
        )
        await expect(told).to_contain_text("Your round in play finished before it shut down")
        await expect(told).to_contain_text(
            "It gave its tables up as it shut down, so your seat #1 was let go: take a seat"
        )
        await expect(told).not_to_contain_text("voided")
        await expect(page.get_by_test_id("table-view")).to_have_attribute("data-role", "spectator")
        ARTIFACTS.mkdir(exist_ok=True)
        for name, size in (
            ("1280", {"width": 1280, "height": 800}),
            ("768", {"width": 768, "height": 1024}),
            ("390", PHONE),
        ):
            await resize(page, size)  # type: ignore[arg-type]
            await expect(told).to_be_in_viewport()
            await page.screenshot(path=str(ARTIFACTS / f"restart-after-shutdown-{name}.png"))
        assert [p for p in problems if "ERR_CONNECTION" not in p] == []
    finally:
        for s in (server, again):
            if s is not None:
                await s.stop(grace=0)
        await drop_namespace(redis_url, namespace)


async def test_a_server_started_again_without_its_data_claims_no_void(browser: Browser) -> None:
    port = free_port()
    server = StudServer(config_at(port))  # the memory store: gone with the process
    await server.start()
    again: StudServer | None = None
    try:
        problems: list[str] = []
        page = await open_page(browser, f"http://127.0.0.1:{port}/", problems)
        await play_until_shut_down(page, server)
        again = StudServer(config_at(port))
        await again.start()

        await expect(page.locator('.toast[data-code="session-ended"]')).to_contain_text(
            "New player"
        )
        told = page.locator('.toast[data-code="table-moved"]')
        await expect(told).to_be_visible(timeout=BACK_MS)
        await expect(told).to_contain_text("Your round in play was played out before it shut down")
        await expect(told).to_contain_text("it is not in your History")
        await expect(told).to_contain_text("your seat #1 was let go")
        await expect(told).not_to_contain_text("voided")
        await expect(told).not_to_contain_text("refunded")
        ARTIFACTS.mkdir(exist_ok=True)
        await page.screenshot(path=str(ARTIFACTS / "restart-without-data-1280.png"))
        assert [p for p in problems if "ERR_CONNECTION" not in p] == []
    finally:
        for s in (server, again):
            if s is not None:
                await s.stop(grace=0)


#: The table's clocks (seconds) beside the shutdown strip's deadline: `since_ms` plus the
#: grace its words give ("a round not over within 30 s is voided"), in seconds from now.
CLOCKS = """() => {
  const snap = window.stud.state.tables[window.stud.state.current];
  const strip = document.querySelector('[data-testid="table-paused"]').textContent;
  const grace = Number(strip.match(/within (\\d+) s\\b/)[1]);
  const read = (id) => parseInt(document.querySelector(`[data-testid="${id}"]`).textContent, 10);
  return {grace, left: (snap.paused.since_ms + grace * 1000 - Date.now()) / 1000,
          head: read("countdown"), dealer: read("dealer-countdown"), strip};
}"""


async def test_a_shutdown_s_clock_and_strip_agree_on_the_deadline(browser: Browser) -> None:
    """Shut down in order while the player decides, a round's decision clock (60 s) ran
    past the shutdown's grace (30 s): the strip said "a round not over within 30 s is
    voided" while the table's clock read "Fold or raise 43s". The clock counts to the
    first of the two deadlines: here the shutdown's, as the strip says."""
    port = free_port()
    server = StudServer(config_at(port))
    await server.start()
    try:
        problems: list[str] = []
        page = await open_page(browser, f"http://127.0.0.1:{port}/", problems)
        await enter_name(page, "Ann")
        await page.get_by_test_id("play-shared").click()
        await build_ante(page, 0, [(500, "left")])
        await page.get_by_test_id("deal").click()
        await expect(page.get_by_test_id("raise-0")).to_be_visible()
        stopping = asyncio.ensure_future(server.stop(grace=30))  # SIGTERM's stop
        await expect(page.get_by_test_id("table-paused")).to_contain_text("within 30 s")
        got = await page.evaluate(CLOCKS)
        assert got["grace"] == 30, got
        for clock in ("head", "dealer"):  # whole seconds: the clock shows them rounded up
            assert got["left"] - 1 <= got[clock] <= got["left"] + 2, (clock, got)
        ARTIFACTS.mkdir(exist_ok=True)
        await page.screenshot(path=str(ARTIFACTS / "shutdown-clock-1280.png"))
        await page.get_by_test_id("raise-0").click()  # the round finishes; the server goes
        await expect_phase([page], "showdown")
        await asyncio.wait_for(stopping, 30)
        assert [p for p in problems if "ERR_CONNECTION" not in p] == []
    finally:
        await server.stop(grace=0)
