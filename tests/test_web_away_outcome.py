"""What the browser says of a round that went on while the player could not see it, in
a real headless Chromium: each hand's own result, not the round's net pinned to some of
them, and notices that stop being true go.

Needs Debian's Chromium and the page's npm dependency, like tests/test_web.py.
"""

from __future__ import annotations

from playwright.async_api import Browser, expect

from tests.conftest import ServerFactory
from tests.test_web import browser, build_ante, dollars, needs_chromium, shot, signed
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
