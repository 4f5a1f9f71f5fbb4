"""Words on a big screen (1920x1080), in a real headless Chromium: the jackpot's banner
breaks a winner's name between its words, never inside one, and a lobby card's
paytables keep within the card's padding, a long progressive list too.

Needs Debian's Chromium, like tests/test_web.py.
"""

from __future__ import annotations

from playwright.async_api import Browser, ViewportSize, expect

from tests.conftest import ServerFactory
from tests.test_web import ARTIFACTS, browser, needs_chromium
from tests.test_web_layout import LONG, enter, new_page

__all__ = ["browser"]  # the fixture, used below

pytestmark = needs_chromium

BIG: ViewportSize = {"width": 1920, "height": 1080}

#: A Casino Stud whose progressive pays down to a pair: the lobby's longest list.
JACKPOT_TEST = {
    "title": "Jackpot Test Stud",
    "base": "casino-stud",
    "folded_collects_progressive": False,
    "progressive": {
        "THREE_OF_A_KIND": {"percent": 10},
        "TWO_PAIR": {"percent": 2.5},
        "ONE_PAIR": {"cents": 200},
    },
}
TABLES = [
    {"id": "casino", "title": "Casino Stud 9", "variant": "casino-stud", "seats": 9},
    {"id": "stud", "title": "Stud Poker 9", "variant": "stud-poker", "seats": 9},
    {"id": "bermuda", "title": "Bermuda 9", "variant": "bermuda", "seats": 9},
    {"id": "jack", "title": "Jackpot test", "variant": "jack", "seats": 9},
]

#: What runs past a lobby card's padding on the right: "id: N px".
PAST_PADDING = """() => [...document.querySelectorAll('.table-card')].flatMap((card) => {
  const style = getComputedStyle(card);
  const inner = card.getBoundingClientRect().right - parseFloat(style.borderRightWidth)
    - parseFloat(style.paddingRight) * (card.currentCSSZoom ?? 1);
  return [...card.querySelectorAll('.paytable th, .paytable td, .paytables p, .paytables')]
    .filter((el) => el.getBoundingClientRect().right > inner + 0.5)
    .map((el) => `${card.dataset.testid}: ${el.textContent} ${Math.round(
      el.getBoundingClientRect().right - inner)} px`);
})"""

#: The banner's words cut across two lines: each word's own line boxes.
SPLIT_WORDS = """() => {
  const span = document.querySelector('[data-testid="jackpot-banner"] span:not(.burst)');
  const text = span.firstChild;
  const split = [];
  for (const m of text.data.matchAll(/\\S+/g)) {
    const range = document.createRange();
    range.setStart(text, m.index);
    range.setEnd(text, m.index + m[0].length);
    const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
    if (tops.size > 1) split.push(m[0]);
  }
  return split;
}"""


async def test_a_big_screen_s_lobby_cards_keep_their_paytables_inside_the_padding(
    make_server: ServerFactory, browser: Browser
) -> None:
    """The fourth card's "Progressive pays" ("100% of jackpot", "$2") ran to the card's
    edge, with none of the 16 px the others kept."""
    server = await make_server(tables=TABLES, timers=LONG, variants={"jack": JACKPOT_TEST})
    problems: list[str] = []
    _, page = await new_page(browser, f"http://127.0.0.1:{server.port}/", problems, viewport=BIG)
    await enter(page, "Bartholomew Bigscreen")
    await expect(page.get_by_test_id("lobby")).to_be_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / "wide-lobby-1920.png"))
    assert await page.evaluate(PAST_PADDING) == []
    assert problems == []


async def test_the_jackpot_banner_breaks_a_name_between_its_words(
    make_server: ServerFactory, browser: Browser
) -> None:
    """At 1920x1080 the banner read "JACKPOT! Bartholom / ew Bigscreen won …"."""
    server = await make_server(tables=TABLES, timers=LONG, variants={"jack": JACKPOT_TEST})
    problems: list[str] = []
    _, page = await new_page(browser, f"http://127.0.0.1:{server.port}/", problems, viewport=BIG)
    await enter(page, "Bartholomew Bigscreen")
    await page.get_by_test_id("play-jack").click()
    await expect(page.get_by_test_id("seat-0-name")).to_be_visible()
    await page.evaluate(
        """window.stud.absorb({t: "jackpot_won", table: "jack", round_id: "jack-1", seat: 0,
            player_id: window.stud.state.me.player_id, name: "Bartholomew Bigscreen",
            category: "TWO_PAIR", amount: 1292})"""
    )
    banner = page.get_by_test_id("jackpot-banner")
    await expect(banner).to_contain_text("Bartholomew Bigscreen won $12.92 with a Two Pair")
    await page.screenshot(path=str(ARTIFACTS / "wide-banner-1920.png"))
    assert await page.evaluate(SPLIT_WORDS) == []
    assert problems == []
