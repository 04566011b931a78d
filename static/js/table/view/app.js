// @ts-check
// The whole table page, drawn from the state: the header and its tools, the notices, the felt
// (seats and piles, or the waiting room), your hand, your buttons, the sheet over it all, toasts.
import { html } from "../../../vendor/htm-preact/standalone.module.js";
import { Hand } from "../../hand.js";
import { Actions } from "./actions.js";
import { Center } from "./center.js";
import { HandSummary } from "./hand_summary.js";
import { ModalView } from "./modals.js";
import { Notices } from "./notices.js";
import { ConnBanner } from "./conn.js";
import { MeBar, Seats } from "./seats.js";
import { QuickButton } from "./quick.js";
import { Waiting } from "./waiting.js";

/** @typedef {import("../state.js").TableState} TableState */

/** The connection dot's words. */
const CONN_WORDS = { open: "Connected", connecting: "Connecting", closed: "Connection lost" };
/** @typedef {import("../ctrl.js").TableCtrl} TableCtrl */

/** @param {{s: TableState, t: TableCtrl, joinSeed: string}} props */
export function App({ s, t, joinSeed }) {
  const cfg = t.cfg;
  const snap = s.snap;
  const v = s.view;
  const waiting = !snap || !v || !snap.game || snap.game.status === "waiting" || snap.game.status === "cancelled";
  const hasHand = !!(v && v.hand && s.groups);
  // a table without an entry fee (practice) is "Free", as its lobby tile says: no "Prize ₹0.00"
  const free = !!(snap && snap.table && snap.table.entry_fee === 0);
  const cls = "table-app" + (waiting ? " is-waiting" : "") + (hasHand ? " has-hand" : "") + (v && v.seat != null ? " seated" : " watching") +
    (s.dealing ? " dealing" : "") + (t.myTurn() ? " my-turn" : "");
  const behind = !!s.modal; // the page behind an open dialog: out of reach (Tab, clicks, a screen reader)
  return html`<div class=${cls}>
    <header class="tbl-head" inert=${behind}>
      <div class="tbl-title">
        <a class="back" href=${cfg.lobby_url} title="Lobby">‹</a>
        <h1>${cfg.table_name}</h1>
        <span class="tbl-meta"><span class="chip-pill">${cfg.format_label}</span>
          ${free ? html`<span id="free-pill" class="chip-pill" title="No entry fee and no prize: practice">Free</span>` : html`<span class="chip-pill">entry ${cfg.entry_fee_display}</span>`}
          ${v && v.prize_pool != null && !free ? html`<span id="prize-pool" class="chip-pill gold">Prize ${t.money(v.prize_pool)}</span>` : null}
          ${v && v.deal_no ? html`<span id="deal-no" class="chip-pill">Deal ${v.deal_no}</span>` : null}</span>
      </div>
      <div class="tbl-tools">
        <button type="button" id="btn-scores" class="tool" title="Every deal's points and the running totals" onClick=${() => t.openModal({ kind: "scores" })} disabled=${!v}>Scores</button>
        ${v && v.last_result ? html`<button type="button" id="btn-last-result" class="tool" onClick=${() => t.openModal({ kind: "result" })}>Last deal</button>` : null}
        <button type="button" id="btn-open-cards" class="tool" title="Every card discarded this deal" onClick=${() => t.openModal({ kind: "open-cards" })} disabled=${!v}>Discards</button>
        <${QuickButton} s=${s} t=${t} />
        <button type="button" id="btn-keys" class="tool" aria-keyshortcuts="?" title="The keys to play without a mouse" onClick=${() => t.openModal({ kind: "keys" })}>Keys ?</button>
        <a id="rules-link" class="tool" href=${cfg.rules_url} target="_blank" rel="noopener" title="How to play">Rules</a>
        <button type="button" id="btn-mute" class="tool icon" aria-pressed=${s.muted} title=${s.muted ? "Sound is off: turn it on" : "Sound is on: mute"}
          onClick=${() => t.toggleMute()}>${s.muted ? "♪ off" : "♪ on"}</button>
        ${typeof Notification !== "undefined" && Notification.permission !== "denied" ? html`<button type="button" id="btn-notify" class="tool icon" aria-pressed=${s.notify}
          title=${s.notify ? "Turn notifications on" : "Notify me when it is my turn"} onClick=${() => t.toggleNotify()}>${s.notify ? "Alerts on" : "Alerts"}</button>` : null}
        <span id="conn" class=${"conn conn-" + s.conn} title=${CONN_WORDS[s.conn]} role="img" aria-label=${CONN_WORDS[s.conn]}>●</span>
      </div>
    </header>
    <div id="behind-modal" class="behind-modal" inert=${behind}>
    <${Notices} s=${s} t=${t} />
    <${ConnBanner} s=${s} />
    <section id="felt" class="felt" aria-label="The table" tabindex="-1">
      ${waiting ? null : html`<${Seats} s=${s} />`}
      ${waiting ? null : html`<${Center} s=${s} t=${t} />`}
      ${snap && waiting ? html`<${Waiting} s=${s} t=${t} joinSeed=${joinSeed} />` : null}
      ${!snap ? html`<p class="status-line loading">Connecting…</p>` : null}
    </section>
    ${hasHand ? html`<${Hand} s=${s} t=${t} me=${html`<${MeBar} s=${s} t=${t} />`} summary=${html`<${HandSummary} s=${s} t=${t} />`} />` : null}
    ${!waiting && v && v.seat == null ? html`<p class="spectating">You are watching this table.</p>` : null}
    ${!waiting && !hasHand && v && v.seat != null ? html`<div id="me-out" class="me-out"><${MeBar} s=${s} t=${t} /></div>` : null}
    <${Actions} s=${s} t=${t} />
    </div>
    <${ModalView} s=${s} t=${t} />
    <div id="toasts" class=${"toasts" + (s.modal ? " under-modal" : "")} aria-live="assertive">${s.toasts.map((x) => html`<div key=${x.id} class=${"toast " + x.kind} role=${x.kind === "info" ? undefined : "alert"}>${x.text}</div>`)}</div>
  </div>`;
}

/**
 * The lines of the one polite live region, `#announcer`, which the page's HTML holds from its first
 * byte: a region is heard only for what is added to it after it is on the page, so the first state
 * (with the page) is drawn in one render and its "Your turn." is still heard.
 * @param {{s: TableState}} props
 */
export function Said({ s }) {
  return s.said.map((x) => html`<p key=${x.id}>${x.text}</p>`);
}
