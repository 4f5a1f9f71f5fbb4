"""The browser client on a big screen (1920x1080, 2560x1440) at a full nine-seat table.

At those sizes the page was drawn as on a 1280x800 laptop: words of 11-14 px, small
cards, most of the felt empty. What a player judges there, measured against the same
table at 1280x800 (relative sizes, as drawn on the screen): the seats' words, the
dealer's message, the frame around the felt (top bar, the table's head, the side panel,
the rack) and the cards grow with the screen, and more from 1920 to 2560; and nothing
overlaps, is cut or runs off the screen (tests/test_web_layout.py's checks). Long names
stay whole at 1920 px: tests/test_web_name_room.py. Screenshots go to
test-artifacts/layout-big-*.png.

Needs Debian's Chromium, like tests/test_web.py.
"""

from __future__ import annotations

from typing import Any

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
    OWN_DECIDING,
    check_layout,
    cy,
    enter,
    new_page,
    sit_three,
)

__all__ = ["browser", "cy"]  # the fixtures used below

pytestmark = needs_chromium

LAPTOP: ViewportSize = {"width": 1280, "height": 800}
BIG: list[ViewportSize] = [{"width": 1920, "height": 1080}, {"width": 2560, "height": 1440}]

#: Each kind of word a player reads, at the size drawn on the screen (the smallest of
#: its kind), and the smallest card of the seats and of the dealer, in px as drawn.
SIZES = """() => {
  const shown = (el) => el.getClientRects().length > 0;
  const px = (el) => parseFloat(getComputedStyle(el).fontSize) * (el.currentCSSZoom ?? 1);
  const least = (sel) => {
    const sizes = [...document.querySelectorAll(sel)].filter(shown).map(px);
    return sizes.length ? Math.min(...sizes) : null;
  };
  const width = (sel) => {
    const sizes = [...document.querySelectorAll(sel)].filter(shown)
      .map((el) => el.getBoundingClientRect().width);
    return sizes.length ? Math.min(...sizes) : null;
  };
  return {
    words: {
      name: least('#table .seat.arc:not(.mine) .nameplate .name'),
      hand: least('#table .seat.arc .hand-label'),
      status: least('#table .seat.arc .seat-status'),
      decide: least('#table .seat.arc .btn.fold, #table .seat.arc .btn.raise'),
      message: least('#table .table-message'),
      head: least('.table-head h1'),
      rack: least('#table .controls .selected-line'),
      side: least('#table .paytable th'),
      topbar: least('.topbar .who'),
    },
    cards: {seat: width('#table .seat.arc .card'), dealer: width('#table .dealer .card')},
  };
}"""


async def measure(page: Page, size: ViewportSize) -> dict[str, Any]:
    await resize(page, size)
    await page.wait_for_function("!document.querySelector('[data-dealing=\"true\"]')")
    got: dict[str, Any] = await page.evaluate(SIZES)
    return got


def smaller(a: dict[str, Any], b: dict[str, Any], by: float) -> list[str]:
    """What of `b` is not at least `by` times its size in `a`."""
    out = []
    for part in ("words", "cards"):
        for what, was in a[part].items():
            now = b[part][what]
            if was is None or now is None or now < was * by:
                out.append(f"{what}: {was} -> {now}")
    return out


