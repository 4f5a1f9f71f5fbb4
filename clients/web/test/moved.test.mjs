// A table taken over by another server process (js/moved.js): what the page says of
// the player's seats and round. A void is claimed only when the history (which holds
// every settled round) has no record of the round; a settled round is never called
// voided, and without a history neither is claimed.
import assert from "node:assert/strict";
import { test } from "node:test";

import { atStake, movedNotice, restartedNotice, roundFate } from "../js/moved.js";

const ME = "p-ann";
const seat = (ante, extra = {}) => ({ player_id: ME, name: "Ann", ante, ...extra });
const other = { player_id: "p-bob", name: "Bob", ante: 500 };

test("a round in betting or deciding with an ante of ours is at stake; a showdown is not", () => {
  const deciding = { round_id: "r-1", phase: "deciding", seats: [seat(500), other, seat(0)] };
  assert.deepEqual(atStake(deciding, ME), { seats: [0, 2], roundId: "r-1" });
  const suspended = { ...deciding, phase: "suspended", suspended: { phase: "betting" } };
  assert.equal(atStake(suspended, ME).roundId, "r-1");
  assert.equal(atStake({ ...deciding, phase: "showdown" }, ME).roundId, null);
  assert.deepEqual(atStake({ round_id: "r-1", phase: "betting", seats: [seat(0), other] }, ME),
    { seats: [0], roundId: null }); // Bob's bets are not ours
  assert.deepEqual(atStake({ round_id: null, phase: "waiting", seats: [null, other] }, ME),
    { seats: [], roundId: null });
});

test("the round's fate comes from the history: a record is a settled round", () => {
  const records = [{ round_id: "r-2", balance_before: 10000, balance_after: 9500 }];
  assert.deepEqual(roundFate("r-2", records), { fate: "settled", net: -500 });
  assert.deepEqual(roundFate("r-1", records), { fate: "voided" });
  assert.deepEqual(roundFate("r-1", []), { fate: "voided" });
  assert.deepEqual(roundFate("r-1", null), { fate: "unknown" });
});

