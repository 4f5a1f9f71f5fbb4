// The browser client: state, wiring and actions.
//
// State comes from the server only: `welcome`, `lobby`, `table` snapshots,
// `hand` (the player's own cards of a private deal), `balance`, `jackpot`.
// Each table snapshot is the whole public state of a table and is drawn as is,
// with the player's own cards of a private deal filled in (hands.js). The tab
// keeps a few things of its own in sessionStorage (per tab, kept across
// reloads): the session token and name, the table on screen, the chip
// selected, the bets being built with chips before they are placed, and last
// round's bets. A placed bet is not built again by itself: after a round the
// betting circle starts empty, and Rebet (a) puts last round's ante and
// progressive back on the player's seats, Clear (x) takes the built chips off.
// For the provably fair deal it also keeps the client seed of each table (sent
// again after every join, so after a reconnect too) and, per round, the
// commitment seen before the deal and the seed in force then, which a Verify
// compares with the proof.

import { accountToken, accountUsername, accountWelcomed, forgetAccount, setupAccount } from "./account.js";
import { Connection, OfflineError, ServerError } from "./connection.js";
import { dealLanded, justDealt, nextDealFrameIn, startDeal } from "./deal.js";
import { h, morph } from "./dom.js";
import * as fairness from "./fairness.js";
import { CLIENT_SEED_PATTERN, verifyRound } from "./fairness.js";
import { categoryLabel, dollars, errorText, signedDollars } from "./format.js";
import { absorbHand, forgetStaleHands, withOwnHands } from "./hands.js";
import { renderHistory } from "./history.js";
import { keyCommand, nextWaiting } from "./keys.js";
import { frameScale, seatLayout, uiScale } from "./layout.js";
import { renderLobby, tablePageUrl } from "./lobby.js";
import { atStake, movedNotice, roundFate } from "./moved.js";
import { Purchases, USUAL_BUY, amountAfterRefusal } from "./purchase.js";
import { breakdown } from "./chips.js";
import {
  buildAmount, buildable, clockView, countdownText, rebetSeats, remainingMs, renderTable,
} from "./table.js";

const PROTOCOL_VERSION = 1;
const KEYS = {
  token: "stud.token", name: "stud.name", table: "stud.table", builds: "stud.builds", chip: "stud.chip",
  seeds: "stud.seeds", rounds: "stud.rounds", lastBets: "stud.lastbets",
};
const LONG_PRESS_MS = 500; // holding a betting circle this long takes a chip off (touch screens)
const FLOW_BELOW_PX = 600; // a felt narrower than this flows (phone), whatever the seat count
const reducedMotion = window.matchMedia?.("(prefers-reduced-motion: reduce)");
const ROUNDS_KEPT = 200; // rounds whose commitment the tab remembers (History shows 50)
const HISTORY_LIMIT = 50;
const ERROR_TTL_MS = 10000;
const MAX_WIRE_CENTS = 10 ** 12; // the most any money field may hold (PROTOCOL.md §4)
const NOTICE_TTL_MS = 5000;
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
  builds: loadBuilds(), // "table:seat" -> {chips: [cents...], progressive}, not placed yet
  lastBets: loadJSON(KEYS.lastBets, {}), // table id -> {round_id, seats: {seat: {amount, progressive}}}: last round's bets
  selected: {}, // table id -> the own seat that keys act on
  hands: {}, // table id -> {round_id, seats: {seat: {cards, hand}}}: own cards of a private deal (hands.js)
  dealing: {}, // table id -> the deal being shown card by card (deal.js)
  felt: null, // {width, height} of the felt's inside, measured
  sideOpen: null, // the paytable/rules panel on a phone: null until the player opens or closes it
  paysOpen: {}, // table id -> a lobby card's paytables shown, once the player opened or closed them
  chip: Number(sessionStorage.getItem(KEYS.chip)) || 500, // selected chip, cents
  busy: false, // a table action is in flight
  needName: false, // show the name form
  status: { state: "idle" },
  // provably fair deals (PROTOCOL.md section 13)
  seeds: loadJSON(KEYS.seeds, {}), // table id -> the client seed this tab set there ("" = none)
  seedSync: {}, // table id -> {acked: seed the server confirmed on this connection, pending: requests in flight}
  rounds: loadJSON(KEYS.rounds, {}), // round id -> {commitment, before_deal, changed?, seeds?} seen before showdown
  lastDeal: {}, // table id -> the showdown snapshot of its last round
  lostDecisions: {}, // "<round id>:<seat>" -> "fold" | "raise" sent as the link dropped, never answered
  verdicts: {}, // "table:<round id>" | "history:<round id>" -> result of verifyRound
  history: { open: false, rounds: null, loading: false, error: null },
  linkDown: null, // {at: when the table was last heard before the link went, tables: {id: round id}}
  // a fleet's tables (several server processes on one store; see followTable)
  seenAt: {}, // table id -> the address of the process its last snapshot came from
  away: {}, // table id -> {snap, from, lost}: its last snapshot, while it is looked for elsewhere
  awaiting: null, // the table on screen, not hosted where the page is connected: found where it went
};

function loadJSON(key, fallback) {
  try {
    return JSON.parse(sessionStorage.getItem(key)) ?? fallback;
  } catch {
    return fallback;
  }
}

/** The built bets kept in the tab; older tabs kept `{amount}`: its chips are the largest that make it up. */
function loadBuilds() {
  const kept = loadJSON(KEYS.builds, {});
  const builds = {};
  for (const [key, b] of Object.entries(kept ?? {})) {
    const chips = Array.isArray(b?.chips) ? b.chips.filter(Number.isSafeInteger)
      : breakdown(Number(b?.amount) || 0).map((c) => c.cents);
    builds[key] = { chips, progressive: Boolean(b?.progressive) };
  }
  return builds;
}

function saveBuilds() {
  sessionStorage.setItem(KEYS.builds, JSON.stringify(state.builds));
}

function buildOf(table, seat) {
  return state.builds[`${table}:${seat}`] ?? { chips: [], progressive: false };
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
  if (tableId !== state.current) dismissMomentToasts();
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

/** The seat keys act on: the one the player chose, else their first. */
function selectedSeat(snap) {
  const mine = mySeats(snap);
  const chosen = state.selected[snap.table];
  return mine.includes(chosen) ? chosen : mine[0] ?? null;
}

// ----- the connection ---------------------------------------------------------

const wsUrl = new URL("ws", location.href);
wsUrl.protocol = location.protocol === "https:" ? "wss:" : "ws:";

const conn = new Connection(wsUrl.href, {
  onOpen: () => hello(),
  onFrame: (frame) => absorb(frame),
  onStatus: (status) => {
    const wasOpen = state.status?.state === "open";
    state.status = status;
    // Off the air, what the server holds for our seeds is unknown (it may have
    // restarted) until they are sent again after the next join.
    if (status.state !== "open") {
      state.seedSync = {};
      if (wasOpen) linkWentDown();
    } else dismissToasts("offline"); // what they said is over
    render();
  },
});

const purchases = new Purchases(conn, {
  onWaiting: (amount) => showError(`No answer yet to your purchase of ${dollars(amount)}: `
    + "it is sent again once connected, and bought only once.", { code: "purchase-waiting" }),
  onError: (err) => {
    dismissToasts("purchase-waiting");
    const amount = amountAfterRefusal(err); // over the limit: not left for the next Buy
    if (amount !== null) $("buy-amount").value = amount;
    showError(err, { about: "buy" });
  },
  onBought: (amount) => {
    dismissToasts("purchase-waiting");
    dismissRefusals("buy");
    showError(`Bought ${dollars(amount)} of chips.`, { code: "purchase-done", tone: "ok" });
  },
  onUnknown: (amount) => {
    dismissToasts("purchase-waiting");
    showError(`Your purchase of ${dollars(amount)} could not be confirmed: your balance shows `
      + "whether it was made (it was made once at most).");
  },
  onChange: () => render(),
});

/** Online: the socket is open and its hello was answered (the player is welcomed on it). */
function online() {
  return conn.open && state.welcomedOn === conn.opens;
}

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
      // The server forgot us: start over under the same name. An account's token was
      // revoked (signed out elsewhere, a password change): its chips wait for a sign-in.
      // A guest's token is its only key: a server that forgot it (a restart without
      // keeping its data) forgot that wallet too.
      const account = token !== null && token === accountToken();
      sessionStorage.removeItem(KEYS.token);
      forgetAccount();
      // the news first: folded to one line, the notice still says it
      showError(account
        ? "Signed out: sign in again to play with your account (you were signed out elsewhere, "
          + "the password changed, this device went unused for a long time, or the server "
          + "restarted without keeping its data). Meanwhile you play as a new guest."
        : "New player, new wallet: the server no longer knows your previous session (unused "
          + "for a long time, or the server restarted without keeping its data), so you start again.", { code: "session-ended", sticky: true });
      if (conn.open) hello();
      return;
    }
    if (!token && err instanceof ServerError) {
      // a new player's name refused (too long, too many new players from here): the
      // form again, the name still in it, with the reason; not "Connecting…" for ever
      sessionStorage.removeItem(KEYS.name);
      state.needName = true;
      render();
      showError(err, { about: "name" });
      return;
    }
    showError(err);
  }
}

