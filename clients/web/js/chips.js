// Casino chips: the five denominations the rules name, and a stack drawn from
// an amount (largest chips first), as on a real betting circle.

import { h } from "./dom.js";
import { dollars } from "./format.js";

/** Chip values in cents with their colours (CSS classes). */
export const CHIPS = [
  { cents: 100, cls: "chip-1" },
  { cents: 500, cls: "chip-5" },
  { cents: 1000, cls: "chip-10" },
  { cents: 2500, cls: "chip-25" },
  { cents: 10000, cls: "chip-100" },
];

const BY_VALUE_DESC = [...CHIPS].sort((a, b) => b.cents - a.cents);
const MAX_DRAWN = 6;

/** One chip face, e.g. for the rack. */
export function chipFace(chip, props = {}) {
  return h("span", { class: `chip ${chip.cls}`, ...props },
    h("span", { class: "chip-label" }, dollars(chip.cents, { short: true })));
}

/** The chips that make up `cents`, largest first (at most a few are drawn). */
export function breakdown(cents) {
  const out = [];
  let rest = cents;
  for (const chip of BY_VALUE_DESC) {
    while (rest >= chip.cents) {
      out.push(chip);
      rest -= chip.cents;
    }
  }
  return out;
}

/**
 * The chips left once a bet is reduced by `cents`, the selected chip's value, as the
 * rules' right-click does ("reduced by the amount of the currently selected chip"):
 * that chip off when the stack holds one, else what is left broken into chips anew
 * (the $1 selected on a $25 chip leaves $24); nothing when it holds less.
 */
export function lessBy(chips, cents) {
  const at = chips.lastIndexOf(cents);
  if (at >= 0) return [...chips.slice(0, at), ...chips.slice(at + 1)];
  const rest = chips.reduce((sum, c) => sum + c, 0) - cents;
  return rest > 0 ? breakdown(rest).map((chip) => chip.cents) : [];
}

/** A stack of mini chips for an amount, drawn bottom (largest) to top. */
export function chipStack(cents) {
  const chips = breakdown(cents);
  const drawn = chips.slice(0, MAX_DRAWN);
  return h("span", { class: "stack", "aria-hidden": "true" },
    drawn.map((chip, i) => h("span", {
      class: `mini ${chip.cls}`, style: `--i:${i}`,
    })));
}
