// The frame around the tables: the top bar (wallet, Buy, History, the link's state),
// the frame's size on big screens and the felt's measured size (the seats are laid out
// for it), the marks the CSS reads (the table's head scrolled away, a side panel with
// more below), and the clock's tick. Apart from draw.js, which draws the views in it.

import { accountUsername } from "./account.js";
import { purchases } from "./buying.js";
import { $ } from "./dom.js";
import { dollars } from "./format.js";
import { frameScale, seatLayout, uiScale } from "./layout.js";
import { conn, online } from "./link.js";
import { render, state } from "./state.js";
import { clockView } from "./table.js";

const FLOW_BELOW_PX = 600; // a felt narrower than this flows (phone), whatever the seat count

/** A phone keeps the dealer's row on screen with a clock of its own (CSS) once the table
 * head, whose phase pill has the clock, has scrolled away: not before, or the same
 * seconds showed twice, one over the other. */
export function markHeadAway() {
  const pill = document.querySelector('#table [data-testid="phase"]');
  const r = pill?.getBoundingClientRect();
  const away = Boolean(r) && r.top + r.height / 2 < 0; // more than half of it gone: unread
  if (away !== document.body.hasAttribute("data-head-away")) {
    document.body.toggleAttribute("data-head-away", away);
  }
}

/** A side panel that scrolls inside itself says so while there is more below
 * (a laptop's panel holds more than it shows, and nothing else would tell). */
export function markSidePanel() {
  const side = document.querySelector("#table .side");
  if (!side) return;
  const more = side.scrollHeight - side.scrollTop - side.clientHeight > 2;
  if (more) side.dataset.more = "true";
  else delete side.dataset.more;
}

/** Where the seats go: from the felt's measured inside (a first guess from the window before that). */
export function layoutFor(snap) {
  const felt = state.felt ?? {
    width: window.innerWidth <= 1100 ? window.innerWidth - 60 : window.innerWidth - 330,
    height: Math.max(440, window.innerHeight - 230),
  };
  if (felt.width < FLOW_BELOW_PX) return { mode: "flow", positions: [], vars: {} };
  return seatLayout(snap.seats.length, felt.width, felt.height, uiScale(window.innerWidth, window.innerHeight));
}

/** A big screen draws the frame around the felt bigger (screens.css zooms it by --frame);
 * the felt's seats are sized by layout.js from the same window. */
export function sizeFrame() {
  const frame = String(frameScale(uiScale(window.innerWidth, window.innerHeight)));
  const root = document.documentElement.style;
  if (root.getPropertyValue("--frame") !== frame) root.setProperty("--frame", frame);
}

// The felt's size, measured whenever it changes (a resize, the side panel
// moving under the felt): the seats are laid out again for it.
const feltObserver = new ResizeObserver((entries) => {
  const box = entries[entries.length - 1].contentRect;
  const size = { width: Math.round(box.width), height: Math.round(box.height) };
  if (size.width > 0 && (size.width !== state.felt?.width || size.height !== state.felt?.height)) {
    state.felt = size;
    render();
  }
});
let observedFelt = null;

/** A window that scrolls (the side panel under the felt, narrow.css at 1100 px) sizes the
 * felt to the screen: what is above it (the top bar and the table's head, one row or two:
 * a wide wallet or a long title wraps them) and the rack stuck under it are measured, so
 * the felt's foot, and the results drawn there, end above the rack, not under it. */
export function fitFelt() {
  const felt = document.querySelector('#table [data-testid="felt"]');
  const rack = document.querySelector("#table .felt-wrap > .controls");
  if (!felt) return;
  const root = document.documentElement.style;
  const set = (name, px) => {
    const value = `${Math.round(px)}px`;
    if (root.getPropertyValue(name) !== value) root.setProperty(name, value);
  };
  set("--felt-top", felt.getBoundingClientRect().top + window.scrollY);
  set("--rack-h", rack?.getBoundingClientRect().height ?? 0);
}

export function watchFelt() {
  const felt = document.querySelector('[data-testid="felt"]');
  if (felt === observedFelt) return;
  if (observedFelt) feltObserver.unobserve(observedFelt);
  observedFelt = felt;
  if (felt) feltObserver.observe(felt);
}

export function drawHeader() {
  const b = state.balance;
  $("wallet").hidden = !b;
  // a tab another one took the session from buys nothing: its room goes to "Play here"
  $("buy").hidden = !state.me || state.status.state === "replaced";
  const toggle = $("history-toggle");
  toggle.hidden = !state.me;
  toggle.setAttribute("aria-expanded", state.history.open ? "true" : "false");
  toggle.classList.toggle("active", state.history.open);
  if (b) {
    for (const key of ["balance", "available", "held", "bonus"]) {
      const el = $(`w-${key}`);
      el.textContent = dollars(b[key]);
      el.dataset.cents = String(b[key]);
    }
  }
  // the bar names the player as the lobby ("Welcome, Zoë") and the seats do: the
  // account's username there ("zoe_tester") read as someone else's; it stays in the
  // title, and beside the name where the bar has room (account.css .account-name)
  const name = state.me?.name ?? "";
  const username = state.me ? accountUsername() : null;
  $("player-name").textContent = name;
  $("player-name").title = username ? `${name}, signed in as ${username}` : name;
  const buying = purchases.waiting !== null;
  $("buy-chips").disabled = buying;
  $("buy-chips").querySelector(".buy-label").hidden = buying;
  $("buy-chips").querySelector(".buy-busy").hidden = !buying;
  // an open socket not yet welcomed (a server that accepts but does not answer) is
  // still connecting: nothing can be done on it yet; one waiting for the player's name
  // at the start is connected (it used to say "Connecting…" for as long as it waited)
  const waitsForName = state.needName && !state.me;
  let s = state.status.state === "open" && !online() && !waitsForName ? { state: "connecting" } : state.status;
  if (s.state === "open" && conn.quiet) s = { state: "quiet" }; // open, but nothing answers
  const pill = $("conn-status");
  pill.dataset.state = s.state;
  pill.textContent = {
    idle: "Offline",
    connecting: "Connecting…",
    reconnecting: "Reconnecting…",
    open: "Connected",
    quiet: "No answer…",
    waiting: "Offline",
    closed: "Disconnected",
    replaced: "Playing in another tab or device",
  }[s.state] ?? s.state;
  $("reconnect").hidden = s.state !== "replaced";
  $("retry-now").hidden = s.state !== "waiting";
  $("retry-now").textContent = `Retry · ${Math.ceil((s.delay ?? 0) / 1000)}s`;
}

let drawnQuiet = false; // whether the last tick found the server silent

/** The countdown runs locally from the snapshot's `ends_in_ms`, while the server is heard
 * (clockView); the link's silence beginning or ending redraws the table's words too. */
export function tick() {
  const quiet = conn.quiet;
  if (quiet !== drawnQuiet) {
    drawnQuiet = quiet;
    render();
  }
  const snap = state.current ? state.tables[state.current] : null;
  if (!snap) return;
  const c = clockView(snap, state.receivedAt[snap.table], performance.now(), { online: online(), quiet });
  // the table head's clock, and the dealer's (the one a phone keeps on screen)
  for (const el of document.querySelectorAll('[data-testid="countdown"], [data-testid="dealer-countdown"]')) {
    el.hidden = c.hidden;
    el.textContent = c.text;
    el.classList.toggle("urgent", c.urgent);
    el.classList.toggle("waiting", c.waiting);
    if (c.waiting) el.dataset.waiting = "true";
    else delete el.dataset.waiting;
  }
}
