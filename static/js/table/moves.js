// @ts-check
// The player's moves: intentions checked against what the server allows now (the view's `legal`,
// `can_pick_open`), said in words when they cannot be made, and sent as actions over the socket.
// The server decides; its `result` says if a move was refused (dispatch.js). Every way to play a
// move (a click, a drag, and keys in issue 25) comes through here.
import { groupByRank, groupBySuit } from "../cards.js";
import { groupSelected as groupCards, moveCard } from "../hand.js";
import { newClientSeed } from "../fairness.js";
import { canDiscard, canDraw, canFinish, handGroups, legal, myTurn, restoreFinish, without } from "./state.js";

/** @typedef {import("./state.js").TableState} TableState */
/** @typedef {import("./state.js").Pos} Pos */
/** @typedef {import("./config.js").TableConfig} TableConfig */
/** @typedef {import("./ui.js").Ui} Ui */
/** @typedef {import("../socket.js").TableSocket} TableSocket */
/** @typedef {import("../wire.js").Action} Action */
/** @typedef {import("../wire.js").CardCode} CardCode */

/**
 * @param {{S: TableState, cfg: TableConfig, socket: TableSocket, ui: Ui}} deps
 */
export function createMoves({ S, cfg, socket, ui }) {
  const { paint, toast } = ui;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let arrangeTimer;

  /** Send an action; quiet: no word if it cannot be sent now. @param {Action} action @param {{quiet?: boolean}} [opts] */
  function act(action, opts) {
    if (!socket.act(action, opts) && !(opts && opts.quiet)) toast("Not connected: your move will be sent when the connection is back.", "info");
  }

  /** @param {"closed" | "open"} source */
  function drawFrom(source) {
    if (!canDraw(S)) { toast(myTurn(S) ? "You have drawn already: discard a card, or finish" : "It is not your turn to draw"); return; }
    if (source === "open" && !S.view?.can_pick_open) { toast("A joker on the open pile cannot be picked up"); return; }
    act({ type: "draw", source });
  }

  /** @param {CardCode} code */
  function discard(code) {
    if (!canDiscard(S)) { toast("You can discard only on your turn, after drawing"); return; }
    S.selected = [];
    act({ type: "discard", card: code });
    paint();
  }

  /** Put `code` in the finish slot and ask to confirm the declaration. @param {CardCode} code @param {Pos | null} from */
  function startFinish(code, from) {
    if (!canFinish(S) || !S.groups) { toast("You can finish only on your turn, after drawing"); return; }
    S.finishFrom = from || null;
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
  }

  function confirmFinish() {
    const m = S.modal;
    if (m && m.kind === "declare") act({ type: "finish", card: m.card, groups: m.groups });
    S.modal = null;
    paint();
  }

  /** The arrangement changed: paint it, and tell the server once it settles (it is what gets scored). */
  function arranged() {
    S.selected = [];
    paint();
    clearTimeout(arrangeTimer);
    arrangeTimer = setTimeout(() => { if (legal(S, "arrange") && S.groups) act({ type: "arrange", groups: handGroups(S) }, { quiet: true }); }, 350);
  }

  return {
    act,
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
     * same format and entry fee (the lobby's own list, GET /api/tables/: open, the most seats
     * taken first), or the lobby when there is none.
     */
    dropAndGo() {
      const here = S.snap && S.snap.table;
      act({ type: "leave" });
      if (!here) { location.href = cfg.lobby_url; return; }
      const query = new URLSearchParams({ format: here.format, min_fee: String(here.entry_fee), max_fee: String(here.entry_fee), status: "open" });
      fetch("/api/tables/?" + query, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then((r) => (r.ok ? r.json() : []))
        .then((/** @type {import("../wire.js").TableRow[]} */ rows) => {
          const open = rows.filter((r) => r.id !== here.id && !r.practice && !r.private && r.seats_taken < r.seats);
          open.sort((a, b) => b.seats_taken - a.seats_taken || a.id - b.id);
          S.modal = { kind: "next-seat", table: open[0] || null };
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
