// The table's clock (js/table.js) drawn into a small fake DOM: it runs only while the
// server is heard. Silent for the liveness ping's wait (a frozen host's clock stopped,
// and nothing may happen at zero), it says it waits for the server instead of counting;
// offline it shows no clock at all.
import assert from "node:assert/strict";
import { test } from "node:test";

import { installFakeDom } from "./fakedom.mjs";

installFakeDom();
const { clockView, renderTable } = await import("../js/table.js");

function deciding() {
  return {
    t: "table", table: "alpha", title: "Alpha", seq: 9, phase: "deciding", round_id: "alpha-1", ends_in_ms: 20000,
    min_ante: 100, max_ante: 10000, progressive_stake: 100, variant: "casino-stud", hands: "open",
    jackpot: { name: "main", amount: 100000 },
    dealer: { cards: ["As", "back", "back", "back", "back"], hand: null, qualifies: null },
    seats: [
      { player_id: "p-ann", name: "Ann", connected: true, ante: 500, progressive: false, ready: true,
        decision: null, auto: false, cards: ["2c", "3d", "4h", "5s", "7c"], hand: { label: "High Card" }, result: null },
      null,
    ],
    spectators: 0, fairness: null, last: null,
  };
}

function table(link) {
  return renderTable({
    snap: deciding(), me: { player_id: "p-ann" }, row: null,
    build: () => ({ chips: [], progressive: false }),
    chip: 500, busy: false, maxSeats: 1, receivedAt: 0, now: 3000, jackpot: 100000, available: 100000,
    layout: { mode: "flow", positions: [], vars: {} }, selected: 0, deal: null, rebet: null, fair: {},
    ...link,
  });
}

const CLOCKS = ["countdown", "dealer-countdown"];

test("a server heard from: the clock counts down", () => {
  const root = table({ online: true, quiet: false });
  for (const id of CLOCKS) {
    const clock = root.byTestId(id);
    assert.equal(clock.textContent, "17s");
    assert.equal(clock.getAttribute("hidden"), null);
  }
  assert.deepEqual(clockView(deciding(), 0, 3000, { online: true, quiet: false }),
    { hidden: false, text: "17s", urgent: false, waiting: false });
});

test("a server silent until the ping: no seconds, it says it waits for the server", () => {
  const root = table({ online: true, quiet: true });
  for (const id of CLOCKS) {
    const clock = root.byTestId(id);
    assert.equal(clock.getAttribute("hidden"), null, id);
    assert.match(clock.textContent, /waiting/i, id);
    assert.doesNotMatch(clock.textContent, /\d/, id); // nothing that promises a zero
  }
  assert.match(root.byTestId("countdown").textContent, /^waiting for the server…$/);
  const view = clockView(deciding(), 0, 3000, { online: true, quiet: true });
  assert.equal(view.waiting, true);
  assert.equal(view.urgent, false);
});

test("offline or reconnecting: no clock runs", () => {
  for (const link of [{ online: false, quiet: false }, { online: false, quiet: true }]) {
    const root = table(link);
    for (const id of CLOCKS) {
      const clock = root.byTestId(id);
      assert.equal(clock.getAttribute("hidden"), "", id);
      assert.doesNotMatch(clock.textContent, /\d/, id);
    }
    assert.equal(clockView(deciding(), 0, 3000, link).hidden, true);
  }
});

test("a table without a timer shows none, heard from or not", () => {
  const snap = { ...deciding(), phase: "waiting", ends_in_ms: null };
  for (const quiet of [false, true]) assert.equal(clockView(snap, 0, 0, { online: true, quiet }).hidden, true);
});

test("a button pressed into the silence is not left greyed without a word", () => {
  const root = table({ online: true, quiet: true, busy: true });
  assert.equal(root.byTestId("fold-0").getAttribute("disabled"), "");
  assert.match(root.byTestId("table-message").textContent, /^Waiting for the server/);
});

