// The live table: renders what the server says (docs/protocol.md) and sends intentions.
//
// No rules live here: the server decides every move (the view's `legal` list, its
// `drop_points`, `can_pick_open`), and group labels come from the engine through the
// table socket's `evaluate` message. The page keeps only the player's own arrangement
// between updates. Player names are text nodes (Preact templates), never markup.
import { html, render } from "../vendor/htm-preact/standalone.module.js";
import { Card, CardBack, cardName, hasWildRank, groupByRank, groupBySuit } from "./cards.js";
import { TableSocket } from "./socket.js";
import { Hand, groupSelected, moveCard, reconcile, wireSortables } from "./hand.js";
import { Confirm, DeclareDialog, OpenCards, ResultSheet, Scoreboard, STATUS_LABEL } from "./sheets.js";
import { isMuted, play, setMuted } from "./sounds.js";
import { newClientSeed } from "./fairness.js";

const root = document.getElementById("table-app");
const cfgEl = document.getElementById("table-config");
const cfg = cfgEl ? JSON.parse(cfgEl.textContent) : null;

const S = {
  snap: null, view: null, version: -1,
  conn: "connecting", connDetail: "", fatal: "",
  groups: null, handKey: null, selected: [], placement: null,
  finishCard: null, finishFrom: null,
  modal: null, autoSheetKey: null,
  toasts: [], notices: [], ticker: "", lastDrawn: null, anim: {}, dealing: false,
  scores: cfg ? (cfg.scores || []) : [], scoresGame: cfg ? cfg.game_id : null,
  dragging: false, pointerDown: false, dirty: false,
  muted: isMuted(), lastTickSecond: null,
  notify: typeof Notification !== "undefined" && Notification.permission === "granted",
};
const baseTitle = document.title;
const joinSeed = newClientSeed(); // docs/fairness.md: this browser's part of the shuffle, sent with the join
const verdicts = new Map(); // key -> verdict | "loading"
const asked = new Map(); // evaluate request_id -> key

// ------------------------------------------------------------------ small helpers
const money = (paise) => {
  const neg = paise < 0 ? "-" : "";
  const p = Math.abs(paise || 0);
  return neg + (cfg.currency || "₹") + Math.floor(p / 100) + "." + String(p % 100).padStart(2, "0");
};
const fmtSecs = (ms) => {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
};
const legal = (name) => !!(S.view && S.view.legal && S.view.legal.includes(name));
const me = () => (S.view && S.view.seat != null ? S.view.players[S.view.seat] : null);
const myTurn = () => {
  const v = S.view;
  return !!(v && v.seat != null && v.deal_phase === "turn" && v.turn === v.seat);
};
const canDraw = () => myTurn() && !S.view.has_drawn && legal("draw");
const canDiscard = () => myTurn() && S.view.has_drawn && legal("discard");
const canFinish = () => myTurn() && S.view.has_drawn && legal("finish");
const isMe = (seat) => S.view && S.view.seat != null && seat === S.view.seat;
const nameOf = (seat) => {
  const v = S.view;
  if (v && v.players && v.players[seat]) return isMe(seat) ? "You" : v.players[seat].name;
  return "Seat " + seat;
};
/** A sentence about a seat: "You are out" / "Ravi is out". */
const says = (seat, you, other) => (isMe(seat) ? "You " + you : nameOf(seat) + " " + other);

function toast(text, kind = "error") {
  const id = Math.random();
  S.toasts = S.toasts.concat([{ id, text, kind }]);
  paint();
  setTimeout(() => { S.toasts = S.toasts.filter((x) => x.id !== id); paint(); }, 4500);
}
function flash(code, cls, ms = 700) {
  S.anim = { ...S.anim, [code]: cls };
  setTimeout(() => { const a = { ...S.anim }; delete a[code]; S.anim = a; paint(); }, ms);
}

// ------------------------------------------------------------------ the engine's verdict on groups
function verdictFor(groups, wild) {
  if (!groups || wild == null) return null;
  const key = wild + ":" + JSON.stringify(groups);
  const hit = verdicts.get(key);
  if (hit && hit !== "loading") return hit;
  if (!hit) {
    // over the table socket (no HTTP request, no database): answered by an `evaluation`
    const id = socket.evaluate(groups, wild);
    if (id) { verdicts.set(key, "loading"); asked.set(id, key); }
  }
  return null;
}
function onEvaluation(msg) {
  const key = asked.get(msg.request_id);
  if (key == null) return;
  asked.delete(msg.request_id);
  if (msg.ok) { verdicts.set(key, msg); paint(); } else verdicts.delete(key);
}
const handGroups = () => (S.groups || []).filter((g) => g.length);

// ------------------------------------------------------------------ messages
const socket = new TableSocket(cfg ? cfg.ws_path : "", {
  state(state, detail) { S.conn = state; S.connDetail = detail || ""; paint(); },
  fatal(text) { S.fatal = text; S.conn = "closed"; paint(); },
  message: onMessage,
});

function newGame(msgGame) {
  return !!(msgGame && S.snap && S.snap.game && msgGame.id !== S.snap.game.id);
}

