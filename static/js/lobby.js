/* The lobby, live: /ws/lobby/ says which tables changed; the list is reloaded from GET /api/tables/. */
(function () {
  "use strict";
  var grid = document.getElementById("lobby-tables");
  var form = document.getElementById("lobby-filters");
  if (!grid || !form) return;
  var live = document.getElementById("lobby-live");
  var attempts = 0;
  var timer = null;

  function esc(s) {
    return String(s == null ? "" : s).replace(/[&<>"']/g, function (ch) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[ch];
    });
  }
  function params() {
    var data = new FormData(form);
    var q = new URLSearchParams();
    data.forEach(function (v, k) { if (v) q.set(k, v); });
    return q;
  }
  function tile(t) {
    var dots = "";
    for (var i = 0; i < t.seats; i++) dots += '<i class="' + (i < t.seats_taken ? "on" : "") + '"></i>';
    var join = t.status === "open"
      ? '<form method="post" action="/tables/' + t.id + '/join/" class="inline"><input type="hidden" name="csrfmiddlewaretoken" value="' + esc(grid.dataset.csrf) + '">' +
        '<button type="submit" class="primary join-btn">Join · ' + esc(t.entry_fee_display) + "</button></form>"
      : "";
    return '<article class="table-tile fmt-' + esc(t.format) + " st-" + esc(t.status) + '" data-table-id="' + t.id + '">' +
      '<header><span class="fmt-badge">' + esc(t.format_label) + "</span>" + (t.practice ? '<span class="tag">practice</span>' : "") +
      '<span class="status status-' + esc(t.status) + '">' + (t.status === "open" ? "Open" : "Playing") + "</span></header>" +
      '<h2><a href="/tables/' + t.id + '/">' + esc(t.name) + "</a></h2>" +
      '<p class="fee">Entry <strong>' + esc(t.entry_fee_display) + "</strong></p>" +
      '<p class="seats-line"><span class="dots">' + dots + '</span> <span class="seat-count">' + t.seats_taken + " / " + t.seats + "</span> seated</p>" +
      "<footer>" + join + '<a class="button ghost" href="/tables/' + t.id + '/">' + (t.status === "open" ? "View" : "Watch") + "</a></footer></article>";
  }
  function reload() {
    return fetch(grid.dataset.api + "?" + params().toString(), { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
      .then(function (rows) {
        grid.innerHTML = rows.length ? rows.map(tile).join("") : '<p class="empty">No tables match. Try another filter.</p>';
        grid.querySelectorAll(".table-tile").forEach(function (el) { el.classList.add("flash"); });
      })
      .catch(function () {});
  }
  form.addEventListener("change", function () {
    history.replaceState(null, "", "?" + params().toString());
    reload();
  });
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
