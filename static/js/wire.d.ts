// The table and lobby sockets' messages (docs/protocol.md), by the names the browser code uses.
//
// Every message the server sends is declared once, on the server (tables/contract.py, with the
// view in game_engine/views.py and the events in game_engine/events.py), and generated into
// contract.d.ts: `manage.py wire_contract` writes contract.schema.json and docs/protocol.md from
// those declarations, `npm run wire-types` makes contract.d.ts from the schema, and scripts/test
// fails when either is stale. A field changed there changes the types here, and tsc checks the
// page's code against it. This file only names those types, and the unions a page switches over.
//
// What the page sends is declared in tables/protocol.py, an action's fields by its dataclass in
// game_engine/actions.py, and generated the same way (`ClientMessage`).
//
// Numbers: money in paise, times in ms since the epoch (`*_ms`, `deadline`, `at`), seats are the
// engine's seat numbers. Object keys that are seats or user ids are strings, as in JSON.
import type * as C from "./contract";

// ---------------------------------------------------------------------------- small pieces
/** A card: "10H", "JS", "AD", "PJ" (the printed joker). */
export type CardCode = string;
/** Groups of cards as a player arranges or shows them. */
export type Groups = CardCode[][];
/** Keyed by user id written as a string (a view's `players[i].id`). */
export type ByPlayer<T> = Record<string, T>;

export type WireError = C.ErrorBody;

// ---------------------------------------------------------------------------- the table
export type TableRow = C.TableSummary;
export type GameHeader = C.GameHeader;
export type View = C.View;
export type PlayerView = C.PlayerView;
export type FairnessView = C.FairnessView;
export type DealResult = C.DealResult;
export type DeadlineKind = C.DeadlineView["kind"];
export type PlayerPresence = C.PlayerPresence;
export type GroupVerdict = C.GroupVerdict;
/** The engine's verdict on groups (game_engine.melds.verdict): an evaluation's answer. */
export type Verdict = Omit<C.Evaluated, "type" | "request_id" | "ok">;
/** The fixed phrases of a quick message (tables/realtime/quick.py), by key. */
export type QuickPhrase = C.QuickMessage["phrase"];

// ---------------------------------------------------------------------------- server -> client
export type ServerMessage = C.ServerMessage;
export type Snapshot = C.Snapshot;
/** One event of an update (game_engine/events.py): a union discriminated by `type`. */
export type GameEvent = C.Update["events"][number];
export type ScoresEvent = C.Scores;
/** The answer to one action: `ok` and the version, or the `error`. */
export type Result = C.Accepted | C.Refused;
/** The answer to `evaluate`. */
export type Evaluation = C.Evaluated | C.NotEvaluated;
/** Something for the people at the table, in words; not part of the game state. */
export type Notice = Extract<ServerMessage, { type: "notice" }>;
export type GameCancelledNotice = C.GameCancelledNotice;
export type LobbyUpdate = C.LobbyUpdate;

// ---------------------------------------------------------------------------- client -> server
export type ClientMessage = C.ClientMessage;
/** A player's move (game_engine/actions.py, less the seat and time the server stamps). */
export type Action = C.ActionMessage["action"];
export type ActionType = Action["type"];

/** Every action a player may send (the engine's actions), and no other, is one the view's `legal` names. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Held<T extends true> = T;
export type ActionsHeld = Held<Same<ActionType, C.View["legal"][number]>>;
