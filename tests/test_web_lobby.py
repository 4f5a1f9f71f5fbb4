"""The browser's lobby as a casino's looks: four tables and a jackpot of five figures,
at a big screen, a laptop, a tablet and a phone. Each of a card's facts reads on one
line; the notices leave the heading's words and the jackpot in view.

Needs Debian's Chromium, like tests/test_web.py.
"""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, BrowserContext, Page, ViewportSize, expect

from tests.conftest import ServerFactory
from tests.test_web import ARTIFACTS, browser, needs_chromium
from tests.test_web_layout import PHONE, enter, new_page

__all__ = ["browser"]  # the fixture used below

pytestmark = needs_chromium

FOUR = [
    {"id": "nine", "title": "Nine Seats", "variant": "casino-stud", "seats": 9},
    {"id": "stud-1", "title": "Stud Poker", "variant": "stud-poker", "seats": 7},
    {"id": "bermuda-1", "title": "Bermuda", "variant": "bermuda", "seats": 7},
    {"id": "solo", "title": "Solo casino", "variant": "casino-stud", "seats": 5},
]
JACKPOT = {"main": {"seed": 1_008_470, "contribution_bp": 5000}}  # $10,084.70
SIZES: dict[str, ViewportSize] = {
    "1920": {"width": 1920, "height": 1080},
    "1280": {"width": 1280, "height": 800},
    "768": {"width": 768, "height": 1024},
    "390": PHONE,
}

WRAPPED = """(sel) => [...document.querySelectorAll(sel)].filter((el) => {
  const r = el.getBoundingClientRect();
  return r.height > 2 * parseFloat(getComputedStyle(el).fontSize);  // a line is about 1.2
}).map((el) => el.textContent)"""


@pytest.mark.parametrize("size", list(SIZES))
async def test_each_fact_of_a_lobby_card_reads_on_one_line(
    make_server: ServerFactory, browser: Browser, size: str
) -> None:
    """At 1920x1080, four cards a row and a jackpot of $10,084.70, "Hands each" went over
    two lines in every card."""
    context, page, problems = await ann_in_the_lobby(make_server, browser, size)
    wrapped: list[str] = await page.evaluate(WRAPPED, ".facts dt, .facts dd")
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=f"test-artifacts/lobby-facts-{size}.png")
    assert wrapped == [], f"facts over two lines at {size}: {wrapped}"
    await context.close()
    assert problems == []


# A notice and a jackpot's banner, as the page's own modules show them.
NEWS = """async () => {
  const n = await import("./js/notices.js");
  n.showError("Nine Seats: the round you left settled: your raised hand on seat #7 came to "
    + "+$25.00. History shows it.", { code: "left-settled", tone: "ok", sticky: true });
  n.showBanner({ round_id: "r-news", seat: 0, name: "Bo", amount: 100000,
    category: "ROYAL_FLUSH", table: "nine" });
}"""

#: What of the heading (its words, the jackpot) and of the tables the notices cover, or
#: hide; and the notices drawn nowhere on the screen.
COVERED = """() => {
  const notices = [...document.querySelectorAll("#errors > *, #banners > *")]
    .map((el) => el.getBoundingClientRect()).filter((r) => r.width && r.height);
  const over = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5
    && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
  const out = [];
  const parts = ["#lobby .lobby-head h1", "#lobby .lobby-head .lede", "#lobby .lobby-head .fine",
    "#lobby .jackpot-hero .meter", '#lobby [data-testid="table-list"]'];
  for (const sel of parts) {
    const el = document.querySelector(sel);
    if (getComputedStyle(el).visibility !== "visible") out.push(`${sel} hidden`);
    const r = el.getBoundingClientRect();
    if (notices.some((n) => over(n, r))) out.push(`${sel} covered`);
  }
  if (!notices.length) out.push("no notice drawn");
  for (const n of notices) {
    if (n.right > innerWidth + 0.5 || n.left < -0.5) out.push("a notice off the screen");
  }
  return out;
}"""


@pytest.mark.parametrize("size", list(SIZES))
async def test_notices_leave_the_lobby_s_heading_and_jackpot_in_view(
    make_server: ServerFactory, browser: Browser, size: str
) -> None:
    """Lobby notices went over its heading, hiding the welcome, and on a 768x1024 tablet
    over the progressive jackpot as well."""
    context, page, problems = await ann_in_the_lobby(make_server, browser, size)
    tables = await page.get_by_test_id("table-list").bounding_box()
    await page.evaluate(NEWS)
    await expect(page.locator('.toast[data-code="left-settled"]')).to_be_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=f"test-artifacts/lobby-notices-{size}.png")
    assert await page.evaluate(COVERED) == []
    assert await page.get_by_test_id("table-list").bounding_box() == tables  # they stay put
    await context.close()
    assert problems == []


async def ann_in_the_lobby(
    make_server: ServerFactory, browser: Browser, size: str
) -> tuple[BrowserContext, Page, list[str]]:
    """Ann in the lobby of four tables at `size` (the phone by touch), and the page's
    problems, collected."""
    server = await make_server(tables=FOUR, jackpots=JACKPOT)
    problems: list[str] = []
    phone = size == "390"
    context, page = await new_page(
        browser,
        f"http://127.0.0.1:{server.port}/",
        problems,
        viewport=SIZES[size],
        is_mobile=phone,
        has_touch=phone,
    )
    await enter(page, "Ann", tap=phone)
    await expect(page.get_by_test_id("play-solo")).to_be_visible()
    return context, page, problems
