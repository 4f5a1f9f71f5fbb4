// The browser client: state, wiring and actions.
//
// State comes from the server only: `welcome`, `lobby`, `table` snapshots,
// `balance`, `jackpot`. Each table snapshot is the whole public state of a
// table and is drawn as is. The tab keeps a few things of its own in
// sessionStorage (per tab, kept across reloads): the session token and name,
// the table on screen, the chip selected, and the antes being built with chips
// before they are placed. A built ante is kept after the round, so the next
// Deal bets the same again unless the player changes it.

import { Connection } from "./connection.js";
import { h, morph } from "./dom.js";
import { categoryLabel, dollars, errorText } from "./format.js";
import { renderLobby } from "./lobby.js";
import { countdownText, remainingMs, renderTable } from "./table.js";

const PROTOCOL_VERSION = 1;
const KEYS = { token: "stud.token", name: "stud.name", table: "stud.table", builds: "stud.builds", chip: "stud.chip" };
const ERROR_TTL_MS = 15000;
const BANNER_TTL_MS = 12000;

const $ = (id) => document.getElementById(id);

// ----- state ------------------------------------------------------------------

const state = {
  me: null, // {player_id, name} once welcomed
  limits: null, // welcome.limits
  balance: null, // {balance, bonus, available, held}
  jackpots: {}, // jackpot name -> cents
  lobby: null, // the last `lobby` frame
  tables: {}, // table id -> latest snapshot
  receivedAt: {}, // table id -> performance.now() when its snapshot arrived
  current: sessionStorage.getItem(KEYS.table), // table on screen, or null for the lobby
  builds: loadJSON(KEYS.builds, {}), // "table:seat" -> {amount, progressive}, not placed yet
  chip: Number(sessionStorage.getItem(KEYS.chip)) || 500, // selected chip, cents
  busy: false, // a table action is in flight
  needName: false, // show the name form
  status: { state: "idle" },
};

function loadJSON(key, fallback) {
  try {
    return JSON.parse(sessionStorage.getItem(key)) ?? fallback;
  } catch {
    return fallback;
  }
}

function saveBuilds() {
  sessionStorage.setItem(KEYS.builds, JSON.stringify(state.builds));
}

function buildOf(table, seat) {
  return state.builds[`${table}:${seat}`] ?? { amount: 0, progressive: false };
}

function setBuild(table, seat, build) {
  state.builds[`${table}:${seat}`] = build;
  saveBuilds();
}

function setCurrent(tableId) {
  state.current = tableId;
  if (tableId) sessionStorage.setItem(KEYS.table, tableId);
  else sessionStorage.removeItem(KEYS.table);
}

function lobbyRow(tableId) {
  return state.lobby?.tables.find((r) => r.id === tableId);
}

function mySeats(snap) {
  return snap.seats
    .map((s, i) => (s && s.player_id === state.me?.player_id ? i : -1))
    .filter((i) => i >= 0);
}

// ----- the connection ---------------------------------------------------------

const wsUrl = new URL("ws", location.href);
wsUrl.protocol = location.protocol === "https:" ? "wss:" : "ws:";

const conn = new Connection(wsUrl.href, {
  onOpen: () => hello(),
  onFrame: (frame) => absorb(frame),
  onStatus: (status) => {
    state.status = status;
    render();
  },
});

/** Say hello: resume with the tab's token, else as the name the player gave. */
async function hello() {
  const token = sessionStorage.getItem(KEYS.token);
  const name = sessionStorage.getItem(KEYS.name);
  if (!token && !name) {
    state.needName = true;
    render();
    return;
  }
  try {
    welcome(await conn.request("hello", token ? { v: PROTOCOL_VERSION, token } : { v: PROTOCOL_VERSION, name }));
  } catch (err) {
    if (err.code === "invalid_token") {
      // The server forgot us (e.g. it restarted): start over under the same name.
      sessionStorage.removeItem(KEYS.token);
      showError("Your previous session has ended on the server; you are starting again as a new player.");
      if (conn.open) hello();
      return;
    }
    showError(err);
  }
}

