// @ts-check
// The table page's state and its transitions. Everything the page shows is drawn from this one
// object (view/), which holds what the server said (the snapshot, the view) and the little the page
// keeps of its own: the player's arrangement between updates, the selection, the open sheet, the
// banners. No DOM, no socket and no timer here: dispatch.js and moves.js call these transitions,
// ui.js paints after them. No rule of the game either: what a seat may do is the view's `legal`.
import { putBack, reconcile } from "../hand.js";

/** @typedef {import("../wire.js").View} View */
/** @typedef {import("../wire.js").Snapshot} Snapshot */
/** @typedef {import("../wire.js").GameHeader} GameHeader */
/** @typedef {import("../wire.js").PlayerView} PlayerView */
/** @typedef {import("../wire.js").ActionType} ActionType */
/** @typedef {import("../wire.js").CardCode} CardCode */
/** @typedef {import("../wire.js").Groups} Groups */
/** @typedef {import("../wire.js").ScoresEvent} ScoresEvent */
/** @typedef {import("../socket.js").ConnState} ConnState */
/** @typedef {import("./config.js").TableConfig} TableConfig */

/**
 * A card's place in the arrangement: group `g`, index `i`; `alone` when it was a group by itself
 * (taken out, the group goes; put back, it comes again).
 * @typedef {{g: number, i: number, alone?: boolean}} Pos
 */
/** @typedef {"error" | "warn" | "info"} ToastKind */
/** @typedef {{id: number, text: string, kind: ToastKind}} Toast */
/**
 * A notice shown in words until dismissed (notices.js words it).
 * @typedef {{id: number, kind: string, game: number | undefined, title: string, lines: string[]}} NoticeBanner
 */
/** One finished deal's row of the scoreboard. @typedef {{deal_no: number, points: Record<string, number>, scores: Record<string, number>, eliminated: number[]}} ScoreRow */
/**
 * The sheet or dialog over the table, if any.
 * @typedef {{kind: "result", auto?: boolean}
 *   | {kind: "scores"}
 *   | {kind: "open-cards"}
 *   | {kind: "declare", card: CardCode, groups: Groups}
 *   | {kind: "drop"}
 *   | {kind: "auto-drop"}
 *   | {kind: "leave"}
 *   | {kind: "next-seat", table: import("../wire.js").TableRow | null}
 *   | {kind: "keys"}
 *   | {kind: "quick"}} Modal
 */

/**
 * @typedef {object} TableState
 * @property {Snapshot | null} snap the last snapshot, kept up to date by updates (game, seats)
 * @property {View | null} view this seat's view (a spectator's when not seated)
 * @property {number} version the game version shown
 * @property {ConnState} conn
 * @property {string} connDetail
 * @property {number} lostAt when the connection was lost (0: it is not)
 * @property {string} fatal why the socket closed for good
 * @property {Groups | null} groups the player's arrangement as the page shows it
 * @property {boolean} arrangeOwed the arrangement holds a change of the player's the server has not accepted yet
 * @property {string | null} arrangeRefusedFor the cards (`cardsKey`) of the last arrangement the server refused: not
 *   sent again until the hand shown holds other cards (the update the server is ahead by comes first)
 * @property {import("./echo.js").Echo | null} echo the player's own move shown before the server's answer
 * @property {number} answered the game version the server named in its last `ok` to this page's moves
 * @property {string | null} handKey game:seat:deal of that arrangement
 * @property {string[]} selected selected cards, as "g:i"
 * @property {CardCode | null} finishCard the card put in the finish slot, while declaring
 * @property {Pos | null} finishFrom where it came from (to put it back on cancel)
 * @property {Modal | null} modal
 * @property {string | null} autoSheetKey the result sheet opened by itself, once per deal and phase
 * @property {Toast[]} toasts
 * @property {NoticeBanner[]} notices
 * @property {string} ticker the last event, in words
 * @property {CardCode | null} lastDrawn the card last drawn into the hand (marked new)
 * @property {Record<CardCode, string>} anim a short-lived class on a card
 * @property {boolean} dealing the deal's animation is on
 * @property {ScoreRow[]} scores the scoreboard of the game `scoresGame`
 * @property {number | null} scoresGame
 * @property {boolean} dragging a card is being dragged
 * @property {boolean} pointerDown a finger or button is down on a card
 * @property {boolean} dirty a paint was held back while dragging
 * @property {boolean} muted
 * @property {number | null} lastTickSecond the last second of the player's own clock that ticked
 * @property {boolean} notify notifications of the player's turn
 * @property {Record<string, {id: number, text: string}>} quick the quick message shown by each seat, for a few seconds
 * @property {boolean} quickMuted other players' quick messages are not shown
 * @property {import("../wire.js").ByPlayer<import("../wire.js").PlayerPresence>} presence who of the players has the table open, by user id
 * @property {Pos | null} cursor the hand's active card (the listbox's aria-activedescendant)
 * @property {{id: number, text: string}[]} said the live region's last lines (speech.js `say`)
 * @property {{key: string, said: number[]}} thresholds the times left already said this turn
 */

