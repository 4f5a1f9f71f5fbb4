"""The browser client when the process hosting its table freezes, with real `stud-server
serve` processes on one real Redis: process A hosts table "shared", process B hosts
"west" and stands by for "shared". A is stopped with SIGSTOP (a frozen process: its
kernel still takes connections, nothing answers them) and stays stopped: the page
leaves it for B, which the lobby named, finds its table there once B took it over,
and says once, from what the server reports, what became of its seats and bets.

Needs Debian's Chromium and the page's npm dependency, like tests/test_web.py, and
redis-server on the PATH.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, ViewportSize, expect

from tests.redis_fixture import RedisServer, private_redis, time_limit
from tests.test_fleet import ServerProcess
from tests.test_web import (
    VIEWPORT,
    browser,
    build_ante,
    expect_phase,
    needs_chromium,
    open_page,
    resize,
    shot,
)
from tests.test_web_fleet import enter_name
from tests.test_web_layout import PHONE

__all__ = ["browser", "private_redis", "time_limit"]  # fixtures used below

pytestmark = [pytest.mark.usefixtures("time_limit"), needs_chromium]

START = 100_000
#: Generous: the page calls a silent link lost after about 10 s, and a hung connect
#: attempt after 10 s more; the processes share two CPUs with the browser.
FOLLOW_MS = 60_000

CONFIG = """
[server]
reconnect_grace = 60
shutdown_grace = 0
fleet_ttl = 2
[timers]
betting = 60
decision = 120
results = {results}
[wallet]
starting_credits = {start}
starting_bonus = 0
"""

TABLE = """
[[tables]]
id = "{id}"
variant = "casino-stud"
seats = 3
min_ante = 100
max_ante = 10000
"""


#: Keeps the text of every toast the page shows (errors and notices), in `window.toastsSeen`.
TOASTS_SEEN = """() => {
  window.toastsSeen = [];
  new MutationObserver((changes) => {
    for (const change of changes) {
      for (const node of change.addedNodes) {
        if (node.nodeType === 1 && node.matches('.toast')) window.toastsSeen.push(node.textContent);
      }
    }
  }).observe(document.body, { childList: true, subtree: true });
}"""


class Process(ServerProcess):
    """`stud-server serve` as a real OS process, hosting or standing by for `tables`."""

    def __init__(self, tmp: Path, name: str, tables: list[str], redis: str, results: int) -> None:
        text = CONFIG.format(start=START, results=results)
        text += "".join(TABLE.format(id=t) for t in tables)
        super().__init__(tmp, name, redis, "web-failover", text=text)


PairFactory = Callable[..., Awaitable[tuple[Process, Process]]]


@pytest.fixture
def make_pair(private_redis: RedisServer, tmp_path: Path) -> Iterator[PairFactory]:
    started: list[Process] = []

    async def pair(results: int = 2) -> tuple[Process, Process]:
        """A hosts "shared"; B hosts "west" and stands by for "shared"."""
        a = Process(tmp_path, "a", ["shared"], private_redis.url, results)
        started.append(a)
        await asyncio.to_thread(a.start, 1)
        b = Process(tmp_path, "b", ["west", "shared"], private_redis.url, results)
        started.append(b)
        await asyncio.to_thread(b.start, 1)
        return a, b

    yield pair
    for p in started:
        p.stop()


async def seated(browser: Browser, a: Process, problems: list[str]) -> Page:
    """Ann at "shared" on A's page, the lobby having named B (it hosts "west")."""
    page = await open_page(browser, f"http://127.0.0.1:{a.port}/", problems)
    await page.evaluate(TOASTS_SEEN)
    await enter_name(page, "Ann")
    await expect(page.get_by_test_id("remote-west")).to_be_visible()
    await page.get_by_test_id("play-shared").click()
    await expect(page.get_by_test_id("seat-0-name")).to_contain_text("Ann")
    return page


