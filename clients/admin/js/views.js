// The console's sections, drawn from the state (see console.js) with the player
// client's helpers: h() and the table view itself (what players see).

import { cardRow } from "/web/js/cards.js";
import { h } from "/web/js/dom.js";
import {
  OUTCOMES, categoryLabel, clientSeedsText, decisionLabel, dollars, progressivePaid, signedDollars,
} from "/web/js/format.js";
import { settledResult, sideBetLost } from "/web/js/history.js";
import { seatLayout } from "/web/js/layout.js";
import { renderTable } from "/web/js/table.js";

export const TABS = [
  ["tables", "Tables"], ["jackpots", "Jackpots"], ["players", "Players"], ["audit", "Audit log"],
  ["pending", "Retries"],
];

function percent(x, digits = 2) {
  return x === null || x === undefined ? "—" : `${(x * 100).toFixed(digits)}%`;
}

function when(ms) {
  return ms ? new Date(ms).toLocaleString() : "—";
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** The most cents an amount may be (the API's bound: JavaScript's safe integers). */
export const MAX_CENTS = Number.MAX_SAFE_INTEGER;

/** The money an act moved, or asked to: a wallet's credit (+) or debit (−), a meter's
 * before and after; "" for an act that moves none. From the row's result, else its request.
 * A refused act moved nothing: its amount is what it asked ("asked $5.00"), never signed
 * ("+$100,000,000,000.00 … refused" read as money paid). */
export function actAmountText(row) {
  const req = row?.details?.request ?? {};
  const res = row?.details?.result ?? {};
  if (row?.outcome === "refused") {
    return typeof req.amount === "number" ? `asked ${dollars(req.amount)}` : "";
  }
  if (row?.action === "credit" || row?.action === "debit") {
    const asked = typeof req.amount === "number" ? (row.action === "debit" ? -req.amount : req.amount) : null;
    const cents = typeof res.amount === "number" ? res.amount : asked;
    return cents === null ? "" : signedDollars(cents);
  }
  if (typeof res.before === "number" && typeof res.after === "number") {
    return `${dollars(res.before)} → ${dollars(res.after)}`;
  }
  return typeof req.amount === "number" ? `→ ${dollars(req.amount)}` : "";
}

/** The player a table's act names (`remove`'s `player_id`), as a target: "player:<id>";
 * null when the act names none, or names it as its target already. */
export function namedPlayer(row) {
  const pid = row?.details?.request?.player_id;
  return typeof pid === "string" && pid && row.target !== `player:${pid}` ? `player:${pid}` : null;
}

/** Whether the acts are shown: to an admin only. A viewer (or a role not known yet) sees
 * everything else; the API would refuse their acts anyway (403 forbidden_role). */
export function canAct(state) {
  return state.role === "admin";
}

/** In place of an act form, for a viewer: what is not there, and why. */
function readOnly(what) {
  return h("p", { class: "act-bar read-only muted", "data-testid": "read-only" },
    `Viewer: you can look, not act. ${what} need an admin.`);
}

/** The amount field's error, by the field (an amount not sent: see console.js centsOf). */
function amountError(state, form, testid) {
  const e = state.amountError;
  return h("span", { class: "error field-error", role: "alert", "data-testid": testid,
    hidden: !(e && e.form === form) }, e && e.form === form ? e.text : "");
}

export function renderSignIn(state) {
  return h("section", { class: "signin", "data-testid": "console-signin" },
    h("form", { "data-form": "signin", autocomplete: "on" },
      h("h1", {}, "Operator console"),
      h("label", { for: "signin-name" }, "Operator"),
      h("input", { id: "signin-name", name: "name", "data-testid": "signin-name", autocomplete: "username",
        maxlength: 32, required: true }),
      h("label", { for: "signin-password" }, "Password"),
      h("input", { id: "signin-password", name: "password", type: "password", "data-testid": "signin-password",
        autocomplete: "current-password", maxlength: 128, required: true }),
      h("div", { class: "error", role: "alert", "data-testid": "signin-error" }, state.signinError ?? ""),
      h("button", { class: "btn primary", type: "submit", "data-testid": "signin-submit" }, "Sign in")));
}

export function renderTop(state) {
  const o = state.overview ?? {};
  return h("header", { class: "topbar console-top" },
    h("div", { class: "brand" }, h("span", { class: "brand-suit" }, "♠"), " Console"),
    h("div", { class: "who" },
      h("span", { "data-testid": "console-operator" }, state.operator),
      state.role === "viewer"
        ? h("span", { class: "badge role", "data-testid": "console-role",
          title: "Reads everything, acts on nothing" }, "viewer")
        : null),
    h("div", { class: "facts-line" },
      h("span", { title: "The sum of every account: double entry keeps it at zero" },
        "Books ", h("b", { "data-testid": "books-sum", "data-sum": o.books_sum ?? "" }, o.books_sum ?? "…")),
      h("span", { title: "Store writes in doubt, being repeated (every process)" },
        "Retries ", h("b", { "data-testid": "pending-count" }, o.pending_writes ?? "…")),
      h("span", {}, "Tables ", h("b", {}, o.tables ?? "…")),
      h("span", {}, "Processes ", h("b", {}, o.processes ?? "…")),
      o.store_reachable === false
        ? h("span", { class: "error", role: "status", "data-testid": "store-unreachable",
          title: "What only the store knows (the books, other processes, acts waiting) is not shown" },
        "Store unreachable: this process's own view")
        : null),
    h("button", { class: "btn small", "data-console": "sign-out", "data-testid": "console-signout" }, "Sign out"));
}

export function renderTabs(state) {
  return h("nav", { class: "tabs" },
    TABS.map(([id, label]) => h("button", {
      class: "btn small", "data-console": "tab", "data-tab": id, "data-testid": `tab-${id}`,
      "aria-current": state.tab === id ? "page" : null,
    }, label)));
}

/** The last act's outcome, or an error. */
export function renderResult(state) {
  const r = state.result;
  if (!r) return h("p", { class: "act-result", "data-testid": "act-result", hidden: true });
  return h("p", { class: "act-result", "data-testid": "act-result", "data-outcome": r.outcome, role: "status" },
    r.text);
}

// ----- tables ------------------------------------------------------------------------

function edgeText(t) {
  const e = t.house_edge ?? {};
  if (e.status === "ready") return `${percent(e.element_of_risk, 3)} of the bet · ${percent(e.house_edge_ante, 3)} of the ante`;
  if (e.status === "computing") return "computing…";
  return e.status === "off" ? "off" : "—";
}

export function renderTables(state) {
  const tables = state.tables ?? [];
  return h("section", { "data-testid": "tables" },
    h("h1", {}, "Tables"),
    h("table", { class: "grid" },
      h("thead", {}, h("tr", {},
        ["Table", "Host", "Phase", "Seats", "Players", "Watching", "Rounds (1 h)", "Hold (1 h)", "House edge", ""]
          .map((c) => h("th", {}, c)))),
      h("tbody", {}, tables.map((t) => h("tr", { "data-testid": `table-row-${t.id}`, "data-table": t.id },
        h("td", {}, tableName(t), h("div", { class: "muted" }, t.variant_title ?? t.variant ?? "")),
        h("td", {}, h("span", { class: "mono" }, t.process_id ?? "—"), " ",
          t.here ? h("span", { class: "badge here" }, "here") : null,
          h("div", { class: "muted mono" }, t.url || "")),
        h("td", {}, h("span", { class: `phase phase-${t.phase}`, "data-testid": `table-phase-${t.id}` }, t.phase ?? "—"), " ",
          h("span", { class: "badge paused", "data-testid": `table-paused-${t.id}`, hidden: !t.paused,
            title: t.paused ? `${t.paused.by}: ${t.paused.reason}` : null }, "paused")),
        h("td", { class: "num" }, `${t.taken ?? 0}/${t.seats ?? 0}`),
        h("td", {}, (t.players ?? []).map((p) => h("div", {}, `#${p.seat + 1} ${p.name}`,
          p.connected ? "" : h("span", { class: "muted" }, " (away)")))),
        h("td", { class: "num" }, t.spectators ?? 0),
        t.last_hour
          ? h("td", { class: "num", "data-testid": `table-rounds-${t.id}` }, t.last_hour.rounds ?? 0)
          : h("td", { class: "num muted", "data-testid": `table-rounds-${t.id}`, title: LAST_HOUR_UNKNOWN }, "unknown"),
        t.last_hour
          ? h("td", { class: "num", title: "(stakes − returns) / stakes of the ante and raise; per ante below" },
            percent(t.last_hour.hold), h("div", { class: "muted" }, `${percent(t.last_hour.hold_per_ante)} / ante`))
          : h("td", { class: "num muted", title: LAST_HOUR_UNKNOWN }, "unknown"),
        h("td", {}, edgeText(t)),
        h("td", {}, h("button", { class: "btn small", "data-console": "open-table", "data-table": t.id,
          "data-testid": `open-${t.id}` }, "Open")))))),
    tables.some((t) => !t.last_hour)
      ? h("p", { class: "muted", "data-testid": "last-hour-unknown" }, `Rounds and hold (1 h): ${LAST_HOUR_UNKNOWN}.`)
      : null);
}

/** A table by its title and its id: the id is what the API and the audit log name it by
 * (`table:<id>`); a titled table read "Ops Special / Ops Special", its id nowhere. */
function tableName(t) {
  const idProps = { "data-testid": `table-id-${t.id}`, title: `table:${t.id}` };
  if (!t.title || t.title === t.id) return h("b", { class: "mono", ...idProps }, t.id);
  return [h("b", {}, t.title), h("div", { class: "mono", ...idProps }, t.id)];
}

/** Why a table's `last_hour` is null: its figures are kept in the store. */
const LAST_HOUR_UNKNOWN = "unknown while the store is unreachable (they are counted there)";

/** Where the seats go: for the felt as drawn (`felt`: its inside, measured by console.js
 * watchFelt), a guess from the window until it is measured. Laid out for a guessed width
 * while the felt was wider, a 4-seat table's first seat stood under the table message
 * (centred on the real felt) at 1920 x 1080. */
function layoutFor(snap, felt) {
  const size = felt ?? { width: Math.max(640, Math.min(window.innerWidth - 80, 1500) - 330), height: 460 };
  return seatLayout(snap.seats.length, size.width, size.height);
}

export function renderTableDetail(state) {
  const t = state.table;
  if (!t) return h("section", { "data-testid": "table-detail" }, h("p", { class: "muted" }, "Loading the table…"));
  const snap = t.view;
  const players = t.players ?? [];
  const busy = state.busy?.has(`table:${t.id}`); // its act is out: its buttons wait
  return h("section", { "data-testid": "table-detail", "data-table": t.id },
    h("p", {}, h("button", { class: "btn small ghost", "data-console": "tab", "data-tab": "tables" }, "← Tables")),
    // an untitled table's title is its id: "four (four)" said it twice
    h("h1", { "data-testid": "detail-title" }, t.title && t.title !== t.id
      ? [`${t.title} `, h("span", { class: "muted" }, `(${t.id})`)] : t.id),
    h("dl", { class: "kv" },
      h("dt", {}, "Host"), h("dd", { class: "mono" }, `${t.process_id ?? "—"} ${t.url ?? ""}`),
      h("dt", {}, "Phase"), h("dd", { "data-testid": "detail-phase" }, t.phase ?? "—"),
      h("dt", {}, "Paused"), h("dd", { "data-testid": "detail-paused" },
        t.paused ? `by ${t.paused.by} since ${when(t.paused.since_ms)}: ${t.paused.reason}` : "no"),
      h("dt", {}, "Round"), h("dd", { class: "mono", "data-testid": "detail-round" }, t.round_id ?? "—"),
      h("dt", {}, "Last hour"), h("dd", {}, t.last_hour
        ? `${plural(t.last_hour.rounds ?? 0, "round")}, hold ${percent(t.last_hour.hold)} `
          + `(${percent(t.last_hour.hold_per_ante)} per ante); edge ${edgeText(t)}`
        : `${LAST_HOUR_UNKNOWN}; edge ${edgeText(t)}`)),
    !canAct(state) ? readOnly("Pausing, resuming, voiding and removing a player") : h("form", {
      class: "act-bar", "data-form": "table-act", "data-table": t.id, novalidate: true,
      "aria-busy": busy ? "true" : null },
      h("input", { class: "reason", name: "reason", placeholder: "Reason (kept in the audit log)",
        "data-testid": "act-reason", maxlength: 200 }),
      h("button", { class: "btn", type: "button", "data-console": "table-act", "data-act": "pause",
        "data-testid": "act-pause", disabled: busy || Boolean(t.paused) }, "Pause"),
      h("button", { class: "btn", type: "button", "data-console": "table-act", "data-act": "resume",
        "data-testid": "act-resume", disabled: busy || !t.paused }, "Resume"),
      h("button", { class: "btn", type: "button", "data-console": "table-act", "data-act": "void",
        "data-round": t.round_id ?? "", "data-testid": "act-void",
        disabled: busy || !t.round_id || !["betting", "deciding"].includes(snap?.phase) }, "Void this round"),
      h("select", { name: "player", "data-testid": "act-remove-player" },
        players.map((p) => h("option", { value: p.player_id }, `#${p.seat + 1} ${p.name}`))),
      h("button", { class: "btn", type: "button", "data-console": "table-act", "data-act": "remove",
        "data-testid": "act-remove", disabled: busy || !players.length }, "Remove player")),
    renderResult(state),
    h("h2", {}, "What players see"),
    snap
      ? h("div", { class: "console-felt", "data-testid": "console-table-view",
        "data-felt": state.felt ? "measured" : "guessed" },
        renderTable({
          snap, row: t.row, me: null, operator: true, layout: layoutFor(snap, state.felt), selected: null, deal: null, rebet: null,
          sideOpen: true, build: () => ({ chips: [], progressive: false }), chip: 100, busy: true, maxSeats: 0,
          receivedAt: state.tableAt, now: performance.now(), jackpot: snap.jackpot?.amount, online: true,
          fair: { seed: "", seedStatus: "", lastDeal: null, verdict: undefined },
        }))
      : h("p", { class: "muted" }, "Its host has not published this table yet."),
    h("div", { class: "two" },
      h("div", {}, h("h2", {}, "Last rounds"), roundList(t.history ?? [])),
      h("div", {}, h("h2", {}, "Acts on this table"), auditTable(t.audit ?? [], "table-audit", { compact: true }))));
}

function roundList(rounds) {
  if (!rounds.length) return h("p", { class: "muted" }, "No round settled yet.");
  return h("table", { class: "grid" },
    h("tbody", {}, rounds.map((r) => h("tr", {},
      h("td", {}, when(r.settled_at)),
      h("td", {}, h("button", { class: "btn small ghost mono", "data-console": "open-round", "data-round": r.round_id },
        r.round_id)),
      h("td", {}, plural((r.seats ?? []).length, "hand"))))));
}

// ----- jackpots ---------------------------------------------------------------------------

export function renderJackpots(state, readError = null) {
  const jackpots = state.jackpots;
  return h("section", { "data-testid": "jackpots" },
    h("h1", {}, "Jackpots"),
    readError,
    renderResult(state),
    jackpots && !jackpots.length ? h("p", { class: "muted" }, "No jackpot is configured.") : null,
    (jackpots ?? []).map((j) => h("article", { "data-testid": `jackpot-${j.name}` },
      h("h2", {}, `${j.name}: `, h("span", { "data-testid": `jackpot-amount-${j.name}`, "data-cents": j.amount }, dollars(j.amount)),
        h("span", { class: "muted" }, ` · seed ${j.seed === null ? "—" : dollars(j.seed)}`)),
      !canAct(state) ? readOnly("Reseeding and setting the meter") : h("form", {
        class: "act-bar", "data-form": "jackpot-act", "data-jackpot": j.name, novalidate: true,
        "aria-busy": state.busy?.has(`jackpot:${j.name}`) ? "true" : null },
        h("input", { class: "reason", name: "reason", placeholder: "Reason", maxlength: 200,
          "data-testid": `jackpot-reason-${j.name}` }),
        h("button", { class: "btn", type: "button", "data-console": "jackpot-act", "data-act": "reseed",
          "data-testid": `jackpot-reseed-${j.name}`, disabled: state.busy?.has(`jackpot:${j.name}`) }, "Reseed"),
        h("input", { class: "amount", name: "amount", type: "number", min: 0, step: "0.01", placeholder: "$ amount",
          "data-testid": `jackpot-amount-input-${j.name}`,
          "aria-invalid": state.amountError?.form === `jackpot:${j.name}` ? "true" : null }),
        h("button", { class: "btn", type: "button", "data-console": "jackpot-act", "data-act": "correct",
          "data-testid": `jackpot-correct-${j.name}`, disabled: state.busy?.has(`jackpot:${j.name}`) }, "Set to amount"),
        amountError(state, `jackpot:${j.name}`, `jackpot-amount-error-${j.name}`),
        state.confirm?.jackpot === j.name ? confirmCorrection(j, state.confirm.amount) : null),
      h("h3", {}, "Last percent prizes"),
      j.hits?.length
        ? h("table", { class: "grid", "data-testid": `jackpot-hits-${j.name}` },
          h("thead", {}, h("tr", {}, ["When", "Table", "Player", "Hand", "Paid", "Meter after"].map((c) => h("th", {}, c)))),
          h("tbody", {}, j.hits.map((hit) => h("tr", {},
            h("td", {}, when(hit.settled_at)), h("td", {}, hit.table),
            // the player by name, the id in its title ("ONE_PAIR" and a raw id were shown):
            // a click opens their page
            h("td", {}, h("button", { class: "btn small ghost", "data-console": "open-player", "data-tab": "players",
              "data-player": hit.player_id, title: hit.player_id, "data-testid": "jackpot-hit-player" },
            hit.name ?? hit.player_id)),
            h("td", {}, categoryLabel(hit.category)), h("td", { class: "num" }, dollars(hit.amount)),
            h("td", { class: "num" }, dollars(hit.meter_after))))))
        // the list is of percent prizes (paid from the meter) only: "No hit yet." was
        // read as no prize at all after fixed ones had been paid
        : h("p", { class: "muted", "data-testid": `jackpot-hits-${j.name}` },
          "No percent prize yet. (The fixed prizes are paid by the house: see the rounds' ledgers.)"))));
}

/** A meter correction asked: sent only once confirmed, its after beside its seed (what a
 * royal flush pays) and its before as last read. Tables playing move the meter before the
 * act applies, so that before and the difference are "about": the difference moved is
 * taken from the meter as it stands then, and the result line gives it. */
function confirmCorrection(j, amount) {
  const change = amount - j.amount;
  return h("div", { class: "confirm", role: "alertdialog", "data-testid": `jackpot-confirm-${j.name}`,
    "aria-label": `Set ${j.name} to ${dollars(amount)}?` },
  h("span", {}, "Set ", h("b", {}, j.name), " to ", h("b", {}, dollars(amount)),
    ` (seed ${j.seed === null ? "—" : dollars(j.seed)})? The meter is now about ${dollars(j.amount)}: `,
    change ? `about ${signedDollars(change)} ${change > 0 ? "from" : "to"} the house. ` : "about no change. ",
    h("span", { class: "muted" }, "Tables playing move it: the difference is taken from the meter as it "
      + "stands when the act is applied, and the result line gives what moved.")),
  h("button", { class: "btn primary", type: "button", "data-console": "jackpot-confirm",
    "data-testid": `jackpot-confirm-button-${j.name}` }, `Set to ${dollars(amount)}`),
  h("button", { class: "btn", type: "button", "data-console": "jackpot-cancel",
    "data-testid": `jackpot-cancel-${j.name}` }, "Cancel"));
}

// ----- players -----------------------------------------------------------------------------

export function renderPlayers(state) {
  const p = state.player;
  return h("section", { "data-testid": "players" },
    h("h1", {}, "Players"),
    h("form", { class: "act-bar search", "data-form": "player-search", novalidate: true },
      h("input", { name: "q", placeholder: "Name, username or player id", "data-testid": "player-query", maxlength: 64 }),
      h("button", { class: "btn", type: "submit", "data-testid": "player-search" }, "Find")),
    state.found
      ? h("table", { class: "grid", "data-testid": "player-results" },
        h("tbody", {}, state.found.map((f) => h("tr", {},
          h("td", {}, h("button", { class: "btn small ghost", "data-console": "open-player", "data-player": f.player_id,
            "data-testid": `player-${f.player_id}` }, f.name)),
          h("td", {}, f.username ?? h("span", { class: "muted" }, "guest")),
          h("td", { class: "mono" }, f.player_id)))))
      : null,
    p ? playerDetail(state, p) : null);
}

function playerDetail(state, p) {
  const w = p.wallet ?? {};
  const busy = state.busy?.has("player"); // its act is out: its buttons wait
  return h("article", { "data-testid": "player-detail", "data-player": p.player_id },
    h("h2", {}, `${p.name} `, h("span", { class: "muted mono" }, p.player_id),
      p.suspended ? h("span", { class: "badge paused", "data-testid": "player-suspended" }, " suspended") : null),
    h("dl", { class: "kv" },
      h("dt", {}, "Account"), h("dd", {}, p.username ?? "guest"),
      h("dt", {}, "Balance"), h("dd", { "data-testid": "player-balance" }, dollars(w.balance ?? 0)),
      h("dt", {}, "Held"), h("dd", {}, dollars(w.held ?? 0)),
      h("dt", {}, "Bonus"), h("dd", {}, dollars(w.bonus ?? 0)),
      h("dt", {}, "Seats"), h("dd", {}, (p.seats ?? []).map((s) => `${s.table} #${s.seat + 1}`).join(", ") || "none"),
      h("dt", {}, "Holds"), h("dd", {}, (p.holds ?? []).map((x) => `${x.round_id} #${x.seat + 1}: ${dollars(x.amount)}`).join(", ") || "none"),
      h("dt", {}, "Suspended"), h("dd", {}, p.suspended ? `by ${p.suspended.by}: ${p.suspended.reason}` : "no")),
    !canAct(state) ? readOnly("Credits, debits and suspensions") : h("form", {
      class: "act-bar", "data-form": "player-act", "data-player": p.player_id, novalidate: true,
      "aria-busy": busy ? "true" : null },
      h("input", { class: "reason", name: "reason", placeholder: "Reason", maxlength: 200, "data-testid": "player-reason" }),
      h("input", { class: "amount", name: "amount", type: "number", min: 0.01, step: "0.01", placeholder: "$ amount",
        "data-testid": "player-amount", "aria-invalid": state.amountError?.form === "player" ? "true" : null }),
      h("button", { class: "btn", type: "button", "data-console": "player-act", "data-act": "credit",
        "data-testid": "player-credit", disabled: busy }, "Credit"),
      h("button", { class: "btn", type: "button", "data-console": "player-act", "data-act": "debit",
        "data-testid": "player-debit", disabled: busy }, "Debit"),
      p.suspended
        ? h("button", { class: "btn", type: "button", "data-console": "player-act", "data-act": "unsuspend",
          "data-testid": "player-unsuspend", disabled: busy }, "Lift suspension")
        : h("button", { class: "btn", type: "button", "data-console": "player-act", "data-act": "suspend",
          "data-testid": "player-suspend", disabled: busy }, "Suspend"),
      amountError(state, "player", "player-amount-error")),
    renderResult(state),
    h("div", { class: "two" },
      h("div", {}, h("h2", {}, "Last rounds"), roundList(p.history ?? [])),
      h("div", {}, h("h2", {}, "Acts on this player"), auditTable(p.audit ?? [], "player-audit", { compact: true }))),
    h("h2", {}, "Money outside rounds"),
    movesTable(p.player_id, p.moves ?? []));
}

// What put money into the wallet, or took it out, outside any round (the store's moves
// journal): its starting credits, purchases and operators' credits and debits.
function movesTable(playerId, rows) {
  if (!rows.length) return h("p", { class: "muted", "data-testid": "player-moves" }, "Nothing yet.");
  const me = `player:${playerId}`;
  const what = (m) => m.op.startsWith("grant:") ? "Starting credits"
    : m.op.startsWith("buy:") ? "Purchase"
      : m.transfer[4] === me ? "Operator credit" : "Operator debit";
  return h("table", { class: "grid", "data-testid": "player-moves" },
    h("thead", {}, h("tr", {}, ["When", "What", "Amount", "Operation"].map((c) => h("th", {}, c)))),
    h("tbody", {}, rows.map((m) => h("tr", { "data-testid": "move-row" },
      h("td", {}, when(m.at)), h("td", {}, what(m)),
      h("td", { class: "num" }, signedDollars(m.transfer[4] === me ? m.transfer[5] : -m.transfer[5])),
      h("td", { class: "mono" }, m.op)))));
}

export function renderRound(state) {
  const r = state.round;
  if (!r) return null;
  const rec = r.record;
  const check = r.fairness_check;
  return h("article", { class: "act-bar", "data-testid": "round-detail", "data-round": r.round_id },
    h("div", { style: "width:100%" },
      h("h2", {}, `Round ${r.round_id} `, h("button", { class: "btn small ghost", "data-console": "close-round" }, "×")),
      h("dl", { class: "kv" },
        h("dt", {}, "Table"), h("dd", {}, r.table ?? "—"),
        h("dt", {}, "Journal"), h("dd", { "data-testid": "round-state" }, r.journal?.state ?? "expired"),
        h("dt", {}, "Fairness"), h("dd", { "data-testid": "round-fairness" },
          check ? (check.ok ? "verified: the deal is the committed shuffle" : check.problems.join("; ")) : "no proof"),
        rec ? [h("dt", {}, "Dealer"), h("dd", {}, cardRow(rec.dealer ?? [], { small: true }))] : null,
        rec?.fairness?.server_seed ? [
          h("dt", {}, "Commitment"), h("dd", { class: "mono" }, rec.fairness.commitment),
          h("dt", {}, "Server seed"), h("dd", { class: "mono" }, rec.fairness.server_seed),
          // as the player page says them: ",,," (four hands, no seed) read as seeds
          h("dt", {}, "Client seeds"), h("dd", { "data-testid": "round-client-seeds",
            title: rec.fairness.client_seeds ? `as sent: “${rec.fairness.client_seeds}”` : null },
          clientSeedsText(rec.fairness.client_seeds, seedSeats(rec))),
        ] : null),
      rec ? h("table", { class: "grid" },
        h("thead", {}, h("tr", {}, ["Seat", "Player", "Ante", "Cards", "Decision", "Result"].map((c) => h("th", {}, c)))),
        h("tbody", {}, (rec.seats ?? []).map((s) => h("tr", {},
          h("td", {}, `#${s.seat + 1}`), h("td", {}, s.name),
          h("td", { class: "num" }, dollars(s.ante)), h("td", {}, cardRow(s.cards ?? [], { small: true })),
          h("td", {}, decisionLabel(s) || "—"), // the players' words, not the wire's "fold"
          h("td", { class: "num", "data-testid": "round-seat-result" }, seatResult(s, rec)))))) : null,
      r.journal ? h("details", {}, h("summary", {}, `Ledger (${r.journal.ledger.length} entries)`),
        h("table", { class: "grid" }, h("tbody", {}, r.journal.ledger.map((t) => h("tr", {},
          h("td", {}, t[2]), h("td", { class: "mono" }, t[3]), h("td", { class: "mono" }, t[4]),
          h("td", { class: "num" }, dollars(t[5]))))))) : null));
}

/** The seats whose client seeds the proof lists (those dealt, in seat order), or null
 * when they do not match its list. */
function seedSeats(rec) {
  const seats = (rec.seats ?? []).map((s) => s.seat);
  return seats.length === String(rec.fairness?.client_seeds ?? "").split(",").length ? seats : null;
}

/** A seat's result as the players' history words it: the net counts the progressive, so
 * its prize is named, and a stake that won nothing is noted ("incl. JP −$1"): "Win $4.00"
 * alone did not add up to the ante, raise and payout. */
function seatResult(s, rec) {
  const res = settledResult(s, rec);
  if (!res) return "—";
  const prize = progressivePaid(res.progressive_prize);
  const lost = sideBetLost(s, res);
  return [
    `${OUTCOMES[res.outcome] ?? res.outcome} ${signedDollars(res.net)}`,
    prize ? h("div", { class: "prize", "data-testid": "round-seat-prize", "data-cents": prize },
      `Progressive ${dollars(prize)}`) : null,
    lost ? h("div", { class: "muted", "data-testid": "round-seat-side-bet", "data-cents": -lost,
      title: "The progressive bet won nothing; the net counts it" },
    `incl. JP ${dollars(-lost, { short: true })}`) : null,
  ];
}

// ----- the audit log and retries -------------------------------------------------------------

/** "player:4b74ddce166d2fd2" -> "player:4b74…2fd2": a long id's ends, as ids are told
 * apart (the whole target goes in a title). */
export function shortTarget(target) {
  const text = String(target ?? "");
  const colon = text.indexOf(":");
  const id = text.slice(colon + 1);
  return id.length > 12 ? `${text.slice(0, colon + 1)}${id.slice(0, 4)}…${id.slice(-4)}` : text;
}

/** An audit table; `compact` for one half the page wide (a table's or a player's acts):
 * its targets shortened to their ends. */
function auditTable(rows, testid, { compact = false } = {}) {
  if (!rows.length) return h("p", { class: "muted", "data-testid": testid }, "Nothing yet.");
  return h("table", { class: "grid", "data-testid": testid },
    h("thead", {}, h("tr", {}, ["When", "Operator", "Act", "Target", "Amount", "Reason", "Outcome"]
      .map((c) => h("th", {}, c)))),
    h("tbody", {}, rows.map((r) => h("tr", { "data-testid": "audit-row", "data-action": r.action, "data-outcome": r.outcome },
      h("td", {}, when(r.ts)), h("td", {}, r.operator), h("td", {}, r.action),
      // on one line: a player's id wrapped over four in a half-width table; the whole
      // target in its title where it is shortened
      h("td", { class: "mono target" }, h("div", { class: "one-line", "data-testid": "audit-target", title: r.target },
        compact ? shortTarget(r.target) : r.target),
      // "remove table:alpha" said nothing of whom
      namedPlayer(r) ? h("div", { class: "one-line", "data-testid": "audit-player", title: namedPlayer(r) },
        compact ? shortTarget(namedPlayer(r)) : namedPlayer(r)) : null),
      h("td", { class: r.outcome === "refused" ? "num muted" : "num", "data-testid": "audit-amount" },
        actAmountText(r)),
      h("td", { class: "text", "data-testid": "audit-reason" }, r.reason),
      h("td", { class: `outcome-${r.outcome}`, title: JSON.stringify(r.details?.result ?? {}) },
        r.outcome, r.details?.result?.code ? ` (${r.details.result.code})` : "")))));
}

export function renderAudit(state) {
  const a = state.audit ?? { rows: [], total: 0, offset: 0 };
  return h("section", { "data-testid": "audit" },
    h("h1", {}, "Audit log ", h("span", { class: "muted", "data-testid": "audit-total" }, `(${a.total})`)),
    h("p", {},
      h("button", { class: "btn small", "data-console": "audit-page", "data-offset": Math.max(0, a.offset - 50),
        disabled: a.offset === 0 }, "Newer"), " ",
      h("button", { class: "btn small", "data-console": "audit-page", "data-offset": a.offset + 50,
        disabled: a.offset + 50 >= a.total }, "Older"), " ",
      h("button", { class: "btn small", "data-console": "audit-export", "data-testid": "audit-export" },
        "Export JSON lines")),
    auditTable(a.rows, "audit-rows"));
}

export function renderPending(state) {
  const p = state.pending ?? { processes: [], acts: [] };
  return h("section", { "data-testid": "pending" },
    h("h1", {}, "Store retries and waiting acts"),
    h("table", { class: "grid" },
      h("thead", {}, h("tr", {}, ["Process", "Tables", "Writes in doubt", "Oldest"].map((c) => h("th", {}, c)))),
      h("tbody", {}, p.processes.map((proc) => h("tr", {},
        h("td", { class: "mono" }, proc.process_id, h("div", { class: "muted" }, proc.url)),
        h("td", {}, (proc.tables ?? []).join(", ")),
        // how many, then which: none was a blank cell
        h("td", {}, h("b", { "data-testid": `writes-${proc.process_id}` }, (proc.pending ?? []).length),
          (proc.pending ?? []).map((w) => h("div", { class: "mono" }, `${w.what} ${w.table} ${w.op} (${w.since_s}s)`))),
        h("td", { class: "num" }, `${proc.census?.oldest_pending?.toFixed?.(1) ?? 0}s`))))),
    h("h2", {}, "Acts waiting for their table's host"),
    p.acts == null
      ? h("p", { class: "muted" }, "Not known: the store cannot be reached.")
      : p.acts.length
      ? h("table", { class: "grid" }, h("tbody", {}, p.acts.map((a) => h("tr", {},
        h("td", {}, when(a.ts)), h("td", {}, a.operator), h("td", {}, a.action), h("td", { class: "mono" }, a.target),
        h("td", { class: "text" }, a.reason)))))
      : h("p", { class: "muted" }, "None."));
}
