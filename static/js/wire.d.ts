// The table and lobby sockets' messages (docs/protocol.md), as the browser code reads them.
//
// One place for the wire: every message the server sends is one exported type, and
// `ServerMessage` is their union, discriminated by `type`. A page's dispatch is a `switch` over
// it that ends in a `never` check, so a message type added here without a case fails `tsc`.
// Written from docs/protocol.md and the Python that builds each message (tables/realtime/consumers.py,
// tables/game/selectors.py, tables/game/notify.py, tables/game/staffops.py, tables/realtime/reminders.py,
// tables/realtime/lobbyfeed.py, game_engine/views.py, game_engine/events.py), and held to the server's
// contract at the end of this file: contract.d.ts is generated from contract.schema.json (which
// `manage.py wire_contract` makes from tables/contract.py; `npm run wire-types`, checked in
// scripts/test), and tsc fails when a message type, a notice kind, an event type, a field, or a
// field's type (its nullability and optionality too, all the way down) differ between the two.
// These types say more than the schema does where the server declares nothing yet: the view.
//
// Numbers: money in paise, times in ms since the epoch (`*_ms`, `deadline`, `at`), seats are the
// engine's seat numbers. Object keys that are seats or user ids are strings, as in JSON.

// ---------------------------------------------------------------------------- small pieces
/** A card: "10H", "JS", "AD", "PJ" (the printed joker). */
export type CardCode = string;
/** Groups of cards as a player arranges or shows them. */
export type Groups = CardCode[][];
/** Keyed by seat number written as a string ("0", "1", ...). */
export type BySeat<T> = Record<string, T>;
/** Keyed by user id written as a string (a view's `players[i].id`). */
export type ByPlayer<T> = Record<string, T>;

/** The one shape of every error (tables.errors.error_payload). */
export interface WireError {
  /** One of the error catalogue's codes (tables/errors.py, docs/protocol.md). */
  code: C.ErrorBody["code"];
  /** The rule of docs/rules.md it enforces ("docs/rules.md §6.5"), "API", or "" when none. */
  rule: string;
  message: string;
}

// ---------------------------------------------------------------------------- the table
/** A lobby row and a snapshot's `table` (tables.game.selectors.table_summary, LobbyTableSerializer). */
export interface TableRow {
  id: number;
  name: string;
  format: "61" | "101" | "201" | "points";
  format_label: string;
  entry_fee: number;
  entry_fee_display: string;
  seats: number;
  seats_taken: number;
  status: "open" | "playing";
  practice: boolean;
  /** The player's own practice table. */
  private: boolean;
  game_id: number | null;
  /** What a full table pays its winner: every seat's fee less the rake. */
  prize_pool: number;
  prize_pool_display: string;
  decks: number;
  turn_seconds: number;
}

export type GameStatus = "waiting" | "running" | "finished" | "cancelled";

/** tables.game.selectors.game_header. */
export interface GameHeader {
  id: number;
  status: GameStatus;
  version: number;
  deadline_at: string | null;
  /** "start" (the start countdown), "bots" (bots fill the seats), an engine deadline kind, or "". */
  deadline_kind: string;
  result: GameResult | CancelledResult | null;
}

/** The seats taken at the table (a snapshot's `seats`). */
export interface SeatRow {
  /** The chair at the table. */
  position: number;
  /** The engine's seat, once the game started. */
  seat: number | null;
  name: string;
  is_bot: boolean;
}

export interface You {
  user_id: number;
  name: string;
  position: number | null;
  seat: number | null;
  /** Whether this user may take a seat in the table's next game (its owner alone at a private table). */
  may_join: boolean;
}

/** The rules of the table (game_engine.formats.TableRules.to_dict). */
export interface TableRules {
  kind: "pool" | "points";
  pool_limit: number;
  first_drop: number;
  middle_drop: number;
  /** The cap of a loser's count (docs/rules.md §5.4). */
  full_count: number;
  wrong_show: number;
  rejoin_threshold: number;
  decks: number;
  min_players: number;
  max_players: number;
  turn_ms: number;
  extra_time_ms: number;
  declare_ms: number;
  next_deal_ms: number;
  rejoin_ms: number;
  split_ms: number;
  entry_fee: number;
  rake_bp: number;
  auto_split_min_fee: number;
  rejoin_max_fee: number | null;
  point_value: number;
}

export type Phase =
  | "dealing"
  | "playing"
  | "declaring"
  | "between_deals"
  | "rejoin_window"
  | "split_offer"
  | "finished";
