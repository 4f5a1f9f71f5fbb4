// Game recall: the player's last settled rounds (the `history` message), each
// with the player's own hands, the dealer's, the results, jackpot awards, the
// wallet before and after, and a Verify button that checks the round's proof.

import { cardRow } from "./cards.js";
import { h } from "./dom.js";
import { shortHex, verdictEl, verifyButton } from "./fairview.js";
import { OUTCOMES, decisionLabel, dollars, progressivePaid, qualifies, signedDollars } from "./format.js";

const TIME_FORMAT = new Intl.DateTimeFormat(undefined, {
  year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit",
});

/**
 * The history panel.
 * @param {object} ctx {history: {open, rounds, loading, error}, me, lobby, verdicts}
 */
export function renderHistory(ctx) {
  const { history } = ctx;
  const rounds = history.rounds;
  const props = { id: "history", class: "history-panel", "data-testid": "history-panel",
    hidden: !history.open, "aria-label": "Your last rounds" };
  if (!history.open) return h("aside", props); // nothing to draw while closed
  return h("aside", props,
  h("header", { class: "history-head" },
    h("h2", {}, "Your last rounds"),
    h("button", { class: "btn small", "data-action": "history-refresh", "data-testid": "history-refresh",
      disabled: history.loading }, history.loading ? "Loading…" : "Refresh"),
    h("button", { class: "close", "data-action": "history-close", "data-testid": "history-close",
      "aria-label": "Close the history" }, "×")),
  h("p", { class: "history-error", "data-testid": "history-error", hidden: !history.error }, history.error ?? ""),
  rounds === null
    ? h("p", { class: "muted history-empty" }, history.loading ? "Loading your rounds…" : "")
    : rounds.length === 0
      ? h("p", { class: "muted history-empty", "data-testid": "history-empty" },
        "No rounds yet: every round you play is listed here once it is settled.")
      : h("ol", { class: "history-list", "data-testid": "history-list" },
        rounds.map((r) => roundEl(r, ctx))));
}

function roundEl(r, ctx) {
  const me = ctx.me?.player_id;
  const mine = (r.seats ?? []).filter((s) => s.player_id === me);
  const others = (r.seats ?? []).filter((s) => s.player_id !== me);
  const net = typeof r.balance_after === "number" && typeof r.balance_before === "number"
    ? r.balance_after - r.balance_before
    : mine.reduce((sum, s) => sum + (s.result?.net ?? 0), 0);
  const row = ctx.lobby?.tables?.find((t) => t.id === r.table);
  const variant = ctx.lobby?.tables?.find((t) => t.variant?.name === r.variant)?.variant;
  const time = r.time_ms ?? r.settled_at;
  const jackpots = Object.entries(r.jackpots ?? {});
  const dealerHand = r.dealer_hand;
  const q = qualifies({ hand: dealerHand });
  const proof = r.fairness;
  return h("li", { class: "hist-round", "data-testid": "history-round", "data-round": r.round_id,
    "data-table": r.table },
  h("div", { class: "hist-top" },
    h("div", { class: "hist-where" },
      h("time", { "data-testid": "history-time", datetime: time ? new Date(time).toISOString() : null },
        time ? TIME_FORMAT.format(new Date(time)) : ""),
      h("span", { class: "hist-table", "data-testid": "history-table" }, row?.title ?? r.table),
      h("span", { class: "hist-variant", "data-testid": "history-variant" }, variant?.title ?? r.variant)),
    h("span", { class: `hist-net ${net > 0 ? "up" : net < 0 ? "down" : "even"}`, "data-testid": "history-net",
      "data-cents": net, title: "What the round changed in your wallet" }, signedDollars(net))),
  h("div", { class: "hist-balance", "data-testid": "history-balance" },
    "Balance ",
    h("span", { "data-testid": "history-balance-before", "data-cents": r.balance_before }, dollars(r.balance_before)),
    " → ",
    h("span", { "data-testid": "history-balance-after", "data-cents": r.balance_after }, dollars(r.balance_after))),
  h("div", { class: "hist-hand dealer-line", "data-testid": "history-dealer" },
    h("span", { class: "hist-who" }, "Dealer"),
    cardRow(r.dealer, { small: true, testid: "history-dealer-cards" }),
    h("div", { class: "hist-detail" },
      h("div", { class: "hist-label", "data-testid": "history-dealer-hand" },
        dealerHand ? [h("b", {}, dealerHand.label), h("span", { class: "muted" }, ` · ${q ? "qualifies" : "does not qualify"}`)] : ""))),
  mine.map((s) => seatLine(s, r, true)),
  jackpots.length
    ? h("div", { class: "hist-jackpots", "data-testid": "history-jackpots" },
      jackpots.map(([seat, cents]) => {
        const who = (r.seats ?? []).find((s) => String(s.seat) === seat);
        const you = who?.player_id === me;
        return h("div", { class: "hist-jackpot", "data-seat": seat, "data-cents": cents },
          h("span", { class: "burst" }, "Jackpot"),
          ` · ${you ? "You" : who?.name ?? "A player"} (seat ${Number(seat) + 1}) won ${dollars(cents)} from the meter`);
      }))
    : null,
  others.length
    ? h("div", { class: "hist-others" },
      h("div", { class: "hist-caption" }, `Other hand${others.length === 1 ? "" : "s"} at the table`),
      others.map((s) => seatLine(s, r, false)))
    : null,
  h("div", { class: "hist-proof" },
    h("span", { class: "hex muted", title: proof?.commitment ? `round ${r.round_id} · commitment ${proof.commitment}` : r.round_id },
      proof?.commitment ? `Commitment ${shortHex(proof.commitment)}` : "Not a provably fair deal"),
    proof
      ? verifyButton({ "data-action": "verify-history", "data-round": r.round_id, "data-testid": "history-verify" })
      : null),
  verdictEl(ctx.verdicts[`history:${r.round_id}`], "history-verdict"));
}