/** @param {TableConfig | null} cfg @param {{muted: boolean, notify: boolean, quickMuted?: boolean}} prefs @returns {TableState} */
export function newState(cfg, prefs) {
  return {
    snap: null, view: null, version: -1,
    conn: "connecting", connDetail: "", lostAt: 0, fatal: "",
    groups: null, arrangeOwed: false, arrangeRefusedFor: null, echo: null, answered: -1, handKey: null, selected: [],
    finishCard: null, finishFrom: null,
    modal: null, autoSheetKey: null,
    toasts: [], notices: [], ticker: "", lastDrawn: null, anim: {}, dealing: false,
    scores: cfg ? (cfg.scores || []) : [], scoresGame: cfg ? cfg.game_id : null,
    dragging: false, pointerDown: false, dirty: false,
    muted: prefs.muted, lastTickSecond: null,
    notify: prefs.notify,
    quick: {}, quickMuted: !!prefs.quickMuted, presence: {},
    cursor: null, said: [], thresholds: { key: "", said: [] },
  };
}

// ------------------------------------------------------------------ what the state says
/** @param {TableState} S @param {ActionType} name whether the server lists `name` as legal now */
export const legal = (S, name) => !!(S.view && S.view.legal && S.view.legal.includes(name));
/** @param {TableState} S @returns {PlayerView | null} this seat's player, if seated */
export const me = (S) => (S.view && S.view.seat != null ? S.view.players[S.view.seat] : null);
/** @param {TableState} S */
export const myTurn = (S) => {
  const v = S.view;
  return !!(v && v.seat != null && v.deal_phase === "turn" && v.turn === v.seat);
};
/** @param {TableState} S */
export const canDraw = (S) => myTurn(S) && !S.view?.has_drawn && legal(S, "draw");
/** @param {TableState} S */
export const canDiscard = (S) => myTurn(S) && !!S.view?.has_drawn && legal(S, "discard");
/** @param {TableState} S */
export const canFinish = (S) => myTurn(S) && !!S.view?.has_drawn && legal(S, "finish");
/** @param {TableState} S @param {number | null | undefined} seat */
export const isMe = (S, seat) => !!(S.view && S.view.seat != null && seat === S.view.seat);
/** "You", a player's name, or "Seat n". @param {TableState} S @param {number | null} seat */
export const nameOf = (S, seat) => {
  const v = S.view;
  if (v && v.players && seat != null && v.players[seat]) return isMe(S, seat) ? "You" : v.players[seat].name;
  return "Seat " + seat;
};
/** Cards as one key, whatever their order (two hands hold the same cards when their keys are equal). @param {CardCode[]} cards */
export const cardsKey = (cards) => cards.slice().sort().join(" ");
/** The arrangement without empty groups (what is sent and evaluated). @param {TableState} S */
export const handGroups = (S) => (S.groups || []).filter((g) => g.length);
/** "g:i" -> {g, i} @param {string} k @returns {Pos} */
export function posOf(k) { const [g, i] = k.split(":").map(Number); return { g, i }; }
/** The one selected card, if exactly one is selected. @param {TableState} S @returns {CardCode | null} */
export function selectedCode(S) {
  if (S.selected.length !== 1 || !S.groups) return null;
  const { g, i } = posOf(S.selected[0]);
  return S.groups[g] ? S.groups[g][i] : null;
}
/** The hand's cursor, kept on a card (the last one if the hand shrank), or null without a hand. @param {TableState} S @returns {Pos | null} */
export function cursorOf(S) {
  const groups = S.groups || [];
  if (!groups.some((g) => g.length)) return null;
  const c = S.cursor || { g: 0, i: 0 };
  if (groups[c.g] && groups[c.g][c.i] != null) return c;
  if (groups[c.g] && groups[c.g].length) return { g: c.g, i: groups[c.g].length - 1 };
  for (let g = Math.min(c.g, groups.length - 1); g >= 0; g--) if (groups[g].length) return { g, i: groups[g].length - 1 };
  const g = groups.findIndex((x) => x.length);
  return { g, i: 0 };
}
/** The first place of `card` in the hand (where the card just drawn is marked new): the cursor goes there. @param {Groups} groups @param {CardCode} card @returns {Pos | null} */
export function placeOf(groups, card) {
  for (let g = 0; g < groups.length; g++) { const i = groups[g].indexOf(card); if (i >= 0) return { g, i }; }
  return null;
}
/** A message's game is another than the one shown: a new game started at the table. @param {TableState} S @param {GameHeader | null | undefined} msgGame */
export function isNewGame(S, msgGame) {
  return !!(msgGame && S.snap && S.snap.game && msgGame.id !== S.snap.game.id);
}

