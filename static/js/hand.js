// @ts-check
// The player's hand: groups of cards the player arranges (drag, select + "Group", sort),
// each labelled with the engine's verdict (the table socket's `evaluate`).
// Dragging uses the vendored SortableJS, fetched once the table is on screen (loadSortable: only a
// drag needs it); after a drop the DOM is put back as it was and the new arrangement goes into the
// state, so Preact alone owns the DOM.
import { html } from "../vendor/htm-preact/standalone.module.js";
import { Card, hasWildRank, spokenCard } from "./cards.js";

/** @typedef {import("./wire.js").Groups} Groups */
/** @typedef {import("./wire.js").CardCode} CardCode */
/** @typedef {import("./wire.js").GroupVerdict} GroupVerdict */
/** @typedef {import("./table/state.js").TableState} TableState */
/** @typedef {import("./table/ctrl.js").TableCtrl} TableCtrl */
/** @typedef {import("sortablejs")} Sortable */

/** @type {Record<string, string>} */
export const KIND_LABEL = {
  pure_sequence: "Pure sequence",
  impure_sequence: "Impure sequence",
  set: "Set",
  invalid: "Invalid",
};

/**
 * `cards` put back where they were taken from: into their group at their index, or, when they
 * made a group by themselves (`at.alone`), as that group again, in its place; without a place,
 * into a group of their own at the end.
 * @param {Groups} groups @param {CardCode[]} cards @param {{g: number, i: number, alone?: boolean} | null} at
 * @returns {Groups}
 */
export function putBack(groups, cards, at) {
  const out = groups.map((g) => g.slice());
  if (!cards.length) return out;
  if (at && at.alone) out.splice(Math.min(at.g, out.length), 0, cards.slice());
  else if (at && out[at.g]) out[at.g].splice(Math.min(at.i, out[at.g].length), 0, ...cards);
  else out.push(cards.slice());
  return out;
}

/**
 * Keep the arrangement across updates: cards that left disappear, new ones go where
 * they were dropped (or into a group of their own at the end).
 * @param {Groups} groups @param {CardCode[]} hand @param {{g: number, i: number, alone?: boolean} | null} placement
 * @returns {Groups}
 */
export function reconcile(groups, hand, placement) {
  /** @type {Record<CardCode, number>} */
  const need = {};
  hand.forEach((c) => { need[c] = (need[c] || 0) + 1; });
  const kept = groups.map((g) => g.filter((c) => {
    if (need[c] > 0) { need[c] -= 1; return true; }
    return false;
  })).filter((g) => g.length);
  /** @type {CardCode[]} */
  const extra = [];
  hand.forEach((c) => { if (need[c] > 0) { need[c] -= 1; extra.push(c); } });
  return putBack(kept, extra, placement);
}

/**
 * Move the card at (fg, fi) to (tg, ti); tg === groups.length makes a new group.
 * @param {Groups} groups @param {number} fg @param {number} fi @param {number} tg @param {number} ti @returns {Groups}
 */
export function moveCard(groups, fg, fi, tg, ti) {
  const out = groups.map((g) => g.slice());
  const [card] = out[fg].splice(fi, 1);
  if (tg >= out.length) out.push([card]);
  else out[tg].splice(Math.min(ti, out[tg].length), 0, card);
  return out.filter((g) => g.length);
}

/**
 * Take the selected positions ("g:i") out into one new group, in their order.
 * @param {Groups} groups @param {string[]} selected @returns {Groups}
 */
export function groupSelected(groups, selected) {
  /** @type {CardCode[]} */
  const picked = [];
  const keep = groups.map((g, gi) => g.filter((c, ci) => {
    if (selected.includes(gi + ":" + ci)) { picked.push(c); return false; }
    return true;
  }));
  return keep.filter((g) => g.length).concat(picked.length ? [picked] : []);
}

/** @param {GroupVerdict | null | undefined} r */
function verdictLabel(r) {
  if (!r) return html`<div class="group-label pending" aria-hidden="true">…</div>`;
  return html`<div class=${"group-label kind-" + r.kind} aria-hidden="true">${KIND_LABEL[r.kind] || r.kind}${r.kind === "invalid" ? " · " + r.points + " pts" : " ✓"}</div>`;
}

/** A group's name for a screen reader: "Group 2, invalid, 20 points". @param {number} gi @param {GroupVerdict | null | undefined} r */
function groupName(gi, r) {
  const kind = r ? (KIND_LABEL[r.kind] || r.kind).toLowerCase() + (r.kind === "invalid" ? ", " + r.points + " points" : "") : "not checked yet";
  return "Group " + (gi + 1) + ", " + kind;
}

/** The id of the card at (g, i), the listbox's aria-activedescendant. @param {number} g @param {number} i */
export const cardId = (g, i) => "card-" + g + "-" + i;

