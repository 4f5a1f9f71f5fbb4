"""The browser client when its link is down in the middle of a decision, in a real
headless Chromium: the page says it is offline and that the clock keeps running,
offers to retry at once, keeps its buttons off (nothing can be sent), and once
back tells the player the clock folded their hand, taking back what it said while
offline.

The link is cut by Playwright's WebSocket routing: while `blocked`, every attempt
of the page to connect is closed at once, as an unreachable server would.
Needs Debian's Chromium and the page's npm dependency, like tests/test_web.py.
"""

from __future__ import annotations

import asyncio

from playwright.async_api import Browser, ViewportSize, WebSocketRoute, expect

from server.app import StudServer
from tests.conftest import ServerFactory
from tests.test_web import (
    VIEWPORT,
    WAIT_MS,
    browser,
    build_ante,
    collect_problems,
    enter,
    expect_phase,
    needs_chromium,
    shot,
)
from tests.test_web_layout import PHONE

__all__ = ["browser"]  # the fixture, used below

pytestmark = needs_chromium


async def test_a_link_lost_while_deciding_is_said_and_the_timer_fold_told(
    make_server: ServerFactory, browser: Browser
) -> None:
    server = await make_server(timers={"betting": 30, "decision": 4, "results": 30})
    context = await browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(WAIT_MS)
    page = await context.new_page()
    problems: list[str] = []
    collect_problems(page, problems)
    blocked = False
    routes: list[WebSocketRoute] = []

    async def route(ws: WebSocketRoute) -> None:
        if blocked:
            await ws.close(code=4001, reason="unreachable")  # any code but 1000
            return
        ws.connect_to_server()
        routes.append(ws)

    await page.route_web_socket("**/ws", route)
    await page.goto(f"http://127.0.0.1:{server.port}/")
    await enter(page, "Ann")
    await page.get_by_test_id("play-alpha").click()
    await expect(page.get_by_test_id("seat-0-name")).to_contain_text("Ann")
    await build_ante(page, 0, [(500, "left")])
    await page.get_by_test_id("deal").click()
    await expect(page.get_by_test_id("fold-0")).to_be_visible()  # dealt, and shown

    blocked = True
    await routes[-1].close(code=4001, reason="gone")
    message = page.get_by_test_id("table-message")
    await expect(message).to_contain_text("Connection lost")
    await expect(message).to_contain_text("folds at zero")
    await expect(page.get_by_test_id("fold-0")).to_be_disabled()
    await expect(page.get_by_test_id("raise-0")).to_be_disabled()
    await expect(page.get_by_test_id("retry-now")).to_be_visible()
    await shot(page, "offline-deciding.png")
    await page.get_by_test_id("history-button").click()  # an empty panel would say nothing
    await expect(page.get_by_test_id("history-error")).to_contain_text("Offline")
    await page.get_by_test_id("history-close").click()
    laptop: ViewportSize = {"width": 1280, "height": 800}
    for name, size in (("laptop", laptop), ("phone", PHONE)):
        await page.set_viewport_size(size)
        await expect(message).to_be_in_viewport()
        await expect(page.get_by_test_id("retry-now")).to_be_in_viewport()
        width = await page.evaluate("document.documentElement.scrollWidth")
        assert width <= size["width"], (name, width)  # nothing pushed off the side
        await shot(page, f"offline-deciding-{name}.png")
    await page.set_viewport_size(VIEWPORT)

    room = server.rooms["alpha"]
    for _ in range(200):  # the deciding clock (4 s) runs out on the server meanwhile
        seat = room.table.seats[0]
        if seat is not None and seat.decision is not None:
            break
        await asyncio.sleep(0.05)
    blocked = False
    await page.get_by_test_id("retry-now").click()
    await expect(page.get_by_test_id("conn-status")).to_have_text("Connected")
    await page.get_by_test_id("history-button").click()
    await expect(page.get_by_test_id("history-error")).to_be_hidden()
    await page.get_by_test_id("history-close").click()
    await expect_phase((page,), "showdown")
    notice = page.get_by_test_id("error").filter(has_text="The clock ran out")
    await expect(notice).to_contain_text("seat #1 was folded")
    await expect(page.locator('.toast[data-code="offline"]')).to_have_count(0)
    await expect(page.get_by_test_id("seat-0-result")).to_have_attribute("data-outcome", "fold")
    for size in (VIEWPORT, PHONE):  # the news does not hide the wallet it is about
        await page.set_viewport_size(size)
        toast = await notice.bounding_box()
        wallet = await page.get_by_test_id("wallet").bounding_box()
        assert toast and wallet, (toast, wallet)
        assert toast["y"] >= wallet["y"] + wallet["height"], (size, toast, wallet)
    assert problems == []


