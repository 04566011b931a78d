// @ts-check
// Replay of a finished deal (issue 13): the table at every step, rebuilt by the server from the
// stored events and the revealed seeds alone (game_engine/replay.py), every hand open and grouped
// as its player last arranged it (the deal's result records it), a timeline with markers for
// drops, shows and eliminations, jump to a turn, step/play/pause.
//
// Shares the table page's modules (cards.js on vendored htm+Preact): player names are text
// nodes by construction, never markup. No rule lives here; group labels come from the engine.
import { html, render } from "../vendor/htm-preact/standalone.module.js";
import { Card, cardName, cardWords, groupBySuit, hasWildRank } from "./cards.js";
import { outcomeWords } from "./outcomes.js";

/** @typedef {import("./wire.js").GameEvent} GameEvent */
/** @typedef {import("./wire.js").CardCode} CardCode */
/** @typedef {import("./wire.js").Groups} Groups */
/**
 * The table after one event, rebuilt by the server (game_engine/replay.py `_step`).
 * @typedef {object} ReplayStep
 * @property {GameEvent} event
 * @property {Record<string, CardCode[]>} hands every hand, by seat
 * @property {CardCode[]} open_pile
 * @property {number} closed_count
 * @property {CardCode | null} cut_joker
 * @property {number | null} turn
 * @property {CardCode | null} drawn
 */
/**
 * The deal's stored result (tables/services.py): its result sheet, the players' names and scores
 * by seat, and how each last arranged their hand.
 * @typedef {Partial<import("./wire.js").DealResult> & {names?: Record<string, string>, scores?: Record<string, number>, arrangements?: Record<string, Groups>}} StoredResult
 */
/** @typedef {{cls: string, label: string, title: string}} Marker */

/** @type {Record<string, string>} */
const KIND = { pure_sequence: "pure sequence", impure_sequence: "impure sequence", set: "set", invalid: "invalid" };

/**
 * The page's JSON data (json_script), or `fallback`.
 * @template T @param {string} id @param {T} fallback @returns {T}
 */
function data(id, fallback) {
  const el = document.getElementById(id);
  if (!el) return fallback;
  const v = JSON.parse(el.textContent || "null");
  return v == null ? fallback : v;
}

const events = data("deal-events-data", /** @type {GameEvent[]} */ ([]));
const names = data("deal-names-data", /** @type {Record<string, string>} */ ({}));
const replay = data("deal-replay-data", /** @type {ReplayStep[]} */ ([]));
const result = data("deal-result-data", /** @type {StoredResult} */ ({}));
const arrangements = result.arrangements || {};
const wildRank = result.wild_rank;
const replayStart = events.findIndex((e) => e.type === "deal_started");
// "jump to turn N": the index of each turn's first event
const turnStarts = events.map((e, i) => (e.type === "turn" ? i : -1)).filter((i) => i >= 0);

/** @param {number | string | null} seat */
const who = (seat) => names[String(seat)] || "seat " + seat;
/** @param {CardCode} code */
const pic = (code) => html`<${Card} code=${code} tiny wild=${hasWildRank(code, wildRank)} />`;

/** A card's short name ("J♥") after its picture: for the eye only, the picture is named in words. @param {CardCode} code */
const glyphs = (code) => html`<span aria-hidden="true">${" " + cardName(code)}</span>`;

/** One event in words and card pictures (names as text). @param {GameEvent | undefined} e @returns {unknown} */
function describe(e) {
  if (!e) return "";
  switch (e.type) {
    case "deal_started": return ["Deal " + e.deal_no + " dealt; " + who(e.first) + " plays first"];
    case "turn": return [who(e.seat) + "'s turn"];
    case "draw": return e.source === "open"
      ? [who(e.seat) + " picks ", pic(/** @type {CardCode} */ (e.card)), glyphs(/** @type {CardCode} */ (e.card)), " from the open pile"]
      : [who(e.seat) + " draws from the deck"];
    case "discard": return [who(e.seat) + " discards ", pic(e.card), glyphs(e.card)];
    case "drop": return [who(e.seat) + " drops (" + e.points + " pts)"];
    case "finish": return [who(e.seat) + " puts a card in the finish slot"];
    case "declaration": return [who(e.seat) + (e.valid ? " declares: valid show" : " declares: wrong show (" + e.points + " pts)")];
    case "show": return [who(e.seat) + " shows: " + e.points + " pts"];
    case "deal_over": return ["Deal over: " + (e.winner != null ? who(e.winner) + " wins" : "")];
    case "scores": {
      const scores = e.scores || {};
      return ["Scores: " + Object.keys(scores).map((s) => who(s) + " " + scores[s]).join(", ")];
    }
    case "eliminated": return [who(e.seat) + " is eliminated at " + e.score];
    case "reshuffle": return ["The open pile is shuffled into a new deck"];
    default: return [String(/** @type {GameEvent} */ (e).type).replace(/_/g, " ")];
  }
}

