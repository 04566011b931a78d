// @ts-check
// Before a game starts: the chairs taken, the countdown, and the join or leave form (a real form
// post, the page's one way to take a seat).
import { html } from "../../../vendor/htm-preact/standalone.module.js";
import { waitingLine } from "../clocks.js";

/** @typedef {import("../state.js").TableState} TableState */
/** @typedef {import("../ctrl.js").TableCtrl} TableCtrl */

/** @param {{s: TableState, t: TableCtrl, joinSeed: string}} props joinSeed: this browser's part of the shuffle (docs/fairness.md) */
export function Waiting({ s, t, joinSeed }) {
  const snap = /** @type {import("../../wire.js").Snapshot} */ (s.snap);
  const cfg = t.cfg;
  const table = snap.table;
  const seats = snap.seats || [];
  const seated = (snap.you && snap.you.position != null) || (s.view && s.view.seat != null);
  const line = waitingLine(snap, !!seated);
  const chairs = [];
  for (let i = 0; i < table.seats; i++) {
    const seat = seats.find((x) => x.position === i);
    chairs.push(html`<span class=${"chair" + (seat ? " taken" : "")} key=${i}>${seat ? seat.name : "empty"}</span>`);
  }
  return html`<section id="waiting" class="waiting">
    <h2>${table.practice ? "Practice table" : "Waiting for players"}</h2>
    <p id="waiting-seats"><strong>${table.seats_taken} / ${table.seats}</strong> seats taken<span class="chairs">${chairs}</span></p>
    <p id="waiting-countdown" class="countdown">${line}</p>
    ${!seated && table.status === "open" ? html`<form method="post" action=${cfg.join_url} id="join-form">
        <input type="hidden" name="csrfmiddlewaretoken" value=${cfg.csrf} />
        <input type="hidden" name="client_seed" value=${joinSeed} />
        <button type="submit" class="primary big">${table.practice ? "Sit down · free" : "Join · " + table.entry_fee_display}</button></form>` : null}
    ${seated ? html`<form method="post" action=${cfg.leave_url} id="leave-form">
        <input type="hidden" name="csrfmiddlewaretoken" value=${cfg.csrf} />
        <button type="submit" class="ghost-btn">Leave seat${table.entry_fee ? " (refund)" : ""}</button></form>` : null}
  </section>`;
}
