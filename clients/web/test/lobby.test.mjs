// Which lobby rows are this server's own tables (js/lobby.js tablePageUrl): a row
// whose address is the welcome's `url` is local however the page was reached (a
// proxy, 127.0.0.1 for localhost); another process's row links to its page.
import assert from "node:assert/strict";
import { test } from "node:test";

import { installFakeDom } from "./fakedom.mjs";

installFakeDom();
const { tablePageUrl } = await import("../js/lobby.js");

const here = { host: "127.0.0.1:8765" };

test("a row at this server's own address is local, whatever the page's host", () => {
  assert.equal(tablePageUrl("ws://localhost:8765/ws", "east", here, "ws://localhost:8765/ws"), null);
  assert.equal(tablePageUrl("ws://127.0.0.1:8765/ws", "east", here, null), null); // same host
});

test("another process's row links to its page, with the table", () => {
  assert.equal(tablePageUrl("ws://localhost:8766/ws", "east", here, "ws://localhost:8765/ws"),
    "http://localhost:8766/?table=east");
  assert.equal(tablePageUrl("wss://b.example/ws", "west", here, "wss://a.example/ws"),
    "https://b.example/?table=west");
});

test("no address, or not a ws one, links nowhere", () => {
  assert.equal(tablePageUrl("", "east", here, null), null);
  assert.equal(tablePageUrl("http://x/ws", "east", here, null), null);
});

test("the raise paytable shows no odds for a high card, which never beats a qualifying dealer", async () => {
  const { raisePaytable } = await import("../js/paytable.js");
  const table = raisePaytable({ raise_paytable: [
    { category: "ONE_PAIR", label: "One Pair", odds: "1:1" },
    { category: "HIGH_CARD", label: "High Card", odds: "1:1" },
  ] });
  const text = (tr) => tr.children.map((c) => c.textContent);
  const rows = table.children.find((c) => c.tagName === "TBODY").children;
  assert.deepEqual(text(rows[0]), ["One Pair", "1:1"]);
  assert.deepEqual(text(rows[1]), ["High Card", "—"]);
});

test("a row's badge says the phase, a suspended table in words, and a silent server over both", async () => {
  const { phaseBadge } = await import("../js/lobby.js");
  const row = (extra) => ({ id: "east", phase: "deciding", paused: false, silent: false, ...extra });
  assert.equal(phaseBadge(row()).textContent, "Deciding");
  assert.equal(phaseBadge(row({ phase: "suspended" })).textContent, "Suspended");
  const silent = phaseBadge(row({ silent: true }));
  assert.equal(silent.textContent, "No answer");
  assert.match(silent.getAttribute("class"), /phase-silent/);
  assert.match(silent.getAttribute("title"), /moving to another server/);
});

test("a table whose server shuts down is said so, not paused by the casino", async () => {
  const { pausedBadge } = await import("../js/lobby.js");
  const paused = pausedBadge({ id: "east", paused: true });
  assert.equal(paused.textContent, "Paused");
  const closing = pausedBadge({ id: "east", paused: true, closing: true });
  assert.equal(closing.textContent, "Shutting down");
  assert.match(closing.getAttribute("title"), /server is shutting down/);
});
