// The bets built with chips before they are placed: a chip put on or taken off a seat's
// betting circle, the progressive, Clear, Rebet (last round's bets built again), the
// chip selected; Deal places them. Kept in the tab (state.js) until placed, and
// forgotten once the ante is on the table. chips.js only draws chips (the admin
// console draws tables with it too): these moves need the state, so they are apart.

import { breakdown, lessBy } from "./chips.js";
import { dollars } from "./format.js";
import { conn } from "./link.js";
import { dismissToasts, showError } from "./notices.js";
import { act } from "./play.js";
import { buildOf, mySeats, render, saveBuilds, setBuild, state } from "./state.js";
import { buildAmount, buildable, progressiveAlone, rebetSeats } from "./table.js";
import { KEYS } from "./tabstore.js";

/**
 * Drop built bets of seats that are no longer ours, of seats whose ante is placed (the
 * chips are on the table now, and the next round starts empty), and of seats dealt out
 * without them: betting closed before Deal placed them. Those were hidden while the
 * round played, then came back under the next round's chips; they are said instead.
 * So are those built for a round gone by unseen (offline, a reload): a build is for the
 * round it was built in (`round`, taken on by one built between rounds when the next
 * opens), unless the table was seen to drop that round undealt (every ante taken back).
 * `old`: the snapshot before this one (seq -1: kept over a reconnect, not seen to move on).
 */
export function forgetStaleBuilds(snap, old = null) {
  // what was said not bet is over once another round opens: it read as if that round's
  // chips were refused
  if (unplacedSaid?.table === snap.table && snap.phase === "betting" && snap.round_id !== unplacedSaid.round_id) {
    forgetUnplaced();
  }
  let changed = false;
  const dealt = snap.phase === "deciding" || snap.phase === "showdown";
  const seen = old && old.table === snap.table && old.seq >= 0;
  const unplaced = [];
  let away = false;
  for (const key of Object.keys(state.builds)) {
    const [table, seat] = key.split(":");
    if (table !== snap.table) continue;
    const s = snap.seats[Number(seat)];
    const b = state.builds[key];
    const mine = s?.player_id === state.me?.player_id;
    let gone = Boolean(b.round) && snap.round_id !== b.round;
    if (gone && seen && old.round_id === b.round && old.phase === "betting" && !dealt) {
      gone = false; // seen: every ante taken back, no deal; the chips wait for the next round
      b.round = snap.phase === "betting" ? snap.round_id : null;
      changed = true;
    }
    if (!mine || s.ante > 0 || dealt || gone) {
      const amount = buildAmount(b);
      if (mine && !(s.ante > 0) && (dealt || gone) && amount > 0) {
        unplaced.push([Number(seat), amount, Boolean(b.progressive)]);
        away ||= gone;
      }
      delete state.builds[key];
      changed = true;
    } else if (!b.round && snap.phase === "betting" && snap.round_id) {
      b.round = snap.round_id; // built between rounds: for the one just opened
      changed = true;
    }
  }
  if (changed) saveBuilds();
  if (unplaced.length) {
    unplaced.sort((a, b) => a[0] - b[0]);
    // the progressive counted in, as the Deal button counted it ("Deal · $11.00")
    const total = unplaced.reduce((sum, [, amount, jp]) => sum + amount + (jp ? snap.progressive_stake : 0), 0);
    const jp = unplaced.some(([, , on]) => on) ? " (with the progressive)" : "";
    const seats = unplaced.map(([seat]) => `#${seat + 1}`).join(", ");
    showError(`${away ? "Betting closed while you were away" : "Betting closed before Deal"}: the `
      + `${dollars(total)} built on seat ${seats}${jp} was not bet, and is cleared.`,
    { code: "unplaced", tone: "warn" });
    unplacedSaid = { table: snap.table, round_id: snap.round_id };
  }
}

/** The table and round of the notice of chips not bet while it is up ({table, round_id}). */
let unplacedSaid = null;

/** Take that notice away: chips built again, or the next round open. */
function forgetUnplaced() {
  if (!unplacedSaid) return;
  unplacedSaid = null;
  dismissToasts("unplaced");
}

