"""The browser client at a full nine-seat table, at laptop, desktop and phone sizes.

Three players hold three seats each and a fourth person watches: Ann in a
desktop window (1280x800, 1440x900, 1920x1080, 1024x768), Bob on a 390x844 phone (touch,
mobile), Cy over a plain connection, Wendy watching in a desktop window. At
every size, in betting, deciding and showdown: no two seats' cards,
nameplates, betting spots or results overlap; the player's own controls are on
screen without scrolling; the phone never scrolls sideways and its touch
targets are at least 44 px. The deal is shown card by card in the table's deal
order (and at once for a user who asked for reduced motion). Rebet and Clear,
the tap that takes a chip off, and a round played from the keyboard are here
too. Screenshots go to test-artifacts/layout-*.png.

Needs Debian's Chromium, like tests/test_web.py.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import Browser, BrowserContext, Page, ViewportSize, expect

from clients.connection import StudClient
from tests.conftest import ServerFactory
from tests.decks import shuffles
from tests.layout_probes import (
    BUTTONS_PAST_SEATS,
    CHROME,
    CONTROLS,
    CUT_WORDS,
    MARK_AND_STATUS,
    MEASURE,
    RESULTS_IN_VIEW,
    RESULTS_UNDER_TOASTS,
    SEATS_ON_FELT,
    SIDE_MORE,
    SMALL_TEXT,
    TOAST_CLEAR,
    WATCH_DEAL,
    WORDS_PAST_CIRCLES,
)
from tests.test_web import (
    ARTIFACTS,
    WAIT_MS,
    browser,
    collect_problems,
    expect_cents,
    expect_phase,
    needs_chromium,
    resize,
)

__all__ = ["browser"]  # the fixture used below

pytestmark = needs_chromium

LAPTOPS: list[ViewportSize] = [
    {"width": 1280, "height": 800},
    {"width": 1440, "height": 900},
    {"width": 1920, "height": 1080},
    {"width": 1024, "height": 768},  # a small laptop or a tablet held sideways
]
WIDEST: ViewportSize = {"width": 2560, "height": 1440}
PHONE: ViewportSize = {"width": 390, "height": 844}
BOB = "Bob Bartholomew-Fitzwill"  # the phone's player: a name as long as names go
NINE = [{"id": "nine", "title": "Nine", "variant": "casino-stud", "seats": 9}]
LONG = {"betting": 60, "decision": 60, "results": 60}  # only the players move the round on

# nine hands in seat order, then the dealer: every card known in advance
HANDS = [
    ["Kh", "Kd", "7s", "7c", "2d"],
    ["9c", "8d", "4h", "3s", "2h"],
    ["Ah", "Kc", "9h", "7d", "2c"],
    ["Qs", "Qd", "Jh", "5c", "3d"],
    ["Tc", "Td", "Th", "4s", "6h"],
    ["As", "Ks", "Js", "8s", "5s"],
    ["6c", "6d", "9s", "8c", "3c"],
    ["Jc", "Jd", "4c", "4d", "9d"],
    ["Ts", "8h", "7h", "6s", "5d"],
]
DEALER = ["Ac", "Ad", "Qh", "Qc", "5h"]

OWN_BETTING = (
    '[data-testid^="chip-"]:not([data-testid^="chip-remove"]), [data-testid="deal"], '
    '[data-testid="rebet"], [data-testid="clear"]'
)
OWN_DECIDING = '[data-testid^="fold-"], [data-testid^="raise-"]:not([data-testid^="raise-spot"])'
TOUCH = (
    f'{OWN_BETTING}, {OWN_DECIDING}, [data-testid^="chip-remove-"], '
    'button[data-testid^="progressive-"], '
    '[data-testid^="sit-"], [data-testid="leave"], [data-testid="history-button"], '
    '[data-testid="buy-chips"], [data-testid="buy-amount"], [data-testid="side-toggle"], '
    '[data-testid^="sign"]'
)


def deal_order(seats: list[int]) -> list[str]:
    """PROTOCOL.md section 6: one card to each betting seat in seat order, then the dealer."""
    return [f"{who}:{k}" for k in range(5) for who in [*map(str, seats), "dealer"]]


async def new_page(
    browser: Browser, url: str, problems: list[str], **options: Any
) -> tuple[BrowserContext, Page]:
    context = await browser.new_context(**options)
    context.set_default_timeout(WAIT_MS)
    page = await context.new_page()
    collect_problems(page, problems)
    await page.goto(url)
    return context, page


async def enter(page: Page, name: str, *, tap: bool = False) -> None:
    await page.get_by_test_id("name-input").fill(name)
    if tap:
        await page.get_by_test_id("enter").tap()
    else:
        await page.get_by_test_id("enter").click()
    await expect(page.get_by_test_id("player-name")).to_have_text(name)


async def sit_three(page: Page, first: int, *, tap: bool = False) -> None:
    """Play at table nine (the lowest free seat), then take the next two with "+ Hand"."""
    play = page.get_by_test_id("play-nine")
    await (play.tap() if tap else play.click())
    for seat in (first, first + 1, first + 2):
        if seat != first:
            sit = page.get_by_test_id(f"sit-{seat}")
            await (sit.tap() if tap else sit.click())
        await expect(page.get_by_test_id(f"seat-{seat}").locator(".you")).to_have_count(1)


async def bots_at_four_to_nine(port: int, bots: list[StudClient]) -> None:
    """Six bots take seats #4-#9 of table nine, each with a $5 ante, and say Deal: the
    table full beside a player at #1-#3, betting open until that player deals."""
    for seat in range(3, 9):
        bot = await StudClient.open(f"ws://127.0.0.1:{port}/ws")
        bots.append(bot)
        await bot.hello(name=f"bot{seat + 1}")
        await bot.request("join", table="nine")
        await bot.request("sit", table="nine", seat=seat)
        await bot.request("ante", table="nine", seat=seat, amount=500)
        await bot.request("deal", table="nine")


