"""The decision on a phone, and after a reload, in a real headless Chromium.

A player holding seats #2 and #8 of a full table bets on one of them and deals: the
hand waiting for a decision is the one the page shows (whole, under the dealer's
sticky row) and the one selected, so f and r act on it, also after a reload.

Needs Debian's Chromium, like tests/test_web.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from clients.connection import StudClient
from server.app import StudServer
from tests.conftest import ServerFactory
from tests.test_web import ARTIFACTS, browser, expect_phase, needs_chromium
from tests.test_web_layout import (
    LAPTOPS,
    LONG,
    NINE,
    PHONE,
    bots_at_four_to_nine,
    enter,
    new_page,
    sit_three,
)

__all__ = ["browser"]  # the fixture used below

pytestmark = needs_chromium

#: Where the dealer's sticky row ends, and seat N's cards, buttons and box, as drawn.
IN_VIEW = """(n) => {
  const box = (sel) => document.querySelector(sel).getBoundingClientRect().toJSON();
  return {bar: box('#table .felt.flow .dealer'), seat: box(`[data-testid="seat-${n}"]`),
          cards: box(`[data-testid="seat-${n}-cards"]`), fold: box(`[data-testid="fold-${n}"]`),
          raise: box(`[data-testid="raise-${n}"]`), screen: innerHeight, scrolled: scrollY};
}"""


@pytest.fixture
async def others() -> AsyncIterator[list[StudClient]]:
    clients: list[StudClient] = []
    yield clients
    for c in clients:
        await c.close()


async def full_table(server: StudServer, others: list[StudClient]) -> None:
    """Seven other players on every seat but #2 and #8, each with $5 placed."""
    for seat in (0, 2, 3, 4, 5, 6, 8):
        bot = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
        others.append(bot)
        await bot.hello(name=f"bot{seat + 1}")
        await bot.request("join", table="nine")
        await bot.request("sit", table="nine", seat=seat)
        await bot.request("ante", table="nine", seat=seat, amount=500)


async def all_deal(others: list[StudClient]) -> None:
    for bot in others:
        await bot.request("deal", table="nine")


async def seated_at_two_and_eight(page: Page, *, tap: bool) -> None:
    play = page.get_by_test_id("play-nine")
    await (play.tap() if tap else play.click())  # the lowest free seat: #2
    await expect(page.get_by_test_id("seat-1").locator(".you")).to_have_count(1)
    sit = page.get_by_test_id("sit-7")
    await (sit.tap() if tap else sit.click())
    await expect(page.get_by_test_id("seat-7").locator(".you")).to_have_count(1)


async def test_a_phone_s_hand_awaiting_a_decision_is_in_view_below_the_dealer(
    make_server: ServerFactory, browser: Browser, others: list[StudClient]
) -> None:
    """Betting on #2 only and tapping Deal, the decision came with the page scrolled so
    that #2's cards sat under the dealer's sticky row (ending at 76 px, the cards at
    7-64 px): a stray Fold/Raise row showed, while the sitting-out #8 was in full view."""
    server = await make_server(tables=NINE, timers=LONG)
    url = f"http://127.0.0.1:{server.port}/"
    problems: list[str] = []
    _, bob = await new_page(
        browser,
        url,
        problems,
        viewport=PHONE,
        is_mobile=True,
        has_touch=True,
        device_scale_factor=2,
    )
    await enter(bob, "Bob", tap=True)
    await full_table(server, others)
    await seated_at_two_and_eight(bob, tap=True)
    await all_deal(others)
    await bob.get_by_test_id("chip-500").tap()
    await bob.get_by_test_id("ante-1").tap()
    await bob.get_by_test_id("deal").tap()
    await expect(bob.get_by_test_id("fold-1")).to_be_visible()
    await bob.wait_for_function("!document.querySelector('[data-dealing=\"true\"]')")
    got: dict[str, Any] = await bob.evaluate(IN_VIEW, 1)
    bar = got["bar"]["bottom"]
    assert got["cards"]["top"] >= bar, got
    assert got["seat"]["top"] >= bar and got["seat"]["bottom"] <= got["screen"], got
    assert got["raise"]["bottom"] <= got["screen"], got
    await expect(bob.get_by_test_id("seat-1")).to_have_attribute("data-selected", "true")
    ARTIFACTS.mkdir(exist_ok=True)
    await bob.screenshot(path=str(ARTIFACTS / "phone-decision-2-of-2-and-8.png"))
    assert problems == []


