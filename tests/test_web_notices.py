"""The browser's notices in the lobby: news that is not an error (a hand folded by a
leave, a purchase on its way, a session ended) is told in a neutral style, not the
red of a refusal, and the notices and the jackpot's banners neither cover the lobby's
tables nor stack without bound over them (they go in its heading's room for them,
beside its words and the jackpot: tests/test_web_lobby.py; tests/test_web_steady.py
checks the tables stay put as they come and go).

Needs Debian's Chromium and the page's npm dependency, like tests/test_web.py.
"""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser, Page, ViewportSize, expect

from clients.connection import StudClient
from tests.conftest import ServerFactory
from tests.test_web import (
    ARTIFACTS,
    VIEWPORT,
    WAIT_MS,
    browser,
    build_ante,
    collect_problems,
    needs_chromium,
)
from tests.test_web import enter as enter_by_keyboard
from tests.test_web_layout import (
    LAPTOPS,
    PHONE,
    STUD_NINE,
    bots_at_four_to_nine,
    cy,
    new_page,
    sit_three,
)
from tests.test_web_layout import enter as enter_by_tap
from tests.test_web_leave import ann_at_alpha

__all__ = ["browser", "cy"]  # the fixtures, used below

pytestmark = needs_chromium

ERROR_RED = "rgb(59, 13, 20)"  # a refusal's background (notices.css .toast)
LONG = {"betting": 60, "decision": 60, "results": 60}  # nothing moves by the clock
LAPTOP = LAPTOPS[0]  # 1280x800
DESKTOP = LAPTOPS[2]  # 1920x1080

# Six notices, sticky news among them, an error, and three jackpot banners at once, as
# the page's own modules show them (the same instances: one module graph a page).
MANY = """async () => {
  const n = await import("./js/notices.js");
  for (let k = 0; k < 6; k++) {
    n.showError(`News ${k}: a thing happened that is not an error.`, { code: `news-${k}`,
      tone: "info", sticky: k % 2 === 0 });
  }
  n.showError("A refusal, in an error's style.", { code: "a-refusal" });
  for (let k = 0; k < 3; k++) {
    n.showBanner({ round_id: "r-many", seat: k, name: `Winner ${k}`, amount: 100000,
      category: "ROYAL_FLUSH", table: "alpha" });
  }
}"""

# The notices and banners drawn over the lobby's tables.
OVER_LOBBY = """() => {
  const lobby = document.querySelector('[data-testid="table-list"]').getBoundingClientRect();
  const over = [];
  for (const el of document.querySelectorAll("#errors > *, #banners > *")) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    const ix = Math.min(r.right, lobby.right) - Math.max(r.left, lobby.left);
    const iy = Math.min(r.bottom, lobby.bottom) - Math.max(r.top, lobby.top);
    if (ix > 0.5 && iy > 0.5) over.push(el.textContent.slice(0, 40));
  }
  return over;
}"""


async def style_of(page: Page, selector: str) -> list[str]:
    style: list[str] = await page.locator(selector).evaluate(
        "(el) => { const s = getComputedStyle(el); return [s.backgroundColor, s.borderLeftColor]; }"
    )
    return style