async def everyone_raises(ann: Page, bots: list[StudClient], seats: list[list[int]]) -> None:
    """Ann bets $5 with the progressive on her seats #1-#3 and deals; the bots (their
    antes in, on `seats`) deal; every hand raises, to the showdown's results."""
    for seat in (0, 1, 2):
        await ann.get_by_test_id("chip-500").click()
        await ann.get_by_test_id(f"ante-{seat}").click()
        await ann.get_by_test_id(f"progressive-{seat}").click()
    await ann.get_by_test_id("deal").click()
    for bot in bots:
        await bot.request("deal", table="nine")
    await expect_phase([ann], "deciding")
    for seat in (0, 1, 2):
        await ann.get_by_test_id(f"raise-{seat}").click()
    for bot, theirs in zip(bots, seats, strict=True):
        for seat in theirs:
            await bot.request("raise", table="nine", seat=seat)


async def check_layout(page: Page, what: str, own: str | None, *, phone: bool = False) -> None:
    """No two seats' boxes overlap; own controls on screen at the top of the page; no
    sideways scroll on a phone; no text under 10 px or past its circle; a screenshot."""
    await page.wait_for_function("!document.querySelector('[data-dealing=\"true\"]')")
    await page.evaluate("window.scrollTo(0, 0)")
    got: dict[str, Any] = await page.evaluate(MEASURE)
    assert got["seats"] == 9, f"{what}: {got['seats']} seats drawn"
    assert got["pairs"] == [], f"{what}: overlapping seats: {got['pairs']}"
    assert got["inside"] == [], f"{what}: a seat's rows overlap: {got['inside']}"
    assert got["scrollWidth"] <= got["innerWidth"], f"{what}: the page scrolls sideways"
    if own is not None:
        controls: list[dict[str, Any]] = await page.evaluate(CONTROLS, own)
        assert controls, f"{what}: no own controls drawn"
        for c in controls:
            inside = c["x"] >= 0 and c["y"] >= 0 and c["right"] <= got["innerWidth"]
            assert inside and c["bottom"] <= got["innerHeight"], (
                f"{what}: {c['id']} is off screen ({c})"
            )
    chrome: list[str] = await page.evaluate(CHROME)
    assert chrome == [], f"{what}: {chrome}"
    small_text: list[str] = await page.evaluate(SMALL_TEXT)
    assert small_text == [], f"{what}: text under 10 px: {small_text}"
    past: list[str] = await page.evaluate(WORDS_PAST_CIRCLES)
    assert past == [], f"{what}: words past their circles: {past}"
    spilt: list[str] = await page.evaluate(BUTTONS_PAST_SEATS)
    assert spilt == [], f"{what}: buttons past their seat: {spilt}"
    cut: list[str] = await page.evaluate(CUT_WORDS)
    assert cut == [], f"{what}: a seat's words cut short: {cut}"
    railed: list[str] = await page.evaluate(SEATS_ON_FELT)
    assert railed == [], f"{what}: seats past the felt onto its rail: {railed}"
    if phone:
        targets: list[dict[str, Any]] = await page.evaluate(CONTROLS, TOUCH)
        small = [
            f"{t['id']} {t['w']:.0f}x{t['h']:.0f}" for t in targets if min(t["w"], t["h"]) < 44
        ]
        assert small == [], f"{what}: touch targets under 44 px: {small}"
    side: dict[str, Any] | None = await page.evaluate(SIDE_MORE)
    if side is not None and side["scrolls"]:  # a laptop's panel: it says there is more
        assert side["before"]["marked"] and "more below" in side["before"]["hint"], (what, side)
        assert not side["after"]["marked"] and side["back"], (what, side)
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / f"layout-{what}.png"))


async def dealer_stays_on_screen(page: Page, what: str) -> None:
    """The phone scrolled down to the end of the table still shows the dealer's cards
    and the clock; at the top the head's clock is the only one (it showed twice)."""
    await page.evaluate("window.scrollTo(0, 0)")
    await expect(page.get_by_test_id("countdown")).to_be_visible()
    await expect(page.get_by_test_id("dealer-countdown")).to_be_hidden()
    await page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    await expect(page.get_by_test_id("dealer-countdown")).to_be_visible()
    box: dict[str, Any] = await page.evaluate(
        """() => {
          const one = (id) => document.querySelector(`[data-testid="${id}"]`);
          const clock = one("dealer-countdown");
          return {
            dealer: one("dealer-cards").getBoundingClientRect().toJSON(),
            clock: clock.hidden ? null : clock.getBoundingClientRect().toJSON(),
            scrolled: window.scrollY, height: window.innerHeight};
        }"""
    )
    assert box["scrolled"] > 0, f"{what}: the page did not need to scroll ({box})"
    dealer = box["dealer"]
    assert dealer["top"] >= 0 and dealer["bottom"] <= box["height"], f"{what}: {box}"
    assert box["clock"] is not None and box["clock"]["top"] >= 0, f"{what}: no clock ({box})"
    # and that clock runs, as the table head's does, with nothing else changing
    clock = page.get_by_test_id("dealer-countdown")
    shown = await clock.text_content()
    await page.wait_for_function(
        "(was) => document.querySelector('[data-testid=\"dealer-countdown\"]').textContent !== was",
        arg=shown,
    )
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / f"layout-{what}.png"))
    await page.evaluate("window.scrollTo(0, 0)")


async def at_every_size(ann: Page, phase: str, own: str | None) -> None:
    for size in LAPTOPS:
        await resize(ann, size)
        await check_layout(ann, f"{phase}-{size['width']}x{size['height']}", own)
    await resize(ann, LAPTOPS[0])


@pytest.fixture
async def cy() -> AsyncIterator[list[StudClient]]:
    clients: list[StudClient] = []
    yield clients
    for c in clients:
        await c.close()


