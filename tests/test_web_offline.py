"""The browser client when its link is down in the middle of a decision, in a real
headless Chromium: the page says it is offline and that the clock keeps running,
offers to retry at once, keeps its buttons off (nothing can be sent), and once
back tells the player the clock folded their hand, taking back what it said while
offline.

The link is cut by Playwright's WebSocket routing (`Wire`): either closed, with
every new attempt closed at once as an unreachable server would, or silent, the
sockets kept open and nothing passed either way, as a dead network does.
Needs Debian's Chromium and the page's npm dependency, like tests/test_web.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Callable

from playwright.async_api import Browser, Page, ViewportSize, WebSocketRoute, expect
from playwright.async_api import TimeoutError as PlaywrightTimeout

from clients.connection import StudClient
from server.app import StudServer
from tests.conftest import ServerFactory
from tests.test_web import (
    VIEWPORT,
    WAIT_MS,
    browser,
    build_ante,
    collect_problems,
    enter,
    expect_cents,
    expect_phase,
    needs_chromium,
    resize,
    shot,
)
from tests.test_web_layout import PHONE

__all__ = ["browser"]  # the fixture, used below

pytestmark = needs_chromium

LONG_CLOCKS = {"betting": 60, "decision": 60, "results": 60}
STOOD_STILL_S = 12  # the page pings after 4 s of silence and calls the link lost 1.5 s on


class Wire:
    """The page's WebSocket, routed through Playwright so the test can break it."""

    def __init__(self) -> None:
        self.down = False  # new connections are closed at once
        self.silent = False  # nothing passes either way; nothing is closed
        self.held: list[tuple[Callable[[str | bytes], None], str | bytes]] | None = None
        self.routes: list[WebSocketRoute] = []

    async def route(self, ws: WebSocketRoute) -> None:
        if self.down:
            await ws.close(code=4001, reason="unreachable")  # any code but 1000
            return
        if self.silent:
            return  # a connection that never answers
        server = ws.connect_to_server()
        ws.on_message(lambda m: self._pass(server.send, m))
        server.on_message(lambda m: self._pass(ws.send, m))
        self.routes.append(ws)

    def _pass(self, send: Callable[[str | bytes], None], message: str | bytes) -> None:
        if self.held is not None:
            self.held.append((send, message))
        elif not self.silent:
            send(message)

    def hold(self) -> None:
        """Hold every frame either way, as a network that stalls and later delivers."""
        self.held = []

    def deliver(self) -> None:
        """Deliver what was held, in order, and pass frames again."""
        held, self.held = self.held or [], None
        for send, message in held:
            send(message)

    async def cut(self) -> None:
        self.down = True
        await self.routes[-1].close(code=4001, reason="gone")


async def seated(
    browser: Browser, server: StudServer, name: str = "Ann", viewport: ViewportSize = VIEWPORT
) -> tuple[Page, Wire, list[str]]:
    """Ann at alpha's seat 1, her page's socket on a wire the test can cut; problems
    collected."""
    context = await browser.new_context(viewport=viewport)
    context.set_default_timeout(WAIT_MS)
    page = await context.new_page()
    problems: list[str] = []
    collect_problems(page, problems)
    wire = Wire()
    await page.route_web_socket("**/ws", wire.route)
    await page.goto(f"http://127.0.0.1:{server.port}/")
    await enter(page, name)
    await page.get_by_test_id("play-alpha").click()
    await expect(page.get_by_test_id("seat-0-name")).to_contain_text("Ann")
    return page, wire, problems


async def deciding(
    browser: Browser, server: StudServer, name: str = "Ann"
) -> tuple[Page, Wire, list[str]]:
    """Ann at alpha with a $5 ante, dealt and shown, her decision due; problems collected."""
    page, wire, problems = await seated(browser, server, name)
    await build_ante(page, 0, [(500, "left")])
    await page.get_by_test_id("deal").click()
    await expect(page.get_by_test_id("fold-0")).to_be_visible()  # dealt, and shown
    return page, wire, problems


async def until(check: Callable[[], bool]) -> None:
    """Wait, bounded, for the server to get somewhere (its clocks run meanwhile)."""
    for _ in range(400):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the server never got there")