export type DealPhase = "turn" | "finishing" | "showing" | "done";
/** A seat's state in a deal. */
export type DealStatus = C.SeatStatus;
export type DeadlineKind = "turn" | "extra" | "declare" | "next_deal" | "rejoin" | "split";
export type ActionType = Action["type"];

/** One seat of a view (game_engine.views.view_for). */
export interface PlayerView {
  seat: number;
  /** The player's user id, as a string. */
  id: string;
  name: string;
  score: number;
  eliminated: boolean;
  left: boolean;
  rejoins: number;
  drops_remaining: number;
  /** The extra-time bank left. */
  extra_ms: number;
  in_deal: boolean;
  status: DealStatus | null;
  card_count: number;
  turns_taken: number;
}

// Parts of the view as the server declares them (game_engine/views.py), nothing to add here.
/** The server's next deadline: `seat`'s clock, or the table's (null). */
export type Deadline = C.DeadlineView;
export type RejoinOfferView = C.RejoinOfferView;
/** A split on offer: the amounts by seat, who accepted. */
export type SplitOfferView = C.SplitOfferView;
/** The shuffle's public side (docs/fairness.md): commitments, never a secret seed. */
export type FairnessView = C.FairnessView;

/** A seat's line of a deal's result sheet. */
export interface DealPlayerResult {
  status: DealStatus;
  points: number;
  deal_show: boolean;
  /** "first_drop", "middle_drop", "wrong_show", "missed_turns", "auto_drop", "left", ... */
  reason: string | null;
  groups: Groups | null;
}

/** A deal's result sheet (game_engine.deal.DealState.public_result; the `deal_over` event). */
export interface DealResult {
  deal_no: number;
  winner: number | null;
  declarer: number | null;
  cut_joker: CardCode;
  wild_rank: number;
  finish_card: CardCode | null;
  players: BySeat<DealPlayerResult>;
  /** The revealed server seed: the game's seats only, absent for a spectator (docs/fairness.md). */
  server_seed?: string;
  client_seeds: string[];
  commitment: string;
}

/** The end of a game (the `game_over` event's fields; a view's `result`, a game's `result`). */
export interface GameResult {
  payouts: ByPlayer<number>;
  rake: number;
  prize_pool: number;
  fees_paid: number;
  /** The winner's player id. */
  winner: string | null;
  winner_seat: number | null;
  split: "manual" | "auto" | null;
  scores: ByPlayer<number>;
}

/** A game staff cancelled (tables.game.staffops): its `game.result`. */
export interface CancelledResult {
  cancelled: true;
  message: string;
  rule: string;
  fees_paid: number;
  settlement: Settlement;
  payouts: ByPlayer<number>;
  rake: number;
  prize_pool: number;
  split?: undefined;
  winner?: undefined;
}

export type Settlement = "refund" | "split" | "none";

/** What one seat (or a spectator, `seat` null) may see of the game (game_engine.views.view_for). */
export interface View {
  version: number;
  phase: Phase;
  format: "pool" | "points";
  pool_limit: number;
  rules: TableRules;
  seat: number | null;
  players: PlayerView[];
  deal_no: number;
  order: number[];
  dealer: number | null;
  toss: BySeat<CardCode>;
  deadline: Deadline | null;
  fees_paid: number;
  prize_pool: number;
  rejoin_offer: RejoinOfferView | null;
  split_offer: SplitOfferView | null;
  last_result: DealResult | null;
  result: GameResult | null;
  fairness: FairnessView;
  /** A hint of the actions this seat may send now; the server decides. */
  legal: ActionType[];
  auto_drop: boolean | null;
  deal_phase: DealPhase | null;
  turn: number | null;
  has_drawn: boolean;
  closed_count: number;
  open_top: CardCode | null;
  open_pile: CardCode[];
  cut_joker: CardCode | null;
  wild_rank: number | null;
  finish_slot_filled: boolean;
  declarer: number | null;
  /** Groups shown so far in the declaration, by seat. */
  shown: BySeat<Groups>;
  /** Yours only: null for a spectator and outside a deal. */
  hand: CardCode[] | null;
  arrangement: Groups | null;
  arranged: boolean;
  drawn_card: CardCode | null;
  can_pick_open: boolean;
  /** What a drop costs this seat now (docs/rules.md §6.7); null when it may not drop. */
  drop_points: number | null;
}

