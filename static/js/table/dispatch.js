// @ts-check
// What the server says (docs/protocol.md, "Server → client"), into the state: one case per
// message type of the wire (contract.d.ts), and a `never` check after them, so that a message type added to the
// wire without a case here fails `tsc`. Versions: an update older than what is shown is dropped,
// one that skips a version asks for a snapshot. Nothing here builds HTML: it changes the state,
// plays the sounds the game makes, and asks for a paint.
import { play } from "../sounds.js";
import { awaySummary, eventLine, eventSound } from "./ticker.js";
import { noticeBanner } from "./notices.js";
import { eventSpeech, say, theCard } from "./speech.js";
import { keepEcho, putBackWords, settleEcho } from "./echo.js";
import {
  addNotice, addScores, autoSheet, clearQuick, isMe, isNewGame, legal, me, nameOf, resetGame, showQuick, takeOwnView,
  takeView,
} from "./state.js";

/** How long a quick message stays by its seat. */
const QUICK_SHOWN_MS = 4000;

/** @typedef {import("../wire.js").ServerMessage} ServerMessage */
/** @typedef {import("../wire.js").GameEvent} GameEvent */
/** @typedef {import("../wire.js").View} View */
/** @typedef {import("../socket.js").Pending} Pending */
/** @typedef {import("./state.js").TableState} TableState */
/** @typedef {import("./ui.js").Ui} Ui */
/** @typedef {import("./verdicts.js").Verdicts} Verdicts */

/**
 * @param {object} deps
 * @param {TableState} deps.S
 * @param {Ui} deps.ui
 * @param {Verdicts} deps.verdicts
 * @param {() => void} deps.resync asks the server for a snapshot
 * @param {() => void} deps.yourTurn the player's turn began
 * @param {(groups: import("../wire.js").Groups, ok: boolean, code?: string) => void} deps.arrangeAnswered the server
 *   accepted or refused an arrangement of this page's (the error's code, if refused)
 * @param {() => void} deps.viewTaken a new view is shown: an arrangement the server lacks may go now
 */
