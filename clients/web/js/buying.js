// Buying chips: the one purchase on its way (purchase.js carries it to its answer)
// and what it says to the player, and the top bar's Buy form, which words every
// amount it refuses itself.

import { $ } from "./dom.js";
import { dollars } from "./format.js";
import { conn } from "./link.js";
import { dismissRefusals, dismissToasts, showError } from "./notices.js";
import { Purchases, USUAL_BUY, amountAfterRefusal } from "./purchase.js";
import { render, state } from "./state.js";

const MAX_WIRE_CENTS = 10 ** 12; // the most any money field may hold (PROTOCOL.md §4)

export const purchases = new Purchases(conn, {
  onWaiting: (amount) => showError(`No answer yet to your purchase of ${dollars(amount)}: `
    + "it is sent again once connected, and bought only once.", { code: "purchase-waiting", tone: "info" }),
  onError: (err) => {
    dismissToasts("purchase-waiting");
    const amount = amountAfterRefusal(err); // over the limit: not left for the next Buy
    if (amount !== null) $("buy-amount").value = amount;
    showError(err, { about: "buy" });
  },
  onBought: (amount) => {
    dismissToasts("purchase-waiting");
    dismissRefusals("buy");
    showError(`Bought ${dollars(amount)} of chips.`, { code: "purchase-done", tone: "ok" });
  },
  onUnknown: (amount) => {
    dismissToasts("purchase-waiting");
    showError(`Your purchase of ${dollars(amount)} could not be confirmed: your balance shows `
      + "whether it was made (it was made once at most).");
  },
  onChange: () => render(),
});

/** The top bar's Buy form sent. */
export function onBuy(event) {
  event.preventDefault();
  dismissRefusals("buy"); // a new try: what was said of the last one is over
  // the page words every bad amount itself (the form is `novalidate`): the browser's
  // own bubble is easy to miss, and says nothing of whole dollars
  const text = $("buy-amount").value.trim();
  const wanted = Number(text);
  // digits alone: a number field also takes "1e2" and "5.0", which are not what was meant
  if (!/^[0-9]+$/.test(text) || wanted < 1) {
    showError("Chips are bought in whole dollars: enter an amount of $1 or more, in digits alone "
      + "(no cents, no signs).", { code: "buy-amount", about: "buy" });
    return;
  }
  if (!Number.isSafeInteger(wanted * 100) || wanted * 100 > MAX_WIRE_CENTS) {
    showError("That is more than a purchase can be: enter a smaller amount.", { code: "buy-amount", about: "buy" });
    $("buy-amount").value = String(USUAL_BUY);
    return;
  }
  const cents = wanted * 100;
  if (!purchases.buy(cents, state.me?.player_id)) {
    showError(`Your purchase of ${dollars(purchases.waiting.amount)} is still on its way: wait for its answer.`,
      { code: "purchase-waiting" });
  }
}