/** The timeline's markers: drops, shows (valid or wrong), eliminations and the end. @param {GameEvent} e @returns {Marker | null} */
function markerOf(e) {
  if (e.type === "drop") return { cls: "mark-drop", label: "drop", title: who(e.seat) + " drops" };
  if (e.type === "declaration") {
    return e.valid
      ? { cls: "mark-show", label: "show", title: who(e.seat) + " shows" }
      : { cls: "mark-wrong", label: "wrong", title: who(e.seat) + ": wrong show" };
  }
  if (e.type === "eliminated") return { cls: "mark-eliminated", label: "out", title: who(e.seat) + " eliminated" };
  if (e.type === "deal_over") return { cls: "mark-over", label: "end", title: "Deal over" };
  return null;
}
const markers = /** @type {{i: number, m: Marker}[]} */ (events.map((e, i) => ({ i, m: markerOf(e) })).filter((x) => x.m));

/** The replay step after event n (events after deal_over show the last one). @param {number} n @returns {ReplayStep | null} */
function stepAt(n) {
  if (!replay.length || replayStart < 0 || n < replayStart) return null;
  return replay[Math.min(n - replayStart, replay.length - 1)];
}

/** Open top and deck count from the events alone, when the server could not replay the deal. @param {number} n */
function pilesFromEvents(n) {
  /** @type {CardCode[]} */
  let open = [];
  /** @type {number | null} */
  let closed = null;
  for (let i = 0; i <= n; i++) {
    const e = events[i];
    if (e.type === "deal_started") { open = e.open_card ? [e.open_card] : []; closed = e.closed_count; }
    else if (e.type === "draw" && e.source === "open") open.pop();
    else if (e.type === "draw" && closed != null) closed -= 1;
    else if (e.type === "discard") open.push(e.card);
    else if (e.type === "reshuffle") { closed = e.closed_count; open = open.slice(-1); }
  }
  return { top: open.length ? open[open.length - 1] : null, closed };
}

/**
 * The player's last arrangement, kept to the cards held now; cards in none of its groups last.
 * @param {number | string} seat @param {CardCode[]} held @returns {Groups}
 */
export function groupsFor(seat, held) {
  const last = arrangements[String(seat)];
  if (!last) return groupBySuit(held);
  const left = held.slice();
  /** @type {Groups} */
  const out = [];
  last.forEach((g) => {
    const kept = g.filter((c) => {
      const k = left.indexOf(c);
      if (k < 0) return false;
      left.splice(k, 1);
      return true;
    });
    if (kept.length) out.push(kept);
  });
  if (left.length) out.push(left);
  return out;
}

/** @param {{r: ReplayStep}} props */
function Hands({ r }) {
  return html`<div id="replay-hands" class="replay-hands">
    ${Object.keys(r.hands).map((seat) => html`<div key=${seat}
        class=${"replay-hand" + (String(r.turn) === seat ? " on-turn" : "")} data-seat=${seat}>
      <span class="who">${who(seat)} (${r.hands[seat].length})</span>
      ${groupsFor(seat, r.hands[seat]).map((g, k) => html`<span class="replay-group" key=${k}>
        ${g.map((c, j) => html`<${Card} key=${c + j} code=${c} wild=${hasWildRank(c, wildRank)} />`)}</span>`)}
    </div>`)}
  </div>`;
}

/** @param {{upTo: number}} props */
function ResultRows({ upTo }) {
  const players = result.players || {};
  const seats = Object.keys(players);
  if (!seats.length || !events.slice(0, upTo + 1).some((e) => e.type === "deal_over")) return null;
  return html`<div class="table-scroll" role="region" aria-label="Result sheet" tabindex="0"><table class="data replay-result" id="replay-result">
    <thead><tr><th>Player</th><th>Result</th><th>Points</th><th>Score after</th></tr></thead>
    <tbody>${seats.map((s) => html`<tr key=${s} class=${String(result.winner) === s ? "winner-row" : ""}>
      <td>${String(result.winner) === s ? html`<span aria-hidden="true">★ </span>` : ""}${who(s)}</td><td>${outcomeWords(players[s])}</td>
      <td><strong>${players[s].points}</strong></td><td>${(result.scores || {})[s]}</td></tr>`)}</tbody>
  </table></div>`;
}

let step = 0;
/** @type {ReturnType<typeof setInterval> | null} */
let timer = null;
let turnWanted = "";

/** @param {number} n */
function show(n) {
  step = Math.max(0, Math.min(events.length - 1, n));
  draw();
}
function stop() { clearInterval(timer || undefined); timer = null; draw(); }
function play() {
  if (timer) { stop(); return; }
  if (step >= events.length - 1) step = 0;
  timer = setInterval(() => { if (step >= events.length - 1) stop(); else show(step + 1); }, 900);
  draw();
}
/** @param {number} n */
function turnOf(n) { return turnStarts.filter((i) => i <= n).length; }
function jump() {
  const k = parseInt(turnWanted, 10);
  if (!(k >= 1 && k <= turnStarts.length)) return;
  clearInterval(timer || undefined); timer = null;
  show(turnStarts[k - 1]);
}

