// The operator console's page: sign in, then every table of the fleet, jackpots,
// players, the audit log and the store's retries, live over the console's API
// (polled every second; docs/ADMIN_API.md), and the acts with a reason each.
// Drawn with the player client's h()/morph() and its table view.

import { morph, h } from "/web/js/dom.js";
import { dollars } from "/web/js/format.js";
import { Api, ApiError } from "./api.js";
import {
  MAX_CENTS, actAmountText, namedPlayer, renderAudit, renderJackpots, renderPending, renderPlayers, renderRound,
  renderSignIn, renderTableDetail, renderTables, renderTabs, renderTop,
} from "./views.js";

const POLL_MS = 1000;

const state = {
  operator: "",
  role: "", // "admin": the acts are shown; "viewer" (or not known yet): reads only
  signinError: "",
  tab: "tables",
  overview: null,
  tables: [],
  table: null, // the table open in detail (GET /api/tables/<id>)
  tableId: null,
  tableAt: 0,
  felt: null, // the open table's felt inside, as drawn: {width, height} (watchFelt)
  jackpots: [],
  found: null,
  player: null,
  playerId: null,
  round: null,
  roundTab: null, // the tab the round was opened from: its panel is drawn there only
  audit: null,
  auditOffset: 0,
  pending: null,
  result: null, // the last act's outcome: {outcome, text}
  amountError: null, // an amount the page would not send: {form, text}, said by its field
  confirm: null, // a meter correction asked, not sent until confirmed: {jackpot, amount}
  busy: new Set(), // the forms (formKey) whose act is out: their buttons wait for its answer
  readError: null, // why the open tab's data could not be read: {tab, text}
};

const api = new Api({ onSignedOut: (why) => { state.role = ""; state.signinError = why === "signed out" ? "" : "Please sign in again."; render(); } });
state.operator = api.operator;
state.role = api.role;
window.studConsole = { state, api };

// ----- drawing -------------------------------------------------------------------------

function render() {
  const app = document.getElementById("app");
  document.body.dataset.view = api.signedIn ? "console" : "signin";
  if (!api.signedIn) {
    morph(app, h("div", { id: "app", "data-testid": "console" }, renderSignIn(state)));
    return;
  }
  morph(app, h("div", { id: "app", "data-testid": "console" },
    renderTop(state),
    renderTabs(state),
    h("main", { class: "console-main", "data-tab": state.tab },
      state.tab === "jackpots" ? null : renderReadError(), section(),
      // a round's panel belongs to the tab it was opened from: it stayed at the bottom
      // of every other tab (Retries, the audit log...)
      state.roundTab === state.tab ? renderRound(state) : null)));
  watchFelt();
}

// The felt of the table open, measured whenever its size changes: its seats are laid
// out for it (views.js layoutFor), as the player client lays out its own.
const feltObserver = new ResizeObserver((entries) => {
  const box = entries[entries.length - 1].contentRect;
  const size = { width: Math.round(box.width), height: Math.round(box.height) };
  if (size.width > 0 && (size.width !== state.felt?.width || size.height !== state.felt?.height)) {
    state.felt = size;
    render();
  }
});
let observedFelt = null;

function watchFelt() {
  const felt = document.querySelector('[data-testid="console-table-view"] [data-testid="felt"]');
  if (felt === observedFelt) return;
  if (observedFelt) feltObserver.unobserve(observedFelt);
  observedFelt = felt;
  if (felt) feltObserver.observe(felt);
}

/** Why the open tab shows nothing new: its data could not be read (the store away). */
function renderReadError() {
  const e = state.readError;
  if (!e || e.tab !== state.tab) return null;
  return h("p", { class: "read-error", role: "status", "data-testid": "read-error" }, e.text);
}

function section() {
  switch (state.tab) {
    case "table": return renderTableDetail(state);
    case "jackpots": return renderJackpots(state, renderReadError());
    case "players": return renderPlayers(state);
    case "audit": return renderAudit(state);
    case "pending": return renderPending(state);
    default: return renderTables(state);
  }
}

// ----- reading --------------------------------------------------------------------------

