"""What the console's page reads out to an operator, in a real headless Chromium at a
laptop's size (1280 x 800) and a desktop's (1920 x 1080): each table by its id as the
API and the audit log name it, a paused table's message clear of every seat, a round's
panel on its own tab, a percent prize in a player's words, and the acts on a player
with their target on one line. Screenshots go to test-artifacts/."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from playwright.async_api import Browser, Locator, Page, ViewportSize, expect

from server.app import StudServer
from server.game.cards import Card
from tests.conftest import ClientFactory, make_config
from tests.console import PASSWORD, Operator, with_console
from tests.decks import shuffles
from tests.test_web import browser, needs_chromium, open_page, shot
from tests.test_web_admin import sign_in
from tests.test_web_admin_views import LAPTOP, fits

__all__ = ["browser"]  # fixtures used below

DESKTOP: ViewportSize = {"width": 1920, "height": 1080}
SIZES = [pytest.param(LAPTOP, id="1280"), pytest.param(DESKTOP, id="1920")]
TABLES = [
    {"id": "alpha", "variant": "casino-stud", "seats": 5, "min_ante": 100, "max_ante": 10_000},
    {"id": "four", "variant": "casino-stud", "seats": 4, "min_ante": 100, "max_ante": 10_000},
    {
        "id": "special-1",
        "title": "Ops Special",
        "variant": "ops-special",
        "seats": 5,
        "min_ante": 100,
        "max_ante": 10_000,
    },
]
VARIANTS = {"ops-special": {"title": "Ops Special", "base": "casino-stud"}}
ROYAL = ["Ah", "Kh", "Qh", "Jh", "Th"]
NOTHING = ["2c", "3c", "4c", "5c", "7d"]
DEALER_AK = ["Ad", "Kc", "9h", "4s", "2d"]


async def start(shuffle: Callable[[], list[Card]] | None) -> StudServer:
    config = make_config(
        tables=TABLES,
        variants=VARIANTS,
        timers={"betting": 60, "decision": 60, "results": 0.2},
    )
    s = StudServer(with_console(config), shuffle=shuffle)
    await s.start()
    hashed = await s.passwords.hash(PASSWORD)
    await s.admin.admin.put_operator("olga", hashed, replace=False, now_ms=1)
    return s


@pytest.fixture
async def server() -> AsyncIterator[StudServer]:
    """Its first deal: Ann's royal flush, Bob's nothing (a stacked deck: no fairness proof)."""
    s = await start(shuffles([ROYAL, NOTHING, DEALER_AK]))
    yield s
    await s.stop(grace=0)


@pytest.fixture
async def fair_server() -> AsyncIterator[StudServer]:
    """Its deals by the provably fair shuffle: each round's proof revealed."""
    s = await start(None)
    yield s
    await s.stop(grace=0)


async def console_page(
    server: StudServer, browser: Browser, problems: list[str], size: ViewportSize
) -> Page:
    assert server.admin.port is not None
    console = await open_page(browser, f"http://127.0.0.1:{server.admin.port}/", problems)
    await console.set_viewport_size(size)
    await sign_in(console)
    return console


# The table message's box, and the seats' parts it shares any area with.
OVER_SEATS = """(felt) => {
  const box = (el) => el.getBoundingClientRect();
  const message = felt.querySelector('[data-testid="table-message"]');
  const m = box(message);
  const hits = [];
  for (const el of felt.querySelectorAll('[data-testid^="seat-"], [data-testid^="ante-"]')) {
    const r = box(el);
    if (r.width < 1 || r.height < 1) continue;
    const ix = Math.min(m.right, r.right) - Math.max(m.left, r.left);
    const iy = Math.min(m.bottom, r.bottom) - Math.max(m.top, r.top);
    if (ix > 0.5 && iy > 0.5) hits.push(el.dataset.testid);
  }
  return {text: message.textContent, seats: felt.querySelectorAll(".seat").length, hits};
}"""

# How many lines an element's text is drawn on.
LINES = """(el) => {
  const range = document.createRange();
  range.selectNodeContents(el);
  const rects = [...range.getClientRects()].filter((r) => r.width >= 1);
  const tops = rects.map((r) => Math.round(r.top));
  return new Set(tops).size;
}"""


@needs_chromium
@pytest.mark.parametrize("size", SIZES)
async def test_the_tables_list_names_each_table_by_its_id(
    server: StudServer, browser: Browser, size: ViewportSize
) -> None:
    """A titled table read "Ops Special / Ops Special": its id (the API's, the audit
    target's) was on its detail page only."""
    problems: list[str] = []
    console = await console_page(server, browser, problems, size)
    row = console.get_by_test_id("table-row-special-1")
    await expect(row).to_contain_text("Ops Special")
    await expect(row.get_by_test_id("table-id-special-1")).to_have_text("special-1")
    await expect(console.get_by_test_id("table-id-alpha")).to_have_text("alpha")
    await shot(console, f"console-tables-ids-{size['width']}.png")
    assert await fits(console)
    assert [p for p in problems if "status of 4" not in p] == []