/**
 * The seat's result with its jackpot award counted. A percent prize is paid
 * from the meter after the round's record is written, so the record may carry
 * `progressive_prize` 0 and a `net` without it, the amount being in `jackpots`;
 * fill it in (once: a record that already has it is left as it is).
 */
export function settledResult(s, record) {
  const res = s.result;
  const paid = Number(record.jackpots?.[String(s.seat)] ?? 0);
  const prize = progressivePaid(res?.progressive_prize) ?? 0;
  if (!res || !paid || prize >= paid) return res;
  const more = paid - prize;
  return { ...res, progressive_prize: paid, net: res.net + more, returned: (res.returned ?? 0) + more };
}

function seatLine(s, r, mine) {
  const res = settledResult(s, r);
  const prize = progressivePaid(res?.progressive_prize);
  const decision = decisionLabel(s);
  return h("div", { class: `hist-hand${mine ? " mine" : ""}`, "data-testid": mine ? "history-seat" : "history-other",
    "data-seat": s.seat },
  // another player's hand: its seat beside the cards (two hands of one player told
  // apart), the name over what the hand did, where a long name has the panel's width
  mine
    ? h("span", { class: "hist-who" }, `Seat ${s.seat + 1}`)
    : h("span", { class: "hist-who other", title: `${s.name} · seat ${s.seat + 1}` },
      h("span", { class: "hist-seat" }, `Seat ${s.seat + 1}`)),
  cardRow(s.cards, { small: true, testid: "history-seat-cards" }),
  h("div", { class: "hist-detail" },
    mine ? null : h("div", { class: "hist-name", "data-testid": "history-other-name", title: s.name }, s.name),
    h("div", { class: "hist-label" },
      h("b", { "data-testid": "history-seat-hand" }, s.hand?.label ?? ""),
      h("span", { class: "muted", "data-testid": "history-seat-decision" },
        ` · ante ${dollars(s.ante, { short: true })}${s.progressive ? " + progressive" : ""}${decision ? ` · ${decision}` : ""}`)),
    res
      ? h("div", {},
        h("span", { class: `hist-result ${res.outcome} ${res.net > 0 ? "up" : res.net < 0 ? "down" : "even"}`,
          "data-testid": "history-seat-result",
          "data-outcome": res.outcome, "data-cents": res.net },
        `${OUTCOMES[res.outcome] ?? res.outcome} ${signedDollars(res.net)}`),
        prize ? h("span", { class: "prize", "data-testid": "history-seat-prize", "data-cents": prize },
          ` Progressive ${dollars(prize)}`) : null,
        sideBetLost(s, res) ? h("span", { class: "prize lost", "data-testid": "history-seat-side-bet",
          "data-cents": -sideBetLost(s, res), title: "The progressive bet won nothing; the net counts it" },
        ` incl. JP ${dollars(-sideBetLost(s, res), { short: true })}`) : null)
      : null));
}

/** The progressive stake a seat lost (its bet won nothing), as the table's seat says it
 * ("incl. JP −$1"); 0 for none. The record keeps what went back and the net: the stake
 * is what the seat put in beyond its ante and raise. */
export function sideBetLost(s, res) {
  if (!s.progressive || res?.progressive_prize !== 0) return 0;
  const raised = s.decision === "raise" ? 2 * s.ante : 0;
  const stake = (res.returned ?? 0) - res.net - s.ante - raised;
  return stake > 0 ? stake : 0;
}
