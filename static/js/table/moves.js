// @ts-check
// The player's moves: intentions checked against what the server allows now (the view's `legal`,
// `can_pick_open`), said in words when they cannot be made, and sent as actions over the socket.
// The server decides; its `result` says if a move was refused (dispatch.js). Every way to play a
// move (a click, a drag, and keys in issue 25) comes through here.
import { groupByRank, groupBySuit } from "../cards.js";
import { groupSelected as groupCards, moveCard } from "../hand.js";
import { newClientSeed } from "../fairness.js";
import { nextTable } from "./nextseat.js";
import { canDiscard, canDraw, canFinish, cardsKey, handGroups, legal, myTurn, restoreFinish, takenFrom, without } from "./state.js";
import { echoDiscard, echoOpenDraw } from "./echo.js";

/** @typedef {import("./state.js").TableState} TableState */
/** @typedef {import("./state.js").Pos} Pos */
/** @typedef {import("./config.js").TableConfig} TableConfig */
/** @typedef {import("./ui.js").Ui} Ui */
/** @typedef {import("../socket.js").TableSocket} TableSocket */
/** @typedef {import("../wire.js").Action} Action */
/** @typedef {import("../wire.js").CardCode} CardCode */
/** @typedef {import("../wire.js").Groups} Groups */

/** How long a player's arrangement settles before it is sent (a drag or a key press rarely comes alone). */
const ARRANGE_SETTLE_MS = 350;
/** An arrangement the server could not store (its database away a moment) is tried again after this. */
const ARRANGE_RETRY_MS = 1000;

/**
 * @param {{S: TableState, cfg: TableConfig, socket: TableSocket, ui: Ui}} deps
 */
