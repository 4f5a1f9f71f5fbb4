"""Leaving a table in the browser while a hand is undecided: the page says what it
costs before it leaves (a first Leave only arms the button), says what it did after,
and the fold is told as the player's leaving, not the clock's, to every viewer and in
the history. Also: a table just opened has the keyboard's focus on its title, and a
name of spaces alone is told, not ignored.

Needs Debian's Chromium and the page's npm dependency, like tests/test_web.py.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from playwright.async_api import Browser, Page, ViewportSize, expect

from clients.connection import StudClient
from server.app import StudServer
from server.game.views import public_view
from tests.conftest import ClientFactory, ServerFactory
from tests.decks import shuffles
from tests.layout_probes import TOAST_CLEAR
from tests.test_web import (
    ARTIFACTS,
    VIEWPORT,
    WAIT_MS,
    browser,
    build_ante,
    collect_problems,
    enter,
    needs_chromium,
    shot,
    signed,
)
from tests.test_web_layout import NINE, PHONE, new_page, sit_three
from tests.test_web_layout import enter as layout_enter

__all__ = ["browser"]  # the fixture, used below

pytestmark = needs_chromium

LONG = {"betting": 60, "decision": 60, "results": 60}  # nothing moves by the clock


def seat_zero(server: StudServer) -> dict[str, object]:
    seat = public_view(server.rooms["alpha"].table, 0)["seats"][0]
    assert isinstance(seat, dict)
    return seat


@pytest.mark.parametrize("size", ["desktop", "phone"])
async def test_leaving_with_an_undecided_hand_is_asked_then_told(
    make_server: ServerFactory, browser: Browser, size: str
) -> None:
    server = await make_server(timers=LONG)
    phone = size == "phone"
    viewport: ViewportSize = PHONE if phone else VIEWPORT
    context = await browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)
    context.set_default_timeout(WAIT_MS)
    page = await context.new_page()
    problems: list[str] = []
    collect_problems(page, problems)
    await page.goto(f"http://127.0.0.1:{server.port}/")
    await enter(page, "Ann")
    await page.get_by_test_id("play-alpha").click()
    await expect(page.get_by_test_id("seat-0-name")).to_contain_text("Ann")
    # the Play button pressed is gone with the lobby: the keyboard is at the table
    await page.wait_for_function(
        "document.activeElement?.dataset.testid === 'table-title'", timeout=WAIT_MS
    )
    await build_ante(page, 0, [(500, "left")])
    await page.get_by_test_id("deal").click()
    await expect(page.get_by_test_id("fold-0")).to_be_visible()

    leave = page.get_by_test_id("leave")
    await leave.click()  # the first Leave says what leaving costs, and leaves nothing
    confirm = page.locator('.toast[data-code="leave-confirm"]')
    await expect(confirm).to_contain_text(
        "Leaving now folds your undecided hand on seat #1: you lose $5.00 of antes."
    )
    await expect(leave).to_have_attribute("data-armed", "true")
    await expect(leave).to_have_text("← Fold & leave")
    await expect(page.get_by_test_id("table-view")).to_be_visible()
    assert seat_zero(server)["decision"] is None
    await shot(page, f"leave-armed-{size}.png")

    await leave.click()  # the second one leaves, and says what it did
    await expect(page.get_by_test_id("lobby")).to_be_visible()
    told = page.locator('.toast[data-code="left"]')
    await expect(told).to_contain_text(
        "You left alpha: your hand on seat #1 was folded, losing $5.00 of antes."
    )
    await expect(confirm).to_have_count(0)
    assert public_view(server.rooms["alpha"].table, 0)["phase"] == "showdown"  # hers was the last
    seat = seat_zero(server)
    assert (seat["decision"], seat["auto"], seat["left"]) == ("fold", True, True)

    await page.get_by_test_id("history-button").click()
    entry = page.get_by_test_id("history-seat").first
    await expect(entry.get_by_test_id("history-seat-decision")).to_contain_text("Folded (left)")
    assert problems == []


async def ann_at_alpha(
    server: StudServer, browser: Browser, table: str = "alpha"
) -> tuple[Page, list[str]]:
    """Ann's page at the table alpha, seated at #1 (and the page's problems, collected)."""
    context = await browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(WAIT_MS)
    page = await context.new_page()
    problems: list[str] = []
    collect_problems(page, problems)
    await page.goto(f"http://127.0.0.1:{server.port}/")
    await enter(page, "Ann")
    await page.get_by_test_id(f"play-{table}").click()
    await expect(page.get_by_test_id("seat-0-name")).to_contain_text("Ann")
    return page, problems


async def one_raised_one_undecided(
    make_server: ServerFactory, browser: Browser
) -> tuple[StudServer, Page, list[str]]:
    """Ann at alpha with two $5 hands dealt: seat #1 raised, seat #2 still to decide."""
    server = await make_server(timers=LONG)
    page, problems = await ann_at_alpha(server, browser)
    await page.get_by_test_id("sit-1").click()
    await expect(page.get_by_test_id("seat-1-name")).to_contain_text("Ann")
    await build_ante(page, 0, [(500, "left")])
    await build_ante(page, 1, [(500, "left")])
    await page.get_by_test_id("deal").click()
    await expect(page.get_by_test_id("fold-0")).to_be_visible()
    await page.get_by_test_id("raise-0").click()
    await expect(page.get_by_test_id("seat-0-status")).to_have_text("Raised")
    return server, page, problems