async def test_a_reload_mid_decision_selects_the_hand_awaiting_it(
    make_server: ServerFactory, browser: Browser, others: list[StudClient]
) -> None:
    """Betting on #8 only, #2 sitting out: after a reload mid-decision the selection sat
    on #2, so the first r only moved it. The first own hand awaiting a decision is
    selected, and r raises it."""
    server = await make_server(tables=NINE, timers=LONG)
    url = f"http://127.0.0.1:{server.port}/"
    problems: list[str] = []
    _, ann = await new_page(browser, url, problems, viewport=LAPTOPS[0])
    await enter(ann, "Ann")
    await full_table(server, others)
    await seated_at_two_and_eight(ann, tap=False)
    await all_deal(others)
    await ann.get_by_test_id("chip-500").click()
    await ann.get_by_test_id("ante-7").click()
    await ann.get_by_test_id("deal").click()
    await expect(ann.get_by_test_id("fold-7")).to_be_visible()
    await ann.reload()
    await expect_phase([ann], "deciding")
    await expect(ann.get_by_test_id("fold-7")).to_be_visible()
    await expect(ann.get_by_test_id("seat-7")).to_have_attribute("data-selected", "true")
    await expect(ann.get_by_test_id("selected-seat")).to_contain_text("Seat #8")
    await ann.keyboard.press("r")
    await expect(ann.get_by_test_id("seat-7-status")).to_contain_text("Raise")
    seat = server.rooms["nine"].table.seats[7]
    assert seat is not None and str(seat.decision) == "raise"
    assert problems == []


#: Seat N's nameplate (its header: YOU #N, the hand, its state) and the dealer's row.
HEADER = """(n) => {
  const box = (sel) => document.querySelector(sel).getBoundingClientRect().toJSON();
  return {bar: box('#table .felt.flow .dealer'), head: box(`[data-testid="seat-${n}-name"]`),
          seat: box(`[data-testid="seat-${n}"]`), screen: innerHeight};
}"""


@pytest.mark.parametrize("phone", [True, False], ids=["phone", "laptop"])
async def test_dealt_three_hands_the_first_waiting_is_selected_and_shown_whole(
    make_server: ServerFactory, browser: Browser, others: list[StudClient], phone: bool
) -> None:
    """Three hands bet on #1, #2, #3 in turn: once dealt, #3 (the last bet on) stayed
    selected, so f and r acted on it first, and a phone scrolled to it with #1's header
    (YOU #1, its hand, "Deciding…") under the dealer's sticky row. The first hand waiting
    is selected, and a phone shows it whole below that row."""
    server = await make_server(tables=NINE, timers=LONG)
    url = f"http://127.0.0.1:{server.port}/"
    problems: list[str] = []
    options: dict[str, Any] = (
        {"viewport": PHONE, "is_mobile": True, "has_touch": True}
        if phone
        else {"viewport": LAPTOPS[0]}
    )
    _, ann = await new_page(browser, url, problems, **options)
    await enter(ann, "Ann", tap=phone)
    await sit_three(ann, 0, tap=phone)
    await bots_at_four_to_nine(server.port, others)  # a full table
    chip = ann.get_by_test_id("chip-500")
    await (chip.tap() if phone else chip.click())
    for seat in (0, 1, 2):
        circle = ann.get_by_test_id(f"ante-{seat}")
        await (circle.tap() if phone else circle.click())
    await expect(ann.get_by_test_id("seat-2")).to_have_attribute("data-selected", "true")
    deal = ann.get_by_test_id("deal")
    await (deal.tap() if phone else deal.click())
    await expect(ann.get_by_test_id("fold-2")).to_be_visible()
    await ann.wait_for_function("!document.querySelector('[data-dealing=\"true\"]')")
    await expect(ann.get_by_test_id("seat-0")).to_have_attribute("data-selected", "true")
    await expect(ann.get_by_test_id("selected-seat")).to_contain_text("Seat #1")
    ARTIFACTS.mkdir(exist_ok=True)
    await ann.screenshot(
        path=str(ARTIFACTS / f"dealt-three-first-selected-{'phone' if phone else 'laptop'}.png")
    )
    if phone:
        got: dict[str, Any] = await ann.evaluate(HEADER, 0)
        assert got["head"]["top"] >= got["bar"]["bottom"], got  # clear of the dealer's row
        assert got["seat"]["top"] >= got["bar"]["bottom"], got
        assert got["seat"]["bottom"] <= got["screen"], got  # whole
        # decided, the selection moves on to the next hand waiting, as it did
        await ann.get_by_test_id("fold-0").tap()
        await expect(ann.get_by_test_id("seat-1")).to_have_attribute("data-selected", "true")
    else:
        await ann.keyboard.press("f")  # the first hand, in seat order
        await expect(ann.get_by_test_id("seat-0-status")).to_contain_text("Fold")
    table = server.rooms["nine"].table
    assert [str(s.decision) if s and s.decision else None for s in table.seats[:3]] == [
        "fold",
        None,
        None,
    ]
    assert problems == []