async def test_a_full_table_at_laptop_desktop_and_phone_sizes(
    make_server: ServerFactory, browser: Browser, cy: list[StudClient]
) -> None:
    server = await make_server(tables=NINE, shuffle=shuffles([*HANDS, DEALER]), timers=LONG)
    url = f"http://127.0.0.1:{server.port}/"
    problems: list[str] = []
    _, ann = await new_page(browser, url, problems, viewport=LAPTOPS[0])
    _, bob = await new_page(
        browser,
        url,
        problems,
        viewport=PHONE,
        is_mobile=True,
        has_touch=True,
        device_scale_factor=2,
        reduced_motion="reduce",
    )
    _, wendy = await new_page(browser, url, problems, viewport=LAPTOPS[1])
    await enter(ann, "Ann")
    await enter(bob, BOB, tap=True)  # 24 characters: his own seats' words still read whole
    await enter(wendy, "Wendy")
    await expect(bob.get_by_test_id("lobby-table-nine")).to_be_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    await bob.screenshot(path=str(ARTIFACTS / "layout-lobby-phone.png"), full_page=True)
    assert await bob.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    lobby_buttons: list[dict[str, Any]] = await bob.evaluate(
        CONTROLS, '[data-testid="play-nine"], [data-testid="watch-nine"]'
    )
    assert len(lobby_buttons) == 2 and all(b["h"] >= 44 for b in lobby_buttons)
    # the phone's lobby keeps a table's paytables folded until asked: Play fits the screen
    box = await bob.get_by_test_id("play-nine").bounding_box()
    assert box is not None and box["y"] + box["height"] <= PHONE["height"], box
    await expect(bob.get_by_test_id("lobby-paytable-nine")).to_be_hidden()
    await expect(wendy.get_by_test_id("lobby-paytable-nine")).to_be_visible()  # not on a laptop
    await bob.get_by_test_id("lobby-pays-nine").tap()
    await expect(bob.get_by_test_id("lobby-paytable-nine")).to_contain_text("100:1")
    await bob.screenshot(path=str(ARTIFACTS / "layout-lobby-phone-pays.png"), full_page=True)
    await sit_three(ann, 0)
    await sit_three(bob, 3, tap=True)
    client = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    cy.append(client)
    await client.hello(name="Cy")
    await client.request("join", table="nine")
    for _ in range(3):
        await client.request("sit", table="nine")
    await wendy.get_by_test_id("watch-nine").click()
    await expect(wendy.get_by_test_id("seat-8-name")).to_contain_text("Cy")
    await expect(wendy.get_by_test_id("table-view")).to_have_attribute("data-role", "spectator")

    # ----- bets: Ann clicks; Bob taps a chip on, and takes one off with a tap on "−"
    for seat in (0, 1, 2):
        await ann.get_by_test_id("chip-1000").click()
        await ann.get_by_test_id(f"ante-{seat}").click()
    await ann.get_by_test_id("progressive-1").click()
    await expect_cents(ann, "ante-1", 1000)
    await bob.get_by_test_id("chip-500").tap()
    for seat in (3, 4, 5):
        await bob.get_by_test_id(f"ante-{seat}").tap()
        await bob.get_by_test_id(f"ante-{seat}").tap()
    await expect_cents(bob, "ante-5", 1000)
    await bob.get_by_test_id("chip-remove-5").tap()
    await expect_cents(bob, "ante-5", 500)
    # a finger held on a circle takes its last chip off too
    await bob.get_by_test_id("ante-4").dispatch_event(
        "pointerdown", {"pointerType": "touch", "button": 0, "isPrimary": True}
    )
    await expect_cents(bob, "ante-4", 500)
    await bob.get_by_test_id("ante-4").dispatch_event("pointerup", {"pointerType": "touch"})
    await bob.get_by_test_id("ante-4").tap()
    await expect_cents(bob, "ante-4", 1000)
    await at_every_size(ann, "betting", OWN_BETTING)
    await check_layout(bob, "betting-phone", OWN_BETTING, phone=True)
    await check_layout(wendy, "betting-spectator", None)

    # ----- the deal, card by card in the deal order for Wendy; at once for Bob
    for page in (wendy, bob):
        await page.evaluate(WATCH_DEAL)
    for seat in (6, 7, 8):
        await client.request("ante", table="nine", seat=seat, amount=500)
    await client.request("deal", table="nine")
    await expect_phase([bob], "betting")
    await dealer_stays_on_screen(bob, "betting-phone-scrolled")
    await ann.get_by_test_id("deal").click()
    # Ann's seats say "Ready" above their names: the ▼ of the selected one is above that
    # word, not over it (it read "Re▼dy")
    await expect(ann.get_by_test_id("seat-2-status")).to_have_text("Ready")
    mark: dict[str, Any] = await ann.evaluate(MARK_AND_STATUS)
    assert mark["markBottom"] <= mark["statusTop"] + 1, mark
    await ann.screenshot(path=str(ARTIFACTS / "layout-ready-1280x800.png"))
    await bob.get_by_test_id("deal").tap()
    await expect_phase([ann, bob, wendy], "deciding")
    await wendy.wait_for_function("window.dealingSeen")
    await check_layout(wendy, "deciding-spectator", None)
    seen: list[list[str]] = await wendy.evaluate("window.dealSeen")
    order = deal_order(list(range(9)))
    out = 0
    for batch in seen:  # every redraw adds the next cards of the deal order, none out of turn
        out += len(batch)
        assert sorted(batch) == sorted(order[out - len(batch) : out]), (batch, seen)
    assert out == len(order) == 50
    # how many redraws the deal's 0.8 s gives is the machine's frame rate, so it is not
    # asked here: that the cards come one step apart is deal.test.mjs's to say
    assert await bob.evaluate("window.dealingSeen") is False  # prefers-reduced-motion
    for page in (ann, bob, wendy):
        await expect(page.get_by_test_id("dealer-cards").locator(".card").nth(4)).to_have_attribute(
            "data-card", DEALER[4]
        )
    await at_every_size(ann, "deciding", OWN_DECIDING)
    # a toast while deciding (a first Leave's question) covers neither her Fold and Raise
    # nor the dealer's cards and clock: at 1024 px it went up top, over the dealer
    await resize(ann, LAPTOPS[3])
    await ann.get_by_test_id("leave").click()
    confirm = ann.locator('.toast[data-code="leave-confirm"]')
    await expect(confirm).to_be_visible()
    clear: dict[str, Any] = await ann.evaluate(TOAST_CLEAR)
    assert clear["toasts"] == 1 and clear["covered"] == [], clear
    await ann.screenshot(path=str(ARTIFACTS / "layout-toast-deciding-1024x768.png"))
    await ann.get_by_test_id("error-dismiss").click()
    await expect(ann.get_by_test_id("leave")).not_to_have_attribute("data-armed", "true")
    await resize(ann, LAPTOPS[0])
    await check_layout(bob, "deciding-phone", OWN_DECIDING, phone=True)
    await dealer_stays_on_screen(bob, "deciding-phone-scrolled")

    # ----- decisions; the showdown's results must not overlap either
    for seat in (0, 1, 2):
        await ann.get_by_test_id(f"seat-{seat}").locator(".nameplate").click()  # selected
        await ann.get_by_test_id(f"raise-{seat}").click()
        if seat < 2:  # the selection moves on to the next hand still waiting
            await expect(ann.get_by_test_id(f"seat-{seat + 1}")).to_have_attribute(
                "data-selected", "true"
            )
    await bob.get_by_test_id("raise-3").tap()
    # the phone keeps the decided hand's button row (the next hand's buttons stay put under
    # the thumb), and says there what became of the hand instead of leaving it empty
    await expect(bob.get_by_test_id("decided-3")).to_have_text("Raised $20: plays at the showdown")
    await bob.screenshot(path=str(ARTIFACTS / "layout-decided-phone.png"))
    await bob.get_by_test_id("raise-4").tap()
    await bob.get_by_test_id("fold-5").tap()
    for seat in (6, 7, 8):
        await client.request("fold", table="nine", seat=seat)
    await expect_phase([ann, bob, wendy], "showdown")
    for page in (ann, bob, wendy):
        await expect(page.get_by_test_id("seat-8-result")).to_have_attribute("data-outcome", "fold")
    await at_every_size(ann, "showdown", None)
    await check_layout(bob, "showdown-phone", None, phone=True)
    await dealer_stays_on_screen(bob, "showdown-phone-scrolled")
    await bob.screenshot(path=str(ARTIFACTS / "layout-showdown-phone-full.png"), full_page=True)
    await check_layout(wendy, "showdown-spectator", None)

    # ----- the phone's paytable and rules open from their disclosure, inside the width
    toggle = bob.get_by_test_id("side-toggle")
    await expect(bob.get_by_test_id("paytable")).to_be_hidden()
    await toggle.tap()
    await expect(bob.get_by_test_id("paytable")).to_be_visible()
    await expect(bob.get_by_test_id("rules")).to_be_visible()
    width = await bob.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"]
    await bob.get_by_test_id("paytable").scroll_into_view_if_needed()
    await bob.screenshot(path=str(ARTIFACTS / "layout-phone-paytable.png"))

    # ----- the phone's history: every hand's result inside the screen's width
    await bob.get_by_test_id("history-button").tap()
    panel = bob.get_by_test_id("history-panel")
    await expect(panel.get_by_test_id("history-round")).to_have_count(1)
    close = await panel.get_by_test_id("history-close").bounding_box()  # a thumb's 44 px
    assert close is not None and min(close["width"], close["height"]) >= 44, close
    cut: list[str] = await bob.evaluate(
        """() => [...document.querySelectorAll('[data-testid="history-panel"] *')]
          .filter((el) => { const r = el.getBoundingClientRect();
                            return r.width >= 1 && r.right > innerWidth + 0.5; })
          .map((el) => `${el.className}: ${el.textContent.slice(0, 30)}`)"""
    )
    assert cut == [], f"the phone's history runs off the screen: {cut}"
    await bob.screenshot(path=str(ARTIFACTS / "layout-phone-history.png"))
    assert problems == []