async def test_a_raised_hand_playing_on_is_said_and_a_leave_armed_for_nothing_disarms(
    make_server: ServerFactory, browser: Browser
) -> None:
    server, page, problems = await one_raised_one_undecided(make_server, browser)

    # a suspended table (its lease away) still folds the hand once the leave is applied:
    # the page asks all the same
    room = server.rooms["alpha"]
    lease = room.lease
    assert lease is not None
    room._suspend("lease", room.now())
    await expect(page.get_by_test_id("table-view")).to_have_attribute("data-phase", "suspended")
    leave, confirm = page.get_by_test_id("leave"), page.locator('.toast[data-code="leave-confirm"]')
    await leave.click()
    await expect(confirm).to_contain_text(
        "Leaving now folds your undecided hand on seat #2: you lose $5.00 of antes. Your "
        "raised hand on seat #1 plays on to the showdown"
    )
    room.hosted(lease, fresh=False)  # renewed: the table runs again, the question stands
    await expect(page.get_by_test_id("table-view")).to_have_attribute("data-phase", "deciding")
    await expect(confirm).to_be_visible()
    await expect(leave).to_have_attribute("data-armed", "true")
    # the hand it would fold is decided meanwhile: nothing left to lose, nothing armed
    await page.get_by_test_id("raise-1").click()
    await expect(leave).not_to_have_attribute("data-armed", "true")
    await expect(confirm).to_have_count(0)
    await expect(page.get_by_test_id("table-view")).to_be_visible()
    assert public_view(server.rooms["alpha"].table, 0)["phase"] == "showdown"  # both raised
    assert problems == []


