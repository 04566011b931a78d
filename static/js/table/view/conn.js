// @ts-check
// The connection's banner: nothing while the socket is open; when it is lost, in words, what
// happens to the turn meanwhile and that the player's cards are safe (connection.js words it), the
// rest folded under "What happens meanwhile" (a phone has little height to spare); when the server closed for good, why. The one polite live region
// says "Connection lost" (table.js): this banner is not a live region, so its countdowns are not
// read out four times a second.
import { html } from "../../../vendor/htm-preact/standalone.module.js";
import { lostWords } from "../connection.js";

/** @typedef {import("../state.js").TableState} TableState */

/** @param {{s: TableState}} props */
export function ConnBanner({ s }) {
  if (s.fatal) return html`<div id="reconnect-banner" class="banner conn-banner">${s.fatal}</div>`;
  if (s.conn !== "closed") return null;
  const w = lostWords(s);
  return html`<section id="reconnect-banner" class="banner conn-banner conn-lost" aria-labelledby="conn-lost-title">
    <h2 id="conn-lost-title" class="conn-lost-title">${w.title}<span class="conn-retry"> · ${s.connDetail || "Reconnecting…"}</span></h2>
    ${w.now ? html`<p class="conn-lost-line conn-lost-now">${w.now}</p>` : null}
    ${w.more.length ? html`<details class="conn-more"><summary>What happens meanwhile</summary>
      ${w.more.map((line, i) => html`<p key=${i} class="conn-lost-line">${line}</p>`)}</details>` : null}
  </section>`;
}
