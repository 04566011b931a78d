// @ts-check
// Notices in words, each until dismissed (notices.js words them).
import { html } from "../../../vendor/htm-preact/standalone.module.js";

/** @typedef {import("../state.js").TableState} TableState */
/** @typedef {import("../ctrl.js").TableCtrl} TableCtrl */

/** Always in the page, so that a screen reader announces what is added to it. @param {{s: TableState, t: TableCtrl}} props */
export function Notices({ s, t }) {
  return html`<div id="notices" class="notices" aria-live="assertive" aria-relevant="additions">${s.notices.map((n) => html`
    <section key=${n.id} class=${"notice-banner notice-" + n.kind} data-kind=${n.kind} aria-labelledby=${"notice-title-" + n.id}>
      <div class="notice-text">
        <h2 class="notice-title" id=${"notice-title-" + n.id}>${n.title}</h2>
        ${n.lines.map((line, i) => html`<p key=${i} class="notice-line">${line}</p>`)}
      </div>
      <button type="button" class="notice-close" aria-label=${"Dismiss: " + n.title} onClick=${() => t.dismissNotice(n.id)}>OK</button>
    </section>`)}</div>`;
}
