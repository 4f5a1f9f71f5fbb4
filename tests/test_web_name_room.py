"""Long names get the room there is, in a real headless Chromium.

A nine-seat table named "Casino Stud Nine": Desk (a 24-letter name with no space) plays
three hands, six others (names of 21 to 23 letters) one each. Another player's name on
the felt shows whole at 1920x1080 and nine letters at least at 1280x800 and 1024x768;
the top bar's own name is whole at 1280 and up (tests/test_web_names.py keeps the bar
one row at 1024); the History panel's names are whole; Stand is "Stand up" to a screen
reader at every size (said short beside Clear in a narrow seat). A phone watching the round
draws each name whole on two lines at most, never a letter or three alone on one, and a
tile's hand whole at the showdown.
Screenshots go to test-artifacts/room-*.png.

Needs Debian's Chromium, like tests/test_web.py.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Browser, Page, ViewportSize, expect

from clients.connection import StudClient
from tests.conftest import ClientFactory, ServerFactory
from tests.decks import shuffles
from tests.test_web import ARTIFACTS, browser, expect_phase, needs_chromium, resize
from tests.test_web_layout import DEALER, HANDS, LONG, PHONE, cy, new_page
from tests.test_web_names import (
    BELOW_FIRST_ROW,
    LAPTOP,
    NAMES,
    OTHERS,
    SMALL,
    fill_the_table,
)

__all__ = ["browser", "cy"]  # the fixtures used below

pytestmark = needs_chromium

TABLE = [{"id": "nine", "title": "Casino Stud Nine", "variant": "casino-stud", "seats": 9}]
DESK = "DeskPlayerWithLongName22"  # 24 letters, no space
WATCHER = "PhoneWatcherWithLongNam"
PLAYERS = [*OTHERS[:-1], "bot9@nine"]  # a bot's name among the long ones: it read "bot9@n…"
# whether each seat's green "connected" dot is drawn, on the felt's arc
DOTS = """() => [...document.querySelectorAll('#table .seat.arc .nameplate .dot.on')]
  .map((dot) => dot.getClientRects().length > 0)"""
WIDE: ViewportSize = {"width": 1920, "height": 1080}

# The elements (of a selector) drawn cut short: their words wider than their box.
CUT = """(sel) => [...document.querySelectorAll(sel)].filter((el) => el.getClientRects().length
  && el.scrollWidth > el.clientWidth + 1).map((el) => el.textContent)"""

# Whether the side panel starts below the window, and the head's control to it in view.
SIDE_BELOW = """() => {
  window.scrollTo(0, 0);
  const side = document.querySelector('#table .side').getBoundingClientRect();
  const link = document.querySelector('[data-testid="to-side"]');
  const shown = Boolean(link && link.getClientRects().length);
  const r = shown ? link.getBoundingClientRect() : null;
  return {below: side.top >= innerHeight, link: shown && r.bottom <= innerHeight && r.top >= 0};
}"""

# Each tile's name as its lines show it, cut or not, and whether its title says it.
TILE_NAMES = """() => [...document.querySelectorAll('#table .seat.tile .nameplate')].map((p) => {
  const plate = p;
  const name = plate.querySelector('.name');
  const text = name.firstChild;
  const lines = {};
  for (let i = 0; i < text.length; i++) {
    const r = document.createRange();
    r.setStart(text, i);
    r.setEnd(text, i + 1);
    const top = Math.round(r.getBoundingClientRect().top);
    lines[top] = (lines[top] ?? "") + text.data[i];
  }
  const style = getComputedStyle(name);
  return {lines: Object.values(lines), titled: plate.title === text.data,
          ellipsis: style.textOverflow === "ellipsis" && style.whiteSpace === "nowrap",
          inside: name.getBoundingClientRect().right <= plate.getBoundingClientRect().right + 1,
          whole: name.scrollHeight <= name.clientHeight + 1
            && name.scrollWidth <= name.clientWidth + 1};
})"""


async def others_shown(page: Page, what: str, least: int | None, wrong: list[str]) -> None:
    """Others' names show `least` letters at least (None: whole)."""
    await page.wait_for_function("!document.querySelector('[data-dealing=\"true\"]')")
    got: dict[str, dict[str, Any]] = await page.evaluate(NAMES)
    await page.screenshot(path=str(ARTIFACTS / f"room-{what}.png"))
    others = {n: s for n, s in got.items() if not s["mine"]}
    assert len(others) == 6, (what, got)
    for seat, s in others.items():
        full = len(s["words"].split("#")[0].strip())
        want = full if least is None else min(least, full)
        if s["shown"] < want:
            wrong.append(f"{what}: seat {seat} shows {s['shown']} of {full}: {s['words']}")


