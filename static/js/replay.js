/* Replay of a finished deal: step through its public events; label the shown groups with the engine's verdict. */
(function () {
  "use strict";
  var SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  var KIND = { pure_sequence: "pure sequence", impure_sequence: "impure sequence", set: "set", invalid: "invalid" };

  function pretty(root) {
    (root || document).querySelectorAll(".mini-card[data-code]").forEach(function (el) {
      var code = el.dataset.code;
      if (!code) return;
      if (code === "PJ") { el.textContent = "★JKR"; el.classList.add("pj"); return; }
      var suit = code.slice(-1);
      el.textContent = code.slice(0, -1) + (SUITS[suit] || suit);
      if (suit === "H" || suit === "D") el.classList.add("red");
    });
  }
  function card(code) {
    var s = document.createElement("span");
    s.className = "mini-card";
    s.dataset.code = code;
    s.textContent = code;
    pretty({ querySelectorAll: function () { return [s]; } });
    return s;
  }
  // a line of text and card nodes: players' names only ever become text nodes
  function line() {
    var frag = document.createDocumentFragment();
    Array.prototype.forEach.call(arguments, function (part) {
      frag.appendChild(typeof part === "string" ? document.createTextNode(part) : part);
    });
    return frag;
  }
  pretty();

  // the engine's verdict on every shown group
  var sheet = document.getElementById("deal-sheet");
  if (sheet && sheet.dataset.wildRank) {
    document.querySelectorAll("#deal-result tr").forEach(function (row) {
      var spans = row.querySelectorAll(".rgroup");
      if (!spans.length) return;
      var groups = Array.prototype.map.call(spans, function (g) { return g.dataset.group.split(" "); });
      fetch(sheet.dataset.evaluateUrl, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": sheet.dataset.csrf },
        body: JSON.stringify({ groups: groups, wild_rank: +sheet.dataset.wildRank }),
      }).then(function (r) { return r.ok ? r.json() : null; }).then(function (res) {
        if (!res) return;
        spans.forEach(function (g, i) {
          var kind = res.groups[i].kind;
          g.classList.add("kind-" + kind);
          g.title = KIND[kind] + " · " + res.groups[i].points + " pts";
        });
      }).catch(function () {});
    });
  }

  // step through the events
  var dataEl = document.getElementById("deal-events-data");
  var list = document.getElementById("deal-events");
  if (!dataEl || !list) return;
  var events = JSON.parse(dataEl.textContent || "[]");
  var names = JSON.parse((document.getElementById("deal-names-data") || {}).textContent || "{}") || {};
  if (!events.length) return;
  // every hand at every step, rebuilt by the server from the events and the revealed seeds
  // (game_engine/replay.py): one replay step per event from deal_started on
  var replay = JSON.parse((document.getElementById("deal-replay-data") || {}).textContent || "null") || [];
  var replayStart = events.findIndex(function (e) { return e.type === "deal_started"; });
  function showHands(n) {
    var box = document.getElementById("replay-hands");
    if (!box) return;
    var r = replayStart >= 0 && n >= replayStart ? replay[Math.min(n - replayStart, replay.length - 1)] : null;
    if (!r) { box.replaceChildren(); return; }
    var rows = Object.keys(r.hands).map(function (seat) {
      var row = document.createElement("div");
      row.className = "replay-hand" + (String(r.turn) === seat ? " on-turn" : "");
      row.dataset.seat = seat;
      var label = document.createElement("strong");
      label.textContent = who(seat) + " (" + r.hands[seat].length + ")";
      row.appendChild(label);
      row.appendChild(document.createTextNode(" "));
      r.hands[seat].forEach(function (c) { row.appendChild(card(c)); });
      return row;
    });
    var cut = document.createElement("div");
    cut.appendChild(line("Cut joker ", card(r.cut_joker), " · deck " + r.closed_count + " cards"));
    box.replaceChildren(cut, ...rows);
  }
  var items = list.querySelectorAll("li");
  var step = events.length - 1;
  var timer = null;
  document.getElementById("replay-controls").hidden = false;
  document.getElementById("replay-board").hidden = false;

  function who(seat) { return names[String(seat)] || "seat " + seat; }
  function describe(e) {
    switch (e.type) {
      case "deal_started": return line("Deal " + e.deal_no + " dealt; " + who(e.first) + " plays first");
      case "turn": return line(who(e.seat) + "'s turn");
      case "draw": return e.source === "open"
        ? line(who(e.seat) + " picks ", card(e.card), " from the open pile")
        : line(who(e.seat) + " draws from the deck");
      case "discard": return line(who(e.seat) + " discards ", card(e.card));
      case "drop": return line(who(e.seat) + " drops (" + e.points + " pts)");
      case "finish": return line(who(e.seat) + " puts a card in the finish slot");
      case "declaration": return line(who(e.seat) + (e.valid ? " declares: valid show" : " declares: wrong show"));
      case "show": return line(who(e.seat) + " shows: " + e.points + " pts");
      case "deal_over": return line("Deal over: " + (e.winner != null ? who(e.winner) + " wins" : ""));
      case "scores": return line("Scores: " + Object.keys(e.scores || {}).map(function (s) { return who(s) + " " + e.scores[s]; }).join(", "));
      default: return line(String(e.type).replace(/_/g, " "));
    }
  }
  function show(n) {
    step = Math.max(0, Math.min(events.length - 1, n));
    var open = [], closed = null;
    for (var i = 0; i <= step; i++) {
      var e = events[i];
      if (e.type === "deal_started") { open = e.open_card ? [e.open_card] : []; closed = e.closed_count; }
      else if (e.type === "draw" && e.source === "open") open.pop();
      else if (e.type === "draw" && closed != null) closed -= 1;
      else if (e.type === "discard") open.push(e.card);
      else if (e.type === "reshuffle") { closed = null; open = open.slice(-1); }
    }
    document.getElementById("replay-open").replaceChildren(open.length ? card(open[open.length - 1]) : "—");
    document.getElementById("replay-closed").textContent = closed != null ? closed + " cards" : "—";
    document.getElementById("replay-now").replaceChildren(describe(events[step]));
    document.getElementById("replay-step").textContent = "move " + (step + 1) + " of " + events.length;
    showHands(step);
    items.forEach(function (li, k) {
      li.classList.toggle("current", k === step);
      li.classList.toggle("future", k > step);
    });
  }
  function stop() { clearInterval(timer); timer = null; document.getElementById("replay-play").textContent = "▶ Play"; }
  document.getElementById("replay-controls").addEventListener("click", function (ev) {
    var b = ev.target.closest("button");
    if (!b) return;
    var what = b.dataset.step;
    if (what === "play") {
      if (timer) { stop(); return; }
      if (step >= events.length - 1) show(0);
      b.textContent = "⏸ Pause";
      timer = setInterval(function () { if (step >= events.length - 1) stop(); else show(step + 1); }, 900);
      return;
    }
    stop();
    show({ first: 0, prev: step - 1, next: step + 1, last: events.length - 1 }[what]);
  });
  items.forEach(function (li, k) { li.addEventListener("click", function () { stop(); show(k); }); });
  show(0);
})();
