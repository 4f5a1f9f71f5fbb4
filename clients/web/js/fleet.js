// A table that its server no longer hosts (several server processes share one store):
// the table on screen is followed to the process that took it over, one watched off
// screen is said to have moved, and once it shows again the player is told what became
// of their seats and round. Apart from frames.js, which calls on it for refusals and
// for the `table_moved` frame.

import { disarmLeave } from "./leaving.js";
import { conn, connectedTo, online } from "./link.js";
import { tablePageUrl } from "./lobby.js";
import { atStake, movedNotice, roundFate } from "./moved.js";
import { showError } from "./notices.js";
import { HISTORY_LIMIT, sendSeed } from "./rounds.js";
import { lobbyRow, mySeats, render, setCurrent, state, titleOf } from "./state.js";

/** Refusals that say the table is not hosted by the process asked. */
export const MOVED = new Set(["unknown_table", "table_moved"]);
const AWAIT_EVERY_MS = 2000; // a table awaited is looked for again at most this often
let awaitTimer = null;
let awaitTried = -Infinity;

/**
 * The table is hosted by another server of the casino now (this one lost it): our seats
 * here are gone, and its new host voids a round left open, refunding every bet. The
 * table on screen is followed there; one watched off screen is said so, with the way.
 */
export function tableMoved(frame) {
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
  showError(text, { code: "table_moved", tone: "info", open: href });
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
export function notHere(table, url, { lost = false } = {}) {
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
export function reopenAwaited() {
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
export async function tellMoved(prev, snap, { restarted = false } = {}) {
  // the seats and round of the player this page was before the server forgot its
  // session, if they were that one's (a new guest now): neither they nor their round are
  // in the new player's history, so nothing of the round's outcome can be told
  const former = state.formerPlayer && (atStake(prev, state.formerPlayer).seats.length
    || prev.shutdownRound?.player === state.formerPlayer);
  const owner = former ? state.formerPlayer : state.me?.player_id;
  const { seats, roundId: open } = atStake(prev, owner);
  const gone = !former && mySeats(snap).length ? [] : seats;
  const shutdown = Boolean(prev.paused?.shutdown); // the old host said it was going
  // a server going down in order plays its round out first: the player's round in play
  // when it said so, seen to its showdown (frames.js keeps it), however it was last seen
  const finished = restarted && shutdown && prev.shutdownRound?.finished
    && prev.shutdownRound.player === owner ? prev.shutdownRound.id : null;
  const roundId = open ?? finished;
  let round = null;
  if (roundId && former) {
    round = { fate: "forgotten", finished: roundId === finished };
  } else if (roundId && snap.round_id !== roundId) {
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
  showError(movedNotice({ title: prev.title ?? prev.table, seats: gone, round, restarted, shutdown }),
    { code: "table-moved", tone: "ok", sticky: true, table: snap.table, round: snap.round_id }); // news of money and seats: not to go by unseen
}