@pytest.mark.parametrize("size", ["desktop", "phone"])
async def test_news_in_the_lobby_is_neutral_and_beside_the_tables_not_over_them(
    make_server: ServerFactory, browser: Browser, size: str
) -> None:
    """ "You left alpha: your hand on seat #1 was folded" came in the red of a refusal,
    and notices came one under another over the lobby's tables (four toasts and the
    banners behind them covered the tables and their Play buttons)."""
    server = await make_server(timers=LONG)
    phone = size == "phone"
    viewport: ViewportSize = PHONE if phone else VIEWPORT
    context = await browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)
    context.set_default_timeout(WAIT_MS)
    page = await context.new_page()
    problems: list[str] = []
    collect_problems(page, problems)
    await page.goto(f"http://127.0.0.1:{server.port}/")
    if phone:
        await enter_by_tap(page, "Ann")
    else:
        await enter_by_keyboard(page, "Ann")
    await page.get_by_test_id("play-alpha").click()
    await expect(page.get_by_test_id("seat-0-name")).to_contain_text("Ann")
    await build_ante(page, 0, [(500, "left")])
    await page.get_by_test_id("deal").click()
    await expect(page.get_by_test_id("fold-0")).to_be_visible()
    await page.get_by_test_id("leave").click()
    await page.get_by_test_id("leave-confirm-button").click()
    await expect(page.get_by_test_id("lobby")).to_be_visible()
    told = page.locator('.toast[data-code="left"]')
    await expect(told).to_contain_text("your hand on seat #1 was folded")
    news = await style_of(page, '.toast[data-code="left"]')
    assert news[0] != ERROR_RED
    await expect(told).to_have_attribute("role", "status")
    assert await page.evaluate(OVER_LOBBY) == []
    await page.screenshot(path=f"test-artifacts/notices-lobby-left-{size}.png")

    await page.evaluate(MANY)
    refusal = '.toast[data-code="a-refusal"]'
    await expect(page.locator(refusal)).to_be_visible()
    # the refusal is red, unlike the news (a laptop's lobby has room above its tables for
    # the newest alone: the news gave way to it)
    assert await style_of(page, refusal) != news
    assert await page.locator("#errors .toast").count() <= 2
    assert await page.locator("#banners .banner").count() <= 2
    assert await page.evaluate(OVER_LOBBY) == []
    await page.screenshot(path=f"test-artifacts/notices-lobby-many-{size}.png")
    await context.close()
    assert problems == []


# What a tap at the middle of an element lands on: the element (or what is inside it), or
# what is over it there.
HIT = """(el) => { const r = el.getBoundingClientRect();
  const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return el.contains(at) ? "itself" : `#${at?.id} .${at?.className}`; }"""


@pytest.mark.parametrize("how", ["seated", "watching"])
async def test_a_phone_at_a_table_closes_history_with_a_tap(
    make_server: ServerFactory, browser: Browser, how: str
) -> None:
    """At a table on a phone the notices' layer, empty, covered the screen: a tap on the
    History panel's × (or anything under it) went to that layer, and the panel stayed."""
    server = await make_server(timers=LONG)
    context = await browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    context.set_default_timeout(WAIT_MS)
    page = await context.new_page()
    problems: list[str] = []
    collect_problems(page, problems)
    await page.goto(f"http://127.0.0.1:{server.port}/")
    await enter_by_tap(page, "Ann")
    await page.get_by_test_id(f"{'play' if how == 'seated' else 'watch'}-alpha").tap()
    await expect(page.get_by_test_id("table-view")).to_be_visible()
    await page.get_by_test_id("history-button").tap()
    panel = page.get_by_test_id("history-panel")
    await expect(panel).to_be_visible()
    await page.screenshot(path=f"test-artifacts/notices-phone-history-{how}.png")
    # what a tap on the × or on the panel lands on is the × or the panel itself, not a
    # layer over them (an empty one as big as the screen's lower part, or all of it)
    for testid in ("history-close", "history-panel"):
        hit = await page.get_by_test_id(testid).evaluate(HIT)
        assert hit == "itself", f"a tap on {testid} lands on {hit}"
    await page.get_by_test_id("history-close").tap()
    await expect(panel).to_be_hidden()
    await context.close()
    assert problems == []


# News of table beta, as the page's own modules show it: one read (folded), one not yet.
BETA_NEWS = """async () => {
  const n = await import("./js/notices.js");
  const about = { tone: "info", sticky: true, table: "beta", round: "beta-000001" };
  n.showError("You left beta: your hand on seat #1 came to −$2.00.",
    { code: "left-settled", ...about });
  n.showError("News of beta not read yet.", { code: "beta-unread", ...about });
  document.querySelector('.toast[data-code="left-settled"]').dataset.seen = "true";
}"""


async def test_news_of_a_table_left_goes_once_read_when_the_player_is_at_another(
    make_server: ServerFactory, browser: Browser
) -> None:
    """A leave's result from one table stayed in the corner at another, 25 minutes on."""
    server = await make_server(timers=LONG)
    page, problems = await ann_at_alpha(server, browser)
    await page.evaluate(BETA_NEWS)
    read = page.locator('.toast[data-code="left-settled"]')
    unread = page.locator('.toast[data-code="beta-unread"]')
    await expect(read).to_be_visible()
    # a round starts at the table on screen: the read news of the other goes
    await build_ante(page, 0, [(500, "left")])
    await page.get_by_test_id("deal").click()
    await expect(page.get_by_test_id("fold-0")).to_be_visible()
    await expect(read).to_have_count(0)
    await expect(unread).to_be_visible()  # news of money not read yet stays
    await page.context.close()
    assert problems == []