async def test_long_names_use_the_room_there_is(
    make_server: ServerFactory, browser: Browser, cy: list[StudClient]
) -> None:
    server = await make_server(tables=TABLE, shuffle=shuffles([*HANDS, DEALER]), timers=LONG)
    url = f"http://127.0.0.1:{server.port}/"
    problems: list[str] = []
    wrong: list[str] = []  # what a person would see wrong, all of it told at the end
    ARTIFACTS.mkdir(exist_ok=True)
    _, desk = await new_page(browser, url, problems, viewport=LAPTOP)
    await desk.get_by_test_id("name-input").fill(DESK)
    await desk.get_by_test_id("enter").click()
    await expect(desk.get_by_test_id("player-name")).to_have_text(DESK)
    await fill_the_table(desk, server.port, PLAYERS, cy)
    for seat in (0, 1, 2):
        await desk.get_by_test_id("chip-500").click()
        await desk.get_by_test_id(f"ante-{seat}").click()
    for n, client in enumerate(cy):
        await client.request("ante", table="nine", seat=3 + n, amount=500)
    await expect_phase([desk], "betting")

    # ----- the felt's names, the top bar's, Stand's words at three sizes
    for size, least in ((WIDE, None), (LAPTOP, 9), (SMALL, 9)):
        await resize(desk, size)
        what = f"betting-{size['width']}"
        await others_shown(desk, what, least, wrong)
        dots: list[bool] = await desk.evaluate(DOTS)
        if any(dots) and not all(dots):  # a seat without one would look disconnected
            wrong.append(f"{what}: {sum(dots)} of {len(dots)} connected seats show their dot")
        stands = await desk.get_by_role("button", name="Stand up", exact=True).count()
        if stands != 3:
            wrong.append(f"{what}: {stands} of 3 Stand buttons say Stand up")
        if size["width"] >= LAPTOP["width"]:
            cut: list[str] = await desk.evaluate(CUT, ".topbar .who")
            if cut:
                wrong.append(f"{what}: the top bar's name is cut: {cut}")

    # 1024: one row of top bar; the head whole, and a way to the panel below the felt
    assert await desk.evaluate(BELOW_FIRST_ROW) == []
    cut = await desk.evaluate(CUT, ".table-head h1, .table-head .limits, .table-head .watchers")
    if cut:
        wrong.append(f"the table's head is cut at 1024 px: {cut}")
    side = await desk.evaluate(SIDE_BELOW)
    if side != {"below": True, "link": True}:
        wrong.append(f"at 1024 px the side panel is below the felt with no way there: {side}")
    else:
        await desk.get_by_test_id("to-side").click()
        await expect(desk.get_by_test_id("paytable")).to_be_in_viewport()
        await desk.screenshot(path=str(ARTIFACTS / "room-side-1024.png"))
        await desk.evaluate("() => window.scrollTo(0, 0)")
    await resize(desk, LAPTOP)
    side = await desk.evaluate(SIDE_BELOW)
    if side != {"below": False, "link": False}:
        wrong.append(f"at 1280 px the side panel is beside the felt: no link to it: {side}")

    # ----- a phone watches the round to its showdown; History: the names whole
    _, phone = await new_page(
        browser, url, problems, viewport=PHONE, is_mobile=True, has_touch=True
    )
    await phone.get_by_test_id("name-input").fill(WATCHER)
    await phone.get_by_test_id("enter").tap()
    await expect(phone.get_by_test_id("player-name")).to_have_text(WATCHER)
    cut = await phone.evaluate(CUT, ".topbar .who")  # it shared a row with Sign up and Buy
    if cut:
        wrong.append(f"the phone's top bar cuts its name: {cut}")
    await phone.get_by_test_id("watch-nine").tap()
    await expect(phone.get_by_test_id("seat-8-name")).to_contain_text(PLAYERS[-1])
    await desk.get_by_test_id("deal").click()
    for client in cy:
        await client.request("deal", table="nine")
    await expect_phase([desk], "deciding")
    await resize(desk, SMALL)  # the head's longest phase: "Fold or raise" and its clock
    await desk.wait_for_function("!document.querySelector('[data-dealing=\"true\"]')")
    cut = await desk.evaluate(CUT, ".table-head h1, .table-head .limits, .table-head .watchers")
    if cut:
        wrong.append(f"the table's head is cut at 1024 px while deciding: {cut}")
    await desk.screenshot(path=str(ARTIFACTS / "room-deciding-1024.png"))
    await resize(desk, LAPTOP)
    for seat in (0, 1, 2):
        await desk.get_by_test_id(f"raise-{seat}").click()
    for n, client in enumerate(cy):
        await client.request("raise", table="nine", seat=3 + n)
    await expect_phase([desk, phone], "showdown")
    await phone.wait_for_function("!document.querySelector('[data-dealing=\"true\"]')")
    await phone.screenshot(path=str(ARTIFACTS / "room-showdown-phone.png"), full_page=True)
    # a tile's name is one line, as a seat's on a laptop: one that does not fit is cut
    # with "…" (its title the whole name). Wrapped, a name of one word was split mid-word,
    # "Bartholomewf / itzwilliams", and read as two
    for tile in await phone.evaluate(TILE_NAMES):
        lines = tile["lines"]
        if len(lines) != 1 or not tile["titled"] or not tile["inside"]:
            wrong.append(f"a phone's tile shows a name as {lines}: {tile}")
        elif not tile["whole"] and not tile["ellipsis"]:
            wrong.append(f"a phone's tile cuts a name without '…': {tile}")
    cut = await phone.evaluate(CUT, "#table .seat.tile .hand-label")
    if cut:
        wrong.append(f"a phone's tiles cut their hands: {cut}")
    await desk.get_by_test_id("history-button").click()
    others = desk.get_by_test_id("history-panel").get_by_test_id("history-other")
    await expect(others).to_have_count(6)
    await desk.screenshot(path=str(ARTIFACTS / "room-history-1280.png"))
    cut = await desk.evaluate(CUT, "#history .hist-name")
    if cut:
        wrong.append(f"History cuts names: {cut}")
    assert wrong == [], "\n".join(wrong)
    assert problems == []


