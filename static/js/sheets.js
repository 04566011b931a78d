// @ts-check
// Sheets over the table: the result of a deal, the scoreboard of the game, the
// declaration check, confirmations. Every player-supplied string is a text node.
import { html, useLayoutEffect, useRef } from "../vendor/htm-preact/standalone.module.js";
import { Card, CardRow, hasWildRank } from "./cards.js";
import { KIND_LABEL } from "./hand.js";
import { outcomeWords } from "./outcomes.js";

/** @typedef {import("./wire.js").Groups} Groups */
/** @typedef {import("./wire.js").Verdict} Verdict */
/** @typedef {import("./wire.js").View} View */
/** @typedef {import("./table/state.js").TableState} TableState */
/** @typedef {import("./table/ctrl.js").TableCtrl} TableCtrl */
/** @typedef {{s: TableState, t: TableCtrl}} SheetProps */
/**
 * A button of a sheet.
 * @typedef {{text: string, cls?: string, id: string, fn?: () => void, disabled?: boolean, autofocus?: boolean}} SheetButton
 */

const FOCUSABLE = "a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex='-1'])";

/** What last had focus outside a dialog: opening one makes the page behind it inert, which may
 * take the focus off that element before the dialog's effect runs. @type {Element | null} */
let lastOutside = null;
if (typeof document !== "undefined") {
  document.addEventListener("focusin", (e) => {
    const el = /** @type {Element | null} */ (e.target);
    if (el && el.closest && !el.closest("#modal")) lastOutside = el;
  });
}

/**
 * Give focus back to what had it before a dialog opened; when that is gone or cannot take focus
 * now (a button disabled since), to the hand, else to the table's first tool.
 * @param {Element | null} back
 */
function giveFocusBack(back) {
  const el = /** @type {HTMLElement | null} */ (back);
  if (document.getElementById("modal")) return; // another dialog opened meanwhile: it has focus
  if (el && el.isConnected && el !== document.body) {
    el.focus();
    if (document.activeElement === el) return;
  }
  // the hand first (a selector list would take the header's tool, first in the page)
  const next = document.getElementById("groups") || document.getElementById("btn-keys");
  if (next) next.focus();
}

/**
 * Tab and Shift+Tab stay inside the dialog, from its last control to its first and back.
 * @param {KeyboardEvent} e @param {HTMLElement | null} box
 */
function trapTab(e, box) {
  if (e.key !== "Tab" || !box) return;
  const items = /** @type {HTMLElement[]} */ (Array.from(box.querySelectorAll(FOCUSABLE))).filter((x) => x.getClientRects().length);
  if (!items.length) { e.preventDefault(); box.focus(); return; }
  const first = items[0], last = items[items.length - 1];
  const at = document.activeElement;
  if (e.shiftKey && (at === first || at === box || !box.contains(at))) { e.preventDefault(); last.focus(); }
  else if (!e.shiftKey && (at === last || !box.contains(at))) { e.preventDefault(); first.focus(); }
}

export { REASON_LABEL, STATUS_LABEL } from "./outcomes.js";

/**
 * A dialog; `describedBy`: the id of what a screen reader reads with its title as it opens (a verdict).
 * @param {{kind: string, title: string, onClose?: () => void, buttons?: SheetButton[], children?: unknown, wide?: boolean, describedBy?: string}} props
 */
export function Modal({ kind, title, onClose, buttons, children, wide, describedBy }) {
  /** @type {{current: HTMLElement | null}} */
  const box = useRef(null);
  // on opening: focus into the dialog (its safe button, else the dialog itself, which reads its
  // title); on closing: focus back where it was. A layout effect: it runs as the dialog is put in the
  // page, so a key pressed the moment the dialog shows already lands inside it (an effect runs a
  // frame later, and a quick Tab went to the page behind)
  useLayoutEffect(() => {
    const active = document.activeElement;
    const back = active && active !== document.body && !active.closest("#modal") ? active : lastOutside;
    const el = box.current;
    if (el) {
      const first = /** @type {HTMLElement | null} */ (el.querySelector("[data-autofocus]"));
      (first || el).focus();
    }
    return () => { setTimeout(() => giveFocusBack(back), 0); };
  }, []);
  return html`<div id="modal" class="modal" data-kind=${kind} onClick=${(/** @type {Event} */ e) => { if (/** @type {Element} */ (e.target).id === "modal" && onClose) onClose(); }}
      onKeyDown=${(/** @type {KeyboardEvent} */ e) => trapTab(e, box.current)}>
    <div class=${"modal-box" + (wide ? " wide" : "")} role="dialog" aria-modal="true" aria-labelledby="modal-title" aria-describedby=${describedBy} tabindex="-1" ref=${box}>
      ${onClose ? html`<button type="button" class="modal-x" id="modal-x" aria-label="Close" onClick=${onClose}>×</button>` : null}
      <h2 id="modal-title">${title}</h2>
      <div id="modal-body">${children}</div>
      <div id="modal-actions" class="modal-actions">
        ${(buttons || []).map((b) => html`<button type="button" class=${"act " + (b.cls || "")} id=${b.id} key=${b.id || b.text}
          disabled=${b.disabled} data-autofocus=${b.autofocus ? "" : undefined} onClick=${b.fn}>${b.text}</button>`)}
      </div>
    </div>
  </div>`;
}

