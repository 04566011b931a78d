// @ts-check
// Countdowns and time banks, from the deadlines the server sends (the view's `deadline`, the
// game's `deadline_at`): the page counts down to them and never decides anything at zero (the
// server's timers do). Also the clock that repaints the page four times a second, ticks the last
// seconds of the player's own turn and marks the tab's title on their turn.
import { play } from "../sounds.js";
import { myTurn } from "./state.js";

/** @typedef {import("./state.js").TableState} TableState */
/** @typedef {import("../wire.js").Snapshot} Snapshot */
/** @typedef {import("../wire.js").DeadlineKind} DeadlineKind */
/**
 * A seat's running clock: time left, the fraction of its allowance left, turn or extra time, and
 * how urgent it looks.
 * @typedef {{left: number, frac: number, kind: DeadlineKind, level: string, total: number}} SeatTimer
 */

/** Milliseconds as "m:ss", never below 0:00. @param {number} ms */
export function fmtSecs(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
}

/** @type {Partial<Record<DeadlineKind, string>>} */
const TABLE_DEADLINE = { declare: "Shows close in ", next_deal: "Next deal in ", rejoin: "Rejoin closes in ", split: "Split offer closes in " };

/** The table's own countdown ("Next deal in 0:07"), or "". @param {TableState} S @param {number} [now] */
export function tableCountdown(S, now = Date.now()) {
  const v = S.view;
  if (!v || !v.deadline) return "";
  const what = TABLE_DEADLINE[v.deadline.kind];
  return what ? what + fmtSecs(v.deadline.at_ms - now) : "";
}

/** The clock of `seat` while it runs (its turn or its extra time), else null. @param {TableState} S @param {number} seat @param {number} [now] @returns {SeatTimer | null} */
export function timerOf(S, seat, now = Date.now()) {
  const v = S.view;
  const dl = v && v.deadline;
  if (!v || !dl || dl.seat !== seat || (dl.kind !== "turn" && dl.kind !== "extra")) return null;
  const left = dl.at_ms - now;
  const total = dl.kind === "turn" ? v.rules.turn_ms : Math.max(v.players[seat].extra_ms || 1, 1);
  const frac = Math.max(0, Math.min(1, left / total));
  const level = left <= 5000 ? "red pulse" : frac <= 0.5 ? "amber" : "green";
  return { left, frac, kind: dl.kind, level, total };
}

/**
 * What happens before a game starts, in words, with its countdown.
 * @param {Snapshot} snap @param {boolean} seated @param {number} [now]
 */
export function waitingLine(snap, seated, now = Date.now()) {
  const t = snap.table;
  const g = snap.game;
  if (g && g.status === "waiting" && g.deadline_kind === "start" && g.deadline_at) return "Starting in " + fmtSecs(Date.parse(g.deadline_at) - now);
  if (g && g.status === "waiting" && g.deadline_kind === "bots" && g.deadline_at) return "Bots take the empty seats in " + fmtSecs(Date.parse(g.deadline_at) - now) + ", then the game starts.";
  if (t.practice) return seated ? "Bots take the empty seats in a few seconds, then the game starts." : "Sit down and bots fill the other seats: the game starts at once.";
  return (t.seats_taken || 0) < 2 ? "The game starts when every seat is taken, or once two players are seated and the countdown ends." : "";
}

/**
 * Four times a second: a soft tick in each of the last five seconds of the player's own clock,
 * the tab's title on their turn, and a repaint (the countdowns).
 * @param {TableState} S @param {() => void} paint
 */
export function startClock(S, paint) {
  const baseTitle = document.title;
  const tick = () => {
    if (!S.snap) return;
    const mine = S.view && S.view.seat != null ? timerOf(S, S.view.seat) : null;
    if (mine && mine.left > 0 && mine.left <= 5000) {
      const sec = Math.ceil(mine.left / 1000);
      if (sec !== S.lastTickSecond) { S.lastTickSecond = sec; play("tick"); }
    }
    document.title = myTurn(S) ? "● Your turn · " + baseTitle : baseTitle;
    paint();
  };
  return setInterval(tick, 250);
}