#: Each tile's name, green dot and seat number: their boxes' tops and bottoms; and each
#: tile's progressive light, lit: its words and their size.
TILE_PARTS = """() => [...document.querySelectorAll('#table .seat.tile:has(.nameplate .name)')]
  .map((seat) => {
  const box = (sel) => {
    const r = seat.querySelector(sel).getBoundingClientRect();
    return {top: Math.round(r.top), bottom: Math.round(r.bottom)};
  };
  const jp = seat.querySelector('.tile-spot .prog-light.on');
  return {name: box('.nameplate .name'), dot: box('.nameplate .dot'),
          no: box('.nameplate .seat-no'),
          jp: jp && {text: jp.textContent, size: parseFloat(getComputedStyle(jp).fontSize),
                     whole: jp.scrollWidth <= jp.clientWidth + 1}};
})"""


async def test_a_phone_s_tiles_put_the_dot_alike_and_name_the_progressive(
    make_server: ServerFactory, connect: ClientFactory, browser: Browser
) -> None:
    """A phone watching: the green dot sat inline before a short name ("● Bo") but on a
    line of its own above a longer one ("Margarethe"), and a tile's progressive bet was
    a gold dot with no word. Every tile has its name on top, the dot beside the seat's
    number under it, and a progressive bet reads "JP" (the word the seats use)."""
    server = await make_server(tables=TABLE, timers=LONG)
    for seat, name in enumerate(["Bo", "Margarethe", "Maximiliano"]):
        player = await connect(server, name)
        await player.request("sit", table="nine", seat=seat)
        await player.request("ante", table="nine", seat=seat, amount=500, progressive=seat != 1)
    problems: list[str] = []
    _, page = await new_page(
        browser,
        f"http://127.0.0.1:{server.port}/",
        problems,
        viewport=PHONE,
        is_mobile=True,
        has_touch=True,
        device_scale_factor=3,
    )
    await page.get_by_test_id("name-input").fill("Wendy")
    await page.get_by_test_id("enter").tap()
    await page.get_by_test_id("watch-nine").tap()
    await expect_phase([page], "betting")
    tiles: list[dict[str, Any]] = await page.evaluate(TILE_PARTS)
    await page.screenshot(path=str(ARTIFACTS / "room-phone-tiles.png"), full_page=True)
    assert len(tiles) == 3, tiles
    for n, tile in enumerate(tiles):
        assert tile["dot"]["top"] >= tile["name"]["bottom"] - 1, (n, tile)  # under the name
        assert tile["dot"]["top"] < tile["no"]["bottom"], (n, tile)  # beside the number
        assert tile["no"]["top"] < tile["dot"]["bottom"], (n, tile)
    lit = [t["jp"] for t in tiles]
    assert lit[1] is None, lit
    for jp in (lit[0], lit[2]):
        assert jp is not None and jp["text"] == "JP" and jp["size"] >= 10 and jp["whole"], lit
    assert problems == []
