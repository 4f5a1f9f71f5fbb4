// Leaving a table: the first Leave warns what leaving now costs (the undecided hands it
// folds, the progressive prizes given up) and arms the second; once left, what leaving
// did with the player's money is said, and a raised hand that plays on is followed
// until its round settles. Apart because it is the one move with so much to say.

import { $ } from "./dom.js";
import { dollars, signedDollars } from "./format.js";
import { withOwnHands } from "./hands.js";
import { conn, online } from "./link.js";
import { dismissToasts, showError } from "./notices.js";
import { leftSettledText, ownSeats, totalNet } from "./outcome.js";
import { act } from "./play.js";
import { lettingGo, lobbyRow, mySeats, render, setCurrent, state } from "./state.js";

/** Leaving folds the player's undecided hands: the first Leave says what that costs, in
 * a warning that carries the "Fold & leave" that confirms (a phone has no l key, and the
 * head's button may be scrolled away), and arms the head's button too. Armed until the
 * hands are decided, the warning is dismissed or the player leaves: a few seconds ran
 * out while the player read, or scrolled, with the decision's clock still running. */
export let leaveArmed = null; // {table, seats} while the second Leave is awaited

export function disarmLeave() {
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
  const collects = lobbyRow(snap?.table)?.variant?.folded_collects_progressive ?? null;
  if (roundPhase(snap) !== "deciding") return { seats: [], antes: 0, stakes: 0, staked: 0, collects };
  const seats = mySeats(snap).filter((i) => snap.seats[i].ante > 0 && !snap.seats[i].decision);
  const antes = seats.reduce((sum, i) => sum + snap.seats[i].ante, 0);
  const staked = seats.filter((i) => snap.seats[i].progressive).length;
  return { seats, antes, stakes: staked * (snap.progressive_stake ?? 0), staked, collects };
}

function handsOn(seats) {
  return `hand${seats.length > 1 ? "s" : ""} on seat ${seats.map((i) => `#${i + 1}`).join(", ")}`;
}

/** What the folds lose: "$5.00 of antes and $1.00 of progressive stakes". Where a folded
 * hand is still paid its progressive prize (the variant's `folded_collects_progressive`:
 * Stud Poker, Bermuda) the stake plays on whatever the fold, as the terminal says too. */
function foldCost({ antes, stakes, staked, collects }) {
  const lost = `${dollars(antes)} of antes`;
  if (!stakes) return lost;
  if (collects === null) {
    return `${lost}, and ${dollars(stakes)} of progressive stakes unless this game pays a folded `
      + "hand its progressive prize";
  }
  if (collects) {
    const many = staked > 1;
    return `${lost} (the ${dollars(stakes)} progressive stake${many ? "s" : ""} still `
      + `play${many ? "" : "s"}: at this game a folded hand is paid its progressive prize)`;
  }
  return `${lost} and ${dollars(stakes)} of progressive stakes`;
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
export let playedOn = null;
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
export async function tellPlayedOn() {
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
  // every hand of ours in it, the ones the leave folded too: the wallet moved by them all,
  // and the raised hand's result alone did not add up to it (each entry names its seat:
  // the record lists only the seats dealt in, so its order is not the table's)
  const net = totalNet(ownSeats(record, state.me?.player_id));
  showError(leftSettledText(wait.title, record, state.me?.player_id),
  // news of money, come while the player looks at something else: not to go by unseen
  { code: "left-settled", tone: net >= 0 ? "ok" : "info", sticky: true, table: wait.table, round: wait.round_id });
}

export async function leaveTable() {
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
      // the server sends the lobby as the leave left it before the ok (PROTOCOL.md
      // `leave`): the one in hand, the last throttled push, said "Table full"
      lettingGo(table);
      await conn.request("leave", { table });
    } finally {
      setCurrent(null);
      delete state.tables[table];
    }
    const lost = folded.seats.length > 0 || settledHands(snap).net < 0;
    if (told) showError(told, { code: "left", tone: lost ? "info" : "ok", table, round: snap.round_id }); // news, not a refusal
    if (playingOn(snap)) watchPlayedOn(table, snap.title ?? table, snap.round_id);
  });
}

/** A table snapshot came: the hands an armed Leave would fold are decided (the clock ran
 * out), or gone; some decided meanwhile: what it says is said again of those still waiting. */
export function followArmedLeave(frame) {
  const folding = leaveArmed?.table === frame.table ? foldedByLeaving(frame) : null;
  if (folding && !folding.seats.length) disarmLeave();
  else if (folding && folding.seats.join() !== leaveArmed.seats) {
    leaveArmed.seats = folding.seats.join();
    const msg = $("errors").querySelector('.toast[data-code="leave-confirm"] .msg');
    if (msg) msg.textContent = leaveWarning(frame, folding);
  }
}