async def retry_now(page: Page) -> None:
    """Press Retry, and wait for the link. The page's own retry, on its countdown, may come
    first: the button goes with the link's return, and a click on it then finds nothing
    (as good: the page is back all the same)."""
    with contextlib.suppress(PlaywrightTimeout):
        await page.get_by_test_id("retry-now").click(timeout=3_000)
    await expect(page.get_by_test_id("conn-status")).to_have_text("Connected")


CLOCKS = ("countdown", "dealer-countdown")  # the table head's clock, and the dealer's


async def expect_no_clock(page: Page) -> None:
    """Offline: neither clock shows, and no seconds are said anywhere in them."""
    for clock in CLOCKS:
        await expect(page.get_by_test_id(clock)).to_be_hidden()
        await expect(page.get_by_test_id(clock)).not_to_have_text(re.compile(r"\d"))


def decided(server: StudServer) -> bool:
    seat = server.rooms["alpha"].table.seats[0]
    return seat is not None and seat.decision is not None


async def test_a_link_lost_while_deciding_is_said_and_the_timer_fold_told(
    make_server: ServerFactory, browser: Browser
) -> None:
    server = await make_server(timers={"betting": 30, "decision": 4, "results": 30})
    page, wire, problems = await deciding(browser, server)
    await wire.cut()
    message = page.get_by_test_id("table-message")
    await expect(message).to_contain_text("Connection lost")
    # both things that may come, not a fold alone: a table whose host is lost while this
    # page is away has its round voided and every bet refunded; said short, and without
    # the servers of a casino the player never sees
    await expect(message).to_have_text(
        "Connection lost — reconnecting… An undecided hand folds when the clock reaches zero, "
        "unless the round is voided (every bet refunded)."
    )
    await expect(page.get_by_test_id("fold-0")).to_be_disabled()
    await expect(page.get_by_test_id("raise-0")).to_be_disabled()
    await expect(page.get_by_test_id("retry-now")).to_be_visible()
    # no clock runs next to "Offline": what happens at zero is not seen from here
    await expect_no_clock(page)
    await shot(page, "offline-deciding.png")
    await page.get_by_test_id("history-button").click()  # an empty panel would say nothing
    await expect(page.get_by_test_id("history-error")).to_contain_text("Offline")
    await page.get_by_test_id("history-close").click()
    laptop: ViewportSize = {"width": 1280, "height": 800}
    for name, size in (("laptop", laptop), ("phone", PHONE)):
        await resize(page, size)
        await expect(message).to_be_in_viewport()
        await expect(page.get_by_test_id("retry-now")).to_be_in_viewport()
        width = await page.evaluate("document.documentElement.scrollWidth")
        assert width <= size["width"], (name, width)  # nothing pushed off the side
        # the status says it in words at every size (on a phone only "Connected" is a dot)
        status = page.get_by_test_id("conn-status")
        await expect(status).to_be_in_viewport()
        legible = await status.evaluate(
            "el => getComputedStyle(el).color !== 'rgba(0, 0, 0, 0)'"
            " && el.scrollWidth <= el.clientWidth + 1"
        )
        assert legible, (name, await status.text_content())
        await expect_no_clock(page)
        await shot(page, f"offline-deciding-{name}.png")
    await resize(page, VIEWPORT)

    await until(lambda: decided(server))  # the deciding clock (4 s) runs out meanwhile
    wire.down = False
    await retry_now(page)
    await page.get_by_test_id("history-button").click()
    await expect(page.get_by_test_id("history-error")).to_be_hidden()
    await page.get_by_test_id("history-close").click()
    await expect_phase((page,), "showdown")
    notice = page.get_by_test_id("error").filter(has_text="The clock ran out")
    await expect(notice).to_contain_text("seat #1 was folded")
    await expect(page.locator('.toast[data-code="offline"]')).to_have_count(0)
    await expect(page.get_by_test_id("seat-0-result")).to_have_attribute("data-outcome", "fold")
    for size in (VIEWPORT, PHONE):  # the news does not hide the wallet it is about
        await resize(page, size)
        toast = await notice.bounding_box()
        wallet = await page.get_by_test_id("wallet").bounding_box()
        assert toast and wallet, (toast, wallet)
        assert toast["y"] >= wallet["y"] + wallet["height"], (size, toast, wallet)
    assert problems == []


