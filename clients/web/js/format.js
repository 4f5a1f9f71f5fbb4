// Money, hand names and error messages as a player reads them.
// Money on the wire is always integer cents; it is only formatted here.

const MINUS = "\u2212";
// between a sign and "$" a line may break (both are prefixes to a number): a word joiner,
// unseen and unread, keeps "−$10.00" whole at the end of a line
const JOIN = "\u2060";

/** 109900 -> "$1,099.00"; with `{ short: true }` whole dollars drop ".00" ("$25"). */
export function dollars(cents, { short = false } = {}) {
  const n = Number(cents) || 0;
  const abs = Math.abs(n);
  const whole = String(Math.floor(abs / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const frac = abs % 100;
  const text = short && frac === 0 ? `$${whole}` : `$${whole}.${String(frac).padStart(2, "0")}`;
  return n < 0 ? `${MINUS}${JOIN}${text}` : text;
}

/** How long a notice stays whole, in view, before it folds to a line: ten seconds, or
 * for a long one some 70 ms a letter (a restart's eight lines folded after ten seconds,
 * three of them at once, before they could be read). */
export function readingMs(text) {
  return Math.max(10000, 70 * String(text).length);
}

/** A signed amount: "+$15.00", "−$5.00", "$0.00". */
export function signedDollars(cents) {
  return cents > 0 ? `+${JOIN}${dollars(cents)}` : dollars(cents);
}

/** Payout odds as "N:1": the lobby sends "2:1" (the protocol documents a bare int). */
export function oddsText(odds) {
  return typeof odds === "number" ? `${odds}:1` : String(odds);
}

// Hand categories, lowest first; the server may send them as "two_pair" or "TWO_PAIR".
const CATEGORIES = [
  "high_card", "ace_king", "one_pair", "two_pair", "three_of_a_kind", "straight",
  "flush", "full_house", "four_of_a_kind", "straight_flush", "royal_flush",
];
const LABELS = {
  high_card: "High Card", ace_king: "Ace-King", one_pair: "One Pair", two_pair: "Two Pair",
  three_of_a_kind: "Three of a Kind", straight: "Straight", flush: "Flush",
  full_house: "Full House", four_of_a_kind: "Four of a Kind",
  straight_flush: "Straight Flush", royal_flush: "Royal Flush",
};

/** The rank of a category (0 = high card), or -1 if unknown. */
export function categoryRank(category) {
  return CATEGORIES.indexOf(String(category ?? "").toLowerCase());
}

/** "ROYAL_FLUSH" -> "Royal Flush". */
export function categoryLabel(category) {
  const key = String(category ?? "").toLowerCase();
  return LABELS[key] ?? key.replace(/_/g, " ").replace(/\b\w/g, (c) => c.toUpperCase());
}

/** The dealer qualifies with Ace-King or better. */
export function qualifies(dealer) {
  if (typeof dealer?.qualifies === "boolean") return dealer.qualifies;
  if (!dealer?.hand) return null;
  return categoryRank(dealer.hand.category) >= categoryRank("ace_king");
}

/**
 * A seat's state in words, the same words as the terminal client's
 * (clients/tui/render.py `seat_status`): "Ready", "Sitting out", "Deciding…",
 * "Raised", "Folded", "Folded (timer)", "Folded (left)", "Next round", "Away"; "" when there is nothing
 * to say.
 */
export function seatStatus(phase, seat) {
  if (seat.decision === "fold") return foldLabel(seat);
  if (seat.decision === "raise") return "Raised";
  if (phase === "deciding" && seat.cards) return "Deciding…";
  if (phase === "betting" && seat.ready) return seat.ante > 0 ? "Ready" : "Sitting out";
  // dealt without this seat: said, so a player who sat out sees that it took; a seat
  // taken after the deal sat nothing out, it plays from the next round
  if ((phase === "deciding" || phase === "showdown") && !seat.cards && !seat.ante) {
    return seat.next_round ? "Next round" : "Sitting out";
  }
  if (!seat.connected) return "Away";
  return "";
}

/**
 * "N of M players ready" while betting: the players betting waits for. One away (no
 * connection, within the reconnect grace) with no ante is not waited for, so not counted.
 */
export function readiness(seats) {
  const people = seats.filter(Boolean);
  const waited = new Set();
  const ready = new Set();
  for (const s of people) {
    if (s.ready) ready.add(s.player_id);
    const staked = people.some((o) => o.player_id === s.player_id && o.ante > 0);
    const here = people.some((o) => o.player_id === s.player_id && o.connected);
    if (s.ready || staked || here) waited.add(s.player_id);
  }
  const n = waited.size;
  return `${ready.size} of ${n} player${n === 1 ? "" : "s"} ready`;
}

/** A fold in words: by the player, by the clock, or for a player who left with it undecided. */
export function foldLabel(seat) {
  if (seat.left) return "Folded (left)";
  return seat.auto ? "Folded (timer)" : "Folded";
}

/** A hand's decision as the table and every history say it: "Raised", a fold's label, "" for none. */
export function decisionLabel(seat) {
  return seat.decision === "raise" ? "Raised" : seat.decision === "fold" ? foldLabel(seat) : "";
}

/**
 * The client seeds of a proof ("a,,b": one per seat that anted, in seat order) in words:
 * only the seeds given, each with its seat when `seats` (the seat indexes that anted, in
 * order) says it, "#1 “a”, #3 “b”"; "none" once when no seat set one ("none, none, none,
 * none, “lucky-7”" said the same "none" four times). A seat whose seed is unknown reads
 * as the seeds' place among the hands.
 */
export function clientSeedsText(joined, seats = null) {
  const parts = String(joined ?? "").split(",");
  if (parts.every((p) => p === "")) return "none";
  const given = parts.flatMap((p, k) => (p ? [`${seats?.[k] === undefined ? "" : `#${seats[k] + 1} `}“${p}”`] : []));
  const others = parts.length - given.length;
  return others ? `${given.join(", ")}; none from the other ${others === 1 ? "hand" : `${others} hands`}`
    : given.join(", ");
}

export const OUTCOMES = {
  win: "Win",
  lose: "Lose",
  push: "Push",
  fold: "Folded",
  no_qualify: "Dealer did not qualify",
};

/**
 * What a progressive bet paid, in cents, or null when the seat had none.
 * The server sends either a number or `{fixed_cents|percent_bp, paid}`.
 */
export function progressivePaid(prize) {
  if (prize === null || prize === undefined) return null;
  if (typeof prize === "number") return prize;
  return prize.paid ?? prize.fixed_cents ?? 0;
}

const CARD_RANKS = {
  2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven", 8: "Eight", 9: "Nine",
  T: "Ten", J: "Jack", Q: "Queen", K: "King", A: "Ace",
};
const CARD_SUITS = { c: "clubs", d: "diamonds", h: "hearts", s: "spades" };

/** "Th" -> "Ten of hearts". */
export function cardName(text) {
  return `${CARD_RANKS[text[0]] ?? text[0]} of ${CARD_SUITS[text[1]] ?? text[1]}`;
}

/**
 * An error frame (or a client-side Error) in words. Codes whose message is in
 * cents get a sentence in dollars built from the frame's details.
 */
export function errorText(err) {
  const f = err?.frame ?? {};
  switch (f.code) {
    case "insufficient_funds":
      if (f.needed !== undefined) {
        return `Not enough chips: this bet needs ${dollars(f.needed)} available `
          + `(ante, progressive and the raise it may call for) and you have `
          + `${dollars(f.available)}. Buy chips to keep playing.`;
      }
      break;
    case "bonus_not_playable":
      if (f.needed !== undefined) {
        return `Not enough play credits: this bet needs ${dollars(f.needed)} available and you `
          + `have ${dollars(f.available)}. Bonus credits cannot be wagered at this game: `
          + `buy chips to keep playing.`;
      }
      break;
    case "ante_out_of_limits":
      if (f.min_ante !== undefined) {
        return `The ante at this table must be between ${dollars(f.min_ante)} and `
          + `${dollars(f.max_ante)}.`;
      }
      break;
    case "buy_in_limit":
      // refused by the balance cap (`max_balance` said): name it, or "at most $0.00" reads
      // as a limit with no reason
      if (f.max_balance !== undefined && f.allowed !== undefined) {
        const cap = `the wallet's ${dollars(f.max_balance)} cap`;
        return f.allowed > 0
          ? `That purchase would take your balance (chips on hold included) past ${cap}. `
            + `You can buy at most ${dollars(f.allowed)} of chips now.`
          : `Your balance (chips on hold included) is at ${cap}: no chips can be bought until `
            + "it is below it again.";
      }
      if (f.allowed !== undefined) {
        return `That purchase is over the limit. You can buy at most ${dollars(f.allowed)} of chips now.`;
      }
      if (f.max_buy_chips !== undefined) {
        return `That purchase is over the limit. You can buy at most ${dollars(f.max_buy_chips)} of chips at a time.`;
      }
      break;
    case "round_moved_on":
      return "The round had moved on before that reached the table: nothing was bet or "
        + "changed. The table shows where it is now.";
    default:
      break;
  }
  const text = f.message ?? err?.message ?? String(err);
  return text ? text.charAt(0).toUpperCase() + text.slice(1) : "Something went wrong.";
}
