// Messages to the player: the toasts (errors, warnings, news), kept few and dismissable,
// folded once read; where they go, so that they never cover a decision's buttons, a
// showdown's results or the wallet; and the jackpot's banner.

import { OfflineError } from "./connection.js";
import { $, h } from "./dom.js";
import { categoryLabel, dollars, errorText, readingMs } from "./format.js";
import { choiceNoticeStale } from "./keys.js";
import { conn, connectedTo } from "./link.js";
import { tablePageUrl } from "./lobby.js";
import { hooks, lobbyRow, state, titleOf } from "./state.js";

const ERROR_TTL_MS = 10000;
const NOTICE_TTL_MS = 5000;
const BANNER_TTL_MS = 12000;
/** Toasts and banners the lobby holds at once, in its heading's room for them (four toasts and the
 * banners under them went down over the tables and their Play buttons); fewer when
 * fewer fit above its tables (`placeInLobby`). */
const LOBBY_MAX = 2;

/** Toasts about a moment of play ("No decision is due now", a refused ante): stale once
 * the table's phase moves on or the player leaves it. */
const MOMENT_CODES = new Set(["client", "wrong_phase", "already_bet", "already_decided", "not_betting", "round_moved_on",
  "no_bet", "not_seated", "table_suspended", "table_paused"]); // "leave-confirm" goes with its arming

export function dismissMomentToasts() {
  for (const el of $("errors").querySelectorAll(".toast")) {
    if (MOMENT_CODES.has(el.dataset.code)) el.remove();
  }
}

/** Take away the toasts of one kind (e.g. a wait that is over). */
export function dismissToasts(code) {
  for (const el of $("errors").querySelectorAll(`.toast[data-code="${code}"]`)) el.remove();
}

/** Take away the refusals of an attempt that has now worked (a name refused, then one
 * taken; a purchase refused, then one made): they said the opposite of what is so. */
export function dismissRefusals(about) {
  for (const el of $("errors").querySelectorAll(`.toast[data-about="${about}"]`)) el.remove();
}

/**
 * An error in words, in a visible, dismissable toast; `code` names its kind when it
 * is not a server error, `tone: "ok"` makes it good news, `tone: "warn"` a warning,
 * `tone: "info"` news that is neither good nor a refusal (a hand folded by a leave, a
 * session ended: they came in a refusal's red); `about` names the attempt a refusal is about, whose
 * success takes it away (`dismissRefusals`). A `sticky` one stays until
 * dismissed: news of money (a wallet gone with a forgotten session, a round voided
 * and refunded) must not go by while the player looks elsewhere. Once the page has been
 * in view, online, as long as an ordinary toast lasts, it folds to one line (and goes
 * when the next toast comes: read, it covers nothing for good), so it covers no more of the table than
 * it must; a tap on its words opens it again. A `lasting` one stays whole until taken
 * away by the code that showed it (a leave's warning, while the leave is armed); an
 * `action` ({action, label, testid, key}) is a button in it that does what it asks.
 * `table` and `round` say what it is about (`followRounds`: it goes once that is past);
 * `expires`: a sticky one, read and folded, goes that many ms later (news, not money);
 * `seat`: the hand a key's notice of a hand decided already selected (it goes once that
 * hand is decided: `followRounds`).
 */
