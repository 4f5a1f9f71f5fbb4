"""A phone betting three hands, in a real headless Chromium (390x844, touch).

The rack of chips sticks to the bottom of the screen while bets are open. It covered
the third hand's − and Progressive buttons: the page scrolls that hand whole above the
rack, and a hand selected (tapped) is scrolled clear of it.

Needs Debian's Chromium, like tests/test_web.py.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Browser, Page, expect

from tests.conftest import ServerFactory
from tests.test_web import browser, needs_chromium
from tests.test_web_layout import LONG, NINE, PHONE, enter, new_page, sit_three

__all__ = ["browser"]  # the fixture used below

pytestmark = needs_chromium

#: The bottom of seat N's buttons (its − and Progressive) and the top of the rack, as drawn.
CLEARANCE = """(n) => {
  const rack = document.querySelector('#table .felt-wrap > .controls').getBoundingClientRect();
  const parts = [`seat-${n}`, `progressive-${n}`, `chip-remove-${n}`]
    .map((id) => document.querySelector(`[data-testid="${id}"]`).getBoundingClientRect());
  return {bottom: Math.max(...parts.map((r) => r.bottom)),
          top: Math.min(...parts.map((r) => r.top)),
          rackTop: rack.top, screen: window.innerHeight};
}"""


#: Whether seat N's Progressive button is drawn above the rack.
CLEAR = """(n) => {
  const rack = document.querySelector('#table .felt-wrap > .controls');
  const button = document.querySelector(`[data-testid="progressive-${n}"]`);
  return button.getBoundingClientRect().bottom <= rack.getBoundingClientRect().top;
}"""


async def clear_of_rack(page: Page, seat: int) -> dict[str, Any]:
    got: dict[str, Any] = await page.evaluate(CLEARANCE, seat)
    return got


async def test_a_phone_shows_its_third_hand_clear_of_the_rack(
    make_server: ServerFactory, browser: Browser
) -> None:
    server = await make_server(tables=NINE, timers=LONG)
    problems: list[str] = []
    url = f"http://127.0.0.1:{server.port}/"
    _, bob = await new_page(browser, url, problems, viewport=PHONE, is_mobile=True, has_touch=True)
    await enter(bob, "Bob", tap=True)
    await sit_three(bob, 0, tap=True)
    await bob.get_by_test_id("chip-500").tap()
    for seat in (0, 1, 2):
        await bob.get_by_test_id(f"ante-{seat}").tap()
        await expect(bob.get_by_test_id(f"chip-remove-{seat}")).to_be_visible()

    # scrolled to the end of the felt, the last hand's buttons are above the rack
    await bob.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    end = await clear_of_rack(bob, 2)
    assert end["bottom"] <= end["rackTop"], end

    # from the top, tapping the third hand (its name shows above the rack) selects it and
    # brings it whole into view, clear of the rack
    await bob.evaluate("window.scrollTo(0, 0)")
    await bob.get_by_test_id("seat-0").tap()
    await expect(bob.get_by_test_id("seat-0")).to_have_attribute("data-selected", "true")
    top = await clear_of_rack(bob, 2)
    assert top["bottom"] > top["rackTop"], ("the test needs the third hand under the rack", top)
    await bob.get_by_test_id("seat-2-name").tap()
    await expect(bob.get_by_test_id("seat-2")).to_have_attribute("data-selected", "true")
    await bob.wait_for_function(CLEAR, arg=2)
    shown = await clear_of_rack(bob, 2)
    assert shown["bottom"] <= shown["rackTop"] and shown["top"] >= 0, shown
    assert problems == []
