// @ts-check
// The middle of the felt: the cut joker, the closed deck, the open pile and the finish slot (each
// a place to tap or drop a card on), the status line, the ticker, and the groups shown in a
// declaration.
import { html } from "../../../vendor/htm-preact/standalone.module.js";
import { Card, CardBack, cardLongName, hasWildRank } from "../../cards.js";
import { posOf } from "../state.js";
import { statusText } from "../status.js";

/** @typedef {import("../state.js").TableState} TableState */
/** @typedef {import("../ctrl.js").TableCtrl} TableCtrl */

/** @param {{s: TableState, t: TableCtrl}} props */
export function Center({ s, t }) {
  const v = s.view;
  const inDeal = !!(v && (v.phase === "playing" || v.phase === "declaring"));
  const pile = (v && v.open_pile) || [];
  const drawOk = inDeal && t.canDraw();
  const openBlocked = drawOk && !v?.can_pick_open;
  const wild = v ? v.wild_rank : null;
  const countdown = t.tableCountdown();
  // a pile's name is its own text (a hidden phrase, "Open pile: Seven of hearts"), not an aria-label
  // that would differ from the card drawn in it (WCAG 2.5.3, label in name); the card is hidden from
  // assistive tech, which hears the phrase
  const hidden = { "aria-hidden": "true" };
  const openTop = inDeal && v?.open_top ? v.open_top : null;
  return html`<div class="felt-center">
    <div class="pile-row">
      <figure class="pile" id="cut-joker-box" title="The cut joker: every card of this rank is a joker">
        <div id="cut-joker" class="slot">${v && v.cut_joker ? html`<${Card} code=${v.cut_joker} />` : null}</div>
        <figcaption>Joker</figcaption>
      </figure>
      <figure class="pile" title="Closed deck: tap to draw">
        <div id="closed-deck" class=${"slot deck" + (drawOk ? " can" : "")} data-testid="closed-deck" role="button" tabindex="0" aria-label="Draw from the deck"
          onClick=${() => { if (s.view && s.view.hand) t.drawFrom("closed"); }}>
          ${inDeal && v?.closed_count ? html`<${CardBack} cls="deck-card" />` : null}</div>
        <figcaption>Deck <span id="closed-count">${inDeal ? "(" + v?.closed_count + ")" : ""}</span></figcaption>
      </figure>
      <figure class="pile" title="Open pile: tap to draw the top card; tap with a selected card, or drop a card here, to discard">
        <div id="open-pile" data-testid="open-pile" role="button" tabindex="0"
          class=${"slot open-pile" + (drawOk && v?.can_pick_open ? " can" : "") + (inDeal && t.canDiscard() ? " target" : "") + (openBlocked ? " blocked" : "")}
          onClick=${() => {
            if (!s.view || !s.view.hand) return;
            if (t.canDiscard()) { const c = t.selectedCode(); if (c) t.discard(c); else t.toast("Select the card to discard first", "info"); return; }
            t.drawFrom("open");
          }}>
          <span class="sr-only">${"Open pile" + (openTop ? ": " + cardLongName(openTop) : "")}</span>
          ${inDeal && pile.length > 1 ? html`<${Card} key=${"u" + pile.length} code=${pile[pile.length - 2]} cls="under" wild=${hasWildRank(pile[pile.length - 2], wild)} attrs=${hidden} />` : null}
          ${openTop ? html`<${Card} key=${"t" + pile.length} code=${openTop} cls="top" wild=${hasWildRank(openTop, wild)} attrs=${hidden} />` : null}
        </div>
        <figcaption>Open</figcaption>
      </figure>
      <figure class="pile" title="Finish slot: put your 14th card here to declare">
        <div id="finish-slot" data-testid="finish-slot" role="button" tabindex="0"
          class=${"slot finish-slot" + (inDeal && t.canFinish() ? " target" : "")}
          onClick=${() => { const c = t.selectedCode(); if (c && t.canFinish()) t.startFinish(c, posOf(s.selected[0])); }}>
          ${s.finishCard ? html`<span class="sr-only">Finish slot: ${cardLongName(s.finishCard)}</span><${Card} code=${s.finishCard} attrs=${hidden} />`
            : html`<span class="sr-only">Finish slot</span><span class="slot-hint" aria-hidden="true">Finish</span>`}</div>
        <figcaption>Finish</figcaption>
      </figure>
    </div>
    <p id="status-line" class="status-line" aria-live="polite">${statusText(s)}${countdown ? " · " + countdown : ""}</p>
    <p id="ticker" class="ticker">${s.ticker}</p>
    <${Declared} s=${s} t=${t} />
  </div>`;
}

/** The groups shown so far in a declaration, by player. @param {{s: TableState, t: TableCtrl}} props */
function Declared({ s, t }) {
  const v = s.view;
  if (!v || v.phase !== "declaring" || !v.shown || !Object.keys(v.shown).length) return null;
  return html`<section id="declared" class="declared">${Object.keys(v.shown).map((seat) => html`<div class="shown-row" key=${seat}>
    <span class="shown-name">${t.nameOf(+seat)}${String(v.declarer) === seat ? " declared" : " showed"}</span>
    <span class="shown-groups">${v.shown[seat].map((g, k) => html`<span class="mini-group" key=${k}>${g.map((c, ci) => html`<${Card} key=${c + ci} code=${c} tiny wild=${hasWildRank(c, v.wild_rank)} />`)}</span>`)}</span>
  </div>`)}</section>`;
}
