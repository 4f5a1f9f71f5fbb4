"""What the browser says of a round that went on while the player could not see it, in
a real headless Chromium: each hand's own result, not the round's net pinned to some of
them, and notices that stop being true go.

Needs Debian's Chromium and the page's npm dependency, like tests/test_web.py.
"""

from __future__ import annotations

from playwright.async_api import Browser, Page, expect

from tests.conftest import ServerFactory
from tests.test_web import (
    ann_and_bob_at_alpha,
    browser,
    build_ante,
    dollars,
    expect_phase,
    needs_chromium,
    shot,
    signed,
)
from tests.test_web_offline import retry_now, seated, until

__all__ = ["browser"]  # the fixture, used below

pytestmark = needs_chromium


async def test_hands_folded_by_the_clock_while_away_are_told_with_their_own_result(
    make_server: ServerFactory, browser: Browser
) -> None:
    """A player raised one hand, the link went, and the clock folded the other: back, the
    notice credited the folded hand with the whole round's net (mostly the raised hand's),
    and never said what the raised hand did."""
    server = await make_server(timers={"betting": 30, "decision": 3, "results": 0.5})
    page, wire, problems = await seated(browser, server)
    await page.get_by_test_id("sit-1").click()
    await expect(page.get_by_test_id("seat-1-name")).to_contain_text("Ann")
    await build_ante(page, 0, [(500, "left")])
    await build_ante(page, 1, [(100, "left")])
    await page.get_by_test_id("deal").click()
    await expect(page.get_by_test_id("fold-0")).to_be_visible()
    await page.get_by_test_id("raise-0").click()
    await expect(page.get_by_test_id("seat-0-status")).to_have_text("Raised")
    round_id = server.rooms["alpha"].table.round_id
    await wire.cut()
    await until(lambda: server.rooms["alpha"].table.round_id != round_id)
    wire.down = False
    await retry_now(page)
    me = await page.evaluate("window.stud.state.me.player_id")
    record = next(r for r in await server.store.history(me) if r["round_id"] == round_id)
    raised = next(s for s in record["seats"] if s["seat"] == 0)["result"]["net"]
    told = page.get_by_test_id("error").filter(has_text="While you were away")
    await expect(told).to_contain_text(f"your hand on seat #2 was folded: {dollars(-100)}.")
    await expect(told).to_contain_text(f"Your raised hand on seat #1 came to {signed(raised)}")
    await expect(told).to_contain_text(f"the round came to {signed(raised - 100)} in all")
    await shot(page, "away-outcome.png")
    assert [p for p in problems if "ERR_CONNECTION" not in p] == []


async def test_back_online_time_left_goes_once_the_seat_it_names_is_decided(
    make_server: ServerFactory, browser: Browser
) -> None:
    """Back online, "… seat #1 still waits for your decision" stayed up beside "The clock
    ran out: your hand on seat #1 was folded": what it said was no longer so."""
    server = await make_server(timers={"betting": 30, "decision": 60, "results": 60})
    page, wire, problems = await seated(browser, server)
    await build_ante(page, 0, [(500, "left")])
    await page.get_by_test_id("deal").click()
    await expect(page.get_by_test_id("fold-0")).to_be_visible()
    await wire.cut()
    await expect(page.get_by_test_id("conn-status")).not_to_have_text("Connected")
    wire.down = False
    await retry_now(page)
    told = page.locator('.toast[data-code="clock-ran-on"]')
    await expect(told).to_contain_text("seat #1 still waits for your decision")
    await page.get_by_test_id("raise-0").click()
    await expect(page.get_by_test_id("seat-0-status")).to_have_text("Raised")
    assert await told.count() == 0  # gone with the frame that decided it, not left to time out
    assert [p for p in problems if "ERR_CONNECTION" not in p] == []


async def unplaced_told(
    make_server: ServerFactory, browser: Browser
) -> tuple[Page, Page, list[str]]:
    """Ann dealt at alpha; Bob's $5 built at #2 and never placed, said when betting closed;
    the round then over (Ann folded), the table waiting."""
    server = await make_server(timers={"betting": 2, "decision": 60, "results": 1})
    problems: list[str] = []
    ann, bob = await ann_and_bob_at_alpha(server, browser, problems)
    await build_ante(ann, 0, [(500, "left")])
    await ann.get_by_test_id("deal").click()
    await build_ante(bob, 1, [(500, "left")])
    await expect_phase((ann, bob), "deciding")  # the clock closed betting
    await expect(bob.locator('.toast[data-code="unplaced"]')).to_contain_text("was not bet")
    await ann.get_by_test_id("fold-0").click()
    await expect_phase((ann, bob), "waiting")
    return ann, bob, problems


async def test_chips_said_not_bet_stop_being_said_once_chips_are_built_again(
    make_server: ServerFactory, browser: Browser
) -> None:
    """A player built the next round's chips while "the $18.00 built … was not bet" was
    still up: it read as if the new bets were being refused."""
    _, bob, problems = await unplaced_told(make_server, browser)
    told = bob.locator('.toast[data-code="unplaced"]')
    await expect(told).to_be_visible()
    await build_ante(bob, 1, [(100, "left")])
    assert await told.count() == 0  # gone with the chip, not left to time out
    assert problems == []


async def test_chips_said_not_bet_stop_being_said_when_the_next_round_opens(
    make_server: ServerFactory, browser: Browser
) -> None:
    ann, bob, problems = await unplaced_told(make_server, browser)
    told = bob.locator('.toast[data-code="unplaced"]')
    await expect(told).to_be_visible()
    await build_ante(ann, 0, [(500, "left")])
    await ann.get_by_test_id("deal").click()  # opens the next round's betting
    await expect_phase((ann, bob), "betting")
    assert await told.count() == 0  # gone as the round opened, not left to time out
    assert problems == []
