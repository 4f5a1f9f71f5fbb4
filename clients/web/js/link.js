// The connection to the server (connection.js does the socket, the reconnects and the
// fleet): the one `conn` of the page, and whether it is online. What it calls on (a
// greeting, each frame, each change of status) is frames.js's, through `hooks`: apart
// so that every module that sends a request imports it without importing frames.js.

import { Connection } from "./connection.js";
import { hooks, state } from "./state.js";

const wsUrl = new URL("ws", location.href);
wsUrl.protocol = location.protocol === "https:" ? "wss:" : "ws:";

export const conn = new Connection(wsUrl.href, {
  onOpen: () => hooks.hello(),
  onFrame: (frame) => hooks.absorb(frame),
  onStatus: (status) => hooks.linkStatus(status),
});

/** Online: the socket is open and its hello was answered (the player is welcomed on it). */
export function online() {
  return conn.open && state.welcomedOn === conn.opens;
}

/** The process the page is connected to (or tries), as a URL: its host is "here". */
export function connectedTo() {
  try {
    return new URL(conn.url);
  } catch {
    return location;
  }
}