export function showError(err, { code = null, tone = null, sticky = false, open = null, about = null,
  lasting = false, action = null, table = null, round, expires = null, seat = null } = {}) {
  // The table gone (`tableMoved` said so): a refusal that says it again adds nothing.
  if (err?.frame?.code === "table_moved" && $("errors").querySelector('[data-code="table_moved"]')) return;
  // A table hosted by another server of the fleet: offer to go there.
  const remote = open ?? (err?.frame?.code === "unknown_table"
    ? tablePageUrl(err.frame.url, err.table, connectedTo(), state.serverUrl) : null);
  // which table, and where: the button after the colon goes there
  const text = typeof err === "string" ? err : remote
    ? `${err.table ? `Table “${titleOf(err.table)}”` : "This table"} is hosted by another server of the `
      + `casino (${new URL(remote).host}):`
    : errorText(err);
  // a tab another one took the session from: the way back is in the words' toast
  if (err?.code === "elsewhere" && !action) {
    action = { action: "reconnect", label: "Play here", testid: "error-play-here" };
  }
  const list = $("errors");
  // news read whole and folded to a line gives way to what comes next: "New player, …
  // More ×" stayed for the rest of the session, over the paytable and the notices after it
  for (const read of list.querySelectorAll('.toast.collapsed[data-seen="true"]')) read.remove();
  const last = list.lastElementChild;
  if (last && last.querySelector(".msg")?.textContent === text) last.remove(); // no duplicates
  const toast = h("div", { class: `toast${tone ? ` ${tone}` : ""}`, role: tone === "ok" || tone === "info" ? "status" : "alert",
    "data-testid": tone === "ok" ? "notice" : "error",
    "data-code": code ?? (err instanceof OfflineError ? "offline" : null) ?? err?.frame?.code ?? err?.code ?? "client",
    "data-sticky": sticky ? "true" : null, "data-about": about, "data-table": table,
    "data-round": table && round !== undefined ? round ?? "" : null, "data-seat": seat },
    h("span", { class: "msg", "data-testid": "error-message", "data-action": sticky ? "toggle-toast" : null }, text),
    remote && h("button", { class: "btn small", "data-action": "open-remote", "data-href": remote,
      "data-testid": "error-open" }, "Open"),
    // folded to one line, it shows it opens (its words open it too)
    sticky && h("button", { class: "btn small more", "data-action": "toggle-toast", "data-testid": "toast-more",
      "aria-expanded": "false", "aria-label": "Show the whole message" }, "More"),
    action && h("button", { class: "btn small fold toast-action", "data-action": action.action, "data-testid": action.testid,
      "aria-keyshortcuts": action.key ?? null }, action.label),
    h("button", { class: "close", "data-action": "dismiss", "data-testid": "error-dismiss", "aria-label": "Dismiss" }, "×"));
  list.append(toast);
  trimToasts(4);
  placeToasts();
  if (lasting) return;
  if (!sticky) setTimeout(() => toast.remove(), tone === "ok" ? NOTICE_TTL_MS : ERROR_TTL_MS);
  else afterSeen(readingMs(text), function fold() {
    // whole while the page is offline: the news is what it has to read then
    if (!conn.open) {
      setTimeout(fold, 1000);
      return;
    }
    toast.dataset.seen = "true";
    // read whole, and its round is over: it goes (`followRounds`)
    if (toast.dataset.due === "true") toast.remove();
    else toast.classList.add("collapsed");
    placeToasts();
    if (expires) setTimeout(function expire() {
      if (!toast.isConnected) return;
      if (!toast.classList.contains("collapsed")) { // opened again: being read
        setTimeout(expire, ERROR_TTL_MS);
        return;
      }
      toast.remove();
      placeToasts();
    }, expires);
  });
}

/**
 * Notices of a table (`table`) go once they are past. Of a round (`round`: the round at
 * that table when told, null between rounds): when another round starts there, read
 * (a sticky one still unread goes once read), and at once when the player bets in
 * another round there; "Your round was voided … refunded" stayed up through the next
 * round, as if it had been voided too. Of another table than the one on screen, read:
 * when a round starts at the table on screen (a leave's result from another table stayed
 * in the corner for the rest of the session). `old`: the table's snapshot before `snap`.
 */
