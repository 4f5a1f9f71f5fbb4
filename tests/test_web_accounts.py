"""Accounts in the browser client, in a real headless Chromium: sign up as the guest
one is, stay signed in across a reload and a second tab, sign out, and sign in
from another browser context (another device) with the chips kept.

Needs Debian's Chromium and the page's npm dependency, like tests/test_web.py.
"""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, Page, expect

from clients.connection import ServerError, StudClient
from server.app import StudServer
from tests.conftest import ServerFactory
from tests.test_web import (
    VIEWPORT,
    WAIT_MS,
    browser,
    collect_problems,
    enter,
    expect_wallet,
    needs_chromium,
    open_page,
    resize,
    shot,
)

__all__ = ["browser"]  # the fixture, used below

pytestmark = needs_chromium

START = 100_000  # conftest's starting credits
BOUGHT = 25_000
PASSWORD = "correct horse battery"


async def fill_dialog(page: Page, username: str, password: str) -> None:
    dialog = page.get_by_test_id("account-dialog")
    await expect(dialog).to_be_visible()
    await page.get_by_test_id("account-username").fill(username)
    await page.get_by_test_id("account-password").fill(password)
    await page.get_by_test_id("account-submit").click()


async def signed_in_as(page: Page, username: str, name: str) -> None:
    """The bar names the player as the lobby and the seats do (it showed the username,
    "zoe_tester" beside "Welcome, Zoë"); the account's username is in its title."""
    await expect(page.get_by_test_id("account-name")).to_have_text(username, timeout=WAIT_MS)
    await expect(page.get_by_test_id("player-name")).to_have_text(name, timeout=WAIT_MS)
    await expect(page.get_by_test_id("player-name")).to_have_attribute(
        "title", f"{name}, signed in as {username}"
    )


async def player_id(page: Page) -> str:
    value = await page.evaluate("() => window.stud.state.me && window.stud.state.me.player_id")
    assert isinstance(value, str)
    return value