async def test_a_phone_s_top_bar_keeps_its_rows_while_offline(
    make_server: ServerFactory, browser: Browser
) -> None:
    """Offline on a phone, Retry pushed Sign up and Sign in along and Buy onto a row of
    its own: the top bar grew to three rows and the page jumped under it. Sign up and
    Sign in need the server: while it is away Retry takes their place."""
    server = await make_server(timers=LONG_CLOCKS)
    page, wire, problems = await deciding(browser, server)
    await resize(page, PHONE)
    bar = page.locator(".topbar")
    online = await bar.bounding_box()
    await wire.cut()
    retry = page.get_by_test_id("retry-now")
    await expect(retry).to_be_visible()
    offline = await bar.bounding_box()
    await page.screenshot(path="test-artifacts/offline-phone-top-bar.png")
    assert online and offline and offline["height"] == online["height"], (online, offline)
    await expect(page.get_by_test_id("buy-chips")).to_be_in_viewport()
    rows = await page.evaluate(
        """() => ["retry-now", "buy-chips"].map((id) =>
             Math.round(document.querySelector(`[data-testid="${id}"]`).getBoundingClientRect().top))"""
    )
    assert rows[0] == rows[1], rows  # Retry and Buy share the second row
    wire.down = False
    await retry_now(page)
    await expect(page.get_by_test_id("signup")).to_be_visible()
    assert problems == []


async def test_back_online_mid_decision_says_the_clock_ran_on_and_what_waits(
    make_server: ServerFactory, browser: Browser
) -> None:
    """Back before the clock ran out: the page says the clock ran on while the link was
    down, and which seat still waits (the README promises it); the time left is the
    table's clock's, a figure in the notice would stand still as the clock ran on."""
    server = await make_server(timers={"betting": 30, "decision": 60, "results": 30})
    page, wire, problems = await deciding(browser, server)
    await wire.cut()
    await expect(page.get_by_test_id("table-message")).to_contain_text("Connection lost")
    wire.down = False
    await retry_now(page)
    told = page.locator('.toast[data-code="clock-ran-on"]')
    await expect(told).to_contain_text("after the table was last heard; its clock ran on")
    await expect(told).to_contain_text("seat #1 still waits for your decision")
    # no figure of the time left, stale a second later: the table's clock counts it down
    await expect(told).not_to_contain_text(re.compile(r"\d+s left"))
    await expect(page.get_by_test_id("countdown")).to_have_text(re.compile(r"^\d+s$"))
    await expect(page.get_by_test_id("raise-0")).to_be_enabled()
    assert not decided(server)
    assert await page.evaluate("window.stud.state.linkDown") is None  # told once
    assert problems == []


#: Keeps the text of every toast the page shows, in `window.toastsSeen`.
TOASTS_SEEN = """() => {
  window.toastsSeen = [];
  new MutationObserver((changes) => {
    for (const change of changes) {
      for (const node of change.addedNodes) {
        if (node.nodeType === 1 && node.matches('[data-testid="error"]')) {
          window.toastsSeen.push(node.textContent);
        }
      }
    }
  }).observe(document.body, { childList: true, subtree: true });
}"""


async def test_back_from_a_server_that_stood_still_says_its_clock_stood_still(
    make_server: ServerFactory, browser: Browser
) -> None:
    """The server's process stood still mid-decision (stopped, starved of CPU): its clock
    stopped with it and gave the time back, yet the page, back online, said the clock
    ran on meanwhile."""
    server = await make_server(timers={"betting": 30, "decision": 60, "results": 30})
    page, _, problems = await deciding(browser, server)
    await expect(page.get_by_test_id("countdown")).to_have_text(re.compile(r"^\d+s$"))
    # the whole process stands still, the server and this end of the page's link: long
    # enough for the page to ping, hear nothing and call the link lost
    time.sleep(STOOD_STILL_S)
    told = page.locator('.toast[data-code="clock-ran-on"]')
    await expect(told).to_contain_text(
        "after the table was last heard; its clock stood still", timeout=30_000
    )
    await expect(told).not_to_contain_text("ran on")
    await expect(page.get_by_test_id("raise-0")).to_be_enabled()
    assert not decided(server)
    await shot(page, "back-after-server-stood-still.png")
    assert [p for p in problems if "ERR_CONNECTION" not in p] == []