test("a voided round is said voided and refunded, and the seats gone", () => {
  const text = movedNotice({ title: "Shared", seats: [0], round: { fate: "voided" } });
  assert.match(text, /^“Shared” moved to another server of the casino/);
  assert.match(text, /Your round there was voided: every bet of it \(antes, raises, progressive\) was refunded\./);
  assert.match(text, /Your seat #1 there is gone: take a seat to play on\.$/);
});

test("a settled round is never called voided or refunded", () => {
  const text = movedNotice({ title: "Shared", seats: [0, 2], round: { fate: "settled", net: 1000 } });
  assert.doesNotMatch(text, /voided|refund/);
  assert.match(text, /settled before the move \(\+\u2060\$10\.00\)/);
  assert.match(text, /Your seats #1, #3 there are gone/);
});

test("without the history the page claims neither; with no round at stake it says none", () => {
  const unknown = movedNotice({ title: "Shared", seats: [1], round: { fate: "unknown" } });
  assert.match(unknown, /either settled before the move or voided/);
  assert.doesNotMatch(unknown, /was voided|was refunded/);
  const seatsOnly = movedNotice({ title: "Shared", seats: [1] });
  assert.doesNotMatch(seatsOnly, /round|voided|refund/);
  assert.match(seatsOnly, /Your seat #2 there is gone/);
});

test("a table back at the same address says its server restarted, not that it moved", () => {
  const text = movedNotice({ title: "Nine Seats", seats: [6, 7, 8], round: { fate: "voided" }, restarted: true });
  assert.doesNotMatch(text, /moved|another server|there/);
  assert.match(text, /^“Nine Seats” is back: its server restarted\. /);
  assert.match(text, /Your round in play was voided: every bet of it \(antes, raises, progressive\) was refunded\./);
  assert.match(text, /Your seats #7, #8, #9 were let go: take a seat to play on\.$/);
  const settled = movedNotice({ title: "T", seats: [0], round: { fate: "settled", net: -500 }, restarted: true });
  assert.match(settled, /Your round in play was settled before the restart \(−\u2060\$5\.00\): History shows it\./);
  assert.match(settled, /Your seat #1 was let go/);
  const unknown = movedNotice({ title: "T", round: { fate: "unknown" }, restarted: true });
  assert.match(unknown, /either settled before the restart or voided/);
});

test("a table whose server said it was shutting down is not said to have failed", () => {
  const text = movedNotice({ title: "Shared", seats: [0], round: { fate: "voided" }, shutdown: true });
  assert.match(text, /^“Shared” moved to another server of the casino: its own was shut down\. /);
  assert.doesNotMatch(text, /stopped answering|lost its hold/);
});

test("a table restarted on restored data says why the seats went, and what of the round", () => {
  const deciding = { table: "alpha", round_id: "r-7", phase: "deciding", seats: [seat(500), other, seat(200)] };
  const frame = { t: "table_restarted", table: "alpha", round_id: "r-7", reason: "restored" };
  const text = restartedNotice({ title: "Alpha", frame, snap: deciding, playerId: ME });
  assert.match(text, /^The casino restored its data from a backup: what was played since is undone, and “Alpha” starts over\./);
  assert.match(text, /Your round there was given up: what the backup holds of it is refunded\. Your wallet shows what you have\./);
  assert.match(text, /Your seats #1, #3 are free again: take a seat to play on\.$/);
  const seatedOnly = restartedNotice({ title: "Alpha", frame: { ...frame, round_id: null },
    snap: { ...deciding, round_id: null, phase: "waiting", seats: [seat(0), other] }, playerId: ME });
  assert.doesNotMatch(seatedOnly, /round/);
  assert.match(seatedOnly, /Your wallet shows what you have\./);
  assert.match(seatedOnly, /Your seat #1 is free again/);
  const watching = restartedNotice({ title: "Alpha", frame, snap: deciding, playerId: "p-eve" });
  assert.equal(watching, "The casino restored its data from a backup: what was played since is undone, "
    + "and “Alpha” starts over, every seat free.");
});

test("a server shut down in order and started again says so, and why the seats went", () => {
  const text = movedNotice({ title: "Nine Seats", seats: [8], round: { fate: "settled", net: 1500 },
    restarted: true, shutdown: true });
  assert.match(text, /^“Nine Seats” is back: its server shut down and was started again\. /);
  assert.match(text, /Your round in play finished before it shut down \(\+\u2060?\$15\.00\): History shows it\./);
  assert.match(text, /It gave its tables up as it shut down, so your seat #9 was let go: take a seat to play on\.$/);
  assert.doesNotMatch(text, /restarted\.|failed|stopped answering/);
  const seatsOnly = movedNotice({ title: "T", seats: [0, 1], restarted: true, shutdown: true });
  assert.doesNotMatch(seatsOnly, /round/);
  assert.match(seatsOnly, /your seats #1, #2 were let go/);
  const voided = movedNotice({ title: "T", seats: [0], round: { fate: "voided" }, restarted: true, shutdown: true });
  assert.match(voided, /Your round in play was voided as it shut down: every bet of it/);
});

test("a round of a session the server forgot is called neither voided nor settled", () => {
  for (const shutdown of [true, false]) {
    const text = movedNotice({ title: "Casino Stud 9", seats: [8], round: { fate: "forgotten" },
      restarted: true, shutdown });
    assert.doesNotMatch(text, /voided:|was voided|refunded|settled before|finished before/);
    assert.match(text, /Your round in play is not in your History: the server came back without its old data \(you play on as a new player\); whether it was settled or voided is not known here\./);
  }
  const played = movedNotice({ title: "T", seats: [8], round: { fate: "forgotten", finished: true },
    restarted: true, shutdown: true });
  assert.match(played, /Your round in play was played out before it shut down \(you saw its showdown\); it is not in your History/);
  assert.doesNotMatch(played, /voided|refunded/);
});