// ------------------------------------------------------------------ the arrangement
/** `groups` less one copy of `card`, empty groups dropped. @param {Groups} groups @param {CardCode} card */
export function without(groups, card) {
  const out = groups.map((g) => g.slice());
  for (const g of out) { const at = g.indexOf(card); if (at >= 0) { g.splice(at, 1); break; } }
  return out.filter((g) => g.length);
}
/** `groups` with the finish card put back where it came from. @param {TableState} S @param {Groups} groups */
export function restoreFinish(S, groups) {
  return putBack(groups, [/** @type {CardCode} */ (S.finishCard)], S.finishFrom);
}
/**
 * Where `card` is taken out from, to put it back there: `hint` if the card is there (one of two
 * copies), else its first place.
 * @param {Groups} groups @param {CardCode} card @param {Pos | null} [hint] @returns {Pos | null}
 */
export function takenFrom(groups, card, hint) {
  const at = hint && groups[hint.g] && groups[hint.g][hint.i] === card ? hint : placeOf(groups, card);
  return at && { g: at.g, i: at.i, alone: groups[at.g].length === 1 };
}

// ------------------------------------------------------------------ transitions
/** A new game at the table: nothing of the old one's hand, sheets or scores stays. @param {TableState} S */
export function resetGame(S) {
  S.groups = null; S.arrangeOwed = false; S.arrangeRefusedFor = null; S.echo = null; S.answered = -1; S.handKey = null; S.selected = []; S.finishCard = null; S.lastDrawn = null;
  S.scores = []; S.autoSheetKey = null;
  if (S.modal && S.modal.kind !== "leave") S.modal = null;
}

/**
 * Take a new view (a snapshot, an update, the game starting, a seat gained or lost) and keep the
 * player's arrangement across it.
 * @param {TableState} S @param {View | null} view
 * @returns {{dealt: boolean, drawn: CardCode | null, turnStarted: boolean}} a new hand was dealt; a card
 *   newly drawn; the player's turn began (a new turn, not an update within it)
 */
