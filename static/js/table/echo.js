// @ts-check
// The player's own move shown at once (issue 41): a discard, or a draw from the open pile, is drawn
// on the page as soon as it is sent, without waiting a round trip for the server. The server's answer
// settles it: its update replaces the page's guess with the truth, or its refusal puts the page back
// as it was (the card where it came from) and the reason is said in words (dispatch.js).
// The guess is the least it can be: the card moves and the turn's next step is offered (discard or
// finish after a draw, as the server's `legal` will list them); whose turn comes next, the clocks and
// everything the other seats see wait for the server.
import { reconcile } from "../hand.js";
import { takenFrom, without } from "./state.js";

/** @typedef {import("./state.js").TableState} TableState */
/** @typedef {import("./state.js").Pos} Pos */
/** @typedef {import("../wire.js").View} View */
/** @typedef {import("../wire.js").CardCode} CardCode */
/** @typedef {import("../wire.js").ActionType} ActionType */
/**
 * A move shown before the server's answer: its request id, the server's view before it, the
 * version that view showed, and where the card was (to put it back).
 * @typedef {{id: string, kind: "discard" | "draw", card: CardCode, view: View, version: number, from: Pos | null}} Echo
 */

/** @param {CardCode[]} cards @param {CardCode} card */
function lessOne(cards, card) {
  const at = cards.indexOf(card);
  return at < 0 ? cards.slice() : cards.slice(0, at).concat(cards.slice(at + 1));
}

/** @param {ActionType[]} legal @param {ActionType[]} gone @param {ActionType[]} [added] @returns {ActionType[]} */
function legalAfter(legal, gone, added = []) {
  return legal.filter((a) => !gone.includes(a)).concat(added.filter((a) => !legal.includes(a)));
}

/**
 * `v` with the move `e` made on it: the page's guess of the server's next view. Null when `v` cannot
 * take it (the card is not where the move takes it from).
 * @param {View} v @param {Echo} e @returns {View | null}
 */
function guessed(v, e) {
  if (!v.hand) return null;
  if (e.kind === "discard") {
    if (!v.hand.includes(e.card)) return null;
    return {
      ...v, hand: lessOne(v.hand, e.card), open_pile: (v.open_pile || []).concat([e.card]), open_top: e.card,
      has_drawn: false, drawn_card: null, legal: legalAfter(v.legal, ["discard", "finish", "draw", "drop"]),
    };
  }
  if (v.open_top !== e.card) return null;
  const pile = (v.open_pile || []).slice(0, -1);
  return {
    ...v, hand: v.hand.concat([e.card]), open_pile: pile, open_top: pile.length ? pile[pile.length - 1] : null,
    has_drawn: true, drawn_card: e.card, can_pick_open: false,
    legal: legalAfter(v.legal, ["draw", "drop"], ["discard", "finish"]),
  };
}

/**
 * Show a discard of `card` at once: out of the hand, on top of the open pile.
 * @param {TableState} S @param {string} id the action's request id @param {CardCode} card @param {Pos | null} [from]
 */
export function echoDiscard(S, id, card, from) {
  const v = S.view;
  if (!v || !v.hand || !S.groups) return;
  /** @type {Echo} */
  const e = { id, kind: "discard", card, view: v, version: S.version, from: takenFrom(S.groups, card, from) };
  const shown = guessed(v, e);
  if (!shown) return;
  S.echo = e;
  S.view = shown;
  S.groups = without(S.groups, card);
  S.selected = [];
}

/**
 * Show a draw from the open pile at once: its top card into the hand (a group of its own, marked new).
 * @param {TableState} S @param {string} id
 */
export function echoOpenDraw(S, id) {
  const v = S.view;
  const card = v && v.open_top;
  if (!v || !v.hand || !S.groups || !card) return;
  /** @type {Echo} */
  const e = { id, kind: "draw", card, view: v, version: S.version, from: null };
  const shown = guessed(v, e);
  if (!shown || !shown.hand) return;
  S.echo = e;
  S.view = shown;
  S.groups = reconcile(S.groups, shown.hand, null);
  S.lastDrawn = card;
}

/**
 * A view of the server's at the version the shown move was made on (a snapshot, or the catch-up
 * after a reconnection, read before the move, which the socket resends behind it): the move stays
 * shown on it, and with it where the player put its card meanwhile; the server's update settles it
 * as ever. A newer view, or one that cannot take the move, is returned as it is.
 * @param {TableState} S @param {number} version @param {View | null} view @returns {View | null} the view to show
 */
export function keepEcho(S, version, view) {
  const e = S.echo;
  if (!e || !view || version > e.version) return view;
  const shown = guessed(view, e);
  if (!shown) { S.echo = null; return view; }
  e.view = view; // a refusal puts the page back to this one
  e.version = version;
  return shown;
}

/**
 * The server answered the action `id`: a shown move is confirmed, or, refused, put back (unless
 * the server's own view came meanwhile: it is the truth already). Returns the move put back, if any.
 * @param {TableState} S @param {string} id @param {boolean} ok @returns {Echo | null}
 */
export function settleEcho(S, id, ok) {
  const e = S.echo;
  if (!e || e.id !== id) return null;
  S.echo = null;
  if (ok) return null;
  if (S.version === e.version && e.view.hand) {
    S.view = e.view;
    // the arrangement as the player has it now, the card back where it was (or the drawn one out)
    S.groups = reconcile(S.groups || [], e.view.hand, e.kind === "discard" ? e.from : null);
    if (e.kind === "draw") S.lastDrawn = e.view.drawn_card;
    S.selected = [];
  }
  return e;
}

/**
 * A move put back, in words, with the server's reason.
 * @param {Echo} e @param {string} reason @param {(code: CardCode) => string} name a card in a sentence ("the seven of hearts")
 */
export function putBackWords(e, reason, name) {
  const what = e.kind === "discard" ? "Your discard of " + name(e.card) : "Your draw of " + name(e.card) + " from the open pile";
  const where = e.kind === "discard" ? " The card is back in your hand." : " The card is back on the open pile.";
  return what + " was refused: " + reason + "." + where;
}