/**
 * Groups with the engine's verdict under each (verdict may be null while it loads).
 * @param {{groups: Groups, verdict: Verdict | null, wildRank: number | null}} props
 */
export function SheetGroups({ groups, verdict, wildRank }) {
  return html`<div class="sheet-groups">${groups.map((g, k) => {
    const r = verdict && verdict.groups[k];
    return html`<div class=${"sheet-group" + (r ? " kind-" + r.kind : "")} key=${k}>
      <${CardRow} cards=${g} wildRank=${wildRank} />
      ${r ? html`<div class=${"group-label kind-" + r.kind}>${KIND_LABEL[r.kind]}${r.kind === "invalid" ? " · " + r.points : ""}<span class="sr-only">.</span></div>` : null}
    </div>`;
  })}</div>`;
}

/**
 * Why a row's points are fewer than its groups hold, from the server's numbers alone: a wrong show
 * costs its fixed points, a loser's count is capped at the table's full count (docs/rules.md §5.4).
 * @param {{points: number, status: string, deal_show?: boolean}} p @param {Verdict | null} vd
 */
function pointsNote(p, vd) {
  if (!vd || p.deal_show || !(vd.points > p.points)) return null;
  const why = p.status === "wrong_show" ? "a wrong show costs " + p.points + ", whatever the groups hold"
    : vd.points + " in the groups, capped at the table's full count";
  return html`<div class="pnote">${why}</div>`;
}

/**
 * Why this player, out of the game, was offered no rejoin: the view's own numbers against the
 * table's rules (docs/rules.md §7.3, §7.4, §7.10), or null when they are not out or may rejoin.
 * @param {View} v @param {boolean} over the game is over
 */
export function whyNoRejoin(v, over) {
  const me = v.seat != null ? v.players[v.seat] : null;
  if (over || !me || !me.eliminated || me.left || v.rules.kind !== "pool") return null;
  if (v.rejoin_offer && v.rejoin_offer.seats.includes(/** @type {number} */ (v.seat))) return null;
  const out = "You are out: your score, " + me.score + ", reached the pool limit of " + v.pool_limit + ". ";
  const rules = v.rules;
  if (rules.rejoin_max_fee != null && rules.entry_fee >= rules.rejoin_max_fee) return out + "This table offers no rejoin at its entry fee (rules §7.10).";
  const live = v.players.filter((p) => !p.eliminated && !p.left).map((p) => p.score);
  const top = live.length ? Math.max(...live) : 0;
  if (top > rules.rejoin_threshold) {
    return out + "No rejoin: the highest score still in the game, " + top + ", is above " + rules.rejoin_threshold + ", the most at which a rejoin is offered (rules §7.4).";
  }
  return out + "The rejoin offer has closed (rules §7.6).";
}