async def test_news_that_expires_goes_once_read_and_folded(
    make_server: ServerFactory, browser: Browser
) -> None:
    """Sticky news that is not money ("New player, new wallet") stayed for the rest of the
    session, folded in a corner: read and folded, it goes (news of money stays)."""
    server = await make_server(timers=LONG)
    page, problems = await ann_at_alpha(server, browser)
    await page.evaluate(
        """async () => {
          const n = await import("./js/notices.js");
          n.showError("Money news.", { code: "money", tone: "info", sticky: true });
          n.showError("Other news.", { code: "news", tone: "info", sticky: true, expires: 1 });
        }"""
    )
    news = page.locator('.toast[data-code="news"]')
    money = page.locator('.toast[data-code="money"]')
    await expect(news).to_be_visible()
    await expect(news).to_have_count(0, timeout=30_000)  # read (folded), then gone
    await expect(money).to_have_class(re.compile(r"\bcollapsed\b"))  # read, and kept
    await page.context.close()
    assert problems == []


#: The middle of the biggest part of a "+ Hand" button that the toast covers, or null.
UNDER_TOAST = """() => {
  const t = document.querySelector('#errors .toast').getBoundingClientRect();
  let best = null;
  for (const el of document.querySelectorAll('#table [data-testid^="sit-"]')) {
    const r = el.getBoundingClientRect();
    const w = Math.min(r.right, t.right) - Math.max(r.left, t.left);
    const h = Math.min(r.bottom, t.bottom) - Math.max(r.top, t.top);
    if (w > 0 && h > 0 && (!best || w * h > best.area)) {
      best = {testid: el.dataset.testid, area: w * h,
              x: Math.max(r.left, t.left) + w / 2, y: Math.max(r.top, t.top) + h / 2};
    }
  }
  return best;
}"""


async def test_a_passing_toast_on_a_phone_lets_a_tap_through_to_the_seat_under_it(
    make_server: ServerFactory, browser: Browser
) -> None:
    """A refusal on a phone stands over the seats for its ten seconds: a tap on the
    "+ Hand" it covers took no seat. The tap goes through to the button now (the
    toast's x still closes it: the loop below taps it)."""
    server = await make_server(
        tables=[{"id": "nine", "title": "Nine", "variant": "casino-stud", "seats": 9}],
        timers={"betting": 60, "decision": 60, "results": 60},
    )
    context = await browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    context.set_default_timeout(WAIT_MS)
    page = await context.new_page()
    problems: list[str] = []
    collect_problems(page, problems)
    await page.goto(f"http://127.0.0.1:{server.port}/")
    await enter_by_tap(page, "Bob", tap=True)
    await page.get_by_test_id("play-nine").tap()
    await expect(page.get_by_test_id("seat-0-name")).to_contain_text("Bob")
    for _ in range(8):  # the page scrolled so that a "+ Hand" lies under the toast
        await page.keyboard.press("d")  # no ante built: a refusal
        await expect(page.locator("#errors .toast")).to_have_count(1)
        under = await page.evaluate(UNDER_TOAST)
        if under is not None:
            break
        await page.get_by_test_id("error-dismiss").tap()
        await page.mouse.wheel(0, 120)
    assert under is not None, "no seat's button under the toast at any scroll"
    await page.touchscreen.tap(under["x"], under["y"])
    seat = under["testid"].removeprefix("sit-")
    await expect(page.get_by_test_id(f"seat-{seat}-name")).to_contain_text("Bob")
    # the refusal was of the moment before the seat was taken: it goes with it
    await expect(page.locator("#errors .toast")).to_have_count(0)
    await context.close()
    assert problems == []


