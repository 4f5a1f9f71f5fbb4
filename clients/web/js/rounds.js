// Rounds past: the provably fair deal (PROTOCOL.md section 13) and the History panel.
// The client seed of each table is sent after every join; per round the commitment
// seen before the deal and the seed in force then are remembered, and a Verify
// (fairness.js) compares the proof with them. The history is loaded for the panel, and
// a History round can be verified the same way.

import { CLIENT_SEED_PATTERN, verifyRound } from "./fairness.js";
import { seedWords } from "./fairview.js";
import { errorText } from "./format.js";
import { conn } from "./link.js";
import { dismissRefusals, placeToasts, showError } from "./notices.js";
import { mySeats, render, state } from "./state.js";
import { KEYS } from "./tabstore.js";

const ROUNDS_KEPT = 200; // rounds whose commitment the tab remembers (History shows 50)
export const HISTORY_LIMIT = 50;

function saveRounds() {
  const ids = Object.keys(state.rounds);
  for (const id of ids.slice(0, Math.max(0, ids.length - ROUNDS_KEPT))) delete state.rounds[id];
  sessionStorage.setItem(KEYS.rounds, JSON.stringify(state.rounds));
}

/**
 * Remember, per round, the commitment published before the deal (a Verify
 * compares the revealed seed with it, not only with the proof's own copy) and
 * the client seed this tab had in force for its seats when the cards came.
 */
export function rememberRound(snap) {
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

/** Tell the server this tab's client seed for a table (after every join, and when it is set). */
export async function sendSeed(table) {
  const seed = state.seeds[table];
  if (seed === undefined) return;
  const sync = (state.seedSync[table] ??= { acked: undefined, pending: 0 });
  sync.pending += 1;
  render();
  try {
    await conn.request("seed", { table, client_seed: seed });
    sync.acked = seed;
    dismissRefusals("seed"); // a seed refused before: this one stands, the refusal is stale
  } catch (err) {
    sync.acked = undefined; // not known any more what the server holds
    showError(err, { about: "seed" });
  } finally {
    sync.pending -= 1;
    render();
  }
}

export function setSeed(form) {
  const table = form.dataset.table;
  const input = form.querySelector("input");
  const seed = input.value.trim();
  if (!CLIENT_SEED_PATTERN.test(seed)) {
    showError("A client seed is up to 64 letters, digits, _ . or - (no spaces).", { about: "seed" });
    return;
  }
  input.value = seed;
  state.seeds[table] = seed;
  sessionStorage.setItem(KEYS.seeds, JSON.stringify(state.seeds));
  sendSeed(table);
}

/** The seed's state in words, under the input. */
export function seedStatus(table, snap) {
  const seed = state.seeds[table];
  const sync = state.seedSync[table];
  if (sync?.pending) return "Sending your seed…";
  if (seed === undefined || seed === "") {
    return "Optional: a seed of yours is mixed into the shuffle, so the server cannot choose the deck alone.";
  }
  if (sync?.acked !== seed) return `Your seed “${seed}” is sent again when the table reconnects.`;
  return seedWords(seed, snap?.phase, seedUsed(snap, seed));
}

/** Did the deal on the table take `seed` for one of our seats? As this tab saw it at the
 * deal (`rememberRound`), else, at the showdown, as the proof lists it: the seeds of the
 * seats dealt, in seat order. */
function seedUsed(snap, seed) {
  if (!snap?.round_id || (snap.phase !== "deciding" && snap.phase !== "showdown")) return false;
  const seeds = state.rounds[snap.round_id]?.seeds;
  if (seeds) return Object.values(seeds).includes(seed);
  const listed = snap.fairness?.client_seeds;
  if (typeof listed !== "string") return false;
  const parts = listed.split(",");
  const dealt = snap.seats.map((s, i) => (s?.cards ? i : -1)).filter((i) => i >= 0);
  return mySeats(snap).some((i) => dealt.includes(i) && parts[dealt.indexOf(i)] === seed);
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
export function verifyDeal(table) {
  const snap = state.lastDeal[table];
  if (!snap) return null;
  const verdict = verify({ roundId: snap.round_id, proof: snap.fairness, seats: handsOfSnapshot(snap), dealer: snap.dealer?.cards });
  state.verdicts[`table:${snap.round_id}`] = verdict;
  render();
  return verdict;
}

/** Verify a round of the history with its record's proof and cards. */
export function verifyHistory(roundId) {
  const record = state.history.rounds?.find((r) => r.round_id === roundId);
  if (!record) return null;
  const verdict = verify({ roundId: record.round_id, proof: record.fairness, seats: record.seats ?? [], dealer: record.dealer });
  state.verdicts[`history:${roundId}`] = verdict;
  render();
  return verdict;
}

export async function loadHistory() {
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

export function toggleHistory(open = !state.history.open) {
  state.history.open = open;
  if (open) loadHistory();
  render();
  placeToasts();
}