async def test_no_answer_from_the_server_keeps_fold_and_raise_off(
    make_server: ServerFactory, browser: Browser
) -> None:
    """The top bar said "No answer…", yet Fold and Raise took a click: it went into the
    stalled network, the page later called it lost, and the raise had been applied.
    While the server is silent the table's buttons are off and its keys send nothing,
    as the README says; heard again, they act."""
    server = await make_server(timers={"betting": 30, "decision": 60, "results": 30})
    page, wire, problems = await deciding(browser, server)
    await page.evaluate(TOASTS_SEEN)
    await expect(page.get_by_test_id("raise-0")).to_be_enabled()
    wire.hold()  # a network that stalls and later delivers
    await expect(page.get_by_test_id("table-message")).to_contain_text("Waiting for the server")
    # looked at in one go, before the link is called lost (which turns them off anyway)
    seen = await page.evaluate(
        """() => [...["conn-status", "table-message"].map((id) =>
             document.querySelector(`[data-testid="${id}"]`).textContent),
           ...["fold-0", "raise-0"].map((id) =>
             document.querySelector(`[data-testid="${id}"]`).disabled)]"""
    )
    await page.keyboard.press("r")  # nor does a key send anything
    await shot(page, "no-answer-buttons-off.png")
    wire.deliver()
    assert seen[0] == "No answer…", seen
    assert "buttons wait for it" in seen[1], seen
    assert seen[2:] == [True, True], seen
    await page.wait_for_function(
        "window.toastsSeen.some((t) => t.includes('No answer from the server'))"
    )
    await expect(page.get_by_test_id("conn-status")).to_have_text("Connected")
    await expect(page.get_by_test_id("raise-0")).to_be_enabled()
    assert not decided(server)  # nothing went out while the server was silent
    await page.get_by_test_id("raise-0").click()
    await expect(page.get_by_test_id("seat-0-status")).to_have_text("Raised")
    assert problems == []


async def test_a_link_gone_silent_without_a_close_is_called_lost(
    make_server: ServerFactory, browser: Browser
) -> None:
    """Wi-Fi gone or a frozen server closes nothing: the page only stops hearing.
    Within seconds it says it is offline, keeps its buttons off, and reconnects
    once the server answers again; a raise sent into the silence is not called
    failed."""
    server = await make_server(timers={"betting": 30, "decision": 60, "results": 30})
    page, wire, problems = await deciding(browser, server)
    await page.evaluate(TOASTS_SEEN)
    await resize(page, {"width": 1280, "height": 800})
    await expect(page.get_by_test_id("countdown")).to_have_text(re.compile(r"^\d+s$"))
    wire.silent = True
    await page.get_by_test_id("raise-0").click()  # into the silence: never arrives
    # silent until the ping: the server's clock may have stopped (a frozen host), so the
    # page counts no seconds down; it says it waits for the server, and why the pressed
    # buttons are off
    message = page.get_by_test_id("table-message")
    for clock in CLOCKS:
        await expect(page.get_by_test_id(clock)).to_have_text("waiting for the server…")
    await expect(message).to_contain_text("Waiting for the server")
    await expect(page.get_by_test_id("fold-0")).to_be_disabled()
    # nor does the top bar say all is well while nothing answers
    await expect(page.get_by_test_id("conn-status")).to_have_text("No answer…")
    await shot(page, "silent-deciding-1280.png")
    await resize(page, PHONE)
    await shot(page, "silent-deciding-phone.png")
    await resize(page, VIEWPORT)
    status = page.get_by_test_id("conn-status")
    await expect(status).not_to_have_text("Connected", timeout=20_000)
    await expect(message).to_contain_text("Connection lost")
    await expect(page.get_by_test_id("fold-0")).to_be_disabled()
    await expect_no_clock(page)
    # not "failed": the table will tell. Whichever comes first says so: the link found
    # dead (about 14 s of silence, looked at each second) or the request's own 15 s.
    # Looked for among every toast shown (one stays 10 s: a loaded machine may come
    # here after it went)
    said = "/before the server answered|No answer to “raise” yet/"
    await page.wait_for_function(f"window.toastsSeen.some((t) => {said}.test(t))", timeout=30_000)
    assert not await page.evaluate("window.toastsSeen.some((t) => /failed/i.test(t))")
    lost = page.get_by_test_id("error").filter(
        has_text=re.compile("before the server answered|No answer to “raise” yet")
    )
    wire.silent = False
    await expect(status).to_have_text("Connected", timeout=20_000)
    # heard again: the clock runs
    await expect(page.get_by_test_id("countdown")).to_have_text(re.compile(r"^\d+s$"))
    await expect(lost).to_have_count(0)  # what was said offline goes once back
    await expect(page.get_by_test_id("raise-0")).to_be_enabled()  # the raise never got there
    # the time the clock ran on counts from the last frame heard: the page took 14 s or so
    # to call the silence lost, and counting from then said "4s" where 14 had gone by
    told = page.locator('.toast[data-code="clock-ran-on"]')
    found = re.search(r"Back online, (\d+)s after", await told.text_content() or "")
    assert found and int(found.group(1)) >= 10, await told.text_content()
    assert not decided(server)
    assert problems == []


