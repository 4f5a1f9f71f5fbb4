// The client's state, shared by every module: what the server last said (`welcome`,
// `lobby`, `table` snapshots, `hand`, `balance`, `jackpot`) and what the tab keeps of its
// own (see app.js), with the small helpers that read it (the player's seats, the seat
// keys act on, a table's title) and keep it (built bets, the table on screen).
// `render` asks for a redraw; `hooks` are the calls that go up from here to the modules
// that import this one (the drawing, the toasts, the connection's frames), set by
// app.js at start-up so that no module imports app.js or one that imports it.

import { breakdown } from "./chips.js";
import { KEYS, loadJSON } from "./tabstore.js";

/** The calls up the module graph: set by app.js at start-up. */
export const hooks = {
  draw: () => {}, // draw.js's draw
  tableChanged: () => {}, // the table on screen changed (notices.js's dismissMomentToasts)
  hello: () => {}, // the socket opened (frames.js)
  absorb: () => {}, // a frame came (frames.js)
  linkStatus: () => {}, // the link's state changed (frames.js)
  sidePanelResized: () => {}, // the side panel's room changed (frame.js's markSidePanel)
};

export const state = {
  me: null, // {player_id, name} once welcomed
  // the player this page was before the server forgot its session (a new guest since):
  // its seats and rounds are not the new player's, nor in the new player's history
  formerPlayer: null,
  limits: null, // welcome.limits
  balance: null, // {balance, bonus, available, held}
  jackpots: {}, // jackpot name -> cents
  lobby: null, // the last `lobby` frame
  tables: {}, // table id -> latest snapshot
  receivedAt: {}, // table id -> performance.now() when its snapshot arrived
  current: sessionStorage.getItem(KEYS.table), // table on screen, or null for the lobby
  builds: loadBuilds(), // "table:seat" -> {chips: [cents...], progressive, round}, not placed yet
  lastBets: loadJSON(KEYS.lastBets, {}), // table id -> {round_id, seats: {seat: {amount, progressive}}}: last round's bets
  selected: {}, // table id -> the own seat that keys act on
  selectedFor: {}, // table id -> the deciding round whose first hand waiting was selected
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
  lastDeal: loadJSON(KEYS.lastDeal, {}), // table id -> the showdown snapshot of its last round (kept: a reload showed none)
  lostDecisions: {}, // "<round id>:<seat>" -> "fold" | "raise" sent as the link dropped, never answered
  verdicts: {}, // "table:<round id>" | "history:<round id>" -> result of verifyRound
  history: { open: false, rounds: null, loading: false, error: null },
  linkDown: null, // {at: when the table was last heard before the link went, tables: {id: {round_id, left: ms left to decide then, or null}}}
  // a fleet's tables (several server processes on one store; see followTable)
  seenAt: {}, // table id -> the address of the process its last snapshot came from
  away: {}, // table id -> {snap, from, lost}: its last snapshot, while it is looked for elsewhere
  awaiting: null, // the table on screen, not hosted where the page is connected: found where it went
  // table id -> the seats the player asked to give up there (stand, leave), or the casino
  // said it freed (a restart): any other own seat that goes is said to (`freedSeats`)
  letGo: {},
};

/** The player gives up seats at a table (`seats`: all of theirs there when omitted). */
export function lettingGo(table, seats = null) {
  const snap = state.tables[table];
  const set = state.letGo[table] ?? (state.letGo[table] = new Set());
  for (const i of seats ?? (snap ? mySeats(snap) : [])) set.add(i);
}

/** The built bets kept in the tab; older tabs kept `{amount}`: its chips are the largest that make it up. */
function loadBuilds() {
  const kept = loadJSON(KEYS.builds, {});
  const builds = {};
  for (const [key, b] of Object.entries(kept ?? {})) {
    const chips = Array.isArray(b?.chips) ? b.chips.filter(Number.isSafeInteger)
      : breakdown(Number(b?.amount) || 0).map((c) => c.cents);
    builds[key] = { chips, progressive: Boolean(b?.progressive), round: typeof b?.round === "string" ? b.round : null };
  }
  return builds;
}

export function saveBuilds() {
  sessionStorage.setItem(KEYS.builds, JSON.stringify(state.builds));
}

/** The showdown snapshot of a table's last deal (its proof, for Verify), or none. */
export function setLastDeal(table, snap) {
  if (snap) state.lastDeal[table] = snap;
  else delete state.lastDeal[table];
  sessionStorage.setItem(KEYS.lastDeal, JSON.stringify(state.lastDeal));
}

export function buildOf(table, seat) {
  return state.builds[`${table}:${seat}`] ?? { chips: [], progressive: false };
}

/** A build is for the round whose betting is open (`round`; null between rounds, until
 * one opens): once that round is gone it was not bet (bets.js forgetStaleBuilds). */
export function setBuild(table, seat, build) {
  const snap = state.tables[table];
  const round = build.round ?? (snap?.phase === "betting" ? snap.round_id ?? null : null);
  state.builds[`${table}:${seat}`] = { ...build, round };
  saveBuilds();
}

export function setCurrent(tableId) {
  if (tableId !== state.current) hooks.tableChanged(tableId);
  state.current = tableId;
  if (tableId) sessionStorage.setItem(KEYS.table, tableId);
  else sessionStorage.removeItem(KEYS.table);
}

export function lobbyRow(tableId) {
  return state.lobby?.tables.find((r) => r.id === tableId);
}

export function mySeats(snap) {
  return snap.seats
    .map((s, i) => (s && s.player_id === state.me?.player_id ? i : -1))
    .filter((i) => i >= 0);
}

/** The seat keys act on: the one the player chose, else their first. Once a round is
 * dealt, the first of the player's hands waiting for a decision (the seat bet on last
 * stayed selected: f and r acted on #3 before #1, and a phone showed #3 with #1's head
 * under the dealer's row), and so when the one chosen was dealt nothing (it sits the
 * round out); chosen then, so it stays selected once decided (a key pressed twice never
 * decides another), until the page or the player moves it on. */
export function selectedSeat(snap) {
  const mine = mySeats(snap);
  const chosen = state.selected[snap.table];
  const dealt = snap.phase === "deciding" && state.selectedFor[snap.table] !== snap.round_id;
  if (snap.phase === "deciding") state.selectedFor[snap.table] = snap.round_id;
  if (snap.phase === "deciding" && (dealt || !(mine.includes(chosen) && snap.seats[chosen].cards))) {
    const waiting = mine.find((i) => snap.seats[i].cards && !snap.seats[i].decision);
    if (waiting !== undefined) {
      state.selected[snap.table] = waiting;
      return waiting;
    }
  }
  return mine.includes(chosen) ? chosen : mine[0] ?? null;
}

export function titleOf(table) {
  return state.tables[table]?.title ?? state.away[table]?.snap?.title ?? lobbyRow(table)?.title ?? table;
}

let queued = false;

/** Redraw soon (once for every change in this task). */
export function render() {
  if (queued) return;
  queued = true;
  queueMicrotask(() => {
    queued = false;
    hooks.draw();
  });
}