async def followed_to(page: Page, b: Process) -> None:
    """The page plays through B now, at its table as B hosts it."""
    await page.wait_for_function(
        f"window.stud.conn.url === {b.url!r} && window.stud.state.tables.shared"
        " && window.stud.state.status.state === 'open'",
        timeout=FOLLOW_MS,
    )
    await expect(page.get_by_test_id("table-view")).to_have_attribute("data-table", "shared")
    await expect(page.get_by_test_id("conn-status")).to_have_text("Connected")


async def test_a_frozen_host_is_left_for_the_one_that_took_the_table_over(
    make_pair: PairFactory, browser: Browser
) -> None:
    """Mid-decision, A freezes and stays frozen: the page goes on through B, shows the
    table as B has it, and says once that the round was voided and every bet refunded
    (B voided it: the wallet is whole again) and that the seats are gone. It used to
    retry A alone for as long as A was frozen."""
    a, b = await make_pair()
    problems: list[str] = []
    page = await seated(browser, a, problems)
    await build_ante(page, 0, [(500, "left")])
    await page.get_by_test_id("deal").click()
    await expect(page.get_by_test_id("fold-0")).to_be_visible()  # dealt, decision due
    await expect(page.get_by_test_id("balance")).not_to_have_attribute("data-cents", str(START))
    await expect(page.get_by_test_id("countdown")).to_have_text(re.compile(r"^\d+s$"))
    await asyncio.to_thread(a.freeze)
    # A's clock stopped with it, and nothing may happen at zero: once the page has heard
    # nothing for as long as it waits before a ping, it counts no seconds down
    for clock in ("countdown", "dealer-countdown"):
        await expect(page.get_by_test_id(clock)).to_have_text("waiting for the server…")
    await expect(page.get_by_test_id("table-message")).to_contain_text("Waiting for the server")
    laptop: ViewportSize = {"width": 1280, "height": 800}
    for name, size in (("1280", laptop), ("phone", PHONE)):
        await resize(page, size)
        await shot(page, f"failover-frozen-{name}.png")
    await resize(page, VIEWPORT)
    await followed_to(page, b)
    told = page.locator('.toast[data-code="table-moved"]')
    await expect(told).to_contain_text("voided")
    await expect(told).to_contain_text("every bet of it")
    await expect(told).to_contain_text("refunded")
    await expect(told).to_contain_text("Your seat #1 there is gone")
    await expect(page.get_by_test_id("balance")).to_have_attribute("data-cents", str(START))
    await expect(page.get_by_test_id("table-view")).to_have_attribute("data-role", "spectator")
    await expect_phase([page], "waiting")
    seen = await page.evaluate("window.toastsSeen.filter((t) => /voided/.test(t)).length")
    assert seen == 1, await page.evaluate("window.toastsSeen")  # told once
    await shot(page, "failover-voided-1400.png")
    for name, size in (("1280", laptop), ("phone", PHONE)):
        await resize(page, size)
        await expect(told).to_be_in_viewport()
        await shot(page, f"failover-voided-{name}.png")
    assert [p for p in problems if "ERR_CONNECTION" not in p] == []


async def test_a_round_settled_before_the_freeze_is_never_called_voided(
    make_pair: PairFactory, browser: Browser
) -> None:
    """A freezes at the showdown of a settled round: once at B, the page says the seat
    is gone, and nothing of a void or a refund (nothing was voided)."""
    a, b = await make_pair(results=120)
    problems: list[str] = []
    page = await seated(browser, a, problems)
    await build_ante(page, 0, [(500, "left")])
    await page.get_by_test_id("deal").click()
    await page.get_by_test_id("raise-0").click()
    await expect_phase([page], "showdown")
    last_deal = page.get_by_test_id("last-deal")
    await expect(last_deal).to_be_visible()  # A's proof of the round it dealt
    await asyncio.to_thread(a.freeze)
    await followed_to(page, b)
    told = page.locator('.toast[data-code="table-moved"]')
    await expect(told).to_contain_text("Your seat #1 there is gone")
    # B dealt no round of this table: A's is not "the table's last deal" here (History
    # keeps its proof, with its own Verify)
    await expect(last_deal).to_be_hidden()
    assert await page.evaluate("window.stud.state.lastDeal.shared") is None
    await expect(told).not_to_contain_text("voided")
    await expect(told).not_to_contain_text("refunded")
    seen = await page.evaluate("window.toastsSeen.filter((t) => /voided|refund/.test(t))")
    assert seen == [], seen
    assert [p for p in problems if "ERR_CONNECTION" not in p] == []


