// @ts-check
// Cards as people read them: a code ("JH", "10S", "PJ") -> its name, symbol and picture.
// Shared by the table, the replay and the lobby pages. No rule lives here: what a card
// may do is the server's answer (the view's `legal`, the evaluate endpoint).
import { html } from "../vendor/htm-preact/standalone.module.js";

/** @typedef {import("./wire.js").CardCode} CardCode */
/** @typedef {{joker: boolean, rank: number, suit: string, face: string}} ParsedCard */

/** @type {Record<string, string>} */
export const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
/** @type {Record<string, string>} */
export const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
/** @type {Record<string, number>} */
const SUIT_ORDER = { S: 0, H: 1, D: 2, C: 3 };
/** @type {Record<string, number>} */
const RANK_VALUE = { A: 1, J: 11, Q: 12, K: 13 };
/** @type {Record<string, string>} */
const RANK_NAMES = { A: "Ace", J: "Jack", Q: "Queen", K: "King" };

/**
 * {joker, rank (1-13, 0 for the printed joker), suit ("S".."C" or ""), face ("A".."K")}
 * @param {CardCode | null | undefined} code @returns {ParsedCard}
 */
export function parseCard(code) {
  const c = String(code || "");
  if (c === "PJ") return { joker: true, rank: 0, suit: "", face: "★" };
  const suit = c.slice(-1);
  const face = c.slice(0, -1);
  return { joker: false, rank: RANK_VALUE[face] || parseInt(face, 10) || 0, suit, face };
}

/** "J♥", "10♠", "Joker": how the log and buttons name a card. @param {CardCode | null | undefined} code */
export function cardName(code) {
  const c = parseCard(code);
  return c.joker ? "Joker" : c.face + (SUITS[c.suit] || c.suit);
}

const RANK_WORDS = ["", "ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king"];
/** @type {Record<string, string>} */
const SUIT_SPOKEN = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };

/**
 * A card's spoken name: "seven of hearts", "seven of hearts, wild joker" (of this deal's joker
 * rank), "printed joker".
 * @param {CardCode | null | undefined} code @param {number | null | undefined} [wildRank]
 */
export function spokenCard(code, wildRank) {
  const c = parseCard(code);
  if (c.joker) return "printed joker";
  const name = (RANK_WORDS[c.rank] || c.face) + " of " + (SUIT_SPOKEN[c.suit] || c.suit);
  return wildRank != null && c.rank === wildRank ? name + ", wild joker" : name;
}

/** @param {CardCode} code */
export function isRed(code) {
  const s = parseCard(code).suit;
  return s === "H" || s === "D";
}

/**
 * Cards of the cut joker's rank (and printed jokers) are marked on the page as the view says.
 * @param {CardCode} code @param {number | null | undefined} wildRank
 */
export function hasWildRank(code, wildRank) {
  if (wildRank == null) return false;
  const c = parseCard(code);
  return c.joker || c.rank === wildRank;
}

/** @param {CardCode} a @param {CardCode} b */
export function bySuit(a, b) {
  const x = parseCard(a), y = parseCard(b);
  const kx = x.joker ? 4 : SUIT_ORDER[x.suit], ky = y.joker ? 4 : SUIT_ORDER[y.suit];
  return kx - ky || x.rank - y.rank;
}

/** @param {CardCode} a @param {CardCode} b */
export function byRank(a, b) {
  const x = parseCard(a), y = parseCard(b);
  const rx = x.joker ? 99 : x.rank, ry = y.joker ? 99 : y.rank;
  return rx - ry || (SUIT_ORDER[x.suit] || 0) - (SUIT_ORDER[y.suit] || 0);
}

/** Groups of the same suit (jokers last), each in rank order. @param {CardCode[]} cards @returns {CardCode[][]} */
export function groupBySuit(cards) {
  /** @type {Record<string, CardCode[]>} */
  const out = {};
  cards.slice().sort(bySuit).forEach((c) => {
    const p = parseCard(c);
    (out[p.joker ? "J" : p.suit] = out[p.joker ? "J" : p.suit] || []).push(c);
  });
  return ["S", "H", "D", "C", "J"].filter((k) => out[k]).map((k) => out[k]);
}

