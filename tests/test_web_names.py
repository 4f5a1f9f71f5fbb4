"""Long names at a full table in the browser client, in a real headless Chromium.

The lobby's card keeps each fact on one line at 1280x800. Ann (a 24-letter name with
no space) plays three hands at a nine-seat table; six others, names as long, play one
each. At 1280x800 and 1024x768 every other player's name keeps more than a few
letters, Ann's own seats say YOU and their number (her three hands told apart), and
the History panel gives every other hand its seat. The
top bar stays one row from 960 to 1024 px as a guest and once signed up, and shows one
identity: the name, not the username beside it; the table's head does not wrap in one
phase and not in another, so the felt stays put. A phone's top bar is no taller signed
up than as a guest, and an amount over the purchase limit, refused, does not stay in its
buy field. Screenshots go to test-artifacts/names-*.png.

Needs Debian's Chromium, like tests/test_web.py.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Browser, Page, ViewportSize, expect

from clients.connection import StudClient
from tests.conftest import ServerFactory
from tests.decks import shuffles
from tests.test_web import ARTIFACTS, browser, expect_phase, needs_chromium, resize
from tests.test_web_layout import DEALER, HANDS, LONG, NINE, PHONE, cy, enter, new_page

__all__ = ["browser", "cy"]  # the fixtures used below

pytestmark = needs_chromium

ALEX = "Alexandrinakonstantinova"  # 24 letters, no space
OTHERS = [
    "Maximiliankarlheinzberg",
    "Terpsichoreawilhelmina",
    "Bartholomewfitzwilliams",
    "Gwendolynmargaretrosie",
    "Christophercolumbusjr",
    "Evangelinaprudenceann",
]
USERNAME = "alexandrina_konstantin"
PASSWORD = "correct horse battery"
LAPTOP: ViewportSize = {"width": 1280, "height": 800}
SMALL: ViewportSize = {"width": 1024, "height": 768}
# a small laptop's window, less a scroll bar, a little narrower: the head wrapped at some
# of these widths in one phase and not in the next
NARROWER: list[ViewportSize] = [{"width": w, "height": 768} for w in (960, 1000, 1009)]

# Each seat's name as drawn: how many of its letters show before the "…" (measured
# with the name's own font), and the nameplate's visible words.
NAMES = """() => {
  const ctx = document.createElement("canvas").getContext("2d");
  const out = {};
  for (const plate of document.querySelectorAll('#table .nameplate[data-testid$="-name"]')) {
    const seat = Number(plate.dataset.testid.split("-")[1]);
    const name = plate.querySelector(".name");
    let shown = 0;
    if (name && name.getClientRects().length) {
      const cs = getComputedStyle(name);
      // the font's cut too: a condensed name holds more letters than the normal font says
      const cut = {"75%": "condensed", "87.5%": "semi-condensed"}[cs.fontStretch] ?? "normal";
      ctx.font = `${cs.fontWeight} ${cut} ${cs.fontSize} ${cs.fontFamily}`;
      ctx.letterSpacing = cs.letterSpacing;
      const text = name.textContent;
      if (name.scrollWidth <= name.clientWidth) shown = text.length;
      else {
        const room = name.clientWidth - ctx.measureText("…").width;
        while (shown < text.length && ctx.measureText(text.slice(0, shown + 1)).width <= room) {
          shown++;
        }
      }
    }
    out[seat] = {shown, words: plate.innerText.replace(/\\s+/g, " ").trim(),
                 mine: Boolean(plate.closest(".seat.mine"))};
  }
  return out;
}"""

# The top bar's visible parts that are not on its first row.
BELOW_FIRST_ROW = """() => {
  const parts = [...document.querySelector(".topbar").children]
    .map((el) => [el, el.getBoundingClientRect()]).filter(([, r]) => r.width >= 1 && r.height >= 1);
  const top = Math.min(...parts.map(([, r]) => r.top));
  const first = parts.filter(([, r]) => r.top < top + 1);
  const firstBottom = Math.min(...first.map(([, r]) => r.bottom));
  return parts.filter(([, r]) => r.top >= firstBottom).map(([el]) => el.className || el.id);
}"""

# The elements (of a selector) whose words take more than one line.
ONE_LINE = """(sel) => [...document.querySelectorAll(sel)].filter((el) => {
  const r = el.getBoundingClientRect();
  return r.height > 2 * parseFloat(getComputedStyle(el).fontSize);  // a line is about 1.2
}).map((el) => el.textContent)"""

FELT_TOP = "() => document.querySelector('#table .felt').getBoundingClientRect().top"


async def names_read(page: Page, what: str) -> None:
    """Others' names show 6 letters at least; own seats say YOU #n, each its own."""
    await page.wait_for_function("!document.querySelector('[data-dealing=\"true\"]')")
    got: dict[str, dict[str, Any]] = await page.evaluate(NAMES)
    assert len(got) == 9, (what, got)
    short = {n: s for n, s in got.items() if not s["mine"] and s["shown"] < 6}
    assert short == {}, f"{what}: names cut to a few letters: {short}"
    own = sorted(s["words"].upper() for s in got.values() if s["mine"])
    assert own == ["YOU #1", "YOU #2", "YOU #3"], f"{what}: own seats read {own}"
    await page.screenshot(path=str(ARTIFACTS / f"names-{what}.png"))


