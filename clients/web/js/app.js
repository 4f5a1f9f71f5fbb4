// The browser client: state, wiring and actions.
//
// State comes from the server only: `welcome`, `lobby`, `table` snapshots,
// `balance`, `jackpot`. Each table snapshot is the whole public state of a
// table and is drawn as is. The tab keeps a few things of its own in
// sessionStorage (per tab, kept across reloads): the session token and name,
// the table on screen, the chip selected, and the antes being built with chips
// before they are placed. A built ante is kept after the round, so the next
// Deal bets the same again unless the player changes it. For the provably fair
// deal it also keeps the client seed of each table (sent again after every
// join, so after a reconnect too) and, per round, the commitment seen before
// the deal and the seed in force then, which a Verify compares with the proof.

import { accountToken, accountWelcomed, forgetAccount, setupAccount } from "./account.js";
import { Connection } from "./connection.js";
import { h, morph } from "./dom.js";
import * as fairness from "./fairness.js";
import { CLIENT_SEED_PATTERN, verifyRound } from "./fairness.js";
import { categoryLabel, dollars, errorText } from "./format.js";
import { renderHistory } from "./history.js";
import { renderLobby, tablePageUrl } from "./lobby.js";
import { countdownText, remainingMs, renderTable } from "./table.js";

const PROTOCOL_VERSION = 1;
const KEYS = {
  token: "stud.token", name: "stud.name", table: "stud.table", builds: "stud.builds", chip: "stud.chip",
  seeds: "stud.seeds", rounds: "stud.rounds",
};
const ROUNDS_KEPT = 200; // rounds whose commitment the tab remembers (History shows 50)
const HISTORY_LIMIT = 50;
const ERROR_TTL_MS = 15000;
const BANNER_TTL_MS = 12000;

const $ = (id) => document.getElementById(id);

// ----- arriving from another server of the fleet ------------------------------

/**
 * A lobby's "Open" on a table of another server process comes here as
 * `/?table=ID#token=TOKEN`: the token (sessionStorage is per origin, and a
 * fragment never reaches the server) resumes the same player, whose wallet
 * the servers share; the table is joined right after `welcome`. Both are taken
 * once and removed from the address bar.
 */
function takeArrival() {
  const url = new URL(location.href);
  const fragment = new URLSearchParams(url.hash.slice(1));
  const token = fragment.get("token");
  const table = url.searchParams.get("table");
  if (token) sessionStorage.setItem(KEYS.token, token);
  if (table) sessionStorage.setItem(KEYS.table, table);
  if (token || table) {
    url.hash = "";
    url.searchParams.delete("table");
    history.replaceState(history.state, "", url.pathname + url.search);
  }
}
takeArrival();

/** Go to another server's page (a lobby row's or an error's `url`), taking the player along. */
function goRemote(href) {
  const token = sessionStorage.getItem(KEYS.token);
  location.assign(token ? `${href}#token=${encodeURIComponent(token)}` : href);
}

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
  // provably fair deals (PROTOCOL.md section 13)
  seeds: loadJSON(KEYS.seeds, {}), // table id -> the client seed this tab set there ("" = none)
  seedSync: {}, // table id -> {acked: seed the server confirmed on this connection, pending: requests in flight}
  rounds: loadJSON(KEYS.rounds, {}), // round id -> {commitment, before_deal, changed?, seeds?} seen before showdown
  lastDeal: {}, // table id -> the showdown snapshot of its last round
  verdicts: {}, // "table:<round id>" | "history:<round id>" -> result of verifyRound
  history: { open: false, rounds: null, loading: false, error: null },
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

function saveRounds() {
  const ids = Object.keys(state.rounds);
  for (const id of ids.slice(0, Math.max(0, ids.length - ROUNDS_KEPT))) delete state.rounds[id];
  sessionStorage.setItem(KEYS.rounds, JSON.stringify(state.rounds));
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
    // Off the air, what the server holds for our seeds is unknown (it may have
    // restarted) until they are sent again after the next join.
    if (status.state !== "open") state.seedSync = {};
    render();
  },
});

