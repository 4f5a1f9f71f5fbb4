"""The browser client's frame holding still and reading well, on every kind of screen:
a refusal on a big screen as big as the frame around the felt; the top bar's name and
buttons where they were as the wallet's figures change; a tablet's rack buttons with
their words in the middle; a touch screen's seat buttons 44 px to aim at on a felt's
arc; the lobby's tables where they were while notices come and go. Geometry only, as
drawn (bounding boxes). Screenshots go to test-artifacts/steady-*.png.

Needs Debian's Chromium, like tests/test_web.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.async_api import Browser, Page, ViewportSize, expect

from clients.connection import StudClient
from tests.conftest import ServerFactory
from tests.decks import shuffles
from tests.test_web import ARTIFACTS, browser, expect_phase, needs_chromium, resize
from tests.test_web_layout import (
    DEALER,
    HANDS,
    LONG,
    NINE,
    PHONE,
    check_layout,
    cy,
    enter,
    new_page,
    sit_three,
)

__all__ = ["browser", "cy"]  # the fixtures used below

pytestmark = needs_chromium

LAPTOP: ViewportSize = {"width": 1280, "height": 800}
BIG: ViewportSize = {"width": 1920, "height": 1080}
TABLET: ViewportSize = {"width": 768, "height": 1024}
WIDE_TOUCH: ViewportSize = {"width": 1024, "height": 768}
TOUCH = {"has_touch": True, "is_mobile": True}

#: The newest toast's words as drawn (their size in px on the screen, zoom included), the
#: toast's box, and the --frame the page draws its frame with.
TOAST = """() => {
  const toasts = document.querySelectorAll('#errors .toast');
  const toast = toasts[toasts.length - 1];
  const msg = toast.querySelector('.msg');
  const px = parseFloat(getComputedStyle(msg).fontSize) * (msg.currentCSSZoom ?? 1);
  const r = toast.getBoundingClientRect();
  const root = getComputedStyle(document.documentElement);
  const frame = parseFloat(root.getPropertyValue('--frame')) || 1;
  return {text: msg.textContent, px, top: r.top, bottom: r.bottom,
          left: r.left, right: r.right, width: r.width, frame, innerWidth, innerHeight};
}"""

#: Where the top bar's parts are: the name's box and whether it is cut, Sign up's and
#: Sign in's, the wallet's and the connection's.
TOP_BAR = """() => {
  const box = (sel) => { const r = document.querySelector(sel).getBoundingClientRect();
                         return [Math.round(r.left * 10) / 10, Math.round(r.right * 10) / 10,
                                 Math.round(r.top * 10) / 10]; };
  const who = document.querySelector('[data-testid="player-name"]');
  return {name: box('[data-testid="player-name"]'), cut: who.scrollWidth > who.clientWidth,
          signup: box('[data-testid="signup"]'), signin: box('[data-testid="signin"]'),
          wallet: box('[data-testid="wallet"]'), conn: box('[data-testid="conn-status"]'),
          height: document.querySelector('.topbar').getBoundingClientRect().height};
}"""

#: How far each button's words sit from its middle, up or down (px as drawn).
OFF_CENTRE = """(sel) => [...document.querySelectorAll(sel)]
  .filter((el) => el.getClientRects().length)
  .map((el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const words = range.getBoundingClientRect();
    const r = el.getBoundingClientRect();
    return {id: el.dataset.testid, h: r.height,
            off: (words.top + words.bottom) / 2 - (r.top + r.bottom) / 2};
  })"""

#: Controls drawn smaller than 44 px either way.
SMALL = """(sel) => [...document.querySelectorAll(sel)]
  .filter((el) => el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden')
  .map((el) => ({id: el.dataset.testid, r: el.getBoundingClientRect()}))
  .filter(({r}) => Math.min(r.width, r.height) < 44 - 0.5)
  .map(({id, r}) => `${id} ${r.width.toFixed(1)}x${r.height.toFixed(1)}`)"""


async def refuse_an_ante(page: Page) -> dict[str, Any]:
    """A $100 chip on a circle that holds $100 already: refused, in a toast."""
    await page.get_by_test_id("chip-10000").click()
    await page.get_by_test_id("ante-0").click()
    told = page.locator("#errors .toast").last
    await expect(told).to_contain_text("The most you can ante at this table is $100.00")
    got: dict[str, Any] = await page.evaluate(TOAST)
    return got


async def test_a_refusal_on_a_big_screen_is_drawn_as_big_as_the_frame(
    make_server: ServerFactory, browser: Browser
) -> None:
    """At 1920x1080 "The most you can ante at this table is $100.00" came at a laptop's
    size in the corner of a frame drawn a sixth bigger, and went by unread."""
    server = await make_server(tables=NINE, timers=LONG)
    problems: list[str] = []
    _, ann = await new_page(browser, f"http://127.0.0.1:{server.port}/", problems, viewport=LAPTOP)
    await enter(ann, "Ann")
    await ann.get_by_test_id("play-nine").click()
    await expect(ann.get_by_test_id("seat-0").locator(".you")).to_have_count(1)
    await ann.get_by_test_id("chip-10000").click()
    await ann.get_by_test_id("ante-0").click()
    laptop = await refuse_an_ante(ann)
    await resize(ann, BIG)
    big = await refuse_an_ante(ann)
    ARTIFACTS.mkdir(exist_ok=True)
    await ann.screenshot(path=str(ARTIFACTS / "steady-refusal-1920x1080.png"))
    assert big["frame"] > 1.1, big
    assert big["px"] >= laptop["px"] * big["frame"] - 0.1, (laptop, big)
    assert big["width"] >= laptop["width"] * big["frame"] - 1, (laptop, big)
    inside = big["left"] >= 0 and big["right"] <= big["innerWidth"]
    assert inside and big["top"] >= 0 and big["bottom"] <= big["innerHeight"], big
    assert problems == []


@pytest.mark.parametrize("size", [LAPTOP, {"width": 1440, "height": 900}], ids=["1280", "1440"])
async def test_the_top_bar_holds_still_as_the_wallet_s_figures_change(
    make_server: ServerFactory, browser: Browser, size: ViewportSize
) -> None:
    """At 1280x800 the name read whole, then cut ("Alexandra Konsta…"), then whole
    again as the wallet's figures grew and shrank a digit, and Sign up and Sign in moved
    with it under the pointer. The same at 1440x900."""
    server = await make_server(tables=NINE, timers=LONG)
    problems: list[str] = []
    _, ann = await new_page(browser, f"http://127.0.0.1:{server.port}/", problems, viewport=size)
    await enter(ann, "Alexandra Konstantinova")
    await expect(ann.get_by_test_id("signup")).to_be_visible()
    seen = []
    for balance, held, bonus in (
        (1_000_000, 0, 250_000),
        (100, 0, 0),
        (9_999_999, 0, 250_000),
        (9_999_999, 999_999, 999_999),  # up to $99,999.99 balance, $9,999.99 held or bonus
        (25_000, 2_500, 0),
        (1_000_000, 30_000, 250_000),
    ):
        frame = {"t": "balance", "balance": balance, "held": held, "bonus": bonus}
        frame["available"] = balance - held
        await ann.evaluate(f"window.stud.absorb({json.dumps(frame)})")
        await expect(ann.get_by_test_id("balance")).to_have_attribute("data-cents", str(balance))
        seen.append((balance, held, bonus, await ann.evaluate(TOP_BAR)))
    ARTIFACTS.mkdir(exist_ok=True)
    await ann.screenshot(path=str(ARTIFACTS / f"steady-top-bar-{size['width']}.png"))
    first = seen[0][3]
    moved = [(b, h, n, got) for b, h, n, got in seen if got != first]
    assert moved == [], (first, moved)
    assert not first["cut"], first
    assert problems == []


async def test_a_tablet_s_rack_buttons_have_their_words_in_the_middle(
    make_server: ServerFactory, browser: Browser, cy: list[StudClient]
) -> None:
    """On a 768x1024 touch tablet Rebet, Clear and "Sit this round out" were 44 px tall
    with their words along the top edge."""
    server = await make_server(tables=NINE, timers=LONG)
    problems: list[str] = []
    url = f"http://127.0.0.1:{server.port}/"
    _, tess = await new_page(browser, url, problems, viewport=TABLET, **TOUCH)
    await enter(tess, "Tess", tap=True)
    await tess.get_by_test_id("play-nine").tap()
    await expect(tess.get_by_test_id("seat-0").locator(".you")).to_have_count(1)
    bob = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    cy.append(bob)
    await bob.hello(name="Bob")
    await bob.request("join", table="nine")
    reply = await bob.request("sit", table="nine")
    await bob.request("ante", table="nine", seat=int(reply["seat"]), amount=500)
    await expect(tess.get_by_test_id("sit-out")).to_be_visible()
    buttons = '[data-testid="rebet"], [data-testid="clear"], [data-testid="sit-out"]'
    got: list[dict[str, Any]] = await tess.evaluate(OFF_CENTRE, buttons)
    ARTIFACTS.mkdir(exist_ok=True)
    await tess.screenshot(path=str(ARTIFACTS / "steady-tablet-rack-768x1024.png"))
    assert len(got) == 3 and all(b["h"] >= 44 - 0.5 for b in got), got
    assert [b for b in got if abs(b["off"]) > 1.5] == [], got
    assert problems == []


SEAT_BUTTONS = (
    '[data-testid^="fold-"], [data-testid^="raise-"]:not([data-testid^="raise-spot"]), '
    '[data-testid^="stand-"], [data-testid^="clear-"]'
)


@pytest.mark.parametrize("size", [WIDE_TOUCH, LAPTOP], ids=["1024x768", "1280x800"])
async def test_a_touch_screen_s_seats_on_the_arc_have_44_px_buttons(
    make_server: ServerFactory, browser: Browser, cy: list[StudClient], size: ViewportSize
) -> None:
    """A full table on a touch screen wide enough for the felt's arc: the player's own
    Fold, Raise and Stand were 26-30 px tall, under a finger's 44; the seats still do not
    meet, and nothing leaves its seat or the screen."""
    server = await make_server(tables=NINE, shuffle=shuffles([*HANDS, DEALER]), timers=LONG)
    problems: list[str] = []
    url = f"http://127.0.0.1:{server.port}/"
    _, ann = await new_page(browser, url, problems, viewport=size, **TOUCH)
    await enter(ann, "Ann", tap=True)
    await sit_three(ann, 0, tap=True)
    for name in ("Bob", "Cy"):
        client = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
        cy.append(client)
        await client.hello(name=name)
        await client.request("join", table="nine")
        for _ in range(3):
            reply = await client.request("sit", table="nine")
            await client.request("ante", table="nine", seat=int(reply["seat"]), amount=500)
    await expect(ann.locator(".felt.arc")).to_have_count(1)
    what = f"steady-touch-{size['width']}x{size['height']}"
    small: list[str] = await ann.evaluate(SMALL, SEAT_BUTTONS)
    await check_layout(ann, f"{what}-betting", None)
    assert small == [], f"betting: {small}"
    for seat in (0, 1, 2):
        await ann.get_by_test_id("chip-500").tap()
        await ann.get_by_test_id(f"ante-{seat}").tap()
    small = await ann.evaluate(SMALL, SEAT_BUTTONS)
    await check_layout(ann, f"{what}-built", None)
    assert small == [], f"bets built: {small}"
    await ann.get_by_test_id("deal").tap()
    for client in cy:
        await client.request("deal", table="nine")
    await expect_phase([ann], "deciding")
    await expect(ann.get_by_test_id("fold-2")).to_be_visible()
    await check_layout(ann, f"{what}-deciding", None)
    small = await ann.evaluate(SMALL, SEAT_BUTTONS)
    assert small == [], f"deciding: {small}"
    assert problems == []


#: Where the lobby's table list is, and the notices and banners drawn over it.
LOBBY_LIST = """() => {
  const list = document.querySelector('[data-testid="table-list"]').getBoundingClientRect();
  const over = [];
  const shown = [];
  for (const el of document.querySelectorAll('#errors > *, #banners > *')) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    shown.push({top: r.top, bottom: r.bottom, left: r.left, right: r.right});
    const ix = Math.min(r.right, list.right) - Math.max(r.left, list.left);
    const iy = Math.min(r.bottom, list.bottom) - Math.max(r.top, list.top);
    if (ix > 0.5 && iy > 0.5) over.push(el.textContent.slice(0, 40));
  }
  return {top: list.top, left: list.left, over, shown, innerHeight, innerWidth};
}"""

NEWS = """async (k) => {
  const n = await import("./js/notices.js");
  n.showError(`News ${k}: your hand on seat #1 was folded when you left, and you lost $5.00.`,
    { code: `news-${k}`, tone: "info" });
  n.showBanner({ round_id: `r-${k}`, seat: 0, name: "Winner", amount: 100000,
    category: "ROYAL_FLUSH", table: "nine" });
}"""


@pytest.mark.parametrize("size", ["desktop", "phone"])
async def test_the_lobby_s_tables_stay_put_while_notices_come_and_go(
    make_server: ServerFactory, browser: Browser, size: str
) -> None:
    """A notice in the lobby pushed its tables down, and its going pulled them back up:
    a Play aimed at went to the next table's place, or nowhere."""
    server = await make_server(tables=NINE, timers=LONG)
    problems: list[str] = []
    phone = size == "phone"
    options: dict[str, Any] = {"viewport": PHONE if phone else LAPTOP, **(TOUCH if phone else {})}
    _, ann = await new_page(browser, f"http://127.0.0.1:{server.port}/", problems, **options)
    await enter(ann, "Ann", tap=phone)
    await expect(ann.get_by_test_id("lobby-table-nine")).to_be_visible()
    before: dict[str, Any] = await ann.evaluate(LOBBY_LIST)
    for k in range(3):
        await ann.evaluate(NEWS, k)
        await expect(ann.locator("#errors .toast").last).to_contain_text(f"News {k}")
        got: dict[str, Any] = await ann.evaluate(LOBBY_LIST)
        assert (got["top"], got["left"]) == (before["top"], before["left"]), (k, before, got)
        assert got["over"] == [], f"over the tables: {got['over']}"
        assert got["shown"], got
        for r in got["shown"]:
            assert r["top"] >= 0 and r["bottom"] <= got["innerHeight"], got
            assert r["left"] >= 0 and r["right"] <= got["innerWidth"], got
    ARTIFACTS.mkdir(exist_ok=True)
    await ann.screenshot(path=str(ARTIFACTS / f"steady-lobby-notices-{size}.png"))
    closes = ann.locator("#errors .close, #banners .close")
    while await closes.count():
        await closes.first.click()
    await expect(ann.locator("#errors > *, #banners > *")).to_have_count(0)
    after: dict[str, Any] = await ann.evaluate(LOBBY_LIST)
    assert (after["top"], after["left"]) == (before["top"], before["left"]), (before, after)
    assert problems == []