// ---------------------------------------------------------------------------- events
// game_engine/events.py, one type per catalogue entry (docs/protocol.md, "Events"). After a gap
// (`"rebuilt": true`) each event also carries its `version`.
interface EventBase {
  version?: number;
}
export interface SeatTakenEvent extends EventBase { type: "seat_taken"; position: number; name: string }
export interface SeatLeftEvent extends EventBase { type: "seat_left"; position: number; name: string }
export interface GameStartedEvent extends EventBase { type: "game_started"; players: { seat: number; name: string }[] }
export interface TossEvent extends EventBase { type: "toss"; cards: BySeat<CardCode>; order: number[]; dealer: number }
export interface DealStartedEvent extends EventBase {
  type: "deal_started";
  deal_no: number;
  order: number[];
  dealer: number;
  first: number;
  cut_joker: CardCode;
  wild_rank: number;
  open_card: CardCode;
  closed_count: number;
  commitment: string;
  client_seeds: string[];
}
export interface TurnEvent extends EventBase { type: "turn"; seat: number; deal_no: number; started_at: number; deadline: number }
export interface DrawEvent extends EventBase {
  type: "draw";
  seat: number;
  source: "closed" | "open";
  /** Only from the open pile. */
  card?: CardCode;
}
export interface DiscardEvent extends EventBase { type: "discard"; seat: number; card: CardCode; auto: boolean }
export interface ReshuffleEvent extends EventBase { type: "reshuffle"; closed_count: number; open_top: CardCode }
export interface ExtraTimeEvent extends EventBase { type: "extra_time"; seat: number; bank_ms: number; deadline: number }
export interface TurnMissedEvent extends EventBase { type: "turn_missed"; seat: number; misses: number }
export interface DropEvent extends EventBase { type: "drop"; seat: number; points: number; reason: string }
export interface FinishEvent extends EventBase { type: "finish"; seat: number; deadline: number }
export interface DeclarationEvent extends EventBase {
  type: "declaration";
  seat: number;
  valid: boolean;
  points: number;
  groups: Groups;
  deadline: number | null;
  open_top: CardCode | null;
  reason: string | null;
}
export interface ShowEvent extends EventBase { type: "show"; seat: number; points: number; deal_show: boolean; groups: Groups }
export interface DealOverEvent extends EventBase, DealResult { type: "deal_over" }
export interface ScoresEvent extends EventBase {
  type: "scores";
  deal_no: number;
  points: BySeat<number>;
  scores: BySeat<number>;
  eliminated: number[];
  drops_remaining: BySeat<number>;
}
export interface EliminatedEvent extends EventBase { type: "eliminated"; seat: number; score: number }
export interface RejoinOfferEvent extends EventBase { type: "rejoin_offer"; seats: number[]; score: number; fee: number; deadline: number }
export interface RejoinedEvent extends EventBase { type: "rejoined"; seat: number; score: number; fee: number; prize_pool: number }
export interface SplitOfferEvent extends EventBase { type: "split_offer"; amounts: BySeat<number>; deadline: number }
export interface SplitAcceptedEvent extends EventBase { type: "split_accepted"; seat: number }
export interface SplitDeclinedEvent extends EventBase {
  type: "split_declined";
  /** null: the offer's time ran out. */
  seat: number | null;
}
export interface NextDealEvent extends EventBase { type: "next_deal"; deal_no: number; at: number }
export interface PlayerLeftEvent extends EventBase { type: "player_left"; seat: number }
export interface GameOverEvent extends EventBase, GameResult { type: "game_over" }
/**
 * Staff cancelled the game (tables.game.staffops; not in the engine's catalogue yet). Sent live with
 * `message` and `settlement`; rebuilt from the stored event with `payouts` and `rake` too.
 */
export interface GameCancelledEvent extends EventBase {
  type: "game_cancelled";
  message: string;
  settlement: Settlement;
  payouts: ByPlayer<number>;
  rake: number;
}

export type GameEvent =
  | SeatTakenEvent
  | SeatLeftEvent
  | GameStartedEvent
  | TossEvent
  | DealStartedEvent
  | TurnEvent
  | DrawEvent
  | DiscardEvent
  | ReshuffleEvent
  | ExtraTimeEvent
  | TurnMissedEvent
  | DropEvent
  | FinishEvent
  | DeclarationEvent
  | ShowEvent
  | DealOverEvent
  | ScoresEvent
  | EliminatedEvent
  | RejoinOfferEvent
  | RejoinedEvent
  | SplitOfferEvent
  | SplitAcceptedEvent
  | SplitDeclinedEvent
  | NextDealEvent
  | PlayerLeftEvent
  | GameOverEvent
  | GameCancelledEvent;
export type GameEventType = GameEvent["type"];

