// A chip purchase carried through to its answer. Each purchase is sent with a key
// of its own (PROTOCOL.md, buy_chips), so when its answer is lost (the link drops,
// the server is slow) the same purchase is simply sent again, from this socket or
// the next one, and the server buys it once. The purchase on its way is kept in
// sessionStorage, so a reload carries it on too.

import { ServerError } from "./connection.js";

const STORAGE_KEY = "stud.purchase";
const RETRY_MS = 2000;
/** Refusals that say only that this try was not taken (the store away, too fast, a
 * server stopping): after a try without an answer, the purchase may still have been
 * made by it, so the same key goes again. */
const NOT_THIS_TRY = new Set(["store_unavailable", "rate_limited", "shutting_down"]);
/** Tries after which a purchase in doubt is left to the balance to tell. */
const MAX_TRIES = 15;

/** A fresh purchase key: 96 random bits (crypto.getRandomValues works without https). */
function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `web-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

export class Purchases {
  /**
   * @param {import("./connection.js").Connection} conn
   * @param {{onWaiting: (amount: number) => void, onError: (err: unknown) => void,
   *   onBought: (amount: number) => void, onUnknown: (amount: number) => void,
   *   onChange?: () => void}} say
   *   onWaiting: no answer yet, the purchase goes again once connected; onError: refused;
   *   onBought: bought (once, however many times it was sent); onUnknown: given up on
   *   after MAX_TRIES without an answer (the balance tells); onChange: one started or ended
   */
  constructor(conn, say) {
    this.conn = conn;
    this.say = say;
    this.timer = null;
    try {
      this.current = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? "null");
    } catch {
      this.current = null;
    }
  }

  /** The purchase whose answer has not come, or null: {amount, player, key, lost?, tries?}
   * (`lost`: a try went without an answer). */
  get waiting() {
    return this.current;
  }

  /**
   * Buy `amount` cents of chips for `player` (a player id); false (nothing sent)
   * while another purchase is on its way.
   */
  buy(amount, player) {
    if (this.current) return false;
    this.current = { amount, player, key: newKey() };
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(this.current));
    this.say.onChange?.();
    this.send(player);
    return true;
  }

  /**
   * Send the purchase on its way again (after a welcome: a new socket, or a reload).
   * Keys are each player's own: another player signed in here does not buy it.
   */
  send(player) {
    clearTimeout(this.timer);
    const p = this.current;
    if (p && p.player !== player) this.#done(p);
    if (!p || p.player !== player || !this.conn.open) return;
    this.conn.request("buy_chips", { amount: p.amount, key: p.key }).then(
      () => {
        if (this.#done(p)) this.say.onBought(p.amount);
      },
      (err) => {
        if (this.current !== p) return; // answered by another try
        const refused = err instanceof ServerError;
        if (refused && !(p.lost && NOT_THIS_TRY.has(err.code))) {
          this.#done(p); // a definite answer: nothing was bought
          this.say.onError(err);
          return;
        }
        // No answer (or a later try not taken): it may have been bought. The same key
        // again cannot buy twice.
        p.lost = true;
        p.tries = (p.tries ?? 0) + 1;
        sessionStorage.setItem(STORAGE_KEY, JSON.stringify(p));
        if (p.tries >= MAX_TRIES) {
          this.#done(p);
          this.say.onUnknown(p.amount);
          return;
        }
        this.say.onWaiting(p.amount);
        if (this.conn.open) this.timer = setTimeout(() => this.send(player), RETRY_MS);
      },
    );
  }

  /** End purchase `p`; false if it had ended already (an answer to an earlier try). */
  #done(p) {
    if (this.current !== p) return false;
    this.current = null;
    sessionStorage.removeItem(STORAGE_KEY);
    this.say.onChange?.();
    return true;
  }
}

/** The buy field's usual amount, in dollars (index.html's `value`). */
export const USUAL_BUY = 500;

/**
 * What the buy field holds after a purchase over the limit was refused (a frame with
 * `allowed` or `max_buy_chips`, cents): the usual amount, or the most that may be
 * bought when that is less, in whole dollars; null for any other refusal (the amount
 * typed stays, to be corrected). An amount over the limit left in the field was
 * refused again by the next Buy.
 */
export function amountAfterRefusal(err) {
  const f = err?.frame ?? {};
  if (f.code !== "buy_in_limit") return null;
  const limit = f.allowed ?? f.max_buy_chips;
  const most = typeof limit === "number" ? Math.floor(limit / 100) : USUAL_BUY;
  return most >= 1 ? String(Math.min(USUAL_BUY, most)) : String(USUAL_BUY);
}