async def test_a_raised_hand_left_playing_on_is_told_when_its_round_settles(
    make_server: ServerFactory, browser: Browser
) -> None:
    """Its result used to come to the lobby as a wallet that moved, with nothing said."""
    server, page, problems = await one_raised_one_undecided(make_server, browser)
    await page.get_by_test_id("leave").click()
    await page.get_by_test_id("leave").click()  # folds seat #2: the round settles at once
    await expect(page.get_by_test_id("lobby")).to_be_visible()
    settled = page.locator('.toast[data-code="left-settled"]')
    await expect(settled).to_contain_text("alpha: the round you left settled: your raised hand")
    me = await page.evaluate("window.stud.state.me.player_id")
    record = (await server.store.history(me))[0]
    # every hand, the one the leave folded too: the raised hand's result alone did not add
    # up to what the wallet lost
    raised = [s for s in record["seats"] if s["player_id"] == me and s["decision"] == "raise"]
    assert len(raised) == 1
    net = raised[0]["result"]["net"]
    await expect(settled).to_contain_text(
        f"your raised hand on seat #1 came to {signed(net)}, and your folded hand on seat #2 "
        f"came to {signed(-500)}; {signed(net - 500)} in all."
    )
    # money news, as a table moved or a round played unseen: it stays until dismissed
    # (it went within 5 s, the result still being read); once read, folded to a line
    await expect(settled).to_have_attribute("data-sticky", "true")
    await expect(settled).to_have_class(re.compile(r"\bcollapsed\b"), timeout=2 * WAIT_MS)
    await expect(settled).to_be_visible()
    await settled.get_by_test_id("error-dismiss").click()
    await expect(settled).to_have_count(0)
    assert problems == []


async def ann_raised_beside_bob(
    make_server: ServerFactory, connect: ClientFactory, browser: Browser, hands: list[list[str]]
) -> tuple[StudServer, Page, list[str], StudClient]:
    """Ann's $5 hand at #1 raised in the browser; Bob's at #3 (a plain client) still to
    decide. `hands`: Ann's, Bob's and the dealer's cards."""
    server = await make_server(timers=LONG, shuffle=shuffles(hands))
    bob = await connect(server, "Bob")
    await bob.request("sit", table="alpha", seat=2)
    await bob.request("ante", table="alpha", seat=2, amount=500)
    page, problems = await ann_at_alpha(server, browser)
    await build_ante(page, 0, [(500, "left")])
    await page.get_by_test_id("deal").click()
    await bob.request("deal", table="alpha")
    await page.get_by_test_id("raise-0").click()
    await expect(page.get_by_test_id("seat-0-status")).to_have_text("Raised")
    return server, page, problems, bob


async def test_a_raised_hand_is_told_when_another_player_s_decision_settles_it_later(
    make_server: ServerFactory, connect: ClientFactory, browser: Browser
) -> None:
    """Ann raises and leaves while Bob still decides: the round settles later, in the
    lobby. Her hand loses: the raise was paid when she raised, so the settlement moves
    nothing in her wallet, and the page, which looked for the round only when the wallet
    moved, said nothing at all."""
    ann_loses = ["2c", "3d", "5h", "8s", "Jc"]  # jack high
    bob_cards = ["4c", "4d", "9h", "Ts", "Kc"]
    dealer = ["Ad", "Ac", "7h", "6s", "2d"]  # a pair: qualifies, beats Ann
    _, page, problems, bo = await ann_raised_beside_bob(
        make_server, connect, browser, [ann_loses, bob_cards, dealer]
    )
    await page.get_by_test_id("leave").click()  # nothing to fold: one press leaves
    await expect(page.get_by_test_id("lobby")).to_be_visible()
    await expect(page.locator('.toast[data-code="left"]')).to_contain_text("plays on")
    await bo.request("fold", table="alpha", seat=2)
    settled = page.locator('.toast[data-code="left-settled"]')
    await expect(settled).to_contain_text(
        f"alpha: the round you left settled: your raised hand on seat #1 came to {signed(-1500)}"
    )
    assert problems == []


