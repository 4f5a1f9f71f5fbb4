// The lobby: every table with its variant, limits, free seats, spectators,
// jackpot and paytables, and buttons to play or watch. A table hosted by
// another server process of the fleet (its row's `url` is not this server)
// gets an "Open" button that goes to that process's page instead.

import { h } from "./dom.js";
import { dollars } from "./format.js";
import { progressivePaytable, raisePaytable } from "./paytable.js";

const PHASES = {
  waiting: "Waiting", betting: "Betting", deciding: "Deciding", showdown: "Showdown", suspended: "Suspended",
};

/** The row's phase; "No answer" when its server has stopped or frozen (the phase is stale). */
/** A paused table's badge: the casino's pause, or its server shutting down (`closing`),
 * which is no pause of the casino's. */
export function pausedBadge(row) {
  return h("span", { class: "phase phase-paused", "data-testid": `lobby-paused-${row.id}`, hidden: !row.paused,
    title: row.closing ? "This table's server is shutting down: no new round starts here"
      : "The casino paused this table: no new round starts for now" },
  row.closing ? "Shutting down" : "Paused");
}

export function phaseBadge(row) {
  if (row.silent) {
    return h("span", { class: "phase phase-silent", "data-testid": `lobby-silent-${row.id}`,
      title: "Its server has not answered for a while: the table is moving to another server, "
        + "or leaves the lobby if none can take it" }, "No answer");
  }
  return h("span", { class: `phase phase-${row.phase}` }, PHASES[row.phase] ?? row.phase);
}

/**
 * The page of the server process at `wsUrl` (a lobby row's `url`, e.g.
 * "ws://127.0.0.1:8766/ws") showing `tableId`, e.g.
 * "http://127.0.0.1:8766/?table=east"; null when `wsUrl` is empty, not a ws
 * address, or this very server: its own address (`own`, the welcome's `url`), or
 * the same host:port as `here` (the page was reached by another name, a proxy).
 */
export function tablePageUrl(wsUrl, tableId, here = location, own = null) {
  if (!wsUrl || wsUrl === own) return null;
  let u;
  try {
    u = new URL(wsUrl);
  } catch {
    return null;
  }
  const protocol = { "ws:": "http:", "wss:": "https:" }[u.protocol];
  if (!protocol || u.host === here.host) return null;
  const page = new URL(`${protocol}//${u.host}${u.pathname.replace(/\/ws\/?$/, "/")}`);
  if (tableId) page.searchParams.set("table", tableId);
  return page.href;
}

/** The lobby section for `state` (see state.js for the state's shape). */
export function renderLobby(state) {
  const lobby = state.lobby;
  const jackpots = state.jackpots;
  return h("section", { id: "lobby", class: "lobby", "data-testid": "lobby" },
    h("div", { class: "lobby-head" },
      h("div", {},
        h("h1", {}, "Casino Stud Poker"),
        h("p", { class: "lede" }, state.me ? `Welcome, ${state.me.name}. Pick a table to play or watch.` : ""),
        h("p", { class: "fine" }, "Bonus credits are shown in your wallet but cannot be wagered at this game.")),
      // where the notices go (notices.js placeInLobby): room of its own in the heading,
      // beside its words and the jackpot, or on a row of its own where they leave none
      // (over the words they hid the welcome, and at 768 px the jackpot)
      h("div", { class: "lobby-notices", "data-testid": "lobby-notices", "aria-hidden": "true" }),
      h("div", { class: "jackpot-hero" },
        Object.entries(jackpots).map(([name, cents]) => h("div", { class: "meter" },
          h("span", { class: "meter-label" }, `Progressive jackpot${name === "main" ? "" : ` (${name})`}`),
          h("span", { class: "meter-value", "data-testid": `lobby-jackpot-${name}`, "data-cents": cents },
            dollars(cents)))))),
    lobby === null
      ? h("p", { class: "muted" }, "Loading tables…")
      : h("div", { class: "table-list", "data-testid": "table-list" },
        lobby.tables.map((row) => tableCard(row, state))));
}

