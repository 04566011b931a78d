// @ts-check
// Quick messages: a fixed set from the server (no free text), said from a small dialog opened by the
// header's Say button, with the switch that hides other players' ones. No row of its own on the
// table: a phone's felt keeps its height.
import { html } from "../../../vendor/htm-preact/standalone.module.js";
import { Modal } from "../../sheets.js";

/** @typedef {import("../state.js").TableState} TableState */
/** @typedef {import("../ctrl.js").TableCtrl} TableCtrl */
/** @typedef {import("../../wire.js").QuickPhrase} QuickPhrase */

/** The header's button, for a player of the game. @param {{s: TableState, t: TableCtrl}} props */
export function QuickButton({ s, t }) {
  const v = s.view;
  if (!(v && t.me() && v.phase !== "finished")) return null;
  return html`<button type="button" id="btn-quick" class="tool" aria-haspopup="dialog" title="Say a quick message to the table"
    onClick=${() => t.openModal({ kind: "quick" })}>Say</button>`;
}

/** The phrases and the mute switch. @param {{s: TableState, t: TableCtrl}} props */
export function QuickSheet({ s, t }) {
  const phrases = /** @type {[QuickPhrase, string][]} */ (Object.entries(t.cfg.quick_phrases || {}));
  return html`<${Modal} kind="quick" title="Say to the table" onClose=${() => t.closeModal()}
      buttons=${[{ text: "Close", cls: "ghost-btn", id: "quick-close", fn: () => t.closeModal() }]}>
    <div id="quick-menu" class="quick-menu" role="group" aria-label="Quick messages">
      ${phrases.map(([key, text]) => html`<button type="button" key=${key} class="act quick-phrase" data-phrase=${key}
        onClick=${() => t.sayQuick(key)}>${text}</button>`)}
    </div>
    <label class="toggle" title="Hide the other players' quick messages">
      <input type="checkbox" id="quick-mute" checked=${s.quickMuted} onChange=${() => t.toggleQuickMute()} /> Mute the others' messages</label>
  <//>`;
}