export function createDispatch({ S, ui, verdicts, resync, yourTurn, arrangeAnswered, viewTaken }) {
  const { paint, toast } = ui;
  /** @type {import("./ticker.js").Who} */
  const who = { isMe: (seat) => isMe(S, seat), nameOf: (seat) => nameOf(S, seat) };

  /** One event of an update: the ticker's words, its sound, the scoreboard. @param {GameEvent} e */
  function onEvent(e) {
    const line = eventLine(e, who);
    const mine = me(S);
    const sound = eventSound(e, !!(e.type === "game_over" && mine && e.payouts && e.payouts[mine.id] > 0));
    if (sound) play(sound);
    if (e.type === "scores") addScores(S, e);
    if (e.type === "eliminated") toast(line, "warn");
    if (line) S.ticker = line;
  }

  /**
   * A new view and the events that led to it; what happened is said in words through the live
   * region, in one line ("Ravi discarded the seven of hearts. Your turn.").
   * @param {View | null} view @param {GameEvent[]} events
   */
  function setView(view, events) {
    const couldShow = legal(S, "show");
    const { dealt, drawn, turnStarted } = takeView(S, view);
    if (dealt) ui.deal();
    if (drawn) ui.flash(drawn, "drawn-in");
    events.forEach(onEvent);
    const spoken = events.map((e) => eventSpeech(e, who, drawn)).filter(Boolean).map((x) => x + ".");
    if (turnStarted) { yourTurn(); spoken.push("Your turn."); }
    if (!couldShow && legal(S, "show")) spoken.push("Arrange your groups, then press F to show them.");
    say(S, spoken.join(" "));
    autoSheet(S);
    paint();
    viewTaken();
  }

  /**
   * @param {ServerMessage} msg
   * @param {Pending | null} sent for a `result`, the action it answers
   */
  return function onMessage(msg, sent) {
    switch (msg.type) {
      case "snapshot":
        if (S.snap && isNewGame(S, msg.game)) resetGame(S);
        // the whole truth: no guess of the page's stands beside it, but a move it does not hold yet
        if (S.echo && msg.version > S.echo.version) S.echo = null;
        S.version = msg.version;
        S.snap = msg;
        if (msg.presence) S.presence = msg.presence;
        setView(keepEcho(S, msg.version, msg.view), []);
        break;
      case "update": {
        const restarted = isNewGame(S, msg.game);
        if (!restarted && msg.version <= S.version && !msg.rebuilt) return;
        if (!restarted && msg.version !== S.version + 1 && !msg.rebuilt) resync();
        if (restarted) resetGame(S);
        S.version = msg.version;
        if (S.snap) {
          if (msg.game) S.snap.game = msg.game;
          if (msg.seats) S.snap.seats = msg.seats;
          if (msg.table) S.snap.table = msg.table;
        }
        setView(keepEcho(S, msg.version, msg.view), msg.events || []);
        if (msg.rebuilt && !restarted) {
          // caught up after the connection was away: what happened meanwhile, in a few lines
          const lines = awaySummary(msg.events || [], who);
          if (lines.length) {
            say(S, "While you were away: " + lines.join(" "));
            addNotice(S, { id: Date.now(), kind: "away_summary", game: msg.game ? msg.game.id : undefined, title: "While you were away", lines });
            paint();
          }
        }
        break;
      }
      case "view":
        // your own view changed at the same version: an arrangement made in another tab
        if (msg.version !== S.version || !S.view || !msg.view) return;
        takeOwnView(S, msg.view);
        paint();
        break;
      case "evaluation":
        verdicts.onEvaluation(msg);
        break;
      case "result": {
        // the player's own move, shown at once (echo.js): confirmed, or put back with the reason
        const putBack = msg.request_id ? settleEcho(S, msg.request_id, msg.ok) : null;
        const action = sent ? sent.action : null;
        /** @type {Partial<import("../wire.js").WireError>} */
        const err = (!msg.ok && msg.error) || {};
        if (msg.ok && typeof msg.version === "number") S.answered = Math.max(S.answered, msg.version);
        // the player's arrangement stays as it is, whatever the answer (moves.js sends it again if need be)
        if (action && action.type === "arrange") arrangeAnswered(action.groups, !!msg.ok, err.code);
        else if (!msg.ok) {
          const reason = (err.message || "That move was refused") + (err.rule ? " (" + err.rule + ")" : "");
          if (putBack) {
            const words = putBackWords(putBack, reason, theCard);
            toast(words);
            say(S, words);
            resync(); // the page thought the move allowed: the server's whole view, in case it knew better
          } else if (!(sent && sent.quiet)) toast(reason);
        }
        paint();
        break;
      }
      case "error":
        toast((msg.error && msg.error.message) || "The server could not read that message");
        break;
      case "notice": {
        const banner = noticeBanner(msg, S.snap && S.snap.you ? S.snap.you.user_id : null);
        if (banner) { addNotice(S, banner); paint(); }
        break;
      }
      case "presence":
        S.presence = msg.players;
        paint();
        break;
      case "quick_message": {
        if (S.quickMuted && !isMe(S, msg.seat)) break; // muted: other players' messages are not shown
        const id = showQuick(S, msg.seat, msg.text);
        S.ticker = nameOf(S, msg.seat) + ": " + msg.text;
        say(S, nameOf(S, msg.seat) + " says: " + msg.text + ".");
        paint();
        setTimeout(() => { if (clearQuick(S, msg.seat, id)) paint(); }, QUICK_SHOWN_MS);
        break;
      }
      case "pong": // the answer to a ping: nothing to show
      case "lobby_update": // the lobby socket's: never sent on a table socket
        break;
      default:
        unknownMessage(msg);
    }
  };
}

/**
 * A message type this page does not know (a newer server): ignored. Typed `never`, so that a
 * message type added to the server's contract without a case above fails the type check.
 * @param {never} msg
 */
function unknownMessage(msg) {
  void msg;
}
