"""The browser client (clients/web) in a real headless Chromium against a live server.

Two players and a spectator, each in their own browser context (their own
sessionStorage, so their own token), play two rounds with stacked decks, so
every card, result and balance is known in advance. Screenshots of the lobby,
a decision and a showdown go to test-artifacts/.

Needs Debian's Chromium (`apt-get install -y chromium`, /usr/bin/chromium;
Playwright never downloads a browser here) and the page's npm dependency
(`npm ci` in clients/web).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Page, ViewportSize, async_playwright, expect

from clients.connection import StudClient
from server.app import StudServer
from tests.conftest import ServerFactory, make_config
from tests.decks import shuffles
from tests.redis_fixture import free_port

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "clients" / "web"
ARTIFACTS = ROOT / "test-artifacts"

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 10_000  # the bound on every wait for the page
VIEWPORT: ViewportSize = {"width": 1400, "height": 950}


def find_chromium() -> str | None:
    """Debian's Chromium, else one on PATH."""
    if os.access("/usr/bin/chromium", os.X_OK):
        return "/usr/bin/chromium"
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


CHROMIUM = find_chromium()
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Chromium not found: install it with `apt-get install -y chromium` (Debian)",
)

# Round 1: Ann (seat 0), Bob (seat 1), then the dealer.
ROUND_1 = [
    ["Kh", "Kd", "7s", "7c", "2d"],  # Ann: two pair
    ["9c", "8d", "4h", "3s", "2h"],  # Bob: high card
    ["Ac", "Ah", "Qd", "Jc", "5s"],  # dealer: a pair of aces, qualifies; up card 5s
]
# Round 2: Ann (seat 0), Bob (1), Cy (2), Ann again (3), then the dealer.
ROUND_2 = [
    ["2s", "5s", "8s", "Js", "Ks"],  # Ann: flush (progressive pays a fixed $50 in casino-stud)
    ["3h", "4h", "5h", "6h", "7h"],  # Bob: straight flush (10% of the jackpot)
    ["Td", "8c", "6d", "4s", "3c"],  # Cy: high card
    ["Ah", "Kc", "9h", "7d", "2c"],  # Ann: ace-king
    ["Jd", "Th", "8h", "6s", "4c"],  # dealer: jack high, does not qualify
]

START = 100_000  # conftest's starting credits, cents
SEED = 100_000  # conftest's jackpot seed
STAKE = 100  # the progressive stake at table alpha (casino-stud)
TO_METER = 50  # conftest's contribution_bp 5000: half of each stake feeds the meter


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    assert CHROMIUM is not None
    module = WEB / "node_modules" / "@msgpack" / "msgpack" / "package.json"
    assert module.is_file(), "the page needs its npm dependency: run `npm ci` in clients/web"
    expect.set_options(timeout=WAIT_MS)
    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            await b.close()


# ----- helpers -------------------------------------------------------------------------


async def open_page(browser: Browser, url: str, problems: list[str]) -> Page:
    """A page in a fresh context (its own sessionStorage), with its errors collected."""
    context = await browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(WAIT_MS)
    page = await context.new_page()
    collect_problems(page, problems)
    await page.goto(url)
    return page


def collect_problems(page: Page, problems: list[str]) -> None:
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on(
        "console",
        lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None,
    )


async def enter(page: Page, name: str) -> None:
    """Type the name and press Enter, as a keyboard does: the field has the focus."""
    await expect(page.get_by_test_id("name-input")).to_be_focused(timeout=WAIT_MS)
    await page.keyboard.type(name)
    await page.keyboard.press("Enter")
    await expect(page.get_by_test_id("lobby-table-alpha")).to_be_visible(timeout=WAIT_MS)
    # the lobby takes the focus the form had: Enter plays the first table
    await expect(page.locator('#lobby button[data-action="play"]').first).to_be_focused()
    await expect(page.get_by_test_id("player-name")).to_have_text(name, timeout=WAIT_MS)


async def expect_cents(page: Page, testid: str, cents: int, text: str | None = None) -> None:
    """An amount shown on the page: its exact cents, and its text in dollars."""
    el = page.get_by_test_id(testid)
    await expect(el).to_have_attribute("data-cents", str(cents), timeout=WAIT_MS)
    if text is not None:
        await expect(el).to_have_text(text, timeout=WAIT_MS)


