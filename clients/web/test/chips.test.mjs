// A bet reduced by the selected chip (js/chips.js), as the rules' right-click does.
import assert from "node:assert/strict";
import { test } from "node:test";

import { lessBy } from "../js/chips.js";

test("the selected chip comes off the stack when it holds one", () => {
  assert.deepEqual(lessBy([1000, 500, 1000], 1000), [1000, 500]);
  assert.deepEqual(lessBy([2500, 100], 100), [2500]);
});

test("a chip of another value is broken to take the selected one's value off", () => {
  // $25 with the $1 selected: $24 left, not nothing (it took the whole $25 off)
  assert.deepEqual(lessBy([2500], 100), [1000, 1000, 100, 100, 100, 100]);
  assert.deepEqual(lessBy([10000, 500], 2500), [2500, 2500, 2500, 500]);
});

test("a bet smaller than the selected chip is taken off whole", () => {
  assert.deepEqual(lessBy([500], 1000), []);
  assert.deepEqual(lessBy([], 100), []);
});
