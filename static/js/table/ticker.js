// @ts-check
// The game's events in words ("Ravi discarded 7♥") and the sound each makes. Pure: the event
// and who is who in, a sentence out; dispatch.js puts it in the ticker. A screen reader's
// announcements (issue 25) start from these same sentences.
import { cardName } from "../cards.js";

/** @typedef {import("../wire.js").GameEvent} GameEvent */
/** @typedef {import("../sounds.js").SoundName} SoundName */
/**
 * Who is who at the table, as the page names them.
 * @typedef {{isMe: (seat: number | null) => boolean, nameOf: (seat: number | null) => string}} Who
 */

/** A sentence about a seat: "You are out" / "Ravi is out". @param {Who} who @param {number} seat @param {string} you @param {string} other */
const says = (who, seat, you, other) => (who.isMe(seat) ? "You " + you : who.nameOf(seat) + " " + other);

/**
 * The event in words for the ticker, or "" for one the ticker does not tell. `card`: how a card is
 * named ("7♥" in the ticker, "the seven of hearts" for a screen reader).
 * @param {GameEvent} e @param {Who} who @param {(code: string) => string} [card] @returns {string}
 */
export function eventLine(e, who, card = cardName) {
  switch (e.type) {
    case "game_started": return "The game started";
    case "deal_started": return "Deal " + e.deal_no + " dealt. Cut joker: " + cardName(e.cut_joker);
    case "draw":
      return e.source === "open" ? says(who, e.seat, "picked ", "picked ") + card(e.card || "") + " from the open pile" : says(who, e.seat, "drew", "drew") + " from the deck";
    case "discard": return says(who, e.seat, "discarded ", "discarded ") + card(e.card) + (e.auto ? " (timed out)" : "");
    case "drop": return says(who, e.seat, "dropped", "dropped") + " (" + e.points + " pts)";
    case "finish": return says(who, e.seat, "put a card in the finish slot", "put a card in the finish slot");
    case "declaration": return says(who, e.seat, "declared: ", "declared: ") + (e.valid ? "valid" : "wrong show (" + e.points + " pts)");
    case "show": return says(who, e.seat, "showed: ", "showed: ") + e.points + " pts";
    case "extra_time": return says(who, e.seat, "are on extra time", "is on extra time");
    case "turn_missed": return says(who, e.seat, "missed a turn", "missed a turn") + " (" + e.misses + ")";
    case "reshuffle": return "The open pile was reshuffled into the deck";
    case "eliminated": return says(who, e.seat, "are out at " + e.score, "is out at " + e.score);
    case "rejoined": return says(who, e.seat, "rejoined at " + e.score, "rejoined at " + e.score);
    case "split_accepted": return says(who, e.seat, "accepted the split", "accepted the split");
    case "split_declined": return e.seat == null ? "The split offer ran out" : says(who, e.seat, "declined the split", "declined the split");
    case "player_left": return says(who, e.seat, "left the game", "left the game");
    case "game_cancelled": return "Staff cancelled the game";
    case "game_over": return "Game over";
    // told elsewhere (the waiting seats, the clocks, the piles, the result sheet, the scoreboard)
    case "seat_taken":
    case "seat_left":
    case "toss":
    case "turn":
    case "deal_over":
    case "scores":
    case "rejoin_offer":
    case "split_offer":
    case "next_deal":
      return "";
    default: return unknownEvent(e);
  }
}

/**
 * The sound an event makes, if any. `won`: the player was paid at the game's end.
 * @param {GameEvent} e @param {boolean} won @returns {SoundName | null}
 */
export function eventSound(e, won) {
  switch (e.type) {
    case "deal_started": return "deal";
    case "draw": return "draw";
    case "discard": return "discard";
    case "game_over": return won ? "win" : "lose";
    default: return null;
  }
}

/**
 * An event type this page does not know (a newer server): said nothing. Typed `never`, so that
 * an event added to the wire types without a case here fails the type check.
 * @param {never} e @returns {string}
 */
function unknownEvent(e) {
  void e;
  return "";
}

/** The events worth a line in "While you were away": the rest are counted, not told. */
const AWAY_TOLD = new Set(["drop", "declaration", "show", "eliminated", "rejoined", "player_left", "game_over"]);

/**
 * "While you were away", from the events a reconnected (or reopened) page caught up with: how many
 * turns were played, the turns the timer played for you, what changed the game and the deals that
 * ended. Empty when nothing did.
 * @param {GameEvent[]} events @param {Who} who @returns {string[]}
 */
export function awaySummary(events, who) {
  const turns = events.filter((e) => e.type === "turn").length;
  const missed = events.filter((e) => e.type === "turn_missed" && who.isMe(e.seat)).length;
  const told = events.filter((e) => AWAY_TOLD.has(e.type)).map((e) => eventLine(e, who)).filter(Boolean);
  const ended = events.flatMap((e) => (e.type === "deal_over"
    ? ["Deal " + e.deal_no + " ended" + (e.winner == null ? "." : who.isMe(e.winner) ? ": you won it." : ": " + who.nameOf(e.winner) + " won it.")] : []));
  if (turns < 2 && !missed && !told.length && !ended.length) return [];
  /** @type {string[]} */
  const lines = [];
  if (turns) lines.push(turns + (turns === 1 ? " turn was" : " turns were") + " played.");
  if (missed) lines.push("The timer played " + missed + (missed === 1 ? " turn" : " turns") + " for you (a missed turn discards the card drawn).");
  return lines.concat(told.slice(-6), ended.slice(-3));
}
