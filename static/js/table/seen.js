// @ts-check
// What this browser last showed of a table's game, kept across closing the tab (issue 41): the
// game and its version. Opened again, the page asks the server for the events since that version
// (`snapshot` with `since`, docs/protocol.md), and says what happened while the player had no page
// open, as after a lost connection ("While you were away": turns missed, auto-play, deals ended).

/** @typedef {{game: number, version: number}} Seen */

/** @param {number} tableId */
const keyOf = (tableId) => "rummy:seen:" + tableId;

/** The game and version last shown at this table, or null (never shown, storage refused or bad). @param {number} tableId @returns {Seen | null} */
export function lastSeen(tableId) {
  try {
    const raw = JSON.parse(localStorage.getItem(keyOf(tableId)) || "null");
    return raw && Number.isInteger(raw.game) && Number.isInteger(raw.version) && raw.version >= 0 ? raw : null;
  } catch (e) {
    return null;
  }
}

/** Keep the game and version now shown (nothing when storage is refused). @param {number} tableId @param {number} game @param {number} version */
export function noteSeen(tableId, game, version) {
  try {
    localStorage.setItem(keyOf(tableId), JSON.stringify({ game, version }));
  } catch (e) { /* private mode, full storage: no summary next time */ }
}

/**
 * The version to catch up from after the page's first snapshot: the one last shown, when it is of
 * the same game, older than the snapshot, and the player holds a seat in it; else null.
 * @param {Seen | null} seen @param {import("./state.js").TableState} S @returns {number | null}
 */
export function catchUpFrom(seen, S) {
  const game = S.snap && S.snap.game;
  if (!seen || !game || seen.game !== game.id || !S.view || S.view.seat == null) return null;
  return seen.version < S.version ? seen.version : null;
}
