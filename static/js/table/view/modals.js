// @ts-check
// The sheet or dialog over the table (the state's `modal`): the result sheet, the scoreboard,
// the declaration check, the discards, and the confirmations of a drop, auto drop or leave, each
// stating its cost from the server's numbers.
import { html } from "../../../vendor/htm-preact/standalone.module.js";
import { Confirm, DeclareDialog, KeysSheet, Modal, OpenCards, ResultSheet, Scoreboard } from "../../sheets.js";
import { QuickSheet } from "./quick.js";
import { KEY_HELP } from "../speech.js";

/** @typedef {import("../state.js").TableState} TableState */
/** @typedef {import("../ctrl.js").TableCtrl} TableCtrl */

/**
 * The open dialog, keyed by its kind: another kind is another dialog (it takes focus anew).
 * @param {{s: TableState, t: TableCtrl}} props
 */
export function ModalView({ s, t }) {
  const m = s.modal;
  return m ? html`<${OneModal} key=${m.kind} s=${s} t=${t} />` : null;
}

/** @param {{s: TableState, t: TableCtrl}} props */
function OneModal({ s, t }) {
  const m = s.modal;
  const v = s.view;
  if (!m || !v) return null;
  switch (m.kind) {
    case "result": return v.last_result || v.result ? html`<${ResultSheet} s=${s} t=${t} />` : null;
    case "scores": return html`<${Scoreboard} s=${s} t=${t} />`;
    case "declare": return html`<${DeclareDialog} s=${s} t=${t} />`;
    case "open-cards": return html`<${OpenCards} s=${s} t=${t} />`;
    case "drop": {
      const pts = /** @type {number} */ (v.drop_points);
      const mine = /** @type {import("../../wire.js").PlayerView} */ (t.me());
      return html`<${Confirm} kind="drop" t=${t} title="Drop this deal?" no="Keep playing" yes=${"Drop · " + pts + " pts"}
        text=${"Dropping adds " + pts + " points to your score (" + mine.score + " → " + (mine.score + pts) + " of " + v.pool_limit + ")."}
        onYes=${() => { t.drop(); t.closeModal(); }} />`;
    }
    case "auto-drop": {
      const pts = v.drop_points;
      const mine = /** @type {import("../../wire.js").PlayerView} */ (t.me());
      const now = t.myTurn() && !v.has_drawn;
      const text = (now ? "It is your turn: you drop now" : "You drop at your next turn") +
        (pts != null ? ", which costs " + pts + " points now (" + mine.score + " → " + (mine.score + pts) + " of " + v.pool_limit + ")." : ".") +
        " Later deals drop at your first turn until you press “I'm back”.";
      return html`<${Confirm} kind="auto-drop" t=${t} title="Turn on auto drop?" no="Cancel" yes=${pts != null ? "Auto drop · " + pts + " pts" : "Auto drop"}
        text=${text} onYes=${() => { t.autoDrop(); t.closeModal(); }} />`;
    }
    case "keys": return html`<${KeysSheet} t=${t} keys=${KEY_HELP} />`;
    case "leave": {
      // leave, or Drop & go: leave and be offered a seat at a table about to start like this one
      const fee = t.cfg.entry_fee_display;
      const cost = s.snap && s.snap.table.entry_fee
        ? "Your entry fee of " + fee + " stays in the prize pool: no refund once the game has started."
        : "It is a free game: nothing is lost.";
      return html`<${Modal} kind="leave" title="Leave the game?" onClose=${() => t.closeModal()}
          buttons=${[{ text: "Stay", cls: "ghost-btn", id: "leave-cancel", fn: () => t.closeModal() },
                     { text: "Leave and forfeit", cls: "danger", id: "leave-confirm", fn: () => { t.leave(); t.closeModal(); } },
                     { text: "Drop & go", cls: "danger", id: "drop-go-confirm", fn: () => t.dropAndGo() }]}>
        <p>You drop out of this deal and forfeit this pool game at once. ${cost}</p>
        <p>Drop & go then offers you a seat at a table about to start with the same format and entry.</p>
      <//>`;
    }
    case "quick": return html`<${QuickSheet} s=${s} t=${t} />`;
    case "next-seat": {
      const row = m.table;
      if (!row) {
        return html`<${Confirm} kind="next-seat" t=${t} title="You left the game" no="Close" yes="Go to the lobby"
          text="No table with the same format and entry is about to start; the lobby lists every table."
          onYes=${() => { location.href = t.cfg.lobby_url; }} />`;
      }
      return html`<${Confirm} kind="next-seat" t=${t} title="You left the game" no="Close" yes=${"Take a seat · " + row.entry_fee_display}
        text=${"A seat at " + row.name + " (" + row.format_label + ", entry " + row.entry_fee_display + ", " + row.seats_taken + " of " + row.seats + " seats taken) is free: the game starts when the table fills."}
        onYes=${() => t.takeSeatAt(row.id)} />`;
    }
    default: return null;
  }
}
