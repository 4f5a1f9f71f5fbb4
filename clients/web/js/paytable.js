// The paytables of a variant, from the lobby row's `variant` map: what a
// winning raise pays, and what the progressive bet pays.

import { h } from "./dom.js";
import { dollars, oddsText } from "./format.js";

/** Raise odds, highest hand first. */
export function raisePaytable(variant, { testid } = {}) {
  const rows = variant?.raise_paytable ?? [];
  return h("table", { class: "paytable", "data-testid": testid },
    h("caption", {}, "Raise pays"),
    h("tbody", {}, rows.map((r) => h("tr", { "data-category": String(r.category).toLowerCase() },
      h("th", { scope: "row" }, r.label),
      // a high card never beats a qualifying dealer: its line pays nothing, ever
      r.category === "HIGH_CARD"
        ? h("td", { title: "A high card never beats a dealer who qualifies" }, "—")
        : h("td", {}, oddsText(r.odds))))));
}

/** Progressive prizes: a share of the jackpot or a fixed amount. */
export function progressivePaytable(variant, jackpotCents, { testid } = {}) {
  const rows = variant?.progressive ?? [];
  return h("table", { class: "paytable progressive", "data-testid": testid },
    h("caption", {}, "Progressive pays"),
    h("tbody", {}, rows.map((r) => h("tr", { "data-category": String(r.category).toLowerCase() },
      h("th", { scope: "row" }, r.label),
      h("td", {}, prizeText(r, jackpotCents))))));
}

/** "10% of jackpot" with what that is worth now, or a fixed amount. */
function prizeText(row, jackpotCents) {
  if (row.percent_bp !== undefined && row.percent_bp !== null) {
    const pct = `${row.percent_bp / 100}% of jackpot`;
    if (jackpotCents === undefined) return pct;
    return [pct, h("small", {}, dollars(Math.floor((jackpotCents * row.percent_bp) / 10000)))];
  }
  if (row.fixed_cents !== undefined && row.fixed_cents !== null) return dollars(row.fixed_cents, { short: true });
  return row.text ?? "";
}
