"""Notices at a full table: the jackpot's news on a phone scrolled down its hands and on
a laptop, and a refusal at 1024 px.

The banner that says who won the jackpot comes as the winning table turns its
cards, and to every other table whatever it is doing. It must not cover what a
player reads or taps then: the table head (the way out, the phase and its clock, the
meter), the dealer's cards (a phone keeps them stuck at the top of the screen), a
decision's Fold and Raise, a showdown's results. Screenshots go to
test-artifacts/banner-*.png.

Needs Debian's Chromium, like tests/test_web.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from clients.connection import StudClient
from tests.conftest import ServerFactory
from tests.decks import shuffles
from tests.test_web import ARTIFACTS, browser, needs_chromium, resize
from tests.test_web_layout import (
    LAPTOPS,
    LONG,
    NINE,
    PHONE,
    check_layout,
    enter,
    new_page,
    sit_three,
)

__all__ = ["browser"]  # the fixture used below

pytestmark = needs_chromium

# seat 0 (Bob's first hand, with the progressive) holds a straight flush: 10 % of the meter
HANDS = [
    ["9h", "8h", "7h", "6h", "5h"],
    ["9c", "8d", "4h", "3s", "2h"],
    ["Ah", "Kc", "9d", "7d", "2c"],
    ["Qs", "Qd", "Jh", "5c", "3d"],
    ["Tc", "Td", "Th", "4s", "6d"],
    ["As", "Ks", "Js", "8s", "5s"],
    ["6c", "2d", "9s", "8c", "3c"],
    ["Jc", "Jd", "4c", "4d", "7c"],
    ["Ts", "2s", "7s", "6s", "5d"],
]
DEALER = ["Ac", "Ad", "Qh", "Qc", "3h"]
BOB = "Maximilianbartholomewxyz"  # 24 letters, nowhere to break: the winner's name

#: What the jackpot's banner covers of what is read or tapped now, on screen.
BANNER_CLEAR = """() => {
  const box = (el) => el.getBoundingClientRect();
  const hit = (a, b) =>
    a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const banner = document.querySelector('[data-testid="jackpot-banner"]');
  if (!banner) return {banner: null, covered: []};
  const b = box(banner);
  const read = ["wallet", "leave", "phase", "jackpot-meter", "dealer-cards"]
    .map((id) => document.querySelector(`[data-testid="${id}"]`));
  read.push(...document.querySelectorAll(
    'button[data-action="fold"]:enabled, button[data-action="raise"]:enabled, '
    + '[data-testid$="-result"]:not(.none)'));
  const out = [];
  for (const el of read) {
    if (!el || !el.getClientRects().length) continue;
    const r = box(el);
    // a result cut by the screen's edge is read by scrolling it out from under the banner
    const shown = el.matches('[data-testid$="-result"]')
      ? r.top >= 0 && r.bottom <= innerHeight : r.bottom > 0 && r.top < innerHeight;
    if (shown && hit(b, r)) out.push(el.dataset.testid);
  }
  if (b.top < 0 || b.bottom > innerHeight || b.left < 0 || b.right > innerWidth) {
    out.push("off screen");
  }
  const close = banner.querySelector(".close").getBoundingClientRect();
  if (close.right > Math.min(b.right, innerWidth)) out.push("its x off screen");
  return {banner: b.toJSON(), covered: out};
}"""


@pytest.fixture
async def bots() -> AsyncIterator[list[StudClient]]:
    clients: list[StudClient] = []
    yield clients
    for c in clients:
        await c.close()


async def banner_clear(page: Page, what: str, *, results: bool = True) -> None:
    await expect(page.get_by_test_id("jackpot-banner")).to_be_visible()
    got: dict[str, Any] = await page.evaluate(BANNER_CLEAR)
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / f"banner-{what}.png"))
    covered = [c for c in got["covered"] if results or not c.endswith("-result")]
    assert covered == [], f"{what}: the banner covers {got}"


async def test_the_jackpot_banner_leaves_the_dealer_head_and_results_in_view(
    make_server: ServerFactory, browser: Browser, bots: list[StudClient]
) -> None:
    server = await make_server(tables=NINE, shuffle=shuffles([*HANDS, DEALER]), timers=LONG)
    url = f"http://127.0.0.1:{server.port}/"
    problems: list[str] = []
    phone = {"viewport": PHONE, "is_mobile": True, "has_touch": True}
    _, bob = await new_page(browser, url, problems, **phone)
    _, wendy = await new_page(browser, url, problems, viewport=LAPTOPS[0])
    _, lou = await new_page(browser, url, problems, **phone)  # stays in the lobby
    await enter(bob, BOB, tap=True)
    await enter(wendy, "Wendy")
    await enter(lou, "Lou", tap=True)
    await sit_three(bob, 0, tap=True)
    for name in ("Cy", "Dee"):
        bot = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
        bots.append(bot)
        await bot.hello(name=name)
        await bot.request("join", table="nine")
        for _ in range(3):
            await bot.request("sit", table="nine")
    await wendy.get_by_test_id("watch-nine").click()
    await expect(wendy.get_by_test_id("seat-8-name")).to_contain_text("Dee")

    await bob.get_by_test_id("chip-500").tap()
    for seat in (0, 1, 2):
        await bob.get_by_test_id(f"ante-{seat}").tap()
    await bob.get_by_test_id("progressive-0").tap()
    for bot, first in zip(bots, (3, 6), strict=True):
        for seat in range(first, first + 3):
            await bot.request("ante", table="nine", seat=seat, amount=500)
        await bot.request("deal", table="nine")
    await bob.get_by_test_id("deal").tap()
    for seat in (0, 1, 2):
        await bob.get_by_test_id(f"raise-{seat}").tap()
    for bot, first in zip(bots, (3, 6), strict=True):
        for seat in range(first, first + 3):
            await bot.request("raise", table="nine", seat=seat)

    # the showdown: the straight flush's news comes to every page
    for page in (bob, wendy, lou):
        await expect(page.get_by_test_id("jackpot-banner")).to_contain_text(
            f"{BOB} won", timeout=15_000
        )
    await banner_clear(lou, "phone-lobby")
    # the same prize told again (a repeated frame) adds no second banner over the felt
    await wendy.evaluate(
        """() => { const snap = window.stud.state.tables.nine, seat = snap.seats[0];
          window.stud.absorb({t: "jackpot_won", table: "nine", round_id: snap.round_id,
            seat: 0, player_id: seat.player_id, category: "STRAIGHT_FLUSH",
            name: seat.name, amount: 10005}); }"""
    )
    await expect(wendy.get_by_test_id("jackpot-banner")).to_have_count(1)
    await expect(bob.get_by_test_id("seat-8-result")).to_be_visible()
    # (measured first: the banner goes by itself after 12 s)
    # a phone has no room beside its hands: the news goes over the foot of the screen,
    # and a result scrolled there may be under it until it is dismissed (x) or goes
    for scrolled in (False, True):
        where = "document.body.scrollHeight" if scrolled else "0"
        await bob.evaluate(f"window.scrollTo(0, {where})")
        await banner_clear(bob, f"phone-scrolled-{scrolled}", results=False)
    height = await bob.get_by_test_id("jackpot-banner").evaluate("(b) => b.offsetHeight")
    assert height <= 64, f"the phone's banner takes {height} px of the screen's foot"
    for size in (LAPTOPS[0], LAPTOPS[3]):
        await resize(wendy, size)
        await banner_clear(wendy, f"{size['width']}x{size['height']}")
    # a straight flush's win and its prize ("+$604.05 JP +$100.05") keep to the seat
    for size in (LAPTOPS[3], LAPTOPS[0]):
        await resize(wendy, size)
        await check_layout(wendy, f"showdown-jackpot-{size['width']}x{size['height']}", None)
    assert problems == []


#: The buttons of the player's own seats that a toast covers.
OWN_BUTTONS_UNDER_TOASTS = """() => {
  const toasts = [...document.querySelectorAll("#errors > *")]
    .map((t) => t.getBoundingClientRect());
  const hit = (a, b) =>
    a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  return [...document.querySelectorAll('#table [data-action="select-seat"] button:enabled')]
    .filter((b) => toasts.some((t) => hit(t, b.getBoundingClientRect())))
    .map((b) => b.dataset.testid);
}"""


async def test_a_refused_bet_at_1024_leaves_the_seat_s_own_buttons_in_reach(
    make_server: ServerFactory, browser: Browser, bots: list[StudClient]
) -> None:
    """An ante over the limit at the arc's bottom seats: its refusal covered that seat's
    Clear and Stand, the buttons to answer it with."""
    server = await make_server(tables=NINE, timers=LONG)
    url = f"http://127.0.0.1:{server.port}/"
    problems: list[str] = []
    _, ann = await new_page(browser, url, problems, viewport=LAPTOPS[3])
    await enter(ann, "Ann")
    for name in ("Cy", "Dee"):
        bot = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
        bots.append(bot)
        await bot.hello(name=name)
        await bot.request("join", table="nine")
        if name == "Dee":  # Cy took #1 to #3: Ann the arc's bottom, right over the rack
            await sit_three(ann, 3)
        for _ in range(3):
            await bot.request("sit", table="nine")
    for seat in (3, 4, 5):
        await ann.get_by_test_id("chip-10000").click()
        await ann.get_by_test_id(f"ante-{seat}").click()
        await ann.get_by_test_id(f"ante-{seat}").click()  # $200: over the $100 limit
        await expect(ann.locator("#errors .toast")).to_have_count(1)
        await expect(ann.get_by_test_id(f"clear-{seat}")).to_be_visible()
        under = await ann.evaluate(OWN_BUTTONS_UNDER_TOASTS)
        await ann.screenshot(path=str(ARTIFACTS / f"toast-over-limit-1024-seat-{seat}.png"))
        assert under == [], f"seat {seat}: the toast covers {under}"
        await ann.get_by_test_id("error-dismiss").click()
    assert problems == []
