// The provably fair deal on screen: commitments in short, the verdict of a
// check (js/fairness.js) in words. Shared by the table view and the history.

import { h } from "./dom.js";

/** "630dcd29…d710dd" for a long hex string (the whole one goes in a title). */
export function shortHex(hex) {
  if (typeof hex !== "string") return "";
  return hex.length > 16 ? `${hex.slice(0, 8)}…${hex.slice(-6)}` : hex;
}

/**
 * What the player's client seed does, in words: `phase` is the table's, `used` whether
 * the deal on the table took it. (At a showdown whose "This deal" listed the seed it
 * said the seed "goes into every deal from the next one on".)
 */
export function seedWords(seed, phase, used) {
  if (used) return `Your seed “${seed}” went into this deal, and goes into every one after.`;
  const when = phase === "betting" ? "this round's deal and every one after" : "every deal from the next one on";
  return `Your seed “${seed}” goes into ${when}.`;
}

/** The Verify button for a round; `action` and `data` say which round it checks. */
export function verifyButton(props, label = "Verify") {
  return h("button", { class: "btn small verify", ...props }, label);
}

/**
 * A check's verdict: "Fair: verified" or "Not fair" with every problem in
 * words; notes (what could not be checked) below. Nothing before a check.
 * `subject` names the round when it is not the one on the table ("Last deal").
 */
export function verdictEl(verdict, testid, subject = null) {
  if (!verdict) return h("div", { class: "verdict none", "data-testid": testid, "data-ok": "" });
  return h("div", { class: `verdict ${verdict.ok ? "ok" : "bad"}`, "data-testid": testid,
    "data-ok": verdict.ok ? "true" : "false", role: "status" },
  h("div", { class: "verdict-head" },
    h("span", { class: "verdict-mark", "aria-hidden": "true" }, verdict.ok ? "✓" : "✗"),
    h("span", { "data-testid": `${testid}-text` }, (subject ? `${subject} — ` : "") + (verdict.ok
      ? "Fair: verified"
      : `Not fair: ${verdict.problems.length} problem${verdict.problems.length === 1 ? "" : "s"}`))),
  verdict.problems.length
    ? h("ul", { class: "verdict-problems", "data-testid": `${testid}-problems` },
      verdict.problems.map((p) => h("li", {}, p)))
    : null,
  verdict.notes.length
    ? h("ul", { class: "verdict-notes" }, verdict.notes.map((n) => h("li", {}, n)))
    : null);
}
