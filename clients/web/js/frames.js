// The server's side of the session: the greeting (`hello`, `welcome`), and every frame
// it pushes taken into the state (`absorb`): a table's snapshot (with what it changes:
// news of a move, of decisions made out of sight, the deal shown card by card), the own
// hands, the history, the lobby, the wallet, the jackpots.

import { accountToken, accountWelcomed, forgetAccount } from "./account.js";
import { forgetStaleBuilds, rememberBets } from "./bets.js";
import { purchases } from "./buying.js";
import { ServerError } from "./connection.js";
import { justDealt, nextDealFrameIn, startDeal } from "./deal.js";
import { $ } from "./dom.js";
import { MOVED, notHere, reopenAwaited, tableMoved, tellMoved } from "./fleet.js";
import { absorbHand, forgetStaleHands } from "./hands.js";
import { followArmedLeave, playedOn, tellPlayedOn } from "./leaving.js";
import { conn, connectedTo } from "./link.js";
import { atStake, restartedNotice } from "./moved.js";
import { dismissMomentToasts, dismissRefusals, dismissToasts, followRounds, showBanner, showError } from "./notices.js";
import { loadHistory, rememberRound, sendSeed } from "./rounds.js";
import { lettingGo, mySeats, render, setCurrent, setLastDeal, state, titleOf } from "./state.js";
import { shutdownLeftMs } from "./table.js";
import { KEYS } from "./tabstore.js";
import { followClockRanOn, linkWentDown, noticeClockRanOn, noticeUnseenDecisions } from "./unseen.js";

const PROTOCOL_VERSION = 1;
const SESSION_NEWS_MS = 60000; // a new guest's notice, read and folded, stays this long
const reducedMotion = window.matchMedia?.("(prefers-reduced-motion: reduce)");

/** The link's state changed (connection.js's `onStatus`). */
export function linkStatus(status) {
  const wasOpen = state.status?.state === "open";
  state.status = status;
  // Off the air, what the server holds for our seeds is unknown (it may have
  // restarted) until they are sent again after the next join.
  if (status.state !== "open") {
    state.seedSync = {};
    if (wasOpen) linkWentDown();
  } else {
    dismissToasts("offline"); // what they said is over
    dismissToasts("elsewhere");
  }
  render();
}

/** Say hello: resume with the tab's token, else as the name the player gave. */
export async function hello() {
  const token = accountToken() ?? sessionStorage.getItem(KEYS.token);
  const name = sessionStorage.getItem(KEYS.name);
  if (!token && !name) {
    state.needName = true;
    render();
    return;
  }
  try {
    welcome(await conn.request("hello", token ? { v: PROTOCOL_VERSION, token } : { v: PROTOCOL_VERSION, name }));
  } catch (err) {
    if (err.code === "invalid_token") {
      // The server forgot us: start over under the same name. An account's token was
      // revoked (signed out elsewhere, a password change): its chips wait for a sign-in.
      // A guest's token is its only key: a server that forgot it (a restart without
      // keeping its data) forgot that wallet too.
      const account = token !== null && token === accountToken();
      sessionStorage.removeItem(KEYS.token);
      forgetAccount();
      // the news first: folded to one line, the notice still says it
      showError(account
        // "sign in again" alone was untrue when the server had lost the account with its
        // data; which of the two it is, the page cannot tell: sign-in will
        ? "Signed out: sign in again to play with your account (you were signed out elsewhere, "
          + "the password changed, or this device went unused for a long time). If signing in "
          + "says the username or password is wrong though both are right, the casino's data was "
          + "reset (a server restarted without keeping it) and the account is gone with it. "
          + "Meanwhile you play as a new guest."
        : "New player, new wallet: the server no longer knows your previous session (unused "
          + "for a long time, or the server restarted without keeping its data), so you start again.",
      // news, not money: read and folded, it goes after a while (it stayed for the session)
      { code: "session-ended", tone: "info", sticky: true, expires: account ? null : SESSION_NEWS_MS });
      if (conn.open) hello();
      return;
    }
    if (!token && err instanceof ServerError) {
      // a new player's name refused (too long, too many new players from here): the
      // form again, the name still in it, with the reason; not "Connecting…" for ever
      sessionStorage.removeItem(KEYS.name);
      state.needName = true;
      render();
      showError(err, { about: "name" });
      return;
    }
    showError(err);
  }
}