#: Each own seat's header (YOU #N, its hand, its state) and box, the dealer's sticky row.
HEADS = """(seats) => {
  const box = (el) => el.getBoundingClientRect().toJSON();
  const seat = (n) => document.querySelector(`[data-testid="seat-${n}"]`);
  return {bar: box(document.querySelector('#table .felt.flow .dealer')), scrolled: scrollY,
          seats: seats.map((n) => ({n, seat: box(seat(n)),
                                    head: box(seat(n).querySelector('.seat-head'))}))};
}"""

#: Resolves after `n` frames drawn.
FRAMES = """(n) => new Promise((done) => {
  const next = (k) => (k ? requestAnimationFrame(() => next(k - 1)) : done());
  next(n);
})"""


async def test_a_phone_s_showdown_leaves_no_own_hand_s_header_under_the_dealer_s_row(
    make_server: ServerFactory, browser: Browser, others: list[StudClient]
) -> None:
    """Three hands at a full table, the first one shown whole under the dealer's sticky row
    as dealt: at the showdown that row grew by the dealer's hand in words ("One Pair —
    qualifies") and covered the first hand's header (YOU #1, its hand, its result) while
    the rest of that hand was in view. No own hand in view has its header under the row."""
    server = await make_server(tables=NINE, timers=LONG)
    url = f"http://127.0.0.1:{server.port}/"
    problems: list[str] = []
    _, ann = await new_page(browser, url, problems, viewport=PHONE, is_mobile=True, has_touch=True)
    await enter(ann, "Ann", tap=True)
    await sit_three(ann, 0, tap=True)
    await bots_at_four_to_nine(server.port, others)  # a full table
    await ann.get_by_test_id("chip-500").tap()
    for seat in (0, 1, 2):
        await ann.get_by_test_id(f"ante-{seat}").tap()
    await ann.get_by_test_id("deal").tap()
    await expect(ann.get_by_test_id("fold-2")).to_be_visible()
    await ann.wait_for_function("!document.querySelector('[data-dealing=\"true\"]')")
    dealt: dict[str, Any] = await ann.evaluate(HEADS, [0, 1, 2])
    assert dealt["seats"][0]["head"]["top"] >= dealt["bar"]["bottom"], dealt
    for seat, decision in ((0, "raise"), (1, "fold"), (2, "raise")):
        await ann.get_by_test_id(f"{decision}-{seat}").tap()
        await expect(ann.get_by_test_id(f"{decision}-{seat}")).to_have_count(0)
    # as the others decide, the row stuck to the top of the screen and the first hand
    # whole right under it (where a player's deal put it, with a longer head above)
    await ann.evaluate(
        """() => {
          const bar = document.querySelector('#table .felt.flow .dealer').getBoundingClientRect();
          const seat = document.querySelector('[data-testid="seat-0"]').getBoundingClientRect();
          scrollBy({top: seat.top - bar.height - 2, behavior: "instant"});
        }"""
    )
    dealt = await ann.evaluate(HEADS, [0, 1, 2])
    assert dealt["seats"][0]["head"]["top"] >= dealt["bar"]["bottom"], dealt
    for seat, bot in zip(range(3, 9), others, strict=True):
        await bot.request("raise", table="nine", seat=seat)
    await expect_phase([ann], "showdown")
    await expect(ann.get_by_test_id("dealer-hand")).to_contain_text("qualif")
    await expect(ann.get_by_test_id("seat-0-result")).to_be_visible()
    await ann.evaluate(FRAMES, 3)  # the showdown drawn, and whatever follows it
    got: dict[str, Any] = await ann.evaluate(HEADS, [0, 1, 2])
    ARTIFACTS.mkdir(exist_ok=True)
    await ann.screenshot(path=str(ARTIFACTS / "phone-showdown-three-hands.png"))
    edge = got["bar"]["bottom"]
    for mine in got["seats"]:
        in_view = mine["seat"]["bottom"] > edge  # some of it shows below the row
        assert not (in_view and mine["head"]["top"] < edge), (mine, got["bar"])
    # the page moved no more than the row grew
    grew = got["bar"]["height"] - dealt["bar"]["height"]
    assert abs(got["scrolled"] - dealt["scrolled"]) <= grew + 1, (dealt, got)
    assert problems == []
