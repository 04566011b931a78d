// @ts-check
// The verifiable shuffle (docs/fairness.md), written from the document alone, independently
// of the server's Python: HMAC-SHA256 in counter mode (WebCrypto) feeding a rejection-sampled
// Fisher-Yates over the packs in the stated order.
const SUITS = ["S", "H", "D", "C"];
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const TWO32 = 4294967296;

/** @param {number} decks */
function packs(decks) {
  const one = [];
  for (const s of SUITS) for (const r of RANKS) one.push(r + s);
  one.push("PJ");
  const out = [];
  for (let i = 0; i < decks; i++) out.push(...one);
  return out;
}

/** @param {string} hex */
function hexBytes(hex) {
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error("the server seed must be 64 lower-case hex digits");
  const b = new Uint8Array(32);
  for (let i = 0; i < 32; i++) b[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return b;
}

/** @param {ArrayBuffer} buf */
function toHex(buf) {
  return Array.from(new Uint8Array(buf), (x) => x.toString(16).padStart(2, "0")).join("");
}

/** @param {string} text */
export async function sha256Hex(text) {
  return toHex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

/**
 * @typedef {object} Seeds
 * @property {string} server_seed 64 hex digits
 * @property {string[]} client_seeds
 * @property {number} deal_no
 * @property {number} [decks]
 * @property {string} [commitment] the SHA-256 of server_seed, published before the deal
 */

/**
 * The deck order (card codes, top first) the seeds give.
 * @param {Seeds} seeds @param {string} [label] @returns {Promise<string[]>}
 */
export async function deckOrder({ server_seed, client_seeds, deal_no, decks = 2 }, label = "deal") {
  for (const s of client_seeds) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(s)) throw new Error("bad client seed");
  }
  const key = await crypto.subtle.importKey(
    "raw", hexBytes(server_seed), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const prefix = `${label}|${client_seeds.join("|")}|${deal_no}|`;
  let counter = 0;
  /** @type {number[]} */
  let words = [];
  async function refill() {
    const block = new DataView(
      await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(prefix + counter)));
    counter += 1;
    for (let k = 0; k < 32; k += 4) words.push(block.getUint32(k, false));
  }
  /** @param {number} n */
  async function below(n) {
    const limit = TWO32 - (TWO32 % n);
    for (;;) {
      if (!words.length) await refill();
      const w = /** @type {number} */ (words.shift());
      if (w < limit) return w % n;
    }
  }
  const deck = packs(decks);
  for (let i = deck.length - 1; i > 0; i--) {
    const j = await below(i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

/**
 * Check a claimed order against the seeds (and the commitment, when given).
 * @param {Seeds} seeds @param {string[]} order @returns {Promise<{ok: boolean, reason: string}>}
 */
export async function verifyDeal(seeds, order) {
  if (seeds.commitment && (await sha256Hex(seeds.server_seed)) !== seeds.commitment) {
    return { ok: false, reason: "the server seed does not match the published commitment" };
  }
  let expected;
  try {
    expected = await deckOrder(seeds);
  } catch (e) {
    return { ok: false, reason: String(/** @type {{message?: string}} */ (e).message || e) };
  }
  if (order.length !== expected.length) {
    return { ok: false, reason: `the order has ${order.length} cards, the seeds give ${expected.length}` };
  }
  for (let i = 0; i < expected.length; i++) {
    if (order[i] !== expected[i]) {
      return { ok: false, reason: `mismatch at position ${i}: ${order[i]} dealt, the seeds give ${expected[i]}` };
    }
  }
  return { ok: true, reason: "the deck order follows from the seeds" };
}

/** A fresh client seed: 16 random bytes as hex (crypto.getRandomValues). */
export function newClientSeed() {
  return toHex(crypto.getRandomValues(new Uint8Array(16)).buffer);
}