async def test_a_standby_hosting_no_table_is_where_the_page_goes_on(
    private_redis: RedisServer, tmp_path: Path, browser: Browser
) -> None:
    """A hosts every table and B stands by hosting none, so no lobby row names B: with
    A killed, the page knew only A and retried it for good. The lobby now lists the
    processes that answer, standbys too, and the page goes on through B."""
    a = Process(tmp_path, "a", ["shared"], private_redis.url, 2)
    b = Process(tmp_path, "b", ["shared"], private_redis.url, 2)
    try:
        await asyncio.to_thread(a.start, 1)
        await asyncio.to_thread(b.start, 0)
        problems: list[str] = []
        page = await open_page(browser, f"http://127.0.0.1:{a.port}/", problems)
        await enter_name(page, "Ann")
        await page.wait_for_function(
            f"(window.stud.state.lobby?.servers ?? []).includes({b.url!r})", timeout=FOLLOW_MS
        )
        await page.get_by_test_id("play-shared").click()
        await expect(page.get_by_test_id("seat-0-name")).to_contain_text("Ann")
        await asyncio.to_thread(a.kill)
        await followed_to(page, b)
        assert [p for p in problems if "ERR_CONNECTION" not in p] == []
    finally:
        a.stop()
        b.stop()


async def test_a_host_restarted_at_its_address_is_said_restarted_and_its_notice_goes(
    private_redis: RedisServer, tmp_path: Path, browser: Browser
) -> None:
    """A, the only process, is killed mid-decision and started again at its address: the
    page said the table "moved to another server of the casino" (nothing moved), and kept
    saying so, folded to a line, through the rounds after until closed. It says the
    server restarted (the refund is true), and lets the notice go once it has been read
    and the table has moved on."""
    a = Process(tmp_path, "a", ["shared"], private_redis.url, 2)
    try:
        await asyncio.to_thread(a.start, 1)
        problems: list[str] = []
        page = await open_page(browser, f"http://127.0.0.1:{a.port}/", problems)
        await enter_name(page, "Ann")
        await page.get_by_test_id("play-shared").click()
        await expect(page.get_by_test_id("seat-0-name")).to_contain_text("Ann")
        await build_ante(page, 0, [(500, "left")])
        await page.get_by_test_id("deal").click()
        await expect(page.get_by_test_id("fold-0")).to_be_visible()
        await asyncio.to_thread(a.kill)
        await asyncio.to_thread(a.start)
        told = page.locator('.toast[data-code="table-moved"]')
        await expect(told).to_be_visible(timeout=FOLLOW_MS)
        await expect(told).to_contain_text("“shared” is back: its server restarted.")
        await expect(told).not_to_contain_text("another server")
        await expect(told).to_contain_text(
            "Your round in play was voided: every bet of it (antes, raises, progressive) "
            "was refunded."
        )
        await expect(told).to_contain_text("Your seat #1 was let go: take a seat to play on.")
        await expect(page.get_by_test_id("balance")).to_have_attribute("data-cents", str(START))
        await shot(page, "restart-told-1400.png")
        # read (the page in view as long as a toast lasts), then the table moves on
        await expect(told).to_have_attribute("data-seen", "true", timeout=FOLLOW_MS)
        await page.get_by_test_id("sit-0").click()
        await build_ante(page, 0, [(500, "left")])
        await page.get_by_test_id("deal").click()
        await expect_phase([page], "deciding")
        await expect(told).to_have_count(0)
        assert [p for p in problems if "ERR_CONNECTION" not in p] == []
    finally:
        a.stop()
