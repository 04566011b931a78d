// @ts-check
// The table's keys (issue 25: play without a mouse and without sight; the list is speech.js
// KEY_HELP, shown by "?"). Every key calls the same moves as a click or a drag. Escape closes the
// sheet over the table (a declaration is cancelled, its card back in the hand) or dismisses the
// newest notice. The hand is a listbox (hand.js): arrows move its cursor, Space selects, Shift +
// arrows move the card. While a dialog is open, only Escape and Tab (kept inside it) act.
import { cursorOf, posOf } from "./state.js";
import { readTable, say, spokenCard } from "./speech.js";

/** @typedef {import("./state.js").TableState} TableState */
/** @typedef {import("./state.js").Pos} Pos */
/** @typedef {import("./ctrl.js").TableCtrl} TableCtrl */

/** A target where letters are typed, not commands. @param {EventTarget | null} el */
function typing(el) {
  const e = /** @type {HTMLElement | null} */ (el);
  return !!(e && e.closest && e.closest("input, textarea, select, [contenteditable=true]"));
}

/** The hand's listbox, focused. */
export function focusHand() {
  const el = document.getElementById("groups");
  if (el) el.focus();
  return !!el;
}

/** @param {TableState} S @param {TableCtrl} t */
export function watchKeys(S, t) {
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && S.modal) { if (S.modal.kind === "declare") t.cancelFinish(); else t.closeModal(); return; }
    if (e.key === "Escape" && S.notices.length) { t.dismissNotice(S.notices[S.notices.length - 1].id); return; }
    if (S.modal || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented || typing(e.target)) return;
    const target = /** @type {HTMLElement | null} */ (e.target);
    if (target && target.id === "groups" && handKey(S, t, e)) { e.preventDefault(); return; }
    if (tableKey(S, t, e.key)) e.preventDefault();
  });
}

/**
 * A key of the whole table (any focus but a text field): a move, a tool, or "read".
 * @param {TableState} S @param {TableCtrl} t @param {string} key @returns {boolean} it was one
 */
function tableKey(S, t, key) {
  const v = S.view;
  switch (key) {
    case "?": t.openModal({ kind: "keys" }); return true;
    case "r": case "R": say(S, readTable(S, t.verdictFor)); t.paint(); return true;
    case "h": case "H": return focusHand();
  }
  if (!v || !v.hand || !S.groups) return false;
  switch (key) {
    case "d": case "D": t.drawFrom("closed"); return true;
    case "o": case "O": t.drawFrom("open"); return true;
    case "x": case "X": {
      const c = t.selectedCode();
      if (c) t.discard(c); else t.toast(S.selected.length ? "Select only the card to discard" : "Select the card to discard first (Space in your hand)", "info");
      return true;
    }
    case "g": case "G":
      if (!t.legal("arrange")) t.toast("You cannot arrange your cards now", "info");
      else if (!S.selected.length) t.toast("Select cards to group first (Space in your hand)", "info");
      else { t.groupSelected(); say(S, "Grouped. " + groupSaid(S)); }
      return true;
    case "n": case "N": newGroup(S, t); return true;
    case "s": t.sort("suit"); say(S, "Sorted by suit."); return true;
    case "S": t.sort("rank"); say(S, "Sorted by rank."); return true;
    case "f": case "F": {
      if (t.legal("show")) { t.show(); say(S, "You showed your groups."); return true; }
      const c = t.selectedCode();
      if (c && t.canFinish()) t.startFinish(c, posOf(S.selected[0]));
      else t.toast(t.canFinish() ? "Select the card to put in the finish slot first" : "You can finish only on your turn, after drawing", "info");
      return true;
    }
    case "p": case "P":
      if (t.legal("drop")) t.openModal({ kind: "drop" }); else t.toast("You cannot drop now", "info");
      return true;
  }
  return false;
}

/** "N": the selected cards, or the card under the cursor, into a new group at the end. @param {TableState} S @param {TableCtrl} t */
function newGroup(S, t) {
  if (!t.legal("arrange") || !S.groups) { t.toast("You cannot arrange your cards now", "info"); return; }
  if (S.selected.length) { t.groupSelected(); say(S, "New group. " + groupSaid(S)); return; }
  const c = cursorOf(S);
  if (!c) return;
  S.cursor = { g: S.groups.length, i: 0 };
  t.moveCard(c.g, c.i, Infinity, 0);
  S.cursor = { g: S.groups.length - 1, i: 0 };
  say(S, "New group. " + groupSaid(S));
}

