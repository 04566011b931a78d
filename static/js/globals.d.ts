// What the pages find on `window` besides the DOM: SortableJS, whose UMD build (static/vendor/sortable,
// imported when first needed: hand.js loadSortable) sets it there (types from npm's
// @types/sortablejs), and the read-only hooks the browser tests look through.
import type SortableClass from "sortablejs";
import type { TableState } from "./table/state.js";
import type { Action } from "./wire.js";
import type { TableSocket } from "./socket.js";

declare global {
  interface Window {
    Sortable?: typeof SortableClass;
    /** Safari's name for AudioContext. */
    webkitAudioContext?: typeof AudioContext;
    /** The table page's test hook: what the page knows (never more than the server sent). */
    rummyTable?: { state: TableState; send: (action: Action) => void; socket: TableSocket; settled: () => boolean };
    /** The table's socket as early.js opened it, with what it brought, until socket.js adopts it. */
    rummyEarlySocket?: { path: string; ws: WebSocket; brought: MessageEvent[] };
    /** Every sound the page asked for, in order (tests and the curious). */
    rummySounds?: string[];
  }
}
