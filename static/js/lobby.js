// @ts-check
// The lobby, live: /ws/lobby/ says which tables changed, at most once a second, with their rows
// (tables/realtime/lobbyfeed.py); the page puts those that pass its filters in its list. What it cannot take
// from the message (your own practice table, a closed table) it asks GET /api/tables/?ids= for.
// The whole list is loaded on opening, after a reconnect and when the filters change.
// A native ES module on the shared pieces: the socket of socket.js (reconnects with backoff),
// tiles drawn with the vendored htm+Preact, so a table's name only ever reaches the page as a text node.
import { html, render } from "../vendor/htm-preact/standalone.module.js";
import { newClientSeed } from "./fairness.js"; // docs/fairness.md: this browser's own seed for the shuffle
import { TableSocket } from "./socket.js";

/** @typedef {import("./wire.js").TableRow} TableRow */
/** @typedef {import("./wire.js").LobbyUpdate} LobbyUpdate */

const grid = document.getElementById("lobby-tables");
const form = /** @type {HTMLFormElement | null} */ (document.getElementById("lobby-filters"));
const live = /** @type {HTMLElement} */ (document.getElementById("lobby-live"));

/** The filters chosen, as the query of GET /api/tables/. */
function params() {
  const q = new URLSearchParams();
  new FormData(/** @type {HTMLFormElement} */ (form)).forEach((v, k) => { if (v) q.set(k, String(v)); });
  return q;
}

/** @param {{label: string, cls: string, value: string}} props */
function Fact({ label, cls, value }) {
  return html`<div><dt>${label}</dt><dd class=${cls}>${value}</dd></div>`;
}

/** @param {{t: TableRow, csrf: string}} props */
function Tile({ t, csrf }) {
  const url = "/tables/" + encodeURIComponent(t.id) + "/";
  const tag = t.private ? "your practice" : t.practice ? "practice" : null;
  const dots = [];
  for (let i = 0; i < t.seats; i++) dots.push(html`<i key=${i} class=${i < t.seats_taken ? "on" : ""}></i>`);
  return html`<article class=${"table-tile fmt-" + t.format + " st-" + t.status} data-table-id=${String(t.id)}>
    <header>
      <span class="fmt-badge">${t.format_label}</span>
      ${tag ? html`<span class="tag">${tag}</span>` : null}
      <span class=${"status status-" + t.status}>${t.status === "open" ? "Open" : "Playing"}</span>
    </header>
    <h2><a href=${url}>${t.name}</a></h2>
    <dl class="tile-facts">
      <${Fact} label="Entry" cls="fee-value" value=${t.entry_fee ? t.entry_fee_display : "Free"} />
      <${Fact} label="Prize pool" cls="prize-value" value=${t.prize_pool ? t.prize_pool_display : "—"} />
      <${Fact} label="Decks" cls="decks-value" value=${String(t.decks)} />
      <${Fact} label="Turn" cls="turn-value" value=${t.turn_seconds + " s"} />
    </dl>
    <p class="seats-line"><span class="dots">${dots}</span> <span class="seat-count">${t.seats_taken + " / " + t.seats}</span> seated</p>
    <footer>
      ${t.status === "open" && !t.private ? html`<form method="post" action=${url + "join/"} class="inline">
          <input type="hidden" name="csrfmiddlewaretoken" value=${csrf} />
          <input type="hidden" name="client_seed" value=${newClientSeed()} />
          <button type="submit" class="primary join-btn">Join · ${t.entry_fee ? t.entry_fee_display : "free"}</button>
        </form>` : null}
      <a class="button ghost" href=${url}>${t.private ? "Back to your game" : t.status === "open" ? "View" : "Watch"}</a>
    </footer>
  </article>`;
}

/** @param {{rows: TableRow[], csrf: string}} props */
function Tiles({ rows, csrf }) {
  if (!rows.length) return html`<p class="empty">No tables match. Try another filter.</p>`;
  return rows.map((t) => html`<${Tile} key=${t.id} t=${t} csrf=${csrf} />`);
}

let first = true;
/** @type {TableRow[]} the rows on screen, in the server's order (table id) */
let shown = [];
const MAX_IDS = 500; // GET /api/tables/?ids= takes this many (tables/apis.py)

/** @param {number[] | null} ids @returns {Promise<TableRow[]>} */
function fetchRows(ids) {
  const q = params();
  if (ids) q.set("ids", ids.join(","));
  return fetch(String(/** @type {HTMLElement} */ (grid).dataset.api) + "?" + q.toString(), { credentials: "same-origin", headers: { Accept: "application/json" } })
    .then((r) => { if (!r.ok) throw new Error(String(r.status)); return r.json(); });
}

/** @param {TableRow[]} rows @param {Set<number> | null} changed the tiles to flash (null: none) */
function paint(rows, changed) {
  const box = /** @type {HTMLElement} */ (grid);
  if (first) { box.textContent = ""; first = false; box.dataset.live = "1"; } // the server's tiles give way to the live ones
  shown = rows;
  render(html`<${Tiles} rows=${rows} csrf=${box.dataset.csrf || ""} />`, box);
  /** @type {NodeListOf<HTMLElement>} */ (box.querySelectorAll(".table-tile")).forEach((node) => {
    if (changed && !changed.has(Number(node.dataset.tableId))) return;
    node.classList.remove("flash");
    void node.offsetWidth; // restart the animation
    node.classList.add("flash");
  });
}