function tableCard(row, state) {
  const free = row.seats - row.taken;
  const mine = state.tables[row.id]?.seats?.some((s) => s && s.player_id === state.me?.player_id);
  const variant = row.variant ?? {};
  const jackpot = state.jackpots[row.jackpot];
  // "here" is the process the page is connected to, which may not be the one that served it
  const remote = tablePageUrl(row.url, row.id, state.here ?? location, state.serverUrl);
  // a phone shows the paytables of the table asked for only: all of them make a long page
  const paysOpen = state.paysOpen?.[row.id] ?? !window.matchMedia?.("(max-width: 640px)").matches;
  return h("article", { class: "table-card", "data-testid": `lobby-table-${row.id}`, "data-table": row.id },
    h("header", {},
      h("h2", {}, row.title),
      phaseBadge(row),
      pausedBadge(row)),
    h("p", { class: "variant", "data-testid": `lobby-variant-${row.id}` }, variant.title ?? variant.name ?? ""),
    h("p", { class: "fine rule", "data-testid": `lobby-rule-${row.id}` },
      "The dealer needs Ace-King or better; if not, the ante pays 1:1 and the raise comes back."),
    h("dl", { class: "facts" },
      h("dt", {}, "Ante"), h("dd", { "data-testid": `lobby-limits-${row.id}` },
        `${dollars(row.min_ante, { short: true })} – ${dollars(row.max_ante, { short: true })}`),
      h("dt", {}, "Progressive"), h("dd", {}, dollars(row.progressive_stake, { short: true })),
      h("dt", {}, "Free seats"), h("dd", { "data-testid": `lobby-free-${row.id}` }, `${free} of ${row.seats}`),
      h("dt", {}, "Watching"), h("dd", {}, String(row.spectators)),
      // "Hands per player" wrapped in a 1280 px window's card: the short words, the long in the title
      h("dt", { title: "Hands per player: the seats one player may hold" }, "Hands each"), h("dd", {}, `up to ${row.max_seats_per_player ?? state.limits?.max_seats_per_player ?? 1}`),
      h("dt", {}, "Jackpot"), h("dd", { class: "gold", "data-testid": `lobby-jackpot-amount-${row.id}` },
        jackpot === undefined ? "—" : dollars(jackpot))),
    paysToggle(row, paysOpen),
    h("div", { class: "paytables", id: `pays-${row.id}`, hidden: !paysOpen },
      raisePaytable(variant, { testid: `lobby-paytable-${row.id}` }),
      h("div", {},
        progressivePaytable(variant, jackpot),
        h("p", { class: "fine" }, variant.folded_collects_progressive
          ? "A folded hand still collects the progressive."
          : "A folded hand does not collect the progressive."))),
    h("footer", {}, remote
      ? h("button", { class: "btn primary", "data-action": "open-remote", "data-href": remote,
        "data-testid": `remote-${row.id}`, title: "This table is on another server" }, "Open")
      : [mine
        ? h("button", { class: "btn primary", "data-action": "open-table", "data-table": row.id,
          "data-testid": `open-${row.id}` }, "Back to my seat")
        : h("button", { class: "btn primary", "data-action": "play", "data-table": row.id,
          "data-testid": `play-${row.id}`, disabled: free <= 0 }, free > 0 ? "Play" : "Table full"),
      h("button", { class: "btn", "data-action": "watch", "data-table": row.id,
        "data-testid": `watch-${row.id}` }, "Watch")]));
}

function paysToggle(row, open) {
  return h("button", { class: "btn small pays-toggle", "data-action": "toggle-pays", "data-table": row.id,
    "data-testid": `lobby-pays-${row.id}`, "aria-expanded": open ? "true" : "false", "aria-controls": `pays-${row.id}` },
  open ? "Hide what it pays" : "What it pays");
}
