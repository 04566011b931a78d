// @ts-check
// The line over the hand: the engine's verdict on the whole arrangement, in words, with the
// points the rules charge it (the server's `score`, capped at the full count: no cap computed here).
// On a 14-card turn it invites a declaration only when the server names a card (`finish_with`)
// whose place in the finish slot leaves a valid declaration: never an invitation to a wrong show.
import { html } from "../../../vendor/htm-preact/standalone.module.js";
import { cardName } from "../../cards.js";

/** @typedef {import("../state.js").TableState} TableState */
/** @typedef {import("../ctrl.js").TableCtrl} TableCtrl */

/** @param {{s: TableState, t: TableCtrl}} props */
export function HandSummary({ s, t }) {
  const v = s.view;
  if (!v) return "";
  const groups = t.handGroups();
  const vd = t.verdictFor(groups, v.wild_rank);
  if (!vd) return "";
  if (vd.valid) return html`<span class="ok">Ready to declare ✓</span>`;
  const capped = vd.score != null && vd.points != null && vd.points > vd.score;
  return html`<span>Hand <strong>${vd.score}</strong> pts</span>${capped ? html` <span class="cap-note" id="hand-cap">(${vd.points} in these groups, capped at the table's full count)</span>` : null}${vd.finish_with ? html` <span class="hint" id="declare-hint">· put the ${cardName(vd.finish_with)} in the finish slot to declare</span>` : null}`;
}
