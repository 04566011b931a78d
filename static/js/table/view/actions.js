// @ts-check
// The player's buttons under the hand: discard, finish, show, drop (with what it costs, from the
// server), auto drop, I'm back, leave.
import { html } from "../../../vendor/htm-preact/standalone.module.js";
import { posOf } from "../state.js";

/** @typedef {import("../state.js").TableState} TableState */
/** @typedef {import("../ctrl.js").TableCtrl} TableCtrl */

/** @param {{s: TableState, t: TableCtrl}} props */
export function Actions({ s, t }) {
  const v = s.view;
  const m = t.me();
  if (!(v && m && v.phase !== "finished")) return null;
  if (m.eliminated) return null; // out of the game: nothing to play, no dead buttons (the result sheet says why)
  const sel = s.selected.length === 1;
  const dropPts = v.drop_points;
  return html`<nav id="actions" class="actions">
    <button type="button" id="btn-discard" class="act primary" disabled=${!(t.canDiscard() && sel)}
      onClick=${() => { const c = t.selectedCode(); if (c) t.discard(c); else t.toast("Select one card to discard", "info"); }}>Discard</button>
    <button type="button" id="btn-finish" class="act gold" disabled=${!(t.canFinish() && sel)} title="Put the selected card in the finish slot and declare"
      onClick=${() => { const c = t.selectedCode(); if (c) t.startFinish(c, posOf(s.selected[0])); }}>Finish</button>
    ${t.legal("show") ? html`<button type="button" id="btn-show" class="act gold" onClick=${() => t.show()}>Show</button>` : null}
    <button type="button" id="btn-drop" class="act danger" disabled=${!t.legal("drop")}
      onClick=${() => t.openModal({ kind: "drop" })}>${t.legal("drop") && dropPts != null ? "Drop (" + dropPts + " pts)" : "Drop"}</button>
    <label class="toggle" id="auto-drop-label" title="Drop automatically at your turn">
      <input type="checkbox" id="auto-drop" checked=${!!v.auto_drop} disabled=${!(t.legal("auto_drop") || t.legal("im_back"))}
        onChange=${(/** @type {Event} */ e) => {
          const box = /** @type {HTMLInputElement} */ (e.target);
          const on = box.checked;
          box.checked = !!v.auto_drop; // the server's answer sets it
          if (on) t.openModal({ kind: "auto-drop" }); else t.imBack();
        }} /> Auto drop</label>
    ${v.auto_drop ? html`<button type="button" id="btn-back" class="act" onClick=${() => t.imBack()}>I'm back</button>` : null}
    ${t.legal("leave") && !m.eliminated ? html`<button type="button" id="btn-forfeit" class="act ghost-btn" onClick=${() => t.openModal({ kind: "leave" })}>Leave</button>` : null}
  </nav>`;
}