/** Say hello: resume with the tab's token, else as the name the player gave. */
async function hello() {
  const token = accountToken() ?? sessionStorage.getItem(KEYS.token);
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
      forgetAccount(); // an account's token revoked elsewhere (sign out, password change)
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
  accountWelcomed(w);
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
    conn.request("join", { table }).then(() => sendSeed(table), (err) => {
      if (table === state.current) setCurrent(null);
      showError(Object.assign(err, { table }));
    });
  }
  if (state.history.open) loadHistory();
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
      rememberRound(frame);
      if (frame.phase === "showdown") {
        state.lastDeal[frame.table] = frame;
        const fresh = !(old?.phase === "showdown" && old.round_id === frame.round_id);
        if (fresh && state.history.open && mySeats(frame).some((i) => frame.seats[i].result)) loadHistory();
      }
      break;
    }
    case "history":
      state.history.rounds = Array.isArray(frame.rounds) ? frame.rounds : [];
      break;
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

/**
 * Remember, per round, the commitment published before the deal (a Verify
 * compares the revealed seed with it, not only with the proof's own copy) and
 * the client seed this tab had in force for its seats when the cards came.
 */
function rememberRound(snap) {
  const f = snap.fairness;
  const rid = snap.round_id;
  if (!rid || typeof f?.commitment !== "string") return;
  const revealed = typeof f.server_seed === "string";
  let r = state.rounds[rid];
  let changed = false;
  if (!r) {
    if (revealed) return; // first seen at showdown: nothing was promised to this tab
    r = { commitment: f.commitment, before_deal: snap.phase === "betting" };
    state.rounds[rid] = r;
    changed = true;
  } else if (!revealed && f.commitment !== r.commitment && !r.changed) {
    r.changed = f.commitment;
    changed = true;
  }
  if (r.seeds === undefined && snap.dealer?.cards) {
    // The first snapshot with the cards out. A seed the server confirmed before
    // it was set before the deal (the server answers in order and publishes a
    // deal before it handles the next request); with a change still in flight
    // the seed in force is unknown, and is not checked.
    const sync = state.seedSync[snap.table];
    const mine = mySeats(snap).filter((i) => snap.seats[i].cards);
    r.seeds = mine.length && sync && sync.pending === 0 && sync.acked !== undefined
      ? Object.fromEntries(mine.map((i) => [i, sync.acked]))
      : null;
    changed = true;
  }
  if (changed) saveRounds();
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
    try {
      await conn.request("join", { table: tableId });
    } catch (err) {
      throw Object.assign(err, { table: tableId }); // an unknown_table error may say where it is
    }
    sendSeed(tableId);
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

// ----- the provably fair deal and the history ------------------------------------

/** Tell the server this tab's client seed for a table (after every join, and when it is set). */
async function sendSeed(table) {
  const seed = state.seeds[table];
  if (seed === undefined) return;
  const sync = (state.seedSync[table] ??= { acked: undefined, pending: 0 });
  sync.pending += 1;
  render();
  try {
    await conn.request("seed", { table, client_seed: seed });
    sync.acked = seed;
  } catch (err) {
    sync.acked = undefined; // not known any more what the server holds
    showError(err);
  } finally {
    sync.pending -= 1;
    render();
  }
}

function setSeed(form) {
  const table = form.dataset.table;
  const input = form.querySelector("input");
  const seed = input.value.trim();
  if (!CLIENT_SEED_PATTERN.test(seed)) {
    showError("A client seed is up to 64 letters, digits, _ . or - (no spaces).");
    return;
  }
  input.value = seed;
  state.seeds[table] = seed;
  sessionStorage.setItem(KEYS.seeds, JSON.stringify(state.seeds));
  sendSeed(table);
}

/** The seed's state in words, under the input. */
function seedStatus(table, snap) {
  const seed = state.seeds[table];
  const sync = state.seedSync[table];
  if (sync?.pending) return "Sending your seed…";
  if (seed === undefined || seed === "") {
    return "Optional: a seed of yours is mixed into the shuffle, so the server cannot choose the deck alone.";
  }
  if (sync?.acked !== seed) return `Your seed “${seed}” is sent again when the table reconnects.`;
  const when = snap?.phase === "betting" ? "this round's deal and every one after" : "every deal from the next one on";
  return `Your seed “${seed}” goes into ${when}.`;
}

/** A showdown snapshot's hands as verifyRound takes them: every seat holding cards. */
function handsOfSnapshot(snap) {
  return snap.seats
    .map((s, i) => (s && Array.isArray(s.cards) ? { seat: i, name: s.name, cards: s.cards } : null))
    .filter(Boolean);
}

/** Check a round: its proof, the commitment this tab saw before the deal, its seeds and cards. */
function verify({ roundId, proof, seats, dealer }) {
  const memory = state.rounds[roundId];
  try {
    return verifyRound({
      roundId, proof, seats, dealer,
      promised: memory?.commitment ?? null,
      promisedBeforeDeal: memory?.before_deal ?? true,
      changedTo: memory?.changed ?? null,
      mySeeds: memory?.seeds ?? {},
    });
  } catch (err) {
    return { ok: false, problems: [`The check could not run: ${err.message ?? err}`], notes: [], deck: null };
  }
}

/** Verify the last deal shown at a table (the button at showdown). */
function verifyDeal(table) {
  const snap = state.lastDeal[table];
  if (!snap) return null;
  const verdict = verify({ roundId: snap.round_id, proof: snap.fairness, seats: handsOfSnapshot(snap), dealer: snap.dealer?.cards });
  state.verdicts[`table:${snap.round_id}`] = verdict;
  render();
  return verdict;
}

/** Verify a round of the history with its record's proof and cards. */
function verifyHistory(roundId) {
  const record = state.history.rounds?.find((r) => r.round_id === roundId);
  if (!record) return null;
  const verdict = verify({ roundId: record.round_id, proof: record.fairness, seats: record.seats ?? [], dealer: record.dealer });
  state.verdicts[`history:${roundId}`] = verdict;
  render();
  return verdict;
}

async function loadHistory() {
  if (!conn.open) return;
  state.history.loading = true;
  render();
  try {
    await conn.request("history", { limit: HISTORY_LIMIT }); // the `history` frame comes before the `ok`
    state.history.error = null;
  } catch (err) {
    state.history.error = errorText(err);
  } finally {
    state.history.loading = false;
    render();
  }
}

function toggleHistory(open = !state.history.open) {
  state.history.open = open;
  if (open) loadHistory();
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
    case "open-remote": goRemote(el.dataset.href); break;
    case "dismiss": el.closest(".toast, .banner")?.remove(); break;
    case "reconnect": conn.start(); break;
    case "verify-deal": verifyDeal(el.dataset.table); break;
    case "verify-history": verifyHistory(el.dataset.round); break;
    case "history": toggleHistory(); break;
    case "history-close": toggleHistory(false); break;
    case "history-refresh": loadHistory(); break;
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
  if (event.key === "Escape" && state.history.open) {
    toggleHistory(false);
    return;
  }
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
  // A table hosted by another server of the fleet: offer to go there.
  const remote = err?.frame?.code === "unknown_table" ? tablePageUrl(err.frame.url, err.table) : null;
  const text = remote ? "This table is on another server:" : typeof err === "string" ? err : errorText(err);
  const list = $("errors");
  const last = list.lastElementChild;
  if (last && last.querySelector(".msg")?.textContent === text) last.remove(); // no duplicates
  const toast = h("div", { class: "toast", role: "alert", "data-testid": "error", "data-code": err?.frame?.code ?? err?.code ?? "client" },
    h("span", { class: "msg", "data-testid": "error-message" }, text),
    remote && h("button", { class: "btn small", "data-action": "open-remote", "data-href": remote,
      "data-testid": "error-open" }, "Open"),
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
  morph($("history"), renderHistory({
    history: { ...state.history, open: state.history.open && Boolean(state.me) },
    me: state.me, lobby: state.lobby, verdicts: state.verdicts,
  }));
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
        fair: {
          seed: state.seeds[snap.table] ?? "",
          seedStatus: seedStatus(snap.table, snap),
          lastDeal: state.lastDeal[snap.table],
          verdict: state.lastDeal[snap.table] ? state.verdicts[`table:${state.lastDeal[snap.table].round_id}`] : undefined,
        },
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

document.addEventListener("submit", (event) => {
  const form = event.target.closest?.('[data-form="seed"]');
  if (!form) return;
  event.preventDefault();
  setSeed(form);
});
document.addEventListener("click", onClick);
document.addEventListener("contextmenu", onContextMenu);
document.addEventListener("keydown", onKeyDown);
window.addEventListener("online", () => conn.retryNow());
setInterval(tick, 200);

// A handle for debugging from the console (and for the browser tests).
window.stud = { state, conn, fairness, verifyDeal, verifyHistory, loadHistory };

setupAccount({ conn, welcome, showError });
render();
conn.start();