/** The whole list: on opening, after a reconnect, when the filters change. */
function reload() {
  return fetchRows(null).then((rows) => paint(rows, null)).catch(() => {});
}

/** Put ``fresh`` rows in the list in place of the tables ``ids`` names (absent from ``fresh``: gone). @param {number[]} ids @param {TableRow[]} fresh */
function merge(ids, fresh) {
  const named = new Set(ids);
  paint(shown.filter((r) => !named.has(r.id)).concat(fresh).sort((a, b) => a.id - b.id), named);
}

/** Only the tables a lobby_update named without a row: the server answers those that match the filters. @param {number[]} ids */
function refresh(ids) {
  if (first || ids.length > MAX_IDS) return reload();
  return fetchRows(ids).then((fresh) => merge(ids, fresh)).catch(() => {});
}

/**
 * Whether a lobby row passes the page's filters: the player's own query (format, status, an entry
 * fee between two bounds) over fields the server computed and sent in the row (its `status` is the
 * server's word), each filter read as the server reads it (tables/game/selectors.py lobby_tables,
 * tables/apis.py FEE_FILTER). It stays in the page: the rows ride on every lobby_update so that an
 * open lobby asks the server for nothing (a filtered lobby that asked GET /api/tables/?ids= for each
 * change saturated two Daphnes in bench/load/lobby_bench.py), and the server could filter them only
 * by keeping every lobby socket's filters and sending each socket its own frame.
 * @param {TableRow} row @param {URLSearchParams} q
 */
function matches(row, q) {
  /** @param {string} k */
  const fee = (k) => (/^-?[0-9]{1,15}$/.test(q.get(k) || "") ? Number(q.get(k)) : null);
  const low = fee("min_fee"), high = fee("max_fee");
  return (!q.get("format") || row.format === q.get("format"))
    && (!q.get("status") || row.status === q.get("status"))
    && (low === null || row.entry_fee >= low)
    && (high === null || row.entry_fee <= high);
}

/**
 * A lobby_update: the rows it carries go in at once, those that pass the filters, and a named table
 * whose row does not pass leaves the list; the tables it names without a row (your own practice
 * table, a closed table) are asked for.
 */
/** @param {LobbyUpdate} msg @param {(ids: number[]) => void} ask */
function onUpdate(msg, ask) {
  let ids = msg.tables || [];
  if (!first && msg.rows) {
    const q = params();
    const rows = msg.rows.filter((r) => ids.includes(r.id));
    const have = new Set(rows.map((r) => r.id));
    if (rows.length) merge(Array.from(have), rows.filter((r) => matches(r, q)));
    ids = ids.filter((id) => !have.has(id));
  }
  if (ids.length) ask(ids);
}

function start() {
  // the server-rendered join forms and the practice form get this browser's seed too
  /** @type {NodeListOf<HTMLFormElement>} */ (document.querySelectorAll('form[action$="/join/"], form#practice-now')).forEach((f) => {
    const input = document.createElement("input");
    input.type = "hidden"; input.name = "client_seed"; input.value = newClientSeed();
    f.appendChild(input);
  });
  const practice = document.getElementById("practice-now");
  if (practice) {
    practice.addEventListener("submit", () => {
      const button = /** @type {HTMLButtonElement} */ (document.getElementById("practice-start"));
      // the form posts once: a second click while the table is being dealt does nothing
      setTimeout(() => { button.disabled = true; button.textContent = "Dealing…"; }, 0);
    });
  }
  if (!grid || !form) return;
  form.addEventListener("change", () => {
    history.replaceState(null, "", "?" + params().toString());
    reload();
  });
  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;
  /** @type {Set<number>} */
  const pending = new Set();
  const socket = new TableSocket("/ws/lobby/", {
    state(kind, detail) {
      live.classList.toggle("on", kind === "open");
      live.title = kind === "open" ? "Live updates on" : detail || "Reconnecting…";
      if (kind === "open") reload(); // anything missed while disconnected
    },
    message(msg) {
      // at most one a second from the server (tables/realtime/lobbyfeed.py); every open lobby hears it at
      // the same moment, so each waits a moment of its own before asking for the tables it names
      if (!msg) return;
      switch (msg.type) {
        case "lobby_update":
          onUpdate(msg, (ids) => {
            ids.forEach((id) => pending.add(id));
            if (timer !== null) return;
            timer = setTimeout(() => {
              timer = null;
              const asked = Array.from(pending);
              pending.clear();
              refresh(asked);
            }, 100 + Math.random() * 600);
          });
          break;
        case "error": // a frame the server could not read: nothing of the list changed
          live.title = (msg.error && msg.error.message) || "The server could not read that message";
          break;
        case "pong": // the answer to a ping: nothing to show
          break;
        default: // the table socket's messages: never sent on the lobby socket
      }
    },
    fatal(text) {
      live.classList.remove("on");
      live.title = text;
    },
  });
  socket.connect();
}

start();