#: What the notices cover of the side panel's content as it shows (the rows of both
#: paytables, the provably fair box, the rules) and of the seats, and each notice's code,
#: whether it is folded to one line, and its box.
PAYTABLE_UNDER = """() => {
  const hit = (a, b) =>
    a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const side = document.querySelector("#table .side").getBoundingClientRect();
  // what the panel shows of an element (scrolled out of it, nothing)
  const shown = (el) => { const r = el.getBoundingClientRect();
    const top = Math.max(r.top, side.top), bottom = Math.min(r.bottom, side.bottom);
    return bottom > top ? {left: r.left, right: r.right, top, bottom} : null; };
  const toasts = [...document.querySelectorAll("#errors > *")];
  const over = (els, box) => els.filter((el) => { const r = box(el);
    return r && toasts.some((t) => hit(t.getBoundingClientRect(), r)); })
    .map((el) => el.dataset.testid ?? el.textContent.slice(0, 30));
  const inPanel = '[data-testid="paytable"] tr, [data-testid="progressive-paytable"] tr, '
    + '#table .side-body > *';
  return {
    covered: over([...document.querySelectorAll(inPanel)], shown),
    seats: over([...document.querySelectorAll("#table .seat")], (el) => el.getBoundingClientRect()),
    toasts: toasts.map((t) => ({code: t.dataset.code, folded: t.classList.contains("collapsed"),
      box: t.getBoundingClientRect().toJSON()})),
    screen: innerHeight,
  };
}"""

#: What a server shut down and started again without its data says, in that order: the
#: round voided as it shut down (read, and folded by the player), the wallet gone, what
#: became of the seats (js/unseen.js, frames.js, fleet.js give the same codes and kinds).
RESTART_NEWS = """async () => {
  const n = await import("./js/notices.js");
  n.showError("Your round was voided as the server shut down: no hand was played out, and every "
    + "bet of it (antes, raises, progressive) was refunded.", { code: "round-voided", tone: "ok",
    sticky: true });
  document.querySelector('.toast[data-code="round-voided"] .msg').click(); // read: folded
  n.showError("New player, new wallet: the server no longer knows your previous session (unused "
    + "for a long time, or the server restarted without keeping its data), so you start again.",
    { code: "session-ended", tone: "info", sticky: true, expires: 60000 });
  n.showError("“Nine” is back: its server shut down and was started again. It gave its tables up "
    + "as it shut down, so your seats #1, #2, #3 were let go: take a seat to play on.",
    { code: "table-moved", tone: "ok", sticky: true });
}"""


@pytest.mark.parametrize("size", [LAPTOP, DESKTOP], ids=["1280x800", "1920x1080"])
async def test_notices_at_a_laptop_s_table_leave_the_paytable_in_view(
    make_server: ServerFactory, browser: Browser, cy: list[StudClient], size: ViewportSize
) -> None:
    """At 1280x800 the notices stood over the side panel's foot: a Leave's warning covered
    the progressive paytable's rows, and the notices of a server started again the
    paytable ("Raise pays") from Flush down. They stand at the panel's top now, in its
    column: the panel starts under them and scrolls, and they cover none of its content
    nor a seat; older news folded to a line (a tap opens it), news of money whole while
    unread."""
    server = await make_server(tables=STUD_NINE, timers=LONG)  # a folded hand's stake plays
    problems: list[str] = []
    _, ann = await new_page(browser, f"http://127.0.0.1:{server.port}/", problems, viewport=size)
    wide = f"{size['width']}"
    await enter_by_tap(ann, "Ann")
    await sit_three(ann, 0)
    await bots_at_four_to_nine(server.port, cy)  # a full table
    await ann.get_by_test_id("chip-1000").click()
    for seat in (0, 1, 2):
        await ann.get_by_test_id(f"ante-{seat}").click()
        await ann.get_by_test_id(f"progressive-{seat}").click()
    await ann.get_by_test_id("deal").click()
    await expect(ann.get_by_test_id("fold-2")).to_be_enabled()
    await ann.get_by_test_id("raise-0").click()  # one plays on: the warning's longest words
    await expect(ann.get_by_test_id("seat-0-status")).to_have_text("Raised")
    await ann.get_by_test_id("leave").click()
    confirm = ann.locator('.toast[data-code="leave-confirm"]')
    await expect(confirm).to_contain_text("progressive stakes still play")
    await expect(confirm).to_contain_text("Your raised hand on seat #1 plays on")
    await expect(confirm.get_by_test_id("leave-confirm-button")).to_be_in_viewport(ratio=1)
    got = await ann.evaluate(PAYTABLE_UNDER)
    await ann.screenshot(path=str(ARTIFACTS / f"notices-leave-warning-{wide}.png"))
    assert got["covered"] == [] and got["seats"] == [], got
    await confirm.get_by_test_id("error-dismiss").click()

    await ann.evaluate(RESTART_NEWS)
    await expect(ann.locator('.toast[data-code="table-moved"]')).to_be_visible()
    got = await ann.evaluate(PAYTABLE_UNDER)
    await ann.screenshot(path=str(ARTIFACTS / f"notices-restart-{wide}.png"))
    assert got["covered"] == [] and got["seats"] == [], got
    kept = {t["code"]: t for t in got["toasts"]}
    assert set(kept) == {"round-voided", "session-ended", "table-moved"}, got  # none gone
    assert not kept["table-moved"]["folded"], got  # the newest, news of money: whole
    for t in got["toasts"]:
        assert t["box"]["bottom"] <= got["screen"], got
    # a folded one opens at a tap, whole, and the panel moves down under it
    assert kept["round-voided"]["folded"], got
    await ann.locator('.toast[data-code="round-voided"] .msg').click()
    await expect(ann.locator('.toast[data-code="round-voided"]')).not_to_have_class(
        re.compile(r"\bcollapsed\b")
    )
    got = await ann.evaluate(PAYTABLE_UNDER)
    assert got["covered"] == [] and got["seats"] == [], got
    # the notices gone, the panel takes its room back
    for _ in range(3):
        await ann.locator("#errors .toast").last.get_by_test_id("error-dismiss").click()
    await expect(ann.locator("#errors .toast")).to_have_count(0)
    await expect(ann.locator("#table .side")).to_have_css("margin-top", "0px")
    assert problems == []