export function followRounds(old, snap) {
  const started = Boolean(snap.round_id) && snap.round_id !== old?.round_id;
  const mine = (snap.seats ?? []).some((s) => s && s.player_id === state.me?.player_id && s.ante > 0);
  let gone = false;
  // a key's notice ("Seat #9 has raised already … Selected now: #8") goes with its moment:
  // once the hand it selected is decided, or no decision is due
  for (const el of $("errors").querySelectorAll(`.toast[data-code="decided"][data-table="${snap.table}"]`)) {
    if (choiceNoticeStale(el.dataset.seat === undefined ? null : Number(el.dataset.seat), snap)) {
      el.remove();
      gone = true;
    }
  }
  for (const el of $("errors").querySelectorAll(".toast[data-table]")) {
    const read = el.dataset.sticky !== "true" || el.dataset.seen === "true";
    if (el.dataset.table === snap.table) {
      const round = el.dataset.round;
      if (round === undefined || !snap.round_id || snap.round_id === round) continue;
      if (read || mine) {
        el.remove();
        gone = true;
      } else el.dataset.due = "true";
    } else if (started && snap.table === state.current && read) {
      el.remove();
      gone = true;
    }
  }
  if (gone) placeToasts();
}

/** The player goes to another table (`table`): the read notices of the others go. */
export function otherTable(table) {
  if (!table) return;
  for (const el of $("errors").querySelectorAll(".toast[data-table]")) {
    if (el.dataset.table !== table && (el.dataset.sticky !== "true" || el.dataset.seen === "true")) el.remove();
  }
}

/** Run `then` once the page has been in view for `ms`: a hidden tab's time does not count. */
function afterSeen(ms, then) {
  const start = () => setTimeout(then, ms);
  if (document.visibilityState === "visible") {
    start();
    return;
  }
  document.addEventListener("visibilitychange", function seen() {
    if (document.visibilityState !== "visible") return;
    document.removeEventListener("visibilitychange", seen);
    start();
  });
}

/** At most `max` toasts: the oldest go first, a sticky one (news of money) last, the
 * newest never (two sticky ones took a refusal away as it came). */
function trimToasts(max) {
  const list = $("errors");
  while (list.children.length > max) {
    (list.querySelector('.toast:not([data-sticky="true"]):not(:last-child)') ?? list.firstElementChild).remove();
  }
}

let watched = false;

/** Toasts go just under the top bar while it is on screen: never over the wallet
 * (a purchase's news must not hide the balance it changed), never off the top. At a
 * table with the side panel beside the felt they go at that panel's top, in its column:
 * the panel starts under them and scrolls (over its foot they covered the paytables read
 * while deciding), never over the dealer's cards or the seats. At a table without it
 * (a phone, a narrow window) the table's head is under the top bar, with the way out
 * and the phase's clock, and the dealer's row under it: the toasts go to the foot of
 * the screen instead, above the chip rack while it is there; but not over a decision's
 * Fold and Raise (its clock runs) nor an own seat's buttons on the felt's arc: then the
 * felt's middle, inside the arc, and failing that up top, where a phone's dealer's row
 * keeps a clock. The jackpot's news at a table goes with them (`showBanner`). */
export function placeToasts() {
  footRoom = 0;
  place();
  const root = document.documentElement.style;
  if (root.getPropertyValue("--foot-notices") !== `${footRoom}px`) root.setProperty("--foot-notices", `${footRoom}px`);
}

/** The room the page leaves at its foot for a phone's notice that asks for a decision
 * (`--foot-notices`, narrow.css), set by `place`. */
let footRoom = 0;

