"""The console page for a viewer, in a real headless Chromium at a laptop's size: the
role beside the name, every read there, and no act control anywhere (each act form
replaced by a word why); reloaded, the tab asks the API for its role again.
Screenshots go to test-artifacts/."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser, Page, expect

from server.app import StudServer
from tests.conftest import make_config
from tests.console import PASSWORD, with_console
from tests.test_web import browser, enter, needs_chromium, open_page, shot
from tests.test_web_admin_views import LAPTOP, fits

__all__ = ["browser"]  # fixtures used below

#: Every control of an act the page draws for an admin.
ACT_CONTROLS = (
    'form[data-form="table-act"]',
    'form[data-form="jackpot-act"]',
    'form[data-form="player-act"]',
    "[data-console=table-act]",
    "[data-console=jackpot-act]",
    "[data-console=player-act]",
)


@pytest.fixture
async def server() -> AsyncIterator[StudServer]:
    s = StudServer(with_console(make_config()))
    await s.start()
    hashed = await s.passwords.hash(PASSWORD)
    await s.admin.admin.put_operator("vera", hashed, replace=False, now_ms=1, role="viewer")
    await s.admin.admin.put_operator("olga", hashed, replace=False, now_ms=1)
    yield s
    await s.stop(grace=0)


async def sign_in(page: Page, name: str) -> None:
    await expect(page.get_by_test_id("console-signin")).to_be_visible()
    await page.get_by_test_id("signin-name").fill(name)
    await page.get_by_test_id("signin-password").fill(PASSWORD)
    await page.get_by_test_id("signin-submit").click()
    await expect(page.get_by_test_id("console-operator")).to_have_text(name)


async def no_act_controls(page: Page) -> None:
    for selector in ACT_CONTROLS:
        await expect(page.locator(selector)).to_have_count(0)


@needs_chromium
async def test_a_viewer_sees_every_read_and_no_act(server: StudServer, browser: Browser) -> None:
    problems: list[str] = []
    ann = await open_page(browser, f"http://127.0.0.1:{server.port}/", problems)
    await enter(ann, "Ann")
    ann_id = await ann.evaluate("window.stud.state.me.player_id")
    assert server.admin.port is not None
    console = await open_page(browser, f"http://127.0.0.1:{server.admin.port}/", problems)
    await console.set_viewport_size(LAPTOP)
    await sign_in(console, "vera")
    await expect(console.get_by_test_id("console-role")).to_have_text("viewer")

    # a table: its details and what its players see, no pause, void or remove
    await console.get_by_test_id("open-alpha").click()
    await expect(console.get_by_test_id("console-table-view")).to_be_visible()
    await expect(console.get_by_test_id("detail-phase")).not_to_be_empty()
    note = console.get_by_test_id("read-only")
    await expect(note).to_have_count(1)
    await expect(note).to_contain_text("Viewer")
    await expect(note).to_contain_text("admin")
    await no_act_controls(console)
    assert await fits(console)
    await shot(console, "console-viewer-table-1280.png")

    # a player: wallet and history, no credit, debit or suspension
    await console.get_by_test_id("tab-players").click()
    await console.get_by_test_id("player-query").fill("ann")
    await console.get_by_test_id("player-search").click()
    await console.get_by_test_id(f"player-{ann_id}").click()
    await expect(console.get_by_test_id("player-balance")).not_to_be_empty()
    await expect(console.get_by_test_id("read-only")).to_contain_text("Credits")
    await no_act_controls(console)
    await shot(console, "console-viewer-player-1280.png")

    # the jackpots: the meter, no reseed or setting
    await console.get_by_test_id("tab-jackpots").click()
    await expect(console.get_by_test_id("jackpot-amount-main")).to_be_visible()
    await expect(console.get_by_test_id("read-only")).to_contain_text("meter")
    await no_act_controls(console)
    # the audit log and the retries read as for anyone
    await console.get_by_test_id("tab-audit").click()
    await expect(console.get_by_test_id("audit-total")).to_have_text("(0)")
    await console.get_by_test_id("tab-pending").click()
    await expect(console.get_by_test_id("pending")).to_be_visible()

    # the tab reloaded, still signed in: it asks the API who it is, role included
    await console.reload()
    await expect(console.get_by_test_id("console-role")).to_have_text("viewer")
    await console.get_by_test_id("open-alpha").click()
    await expect(console.get_by_test_id("read-only")).to_be_visible()
    await no_act_controls(console)
    assert problems == []


@needs_chromium
async def test_an_admin_sees_the_acts_and_no_role_word(
    server: StudServer, browser: Browser
) -> None:
    problems: list[str] = []
    assert server.admin.port is not None
    console = await open_page(browser, f"http://127.0.0.1:{server.admin.port}/", problems)
    await console.set_viewport_size(LAPTOP)
    await sign_in(console, "olga")
    await console.get_by_test_id("open-alpha").click()
    await expect(console.get_by_test_id("act-pause")).to_be_visible()
    await expect(console.get_by_test_id("read-only")).to_have_count(0)
    await expect(console.get_by_test_id("console-role")).to_have_count(0)
    assert problems == []