function welcome(w) {
  state.me = { player_id: w.player_id, name: w.name };
  state.limits = w.limits ?? {};
  state.balance = w.balance ?? null;
  state.jackpots = { ...(w.jackpots ?? {}) };
  state.needName = false;
  sessionStorage.setItem(KEYS.token, w.token);
  sessionStorage.setItem(KEYS.name, w.name);
  conn.request("lobby", { watch: true }).catch(showError);
  // Rejoin every table where we sit (the server also does it on a resume,
  // but not when it has not yet seen the old connection go) and the one on screen.
  const seats = w.seats ?? {};
  if (!state.current && Object.keys(seats).length) setCurrent(Object.keys(seats)[0]);
  const tables = new Set(Object.keys(seats));
  if (state.current) tables.add(state.current);
  // Keep showing what we had until the fresh snapshots come, but let them win
  // whatever their `seq` (a restarted server counts from zero again).
  for (const [id, snap] of Object.entries(state.tables)) {
    if (tables.has(id)) snap.seq = -1;
    else delete state.tables[id];
  }
  for (const table of tables) {
    conn.request("join", { table }).catch((err) => {
      if (table === state.current) setCurrent(null);
      showError(err);
    });
  }
  render();
}

/** Take in a frame the server pushed (or a reply that carries data). */
function absorb(frame) {
  switch (frame.t) {
    case "table": {
      const old = state.tables[frame.table];
      if (old && old.seq > frame.seq) return; // an older snapshot: keep the newer
      state.tables[frame.table] = frame;
      state.receivedAt[frame.table] = performance.now();
      if (frame.jackpot) state.jackpots[frame.jackpot.name] = frame.jackpot.amount;
      forgetStaleBuilds(frame);
      break;
    }
    case "lobby":
      state.lobby = frame;
      Object.assign(state.jackpots, frame.jackpots ?? {});
      break;
    case "balance":
      state.balance = { balance: frame.balance, bonus: frame.bonus, available: frame.available, held: frame.held };
      break;
    case "jackpot":
      state.jackpots[frame.name] = frame.amount;
      break;
    case "jackpot_won":
      showBanner(frame);
      break;
    case "error":
      showError({ frame });
      break;
    default:
      return; // welcome/pong are handled by their request
  }
  render();
}

/** Drop built antes of seats that are no longer ours. */
function forgetStaleBuilds(snap) {
  let changed = false;
  for (const key of Object.keys(state.builds)) {
    const [table, seat] = key.split(":");
    if (table !== snap.table) continue;
    const s = snap.seats[Number(seat)];
    if (!s || s.player_id !== state.me?.player_id) {
      delete state.builds[key];
      changed = true;
    }
  }
  if (changed) saveBuilds();
}

// ----- actions ----------------------------------------------------------------

/** Run a table action: one at a time, errors shown in words. */
async function act(fn) {
  if (state.busy) return;
  state.busy = true;
  render();
  try {
    await fn();
  } catch (err) {
    showError(err);
  } finally {
    state.busy = false;
    render();
  }
}

async function openTable(tableId, { sit = false } = {}) {
  await act(async () => {
    await conn.request("join", { table: tableId });
    setCurrent(tableId);
    if (sit) await conn.request("sit", { table: tableId });
  });
}

async function leaveTable() {
  const table = state.current;
  if (!table) return;
  await act(async () => {
    try {
      await conn.request("leave", { table });
    } finally {
      setCurrent(null);
      delete state.tables[table];
    }
  });
}

/** Place every built ante not placed yet (with its progressive), then say Deal. */
async function deal() {
  const snap = state.tables[state.current];
  if (!snap) return;
  const mine = mySeats(snap);
  const toPlace = mine.filter((i) => snap.seats[i].ante === 0 && buildOf(snap.table, i).amount > 0);
  if (!toPlace.length && !mine.some((i) => snap.seats[i].ante > 0)) {
    showError("Build an ante first: pick a chip and click your betting circle.");
    return;
  }
  await act(async () => {
    for (const seat of toPlace) {
      const b = buildOf(snap.table, seat);
      await conn.request("ante", { table: snap.table, seat, amount: b.amount, progressive: b.progressive });
    }
    await conn.request("deal", { table: snap.table });
  });
}

