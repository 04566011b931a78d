// @ts-check
// What a screen reader hears at the table (issue 25; lichess' blind mode, ui/lib/src/nvui, is the
// model): every card's spoken name, the one polite live region's lines, and "read the table" (the
// R key) in words. Pure: the state in, sentences out; dispatch.js, clocks.js and keys.js say them
// through `say`, and view/app.js renders `S.said` into the live region. Only what the page was sent
// is ever said (the player's own hand, the open pile, the cut joker): no hidden card reaches it.
import { parseCard, spokenCard } from "../cards.js";
import { KIND_LABEL } from "../hand.js";
import { fmtSecs, tableCountdown, timerOf } from "./clocks.js";
import { nameOf } from "./state.js";
import { statusText } from "./status.js";
import { eventLine } from "./ticker.js";

/** @typedef {import("./state.js").TableState} TableState */
/** @typedef {import("../wire.js").CardCode} CardCode */
/** @typedef {import("../wire.js").Groups} Groups */
/** @typedef {import("../wire.js").Verdict} Verdict */

export { spokenCard };

const RANK_PLURAL = ["", "aces", "twos", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens", "jacks", "queens", "kings"];

/** "the seven of hearts", "a printed joker": a card inside a sentence. @param {CardCode | null | undefined} code */
export function theCard(code) {
  return parseCard(code).joker ? "a printed joker" : "the " + spokenCard(code);
}

/** How many lines the live region keeps (older lines leave it; a screen reader said them already). */
const KEPT = 6;
let saidCount = 0;

/**
 * Say `text` through the live region: a new line each time, so the same words said twice are
 * heard twice. Nothing is said for "".
 * @param {TableState} S @param {string} text
 */
export function say(S, text) {
  const t = text.trim();
  if (!t) return;
  S.said = S.said.concat([{ id: ++saidCount, text: t }]).slice(-KEPT);
}

/** A group's verdict in words: "pure sequence", "invalid, 20 points". @param {import("../wire.js").GroupVerdict | null | undefined} r */
function groupVerdict(r) {
  if (!r) return "not checked yet";
  const label = (KIND_LABEL[r.kind] || r.kind).toLowerCase();
  return r.kind === "invalid" ? label + ", " + r.points + " points" : label;
}

/**
 * The hand by groups, each with the engine's verdict: "Group 1, pure sequence: ace of spades, …".
 * @param {Groups} groups @param {Verdict | null} verdict @param {number | null | undefined} wild
 */
export function handWords(groups, verdict, wild) {
  const count = groups.reduce((n, g) => n + g.length, 0);
  const parts = [count + " cards in " + groups.length + (groups.length === 1 ? " group." : " groups.")];
  groups.forEach((g, k) => {
    parts.push("Group " + (k + 1) + ", " + groupVerdict(verdict && verdict.groups[k]) + ": " + g.map((c) => spokenCard(c, wild)).join("; ") + ".");
  });
  if (verdict) parts.push(verdict.valid ? "A valid show." : "The hand counts " + verdict.score + " points.");
  return parts.join(" ");
}

/**
 * "Read the table" (the R key): the hand by groups with their verdicts, the open card, the cut
 * joker, the scores, whose turn, and the time left.
 * @param {TableState} S @param {(groups: Groups, wild: number | null | undefined) => Verdict | null} verdictFor
 * @param {number} [now]
 */
export function readTable(S, verdictFor, now = Date.now()) {
  const v = S.view;
  if (!v || !S.snap || !S.snap.game) return "The game has not started.";
  /** @type {string[]} */
  const out = [];
  const status = statusText(S);
  if (status) out.push(status + ".");
  const groups = (S.groups || []).filter((g) => g.length);
  if (v.hand && groups.length) out.push("Your hand: " + handWords(groups, verdictFor(groups, v.wild_rank), v.wild_rank));
  if (S.finishCard) out.push("In the finish slot: " + spokenCard(S.finishCard, v.wild_rank) + ".");
  if (v.phase === "playing" || v.phase === "declaring") {
    out.push(v.open_top ? "Open card: " + spokenCard(v.open_top, v.wild_rank) + "." : "The open pile is empty.");
    if (v.cut_joker) out.push("Cut joker: " + spokenCard(v.cut_joker) + (v.wild_rank ? "; " + RANK_PLURAL[v.wild_rank] + " are wild." : "."));
    out.push(v.closed_count + " cards in the deck.");
  }
  out.push("Scores, of " + v.pool_limit + ": " + v.players.map((p, i) => nameOf(S, i) + " " + p.score + (p.eliminated ? " (out)" : "")).join(", ") + ".");
  const dl = v.deadline;
  if (dl && dl.seat != null && (dl.kind === "turn" || dl.kind === "extra")) {
    const tm = timerOf(S, dl.seat, now);
    if (tm) out.push((nameOf(S, dl.seat) === "You" ? "You have " : nameOf(S, dl.seat) + " has ") + spokenTime(tm.left) + (tm.kind === "extra" ? " of extra time" : "") + " left.");
  } else {
    const c = tableCountdown(S, now);
    if (c) out.push(c + ".");
  }
  return out.join(" ");
}

/** "45 seconds", "1 minute 5 seconds". @param {number} ms */
export function spokenTime(ms) {
  const [m, s] = fmtSecs(ms).split(":").map(Number);
  const secs = s + " second" + (s === 1 ? "" : "s");
  return m ? m + " minute" + (m === 1 ? "" : "s") + (s ? " " + secs : "") : secs;
}

/** The times left, in seconds, at which the player hears how long their own turn has left. */
export const THRESHOLDS = [30, 10, 5];

/**
 * The threshold the player's own clock has just crossed, once per turn: a number of seconds to
 * say, or null. Never a ticking clock: at most three times a turn, and none above half its length.
 * @param {TableState} S @param {number} [now] @returns {number | null}
 */
export function crossedThreshold(S, now = Date.now()) {
  const v = S.view;
  if (!v || v.seat == null || !v.deadline) return null;
  const tm = timerOf(S, v.seat, now);
  if (!tm || tm.left <= 0) return null;
  const key = v.deal_no + ":" + v.deadline.kind + ":" + v.deadline.at_ms;
  if (S.thresholds.key !== key) S.thresholds = { key, said: [] };
  // crossed just now (within two ticks of the clock), not when the page opens late in a turn; and
  // only when time is really running low: at most half the turn's (or the bank's) length, so that a
  // 30-second turn does not start with "30 seconds left"
  const t = THRESHOLDS.find((x) => x * 1000 <= tm.total / 2 && tm.left <= x * 1000 && tm.left > x * 1000 - 1500);
  if (t == null || S.thresholds.said.includes(t)) return null;
  S.thresholds.said.push(t);
  return t;
}

/** The keys of the table, for the help sheet ("?") and the test of it. */
export const KEY_HELP = [
  ["H", "Go to your hand (a list of cards)"],
  ["← →", "In the hand: the previous or next card"],
  ["↑ ↓", "In the hand: the first card of the previous or next group"],
  ["Home End", "In the hand: the first or last card"],
  ["Space", "In the hand: select or unselect the card"],
  ["Shift + ← →", "Move the card left or right in the hand (into the next group at a group's end)"],
  ["Shift + ↑ ↓", "Move the card to the end of the previous or next group"],
  ["D", "Draw from the closed deck"],
  ["O", "Take the open card"],
  ["X", "Discard the selected card"],
  ["G", "Group the selected cards"],
  ["N", "New group: the selected cards, or the card under the cursor"],
  ["S", "Sort by suit (Shift + S: by rank)"],
  ["F", "Finish: put the selected card in the finish slot and declare; in a declaration, show your groups"],
  ["P", "Drop this deal (asks first)"],
  ["R", "Read the table: your hand by groups, the open card, scores, whose turn and the time left"],
  ["?", "This list of keys"],
  ["Escape", "Close the sheet or dialog"],
];

/**
 * An event as a screen reader hears it: the ticker's sentence with cards named in words, the
 * player's own draw from the deck with the card drawn (`drawn`, their own view's), and the end of
 * a deal.
 * @param {import("../wire.js").GameEvent} e @param {import("./ticker.js").Who} who
 * @param {CardCode | null} drawn @returns {string}
 */
export function eventSpeech(e, who, drawn) {
  if (e.type === "draw" && e.source === "closed" && who.isMe(e.seat) && drawn) return "You drew " + theCard(drawn) + " from the deck";
  if (e.type === "deal_over") {
    const won = e.winner == null ? "" : who.isMe(e.winner) ? ": you won it" : ": " + who.nameOf(e.winner) + " won it";
    return "Deal " + e.deal_no + " is over" + won;
  }
  return eventLine(e, who, theCard);
}