/** The result of the last deal, offers (rejoin, split) and the end of the game. @param {SheetProps} props */
export function ResultSheet({ s, t }) {
  const v = /** @type {View} */ (s.view);
  const r = v.last_result;
  const res = v.result || (s.snap && s.snap.game && s.snap.game.result);
  // a table without an entry fee is played for practice: no "Prize pool ₹0.00"
  const free = !!(s.snap && s.snap.table && s.snap.table.entry_fee === 0);
  /** @type {SheetButton[]} */
  const buttons = [];
  /** @type {unknown[]} */
  const parts = [];
  if (r) {
    parts.push(html`<div class="sheet-meta">
      <span>Cut joker</span> ${r.cut_joker ? html`<${Card} code=${r.cut_joker} small />` : null}
      ${r.finish_card ? html`<span>Finish card</span> <${Card} code=${r.finish_card} small />` : null}
      ${free ? html`<span class="sheet-pool" id="sheet-free">Free table: practice, no prize</span>`
        : v.prize_pool != null ? html`<span class="sheet-pool">Prize pool ${t.money(v.prize_pool)}</span>` : null}
    </div>`);
    parts.push(html`<table class="sheet" id="result-table">
      <thead><tr><th>Player</th><th>Cards shown</th><th>Points</th><th>Score</th></tr></thead>
      <tbody>${Object.keys(r.players).map((seat) => {
        const p = r.players[seat];
        const pl = v.players[+seat] || {};
        const won = String(r.winner) === seat;
        const score = t.scoreAfterDeal(r.deal_no, +seat, pl);
        const vd = p.groups && p.groups.length ? t.verdictFor(p.groups, r.wild_rank) : null;
        return html`<tr class=${won ? "winner" : ""} data-seat=${seat} key=${seat}>
          <td class="pname">${won ? html`<span aria-hidden="true">★ </span>` : ""}${pl.name || "Seat " + seat}
            <div class="pstatus">${outcomeWords(p)}${p.deal_show ? " · deal show (half)" : ""}</div>${pointsNote(p, vd)}</td>
          <td class="pgroups">${p.groups && p.groups.length
            ? html`<${SheetGroups} groups=${p.groups} verdict=${vd} wildRank=${r.wild_rank} />`
            : html`<span class="muted">—</span>`}</td>
          <td class="ppoints">${p.points}</td>
          <td class="pscore">${score.value}${score.out ? html` <span class="out-tag">out</span>` : null}</td>
        </tr>`;
      })}</tbody></table>`);
  }
  if (v.rejoin_offer) {
    const ro = v.rejoin_offer;
    const mine = v.seat != null && ro.seats.includes(v.seat);
    parts.push(html`<div class="offer" id="rejoin-offer"><strong>Rejoin</strong>: ${mine ? "you may rejoin" : ro.seats.map((x) => t.nameOf(x)).join(", ") + " may rejoin"}
      ${" for " + t.money(ro.fee) + ", starting at "}<strong>${ro.score}</strong> points.</div>`);
    if (mine && t.legal("rejoin")) buttons.push({ text: "Rejoin · " + t.money(ro.fee), cls: "gold", id: "btn-rejoin", fn: () => t.act({ type: "rejoin" }) });
  }
  const noRejoin = whyNoRejoin(v, !!res);
  if (r && noRejoin) parts.push(html`<div class="offer" id="no-rejoin">${noRejoin}</div>`);
  if (v.split_offer) {
    const so = v.split_offer;
    parts.push(html`<div class="offer" id="split-offer"><strong>Split the prize?</strong>
      <ul>${Object.keys(so.amounts).map((seat) => html`<li key=${seat}>${t.nameOf(+seat)}: <strong>${t.money(so.amounts[seat])}</strong>
        ${so.accepted.includes(+seat) ? html` <span class="ok">accepted</span>` : null}</li>`)}</ul>Everyone must accept.</div>`);
    if (t.legal("split_accept")) {
      buttons.push({ text: "Accept split", cls: "gold", id: "btn-split-accept", fn: () => t.act({ type: "split_accept" }) });
      buttons.push({ text: "Decline", cls: "ghost-btn", id: "btn-split-decline", fn: () => t.act({ type: "split_decline" }) });
    }
  }
  if (res) {
    // a cancelled game's result (staff's) names no winner and no split
    const won = "winner" in res ? res.winner : null;
    const split = "split" in res ? res.split : null;
    const winner = won != null ? v.players.find((p) => p.id === String(won)) : null;
    // who was paid: a split pays the players left (even a share of ₹0, §8.3); eliminated players are not listed
    const left = (/** @type {string} */ pid) => { const p = v.players.find((x) => x.id === pid); return p ? !p.eliminated : res.payouts[pid] > 0; };
    const paid = Object.keys(res.payouts || {}).filter((pid) => !split || left(pid));
    parts.push(html`<div class="final" id="final-result">
      <h3>${split ? "The prize was split" : winner ? html`<span aria-hidden="true">★ </span>${winner.name + " wins the pool!"}` : "Game over"}</h3>
      <p>${free ? "A free table: played for practice, no prize." : "Prize pool " + t.money(res.prize_pool) + (res.rake ? " · platform fee " + t.money(res.rake) : "")}</p>
      <ul>${paid.map((pid) => {
        const p = v.players.find((x) => x.id === pid);
        return html`<li key=${pid}>${p ? p.name : "Player " + pid}: <strong>${t.money(res.payouts[pid])}</strong></li>`;
      })}</ul>
      ${s.snap && s.snap.game && t.cfg.history_url ? html`<p><a id="final-game-link" href=${t.cfg.history_url + "games/" + s.snap.game.id + "/"}>Every deal of this game, with replays</a></p>` : null}</div>`);
    buttons.push({ text: "Scoreboard", cls: "ghost-btn", id: "btn-sheet-scores", fn: () => t.openModal({ kind: "scores" }) });
    // a new game at this table, from this page: the page stays open and the new game starts under it
    // and for a player who comes back to the table by its address once the game is over (their
    // seat given up with the game's end): a seat in the table's next game, if the server says they
    // may take one (anyone at a public table; its owner alone at a private practice table)
    const table = s.snap && s.snap.table;
    if (v.seat != null || (s.snap && s.snap.you.may_join)) {
      const fee = table && table.entry_fee === 0 ? "free" : t.cfg.entry_fee_display; // practice, as the lobby says
      buttons.push({ text: (v.seat != null ? "Play again · " : "Join the next game · ") + fee, cls: "gold", id: "btn-play-again", fn: () => t.playAgain() });
    }
    buttons.push({ text: "Back to lobby", cls: "primary", id: "btn-lobby", fn: () => { location.href = t.cfg.lobby_url; } });
  } else {
    parts.push(html`<p class="countdown" id="sheet-countdown">${t.tableCountdown()}</p>`);
    buttons.push({ text: "Close", cls: "ghost-btn", id: "btn-sheet-close", fn: () => t.closeModal() });
  }
  return html`<${Modal} kind="result" wide title=${r ? "Deal " + r.deal_no + " result" : "Result"} buttons=${buttons} onClose=${() => t.closeModal()}>${parts}<//>`;
}