async def expect_wallet(page: Page, balance: int, held: int = 0) -> None:
    await expect_cents(page, "balance", balance, dollars(balance))
    await expect_cents(page, "held", held)
    await expect_cents(page, "available", balance - held)


async def expect_cards(page: Page, testid: str, cards: Sequence[str | None]) -> None:
    """The cards drawn in a row: face-up ones by their text, face-down as backs."""
    loc = page.locator(f'[data-testid="{testid}"] .card')
    await expect(loc).to_have_count(len(cards), timeout=WAIT_MS)
    for i, card in enumerate(cards):
        await expect(loc.nth(i)).to_have_attribute("data-card", card or "back", timeout=WAIT_MS)


async def expect_phase(pages: Sequence[Page], phase: str) -> None:
    for page in pages:
        view = page.get_by_test_id("table-view")
        await expect(view).to_have_attribute("data-phase", phase, timeout=WAIT_MS)


async def build_ante(page: Page, seat: int, clicks: Sequence[tuple[int, str]]) -> None:
    """Select a chip and click the seat's circle: "left" adds it, "right" removes it."""
    circle = page.get_by_test_id(f"ante-{seat}")
    for chip, button in clicks:
        await page.get_by_test_id(f"chip-{chip}").click()
        await circle.click(button="right" if button == "right" else "left")


async def expect_result(page: Page, seat: int, outcome: str, net: int, hand: str) -> None:
    result = page.get_by_test_id(f"seat-{seat}-result")
    await expect(result).to_have_attribute("data-outcome", outcome, timeout=WAIT_MS)
    await expect_cents(page, f"seat-{seat}-net", net, signed(net))
    await expect(page.get_by_test_id(f"seat-{seat}-hand")).to_have_text(hand, timeout=WAIT_MS)


def dollars(cents: int) -> str:
    sign = "\u2212\u2060" if cents < 0 else ""  # the word joiner keeps the sign with "$"
    whole, frac = divmod(abs(cents), 100)
    return f"{sign}${whole:,}.{frac:02d}"


def signed(cents: int) -> str:
    return f"+\u2060{dollars(cents)}" if cents > 0 else dollars(cents)


async def resize(page: Page, size: ViewportSize) -> None:
    """Set the viewport, then wait for the page's own answer to it.

    Toasts and the felt are placed by script on `resize` events and a ResizeObserver,
    both run in the next frames, not before `set_viewport_size` returns.
    """
    await page.set_viewport_size(size)
    await page.evaluate(
        "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )


async def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / name), full_page=True)


# ----- tests ----------------------------------------------------------------------------


def test_import_map_points_at_the_installed_msgpack() -> None:
    """The page loads @msgpack/msgpack from node_modules, as package.json pins it."""
    html = (WEB / "index.html").read_text(encoding="utf-8")
    found = re.search(r'<script type="importmap">(.*?)</script>', html, re.S)
    assert found is not None
    target = json.loads(found.group(1))["imports"]["@msgpack/msgpack"]
    package: dict[str, Any] = json.loads((WEB / "package.json").read_text(encoding="utf-8"))
    lock: dict[str, Any] = json.loads((WEB / "package-lock.json").read_text(encoding="utf-8"))
    assert "@msgpack/msgpack" in package["dependencies"]
    assert "node_modules/@msgpack/msgpack" in lock["packages"]
    installed = WEB / target.removeprefix("./")
    if (WEB / "node_modules").is_dir():
        assert installed.is_file(), f"import map target {target} is not in node_modules"