function changeBuild(seat, sign) {
  const snap = state.tables[state.current];
  if (!snap) return;
  const b = buildOf(snap.table, seat);
  const amount = b.amount + sign * state.chip;
  if (amount > snap.max_ante) {
    showError(`The most you can ante at this table is ${dollars(snap.max_ante)}.`);
    return;
  }
  setBuild(snap.table, seat, { ...b, amount: Math.max(0, amount) });
  render();
}

function toggleProgressive(seat) {
  const snap = state.tables[state.current];
  if (!snap) return;
  const b = buildOf(snap.table, seat);
  setBuild(snap.table, seat, { ...b, progressive: !b.progressive });
  render();
}

const tableRequest = (t, seat) => act(() => conn.request(t, { table: state.current, seat }));

/** Clicks anywhere in the page, dispatched by the element's data-action. */
function onClick(event) {
  const el = event.target.closest("[data-action]");
  if (!el || el.disabled) return;
  const seat = el.dataset.seat === undefined ? undefined : Number(el.dataset.seat);
  switch (el.dataset.action) {
    case "play": openTable(el.dataset.table, { sit: true }); break;
    case "watch": openTable(el.dataset.table); break;
    case "open-table": openTable(el.dataset.table); break;
    case "leave": leaveTable(); break;
    case "sit": tableRequest("sit", seat); break;
    case "take-seat": act(() => conn.request("sit", { table: state.current })); break;
    case "stand": tableRequest("stand", seat); break;
    case "withdraw": tableRequest("withdraw", seat); break;
    case "fold": tableRequest("fold", seat); break;
    case "raise": tableRequest("raise", seat); break;
    case "deal": deal(); break;
    case "chip":
      state.chip = Number(el.dataset.cents);
      sessionStorage.setItem(KEYS.chip, String(state.chip));
      render();
      break;
    case "add-chip": changeBuild(seat, +1); break;
    case "toggle-progressive": toggleProgressive(seat); break;
    case "clear": setBuild(state.current, seat, { ...buildOf(state.current, seat), amount: 0 }); render(); break;
    case "dismiss": el.closest(".toast, .banner")?.remove(); break;
    case "reconnect": conn.start(); break;
    default: break;
  }
}

/** Right-click on a betting circle removes the selected chip's value. */
function onContextMenu(event) {
  const el = event.target.closest('[data-action="add-chip"]');
  if (!el) return;
  event.preventDefault();
  changeBuild(Number(el.dataset.seat), -1);
}

function onKeyDown(event) {
  // Keyboard use of the betting circle: Enter/Space adds, Backspace/Delete removes.
  const el = event.target.closest?.('[data-action="add-chip"]');
  if (!el) return;
  if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    changeBuild(Number(el.dataset.seat), +1);
  } else if (event.key === "Backspace" || event.key === "Delete") {
    event.preventDefault();
    changeBuild(Number(el.dataset.seat), -1);
  }
}

// ----- messages to the player ---------------------------------------------------

/** An error in words, in a visible, dismissable toast. */
function showError(err) {
  const text = typeof err === "string" ? err : errorText(err);
  const list = $("errors");
  const last = list.lastElementChild;
  if (last && last.querySelector(".msg")?.textContent === text) last.remove(); // no duplicates
  const toast = h("div", { class: "toast", role: "alert", "data-testid": "error", "data-code": err?.frame?.code ?? err?.code ?? "client" },
    h("span", { class: "msg", "data-testid": "error-message" }, text),
    h("button", { class: "close", "data-action": "dismiss", "data-testid": "error-dismiss", "aria-label": "Dismiss" }, "×"));
  list.append(toast);
  while (list.children.length > 4) list.firstElementChild.remove();
  setTimeout(() => toast.remove(), ERROR_TTL_MS);
}

function showBanner(frame) {
  const host = $("banners");
  const label = categoryLabel(frame.category);
  const banner = h("div", { class: "banner", role: "status", "data-testid": "jackpot-banner" },
    h("span", { class: "burst" }, "JACKPOT!"),
    h("span", {}, `${frame.name} won ${dollars(frame.amount)} with a ${label} at ${lobbyRow(frame.table)?.title ?? frame.table}.`),
    h("button", { class: "close", "data-action": "dismiss", "aria-label": "Dismiss" }, "×"));
  host.append(banner);
  setTimeout(() => banner.remove(), BANNER_TTL_MS);
}