async def test_the_hand_that_played_on_is_named_by_its_own_seat(
    make_server: ServerFactory, connect: ClientFactory, browser: Browser
) -> None:
    """The round's record lists only the seats dealt in: Ann's #1 sat the round out, and
    her raised hand at #2 was told as "seat #1", its place in that list."""
    ann_cards = ["2c", "3d", "5h", "8s", "Jc"]  # jack high: loses to the dealer's pair
    bob_cards = ["4c", "4d", "9h", "Ts", "Kc"]
    dealer = ["Ad", "Ac", "7h", "6s", "2d"]
    server = await make_server(timers=LONG, shuffle=shuffles([ann_cards, bob_cards, dealer]))
    bob = await connect(server, "Bob")
    await bob.request("sit", table="alpha", seat=2)
    await bob.request("ante", table="alpha", seat=2, amount=500)
    page, problems = await ann_at_alpha(server, browser)
    await page.get_by_test_id("sit-1").click()
    await expect(page.get_by_test_id("seat-1-name")).to_contain_text("Ann")
    await build_ante(page, 1, [(500, "left")])  # #1 sits this round out
    await page.get_by_test_id("deal").click()
    await bob.request("deal", table="alpha")
    await page.get_by_test_id("raise-1").click()
    await expect(page.get_by_test_id("seat-1-status")).to_have_text("Raised")
    await page.get_by_test_id("leave").click()
    await expect(page.get_by_test_id("lobby")).to_be_visible()
    await bob.request("fold", table="alpha", seat=2)
    settled = page.locator('.toast[data-code="left-settled"]')
    await expect(settled).to_contain_text(
        f"the round you left settled: your raised hand on seat #2 came to {signed(-1500)}"
    )
    assert problems == []


async def test_leaving_at_the_showdown_says_the_result_and_leaves_the_hand_on_view(
    make_server: ServerFactory, connect: ClientFactory, browser: Browser
) -> None:
    """The seats of a player who left at the showdown went at once: every other viewer's
    showdown lost that hand and its result, and the player was told nothing."""
    ann_wins = ["Kc", "Kd", "5h", "8s", "Jc"]  # a pair of kings
    bob_cards = ["4c", "4d", "9h", "Ts", "2c"]
    dealer = ["Ad", "Kh", "7h", "6s", "3d"]  # ace-king: qualifies, loses to the kings
    _, page, problems, bo = await ann_raised_beside_bob(
        make_server, connect, browser, [ann_wins, bob_cards, dealer]
    )
    await bo.request("fold", table="alpha", seat=2)
    await expect(page.get_by_test_id("table-view")).to_have_attribute("data-phase", "showdown")
    await page.get_by_test_id("leave").click()
    await expect(page.get_by_test_id("lobby")).to_be_visible()
    told = page.locator('.toast[data-code="left"]')
    await expect(told).to_contain_text(
        f"You left alpha at the showdown: your hand on seat #1 came to {signed(1500)}"
    )
    # Bob's showdown keeps Ann's hand and its result until the round is over
    await asyncio.sleep(0.3)
    snap = bo.view("alpha")
    assert snap is not None and snap["phase"] == "showdown"
    assert snap["seats"][0]["name"] == "Ann" and snap["seats"][0]["result"]["net"] == 1500
    assert problems == []


async def test_a_name_of_spaces_alone_is_told_not_ignored(
    make_server: ServerFactory, browser: Browser
) -> None:
    server = await make_server()
    context = await browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(WAIT_MS)
    page = await context.new_page()
    await page.goto(f"http://127.0.0.1:{server.port}/")
    # the start screen's socket is open, waiting for a name: it said "Connecting…"
    await expect(page.get_by_test_id("conn-status")).to_have_text("Connected")
    await page.get_by_test_id("name-input").fill("   ")
    await page.get_by_test_id("enter").click()
    await expect(page.locator('.toast[data-code="name"]')).to_contain_text("Enter a name")
    await expect(page.get_by_test_id("name-input")).to_be_focused()
    await expect(page.get_by_test_id("login")).to_be_visible()