function onMessage(msg, sent) {
  switch (msg.type) {
    case "snapshot":
      if (S.snap && newGame(msg.game)) resetGame();
      S.version = msg.version;
      S.snap = msg;
      setView(msg.view, []);
      break;
    case "update": {
      const restarted = newGame(msg.game);
      if (!restarted && msg.version <= S.version && !msg.rebuilt) return;
      if (!restarted && msg.version !== S.version + 1 && !msg.rebuilt) socket.raw({ type: "snapshot" });
      if (restarted) resetGame();
      S.version = msg.version;
      if (msg.game) S.snap.game = msg.game;
      if (msg.seats) S.snap.seats = msg.seats;
      if (msg.table) S.snap.table = msg.table;
      setView(msg.view, msg.events || []);
      break;
    }
    case "view":
      // your own view changed at the same version: an arrangement made in another tab
      if (msg.version !== S.version || !S.view || !msg.view) return;
      S.view = msg.view;
      if (msg.view.arrangement && !S.dragging && !S.pointerDown && !S.finishCard) {
        S.groups = msg.view.arrangement.map((g) => g.slice());
        S.selected = [];
      }
      paint();
      break;
    case "evaluation":
      onEvaluation(msg);
      break;
    case "result":
      if (!msg.ok) {
        const err = msg.error || {};
        if (!(sent && sent.quiet)) toast((err.message || "That move was refused") + (err.rule ? " (" + err.rule + ")" : ""));
      }
      break;
    case "error":
      toast((msg.error && msg.error.message) || "The server could not read that message");
      break;
    case "notice":
      onNotice(msg);
      break;
    default:
      break;
  }
}

// ------------------------------------------------------------------ notices: words for the people at the table
// (docs/protocol.md). They stay until dismissed; every text is a text node, never markup.
let noticeCount = 0;
const SETTLEMENT_WORDS = {
  refund: "Every entry fee has been refunded in full.",
  split: "The prize pool has been shared by the players still in, by their drops remaining.",
  none: "No chips were at stake.",
};
/** What a cancellation did with this player's own chips, from the notice's payouts. */
function yourMoney(msg) {
  const you = S.snap && S.snap.you ? String(S.snap.you.user_id) : null;
  const shown = (msg.payouts_display || {})[you];
  if (msg.settlement === "refund") return shown ? "Your entry fee of " + shown + " is back in your wallet." : "";
  if (msg.settlement === "split") return shown ? "Your share, " + shown + ", has been paid to your wallet." : "";
  return "";
}
function onNotice(msg) {
  const n = { id: ++noticeCount, kind: String(msg.kind || "notice"), game: msg.game_id, title: "Notice", lines: [] };
  if (n.kind === "game_cancelled") {
    n.title = "Staff cancelled this game";
    n.lines = [msg.message, msg.money || SETTLEMENT_WORDS[msg.settlement], yourMoney(msg)];
  } else if (n.kind === "play_reminder") {
    n.title = "A reminder";
    n.lines = [msg.message];
  } else {
    n.lines = [msg.message];
  }
  n.lines = n.lines.filter((x) => typeof x === "string" && x.trim());
  if (!n.lines.length && n.kind !== "game_cancelled") return;
  // one of each: a newer reminder replaces the older, the same cancellation is said once
  S.notices = S.notices.filter((x) => x.kind !== n.kind || (n.kind === "game_cancelled" && x.game !== n.game)).concat([n]);
  paint();
}
function dismissNotice(id) {
  S.notices = S.notices.filter((x) => x.id !== id);
  paint();
  const next = document.querySelector("#notices .notice-close");
  if (next) next.focus();
}

function resetGame() {
  S.groups = null; S.handKey = null; S.selected = []; S.finishCard = null; S.lastDrawn = null;
  S.scores = []; S.autoSheetKey = null;
  if (S.modal && S.modal.kind !== "leave") S.modal = null;
}

/** A new view: from a snapshot, an update, the game starting, a seat gained or lost. */
function setView(view, events) {
  const before = S.view;
  S.view = view;
  if (S.snap && S.snap.game && S.scoresGame !== S.snap.game.id) { S.scores = []; S.scoresGame = S.snap.game.id; }
  // the hand: a new deal, a new seat (the game started under this page, a rejoin) or a new game
  const v = view;
  if (v && v.hand) {
    const key = (S.snap.game ? S.snap.game.id : "") + ":" + v.seat + ":" + v.deal_no;
    if (key !== S.handKey || !S.groups) {
      S.groups = (v.arrangement && v.arrangement.length ? v.arrangement : [v.hand]).map((g) => g.slice());
      S.handKey = key; S.selected = []; S.finishCard = null; S.lastDrawn = null;
      S.dealing = true;
      setTimeout(() => { S.dealing = false; paint(); }, 1200);
    } else {
      const inHand = (S.groups || []).flat().length + (S.finishCard ? 1 : 0);
      if (S.finishCard && !v.hand.includes(S.finishCard)) { S.finishCard = null; }
      const base = S.finishCard ? restoreFinish(S.groups) : S.groups;
      S.groups = reconcile(base, v.hand, S.placement);
      if (S.finishCard) S.groups = without(S.groups, S.finishCard);
      if (inHand !== v.hand.length) S.selected = [];
    }
    S.placement = null;
    if (v.drawn_card && v.drawn_card !== (before && before.drawn_card)) { S.lastDrawn = v.drawn_card; flash(v.drawn_card, "drawn-in"); }
  } else {
    S.groups = null; S.handKey = null; S.selected = []; S.finishCard = null;
    if (S.modal && S.modal.kind === "declare") S.modal = null;
  }
  events.forEach(onEvent);
  // your turn (a new turn, not an update within it): sound, and a notification if the tab is hidden
  const wasMine = !!(v && before && before.seat === v.seat && before.deal_phase === "turn" && before.turn === v.seat && before.deal_no === v.deal_no);
  if (myTurn() && !wasMine) yourTurn();
  autoSheet();
  paint();
}