// ----- drawing --------------------------------------------------------------------

let queued = false;

/** Redraw soon (once for every change in this task). */
function render() {
  if (queued) return;
  queued = true;
  queueMicrotask(() => {
    queued = false;
    draw();
  });
}

function draw() {
  $("boot")?.remove();
  drawHeader();
  const snap = state.current ? state.tables[state.current] : null;
  const view = state.needName ? "login" : !state.me ? "connecting" : state.current ? "table" : "lobby";
  document.body.dataset.view = view;
  $("login").hidden = view !== "login";
  $("connecting").hidden = view !== "connecting";
  $("lobby").hidden = view !== "lobby";
  $("table").hidden = view !== "table";
  if (view === "lobby") morph($("lobby"), renderLobby(state));
  if (view === "table") {
    if (snap) {
      const row = lobbyRow(snap.table);
      morph($("table"), renderTable({
        snap,
        row,
        me: state.me,
        build: (seat) => buildOf(snap.table, seat),
        chip: state.chip,
        busy: state.busy,
        maxSeats: row?.max_seats_per_player ?? state.limits?.max_seats_per_player ?? 1,
        receivedAt: state.receivedAt[snap.table],
        now: performance.now(),
        jackpot: snap.jackpot ? state.jackpots[snap.jackpot.name] : undefined,
        online: conn.open,
      }));
    } else {
      morph($("table"), h("section", { id: "table", class: "table-view", "data-testid": "table-view" },
        h("p", { class: "muted" }, "Joining the table…")));
    }
  }
}

function drawHeader() {
  const b = state.balance;
  $("wallet").hidden = !b;
  $("buy").hidden = !state.me;
  if (b) {
    for (const key of ["balance", "available", "held", "bonus"]) {
      const el = $(`w-${key}`);
      el.textContent = dollars(b[key]);
      el.dataset.cents = String(b[key]);
    }
  }
  $("player-name").textContent = state.me ? state.me.name : "";
  const s = state.status;
  const conn = $("conn-status");
  conn.dataset.state = s.state;
  conn.textContent = {
    idle: "Offline",
    connecting: "Connecting…",
    reconnecting: "Reconnecting…",
    open: "Connected",
    waiting: `Connection lost — retrying in ${Math.ceil((s.delay ?? 0) / 1000)}s`,
    closed: "Disconnected",
    replaced: "Playing in another tab",
  }[s.state] ?? s.state;
  $("reconnect").hidden = s.state !== "replaced";
}

/** The countdown runs locally from the snapshot's `ends_in_ms`. */
function tick() {
  const snap = state.current ? state.tables[state.current] : null;
  const el = document.querySelector('[data-testid="countdown"]');
  if (!snap || !el) return;
  const ms = remainingMs(snap, state.receivedAt[snap.table], performance.now());
  el.hidden = ms === null;
  el.textContent = countdownText(ms);
  el.classList.toggle("urgent", ms !== null && ms < 5000);
}

// ----- start ---------------------------------------------------------------------

$("login-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const name = $("name-input").value.trim();
  if (!name) return;
  sessionStorage.setItem(KEYS.name, name);
  state.needName = false;
  render();
  if (conn.open) hello();
});

$("buy").addEventListener("submit", (event) => {
  event.preventDefault();
  const cents = Math.round(Number($("buy-amount").value) * 100);
  if (!Number.isSafeInteger(cents) || cents <= 0) {
    showError("Enter the amount of chips to buy, in dollars.");
    return;
  }
  conn.request("buy_chips", { amount: cents }).catch(showError);
});

document.addEventListener("click", onClick);
document.addEventListener("contextmenu", onContextMenu);
document.addEventListener("keydown", onKeyDown);
window.addEventListener("online", () => conn.retryNow());
setInterval(tick, 200);

// A handle for debugging from the console (and for the browser tests).
window.stud = { state, conn };

render();
conn.start();
