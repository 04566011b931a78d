// @ts-check
// "Verify this deal" on the deal page: recompute the order in the browser (static/js/fairness.js).
import { verifyDeal } from "./fairness.js";

const data = document.getElementById("deal-fairness-data");
const button = document.getElementById("verify-deal");
const out = document.getElementById("verify-result");
if (data && button && out) {
  /** @type {import("./fairness.js").Seeds & {order: string[]}} */
  const record = JSON.parse(data.textContent || "null");
  button.addEventListener("click", async () => {
    out.textContent = "checking…";
    const res = await verifyDeal(record, record.order);
    out.textContent = (res.ok ? "✓ verified: " : "✗ failed: ") + res.reason;
    out.dataset.ok = res.ok ? "true" : "false";
  });
  // The button is disabled in the page until here, so a click before this module ran is not lost.
  /** @type {HTMLButtonElement} */ (button).disabled = false;
}