function yourTurn() {
  play("turn");
  if (S.notify && document.hidden && typeof Notification !== "undefined" && Notification.permission === "granted") {
    try { new Notification("Your turn", { body: cfg.table_name, tag: "rummy-turn" }); } catch (e) { /* not allowed here */ }
  }
}

function onEvent(e) {
  let t = "";
  switch (e.type) {
    case "game_started": t = "The game started"; break;
    case "deal_started": t = "Deal " + e.deal_no + " dealt. Cut joker: " + cardName(e.cut_joker); play("deal"); break;
    case "draw":
      t = e.source === "open" ? says(e.seat, "picked ", "picked ") + cardName(e.card) + " from the open pile" : says(e.seat, "drew", "drew") + " from the deck";
      play("draw");
      break;
    case "discard": t = says(e.seat, "discarded ", "discarded ") + cardName(e.card) + (e.auto ? " (timed out)" : ""); play("discard"); break;
    case "drop": t = says(e.seat, "dropped", "dropped") + " (" + e.points + " pts)"; break;
    case "finish": t = says(e.seat, "put a card in the finish slot", "put a card in the finish slot"); break;
    case "declaration": t = says(e.seat, "declared: ", "declared: ") + (e.valid ? "valid" : "wrong show (" + e.points + " pts)"); break;
    case "show": t = says(e.seat, "showed: ", "showed: ") + e.points + " pts"; break;
    case "extra_time": t = says(e.seat, "are on extra time", "is on extra time"); break;
    case "turn_missed": t = says(e.seat, "missed a turn", "missed a turn") + " (" + e.misses + ")"; break;
    case "reshuffle": t = "The open pile was reshuffled into the deck"; break;
    case "scores":
      S.scores = S.scores.filter((r) => r.deal_no !== e.deal_no).concat([{
        deal_no: e.deal_no, points: e.points, scores: e.scores, eliminated: e.eliminated || [],
      }]);
      break;
    case "eliminated": t = says(e.seat, "are out at " + e.score, "is out at " + e.score); toast(t, "warn"); break;
    case "rejoined": t = says(e.seat, "rejoined at " + e.score, "rejoined at " + e.score); break;
    case "split_accepted": t = says(e.seat, "accepted the split", "accepted the split"); break;
    case "split_declined": t = e.seat == null ? "The split offer ran out" : says(e.seat, "declined the split", "declined the split"); break;
    case "player_left": t = says(e.seat, "left the game", "left the game"); break;
    case "game_cancelled": t = "Staff cancelled the game"; break;
    case "game_over": {
      t = "Game over";
      const mine = me();
      play(mine && e.payouts && e.payouts[mine.id] > 0 ? "win" : "lose");
      break;
    }
    default: break;
  }
  if (t) S.ticker = t;
}

// ------------------------------------------------------------------ moves
function act(action, opts) {
  if (!socket.act(action, opts) && !(opts && opts.quiet)) toast("Not connected: your move will be sent when the connection is back.", "info");
}
function selectedCode() {
  if (S.selected.length !== 1 || !S.groups) return null;
  const [g, i] = S.selected[0].split(":").map(Number);
  return S.groups[g] ? S.groups[g][i] : null;
}
function drawFrom(source) {
  if (!canDraw()) { toast(myTurn() ? "You have drawn already: discard a card, or finish" : "It is not your turn to draw"); return; }
  if (source === "open" && !S.view.can_pick_open) { toast("A joker on the open pile cannot be picked up"); return; }
  act({ type: "draw", source });
}
function discard(code) {
  if (!canDiscard()) { toast("You can discard only on your turn, after drawing"); return; }
  S.selected = [];
  act({ type: "discard", card: code });
  paint();
}
function without(groups, card) {
  const out = groups.map((g) => g.slice());
  for (const g of out) { const at = g.indexOf(card); if (at >= 0) { g.splice(at, 1); break; } }
  return out.filter((g) => g.length);
}
function restoreFinish(groups) {
  const out = groups.map((g) => g.slice());
  const f = S.finishFrom;
  if (f && out[f.g]) out[f.g].splice(Math.min(f.i, out[f.g].length), 0, S.finishCard);
  else out.push([S.finishCard]);
  return out;
}
function startFinish(code, from) {
  if (!canFinish()) { toast("You can finish only on your turn, after drawing"); return; }
  S.finishFrom = from || null;
  S.finishCard = code;
  S.groups = without(S.groups, code);
  S.selected = [];
  S.modal = { kind: "declare", card: code, groups: handGroups() };
  paint();
}
function cancelFinish() {
  if (S.finishCard) S.groups = restoreFinish(S.groups);
  S.finishCard = null; S.finishFrom = null;
  S.modal = null;
  paint();
}
function confirmFinish() {
  const m = S.modal;
  act({ type: "finish", card: m.card, groups: m.groups });
  S.modal = null;
  paint();
}
function arranged() {
  S.selected = [];
  paint();
  clearTimeout(S.arrangeTimer);
  S.arrangeTimer = setTimeout(() => { if (legal("arrange") && S.groups) act({ type: "arrange", groups: handGroups() }, { quiet: true }); }, 350);
}

