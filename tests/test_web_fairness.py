"""The browser's provably fair check and game recall, in a real headless Chromium.

A live round dealt by the server's fair shuffler (no stacked deck): the page
shows the commitment while the round runs, sends the player's client seed,
and at showdown its Verify button recomputes the deck in the browser
(clients/web/js/fairness.js) and finds it fair. The same proof tampered with
through `window.stud` is reported as not fair, in words. The History panel
lists the round and verifies it from the record. Screenshots go to
test-artifacts/verified.png and test-artifacts/history.png.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import Browser, Locator, Page, async_playwright, expect

from protocol.fairness import verify
from tests.conftest import ServerFactory
from tests.test_web import (
    CHROMIUM,
    CHROMIUM_ARGS,
    START,
    WAIT_MS,
    WEB,
    build_ante,
    enter,
    expect_phase,
    needs_chromium,
    open_page,
    shot,
)

ANN_SEED = "ann-lucky.7"
HEX64 = re.compile(r"^[0-9a-f]{64}$")


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    assert CHROMIUM is not None
    for package in ("@msgpack/msgpack", "@noble/hashes"):
        assert (WEB / "node_modules" / package / "package.json").is_file(), (
            "the page needs its npm dependencies: run `npm ci` in clients/web"
        )
    expect.set_options(timeout=WAIT_MS)
    async with async_playwright() as p:
        b = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            await b.close()


def test_import_map_points_at_the_installed_noble_hashes() -> None:
    """SHA-256 and HMAC come from @noble/hashes in node_modules, as package.json pins it."""
    html = (WEB / "index.html").read_text(encoding="utf-8")
    found = re.search(r'<script type="importmap">(.*?)</script>', html, re.S)
    assert found is not None
    imports: dict[str, str] = json.loads(found.group(1))["imports"]
    package: dict[str, Any] = json.loads((WEB / "package.json").read_text(encoding="utf-8"))
    lock: dict[str, Any] = json.loads((WEB / "package-lock.json").read_text(encoding="utf-8"))
    assert "@noble/hashes" in package["dependencies"]
    assert "node_modules/@noble/hashes" in lock["packages"]
    source = (WEB / "js" / "fairness.js").read_text(encoding="utf-8")
    for name in ("@noble/hashes/sha2.js", "@noble/hashes/hmac.js"):
        assert f'from "{name}"' in source
        target = imports[name]
        if (WEB / "node_modules").is_dir():
            assert (WEB / target.removeprefix("./")).is_file(), f"{target} is not in node_modules"
    assert "crypto.subtle" not in source  # missing on plain-http pages that are not localhost


async def table_snapshot(page: Page) -> dict[str, Any]:
    snap: dict[str, Any] = await page.evaluate("window.stud.state.tables.alpha")
    return snap


@needs_chromium
async def test_a_live_round_verifies_and_a_tampered_proof_does_not(
    make_server: ServerFactory, browser: Browser
) -> None:
    server = await make_server(
        shuffle=None,  # the server's own provably fair shuffler
        timers={"betting": 60, "decision": 60, "results": 60},  # only the players move it on
    )
    url = f"http://127.0.0.1:{server.port}/"
    problems: list[str] = []
    ann = await open_page(browser, url, problems)
    bob = await open_page(browser, url, problems)
    for page, name in ((ann, "Ann"), (bob, "Bob")):
        await enter(page, name)
        await page.get_by_test_id("play-alpha").click()
        await expect(page.get_by_test_id("table-view")).to_have_attribute("data-role", "player")
    await expect(ann.get_by_test_id("fair-commitment")).to_have_attribute("data-commitment", "")

    # ----- Ann sets a client seed: a bad one is refused in words, a good one is sent
    seed_input = ann.get_by_test_id("seed-input")
    await seed_input.fill("no spaces please")
    await ann.get_by_test_id("seed-set").click()
    error = ann.get_by_test_id("error")
    await expect(error.get_by_test_id("error-message")).to_contain_text("A client seed is up to 64")
    await seed_input.fill(ANN_SEED)
    await seed_input.press("Enter")
    status = ann.get_by_test_id("seed-status")
    await expect(status).to_contain_text(f"Your seed “{ANN_SEED}” goes into")
    await expect(error).to_have_count(0)  # the refusal goes once a seed stands (it stayed)
    assert await ann.evaluate("sessionStorage.getItem('stud.seeds')") == json.dumps(
        {"alpha": ANN_SEED}, separators=(",", ":")
    )

    # ----- betting: the commitment is shown (short) and remembered for the round
    await build_ante(ann, 0, [(500, "left")])
    await ann.get_by_test_id("deal").click()
    await expect_phase([ann, bob], "betting")
    snap = await table_snapshot(bob)
    promised = snap["fairness"]["commitment"]
    round_id = snap["round_id"]
    assert HEX64.match(promised) and snap["fairness"]["nonce"] == round_id
    for page in (ann, bob):
        shown = page.get_by_test_id("fair-commitment")
        await expect(shown).to_have_attribute("data-commitment", promised)
        await expect(shown).to_have_text(f"{promised[:8]}…{promised[-6:]}")
    remembered = await ann.evaluate(f"window.stud.state.rounds[{json.dumps(round_id)}]")
    assert remembered == {"commitment": promised, "before_deal": True}

    await build_ante(bob, 1, [(100, "left")])
    await bob.get_by_test_id("deal").click()
    await expect_phase([ann, bob], "deciding")
    await expect(ann.get_by_test_id("fair-commitment")).to_have_attribute(
        "data-commitment", promised
    )
    await ann.get_by_test_id("raise-0").click()
    await bob.get_by_test_id("fold-1").click()
    await expect_phase([ann, bob], "showdown")

    # ----- showdown: the proof is revealed; the server's own verifier agrees with the page
    snap = await table_snapshot(ann)
    proof = snap["fairness"]
    assert proof["commitment"] == promised and proof["nonce"] == round_id
    assert proof["client_seeds"] == f"{ANN_SEED},"  # Bob set none
    hands = [s["cards"] for s in snap["seats"] if s and s["cards"]]
    assert len(hands) == 2
    assert (
        verify(
            commitment_hex=promised,
            server_seed_hex=proof["server_seed"],
            client_seeds=proof["client_seeds"],
            nonce=proof["nonce"],
            seats=hands,
            dealer=snap["dealer"]["cards"],
        )
        == []
    )

    for page in (ann, bob):
        await page.get_by_test_id("verify").click()
        verdict = page.get_by_test_id("fair-verdict")
        await expect(verdict).to_have_attribute("data-ok", "true")
        await expect(page.get_by_test_id("fair-verdict-text")).to_have_text("Fair: verified")
        await expect(page.get_by_test_id("fair-verdict-problems")).to_have_count(0)
    await shot(ann, "verified.png")

    # ----- a tampered proof: another server seed is caught, and so is every card
    await bob.evaluate(
        """() => {
            const snap = window.stud.state.lastDeal.alpha;
            snap.fairness = { ...snap.fairness, server_seed: "ab".repeat(32) };
        }"""
    )
    await bob.get_by_test_id("verify").click()
    await expect(bob.get_by_test_id("fair-verdict")).to_have_attribute("data-ok", "false")
    await expect(bob.get_by_test_id("fair-verdict-text")).to_contain_text("Not fair")
    listed = bob.get_by_test_id("fair-verdict-problems")
    await expect(listed).to_contain_text(
        f"SHA-256 of the server seed is {short(sha256_hex('ab' * 32))}, not the commitment "
        f"published before the deal ({short(promised)})."
    )
    await expect(listed).to_contain_text("Seat 1 (Ann) should hold")
    await expect(listed).to_contain_text("The dealer should hold")

    # A consistent forgery (a new seed with its own commitment) still is not what was
    # promised before the deal: the commitment the page remembered catches it.
    forged = "cd" * 32
    await bob.evaluate(
        """(f) => {
            const snap = window.stud.state.lastDeal.alpha;
            snap.fairness = { ...snap.fairness, server_seed: f.seed, commitment: f.commitment };
        }""",
        {"seed": forged, "commitment": sha256_hex(forged)},
    )
    await bob.get_by_test_id("verify").click()
    await expect(listed).to_contain_text(
        f"The commitment published before the deal ({short(promised)}) is not the one in the "
        f"proof ({short(sha256_hex(forged))})."
    )
    await expect(bob.get_by_test_id("fair-verdict")).to_have_attribute("data-ok", "false")

    # ----- the History panel lists the round and verifies it from the record
    balance = int(await ann.get_by_test_id("balance").get_attribute("data-cents") or "0")
    await ann.get_by_test_id("history-button").click()
    panel = ann.get_by_test_id("history-panel")
    await expect(panel).to_be_visible()
    row = panel.get_by_test_id("history-round")
    await expect(row).to_have_count(1)
    await expect(row).to_have_attribute("data-round", round_id)
    await expect(row.get_by_test_id("history-table")).to_have_text("alpha")
    await expect(row.get_by_test_id("history-variant")).to_have_text("Casino Stud Poker")
    await expect(row.get_by_test_id("history-time")).not_to_be_empty()
    await expect_cents_in(row, "history-balance-before", START)
    await expect_cents_in(row, "history-balance-after", balance)
    await expect_cents_in(row, "history-net", balance - START)
    mine = row.get_by_test_id("history-seat")
    await expect(mine).to_have_count(1)
    await expect(mine).to_have_attribute("data-seat", "0")
    ann_cards = mine.get_by_test_id("history-seat-cards").locator(".card")
    for i, card in enumerate(hands[0]):
        await expect(ann_cards.nth(i)).to_have_attribute("data-card", card)
    ann_hand = snap["seats"][0]["hand"]["label"]
    await expect(mine.get_by_test_id("history-seat-hand")).to_have_text(ann_hand)
    await expect(mine.get_by_test_id("history-seat-decision")).to_contain_text("Raised")
    ann_net = snap["seats"][0]["result"]["net"]
    await expect(mine.get_by_test_id("history-seat-result")).to_have_attribute(
        "data-cents", str(ann_net)
    )
    dealer = row.get_by_test_id("history-dealer-cards").locator(".card")
    for i, card in enumerate(snap["dealer"]["cards"]):
        await expect(dealer.nth(i)).to_have_attribute("data-card", card)
    await expect(row.get_by_test_id("history-dealer-hand")).to_contain_text(
        snap["dealer"]["hand"]["label"]
    )
    await expect(row.get_by_test_id("history-other")).to_have_count(1)  # Bob's folded hand
    await row.get_by_test_id("history-verify").click()
    await expect(row.get_by_test_id("history-verdict")).to_have_attribute("data-ok", "true")
    await expect(row.get_by_test_id("history-verdict-text")).to_have_text("Fair: verified")
    await shot(ann, "history.png")

    # The verify function on a modified record (two of Ann's cards swapped) names the lie.
    verdict = await ann.evaluate(
        """(rid) => {
            const rounds = window.stud.state.history.rounds;
            const record = structuredClone(rounds.find((r) => r.round_id === rid));
            const cards = record.seats.find((s) => s.seat === 0).cards;
            [cards[0], cards[1]] = [cards[1], cards[0]];
            const memory = window.stud.state.rounds[rid];
            return window.stud.fairness.verifyRound({
                roundId: rid, proof: record.fairness, promised: memory.commitment,
                seats: record.seats, dealer: record.dealer, mySeeds: memory.seeds,
            });
        }""",
        round_id,
    )
    assert verdict["ok"] is False
    expected = " ".join(hands[0])
    swapped = " ".join([hands[0][1], hands[0][0], *hands[0][2:]])
    assert verdict["problems"] == [f"Seat 1 (Ann) should hold {expected}, not {swapped}."]
    # The seed Ann had in force at the deal is remembered and checked too.
    assert await ann.evaluate(f"window.stud.state.rounds[{json.dumps(round_id)}].seeds") == {
        "0": ANN_SEED
    }

    # ----- the seed is sent again after the link drops (and kept across a reload)
    opens = await ann.evaluate("window.stud.conn.opens")
    await ann.evaluate("window.stud.conn.drop()")
    await ann.wait_for_function(
        f"""window.stud.conn.opens > {opens} && window.stud.conn.open
            && window.stud.state.seedSync.alpha?.acked === {json.dumps(ANN_SEED)}""",
        timeout=WAIT_MS,
    )
    await ann.reload()
    await expect(ann.get_by_test_id("seed-input")).to_have_value(ANN_SEED)
    await ann.wait_for_function(
        f"window.stud.state.seedSync.alpha?.acked === {json.dumps(ANN_SEED)}", timeout=WAIT_MS
    )
    await expect(ann.get_by_test_id("seed-status")).to_contain_text(f"Your seed “{ANN_SEED}”")

    assert problems == []


async def expect_cents_in(scope: Locator, testid: str, cents: int) -> None:
    await expect(scope.get_by_test_id(testid)).to_have_attribute("data-cents", str(cents))


def sha256_hex(seed_hex: str) -> str:
    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()


def short(hex_text: str) -> str:
    return f"{hex_text[:8]}…{hex_text[-6:]}"


@needs_chromium
async def test_the_seed_s_words_match_the_deal_and_the_last_deal_outlives_a_reload(
    make_server: ServerFactory, browser: Browser
) -> None:
    """A deal that used the player's seed: "This deal" listed it while the words under
    the seed said it "goes into every deal from the next one on". And after a reload the
    "Last deal" box, its proof and its Verify, were gone."""
    server = await make_server(shuffle=None, timers={"betting": 60, "decision": 60, "results": 1})
    problems: list[str] = []
    ann = await open_page(browser, f"http://127.0.0.1:{server.port}/", problems)
    await enter(ann, "Ann")
    await ann.get_by_test_id("play-alpha").click()
    await expect(ann.get_by_test_id("table-view")).to_have_attribute("data-role", "player")
    await ann.get_by_test_id("seed-input").fill(ANN_SEED)
    await ann.get_by_test_id("seed-input").press("Enter")
    status = ann.get_by_test_id("seed-status")
    await expect(status).to_contain_text(f"Your seed “{ANN_SEED}” goes into every deal")
    await build_ante(ann, 0, [(500, "left")])
    await ann.get_by_test_id("deal").click()  # alone at the table: dealt at once
    await expect_phase([ann], "deciding")
    round_id = (await table_snapshot(ann))["round_id"]
    await expect(status).to_have_text(
        f"Your seed “{ANN_SEED}” went into this deal, and goes into every one after."
    )
    await ann.get_by_test_id("raise-0").click()
    await expect_phase([ann], "waiting")
    last = ann.get_by_test_id("last-deal")
    await expect(last).to_have_attribute("data-round", round_id)
    await expect(last).to_contain_text("Last deal")

    await ann.reload()
    await expect_phase([ann], "waiting")
    await expect(last).to_be_visible()
    await expect(last).to_have_attribute("data-round", round_id)
    await expect(ann.get_by_test_id("fair-client-seeds")).to_have_text(f"#1 “{ANN_SEED}”")
    await ann.get_by_test_id("verify").click()
    await expect(ann.get_by_test_id("fair-verdict")).to_have_attribute("data-ok", "true")
    await expect(ann.get_by_test_id("fair-verdict-text")).to_have_text("Last deal — Fair: verified")
    assert problems == []
