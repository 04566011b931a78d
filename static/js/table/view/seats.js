// @ts-check
// The players round the felt: name, score, drops left, cards held, and the clock of the one on
// turn (or their time bank). Your own seat box sits over your hand (MeBar).
import { html } from "../../../vendor/htm-preact/standalone.module.js";
import { STATUS_LABEL } from "../../outcomes.js";
import { fmtSecs, timerOf } from "../clocks.js";

/** @typedef {import("../state.js").TableState} TableState */
/** @typedef {import("../ctrl.js").TableCtrl} TableCtrl */
/** @typedef {import("../../wire.js").PlayerView} PlayerView */

/** @param {{s: TableState, p: PlayerView, i: number, mine?: boolean, style?: string}} props */
export function SeatBox({ s, p, i, mine, style }) {
  const v = /** @type {import("../../wire.js").View} */ (s.view);
  const dl = v.deadline;
  const active = (v.deal_phase === "turn" && v.turn === i) || (dl && dl.seat === i);
  const stat = p.left ? "left" : p.eliminated ? "out" : p.status && p.status !== "playing" ? (STATUS_LABEL[p.status] || p.status) : "";
  const tm = timerOf(s, i);
  const said = s.quick[String(i)];
  const pres = s.presence[p.id];
  const away = !!pres && !pres.connected && !p.left;
  const cls = "seat" + (mine ? " me" : "") + (away ? " away" : "") + (p.eliminated ? " out" : "") + (stat && !p.eliminated ? " inactive" : "") + (active ? " turn" : "");
  return html`<div class=${cls} data-seat=${i} style=${style || ""}>
    <div class="avatar" aria-hidden="true">${(p.name || "?").trim().slice(0, 1).toUpperCase()}${v.dealer === i ? html`<span class="dealer" title="Dealer">D</span>` : null}</div>
    <div class="seat-info">
      <div class="seat-name" title=${p.name}>${p.name}${mine ? html` <small>(you)</small>` : null}${v.dealer === i ? html`<span class="sr-only">, dealer</span>` : null}${active ? html`<span class="sr-only">, on turn</span>` : null}<span class="sr-only">.</span></div>
      <div class="seat-score" title="Pool score / limit"><span class="sr-only">Score </span>${p.score}<small><span aria-hidden="true">/</span><span class="sr-only"> of </span>${v.pool_limit}</small><span class="sr-only">;</span>
        <span class="drops" title="Drops remaining">${p.drops_remaining}${p.drops_remaining === 1 ? " drop" : " drops"}</span>
        ${!mine && p.card_count ? html`<span class="sr-only">;</span><span class="ccount" title="Cards in hand">${p.card_count} cards</span>` : null}<span class="sr-only">.</span></div>
      ${stat ? html`<div class="seat-stat">${stat}</div>` : null}
      ${away ? html`<div class="seat-away" title="This player's table is closed: their turns are played by the timer">${awayWords(pres.away_since, p)}</div>` : null}
      ${tm ? html`<div class=${"timer " + tm.level + (tm.kind === "extra" ? " extra" : "")}>
          <div class="timer-bar"><i style=${"width:" + Math.round(tm.frac * 100) + "%"}></i></div>
          <span class="timer-text">${(tm.kind === "extra" ? "extra " : "") + fmtSecs(tm.left)}</span>
          ${tm.kind === "extra" ? null : html`<span class="bank" title="Extra-time bank">bank ${Math.round((p.extra_ms || 0) / 1000)}s</span>`}</div>`
        : html`<div class="bank" title="Extra-time bank">bank ${Math.round((p.extra_ms || 0) / 1000)}s</div>`}
      ${said ? html`<div class="quick-said" key=${said.id}>${said.text}</div>` : null}
    </div>
  </div>`;
}

/**
 * "away 1:05 · auto-play" (a phone held sideways shows "away 1:05", the tag's title says the rest): how long a player has been away, and that the timer plays their turns
 * (a missed turn discards the drawn card; docs/rules.md §6.4) while they are in the deal.
 * @param {number | null} since @param {PlayerView} p
 */
function awayWords(since, p) {
  const auto = p.in_deal && !p.eliminated ? html`<span class="auto-play"> · auto-play</span>` : null;
  return html`${"away" + (since ? " " + fmtSecs(Date.now() - since) : "")}${auto}`;
}

/** The opponents on the far arc of the felt, left to right, clear of the piles in the middle. @param {{s: TableState}} props */
export function Seats({ s }) {
  const v = s.view;
  if (!v || !v.players) return null;
  /** @type {[PlayerView, number][]} */
  const others = v.players.map((p, i) => /** @type {[PlayerView, number]} */ ([p, i])).filter(([, i]) => i !== v.seat);
  const n = v.players.length;
  const start = v.seat != null ? v.seat : 0;
  others.sort((a, b) => ((a[1] - start + n) % n) - ((b[1] - start + n) % n));
  const m = others.length;
  return html`<div id="seats" class=${"seats n" + m}>${others.map(([p, i], j) => {
    const a = Math.PI + (Math.PI * (j + 0.5)) / m;
    const style = "left:" + (50 + 44 * Math.cos(a)).toFixed(1) + "%;top:" + (50 + 50 * Math.sin(a)).toFixed(1) + "%";
    return html`<${SeatBox} key=${i} s=${s} p=${p} i=${i} style=${style} />`;
  })}</div>`;
}

/** Your own seat, over your hand. @param {{s: TableState, t: TableCtrl}} props */
export function MeBar({ s, t }) {
  const mine = t.me();
  return mine && s.view && s.view.seat != null ? html`<${SeatBox} s=${s} p=${mine} i=${s.view.seat} mine />` : null;
}