/** Groups of the same rank (jokers last). @param {CardCode[]} cards @returns {CardCode[][]} */
export function groupByRank(cards) {
  /** @type {Map<string | number, CardCode[]>} */
  const out = new Map();
  cards.slice().sort(byRank).forEach((c) => {
    const p = parseCard(c);
    const k = p.joker ? "J" : p.rank;
    if (!out.has(k)) out.set(k, []);
    /** @type {CardCode[]} */ (out.get(k)).push(c);
  });
  return Array.from(out.values());
}

/**
 * A card in words, as every card on the page is named: "seven of hearts", "seven of hearts, wild
 * joker" when `wild` marks it as this deal's joker, "printed joker".
 * @param {CardCode} code @param {boolean} [wild]
 */
export function cardWords(code, wild) {
  const c = parseCard(code);
  return spokenCard(code) + (wild && !c.joker ? ", wild joker" : "");
}

/**
 * The picture of a card (a Preact/htm vnode). `wild`: mark it as this deal's joker. Its name in
 * words (`spoken`, else `cardWords`) is the card's own text, the one thing a screen reader reads
 * of it: the pictures (rank, suits, the wild mark "J") are hidden from it, so that a card is never
 * heard as glyphs, and the name is the element's own text (WCAG 2.5.3, label in name). No `title`
 * on the card: it would be read after the name as its description.
 * @param {{code: CardCode, small?: boolean, tiny?: boolean, wild?: boolean, cls?: string, attrs?: Record<string, unknown>, spoken?: string}} props
 */
export function Card({ code, small, tiny, wild, cls, attrs, spoken }) {
  const c = parseCard(code);
  const size = tiny ? " tiny" : small ? " small" : "";
  const extra = cls ? " " + cls : "";
  const words = html`<span class="sr-only">${spoken || cardWords(code, wild)}</span>`;
  const pic = { "aria-hidden": "true" };
  if (c.joker) {
    return html`<div class=${"card printed-joker" + size + extra} data-code=${code} ...${attrs || {}}>
      ${words}<span class="pj-star" ...${pic}>★</span><span class="pj-text" ...${pic}>JOKER</span></div>`;
  }
  const s = SUITS[c.suit] || "?";
  return html`<div class=${"card " + (isRed(code) ? "red" : "black") + (wild ? " wild" : "") + size + extra}
      data-code=${code} ...${attrs || {}}>
    ${words}<span class="idx" ...${pic}><span class="r">${c.face}</span><span class="s">${s}</span></span>
    <span class="pip" ...${pic}>${s}</span>
    ${wild ? html`<span class="wild-mark" title="Joker this deal" ...${pic}>J</span>` : null}
  </div>`;
}

/** @param {{cls?: string, attrs?: Record<string, unknown>}} props */
export function CardBack({ cls, attrs }) {
  return html`<div class=${"card back" + (cls ? " " + cls : "")} ...${attrs || {}}></div>`;
}

/**
 * A row of small cards, e.g. a shown group in a result sheet: read as one line of words ("jack of
 * clubs; queen of clubs; eight of hearts, wild joker"), each card's picture hidden from a screen
 * reader.
 * @param {{cards: CardCode[], wildRank: number | null | undefined, small?: boolean, tiny?: boolean, cls?: string}} props
 */
export function CardRow({ cards, wildRank, small = true, tiny = false, cls = "cards-row" }) {
  const hidden = { "aria-hidden": "true" };
  return html`<span class=${cls}><span class="sr-only">${rowWords(cards, wildRank)}</span>${cards.map(
    (c, i) => html`<${Card} key=${c + i} code=${c} small=${small && !tiny} tiny=${tiny} wild=${hasWildRank(c, wildRank)} attrs=${hidden} />`,
  )}</span>`;
}

/** Cards in words, one after another: "jack of clubs; queen of clubs.". @param {CardCode[]} cards @param {number | null | undefined} wildRank */
export function rowWords(cards, wildRank) {
  return cards.map((c) => cardWords(c, hasWildRank(c, wildRank))).join("; ") + ".";
}