/** Every deal's points and the running totals of the game so far. @param {SheetProps} props */
export function Scoreboard({ s, t }) {
  const v = s.view;
  const players = (v && v.players) || [];
  const rows = s.scores || [];
  return html`<${Modal} kind="scores" wide title="Scoreboard" onClose=${() => t.closeModal()}
      buttons=${[{ text: "Close", cls: "ghost-btn", id: "btn-scores-close", fn: () => t.closeModal() }]}>
    ${rows.length ? html`<div class="scroll-x"><table class="sheet scoreboard" id="scoreboard">
      <thead><tr><th>Deal</th>${players.map((p) => html`<th key=${p.seat}>${p.name}</th>`)}</tr></thead>
      <tbody>${rows.map((row) => html`<tr key=${row.deal_no} data-deal=${row.deal_no}><td>${row.deal_no}</td>
        ${players.map((p) => {
          const pts = row.points[String(p.seat)];
          const tot = row.scores[String(p.seat)];
          return html`<td key=${p.seat}>${pts == null ? "—" : pts}<small class="running">${tot == null ? "" : " · " + tot}</small></td>`;
        })}</tr>`)}</tbody>
      <tfoot><tr><th>Total</th>${players.map((p) => html`<th key=${p.seat}>${p.score}${p.eliminated ? " (out)" : ""}</th>`)}</tr></tfoot>
    </table></div>
    <p class="muted">Points of each deal · running total. Pool limit ${v ? v.pool_limit : ""}.</p>`
    : html`<p>No deal has finished yet.</p>`}
    ${v ? html`<${FairShuffle} v=${v} />` : null}
  <//>`;
}

/**
 * The shuffle's public side (docs/fairness.md): this deal's commitment, published before
 * its cards were dealt, the player's own seed, and the last finished deal's revealed seed
 * (to its players only: a spectator's view has none, docs/fairness.md).
 * @param {{v: View}} props
 */
export function FairShuffle({ v }) {
  /** @type {Partial<import("./wire.js").FairnessView>} */
  const f = v.fairness || {};
  const mine = v.seat != null ? (f.client_seeds || []).find((c) => c.seat === v.seat) : null;
  const r = v.last_result;
  return html`<section class="fair-shuffle" id="fair-shuffle">
    <h3>Fair shuffle</h3>
    ${f.commitment ? html`<p>Deal ${f.deal_no}: the server's seed was fixed before the deal, as${" "}
      <code class="hash" id="fair-commitment">${f.commitment}</code>${" "}(SHA-256).</p>` : null}
    ${mine ? html`<p>Your seed: <code class="hash" id="fair-my-seed">${mine.seed}</code>
      <span id="fair-my-seed-origin">${mine.generated ? " (made for you: your browser sent none)" : " (from your browser)"}</span></p>` : null}
    ${r && r.server_seed ? html`<p>Deal ${r.deal_no} is over: its server seed is revealed,${" "}
      <code class="hash" id="fair-revealed">${r.server_seed}</code>. Verify that deal from its replay in History.</p>` : null}
    ${r && !r.server_seed ? html`<p id="fair-seats-only">Deal ${r.deal_no} is over: its server seed goes to the
      players of this game, who check the shuffle with it (it would show every hand of that deal).</p>` : null}
  </section>`;
}

