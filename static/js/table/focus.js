// @ts-check
// Where the keyboard's focus goes at the table (issue 41): the skip link (the page's first Tab stop)
// to the hand, and the hand itself when the table loads mid-deal or a new deal is dealt, so that a
// keyboard or screen-reader player starts at their cards rather than at the page's top. Focus is
// never taken from a dialog or a text field.
import { focusHand } from "./keys.js";

/** @typedef {import("./state.js").TableState} TableState */

/** The hand focus last went to (its deal's key), so that each deal takes focus once. */
let followed = /** @type {string | null} */ (null);

/** A target where letters are typed. @param {Element | null} el */
const typing = (el) => !!(el && el.closest && el.closest("input, textarea, select, [contenteditable=true]"));

/**
 * After a paint: the first paint of a dealt hand (the table loaded mid-deal, a new deal) focuses
 * the hand, unless a dialog is open or the player is typing.
 * @param {TableState} S
 */
export function followDeal(S) {
  const key = S.groups && S.view && S.view.hand ? S.handKey : null;
  if (!key || key === followed) return;
  if (S.modal || document.getElementById("modal") || typing(document.activeElement)) return;
  const hand = document.getElementById("groups");
  if (!hand) return;
  // focused for the player, not by a key: its cursor is not ringed (nor raised over the next card's
  // index) until a key is pressed in it
  hand.dataset.quiet = "";
  hand.addEventListener("keydown", () => { delete hand.dataset.quiet; }, { once: true });
  hand.addEventListener("blur", () => { delete hand.dataset.quiet; }, { once: true });
  if (focusHand()) followed = key;
}

/** The skip link ("Skip to your hand"): to the hand, or to the felt while there is no hand. */
export function watchSkipLink() {
  document.addEventListener("click", (e) => {
    const link = /** @type {Element | null} */ (e.target);
    if (!link || !link.closest || !link.closest("#skip-to-hand")) return;
    e.preventDefault();
    if (focusHand()) return;
    const felt = document.getElementById("felt");
    if (felt) felt.focus();
  });
}