function welcome(w) {
  dismissRefusals("name");
  state.welcomedOn = conn.opens; // this socket is the player's: online (see `online`)
  state.me = { player_id: w.player_id, name: w.name };
  state.limits = w.limits ?? {};
  state.balance = w.balance ?? null;
  state.jackpots = { ...(w.jackpots ?? {}) };
  state.serverUrl = w.url || null; // lobby rows with this address are this server's tables
  state.here = connectedTo(); // and those at its host:port (reached by another name)
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
      // the table the player was at (not one only asked for, by a link: that is offered)
      const wasAt = state.tables[table] || state.away[table] || state.awaiting === table;
      if (table === state.current && wasAt && MOVED.has(err.code)) {
        notHere(table, err.frame?.url); // its host failed, or lost it: followed where it went
        return;
      }
      if (table === state.current) setCurrent(null);
      showError(Object.assign(err, { table }));
    });
  }
  if (state.history.open) loadHistory();
  purchases.send(w.player_id); // one whose answer was lost goes again: its key buys it once
  render();
}

/** Take in a frame the server pushed (or a reply that carries data). */
function absorb(frame) {
  switch (frame.t) {
    case "table": {
      const old = state.tables[frame.table];
      if (old && old.seq > frame.seq) return; // an older snapshot: keep the newer
      // the table as last seen before it was looked for at another process, if it was
      const away = state.away[frame.table];
      const prev = away?.snap ?? old;
      const from = away ? away.from : state.seenAt[frame.table];
      delete state.away[frame.table];
      state.seenAt[frame.table] = state.serverUrl;
      if (state.awaiting === frame.table) state.awaiting = null;
      state.tables[frame.table] = frame;
      state.receivedAt[frame.table] = performance.now();
      if (frame.jackpot) state.jackpots[frame.jackpot.name] = frame.jackpot.amount;
      if (old && old.phase !== frame.phase && frame.table === state.current) {
        dismissMomentToasts();
        // news of a move or a restart, read: the table has moved on from it
        for (const el of $("errors").querySelectorAll('.toast[data-code="table-moved"][data-seen="true"]')) el.remove();
      }
      // the hands an armed Leave would fold are decided (the clock ran out), or gone; some
      // decided meanwhile: what it says is said again of those still waiting
      const folding = leaveArmed?.table === frame.table ? foldedByLeaving(frame) : null;
      if (folding && !folding.seats.length) disarmLeave();
      else if (folding && folding.seats.join() !== leaveArmed.seats) {
        leaveArmed.seats = folding.seats.join();
        const msg = $("errors").querySelector('.toast[data-code="leave-confirm"] .msg');
        if (msg) msg.textContent = leaveWarning(frame, folding);
      }
      // shown by another process than before: that one lost it (a new host voids what it
      // left open); said once, with what became of the seats and the round
      if (prev && (away?.lost || (from && state.serverUrl && from !== state.serverUrl))) {
        tellMoved(prev, frame, { restarted: Boolean(from) && from === state.serverUrl });
        // the round its old host dealt is not the table's last deal here (the new host
        // dealt none yet); its proof stays in History, with its own Verify
        delete state.lastDeal[frame.table];
      } else noticeUnseenDecisions(prev, frame);
      noticeClockRanOn(frame);
      forgetStaleHands(state.hands, frame);
      forgetStaleBuilds(frame);
      rememberBets(frame);
      rememberRound(frame);
      if (justDealt(old, frame) && !reducedMotion?.matches) showDeal(frame);
      // a deal is shown only while its round is deciding: the showdown ends it at once
      else if (state.dealing[frame.table]?.round_id !== frame.round_id || frame.phase !== "deciding") {
        delete state.dealing[frame.table];
      }
      if (frame.phase === "showdown") {
        state.lastDeal[frame.table] = frame;
        const fresh = !(old?.phase === "showdown" && old.round_id === frame.round_id);
        if (fresh && state.history.open && mySeats(frame).some((i) => frame.seats[i].result)) loadHistory();
      }
      break;
    }
    case "hand":
      absorbHand(state.hands, frame);
      break;
    case "history":
      state.history.rounds = Array.isArray(frame.rounds) ? frame.rounds : [];
      break;
    case "lobby":
      state.lobby = frame;
      Object.assign(state.jackpots, frame.jackpots ?? {});
      // the processes hosting tables, and those standing by: where the link goes on
      // when this one fails
      conn.setFleet([...(frame.tables ?? []).map((row) => row.url), ...(frame.servers ?? [])]);
      reopenAwaited();
      break;
    case "balance":
      state.balance = { balance: frame.balance, bonus: frame.bonus, available: frame.available, held: frame.held };
      if (playedOn) tellPlayedOn();
      break;
    case "jackpot":
      state.jackpots[frame.name] = frame.amount;
      break;
    case "jackpot_won":
      showBanner(frame);
      break;
    case "table_moved":
      tableMoved(frame);
      break;
    case "error":
      showError({ frame });
      break;
    default:
      return; // welcome/pong are handled by their request
  }
  render();
}

/** Refusals that say the table is not hosted by the process asked. */
const MOVED = new Set(["unknown_table", "table_moved"]);
const AWAIT_EVERY_MS = 2000; // a table awaited is looked for again at most this often
let awaitTimer = null;
let awaitTried = -Infinity;

/** The process the page is connected to (or tries), as a URL: its host is "here". */
function connectedTo() {
  try {
    return new URL(conn.url);
  } catch {
    return location;
  }
}

function titleOf(table) {
  return state.tables[table]?.title ?? state.away[table]?.snap?.title ?? lobbyRow(table)?.title ?? table;
}

/**
 * The table is hosted by another server of the casino now (this one lost it): our seats
 * here are gone, and its new host voids a round left open, refunding every bet. The
 * table on screen is followed there; one watched off screen is said so, with the way.
 */
function tableMoved(frame) {
  const table = frame.table;
  if (!state.tables[table] && state.current !== table) return;
  if (state.current === table) {
    notHere(table, frame.url, { lost: true });
    return;
  }
  const title = titleOf(table);
  delete state.tables[table]; // (told here, not again when it is opened there)
  delete state.hands[table];
  delete state.dealing[table];
  const href = tablePageUrl(frame.url, table, connectedTo(), state.serverUrl);
  const text = `${title} moved to another server of the casino: your seats there are gone, and `
    + "its new host voids any round still in play there, refunding every bet. "
    + (href ? "Open it there:" : "It shows in the lobby again within seconds.");
  showError(text, { code: "table_moved", open: href });
}

/** Keep the table's last snapshot aside (what is told once it shows again) and off screen. */
function setAway(table, lost) {
  const snap = state.tables[table];
  if (snap) state.away[table] = { snap, from: state.seenAt[table] ?? null, lost: false };
  // lost for certain when the process that showed it says so (not one it never was at)
  const away = state.away[table];
  if (away && (lost || away.from === state.serverUrl)) away.lost = true;
  delete state.tables[table];
  delete state.hands[table];
  delete state.dealing[table];
}

/**
 * The table on screen is not hosted by the process connected to (`url`: where that
 * process says it is, if it knows): go on there, as the terminal client does. A place it
 * was just left at (a frozen host's row, left behind) is not gone back to: the lobby
 * names its new host within seconds of a takeover, and it is followed then.
 */
function notHere(table, url, { lost = false } = {}) {
  setAway(table, lost);
  disarmLeave();
  state.awaiting = table;
  // (not at once again: two processes may name each other for the moment a takeover takes)
  const soon = performance.now() - awaitTried < AWAIT_EVERY_MS;
  if (url && url !== state.serverUrl && url !== conn.url && !conn.failedLately(url) && !soon) {
    awaitTried = performance.now();
    conn.follow(url); // its welcome joins the table on screen
  } else {
    reopenAwaited();
  }
  render();
}