async def test_a_leave_says_the_progressive_prize_it_gives_up_and_only_hands_still_waiting(
    make_server: ServerFactory, browser: Browser
) -> None:
    """Two hands with the progressive, one a flush: a folded hand collects no progressive
    prize here (casino-stud), yet the warning said only what the antes and stakes cost;
    and once one hand was decided it still named both."""
    pair, flush = ["2c", "2d", "5s", "8c", "Qd"], ["2h", "7h", "9h", "Jh", "Kh"]
    dealer = ["Ac", "Kd", "7s", "4d", "3c"]
    server = await make_server(timers=LONG, shuffle=shuffles([pair, flush, dealer]))
    page, problems = await ann_at_alpha(server, browser)
    await page.get_by_test_id("sit-1").click()
    await expect(page.get_by_test_id("seat-1-name")).to_contain_text("Ann")
    for seat in (0, 1):
        await build_ante(page, seat, [(500, "left")])
        await page.get_by_test_id(f"progressive-{seat}").click()
    await page.get_by_test_id("deal").click()
    await expect(page.get_by_test_id("fold-0")).to_be_visible()
    confirm = page.locator('.toast[data-code="leave-confirm"]')
    await page.get_by_test_id("leave").click()
    await expect(confirm).to_contain_text(
        "folds your undecided hands on seat #1, #2: you lose $10.00 of antes and $2.00 of "
        "progressive stakes. And seat #2's Flush would have paid $50.00 from the progressive"
    )
    await page.get_by_test_id("raise-0").click()
    await expect(page.get_by_test_id("seat-0-status")).to_have_text("Raised")
    await expect(confirm).to_contain_text(
        "folds your undecided hand on seat #2: you lose $5.00 of antes and $1.00 of "
        "progressive stakes. And seat #2's Flush"
    )
    await expect(confirm).to_contain_text("Your raised hand on seat #1 plays on")
    assert problems == []


async def test_a_phone_s_leave_warning_carries_its_own_fold_and_leave_and_spares_the_clock(
    make_server: ServerFactory, browser: Browser
) -> None:
    """Three undecided hands on a phone: the warning went up top, over the table's head
    (the armed "Fold & leave", the clock, the jackpot), told the player to press a
    button it covered "(or l)", a key a phone lacks, and the leave stayed armed a few
    seconds only; then it stood over the dealer's cards and hand #1's head while the
    player decided whether to fold and leave. Now the warning holds the "Fold & leave"
    that confirms, stands at the foot (the page leaves it room there, so each hand
    scrolls whole above it), the clock and the dealer's row stay in view, and a tap on
    that button leaves."""
    server = await make_server(tables=NINE, timers=LONG)
    problems: list[str] = []
    _, bob = await new_page(
        browser,
        f"http://127.0.0.1:{server.port}/",
        problems,
        viewport=PHONE,
        is_mobile=True,
        has_touch=True,
        device_scale_factor=3,
    )
    await layout_enter(bob, "Bob", tap=True)
    await sit_three(bob, 0, tap=True)
    await bob.get_by_test_id("chip-500").tap()
    for seat in (0, 1, 2):
        await bob.get_by_test_id(f"ante-{seat}").tap()
    await bob.get_by_test_id("deal").tap()
    await expect(bob.get_by_test_id("fold-2")).to_be_enabled()

    await bob.get_by_test_id("leave").tap()
    confirm = bob.locator('.toast[data-code="leave-confirm"]')
    await expect(confirm.get_by_test_id("error-message")).to_have_text(
        "Leaving now folds your undecided hands on seat #1, #2, #3: you lose $15.00 of antes."
    )
    fold_and_leave = confirm.get_by_test_id("leave-confirm-button")
    await expect(fold_and_leave).to_have_text("Fold & leave")
    got: dict[str, Any] = await bob.evaluate(TOAST_CLEAR)
    await bob.screenshot(path=str(ARTIFACTS / "leave-warning-phone.png"))
    assert [c for c in got["covered"] if c in ("phase", "jackpot-meter", "off screen")] == []
    # the warning hides neither the dealer's row nor a hand being decided: it stands at
    # the foot, and each hand scrolls whole between the dealer's row and it
    hid = await bob.evaluate(WARNING_HIDES)
    assert hid["dealer"] is False and hid["hands"] == [], hid
    for testid in ("leave-confirm-button", "error-dismiss"):  # and it takes its taps
        assert await confirm.get_by_test_id(testid).evaluate(HIT) == "itself", testid
    # scrolled down to the last hand, the dealer's row keeps the clock: still in view
    await bob.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    await expect(bob.get_by_test_id("dealer-countdown")).to_be_visible()
    clock_hidden = await bob.evaluate(COVERS_DEALER_CLOCK)
    await bob.screenshot(path=str(ARTIFACTS / "leave-warning-phone-scrolled.png"))
    assert not clock_hidden, "the warning covers the dealer's clock"
    hid = await bob.evaluate(WARNING_HIDES)
    assert hid["dealer"] is False and hid["hands"] == [], hid
    await bob.evaluate("window.scrollTo(0, 0)")

    await fold_and_leave.tap()
    await expect(bob.get_by_test_id("lobby")).to_be_visible()
    await expect(bob.locator('.toast[data-code="left"]')).to_contain_text(
        "You left Nine: your hands on seat #1, #2, #3 were folded, losing $15.00 of antes."
    )
    assert problems == []


