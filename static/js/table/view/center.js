// @ts-check
// The middle of the felt: the cut joker, the closed deck, the open pile and the finish slot (each
// a place to tap or drop a card on), the status line, the ticker, and the groups shown in a
// declaration.
import { html } from "../../../vendor/htm-preact/standalone.module.js";
import { Card, CardBack, CardRow, hasWildRank } from "../../cards.js";
import { posOf } from "../state.js";
import { spokenCard } from "../speech.js";
import { statusText } from "../status.js";

/**
 * Enter and Space on a role=button place act as its click (issue 25: the piles were click-only).
 * @param {() => void} act @returns {(e: KeyboardEvent) => void}
 */
const pressed = (act) => (e) => {
  if (e.key !== "Enter" && e.key !== " ") return;
  e.preventDefault();
  e.stopPropagation();
  act();
};

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
  // a pile's name is its own text (a hidden phrase, "Open pile: seven of hearts"), not an aria-label
  // that would differ from the card drawn in it (WCAG 2.5.3, label in name); the card is hidden from
  // assistive tech, which hears the phrase
  const hidden = { "aria-hidden": "true" };
  const drawClosed = () => { if (s.view && s.view.hand) t.drawFrom("closed"); };
  const tapOpen = () => {
    if (!s.view || !s.view.hand) return;
    if (t.canDiscard()) { const c = t.selectedCode(); if (c) t.discard(c); else t.toast("Select the card to discard first", "info"); return; }
    t.drawFrom("open");
  };
  const tapFinish = () => {
    const c = t.selectedCode();
    if (c && t.canFinish()) t.startFinish(c, posOf(s.selected[0]));
    else if (s.view && s.view.hand) t.toast(t.canFinish() ? "Select the card to put in the finish slot first" : "You can finish only on your turn, after drawing", "info");
  };
  const top = inDeal && v?.open_top ? v.open_top : null;
  const openLabel = "Open pile: " + (top ? spokenCard(top, wild) : "empty") + (t.canDiscard() ? ". Discard the selected card here" : drawOk && v?.can_pick_open ? ". Take it" : "");
  return html`<div class="felt-center">
    <div class="pile-row">
      <figure class="pile" id="cut-joker-box" title="The cut joker: every card of this rank is a joker">
        <div id="cut-joker" class="slot" role="img" aria-label=${v && v.cut_joker ? "Cut joker: " + spokenCard(v.cut_joker) : "Cut joker: none yet"}>${v && v.cut_joker ? html`<${Card} code=${v.cut_joker} />` : null}</div>
        <figcaption>Joker</figcaption>
      </figure>
      <figure class="pile" title="Closed deck: tap to draw">
        <div id="closed-deck" class=${"slot deck" + (drawOk ? " can" : "")} data-testid="closed-deck" role="button" tabindex="0"
          aria-label=${"Draw from the deck" + (inDeal ? ", " + v?.closed_count + " cards" : "")} aria-keyshortcuts="D"
          onClick=${drawClosed} onKeyDown=${pressed(drawClosed)}>
          ${inDeal && v?.closed_count ? html`<${CardBack} cls="deck-card" />` : null}</div>
        <figcaption>Deck <span id="closed-count">${inDeal ? "(" + v?.closed_count + ")" : ""}</span></figcaption>
      </figure>
      <figure class="pile" title="Open pile: tap to draw the top card; tap with a selected card, or drop a card here, to discard">
        <div id="open-pile" data-testid="open-pile" role="button" tabindex="0" aria-keyshortcuts="O"
          class=${"slot open-pile" + (drawOk && v?.can_pick_open ? " can" : "") + (inDeal && t.canDiscard() ? " target" : "") + (openBlocked ? " blocked" : "")}
          onClick=${tapOpen} onKeyDown=${pressed(tapOpen)}>
          <span class="sr-only">${openLabel}</span>
          ${inDeal && pile.length > 1 ? html`<${Card} key=${"u" + pile.length} code=${pile[pile.length - 2]} cls="under" wild=${hasWildRank(pile[pile.length - 2], wild)} attrs=${hidden} />` : null}
          ${top ? html`<${Card} key=${"t" + pile.length} code=${top} cls="top" wild=${hasWildRank(top, wild)} attrs=${hidden} />` : null}
        </div>
        <figcaption>Open</figcaption>
      </figure>
      <figure class="pile" title="Finish slot: put your 14th card here to declare">
        <div id="finish-slot" data-testid="finish-slot" role="button" tabindex="0" aria-keyshortcuts="F"
          class=${"slot finish-slot" + (inDeal && t.canFinish() ? " target" : "")}
          onClick=${tapFinish} onKeyDown=${pressed(tapFinish)}>
          ${s.finishCard ? html`<span class="sr-only">Finish slot: ${spokenCard(s.finishCard, wild)}</span><${Card} code=${s.finishCard} attrs=${hidden} />`
            : html`<span class="sr-only">Finish slot: put the selected card here to declare</span><span class="slot-hint" aria-hidden="true">Finish</span>`}</div>
        <figcaption>Finish</figcaption>
      </figure>
    </div>
    <p id="status-line" class="status-line">${statusText(s)}${countdown ? html` · <span id="status-countdown">${countdown}</span>` : null}</p>
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
    <span class="shown-groups">${v.shown[seat].map((g, k) => html`<${CardRow} key=${k} cards=${g} wildRank=${v.wild_rank} tiny cls="mini-group" />`)}</span>
  </div>`)}</section>`;
}