// ------------------------------------------------------------------ automatic sheets
function autoSheet() {
  const v = S.view;
  if (!v) return;
  const over = ["between_deals", "rejoin_window", "split_offer", "finished"].includes(v.phase);
  if (over && (v.last_result || v.result)) {
    const key = (v.last_result ? v.last_result.deal_no : "x") + ":" + v.phase;
    if (S.autoSheetKey !== key && (!S.modal || S.modal.kind === "result" || S.modal.kind === "scores")) {
      S.autoSheetKey = key;
      S.modal = { kind: "result", auto: true };
    }
  } else if (S.modal && S.modal.kind === "result" && S.modal.auto && v.phase === "playing") {
    S.modal = null;
  }
}

// ------------------------------------------------------------------ clocks
function tableCountdown() {
  const v = S.view;
  if (!v || !v.deadline) return "";
  const what = { declare: "Shows close in ", next_deal: "Next deal in ", rejoin: "Rejoin closes in ", split: "Split offer closes in " }[v.deadline.kind];
  return what ? what + fmtSecs(v.deadline.at_ms - Date.now()) : "";
}
function statusText() {
  const v = S.view, snap = S.snap;
  if (!snap || !snap.game || !v) return "";
  const m = me();
  if (v.phase === "playing" && v.deal_phase === "turn") {
    if (myTurn()) {
      if (v.has_drawn) return "Your turn: discard a card, or finish";
      return v.can_pick_open ? "Your turn: draw from the deck or the open pile" : "Your turn: draw from the deck (the joker on the open pile can't be taken)";
    }
    if (m && m.status && m.status !== "playing") return "You are out of this deal (" + (STATUS_LABEL[m.status] || m.status) + "). " + nameOf(v.turn) + " to play";
    return v.turn == null ? "" : nameOf(v.turn) + "'s turn";
  }
  if (v.phase === "declaring") {
    if (legal("show")) return "Declaration! Arrange your groups and press Show";
    if (v.declarer != null) return isMe(v.declarer) ? "You declared. Waiting for the shows…" : nameOf(v.declarer) + " declared. Waiting for the shows…";
    return "Declaration in progress…";
  }
  if (v.phase === "between_deals") return "Deal over. Next deal soon…";
  if (v.phase === "rejoin_window") return "Rejoin window open";
  if (v.phase === "split_offer") return "Split offered";
  if (v.phase === "finished") return "Game over";
  return "";
}
function timerOf(seat) {
  const v = S.view;
  const dl = v && v.deadline;
  if (!dl || dl.seat !== seat || (dl.kind !== "turn" && dl.kind !== "extra")) return null;
  const left = dl.at_ms - Date.now();
  const total = dl.kind === "turn" ? v.rules.turn_ms : Math.max(v.players[seat].extra_ms || 1, 1);
  const frac = Math.max(0, Math.min(1, left / total));
  const level = left <= 5000 ? "red pulse" : frac <= 0.5 ? "amber" : "green";
  return { left, frac, kind: dl.kind, level };
}
function tick() {
  if (!S.snap) return;
  // the last seconds of my own clock: a soft tick each second
  const mine = S.view && S.view.seat != null ? timerOf(S.view.seat) : null;
  if (mine && mine.left > 0 && mine.left <= 5000) {
    const sec = Math.ceil(mine.left / 1000);
    if (sec !== S.lastTickSecond) { S.lastTickSecond = sec; play("tick"); }
  }
  document.title = myTurn() ? "● Your turn · " + baseTitle : baseTitle;
  paint();
}
setInterval(tick, 250);

