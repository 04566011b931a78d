// @ts-check
// The table's WebSocket (docs/protocol.md), also the lobby's live feed: reconnects with backoff, numbers every
// action with a request id and resends the unanswered ones after a reconnect (the
// server answers a repeated id without moving twice). It speaks the protocol and nothing
// else: what a message means is the page's dispatch.

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
    window.addEventListener("online", () => { if (!this.ws) this.connect(); });
  }

  connect() {
    clearTimeout(this.timer);
    const proto = location.protocol === "https:" ? "wss://" : "ws://";
    const ws = new WebSocket(proto + location.host + this.path);
    this.ws = ws;
    this.h.state("connecting");
    ws.onopen = () => {
      this.attempts = 0;
      this.h.state("open");
      this.resend();
    };
    ws.onmessage = (ev) => {
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
      if (ev.code === 4429) { this.attempts = Math.max(this.attempts, 4); this.retry("Too many pages of your account are open: close one"); return; }
      this.retry();
    };
  }

  /** @param {string} [why] */
  retry(why) {
    if (this.closedForGood) return;
    const delay = Math.min(15000, 500 * Math.pow(2, this.attempts)) * (0.8 + Math.random() * 0.4);
    this.attempts += 1;
    const when = "(try " + this.attempts + ", in " + Math.round(delay / 100) / 10 + "s)";
    this.h.state("closed", (why ? why + ". Reconnecting… " : "Reconnecting… ") + when);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** @param {ClientMessage} obj @returns {boolean} sent (false: not connected) */
  raw(obj) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(obj));
      return true;
    }
    return false;
  }

  /**
   * Send an action; returns false when it waits for the connection to come back.
   * @param {Action} action @param {{quiet?: boolean}} [opts] quiet: no word to the player if refused
   */
  act(action, opts = {}) {
    const id = this.prefix + "-" + ++this.count;
    if (action.type === "arrange") {
      // only the newest arrangement matters
      for (const [k, p] of this.pending) if (p.action.type === "arrange") this.pending.delete(k);
    }
    this.pending.set(id, { action, sent: Date.now(), quiet: !!opts.quiet });
    return this.raw({ type: "action", request_id: id, action });
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
      if (now - p.sent > 20000) { this.pending.delete(id); continue; }
      this.raw({ type: "action", request_id: id, action: p.action });
    }
  }
}
