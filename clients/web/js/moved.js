// A table taken over by another server process of the casino (its host froze, died or
// lost its hold on the table): what became of the player's seats and of the round they
// had bets in, in words. The new host holds no seat of the old one's, and voids the
// round its old host left open, refunding every bet; a round settled before the move
// stands. A server restarted at the same address is said so (nothing moved), with
// the same fate of the round. Which of the two it was is read from what the server keeps: the player's
// history holds every settled round and no voided one. And a table that starts over
// where it is, on data the casino restored from a backup (`table_restarted`). No DOM.

import { signedDollars } from "./format.js";

/** The player's seats at the table as last seen, and their round in play there (bets on
 * it, not yet settled: betting or deciding, a suspended table's too), if any. */
export function atStake(snap, playerId) {
  const seats = (snap?.seats ?? [])
    .map((s, i) => (s && s.player_id === playerId ? i : -1))
    .filter((i) => i >= 0);
  const phase = snap?.suspended?.phase ?? snap?.phase;
  const open = Boolean(snap?.round_id) && (phase === "betting" || phase === "deciding")
    && seats.some((i) => snap.seats[i].ante > 0);
  return { seats, roundId: open ? snap.round_id : null };
}

/**
 * What became of a round the player had bets in, from their history's records (newest
 * first, PROTOCOL.md `history`), or null when the history could not be read:
 * `{fate: "settled", net}` when a record holds it, else `{fate: "voided"}` (a table taken
 * over leaves no round of its old host open), `{fate: "unknown"}` without a history.
 * Only the history of the player who had the round tells: a new player's (the server
 * forgot the session) holds none of the old one's rounds, and that round's notice says
 * `{fate: "forgotten"}` instead (fleet.js).
 */
export function roundFate(roundId, records) {
  if (!Array.isArray(records)) return { fate: "unknown" };
  const record = records.find((r) => r?.round_id === roundId);
  if (!record) return { fate: "voided" };
  const net = typeof record.balance_after === "number" && typeof record.balance_before === "number"
    ? record.balance_after - record.balance_before : null;
  return { fate: "settled", net };
}

function seatList(seats) {
  return seats.map((i) => `#${i + 1}`).join(", ");
}

/**
 * The notice, once the table shows at its new host. `seats`: the player's seats there
 * before (gone now); `round`: roundFate's answer for their round in play, or null when
 * they had none; `restarted`: the table is back at the address it had (one server,
 * stopped and started again: nothing moved, the new process voided what the old left);
 * `shutdown`: the old server said it was shutting down (not that it failed).
 */
export function movedNotice({ title, seats = [], round = null, restarted = false, shutdown = false }) {
  // restarted after it said it was shutting down: an orderly stop, not a failure. It
  // finished its round (or voided it when the grace ran out) and gave its tables up
  if (restarted && shutdown) return shutDownNotice({ title, seats, round });
  const there = restarted ? "" : " there";
  const before = restarted ? "the restart" : "the move";
  const why = shutdown ? "its own was shut down."
    : "its own stopped answering, or lost its hold on the table.";
  const parts = [restarted ? `“${title}” is back: its server restarted.`
    : `“${title}” moved to another server of the casino: ${why}`];
  const yours = restarted ? "Your round in play" : "Your round there";
  if (round?.fate === "voided") {
    parts.push(`${yours} was voided: every bet of it (antes, raises, progressive) was refunded.`);
  } else if (round?.fate === "settled") {
    parts.push(`${yours} was settled before ${before}${netText(round)}: History shows it.`);
  } else if (round?.fate === "unknown") {
    parts.push(`${yours} was either settled before ${before} or voided with every bet `
      + "refunded: History and your wallet show which.");
  } else if (round?.fate === "forgotten") {
    parts.push(forgottenText(yours));
  }
  if (seats.length) {
    const many = seats.length > 1;
    parts.push(`Your seat${many ? "s" : ""} ${seatList(seats)}${there} `
      + `${restarted ? (many ? "were let go" : "was let go") : many ? "are gone" : "is gone"}: take a seat to play on.`);
  }
  return parts.join(" ");
}

/** Said of a round of the player's previous session, which the server no longer knows
 * (started again without its data): its record is not in the new player's history, so
 * whether it was settled or voided is not known here. */
const FORGOTTEN = "the server came back without its old data (you play on as a new player)";

function forgottenText(yours) {
  return `${yours} is not in your History: ${FORGOTTEN}; whether it was settled or voided is not known here.`;
}

function netText(round) {
  return typeof round.net === "number" ? ` (${signedDollars(round.net)})` : "";
}

/** movedNotice for a server that shut down in order and was started again: its table
 * is back, its seats were let go as it gave its tables up (after a restart the page said
 * only "The table is open: take a seat"). */
function shutDownNotice({ title, seats, round }) {
  const parts = [`“${title}” is back: its server shut down and was started again.`];
  if (round?.fate === "settled") {
    parts.push(`Your round in play finished before it shut down${netText(round)}: History shows it.`);
  } else if (round?.fate === "voided") {
    parts.push("Your round in play was voided as it shut down: every bet of it (antes, raises, "
      + "progressive) was refunded.");
  } else if (round?.fate === "unknown") {
    parts.push("Your round in play either finished before it shut down or was voided with every "
      + "bet refunded: History and your wallet show which.");
  } else if (round?.fate === "forgotten") {
    parts.push(round.finished ? "Your round in play was played out before it shut down (you saw "
      + `its showdown); it is not in your History: ${FORGOTTEN}.` : forgottenText("Your round in play"));
  }
  if (seats.length) {
    const many = seats.length > 1;
    parts.push(`It gave its tables up as it shut down, so your seat${many ? "s" : ""} `
      + `${seatList(seats)} ${many ? "were" : "was"} let go: take a seat to play on.`);
  }
  return parts.join(" ");
}

/**
 * The notice for `table_restarted`: the casino restored its data from a backup, and the
 * table starts over with every seat free (PROTOCOL.md). `snap`: the table as last seen,
 * for the player's seats and whether they had bets on the round given up.
 */
export function restartedNotice({ title, frame, snap, playerId }) {
  const { seats, roundId } = atStake(snap, playerId);
  const head = `The casino restored its data from a backup: what was played since is undone, `
    + `and “${title}” starts over`;
  if (!seats.length) return `${head}, every seat free.`;
  const parts = [`${head}.`];
  if (roundId && roundId === frame.round_id) {
    parts.push("Your round there was given up: what the backup holds of it is refunded.");
  }
  parts.push("Your wallet shows what you have.");
  const many = seats.length > 1;
  parts.push(`Your seat${many ? "s" : ""} ${seatList(seats)} ${many ? "are" : "is"} free again: `
    + "take a seat to play on.");
  return parts.join(" ");
}