test("back online, the clock is said to have run on only when less time is left", async () => {
  const { backOnlineText } = await import("../js/table.js");
  // the server stood still as long as the link was down: the time it had left came back
  const still = backOnlineText({ awayMs: 16000, ms: 26000, leftBefore: 26000, seats: "seat #9" });
  assert.equal(still, "Back online, 16s after the table was last heard; its clock stood still: seat #9 "
    + "still waits for your decision (the time left is on the table's clock).");
  // a notice stays up while the clock runs: it gives no figure of the time left, which
  // would be stale a second later (the table's clock has it)
  assert.doesNotMatch(still, /26s/);
  // at least 5 s given back: more than was left, and still no running on
  assert.match(backOnlineText({ awayMs: 9000, ms: 5000, leftBefore: 2000, seats: "seat #1" }), /stood still/);
  // only the page was away: the clock ran on meanwhile
  const ran = backOnlineText({ awayMs: 16000, ms: 10000, leftBefore: 26000, seats: "seat #9" });
  assert.match(ran, /; its clock ran on: seat #9 still waits for your decision \(the time left is on the table's clock\)\.$/);
  assert.match(backOnlineText({ awayMs: 3000, ms: 7000, seats: "seat #2" }), /ran on/);
  assert.match(backOnlineText({ awayMs: 400, ms: 7600, leftBefore: 8000, seats: "seat #2" }), /ran on/);
  // the server stopped a few seconds after it was last heard: it stood still the most
  assert.match(backOnlineText({ awayMs: 16000, ms: 24000, leftBefore: 26000, seats: "seat #9" }),
    /; its clock stood still: seat #9 still waits/);
  // the page away longer than the server stood still: the clock ran part of the time
  assert.match(backOnlineText({ awayMs: 16000, ms: 16000, leftBefore: 26000, seats: "seat #9" }),
    /; its clock ran 10s of that: seat #9 still waits/);
  assert.doesNotMatch(ran, /10s left/);
  assert.match(backOnlineText({ awayMs: 16000, ms: 16000, leftBefore: 26000, seats: "seat #1, #2", many: true }),
    /: seat #1, #2 still wait for your decision \(/);
  assert.equal(backOnlineText({ awayMs: 4000, ms: null, seats: "seat #1, #2", many: true }),
    "Back online, 4s after the table was last heard: seat #1, #2 still wait for your decision.");
});

test("the server silent: the table's buttons are off before any is pressed", () => {
  // "No answer…" in the top bar, yet Fold and Raise took a click: it was sent into the
  // silence, and the raise applied once the server was heard again
  const root = table({ online: true, quiet: true, busy: false, maxSeats: 2 });
  for (const id of ["fold-0", "raise-0", "sit-1"]) assert.equal(root.byTestId(id).getAttribute("disabled"), "", id);
  assert.match(root.byTestId("table-message").textContent, /^Waiting for the server: .*buttons wait/);
  // heard again: they are on
  const heard = table({ online: true, quiet: false, busy: false, maxSeats: 2 });
  for (const id of ["fold-0", "raise-0", "sit-1"]) assert.equal(heard.byTestId(id).getAttribute("disabled"), null, id);
});

// A server shutting down in order voids a round still betting or deciding once its grace
// is over; the strip says so ("within 30 s"), and `paused.voids_in_ms` what was left of it
// when the snapshot was made. The table's clock read "Fold or raise 43s" beside it: it
// counts to whichever comes first.
const { shutdownLeftMs } = await import("../js/table.js");
const SINCE = 1_767_225_600_000;
const SHUTDOWN = {
  shutdown: true, since_ms: SINCE, voids_in_ms: 26000,
  reason: "this server is shutting down: a round not over within 30 s is voided, every bet refunded; "
    + "no new one starts here",
};

test("a shutdown's time left is the snapshot's, never read from its words", () => {
  assert.equal(shutdownLeftMs(SHUTDOWN), 26000);
  assert.equal(shutdownLeftMs({ ...SHUTDOWN, voids_in_ms: undefined }), null, "an older server's");
  assert.equal(shutdownLeftMs({ reason: "an operator's pause", since_ms: SINCE }), null);
  assert.equal(shutdownLeftMs(null), null);
});

test("shutting down, the clock counts to the first deadline: the round's or the shutdown's", () => {
  const link = { online: true, quiet: false };
  const snap = { ...deciding(), ends_in_ms: 46000, paused: SHUTDOWN, shutdownLeftMs: 26000 };
  // 3 s after the snapshot came: 23 s of the grace left, not the round's 43
  assert.equal(clockView(snap, 0, 3000, link).text, "23s");
  const root = table({ ...link, snap });
  for (const id of CLOCKS) assert.equal(root.byTestId(id).textContent, "23s", id);
  // the round's own deadline first: it is the one
  assert.equal(clockView({ ...snap, ends_in_ms: 12000 }, 0, 3000, link).text, "9s");
  // a showdown is over, voided by no shutdown: its pause runs as it is
  assert.equal(clockView({ ...snap, phase: "showdown" }, 0, 3000, link).text, "43s");
});