async def test_a_link_gone_silent_without_a_close_is_called_lost(
    make_server: ServerFactory, browser: Browser
) -> None:
    """Wi-Fi gone or a frozen server closes nothing: the page only stops hearing.
    Within seconds it says it is offline, keeps its buttons off, and reconnects
    once the server answers again; a raise sent into the silence is not called
    failed."""
    server = await make_server(timers={"betting": 30, "decision": 60, "results": 30})
    context = await browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(WAIT_MS)
    page = await context.new_page()
    problems: list[str] = []
    collect_problems(page, problems)
    silent = False

    async def route(ws: WebSocketRoute) -> None:
        if silent:
            return  # a connection that opens no further: nothing comes back
        server_side = ws.connect_to_server()

        def up(message: str | bytes) -> None:
            if not silent:
                server_side.send(message)

        def down(message: str | bytes) -> None:
            if not silent:
                ws.send(message)

        ws.on_message(up)
        server_side.on_message(down)

    await page.route_web_socket("**/ws", route)
    await page.goto(f"http://127.0.0.1:{server.port}/")
    await enter(page, "Ann")
    await page.get_by_test_id("play-alpha").click()
    await expect(page.get_by_test_id("seat-0-name")).to_contain_text("Ann")
    await build_ante(page, 0, [(500, "left")])
    await page.get_by_test_id("deal").click()
    await expect(page.get_by_test_id("raise-0")).to_be_visible()

    silent = True
    await page.get_by_test_id("raise-0").click()  # into the silence: never arrives
    status = page.get_by_test_id("conn-status")
    await expect(status).not_to_have_text("Connected", timeout=20_000)
    await expect(page.get_by_test_id("table-message")).to_contain_text("Connection lost")
    await expect(page.get_by_test_id("fold-0")).to_be_disabled()
    lost = page.get_by_test_id("error").filter(has_text="before the server answered")
    await expect(lost).to_be_visible()  # not "failed": the table will tell
    silent = False
    await expect(status).to_have_text("Connected", timeout=20_000)
    await expect(lost).to_have_count(0)  # what was said offline goes once back
    await expect(page.get_by_test_id("raise-0")).to_be_enabled()  # the raise never got there
    assert room_seat_undecided(server)
    assert problems == []


def room_seat_undecided(server: StudServer) -> bool:
    seat = server.rooms["alpha"].table.seats[0]
    return seat is not None and seat.decision is None


async def test_a_round_that_ended_while_away_is_told_with_its_outcome(
    make_server: ServerFactory, browser: Browser
) -> None:
    """Back after the round is over (the next one may be waiting): the page looks the
    round up in the history and says the clock folded the hand, and what it cost."""
    server = await make_server(timers={"betting": 30, "decision": 3, "results": 0.5})
    context = await browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(WAIT_MS)
    page = await context.new_page()
    problems: list[str] = []
    collect_problems(page, problems)
    blocked = False
    routes: list[WebSocketRoute] = []

    async def route(ws: WebSocketRoute) -> None:
        if blocked:
            await ws.close(code=4001, reason="unreachable")
            return
        ws.connect_to_server()
        routes.append(ws)

    await page.route_web_socket("**/ws", route)
    await page.goto(f"http://127.0.0.1:{server.port}/")
    await enter(page, "Ann")
    await page.get_by_test_id("play-alpha").click()
    await expect(page.get_by_test_id("seat-0-name")).to_contain_text("Ann")
    await build_ante(page, 0, [(500, "left")])
    await page.get_by_test_id("deal").click()
    await expect(page.get_by_test_id("fold-0")).to_be_visible()
    round_id = server.rooms["alpha"].table.round_id
    blocked = True
    await routes[-1].close(code=4001, reason="gone")
    for _ in range(400):  # the clock folds the hand, the showdown passes
        if server.rooms["alpha"].table.round_id != round_id:
            break
        await asyncio.sleep(0.05)
    blocked = False
    await page.get_by_test_id("retry-now").click()
    told = page.get_by_test_id("error").filter(has_text="While you were away")
    await expect(told).to_contain_text("seat #1 was folded")
    await expect(told).to_contain_text("5.00)")  # the ante it cost
    assert problems == []
