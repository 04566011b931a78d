// @ts-check
// The live table page (docs/protocol.md): it renders what the server says and sends intentions.
// This module only wires the pieces of static/js/table/ together (lichess' ui/round is the model):
//
//   state.js     the state and its transitions        dispatch.js  server messages -> state
//   moves.js     the player's moves -> the socket      ctrl.js      what views may ask and call
//   clocks.js    countdowns, time banks, the tick      ticker.js    events in words, their sounds
//   status.js    where the game stands, in words       notices.js   notices in words
//   verdicts.js  the engine's verdict on groups         ui.js        painting, toasts, flashes
//   keys.js      the table's keys                       view/        components, from the state only
//   speech.js    what a screen reader hears: card names, the live region's lines, "read the table"
//
// Where what comes next goes: keyboard play in keys.js, calling the moves a click calls; what a
// screen reader hears is the words of ticker.js, status.js and notices.js, said by a view through
// one live region; a seat's presence is state that dispatch.js keeps from a server message; motion
// is view/ and the CSS, never a wait in moves.js.
//
// No rules live here: the server decides every move (the view's `legal` list, its `drop_points`,
// `can_pick_open`) and labels groups (the `evaluation` of an `evaluate`). No view touches the
// socket; nothing that handles a message builds HTML. Player names are text nodes, never markup.
import { html, render } from "../vendor/htm-preact/standalone.module.js";
import { TableSocket } from "./socket.js";
import { fitHand, loadSortable, wireSortables } from "./hand.js";
import { isMuted, play } from "./sounds.js";
import { newClientSeed } from "./fairness.js";
import { readConfig } from "./table/config.js";
import { myTurn, newState } from "./table/state.js";
import { isQuickMuted } from "./table/quick.js";
import { createUi } from "./table/ui.js";
import { createVerdicts } from "./table/verdicts.js";
import { createDispatch } from "./table/dispatch.js";
import { createMoves } from "./table/moves.js";
import { createCtrl } from "./table/ctrl.js";
import { startClock } from "./table/clocks.js";
import { watchKeys } from "./table/keys.js";
import { followDeal, watchSkipLink } from "./table/focus.js";
import { catchUpFrom, lastSeen, noteSeen } from "./table/seen.js";
import { crossedThreshold, say } from "./table/speech.js";
import { App, Said } from "./table/view/app.js";

const root = document.getElementById("table-app");
const announcer = document.getElementById("announcer");
const cfg = readConfig();

