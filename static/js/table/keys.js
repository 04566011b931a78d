// @ts-check
// The table's keys. Escape closes the sheet over the table (a declaration is cancelled, its card
// back in the hand) or dismisses the newest notice. Keyboard play (issue 25) belongs here too,
// calling the same moves as clicks and drags.

/** @typedef {import("./state.js").TableState} TableState */
/** @typedef {import("./ctrl.js").TableCtrl} TableCtrl */

/** @param {TableState} S @param {TableCtrl} t */
export function watchKeys(S, t) {
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && S.modal) { if (S.modal.kind === "declare") t.cancelFinish(); else t.closeModal(); }
    else if (e.key === "Escape" && S.notices.length) t.dismissNotice(S.notices[S.notices.length - 1].id);
  });
}
