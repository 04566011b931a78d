// @ts-check
// The table page's own data, put in the page by the server (tables/views.py `table`, the
// `table-config` JSON script: no inline script) and read once.

/**
 * @typedef {object} TableConfig
 * @property {number} table_id
 * @property {string} table_name
 * @property {string} format_label
 * @property {string} entry_fee_display
 * @property {string} currency the money sign ("₹")
 * @property {string} ws_path the table socket's path
 * @property {string} csrf
 * @property {number} user_id
 * @property {string} lobby_url
 * @property {string} history_url a game's page is history_url + "games/<id>/"
 * @property {string} rules_url
 * @property {string} join_url
 * @property {string} leave_url
 * @property {number | null} game_id the game the scores are of
 * @property {import("./state.js").ScoreRow[]} scores every finished deal's points of that game
 * @property {Record<import("../wire.js").QuickPhrase, string>} quick_phrases the quick messages, by key (tables/realtime/quick.py)
 * @property {import("../wire.js").Snapshot} snapshot the table as the page was made, shown before the socket brings its own
 */

/** @returns {TableConfig | null} null on a page without the table */
export function readConfig() {
  const el = document.getElementById("table-config");
  return el ? JSON.parse(el.textContent || "null") : null;
}

/**
 * Paise as money: "₹12.50", "-₹3.00".
 * @param {TableConfig} cfg @param {number | null | undefined} paise
 */
export function money(cfg, paise) {
  const neg = (paise || 0) < 0 ? "-" : "";
  const p = Math.abs(paise || 0);
  return neg + (cfg.currency || "₹") + Math.floor(p / 100) + "." + String(p % 100).padStart(2, "0");
}
