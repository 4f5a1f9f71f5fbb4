// The table's keys (js/keys.js): the terminal client's keys, never while typing.
import assert from "node:assert/strict";
import { test } from "node:test";

import { KEY_HELP, choiceNoticeStale, keyCommand, keyHelp, nextWaiting } from "../js/keys.js";

const on = (target) => ({ closest: (sel) => (sel.includes(target) ? {} : null) });
const press = (key, extra = {}) => keyCommand({ key, target: on("nothing"), ...extra });

test("the terminal client's keys", () => {
  assert.deepEqual(press("s"), { cmd: "sit" });
  assert.deepEqual(press("3"), { cmd: "chip", cents: 1000 });
  assert.deepEqual(press("5"), { cmd: "chip", cents: 10000 });
  assert.deepEqual(press("Backspace"), { cmd: "unchip" });
  for (const [key, cmd] of [["p", "progressive"], ["d", "deal"], ["f", "fold"], ["r", "raise"], ["b", "buy"],
    ["l", "leave"], ["a", "rebet"], ["x", "clear"], ["h", "history"], ["Tab", "next-seat"]]) {
    assert.deepEqual(press(key), { cmd }, key);
  }
  assert.deepEqual(press("D"), { cmd: "deal" });
});

test("nothing fires while typing, with a modifier, or on other keys", () => {
  assert.equal(keyCommand({ key: "d", target: on("input") }), null);
  assert.equal(press("r", { ctrlKey: true }), null);
  assert.equal(press("Tab", { shiftKey: true }), null);
  assert.equal(press("q"), null);
  assert.equal(press("6"), null);
});

test("the help line: the phase's keys, short; every key in the tooltip's line", () => {
  for (const phase of ["waiting", "betting", "deciding", "showdown"]) {
    const line = keyHelp(phase);
    assert.ok(line.length <= 56, `${phase}: ${line.length} characters`);
    for (const part of line.replace("Keys: ", "").split(" · ")) {
      assert.ok(KEY_HELP.includes(`${part.split(" ")[0]} `), part);
    }
  }
  assert.match(keyHelp("deciding"), /f fold · r raise/);
  assert.match(keyHelp("betting"), /d deal/);
});

test("a paused table's help line offers no chip, progressive, rebet or deal", () => {
  for (const phase of ["waiting", "betting"]) {
    for (const paused of [{ reason: "dealer change" }, { shutdown: true }]) {
      const line = keyHelp(phase, { paused });
      assert.ok(line.length <= 56, `${line}: ${line.length} characters`);
      assert.doesNotMatch(line, /chip|progressive|rebet|d deal/);
      assert.match(line, paused.shutdown ? /closing/ : /paused by the casino/);
    }
  }
  // a round dealt under the pause still plays out: its keys as ever
  assert.match(keyHelp("deciding", { paused: { reason: "x" } }), /f fold · r raise/);
});

test("a decided hand hands the selection on to the next one waiting, in seat order", () => {
  assert.equal(nextWaiting([0, 1, 2], 1), 2); // #2 decided: on to #3, not back to #1
  assert.equal(nextWaiting([0, 1, 2], 2), 0); // the last: round to the first
  assert.equal(nextWaiting([0, 4, 6], 0), 4);
  assert.equal(nextWaiting([3], 3), undefined); // none left
  assert.equal(nextWaiting([5, 7], 1), 5); // the decided one already gone from the list
});

test("a key's notice of a hand decided already goes once the hand it selected is decided, or the round moves on", () => {
  const hand = (decision = null) => ({ cards: ["AS", "KD", "7C", "7H", "2D"], decision });
  const deciding = { phase: "deciding", seats: [hand(), hand("raise"), null] };
  assert.equal(choiceNoticeStale(0, deciding), false); // #1 selected, still waiting
  assert.equal(choiceNoticeStale(null, deciding), false); // no hand named: the phase says
  assert.equal(choiceNoticeStale(0, { ...deciding, seats: [hand("raise"), hand("raise"), null] }), true);
  assert.equal(choiceNoticeStale(0, { ...deciding, seats: [hand("fold"), hand("raise"), null] }), true);
  assert.equal(choiceNoticeStale(0, { ...deciding, seats: [null, hand("raise"), null] }), true); // stood up
  for (const phase of ["showdown", "betting", "waiting"]) {
    assert.equal(choiceNoticeStale(0, { ...deciding, phase }), true, phase);
    assert.equal(choiceNoticeStale(null, { ...deciding, phase }), true, phase);
  }
});