# A dealer that does not qualify (king high), and nine high-card hands from the rest of
# the deck (ranks far apart, suits mixed): every raised hand's result is the longest
# there is, "Dealer did not qualify incl. JP −$1" (the progressive stake won nothing).
DEALER_NQ = ["Kc", "Qh", "9d", "6s", "2c"]
REST = [c for c in (f"{r}{s}" for r in "23456789TJQKA" for s in "cdhs") if c not in DEALER_NQ]
HANDS_NQ = [[REST[n + 9 * k] for k in range(5)] for n in range(9)]


async def test_long_results_stay_clear_of_the_rack_at_laptop_sizes(
    make_server: ServerFactory, browser: Browser, cy: list[StudClient]
) -> None:
    """A full table whose dealer does not qualify, every hand raised with a progressive
    stake that won nothing: each seat's result shows whole above the rack, no scroll;
    at 1920 and 2560 none reaches the rail (the middle seat's three lines come nearest)."""
    server = await make_server(tables=NINE, shuffle=shuffles([*HANDS_NQ, DEALER_NQ]), timers=LONG)
    url = f"http://127.0.0.1:{server.port}/"
    problems: list[str] = []
    _, ann = await new_page(browser, url, problems, viewport=LAPTOPS[3])
    await enter(ann, "Ann")
    await sit_three(ann, 0)
    for name in ("Bob", "Cy"):
        client = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
        cy.append(client)
        await client.hello(name=name)
        await client.request("join", table="nine")
        for _ in range(3):
            reply = await client.request("sit", table="nine")
            seat = int(reply["seat"])
            await client.request("ante", table="nine", seat=seat, amount=500, progressive=True)
    await everyone_raises(ann, cy, [[3, 4, 5], [6, 7, 8]])
    await expect_phase([ann], "showdown")
    await expect(ann.get_by_test_id("seat-4-result")).to_have_attribute(
        "data-outcome", "no_qualify"
    )
    for size in (LAPTOPS[3], LAPTOPS[0]):
        await resize(ann, size)
        what = f"no-qualify-{size['width']}x{size['height']}"
        await check_layout(ann, what, None)
        hidden: list[str] = await ann.evaluate(RESULTS_IN_VIEW)
        assert hidden == [], f"{what}: results too tall, under the rack or off screen: {hidden}"
    for size in (LAPTOPS[2], WIDEST):  # three lines, grown: on the felt
        await resize(ann, size)
        await check_layout(ann, f"no-qualify-{size['width']}x{size['height']}", None)
    assert problems == []