async function refresh() {
  if (!api.signedIn) return;
  try {
    state.overview = await api.get("/api/overview");
    switch (state.tab) {
      case "table":
        state.table = await api.get(`/api/tables/${encodeURIComponent(state.tableId)}`);
        state.tableAt = performance.now();
        break;
      case "jackpots":
        state.jackpots = (await api.get("/api/jackpots")).jackpots;
        break;
      case "players":
        if (state.playerId) state.player = await api.get(`/api/players/${encodeURIComponent(state.playerId)}`);
        break;
      case "audit":
        state.audit = await api.get(`/api/audit?offset=${state.auditOffset}&limit=50`);
        break;
      case "pending":
        state.pending = await api.get("/api/pending");
        break;
      default:
        state.tables = (await api.get("/api/tables")).tables;
    }
    state.readError = null;
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 401) console.warn("console refresh failed", e);
    if (e instanceof ApiError && e.status === 503) {
      // what the store holds is not known now: said, not shown stale or blank
      if (state.tab === "jackpots") state.jackpots = null;
      state.readError = { tab: state.tab, text: `${TAB_NAMES[state.tab] ?? "This"} not known now: ${e.message}` };
    }
  }
  render();
}

const TAB_NAMES = { jackpots: "The jackpots are", players: "The player is", audit: "The audit log is",
  pending: "The retries are", table: "The table is" };

async function poll() {
  await refresh();
  setTimeout(poll, POLL_MS);
}

// ----- acting ---------------------------------------------------------------------------

function formOf(el) {
  return el.closest("form");
}

function reasonOf(form) {
  return (form?.elements?.reason?.value ?? "").trim();
}

/** The act form's key, as views.js reads `busy` and `amountError`: "table:<id>",
 * "jackpot:<name>" or "player". */
function formKey(form) {
  const d = form?.dataset ?? {};
  return d.table ? `table:${d.table}` : d.jackpot ? `jackpot:${d.jackpot}` : d.form === "player-act" ? "player" : "";
}

/** The amount field's dollars as whole cents, or null with the error said by the field:
 * nothing is rounded ("12.345" was sent as 1235 cents) and nothing but dollars and cents
 * is read ("1e3" was taken as $1,000). */
function centsOf(form, { min = 1 } = {}) {
  const text = (form?.elements?.amount?.value ?? "").trim();
  const found = /^(\d*)(?:\.(\d{0,2}))?$/.exec(text);
  let cents = NaN;
  if (found && (found[1] || found[2])) {
    cents = Number(found[1] || "0") * 100 + Number((found[2] ?? "").padEnd(2, "0"));
  }
  let error = null;
  if (!Number.isSafeInteger(cents)) {
    error = "Amount: dollars and cents, as 12.34 (at most two decimals)";
  } else if (cents < min || cents > MAX_CENTS) {
    error = `Amount: from ${dollars(min)} to ${dollars(MAX_CENTS)}`;
  }
  state.amountError = error ? { form: formKey(form), text: error } : null;
  return error ? null : cents;
}

function askReason() {
  state.result = { outcome: "error", text: "Give a reason: it goes in the audit log." };
  render();
}

async function act(path, form, fields = {}) {
  const key = formKey(form);
  if (state.busy.has(key)) return; // one act of a form at a time: its answer is awaited
  const reason = reasonOf(form);
  if (fields.amount === undefined) state.amountError = null;
  if (!reason) {
    askReason();
    return;
  }
  // its buttons wait for the answer: a second click used to find the reason cleared by
  // the first's answer and say "Give a reason" over the "applied" it had not shown yet
  state.busy.add(key);
  render();
  try {
    const answer = await api.act(path, reason, fields);
    if (answer.state === "done") {
      const row = answer.row;
      const code = row.details?.result?.code;
      const moved = actAmountText(row);
      const named = namedPlayer(row); // a table's act names its player: whom
      state.result = { outcome: row.outcome, text: `${row.action} ${row.target}${named ? ` ${named}` : ""}: `
        + `${row.outcome}${moved ? `, ${moved}` : ""}${code ? ` (${code})` : ""}` };
      if (form?.elements?.reason) form.elements.reason.value = "";
      // an amount applied is cleared too: a second click would not repeat it by mistake
      if (row.outcome === "applied" && form?.elements?.amount) form.elements.amount.value = "";
    } else {
      state.result = { outcome: "unchanged", text: answer.message ?? "recorded; not carried out yet" };
    }
  } catch (e) {
    if (e instanceof ApiError && e.data?.field === "amount") {
      // the API's words are in cents; the field is in dollars
      const min = fields.amount === 0 ? 0 : 1;
      state.amountError = { form: formKey(form), text: `Amount: from ${dollars(min)} to ${dollars(MAX_CENTS)}` };
      state.result = null;
    } else {
      state.result = { outcome: "error", text: e.message };
    }
  } finally {
    state.busy.delete(key);
  }
  await refresh();
}

