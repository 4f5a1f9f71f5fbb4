"""The console page's acts as an operator uses them, in a real headless Chromium at
a laptop's size: an amount is taken only in whole cents and the amount moved is
shown; an act's buttons wait for its answer; a meter correction is confirmed with
its before and after. Screenshots go to test-artifacts/."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import Browser, Page, Request, expect

from server.app import StudServer
from tests.conftest import make_config
from tests.console import PASSWORD, Operator, new_id, with_console
from tests.test_web import (
    browser,
    build_ante,
    dollars,
    enter,
    needs_chromium,
    open_page,
    shot,
    signed,
)
from tests.test_web_admin import sign_in
from tests.test_web_admin_views import LAPTOP

__all__ = ["browser"]  # fixtures used below

START = 100_000


@pytest.fixture
async def server() -> AsyncIterator[StudServer]:
    s = StudServer(with_console(make_config(wallet={"starting_credits": START})))
    await s.start()
    hashed = await s.passwords.hash(PASSWORD)
    await s.admin.admin.put_operator("olga", hashed, replace=False, now_ms=1)
    yield s
    await s.stop(grace=0)


async def console_page(server: StudServer, browser: Browser, problems: list[str]) -> Page:
    assert server.admin.port is not None
    console = await open_page(browser, f"http://127.0.0.1:{server.admin.port}/", problems)
    await console.set_viewport_size(LAPTOP)
    await sign_in(console)
    return console


def acts_sent(page: Page) -> list[dict[str, Any]]:
    """The bodies of the acts the page sends, as it sends them."""
    sent: list[dict[str, Any]] = []

    def note(request: Request) -> None:
        if request.method == "POST" and "/api/session" not in request.url:
            sent.append(json.loads(request.post_data or "{}"))

    page.on("request", note)
    return sent


async def open_player(console: Page, player_id: str) -> None:
    await console.get_by_test_id("tab-players").click()
    await console.get_by_test_id("player-query").fill(player_id)
    await console.get_by_test_id("player-search").click()
    await console.get_by_test_id(f"player-{player_id}").click()
    await expect(console.get_by_test_id("player-detail")).to_be_visible()


@needs_chromium
async def test_an_amount_is_taken_in_whole_cents_and_the_amount_moved_is_shown(
    server: StudServer, browser: Browser
) -> None:
    problems: list[str] = []
    ann = await open_page(browser, f"http://127.0.0.1:{server.port}/", problems)
    await enter(ann, "Ann")
    ann_id = await ann.evaluate("window.stud.state.me.player_id")
    console = await console_page(server, browser, problems)
    sent = acts_sent(console)
    await open_player(console, ann_id)
    amount = console.get_by_test_id("player-amount")
    error = console.get_by_test_id("player-amount-error")
    credit = console.get_by_test_id("player-credit")

    # "12.345" was sent as 1235 cents, "1e3" as $1,000: neither is a sum in dollars and cents
    for typed in ("12.345", "1e3"):
        await console.get_by_test_id("player-reason").fill(f"typed {typed}")
        await amount.fill(typed)
        await credit.click()
        await expect(error).to_contain_text("dollars and cents")
        await expect(amount).to_have_attribute("aria-invalid", "true")
    # 0 was answered "whole cents, 1 to 9007199254740991" beside a field in dollars
    await amount.fill("0")
    await credit.click()
    await expect(error).to_contain_text("$0.01")
    await expect(error).not_to_contain_text("cents, 1 to")
    assert sent == []
    await shot(console, "console-amount-refused-1280.png")

    # what was moved, in the result line and in the acts on the player
    await amount.fill("12.34")
    await credit.click()
    result = console.get_by_test_id("act-result")
    await expect(result).to_have_attribute("data-outcome", "applied")
    await expect(result).to_contain_text(dollars(1234))
    await expect(error).to_be_hidden()
    await expect(amount).not_to_have_attribute("aria-invalid", "true")
    assert [a["amount"] for a in sent] == [1234]
    row = console.get_by_test_id("player-audit").get_by_test_id("audit-row")
    await expect(row).to_have_count(1)
    await expect(row.get_by_test_id("audit-amount")).to_contain_text(dollars(1234))
    await console.get_by_test_id("player-reason").fill("a chargeback")
    await amount.fill("2.5")
    await console.get_by_test_id("player-debit").click()
    await expect(result).to_contain_text(dollars(-250))
    await expect(row.first.get_by_test_id("audit-amount")).to_contain_text(dollars(-250))
    await expect(console.get_by_test_id("player-balance")).to_have_text(dollars(START + 984))
    await shot(console, "console-amount-moved-1280.png")
    assert [p for p in problems if "status of 4" not in p] == []


@needs_chromium
async def test_a_second_click_while_the_act_is_out_sends_nothing_and_the_result_stays(
    server: StudServer, browser: Browser
) -> None:
    problems: list[str] = []
    console = await console_page(server, browser, problems)
    sent = acts_sent(console)
    await console.get_by_test_id("open-alpha").click()
    await expect(console.get_by_test_id("table-detail")).to_be_visible()
    await console.get_by_test_id("act-reason").fill("dealer change")
    # two clicks as fast as a hand gives them: the second used to find the reason box
    # cleared by the first's answer and say "Give a reason", hiding "applied"
    await console.evaluate(
        """() => {
          const pause = () => document.querySelector('[data-testid="act-pause"]');
          pause().click();
          pause().click();
        }"""
    )
    result = console.get_by_test_id("act-result")
    await expect(result).to_have_attribute("data-outcome", "applied")
    await expect(result).to_contain_text("pause table:alpha: applied")
    await expect(console.get_by_test_id("detail-paused")).to_contain_text("olga")
    await expect(console.get_by_test_id("act-resume")).to_be_enabled()
    assert [a["reason"] for a in sent] == ["dealer change"]
    # while an act is out its buttons wait: none can send a second one
    await console.get_by_test_id("act-reason").fill("back to normal")
    await console.evaluate(
        """() => {
          document.querySelector('[data-testid="act-resume"]').click();
          window.studBusy = [...document.querySelectorAll('[data-form="table-act"] button')]
            .map((b) => b.disabled);
        }"""
    )
    assert all(await console.evaluate("window.studBusy"))
    await expect(result).to_contain_text("resume table:alpha: applied")
    await expect(result).to_have_attribute("data-outcome", "applied")
    assert [a["reason"] for a in sent] == ["dealer change", "back to normal"]
    await shot(console, "console-act-twice-1280.png")
    assert [p for p in problems if "status of 4" not in p] == []


@needs_chromium
async def test_a_meter_correction_is_sent_only_once_confirmed_with_its_before_and_after(
    server: StudServer, browser: Browser
) -> None:
    problems: list[str] = []
    console = await console_page(server, browser, problems)
    sent = acts_sent(console)
    await console.get_by_test_id("tab-jackpots").click()
    meter = console.get_by_test_id("jackpot-amount-main")
    await expect(meter).to_have_attribute("data-cents", "100000")  # conftest's seed
    amount = console.get_by_test_id("jackpot-amount-input-main")
    confirm = console.get_by_test_id("jackpot-confirm-main")
    await amount.fill("5000")
    await console.get_by_test_id("jackpot-correct-main").click()  # no reason: asked first
    await expect(console.get_by_test_id("act-result")).to_contain_text("Give a reason")
    await expect(confirm).to_have_count(0)
    await console.get_by_test_id("jackpot-reason-main").fill("meter restored after an outage")

    # a few zeros too many was one click away from a $9 trillion meter
    await amount.fill("5000000")
    await console.get_by_test_id("jackpot-correct-main").click()
    await expect(confirm).to_be_visible()
    await expect(confirm).to_contain_text(f"to {dollars(500_000_000)}")
    await expect(confirm).to_contain_text(f"seed {dollars(100_000)}")
    # the meter as last read: tables playing move it before the act applies, so the sum
    # shown is "about", and what moved is the result line's
    await expect(confirm).to_contain_text(f"now about {dollars(100_000)}")
    await expect(confirm).to_contain_text(f"about {signed(500_000_000 - 100_000)} from the house")
    await expect(confirm).to_contain_text("as it stands when the act is applied")
    await shot(console, "console-jackpot-confirm-1280.png")
    assert sent == []
    await console.get_by_test_id("jackpot-cancel-main").click()
    await expect(confirm).to_have_count(0)
    assert sent == []
    await expect(meter).to_have_attribute("data-cents", "100000")

    await amount.fill("5000")
    await console.get_by_test_id("jackpot-correct-main").click()
    await expect(confirm).to_contain_text(f"to {dollars(500_000)}")
    await expect(confirm).to_contain_text(f"now about {dollars(100_000)}")
    # the meter moves (as a table's stakes would) while the confirmation is up
    other = await Operator.sign_in(server, "bert")
    moved = {"action_id": new_id(), "reason": "another operator", "amount": 123_456}
    await other.post("/api/jackpots/main/correct", moved)
    await console.get_by_test_id("jackpot-confirm-button-main").click()
    result = console.get_by_test_id("act-result")
    await expect(result).to_have_attribute("data-outcome", "applied")
    await expect(result).to_contain_text(f"{dollars(123_456)} → {dollars(500_000)}")  # what moved
    await expect(meter).to_have_attribute("data-cents", "500000")
    await expect(confirm).to_have_count(0)
    assert [a["amount"] for a in sent] == [500_000]
    assert [p for p in problems if "status of 4" not in p] == []


@needs_chromium
async def test_the_jackpots_view_says_its_list_is_of_percent_prizes(
    server: StudServer, browser: Browser
) -> None:
    problems: list[str] = []
    console = await console_page(server, browser, problems)
    await console.get_by_test_id("tab-jackpots").click()
    # "No hit yet." was shown after fixed progressive prizes were paid: the list is of
    # percent prizes only (the fixed ones are the house's, in the rounds' ledgers)
    none = console.get_by_test_id("jackpot-hits-main")
    await expect(none).to_contain_text("No percent prize yet")
    await expect(none).to_contain_text("fixed prizes")
    await expect(console.get_by_test_id("jackpots")).not_to_contain_text("No hit yet")
    assert [p for p in problems if "status of 4" not in p] == []


#: A settled round as GET /api/rounds/<id> gives it: seat 0 antes $1 with the progressive
#: ($1), raises $2 and wins 2:1 (paid $8: net +$4, the stake lost in it); seat 1's
#: progressive paid a fixed $50.
ROUND = {
    "round_id": "alpha-00000000000000aa",
    "table": "alpha",
    "journal": None,
    "fairness_check": None,
    "record": {
        "round_id": "alpha-00000000000000aa",
        "dealer": ["Ad", "Kc", "9h", "4s", "2d"],
        "jackpots": {},
        "seats": [
            {
                "seat": 0,
                "name": "Ann",
                "ante": 100,
                "progressive": True,
                "decision": "raise",
                "cards": ["Kh", "Ks", "7d", "5c", "2h"],
                "result": {"outcome": "win", "net": 400, "returned": 800, "progressive_prize": 0},
            },
            {
                "seat": 1,
                "name": "Bob",
                "ante": 100,
                "progressive": True,
                "decision": "fold",
                "cards": ["9c", "9d", "9h", "3s", "3h"],
                "result": {
                    "outcome": "fold",
                    "net": 4800,
                    "returned": 5000,
                    "progressive_prize": {"fixed_cents": 5000, "paid": 5000},
                },
            },
        ],
    },
}


@needs_chromium
async def test_a_round_s_results_show_the_progressive_they_count(
    server: StudServer, browser: Browser
) -> None:
    problems: list[str] = []
    console = await console_page(server, browser, problems)
    await console.evaluate(
        "(round) => { Object.assign(window.studConsole.state, {round, roundTab: 'tables'}); }",
        ROUND,
    )
    await console.get_by_test_id("tab-tables").click()  # drawn again
    detail = console.get_by_test_id("round-detail")
    await expect(detail).to_be_visible()
    # "Win $4.00" folded the lost $1 stake in with no word, where players read "incl. JP −$1"
    ann = detail.get_by_test_id("round-seat-result").nth(0)
    await expect(ann).to_contain_text("Win")
    await expect(ann).to_contain_text("+\u2060$4.00")  # signed as a loss is: "−$2.00"
    await expect(ann.get_by_test_id("round-seat-side-bet")).to_have_text(
        f"incl. JP {dollars(-100).replace('.00', '')}"
    )
    bob = detail.get_by_test_id("round-seat-result").nth(1)
    await expect(bob.get_by_test_id("round-seat-prize")).to_contain_text(dollars(5000))
    await expect(bob.get_by_test_id("round-seat-side-bet")).to_have_count(0)
    await shot(console, "console-round-progressive-1280.png")
    assert [p for p in problems if "status of 4" not in p] == []


@needs_chromium
async def test_a_removal_is_shown_with_its_player_and_on_the_player_s_page(
    server: StudServer, browser: Browser
) -> None:
    problems: list[str] = []
    ann = await open_page(browser, f"http://127.0.0.1:{server.port}/", problems)
    await enter(ann, "Ann")
    ann_id = await ann.evaluate("window.stud.state.me.player_id")
    await ann.get_by_test_id("play-alpha").click()
    await expect(ann.get_by_test_id("seat-0-name")).to_contain_text("Ann")
    console = await console_page(server, browser, problems)
    await console.get_by_test_id("open-alpha").click()
    await expect(console.get_by_test_id("act-remove")).to_be_enabled()
    await console.get_by_test_id("act-reason").fill("abusive chat")
    await console.get_by_test_id("act-remove").click()
    result = console.get_by_test_id("act-result")
    await expect(result).to_have_attribute("data-outcome", "applied")
    # "remove table:alpha" said nothing of whom
    await expect(result).to_contain_text(f"player:{ann_id}")
    row = console.get_by_test_id("table-audit").get_by_test_id("audit-row")
    await expect(row).to_have_count(1)
    named = row.get_by_test_id("audit-player")  # on one line, its ends, the whole in its title
    await expect(named).to_have_attribute("title", f"player:{ann_id}")
    await expect(named).to_have_text(f"player:{ann_id[:4]}…{ann_id[-4:]}")
    await shot(console, "console-removed-table-1280.png")
    # Ann's page says her seat went, and that she did not give it up (it just vanished)
    freed = ann.locator('.toast[data-code="seats-freed"]')
    await expect(freed).to_contain_text(
        "Your seat #1 was freed, not by a stand or leave of yours: the casino let it go."
    )
    await expect(ann.get_by_test_id("table-view")).to_have_attribute("data-role", "spectator")
    await shot(ann, "removed-player-page-1280.png")
    # and the player's page lists it (it listed only acts whose target was the player)
    await open_player(console, ann_id)
    mine = console.get_by_test_id("player-audit").get_by_test_id("audit-row")
    await expect(mine).to_have_count(1)
    await expect(mine).to_have_attribute("data-action", "remove")
    await expect(mine).to_contain_text("table:alpha")
    await shot(console, "console-removed-player-1280.png")
    assert [p for p in problems if "status of 4" not in p] == []


@needs_chromium
async def test_seats_freed_by_a_removal_at_a_round_s_end_are_said_so(
    server: StudServer, browser: Browser
) -> None:
    """Removed mid-round, the player's dealt hand plays on and the seat goes at the
    round's end: it just vanished ("You are watching this table"), with no word why."""
    problems: list[str] = []
    ann = await open_page(browser, f"http://127.0.0.1:{server.port}/", problems)
    await enter(ann, "Ann")
    await ann.get_by_test_id("play-alpha").click()
    await expect(ann.get_by_test_id("seat-0-name")).to_contain_text("Ann")
    await build_ante(ann, 0, [(500, "left")])
    await ann.get_by_test_id("deal").click()
    await expect(ann.get_by_test_id("fold-0")).to_be_visible()
    console = await console_page(server, browser, problems)
    await console.get_by_test_id("open-alpha").click()
    await console.get_by_test_id("act-reason").fill("abusive chat")
    await console.get_by_test_id("act-remove").click()
    await expect(console.get_by_test_id("act-result")).to_have_attribute("data-outcome", "applied")
    await expect(ann.get_by_test_id("seat-0-name")).to_contain_text("Ann")  # the hand plays on
    await ann.get_by_test_id("fold-0").click()
    freed = ann.locator('.toast[data-code="seats-freed"]')
    await expect(freed).to_contain_text(
        "Your seat #1 was freed as the round ended, not by a stand or leave of yours: "
        "the casino let it go. You are watching this table"
    )
    await expect(ann.get_by_test_id("table-view")).to_have_attribute("data-role", "spectator")
    await shot(ann, "removed-at-round-end-1280.png")
    assert [p for p in problems if "status of 4" not in p] == []