async def test_rebet_clear_and_a_round_from_the_keyboard(
    make_server: ServerFactory, browser: Browser
) -> None:
    """A $25 chip after a $10 round bets $25 without the progressive; Rebet puts last
    round's ante and progressive back; Clear empties them; keys play a whole round."""
    server = await make_server(timers={"betting": 60, "decision": 60, "results": 1})
    url = f"http://127.0.0.1:{server.port}/"
    problems: list[str] = []
    _, ann = await new_page(browser, url, problems, viewport=LAPTOPS[0])
    await enter(ann, "Ann")
    await ann.get_by_test_id("watch-alpha").click()
    await expect(ann.get_by_test_id("table-view")).to_have_attribute("data-role", "spectator")

    async def seat0() -> dict[str, Any]:
        snap: dict[str, Any] = await ann.evaluate("window.stud.state.tables.alpha")
        seat: dict[str, Any] = snap["seats"][0]
        return seat

    # ----- round 1 from the keyboard: s sit, 3 a $10 chip, p progressive, d deal, r raise
    await ann.keyboard.press("s")
    await expect(ann.get_by_test_id("seat-0").locator(".you")).to_have_count(1)
    await expect(ann.get_by_test_id("seat-0")).to_have_attribute("data-selected", "true")
    await ann.keyboard.press("3")
    await expect_cents(ann, "ante-0", 1000)
    await ann.keyboard.press("1")
    await ann.keyboard.press("Backspace")  # takes the $1 off again
    await expect_cents(ann, "ante-0", 1000)
    await ann.keyboard.press("p")
    await expect(ann.get_by_test_id("progressive-0")).to_have_attribute("aria-pressed", "true")
    # keys typed into a field are the field's: no deal, no chip
    seed = ann.get_by_test_id("seed-input")
    await seed.click()
    await seed.press_sequentially("d1x")
    await expect(seed).to_have_value("d1x")
    await expect_cents(ann, "ante-0", 1000)
    await expect_phase([ann], "waiting")
    await seed.fill("")
    await ann.locator("body").click(position={"x": 5, "y": 790})  # back to the table
    await ann.keyboard.press("d")
    await expect_phase([ann], "deciding")
    await expect(ann.get_by_test_id("raise-0")).to_be_visible()
    await ann.screenshot(path=str(ARTIFACTS / "layout-keyboard-deciding.png"))
    await ann.keyboard.press("r")
    await expect_phase([ann], "showdown")
    await expect(ann.get_by_test_id("seat-0-status")).to_have_text("Raised")
    await expect_phase([ann], "waiting")

    # ----- round 2: the circle starts empty; Rebet brings back $10 + progressive, Clear
    # takes it off; then a $25 click bets $25 with the progressive off
    await expect_cents(ann, "ante-0", 0)
    await expect(ann.get_by_test_id("progressive-0")).to_have_attribute("aria-pressed", "false")
    await expect(ann.get_by_test_id("rebet")).to_contain_text("$11")
    await ann.get_by_test_id("rebet").click()
    await expect_cents(ann, "ante-0", 1000)
    await expect(ann.get_by_test_id("progressive-0")).to_have_attribute("aria-pressed", "true")
    await ann.get_by_test_id("clear").click()
    await expect_cents(ann, "ante-0", 0)
    await expect(ann.get_by_test_id("progressive-0")).to_have_attribute("aria-pressed", "false")
    await ann.get_by_test_id("chip-2500").click()
    await ann.get_by_test_id("ante-0").click()
    await expect_cents(ann, "ante-0", 2500)
    await expect(ann.get_by_test_id("deal")).to_have_text("Deal · $25.00")
    await ann.get_by_test_id("deal").click()
    await expect_phase([ann], "deciding")
    placed = await seat0()
    assert placed["ante"] == 2500 and placed["progressive"] is False
    await ann.keyboard.press("f")
    await expect_phase([ann], "showdown")
    await expect_phase([ann], "waiting")

    # ----- round 3: the a key rebets last round's bet ($25, no progressive); x clears
    await ann.keyboard.press("a")
    await expect_cents(ann, "ante-0", 2500)
    await expect(ann.get_by_test_id("progressive-0")).to_have_attribute("aria-pressed", "false")
    await ann.keyboard.press("x")
    await expect_cents(ann, "ante-0", 0)

    # ----- two seats: Tab selects (and focuses) the next one, and keys act on it
    await ann.keyboard.press("s")
    await expect(ann.get_by_test_id("seat-1").locator(".you")).to_have_count(1)
    await ann.locator("body").click(position={"x": 5, "y": 790})
    await ann.keyboard.press("Tab")
    selected = ann.get_by_test_id("seat-1")
    await expect(selected).to_have_attribute("data-selected", "true")
    assert await ann.evaluate("document.activeElement.dataset.testid") == "seat-1"
    assert await ann.evaluate("document.activeElement.matches(':focus-visible')")
    await ann.keyboard.press("2")
    await expect_cents(ann, "ante-1", 500)
    await expect_cents(ann, "ante-0", 0)
    await ann.screenshot(path=str(ARTIFACTS / "layout-keyboard-selected.png"))
    # from the last of her seats Tab moves on as usual: the keyboard reaches the rack
    # (the chips, Deal), it is never kept going round the seats
    await tab_to(ann, "deal", 40)
    # and on, past the page's end, round to the top bar and "← Leave table": a Tab on
    # nothing after the last control used to select a seat again, so it never got there
    await tab_to(ann, "leave", 60)
    # with nothing focused, Tab goes round: from the selected seat to the first
    await ann.locator("body").click(position={"x": 5, "y": 790})
    await ann.keyboard.press("Tab")
    await expect(ann.get_by_test_id("seat-0")).to_have_attribute("data-selected", "true")

    # ----- two hands dealt: r raises the selected one, and the selection stays on it;
    # r on a hand already raised sends nothing, says so and selects the hand still
    # waiting (it used to raise the other hand, which the ring, the ▼ and the rack line
    # did not show; then it said "Tab selects #1", which Tab from the last seat did not)
    await ann.keyboard.press("2")
    await expect_cents(ann, "ante-0", 500)
    await ann.keyboard.press("d")
    await expect_phase([ann], "deciding")
    assert await ann.evaluate("document.activeElement.dataset.testid") == "seat-0"
    await ann.get_by_test_id("seat-1").click(position={"x": 10, "y": 5})
    await expect(ann.get_by_test_id("seat-1")).to_have_attribute("data-selected", "true")
    await ann.keyboard.press("r")
    await expect(ann.get_by_test_id("seat-1-status")).to_have_text("Raised")
    await expect(ann.get_by_test_id("seat-1")).to_have_attribute("data-selected", "true")
    # Tab from a hand decided goes to one still waiting, round from the last seat
    await ann.keyboard.press("Tab")
    await expect(ann.get_by_test_id("seat-0")).to_have_attribute("data-selected", "true")
    await ann.wait_for_function("document.activeElement.dataset.testid === 'seat-0'")
    await ann.get_by_test_id("seat-1").click(position={"x": 10, "y": 5})
    await expect(ann.get_by_test_id("seat-1")).to_have_attribute("data-selected", "true")
    await ann.keyboard.press("r")
    told = ann.locator('.toast[data-code="decided"]')
    await expect(told).to_contain_text("Seat #2 has raised already; nothing sent")
    await expect(told).to_contain_text("Selected now: #1, waiting")
    await expect(ann.get_by_test_id("seat-0")).to_have_attribute("data-selected", "true")
    seat1: dict[str, Any] = await ann.evaluate("window.stud.state.tables.alpha.seats[1]")
    assert seat1["decision"] == "raise"
    assert (await seat0()).get("decision") is None
    await ann.keyboard.press("f")
    await expect_phase([ann], "showdown")
    await expect(ann.get_by_test_id("seat-0-status")).to_have_text("Folded")
    assert problems == []


