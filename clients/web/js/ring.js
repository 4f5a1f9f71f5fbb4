// The casino's server processes a page can play through, as the terminal client's
// link keeps them (clients/tui/link.py): its home (the process that served the page)
// and the ones the lobby names as hosting tables. The session token is good at any
// of them (they share one store), so a process that cannot be reached is left for
// the next: refused twice in a row (not a blip: it is down), or hung once (a frozen
// process: its kernel takes the connection, nothing answers it). No DOM, no sockets.

/** A try to reach a process failed this long ago or less: a lobby row naming it is
 * its own, left behind, not where a table went. */
export const FAILED_LATELY_MS = 15000;
const REFUSALS_BEFORE_MOVING_ON = 2;

export class Ring {
  /** @param {string} home the ws:// or wss:// address of the page's own server */
  constructor(home) {
    this.home = home;
    this.url = home; // the process tried now, or connected to
    this.fleet = []; // the others the lobby named
    this.misses = 0; // refusals in a row at `url`
    this.failedAt = new Map(); // url -> when a try to reach it last failed
  }

  /** Every process, in one order always: home first. */
  members() {
    return [...new Set([this.home, ...this.fleet])];
  }

  /** The addresses of the lobby's rows (empty ones, and any a page of this scheme
   * cannot open, a ws:// one from an https:// page, left out). */
  setFleet(urls) {
    const secure = this.home.startsWith("wss:");
    this.fleet = [...new Set(urls.filter((u) => typeof u === "string"
      && (secure ? /^wss:\/\//.test(u) : /^wss?:\/\//.test(u))))];
  }

  /** The process after `url` in the ring (`url` itself when it is alone). */
  after(url) {
    const ring = this.members();
    const at = ring.indexOf(url);
    return at < 0 ? ring[0] : ring[(at + 1) % ring.length];
  }

  /**
   * A try to reach `url` failed at `now`: `hung` when it never answered (a connection
   * that did not open in time, or one that went silent). Returns the process to try
   * next: the next one after a hang, or after the second refusal in a row.
   */
  failed(now, { hung = false } = {}) {
    this.failedAt.set(this.url, now);
    this.misses += 1;
    if (hung || this.misses >= REFUSALS_BEFORE_MOVING_ON) {
      this.url = this.after(this.url);
      this.misses = 0;
    }
    return this.url;
  }

  /** The process at `url` answered. */
  reached() {
    this.misses = 0;
    this.failedAt.delete(this.url);
  }

  /** Go to `url` on purpose (a table hosted there). */
  go(url) {
    this.url = url;
    this.misses = 0;
  }

  failedLately(url, now, within = FAILED_LATELY_MS) {
    const when = this.failedAt.get(url);
    return when !== undefined && now - when < within;
  }
}
