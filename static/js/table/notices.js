// @ts-check
// Notices in words (docs/protocol.md, `notice`): what staff or the site tell the people at the
// table, shown until dismissed. Every line is text, never markup (staff write the message).

/** @typedef {import("../wire.js").Notice} Notice */
/** @typedef {import("../wire.js").GameCancelledNotice} GameCancelledNotice */
/** @typedef {import("./state.js").NoticeBanner} NoticeBanner */

const SETTLEMENT_WORDS = {
  refund: "Every entry fee has been refunded in full.",
  split: "The prize pool has been shared by the players still in, by their drops remaining.",
  none: "No chips were at stake.",
};

let noticeCount = 0;

/**
 * What a cancellation did with this player's own chips, from the notice's payouts.
 * @param {GameCancelledNotice} msg @param {number | null} userId the player (the snapshot's `you`)
 */
function yourMoney(msg, userId) {
  const you = userId != null ? String(userId) : null;
  const shown = you != null ? (msg.payouts_display || {})[you] : undefined;
  if (msg.settlement === "refund") return shown ? "Your entry fee of " + shown + " is back in your wallet." : "";
  if (msg.settlement === "split") return shown ? "Your share, " + shown + ", has been paid to your wallet." : "";
  return "";
}

/**
 * The banner a notice makes, or null when it has nothing to say.
 * @param {Notice} msg @param {number | null} userId @returns {NoticeBanner | null}
 */
export function noticeBanner(msg, userId) {
  /** @type {NoticeBanner} */
  const n = { id: ++noticeCount, kind: String(msg.kind || "notice"), game: undefined, title: "Notice", lines: [] };
  /** @type {unknown[]} */
  let lines;
  switch (msg.kind) {
    case "game_cancelled":
      n.game = msg.game_id;
      n.title = "Staff cancelled this game";
      lines = [msg.message, msg.money || SETTLEMENT_WORDS[msg.settlement], yourMoney(msg, userId)];
      break;
    case "play_reminder":
      n.title = "A reminder";
      lines = [msg.message];
      break;
    case "unseated":
      n.game = msg.game_id;
      n.title = "Your seat was given back";
      lines = [msg.message, msg.money];
      break;
    default:
      lines = [unknownKind(msg).message];
  }
  n.lines = lines.filter((x) => typeof x === "string" && x.trim()).map(String);
  if (!n.lines.length && n.kind !== "game_cancelled") return null;
  return n;
}

/**
 * A notice of a kind this page does not know (a newer server): its `message` is still shown, as
 * docs/protocol.md asks. Typed `never`, so that a kind added to the wire types without a case fails
 * the type check.
 * @param {never} msg @returns {{message?: unknown}}
 */
function unknownKind(msg) {
  return /** @type {{message?: unknown}} */ (msg);
}
