"""The rack under a full nine-seat table, its words read whole: the selected seat's
line, the table's limits, the keys, and Deal's own words, whatever Deal says.

Needs Debian's Chromium, like tests/test_web.py.
"""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser, ViewportSize, expect

from clients.connection import StudClient
from tests.conftest import ServerFactory
from tests.test_web import ARTIFACTS, browser, needs_chromium
from tests.test_web_layout import LONG, NINE, PHONE, cy, enter, new_page

__all__ = ["browser", "cy"]  # the fixtures used below

pytestmark = needs_chromium

SIZES: dict[str, ViewportSize] = {
    "1280": {"width": 1280, "height": 800},
    "1024": {"width": 1024, "height": 768},
    "768": {"width": 768, "height": 1024},
    "390": PHONE,
}
ANN = "Alexandra Konstantinova"
OTHERS = [
    "bot1@nine",
    "bot2@nine",
    "bot3@nine",
    "bot4@nine",
    "bot5@nine",
    "Maximilian Oberhauser",
    "Alexandra Petrovskaya",
    "Lucky Seven",
]

#: The rack's words cut short (an ellipsis, or past their box).
RACK_CUT = """() => [...document.querySelectorAll(
    '#table .controls .rules > div, #table .controls .btn.deal')]
  .filter((el) => el.getClientRects().length && el.scrollWidth > el.clientWidth + 1)
  .map((el) => `${el.textContent} (${el.clientWidth} of ${el.scrollWidth} px)`)"""


@pytest.mark.parametrize("size", list(SIZES))
async def test_the_rack_reads_whole_while_sitting_out_at_a_full_table(
    make_server: ServerFactory, browser: Browser, cy: list[StudClient], size: str
) -> None:
    """At 1280x800, Deal reading "Sitting out · waiting for others" took the rack's room:
    "Seat #9: $0 · 1 hand (up …", "Ante $1–$100 · raise 2× ant…", "Keys: 1–5 chip · p
    progressive …"."""
    server = await make_server(tables=NINE, timers=LONG)
    problems: list[str] = []
    phone = size == "390"
    _, ann = await new_page(
        browser,
        f"http://127.0.0.1:{server.port}/",
        problems,
        viewport=SIZES[size],
        is_mobile=phone,
        has_touch=phone,
    )
    for name in OTHERS:
        client = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
        cy.append(client)
        await client.hello(name=name)
        await client.request("join", table="nine")
        await client.request("sit", table="nine")
    for seat, client in enumerate(cy[:5]):  # five bet and deal; three think it over
        await client.request("ante", table="nine", seat=seat, amount=100, progressive=True)
        await client.request("deal", table="nine")
    await enter(ann, ANN, tap=phone)
    play = ann.get_by_test_id("play-nine")
    await (play.tap() if phone else play.click())
    await expect(ann.get_by_test_id("seat-8").locator(".you")).to_have_count(1)
    sit_out = ann.get_by_test_id("sit-out")
    await (sit_out.tap() if phone else sit_out.click())
    deal = ann.get_by_test_id("deal")
    await expect(deal).to_have_text("Sitting out · waiting for others")
    ARTIFACTS.mkdir(exist_ok=True)
    await ann.screenshot(path=str(ARTIFACTS / f"rack-sitting-out-{size}.png"))
    assert await ann.evaluate(RACK_CUT) == []
    assert problems == []


@pytest.mark.parametrize("size", ["1280", "390"])
async def test_a_progressive_with_no_ante_says_why_deal_is_off(
    make_server: ServerFactory, browser: Browser, size: str
) -> None:
    """Deal was off with no reason, its tooltip still "Place the bets and deal (d)"."""
    server = await make_server(timers=LONG)
    problems: list[str] = []
    phone = size == "390"
    _, ann = await new_page(
        browser,
        f"http://127.0.0.1:{server.port}/",
        problems,
        viewport=SIZES[size],
        is_mobile=phone,
        has_touch=phone,
    )
    await enter(ann, "Ann", tap=phone)
    play = ann.get_by_test_id("play-alpha")
    await (play.tap() if phone else play.click())
    jp = ann.get_by_test_id("progressive-0")
    await (jp.tap() if phone else jp.click())
    deal = ann.get_by_test_id("deal")
    await expect(deal).to_be_disabled()
    await expect(ann.get_by_test_id("deal-needs")).to_have_text("progressive needs an ante")
    await expect(deal).to_have_attribute("title", re.compile("seat #1 needs an ante"))
    ARTIFACTS.mkdir(exist_ok=True)
    await ann.screenshot(path=str(ARTIFACTS / f"rack-progressive-alone-{size}.png"))
    assert await ann.evaluate(RACK_CUT) == []
    assert problems == []