async def test_a_raise_lost_with_the_link_and_then_folded_by_the_clock_is_told(
    make_server: ServerFactory, browser: Browser
) -> None:
    """A raise sent into a dead link never arrives, and the clock folds the hand: back
    online, the page says so, not only that the clock ran out (the player did act)."""
    server = await make_server(timers={"betting": 30, "decision": 4, "results": 60})
    page, wire, problems = await deciding(browser, server)
    wire.silent = True
    await page.get_by_test_id("raise-0").click()  # into the silence: never arrives
    await expect(page.get_by_test_id("conn-status")).not_to_have_text("Connected", timeout=20_000)
    await until(lambda: decided(server))  # the deciding clock (4 s) folds the hand
    seat = server.rooms["alpha"].table.seats[0]
    assert seat is not None and seat.auto and str(seat.decision) == "fold"
    wire.silent = False
    await expect(page.get_by_test_id("conn-status")).to_have_text("Connected", timeout=20_000)
    notice = page.get_by_test_id("error").filter(has_text="The clock ran out")
    await expect(notice).to_contain_text("seat #1 was folded")
    await expect(notice).to_contain_text("Your raise for seat #1 never reached the server")
    assert problems == []


async def test_a_round_that_ended_while_away_is_told_with_its_outcome(
    make_server: ServerFactory, browser: Browser
) -> None:
    """Back after the round is over (the next one may be waiting): the page looks the
    round up in the history and says the clock folded the hand, and what it cost."""
    server = await make_server(timers={"betting": 30, "decision": 3, "results": 0.5})
    page, wire, problems = await deciding(browser, server)
    round_id = server.rooms["alpha"].table.round_id
    await wire.cut()
    # the clock folds the hand, the showdown passes, the table moves on
    await until(lambda: server.rooms["alpha"].table.round_id != round_id)
    wire.down = False
    await retry_now(page)
    told = page.get_by_test_id("error").filter(has_text="While you were away")
    await expect(told).to_contain_text("seat #1 was folded")
    await expect(told).to_contain_text("5.00.")  # the ante it cost
    assert problems == []


async def test_a_bet_dealt_and_folded_while_away_is_told_with_its_outcome(
    make_server: ServerFactory, browser: Browser
) -> None:
    """Deal pressed, then the link went before the cards came: the round was dealt, the
    hand folded by the clock and the round over while away. Back, the page said nothing:
    only the balance and History showed the $5 gone. It says so as for a hand dealt
    before the link went."""
    server = await make_server(timers={"betting": 2, "decision": 1, "results": 0.5})
    page, wire, problems = await seated(browser, server)
    bob = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    try:
        await bob.hello(name="Bob")
        await bob.request("join", table="alpha")
        await bob.request("sit", table="alpha")  # seated, never ready: betting runs its clock
        await build_ante(page, 0, [(500, "left")])
        await page.get_by_test_id("deal").click()
        await expect_phase([page], "betting")
        await expect(page.get_by_test_id("seat-0-status")).to_have_text("Ready")
        round_id = server.rooms["alpha"].table.round_id
        await wire.cut()
        await until(lambda: server.rooms["alpha"].table.round_id != round_id)
        wire.down = False
        await retry_now(page)
        told = page.get_by_test_id("error").filter(has_text="While you were away")
        await expect(told).to_contain_text("seat #1 was folded")
        await expect(told).to_contain_text("5.00.")
    finally:
        await bob.close()
    assert [p for p in problems if "ERR_CONNECTION" not in p] == []


