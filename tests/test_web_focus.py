"""The keyboard's focus and the selected seat go together, in a real headless Chromium.

Ann holds three seats at a nine-seat table in a 1280x800 window. Whatever inside one
of her seats takes the focus (Tab, Shift+Tab, a click) selects that seat, so a key
acts where the focus ring is: Shift+Tab back from seat #3 onto seat #1's ante circle
and "3" puts the $10 chip on seat #1, not on #3.

Needs Debian's Chromium, like tests/test_web.py.
"""

from __future__ import annotations

from playwright.async_api import Browser, Page, expect

from tests.conftest import ClientFactory, ServerFactory
from tests.test_web import ARTIFACTS, browser, expect_cents, needs_chromium
from tests.test_web_layout import LAPTOPS, LONG, NINE, enter, new_page, sit_three
from tests.test_web_leave import ann_raised_beside_bob

__all__ = ["browser"]  # the fixture used below

pytestmark = needs_chromium

DEALER = ["Ad", "Ac", "7h", "6s", "2d"]


async def shift_tab_to(page: Page, testid: str, presses: int) -> None:
    """Press Shift+Tab until the control `testid` has the focus, at most `presses` times."""
    for _ in range(presses):
        await page.keyboard.press("Shift+Tab")
        if await page.evaluate("document.activeElement.dataset.testid") == testid:
            return
    raise AssertionError(f"{presses} Shift+Tabs never reached {testid!r}")


async def test_the_focus_inside_an_own_seat_selects_it(
    make_server: ServerFactory, browser: Browser
) -> None:
    server = await make_server(tables=NINE, timers=LONG)
    problems: list[str] = []
    _, ann = await new_page(
        browser, f"http://127.0.0.1:{server.port}/", problems, viewport=LAPTOPS[0]
    )
    await enter(ann, "Ann")
    await sit_three(ann, 0)
    await ann.get_by_test_id("seat-2").locator(".nameplate").click()
    await expect(ann.get_by_test_id("seat-2")).to_have_attribute("data-selected", "true")
    await ann.get_by_test_id("chip-100").focus()  # the rack, after the seats
    await shift_tab_to(ann, "ante-0", 30)
    await expect(ann.get_by_test_id("seat-0")).to_have_attribute("data-selected", "true")
    ARTIFACTS.mkdir(exist_ok=True)
    await ann.screenshot(path=str(ARTIFACTS / "focus-shift-tab-ante-0.png"))
    await ann.keyboard.press("3")
    await expect_cents(ann, "ante-0", 1000)
    await expect_cents(ann, "ante-2", 0)
    # the focus stays where it was: the next Shift+Tab goes on back from there
    assert await ann.evaluate("document.activeElement.dataset.testid") == "ante-0"
    # forward onto seat #2's Stand up: #2 is selected, and the key acts there
    await ann.get_by_test_id("stand-1").focus()
    await expect(ann.get_by_test_id("seat-1")).to_have_attribute("data-selected", "true")
    await ann.keyboard.press("2")
    await expect_cents(ann, "ante-1", 500)
    await expect_cents(ann, "ante-0", 1000)
    assert problems == []


async def test_after_a_reload_mid_decision_the_focus_goes_on_with_the_selection(
    make_server: ServerFactory, browser: Browser
) -> None:
    """A page reloaded with three hands waiting puts the focus on the table's title; r
    and f then decide the selected hand, which stays selected (a key pressed twice
    folded the next hand too, one never chosen); pressed again, the key sends nothing
    and the selection moves on to the next hand still waiting, the focus ring with it
    (it stayed on the title, so the ring showed nothing of where the next key would
    act)."""
    server = await make_server(tables=NINE, timers=LONG)
    problems: list[str] = []
    _, ann = await new_page(
        browser, f"http://127.0.0.1:{server.port}/", problems, viewport=LAPTOPS[0]
    )
    await enter(ann, "Ann")
    await sit_three(ann, 0)
    for seat in (0, 1, 2):
        await ann.get_by_test_id("chip-500").click()
        await ann.get_by_test_id(f"ante-{seat}").click()
    await ann.get_by_test_id("deal").click()
    await expect(ann.get_by_test_id("raise-2")).to_be_visible()
    await ann.reload()
    await expect(ann.get_by_test_id("raise-2")).to_be_visible()
    await ann.wait_for_function("document.activeElement.dataset.testid === 'table-title'")
    await expect(ann.get_by_test_id("seat-0")).to_have_attribute("data-selected", "true")
    await ann.keyboard.press("r")
    await expect(ann.get_by_test_id("seat-0-status")).to_have_text("Raised")
    await expect(ann.get_by_test_id("seat-0")).to_have_attribute("data-selected", "true")
    await ann.keyboard.press("r")  # again: nothing sent, the next hand selected
    told = ann.locator('.toast[data-code="decided"]')
    await expect(told).to_contain_text("Seat #1 has raised already; nothing sent")
    await expect(ann.get_by_test_id("seat-1")).to_have_attribute("data-selected", "true")
    await ann.wait_for_function("document.activeElement.dataset.testid === 'seat-1'")
    assert await ann.evaluate("document.activeElement.matches(':focus-visible')")
    await expect(ann.get_by_test_id("raise-1")).to_be_visible()  # still to decide
    await ann.keyboard.press("f")
    await expect(ann.get_by_test_id("seat-1-status")).to_have_text("Folded")
    await ann.keyboard.press("f")  # again: #2 stays undecided
    await expect(told.last).to_contain_text("Seat #2 has folded already; nothing sent")
    await expect(ann.get_by_test_id("seat-2")).to_have_attribute("data-selected", "true")
    await ann.wait_for_function("document.activeElement.dataset.testid === 'seat-2'")
    await expect(ann.get_by_test_id("raise-2")).to_be_visible()
    assert problems == []


async def test_a_key_on_the_only_hand_decided_names_it(
    make_server: ServerFactory, connect: ClientFactory, browser: Browser
) -> None:
    """Ann's one hand raised while Bob still decides: r again said "None of your hands
    is waiting for a decision.", as if she had none; it names the hand, as with several."""
    hands = [["2c", "3d", "5h", "8s", "Jc"], ["4c", "4d", "9h", "Ts", "Kc"], DEALER]
    _, page, problems, _ = await ann_raised_beside_bob(make_server, connect, browser, hands)
    await page.keyboard.press("r")
    told = page.locator('.toast[data-code="decided"]')
    await expect(told).to_contain_text("Seat #1 has raised already; nothing sent.")
    assert problems == []
