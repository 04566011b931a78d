// @ts-check
// The quick messages a player may send (a fixed set from the server: no free text), in a menu
// under the actions, and the switch that hides other players' ones.
import { html } from "../../../vendor/htm-preact/standalone.module.js";

/** @typedef {import("../state.js").TableState} TableState */
/** @typedef {import("../ctrl.js").TableCtrl} TableCtrl */
/** @typedef {import("../../wire.js").QuickPhrase} QuickPhrase */

/** @param {{s: TableState, t: TableCtrl}} props */
export function QuickBar({ s, t }) {
  const v = s.view;
  if (!(v && t.me() && v.phase !== "finished")) return null;
  const phrases = /** @type {[QuickPhrase, string][]} */ (Object.entries(t.cfg.quick_phrases || {}));
  return html`<div id="quick" class="quick">
    <button type="button" id="btn-quick" class="act ghost-btn" aria-expanded=${s.quickMenu} aria-controls="quick-menu"
      onClick=${() => t.toggleQuickMenu()}>Say…</button>
    ${s.quickMenu ? html`<div id="quick-menu" class="quick-menu" role="group" aria-label="Quick messages">
      ${phrases.map(([key, text]) => html`<button type="button" key=${key} class="act quick-phrase" data-phrase=${key}
        onClick=${() => t.sayQuick(key)}>${text}</button>`)}
    </div>` : null}
    <label class="toggle" title="Hide the other players' quick messages">
      <input type="checkbox" id="quick-mute" checked=${s.quickMuted} onChange=${() => t.toggleQuickMute()} /> Mute messages</label>
  </div>`;
}
