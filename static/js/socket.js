// @ts-check
// The table's WebSocket (docs/protocol.md), also the lobby's live feed: reconnects with backoff, numbers every
// action with a request id and resends the unanswered ones after a reconnect (the
// server answers a repeated id without moving twice). It speaks the protocol and nothing
// else: what a message means is the page's dispatch.
//
// A heartbeat both ways: a phone that loses its signal gets no close, its socket stays "open" and
// silent. So the page pings whenever it has heard nothing for PING_MS (and at least every
// SEND_EVERY_MS, which keeps the server's idle close, WS_IDLE_SECONDS, away). A socket that has
// brought no frame at all for SILENT_MS is said to be lost (the player sees it within a few seconds)
// but kept: a loaded server answers late, and a new socket would add to its load and put the moves
// on their way through a resend. Only one silent for GIVE_UP_MS is given up and another opened,
// every second or so for the first tries; at once when the browser says the network is back (its
// `online` event), so that the page is back within about a second of the signal, and seldom while
// the browser knows it is offline.

/** Ping when nothing has been heard for this long. */
export const PING_MS = 2000;
/** Ping at least this often, whatever is heard: the server closes a socket silent for WS_IDLE_SECONDS. */
const SEND_EVERY_MS = 5000;
/** No frame for this long (a ping unanswered for two seconds): the connection is shown lost. */
export const SILENT_MS = 4000;
/**
 * No frame for this long: the socket is given up and another opened. Well above SILENT_MS, so that a
 * server slow to answer is waited for, and below the server's WS_IDLE_SECONDS.
 */
export const GIVE_UP_MS = 12000;
/** An opening socket that has not opened by then is given up (a silent network never fails it; a loaded server opens slowly). */
const CONNECT_MS = 8000;
/** A try older than this is given up at once when the browser says the network is back: it began on the old one. */
const STALE_TRY_MS = 1000;
/** How often the heartbeat looks. */
const TICK_MS = 250;
/** The first tries of a loss come at most this far apart, so the page is back soon after the signal... */
const FAST_RETRY_MS = 1000;
/**
 * ...for this many tries; then they back off, doubling, to RETRY_MAX_MS: a server away for long is
 * not hammered, and the browser's own throttle, which delays every new socket more the more of them
 * failed lately (Chromium's WebSocket throttler), is not fed.
 */
const FAST_TRIES = 10;
const RETRY_MAX_MS = 15000;
/** While the browser knows it is offline, a try this often only: its `online` event brings the next at once. */
const OFFLINE_RETRY_MS = 5000;
/** An unanswered action older than this is not resent (its turn is long gone); the newest arrangement always is. */
const RESEND_FOR_MS = 20000;

/** @typedef {import("./wire.js").ServerMessage} ServerMessage */
/** @typedef {import("./wire.js").ClientMessage} ClientMessage */
/** @typedef {import("./wire.js").Action} Action */
/** @typedef {import("./wire.js").Groups} Groups */
/** @typedef {"open" | "closed" | "connecting"} ConnState */
/** An action waiting for its `result`. @typedef {{action: Action, sent: number, quiet: boolean}} Pending */
/**
 * @typedef {object} SocketHandlers
 * @property {(msg: ServerMessage, sent: Pending | null) => void} message every message; for a `result`, the action it answers
 * @property {(state: ConnState, detail?: string) => void} state
 * @property {(text: string) => void} fatal the server closed for good (logged out, no such table)
 */

export class TableSocket {
  /** @param {string} path @param {SocketHandlers} handlers */
  constructor(path, handlers) {
    this.path = path;
    this.h = handlers;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.attempts = 0;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    this.closedForGood = false;
    /** @type {Map<string, Pending>} request_id -> the action */
    this.pending = new Map();
    this.prefix = "w" + Math.random().toString(36).slice(2, 8) + Date.now().toString(36);
    this.count = 0;
    /** When the socket began to open, its last frame came, the page last sent and last pinged. */
    this.openingAt = 0; this.heardAt = 0; this.sentAt = 0; this.pingedAt = 0;
    /** When the connection was lost (0: it is not): its tries are not announced as a first "connecting". */
    this.lostAt = 0;
    this.tickedAt = Date.now();
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.beat = undefined;
    /** A try failing now is tried again at once (the network is said to be back). */
    this.hurry = false;
    /** The open socket has been silent for SILENT_MS: the connection is shown lost, the socket kept. */
    this.silent = false;
    // the browser knows the network is back: try at once, not at the next retry
    window.addEventListener("online", () => this.now(true));
    // a phone woken up, a tab shown again: its socket may have died meanwhile; ask now
    document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") this.now(false); });
  }