// ------------------------------------------------------------------ the controller handed to components
const T = {
  cfg, money, legal, nameOf, myTurn, canDiscard, canFinish, tableCountdown,
  act, verdictFor,
  closeModal() { S.modal = null; paint(); },
  /** Take a seat in the table's next game without leaving the page (the join form's POST, by fetch). */
  playAgain() {
    const body = new URLSearchParams({ csrfmiddlewaretoken: cfg.csrf, client_seed: newClientSeed() });
    fetch(cfg.join_url, { method: "POST", body, credentials: "same-origin" })
      .then((r) => {
        // refused (no chips, the table closed…): the lobby says why, as after the join form
        if (!r.ok || new URL(r.url).pathname !== location.pathname) { location.href = r.url || cfg.lobby_url; return; }
        S.modal = null;
        socket.raw({ type: "snapshot" }); // the new game's waiting seats (its notice brings them too)
        paint();
      })
      .catch(() => toast("Could not take a seat; try again"));
  },
  openModal(m) { S.modal = m; paint(); },
  cancelFinish, confirmFinish,
  scoreAfterDeal(dealNo, seat, pl) {
    // the score as that deal left it: a later rejoin must not rewrite the sheet
    const row = S.scores.find((r) => r.deal_no === dealNo);
    if (row && row.scores[String(seat)] != null) return { value: row.scores[String(seat)], out: (row.eliminated || []).includes(seat) };
    return { value: pl.score != null ? pl.score : "", out: !!pl.eliminated };
  },
  clickCard(e, g, i) {
    if (S.dragging) return;
    const k = g + ":" + i;
    S.selected = S.selected.includes(k) ? S.selected.filter((x) => x !== k) : S.selected.concat([k]);
    paint();
  },
  groupSelected() { S.groups = groupSelected(S.groups, S.selected); arranged(); },
  sort(by) {
    const all = S.groups.flat();
    S.groups = by === "rank" ? groupByRank(all) : groupBySuit(all);
    arranged();
  },
  dragStart() { S.dragging = true; document.body.classList.add("is-dragging"); },
  dragEnd(drop) {
    S.dragging = false;
    document.body.classList.remove("is-dragging");
    if (drop) {
      if (drop.kind === "discard") discard(drop.code);
      else if (drop.kind === "finish") startFinish(drop.code, { g: drop.fg, i: drop.fi });
      else if (drop.kind === "move") { S.groups = moveCard(S.groups, drop.fg, drop.fi, drop.tg, drop.ti); arranged(); }
    }
    setTimeout(paint, 0);
  },
  handSummary() {
    const v = S.view;
    const groups = handGroups();
    const vd = verdictFor(groups, v.wild_rank);
    if (!vd) return "";
    if (vd.valid) return html`<span class="ok">Ready to declare ✓</span>`;
    const count = groups.reduce((n, g) => n + g.length, 0);
    return html`<span>Hand <strong>${Math.min(vd.points, v.rules.full_count)}</strong> pts</span>${count === 14 ? html` <span class="hint">· drop a card in the finish slot to declare</span>` : null}`;
  },
  MeBar: ({ s }) => (me() ? html`<${SeatBox} p=${me()} i=${s.view.seat} mine />` : null),
};

// ------------------------------------------------------------------ components
function SeatBox({ p, i, mine, style }) {
  const v = S.view;
  const dl = v.deadline;
  const active = (v.deal_phase === "turn" && v.turn === i) || (dl && dl.seat === i);
  const stat = p.left ? "left" : p.eliminated ? "out" : p.status && p.status !== "playing" ? (STATUS_LABEL[p.status] || p.status) : "";
  const tm = timerOf(i);
  const cls = "seat" + (mine ? " me" : "") + (p.eliminated ? " out" : "") + (stat && !p.eliminated ? " inactive" : "") + (active ? " turn" : "");
  return html`<div class=${cls} data-seat=${i} style=${style || ""}>
    <div class="avatar">${(p.name || "?").trim().slice(0, 1).toUpperCase()}${v.dealer === i ? html`<span class="dealer" title="Dealer">D</span>` : null}</div>
    <div class="seat-info">
      <div class="seat-name">${p.name}${mine ? html` <small>(you)</small>` : null}</div>
      <div class="seat-score" title="Pool score / limit">${p.score}<small>/${v.pool_limit}</small>
        <span class="drops" title="Drops remaining">${p.drops_remaining}${p.drops_remaining === 1 ? " drop" : " drops"}</span>
        ${!mine && p.card_count ? html`<span class="ccount" title="Cards in hand">${p.card_count} cards</span>` : null}</div>
      ${stat ? html`<div class="seat-stat">${stat}</div>` : null}
      ${tm ? html`<div class=${"timer " + tm.level + (tm.kind === "extra" ? " extra" : "")}>
          <div class="timer-bar"><i style=${"width:" + Math.round(tm.frac * 100) + "%"}></i></div>
          <span class="timer-text">${(tm.kind === "extra" ? "extra " : "") + fmtSecs(tm.left)}</span></div>`
        : html`<div class="bank" title="Extra-time bank">bank ${Math.round((p.extra_ms || 0) / 1000)}s</div>`}
    </div>
  </div>`;
}

function Seats() {
  const v = S.view;
  if (!v || !v.players) return null;
  const others = v.players.map((p, i) => [p, i]).filter(([, i]) => i !== v.seat);
  const n = v.players.length;
  const start = v.seat != null ? v.seat : 0;
  others.sort((a, b) => ((a[1] - start + n) % n) - ((b[1] - start + n) % n));
  const m = others.length;
  return html`<div id="seats" class=${"seats n" + m}>${others.map(([p, i], j) => {
    // opponents on the far arc of the felt, left to right, clear of the piles in the middle
    const a = Math.PI + (Math.PI * (j + 0.5)) / m;
    const style = "left:" + (50 + 44 * Math.cos(a)).toFixed(1) + "%;top:" + (50 + 50 * Math.sin(a)).toFixed(1) + "%";
    return html`<${SeatBox} key=${i} p=${p} i=${i} style=${style} />`;
  })}</div>`;
}

