// @ts-check
// The table's socket, opened as soon as the parser reaches this script in the page's head (it is
// inlined there, before the stylesheets, so nothing holds it back): its handshake and the snapshot
// travel while the table's code is still on its way (a phone on mobile data waits for both one
// after the other otherwise). A classic script with nothing imported; socket.js adopts the
// socket, and replays what it brought, when the table starts.
(() => {
  const meta = /** @type {HTMLMetaElement | null} */ (document.querySelector('meta[name="table-socket"]'));
  if (!meta || !meta.content || typeof WebSocket === "undefined") return;
  const proto = location.protocol === "https:" ? "wss://" : "ws://";
  const ws = new WebSocket(proto + location.host + meta.content);
  /** @type {MessageEvent[]} */
  const brought = [];
  ws.onmessage = (ev) => { brought.push(ev); };
  window.rummyEarlySocket = { path: meta.content, ws, brought };
})();
