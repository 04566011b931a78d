// @ts-check
// The controller the views are handed (lichess' `ctrl`): what the state says, asked as
// questions, and everything a player can do, as calls. A view reads `s` (the state) and calls `t`;
// it never touches the socket nor changes the state itself.
import { setMuted } from "../sounds.js";
import { setQuickMuted } from "./quick.js";
import { money } from "./config.js";
import { tableCountdown } from "./clocks.js";
import * as st from "./state.js";

/** @typedef {import("./state.js").TableState} TableState */
/** @typedef {import("./state.js").Modal} Modal */
/** @typedef {import("./config.js").TableConfig} TableConfig */
/** @typedef {import("./ui.js").Ui} Ui */
/** @typedef {import("./moves.js").Moves} Moves */
/** @typedef {import("./verdicts.js").Verdicts} Verdicts */
/** @typedef {import("../wire.js").ActionType} ActionType */
/**
 * Where a dragged card was let go (hand.js): on the open pile, in the finish slot, or in the hand.
 * @typedef {{kind: "discard" | "finish", code: string, fg: number, fi: number}
 *   | {kind: "move", fg: number, fi: number, tg: number, ti: number}} Drop
 */

/**
 * @param {{S: TableState, cfg: TableConfig, ui: Ui, moves: Moves, verdicts: Verdicts}} deps
 */
export function createCtrl({ S, cfg, ui, moves, verdicts }) {
  const { paint } = ui;
  return {
    cfg,
    ...moves,
    verdictFor: verdicts.verdictFor,
    toast: ui.toast,
    paint,

    // ---------------------------------------------------------------- questions
    /** @param {number | null | undefined} paise */
    money: (paise) => money(cfg, paise),
    /** @param {ActionType} name */
    legal: (name) => st.legal(S, name),
    /** @param {number | null} seat */
    nameOf: (seat) => st.nameOf(S, seat),
    me: () => st.me(S),
    myTurn: () => st.myTurn(S),
    canDraw: () => st.canDraw(S),
    canDiscard: () => st.canDiscard(S),
    canFinish: () => st.canFinish(S),
    selectedCode: () => st.selectedCode(S),
    cursor: () => st.cursorOf(S),
    handGroups: () => st.handGroups(S),
    tableCountdown: () => tableCountdown(S),
    /** @param {number} dealNo @param {number} seat @param {Partial<import("../wire.js").PlayerView>} pl */
    scoreAfterDeal: (dealNo, seat, pl) => st.scoreAfterDeal(S, dealNo, seat, pl),

    // ---------------------------------------------------------------- the page's own changes
    /** @param {Modal} m */
    openModal(m) { S.modal = m; paint(); },
    closeModal() { S.modal = null; paint(); },
    /** Select or unselect a card of the hand. @param {Event} _e @param {number} g @param {number} i */
    clickCard(_e, g, i) {
      if (S.dragging) return;
      S.cursor = { g, i };
      const k = g + ":" + i;
      S.selected = S.selected.includes(k) ? S.selected.filter((x) => x !== k) : S.selected.concat([k]);
      paint();
    },
    /** The "+ new group" control tapped: the selected cards into a group of their own. */
    newGroup() {
      if (!st.legal(S, "arrange")) { ui.toast("You cannot arrange your cards now", "info"); return; }
      if (!S.selected.length) { ui.toast("Select the cards for the new group first", "info"); return; }
      moves.groupSelected();
    },
    dragStart() { S.dragging = true; document.body.classList.add("is-dragging"); },
    /** @param {Drop | null} drop */
    dragEnd(drop) {
      S.dragging = false;
      document.body.classList.remove("is-dragging");
      if (drop) {
        if (drop.kind === "discard") moves.discard(drop.code);
        else if (drop.kind === "finish") moves.startFinish(drop.code, { g: drop.fg, i: drop.fi });
        else if (drop.kind === "move") moves.moveCard(drop.fg, drop.fi, drop.tg, drop.ti);
      }
      setTimeout(paint, 0);
    },
    /** @param {number} id */
    dismissNotice(id) {
      st.dismissNotice(S, id);
      paint();
      const next = /** @type {HTMLElement | null} */ (document.querySelector("#notices .notice-close"));
      if (next) next.focus();
    },
    toggleMute() { S.muted = !S.muted; setMuted(S.muted); paint(); },
    toggleQuickMute() {
      S.quickMuted = !S.quickMuted;
      if (S.quickMuted) S.quick = {};
      setQuickMuted(S.quickMuted);
      paint();
    },
    toggleNotify() {
      if (S.notify) { S.notify = false; paint(); return; }
      Notification.requestPermission().then((p) => { S.notify = p === "granted"; paint(); }).catch(() => {});
    },
  };
}

/** @typedef {ReturnType<typeof createCtrl>} TableCtrl */