async def test_a_shutdown_is_shown_at_the_table_while_its_round_finishes(
    make_server: ServerFactory, browser: Browser
) -> None:
    """A server shutting down says so at the table from the start, not only when an ante
    is refused; the decision due still counts and the round finishes."""
    server = await make_server(timers={"betting": 60, "decision": 60, "results": 0.5})
    page, _, problems = await deciding(browser, server)
    stopping = asyncio.ensure_future(server.stop(grace=30))
    paused = page.get_by_test_id("table-paused")
    await expect(paused).to_be_visible()
    await expect(paused).to_contain_text("This server is shutting down")
    await expect(paused).not_to_contain_text("Paused by the casino")  # no operator paused it
    await expect(page.get_by_test_id("phase")).not_to_contain_text("Paused")
    await shot(page, "shutdown-notice.png")
    # whole on a laptop: squeezed into the head's row it read "…a round not over withi…"
    for width, height in ((1280, 800), (1024, 768)):
        await resize(page, {"width": width, "height": height})
        cut = await page.evaluate(
            """() => [...document.querySelectorAll('.paused-note, .table-head h1')]
              .filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.textContent)"""
        )
        assert cut == [], f"{width}: {cut}"
        await shot(page, f"shutdown-notice-{width}.png")
    await page.get_by_test_id("raise-0").click()
    await expect_phase([page], "showdown")
    assert problems == []
    await asyncio.wait_for(stopping, 10)


async def test_a_forgotten_session_is_told_until_the_player_dismisses_it(
    make_server: ServerFactory, browser: Browser
) -> None:
    """A server that no longer knows the page's token (restarted without its data) makes
    the page a new guest with a new wallet: it says so, and keeps saying it past the
    ten seconds an ordinary refusal stays, until the player dismisses it; folded to one
    line meanwhile, so it does not sit over the table's controls."""
    server = await make_server()
    context = await browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    context.set_default_timeout(WAIT_MS)
    page = await context.new_page()
    problems: list[str] = []
    collect_problems(page, problems)
    await page.goto(f"http://127.0.0.1:{server.port}/")
    await enter(page, "Ann")
    first = await page.evaluate("window.stud.state.me.player_id")
    await page.evaluate(
        "sessionStorage.setItem('stud.token', 'forgotten-by-the-server-0123456789abcdef');"
        "window.stud.conn.drop()"
    )
    ended = page.locator('.toast[data-code="session-ended"]')
    await expect(ended).to_contain_text("New player, new wallet: the server no longer knows")
    assert await page.evaluate("window.stud.state.me.player_id") != first
    await page.wait_for_timeout(11_000)  # an ordinary toast is gone after 10 s
    await expect(ended).to_be_visible()
    # read for as long: folded to one line, so it covers little of the table; a tap on
    # its words opens it again
    await expect(ended).to_have_class(re.compile(r"\bcollapsed\b"))
    box = await ended.bounding_box()
    assert box is not None and box["height"] < 48, box
    # cut to one line, it shows that it opens: a "More" beside its words (nothing said so)
    more = ended.get_by_test_id("toast-more")
    await expect(more).to_be_visible()
    await expect(more).to_have_attribute("aria-expanded", "false")
    await page.screenshot(path="test-artifacts/toast-collapsed-phone.png")
    await more.tap()
    await expect(ended).not_to_have_class(re.compile(r"\bcollapsed\b"))
    await expect(more).to_be_hidden()
    await ended.get_by_test_id("error-message").tap()  # its words fold it, and open it
    await expect(ended).to_have_class(re.compile(r"\bcollapsed\b"))
    await ended.get_by_test_id("error-message").tap()
    await expect(ended).not_to_have_class(re.compile(r"\bcollapsed\b"))
    await ended.get_by_test_id("error-dismiss").tap()
    await expect(ended).to_have_count(0)
    # read and folded, it gives way to the next news: it covered the paytable's corner
    # and the notices after it for the rest of the session
    await page.evaluate(
        "sessionStorage.setItem('stud.token', 'forgotten-by-the-server-0123456789abcdef');"
        "window.stud.conn.drop()"
    )
    await expect(ended).to_be_visible()
    await expect(ended).to_have_class(re.compile(r"\bcollapsed\b"), timeout=20_000)
    await page.get_by_test_id("buy-amount").fill("0")
    await page.get_by_test_id("buy-chips").tap()
    await expect(page.locator('.toast[data-code="buy-amount"]')).to_be_visible()
    await expect(ended).to_have_count(0)
    assert [p for p in problems if "ERR_CONNECTION" not in p] == []


