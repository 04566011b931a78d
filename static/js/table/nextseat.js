// @ts-check
// Drop & go's offer (issue 25, 41): of the lobby's open tables of the same format and fee, the one
// about to start soonest. A table with no one seated is not about to start, so it is never offered:
// the player would only wait there alone.

/** @typedef {import("../wire.js").TableRow} TableRow */

/**
 * The table to offer after leaving table `hereId`, or null: public, not practice, someone seated
 * and a seat free; the most seats taken first, then the oldest.
 * @param {TableRow[]} rows @param {number} hereId @returns {TableRow | null}
 */
export function nextTable(rows, hereId) {
  const open = rows.filter((r) => r.id !== hereId && !r.practice && !r.private && r.seats_taken > 0 && r.seats_taken < r.seats);
  open.sort((a, b) => b.seats_taken - a.seats_taken || a.id - b.id);
  return open[0] || null;
}
