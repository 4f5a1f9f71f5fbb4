"""The console's page at a laptop's size (1280 x 800) in a real headless Chromium:
each box sits with its buttons and nothing runs past the window; and while Redis is
away, what is not known says so, rather than a blank or a zero. Screenshots go to
test-artifacts/."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
from playwright.async_api import Browser, Locator, Page, ViewportSize, expect

from server.app import StudServer
from server.fleet import Fleet
from server.stores.redis import RedisStore
from tests.conftest import make_config
from tests.console import PASSWORD, with_console
from tests.redis_fixture import RedisServer, fresh_namespace, private_redis
from tests.test_web import WAIT_MS, browser, dollars, enter, needs_chromium, open_page, shot
from tests.test_web_admin import sign_in

__all__ = ["browser", "private_redis"]  # fixtures used below

LAPTOP: ViewportSize = {"width": 1280, "height": 800}
START = 100_000


@pytest.fixture
async def server() -> AsyncIterator[StudServer]:
    s = StudServer(with_console(make_config(wallet={"starting_credits": START})))
    await s.start()
    hashed = await s.passwords.hash(PASSWORD)
    await s.admin.admin.put_operator("olga", hashed, replace=False, now_ms=1)
    yield s
    await s.stop(grace=0)


async def inside(inner: Locator, outer: Locator) -> bool:
    """Whether `inner`'s box lies within `outer`'s, as drawn."""
    a, b = await inner.bounding_box(), await outer.bounding_box()
    assert a is not None and b is not None
    return (
        b["x"] <= a["x"]
        and a["x"] + a["width"] <= b["x"] + b["width"]
        and b["y"] <= a["y"]
        and a["y"] + a["height"] <= b["y"] + b["height"]
    )


async def fits(page: Page) -> bool:
    """Nothing drawn past the window's right edge (no sideways scrolling)."""
    return bool(await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


@needs_chromium
async def test_the_amount_box_sits_with_its_buttons_and_the_player_view_fits(
    server: StudServer, browser: Browser
) -> None:
    problems: list[str] = []
    ann = await open_page(browser, f"http://127.0.0.1:{server.port}/", problems)
    await enter(ann, "Ann")
    ann_id = await ann.evaluate("window.stud.state.me.player_id")
    assert server.admin.port is not None
    console = await open_page(browser, f"http://127.0.0.1:{server.admin.port}/", problems)
    await console.set_viewport_size(LAPTOP)
    await sign_in(console)

    await console.get_by_test_id("tab-players").click()
    await console.get_by_test_id("player-query").fill("ann")
    await console.get_by_test_id("player-search").click()
    await console.get_by_test_id(f"player-{ann_id}").click()
    detail = console.get_by_test_id("player-detail")
    amount = console.get_by_test_id("player-amount")
    bar = detail.locator('form[data-form="player-act"]')
    # the box was drawn at the window's bottom, over "Last rounds", far from Credit
    assert await inside(amount, bar)

    await console.get_by_test_id("player-reason").fill("a goodwill credit after a dropped line")
    await amount.fill("12.34")
    await console.get_by_test_id("player-credit").click()
    result = console.get_by_test_id("act-result")
    await expect(result).to_have_attribute("data-outcome", "applied")
    await expect(console.get_by_test_id("player-balance")).to_have_text(dollars(START + 1234))
    await expect(amount).to_have_value("")  # not left there for a second click to repeat
    # where the wallet's money came from outside any round, newest first
    moves = console.get_by_test_id("player-moves").get_by_test_id("move-row")
    await expect(moves).to_have_count(2)
    await expect(moves.nth(0)).to_contain_text("Operator credit")
    await expect(moves.nth(0)).to_contain_text(dollars(1234))
    await expect(moves.nth(1)).to_contain_text("Starting credits")
    await expect(moves.nth(1)).to_contain_text(f"grant:{ann_id}")

    # a refused act's outcome is the widest cell of the acts table
    await console.get_by_test_id("player-reason").fill("a chargeback from the card issuer")
    await amount.fill("99999")
    await console.get_by_test_id("player-debit").click()
    await expect(result).to_have_attribute("data-outcome", "refused")
    await expect(console.get_by_test_id("player-audit").locator("tr")).to_have_count(3)
    await shot(console, "console-player-1280.png")
    assert await fits(console)

    await console.get_by_test_id("tab-jackpots").click()
    jackpot = console.locator('form[data-form="jackpot-act"]')
    assert await inside(console.get_by_test_id("jackpot-amount-input-main"), jackpot)
    await shot(console, "console-jackpots-1280.png")
    assert await fits(console)
    assert [p for p in problems if "status of 4" not in p] == []


@needs_chromium
async def test_a_long_unbroken_reason_wraps_and_a_refused_act_shows_what_it_asked(
    server: StudServer, browser: Browser
) -> None:
    """A 200-character reason without a space (a pasted link, a ticket's id) pushed the
    audit table's Outcome past the window; a refused credit read as money moved."""
    problems: list[str] = []
    ann = await open_page(browser, f"http://127.0.0.1:{server.port}/", problems)
    await enter(ann, "Ann")
    ann_id = await ann.evaluate("window.stud.state.me.player_id")
    assert server.admin.port is not None
    console = await open_page(browser, f"http://127.0.0.1:{server.admin.port}/", problems)
    await console.set_viewport_size(LAPTOP)
    await sign_in(console)
    await console.get_by_test_id("tab-players").click()
    await console.get_by_test_id("player-query").fill("ann")
    await console.get_by_test_id("player-search").click()
    await console.get_by_test_id(f"player-{ann_id}").click()

    reason = ("https://tickets.example/" + "A1b2C3d4" * 30)[:200]
    assert len(reason) == 200 and " " not in reason
    asked = 1_000_000_000_00  # past the wallet's max_balance: refused over_limit
    await console.get_by_test_id("player-reason").fill(reason)
    await console.get_by_test_id("player-amount").fill(str(asked // 100))
    await console.get_by_test_id("player-credit").click()
    result = console.get_by_test_id("act-result")
    await expect(result).to_have_attribute("data-outcome", "refused")
    await expect(result).to_contain_text(f"asked {dollars(asked)}")
    await expect(result).not_to_contain_text("+")  # nothing moved: not a signed movement
    row = console.get_by_test_id("player-audit").get_by_test_id("audit-row")
    await expect(row.get_by_test_id("audit-amount")).to_have_text(f"asked {dollars(asked)}")
    await shot(console, "console-player-long-reason-1280.png")
    assert await fits(console)

    await console.get_by_test_id("tab-audit").click()
    rows = console.get_by_test_id("audit-rows")
    await expect(rows.get_by_test_id("audit-row")).to_have_count(1)
    await expect(rows).to_contain_text(reason[:40])
    await expect(rows.get_by_test_id("audit-amount")).to_have_text(f"asked {dollars(asked)}")
    await shot(console, "console-audit-long-reason-1280.png")
    box = await rows.bounding_box()
    outcome = await rows.locator("td.outcome-refused").bounding_box()
    assert box is not None and outcome is not None
    assert box["x"] + box["width"] <= LAPTOP["width"], box
    assert outcome["x"] + outcome["width"] <= LAPTOP["width"], outcome
    assert await fits(console)
    assert [p for p in problems if "status of 4" not in p] == []


@needs_chromium
async def test_what_the_store_holds_is_said_unknown_while_redis_is_away(
    private_redis: RedisServer, browser: Browser
) -> None:
    namespace = fresh_namespace()
    config = replace(with_console(make_config()), fleet_ttl=1.5, store_timeout=0.5)
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
        await console.set_viewport_size(LAPTOP)
        await sign_in(console)
        rounds = console.get_by_test_id("table-rounds-alpha")
        await expect(rounds).to_have_text("0")  # known: none in the last hour

        private_redis.stop()
        await expect(console.get_by_test_id("store-unreachable")).to_be_visible(timeout=WAIT_MS)
        # the API's `last_hour: null` (not known) was shown as "0"
        await expect(rounds).to_have_text("unknown")
        await expect(console.get_by_test_id("last-hour-unknown")).to_contain_text(
            "store is unreachable"
        )
        await shot(console, "console-away-tables.png")

        # the jackpots tab was a heading over nothing
        await console.get_by_test_id("tab-jackpots").click()
        unknown = console.get_by_test_id("read-error")
        await expect(unknown).to_contain_text("not known")
        await expect(unknown).to_contain_text("store")
        await shot(console, "console-away-jackpots.png")

        private_redis.start()
        await expect(console.get_by_test_id("jackpot-amount-main")).to_be_visible(timeout=20_000)
        await expect(unknown).to_have_count(0)
    finally:
        await s.stop(grace=0)
        await side.close()


@needs_chromium
async def test_a_credit_over_the_act_limit_is_shown_refused_with_its_code(
    browser: Browser,
) -> None:
    """`[admin] max_adjustment`: the page says the act was refused and why, and what it
    asked, greyed, never as money moved; the player's balance stays as it was."""
    limit = 5_000
    config = with_console(make_config(wallet={"starting_credits": START}), max_adjustment=limit)
    server = StudServer(config)
    await server.start()
    try:
        hashed = await server.passwords.hash(PASSWORD)
        await server.admin.admin.put_operator("olga", hashed, replace=False, now_ms=1)
        problems: list[str] = []
        ann = await open_page(browser, f"http://127.0.0.1:{server.port}/", problems)
        await enter(ann, "Ann")
        ann_id = await ann.evaluate("window.stud.state.me.player_id")
        assert server.admin.port is not None
        console = await open_page(browser, f"http://127.0.0.1:{server.admin.port}/", problems)
        await console.set_viewport_size(LAPTOP)
        await sign_in(console)
        await console.get_by_test_id("tab-players").click()
        await console.get_by_test_id("player-query").fill("ann")
        await console.get_by_test_id("player-search").click()
        await console.get_by_test_id(f"player-{ann_id}").click()

        asked = limit + 100
        await console.get_by_test_id("player-reason").fill("a payout too large for one act")
        await console.get_by_test_id("player-amount").fill(str(asked // 100))
        await console.get_by_test_id("player-credit").click()
        result = console.get_by_test_id("act-result")
        await expect(result).to_have_attribute("data-outcome", "refused")
        await expect(result).to_contain_text("over_act_limit")
        await expect(result).to_contain_text(f"asked {dollars(asked)}")
        await expect(result).not_to_contain_text("+")
        row = console.get_by_test_id("player-audit").get_by_test_id("audit-row")
        await expect(row).to_contain_text("refused (over_act_limit)")
        await expect(row.get_by_test_id("audit-amount")).to_have_text(f"asked {dollars(asked)}")
        assert (await server.store.wallet(ann_id)).balance == START
        await shot(console, "console-player-over-act-limit-1280.png")
        assert [p for p in problems if "status of 4" not in p] == []
    finally:
        await server.stop(grace=0)