async def felt_tops(page: Page, phase: str, tops: dict[str, list[float]]) -> None:
    """Where the felt starts at each small size in this phase; the top bar in one row."""
    for size in (*NARROWER, SMALL):
        await resize(page, size)
        below: list[str] = await page.evaluate(BELOW_FIRST_ROW)
        where = f"{phase} at {size['width']} px"
        assert below == [], f"{where}: on a second row of the top bar: {below}"
        tops.setdefault(str(size["width"]), []).append(await page.evaluate(FELT_TOP))
        await page.screenshot(path=str(ARTIFACTS / f"names-{phase}-{size['width']}.png"))
    await resize(page, LAPTOP)


async def fill_the_table(page: Page, port: int, others: list[str], cy: list[StudClient]) -> None:
    """The page's player at "nine" on seats 0-2 (three hands), `others` on the rest (each
    a client kept in `cy`), seat 8 shown taken."""
    await page.get_by_test_id("play-nine").click()
    for seat in (1, 2):
        await page.get_by_test_id(f"sit-{seat}").click()
        await expect(page.get_by_test_id(f"seat-{seat}").locator(".you")).to_have_count(1)
    for name in others:
        client = await StudClient.open(f"ws://127.0.0.1:{port}/ws")
        cy.append(client)
        await client.hello(name=name)
        await client.request("join", table="nine")
        await client.request("sit", table="nine")
    await expect(page.get_by_test_id("seat-8-name")).to_contain_text(others[-1])


async def sign_up(page: Page, username: str) -> None:
    await page.get_by_test_id("signup").click()
    await page.get_by_test_id("account-username").fill(username)
    await page.get_by_test_id("account-password").fill(PASSWORD)
    await page.get_by_test_id("account-submit").click()
    await expect(page.get_by_test_id("account-name")).to_have_text(username)


async def test_long_names_at_a_full_table(
    make_server: ServerFactory, browser: Browser, cy: list[StudClient]
) -> None:
    server = await make_server(tables=NINE, shuffle=shuffles([*HANDS, DEALER]), timers=LONG)
    url = f"http://127.0.0.1:{server.port}/"
    problems: list[str] = []
    ARTIFACTS.mkdir(exist_ok=True)
    _, ann = await new_page(browser, url, problems, viewport=LAPTOP)
    await ann.get_by_test_id("name-input").fill(ALEX)
    await ann.get_by_test_id("enter").click()
    await expect(ann.get_by_test_id("player-name")).to_have_text(ALEX)
    # the lobby's card: each of a table's facts on one line
    await expect(ann.get_by_test_id("play-nine")).to_be_visible()
    wrapped: list[str] = await ann.evaluate(ONE_LINE, ".facts dt, .facts dd")
    assert wrapped == [], f"facts over two lines in the lobby's card: {wrapped}"
    await fill_the_table(ann, server.port, OTHERS, cy)
    tops: dict[str, list[float]] = {}
    await felt_tops(ann, "waiting", tops)  # a guest's top bar: Sign up and Sign in

    # ----- once signed up, the player's name as the lobby and the seats say it (the bar
    # showed the username instead); the username in its title, not beside it on a laptop
    await sign_up(ann, USERNAME)
    shown = await ann.get_by_test_id("account-name").bounding_box()
    assert shown is not None and shown["width"] <= 1, f"the username is drawn twice: {shown}"
    await expect(ann.get_by_test_id("player-name")).to_have_text(ALEX)
    await expect(ann.get_by_test_id("player-name")).to_have_attribute(
        "title", f"{ALEX}, signed in as {USERNAME}"
    )
    await felt_tops(ann, "signed-up", tops)

    # ----- a round: the names read at 1280 and 1024; the felt stays put from phase to phase
    for seat in (0, 1, 2):
        await ann.get_by_test_id("chip-500").click()
        await ann.get_by_test_id(f"ante-{seat}").click()
        await ann.get_by_test_id(f"progressive-{seat}").click()
    for n, client in enumerate(cy):
        await client.request("ante", table="nine", seat=3 + n, amount=500)
    await expect_phase([ann], "betting")
    await names_read(ann, "betting-1280")
    await resize(ann, SMALL)
    await names_read(ann, "betting-1024")
    await felt_tops(ann, "betting", tops)
    await ann.get_by_test_id("deal").click()
    for client in cy:
        await client.request("deal", table="nine")
    await expect_phase([ann], "deciding")
    await names_read(ann, "deciding-1280")
    await felt_tops(ann, "deciding", tops)
    for seat in (0, 1, 2):
        await ann.get_by_test_id(f"raise-{seat}").click()
    for n, client in enumerate(cy):
        await client.request("raise", table="nine", seat=3 + n)
    await expect_phase([ann], "showdown")
    await felt_tops(ann, "showdown", tops)
    for width, seen in tops.items():
        assert max(seen) - min(seen) < 1, f"at {width} px the felt moves between phases: {seen}"

    # ----- History: every other hand says its seat (two cut names alike read apart)
    await ann.get_by_test_id("history-button").click()
    others = ann.get_by_test_id("history-panel").get_by_test_id("history-other")
    await expect(others).to_have_count(6)
    for k in range(6):
        who = (await others.nth(k).locator(".hist-who").inner_text()).split()
        assert who[:2] == ["Seat", str(4 + k)], who
    await ann.screenshot(path=str(ARTIFACTS / "names-history-1280.png"))
    assert problems == []