/** Once a round's cards are out, its antes on our seats are "last round's bets" (for Rebet). */
export function rememberBets(snap) {
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

/** Play no hand this round: a `deal` with no ante tells the table not to wait for us. */
export async function sitOut() {
  const snap = state.tables[state.current];
  if (!snap || snap.phase !== "betting") return;
  await act(() => conn.request("deal", { table: snap.table, seq: snap.seq }));
}

/** Place every built ante not placed yet (with its progressive), then say Deal. */
export async function deal() {
  const snap = state.tables[state.current];
  if (!snap || refusedForPause(snap)) return;
  const mine = mySeats(snap);
  if (!mine.length) {
    showError("Take a seat first (s).", { code: "not_seated" });
    return;
  }
  const alone = progressiveAlone(snap, mine, (i) => buildOf(snap.table, i));
  if (alone.length) { // the key too: placing the others would drop it unsaid
    showError(`The progressive on seat ${alone.map((i) => `#${i + 1}`).join(", ")} needs an ante: `
      + "add chips to its circle, or take the progressive off.");
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
      // `seq`: the table as seen when Deal was pressed, so a bet the network delivers
      // late is refused (`round_moved_on`), not placed in a round never seen open
      await conn.request("ante", { table: snap.table, seat, amount: buildAmount(b), progressive: b.progressive, seq: snap.seq });
    }
    await conn.request("deal", { table: snap.table, seq: snap.seq });
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

/** Bets open at a table the casino paused (or on a server shutting down), none of the
 * player's antes in: no ante is taken, so a chip, the progressive, Rebet or Deal (their
 * keys too) says so rather than build or send (Deal said "Build an ante first"). */
function refusedForPause(snap) {
  if (!snap?.paused || !["waiting", "betting"].includes(snap.phase)
    || mySeats(snap).some((i) => snap.seats[i].ante > 0)) return false;
  showError(snap.paused.shutdown ? "This server is shutting down: it takes no new bet."
    : "The casino has paused this table: no ante is taken until it resumes.", { code: "table_paused" });
  return true;
}

/** Put a chip (the selected one, or `cents`) on a seat's betting circle. */
export function addChip(seat, cents = state.chip) {
  const snap = state.tables[state.current];
  if (snap && mySeats(snap).includes(seat)) state.selected[snap.table] = seat;
  if (!editableSeat(seat)) {
    refusedForPause(snap);
    if (snap) render();
    return;
  }
  const b = buildOf(snap.table, seat);
  if (buildAmount(b) + cents > snap.max_ante) {
    showError(`The most you can ante at this table is ${dollars(snap.max_ante)}.`);
    return;
  }
  setBuild(snap.table, seat, { ...b, chips: [...b.chips, cents] });
  forgetUnplaced(); // the chips said not bet are gone: these are new ones
  render();
}

/** Reduce a seat's bet by the selected chip's value (a right-click, a long press). */
export function lessChip(seat) {
  const snap = editableSeat(seat);
  if (!snap) return;
  const b = buildOf(snap.table, seat);
  if (!b.chips.length) return;
  setBuild(snap.table, seat, { ...b, chips: lessBy(b.chips, state.chip) });
  render();
}

/** Take the last chip put on a seat's circle off again (its −, Backspace). */
export function removeChip(seat) {
  const snap = editableSeat(seat);
  if (!snap) return;
  const b = buildOf(snap.table, seat);
  if (!b.chips.length) return;
  setBuild(snap.table, seat, { ...b, chips: b.chips.slice(0, -1) });
  render();
}

export function toggleProgressive(seat) {
  const snap = editableSeat(seat);
  if (!snap) {
    refusedForPause(state.tables[state.current]);
    return;
  }
  const b = buildOf(snap.table, seat);
  setBuild(snap.table, seat, { ...b, progressive: !b.progressive });
  forgetUnplaced();
  render();
}

/** Empty the bets being built: one seat's, or (no seat) every one of ours. */
export function clearBuilds(seat = null) {
  const snap = state.tables[state.current];
  if (!snap) return;
  for (const i of seat === null ? mySeats(snap) : [seat]) {
    if (editableSeat(i)) setBuild(snap.table, i, { chips: [], progressive: false });
  }
  render();
}

/** Build last round's bets again (ante and progressive) on every seat of ours that had one. */
export function rebet() {
  const snap = state.tables[state.current];
  if (!snap || refusedForPause(snap)) return;
  const seats = rebetSeats({ snap, me: state.me, busy: state.busy, mine: mySeats(snap),
    rebet: state.lastBets[snap.table]?.seats, build: (i) => buildOf(snap.table, i) });
  for (const [seat, b] of seats) {
    setBuild(snap.table, seat, { chips: breakdown(b.amount).map((c) => c.cents), progressive: b.progressive });
  }
  if (seats.length) forgetUnplaced();
  render();
}

export function selectChip(cents) {
  state.chip = cents;
  sessionStorage.setItem(KEYS.chip, String(state.chip));
  render();
}