// ---------------------------------------------------------------------------- server -> client
/** Everything this player may see now: on connect, on asking, and after a new game or a gap. */
export interface Snapshot {
  type: "snapshot";
  version: number;
  table: TableRow;
  /** null before anyone sits. */
  game: GameHeader | null;
  seats: SeatRow[];
  you: You;
  /** null while the game waits for players. */
  view: View | null;
  /** The game's people at the table (a table socket's snapshot). */
  presence?: ByPlayer<PlayerPresence>;
}

/** The game moved on. */
export interface Update {
  type: "update";
  version: number;
  events: GameEvent[];
  view: View | null;
  game: GameHeader | null;
  /** Only in a rebuilt update. */
  seats?: SeatRow[];
  /**
   * Not sent by the server yet (issue 24: a seat taken while the game waits sends an update
   * without it, so the page's "N / M seats taken" stays as it was); the page takes it when it comes.
   */
  table?: TableRow;
  /** After a gap: every event since the client's last version, each with its `version`. */
  rebuilt?: true;
}

/** Your own view changed at the same version (an arrangement made in another tab). */
export interface ViewMessage {
  type: "view";
  version: number;
  view: View;
}

/** The answer to one action. */
export type Result = {
  type: "result";
  /** null when the action had no usable request id. */
  request_id: string | null;
} & (
  | { ok: true; version: number; repeated?: true }
  | { ok: false; error: WireError }
);

/** The engine's verdict on one group. */
export interface GroupVerdict {
  kind: "pure_sequence" | "impure_sequence" | "set" | "invalid";
  /** What the group's cards count if it does not help (jokers 0). */
  points: number;
}

/** The engine's verdict on groups (game_engine.melds.verdict), for this table. */
export interface Verdict {
  groups: GroupVerdict[];
  /** The docs/rules.md §5 count of the whole, before the cap. */
  points: number;
  /** What the rules charge this hand as a loser's count at this table: `points` capped at its full count (§5.4). */
  score: number;
  /** A valid declaration (docs/rules.md §4). */
  valid: boolean;
  /** 14 cards: the card to put in the finish slot for a valid declaration of these groups; absent when there is none. */
  finish_with?: string;
}

/** The answer to `evaluate`. */
export type Evaluation = { type: "evaluation"; request_id: string | null } & (
  | ({ ok: true } & Verdict)
  | { ok: false; error: WireError }
);

/** A message the socket could not take (malformed, too many, unknown type). */
export interface ErrorMessage {
  type: "error";
  error: WireError;
}

/** Staff cancelled the game, or closed the table of a game waiting for players. */
export interface GameCancelledNotice {
  type: "notice";
  kind: "game_cancelled";
  game_id: number;
  /** Staff's message to the players, as they wrote it: text, never markup. */
  message: string;
  /** The settlement in a sentence. */
  money: string;
  settlement: Settlement;
  /** By user id, in paise. */
  payouts: ByPlayer<number>;
  payouts_display: ByPlayer<string>;
}

/** Another hour of play today (tables.realtime.reminders). */
export interface PlayReminderNotice {
  type: "notice";
  kind: "play_reminder";
  played_minutes: number;
  message: string;
}

/** To the player alone: their seat was given back before the start (fair play), fee refunded. */
export interface UnseatedNotice {
  type: "notice";
  kind: "unseated";
  game_id: number;
  /** What the player is told, naming nobody. */
  message: string;
  /** The entry fee's return in a sentence; empty on a free table. */
  money: string;
}

/** Something for the people at the table, in words; not part of the game state. */
export type Notice = GameCancelledNotice | PlayReminderNotice | UnseatedNotice;
export type NoticeKind = Notice["kind"];

/** The answer to `ping`; the table socket adds the version it shows. */
export interface Pong {
  type: "pong";
  version?: number;
}

/** A seated person's presence at the table: connected, or away since `away_since` (ms). */
export type PlayerPresence = C.PlayerPresence;

/** Who of the game's people has the table open (bots have none), by user id. */
export interface Presence {
  type: "presence";
  players: ByPlayer<PlayerPresence>;
}

/** The fixed phrases of a quick message (tables/realtime/quick.py), by key. */
export type QuickPhrase = C.QuickMessage["phrase"];

/** A player at the table sent a quick message (to everyone at the table, the sender too). */
export interface QuickMessage {
  type: "quick_message";
  seat: number;
  phrase: QuickPhrase;
  text: string;
}

/** The lobby socket: tables whose seats or status changed, with the public ones' rows. */
export interface LobbyUpdate {
  type: "lobby_update";
  tables: number[];
  /** null when the server could not read them. */
  rows: TableRow[] | null;
}