/** The table awaited, where the lobby lists it now: joined here, or followed to its host. */
function reopenAwaited() {
  clearTimeout(awaitTimer);
  const table = state.awaiting;
  if (!table || state.current !== table) {
    state.awaiting = null;
    return;
  }
  const wait = awaitTried + AWAIT_EVERY_MS - performance.now();
  const row = lobbyRow(table);
  const url = row?.url ?? "";
  const here = !url || url === state.serverUrl || url === conn.url;
  if (!online() || wait > 0 || !row || row.silent || (!here && conn.failedLately(url))) {
    // not connected, just tried, not listed yet, or listed at a host just left or silent: again soon
    awaitTimer = setTimeout(reopenAwaited, Math.max(wait, AWAIT_EVERY_MS));
    return;
  }
  awaitTried = performance.now();
  if (!here) {
    conn.follow(url);
    return;
  }
  conn.request("join", { table }).then(() => sendSeed(table), (err) => {
    if (state.current !== table) return;
    if (MOVED.has(err.code)) {
      notHere(table, err.frame?.url); // not taken over yet: waited for
      return;
    }
    state.awaiting = null;
    setCurrent(null);
    showError(Object.assign(err, { table }));
  });
}

/** The table shows at its new host: say once what became of the player's seats there
 * and of their round in play, from the history (a settled round is in it, a voided one
 * never). A spectator is told nothing: nothing of theirs moved. `restarted`: the host is
 * at the address it was (its server restarted): nothing moved, and it is said so. Once
 * read, the notice goes when the table's phase next moves on (`absorb`). */