export function createMoves({ S, cfg, socket, ui }) {
  const { paint, toast } = ui;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let arrangeTimer;
  /** The player's arrangement is settling: it is sent when the timer ends. */
  let settling = false;

  /**
   * Send an action; quiet: no word if it cannot be sent now. Its request id, if it went now.
   * @param {Action} action @param {{quiet?: boolean}} [opts] @returns {string | null}
   */
  function act(action, opts) {
    const { id, sent } = socket.act(action, opts);
    if (!sent && !(opts && opts.quiet)) toast("Not connected: your move will be sent when the connection is back.", "info");
    return sent ? id : null;
  }

  /** A draw from the open pile is shown at once (echo.js); one from the deck waits for its card. @param {"closed" | "open"} source */
  function drawFrom(source) {
    if (!canDraw(S)) { toast(myTurn(S) ? "You have drawn already: discard a card, or finish" : "It is not your turn to draw"); return; }
    if (source === "open" && !S.view?.can_pick_open) { toast("A joker on the open pile cannot be picked up"); return; }
    const id = act({ type: "draw", source });
    if (id && source === "open") {
      echoOpenDraw(S, id);
      if (S.echo && S.echo.id === id) ui.flash(S.echo.card, "drawn-in");
      paint();
    }
  }

  /** Shown at once (echo.js), when it went: a move waiting for the connection is not. @param {CardCode} code */
  function discard(code) {
    if (!canDiscard(S)) { toast("You can discard only on your turn, after drawing"); return; }
    S.selected = [];
    const id = act({ type: "discard", card: code });
    if (id) echoDiscard(S, id, code);
    paint();
  }

  /** Put `code` in the finish slot and ask to confirm the declaration. @param {CardCode} code @param {Pos | null} from */
  function startFinish(code, from) {
    if (!canFinish(S) || !S.groups) { toast("You can finish only on your turn, after drawing"); return; }
    S.finishFrom = takenFrom(S.groups, code, from);
    S.finishCard = code;
    S.groups = without(S.groups, code);
    S.selected = [];
    S.modal = { kind: "declare", card: code, groups: handGroups(S) };
    paint();
  }

  function cancelFinish() {
    if (S.finishCard && S.groups) S.groups = restoreFinish(S, S.groups);
    S.finishCard = null; S.finishFrom = null;
    S.modal = null;
    paint();
    sendOwedArrangement(); // held back while a card was out of the hand
  }

  function confirmFinish() {
    const m = S.modal;
    if (m && m.kind === "declare") act({ type: "finish", card: m.card, groups: m.groups });
    S.modal = null;
    paint();
  }

  /**
   * The player arranged: paint it, and tell the server once it settles (it is what gets scored). The
   * page's arrangement is the player's: no answer of the server replaces it (state.js `takeView`
   * keeps it across updates, adding and removing only the cards that moved); the server's copy
   * follows it (`sendOwedArrangement`).
   */
  function arranged() {
    S.selected = [];
    S.arrangeOwed = true;
    paint();
    clearTimeout(arrangeTimer);
    settling = true;
    arrangeTimer = setTimeout(() => { settling = false; sendOwedArrangement(); }, ARRANGE_SETTLE_MS);
  }

  /**
   * Send the arrangement shown, if the server lacks a change of the player's and it can take it now:
   * not while it settles or while an arrangement of this page waits for its answer (or for the
   * connection: the socket sends it when it is back), and only holding the cards of the hand shown.
   * Those the server refused last are not sent again: it is ahead of the page (an own draw or
   * discard on its way back), and the update that says so sends it, as every new view does
   * (dispatch.js).
   */
  function sendOwedArrangement() {
    const v = S.view;
    if (!S.arrangeOwed || settling || !v || !v.hand || !S.groups || !legal(S, "arrange")) return;
    for (const p of socket.pending.values()) if (p.action.type === "arrange") return;
    const groups = handGroups(S);
    const cards = cardsKey(groups.flat());
    if (cards !== cardsKey(v.hand) || cards === S.arrangeRefusedFor) return;
    act({ type: "arrange", groups }, { quiet: true });
  }

  /**
   * The server's answer to an arrangement. Accepted as the page shows it now, the server is even
   * with the player; otherwise what changed since goes next. Refused, the page's arrangement stays
   * as it is (the hand changed under it at the server, a draw or discard on its way; it goes again
   * with the update, `sendOwedArrangement`), and a server that could not store it is asked again.
   * @param {Groups} groups what was sent @param {boolean} ok @param {string} [code] the refusal's error code
   */
  function arrangeAnswered(groups, ok, code) {
    if (ok) {
      S.arrangeRefusedFor = null;
      if (JSON.stringify(groups) === JSON.stringify(handGroups(S))) S.arrangeOwed = false;
      else sendOwedArrangement();
      return;
    }
    if (code === "unavailable") { setTimeout(sendOwedArrangement, ARRANGE_RETRY_MS); return; }
    S.arrangeRefusedFor = cardsKey(groups.flat());
    sendOwedArrangement();
  }

  return {
    act,
    arrangeAnswered,
    sendOwedArrangement,
    drawFrom,
    discard,
    startFinish,
    cancelFinish,
    confirmFinish,
    /** The selected cards into a group of their own. */
    groupSelected() { if (S.groups) { S.groups = groupCards(S.groups, S.selected); arranged(); } },
    /** @param {"rank" | "suit"} by */
    sort(by) {
      const all = (S.groups || []).flat();
      S.groups = by === "rank" ? groupByRank(all) : groupBySuit(all);
      arranged();
    },
    /** A card moved within the hand; `tg` past the last group makes a new one. @param {number} fg @param {number} fi @param {number} tg @param {number} ti */
    moveCard(fg, fi, tg, ti) {
      if (!S.groups) return;
      S.groups = moveCard(S.groups, fg, fi, tg, ti);
      arranged();
    },
    show() { act({ type: "show", groups: handGroups(S) }); },
    drop() { act({ type: "drop" }); },
    autoDrop() { act({ type: "auto_drop", on: true }); },
    imBack() { act({ type: "im_back" }); },
    /** Forfeit the game, then go back to the lobby. */
    leave() {
      act({ type: "leave" });
      setTimeout(() => { location.href = cfg.lobby_url; }, 600);
    },
    /** Say one of the table's quick messages to everyone at it. @param {import("../wire.js").QuickPhrase} phrase */
    sayQuick(phrase) {
      S.modal = null;
      if (!socket.raw({ type: "quick", phrase })) toast("Not connected: the message was not sent.", "info");
      paint();
    },
    /**
     * Drop & go: leave this game in one step, then offer a seat at a table about to start with the
     * same format and entry fee (the lobby's own list, GET /api/tables/; nextseat.js picks one with
     * someone seated), or the lobby when there is none.
     */
    dropAndGo() {
      const here = S.snap && S.snap.table;
      act({ type: "leave" });
      if (!here) { location.href = cfg.lobby_url; return; }
      const query = new URLSearchParams({ format: here.format, min_fee: String(here.entry_fee), max_fee: String(here.entry_fee), status: "open" });
      fetch("/api/tables/?" + query, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then((r) => (r.ok ? r.json() : []))
        .then((/** @type {import("../wire.js").TableRow[]} */ rows) => {
          S.modal = { kind: "next-seat", table: nextTable(rows, here.id) };
          paint();
        })
        .catch(() => { location.href = cfg.lobby_url; });
    },
    /** Take a seat at another table (the lobby's Join form, by fetch), and go there. @param {number} tableId */
    takeSeatAt(tableId) {
      const body = new URLSearchParams({ csrfmiddlewaretoken: cfg.csrf, client_seed: newClientSeed() });
      const url = cfg.join_url.replace("/" + cfg.table_id + "/", "/" + tableId + "/");
      fetch(url, { method: "POST", body, credentials: "same-origin" })
        .then((r) => { location.href = r.url || cfg.lobby_url; })
        .catch(() => toast("Could not take a seat; try again"));
    },
    /** Take a seat in the table's next game without leaving the page (the join form's POST, by fetch). */
    playAgain() {
      const body = new URLSearchParams({ csrfmiddlewaretoken: cfg.csrf, client_seed: newClientSeed() });
      fetch(cfg.join_url, { method: "POST", body, credentials: "same-origin" })
        .then((r) => {
          // refused (no chips, the table closed…): the lobby says why, as after the join form
          if (!r.ok || new URL(r.url).pathname !== location.pathname) { location.href = r.url || cfg.lobby_url; return; }
          S.modal = null;
          socket.raw({ type: "snapshot" }); // the new game's waiting seats (its notice brings them too)
          paint();
        })
        .catch(() => toast("Could not take a seat; try again"));
    },
  };
}

/** @typedef {ReturnType<typeof createMoves>} Moves */
