// What a round came to for the player's own hands (js/outcome.js). A player back online
// after the clock folded two hands was told they made the round's whole +$67.00, when
// they lost $7.00 and a raised hand won $74.00; one who left mid-round was told only the
// raised hand's result while the wallet also lost the folded hands' antes.
import assert from "node:assert/strict";
import { test } from "node:test";

import { handsOutcome, leftSettledText, netWords, unseenRoundText } from "../js/outcome.js";

const ME = "p-ann";
// strip the word joiner and the minus sign so the expectations read plainly
const plain = (text) => text.replaceAll("\u2060", "").replaceAll("\u2212", "-");
const hand = (seat, decision, net, extra = {}) => ({
  seat, player_id: ME, decision, auto: false, left: false, result: { net }, ...extra,
});
const bob = { seat: 3, player_id: "p-bob", decision: "raise", result: { net: 99900 } };

test("the hands the clock folded are told with their own result, then the others and the total", () => {
  const record = { seats: [bob, hand(8, "raise", 7400), hand(6, "fold", -600, { auto: true }),
    hand(7, "fold", -100, { auto: true })] };
  const text = plain(unseenRoundText(record, ME, [6, 7], "the clock ran out"));
  assert.equal(text, "While you were away the clock ran out: your hands on seat #7, #8 were folded"
    + ": -$7.00 (#7 -$6.00, #8 -$1.00). Your raised hand on seat #9 came to +$74.00; the round "
    + "came to +$67.00 in all.");
});

test("one hand folded by the clock, alone in the round: its result, no total", () => {
  const record = { seats: [hand(0, "fold", -500, { auto: true })] };
  assert.equal(plain(unseenRoundText(record, ME, [0], "the clock ran out")),
    "While you were away the clock ran out: your hand on seat #1 was folded: -$5.00.");
});

test("without the record the folds are said with no figure; none folded by the clock says nothing", () => {
  assert.equal(unseenRoundText(null, ME, [0], "the clock ran out"), null); // nothing to tell from
  const record = { seats: [hand(0, "raise", 1000)] };
  assert.equal(unseenRoundText(record, ME, [], "the clock ran out"), null);
});

test("a round left with a raised hand playing on: every hand's result and the total", () => {
  const record = { seats: [hand(6, "raise", -1600), hand(7, "fold", -100, { auto: true, left: true }),
    hand(8, "fold", -300, { auto: true, left: true }), bob] };
  assert.equal(plain(leftSettledText("Casino Stud 9", record, ME)),
    "Casino Stud 9: the round you left settled: your raised hand on seat #7 came to -$16.00, and "
    + "your folded hands on seat #8, #9 came to -$4.00 (#8 -$1.00, #9 -$3.00); -$20.00 in "
    + "all. History shows it.");
  assert.equal(plain(leftSettledText("alpha", { seats: [hand(0, "raise", 1500)] }, ME)),
    "alpha: the round you left settled: your raised hand on seat #1 came to +$15.00. History shows it.");
});

test("a folded hand paid a progressive prize comes to a gain, said as one", () => {
  assert.deepEqual(handsOutcome([hand(1, "fold", 4900)]).map(plain),
    ["your folded hand on seat #2 came to +$49.00"]);
  assert.equal(plain(netWords([hand(0, "fold", -100), hand(2, "fold", 4900)])),
    "+$48.00 (#1 -$1.00, #3 +$49.00)");
});