export function takeView(S, view) {
  const before = S.view;
  S.view = view;
  if (S.snap && S.snap.game && S.scoresGame !== S.snap.game.id) { S.scores = []; S.scoresGame = S.snap.game.id; }
  let dealt = false;
  /** @type {CardCode | null} */
  let drawn = null;
  // the hand: a new deal, a new seat (the game started under this page, a rejoin) or a new game
  const v = view;
  if (v && v.hand) {
    const key = (S.snap && S.snap.game ? S.snap.game.id : "") + ":" + v.seat + ":" + v.deal_no;
    if (key !== S.handKey || !S.groups) {
      S.groups = (v.arrangement && v.arrangement.length ? v.arrangement : [v.hand]).map((g) => g.slice());
      S.handKey = key; S.selected = []; S.finishCard = null; S.lastDrawn = null;
      S.arrangeOwed = false; S.arrangeRefusedFor = null;
      dealt = true;
    } else {
      const inHand = S.groups.flat().length + (S.finishCard ? 1 : 0);
      if (S.finishCard && !v.hand.includes(S.finishCard)) { S.finishCard = null; }
      const base = S.finishCard ? restoreFinish(S, S.groups) : S.groups;
      S.groups = reconcile(base, v.hand, null);
      if (S.finishCard) S.groups = without(S.groups, S.finishCard);
      if (inHand !== v.hand.length) S.selected = [];
    }
    if (v.drawn_card && v.drawn_card !== (before && before.drawn_card)) { S.lastDrawn = v.drawn_card; drawn = v.drawn_card; S.cursor = placeOf(S.groups, drawn) || S.cursor; }
  } else {
    S.groups = null; S.handKey = null; S.selected = []; S.finishCard = null;
    if (S.modal && S.modal.kind === "declare") S.modal = null;
  }
  const wasMine = !!(v && before && before.seat === v.seat && before.deal_phase === "turn" && before.turn === v.seat && before.deal_no === v.deal_no);
  return { dealt, drawn, turnStarted: myTurn(S) && !wasMine };
}

/**
 * Your own view changed at the same version (an arrangement made in another tab): take its
 * arrangement, unless the player has a card in hand or in the finish slot, or this page has a
 * change of its own the server has not accepted yet (it is newer: it goes to the server next, and
 * from there to the other tab). While an own move is shown before its answer (echo.js) the view
 * waits for the move's update, which holds the truth.
 * @param {TableState} S @param {View} view
 */
export function takeOwnView(S, view) {
  if (S.echo) return;
  S.view = view;
  if (view.arrangement && view.hand && !S.arrangeOwed && !S.dragging && !S.pointerDown && !S.finishCard) {
    S.groups = reconcile(view.arrangement, view.hand, null);
    S.selected = [];
  }
}

/** A deal's scores, for the scoreboard (a deal counted twice keeps its last row). @param {TableState} S @param {ScoresEvent} e */
export function addScores(S, e) {
  S.scores = S.scores.filter((r) => r.deal_no !== e.deal_no).concat([{
    deal_no: e.deal_no, points: e.points, scores: e.scores, eliminated: e.eliminated || [],
  }]);
}

/**
 * The score a deal left a seat with: a later rejoin must not rewrite the sheet.
 * @param {TableState} S @param {number} dealNo @param {number} seat @param {Partial<PlayerView>} pl
 * @returns {{value: number | string, out: boolean}}
 */
export function scoreAfterDeal(S, dealNo, seat, pl) {
  const row = S.scores.find((r) => r.deal_no === dealNo);
  if (row && row.scores[String(seat)] != null) return { value: row.scores[String(seat)], out: (row.eliminated || []).includes(seat) };
  return { value: pl.score != null ? pl.score : "", out: !!pl.eliminated };
}

/**
 * Show a notice: one of each kind, so a newer reminder replaces the older and the same
 * cancellation is said once.
 * @param {TableState} S @param {NoticeBanner} n
 */
export function addNotice(S, n) {
  S.notices = S.notices.filter((x) => x.kind !== n.kind || (n.kind === "game_cancelled" && x.game !== n.game)).concat([n]);
}
/** @param {TableState} S @param {number} id */
export function dismissNotice(S, id) {
  S.notices = S.notices.filter((x) => x.id !== id);
}

/** The result sheet opens by itself once a deal is over, and closes when play resumes. @param {TableState} S */
export function autoSheet(S) {
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

// ------------------------------------------------------------------ quick messages
let quickCount = 0;
/** Show a quick message by its seat; returns its id (to take it down). @param {TableState} S @param {number} seat @param {string} text */
export function showQuick(S, seat, text) {
  const id = ++quickCount;
  S.quick = { ...S.quick, [String(seat)]: { id, text } };
  return id;
}
/** Take a quick message down, unless a newer one replaced it; whether it did. @param {TableState} S @param {number} seat @param {number} id */
export function clearQuick(S, seat, id) {
  const shown = S.quick[String(seat)];
  if (!shown || shown.id !== id) return false;
  const rest = { ...S.quick };
  delete rest[String(seat)];
  S.quick = rest;
  return true;
}