/** Declare with these groups? The engine's verdict on them first. @param {SheetProps} props */
export function DeclareDialog({ s, t }) {
  const m = /** @type {{kind: "declare", card: string, groups: Groups}} */ (s.modal);
  const v = /** @type {View} */ (s.view);
  const verdict = t.verdictFor(m.groups, v.wild_rank);
  // the verdict is the dialog's description, read with its title as it opens; one that comes after
  // the dialog opened ("Checking…" first) is an alert, read as it comes
  const atOpen = useRef(verdict);
  const late = !atOpen.current && !!verdict;
  /** @type {SheetButton[]} */
  const buttons = [
    { text: "Cancel", cls: "ghost-btn", id: "declare-cancel", fn: () => t.cancelFinish(), autofocus: true },
    verdict
      ? { text: verdict.valid ? "Declare" : "Declare anyway", cls: verdict.valid ? "gold" : "danger", id: "declare-confirm", fn: () => t.confirmFinish() }
      : { text: "Checking…", id: "declare-confirm", disabled: true },
  ];
  return html`<${Modal} kind="declare" wide title="Declare?" buttons=${buttons} onClose=${() => t.cancelFinish()} describedBy="declare-verdict">
    <div class="sheet-meta"><span>Finish card</span> <${Card} code=${m.card} small wild=${hasWildRank(m.card, v.wild_rank)} /></div>
    <${SheetGroups} groups=${m.groups} verdict=${verdict} wildRank=${v.wild_rank} />
    ${verdict == null ? html`<p class="muted" id="declare-verdict">Checking your groups…</p>`
      : verdict.valid ? html`<p class="ok big-ok" id="declare-verdict" role=${late ? "alert" : undefined}>Valid declaration<span aria-hidden="true"> ✓</span> — you win this deal with 0 points.</p>`
      : html`<p class="warn-text" id="declare-verdict" role=${late ? "alert" : undefined}>These groups are <strong>not</strong> a valid show: a wrong show costs ${v.rules.wrong_show} points.</p>`}
  <//>`;
}

/** Every card discarded this deal. @param {SheetProps} props */
export function OpenCards({ s, t }) {
  const pile = (s.view && s.view.open_pile) || [];
  const wild = s.view ? s.view.wild_rank : null;
  return html`<${Modal} kind="open-cards" title=${"Open cards (" + pile.length + ")"} onClose=${() => t.closeModal()}
      buttons=${[{ text: "Close", cls: "ghost-btn", id: "btn-open-close", fn: () => t.closeModal() }]}>
    ${pile.length ? html`<p class="muted">Oldest first; the last card is on top.</p>
      <div class="cards-row wrap">${pile.map((c, i) => html`<${Card} key=${c + i} code=${c} small wild=${hasWildRank(c, wild)} />`)}</div>`
      : html`<p>No open cards yet.</p>`}
  <//>`;
}

/**
 * Are you sure? `yes` does it, `no` closes.
 * @param {{kind: string, title: string, text: string, yes: string, no: string, onYes: () => void, t: TableCtrl}} props
 */
export function Confirm({ kind, title, text, yes, no, onYes, t }) {
  return html`<${Modal} kind=${kind} title=${title} onClose=${() => t.closeModal()}
      buttons=${[{ text: no, cls: "ghost-btn", id: kind + "-cancel", fn: () => t.closeModal(), autofocus: true },
                 { text: yes, cls: "danger", id: kind + "-confirm", fn: onYes }]}>
    <p>${text}</p>
  <//>`;
}

/**
 * The keys of the table (issue 25), from `keys`: [key, what it does].
 * @param {{t: TableCtrl, keys: string[][]}} props
 */
export function KeysSheet({ t, keys }) {
  return html`<${Modal} kind="keys" title="Keys" onClose=${() => t.closeModal()}
      buttons=${[{ text: "Close", cls: "ghost-btn", id: "btn-keys-close", fn: () => t.closeModal(), autofocus: true }]}>
    <p>Play with the keyboard alone: every move has a key. What happens at the table is said through a screen reader.</p>
    <table class="sheet keys-sheet" id="keys-sheet"><thead><tr><th scope="col">Key</th><th scope="col">What it does</th></tr></thead>
      <tbody>${keys.map(([k, what]) => html`<tr key=${k}><th scope="row"><kbd>${k}</kbd></th><td>${what}</td></tr>`)}</tbody></table>
  <//>`;
}