export type ServerMessage =
  | Snapshot
  | Update
  | ViewMessage
  | Result
  | Evaluation
  | ErrorMessage
  | Notice
  | QuickMessage
  | Presence
  | Pong
  | LobbyUpdate;
export type ServerMessageType = ServerMessage["type"];

// ---------------------------------------------------------------------------- client -> server
export type Action =
  | { type: "draw"; source: "closed" | "open" }
  | { type: "discard"; card: CardCode }
  | { type: "finish"; card: CardCode; groups: Groups }
  | { type: "show"; groups: Groups }
  | { type: "arrange"; groups: Groups }
  | { type: "drop" }
  | { type: "auto_drop"; on: boolean }
  | { type: "im_back" }
  | { type: "client_seed"; seed: string }
  | { type: "rejoin" }
  | { type: "split_accept" }
  | { type: "split_decline" }
  | { type: "leave" };

export type ClientMessage =
  | { type: "action"; request_id: string; action: Action }
  | { type: "evaluate"; request_id: string; groups: Groups; wild_rank?: number | null }
  | { type: "quick"; phrase: QuickPhrase }
  | { type: "snapshot"; since?: number }
  | { type: "ping" };

// ---------------------------------------------------------------------------- held to the contract
import type * as C from "./contract";

/** true when A and B are the same set (of message types, kinds, field names). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Compiles only when every entry of T is true. */
type AllTrue<T extends Record<string, boolean>> = T[keyof T] extends true ? true : false;
/** The field names of each member of a union, together. */
type Fields<T> = T extends unknown ? keyof T : never;

type ByType<U, K> = Extract<U, { type: K }>;
type ContractEvent = C.Update["events"][number];

/** Every message type the server sends, and no other, has a type here. */
export type MessagesMatch = AllTrue<{ types: Same<ServerMessageType, C.ServerMessage["type"]> }>;
/** Each message has the contract's fields (a field added on the server must be added here). */
export type MessageFieldsMatch = AllTrue<{
  [K in ServerMessageType]: Same<Fields<ByType<ServerMessage, K>>, Fields<ByType<C.ServerMessage, K>>>;
}>;
/** Every notice kind, and no other. */
export type NoticeKindsMatch = AllTrue<{
  kinds: Same<NoticeKind, ByType<C.ServerMessage, "notice">["kind"]>;
}>;
/** Every game event type, and no other, with the contract's fields. */
export type EventsMatch = AllTrue<{ types: Same<GameEventType, ContractEvent["type"]> }>;
export type EventFieldsMatch = AllTrue<{
  [K in GameEventType]: Same<Exclude<Fields<ByType<GameEvent, K>>, "version">, Exclude<Fields<ByType<ContractEvent, K>>, "version">>;
}>;

/**
 * A type as the field check compares it: an object the server leaves open (`dict[str, Any]`, not
 * declared there yet: the view) is `any`, an object's "and any other field" is dropped, and the
 * rest is compared all the way down.
 */
type Declared<T> = T extends readonly (infer E)[]
  ? Declared<E>[]
  : T extends object
    ? string extends keyof T
      ? Named<T> extends never
        ? unknown extends T[string] ? any : Record<string, Declared<T[string]>>
        : { [K in keyof T as string extends K ? never : K]: Declared<T[K]> }
      : { [K in keyof T]: Declared<T[K]> }
    : T;
/** The named fields of T, without its index signature. */
type Named<T> = keyof { [K in keyof T as string extends K ? never : K]: 1 };
/** Field F of each member of the union U, together; `undefined` where a member has none. */
type FieldOf<U, F extends PropertyKey> = U extends unknown ? (F extends keyof U ? U[F] : undefined) : never;
/** Each field of the contract's message K has the same type here, nullability and optionality too. */
type FieldTypesSame<K> = AllTrue<{
  [F in Fields<ByType<C.ServerMessage, K>>]: Same<
    Declared<FieldOf<ByType<ServerMessage, K>, F>>,
    Declared<FieldOf<ByType<C.ServerMessage, K>, F>>
  >;
}>;
export type MessageFieldTypesMatch = AllTrue<{ [K in ServerMessageType]: FieldTypesSame<K> }>;

/** The check itself: tsc refuses `Held<false>` ("Type 'false' does not satisfy the constraint 'true'"). */
type Held<T extends true> = T;
export type ContractHeld = [
  Held<MessagesMatch>,
  Held<MessageFieldsMatch>,
  Held<MessageFieldTypesMatch>,
  Held<NoticeKindsMatch>,
  Held<EventsMatch>,
  Held<EventFieldsMatch>,
];