function place() {
  const list = $("errors");
  if (!watched) { // a notice gone by itself (its time up, dismissed) gives its room back at once
    watched = true;
    new MutationObserver(() => placeToasts()).observe(list, { childList: true });
  }
  // the history panel has its head (and its close button) up there: below it, then
  const low = state.history.open;
  list.classList.toggle("low", low);
  if (document.body.dataset.view === "lobby") {
    placeInLobby(low);
    return;
  }
  if (!list.children.length) {
    makeRoom(0);
    return;
  }
  const atTable = !low && Boolean(state.current) && !$("table").hidden;
  const side = atTable ? document.querySelector("#table .table-layout > .side") : null;
  const panel = side?.getBoundingClientRect();
  const aside = Boolean(panel && panel.width > 0 && panel.left > window.innerWidth / 2);
  const foot = atTable && !aside;
  list.classList.toggle("aside", aside);
  list.classList.toggle("foot", foot);
  list.style.left = aside ? `${Math.round(panel.left)}px` : "";
  list.style.width = aside ? `${Math.round(panel.width)}px` : "";
  const underTopBar = () => {
    list.style.bottom = "";
    if (!aside) list.style.left = list.style.transform = "";
    const bottom = document.querySelector(".topbar")?.getBoundingClientRect().bottom ?? 0;
    list.style.top = low ? "auto" : `${Math.max(8, Math.round(bottom) + 6)}px`;
  };
  // up top at a table without the side panel: under the table's head while it is on
  // screen (the way out, the phase's clock, the jackpot), else under the dealer's row's
  // clock (a phone scrolled down): a leave's warning there hid the clock it raced
  const underClock = () => {
    underTopBar();
    let top = parseFloat(list.style.top);
    for (const el of document.querySelectorAll("#table .table-head, #table .dealer-clock")) {
      const r = el.getClientRects().length ? el.getBoundingClientRect() : null;
      if (r && r.height && r.bottom > 0 && r.top < window.innerHeight) top = Math.max(top, Math.round(r.bottom) + 6);
    }
    list.style.top = `${top}px`;
  };
  if (aside && !low) {
    // at the panel's top, in its flow: the panel starts under them and scrolls what it
    // holds (over its foot they covered the paytables read while deciding)
    const area = panel.top - (parseFloat(getComputedStyle(side).marginTop) || 0);
    list.style.bottom = "auto";
    list.style.top = `${Math.round(area)}px`;
    foldOlder(list, panel.bottom - area);
    makeRoom(list.children.length ? Math.ceil(list.getBoundingClientRect().height) + 8 : 0);
    return;
  }
  makeRoom(0);
  if (!foot) {
    underTopBar();
    return;
  }
  trimToasts(2); // a narrow screen has room for two at most: the newest
  const atFoot = (where = "middle", overRack = false) => {
    const rack = document.querySelector("#table .controls")?.getBoundingClientRect();
    // the rack's top on screen (it may be scrolled past, above the top): sit on it
    const onScreen = !overRack && rack && rack.height > 0 && rack.top > 0 && rack.top < window.innerHeight;
    list.style.top = "auto";
    list.style.bottom = `${Math.round(onScreen ? window.innerHeight - rack.top : 0) + 8}px`;
    if (where === "middle") {
      list.style.left = list.style.transform = "";
      return;
    }
    const felt = document.querySelector("#table .felt")?.getBoundingClientRect();
    const width = list.getBoundingClientRect().width;
    const x = where === "left" ? (felt?.left ?? 0) + 16 : (felt?.right ?? window.innerWidth) - width - 16;
    list.style.left = `${Math.max(8, Math.round(x))}px`;
    list.style.transform = "none";
  };
  // a notice that asks for a decision (a leave's warning) on a phone: at the foot, the
  // page leaving it room there so each hand scrolls whole above it; up top it hid the
  // dealer's cards and the first hand's head, the very hands it asked about
  if (document.querySelector("#table .felt.flow") && list.querySelector(".toast .toast-action")) {
    atFoot();
    footRoom = Math.ceil(list.getBoundingClientRect().height) + 8;
    return;
  }
  // a decision's buttons stay in reach, and a showdown's results in sight: over either at
  // the foot's middle, the toasts go to a side of the foot; over buttons on every side,
  // up top, over the dealer and the clock (unless they would cover more buttons there)
  const spots = ["middle", "right", "left"];
  for (const where of spots) {
    atFoot(where);
    if (coveredDecisions(list) === 0 && coveredResults(list) === 0) return;
  }
  if (coveredResults(list) > 0) {
    // results all along the foot (a full table at 1024 px): over the rack instead, the
    // chips for the next round (no decision is due while results show)
    for (const where of spots) {
      atFoot(where, true);
      if (coveredDecisions(list) === 0 && coveredResults(list) === 0) return;
    }
  }
  // the player's own seats along the foot (the arc's bottom, at 1024 px): the felt's
  // middle, inside the arc of seats, where nothing is tapped
  const arc = document.querySelector("#table .felt.arc")?.getBoundingClientRect();
  if (arc && arc.height > 0) {
    const box = list.getBoundingClientRect();
    const top = Math.round(arc.top + arc.height * 0.5 - box.height / 2);
    if (top > 0 && top + box.height < window.innerHeight) {
      list.style.bottom = "auto";
      list.style.top = `${top}px`;
      list.style.left = `${Math.round(arc.left + arc.width / 2 - box.width / 2)}px`;
      list.style.transform = "none";
      if (coveredDecisions(list) === 0 && coveredResults(list) === 0) return;
    }
  }
  for (const where of spots) {
    atFoot(where);
    if (coveredDecisions(list) === 0) return;
  }
  atFoot();
  const covered = coveredDecisions(list);
  underClock();
  if (coveredDecisions(list) > covered) atFoot();
}