function App() {
  const r = stepAt(step);
  const piles = r
    ? { top: r.open_pile.length ? r.open_pile[r.open_pile.length - 1] : null, closed: r.closed_count }
    : pilesFromEvents(step);
  const last = events.length - 1;
  const go = (/** @type {number} */ n) => () => { clearInterval(timer || undefined); timer = null; show(n); };
  return html`
    <div class="replay-controls" id="replay-controls">
      <button type="button" data-step="first" onClick=${go(0)}>« Start</button>
      <button type="button" data-step="prev" onClick=${go(step - 1)}>◀ Back</button>
      <button type="button" data-step="play" id="replay-play" onClick=${play}>${timer ? "⏸ Pause" : "▶ Play"}</button>
      <button type="button" data-step="next" onClick=${go(step + 1)}>Next ▶</button>
      <button type="button" data-step="last" onClick=${go(last)}>End »</button>
      <span class="step-no" id="replay-step">move ${step + 1} of ${events.length}${turnStarts.length ? " · turn " + turnOf(step) + " of " + turnStarts.length : ""}</span>
      ${turnStarts.length ? html`<form class="replay-jump" id="replay-jump" onSubmit=${(/** @type {Event} */ ev) => { ev.preventDefault(); jump(); }}>
        <label for="replay-turn-no">Turn</label>
        <input type="number" id="replay-turn-no" min="1" max=${turnStarts.length} value=${turnWanted}
          onInput=${(/** @type {Event} */ ev) => { turnWanted = /** @type {HTMLInputElement} */ (ev.currentTarget).value; }} />
        <button type="submit">Go</button></form>` : null}
    </div>
    <div class="replay-timeline">
      <input type="range" id="replay-timeline" aria-label="Timeline" min="0" max=${last} value=${step}
        onInput=${(/** @type {Event} */ ev) => { clearInterval(timer || undefined); timer = null; show(+(/** @type {HTMLInputElement} */ (ev.currentTarget).value)); }} />
      <div class="replay-marks" id="replay-marks">${markers.map(({ i, m }) => html`<button type="button" key=${i}
          class=${"mark " + m.cls} data-index=${i} title=${m.title} style=${{ left: (last ? (100 * i) / last : 0) + "%" }}
          onClick=${go(i)}>${m.label}</button>`)}</div>
    </div>
    <div class="replay-board" id="replay-board">
      <div><strong>Open pile top</strong> <span id="replay-open">${piles.top ? pic(piles.top) : "—"}</span>
        · <strong>deck</strong> <span id="replay-closed">${piles.closed != null ? piles.closed + " cards" : "—"}</span>
        ${r && r.cut_joker ? html` · <strong>cut joker</strong> <span id="replay-cut">${pic(r.cut_joker)}</span>` : null}</div>
      <div id="replay-now">${describe(events[step])}</div>
    </div>
    ${r ? html`<${Hands} r=${r} />` : null}
    <${ResultRows} upTo=${step} />
    <ol class="events" id="deal-events">${events.map((e, k) => html`<li key=${k} data-index=${k}
        class=${k === step ? "current" : k > step ? "future" : ""} onClick=${go(k)}>${describe(e)}</li>`)}</ol>`;
}

function draw() {
  const root = document.getElementById("replay-app");
  if (root) render(html`<${App} />`, root);
}

// the engine's verdict on every shown group of the result sheet
function labelGroups() {
  const sheet = document.getElementById("deal-sheet");
  if (!sheet || !sheet.dataset.wildRank) return;
  document.querySelectorAll("#deal-result tr").forEach((row) => {
    const spans = /** @type {NodeListOf<HTMLElement>} */ (row.querySelectorAll(".rgroup"));
    if (!spans.length) return;
    const groups = Array.from(spans, (g) => String(g.dataset.group).split(" "));
    fetch(String(sheet.dataset.evaluateUrl), {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": String(sheet.dataset.csrf) },
      body: JSON.stringify({ groups, wild_rank: Number(sheet.dataset.wildRank) }),
    }).then((r) => (r.ok ? r.json() : null)).then((/** @type {{groups: import("./wire.js").GroupVerdict[]} | null} */ res) => {
      if (!res) return;
      spans.forEach((g, i) => {
        const kind = res.groups[i].kind;
        g.classList.add("kind-" + kind);
        g.title = KIND[kind] + " · " + res.groups[i].points + " pts";
      });
    }).catch(() => {});
  });
}

// the result sheet's server-rendered cards, named as people read them (J♥)
/** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(".mini-card[data-code]")).forEach((el) => {
  const code = el.dataset.code;
  if (!code) return;
  // read as words, once: the glyphs drawn are hidden from a screen reader
  const drawn = document.createElement("span");
  drawn.setAttribute("aria-hidden", "true");
  drawn.textContent = code === "PJ" ? "★JKR" : cardName(code);
  el.replaceChildren(drawn);
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", cardWords(code, hasWildRank(code, wildRank)));
  el.classList.add(code === "PJ" ? "pj" : /[HD]$/.test(code) ? "red" : "black");
});
labelGroups();
if (events.length) draw();
