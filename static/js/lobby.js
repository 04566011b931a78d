/* The lobby, live: /ws/lobby/ says which tables changed; the list is reloaded from GET /api/tables/.
   Tiles are built from DOM nodes: a table's name only ever reaches the page as text. */
(function () {
  "use strict";
  var grid = document.getElementById("lobby-tables");
  var form = document.getElementById("lobby-filters");
  // docs/fairness.md: this browser's own seed for the shuffle, sent with the join.
  function clientSeed() {
    var b = crypto.getRandomValues(new Uint8Array(16));
    return Array.prototype.map.call(b, function (x) { return ("0" + x.toString(16)).slice(-2); }).join("");
  }
  document.querySelectorAll('form[action$="/join/"]').forEach(function (f) {
    var input = document.createElement("input");
    input.type = "hidden"; input.name = "client_seed"; input.value = clientSeed();
    f.appendChild(input);
  });
  if (!grid || !form) return;
  var live = document.getElementById("lobby-live");
  var attempts = 0;
  var timer = null;

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "className") node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) {
      if (c == null) return;
      node.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    });
    return node;
  }
  function params() {
    var data = new FormData(form);
    var q = new URLSearchParams();
    data.forEach(function (v, k) { if (v) q.set(k, v); });
    return q;
  }
  function fact(label, cls, value) {
    return el("div", {}, [el("dt", {}, [label]), el("dd", { className: cls }, [value])]);
  }
  function tile(t) {
    var url = "/tables/" + encodeURIComponent(t.id) + "/";
    var dots = el("span", { className: "dots" });
    for (var i = 0; i < t.seats; i++) dots.appendChild(el("i", { className: i < t.seats_taken ? "on" : "" }));
    var footer = el("footer");
    if (t.status === "open" && !t.private) {
      footer.appendChild(el("form", { method: "post", action: url + "join/", className: "inline" }, [
        el("input", { type: "hidden", name: "csrfmiddlewaretoken", value: grid.dataset.csrf || "" }),
        el("input", { type: "hidden", name: "client_seed", value: clientSeed() }),
        el("button", { type: "submit", className: "primary join-btn" }, ["Join · " + t.entry_fee_display]),
      ]));
    }
    footer.appendChild(el("a", { className: "button ghost", href: url },
      [t.private ? "Back to your game" : t.status === "open" ? "View" : "Watch"]));
    var tag = t.private ? "your practice" : t.practice ? "practice" : null;
    return el("article", {
      className: "table-tile fmt-" + t.format + " st-" + t.status,
      "data-table-id": String(t.id),
    }, [
      el("header", {}, [
        el("span", { className: "fmt-badge" }, [t.format_label]),
        tag ? el("span", { className: "tag" }, [tag]) : null,
        el("span", { className: "status status-" + t.status }, [t.status === "open" ? "Open" : "Playing"]),
      ]),
      el("h2", {}, [el("a", { href: url }, [t.name])]),
      el("dl", { className: "tile-facts" }, [
        fact("Entry", "fee-value", t.entry_fee ? t.entry_fee_display : "Free"),
        fact("Prize pool", "prize-value", t.prize_pool ? t.prize_pool_display : "—"),
        fact("Decks", "decks-value", String(t.decks)),
        fact("Turn", "turn-value", t.turn_seconds + " s"),
      ]),
      el("p", { className: "seats-line" }, [
        dots, " ", el("span", { className: "seat-count" }, [t.seats_taken + " / " + t.seats]), " seated",
      ]),
      footer,
    ]);
  }
  function reload() {
    return fetch(grid.dataset.api + "?" + params().toString(), { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
      .then(function (rows) {
        var nodes = rows.length ? rows.map(tile) : [el("p", { className: "empty" }, ["No tables match. Try another filter."])];
        grid.replaceChildren.apply(grid, nodes);
        grid.querySelectorAll(".table-tile").forEach(function (node) { node.classList.add("flash"); });
      })
      .catch(function () {});
  }
  form.addEventListener("change", function () {
    history.replaceState(null, "", "?" + params().toString());
    reload();
  });
  var practice = document.getElementById("practice-now");
  if (practice) {
    practice.addEventListener("submit", function () {
      var button = document.getElementById("practice-start");
      // the form posts once: a second click while the table is being dealt does nothing
      setTimeout(function () { button.disabled = true; button.textContent = "Dealing…"; }, 0);
    });
  }
  function connect() {
    var ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws/lobby/");
    ws.onopen = function () {
      attempts = 0;
      live.classList.add("on");
      live.title = "Live updates on";
      reload(); // anything missed while disconnected
    };
    ws.onmessage = function (ev) {
      var msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg.type === "lobby_update") {
        clearTimeout(timer);
        timer = setTimeout(reload, 150);
      }
    };
    ws.onclose = function (ev) {
      live.classList.remove("on");
      live.title = "Reconnecting…";
      if (ev.code === 4401) return;
      var delay = Math.min(15000, 500 * Math.pow(2, attempts++));
      setTimeout(connect, delay);
    };
  }
  connect();
})();
