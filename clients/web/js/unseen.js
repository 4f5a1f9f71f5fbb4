// What happened while the player could not see it: the clock folding a hand, a round
// that ended or was voided while the link was down, a clock that ran on meanwhile.
// Told once back, from the snapshots and the history; otherwise a hand folded offline
// would only show as a loss, and a refund as a balance that jumped.

import { signedDollars } from "./format.js";
import { conn, online } from "./link.js";
import { dismissToasts, showError } from "./notices.js";
import { ownSeats, unseenRoundText } from "./outcome.js";
import { lostDecisionsNote } from "./play.js";
import { mySeats, state } from "./state.js";
import { backOnlineText, remainingMs } from "./table.js";

/**
 * Say when the clock decided for us, or when our round ended out of sight (the link
 * was down), or was voided (no showdown, every bet back): otherwise a hand folded while
 * offline would only show as a loss, and a refund as a balance that jumped.
 */
export function noticeUnseenDecisions(old, snap) {
  if (!old || old.table !== snap.table || !["betting", "deciding"].includes(old.phase)) return;
  // our hands the clock may have decided out of sight: undecided ones, or (last seen
  // betting) every one with a bet, dealt while the link was down and never shown
  const open = old.phase === "deciding"
    ? mySeats(old).filter((i) => old.seats[i].cards && !old.seats[i].decision)
    : mySeats(old).filter((i) => old.seats[i].ante > 0);
  if (old.round_id && old.round_id !== snap.round_id) {
    const betting = mySeats(old).some((i) => old.seats[i].ante > 0);
    // a shutdown seen to void it: the round went on to no showdown before the page's
    // eyes (not across a reconnect, when a showdown may have come unseen)
    if (betting) tellUnseenRound(old.round_id, open, snap, old.seq !== -1);
    return;
  }
  if (!open.length) return;
  const folded = open.filter((i) => snap.seats[i]?.player_id === old.seats[i].player_id
    && snap.seats[i].decision === "fold" && snap.seats[i].auto && !snap.seats[i].left);
  if (folded.length) {
    showError(`The clock ran out: your hand${folded.length > 1 ? "s" : ""} on seat `
      + `${folded.map((i) => `#${i + 1}`).join(", ")} ${folded.length > 1 ? "were" : "was"} folded.`
      + lostDecisionsNote(snap.round_id, folded),
    { code: "auto-fold", tone: "warn", table: snap.table, round: snap.round_id });
  }
}

/** Note when the link went, and the round of each table where we sat then: the first
 * snapshot of it once back says what the clock did meanwhile (`noticeClockRanOn`). */
export function linkWentDown() {
  // from the last frame heard, not from now: a link that died silently is noticed only
  // after a ping goes unanswered (seconds later), and the clock ran all that while
  const at = conn.heardAt > 0 ? conn.heardAt : performance.now();
  const tables = {};
  for (const [id, snap] of Object.entries(state.tables)) {
    // and the time left then: once back, it says whether the clock ran on meanwhile
    if (snap.round_id && mySeats(snap).length) {
      tables[id] = { round_id: snap.round_id, left: remainingMs(snap, state.receivedAt[id], at) };
    }
  }
  state.linkDown = Object.keys(tables).length ? { at, tables } : null;
}

/** The seats a "Back online … left to decide" notice names, and their round: {table,
 * round_id, seats} while it is up. */
let ranOn = null;

/** A snapshot came: the notice of time left to decide goes once what it says is no longer
 * so, a seat it names decided (by the player or the clock) or the round gone on. It stayed
 * up beside "The clock ran out: your hand on seat #7 was folded". */
export function followClockRanOn(snap) {
  if (!ranOn || ranOn.table !== snap.table) return;
  const open = (i) => snap.seats[i]?.cards && !snap.seats[i].decision && !snap.seats[i].left;
  if (snap.phase === "deciding" && snap.round_id === ranOn.round_id && ranOn.seats.every(open)) return;
  ranOn = null;
  dismissToasts("clock-ran-on");
}

/** Back in the deciding round the link went down in, our hands still undecided: the
 * clock ran on meanwhile; say how long is left (a fold by the clock, or a round that
 * ended, is told by `noticeUnseenDecisions`). Told once per table the link went down at. */
export function noticeClockRanOn(snap) {
  const down = state.linkDown;
  if (!down || !(snap.table in down.tables)) return; // not a table we sat at then
  const { round_id: roundId, left } = down.tables[snap.table];
  delete down.tables[snap.table];
  if (!Object.keys(down.tables).length) state.linkDown = null;
  if (snap.phase !== "deciding" || snap.round_id !== roundId) return;
  const open = mySeats(snap).filter((i) => snap.seats[i].cards && !snap.seats[i].decision && !snap.seats[i].left);
  if (!open.length) return;
  const seats = `seat ${open.map((i) => `#${i + 1}`).join(", ")}`;
  ranOn = { table: snap.table, round_id: snap.round_id, seats: open };
  const ms = remainingMs(snap, state.receivedAt[snap.table], performance.now());
  showError(backOnlineText({ awayMs: performance.now() - down.at, ms, leftBefore: left, seats,
    many: open.length > 1 }), { code: "clock-ran-on", tone: "warn" });
}

/** A round of ours ended without its showdown in sight: say how, from its history
 * record; none (history keeps settled rounds) means it was voided, every bet refunded. */
async function tellUnseenRound(roundId, undecided, snap, watched) {
  const shutdown = Boolean(snap.paused?.shutdown);
  // news of that round: it goes once the next one is under way (notices.js followRounds)
  const about = { table: snap.table, round: snap.round_id };
  let record = null;
  let known = false;
  // a server shutting down voids what its grace did not see played out (and closes
  // before any history could be asked): no showdown came, so this one was voided
  if (shutdown && watched) {
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
    { code: "round-voided", tone: "ok", sticky: true, ...about }); // why money came back: not to go by unseen
    return;
  }
  if (!undecided.length) return; // settled, and its showdown was seen or is in History
  const timed = ownSeats(record, state.me?.player_id).filter((s) => undecided.includes(s.seat)
    && s.decision === "fold" && s.auto);
  const why = timed.every((s) => s.left) ? "you were away longer than the table keeps a seat"
    : "the clock ran out";
  // each hand's own result: the folds', then the other hands' and the round's total
  const told = unseenRoundText(record, state.me?.player_id, undecided, why);
  const net = record && typeof record.balance_after === "number" && typeof record.balance_before === "number"
    ? ` (${signedDollars(record.balance_after - record.balance_before)})` : "";
  showError(told
    ? told + lostDecisionsNote(roundId, timed.map((t) => t.seat))
    : `Your round ended while you were away${net}: History shows how it went.`,
  { code: "unseen-round", tone: "info", sticky: true, ...about }); // news of money the player was not there to see
}