async def test_a_spectator_s_way_out_says_it_goes_back_to_the_lobby(
    make_server: ServerFactory, browser: Browser
) -> None:
    """A spectator holds no seat: "← Leave table" said nothing of where it goes. It
    says the lobby; once seated, the same button leaves the table."""
    server = await make_server(timers=LONG)
    problems: list[str] = []
    _, page = await new_page(
        browser, f"http://127.0.0.1:{server.port}/", problems, viewport=VIEWPORT
    )
    await enter(page, "Cy")
    await page.get_by_test_id("watch-alpha").click()
    leave = page.get_by_test_id("leave")
    await expect(page.get_by_test_id("table-view")).to_have_attribute("data-role", "spectator")
    await expect(leave).to_have_text("← Lobby")
    await expect(leave).to_have_attribute("aria-label", "Back to the lobby")
    await page.get_by_test_id("sit-0").click()
    await expect(page.get_by_test_id("table-view")).to_have_attribute("data-role", "player")
    await expect(leave).to_have_text("← Leave table")
    await page.get_by_test_id("stand-0").click()
    await expect(page.get_by_test_id("table-view")).to_have_attribute("data-role", "spectator")
    await expect(leave).to_have_text("← Lobby")
    await leave.click()
    await expect(page.get_by_test_id("lobby")).to_be_visible()
    assert problems == []


#: Whether a toast covers the dealer's clock.
#: What a tap at the middle of an element lands on: the element, or what is over it.
HIT = """(el) => { const r = el.getBoundingClientRect();
  const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return el.contains(at) ? "itself" : `#${at?.id} .${at?.className}`; }"""

#: Whether the leave's warning hides the dealer's row as the page lies, and the player's
#: hands still waiting that it hides whichever way they are scrolled: each is scrolled to
#: stand just above the warning (as far as the page scrolls), then measured against it
#: and against the dealer's row; the page is scrolled back.
WARNING_HIDES = """async () => {
  const frame = () => new Promise((done) =>
    requestAnimationFrame(() => requestAnimationFrame(done)));
  const hit = (a, b) =>
    a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const warning = () =>
    document.querySelector('.toast[data-code="leave-confirm"]').getBoundingClientRect();
  const dealer = () =>
    document.querySelector('#table [data-testid="dealer"]').getBoundingClientRect();
  const out = {dealer: hit(warning(), dealer()), hands: []};
  const back = window.scrollY;
  const waiting = '#table button[data-action="fold"]:not(:disabled)';
  for (const fold of document.querySelectorAll(waiting)) {
    const seat = fold.closest(".seat");
    window.scrollBy(0, seat.getBoundingClientRect().bottom - (warning().top - 4));
    await frame();
    const r = seat.getBoundingClientRect();
    if (hit(r, warning()) || hit(r, dealer()) || hit(warning(), dealer())) {
      out.hands.push(seat.dataset.testid);
    }
  }
  window.scrollTo(0, back);
  await frame();
  return out;
}"""