@needs_chromium
async def test_two_players_and_a_spectator_play_rounds(
    make_server: ServerFactory, browser: Browser
) -> None:
    server = await make_server(
        shuffle=shuffles(ROUND_1, ROUND_2),
        # long betting and decision timers: only the players close them; results stay
        # up long enough for three pages to be checked and a screenshot taken
        timers={"betting": 60, "decision": 60, "results": 6},
    )
    url = f"http://127.0.0.1:{server.port}/"
    problems: list[str] = []
    ann = await open_page(browser, url, problems)
    bob = await open_page(browser, url, problems)
    cy = await open_page(browser, url, problems)
    everyone = (ann, bob, cy)

    # ----- the lobby
    for page, name in zip(everyone, ("Ann", "Bob", "Cy"), strict=True):
        await enter(page, name)
    await expect(ann.get_by_test_id("lobby-limits-alpha")).to_have_text("$1 – $100")
    await expect(ann.get_by_test_id("lobby-free-alpha")).to_have_text("5 of 5")
    await expect(ann.get_by_test_id("lobby-variant-alpha")).to_have_text("Casino Stud Poker")
    await expect(ann.get_by_test_id("lobby-jackpot-amount-alpha")).to_have_text(dollars(SEED))
    paytable = ann.get_by_test_id("lobby-paytable-alpha")
    await expect(paytable.locator("tr", has_text="Two Pair")).to_contain_text("2:1")
    await expect(paytable.locator("tr", has_text="Full House")).to_contain_text("8:1")
    await expect_wallet(ann, START)
    await shot(ann, "lobby.png")

    # ----- two players sit, one watches
    await ann.get_by_test_id("play-alpha").click()
    await expect(ann.get_by_test_id("seat-0-name")).to_contain_text("Ann")
    await bob.get_by_test_id("play-alpha").click()
    await expect(bob.get_by_test_id("seat-1-name")).to_contain_text("Bob")
    await cy.get_by_test_id("watch-alpha").click()
    view = cy.get_by_test_id("table-view")
    await expect(view).to_have_attribute("data-role", "spectator")
    await expect(cy.get_by_test_id("seat-0-name")).to_contain_text("Ann")
    await expect(cy.get_by_test_id("seat-1-name")).to_contain_text("Bob")
    await expect(cy.get_by_test_id("take-seat")).to_be_visible()
    # (the seated players' count updates with the next change of the table)
    await expect(cy.get_by_test_id("spectators")).to_have_attribute("data-count", "1")
    for testid in ("controls", "deal"):
        await expect(cy.get_by_test_id(testid)).to_have_count(0)
    await expect(cy.locator('[data-action="add-chip"]')).to_have_count(0)
    await expect(ann.get_by_test_id("paytable")).to_contain_text("Royal Flush")
    await expect(ann.get_by_test_id("progressive-paytable")).to_contain_text("Flush")

    # ----- round 1: antes built with chips; a right-click takes the selected chip's value
    # off (the rules' words), a chip of another value broken to do it
    await build_ante(ann, 0, [(1000, "left"), (1000, "left"), (500, "left"), (500, "right")])
    await expect_cents(ann, "ante-0", 2000)
    await build_ante(ann, 0, [(100, "right")])
    await expect_cents(ann, "ante-0", 1900)
    await build_ante(ann, 0, [(100, "left")])
    await expect_cents(ann, "ante-0", 2000)
    await ann.get_by_test_id("progressive-0").click()
    await expect(ann.get_by_test_id("progressive-0")).to_have_attribute("aria-pressed", "true")
    await build_ante(bob, 1, [(500, "left"), (500, "left")])
    await expect_cents(bob, "ante-1", 1000)

    await ann.get_by_test_id("deal").click()
    await expect_phase(everyone, "betting")
    await expect(ann.get_by_test_id("deal")).to_be_disabled()
    await expect_cents(cy, "ante-0", 2000)  # the spectator sees the placed ante
    await expect(cy.get_by_test_id("progressive-0")).to_have_attribute("aria-pressed", "true")
    await expect_wallet(ann, START - 2000 - STAKE, held=4000)
    await expect(ann.get_by_test_id("countdown")).to_have_text(re.compile(r"^\d+s$"))
    await bob.get_by_test_id("deal").click()

    # ----- decisions: each player sees their own hand and five backs for the others'
    # (hands are private until showdown); everyone, the dealer's four backs and up card
    await expect_phase(everyone, "deciding")
    backs: list[str | None] = [None] * 5
    for page, own in ((ann, {0}), (bob, {1}), (cy, set())):
        for seat in (0, 1):
            await expect_cards(page, f"seat-{seat}-cards", ROUND_1[seat] if seat in own else backs)
        await expect_cards(page, "dealer-cards", [None, None, None, None, "5s"])
    await expect(ann.get_by_test_id("seat-0-hand")).to_have_text("Two Pair")
    await expect(ann.get_by_test_id("raise-0")).to_be_visible()
    await expect(ann.get_by_test_id("fold-0")).to_be_visible()
    await expect(
        cy.locator("button[data-testid^=raise-], button[data-testid^=fold-]")
    ).to_have_count(0)
    meter_1 = SEED + TO_METER
    for page in everyone:
        await expect_cents(page, "jackpot-meter", meter_1, dollars(meter_1))
    await shot(ann, "decision.png")

    await bob.get_by_test_id("fold-1").click()
    await ann.get_by_test_id("raise-0").click()

    # ----- showdown 1: the dealer qualifies with aces; two pair wins 2:1 on the raise
    await expect_phase(everyone, "showdown")
    ann_1 = START + 2000 + 2 * 4000 - STAKE  # ante 1:1, raise 2:1, progressive lost
    bob_1 = START - 1000
    for page in everyone:
        await expect_cards(page, "dealer-cards", ROUND_1[2])
        await expect(page.get_by_test_id("dealer-hand")).to_have_text("One Pair — qualifies")
        await expect_result(page, 0, "win", ann_1 - START, "Two Pair")
        await expect_cents(page, "seat-0-side-bet", -STAKE)  # the net counts it: shown why
        await expect_result(page, 1, "fold", bob_1 - START, "High Card")
        await expect(page.get_by_test_id("seat-1-side-bet")).to_have_count(0)  # no side bet
    await shot(ann, "showdown-side-bet.png")
    await expect_wallet(ann, ann_1)
    await expect_wallet(bob, bob_1)
    await expect_phase(everyone, "waiting")

    # ----- the spectator takes a seat; Ann plays a second hand
    await cy.get_by_test_id("take-seat").click()
    await expect(view).to_have_attribute("data-role", "player")
    await expect(cy.get_by_test_id("seat-2-name")).to_contain_text("Cy")
    await expect(cy.get_by_test_id("controls")).to_be_visible()
    await ann.get_by_test_id("sit-3").click()
    await expect(ann.get_by_test_id("seat-3-name")).to_contain_text("Ann")

    # The spectator-turned-player's link drops: it reconnects on its own.
    opens = await cy.evaluate("window.stud.conn.opens")
    await cy.evaluate("window.stud.conn.drop()")
    await cy.wait_for_function(
        f"window.stud.conn.opens > {opens} && window.stud.conn.open", timeout=WAIT_MS
    )
    await expect(cy.get_by_test_id("conn-status")).to_have_text("Connected")
    await expect(cy.get_by_test_id("seat-2-name")).to_contain_text("Cy")

    # ----- round 2: the betting circles start empty; Rebet puts last round's bet back
    # (ante and progressive), and a right-click takes the selected chip's value off
    await expect_cents(ann, "ante-0", 0)
    await expect(ann.get_by_test_id("progressive-0")).to_have_attribute("aria-pressed", "false")
    await ann.get_by_test_id("rebet").click()
    await expect_cents(ann, "ante-0", 2000)
    await expect(ann.get_by_test_id("progressive-0")).to_have_attribute("aria-pressed", "true")
    await build_ante(ann, 0, [(1000, "right")])
    await expect_cents(ann, "ante-0", 1000)
    await build_ante(ann, 3, [(100, "left")])
    await expect_cents(bob, "ante-1", 0)
    await bob.get_by_test_id("rebet").click()
    await expect_cents(bob, "ante-1", 1000)
    await build_ante(bob, 1, [(500, "left"), (500, "left"), (500, "left")])
    await expect_cents(bob, "ante-1", 2500)
    await bob.get_by_test_id("progressive-1").click()
    await build_ante(cy, 2, [(500, "left")])

    await ann.get_by_test_id("deal").click()
    await expect_wallet(ann, ann_1 - 1000 - STAKE - 100, held=2 * 1000 + 2 * 100)
    await bob.get_by_test_id("deal").click()
    await expect(bob.get_by_test_id("deal")).to_have_text("Waiting for others…")

    # Bob reloads his page: the tab's token resumes the same player in the same seat.
    token = await bob.evaluate("sessionStorage.getItem('stud.token')")
    await bob.reload()
    await expect(bob.get_by_test_id("player-name")).to_have_text("Bob")
    await expect(bob.get_by_test_id("login")).to_be_hidden()
    await expect(bob.get_by_test_id("table-view")).to_have_attribute("data-role", "player")
    await expect(bob.get_by_test_id("seat-1-name")).to_contain_text("Bob")
    await expect_cents(bob, "ante-1", 2500)
    await expect(bob.get_by_test_id("deal")).to_have_text("Waiting for others…")
    assert await bob.evaluate("sessionStorage.getItem('stud.token')") == token

    await cy.get_by_test_id("deal").click()
    await expect_phase(everyone, "deciding")
    for page, own in ((ann, {0, 3}), (bob, {1}), (cy, {2})):
        for seat in range(4):
            await expect_cards(page, f"seat-{seat}-cards", ROUND_2[seat] if seat in own else backs)
        await expect_cards(page, "dealer-cards", [None, None, None, None, "4c"])

    await ann.get_by_test_id("raise-0").click()
    await ann.get_by_test_id("raise-3").click()
    await cy.get_by_test_id("fold-2").click()
    await bob.get_by_test_id("raise-1").click()

    # ----- showdown 2: the dealer does not qualify: antes pay 1:1, raises come back;
    # Ann's flush wins a fixed progressive prize, Bob's straight flush 10% of the meter
    await expect_phase(everyone, "showdown")
    flush_prize = 5000
    meter_before_claim = meter_1 + 2 * TO_METER
    sf_prize = meter_before_claim * 1000 // 10_000
    ann_seat_0 = 1000 + flush_prize - STAKE
    ann_2 = ann_1 + ann_seat_0 + 100
    bob_seat_1 = 2500 + sf_prize - STAKE
    bob_2 = bob_1 + bob_seat_1
    cy_2 = START - 500
    meter_2 = max(SEED, meter_before_claim - sf_prize)  # the meter is reseeded after a claim
    for page in everyone:  # Ann's page first: its screenshot is taken while results show
        await expect_cards(page, "dealer-cards", ROUND_2[4])
        await expect(page.get_by_test_id("dealer-hand")).to_have_text(
            "High Card — does not qualify"
        )
        await expect_result(page, 0, "no_qualify", ann_seat_0, "Flush")
        await expect_cents(page, "seat-0-prize", flush_prize)
        await expect_result(page, 1, "no_qualify", bob_seat_1, "Straight Flush")
        await expect_cents(page, "seat-1-prize", sf_prize)
        await expect(page.get_by_test_id("jackpot-banner")).to_contain_text(
            f"Bob won {dollars(sf_prize)} with a Straight Flush"
        )
        await expect_result(page, 2, "fold", -500, "High Card")
        await expect_result(page, 3, "no_qualify", 100, "Ace-King")
        await expect_cents(page, "jackpot-meter", meter_2, dollars(meter_2))
        if page is ann:
            await shot(ann, "showdown.png")
    await expect_wallet(ann, ann_2)
    await expect_wallet(bob, bob_2)
    await expect_wallet(cy, cy_2)

    # ----- game recall: Bob's History lists both rounds, newest first, with his jackpot
    await bob.get_by_test_id("history-button").click()
    rounds = bob.get_by_test_id("history-panel").get_by_test_id("history-round")
    await expect(rounds).to_have_count(2)
    newest, oldest = rounds.nth(0), rounds.nth(1)
    await expect(newest.get_by_test_id("history-variant")).to_have_text("Casino Stud Poker")
    await expect(newest.get_by_test_id("history-balance-before")).to_have_attribute(
        "data-cents", str(bob_1)
    )
    await expect(newest.get_by_test_id("history-balance-after")).to_have_attribute(
        "data-cents", str(bob_2)
    )
    await expect(newest.get_by_test_id("history-net")).to_have_text(signed(bob_2 - bob_1))
    dealer_cards = newest.get_by_test_id("history-dealer-cards").locator(".card")
    for i, card in enumerate(ROUND_2[4]):
        await expect(dealer_cards.nth(i)).to_have_attribute("data-card", card)
    await expect(newest.get_by_test_id("history-dealer-hand")).to_contain_text(
        "High Card · does not qualify"
    )
    mine = newest.get_by_test_id("history-seat")
    await expect(mine).to_have_attribute("data-seat", "1")
    await expect(mine.get_by_test_id("history-seat-hand")).to_have_text("Straight Flush")
    await expect(mine.get_by_test_id("history-seat-decision")).to_contain_text("Raised")
    await expect(mine.get_by_test_id("history-seat-result")).to_have_attribute(
        "data-cents", str(bob_seat_1)
    )
    await expect(mine.get_by_test_id("history-seat-prize")).to_have_attribute(
        "data-cents", str(sf_prize)
    )
    await expect(newest.get_by_test_id("history-jackpots")).to_have_text(
        f"Jackpot · You (seat 2) won {dollars(sf_prize)} from the meter"
    )
    await expect(newest.get_by_test_id("history-other")).to_have_count(3)  # Ann twice, Cy
    # stacked decks are not dealt by the fair shuffler: nothing to verify
    await expect(newest.get_by_test_id("history-verify")).to_have_count(0)
    await expect(newest).to_contain_text("Not a provably fair deal")
    await expect(
        oldest.get_by_test_id("history-seat").get_by_test_id("history-seat-result")
    ).to_have_attribute("data-outcome", "fold")
    await expect(oldest.get_by_test_id("history-net")).to_have_text(signed(bob_1 - START))
    await bob.keyboard.press("Escape")
    await expect(bob.get_by_test_id("history-panel")).to_be_hidden()

    # ----- buying chips; a refused purchase is shown in words and can be dismissed
    await cy.get_by_test_id("buy-amount").fill("20000")
    await cy.get_by_test_id("buy-chips").click()
    error = cy.get_by_test_id("error")
    await expect(error.get_by_test_id("error-message")).to_contain_text(
        "You can buy at most $10,000.00"
    )
    await error.get_by_test_id("error-dismiss").click()
    await expect(error).to_have_count(0)
    # an amount that is no whole number of dollars is told in words, and nothing is sent
    for bad in ("12.34", "0.5", "-5", "", "1e2", "5.0", "99999999999"):
        await cy.get_by_test_id("buy-amount").fill(bad)
        await cy.get_by_test_id("buy-chips").click()
        words = "smaller amount" if bad == "99999999999" else "whole dollars"
        await expect(cy.locator('.toast[data-code="buy-amount"]')).to_contain_text(words)
        # one at a time: a new try takes away what was said of the last (they stacked up);
        # the last is left for the purchase made to take away
        assert await cy.locator('.toast[data-code="buy-amount"]').count() == 1
    await expect_wallet(cy, cy_2)
    await cy.get_by_test_id("buy-amount").fill("500")
    await cy.get_by_test_id("buy-chips").click()
    await expect(cy.get_by_test_id("notice").last).to_have_text(re.compile(r"Bought \$500\.00"))
    # and the refusal goes at once (it stayed its 10 s beside the news of the purchase)
    assert await cy.locator('.toast[data-code="buy-amount"]').count() == 0
    await expect_wallet(cy, cy_2 + 50_000)
    # a purchase whose answer is lost with the link is sent again once reconnected,
    # under its key, and bought once
    await cy.get_by_test_id("buy-amount").fill("250")
    opens = await cy.evaluate("window.stud.conn.opens")
    await cy.evaluate("document.getElementById('buy').requestSubmit(); window.stud.conn.drop()")
    await cy.wait_for_function(
        f"window.stud.conn.opens > {opens} && window.stud.purchases.waiting === null",
        timeout=WAIT_MS,
    )
    await expect_wallet(cy, cy_2 + 75_000)
    assert await cy.evaluate("sessionStorage.getItem('stud.purchase')") is None
    # the wait is over: its notice goes, and the purchase says it was bought
    await expect(cy.locator('.toast[data-code="purchase-waiting"]')).to_have_count(0)
    await expect(cy.get_by_test_id("notice").last).to_have_text(re.compile(r"Bought \$250\.00"))
    await expect(cy.get_by_test_id("buy-chips")).to_be_enabled()

    # ----- leaving the table frees the seat in the lobby
    await expect_phase(everyone, "waiting")
    await bob.get_by_test_id("leave").click()
    await expect(bob.get_by_test_id("lobby-free-alpha")).to_have_text("2 of 5")

    # ----- the same session opened in a second tab: the newest tab plays; the older
    # one says so and does not take the session back until asked
    token = await ann.evaluate("sessionStorage.getItem('stud.token')")
    twin = await ann.context.new_page()
    collect_problems(twin, problems)
    await twin.add_init_script(f"sessionStorage.setItem('stud.token', {json.dumps(token)})")
    await twin.goto(url)
    await expect(twin.get_by_test_id("seat-3-name")).to_contain_text("Ann")
    await expect(ann.get_by_test_id("conn-status")).to_have_text("Playing in another tab or device")
    # it says so on the felt too (not "reconnecting"), and its way back is in full view
    await expect(ann.get_by_test_id("table-message")).to_contain_text(
        "playing in another tab or on another device"
    )
    await expect(ann.get_by_test_id("buy-form")).to_be_hidden()  # it buys nothing
    await resize(ann, {"width": 1280, "height": 800})  # a laptop's top bar
    back = await ann.get_by_test_id("reconnect").bounding_box()
    assert back is not None and back["x"] + back["width"] <= 1280, back
    await ann.screenshot(path=str(ARTIFACTS / "another-tab-1280.png"))
    await resize(ann, VIEWPORT)
    await ann.get_by_test_id("reconnect").click()
    await expect(ann.get_by_test_id("conn-status")).to_have_text("Connected")
    elsewhere = "Playing in another tab or device"
    await expect(twin.get_by_test_id("conn-status")).to_have_text(elsewhere)
    await expect(ann.get_by_test_id("seat-0-name")).to_contain_text("Ann")

    assert problems == []