function Center() {
  const v = S.view;
  const inDeal = !!(v && (v.phase === "playing" || v.phase === "declaring"));
  const pile = (v && v.open_pile) || [];
  const drawOk = inDeal && canDraw();
  const openBlocked = drawOk && !v.can_pick_open;
  const wild = v ? v.wild_rank : null;
  return html`<div class="felt-center">
    <div class="pile-row">
      <figure class="pile" id="cut-joker-box" title="The cut joker: every card of this rank is a joker">
        <div id="cut-joker" class="slot">${v && v.cut_joker ? html`<${Card} code=${v.cut_joker} />` : null}</div>
        <figcaption>Joker</figcaption>
      </figure>
      <figure class="pile" title="Closed deck: tap to draw">
        <div id="closed-deck" class=${"slot deck" + (drawOk ? " can" : "")} data-testid="closed-deck" role="button" tabindex="0" aria-label="Draw from the deck"
          onClick=${() => { if (S.view && S.view.hand) drawFrom("closed"); }}>
          ${inDeal && v.closed_count ? html`<${CardBack} cls="deck-card" />` : null}</div>
        <figcaption>Deck <span id="closed-count">${inDeal ? "(" + v.closed_count + ")" : ""}</span></figcaption>
      </figure>
      <figure class="pile" title="Open pile: tap to draw the top card; tap with a selected card, or drop a card here, to discard">
        <div id="open-pile" data-testid="open-pile" role="button" tabindex="0" aria-label="Open pile"
          class=${"slot open-pile" + (drawOk && v.can_pick_open ? " can" : "") + (inDeal && canDiscard() ? " target" : "") + (openBlocked ? " blocked" : "")}
          onClick=${() => {
            if (!S.view || !S.view.hand) return;
            if (canDiscard()) { const c = selectedCode(); if (c) discard(c); else toast("Select the card to discard first", "info"); return; }
            drawFrom("open");
          }}>
          ${inDeal && pile.length > 1 ? html`<${Card} key=${"u" + pile.length} code=${pile[pile.length - 2]} cls="under" wild=${hasWildRank(pile[pile.length - 2], wild)} />` : null}
          ${inDeal && v.open_top ? html`<${Card} key=${"t" + pile.length} code=${v.open_top} cls="top" wild=${hasWildRank(v.open_top, wild)} />` : null}
        </div>
        <figcaption>Open</figcaption>
      </figure>
      <figure class="pile" title="Finish slot: put your 14th card here to declare">
        <div id="finish-slot" data-testid="finish-slot" role="button" tabindex="0" aria-label="Finish slot"
          class=${"slot finish-slot" + (inDeal && canFinish() ? " target" : "")}
          onClick=${() => { const c = selectedCode(); if (c && canFinish()) startFinish(c, posOf(S.selected[0])); }}>
          ${S.finishCard ? html`<${Card} code=${S.finishCard} />` : html`<span class="slot-hint">Finish</span>`}</div>
        <figcaption>Finish</figcaption>
      </figure>
    </div>
    <p id="status-line" class="status-line" aria-live="polite">${statusText()}${tableCountdown() ? " · " + tableCountdown() : ""}</p>
    <p id="ticker" class="ticker">${S.ticker}</p>
    <${Declared} />
  </div>`;
}
function posOf(k) { const [g, i] = k.split(":").map(Number); return { g, i }; }

function Declared() {
  const v = S.view;
  if (!v || v.phase !== "declaring" || !v.shown || !Object.keys(v.shown).length) return null;
  return html`<section id="declared" class="declared">${Object.keys(v.shown).map((seat) => html`<div class="shown-row" key=${seat}>
    <span class="shown-name">${nameOf(+seat)}${String(v.declarer) === seat ? " declared" : " showed"}</span>
    <span class="shown-groups">${v.shown[seat].map((g, k) => html`<span class="mini-group" key=${k}>${g.map((c, ci) => html`<${Card} key=${c + ci} code=${c} tiny wild=${hasWildRank(c, v.wild_rank)} />`)}</span>`)}</span>
  </div>`)}</section>`;
}

function Waiting() {
  const snap = S.snap;
  const t = snap.table;
  const seats = snap.seats || [];
  const seated = (snap.you && snap.you.position != null) || (S.view && S.view.seat != null);
  const g = snap.game;
  let line = "";
  if (g && g.status === "waiting" && g.deadline_kind === "start" && g.deadline_at) line = "Starting in " + fmtSecs(Date.parse(g.deadline_at) - Date.now());
  else if (g && g.status === "waiting" && g.deadline_kind === "bots" && g.deadline_at) line = "Bots take the empty seats in " + fmtSecs(Date.parse(g.deadline_at) - Date.now()) + ", then the game starts.";
  else if (t.practice) line = seated ? "Bots take the empty seats in a few seconds, then the game starts." : "Sit down and bots fill the other seats: the game starts at once.";
  else line = (t.seats_taken || 0) < 2 ? "The game starts when every seat is taken, or once two players are seated and the countdown ends." : "";
  const chairs = [];
  for (let i = 0; i < t.seats; i++) {
    const s = seats.find((x) => x.position === i);
    chairs.push(html`<span class=${"chair" + (s ? " taken" : "")} key=${i}>${s ? s.name : "empty"}</span>`);
  }
  return html`<section id="waiting" class="waiting">
    <h2>${t.practice ? "Practice table" : "Waiting for players"}</h2>
    <p id="waiting-seats"><strong>${t.seats_taken} / ${t.seats}</strong> seats taken<span class="chairs">${chairs}</span></p>
    <p id="waiting-countdown" class="countdown">${line}</p>
    ${!seated && t.status === "open" ? html`<form method="post" action=${cfg.join_url} id="join-form">
        <input type="hidden" name="csrfmiddlewaretoken" value=${cfg.csrf} />
        <input type="hidden" name="client_seed" value=${joinSeed} />
        <button type="submit" class="primary big">${t.practice ? "Sit down · free" : "Join · " + t.entry_fee_display}</button></form>` : null}
    ${seated ? html`<form method="post" action=${cfg.leave_url} id="leave-form">
        <input type="hidden" name="csrfmiddlewaretoken" value=${cfg.csrf} />
        <button type="submit" class="ghost-btn">Leave seat${t.entry_fee ? " (refund)" : ""}</button></form>` : null}
  </section>`;
}

