// The WebSocket link to the table server: msgpack in binary frames, requests
// matched to their replies by `id`, and reconnection with backoff after a drop.
// With several server processes on one store (a fleet), it reconnects through the
// ring of them (ring.js): a process that hangs, or refuses twice in a row, is left
// for the next, and `follow` goes on at a given one (where the page's table went).
//
// The connection knows nothing about poker: it hands every server frame to
// `onFrame`, calls `onOpen` each time a socket opens (the app then says hello,
// with its token after a drop), and reports its state through `onStatus`.

import { decode, encode } from "@msgpack/msgpack";

import { Ring } from "./ring.js";

/** Frames that answer a request carrying `id` (see PROTOCOL.md, "Requests"). */
const REPLY_TYPES = new Set(["ok", "error", "welcome", "pong", "lobby", "balance"]);

const BACKOFF_FIRST_MS = 500;
const BACKOFF_MAX_MS = 8000;
const REQUEST_TIMEOUT_MS = 15000;
// A link can die without a close: Wi-Fi gone, a laptop lid, a frozen server. The
// page then hears nothing, so silence is the sign: after PROBE_AFTER_MS of it the
// page pings; after DEAD_AFTER_MS it calls the link lost and reconnects. A socket
// that has not opened after CONNECT_TIMEOUT_MS is given up and tried again. Either is
// a hang of that process (a frozen one takes connections and answers nothing): the
// next try goes to the next process of the ring.
const PROBE_AFTER_MS = 4000;
const DEAD_AFTER_MS = 10000;
const CONNECT_TIMEOUT_MS = 10000;
const WATCH_MS = 1000;
const QUIET_AFTER_PING_MS = 1500;
const SILENT = 4001; // our own close codes: the link went silent, the socket never opened
const NEVER_OPENED = 4002;

/** The server refused a request: `code` is the stable error code, `frame` the whole error. */
export class ServerError extends Error {
  constructor(frame) {
    super(frame.message ?? frame.code ?? "the server refused the request");
    this.name = "ServerError";
    this.code = frame.code;
    this.frame = frame;
  }
}

/** No connection, so no answer: said apart so the page can take it back once connected. */
export class OfflineError extends Error {
  constructor(message) {
    super(message);
    this.name = "OfflineError";
  }
}

/** No connection because another tab or device plays the session: nothing reconnects
 * by itself (the two would take it from each other for ever); "Play here" does. */
export class ElsewhereError extends Error {
  constructor() {
    super("You are playing in another tab or on another device: nothing was sent here. "
      + "“Play here” brings the game back to this tab.");
    this.name = "ElsewhereError";
    this.code = "elsewhere";
  }
}

