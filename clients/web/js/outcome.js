// A round's outcome for the player's own hands, in words, from its history record's
// seats: each hand's own result, grouped by what became of it, and the round's total
// where there is more than one hand. A notice about some hands only (the ones the clock
// folded, the one raised before a leave) used to carry the round's whole net, or only
// part of it, and read as if those hands had made or lost it all. No DOM.

import { signedDollars } from "./format.js";

const netOf = (s) => s.result?.net ?? 0;

/** "hand on seat #2", "hands on seat #1, #3". */
export function handsOn(seats) {
  return `hand${seats.length > 1 ? "s" : ""} on seat ${seats.map((i) => `#${i + 1}`).join(", ")}`;
}

/** The sum of the record seats' results (cents). */
export function totalNet(seats) {
  return seats.reduce((sum, s) => sum + netOf(s), 0);
}

/** What record seats came to: "−$5.00"; for several, their total and each hand's own,
 * "−$7.00 (#1 −$6.00, #2 −$1.00)". */
export function netWords(seats) {
  const total = signedDollars(totalNet(seats));
  if (seats.length < 2) return total;
  return `${total} (${seats.map((s) => `#${s.seat + 1} ${signedDollars(netOf(s))}`).join(", ")})`;
}

/** The player's hands of a record grouped by what they did, each group's result in words:
 * ["your raised hand on seat #3 came to +$74.00", "your folded hands on seat #1, #2 came
 * to −$7.00 (#1 −$6.00, #2 −$1.00)"]. Hands with no decision (none in a settled record) go with the
 * folded ones. */
export function handsOutcome(seats) {
  const raised = seats.filter((s) => s.decision === "raise");
  const folded = seats.filter((s) => s.decision !== "raise");
  const said = [];
  for (const [word, group] of [["raised", raised], ["folded", folded]]) {
    if (!group.length) continue;
    said.push(`your ${word} ${handsOn(group.map((s) => s.seat))} came to ${netWords(group)}`);
  }
  return said;
}

/** The player's seats of a history record (theirs by `player_id`), in seat order. */
export function ownSeats(record, playerId) {
  return (record?.seats ?? []).filter((s) => s?.player_id === playerId).sort((a, b) => a.seat - b.seat);
}

/** Back after a round of ours ended unseen: what the clock folded (`undecided`: seats left
 * undecided when last seen), with those hands' own result, then the other hands' and the
 * round's total. `record`: the round's history record, or null when it could not be read
 * (no figures then). `why`: what folded them ("the clock ran out"). Null when the clock
 * folded none of them. */
export function unseenRoundText(record, playerId, undecided, why) {
  const own = ownSeats(record, playerId);
  const timed = own.filter((s) => undecided.includes(s.seat) && s.decision === "fold" && s.auto);
  if (!timed.length) return null;
  const many = timed.length > 1;
  const rest = own.filter((s) => !timed.includes(s));
  const net = record ? `: ${netWords(timed)}` : "";
  let text = `While you were away ${why}: your ${handsOn(timed.map((s) => s.seat))} `
    + `${many ? "were" : "was"} folded${net}.`;
  if (record && rest.length) {
    const others = handsOutcome(rest).join(", and ");
    text += ` ${others[0].toUpperCase()}${others.slice(1)}; the round came to `
      + `${signedDollars(totalNet(own))} in all.`;
  }
  return text;
}

/** A round the player left while a raised hand played on, settled: every hand's result
 * (the folded ones' too: the wallet moved by them all) and, for several, the total. */
export function leftSettledText(title, record, playerId) {
  const own = ownSeats(record, playerId);
  const total = own.length > 1 ? `; ${signedDollars(totalNet(own))} in all` : "";
  return `${title}: the round you left settled: ${handsOutcome(own).join(", and ")}${total}. `
    + "History shows it.";
}