async def test_sign_up_reload_sign_out_and_sign_in_elsewhere(
    make_server: ServerFactory, browser: Browser
) -> None:
    server = await make_server()
    url = f"http://127.0.0.1:{server.port}/"
    problems: list[str] = []

    # ----- a guest buys chips, then signs up: the same player, the chips kept
    ann = await open_page(browser, url, problems)
    await enter(ann, "Ann")
    await ann.get_by_test_id("buy-amount").fill(str(BOUGHT // 100))
    await ann.get_by_test_id("buy-chips").click()
    await expect_wallet(ann, START + BOUGHT)
    guest = await player_id(ann)
    await ann.get_by_test_id("signup").click()
    await fill_dialog(ann, "ann_99", "too short")  # refused, in words, in the dialog
    await expect(ann.get_by_test_id("account-error")).to_contain_text("10 to 128 characters")
    await ann.get_by_test_id("account-password").fill(PASSWORD)
    await ann.get_by_test_id("account-submit").click()
    await signed_in_as(ann, "ann_99", "Ann")
    await expect(ann.get_by_test_id("account-dialog")).to_be_hidden()
    assert await player_id(ann) == guest
    await shot(ann, "account-signed-up.png")

    # ----- a reload, and a second tab of the same browser: still signed in
    await ann.reload()
    await signed_in_as(ann, "ann_99", "Ann")
    await expect_wallet(ann, START + BOUGHT)
    tab = await ann.context.new_page()
    collect_problems(tab, problems)
    await tab.goto(url)
    await signed_in_as(tab, "ann_99", "Ann")
    assert await player_id(tab) == guest
    await expect(ann.get_by_test_id("conn-status")).to_have_text("Playing in another tab or device")

    # ----- sign out (in the tab that plays): both tabs are back at the start
    await tab.get_by_test_id("signout").click()
    for page in (tab, ann):
        await expect(page.get_by_test_id("name-input")).to_be_visible(timeout=WAIT_MS)
        await expect(page.get_by_test_id("account-bar")).to_be_hidden()
    assert await tab.evaluate("() => localStorage.getItem('stud.account')") is None

    # ----- another device: a wrong password, then the right one
    context = await browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(WAIT_MS)
    other = await context.new_page()
    collect_problems(other, problems)
    await other.goto(url)
    await other.get_by_test_id("signin-start").click()
    await fill_dialog(other, "ANN_99", "not the password")
    await expect(other.get_by_test_id("account-error")).to_have_text("Wrong username or password")
    await other.get_by_test_id("account-password").fill(PASSWORD)
    await other.get_by_test_id("account-submit").click()
    await signed_in_as(other, "ann_99", "Ann")
    await expect_wallet(other, START + BOUGHT)
    assert await player_id(other) == guest
    await expect(other.get_by_test_id("lobby-table-alpha")).to_be_visible()
    await shot(other, "account-signed-in.png")
    await other.reload()
    await signed_in_as(other, "ann_99", "Ann")
    await context.close()
    assert problems == [], problems


async def test_a_guest_signs_in_from_the_lobby(
    make_server: ServerFactory, browser: Browser
) -> None:
    server = await make_server()
    url = f"http://127.0.0.1:{server.port}/"
    problems: list[str] = []
    first = await open_page(browser, url, problems)
    await enter(first, "Bo")
    await first.get_by_test_id("signup").click()
    await fill_dialog(first, "bo_bo", PASSWORD)
    await signed_in_as(first, "bo_bo", "Bo")
    account = await player_id(first)
    await first.context.close()
    guest = await open_page(browser, url, problems)
    await enter(guest, "Somebody")
    await guest.get_by_test_id("signin").click()
    await fill_dialog(guest, "bo_bo", PASSWORD)
    await signed_in_as(guest, "bo_bo", "Bo")
    assert await player_id(guest) == account
    assert problems == [], problems


async def on_two_devices(
    browser: Browser, server: StudServer, username: str, problems: list[str]
) -> tuple[Page, Page]:
    """Ann signed up as `username` on one page, then signed in on another device: the
    first, one connection per player on a server, now offers "Play here"."""
    url = f"http://127.0.0.1:{server.port}/"
    ann = await open_page(browser, url, problems)
    await enter(ann, "Ann")
    await ann.get_by_test_id("signup").click()
    await fill_dialog(ann, username, PASSWORD)
    await signed_in_as(ann, username, "Ann")
    phone = await open_page(browser, url, problems)  # another device
    await phone.get_by_test_id("signin-start").click()
    await fill_dialog(phone, username, PASSWORD)
    await signed_in_as(phone, username, "Ann")
    await expect(ann.get_by_test_id("conn-status")).to_have_text("Playing in another tab or device")
    return ann, phone


async def test_a_password_changed_here_signs_the_other_device_out(
    make_server: ServerFactory, browser: Browser
) -> None:
    """The page had no way to change a password. Another device's page, once signed
    out by the change, says so and plays on as a guest."""
    server = await make_server()
    problems: list[str] = []
    ann, phone = await on_two_devices(browser, server, "ann_pw", problems)

    await phone.get_by_test_id("password").click()
    await expect(phone.get_by_test_id("account-username")).to_be_hidden()
    await phone.get_by_test_id("account-password").fill("not the password")
    await phone.get_by_test_id("account-new").fill("staple battery horse")
    await phone.get_by_test_id("account-submit").click()
    await expect(phone.get_by_test_id("account-error")).to_contain_text("old password is wrong")
    await phone.get_by_test_id("account-password").fill(PASSWORD)
    await phone.get_by_test_id("account-new").fill("short")
    await phone.get_by_test_id("account-submit").click()
    await expect(phone.get_by_test_id("account-error")).to_contain_text("10 to 128 characters")
    await phone.get_by_test_id("account-new").fill("staple battery horse")
    await phone.get_by_test_id("account-submit").click()
    told = phone.locator('.toast[data-code="password-changed"]')
    await expect(told).to_contain_text("Password changed: your other devices are signed out.")
    await signed_in_as(phone, "ann_pw", "Ann")  # this device goes on

    # the first device, asked to play here again, learns it was signed out
    await ann.get_by_test_id("reconnect").click()
    ended = ann.locator('.toast[data-code="session-ended"]')
    await expect(ended).to_contain_text("Signed out: sign in again to play with your account")
    await expect(ann.get_by_test_id("signin")).to_be_visible()  # a guest now
    await shot(phone, "account-password-changed.png")
    assert problems == [], problems


#: The top bar's parts that are drawn, any past the window's right edge or cut short.
TOP_BAR = """() => {
  const out = [];
  for (const el of document.querySelectorAll(".topbar > *, .topbar .account > *")) {
    const r = el.getBoundingClientRect();
    if (!r.width) continue;
    if (r.right > innerWidth + 0.5) out.push(`${el.id || el.className} ends at ${r.right}`);
    if (el.matches("button") && el.scrollWidth > el.clientWidth + 1) out.push(`${el.id} cut`);
  }
  if (document.documentElement.scrollWidth > innerWidth) out.push("the page scrolls sideways");
  return out;
}"""


async def test_a_long_username_fits_a_laptop_and_a_replaced_tab_signs_out(
    make_server: ServerFactory, browser: Browser
) -> None:
    """At 1280x800 a 24-character username pushed the top bar to 1414 px; and Sign out
    in a tab another tab had taken the connection from said "Not connected" and did
    nothing, leaving the account signed in everywhere."""
    server = await make_server()
    url = f"http://127.0.0.1:{server.port}/"
    problems: list[str] = []
    ann = await open_page(browser, url, problems)
    await resize(ann, {"width": 1280, "height": 800})
    # a name one character too long is refused in words too (the field cut it silently),
    # while it is typed: nothing is sent until it fits
    await ann.get_by_test_id("name-input").fill("Bartholomew Maximilian Xy")
    await ann.get_by_test_id("name-input").press("Enter")
    await expect(ann.get_by_test_id("name-count")).to_have_text(
        "Too long: 25 of 24 characters, 1 to take off"
    )
    await expect(ann.get_by_test_id("enter")).to_be_disabled()
    await expect(ann.get_by_test_id("name-input")).to_have_value("Bartholomew Maximilian Xy")
    await ann.get_by_test_id("name-input").fill("")
    await enter(ann, "Bartholomew")
    # the name taken, its refusal goes at once: it stayed over the lobby (for its 10 s),
    # saying the opposite
    assert await ann.get_by_test_id("error").count() == 0
    await ann.get_by_test_id("signup").click()
    # one character too many is refused in words, not cut to an account of another name
    await fill_dialog(ann, "bartholomew_maximilian_xy", PASSWORD)
    await expect(ann.get_by_test_id("account-error")).to_contain_text("3 to 24 characters")
    await ann.get_by_test_id("account-username").fill("bartholomew_maximilian_x")
    await ann.get_by_test_id("account-submit").click()
    await signed_in_as(ann, "bartholomew_maximilian_x", "Bartholomew")
    await expect(ann.get_by_test_id("account-name")).to_have_attribute(
        "title", "bartholomew_maximilian_x"
    )
    tab = await ann.context.new_page()
    collect_problems(tab, problems)
    await tab.goto(url)
    await signed_in_as(tab, "bartholomew_maximilian_x", "Bartholomew")
    await expect(ann.get_by_test_id("conn-status")).to_have_text("Playing in another tab or device")
    await expect(ann.get_by_test_id("reconnect")).to_be_visible()
    await shot(ann, "account-long-name-1280.png")
    assert await ann.evaluate(TOP_BAR) == []
    await resize(tab, {"width": 1280, "height": 800})
    assert await tab.evaluate(TOP_BAR) == []

    token = await ann.evaluate("() => JSON.parse(localStorage.getItem('stud.account')).token")
    # seated in the tab that plays: the sign-out is refused there, said in both tabs, and
    # the game stays where it is (it used to move to the idle tab, still signed in)
    await tab.get_by_test_id("play-alpha").click()
    await expect(tab.get_by_test_id("table-view")).to_have_attribute("data-role", "player")
    await ann.get_by_test_id("signout").click()
    for page in (ann, tab):
        await expect(page.get_by_test_id("error-message").last).to_contain_text("leave the table")
    await expect(tab.get_by_test_id("conn-status")).not_to_have_text(
        "Playing in another tab or device"
    )
    await expect(ann.get_by_test_id("conn-status")).to_have_text("Playing in another tab or device")
    await tab.get_by_test_id("leave").click()
    await expect(tab.get_by_test_id("lobby-table-alpha")).to_be_visible()
    await ann.get_by_test_id("signout").click()
    for page in (ann, tab):
        await expect(page.get_by_test_id("name-input")).to_be_visible(timeout=WAIT_MS)
    # the tab that signed out for it says so; the one asked in blames no other tab
    await expect(tab.get_by_test_id("error-message")).to_contain_text("as asked in another tab")
    await expect(ann.locator('.toast[data-code="signed-out"]')).to_have_count(0)
    client = await StudClient.open(f"ws://127.0.0.1:{server.port}/ws")
    try:
        with pytest.raises(ServerError) as refused:
            await client.hello(token=token)
        assert refused.value.code == "invalid_token"  # revoked on the server, not just here
    finally:
        await client.close()
    assert problems == [], problems


async def test_a_tab_playing_elsewhere_says_so_when_play_is_pressed(
    make_server: ServerFactory, browser: Browser
) -> None:
    """A tab that lost the account to another device still offers Play: pressed, it said
    "Not connected to the server: nothing was sent. Reconnecting…", and it was not
    reconnecting. It says where the game is, and offers to play here."""
    server = await make_server()
    problems: list[str] = []
    ann, _phone = await on_two_devices(browser, server, "ann_here", problems)

    await ann.get_by_test_id("play-alpha").click()
    told = ann.locator('.toast[data-code="elsewhere"]')
    await expect(told).to_contain_text("You are playing in another tab or on another device")
    await expect(told).not_to_contain_text("Reconnecting")
    await shot(ann, "account-elsewhere-play.png")
    await resize(ann, {"width": 390, "height": 844})
    await expect(told.get_by_test_id("error-play-here")).to_be_visible()
    await shot(ann, "account-elsewhere-play-phone.png")
    await told.get_by_test_id("error-play-here").click()
    await expect(ann.get_by_test_id("conn-status")).to_have_text("Connected")
    await expect(told).to_have_count(0)  # over: the game is here again
    await ann.get_by_test_id("play-alpha").click()
    await expect(ann.get_by_test_id("seat-0-name")).to_contain_text("Ann")
    assert problems == [], problems


async def test_an_account_lost_with_the_server_s_data_is_told_truly(
    make_server: ServerFactory, browser: Browser
) -> None:
    """A server restarted without its data no longer knows the account: the page said
    "sign in again to play with your account", as if that could work. It says what the
    page knows, and when sign-in then refuses the account's own username, that the
    casino's data was reset if the password was right."""
    server = await make_server()
    problems: list[str] = []
    page = await open_page(browser, f"http://127.0.0.1:{server.port}/", problems)
    await enter(page, "Zoë")
    # as the page finds it after such a restart: an account's token and username the
    # server has never heard of
    await page.evaluate(
        """localStorage.setItem('stud.account', JSON.stringify({
             token: 'lost-with-the-data-0123456789abcdef', username: 'zoe_tester'}));
           window.stud.conn.drop()"""
    )
    ended = page.locator('.toast[data-code="session-ended"]')
    await expect(ended).to_contain_text("Signed out: sign in again to play with your account")
    await expect(ended).to_contain_text("username or password is wrong")
    await expect(ended).to_contain_text("the casino's data was reset")
    await page.get_by_test_id("signin").click()
    await fill_dialog(page, "zoe_tester", PASSWORD)
    error = page.get_by_test_id("account-error")
    await expect(error).to_contain_text("Wrong username or password")
    await expect(error).to_contain_text("zoe_tester no longer exists")
    await shot(page, "account-lost-with-the-data.png")
    # another username: nothing of the lost account is said
    await page.get_by_test_id("account-username").fill("someone_else")
    await page.get_by_test_id("account-submit").click()
    await expect(error).to_have_text("Wrong username or password")
    assert [p for p in problems if "401" not in p] == [], problems