export function welcome(w) {
  dismissRefusals("name");
  state.welcomedOn = conn.opens; // this socket is the player's: online (see `online`)
  if (state.me && state.me.player_id !== w.player_id) state.formerPlayer = state.me.player_id;
  state.me = { player_id: w.player_id, name: w.name };
  state.limits = w.limits ?? {};
  state.balance = w.balance ?? null;
  state.jackpots = { ...(w.jackpots ?? {}) };
  state.serverUrl = w.url || null; // lobby rows with this address are this server's tables
  state.here = connectedTo(); // and those at its host:port (reached by another name)
  state.needName = false;
  sessionStorage.setItem(KEYS.token, w.token);
  sessionStorage.setItem(KEYS.name, w.name);
  accountWelcomed(w);
  conn.request("lobby", { watch: true }).catch(showError);
  // Rejoin every table where we sit (the server also does it on a resume,
  // but not when it has not yet seen the old connection go) and the one on screen.
  const seats = w.seats ?? {};
  if (!state.current && Object.keys(seats).length) setCurrent(Object.keys(seats)[0]);
  const tables = new Set(Object.keys(seats));
  if (state.current) tables.add(state.current);
  // Keep showing what we had until the fresh snapshots come, but let them win
  // whatever their `seq` (a restarted server counts from zero again).
  for (const [id, snap] of Object.entries(state.tables)) {
    if (tables.has(id)) snap.seq = -1;
    else delete state.tables[id];
  }
  for (const table of tables) {
    conn.request("join", { table }).then(() => sendSeed(table), (err) => {
      // the table the player was at (not one only asked for, by a link: that is offered)
      const wasAt = state.tables[table] || state.away[table] || state.awaiting === table;
      if (table === state.current && wasAt && MOVED.has(err.code)) {
        notHere(table, err.frame?.url); // its host failed, or lost it: followed where it went
        return;
      }
      if (table === state.current) setCurrent(null);
      showError(Object.assign(err, { table }));
    });
  }
  if (state.history.open) loadHistory();
  purchases.send(w.player_id); // one whose answer was lost goes again: its key buys it once
  render();
}

/** Table id -> the round in play when the page was back (a reconnect), if any. */
const rejoined = {};

/** Own seats gone from one snapshot to the next, the page heard all along, though the
 * player gave none up (no stand, no leave) and no restart or shutdown let them go: only
 * the casino frees them so (an operator's removal, a suspended account; PROTOCOL.md §6),
 * or the server for an absence past its reconnect grace. A hand dealt plays on and its
 * seats go at the round's end: they just vanished. */
function noticeFreedSeats(old, snap) {
  const me = state.me?.player_id;
  const asked = state.letGo[snap.table] ?? new Set();
  const gone = mySeats(old).filter((i) => snap.seats[i]?.player_id !== me);
  const freed = gone.filter((i) => !asked.has(i));
  for (const i of gone) asked.delete(i);
  if (!freed.length || snap.paused?.shutdown) return;
  const many = freed.length > 1;
  const ended = ["deciding", "showdown"].includes(old.phase) && old.round_id !== snap.round_id;
  // back from an absence in that round (or a hand of it folded as its player gone): the
  // server may have let the seats go for the absence (past its reconnect grace)
  const away = (old.round_id && rejoined[snap.table] === old.round_id) || freed.some((i) => old.seats[i].left);
  showError(`Your seat${many ? "s" : ""} ${freed.map((i) => `#${i + 1}`).join(", ")} `
    + `${many ? "were" : "was"} freed${ended ? " as the round ended" : ""}, not by a stand or leave of yours: `
    + (away ? `you were away longer than the table keeps a seat, or the casino let ${many ? "them" : "it"} go`
      : `the casino let ${many ? "them" : "it"} go`)
    + (mySeats(snap).length ? "." : ". You are watching this table: take a seat to play on."),
  { code: "seats-freed", tone: "info", sticky: true, table: snap.table, round: snap.round_id });
}