async function tellMoved(prev, snap, { restarted = false } = {}) {
  const { seats, roundId } = atStake(prev, state.me?.player_id);
  const gone = mySeats(snap).length ? [] : seats;
  let round = null;
  if (roundId && snap.round_id !== roundId) {
    let records = null;
    try {
      await conn.request("history", { limit: HISTORY_LIMIT }); // its `history` frame comes before the ok
      records = state.history.rounds;
    } catch {
      // not read: neither a void nor a settlement is claimed
    }
    round = roundFate(roundId, records);
  }
  if (!gone.length && !round) return;
  showError(movedNotice({ title: prev.title ?? prev.table, seats: gone, round, restarted }),
    { code: "table-moved", tone: "ok", sticky: true }); // news of money and seats: not to go by unseen
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

/**
 * Drop built bets of seats that are no longer ours, and of seats whose ante is
 * placed: the chips are on the table now, and the next round starts empty.
 */
function forgetStaleBuilds(snap) {
  let changed = false;
  for (const key of Object.keys(state.builds)) {
    const [table, seat] = key.split(":");
    if (table !== snap.table) continue;
    const s = snap.seats[Number(seat)];
    if (!s || s.player_id !== state.me?.player_id || s.ante > 0) {
      delete state.builds[key];
      changed = true;
    }
  }
  if (changed) saveBuilds();
}

/** Once a round's cards are out, its antes on our seats are "last round's bets" (for Rebet). */
function rememberBets(snap) {
  if (!snap.round_id || (snap.phase !== "deciding" && snap.phase !== "showdown")) return;
  if (state.lastBets[snap.table]?.round_id === snap.round_id) return;
  const seats = {};
  for (const i of mySeats(snap)) {
    const s = snap.seats[i];
    if (s.ante > 0) seats[i] = { amount: s.ante, progressive: Boolean(s.progressive) };
  }
  if (!Object.keys(seats).length) return; // we sat this one out: the bets before still count
  state.lastBets[snap.table] = { round_id: snap.round_id, seats };
  sessionStorage.setItem(KEYS.lastBets, JSON.stringify(state.lastBets));
}

/** Show the cards coming out one at a time, redrawing as each one is dealt. */
function showDeal(snap) {
  const deal = startDeal(snap, performance.now());
  state.dealing[snap.table] = deal;
  const next = () => {
    if (state.dealing[snap.table] !== deal) return;
    render();
    const wait = nextDealFrameIn(deal, performance.now()); // to the last card landed
    if (wait === null) {
      delete state.dealing[snap.table];
      render();
    } else {
      setTimeout(next, wait + 1);
    }
  };
  setTimeout(next, deal.step);
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

/** Leaving folds the player's undecided hands: the first Leave says what that costs, in
 * a warning that carries the "Fold & leave" that confirms (a phone has no l key, and the
 * head's button may be scrolled away), and arms the head's button too. Armed until the
 * hands are decided, the warning is dismissed or the player leaves: a few seconds ran
 * out while the player read, or scrolled, with the decision's clock still running. */
let leaveArmed = null; // {table, seats} while the second Leave is awaited

function disarmLeave() {
  if (!leaveArmed) return;
  leaveArmed = null;
  dismissToasts("leave-confirm");
}

/** The round's phase, a suspended table's too (its departures wait, then fold the same). */
function roundPhase(snap) {
  return snap?.suspended?.phase ?? snap?.phase;
}

/** The player's hands a leave would fold now (dealt, undecided), and what they stake. */
function foldedByLeaving(snap) {
  if (roundPhase(snap) !== "deciding") return { seats: [], antes: 0, stakes: 0 };
  const seats = mySeats(snap).filter((i) => snap.seats[i].ante > 0 && !snap.seats[i].decision);
  const antes = seats.reduce((sum, i) => sum + snap.seats[i].ante, 0);
  const stakes = seats.filter((i) => snap.seats[i].progressive).length * (snap.progressive_stake ?? 0);
  return { seats, antes, stakes };
}

function handsOn(seats) {
  return `hand${seats.length > 1 ? "s" : ""} on seat ${seats.map((i) => `#${i + 1}`).join(", ")}`;
}

function foldCost({ antes, stakes }) {
  return `${dollars(antes)} of antes${stakes ? ` and ${dollars(stakes)} of progressive stakes` : ""}`;
}

/** The progressive prizes a leave gives up: the folded hands (our own cards, known here)
 * that hold a prize of the variant's table, where a folded hand collects none. In words
 * ("seat #2's Flush would have paid $50.00 from the progressive"), or "". */
function prizesGivenUp(snap, seats) {
  const variant = lobbyRow(snap.table)?.variant;
  if (!variant || variant.folded_collects_progressive) return "";
  const seen = withOwnHands(snap, state.hands, state.me?.player_id);
  const meter = snap.jackpot ? state.jackpots[snap.jackpot.name] ?? snap.jackpot.amount : undefined;
  const said = [];
  for (const i of seats) {
    const seat = seen.seats[i];
    const row = seat?.progressive && (variant.progressive ?? []).find((r) => r.category === seat.hand?.category);
    if (!row) continue;
    const worth = row.fixed_cents ?? (row.percent_bp !== undefined && meter !== undefined
      ? Math.floor((meter * row.percent_bp) / 10000) : null);
    said.push(`seat #${i + 1}'s ${seat.hand.label} would have paid ${worth !== null ? dollars(worth) : row.text}`);
  }
  return said.length ? ` And ${said.join(", ")} from the progressive: a folded hand collects nothing.` : "";
}

/** What the first Leave says, for the hands it would fold now. */
function leaveWarning(snap, folded) {
  const rest = playingOn(snap);
  return `Leaving now folds your undecided ${handsOn(folded.seats)}: you lose ${foldCost(folded)}.`
    + `${prizesGivenUp(snap, folded.seats)}${rest ? ` ${rest}` : ""}`;
}

/** The player's raised hands a leave leaves in play (they go on to the showdown), in words. */
function playingOn(snap) {
  const raised = roundPhase(snap) === "deciding"
    ? mySeats(snap).filter((i) => snap.seats[i].decision === "raise") : [];
  if (!raised.length) return "";
  return `Your raised ${handsOn(raised)} ${raised.length > 1 ? "play" : "plays"} on to the showdown; `
    + "the result goes to your wallet and History.";
}

/** The player's hands settled at this showdown, and what they came to. */
function settledHands(snap) {
  const seats = roundPhase(snap) === "showdown" ? mySeats(snap).filter((i) => snap.seats[i].result) : [];
  return { seats, net: seats.reduce((sum, i) => sum + snap.seats[i].result.net, 0) };
}

/** What leaving did with the player's money, in words (null: it touched none). */
function leftNotice(snap) {
  if (!snap) return null;
  const title = snap.title ?? snap.table;
  const folded = foldedByLeaving(snap);
  const rest = playingOn(snap);
  if (folded.seats.length) {
    return `You left ${title}: your ${handsOn(folded.seats)} ${folded.seats.length > 1 ? "were" : "was"} `
      + `folded, losing ${foldCost(folded)}.${rest ? ` ${rest}` : ""}`;
  }
  if (roundPhase(snap) === "betting") {
    const back = mySeats(snap).reduce((sum, i) => sum + snap.seats[i].ante
      + (snap.seats[i].progressive ? snap.progressive_stake ?? 0 : 0), 0);
    if (back) return `You left ${title}: your bets (${dollars(back)}) were returned.`;
  }
  const settled = settledHands(snap);
  if (settled.seats.length) {
    return `You left ${title} at the showdown: your ${handsOn(settled.seats)} came to `
      + `${signedDollars(settled.net)}; History shows the round.`;
  }
  return rest ? `You left ${title}. ${rest}` : null;
}

/** A round a raised hand plays on in after its player left the table: {table, title,
 * round_id, until, timer}. Nothing about it reaches a page no longer at the table but,
 * at times, a wallet push: a hand that loses moves nothing at the settlement (its raise
 * was paid when raised). So the page also looks in the history every few seconds. */
let playedOn = null;
const PLAYED_ON_MS = 120000; // looked for this long after the leave at most
const PLAYED_ON_EVERY_MS = 3000;

function watchPlayedOn(table, title, roundId) {
  if (playedOn) clearInterval(playedOn.timer);
  playedOn = { table, title, round_id: roundId, until: performance.now() + PLAYED_ON_MS,
    timer: setInterval(() => tellPlayedOn(), PLAYED_ON_EVERY_MS) };
  tellPlayedOn(); // the leave may have ended the round: its push came before this answer
}

function stopPlayedOn() {
  if (playedOn) clearInterval(playedOn.timer);
  playedOn = null;
}

/** The wallet moved, or it is time to look: if the left table's round has settled, say
 * how it ended. */
async function tellPlayedOn() {
  const wait = playedOn;
  if (!wait) return;
  if (performance.now() > wait.until) {
    stopPlayedOn();
    return;
  }
  if (!online()) return; // looked again once back
  try {
    await conn.request("history", { limit: 10 }); // its `history` frame is in state before the ok
  } catch {
    return; // the next wallet push asks again
  }
  const record = state.history.rounds?.find((r) => r.round_id === wait.round_id);
  if (!record || playedOn !== wait) return; // not settled yet, or another round waited for
  stopPlayedOn();
  // the raised hands that played on: a hand folded by the leave was told at the leave
  const raised = (record.seats ?? []).map((s, i) => [s, i])
    .filter(([s]) => s?.player_id === state.me?.player_id && s.decision === "raise");
  const net = raised.reduce((sum, [s]) => sum + (s.result?.net ?? 0), 0);
  showError(`${wait.title}: the round you left settled: your raised ${handsOn(raised.map(([, i]) => i))} `
    + `came to ${signedDollars(net)}. History shows it.`,
  // news of money, come while the player looks at something else: not to go by unseen
  { code: "left-settled", tone: net >= 0 ? "ok" : null, sticky: true });
}

async function leaveTable() {
  const table = state.current;
  if (!table) return;
  const snap = state.tables[table];
  const folded = foldedByLeaving(snap);
  if (folded.seats.length && leaveArmed?.table !== table) {
    disarmLeave();
    leaveArmed = { table, seats: folded.seats.join() };
    showError(leaveWarning(snap, folded), { code: "leave-confirm", tone: "warn", lasting: true,
      action: { action: "leave", label: "Fold & leave", testid: "leave-confirm-button", key: "l" } });
    render();
    return;
  }
  disarmLeave();
  const told = leftNotice(snap);
  await act(async () => {
    try {
      await conn.request("leave", { table });
      // the lobby as it is now, before it shows: the one in hand is the last throttled
      // push, from before the leave (a full table left read "Table full" for seconds)
      await conn.request("lobby", { watch: true }).catch(() => {});
    } finally {
      setCurrent(null);
      delete state.tables[table];
    }
    const lost = folded.seats.length > 0 || settledHands(snap).net < 0;
    if (told) showError(told, { code: "left", tone: lost ? null : "ok" });
    if (playingOn(snap)) watchPlayedOn(table, snap.title ?? table, snap.round_id);
  });
}

/**
 * Say when the clock decided for us, or when our round ended out of sight (the link
 * was down), or was voided (no showdown, every bet back): otherwise a hand folded while
 * offline would only show as a loss, and a refund as a balance that jumped.
 */
function noticeUnseenDecisions(old, snap) {
  if (!old || old.table !== snap.table || !["betting", "deciding"].includes(old.phase)) return;
  const open = old.phase !== "deciding" ? []
    : mySeats(old).filter((i) => old.seats[i].cards && !old.seats[i].decision);
  if (old.round_id && old.round_id !== snap.round_id) {
    const betting = mySeats(old).some((i) => old.seats[i].ante > 0);
    if (betting) tellUnseenRound(old.round_id, open, Boolean(snap.paused?.shutdown));
    return;
  }
  if (!open.length) return;
  const folded = open.filter((i) => snap.seats[i]?.player_id === old.seats[i].player_id
    && snap.seats[i].decision === "fold" && snap.seats[i].auto && !snap.seats[i].left);
  if (folded.length) {
    showError(`The clock ran out: your hand${folded.length > 1 ? "s" : ""} on seat `
      + `${folded.map((i) => `#${i + 1}`).join(", ")} ${folded.length > 1 ? "were" : "was"} folded.`
      + lostDecisionsNote(snap.round_id, folded),
    { code: "auto-fold", tone: "warn" });
  }
}

/** Note when the link went, and the round of each table where we sat then: the first
 * snapshot of it once back says what the clock did meanwhile (`noticeClockRanOn`). */
function linkWentDown() {
  const tables = {};
  for (const [id, snap] of Object.entries(state.tables)) {
    if (snap.round_id && mySeats(snap).length) tables[id] = snap.round_id;
  }
  // from the last frame heard, not from now: a link that died silently is noticed only
  // after a ping goes unanswered (seconds later), and the clock ran all that while
  const at = conn.heardAt > 0 ? conn.heardAt : performance.now();
  state.linkDown = Object.keys(tables).length ? { at, tables } : null;
}

/** Back in the deciding round the link went down in, our hands still undecided: the
 * clock ran on meanwhile; say how long is left (a fold by the clock, or a round that
 * ended, is told by `noticeUnseenDecisions`). Told once per table the link went down at. */
function noticeClockRanOn(snap) {
  const down = state.linkDown;
  if (!down || !(snap.table in down.tables)) return; // not a table we sat at then
  const roundId = down.tables[snap.table];
  delete down.tables[snap.table];
  if (!Object.keys(down.tables).length) state.linkDown = null;
  if (snap.phase !== "deciding" || snap.round_id !== roundId) return;
  const open = mySeats(snap).filter((i) => snap.seats[i].cards && !snap.seats[i].decision && !snap.seats[i].left);
  if (!open.length) return;
  const seats = `seat ${open.map((i) => `#${i + 1}`).join(", ")}`;
  const away = countdownText(performance.now() - down.at);
  const ms = remainingMs(snap, state.receivedAt[snap.table], performance.now());
  showError(ms === null
    ? `Back online, ${away} after the table was last heard: ${seats} still `
      + `${open.length > 1 ? "wait" : "waits"} for your decision.`
    : `Back online, ${away} after the table was last heard; its clock ran on — ${countdownText(ms)} left `
      + `to decide ${seats}.`, { code: "clock-ran-on", tone: "warn" });
}

/** A round of ours ended without its showdown in sight: say how, from its history
 * record; none (history keeps settled rounds) means it was voided, every bet refunded. */
async function tellUnseenRound(roundId, undecided, shutdown) {
  let record = null;
  let known = false;
  // a server shutting down voids what its grace did not see played out (and closes
  // before any history could be asked): no showdown came, so this one was voided
  if (shutdown) {
    known = true;
  } else {
    try {
      await conn.request("history", { limit: 50 }); // its `history` frame is in state before the ok
      record = state.history.rounds?.find((r) => r.round_id === roundId) ?? null;
      known = true;
    } catch {
      // no record to tell from: the words below still hold
    }
  }
  if (known && record === null) {
    showError(`Your round was voided${shutdown ? " as the server shut down" : ""}: no hand was `
      + "played out, and every bet of it (antes, raises, progressive) was refunded.",
    { code: "round-voided", tone: "ok", sticky: true }); // why money came back: not to go by unseen
    return;
  }
  if (!undecided.length) return; // settled, and its showdown was seen or is in History
  const seats = (record?.seats ?? []).filter((s) => s.player_id === state.me?.player_id);
  const timed = seats.filter((s) => undecided.includes(s.seat) && s.decision === "fold" && s.auto);
  const net = record && typeof record.balance_after === "number" && typeof record.balance_before === "number"
    ? ` (${signedDollars(record.balance_after - record.balance_before)})` : "";
  const why = timed.every((s) => s.left) ? "you were away longer than the table keeps a seat"
    : "the clock ran out";
  showError(timed.length
    ? `While you were away ${why}: your hand${timed.length > 1 ? "s" : ""} on seat `
      + `${timed.map((t) => `#${t.seat + 1}`).join(", ")} ${timed.length > 1 ? "were" : "was"} folded${net}.`
      + lostDecisionsNote(roundId, timed.map((t) => t.seat))
    : `Your round ended while you were away${net}: History shows how it went.`,
  { code: "unseen-round", sticky: true }); // news of money the player was not there to see
}

/** Play no hand this round: a `deal` with no ante tells the table not to wait for us. */
async function sitOut() {
  const snap = state.tables[state.current];
  if (!snap || snap.phase !== "betting") return;
  await act(() => conn.request("deal", { table: snap.table }));
}

/** Place every built ante not placed yet (with its progressive), then say Deal. */
async function deal() {
  const snap = state.tables[state.current];
  if (!snap) return;
  const mine = mySeats(snap);
  if (!mine.length) {
    showError("Take a seat first (s).");
    return;
  }
  const toPlace = mine.filter((i) => snap.seats[i].ante === 0 && buildAmount(buildOf(snap.table, i)) > 0);
  if (!toPlace.length && !mine.some((i) => snap.seats[i].ante > 0)) {
    // Deal never sits a player out by itself: that is the separate, quieter button
    showError((state.lastBets[snap.table]
      ? "Build an ante first: pick a chip and click your betting circle, or Rebet last round's bets."
      : "Build an ante first: pick a chip and click your betting circle.")
      + (snap.phase === "betting" ? " Or “Sit this round out” to let the others play." : ""));
    return;
  }
  await act(async () => {
    for (const seat of toPlace) {
      const b = buildOf(snap.table, seat);
      await conn.request("ante", { table: snap.table, seat, amount: buildAmount(b), progressive: b.progressive });
    }
    await conn.request("deal", { table: snap.table });
  });
}

/** The table on screen and one of our seats whose bet can still be built, or null. */
function editableSeat(seat) {
  const snap = state.tables[state.current];
  if (!snap || seat === null || seat === undefined) return null;
  const s = snap.seats[seat];
  if (!s || !buildable({ snap, me: state.me, busy: state.busy }, s)) return null;
  return snap;
}

/** Put a chip (the selected one, or `cents`) on a seat's betting circle. */
function addChip(seat, cents = state.chip) {
  const snap = state.tables[state.current];
  if (snap && mySeats(snap).includes(seat)) state.selected[snap.table] = seat;
  if (!editableSeat(seat)) {
    if (snap) render();
    return;
  }
  const b = buildOf(snap.table, seat);
  if (buildAmount(b) + cents > snap.max_ante) {
    showError(`The most you can ante at this table is ${dollars(snap.max_ante)}.`);
    return;
  }
  setBuild(snap.table, seat, { ...b, chips: [...b.chips, cents] });
  render();
}

/** Take the last chip put on a seat's circle off again. */
function removeChip(seat) {
  const snap = editableSeat(seat);
  if (!snap) return;
  const b = buildOf(snap.table, seat);
  if (!b.chips.length) return;
  setBuild(snap.table, seat, { ...b, chips: b.chips.slice(0, -1) });
  render();
}

function toggleProgressive(seat) {
  const snap = editableSeat(seat);
  if (!snap) return;
  const b = buildOf(snap.table, seat);
  setBuild(snap.table, seat, { ...b, progressive: !b.progressive });
  render();
}

/** Empty the bets being built: one seat's, or (no seat) every one of ours. */
function clearBuilds(seat = null) {
  const snap = state.tables[state.current];
  if (!snap) return;
  for (const i of seat === null ? mySeats(snap) : [seat]) {
    if (editableSeat(i)) setBuild(snap.table, i, { chips: [], progressive: false });
  }
  render();
}

/** Build last round's bets again (ante and progressive) on every seat of ours that had one. */
function rebet() {
  const snap = state.tables[state.current];
  if (!snap) return;
  const seats = rebetSeats({ snap, me: state.me, busy: state.busy, mine: mySeats(snap),
    rebet: state.lastBets[snap.table]?.seats, build: (i) => buildOf(snap.table, i) });
  for (const [seat, b] of seats) {
    setBuild(snap.table, seat, { chips: breakdown(b.amount).map((c) => c.cents), progressive: b.progressive });
  }
  render();
}

function selectSeat(seat, { focus = false } = {}) {
  const snap = state.tables[state.current];
  if (!snap || !mySeats(snap).includes(seat)) return;
  state.selected[snap.table] = seat;
  render();
  if (focus) {
    queueMicrotask(() => document.querySelector(`[data-testid="seat-${seat}"]`)?.focus({ preventScroll: false }));
  } else revealSeat(seat);
}

/** A phone's hand selected is brought whole into view, clear of the rack stuck to the
 * bottom of the screen (styles.css: the page's scroll padding is the rack's height, and
 * the sticky dealer row's on top): the third hand's − and Progressive were under it. */
function revealSeat(seat) {
  const el = document.querySelector(`#table.layout-flow [data-testid="seat-${seat}"]`);
  if (!el) return;
  fitFelt(); // the rack's height as drawn now
  el.scrollIntoView({ block: "nearest", behavior: "instant" });
}

/**
 * Tab: the next of our seats, selected and focused; while deciding, the next of those
 * still waiting (Tab went through hands decided already, and from the last seat off
 * to the rack, so three hands' keyboard player never got back to a waiting #1). From
 * nothing focused: the one after the selected seat, round to the first. From one of
 * our seats: the next one; from a decided hand, round to the first waiting; from the
 * last (waiting) one none (false), so the focus moves on to the rack as usual: the
 * keyboard is never kept in the seats.
 */
function nextSeat(fromSeat = null) {
  const snap = state.tables[state.current];
  if (!snap) return false;
  const mine = mySeats(snap);
  const waiting = snap.phase === "deciding" ? undecidedSeats(snap) : [];
  const ring = waiting.length ? waiting : mine;
  if (!ring.length) return false;
  const from = fromSeat ?? selectedSeat(snap);
  let next = ring.find((i) => i > from);
  if (next === undefined && (fromSeat === null || !ring.includes(fromSeat))) next = ring[0];
  if (next === undefined) return false;
  selectSeat(next, { focus: true });
  return true;
}

/** Our hands dealt and still waiting for fold or raise. */
function undecidedSeats(snap) {
  return mySeats(snap).filter((i) => snap.seats[i].cards && !snap.seats[i].decision);
}

/** A Fold or Raise clicked: once sent, the selection (what the rack line and the keys
 * act on) moves on from that hand to the next one still waiting, as a key's does. */
function decideByClick(decision, seat) {
  const table = state.current;
  const snap = state.tables[table];
  const later = snap ? nextWaiting(undecidedSeats(snap), seat) : undefined;
  act(async () => {
    await sendDecision(decision, table, seat);
    if (later !== undefined && selectedSeat(state.tables[table]) === seat) state.selected[table] = later;
  });
}

/** f / r: the selected seat, and only it: the one the ring, the ▼ and the rack line
 * show. A selected hand already decided is told, never swapped for another one: the
 * key sends nothing, and the selection moves to a hand still waiting, for the next. */
function decideByKey(decision) {
  const snap = state.tables[state.current];
  if (!snap) return;
  if (snap.phase !== "deciding") {
    showError("No decision is due now.", { tone: "warn" });
    return;
  }
  const undecided = undecidedSeats(snap);
  if (!undecided.length) {
    showError("None of your hands is waiting for a decision.", { tone: "warn" });
    return;
  }
  const seat = selectedSeat(snap);
  if (!undecided.includes(seat)) {
    const mine = snap.seats[seat];
    const done = !mine?.cards ? "no hand this round"
      : mine.decision === "raise" ? "raised already" : "folded already";
    const next = nextWaiting(undecided, seat);
    const also = undecided.filter((i) => i !== next).map((i) => `#${i + 1}`);
    showError(`Seat #${seat + 1} has ${done}; nothing sent. Selected now: #${next + 1}, waiting`
      + `${also.length ? ` (and ${also.join(", ")})` : ""}: press f or r again for it.`, { code: "decided", tone: "warn" });
    const focused = document.activeElement;
    selectSeat(next, { focus: focused === document.body || focused?.classList.contains("seat") });
    return;
  }
  const later = nextWaiting(undecided, seat);
  act(async () => {
    await sendDecision(decision, snap.table, seat);
    if (later === undefined) return;
    // on to the next hand still waiting, and the keyboard's focus ring with it: the ring
    // stayed on the hand just decided while the next key went to the new selection
    const focused = document.activeElement;
    const onSeat = focused === document.body || focused?.classList.contains("seat");
    selectSeat(later, { focus: onSeat });
  });
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
  if (!conn.open) {
    // the welcome after the reconnect loads them (an open panel asks again)
    state.history.error = "Offline: your rounds load once reconnected.";
    render();
    return;
  }
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
  placeToasts();
}

const tableRequest = (t, seat) => act(() => conn.request(t, { table: state.current, seat }));

/** A fold or raise. One whose answer the link lost may have got there or not: the
 * table tells; if its clock then folds that hand, the page says the decision sent
 * never reached the server (`lostDecisionsNote`), not only that the clock ran out. */
async function sendDecision(decision, table, seat) {
  const roundId = state.tables[table]?.round_id;
  try {
    await conn.request(decision, { table, seat });
  } catch (err) {
    if (err instanceof OfflineError && roundId) state.lostDecisions[`${roundId}:${seat}`] = decision;
    throw err;
  }
}

/** " Your raise for seat #1 never reached the server …" for the seats of `roundId` the
 * clock folded after a decision sent for them was lost with the link; forgets them. */
function lostDecisionsNote(roundId, seats) {
  const lost = seats.map((i) => [i, state.lostDecisions[`${roundId}:${i}`]]).filter(([, d]) => d);
  for (const key of Object.keys(state.lostDecisions)) {
    if (!key.startsWith(`${roundId}:`)) delete state.lostDecisions[key]; // older rounds: done
  }
  for (const [i] of lost) delete state.lostDecisions[`${roundId}:${i}`];
  return lost.map(([i, d]) => ` Your ${d} for seat #${i + 1} never reached the server: `
    + "the connection was down when it was sent.").join("");
}

/** Clicks anywhere in the page, dispatched by the element's data-action. */
function onClick(event) {
  const el = event.target.closest("[data-action]");
  if (!el || el.disabled) return;
  if (longPressed && el.dataset.action === "add-chip") {
    longPressed = false; // the click that ends a long press: the chip is already off
    return;
  }
  const seat = el.dataset.seat === undefined ? undefined : Number(el.dataset.seat);
  switch (el.dataset.action) {
    case "play": openTable(el.dataset.table, { sit: true }); break;
    case "watch": openTable(el.dataset.table); break;
    case "open-table": openTable(el.dataset.table); break;
    case "leave": leaveTable(); break;
    case "sit": tableRequest("sit", seat); break;
    case "take-seat": takeSeat(); break;
    case "stand": tableRequest("stand", seat); break;
    case "withdraw": tableRequest("withdraw", seat); break;
    case "fold": decideByClick("fold", seat); break;
    case "raise": decideByClick("raise", seat); break;
    case "deal": deal(); break;
    case "sit-out": sitOut(); break;
    case "chip": selectChip(Number(el.dataset.cents)); break;
    case "add-chip": addChip(seat); break;
    case "remove-chip": removeChip(seat); break;
    case "toggle-progressive": toggleProgressive(seat); break;
    case "clear-seat": clearBuilds(seat); break;
    case "clear": clearBuilds(); break;
    case "rebet": rebet(); break;
    case "select-seat": selectSeat(seat); break;
    case "toggle-side": state.sideOpen = el.getAttribute("aria-expanded") !== "true"; render(); break;
    case "to-side": document.querySelector("#table .side")?.scrollIntoView({ block: "start" }); break;
    case "toggle-pays":
      state.paysOpen[el.dataset.table] = el.getAttribute("aria-expanded") !== "true";
      render();
      break;
    case "open-remote": goRemote(el.dataset.href); break;
    case "stop-awaiting": state.awaiting = null; setCurrent(null); render(); break;
    case "dismiss":
      if (el.closest(".toast")?.dataset.code === "leave-confirm") {
        disarmLeave(); // the warning waved away: the head's button no longer leaves at once
        render();
      } else el.closest(".toast, .banner")?.remove();
      break;
    case "toggle-toast": {
      const toast = el.closest(".toast");
      toast?.classList.toggle("collapsed");
      toast?.querySelector(".more")?.setAttribute("aria-expanded", String(!toast.classList.contains("collapsed")));
      placeToasts();
      break;
    }
    case "reconnect": conn.start(); break;
    case "retry-now": conn.retryNow(); break;
    case "verify-deal": verifyDeal(el.dataset.table); break;
    case "verify-history": verifyHistory(el.dataset.round); break;
    case "history": toggleHistory(); break;
    case "history-close": toggleHistory(false); break;
    case "history-refresh": loadHistory(); break;
    default: break;
  }
}

function selectChip(cents) {
  state.chip = cents;
  sessionStorage.setItem(KEYS.chip, String(state.chip));
  render();
}

function takeSeat() {
  act(() => conn.request("sit", { table: state.current }));
}

/**
 * Right-click on a betting circle takes its last chip off. (A touch screen
 * sends `contextmenu` for a long press too: that press takes one chip off,
 * whichever of the two comes first.)
 */
function onContextMenu(event) {
  const el = event.target.closest('[data-action="add-chip"]');
  if (!el) return;
  event.preventDefault();
  if (pressType === "touch") longPress(Number(el.dataset.seat));
  else removeChip(Number(el.dataset.seat));
}

// A long press on a betting circle (a finger held still) takes its last chip off.
let pressTimer = null;
let longPressed = false;
let pressType = "mouse";

function longPress(seat) {
  clearTimeout(pressTimer);
  if (longPressed) return;
  longPressed = true;
  removeChip(seat);
}

function onPointerDown(event) {
  const el = event.target.closest?.('[data-action="add-chip"]');
  clearTimeout(pressTimer);
  longPressed = false;
  pressType = event.pointerType || "mouse";
  if (!el || event.button !== 0 || pressType === "mouse") return;
  const seat = Number(el.dataset.seat);
  pressTimer = setTimeout(() => longPress(seat), LONG_PRESS_MS);
}

function cancelPress() {
  clearTimeout(pressTimer);
}

/** The table's keys (keys.js), and Escape for the history panel. */
function onKeyDown(event) {
  if (event.key === "Escape" && state.history.open) {
    toggleHistory(false);
    return;
  }
  // Enter/Space on a focused betting circle adds the selected chip (it is a button).
  const circle = event.target.closest?.('[data-action="add-chip"]');
  if (circle && (event.key === "Enter" || event.key === " ")) {
    event.preventDefault();
    addChip(Number(circle.dataset.seat));
    return;
  }
  const command = keyCommand(event);
  if (!command) return;
  const snap = state.current ? state.tables[state.current] : null;
  if (command.cmd === "history") {
    if (state.me) toggleHistory();
    return;
  }
  if (!snap || state.needName) return; // the other keys are the table's
  if (command.cmd === "next-seat") {
    // Tab selects the next own seat from nothing focused or from an own seat; from
    // anything else (a button, the top bar, the paytable, the history), and from the
    // last own seat, it moves the focus as usual.
    const active = document.activeElement;
    const onSeat = active?.matches?.(".felt-wrap .seat[data-seat]") ? Number(active.dataset.seat) : null;
    // from the page's end, Tab goes round to the top bar as usual (it never got there)
    const onBody = (!active || active === document.body) && !tabbedOffTheEnd;
    if ((onBody || onSeat !== null) && !state.history.open && nextSeat(onSeat)) event.preventDefault();
    return;
  }
  if ((event.key === " " || event.key === "Enter") && event.target.closest?.("button, a")) return;
  event.preventDefault();
  const seat = selectedSeat(snap);
  switch (command.cmd) {
    case "sit": takeSeat(); break;
    case "chip":
      selectChip(command.cents);
      if (seat === null) showError("Take a seat first (s).");
      else addChip(seat, command.cents);
      break;
    case "unchip": removeChip(seat); break;
    case "progressive": toggleProgressive(seat); break;
    case "rebet": rebet(); break;
    case "clear": clearBuilds(); break;
    case "deal": deal(); break;
    case "fold": decideByKey("fold"); break;
    case "raise": decideByKey("raise"); break;
    case "buy": $("buy").requestSubmit(); break;
    case "leave": leaveTable(); break;
    default: break;
  }
}

// ----- messages to the player ---------------------------------------------------

/** Toasts about a moment of play ("No decision is due now", a refused ante): stale once
 * the table's phase moves on or the player leaves it. */
const MOMENT_CODES = new Set(["client", "wrong_phase", "already_bet", "already_decided", "not_betting",
  "no_bet", "not_seated", "table_suspended", "table_paused"]); // "leave-confirm" goes with its arming

function dismissMomentToasts() {
  for (const el of $("errors").querySelectorAll(".toast")) {
    if (MOMENT_CODES.has(el.dataset.code)) el.remove();
  }
}

/** Take away the toasts of one kind (e.g. a wait that is over). */
function dismissToasts(code) {
  for (const el of $("errors").querySelectorAll(`.toast[data-code="${code}"]`)) el.remove();
}

/** Take away the refusals of an attempt that has now worked (a name refused, then one
 * taken; a purchase refused, then one made): they said the opposite of what is so. */
function dismissRefusals(about) {
  for (const el of $("errors").querySelectorAll(`.toast[data-about="${about}"]`)) el.remove();
}

/**
 * An error in words, in a visible, dismissable toast; `code` names its kind when it
 * is not a server error, `tone: "ok"` makes it good news, `tone: "warn"` a warning or
 * news of a loss (not a refusal); `about` names the attempt a refusal is about, whose
 * success takes it away (`dismissRefusals`). A `sticky` one stays until
 * dismissed: news of money (a wallet gone with a forgotten session, a round voided
 * and refunded) must not go by while the player looks elsewhere. Once the page has been
 * in view, online, as long as an ordinary toast lasts, it folds to one line (and goes
 * when the next toast comes: read, it covers nothing for good), so it covers no more of the table than
 * it must; a tap on its words opens it again. A `lasting` one stays whole until taken
 * away by the code that showed it (a leave's warning, while the leave is armed); an
 * `action` ({action, label, testid, key}) is a button in it that does what it asks.
 */
function showError(err, { code = null, tone = null, sticky = false, open = null, about = null,
  lasting = false, action = null } = {}) {
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
  const list = $("errors");
  // news read whole and folded to a line gives way to what comes next: "New player, …
  // More ×" stayed for the rest of the session, over the paytable and the notices after it
  for (const read of list.querySelectorAll('.toast.collapsed[data-seen="true"]')) read.remove();
  const last = list.lastElementChild;
  if (last && last.querySelector(".msg")?.textContent === text) last.remove(); // no duplicates
  const toast = h("div", { class: `toast${tone ? ` ${tone}` : ""}`, role: tone === "ok" ? "status" : "alert",
    "data-testid": tone === "ok" ? "notice" : "error",
    "data-code": code ?? (err instanceof OfflineError ? "offline" : null) ?? err?.frame?.code ?? err?.code ?? "client",
    "data-sticky": sticky ? "true" : null, "data-about": about },
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
  else afterSeen(ERROR_TTL_MS, function fold() {
    // whole while the page is offline: the news is what it has to read then
    if (!conn.open) {
      setTimeout(fold, 1000);
      return;
    }
    toast.dataset.seen = "true";
    toast.classList.add("collapsed");
    placeToasts();
  });
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

/** At most `max` toasts: the oldest go first, a sticky one (news of money) last. */
function trimToasts(max) {
  const list = $("errors");
  while (list.children.length > max) {
    (list.querySelector('.toast:not([data-sticky="true"])') ?? list.firstElementChild).remove();
  }
}

/** Toasts go just under the top bar while it is on screen: never over the wallet
 * (a purchase's news must not hide the balance it changed), never off the top. At a
 * table with the side panel beside the felt they go over that panel's foot, never over
 * the dealer's cards (a showdown's news comes as they are turned) nor the provably fair
 * box at the panel's top (read at the showdown too). At a table without it
 * (a phone, a narrow window) the table's head is under the top bar, with the way out
 * and the phase's clock, and the dealer's row under it: the toasts go to the foot of
 * the screen instead, above the chip rack while it is there; but not over a decision's
 * Fold and Raise (its clock runs) nor an own seat's buttons on the felt's arc: then the
 * felt's middle, inside the arc, and failing that up top, where a phone's dealer's row
 * keeps a clock. The jackpot's news at a table goes with them (`showBanner`). */
function placeToasts() {
  const list = $("errors");
  if (!list.children.length) return;
  // the history panel has its head (and its close button) up there: below it, then
  const low = state.history.open;
  list.classList.toggle("low", low);
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
    // over the panel's foot (its paytables and rules), not its top: the provably fair
    // box there (Commitment, Round) is read at the showdown, as the news comes
    list.style.top = "auto";
    list.style.bottom = `${Math.max(8, Math.round(window.innerHeight - Math.min(panel.bottom, window.innerHeight)) + 6)}px`;
    return;
  }
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
window.addEventListener("scroll", placeToasts, { passive: true });
window.addEventListener("resize", placeToasts);

/** The jackpot's news. At a table it goes with the toasts, and where they go: it comes
 * as the winning table turns its cards and to other tables mid-decision, and under the
 * top bar it covered the phase's clock, or on a phone the dealer's row stuck there. */
const bannersShown = new Set(); // round:seat of each prize announced: a repeat says nothing new

function showBanner(frame) {
  const key = `${frame.round_id}:${frame.seat}`;
  if (bannersShown.has(key)) return;
  bannersShown.add(key);
  const atTable = Boolean(state.current) && !$("table").hidden;
  const host = atTable ? $("errors") : $("banners");
  const label = categoryLabel(frame.category);
  const banner = h("div", { class: "banner", role: "status", "data-testid": "jackpot-banner" },
    h("span", { class: "burst" }, "JACKPOT!"),
    h("span", {}, `${frame.name} won ${dollars(frame.amount)} with a ${label} at ${lobbyRow(frame.table)?.title ?? frame.table}.`),
    h("button", { class: "close", "data-action": "dismiss", "aria-label": "Dismiss" }, "×"));
  host.append(banner);
  if (atTable) placeToasts();
  else { // under the top bar, whatever its height (two rows on a phone): not over the wallet
    const bottom = document.querySelector(".topbar")?.getBoundingClientRect().bottom ?? 0;
    host.style.top = `${Math.max(8, Math.round(bottom) + 6)}px`;
  }
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

let drawnView = null; // the view draw() showed last: focus moves only when it changes

/** A view just shown takes the focus a keyboard needs there, unless the player has it
 * somewhere visible: the name form its field (`autofocus` does nothing for a form shown
 * later), the lobby its first Play button (the form just submitted is gone), a table
 * its title (the Play button pressed is gone; Tab goes on from the table's head). */
function focusNewView(view) {
  if (view === drawnView) return;
  const active = document.activeElement;
  const lost = !active || active === document.body || active.closest("[hidden]") !== null;
  if (view === "login") $("name-input").focus();
  else if (view === "lobby" && lost) {
    const play = $("lobby").querySelector('button[data-action="play"]');
    if (!play) return; // the lobby's list has not come yet: the next draw
    play.focus({ preventScroll: true });
  } else if (view === "table" && lost) {
    const title = $("table").querySelector('[data-testid="table-title"]');
    if (!title) return; // still joining: the next draw
    title.focus({ preventScroll: true });
  }
  drawnView = view;
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
      const now = performance.now();
      const seen = withOwnHands(snap, state.hands, state.me?.player_id);
      morph($("table"), renderTable({
        snap: seen,
        row,
        me: state.me,
        leaveArmed: leaveArmed?.table === snap.table,
        layout: layoutFor(snap),
        selected: selectedSeat(snap),
        deal: state.dealing[snap.table] && !dealLanded(state.dealing[snap.table], now) ? state.dealing[snap.table] : null,
        rebet: state.lastBets[snap.table]?.seats ?? null,
        sideOpen: state.sideOpen ?? !window.matchMedia?.("(max-width: 640px)").matches,
        build: (seat) => buildOf(snap.table, seat),
        chip: state.chip,
        busy: state.busy,
        maxSeats: row?.max_seats_per_player ?? state.limits?.max_seats_per_player ?? 1,
        receivedAt: state.receivedAt[snap.table],
        now,
        jackpot: snap.jackpot ? state.jackpots[snap.jackpot.name] : undefined,
        available: state.balance?.available,
        online: online(),
        quiet: conn.quiet,
        elsewhere: state.status.state === "replaced",
        fair: {
          seed: state.seeds[snap.table] ?? "",
          seedStatus: seedStatus(snap.table, snap),
          lastDeal: state.lastDeal[snap.table],
          verdict: state.lastDeal[snap.table] ? state.verdicts[`table:${state.lastDeal[snap.table].round_id}`] : undefined,
        },
      }));
    } else {
      const awaited = state.awaiting === state.current;
      morph($("table"), h("section", { id: "table", class: "table-view", "data-testid": "table-view",
        "data-table": state.current, "data-awaiting": awaited ? "true" : null },
      awaited
        ? h("div", { class: "awaiting", "data-testid": "table-awaited" },
          h("p", {}, `Finding where ${titleOf(state.current)} is hosted now: its server stopped answering, `
            + "or another server of the casino has taken it over. It opens here by itself."),
          h("button", { class: "btn", "data-action": "stop-awaiting", "data-testid": "stop-awaiting" },
            "Back to the lobby"))
        : h("p", { class: "muted" }, "Joining the table…")));
    }
    watchFelt();
    fitFelt();
  }
  focusNewView(view);
  placeToasts(); // the view (and the side panel) may have come or gone under them
  markSidePanel();
  markHeadAway();
}

/** A phone keeps the dealer's row on screen with a clock of its own (CSS) once the table
 * head, whose phase pill has the clock, has scrolled away: not before, or the same
 * seconds showed twice, one over the other. */
function markHeadAway() {
  const pill = document.querySelector('#table [data-testid="phase"]');
  const r = pill?.getBoundingClientRect();
  const away = Boolean(r) && r.top + r.height / 2 < 0; // more than half of it gone: unread
  if (away !== document.body.hasAttribute("data-head-away")) {
    document.body.toggleAttribute("data-head-away", away);
  }
}
window.addEventListener("scroll", markHeadAway, { passive: true });
window.addEventListener("resize", markHeadAway);

/** A side panel that scrolls inside itself says so while there is more below
 * (a laptop's panel holds more than it shows, and nothing else would tell). */
function markSidePanel() {
  const side = document.querySelector("#table .side");
  if (!side) return;
  const more = side.scrollHeight - side.scrollTop - side.clientHeight > 2;
  if (more) side.dataset.more = "true";
  else delete side.dataset.more;
}
document.addEventListener("scroll", (e) => {
  if (e.target instanceof Element && e.target.matches("#table .side")) markSidePanel();
}, { capture: true, passive: true });
window.addEventListener("resize", markSidePanel);

/** Where the seats go: from the felt's measured inside (a first guess from the window before that). */
function layoutFor(snap) {
  const felt = state.felt ?? {
    width: window.innerWidth <= 1100 ? window.innerWidth - 60 : window.innerWidth - 330,
    height: Math.max(440, window.innerHeight - 230),
  };
  if (felt.width < FLOW_BELOW_PX) return { mode: "flow", positions: [], vars: {} };
  return seatLayout(snap.seats.length, felt.width, felt.height, uiScale(window.innerWidth, window.innerHeight));
}

/** A big screen draws the frame around the felt bigger (styles.css zooms it by --frame);
 * the felt's seats are sized by layout.js from the same window. */
function sizeFrame() {
  const frame = String(frameScale(uiScale(window.innerWidth, window.innerHeight)));
  const root = document.documentElement.style;
  if (root.getPropertyValue("--frame") !== frame) root.setProperty("--frame", frame);
}
sizeFrame();
window.addEventListener("resize", sizeFrame);

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

/** A window that scrolls (the side panel under the felt, styles.css at 1100 px) sizes the
 * felt to the screen: what is above it (the top bar and the table's head, one row or two:
 * a wide wallet or a long title wraps them) and the rack stuck under it are measured, so
 * the felt's foot, and the results drawn there, end above the rack, not under it. */
function fitFelt() {
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
window.addEventListener("resize", () => { if (state.current) fitFelt(); });

function watchFelt() {
  const felt = document.querySelector('[data-testid="felt"]');
  if (felt === observedFelt) return;
  if (observedFelt) feltObserver.unobserve(observedFelt);
  observedFelt = felt;
  if (felt) feltObserver.observe(felt);
}

function drawHeader() {
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
  // signed in, the bar names the account (which one is signed in is what it must say);
  // the table shows the player's name
  const name = state.me?.name ?? "";
  const username = state.me ? accountUsername() : null;
  $("player-name").textContent = username ?? name;
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
function tick() {
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

// ----- start ---------------------------------------------------------------------

/** The longest name the server takes (PROTOCOL.md `hello`), counted as it counts:
 * in code points (an emoji is one), of the name without the spaces around it. */
const NAME_MAX = 24;

/** The name field's count, said while typing; the button waits until the name fits
 * (a name of 30 was refused only once sent). */
function checkName() {
  const count = [...$("name-input").value.trim()].length;
  const over = count > NAME_MAX;
  const note = $("name-count");
  note.textContent = over ? `Too long: ${count} of ${NAME_MAX} characters, ${count - NAME_MAX} to take off`
    : count ? `${count} of ${NAME_MAX} characters` : `Up to ${NAME_MAX} characters`;
  note.dataset.over = String(over);
  if (over) $("name-input").setAttribute("aria-invalid", "true");
  else $("name-input").removeAttribute("aria-invalid");
  document.querySelector('#login-form [data-testid="enter"]').disabled = over;
  return !over;
}
$("name-input").addEventListener("input", checkName);
checkName();

$("login-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const name = $("name-input").value.trim();
  if (!checkName()) return;
  if (!name) { // spaces alone pass the field's `required`: say what is missing
    showError("Enter a name for the table: letters or digits, not spaces alone.", { code: "name", about: "name" });
    $("name-input").focus();
    return;
  }
  sessionStorage.setItem(KEYS.name, name);
  state.needName = false;
  render();
  if (conn.open) hello();
});

$("buy").addEventListener("submit", (event) => {
  event.preventDefault();
  dismissRefusals("buy"); // a new try: what was said of the last one is over
  // the page words every bad amount itself (the form is `novalidate`): the browser's
  // own bubble is easy to miss, and says nothing of whole dollars
  const text = $("buy-amount").value.trim();
  const wanted = Number(text);
  // digits alone: a number field also takes "1e2" and "5.0", which are not what was meant
  if (!/^[0-9]+$/.test(text) || wanted < 1) {
    showError("Chips are bought in whole dollars: enter an amount of $1 or more, in digits alone "
      + "(no cents, no signs).", { code: "buy-amount", about: "buy" });
    return;
  }
  if (!Number.isSafeInteger(wanted * 100) || wanted * 100 > MAX_WIRE_CENTS) {
    showError("That is more than a purchase can be: enter a smaller amount.", { code: "buy-amount", about: "buy" });
    $("buy-amount").value = String(USUAL_BUY);
    return;
  }
  const cents = wanted * 100;
  if (!purchases.buy(cents, state.me?.player_id)) {
    showError(`Your purchase of ${dollars(purchases.waiting.amount)} is still on its way: wait for its answer.`,
      { code: "purchase-waiting" });
  }
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
// Tab from the last control leaves the focus on nothing: the next Tab is the browser's
// (round to the top bar), not a seat's. A click on the felt leaves it on nothing too,
// and there Tab still selects a seat.
let tabbedOffTheEnd = false;
document.addEventListener("focusout", (event) => {
  tabbedOffTheEnd = !event.relatedTarget && event.target === lastTabbable();
});
document.addEventListener("focusin", (event) => {
  tabbedOffTheEnd = false;
  // anything of an own seat taking the focus (Tab, Shift+Tab, a click) selects that seat,
  // so a key acts where the focus ring is: with #9 selected, Shift+Tab onto #1's ante
  // circle and "3" put the chip on #9
  const seat = event.target.closest?.(".felt-wrap .seat.mine[data-seat]");
  const snap = state.current ? state.tables[state.current] : null;
  if (!seat || !snap) return;
  const n = Number(seat.dataset.seat);
  if (selectedSeat(snap) !== n && mySeats(snap).includes(n)) {
    state.selected[snap.table] = n;
    render();
  }
});
function lastTabbable() {
  const all = document.querySelectorAll(
    'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])');
  for (let i = all.length - 1; i >= 0; i -= 1) {
    const el = all[i];
    if (el.tabIndex >= 0 && !el.closest("[hidden]") && el.getClientRects().length) return el;
  }
  return null;
}
document.addEventListener("pointerdown", onPointerDown);
for (const type of ["pointerup", "pointercancel", "pointerleave", "pointermove"]) {
  document.addEventListener(type, (event) => {
    if (type !== "pointermove" || Math.hypot(event.movementX, event.movementY) > 6) cancelPress();
  });
}
window.addEventListener("online", () => conn.retryNow());
setInterval(tick, 200);

// A handle for debugging from the console (and for the browser tests).
window.stud = { state, conn, purchases, fairness, verifyDeal, verifyHistory, loadHistory, absorb };

setupAccount({ conn, welcome, showError, render });
render();
conn.start();