/**
 * The hand, its tools and its groups. `me`: your seat box; `summary`: the verdict on the whole hand.
 * @param {{s: TableState, t: TableCtrl, me: unknown, summary: unknown}} props
 */
export function Hand({ s, t, me, summary }) {
  const v = /** @type {import("./wire.js").View} */ (s.view);
  const groups = s.groups || [];
  const verdict = t.verdictFor(groups, v.wild_rank);
  const myTurn = t.myTurn();
  const cur = t.cursor();
  // "+ new group": a drop target while dragging, and with cards selected a tap or a key that groups them
  const armed = s.selected.length >= 1 && t.legal("arrange");
  return html`<section id="hand-area" class=${"hand-area" + (s.selected.length ? " has-selection" : "")}>
    <div class="hand-head">
      ${me}
      <span id="hand-summary" class="hand-summary">${summary}</span>
      <span class="hand-tools">
        <button type="button" id="btn-group" class="tool" disabled=${!(s.selected.length >= 1 && t.legal("arrange"))}
          title="Put the selected cards into a group of their own" onClick=${() => t.groupSelected()}>Group${s.selected.length > 1 ? " (" + s.selected.length + ")" : ""}</button>
        <button type="button" id="btn-sort-suit" class="tool" disabled=${!t.legal("arrange")} onClick=${() => t.sort("suit")} title="Sort by suit">Sort ♠♥</button>
        <button type="button" id="btn-sort-rank" class="tool" disabled=${!t.legal("arrange")} onClick=${() => t.sort("rank")} title="Sort by rank">Sort A-K</button>
      </span>
    </div>
    <div id="groups" class="groups" data-testid="hand" role="listbox" aria-multiselectable="true" tabindex="0"
      aria-label="Your hand: arrows move, Space selects, Shift and arrows move a card; question mark lists the keys"
      aria-activedescendant=${cur ? cardId(cur.g, cur.i) : undefined} aria-keyshortcuts="H">
      ${(/** @param {{done: boolean}} freshMarked */ (freshMarked) => groups.map((g, gi) => {
        const r = verdict && verdict.groups[gi];
        return html`<div class=${"group" + (r ? " kind-" + r.kind : "")} data-group=${gi} data-kind=${r ? r.kind : ""} key=${"g" + gi}
            role="group" aria-label=${groupName(gi, r)}>
          <div class="group-cards" data-g=${gi} role="none">
            ${g.map((code, ci) => {
              const sel = s.selected.includes(gi + ":" + ci);
              // one card is marked new, even when the hand holds both copies of it
              const fresh = !freshMarked.done && s.lastDrawn === code && (v.drawn_card === code || !myTurn);
              if (fresh) freshMarked.done = true;
              const isCur = !!cur && cur.g === gi && cur.i === ci;
              return html`<${Card} key=${code + "@" + gi + ":" + ci} code=${code} wild=${hasWildRank(code, v.wild_rank)}
                spoken=${spokenCard(code, v.wild_rank) + (fresh ? ", just drawn" : "")}
                cls=${(sel ? "selected" : "") + (fresh ? " fresh" : "") + (isCur ? " cursor" : "") + (s.anim[code] ? " " + s.anim[code] : "")}
                attrs=${{
                  "data-g": gi, "data-i": ci, "data-card": code, id: cardId(gi, ci), role: "option", "aria-selected": sel ? "true" : "false",
                  onClick: (/** @type {Event} */ e) => t.clickCard(e, gi, ci),
                }} />`;
            })}
          </div>
          ${verdictLabel(r)}
        </div>`;
      }))({ done: false })}
    </div>
    <div id="new-group" class=${"new-group" + (armed ? " armed" : "")} data-testid="new-group" role="button" tabindex=${t.legal("arrange") ? 0 : -1} aria-keyshortcuts="N"
      aria-disabled=${t.legal("arrange") && s.selected.length ? "false" : "true"}
      title="Drop a card here, or select cards and tap, to make a new group"
      onClick=${() => t.newGroup()} onKeyDown=${(/** @type {KeyboardEvent} */ e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); e.stopPropagation(); t.newGroup(); } }}>
      + new group${s.selected.length ? " (" + s.selected.length + ")" : ""}</div>
  </section>`;
}

/** The fanning steps tried, in px, while the hand's groups take more rows than the window allows: a
 * card shows at least its index (a "10" and its suit at a phone's size are 17 px wide). */
const FIT_STEPS = [21, 19, 17];

/** @param {HTMLElement} el @returns {number} how many rows the groups wrap to */
const rowsOf = (el) => new Set(Array.from(el.children, (c) => /** @type {HTMLElement} */ (c).offsetTop)).size;

/** The rows the hand may take: one in a short window (a phone held sideways, where a second row
 * took the felt's room and cut its seats' names and scores), else two. */
const maxRows = () => (window.innerHeight <= 450 ? 1 : 2);

