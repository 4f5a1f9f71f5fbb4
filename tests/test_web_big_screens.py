"""The browser client on a big screen (1920x1080, 2560x1440) at a full nine-seat table.

At those sizes the page was drawn as on a laptop, in a corner of the room: text of
11-12 px, small cards and seats, most of the felt empty. What a player judges there:
the words read at 15 px at least, the cards are bigger than a laptop's, the seats
span the felt's width and the dealer and the seats its height, centred, and nothing
overlaps or runs off the screen (tests/test_web_layout.py's checks). Screenshots go to
test-artifacts/layout-big-*.png.

Needs Debian's Chromium, like tests/test_web.py.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Browser, Page, ViewportSize

from clients.connection import StudClient
from tests.conftest import ServerFactory
from tests.decks import shuffles
from tests.test_web import browser, expect_phase, needs_chromium, resize
from tests.test_web_layout import (
    DEALER,
    HANDS,
    LONG,
    NINE,
    OWN_BETTING,
    OWN_DECIDING,
    check_layout,
    cy,
    enter,
    new_page,
    sit_three,
)

__all__ = ["browser", "cy"]  # the fixtures used below

pytestmark = needs_chromium

BIG: list[ViewportSize] = [{"width": 1920, "height": 1080}, {"width": 2560, "height": 1440}]

#: The words a player reads at the table (seats, the dealer's message, the rack's line,
#: the head, the paytable) at the size drawn on the screen, the smallest of each kind;
#: the seats' cards; the boxes of the felt, its seats and the dealer.
SIZES = """() => {
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    return r.width >= 1 && r.height >= 1;
  };
  const px = (el) => parseFloat(getComputedStyle(el).fontSize) * (el.currentCSSZoom ?? 1);
  const text = {};
  for (const sel of ['#table .nameplate', '#table .hand-label', '#table .seat-status',
                     '#table .table-message', '#table .selected-line', '#table .limits',
                     '#table .paytable th', '#table .fair-facts dt', '.wallet dd']) {
    const sizes = [...document.querySelectorAll(sel)].filter(shown).map(px);
    text[sel] = sizes.length ? Math.min(...sizes) : null;
  }
  const box = (el) => el.getBoundingClientRect();
  const felt = document.querySelector('[data-testid="felt"]');
  const f = box(felt);
  const inner = {left: f.left + felt.clientLeft * (felt.currentCSSZoom ?? 1),
                 top: f.top + felt.clientTop * (felt.currentCSSZoom ?? 1)};
  inner.right = f.right - (inner.left - f.left);
  inner.bottom = f.bottom - (inner.top - f.top);
  const seats = [...document.querySelectorAll('#table .seat.arc')].map(box);
  const dealer = box(document.querySelector('#table .felt .dealer'));
  const cards = [...document.querySelectorAll('#table .seat.arc .card')].map((c) => box(c).width);
  return {
    text, felt: inner,
    seats: {left: Math.min(...seats.map((r) => r.left)),
            right: Math.max(...seats.map((r) => r.right)),
            top: Math.min(...seats.map((r) => r.top)),
            bottom: Math.max(...seats.map((r) => r.bottom))},
    dealerTop: dealer.top, card: cards.length ? Math.min(...cards) : null,
  };
}"""


async def check_big(page: Page, what: str, own: str | None, *, cards: bool) -> None:
    for size in BIG:
        where = f"{what} at {size['width']}x{size['height']}"
        await resize(page, size)
        await page.wait_for_function("!document.querySelector('[data-dealing=\"true\"]')")
        got: dict[str, Any] = await page.evaluate(SIZES)
        small = {sel: px for sel, px in got["text"].items() if px is not None and px < 15}
        assert small == {}, f"{where}: words under 15 px: {small}"
        felt, seats = got["felt"], got["seats"]
        width, height = felt["right"] - felt["left"], felt["bottom"] - felt["top"]
        spread = (seats["right"] - seats["left"]) / width
        assert spread >= 0.85, f"{where}: the seats span {spread:.0%} of the felt's width ({got})"
        off = abs((seats["left"] + seats["right"]) / 2 - (felt["left"] + felt["right"]) / 2)
        assert off <= 0.03 * width, f"{where}: the seats are {off:.0f} px off the felt's middle"
        used = (seats["bottom"] - got["dealerTop"]) / height
        assert used >= 0.8, f"{where}: the dealer and seats fill {used:.0%} of its height ({got})"
        if cards:  # bigger than a laptop's, 46 px at most there
            assert got["card"] >= 48, f"{where}: the seats' cards are {got['card']:.0f} px wide"
        await check_layout(page, f"big-{what}-{size['width']}x{size['height']}", own)


async def test_a_full_table_uses_a_big_screen(
    make_server: ServerFactory, browser: Browser, cy: list[StudClient]
) -> None:
    server = await make_server(tables=NINE, shuffle=shuffles([*HANDS, DEALER]), timers=LONG)
    problems: list[str] = []
    _, ann = await new_page(browser, f"http://127.0.0.1:{server.port}/", problems, viewport=BIG[0])
    await enter(ann, "Ann")
    await sit_three(ann, 0)
    for name in ("Bob", "Cy"):
        client = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
        cy.append(client)
        await client.hello(name=name)
        await client.request("join", table="nine")
        for _ in range(3):
            await client.request("sit", table="nine")
    for seat in (0, 1, 2):
        await ann.get_by_test_id("chip-1000").click()
        await ann.get_by_test_id(f"ante-{seat}").click()
    await check_big(ann, "betting", OWN_BETTING, cards=False)

    for n, client in enumerate(cy):
        for seat in range(3 + 3 * n, 6 + 3 * n):
            await client.request("ante", table="nine", seat=seat, amount=500)
        await client.request("deal", table="nine")
    await ann.get_by_test_id("deal").click()
    await expect_phase([ann], "deciding")
    await check_big(ann, "deciding", OWN_DECIDING, cards=True)
    await resize(ann, {"width": 1280, "height": 800})  # a laptop's page is drawn as it was
    await check_layout(ann, "big-deciding-back-at-1280x800", OWN_DECIDING)
    assert problems == []