@needs_chromium
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("table", ["four", "alpha"])
async def test_a_paused_table_s_message_leaves_every_seat_clear(
    server: StudServer, browser: Browser, size: ViewportSize, table: str
) -> None:
    """At 1920 x 1080 a paused 4-seat table's "The casino has paused this table…" sat
    over seat 1's circle."""
    op = await Operator.sign_in(server)
    await op.act(f"/api/tables/{table}/pause", reason="dealer change")
    problems: list[str] = []
    console = await console_page(server, browser, problems, size)
    await console.get_by_test_id(f"open-{table}").click()
    # an untitled table is headed by its id once ("four (four)" said it twice)
    await expect(console.get_by_test_id("detail-title")).to_have_text(table)
    felt = console.get_by_test_id("console-table-view")
    await expect(felt.get_by_test_id("table-message")).to_contain_text("paused this table")
    await expect(felt).to_have_attribute("data-felt", "measured")  # laid out for its size
    found: dict[str, Any] = await felt.evaluate(OVER_SEATS)
    await shot(console, f"console-paused-{table}-{size['width']}.png")
    assert found["seats"] == (4 if table == "four" else 5), found
    assert found["hits"] == [], found
    assert await fits(console)
    assert [p for p in problems if "status of 4" not in p] == []


@needs_chromium
async def test_what_players_see_does_not_take_the_operator_for_a_spectator(
    server: StudServer, browser: Browser
) -> None:
    """ "You are watching this table." is the player page's word to a spectator."""
    problems: list[str] = []
    console = await console_page(server, browser, problems, LAPTOP)
    await console.get_by_test_id("open-alpha").click()
    felt = console.get_by_test_id("console-table-view")
    await expect(felt.get_by_test_id("table-message")).to_be_visible()
    await expect(felt).not_to_contain_text("You are watching")
    await expect(felt.get_by_test_id("spectator-bar")).to_have_count(0)
    assert [p for p in problems if "status of 4" not in p] == []


async def play_a_royal_flush(server: StudServer, connect: ClientFactory) -> tuple[str, str]:
    """Ann raises and Bob folds (on `server`, Ann's royal flush takes the meter: a percent
    prize), neither with a client seed: their ids."""
    ann, bob = await connect(server, "Ann"), await connect(server, "Bob")
    for client in (ann, bob):
        await client.request("join", table="alpha")
        await client.request("sit", table="alpha")
    await ann.request("ante", table="alpha", seat=0, amount=100, progressive=True)
    await bob.request("ante", table="alpha", seat=1, amount=100)
    await ann.request("deal", table="alpha")
    await bob.request("deal", table="alpha")
    await ann.wait_table("alpha", lambda snap: snap["phase"] == "deciding")
    await ann.request("raise", table="alpha", seat=0)
    await bob.request("fold", table="alpha", seat=1)
    await ann.wait_table("alpha", lambda snap: snap["phase"] == "waiting")
    return ann.player_id, bob.player_id


async def open_ann_s_round(console: Page, ann_id: str) -> Locator:
    """Players, Ann, her last round: its panel."""
    await console.get_by_test_id("tab-players").click()
    await console.get_by_test_id("player-query").fill(ann_id)
    await console.get_by_test_id("player-search").click()
    await console.get_by_test_id(f"player-{ann_id}").click()
    detail = console.get_by_test_id("player-detail")
    await detail.locator('[data-console="open-round"]').first.click()
    panel = console.get_by_test_id("round-detail")
    await expect(panel).to_be_visible()
    return panel


@needs_chromium
@pytest.mark.parametrize("size", SIZES)
async def test_a_round_s_panel_stays_on_its_tab(
    server: StudServer, browser: Browser, connect: ClientFactory, size: ViewportSize
) -> None:
    """A round opened from a player's page stayed at the bottom of every other tab."""
    ann_id, _ = await play_a_royal_flush(server, connect)
    problems: list[str] = []
    console = await console_page(server, browser, problems, size)
    panel = await open_ann_s_round(console, ann_id)
    await console.get_by_test_id("tab-pending").click()
    await expect(console.get_by_test_id("pending")).to_contain_text(server.process_id)
    await expect(panel).to_have_count(0)
    await shot(console, f"console-retries-after-round-{size['width']}.png")
    await console.get_by_test_id("tab-players").click()  # its own tab: there again
    await expect(panel).to_be_visible()
    # another player's page is not that round's
    await console.get_by_test_id("player-query").fill("Bob")
    await console.get_by_test_id("player-search").click()
    await (
        console.get_by_test_id("player-results")
        .locator('[data-console="open-player"]')
        .first.click()
    )
    await expect(console.get_by_test_id("player-detail")).not_to_have_attribute(
        "data-player", ann_id
    )
    await expect(panel).to_have_count(0)
    assert await fits(console)
    assert [p for p in problems if "status of 4" not in p] == []