async def ann_and_bob_at_alpha(
    server: StudServer, browser: Browser, problems: list[str]
) -> tuple[Page, Page]:
    """Ann's and Bob's pages at alpha, seated at #1 and #2 (their problems collected)."""
    url = f"http://127.0.0.1:{server.port}/"
    ann = await open_page(browser, url, problems)
    bob = await open_page(browser, url, problems)
    for page, name in ((ann, "Ann"), (bob, "Bob")):
        await enter(page, name)
        await page.get_by_test_id("play-alpha").click()
    await expect(bob.get_by_test_id("seat-1-name")).to_contain_text("Bob")
    return ann, bob


async def test_a_seated_player_with_nothing_to_bet_sits_the_round_out(
    make_server: ServerFactory, browser: Browser
) -> None:
    # a long betting timer: only Bob's sit-out can close betting in time
    server = await make_server(timers={"betting": 60, "decision": 60, "results": 6})
    problems: list[str] = []
    ann, bob = await ann_and_bob_at_alpha(server, browser, problems)
    # before anyone bets there is nothing to sit out of: Deal waits for a bet
    await expect(bob.get_by_test_id("deal")).to_have_text("Deal")
    await expect(bob.get_by_test_id("deal")).to_be_disabled()
    await build_ante(ann, 0, [(500, "left")])
    await ann.get_by_test_id("deal").click()
    await expect_phase((ann, bob), "betting")
    # Deal stays Deal, and off: sitting out is its own, quieter button, never the big one
    await expect(bob.get_by_test_id("deal")).to_have_text("Deal")
    await expect(bob.get_by_test_id("deal")).to_be_disabled()
    await bob.keyboard.press("d")  # nor does the Deal key sit anyone out
    await expect(bob.get_by_test_id("error-message").last).to_contain_text("Sit this round out")
    sit_out = bob.get_by_test_id("sit-out")
    await expect(sit_out).to_have_text("Sit this round out")
    await shot(bob, "sit-out.png")
    await resize(bob, {"width": 390, "height": 844})
    await expect(sit_out).to_be_visible()
    plus_hand = await bob.get_by_test_id("sit-3").bounding_box()  # a touch target: 44 px
    assert plus_hand and min(plus_hand["width"], plus_hand["height"]) >= 44, plus_hand
    await shot(bob, "sit-out-phone.png")
    await sit_out.click()
    await expect_phase((ann, bob), "deciding")
    # a refusal about the moment goes once the moment has: betting closed
    await expect(bob.get_by_test_id("error").filter(has_text="Sit this round out")).to_have_count(0)
    await expect(ann.get_by_test_id("seat-1-cards").locator(".card")).to_have_count(0)
    await expect(ann.get_by_test_id("raise-0")).to_be_visible()
    await bob.keyboard.press("f")  # no hand of his to fold
    nothing_to_fold = bob.get_by_test_id("error").filter(has_text="None of your hands")
    await expect(nothing_to_fold).to_be_visible()
    await bob.keyboard.press("l")  # leaving: nor does it follow him to the lobby
    await expect(bob.get_by_test_id("play-alpha")).to_be_visible()
    await expect(nothing_to_fold).to_have_count(0)
    assert problems == []