async def tab_to(page: Page, testid: str, presses: int) -> None:
    """Press Tab until the control `testid` has the focus, at most `presses` times."""
    for _ in range(presses):
        await page.keyboard.press("Tab")
        if await page.evaluate("document.activeElement.dataset.testid") == testid:
            return
    raise AssertionError(f"{presses} Tabs never reached {testid!r}")


async def test_private_deal_drawn_in_the_page(make_server: ServerFactory, browser: Browser) -> None:
    """The page fed a private-mode snapshot (every hand face down) and the player's
    `hand` frame: their own hand face up, the other face down; a new round drops it."""
    server = await make_server(timers=LONG)
    url = f"http://127.0.0.1:{server.port}/"
    problems: list[str] = []
    _, ann = await new_page(browser, url, problems, viewport=LAPTOPS[0])
    await enter(ann, "Ann")
    await ann.get_by_test_id("play-alpha").click()
    await expect(ann.get_by_test_id("seat-0").locator(".you")).to_have_count(1)
    me = await ann.evaluate("window.stud.state.me.player_id")
    down = [None] * 5

    def seat(player: str, name: str) -> dict[str, Any]:
        return {
            "player_id": player,
            "name": name,
            "connected": True,
            "ante": 500,
            "progressive": False,
            "ready": True,
            "decision": None,
            "auto": False,
            "cards": down,
            "hand": None,
            "result": None,
        }

    snap = await ann.evaluate("structuredClone(window.stud.state.tables.alpha)")
    snap.update(
        seq=snap["seq"] + 1000,
        phase="deciding",
        round_id="alpha-private-1",
        hands="private",
        ends_in_ms=60_000,
        dealer={"cards": [None, None, None, None, "5s"], "hand": None, "qualifies": None},
        seats=[seat(me, "Ann"), seat("p-bob", "Bob"), None, None, None],
    )
    hand = {
        "t": "hand",
        "table": "alpha",
        "round_id": "alpha-private-1",
        "seats": [
            {"seat": 0, "cards": HANDS[0], "hand": {"category": "TWO_PAIR", "label": "Two Pair"}}
        ],
    }
    await ann.evaluate(f"window.stud.absorb({json.dumps(snap)})")
    backs = ["back"] * 5
    await expect_row(ann, "seat-0-cards", backs)
    await ann.evaluate(f"window.stud.absorb({json.dumps(hand)})")
    await expect_row(ann, "seat-0-cards", HANDS[0])
    await expect(ann.get_by_test_id("seat-0-hand")).to_have_text("Two Pair")
    await expect_row(ann, "seat-1-cards", backs)
    await expect(ann.get_by_test_id("table-view")).to_have_attribute("data-hands", "private")
    await ann.screenshot(path=str(ARTIFACTS / "layout-private-deciding.png"))
    nxt = {**snap, "seq": snap["seq"] + 1, "round_id": "alpha-private-2"}
    await ann.evaluate(f"window.stud.absorb({json.dumps(nxt)})")
    await expect_row(ann, "seat-0-cards", backs)
    assert problems == []