function Actions() {
  const v = S.view;
  const m = me();
  if (!(v && m && v.phase !== "finished")) return null;
  const sel = S.selected.length === 1;
  const dropPts = v.drop_points;
  return html`<nav id="actions" class="actions">
    <button type="button" id="btn-discard" class="act primary" disabled=${!(canDiscard() && sel)}
      onClick=${() => { const c = selectedCode(); if (c) discard(c); else toast("Select one card to discard", "info"); }}>Discard</button>
    <button type="button" id="btn-finish" class="act gold" disabled=${!(canFinish() && sel)} title="Put the selected card in the finish slot and declare"
      onClick=${() => { const c = selectedCode(); if (c) startFinish(c, posOf(S.selected[0])); }}>Finish</button>
    ${legal("show") ? html`<button type="button" id="btn-show" class="act gold" onClick=${() => act({ type: "show", groups: handGroups() })}>Show</button>` : null}
    <button type="button" id="btn-drop" class="act danger" disabled=${!legal("drop")}
      onClick=${() => T.openModal({ kind: "drop" })}>${legal("drop") && dropPts != null ? "Drop (" + dropPts + " pts)" : "Drop"}</button>
    <label class="toggle" id="auto-drop-label" title="Drop automatically at your turn">
      <input type="checkbox" id="auto-drop" checked=${!!v.auto_drop} disabled=${!(legal("auto_drop") || legal("im_back"))}
        onChange=${(e) => {
          const on = e.target.checked;
          e.target.checked = !!v.auto_drop; // the server's answer sets it
          if (on) T.openModal({ kind: "auto-drop" }); else act({ type: "im_back" });
        }} /> Auto drop</label>
    ${v.auto_drop ? html`<button type="button" id="btn-back" class="act" onClick=${() => act({ type: "im_back" })}>I'm back</button>` : null}
    ${legal("leave") && !m.eliminated ? html`<button type="button" id="btn-forfeit" class="act ghost-btn" onClick=${() => T.openModal({ kind: "leave" })}>Leave</button>` : null}
  </nav>`;
}

function ModalView() {
  const m = S.modal;
  if (!m || !S.view) return null;
  const v = S.view;
  switch (m.kind) {
    case "result": return v.last_result || v.result ? html`<${ResultSheet} s=${S} t=${T} />` : null;
    case "scores": return html`<${Scoreboard} s=${S} t=${T} />`;
    case "declare": return html`<${DeclareDialog} s=${S} t=${T} />`;
    case "open-cards": return html`<${OpenCards} s=${S} t=${T} />`;
    case "drop": {
      const pts = v.drop_points;
      const mine = me();
      return html`<${Confirm} kind="drop" t=${T} title="Drop this deal?" no="Keep playing" yes=${"Drop · " + pts + " pts"}
        text=${"Dropping adds " + pts + " points to your score (" + mine.score + " → " + (mine.score + pts) + " of " + v.pool_limit + ")."}
        onYes=${() => { act({ type: "drop" }); T.closeModal(); }} />`;
    }
    case "auto-drop": {
      const pts = v.drop_points;
      const mine = me();
      const now = myTurn() && !v.has_drawn;
      const text = (now ? "It is your turn: you drop now" : "You drop at your next turn") +
        (pts != null ? ", which costs " + pts + " points now (" + mine.score + " → " + (mine.score + pts) + " of " + v.pool_limit + ")." : ".") +
        " Later deals drop at your first turn until you press “I'm back”.";
      return html`<${Confirm} kind="auto-drop" t=${T} title="Turn on auto drop?" no="Cancel" yes=${pts != null ? "Auto drop · " + pts + " pts" : "Auto drop"}
        text=${text} onYes=${() => { act({ type: "auto_drop", on: true }); T.closeModal(); }} />`;
    }
    case "leave":
      return html`<${Confirm} kind="leave" t=${T} title="Leave the game?" no="Stay" yes="Leave and forfeit"
        text="You forfeit this pool game; the entry fee is not refunded once the game has started."
        onYes=${() => { act({ type: "leave" }); T.closeModal(); setTimeout(() => { location.href = cfg.lobby_url; }, 600); }} />`;
    default: return null;
  }
}

function Notices() {
  // always in the page, so that a screen reader announces what is added to it
  return html`<div id="notices" class="notices" aria-live="assertive" aria-relevant="additions">${S.notices.map((n) => html`
    <section key=${n.id} class=${"notice-banner notice-" + n.kind} data-kind=${n.kind} aria-labelledby=${"notice-title-" + n.id}>
      <div class="notice-text">
        <h2 class="notice-title" id=${"notice-title-" + n.id}>${n.title}</h2>
        ${n.lines.map((line, i) => html`<p key=${i} class="notice-line">${line}</p>`)}
      </div>
      <button type="button" class="notice-close" aria-label=${"Dismiss: " + n.title} onClick=${() => dismissNotice(n.id)}>OK</button>
    </section>`)}</div>`;
}

function App() {
  const snap = S.snap;
  const v = S.view;
  const waiting = !snap || !v || !snap.game || snap.game.status === "waiting" || snap.game.status === "cancelled";
  const hasHand = !!(v && v.hand && S.groups);
  const cls = "table-app" + (waiting ? " is-waiting" : "") + (hasHand ? " has-hand" : "") + (v && v.seat != null ? " seated" : " watching") +
    (S.dealing ? " dealing" : "") + (myTurn() ? " my-turn" : "");
  return html`<div class=${cls}>
    <header class="tbl-head">
      <div class="tbl-title">
        <a class="back" href=${cfg.lobby_url} title="Lobby">‹</a>
        <h1>${cfg.table_name}</h1>
        <span class="tbl-meta"><span class="chip-pill">${cfg.format_label}</span>
          <span class="chip-pill">entry ${cfg.entry_fee_display}</span>
          ${v && v.prize_pool != null ? html`<span id="prize-pool" class="chip-pill gold">Prize ${money(v.prize_pool)}</span>` : null}
          ${v && v.deal_no ? html`<span id="deal-no" class="chip-pill">Deal ${v.deal_no}</span>` : null}</span>
      </div>
      <div class="tbl-tools">
        <button type="button" id="btn-scores" class="tool" title="Every deal's points and the running totals" onClick=${() => T.openModal({ kind: "scores" })} disabled=${!v}>Scores</button>
        ${v && v.last_result ? html`<button type="button" id="btn-last-result" class="tool" onClick=${() => T.openModal({ kind: "result" })}>Last deal</button>` : null}
        <button type="button" id="btn-open-cards" class="tool" title="Every card discarded this deal" onClick=${() => T.openModal({ kind: "open-cards" })} disabled=${!v}>Discards</button>
        <a id="rules-link" class="tool" href=${cfg.rules_url} target="_blank" rel="noopener" title="How to play">Rules</a>
        <button type="button" id="btn-mute" class="tool icon" aria-pressed=${S.muted} title=${S.muted ? "Sound is off: turn it on" : "Sound is on: mute"}
          onClick=${() => { S.muted = !S.muted; setMuted(S.muted); paint(); }}>${S.muted ? "♪ off" : "♪ on"}</button>
        ${typeof Notification !== "undefined" && Notification.permission !== "denied" ? html`<button type="button" id="btn-notify" class="tool icon" aria-pressed=${S.notify}
          title=${S.notify ? "Turn notifications on" : "Notify me when it is my turn"} onClick=${toggleNotify}>${S.notify ? "Alerts on" : "Alerts"}</button>` : null}
        <span id="conn" class=${"conn conn-" + S.conn} title=${S.conn}>●</span>
      </div>
    </header>
    <${Notices} />
    ${S.fatal || S.conn === "closed" ? html`<div id="reconnect-banner" class="banner" role="status">${S.fatal || S.connDetail || "Reconnecting…"}</div>` : null}
    <section id="felt" class="felt" aria-label="The table">
      ${waiting ? null : html`<${Seats} />`}
      ${waiting ? null : html`<${Center} />`}
      ${snap && waiting ? html`<${Waiting} />` : null}
      ${!snap ? html`<p class="status-line loading">Connecting…</p>` : null}
    </section>
    ${hasHand ? html`<${Hand} s=${S} t=${T} />` : null}
    ${!waiting && v && v.seat == null ? html`<p class="spectating">You are watching this table.</p>` : null}
    <${Actions} />
    <${ModalView} />
    <div id="toasts" class=${"toasts" + (S.modal ? " under-modal" : "")} aria-live="assertive">${S.toasts.map((x) => html`<div key=${x.id} class=${"toast " + x.kind} role=${x.kind === "info" ? "status" : "alert"}>${x.text}</div>`)}</div>
  </div>`;
}

function toggleNotify() {
  if (S.notify) { S.notify = false; paint(); return; }
  Notification.requestPermission().then((p) => { S.notify = p === "granted"; paint(); }).catch(() => {});
}

// ------------------------------------------------------------------ painting
function paint() {
  if (!root || !cfg) return;
  if (S.dragging || S.pointerDown) { S.dirty = true; return; } // never re-render under a finger
  S.dirty = false;
  render(html`<${App} />`, root);
  wireSortables(T);
}

document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && S.modal) { if (S.modal.kind === "declare") cancelFinish(); else T.closeModal(); }
  else if (e.key === "Escape" && S.notices.length) dismissNotice(S.notices[S.notices.length - 1].id);
});
if (root) {
  root.addEventListener("pointerdown", (e) => { if (e.target.closest && e.target.closest("#groups .card")) S.pointerDown = true; });
}
const released = () => {
  if (!S.pointerDown) return;
  S.pointerDown = false;
  setTimeout(() => { if (S.dirty && !S.dragging) paint(); }, 0);
};
document.addEventListener("pointerup", released, true);
document.addEventListener("pointercancel", released, true);

// test hook: a read-only look at what the page knows (never more than the server sent)
window.rummyTable = { state: S, send: act, socket };

if (root && cfg) {
  root.textContent = "";
  paint();
  socket.connect();
}