export class Connection {
  /**
   * @param {string} url ws:// or wss:// URL of the server's /ws endpoint
   * @param {{onOpen: Function, onFrame: Function, onStatus: Function}} handlers
   */
  constructor(url, { onOpen, onFrame, onStatus }) {
    this.ring = new Ring(url);
    this.onOpen = onOpen;
    this.onFrame = onFrame;
    this.onStatus = onStatus;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, reject, timer}
    this.attempt = 0;
    this.opens = 0; // sockets opened so far (the first one and every reconnect)
    this.retryTimer = null;
    this.stopped = true;
    this.status = { state: "idle" };
    this.heardAt = 0; // when the server was last heard from (any frame)
    this.probedAt = 0; // when the last liveness ping went out
    this.watch = null;
    this.opened = new WeakSet(); // the sockets that opened
  }

  /** The process connected to, or tried now. */
  get url() {
    return this.ring.url;
  }

  /** The addresses the lobby's rows name: the processes to go on at when this one fails. */
  setFleet(urls) {
    this.ring.setFleet(urls);
  }

  /** Whether a try to reach `url` failed lately (a lobby row naming it is stale). */
  failedLately(url) {
    return this.ring.failedLately(url, performance.now());
  }

  /**
   * Go on at the process at `url` at once, as the same player (the page says hello
   * with its token on the new socket): the socket here closes, what waits on it fails
   * as on any drop.
   */
  follow(url) {
    if (this.stopped) return;
    this.ring.go(url);
    clearTimeout(this.retryTimer);
    if (this.ws) this.#detach(this.ws, "going to another server of the casino");
    this.attempt = 0;
    this.#open();
  }

  /** Open the socket, and keep it open until `stop()`. */
  start() {
    this.stopped = false;
    this.#open();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.ws?.close(1000, "bye");
  }

  /**
   * Every second while a socket is open: ping after a silence, and call the link
   * lost when that ping has had no answer (nor anything else) for the rest of
   * DEAD_AFTER_MS. Only an unanswered ping counts, never the watch's own pace: a
   * throttled background tab or a loaded machine runs it late, but a page hears
   * its messages whenever they come.
   */
  #watch(ws) {
    if (this.ws !== ws) return;
    const now = performance.now();
    const asked = this.probedAt > this.heardAt; // a ping is out, unanswered so far
    if (asked && now - this.probedAt > DEAD_AFTER_MS - PROBE_AFTER_MS) {
      this.#closed(ws, SILENT, "no answer from the server");
      return;
    }
    if (!asked && now - this.heardAt > PROBE_AFTER_MS) {
      this.probedAt = now;
      this.request("ping").catch(() => {}); // its answer (or anything else) is the sign
    }
  }

  get open() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  /**
   * Open, but silent: nothing heard for PROBE_AFTER_MS, and the ping that silence sent
   * not answered within QUIET_AFTER_PING_MS (nor anything else come): an idle table's
   * pings come every few seconds, and one round trip on a slow phone link must not make
   * the clock flicker. The server may be frozen, its clocks stopped; any frame ends it.
   */
  get quiet() {
    return this.open && this.probedAt > this.heardAt
      && performance.now() - this.probedAt >= QUIET_AFTER_PING_MS;
  }

  /** Reconnect at once if a retry is pending (e.g. the browser came back online). */
  retryNow() {
    if (this.stopped || this.ws) return;
    clearTimeout(this.retryTimer);
    this.#open();
  }

  /** Drop the socket as a network failure would (used to try the reconnect path). */
  drop() {
    this.ws?.close(4000, "dropped by the client");
  }

  /**
   * Send `{t, id, ...fields}`; resolve with the reply frame, reject with a
   * ServerError for an `error` reply or an Error if the link goes down first.
   */
  request(t, fields = {}) {
    return new Promise((resolve, reject) => {
      if (!this.open) {
        reject(this.status.state === "replaced" ? new ElsewhereError()
          : new OfflineError("Not connected to the server: nothing was sent. Reconnecting…"));
        return;
      }
      const id = this.nextId++;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        // no answer is not a refusal: it may yet have been done
        reject(new OfflineError(`No answer to “${t}” yet: the table shows whether it was done.`));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      this.ws.send(encode({ t, id, ...fields }));
    });
  }

  #setStatus(state, extra = {}) {
    this.status = { state, ...extra };
    this.onStatus(this.status);
  }

  #open() {
    this.#setStatus(this.opens === 0 && this.attempt === 0 ? "connecting" : "reconnecting", { url: this.url });
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch {
      // an address this page may not open: a refusal, as far as the ring goes
      this.ws = { readyState: WebSocket.CLOSED };
      this.#closed(this.ws, 4003, "not an address this page can open");
      return;
    }
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    const connecting = setTimeout(() => {
      if (ws.readyState === WebSocket.CONNECTING) this.#closed(ws, NEVER_OPENED, "the server did not open the connection");
    }, CONNECT_TIMEOUT_MS);
    ws.onopen = () => {
      clearTimeout(connecting);
      this.opened.add(ws);
      this.ring.reached();
      this.attempt = 0;
      this.opens += 1;
      this.heardAt = performance.now();
      this.probedAt = 0;
      clearInterval(this.watch);
      this.watch = setInterval(() => this.#watch(ws), WATCH_MS);
      this.#setStatus("open");
      this.onOpen();
    };
    ws.onmessage = (event) => {
      this.heardAt = performance.now();
      if (typeof event.data === "string") return; // the protocol is binary only
      let frame;
      try {
        frame = decode(new Uint8Array(event.data));
      } catch (err) {
        console.error("undecodable frame from the server", err);
        return;
      }
      if (frame && typeof frame === "object") this.#dispatch(frame);
    };
    ws.onclose = (event) => {
      clearTimeout(connecting);
      this.#closed(ws, event.code, event.reason);
    };
    ws.onerror = () => {
      // A close event always follows; it drives the reconnect.
    };
  }

  /** The socket is gone (closed, or given up as silent): fail what waits, then reconnect,
   * at the next process of the ring when this one hung or refused twice. */
  #closed(ws, code, reason) {
    if (this.ws !== ws) return;
    this.#detach(ws, reason);
    if (this.stopped) {
      this.#setStatus("closed");
      return;
    }
    if (code === 1000) {
      // The server closes with 1000 only when the same player connected again
      // (another tab with this session): reconnecting would take it back and
      // the two tabs would evict each other forever. Wait for the player.
      this.stopped = true;
      this.#setStatus("replaced", { reason });
      return;
    }
    // A socket that never opened failed to reach its process; one that went silent hung
    // there. A socket closed after it was open (a restart, a shutdown) is tried again.
    const opened = this.opened.has(ws);
    if (!opened || code === SILENT) {
      this.ring.failed(performance.now(), { hung: code === SILENT || code === NEVER_OPENED });
    }
    // Exponential backoff with jitter, so a restarted server is not stampeded.
    const base = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** this.attempt);
    const delay = Math.round(base * (0.75 + Math.random() / 2));
    this.attempt += 1;
    this.#setStatus("waiting", { delay, code, reason, url: this.url });
    this.retryTimer = setTimeout(() => this.#open(), delay);
  }

  /** Let a socket go: closed if it is not yet, its watch stopped, what waits on it failed. */
  #detach(ws, reason) {
    this.ws = null;
    clearInterval(this.watch);
    if (ws.readyState !== WebSocket.CLOSED) {
      ws.onclose = ws.onmessage = ws.onopen = null; // a silent socket's late close changes nothing
      try {
        ws.close(4000, reason);
      } catch {
        // closing a dead socket may throw: it is gone either way
      }
    }
    for (const [, p] of this.pending) {
      clearTimeout(p.timer);
      // sent, but the answer is lost with the link: it may have been done or not
      p.reject(new OfflineError("The connection was lost before the server answered: "
        + "the table shows what was done once reconnected."));
    }
    this.pending.clear();
  }

  #dispatch(frame) {
    const waiting = frame.id !== undefined ? this.pending.get(frame.id) : undefined;
    if (waiting && REPLY_TYPES.has(frame.t)) {
      this.pending.delete(frame.id);
      clearTimeout(waiting.timer);
      if (frame.t === "error") {
        waiting.reject(new ServerError(frame));
        return; // the caller shows it
      }
      waiting.resolve(frame);
      if (frame.t === "ok") return;
    }
    this.onFrame(frame);
  }
}