/**
 * Keep the hand to two rows, one in a short window (a phone's felt is what the hand leaves of the
 * screen, and a third row pushed its seats over the piles): where the groups wrap to more, the cards fan tighter, then the
 * groups' frames slim and their labels give way to the cards (the group's spoken name keeps the
 * whole verdict), and last the cards are drawn at a sideways phone's size. Measured only when the
 * hand's cards, its labels or the window changed, not at every tick of the clock.
 */
export function fitHand() {
  const el = document.getElementById("groups");
  if (!el) return;
  const key = el.textContent + "@" + window.innerWidth + "x" + window.innerHeight;
  if (el.dataset.fitted === key) return;
  el.dataset.fitted = key;
  el.style.removeProperty("--card-step");
  delete el.dataset.fit;
  const most = maxRows();
  for (const step of FIT_STEPS) {
    if (rowsOf(el) <= most) return;
    el.style.setProperty("--card-step", step + "px");
  }
  for (const fit of ["slim", "small"]) {
    if (rowsOf(el) <= most) return;
    el.dataset.fit = fit;
  }
}

/** @type {Promise<void> | null} SortableJS on its way (or come), asked for once */
let sortableLoading = null;

/**
 * SortableJS, fetched once (a module import of its UMD build, which sets `window.Sortable`): a
 * classic script before the page's modules would hold them all back, for a drag that may never
 * come. A failed fetch is asked for again at the next call.
 * @returns {Promise<void>}
 */
export function loadSortable() {
  sortableLoading ??= import("../vendor/sortable/Sortable.min.js").then(
    () => undefined,
    (err) => { sortableLoading = null; throw err; },
  );
  return sortableLoading;
}

/** @type {WeakMap<Element, Sortable>} the Sortable made on each element */
const sortables = new WeakMap();

/**
 * SortableJS on every group row and on the piles; called after each render (nothing until
 * loadSortable has brought it).
 * @param {TableCtrl} t
 */
export function wireSortables(t) {
  const Sortable = window.Sortable;
  if (!Sortable) return;
  /** @type {import("sortablejs").Options} */
  const base = {
    animation: 120,
    forceFallback: true, // mouse and touch alike, the same on phones and desktops
    fallbackOnBody: true,
    fallbackTolerance: 4,
    delay: 120,
    delayOnTouchOnly: true,
    ghostClass: "ghost",
    chosenClass: "chosen",
    dragClass: "dragging",
  };
  const canArrange = t.legal("arrange");
  document.querySelectorAll("#groups .group-cards").forEach((row) => {
    let sortable = sortables.get(row);
    if (!sortable) {
      sortable = Sortable.create(/** @type {HTMLElement} */ (row), {
        ...base,
        group: { name: "hand", pull: true, put: true },
        onStart: () => t.dragStart(),
        onEnd: (evt) => onHandDrop(t, evt),
      });
      sortables.set(row, sortable);
    }
    sortable.option("disabled", !canArrange);
  });
  const ng = document.getElementById("new-group");
  if (ng && !sortables.has(ng)) sortables.set(ng, Sortable.create(ng, { ...base, group: { name: "hand", pull: false, put: true }, sort: false }));
  const open = document.getElementById("open-pile");
  if (open && !sortables.has(open)) {
    sortables.set(open, Sortable.create(open, {
      ...base, sort: false, filter: ".card",
      group: { name: "hand", pull: false, put: () => t.canDiscard() },
    }));
  }
  const fin = document.getElementById("finish-slot");
  if (fin && !sortables.has(fin)) {
    sortables.set(fin, Sortable.create(fin, {
      ...base, sort: false,
      group: { name: "hand", pull: false, put: () => t.canFinish() },
    }));
  }
}

/** @param {TableCtrl} t @param {import("sortablejs").SortableEvent} evt */
function onHandDrop(t, evt) {
  const { item, from, to } = evt;
  const oldIndex = /** @type {number} */ (evt.oldIndex), newIndex = /** @type {number} */ (evt.newIndex);
  // put the DOM back exactly as Preact left it; the state change re-renders it
  if (item.parentNode) item.parentNode.removeChild(item);
  from.insertBefore(item, from.children[oldIndex] || null);
  const fg = Number(from.dataset.g);
  const code = /** @type {string} */ (item.dataset.code);
  const moved = !(from === to && oldIndex === newIndex);
  if (!to || !moved) { t.dragEnd(null); return; }
  if (to.id === "open-pile") t.dragEnd({ kind: "discard", code, fg, fi: oldIndex });
  else if (to.id === "finish-slot") t.dragEnd({ kind: "finish", code, fg, fi: oldIndex });
  else if (to.id === "new-group") t.dragEnd({ kind: "move", fg, fi: oldIndex, tg: Infinity, ti: 0 });
  else if (to.dataset.g != null) t.dragEnd({ kind: "move", fg, fi: oldIndex, tg: +to.dataset.g, ti: newIndex });
  else t.dragEnd(null);
}
