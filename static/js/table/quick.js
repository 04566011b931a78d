// @ts-check
// Quick messages (docs/protocol.md, `quick`): whether this browser shows other players' ones,
// remembered in localStorage as the sound's mute is. The phrases come from the server (the page's
// config); a muted page still shows the player's own.
const KEY = "rummy.quickMuted";

export function isQuickMuted() {
  try { return localStorage.getItem(KEY) === "1"; } catch (e) { return false; }
}

/** @param {boolean} on */
export function setQuickMuted(on) {
  try { localStorage.setItem(KEY, on ? "1" : "0"); } catch (e) { /* private mode: not remembered */ }
}