async def test_a_round_voided_by_a_shutdown_is_told_as_voided_and_refunded(
    make_server: ServerFactory, browser: Browser
) -> None:
    """A shutdown's grace runs out while Ann has not decided: the round is voided and
    refunded. The page said so neither (her balance just jumped back) nor truly ("your
    round ended while you were away", though she never left)."""
    server = await make_server(
        timers={"betting": 60, "decision": 60, "results": 60},
        wallet={"starting_credits": 1_000_000, "starting_bonus": 250_000},  # wide figures
    )
    page, _, problems = await deciding(browser, server, "Annabelle Montgomery-Xyz")
    paused = page.get_by_test_id("table-paused")
    await asyncio.wait_for(server.stop(grace=0.5), 10)
    await expect(paused).to_contain_text("This server shut down")  # offline now
    # the pill beside it said "Paused", as if the casino had paused the table
    await expect(page.get_by_test_id("phase")).not_to_contain_text("Paused")
    await expect(page.get_by_test_id("phase")).to_contain_text("Offline")
    voided = page.locator('.toast[data-code="round-voided"]')
    await expect(voided).to_contain_text("voided as the server shut down")
    await expect(voided).to_contain_text("refunded")
    # news of money: it stays until dismissed, not gone by while the player looks away
    await expect(voided).to_have_attribute("data-sticky", "true")
    await expect(page.locator('.toast[data-code="unseen-round"]')).to_have_count(0)
    player = await page.evaluate("window.stud.state.me.player_id")
    assert (await server.store.wallet(player)).balance == 1_000_000  # every cent back
    await shot(page, "shutdown-voided.png")
    await resize(page, {"width": 1280, "height": 800})  # a laptop's top bar
    retry = None
    for _ in range(20):  # shown between attempts only, hidden while one is being made
        await expect(page.get_by_test_id("retry-now")).to_be_visible(timeout=15_000)
        retry = await page.get_by_test_id("retry-now").bounding_box()
        if retry is not None:
            break
    assert retry is not None and retry["x"] + retry["width"] <= 1280, retry
    # nothing of the bar drawn over another: the balance went over Sign in
    overlaps = await page.evaluate(
        """() => {
          const parts = [...document.querySelectorAll('.topbar > *, .topbar .account > *')]
            .filter((el) => el.getClientRects().length && !el.matches('.account'))
            .map((el) => [el.id || el.className, el.getBoundingClientRect()]);
          const out = [];
          for (const [i, [a, r]] of parts.entries()) for (const [b, q] of parts.slice(i + 1)) {
            if (r.left < q.right - 1 && q.left < r.right - 1 && r.top < q.bottom - 1
              && q.top < r.bottom - 1) out.push(`${a} / ${b}`);
          }
          return out;
        }"""
    )
    assert overlaps == [], overlaps
    await shot(page, "offline-1280.png")
    assert [p for p in problems if "ERR_CONNECTION" not in p] == []


async def test_chips_built_before_the_server_stopped_stay_drawn_in_the_circle(
    make_server: ServerFactory, browser: Browser
) -> None:
    """Offline in the betting with $5 and the progressive built on seat #1 (not placed):
    the circle showed nothing while the rack still said "Seat #1: $5 + progressive" and
    "Deal · $6.00". What was built stays, so both draw it (the circle takes no chip
    until the link is back)."""
    server = await make_server(timers=LONG_CLOCKS)
    context = await browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(WAIT_MS)
    page = await context.new_page()
    problems: list[str] = []
    collect_problems(page, problems)
    await page.goto(f"http://127.0.0.1:{server.port}/")
    await enter(page, "Ann")
    await page.get_by_test_id("play-alpha").click()
    await expect(page.get_by_test_id("seat-0-name")).to_contain_text("Ann")
    bob = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    try:
        await bob.hello(name="Bob")
        await bob.request("join", table="alpha")
        await bob.request("sit", table="alpha")
        await bob.request("ante", table="alpha", seat=1, amount=500)
        await bob.request("deal", table="alpha")
        await expect_phase([page], "betting")
        await build_ante(page, 0, [(500, "left")])
        await page.get_by_test_id("progressive-0").click()
        await expect_cents(page, "ante-0", 500)
        await asyncio.wait_for(server.stop(grace=0.5), 10)
    finally:
        await bob.close()
    await expect(page.get_by_test_id("conn-status")).not_to_have_text("Connected")
    await expect(page.get_by_test_id("selected-seat")).to_contain_text("Seat #1: $5 + progressive")
    await expect(page.get_by_test_id("deal")).to_have_text(re.compile(r"^Deal · \$6\.00"))
    await expect(page.get_by_test_id("deal")).to_be_disabled()
    await expect_cents(page, "ante-0", 500)
    await expect(page.get_by_test_id("ante-0-amount")).to_have_text("$5")
    await expect(page.get_by_test_id("progressive-0")).to_have_attribute("aria-pressed", "true")
    # drawn, not offered: nothing can be added or taken off until the link is back
    await expect(page.get_by_test_id("ante-0")).not_to_have_attribute("data-action", "add-chip")
    await shot(page, "offline-built-1280.png")
    assert [p for p in problems if "ERR_CONNECTION" not in p] == []