/** The last group, in words ("Group 5: seven of spades"). @param {TableState} S */
function groupSaid(S) {
  const groups = S.groups || [];
  const v = S.view;
  const g = groups.length - 1;
  S.cursor = g >= 0 ? { g, i: 0 } : null;
  return g < 0 ? "" : "Group " + (g + 1) + ": " + groups[g].map((c) => spokenCard(c, v ? v.wild_rank : null)).join("; ") + ".";
}

/** Every card's place, in reading order. @param {TableState} S @returns {Pos[]} */
function places(S) {
  /** @type {Pos[]} */
  const out = [];
  (S.groups || []).forEach((g, gi) => g.forEach((_, i) => out.push({ g: gi, i })));
  return out;
}

/**
 * A key in the hand's listbox.
 * @param {TableState} S @param {TableCtrl} t @param {KeyboardEvent} e @returns {boolean} it was one
 */
function handKey(S, t, e) {
  const groups = S.groups;
  const at = cursorOf(S);
  if (!groups || !at) return false;
  const all = places(S);
  const k = all.findIndex((p) => p.g === at.g && p.i === at.i);
  /** @param {Pos | undefined} p */
  const go = (p) => { if (p) { S.cursor = p; t.paint(); } };
  if (e.shiftKey && e.key.startsWith("Arrow")) { moveByKey(S, t, at, e.key); return true; }
  switch (e.key) {
    case "ArrowRight": go(all[Math.min(k + 1, all.length - 1)]); return true;
    case "ArrowLeft": go(all[Math.max(k - 1, 0)]); return true;
    case "ArrowDown": go(at.g + 1 < groups.length ? { g: at.g + 1, i: 0 } : at); return true;
    case "ArrowUp": go(at.g > 0 ? { g: at.g - 1, i: 0 } : { g: at.g, i: 0 }); return true;
    case "Home": go(all[0]); return true;
    case "End": go(all[all.length - 1]); return true;
    case " ": case "Enter": t.clickCard(e, at.g, at.i); return true;
  }
  return false;
}

/**
 * Shift + arrow: move the card under the cursor, and say where it went ("Moved: seven of spades,
 * group 3, card 3 of 3"). Left and right move it within its group, and past a group's end into the
 * next; up and down to the end of the previous or next group (below the last: a new group).
 * @param {TableState} S @param {TableCtrl} t @param {Pos} at @param {string} key
 */
function moveByKey(S, t, at, key) {
  const groups = /** @type {import("../wire.js").Groups} */ (S.groups);
  if (!t.legal("arrange")) { t.toast("You cannot arrange your cards now", "info"); return; }
  const code = groups[at.g][at.i];
  const last = groups[at.g].length - 1;
  /** @type {[number, number] | null} */
  let to = null;
  if (key === "ArrowRight") to = at.i < last ? [at.g, at.i + 1] : at.g + 1 < groups.length ? [at.g + 1, 0] : null;
  else if (key === "ArrowLeft") to = at.i > 0 ? [at.g, at.i - 1] : at.g > 0 ? [at.g - 1, groups[at.g - 1].length] : null;
  else if (key === "ArrowDown") to = at.g + 1 < groups.length ? [at.g + 1, groups[at.g + 1].length] : groups[at.g].length > 1 ? [groups.length, 0] : null;
  else if (key === "ArrowUp") to = at.g > 0 ? [at.g - 1, groups[at.g - 1].length] : null;
  if (!to) { say(S, "Cannot move " + spokenCard(code) + " further."); t.paint(); return; }
  t.moveCard(at.g, at.i, to[0], to[1]);
  // find the moved card where it landed (an emptied group closes up)
  const after = S.groups || [];
  const tg = after.length <= to[0] ? after.length - 1 : at.g !== to[0] && groups[at.g].length === 1 && to[0] > at.g ? to[0] - 1 : to[0];
  const row = after[tg] || [];
  let ti = Math.min(to[1], row.length - 1);
  if (row[ti] !== code) ti = row.lastIndexOf(code);
  S.cursor = { g: tg, i: Math.max(ti, 0) };
  const v = S.view;
  say(S, "Moved: " + spokenCard(code, v ? v.wild_rank : null) + ", group " + (tg + 1) + ", card " + (ti + 1) + " of " + row.length + ".");
  t.paint();
}
