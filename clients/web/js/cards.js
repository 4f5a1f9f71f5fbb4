// Playing cards drawn in HTML: rank and suit in the corners, a big pip in the
// middle, hearts and diamonds in red. A face-down card is a patterned back.

import { h } from "./dom.js";
import { cardName } from "./format.js";

const SUIT_SYMBOLS = { c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660" };

/** A face-up card for "As", "Td", ...; `null` gives a face-down card. */
export function cardEl(text, { small = false, cls = "" } = {}) {
  const extra = `${small ? " small" : ""}${cls ? ` ${cls}` : ""}`;
  if (!text) {
    return h("div", { class: `card back${extra}`, "data-card": "back",
      role: "img", "aria-label": "face-down card" });
  }
  const rank = text[0] === "T" ? "10" : text[0];
  const suit = SUIT_SYMBOLS[text[1]] ?? "?";
  const red = text[1] === "h" || text[1] === "d";
  return h(
    "div",
    { class: `card face ${red ? "red" : "black"}${extra}`, "data-card": text,
      role: "img", "aria-label": cardName(text), title: cardName(text) },
    h("span", { class: "corner top" }, h("b", {}, rank), h("i", {}, suit)),
    h("span", { class: "pip" }, suit),
    h("span", { class: "corner bottom" }, h("b", {}, rank), h("i", {}, suit)),
  );
}

/** A row of cards (`null` entries face down). */
export function cardRow(cards, { small = false, testid } = {}) {
  return h("div", { class: "cards", "data-testid": testid },
    (cards ?? []).map((c) => cardEl(c, { small })));
}

/**
 * The cards of a hand being dealt: `dealt(k)` says whether card k is out yet
 * (the others keep their place as empty slots, which are not `.card`s);
 * `fresh` marks the cards out while the deal is still running, which fly in.
 */
export function dealtRow(cards, { testid, dealt = () => true, fresh = false, small = false, style } = {}) {
  return h("div", { class: "cards", "data-testid": testid, style },
    (cards ?? []).map((c, k) => (dealt(k)
      ? cardEl(c, { small, cls: fresh ? "dealt" : "" })
      : h("div", { class: `card-slot${small ? " small" : ""}`, "aria-hidden": "true" }))));
}
