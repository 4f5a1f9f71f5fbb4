"""A tab whose player now plays in another tab or device: it says so, and shows the
table as it stood when the game went there, not as a table in play.

Needs Debian's Chromium, like tests/test_web.py.
"""

from __future__ import annotations

import json

from playwright.async_api import Browser, ViewportSize, expect

from tests.conftest import ServerFactory
from tests.test_web import (
    ARTIFACTS,
    browser,
    build_ante,
    collect_problems,
    enter,
    expect_phase,
    needs_chromium,
    open_page,
    resize,
)
from tests.test_web_layout import PHONE

__all__ = ["browser"]  # the fixture used below

pytestmark = needs_chromium

SIZES: dict[str, ViewportSize] = {
    "1280": {"width": 1280, "height": 800},
    "768": {"width": 768, "height": 1024},
    "390": PHONE,
}

#: How much of the felt and of the head's jackpot is drawn at full strength.
DIMMED = """() => {
  const seen = (el) => {
    let o = 1;
    for (let e = el; e; e = e.parentElement) o *= parseFloat(getComputedStyle(e).opacity);
    return o;
  };
  return {dealer: seen(document.querySelector('[data-testid="dealer-cards"]')),
          seat: seen(document.querySelector('[data-testid="seat-0-cards"]')),
          jackpot: seen(document.querySelector('[data-testid="jackpot-meter"]')),
          message: seen(document.querySelector('[data-testid="table-message"]'))};
}"""


async def test_a_tab_played_elsewhere_shows_no_stale_table_as_live(
    make_server: ServerFactory, browser: Browser
) -> None:
    """The displaced tab froze on its last showdown as if live: the "Showdown" pill, the
    old cards at full strength, the jackpot as it was, and the rack's "Keys: none act
    until the connection is back", though the connection was fine: the game was played
    in another tab."""
    server = await make_server(timers={"betting": 60, "decision": 60, "results": 60})
    problems: list[str] = []
    url = f"http://127.0.0.1:{server.port}/"
    ann = await open_page(browser, url, problems)
    await enter(ann, "Ann")
    await ann.get_by_test_id("play-alpha").click()
    await build_ante(ann, 0, [(500, "left")])
    await ann.get_by_test_id("deal").click()
    await ann.get_by_test_id("raise-0").click()
    await expect_phase([ann], "showdown")

    token = await ann.evaluate("sessionStorage.getItem('stud.token')")
    twin = await ann.context.new_page()
    collect_problems(twin, problems)
    await twin.add_init_script(f"sessionStorage.setItem('stud.token', {json.dumps(token)})")
    await twin.goto(url)
    await expect(twin.get_by_test_id("seat-0-name")).to_contain_text("Ann")
    await expect(ann.get_by_test_id("conn-status")).to_have_text("Playing in another tab or device")

    phase = ann.get_by_test_id("phase")
    await expect(phase).to_have_text("Playing elsewhere")
    await expect(ann.get_by_test_id("key-help")).not_to_contain_text("connection")
    await expect(ann.get_by_test_id("key-help")).to_contain_text("elsewhere")
    await expect(ann.get_by_test_id("table-message")).to_contain_text("as it stood")
    shown = await ann.evaluate(DIMMED)
    assert shown["dealer"] < 1 and shown["seat"] < 1 and shown["jackpot"] < 1, shown
    assert shown["message"] == 1, shown
    ARTIFACTS.mkdir(exist_ok=True)
    for size, viewport in SIZES.items():
        await resize(ann, viewport)
        await expect(ann.get_by_test_id("felt-play-here")).to_be_visible()
        await ann.screenshot(path=str(ARTIFACTS / f"elsewhere-{size}.png"))
    await resize(ann, SIZES["1280"])

    # its own "Play here", where the news is, brings the game back
    await ann.get_by_test_id("felt-play-here").click()
    await expect(ann.get_by_test_id("conn-status")).to_have_text("Connected")
    await expect(phase).not_to_have_text("Playing elsewhere")
    await expect(ann.get_by_test_id("felt-play-here")).to_have_count(0)
    await expect(twin.get_by_test_id("phase")).to_have_text("Playing elsewhere")
    assert problems == []
