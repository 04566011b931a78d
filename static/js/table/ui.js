// @ts-check
// Painting: the whole page drawn again from the state after every change, except under a finger
// (a drag in progress keeps its DOM; the paint waits for the release). And what fades by itself:
// toasts, a card's short flash, the deal's animation.

/** @typedef {import("./state.js").TableState} TableState */
/** @typedef {import("./state.js").ToastKind} ToastKind */

/**
 * @param {TableState} S
 * @param {() => void} draw renders the page from the state
 */
export function createUi(S, draw) {
  let ready = false;

  function paint() {
    if (!ready) return;
    if (S.dragging || S.pointerDown) { S.dirty = true; return; } // never re-render under a finger
    S.dirty = false;
    draw();
  }

  return {
    paint,
    /** Paint from now on (before, the server-rendered placeholder stays). */
    start() { ready = true; paint(); },
    /** A short message over the table, gone after 4.5 s. @param {string} text @param {ToastKind} [kind] */
    toast(text, kind = "error") {
      const id = Math.random();
      S.toasts = S.toasts.concat([{ id, text, kind }]);
      paint();
      setTimeout(() => { S.toasts = S.toasts.filter((x) => x.id !== id); paint(); }, 4500);
    },
    /**
     * A class on one card for a moment (the next paint shows it). Its animation runs once, 250 ms;
     * the class stays longer, as the deal's does: a busy browser may draw the card late, and a
     * class gone by then would have shown no move at all.
     * @param {string} code @param {string} cls @param {number} [ms]
     */
    flash(code, cls, ms = 1500) {
      S.anim = { ...S.anim, [code]: cls };
      setTimeout(() => { const a = { ...S.anim }; delete a[code]; S.anim = a; paint(); }, ms);
    },
    /**
     * The deal's animation (table.css: 300 ms at most; none under prefers-reduced-motion). The class
     * stays a second: a busy browser may draw the dealt hand later than 300 ms after this, and a
     * class gone by then would have shown no deal at all. Nothing waits on it.
     */
    deal() {
      S.dealing = true;
      setTimeout(() => { S.dealing = false; paint(); }, 1000);
    },
    /**
     * Hold paints while a finger or button is down on a card of the hand (SortableJS may be
     * starting a drag), and paint what was held once it is released.
     * @param {HTMLElement} root
     */
    watchPointer(root) {
      root.addEventListener("pointerdown", (e) => {
        const target = /** @type {Element | null} */ (e.target);
        if (target && target.closest && target.closest("#groups .card")) S.pointerDown = true;
      });
      const released = () => {
        if (!S.pointerDown) return;
        S.pointerDown = false;
        setTimeout(() => { if (S.dirty && !S.dragging) paint(); }, 0);
      };
      document.addEventListener("pointerup", released, true);
      document.addEventListener("pointercancel", released, true);
    },
  };
}

/** @typedef {ReturnType<typeof createUi>} Ui */
