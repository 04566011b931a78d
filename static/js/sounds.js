// @ts-check
// Short tones made with WebAudio (no audio files): deal, draw, discard, your turn,
// the timer running out, a win. The mute switch is remembered in localStorage.
const KEY = "rummy.muted";
/** @type {AudioContext | null} */
let ctx = null;

export function isMuted() {
  try { return localStorage.getItem(KEY) === "1"; } catch (e) { return false; }
}

/** @param {boolean} on */
export function setMuted(on) {
  try { localStorage.setItem(KEY, on ? "1" : "0"); } catch (e) { /* private mode: not remembered */ }
}

/**
 * The page's one AudioContext, made in a gesture or once the page has had one: before, a browser
 * keeps a new context suspended, and making one costs a phone's main thread while the table loads.
 * @param {boolean} [gesture] called in a gesture's handler
 */
function audio(gesture = false) {
  if (ctx) return ctx;
  if (!gesture && navigator.userActivation && !navigator.userActivation.hasBeenActive) return null;
  const AC = window.AudioContext || window.webkitAudioContext;
  if (!AC) return null;
  try { ctx = new AC(); } catch (e) { ctx = null; }
  return ctx;
}

// browsers start audio only after a gesture: wake the context on the first one
function wake() {
  const a = audio(true);
  if (a && a.state === "suspended") a.resume().catch(() => {});
}
window.addEventListener("pointerdown", wake, { once: true, capture: true });
window.addEventListener("keydown", wake, { once: true, capture: true });

/**
 * @param {number} freq @param {number} start @param {number} dur
 * @param {OscillatorType} [type] @param {number} [gain]
 */
function tone(freq, start, dur, type = "sine", gain = 0.12) {
  const a = audio();
  if (!a || a.state !== "running") return;
  const t0 = a.currentTime + start;
  const osc = a.createOscillator();
  const g = a.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t0);
  g.gain.setValueAtTime(0.0001, t0);
  g.gain.exponentialRampToValueAtTime(gain, t0 + 0.01);
  g.gain.exponentialRampToValueAtTime(0.0001, t0 + dur);
  osc.connect(g).connect(a.destination);
  osc.start(t0);
  osc.stop(t0 + dur + 0.02);
}

/** @typedef {"deal" | "draw" | "discard" | "turn" | "tick" | "win" | "lose"} SoundName */
/** @type {Record<SoundName, () => void>} */
const SOUNDS = {
  deal: () => { for (let i = 0; i < 5; i++) tone(500 + i * 30, i * 0.06, 0.05, "triangle", 0.06); },
  draw: () => tone(660, 0, 0.08, "triangle", 0.08),
  discard: () => { tone(420, 0, 0.06, "triangle", 0.08); tone(300, 0.05, 0.07, "triangle", 0.06); },
  turn: () => { tone(880, 0, 0.12); tone(1175, 0.13, 0.16); },
  tick: () => tone(1000, 0, 0.05, "square", 0.04),
  win: () => [523, 659, 784, 1047].forEach((f, i) => tone(f, i * 0.12, 0.22, "sine", 0.1)),
  lose: () => { tone(392, 0, 0.18); tone(311, 0.18, 0.25); },
};

/** @param {SoundName} name */
export function play(name) {
  if (isMuted()) return;
  const f = SOUNDS[name];
  if (f) {
    try { f(); } catch (e) { /* no audio device: silence */ }
  }
  // a record for tests and curious players: which sounds the page asked for
  (window.rummySounds = window.rummySounds || []).push(name);
}
