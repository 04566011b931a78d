// @ts-check
// The engine's verdict on groups (which are sequences, sets or loose cards, the hand's points, a
// valid show), asked over the table socket (`evaluate`, no HTTP request, no database) and kept
// by groups and wild rank. The page computes none of it: it shows what the `evaluation` says.

/** @typedef {import("../wire.js").Groups} Groups */
/** @typedef {import("../wire.js").Verdict} Verdict */
/** @typedef {import("../wire.js").Evaluation} Evaluation */

/**
 * @param {(groups: Groups, wild: number) => string | null} ask sends an `evaluate`; its request id, or null when not connected
 * @param {() => void} changed a verdict arrived
 */
export function createVerdicts(ask, changed) {
  /** @type {Map<string, Verdict | "loading">} groups and wild rank -> the verdict */
  const verdicts = new Map();
  /** @type {Map<string, string>} evaluate request_id -> its key */
  const asked = new Map();

  return {
    /**
     * The verdict on `groups`, or null while it is asked for (the page paints again when it comes).
     * @param {Groups | null | undefined} groups @param {number | null | undefined} wild
     * @returns {Verdict | null}
     */
    verdictFor(groups, wild) {
      if (!groups || wild == null) return null;
      const key = wild + ":" + JSON.stringify(groups);
      const hit = verdicts.get(key);
      if (hit && hit !== "loading") return hit;
      if (!hit) {
        const id = ask(groups, wild);
        if (id) { verdicts.set(key, "loading"); asked.set(id, key); }
      }
      return null;
    },
    /** An `evaluation` came. @param {Evaluation} msg */
    onEvaluation(msg) {
      const key = asked.get(msg.request_id || "");
      if (key == null) return;
      asked.delete(msg.request_id || "");
      if (msg.ok) { verdicts.set(key, msg); changed(); } else verdicts.delete(key);
    },
  };
}

/** @typedef {ReturnType<typeof createVerdicts>} Verdicts */