async def test_a_full_table_grows_with_a_big_screen(
    make_server: ServerFactory, browser: Browser, cy: list[StudClient]
) -> None:
    server = await make_server(tables=NINE, shuffle=shuffles([*HANDS, DEALER]), timers=LONG)
    problems: list[str] = []
    url = f"http://127.0.0.1:{server.port}/"
    _, ann = await new_page(browser, url, problems, viewport=LAPTOP)
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
    for n, client in enumerate(cy):
        for seat in range(3 + 3 * n, 6 + 3 * n):
            await client.request("ante", table="nine", seat=seat, amount=500)
        await client.request("deal", table="nine")
    await ann.get_by_test_id("deal").click()
    await expect_phase([ann], "deciding")

    laptop = await measure(ann, LAPTOP)
    wide = await measure(ann, BIG[0])
    await check_layout(ann, "big-deciding-1920x1080", OWN_DECIDING)
    widest = await measure(ann, BIG[1])
    await check_layout(ann, "big-deciding-2560x1440", OWN_DECIDING)
    # a laptop's words and cards, a tenth bigger at 1920 at least, and bigger again at 2560
    assert smaller(laptop, wide, 1.1) == [], (laptop, wide)
    assert smaller(wide, widest, 1.15) == [], (wide, widest)
    # the seats' cards are a good deal bigger than a laptop's: a third at 1920
    assert wide["cards"]["seat"] >= 1.33 * laptop["cards"]["seat"], (laptop, wide)

    for seat in (0, 1, 2):
        await ann.get_by_test_id(f"raise-{seat}").click()
    for n, client in enumerate(cy):
        for seat in range(3 + 3 * n, 6 + 3 * n):
            await client.request("raise", table="nine", seat=seat)
    await expect_phase([ann], "showdown")
    for size in BIG:
        await resize(ann, size)
        await check_layout(ann, f"big-showdown-{size['width']}x{size['height']}", None)
    await resize(ann, LAPTOP)  # a laptop's page is drawn as it was
    await check_layout(ann, "big-showdown-back-at-1280x800", None)
    assert problems == []


#: The font size and height, as drawn, of a seat's buttons and numbers beside its name.
SEAT_BITS = """() => {
  const px = (el) => parseFloat(getComputedStyle(el).fontSize) * (el.currentCSSZoom ?? 1);
  const at = (sel) => {
    const el = document.querySelector(sel);
    return el ? {font: px(el), height: el.getBoundingClientRect().height} : null;
  };
  return {
    name: at('[data-testid="seat-0-name"] .name'),
    sit: at('[data-testid="sit-6"]'),
    stand: at('[data-testid="stand-0"]'),
    number: at('[data-testid="seat-0-name"] .seat-no'),
    longName: at('[data-testid="seat-3-name"] .name'),
    longNumber: at('[data-testid="seat-3-name"] .seat-no'),
  };
}"""


async def test_a_big_screen_grows_the_seats_buttons_and_numbers_with_their_words(
    make_server: ServerFactory, browser: Browser, cy: list[StudClient]
) -> None:
    """At 2560x1440 "+ Hand", "Stand up" and the "#N" after a name were a laptop's 12 px
    and 10 px beside names of 22 px: they grow as the seat's name does."""
    server = await make_server(tables=NINE, timers=LONG)
    problems: list[str] = []
    url = f"http://127.0.0.1:{server.port}/"
    _, ann = await new_page(browser, url, problems, viewport=LAPTOP)
    await enter(ann, "Ann")
    await ann.get_by_test_id("play-nine").click()
    await ann.get_by_test_id("sit-1").click()  # two hands: a free seat offers her a third
    await expect(ann.get_by_test_id("seat-1").locator(".you")).to_have_count(1)
    client = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    cy.append(client)
    await client.hello(name="Bartholomew Fitzgerald!")  # a long name: its number a size smaller
    await client.request("join", table="nine")
    for _ in range(3):
        await client.request("sit", table="nine")
    await ann.get_by_test_id("seat-4-name").wait_for()
    sizes = {}
    for size in (LAPTOP, BIG[1]):
        await resize(ann, size)
        sizes[size["width"]] = await ann.evaluate(SEAT_BITS)
        await ann.screenshot(path=str(ARTIFACTS / f"layout-big-free-seats-{size['width']}.png"))
    laptop, big = sizes[1280], sizes[2560]
    grown = big["name"]["font"] / laptop["name"]["font"]
    assert grown > 1.3, (laptop, big)
    for what in ("sit", "stand", "number"):
        for part in ("font", "height") if what in ("sit", "stand") else ("font",):
            assert big[what][part] >= 0.9 * grown * laptop[what][part], (what, part, laptop, big)
    # a long name's number follows the long name's size (its seat's width)
    long_grown = big["longName"]["font"] / laptop["longName"]["font"]
    assert long_grown > 1.2, (laptop, big)
    least = 0.9 * long_grown * laptop["longNumber"]["font"]
    assert big["longNumber"]["font"] >= least, (laptop, big)
    assert problems == []