COVERS_DEALER_CLOCK = """() => {
  const c = document.querySelector('[data-testid="dealer-countdown"]').getBoundingClientRect();
  return [...document.querySelectorAll("#errors .toast")].some((el) => {
    const t = el.getBoundingClientRect();
    return t.left < c.right && c.left < t.right && t.top < c.bottom && c.top < t.bottom;
  });
}"""


#: Every "Free seats" the lobby showed for table nine, recorded as it is drawn.
WATCH_FREE = """() => {
  window.freeShown = [];
  const look = () => {
    const lobby = document.querySelector('[data-testid="lobby"]');
    const free = document.querySelector('[data-testid="lobby-free-nine"]');
    if (lobby && !lobby.hidden && free) window.freeShown.push(free.textContent);
  };
  new MutationObserver(look).observe(document.body,
    {subtree: true, childList: true, characterData: true, attributes: true});
}"""


async def test_the_lobby_shown_after_a_leave_counts_the_seats_just_given_up(
    make_server: ServerFactory, connect: ClientFactory, browser: Browser
) -> None:
    """A full table left showed in the lobby as "Free seats 0 of 9", "Table full", until
    the next throttled lobby push: the seats the player had just given up are free in
    the first lobby drawn after the leave."""
    server = await make_server(tables=NINE, timers=LONG, jackpot_push_interval=3600)
    problems: list[str] = []
    _, page = await new_page(
        browser, f"http://127.0.0.1:{server.port}/", problems, viewport=VIEWPORT
    )
    await layout_enter(page, "Ann")
    await sit_three(page, 0)
    for name in ("Bob", "Cy"):
        other = await connect(server, name)
        await other.request("join", table="nine")
        for _ in range(3):
            await other.request("sit", table="nine")
    server.lobby.flush()  # the page at the table is told the table is full
    await page.wait_for_function(
        "window.stud.state.lobby?.tables.find((r) => r.id === 'nine')?.taken === 9"
    )
    await page.evaluate(WATCH_FREE)
    await page.get_by_test_id("leave").click()
    await expect(page.get_by_test_id("lobby-free-nine")).to_have_text("3 of 9")
    await expect(page.get_by_test_id("play-nine")).to_have_text("Play")
    await expect(page.get_by_test_id("play-nine")).to_be_enabled()
    shown: list[str] = await page.evaluate("window.freeShown")
    assert shown and set(shown) == {"3 of 9"}, shown
    await shot(page, "lobby-after-leaving-a-full-table.png")
    assert problems == []


async def test_where_a_folded_hand_collects_its_prize_a_leave_does_not_lose_the_stake(
    make_server: ServerFactory, browser: Browser
) -> None:
    """At Stud Poker a folded hand is still paid its progressive prize: the stake plays on
    whatever the fold. The warning said "you lose $5.00 of antes and $1.00 of progressive
    stakes" all the same."""
    server = await make_server(timers=LONG)
    page, problems = await ann_at_alpha(server, browser, "beta")
    await build_ante(page, 0, [(500, "left")])
    await page.get_by_test_id("progressive-0").click()
    await page.get_by_test_id("deal").click()
    await expect(page.get_by_test_id("fold-0")).to_be_visible()
    await page.get_by_test_id("leave").click()
    confirm = page.locator('.toast[data-code="leave-confirm"]')
    await expect(confirm).to_contain_text(
        "you lose $5.00 of antes (the $1.00 progressive stake still plays: at this game a "
        "folded hand is paid its progressive prize)"
    )
    assert problems == []