/** Take in a frame the server pushed (or a reply that carries data). */
export function absorb(frame) {
  switch (frame.t) {
    case "table": {
      const old = state.tables[frame.table];
      if (old && old.seq > frame.seq) return; // an older snapshot: keep the newer
      // the table as last seen before it was looked for at another process, if it was
      const away = state.away[frame.table];
      const prev = away?.snap ?? old;
      const from = away ? away.from : state.seenAt[frame.table];
      delete state.away[frame.table];
      state.seenAt[frame.table] = state.serverUrl;
      if (state.awaiting === frame.table) state.awaiting = null;
      // the player's round in play when the server said it was shutting down, and whether
      // it was seen to its showdown: told of once a restarted server shows the table
      // (tellMoved); one voided by the shutdown is told at once (unseen.js)
      if (frame.paused?.shutdown) {
        const id = atStake(frame, state.me?.player_id).roundId ?? old?.shutdownRound?.id ?? null;
        frame.shutdownRound = id && { id,
          player: old?.shutdownRound?.id === id ? old.shutdownRound.player : state.me?.player_id,
          finished: Boolean(old?.shutdownRound?.finished) || (frame.phase === "showdown" && frame.round_id === id) };
      }
      // the shutdown's deadline as time left now, beside the round's own (table.js remainingMs)
      if (frame.paused?.shutdown) frame.shutdownLeftMs = shutdownLeftMs(frame.paused);
      state.tables[frame.table] = frame;
      state.receivedAt[frame.table] = performance.now();
      if (frame.jackpot) state.jackpots[frame.jackpot.name] = frame.jackpot.amount;
      // a refusal of the moment goes once the moment has: the phase moved on, the casino
      // paused or resumed the table ("paused" stayed up after the resume), or the player
      // sat or stood ("Take a seat first" stayed up beside the seat taken)
      const movedOn = old && (old.phase !== frame.phase || Boolean(old.paused) !== Boolean(frame.paused)
        || mySeats(old).length !== mySeats(frame).length);
      if (movedOn && frame.table === state.current) {
        dismissMomentToasts();
        // news of a move or a restart, read: the table has moved on from it
        for (const el of $("errors").querySelectorAll('.toast[data-code="table-moved"][data-seen="true"]')) el.remove();
      }
      followArmedLeave(frame);
      // shown by another process than before: that one lost it (a new host voids what it
      // left open); said once, with what became of the seats and the round
      if (prev && (away?.lost || (from && state.serverUrl && from !== state.serverUrl))) {
        tellMoved(prev, frame, { restarted: Boolean(from) && from === state.serverUrl });
        // the round its old host dealt is not the table's last deal here (the new host
        // dealt none yet); its proof stays in History, with its own Verify
        setLastDeal(frame.table, null);
      } else if (old?.seq === -1 && old.paused?.shutdown && !frame.paused?.shutdown) {
        // the first snapshot since the reconnect, from a server started again after the
        // one that said it was shutting down: it gave its tables up, and the seats with
        // them (the page said only "The table is open: take a seat")
        tellMoved(old, frame, { restarted: true });
      } else {
        noticeUnseenDecisions(prev, frame);
        if (old && old.seq !== -1) noticeFreedSeats(old, frame);
        else rejoined[frame.table] = frame.round_id;
      }
      followClockRanOn(frame);
      noticeClockRanOn(frame);
      followRounds(prev, frame); // news of rounds past goes (read) as the next one starts
      forgetStaleHands(state.hands, frame);
      forgetStaleBuilds(frame, old);
      rememberBets(frame);
      rememberRound(frame);
      if (justDealt(old, frame) && !reducedMotion?.matches) showDeal(frame);
      // a deal is shown only while its round is deciding: the showdown ends it at once
      else if (state.dealing[frame.table]?.round_id !== frame.round_id || frame.phase !== "deciding") {
        delete state.dealing[frame.table];
      }
      if (frame.phase === "showdown") {
        setLastDeal(frame.table, frame);
        const fresh = !(old?.phase === "showdown" && old.round_id === frame.round_id);
        if (fresh && state.history.open && mySeats(frame).some((i) => frame.seats[i].result)) loadHistory();
      }
      break;
    }
    case "hand":
      absorbHand(state.hands, frame);
      break;
    case "history":
      state.history.rounds = Array.isArray(frame.rounds) ? frame.rounds : [];
      break;
    case "lobby":
      state.lobby = frame;
      Object.assign(state.jackpots, frame.jackpots ?? {});
      // the processes hosting tables, and those standing by: where the link goes on
      // when this one fails
      conn.setFleet([...(frame.tables ?? []).map((row) => row.url), ...(frame.servers ?? [])]);
      reopenAwaited();
      break;
    case "balance":
      state.balance = { balance: frame.balance, bonus: frame.bonus, available: frame.available, held: frame.held };
      if (playedOn) tellPlayedOn();
      break;
    case "jackpot":
      state.jackpots[frame.name] = frame.amount;
      break;
    case "jackpot_won":
      showBanner(frame);
      break;
    case "table_moved":
      tableMoved(frame);
      break;
    case "table_restarted":
      if (state.tables[frame.table]) {
        lettingGo(frame.table); // every seat goes: said here
        const text = restartedNotice({ title: titleOf(frame.table), frame, snap: state.tables[frame.table],
          playerId: state.me?.player_id });
        showError(text, { code: "table_restarted", tone: "info", sticky: true, table: frame.table,
          round: state.tables[frame.table].round_id });
      }
      break;
    case "error":
      showError({ frame });
      break;
    default:
      return; // welcome/pong are handled by their request
  }
  render();
}

/** Show the cards coming out one at a time, redrawing as each one is dealt. */
function showDeal(snap) {
  const deal = startDeal(snap, performance.now());
  state.dealing[snap.table] = deal;
  const next = () => {
    if (state.dealing[snap.table] !== deal) return;
    render();
    const wait = nextDealFrameIn(deal, performance.now()); // to the last card landed
    if (wait === null) {
      delete state.dealing[snap.table];
      render();
    } else {
      setTimeout(next, wait + 1);
    }
  };
  setTimeout(next, deal.step);
}