if (root && cfg) {
  const S = newState(cfg, {
    muted: isMuted(),
    quickMuted: isQuickMuted(),
    notify: typeof Notification !== "undefined" && Notification.permission === "granted",
  });
  const joinSeed = newClientSeed(); // docs/fairness.md: this browser's part of the shuffle, sent with the join

  /** @type {import("./table/ctrl.js").TableCtrl} */
  let ctrl; // set below, once the socket exists
  let dragAsked = false; // SortableJS is asked for (dragWhenIdle)
  /** SortableJS once the table is on screen and the browser idle: only a drag needs it, and the
   * page is playable without it. `data-drag="ready"` says the hand can be dragged. */
  const dragWhenIdle = () => {
    if (dragAsked) return;
    dragAsked = true;
    const idle = window.requestIdleCallback ?? ((/** @type {() => void} */ f) => setTimeout(f, 200));
    idle(() => loadSortable().then(
      () => { wireSortables(ctrl); root.dataset.drag = "ready"; },
      () => { dragAsked = false; }, // offline: asked again at the next paint
    ), { timeout: 1000 });
  };
  const ui = createUi(S, () => {
    render(html`<${App} s=${S} t=${ctrl} joinSeed=${joinSeed} />`, root);
    if (announcer) render(html`<${Said} s=${S} />`, announcer);
    wireSortables(ctrl);
    fitHand();
    followDeal(S);
    if (S.view) dragWhenIdle();
  });
  const verdicts = createVerdicts((groups, wild) => socket.evaluate(groups, wild), () => ui.paint());

  /** The player's turn began: a sound, and a notification if the tab is hidden. */
  const yourTurn = () => {
    play("turn");
    if (S.notify && document.hidden && typeof Notification !== "undefined" && Notification.permission === "granted") {
      try { new Notification("Your turn", { body: cfg.table_name, tag: "rummy-turn" }); } catch (e) { /* not allowed here */ }
    }
  };
  let lost = false; // the connection was lost and is not back yet
  let opened = false; // the socket has been open: an open after that is a return
  let caughtUp = false; // the first snapshot came, and the page asked what happened since it was last open
  let notedVersion = -1; // the version kept in this browser's storage
  const dispatch = createDispatch({
    S, ui, verdicts, resync: () => socket.raw({ type: "snapshot" }), yourTurn,
    arrangeAnswered: (groups, ok, code) => moves.arrangeAnswered(groups, ok, code),
    viewTaken: () => moves.sendOwedArrangement(),
  });
  const socket = new TableSocket(cfg.ws_path, {
    // back after the connection was away: ask for what happened since the version shown (a rebuilt
    // update, which dispatch.js sums up as "While you were away"); lost and back are said through
    // the one live region (the banner shows it)
    state(state, detail) {
      if (state === "open" && opened && S.conn !== "open" && S.snap && S.version >= 0) socket.raw({ type: "snapshot", since: S.version });
      if (state === "open") opened = true;
      if (state === "closed" && !lost) {
        lost = true;
        S.lostAt = Date.now();
        say(S, "Connection lost: reconnecting." + (myTurn(S) ? " Your turn's clock keeps running." : ""));
      }
      if (state === "open" && lost) { lost = false; S.lostAt = 0; say(S, "Connected again."); }
      S.conn = state; S.connDetail = detail || ""; ui.paint();
    },
    fatal(text) { S.fatal = text; S.conn = "closed"; say(S, text); ui.paint(); },
    message(msg, sent) {
      dispatch(msg, sent);
      if (msg.type === "snapshot" && !caughtUp) {
        // the page's first state: what happened since this browser last showed the game, if it did
        caughtUp = true;
        const since = catchUpFrom(lastSeen(cfg.table_id), S);
        if (since != null) socket.raw({ type: "snapshot", since });
      }
      if (S.snap && S.snap.game && S.version !== notedVersion) { notedVersion = S.version; noteSeen(cfg.table_id, S.snap.game.id, S.version); }
    },
  });
  const moves = createMoves({ S, cfg, socket, ui });
  ctrl = createCtrl({ S, cfg, ui, moves, verdicts });

  // the clock repaints; the player's own time left is said at 30, 10 and 5 seconds, never ticked
  startClock(S, () => {
    const secs = crossedThreshold(S);
    if (secs != null) say(S, secs + " seconds left" + (S.view && S.view.deadline && S.view.deadline.kind === "extra" ? " of extra time." : " on your turn."));
    ui.paint();
  });
  watchKeys(S, ctrl);
  watchSkipLink();
  ui.watchPointer(root);
  window.addEventListener("resize", fitHand); // the hand is fitted to the window: the DOM alone, no render
  // test hook: a read-only look at what the page knows (never more than the server sent); `settled`:
  // no move of this page's waits for the server's answer (an own move is shown before it, echo.js),
  // and the page shows the version the last one made (tests wait for it before reading the server)
  window.rummyTable = {
    state: S, send: moves.act, socket,
    settled: () => socket.pending.size === 0 && !S.echo && S.version >= S.answered,
  };

  // the first state came with the page: the hand shows in the first paint while the socket is
  // still on its way, and the socket's own snapshot (the same or newer) then takes its place and
  // asks what happened since this browser last showed the game. Its "Your turn." is heard: the
  // live region is in the page's HTML, outside what the view draws.
  if (cfg.snapshot) dispatch(cfg.snapshot, null);
  root.textContent = "";
  ui.start();
  socket.connect();
}