@needs_chromium
async def test_a_round_without_client_seeds_says_none(
    fair_server: StudServer, browser: Browser, connect: ClientFactory
) -> None:
    """Two hands dealt without a client seed read ","."""
    ann_id, _ = await play_a_royal_flush(fair_server, connect)
    problems: list[str] = []
    console = await console_page(fair_server, browser, problems, LAPTOP)
    panel = await open_ann_s_round(console, ann_id)
    await expect(panel.get_by_test_id("round-client-seeds")).to_have_text("none")
    await shot(console, "console-round-seeds-1280.png")
    assert [p for p in problems if "status of 4" not in p] == []


@needs_chromium
@pytest.mark.parametrize("size", SIZES)
async def test_a_percent_prize_names_its_hand_and_its_player(
    server: StudServer, browser: Browser, connect: ClientFactory, size: ViewportSize
) -> None:
    """ "Last percent prizes" read ROYAL_FLUSH and a raw player id."""
    ann_id, _ = await play_a_royal_flush(server, connect)
    op = await Operator.sign_in(server)
    [main] = (await op.get("/api/jackpots"))["jackpots"]
    [hit] = main["hits"]
    assert (hit["player_id"], hit["name"], hit["category"]) == (ann_id, "Ann", "ROYAL_FLUSH")
    problems: list[str] = []
    console = await console_page(server, browser, problems, size)
    await console.get_by_test_id("tab-jackpots").click()
    hits = console.get_by_test_id("jackpot-hits-main")
    await expect(hits.locator("tbody tr")).to_have_count(1)
    cells = hits.locator("tbody td")
    await expect(cells.nth(1)).to_have_text("alpha")
    await expect(cells.nth(3)).to_have_text("Royal Flush")
    await expect(hits).not_to_contain_text("ROYAL_FLUSH")
    winner = hits.get_by_test_id("jackpot-hit-player")
    await expect(winner).to_have_text("Ann")
    await expect(winner).to_have_attribute("title", ann_id)
    await shot(console, f"console-jackpot-hit-{size['width']}.png")
    assert await fits(console)
    await winner.click()  # the player's page, as a player's name leads elsewhere
    await expect(console.get_by_test_id("player-detail")).to_have_attribute("data-player", ann_id)
    assert [p for p in problems if "status of 4" not in p] == []


@needs_chromium
async def test_no_write_in_doubt_reads_0(server: StudServer, browser: Browser) -> None:
    """On Retries, "Writes in doubt" was a blank."""
    problems: list[str] = []
    console = await console_page(server, browser, problems, LAPTOP)
    await console.get_by_test_id("tab-pending").click()
    await expect(console.get_by_test_id(f"writes-{server.process_id}")).to_have_text("0")
    assert [p for p in problems if "status of 4" not in p] == []


#: The lines one word of an element's text is drawn on.
WORD_LINES = """(el, word) => {
  const node = el.firstChild, at = node.textContent.indexOf(word);
  const range = document.createRange();
  range.setStart(node, at);
  range.setEnd(node, at + word.length);
  return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
}"""


@needs_chromium
@pytest.mark.parametrize("size", SIZES)
async def test_an_act_s_target_reads_on_one_line(
    server: StudServer, browser: Browser, connect: ClientFactory, size: ViewportSize
) -> None:
    """At 1280 the player's id in "Acts on this player" wrapped over four lines."""
    ann = await connect(server, "Ann")
    op = await Operator.sign_in(server)
    await op.act(f"/api/players/{ann.player_id}/credit", reason="goodwill", amount=500)
    await op.act(f"/api/players/{ann.player_id}/suspend", reason="a chargeback")
    asked = 1_000_000_000_00  # past the wallet's max_balance: refused, the widest row
    await op.act(f"/api/players/{ann.player_id}/credit", reason="a typo", amount=asked)
    problems: list[str] = []
    console = await console_page(server, browser, problems, size)
    await console.get_by_test_id("tab-players").click()
    await console.get_by_test_id("player-query").fill(ann.player_id)
    await console.get_by_test_id("player-search").click()
    await console.get_by_test_id(f"player-{ann.player_id}").click()
    rows = console.get_by_test_id("player-audit").get_by_test_id("audit-row")
    await expect(rows).to_have_count(3)
    await expect(rows.nth(0)).to_have_attribute("data-outcome", "refused")
    for i in range(3):
        target = rows.nth(i).get_by_test_id("audit-target")
        await expect(target).to_have_attribute("title", f"player:{ann.player_id}")
        assert await target.evaluate(LINES) == 1
        # what is shown of it begins as the target does
        text = await target.text_content()
        assert text and text.startswith("player:"), text
    # a reason's words stay whole: "chargeback" was broken over two lines
    reason = rows.nth(1).get_by_test_id("audit-reason")
    assert await reason.evaluate(WORD_LINES, "chargeback") == 1
    await shot(console, f"console-player-acts-{size['width']}.png")
    assert await fits(console)
    assert [p for p in problems if "status of 4" not in p] == []
