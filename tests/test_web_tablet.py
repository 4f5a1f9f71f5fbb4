"""A full nine-seat table between a phone and a laptop: a tablet's 600-1024 px.

Ann (a 24-character name) holds three seats, #1, #5 and #9, of a table with a long
title; players with long, Chinese and emoji names hold the rest; the wallet and the
jackpot have five figures. At every width from 600 to 1024 (and 320, 1280, 2560), in
betting, deciding and showdown, the page never scrolls sideways and the table's head
and rack are inside the window; on a touch screen every control Ann uses is at least
44 px. Screenshots go to test-artifacts/tablet-*.png.

Needs Debian's Chromium, like tests/test_web.py.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Browser, Page, ViewportSize, expect

from clients.connection import StudClient
from tests.conftest import ServerFactory
from tests.decks import shuffles
from tests.test_web import ARTIFACTS, browser, expect_phase, needs_chromium, resize
from tests.test_web_layout import DEALER, HANDS, LONG, cy, enter, new_page

__all__ = ["browser", "cy"]  # the fixtures used below

pytestmark = needs_chromium

TITLED = [
    {
        "id": "nine",
        "title": "Nine-Seat Casino Stud — Long Title Table",
        "variant": "casino-stud",
        "seats": 9,
    }
]
ANN = "Alexandra Konstantinova🎲"  # 24 code points
OTHERS = [
    "Bartholomew Fitzgerald-X",
    "王小明的超级幸运牌桌🀄🎰龍凤呈祥好运来",
    "🃏🎲💰 Lucky Emoji Player 🍀",
]
SEATS = [(1, 2), (3, 5), (6,)]  # the others' seats (0-based); Tess takes #8
WIDTHS = [320, 600, 700, 768, 820, 900, 1024, 1280, 2560]
TABLET: ViewportSize = {"width": 768, "height": 1024}

#: What sticks out of the window sideways: the page's width, and every element of the top
#: bar, the table's head and the rack whose box, as far as it shows (an ancestor that
#: hides its overflow clips it), ends past the window's side.
OFF_SIDE = """() => {
  const shown = (el) => {
    let {left, right} = el.getBoundingClientRect();
    for (let up = el.parentElement; up; up = up.parentElement) {
      if (getComputedStyle(up).overflowX === 'visible') continue;
      const r = up.getBoundingClientRect();
      left = Math.max(left, r.left);
      right = Math.min(right, r.right);
    }
    return {left, right};
  };
  const past = [...document.querySelectorAll(
      '.topbar *, .table-head *, .felt-wrap > .controls *')]
    .filter((el) => el.getClientRects().length && el.getBoundingClientRect().width > 0)
    .filter((el) => { const r = shown(el);
                      return r.right > r.left && (r.right > innerWidth + 0.5 || r.left < -0.5); })
    .map((el) => `${el.className || el.tagName}: ${(el.textContent || '').slice(0, 30)}`);
  return {scrollWidth: document.documentElement.scrollWidth, innerWidth, past};
}"""

#: Controls a touch screen's finger uses, drawn smaller than 44 px either way.
SMALL_TARGETS = """(sel) => [...document.querySelectorAll(sel)]
  .filter((el) => el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden')
  .map((el) => ({id: el.dataset.testid || el.id || el.className, r: el.getBoundingClientRect()}))
  .filter(({r}) => Math.min(r.width, r.height) < 44 - 0.5)
  .map(({id, r}) => `${id} ${r.width.toFixed(0)}x${r.height.toFixed(0)}`)"""

TARGETS = (
    '[data-testid="signup"], [data-testid="signin"], [data-testid="history-button"], '
    '[data-testid="buy-chips"], [data-testid="buy-amount"], [data-testid="leave"], '
    '[data-testid="rebet"], [data-testid="clear"], [data-testid="deal"], '
    '[data-testid="to-side"], [data-testid="verify"], .seed-form .btn, .seed-form input, '
    '[data-testid^="chip-"], [data-testid^="fold-"], '
    '[data-testid^="raise-"]:not([data-testid^="raise-spot"]), '
    '[data-testid^="sit-"], [data-testid^="stand-"], button[data-testid^="progressive-"]'
)


async def seat_everyone(
    page: Page, port: int, cy: list[StudClient], mine: dict[int, tuple[int, ...]]
) -> None:
    """Ann at "nine" on seats #1, #5 and #9; the others two seats each in between."""
    await page.get_by_test_id("play-nine").click()
    await expect(page.get_by_test_id("seat-0").locator(".you")).to_have_count(1)
    for name, seats in zip(OTHERS, SEATS, strict=True):
        client = await StudClient.open(f"ws://127.0.0.1:{port}/ws")
        cy.append(client)
        await client.hello(name=name)
        await client.request("join", table="nine")
        for seat in seats:
            await client.request("sit", table="nine", seat=seat)
        mine[id(client)] = seats
    for seat in (4, 8):
        await page.get_by_test_id(f"sit-{seat}").click()
        await expect(page.get_by_test_id(f"seat-{seat}").locator(".you")).to_have_count(1)


async def nothing_off_the_side(page: Page, what: str) -> None:
    wrong: list[str] = []
    for width in WIDTHS:
        await resize(page, {"width": width, "height": 1024 if width < 1280 else 900})
        await page.wait_for_function("!document.querySelector('[data-dealing=\"true\"]')")
        got: dict[str, Any] = await page.evaluate(OFF_SIDE)
        ARTIFACTS.mkdir(exist_ok=True)
        await page.screenshot(path=str(ARTIFACTS / f"tablet-{what}-{width}.png"))
        if got["scrollWidth"] > got["innerWidth"] or got["past"]:
            wrong.append(f"{width}: {got['scrollWidth']} wide, past the side: {got['past']}")
        cut: list[str] = await page.evaluate(FACTS_CUT) if width >= 1024 else []
        if cut:
            wrong.append(f"{width}: the head's facts cut short: {cut}")
    await resize(page, TABLET)
    assert wrong == [], f"{what}: " + "\n".join(wrong)


async def full_table(
    make_server: ServerFactory, cy: list[StudClient]
) -> tuple[str, dict[int, tuple[int, ...]], int]:
    server = await make_server(
        tables=TITLED,
        shuffle=shuffles([*HANDS, DEALER]),
        timers=LONG,
        wallet={"starting_credits": 1_000_000, "starting_bonus": 250_000},
        jackpots={"main": {"seed": 1_000_000, "contribution_bp": 7000}},
    )
    return f"http://127.0.0.1:{server.port}/", {}, server.port


async def others_bet(cy: list[StudClient], mine: dict[int, tuple[int, ...]], what: str) -> None:
    """The other players' ante and deal (`what` "ante"), or raise every hand."""
    for c in cy:
        for seat in mine[id(c)]:
            if what == "ante":
                await c.request("ante", table="nine", seat=seat, amount=500)
            else:
                await c.request("raise", table="nine", seat=seat)
        if what == "ante":
            await c.request("deal", table="nine")


async def test_a_full_table_never_runs_off_the_side_of_a_tablet(
    make_server: ServerFactory, browser: Browser, cy: list[StudClient]
) -> None:
    """At every width, in every phase, with the longest words a table has: the head's
    phase and jackpot, the rack's lines and the top bar inside the window."""
    url, mine, port = await full_table(make_server, cy)
    problems: list[str] = []
    _, ann = await new_page(browser, url, problems, viewport=TABLET)
    await enter(ann, ANN)
    await seat_everyone(ann, port, cy, mine)
    for seat in (0, 4, 8):
        await ann.get_by_test_id("chip-1000").click()
        await ann.get_by_test_id(f"ante-{seat}").click()
        await ann.get_by_test_id(f"progressive-{seat}").click()
    await nothing_off_the_side(ann, "betting")
    await others_bet(cy, mine, "ante")
    await ann.get_by_test_id("deal").click()
    await expect_phase([ann], "deciding")
    await nothing_off_the_side(ann, "deciding")
    for seat in (0, 4, 8):
        await ann.get_by_test_id(f"raise-{seat}").click()
    await others_bet(cy, mine, "raise")
    await expect_phase([ann], "showdown")
    await nothing_off_the_side(ann, "showdown")
    assert problems == []


async def test_a_touch_screen_s_targets_are_44_px_at_a_tablet_s_width(
    make_server: ServerFactory, browser: Browser, cy: list[StudClient]
) -> None:
    """A finger on a 768 px tablet: the lobby's Play and Watch, the top bar's buttons,
    the rack's, the seats', the side panel's and History's are at least 44 px."""
    url, mine, port = await full_table(make_server, cy)
    problems: list[str] = []
    _, ann = await new_page(browser, url, problems, viewport=TABLET)
    _, tab = await new_page(browser, url, problems, viewport=TABLET, has_touch=True, is_mobile=True)
    await enter(ann, ANN)
    await enter(tab, "Tess", tap=True)
    lobby: list[str] = await tab.evaluate(
        SMALL_TARGETS, '[data-testid="play-nine"], [data-testid="watch-nine"]'
    )
    assert lobby == [], f"the lobby's buttons under 44 px on a touch screen: {lobby}"
    await seat_everyone(ann, port, cy, mine)
    await tab.get_by_test_id("play-nine").tap()  # Tess takes the free seat #8
    await expect(tab.get_by_test_id("seat-7").locator(".you")).to_have_count(1)
    await tab.get_by_test_id("chip-500").tap()
    await tab.get_by_test_id("ante-7").tap()
    small: list[str] = await tab.evaluate(SMALL_TARGETS, TARGETS)
    assert small == [], f"betting: touch targets under 44 px: {small}"
    for seat in (0, 4, 8):
        await ann.get_by_test_id("chip-1000").click()
        await ann.get_by_test_id(f"ante-{seat}").click()
    await others_bet(cy, mine, "ante")
    await ann.get_by_test_id("deal").click()
    await tab.get_by_test_id("deal").tap()
    await expect_phase([ann, tab], "deciding")
    small = await tab.evaluate(SMALL_TARGETS, TARGETS)
    ARTIFACTS.mkdir(exist_ok=True)
    await tab.screenshot(path=str(ARTIFACTS / "tablet-touch-deciding.png"), full_page=True)
    assert small == [], f"deciding: touch targets under 44 px: {small}"
    await tab.get_by_test_id("history-button").tap()
    await expect(tab.get_by_test_id("history-panel")).to_be_visible()
    small = await tab.evaluate(SMALL_TARGETS, '[data-testid="history-panel"] button')
    assert small == [], f"History: touch targets under 44 px: {small}"
    assert problems == []


#: The table head's facts (limits, watchers) drawn cut short: wider than their box.
FACTS_CUT = """() => [...document.querySelectorAll('.table-head .limits, .table-head .watchers')]
  .filter((el) => el.getClientRects().length && el.scrollWidth > el.clientWidth + 1)
  .map((el) => `${el.textContent} (${el.scrollWidth} px in ${el.clientWidth})`)"""


async def test_the_table_head_s_facts_read_whole_beside_a_long_title(
    make_server: ServerFactory, browser: Browser, cy: list[StudClient]
) -> None:
    """A laptop's head with a long title: the title gives way, not the limits and the
    watchers ("Ante $1 – $100 · Progr…", "0 watchi…" at 1280, "0 wat…" at 1024)."""
    url, _, _ = await full_table(make_server, cy)
    problems: list[str] = []
    _, ann = await new_page(browser, url, problems, viewport={"width": 1280, "height": 800})
    await enter(ann, ANN)
    await ann.get_by_test_id("watch-nine").click()  # an empty table
    await expect(ann.get_by_test_id("table-view")).to_have_attribute("data-role", "spectator")
    for width, height in ((1280, 800), (1024, 768), (1440, 900), (1101, 800)):
        await resize(ann, {"width": width, "height": height})
        cut: list[str] = await ann.evaluate(FACTS_CUT)
        assert cut == [], f"{width}x{height}: the head's facts cut short: {cut}"
    assert problems == []


async def test_a_phone_labels_a_player_s_own_seats_alike(
    make_server: ServerFactory, browser: Browser, cy: list[StudClient]
) -> None:
    """A 390 px phone, a 24-character name on three seats: each seat's nameplate says
    the same but for its number (it read "Alexan…", "Alexandra Ko…", "Alexandra K…",
    cut by each hand's own words beside it)."""
    url, mine, port = await full_table(make_server, cy)
    problems: list[str] = []
    phone: ViewportSize = {"width": 390, "height": 844}
    _, ann = await new_page(browser, url, problems, viewport=phone, has_touch=True, is_mobile=True)
    await enter(ann, ANN, tap=True)
    await seat_everyone(ann, port, cy, mine)
    for seat in (0, 4, 8):
        await ann.get_by_test_id("chip-1000").tap()
        await ann.get_by_test_id(f"ante-{seat}").tap()
    await others_bet(cy, mine, "ante")
    await ann.get_by_test_id("deal").tap()
    await expect_phase([ann], "deciding")
    await ann.wait_for_function("!document.querySelector('[data-dealing=\"true\"]')")
    labels: list[str] = await ann.evaluate(
        """() => [0, 4, 8].map((n) => {
          const plate = document.querySelector(`[data-testid="seat-${n}-name"]`);
          const name = plate.querySelector('.name');
          const cut = name && name.getClientRects().length
            && name.scrollWidth > name.clientWidth + 1;
          return plate.innerText.replace(/\\s+/g, ' ').replace(/#\\d/, '#N').trim()
            + (cut ? ' (cut)' : '');
        })"""
    )
    ARTIFACTS.mkdir(exist_ok=True)
    await ann.screenshot(path=str(ARTIFACTS / "tablet-phone-own-seats.png"), full_page=True)
    assert len(set(labels)) == 1 and "(cut)" not in labels[0], labels
    assert problems == []