async def test_chips_built_for_a_round_that_closed_while_offline_are_said_and_cleared(
    make_server: ServerFactory, browser: Browser
) -> None:
    """$25 built for a round, then offline while its betting closed and it was played
    out: back online the $25 sat in the circle again, for the next round, and nothing
    said it was never bet. Chips built but not placed when betting closes are said and
    cleared, seen or not."""
    server = await make_server(timers={"betting": 3, "decision": 1, "results": 0.5})
    laptop: ViewportSize = {"width": 1280, "height": 800}
    page, wire, problems = await seated(browser, server, viewport=laptop)
    await build_ante(page, 0, [(2500, "left")])  # no round yet: no clock runs
    await expect_cents(page, "ante-0", 2500)
    table = server.rooms["alpha"].table
    bob = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    try:
        await bob.hello(name="Bob")
        await bob.request("join", table="alpha")
        await bob.request("sit", table="alpha")
        await bob.request("ante", table="alpha", seat=1, amount=500)  # round 1's betting
        first = table.round_id
        await expect_phase([page], "betting")
        await wire.cut()
        # round 1 is dealt without Ann's chips and played out: the table waits for bets
        await until(lambda: table.round_id is None)
        assert table.round_id != first
        wire.down = False
        await retry_now(page)
        await expect_phase([page], "waiting")  # seen as it is now, not as last seen
        told = page.locator('.toast[data-code="unplaced"]')
        await expect(told).to_contain_text("the $25.00 built on seat #1 was not bet")
        await expect_cents(page, "ante-0", 0)
        assert await page.evaluate("Object.keys(window.stud.state.builds).length") == 0
    finally:
        await bob.close()
    assert [p for p in problems if "ERR_CONNECTION" not in p] == []


async def test_a_deal_that_reaches_the_table_a_round_late_is_refused_not_placed(
    make_server: ServerFactory, browser: Browser
) -> None:
    """Deal pressed as the network stalled: the ante got to the server when the network
    came back, a round later, and was placed in a round Ann never saw open, dealt and
    folded by the clock without a word. The page sends the snapshot it acted on
    (`seq`): the server refuses the ante, and the page says the round moved on. The
    betting lasts long enough for the page's chips and Deal on a busy machine (half a
    second closed it before the click); the round then plays out on its clock."""
    server = await make_server(timers={"betting": 3.0, "decision": 0.5, "results": 0.3})
    page, wire, problems = await seated(browser, server)
    table = server.rooms["alpha"].table
    bob = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    try:
        await bob.hello(name="Bob")
        await bob.request("join", table="alpha")
        await bob.request("sit", table="alpha")
        await bob.request("ante", table="alpha", seat=1, amount=500)
        first = table.round_id
        await expect_phase([page], "betting")
        await build_ante(page, 0, [(2500, "left")])
        wire.hold()
        await page.get_by_test_id("deal").click()  # its ante waits in the network
        await until(lambda: table.round_id is None)  # round 1 played out without her
        await bob.request("ante", table="alpha", seat=1, amount=500)  # round 2 opens
        second = table.round_id
        assert second not in (None, first)
        wire.deliver()
        told = page.locator('.toast[data-code="round_moved_on"]')
        await expect(told).to_contain_text("nothing was bet")
        seat = table.seats[0]
        assert seat is not None and seat.ante == 0 and table.round_id == second
        wallet = await server.store.wallet(seat.player_id)
        assert (wallet.held, wallet.balance) == (0, 100_000)
    finally:
        await bob.close()
    assert [p for p in problems if "ERR_CONNECTION" not in p] == []
