"""The operator console's page in a real headless Chromium, beside a player's page.

The operator signs in, opens a table a player is on, pauses it (the player's
page says so and the round in play finishes), resumes it, voids the next round
(the player's chips come back), and reads the audit log. Screenshots go to
test-artifacts/.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from server.app import StudServer
from server.fleet import Fleet
from server.stores.redis import RedisStore
from tests.conftest import make_config
from tests.console import PASSWORD, with_console
from tests.decks import shuffles
from tests.redis_fixture import RedisServer, fresh_namespace, private_redis
from tests.test_web import (
    WAIT_MS,
    browser,
    build_ante,
    dollars,
    enter,
    expect_phase,
    expect_wallet,
    needs_chromium,
    open_page,
    shot,
)

__all__ = ["browser", "private_redis"]  # fixtures used below

START = 100_000
SEED = 100_000  # conftest's jackpot seed
DEALER_AK = ["Ad", "Kc", "9h", "4s", "2d"]
ROUND_1 = [["Kh", "Ks", "7d", "5c", "2h"], DEALER_AK]  # Ann: a pair of kings beats ace-king
ROUND_2 = [["9c", "8d", "4h", "3s", "Jh"], ["Qd", "Jc", "9h", "5s", "2c"]]  # voided mid-way
ROUND_3 = [["Tc", "Td", "4d", "3c", "8h"], DEALER_AK]  # after the void


@pytest.fixture
async def server() -> AsyncIterator[StudServer]:
    config = with_console(
        make_config(timers={"betting": 60, "decision": 60, "results": 1}), poll_interval=0.2
    )
    s = StudServer(config, shuffle=shuffles(ROUND_1, ROUND_2, ROUND_3))
    await s.start()
    hashed = await s.passwords.hash(PASSWORD)
    await s.admin.admin.put_operator("olga", hashed, replace=False, now_ms=1)
    yield s
    await s.stop(grace=0)


async def sign_in(page: Page) -> None:
    await expect(page.get_by_test_id("console-signin")).to_be_visible()
    await page.get_by_test_id("signin-name").fill("olga")
    await page.get_by_test_id("signin-password").fill("not the password")
    await page.get_by_test_id("signin-submit").click()
    await expect(page.get_by_test_id("signin-error")).to_contain_text("Wrong")
    await page.get_by_test_id("signin-password").fill(PASSWORD)
    await page.get_by_test_id("signin-submit").click()
    await expect(page.get_by_test_id("console-operator")).to_have_text("olga")


async def act(page: Page, button: str, reason: str) -> None:
    await page.get_by_test_id("act-reason").fill(reason)
    await page.get_by_test_id(button).click()
    result = page.get_by_test_id("act-result")
    await expect(result).to_have_attribute("data-outcome", "applied")


@needs_chromium
async def test_an_operator_pauses_resumes_and_voids_from_the_console(
    server: StudServer, browser: Browser
) -> None:
    problems: list[str] = []
    ann = await open_page(browser, f"http://127.0.0.1:{server.port}/", problems)
    await enter(ann, "Ann")
    await ann.get_by_test_id("play-alpha").click()
    await expect(ann.get_by_test_id("seat-0-name")).to_contain_text("Ann")
    assert server.admin.port is not None
    console = await open_page(browser, f"http://127.0.0.1:{server.admin.port}/", problems)
    await sign_in(console)

    # ----- the tables of the fleet; the player on alpha
    row = console.get_by_test_id("table-row-alpha")
    await expect(row).to_contain_text("Ann")
    await expect(console.get_by_test_id("books-sum")).to_have_attribute("data-sum", "0")

    # ----- a round in play: Ann antes and is dealt in
    await build_ante(ann, 0, [(1000, "left")])
    await ann.get_by_test_id("deal").click()
    await expect_phase([ann], "deciding")

    # ----- the operator opens the table: what players see, and pauses it
    await console.get_by_test_id("open-alpha").click()
    detail = console.get_by_test_id("table-detail")
    await expect(detail).to_be_visible()
    felt = console.get_by_test_id("console-table-view")
    await expect(felt.get_by_test_id("seat-0-name")).to_contain_text("Ann")
    await expect(felt.get_by_test_id("table-view")).to_have_attribute("data-phase", "deciding")
    await act(console, "act-pause", "dealer change")
    paused = ann.get_by_test_id("table-paused")
    await expect(paused).to_be_visible(timeout=WAIT_MS)
    await expect(paused).to_contain_text("dealer change")
    await expect(console.get_by_test_id("detail-paused")).to_contain_text("olga")
    await expect(felt.get_by_test_id("table-paused")).to_be_visible()
    await shot(ann, "console-paused-player.png")

    # ----- the round in play finishes; no new one starts
    await ann.get_by_test_id("raise-0").click()
    await expect_phase([ann], "showdown")
    won = START + 1000 + 2000  # ante 1:1, a pair's raise 1:1
    await expect_wallet(ann, won)
    await expect_phase([ann], "waiting")
    await expect(ann.get_by_test_id("table-message")).to_contain_text("paused")
    # no round in play, none to start: not "Waiting for bets"
    await expect(ann.get_by_test_id("phase")).to_contain_text("Paused")
    # no ante is taken: no chip is offered, nor d (the terminal's keys line says so too),
    # and the circle takes none
    await expect(ann.get_by_test_id("chip-500")).to_be_hidden()
    keys = ann.get_by_test_id("key-help")
    await expect(keys).to_contain_text("paused by the casino")
    await expect(keys).not_to_contain_text("chip")
    await expect(keys).not_to_contain_text("d deal")
    await ann.get_by_test_id("ante-0").click()
    await expect(ann.get_by_test_id("ante-0")).to_have_attribute("data-cents", "0")
    await expect(ann.get_by_test_id("deal")).to_be_disabled()
    await expect(ann.get_by_test_id("deal")).to_have_text("Deal")
    await ann.keyboard.press("d")  # says why nothing is dealt, not "Build an ante first"
    await expect(ann.locator('.toast[data-code="table_paused"]')).to_contain_text(
        "The casino has paused this table: no ante is taken until it resumes."
    )
    await expect(ann.locator(".toast", has_text="Build an ante")).to_have_count(0)
    await shot(ann, "console-paused-player-waiting.png")

    # ----- resumed: Ann plays again
    await act(console, "act-resume", "back to normal")
    await expect(paused).to_be_hidden(timeout=WAIT_MS)
    await expect(ann.get_by_test_id("phase")).to_contain_text("Waiting for bets")
    # the refusal said the table was paused: it goes with the pause, in the snapshot that
    # ends it (it stayed up, until its own time ran out)
    await expect(ann.locator('.toast[data-code="table_paused"]')).to_have_count(0, timeout=1)
    await expect(keys).to_contain_text("1–5 chip")
    await build_ante(ann, 0, [(500, "left")])
    await expect(ann.get_by_test_id("deal")).to_be_enabled()
    await ann.get_by_test_id("deal").click()
    await expect_phase([ann], "deciding")
    await expect_wallet(ann, won - 500, held=1000)

    # ----- the operator voids that round: the ante comes back
    void = console.get_by_test_id("act-void")
    await expect(void).to_be_enabled(timeout=WAIT_MS)
    await act(console, "act-void", "a misdeal")
    await expect_phase([ann], "waiting")
    await expect_wallet(ann, won)
    await shot(console, "console-table.png")

    # ----- the player, a round's record, the jackpots and the retries
    await console.get_by_test_id("tab-players").click()
    await console.get_by_test_id("player-query").fill("ann")
    await console.get_by_test_id("player-search").click()
    ann_id = await ann.evaluate("window.stud.state.me.player_id")
    await console.get_by_test_id(f"player-{ann_id}").click()
    await expect(console.get_by_test_id("player-balance")).to_have_text(dollars(won))
    await console.get_by_test_id("player-detail").locator('[data-console="open-round"]').click()
    await expect(console.get_by_test_id("round-state")).to_have_text("settled")
    await console.get_by_test_id("tab-jackpots").click()
    await expect(console.get_by_test_id("jackpot-amount-main")).to_have_attribute(
        "data-cents", str(SEED)
    )
    await console.get_by_test_id("tab-pending").click()
    await expect(console.get_by_test_id("pending")).to_contain_text(server.process_id)

    # ----- the audit log: who did what, why, and how it went
    await console.get_by_test_id("tab-audit").click()
    rows = console.get_by_test_id("audit-rows").get_by_test_id("audit-row")
    await expect(rows).to_have_count(3)
    actions = [await rows.nth(i).get_attribute("data-action") for i in range(3)]
    assert actions == ["void", "resume", "pause"]
    for i in range(3):
        await expect(rows.nth(i)).to_contain_text("olga")
        await expect(rows.nth(i)).to_have_attribute("data-outcome", "applied")
    await expect(rows.nth(2)).to_contain_text("dealer change")
    await expect(console.get_by_test_id("audit-total")).to_have_text("(3)")
    await shot(console, "console-audit.png")
    totals: dict[str, Any] = await server.store.totals()
    assert sum(totals.values()) == 0

    # ----- the void's news is of that round: it goes once Ann bets in the next one (it
    # stayed up through it, as if that one too had been voided)
    voided = ann.locator('.toast[data-code="round-voided"]')
    await expect(voided).to_contain_text("Your round was voided")
    await build_ante(ann, 0, [(500, "left")])
    await ann.get_by_test_id("deal").click()
    await expect_phase([ann], "deciding")
    await expect(voided).to_have_count(0)
    # the browser reports the wrong password's 401 on its console; nothing else may appear
    assert [p for p in problems if "status of 401" not in p] == []
    assert len(problems) <= 1


@needs_chromium
async def test_the_console_page_shows_its_process_s_tables_while_redis_is_away(
    private_redis: RedisServer, browser: Browser
) -> None:
    namespace = fresh_namespace()
    config = with_console(make_config(), poll_interval=0.2)
    config = replace(config, fleet_ttl=1.5, store_timeout=0.5)
    store = await RedisStore.connect(private_redis.url, namespace=namespace, timeout=0.5)
    side = await RedisStore.connect(private_redis.url, namespace=namespace, timeout=0.5)
    s = StudServer(config, store=store, fleet=Fleet(side, "here", "ws://here", ttl=1.5))
    await s.start()
    try:
        hashed = await s.passwords.hash(PASSWORD)
        await s.admin.admin.put_operator("olga", hashed, replace=False, now_ms=1)
        problems: list[str] = []
        assert s.admin.port is not None
        console = await open_page(browser, f"http://127.0.0.1:{s.admin.port}/", problems)
        await sign_in(console)
        await expect(console.get_by_test_id("books-sum")).to_have_attribute("data-sum", "0")
        await expect(console.get_by_test_id("store-unreachable")).to_have_count(0)

        private_redis.stop()
        await expect(console.get_by_test_id("store-unreachable")).to_be_visible(timeout=WAIT_MS)
        phase = console.get_by_test_id("table-phase-alpha")
        await expect(phase).to_have_text("suspended", timeout=WAIT_MS)
        await console.get_by_test_id("tab-pending").click()
        await expect(console.get_by_test_id("pending")).to_contain_text("Not known")
        await shot(console, "console-store-unreachable.png")

        private_redis.start()
        await expect(console.get_by_test_id("store-unreachable")).to_have_count(0, timeout=20_000)
        page_errors = [p for p in problems if p.startswith("page error")]
        assert page_errors == []
    finally:
        await s.stop(grace=0)
        await side.close()