async def test_a_player_who_took_back_or_sat_out_may_still_bet_this_round(
    make_server: ServerFactory, browser: Browser
) -> None:
    """After Deal, "Take back" (or "Sit this round out") left the player ready with
    nothing at stake: the circles took no chip, keys 1-5 did nothing, and Deal said
    "Sitting out" while the keys line offered "1-5 chip · d deal". The server takes an
    ante until betting closes (PROTOCOL.md, `deal`): the page lets them bet again."""
    server = await make_server(timers={"betting": 60, "decision": 60, "results": 60})
    problems: list[str] = []
    url = f"http://127.0.0.1:{server.port}/"
    ann = await open_page(browser, url, problems)
    await enter(ann, "Ann")
    await ann.get_by_test_id("play-alpha").click()
    await expect(ann.get_by_test_id("seat-0-name")).to_contain_text("Ann")
    bob = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    try:
        await bob.hello(name="Bob")
        await bob.request("join", table="alpha")
        await bob.request("sit", table="alpha")
        await bob.request("ante", table="alpha", seat=1, amount=500)  # Bob never deals
        await expect_phase([ann], "betting")
        deal = ann.get_by_test_id("deal")
        table = server.rooms["alpha"].table

        # "Sit this round out", then a bet after all, from the keys
        await ann.get_by_test_id("sit-out").click()
        await expect(deal).to_have_text("Sitting out · waiting for others")
        await ann.keyboard.press("3")
        await expect_cents(ann, "ante-0", 1000)
        await ann.keyboard.press("d")
        await expect(deal).to_have_text("Waiting for others…")
        seat = table.seats[0]
        assert seat is not None and seat.ante == 1000

        # Take back, then a bet again: a click on the circle and a key. Taking the ante
        # back is not sitting out (it read "Sitting out", Deal "Sitting out · waiting
        # for others"): a seat with no bet yet, Deal to press again
        await ann.get_by_test_id("withdraw-0").click()
        await expect_cents(ann, "ante-0", 0)
        await expect(deal).to_have_text("Deal")
        await expect(ann.get_by_test_id("seat-0-status")).not_to_have_text("Sitting out")
        assert not table.ready
        await build_ante(ann, 0, [(1000, "left")])
        await expect_cents(ann, "ante-0", 1000)
        await ann.keyboard.press("2")
        await expect_cents(ann, "ante-0", 1500)
        await expect(deal).to_have_text(re.compile(r"^Deal · \$15\.00"))
        await deal.click()
        await expect(deal).to_have_text("Waiting for others…")
        seat = table.seats[0]
        assert seat is not None and seat.ante == 1500
        await bob.request("deal", table="alpha")
        await expect_phase([ann], "deciding")
    finally:
        await bob.close()
    assert problems == []


