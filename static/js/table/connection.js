// @ts-check
// A lost connection in words: what the banner says while the page cannot hear the server, and what
// happens meanwhile to the player's turn. The server's clocks wait for no page (docs/rules.md §6.9,
// §6.10): the turn clock runs, then the player's extra-time bank, then the turn is missed and played
// for them, and three missed turns in a row drop them. Drawn from the view alone, as the status line.
import { fmtSecs, timerOf } from "./clocks.js";
import { legal, me, myTurn } from "./state.js";

/** @typedef {import("./state.js").TableState} TableState */

/**
 * The banner's words: a title, the one line that matters now (the turn's clock), and the rest (what
 * a missed turn costs, that the player's cards are safe), shown on demand.
 * @param {TableState} S @param {number} [now] @returns {{title: string, now: string, more: string[]}}
 */
export function lostWords(S, now = Date.now()) {
  const v = S.view;
  const m = me(S);
  const title = "Connection lost" + (S.lostAt ? " " + fmtSecs(now - S.lostAt) : "");
  let line = "";
  /** @type {string[]} */
  const more = [];
  if (v && m && v.seat != null && v.phase === "playing" && v.deal_phase === "turn" && m.status === "playing" && !m.eliminated) {
    const bank = m.extra_ms ? "then your extra time (" + fmtSecs(m.extra_ms) + ")" : "and you have no extra time left";
    const t = myTurn(S) ? timerOf(S, v.seat, now) : null;
    if (t && t.kind === "extra") line = "Your turn: your extra time is running (" + fmtSecs(t.left) + " left).";
    else if (myTurn(S)) line = "Your turn: its clock keeps running" + (t ? " (" + fmtSecs(t.left) + " left)" : "") + ", " + bank + ".";
    else line = "Play goes on: when your turn comes its clock runs, " + bank + ".";
    more.push("A turn whose time runs out is played for you (a card you drew is discarded); three in a row drop you from the deal (" + v.rules.middle_drop + " points).");
  } else if (v && legal(S, "show")) {
    line = "The show's clock keeps running: when it runs out, the arrangement the server last had is scored.";
  }
  if (v && v.hand) more.push("Your cards stay as you left them here; a move you make now is sent once the connection is back.");
  return { title, now: line, more };
}