async def test_other_hands_face_down_until_showdown_when_private(
    make_server: ServerFactory, browser: Browser, cy: list[StudClient]
) -> None:
    """Against a server that deals hands privately: a player sees their own hand and
    the others' face down, a spectator sees every hand face down, until the showdown."""
    server = await make_server(shuffle=shuffles([HANDS[0], HANDS[1], DEALER]), timers=LONG)
    url = f"http://127.0.0.1:{server.port}/"
    client = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    cy.append(client)
    await client.hello(name="Bob")
    await client.request("join", table="alpha")
    if client.tables["alpha"].get("hands") != "private":
        pytest.skip(
            'this server sends every hand face up (its table snapshot has no hands: "private"); '
            "the page's side is checked by test_private_deal_drawn_in_the_page and "
            "clients/web/test/hands.test.mjs"
        )
    problems: list[str] = []
    _, ann = await new_page(browser, url, problems, viewport=LAPTOPS[0])
    _, wendy = await new_page(browser, url, problems, viewport=LAPTOPS[0])
    await enter(ann, "Ann")
    await enter(wendy, "Wendy")
    await ann.get_by_test_id("play-alpha").click()
    await expect(ann.get_by_test_id("seat-0").locator(".you")).to_have_count(1)
    await client.request("sit", table="alpha")
    await wendy.get_by_test_id("watch-alpha").click()
    await ann.get_by_test_id("chip-500").click()
    await ann.get_by_test_id("ante-0").click()
    await client.request("ante", table="alpha", seat=1, amount=500)
    await client.request("deal", table="alpha")
    await ann.get_by_test_id("deal").click()
    await expect_phase([ann, wendy], "deciding")
    backs = ["back"] * 5
    await expect_row(ann, "seat-0-cards", HANDS[0])
    await expect_row(ann, "seat-1-cards", backs)
    await expect_row(wendy, "seat-0-cards", backs)
    await expect_row(wendy, "seat-1-cards", backs)
    await ann.get_by_test_id("raise-0").click()
    await client.request("fold", table="alpha", seat=1)
    await expect_phase([ann, wendy], "showdown")
    for page in (ann, wendy):
        await expect_row(page, "seat-0-cards", HANDS[0])
        await expect_row(page, "seat-1-cards", HANDS[1])
    assert problems == []


async def expect_row(page: Page, testid: str, cards: list[str]) -> None:
    loc = page.locator(f'[data-testid="{testid}"] .card')
    await expect(loc).to_have_count(len(cards))
    for i, card in enumerate(cards):
        await expect(loc.nth(i)).to_have_attribute("data-card", card)


async def test_a_phone_s_toast_leaves_the_table_head_and_the_dealer_in_view(
    make_server: ServerFactory, browser: Browser
) -> None:
    """A refusal on a phone neither covers the way out (← Leave), the phase and its
    clock, and the jackpot, nor the dealer's cards: at the top of the page and
    scrolled down its seats alike."""
    server = await make_server(tables=NINE, timers=LONG)
    url = f"http://127.0.0.1:{server.port}/"
    problems: list[str] = []
    _, bob = await new_page(browser, url, problems, viewport=PHONE, is_mobile=True, has_touch=True)
    await enter(bob, "Bob", tap=True)
    await sit_three(bob, 0, tap=True)
    await bob.get_by_test_id("chip-500").tap()
    await bob.get_by_test_id("ante-0").tap()
    for scrolled in (False, True):
        where = "document.body.scrollHeight" if scrolled else "0"
        await bob.evaluate(f"window.scrollTo(0, {where})")
        await bob.keyboard.press("f")  # no decision is due: a refusal
        await expect(bob.locator("#errors .toast")).to_have_count(1)
        got: dict[str, Any] = await bob.evaluate(TOAST_CLEAR)
        ARTIFACTS.mkdir(exist_ok=True)
        await bob.screenshot(path=str(ARTIFACTS / f"layout-phone-toast-{scrolled}.png"))
        assert got["covered"] == [], f"scrolled={scrolled}: a toast covers {got}"
        await bob.get_by_test_id("error-dismiss").tap()
        await expect(bob.locator("#errors .toast")).to_have_count(0)
    # deciding: the rack is gone, and the hands' Fold and Raise stay in reach
    for seat in (1, 2):
        await bob.get_by_test_id(f"ante-{seat}").tap()
    await bob.get_by_test_id("deal").tap()
    await expect(bob.get_by_test_id("fold-2")).to_be_enabled()
    for scrolled in (False, True):
        where = "document.body.scrollHeight" if scrolled else "0"
        await bob.evaluate(f"window.scrollTo(0, {where})")
        await bob.get_by_test_id("buy-amount").fill("12.34")
        await bob.get_by_test_id("buy-chips").tap()
        await expect(bob.locator("#errors .toast")).to_have_count(1)
        got = await bob.evaluate(TOAST_CLEAR)
        await bob.screenshot(path=str(ARTIFACTS / f"layout-phone-toast-deciding-{scrolled}.png"))
        decisions = [c for c in got["covered"] if c.startswith(("fold-", "raise-"))]
        assert decisions == [], f"deciding, scrolled={scrolled}: a toast covers {got}"
        await bob.get_by_test_id("error-dismiss").tap()
        await expect(bob.locator("#errors .toast")).to_have_count(0)
    assert problems == []


