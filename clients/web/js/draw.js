// Drawing the page: the view the state calls for (the name form, connecting, the lobby,
// a table) and the History panel, morphed into the page (dom.js), and the focus a view
// just shown takes. `render` (state.js) asks for it; app.js hands it to the hooks.

import { dealLanded } from "./deal.js";
import { $, h, morph } from "./dom.js";
import { drawHeader, fitFelt, layoutFor, markHeadAway, markSidePanel, watchFelt } from "./frame.js";
import { withOwnHands } from "./hands.js";
import { renderHistory } from "./history.js";
import { leaveArmed } from "./leaving.js";
import { conn, online } from "./link.js";
import { renderLobby } from "./lobby.js";
import { placeToasts } from "./notices.js";
import { revealDecision, revealShowdown } from "./play.js";
import { seedStatus } from "./rounds.js";
import { buildOf, lobbyRow, selectedSeat, state, titleOf } from "./state.js";
import { renderTable } from "./table.js";

let drawnView = null; // the view draw() showed last: focus moves only when it changes

/** A view just shown takes the focus a keyboard needs there, unless the player has it
 * somewhere visible: the name form its field (`autofocus` does nothing for a form shown
 * later), the lobby its first Play button (the form just submitted is gone), a table
 * its title (the Play button pressed is gone; Tab goes on from the table's head). */
function focusNewView(view) {
  if (view === drawnView) return;
  const active = document.activeElement;
  const lost = !active || active === document.body || active.closest("[hidden]") !== null;
  if (view === "login") $("name-input").focus();
  else if (view === "lobby" && lost) {
    const play = $("lobby").querySelector('button[data-action="play"]');
    if (!play) return; // the lobby's list has not come yet: the next draw
    play.focus({ preventScroll: true });
  } else if (view === "table" && lost) {
    const title = $("table").querySelector('[data-testid="table-title"]');
    if (!title) return; // still joining: the next draw
    title.focus({ preventScroll: true });
  }
  drawnView = view;
}

export function draw() {
  $("boot")?.remove();
  drawHeader();
  const snap = state.current ? state.tables[state.current] : null;
  const view = state.needName ? "login" : !state.me ? "connecting" : state.current ? "table" : "lobby";
  document.body.dataset.view = view;
  $("login").hidden = view !== "login";
  $("connecting").hidden = view !== "connecting";
  $("lobby").hidden = view !== "lobby";
  $("table").hidden = view !== "table";
  if (view === "lobby") morph($("lobby"), renderLobby(state));
  morph($("history"), renderHistory({
    history: { ...state.history, open: state.history.open && Boolean(state.me) },
    me: state.me, lobby: state.lobby, verdicts: state.verdicts,
  }));
  if (view === "table") {
    if (snap) {
      const row = lobbyRow(snap.table);
      const now = performance.now();
      const seen = withOwnHands(snap, state.hands, state.me?.player_id);
      morph($("table"), renderTable({
        snap: seen,
        row,
        me: state.me,
        leaveArmed: leaveArmed?.table === snap.table,
        layout: layoutFor(snap),
        selected: selectedSeat(snap),
        deal: state.dealing[snap.table] && !dealLanded(state.dealing[snap.table], now) ? state.dealing[snap.table] : null,
        rebet: state.lastBets[snap.table]?.seats ?? null,
        sideOpen: state.sideOpen ?? !window.matchMedia?.("(max-width: 640px)").matches,
        build: (seat) => buildOf(snap.table, seat),
        chip: state.chip,
        busy: state.busy,
        maxSeats: row?.max_seats_per_player ?? state.limits?.max_seats_per_player ?? 1,
        receivedAt: state.receivedAt[snap.table],
        now,
        jackpot: snap.jackpot ? state.jackpots[snap.jackpot.name] : undefined,
        available: state.balance?.available,
        online: online(),
        quiet: conn.quiet,
        elsewhere: state.status.state === "replaced",
        fair: {
          seed: state.seeds[snap.table] ?? "",
          seedStatus: seedStatus(snap.table, snap),
          lastDeal: state.lastDeal[snap.table],
          verdict: state.lastDeal[snap.table] ? state.verdicts[`table:${state.lastDeal[snap.table].round_id}`] : undefined,
        },
      }));
    } else {
      const awaited = state.awaiting === state.current;
      morph($("table"), h("section", { id: "table", class: "table-view", "data-testid": "table-view",
        "data-table": state.current, "data-awaiting": awaited ? "true" : null },
      awaited
        ? h("div", { class: "awaiting", "data-testid": "table-awaited" },
          h("p", {}, `Finding where ${titleOf(state.current)} is hosted now: its server stopped answering, `
            + "or another server of the casino has taken it over. It opens here by itself."),
          h("button", { class: "btn", "data-action": "stop-awaiting", "data-testid": "stop-awaiting" },
            "Back to the lobby"))
        : h("p", { class: "muted" }, "Joining the table…")));
    }
    watchFelt();
    fitFelt();
    if (snap) revealDecision(snap, state.dealing[snap.table] ?? null);
    if (snap) revealShowdown(snap);
  }
  focusNewView(view);
  placeToasts(); // the view (and the side panel) may have come or gone under them
  markSidePanel();
  markHeadAway();
}