async def test_a_key_s_notice_goes_once_the_hand_it_selected_is_decided(
    make_server: ServerFactory, browser: Browser, cy: list[StudClient]
) -> None:
    """A full table, three own hands: after r on one and then f, "Seat #… has raised
    already; nothing sent. Selected now: #…" stayed up once that hand was raised, through
    the showdown and into the next round's betting. It belongs to its moment: it goes as
    the hand it selected is decided."""
    server = await make_server(tables=STUD_NINE, timers=LONG)
    problems: list[str] = []
    _, ann = await new_page(browser, f"http://127.0.0.1:{server.port}/", problems, viewport=LAPTOP)
    await enter_by_tap(ann, "Ann")
    await sit_three(ann, 0)
    await bots_at_four_to_nine(server.port, cy)  # a full table
    await ann.get_by_test_id("chip-1000").click()
    for seat in (0, 1, 2):
        await ann.get_by_test_id(f"ante-{seat}").click()
    await ann.get_by_test_id("deal").click()
    await expect(ann.get_by_test_id("fold-2")).to_be_enabled()
    await ann.locator("body").click(position={"x": 5, "y": 400})  # the keys go to the page
    await ann.keyboard.press("Tab")
    await ann.keyboard.press("Tab")
    await ann.keyboard.press("r")
    raised = ann.locator('#table [data-testid$="-status"]', has_text="Raised")
    await expect(raised).to_have_count(1)
    await ann.keyboard.press("f")
    told = ann.locator('.toast[data-code="decided"]')
    await expect(told).to_contain_text("raised already; nothing sent. Selected now: #")
    words = await told.locator(".msg").text_content() or ""
    selected = int(re.search(r"Selected now: #(\d)", words).group(1)) - 1  # type: ignore[union-attr]
    await ann.get_by_test_id(f"raise-{selected}").click()
    # the frame that shows the hand raised takes the notice away with it
    await expect(ann.get_by_test_id(f"seat-{selected}-status")).to_have_text("Raised")
    assert await told.count() == 0, words
    await ann.screenshot(path=str(ARTIFACTS / "notices-key-notice-gone-1280.png"))
    # one said with no hand of the player's left waiting: it goes as the round moves on
    for seat in (0, 1, 2):
        fold = ann.get_by_test_id(f"fold-{seat}")
        if await fold.count() and await fold.is_enabled():
            await fold.click()
            await expect(ann.get_by_test_id(f"seat-{seat}-status")).to_have_text("Folded")
    await expect(ann.locator('#table [data-testid$="-status"]', has_text="Deciding")).to_have_count(
        6
    )
    await ann.keyboard.press("f")
    await expect(told).to_contain_text("already; nothing sent.")
    for seat, bot in zip(range(3, 9), cy, strict=True):
        await bot.request("fold", table="nine", seat=seat)
    await expect(ann.get_by_test_id("phase")).not_to_contain_text("Fold or raise")
    assert await told.count() == 0
    assert problems == []
