// @ts-check
// How a seat's end of a deal reads in words ("Dropped (missed turns)"), for the table's result
// sheet, its seats and the replay page alike: never the wire's codes ("missed_turns").

/** @type {Record<string, string>} */
export const STATUS_LABEL = {
  won: "Won", shown: "Shown", dropped: "Dropped", wrong_show: "Wrong show", playing: "Playing",
  timed_out: "Timed out", left: "Left", eliminated: "Eliminated",
};
/** @type {Record<string, string>} */
export const REASON_LABEL = {
  drop: "drop", first_drop: "first drop", middle_drop: "middle drop", wrong_show: "wrong show",
  missed_turns: "missed turns", auto_drop: "auto drop", left: "left the game", invalid: "invalid show",
  no_show: "did not show in time",
};

/** A code in words when it has no label: "some_code" -> "some code". @param {string} code */
const plain = (code) => String(code).replace(/_/g, " ");

/**
 * "Dropped (missed turns)": a seat's status in a deal's result, with its reason.
 * @param {{status: string, reason?: string | null}} p
 */
export function outcomeWords(p) {
  const status = STATUS_LABEL[p.status] || plain(p.status);
  return p.reason ? status + " (" + (REASON_LABEL[p.reason] || plain(p.reason)) + ")" : status;
}