async def test_a_phone_top_bar_is_no_taller_signed_up(
    make_server: ServerFactory, browser: Browser
) -> None:
    server = await make_server()
    url = f"http://127.0.0.1:{server.port}/"
    problems: list[str] = []
    _, bob = await new_page(browser, url, problems, viewport=PHONE, is_mobile=True, has_touch=True)
    await bob.get_by_test_id("name-input").fill("Bob Bartholomew-Fitzwill")
    await bob.get_by_test_id("enter").tap()
    await expect(bob.get_by_test_id("lobby")).to_be_visible()
    guest = await bob.locator(".topbar").bounding_box()
    await sign_up(bob, "bob_bartholomew_fitzwil")
    signed = await bob.locator(".topbar").bounding_box()
    ARTIFACTS.mkdir(exist_ok=True)
    await bob.screenshot(path=str(ARTIFACTS / "names-signed-up-phone.png"))
    assert guest is not None and signed is not None
    assert signed["height"] <= guest["height"] + 1, (guest, signed)
    # an amount over the limit, refused, is not left in the field for the next Buy
    await bob.get_by_test_id("buy-amount").fill("99999")
    await bob.get_by_test_id("buy-chips").tap()
    await expect(bob.get_by_test_id("error-message")).to_contain_text("at most $10,000.00")
    await expect(bob.get_by_test_id("buy-amount")).to_have_value("500")
    assert problems == []


async def test_the_name_field_says_its_limit_while_typing(
    make_server: ServerFactory, browser: Browser
) -> None:
    """A name of 30 letters was refused only once sent ("Name must be 1 to 24 characters,
    got 30"): the field says so as it is typed, and the button waits until it fits. The
    count is the server's, in code points (PROTOCOL.md `hello`): 24 emoji fit."""
    server = await make_server()
    problems: list[str] = []
    _, page = await new_page(browser, f"http://127.0.0.1:{server.port}/", problems, viewport=LAPTOP)
    field, enter, note = (page.get_by_test_id(t) for t in ("name-input", "enter", "name-count"))
    await field.fill("A" * 30)
    await expect(note).to_contain_text("30 of 24")
    await expect(note).to_have_attribute("data-over", "true")
    await expect(field).to_have_attribute("aria-invalid", "true")
    await expect(enter).to_be_disabled()
    await field.fill("😀" * 24)  # 48 UTF-16 units, 24 characters to the server
    await expect(note).to_have_attribute("data-over", "false")
    await expect(enter).to_be_enabled()
    await field.fill("  " + "B" * 24 + "  ")  # the spaces around it are not sent
    await expect(enter).to_be_enabled()
    await enter.click()
    await expect(page.get_by_test_id("player-name")).to_have_text("B" * 24)
    assert problems == []


async def test_a_laptop_s_top_bar_stays_one_row_whatever_the_wallet_holds(
    make_server: ServerFactory, browser: Browser
) -> None:
    """A 24-character name, and wallets of every width of figures: the name gives way
    (cut, whole in its title), never "Connected" to a second row (the table jumped down
    34 px when the balance grew a digit mid-play)."""
    server = await make_server(tables=NINE, timers=LONG)
    problems: list[str] = []
    _, page = await new_page(browser, f"http://127.0.0.1:{server.port}/", problems, viewport=LAPTOP)
    await enter(page, "Alexandra Konstantinova🎲")
    await page.get_by_test_id("play-nine").click()
    await expect(page.get_by_test_id("seat-0").locator(".you")).to_have_count(1)
    wallets = [(965_600, 28_000), (1_025_300, 0), (99_999_999, 9_999_999), (100, 0)]
    for width in (1181, 1280, 1366, 1440):
        await resize(page, {"width": width, "height": 800})
        for balance, held in wallets:
            frame = {
                "t": "balance",
                "balance": balance,
                "available": balance - held,
                "held": held,
                "bonus": 250_000,
            }
            await page.evaluate("(f) => window.stud.absorb(f)", frame)
            await expect(page.get_by_test_id("held")).to_contain_text(f"{held // 100:,}")
            below: list[str] = await page.evaluate(BELOW_FIRST_ROW)
            assert below == [], f"{width} px, ${balance / 100:,.2f}: a second row of {below}"
    assert problems == []
