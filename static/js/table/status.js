// @ts-check
// Where the game stands, in one sentence ("Your turn: draw from the deck or the open pile"),
// from the view alone. The status line shows it; a "read the table" key (issue 25) would say it.
import { STATUS_LABEL } from "../sheets.js";
import { isMe, legal, me, myTurn, nameOf } from "./state.js";

/** @typedef {import("./state.js").TableState} TableState */

/** @param {TableState} S @returns {string} */
export function statusText(S) {
  const v = S.view, snap = S.snap;
  if (!snap || !snap.game || !v) return "";
  const m = me(S);
  if (v.phase === "playing" && v.deal_phase === "turn") {
    if (S.echo && S.echo.kind === "discard") return "You discarded: the next turn is on its way";
    if (myTurn(S)) {
      if (v.has_drawn) return "Your turn: discard a card, or finish";
      return v.can_pick_open ? "Your turn: draw from the deck or the open pile" : "Your turn: draw from the deck (the joker on the open pile can't be taken)";
    }
    if (m && m.eliminated) return "You are out of the game and watching. " + (v.turn == null ? "" : nameOf(S, v.turn) + "'s turn");
    if (m && m.status && m.status !== "playing") return "You are out of this deal (" + (STATUS_LABEL[m.status] || m.status) + "). " + nameOf(S, v.turn) + " to play";
    return v.turn == null ? "" : nameOf(S, v.turn) + "'s turn";
  }
  if (v.phase === "declaring") {
    if (legal(S, "show")) return "Declaration! Arrange your groups and press Show";
    if (v.declarer != null) return isMe(S, v.declarer) ? "You declared. Waiting for the shows…" : nameOf(S, v.declarer) + " declared. Waiting for the shows…";
    return "Declaration in progress…";
  }
  if (v.phase === "between_deals") return "Deal over. Next deal soon…";
  if (v.phase === "rejoin_window") return "Rejoin window open";
  if (v.phase === "split_offer") return "Split offered";
  if (v.phase === "finished") return "Game over";
  return "";
}