async function onClick(event) {
  const el = event.target.closest("[data-console]");
  if (!el) return;
  const form = formOf(el);
  switch (el.dataset.console) {
    case "tab":
      state.tab = el.dataset.tab;
      state.result = null;
      state.confirm = null;
      state.amountError = null;
      break;
    case "sign-out":
      await api.signOut().catch(() => {});
      state.operator = "";
      state.role = "";
      render();
      return;
    case "open-table":
      state.tab = "table";
      state.tableId = el.dataset.table;
      state.table = null;
      state.round = null;
      state.result = null;
      state.amountError = null;
      break;
    case "table-act": {
      const a = el.dataset.act;
      const fields = {};
      if (a === "void") fields.round_id = el.dataset.round;
      if (a === "remove") fields.player_id = form.elements.player.value;
      await act(`/api/tables/${encodeURIComponent(form.dataset.table)}/${a}`, form, fields);
      return;
    }
    case "jackpot-act": {
      const a = el.dataset.act;
      const amount = a === "correct" ? centsOf(form, { min: 0 }) : undefined;
      if (amount === null) break;
      if (a === "correct" && !reasonOf(form)) {
        askReason(); // before anything is put up to confirm
        return;
      }
      if (a === "correct") {
        // the meter is what a royal flush pays: its before and after are shown to confirm
        state.confirm = { jackpot: form.dataset.jackpot, amount };
        state.result = null;
        break;
      }
      state.confirm = null;
      await act(`/api/jackpots/${encodeURIComponent(form.dataset.jackpot)}/${a}`, form, {});
      return;
    }
    case "jackpot-cancel":
      state.confirm = null;
      break;
    case "jackpot-confirm": {
      const asked = state.confirm;
      if (!asked || asked.jackpot !== form.dataset.jackpot) break;
      state.confirm = null;
      const fields = { amount: asked.amount };
      await act(`/api/jackpots/${encodeURIComponent(form.dataset.jackpot)}/correct`, form, fields);
      return;
    }
    case "player-act": {
      const a = el.dataset.act;
      const amount = a === "credit" || a === "debit" ? centsOf(form) : undefined;
      if (amount === null) break;
      const fields = amount === undefined ? {} : { amount };
      await act(`/api/players/${encodeURIComponent(form.dataset.player)}/${a}`, form, fields);
      return;
    }
    case "open-player":
      if (el.dataset.tab) { // from another tab (a jackpot's prize)
        state.tab = el.dataset.tab;
        state.confirm = null;
      }
      state.playerId = el.dataset.player;
      state.player = null;
      state.round = null; // the last player's round is not this one's
      state.result = null;
      state.amountError = null;
      break;
    case "open-round":
      try {
        state.round = await api.get(`/api/rounds/${encodeURIComponent(el.dataset.round)}`);
        state.roundTab = state.tab;
      } catch (e) {
        state.result = { outcome: "error", text: e.message };
      }
      render();
      return;
    case "close-round":
      state.round = null;
      render();
      return;
    case "audit-page":
      state.auditOffset = Number(el.dataset.offset);
      break;
    case "audit-export": {
      const text = await api.exportAudit();
      const link = h("a", { href: URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" })),
        download: "audit.jsonl" });
      link.click();
      URL.revokeObjectURL(link.href);
      return;
    }
    default:
      return;
  }
  await refresh();
}

async function onSubmit(event) {
  const form = event.target;
  event.preventDefault();
  if (form.dataset.form === "signin") {
    try {
      await api.signIn(form.elements.name.value.trim(), form.elements.password.value);
      state.operator = api.operator;
      state.role = api.role;
      state.signinError = "";
    } catch (e) {
      // a store away (503) or too many tries (429) is not a wrong password: its words
      state.signinError = e.status === 401 || !e.message ? "Wrong operator name or password." : e.message;
    }
    render();
    await refresh();
  } else if (form.dataset.form === "player-search") {
    const q = form.elements.q.value.trim();
    state.found = (await api.get(`/api/players?q=${encodeURIComponent(q)}`)).players;
    render();
  }
}

document.addEventListener("click", (e) => { onClick(e).catch((err) => console.warn(err)); });
document.addEventListener("submit", (e) => { onSubmit(e).catch((err) => console.warn(err)); });
render();
if (api.signedIn) {
  // a tab signed in before: its role as the API says it now
  api.whoAmI().then(() => { state.operator = api.operator; state.role = api.role; render(); })
    .catch((e) => console.warn("console: who am I", e));
}
poll();