  /**
   * The link may be back: an open socket is pinged (its answer, or its silence, says), a closed one
   * opened at once. A try under way is left to finish (a browser opens one socket to a host at a
   * time, RFC 6455 §4.1: a second would wait for the first) and, if it fails, tried again at once.
   * When the network itself is said to be back (`online`), a socket already silent, or a try begun
   * before, belongs to the old network: it is given up and a new one opened at once.
   * @param {boolean} networkBack
   */
  now(networkBack) {
    if (this.closedForGood) return;
    const connecting = !!this.ws && this.ws.readyState === WebSocket.CONNECTING;
    if (networkBack && ((this.isOpen() && this.silent) || (connecting && Date.now() - this.openingAt > STALE_TRY_MS))) this.connect();
    else if (this.isOpen()) this.ping();
    else if (connecting) this.hurry = true;
    else this.connect();
  }

  /** @returns {boolean} the socket is open (it may still turn out silent) */
  isOpen() { return !!this.ws && this.ws.readyState === WebSocket.OPEN; }

  connect() {
    if (this.closedForGood) return;
    clearTimeout(this.timer);
    this.abandon();
    const early = this.adoptEarly();
    const proto = location.protocol === "https:" ? "wss://" : "ws://";
    const ws = early ? early.ws : new WebSocket(proto + location.host + this.path);
    this.ws = ws;
    this.openingAt = Date.now();
    if (this.beat === undefined) this.beat = setInterval(() => this.tick(), TICK_MS);
    if (!this.lostAt) this.h.state("connecting");
    ws.onopen = () => {
      if (this.ws !== ws) return;
      this.attempts = 0;
      this.lostAt = 0;
      this.hurry = false;
      this.silent = false;
      this.heardAt = this.sentAt = this.pingedAt = Date.now();
      this.h.state("open");
      this.resend();
    };
    ws.onmessage = (ev) => {
      if (this.ws !== ws) return; // a socket given up as silent: what it still brings is old
      this.heardAt = Date.now();
      if (this.silent) this.heard();
      /** @type {ServerMessage} the server's word for it (docs/protocol.md) */
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      /** @type {Pending | null} */
      let sent = null;
      if (msg && msg.type === "result") {
        const id = msg.request_id || "";
        sent = this.pending.get(id) || null;
        this.pending.delete(id);
      }
      this.h.message(msg, sent);
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (ev.code === 4401) { this.closedForGood = true; this.h.fatal("Your session has ended. Please log in again."); return; }
      if (ev.code === 4404) { this.closedForGood = true; this.h.fatal("This table does not exist any more."); return; }
      // the account holds too many sockets (other tabs, other devices), or this page flooded
      if (ev.code === 4429) { this.attempts = Math.max(this.attempts, 4); this.retry("Too many pages of your account are open: close one", true); return; }
      this.retry();
    };
    if (early && ws.readyState === WebSocket.OPEN) ws.dispatchEvent(new Event("open")); // it opened before it was ours
    if (early) for (const ev of early.brought) ws.onmessage(ev); // then what it brought, in order
  }

  /**
   * The socket early.js opened for this page, if it is still opening or open: taken once, by the
   * first connect. Its handlers are replaced; what it received meanwhile is returned to be replayed.
   * @returns {{ws: WebSocket, brought: MessageEvent[]} | null}
   */
  adoptEarly() {
    const early = window.rummyEarlySocket;
    if (!early) return null;
    window.rummyEarlySocket = undefined;
    early.ws.onmessage = null;
    const usable = early.path === this.path && (early.ws.readyState === WebSocket.CONNECTING || early.ws.readyState === WebSocket.OPEN);
    if (!usable) { try { early.ws.close(); } catch (e) { /* closed already */ } return null; }
    return { ws: early.ws, brought: early.brought };
  }


  /** A socket shown lost was only slow: it is open again for the page (which catches up, table.js). */
  heard() {
    this.silent = false;
    this.lostAt = 0;
    this.attempts = 0;
    this.h.state("open");
  }

