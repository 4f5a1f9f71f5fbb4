// The provably fair box's client seeds in words (js/format.js clientSeedsText): a deal
// where one hand of five gave a seed read "none, none, none, none, “lucky-7”".
import assert from "node:assert/strict";
import { test } from "node:test";

import { installFakeDom } from "./fakedom.mjs";

installFakeDom();
const { clientSeedsText } = await import("../js/format.js");

test("only the seeds given, with their seats, and the others' none said once", () => {
  assert.equal(clientSeedsText(",,,,lucky-7", [0, 1, 2, 3, 8]), "#9 “lucky-7”; none from the other 4 hands");
  assert.equal(clientSeedsText("a,,b", [1, 4, 6]), "#2 “a”, #7 “b”; none from the other hand");
});

test("no seat known: the seeds alone; none given: none once", () => {
  assert.equal(clientSeedsText(",,,,lucky-7"), "“lucky-7”; none from the other 4 hands");
  assert.equal(clientSeedsText(",,"), "none");
  assert.equal(clientSeedsText("x", [2]), "#3 “x”");
});
