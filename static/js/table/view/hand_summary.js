// @ts-check
// The line over the hand: the engine's verdict on the whole arrangement, in words, with the
// points the rules charge it (the server's `score`, capped at the full count: no cap computed here).
import { html } from "../../../vendor/htm-preact/standalone.module.js";

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
  const count = groups.reduce((n, g) => n + g.length, 0);
  return html`<span>Hand <strong>${vd.score}</strong> pts</span>${count === 14 ? html` <span class="hint">· drop a card in the finish slot to declare</span>` : null}`;
}