async def test_bets_built_but_never_placed_are_said_and_cleared_when_betting_closes(
    make_server: ServerFactory, browser: Browser
) -> None:
    """Bob built $15 on his seat and never pressed Deal; the betting clock closed. The
    chips were hidden while the round played, then came back under the next round's:
    a $5 click on what looked like an empty circle showed $20. They are said now, and
    cleared, so the next round's circles start empty as the README says."""
    server = await make_server(timers={"betting": 2, "decision": 60, "results": 1})
    problems: list[str] = []
    ann, bob = await ann_and_bob_at_alpha(server, browser, problems)
    await build_ante(ann, 0, [(500, "left")])
    await ann.get_by_test_id("deal").click()
    await build_ante(bob, 1, [(500, "left"), (1000, "left")])
    await bob.get_by_test_id("progressive-1").click()
    # said as Deal says it: the progressive's $1 too ("the $15.00 built" beside "Deal · $16.00")
    await expect(bob.get_by_test_id("deal")).to_have_text(re.compile(r"^Deal · \$16\.00"))
    await expect_phase((ann, bob), "deciding")  # the clock closed betting
    told = bob.locator('.toast[data-code="unplaced"]')
    await expect(told).to_contain_text(
        "the $16.00 built on seat #2 (with the progressive) was not bet"
    )
    await ann.get_by_test_id("fold-0").click()
    await expect_phase((ann, bob), "waiting")
    await expect_cents(bob, "ante-1", 0)
    assert await bob.evaluate("Object.keys(window.stud.state.builds).length") == 0
    assert problems == []


async def test_a_page_reached_by_another_name_still_plays_its_own_tables(
    browser: Browser,
) -> None:
    # the server calls itself localhost; the page is opened at 127.0.0.1 (a proxy would
    # be the same): its tables are still its own, with Play, not a link elsewhere
    port = free_port()
    config = replace(make_config(), port=port, public_url=f"ws://localhost:{port}/ws")
    server = StudServer(config)
    await server.start()
    try:
        problems: list[str] = []
        page = await open_page(browser, f"http://127.0.0.1:{port}/", problems)
        await enter(page, "Ann")
        await expect(page.get_by_test_id("play-alpha")).to_be_visible()
        await expect(page.get_by_test_id("remote-alpha")).to_have_count(0)
        assert problems == []
    finally:
        await server.stop(grace=0)