  /** Stop listening to the current socket, if any, and close it (its close may never arrive). */
  abandon() {
    const ws = this.ws;
    this.ws = null;
    this.silent = false;
    if (ws) { try { ws.close(); } catch (e) { /* closing already */ } }
  }

  /** The heartbeat: ping a quiet socket, show a silent one lost, give up one silent for long or one that does not open. */
  tick() {
    const now = Date.now();
    // a tick much later than asked: the page was asleep (a hidden tab, a locked phone), not the
    // link; judge it from a fresh ping rather than from the time asleep
    const slept = now - this.tickedAt > TICK_MS * 4 + 1000;
    this.tickedAt = now;
    const ws = this.ws;
    if (!ws || this.closedForGood) return;
    if (ws.readyState === WebSocket.CONNECTING) {
      if (now - this.openingAt > CONNECT_MS) { this.abandon(); this.retry(); }
      return;
    }
    if (ws.readyState !== WebSocket.OPEN) return;
    if (slept) { this.heardAt = Math.max(this.heardAt, now - PING_MS); this.ping(); return; }
    if (now - this.heardAt > GIVE_UP_MS) { this.abandon(); this.retry(); return; }
    if (!this.silent && now - this.heardAt > SILENT_MS) {
      this.silent = true;
      this.lostAt = now;
      this.h.state("closed", "Waiting for an answer…");
    }
    if ((now - this.heardAt >= PING_MS && now - this.pingedAt >= PING_MS) || now - this.sentAt >= SEND_EVERY_MS) this.ping();
  }

  ping() {
    this.pingedAt = Date.now();
    this.raw({ type: "ping" });
  }

  /** @param {string} [why] @param {boolean} [slow] the server asked for it: no fast retries */
  retry(why, slow) {
    if (this.closedForGood) return;
    const now = Date.now();
    if (!this.lostAt) this.lostAt = now;
    const offline = typeof navigator !== "undefined" && navigator.onLine === false;
    const base = offline ? OFFLINE_RETRY_MS
      : slow ? Math.min(RETRY_MAX_MS, 500 * Math.pow(2, this.attempts))
      : this.attempts < FAST_TRIES ? Math.min(FAST_RETRY_MS, 250 * Math.pow(2, this.attempts))
      : Math.min(RETRY_MAX_MS, FAST_RETRY_MS * Math.pow(2, this.attempts - FAST_TRIES + 1));
    const delay = this.hurry ? 0 : base * (0.8 + Math.random() * 0.4);
    this.hurry = false;
    this.attempts += 1;
    const when = "(try " + this.attempts + ", in " + Math.round(delay / 100) / 10 + "s)";
    this.h.state("closed", (why ? why + ". Reconnecting… " : "Reconnecting… ") + when);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** @param {ClientMessage} obj @returns {boolean} sent (false: not connected) */
  raw(obj) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(obj));
      this.sentAt = Date.now();
      return true;
    }
    return false;
  }

  /**
   * Send an action: its request id, and whether it went (false: it waits for the connection to come back).
   * @param {Action} action @param {{quiet?: boolean}} [opts] quiet: no word to the player if refused
   * @returns {{id: string, sent: boolean}}
   */
  act(action, opts = {}) {
    const id = this.prefix + "-" + ++this.count;
    if (action.type === "arrange") {
      // only the newest arrangement matters
      for (const [k, p] of this.pending) if (p.action.type === "arrange") this.pending.delete(k);
    }
    this.pending.set(id, { action, sent: Date.now(), quiet: !!opts.quiet });
    return { id, sent: this.raw({ type: "action", request_id: id, action }) };
  }

  /**
   * Ask the engine's verdict on groups; returns the request id, or null when not connected.
   * @param {Groups} groups @param {number} wildRank @returns {string | null}
   */
  evaluate(groups, wildRank) {
    const id = this.prefix + "-e" + ++this.count;
    return this.raw({ type: "evaluate", request_id: id, groups, wild_rank: wildRank }) ? id : null;
  }

  /** @param {string} id */
  pendingOf(id) { return this.pending.get(id); }

  resend() {
    const now = Date.now();
    for (const [id, p] of this.pending) {
      if (now - p.sent > RESEND_FOR_MS && p.action.type !== "arrange") { this.pending.delete(id); continue; }
      this.raw({ type: "action", request_id: id, action: p.action });
    }
  }
}