# The tester's table: Stud Poker, nine seats, the server's own wallet ($10,000 and a
# $2,500 bonus) and jackpot ($10,000): at 1024 px its top bar and head take two rows each
# where the suite's smaller figures fit one, and the felt was sized as if they did not
STUD_NINE = [{"id": "nine", "title": "Nine-seat Stud Poker", "variant": "stud-poker", "seats": 9}]
LONG_NAME = "Maximiliano Fitzgerald-W"  # 24 characters
WIDE_NAME = "MWMWMWMWMWMWMWMWMWMWMWMW"  # 24 of the widest, and nowhere to break
#: Whether a seat's name shows whole (not cut to "Max…"), and the nameplate's title.
NAME_SHOWN = """(n) => {
  const plate = document.querySelector(`[data-testid="seat-${n}-name"]`);
  const name = plate.querySelector(".name");
  const style = getComputedStyle(name);
  return {title: plate.title, text: name.textContent, font: style.fontSize,
          oneLine: name.getBoundingClientRect().height <= parseFloat(style.lineHeight) * 1.5,
          ellipsis: style.textOverflow === "ellipsis" && style.whiteSpace === "nowrap",
          box: [name.clientWidth, name.scrollWidth, name.clientHeight, name.scrollHeight],
          whole: name.scrollWidth <= name.clientWidth + 1
            && name.scrollHeight <= name.clientHeight + 1};
}"""


async def test_a_busy_stud_table_keeps_results_above_the_rack_and_long_names_readable(
    make_server: ServerFactory, browser: Browser, cy: list[StudClient]
) -> None:
    """The tester's table: three players and one with a 24-character name, several with
    the progressive, a dealer that does not qualify. Every result ends above the rack at
    1024x768 and 1280x800; the long name is in its nameplate's title, on a phone too."""
    server = await make_server(
        tables=STUD_NINE,
        shuffle=shuffles([*HANDS_NQ, DEALER_NQ]),
        timers=LONG,
        wallet={"starting_credits": 1_000_000, "starting_bonus": 250_000},
        jackpots={"main": {"seed": 1_000_000, "contribution_bp": 7000}},
    )
    url = f"http://127.0.0.1:{server.port}/"
    problems: list[str] = []
    _, ann = await new_page(browser, url, problems, viewport=LAPTOPS[3])
    _, pat = await new_page(browser, url, problems, viewport=PHONE, is_mobile=True, has_touch=True)
    await enter(ann, "Ann")
    await enter(pat, "Pat", tap=True)
    await sit_three(ann, 0)
    others: list[tuple[str, tuple[int, ...], bool]] = [
        ("Bob", (3, 4, 5), True),
        (WIDE_NAME, (6, 7), False),
        (LONG_NAME, (8,), True),
    ]
    for player, seats, jp in others:
        client = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
        cy.append(client)
        await client.hello(name=player)
        await client.request("join", table="nine")
        for seat in seats:
            assert int((await client.request("sit", table="nine"))["seat"]) == seat
            await client.request("ante", table="nine", seat=seat, amount=500, progressive=jp)
    await pat.get_by_test_id("watch-nine").tap()
    await everyone_raises(ann, cy, [list(seats) for _, seats, _ in others])
    await expect_phase([ann, pat], "showdown")
    no_qualify = ann.get_by_test_id("seat-4-result")
    await expect(no_qualify).to_have_attribute("data-outcome", "no_qualify")
    for size in (LAPTOPS[3], LAPTOPS[0]):
        await resize(ann, size)
        what = f"stud-nine-{size['width']}x{size['height']}"
        await check_layout(ann, what, None)
        hidden: list[str] = await ann.evaluate(RESULTS_IN_VIEW)
        assert hidden == [], f"{what}: results too tall, under the rack or off screen: {hidden}"
        plate: dict[str, Any] = await ann.evaluate(NAME_SHOWN, 8)
        assert plate["title"] == LONG_NAME, (what, plate)  # a pointer held over it reads it
        if size == LAPTOPS[3]:  # a toast at the showdown leaves the results in sight
            await ann.keyboard.press("r")  # "No decision is due now."
            await expect(ann.locator("#errors .toast")).to_have_count(1)
            under: dict[str, Any] = await ann.evaluate(RESULTS_UNDER_TOASTS)
            assert under["covered"] == [], (what, under)
            await ann.screenshot(path=str(ARTIFACTS / f"layout-{what}-toast.png"))
            await ann.get_by_test_id("error-dismiss").click()
    # news at the showdown leaves the side panel's provably fair box (Commitment, Round)
    # in view, the thing to read then: the toast goes over the panel's foot
    await ann.get_by_test_id("buy-amount").fill("0")
    await ann.get_by_test_id("buy-amount").press("Enter")
    await expect(ann.locator('.toast[data-code="buy-amount"]')).to_be_visible()
    clear: dict[str, Any] = await ann.evaluate(TOAST_CLEAR)
    assert clear["toasts"] == 1 and clear["covered"] == [], clear
    await ann.screenshot(path=str(ARTIFACTS / "layout-toast-showdown-1280x800.png"))
    # a phone has no pointer to hold over a name: its tiles show a name of several words
    # whole, on two lines; one of a single word on one line, cut with "…" where it does
    # not fit (split mid-word it read as two names), whole in its title
    await check_layout(pat, "stud-nine-phone", None, phone=True)
    tile: dict[str, Any] = await pat.evaluate(NAME_SHOWN, 8)
    assert tile["text"] == LONG_NAME and tile["title"] == LONG_NAME and tile["whole"], tile
    tile = await pat.evaluate(NAME_SHOWN, 6)
    assert tile["text"] == WIDE_NAME and tile["title"] == WIDE_NAME, tile
    assert tile["oneLine"] and (tile["whole"] or tile["ellipsis"]), tile
    for seat in (6, 8):
        tile_shot = ARTIFACTS / f"layout-long-name-tile-{seat}.png"
        await pat.get_by_test_id(f"seat-{seat}").screenshot(path=str(tile_shot))
    assert problems == []