/** Notices that tell of money (a round voided and refunded, one played out of sight, a
 * table's seats and round after a move, a leave's settlement): never folded unread. */
const MONEY_CODES = new Set(["round-voided", "unseen-round", "table-moved", "left-settled"]);

/** The room the side panel leaves at its top for the notices (`--side-notices`, rack.css):
 * it moves down under them and scrolls, saying "more below" when it holds more. */
function makeRoom(px) {
  const root = document.documentElement.style;
  if (root.getPropertyValue("--side-notices") === `${px}px`) return;
  root.setProperty("--side-notices", `${px}px`);
  hooks.sidePanelResized();
}

/** In the side panel's column the older notices fold to a line (a tap opens them) while
 * they take more than half of it, the oldest first: the panel's paytables keep room
 * under them. Never news of money (it folds once read, as every sticky one does), the
 * newest, nor one the player opened. */
function foldOlder(list, column) {
  const older = [...list.querySelectorAll('.toast[data-sticky="true"]:not(.collapsed):not([data-opened="true"])')]
    .filter((el) => el !== list.lastElementChild && !MONEY_CODES.has(el.dataset.code));
  for (const el of older) {
    if (list.getBoundingClientRect().height <= column / 2) return;
    el.classList.add("collapsed");
    el.querySelector(".more")?.setAttribute("aria-expanded", "false");
  }
}

/** In the lobby the notices and the jackpot's banners go in the heading's room for them
 * (`.lobby-notices`: over the heading's words they hid the welcome, and on a tablet the
 * jackpot), out of the page's flow: in it they
 * pushed the tables down as they came and pulled them back up as they went, and a Play
 * aimed at went to the next table's place. The banners first, the toasts under them, as
 * many as fit above the tables as the page lies unscrolled: the oldest give way, a
 * banner before news of money (a sticky toast), the newest toast never. Scrolled down,
 * they stay under the top bar, over what is there. */
function placeInLobby(low) {
  const errors = $("errors");
  const banners = $("banners");
  trimToasts(LOBBY_MAX);
  while (banners.children.length > LOBBY_MAX) banners.firstElementChild.remove(); // the newest stay
  const head = document.querySelector("#lobby .lobby-notices");
  const tables = document.querySelector('#lobby [data-testid="table-list"]');
  const box = head?.getClientRects().length ? head.getBoundingClientRect() : null;
  const bar = document.querySelector(".topbar")?.getBoundingClientRect().bottom ?? 0;
  const frame = parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--frame")) || 1;
  const columns = low ? [banners] : [banners, errors];
  for (const el of columns) {
    el.style.left = `${Math.round(box?.left ?? 8)}px`;
    el.style.width = `${Math.round(Math.min(620 * frame, box?.width ?? window.innerWidth - 16))}px`;
    el.style.bottom = "";
  }
  if (low) { // at the foot, beside the History panel (notices.css .errors.low)
    errors.style.left = errors.style.width = errors.style.transform = "";
    errors.style.top = "auto";
  }
  const top = Math.max(8, Math.round(bar) + 6, Math.round(box?.top ?? 0));
  const stack = () => { // where the last of them ends
    banners.style.top = `${top}px`;
    const under = banners.children.length ? Math.round(banners.getBoundingClientRect().bottom) + 8 : top;
    if (!low) errors.style.top = `${under}px`;
    const last = !low && errors.children.length ? errors : banners;
    return last.children.length ? last.getBoundingClientRect().bottom : top;
  };
  // the room above the tables, the page unscrolled (scrolling keeps or drops none)
  const unscrolled = (y) => y + window.scrollY;
  // down to the tables, or to the jackpot where it is under the notices' room (a tablet
  // held upright puts it beside them, a phone above them)
  const meter = document.querySelector("#lobby .jackpot-hero")?.getBoundingClientRect();
  const below = [tables?.getClientRects().length ? tables.getBoundingClientRect().top : Infinity,
    meter && box && meter.height && meter.top >= box.bottom - 1 ? meter.top : Infinity];
  const room = Math.min(...below) === Infinity ? Infinity
    : unscrolled(Math.min(...below)) - 8 - Math.max(8, unscrolled(bar) + 6, unscrolled(box?.top ?? 0));
  const toasts = low ? [] : [...errors.children];
  for (let end = stack(); end - top > room; end = stack()) {
    const older = toasts.slice(0, -1);
    const gone = older.find((el) => el.dataset.sticky !== "true") ?? banners.firstElementChild
      ?? older[0] ?? null;
    if (!gone) break;
    gone.remove();
    toasts.splice(toasts.indexOf(gone), 1);
  }
}

/** How many Fold and Raise buttons, enabled and on screen, the toasts cover now; and, on
 * the felt's arc, the buttons of the player's own seats (Clear, Stand: at 1024 px a
 * refusal of a bet covered the very seat it was about). */
function coveredDecisions(list) {
  const buttons = '#table button[data-action="fold"], #table button[data-action="raise"], '
    + '#table .seat.arc[data-action="select-seat"] button';
  return covered(list, [...document.querySelectorAll(buttons)].filter((b) => !b.disabled));
}

/** How many seats' results (at the showdown) the toasts cover now. */
function coveredResults(list) {
  return covered(list, document.querySelectorAll('#table [data-testid$="-result"]:not(.none)'));
}

function covered(list, elements) {
  const box = list.getBoundingClientRect();
  let n = 0;
  for (const el of elements) {
    const r = el.getBoundingClientRect();
    if (r.height && r.left < box.right && box.left < r.right && r.top < box.bottom && box.top < r.bottom) n += 1;
  }
  return n;
}

/** The jackpot's news. At a table it goes with the toasts, and where they go: it comes
 * as the winning table turns its cards and to other tables mid-decision, and under the
 * top bar it covered the phase's clock, or on a phone the dealer's row stuck there. */
const bannersShown = new Set(); // round:seat of each prize announced: a repeat says nothing new

export function showBanner(frame) {
  const key = `${frame.round_id}:${frame.seat}`;
  if (bannersShown.has(key)) return;
  bannersShown.add(key);
  const atTable = Boolean(state.current) && !$("table").hidden;
  const host = atTable ? $("errors") : $("banners");
  const label = categoryLabel(frame.category);
  const banner = h("div", { class: "banner", role: "status", "data-testid": "jackpot-banner" },
    // a space between the two: without one "JACKPOT!" and the name were one word to the
    // line breaker, and the name was broken inside ("Bartholom / ew Bigscreen")
    h("span", { class: "burst" }, "JACKPOT!"), " ",
    h("span", {}, `${frame.name} won ${dollars(frame.amount)} with a ${label} at ${lobbyRow(frame.table)?.title ?? frame.table}.`),
    h("button", { class: "close", "data-action": "dismiss", "aria-label": "Dismiss" }, "×"));
  host.append(banner);
  placeToasts(); // at a table with the toasts; in the lobby over its heading (placeInLobby)
  setTimeout(() => banner.remove(), BANNER_TTL_MS);
}
