/* The live table: renders what the server says (docs/protocol.md) and sends intentions.
 *
 * No rules live here: the server decides every move, and group labels come from
 * the engine through POST /api/tables/groups/evaluate/. The page only keeps the
 * player's own arrangement between updates and prevents moves `view.legal` rules out.
 */
(function () {
  "use strict";

  var app = document.getElementById("table-app");
  if (!app) return;

  var $ = function (id) { return document.getElementById(id); };
  var SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  var SUIT_ORDER = { S: 0, H: 1, D: 2, C: 3 };
  var RANKS = { A: 1, J: 11, Q: 12, K: 13 };
  var RANK_NAMES = { 1: "A", 11: "J", 12: "Q", 13: "K" };
  var KIND_LABEL = {
    pure_sequence: "Pure sequence",
    impure_sequence: "Impure sequence",
    set: "Set",
    invalid: "Invalid",
  };
  var STATUS_LABEL = {
    won: "Won", shown: "Shown", dropped: "Dropped", wrong_show: "Wrong show", playing: "Playing",
    timed_out: "Timed out", left: "Left", eliminated: "Eliminated",
  };
  var REASON_LABEL = {
    first_drop: "first drop", middle_drop: "middle drop", wrong_show: "wrong show",
    missed_turns: "missed turns", auto_drop: "auto drop", left: "left the game",
  };

  var cfg = {
    wsPath: app.dataset.wsPath,
    csrf: app.dataset.csrf,
    userId: app.dataset.userId,
    evaluateUrl: app.dataset.evaluateUrl,
    lobbyUrl: app.dataset.lobbyUrl,
    currency: app.dataset.currency || "₹",
  };

  // ------------------------------------------------------------------ state
  var S = {
    ws: null,
    attempts: 0,
    reconnectTimer: null,
    closedForGood: false,
    version: -1,
    snap: null, // last snapshot-like: table, game, seats, you
    view: null,
    groups: null, // my arrangement: list of lists of card codes
    groupsDeal: null, // deal number the arrangement belongs to
    selected: null, // {g, i}
    pending: {}, // request_id -> {action, sent}
    placement: null, // where a dragged-in drawn card should go: {g, i}
    verdict: null, // evaluate answer for the current groups
    finishCard: null, // card placed in the finish slot (before confirming)
    lastScores: null, // the last `scores` event
    resultSeen: null, // deal_no whose sheet was shown automatically
    sortables: [],
    dragging: false,
    arrangeTimer: null,
    evalSeq: 0,
    modalKind: null,
  };
  var reqPrefix = "w" + Math.random().toString(36).slice(2, 8) + Date.now().toString(36);
  var reqCount = 0;

  // ------------------------------------------------------------------ cards
  function parse(code) {
    if (code === "PJ") return { joker: true, rank: 0, suit: "", name: "JOKER" };
    var suit = code.slice(-1);
    var name = code.slice(0, -1);
    return { joker: false, rank: RANKS[name] || parseInt(name, 10), suit: suit, name: name };
  }
  function isWild(code) {
    var v = S.view;
    if (!v || v.wild_rank == null) return false;
    var c = parse(code);
    return c.joker || c.rank === v.wild_rank;
  }
  function cardEl(code, opts) {
    opts = opts || {};
    var c = parse(code);
    var el = document.createElement("div");
    el.className = "card" + (opts.small ? " small" : "");
    el.dataset.code = code;
    el.setAttribute("data-card", code);
    if (c.joker) {
      el.classList.add("printed-joker");
      el.innerHTML = '<span class="pj-star">★</span><span class="pj-text">JOKER</span>';
      el.title = "Printed joker";
      return el;
    }
    el.classList.add(c.suit === "H" || c.suit === "D" ? "red" : "black");
    var s = SUITS[c.suit];
    el.innerHTML =
      '<span class="idx"><span class="r">' + c.name + '</span><span class="s">' + s + "</span></span>" +
      '<span class="pip">' + s + "</span>";
    el.title = c.name + s;
    if (!opts.plain && isWild(code)) {
      el.classList.add("wild");
      var j = document.createElement("span");
      j.className = "wild-mark";
      j.textContent = "J";
      j.title = "Wild joker this deal";
      el.appendChild(j);
    }
    return el;
  }
  function backEl(extra) {
    var el = document.createElement("div");
    el.className = "card back" + (extra ? " " + extra : "");
    return el;
  }
  function sortKey(code) {
    var c = parse(code);
    return c.joker ? [4, 0] : [SUIT_ORDER[c.suit], c.rank];
  }
  function cmpCards(a, b) {
    var x = sortKey(a), y = sortKey(b);
    return x[0] - y[0] || x[1] - y[1];
  }
  function money(paise) {
    var neg = paise < 0 ? "-" : "";
    paise = Math.abs(paise || 0);
    return neg + cfg.currency + Math.floor(paise / 100) + "." + String(paise % 100).padStart(2, "0");
  }
  function esc(s) {
    return String(s == null ? "" : s).replace(/[&<>"']/g, function (ch) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[ch];
    });
  }
  function fmtSecs(ms) {
    var s = Math.max(0, Math.ceil(ms / 1000));
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }

  // ------------------------------------------------------------------ toasts
  function toast(text, kind) {
    var t = document.createElement("div");
    t.className = "toast " + (kind || "error");
    t.setAttribute("role", kind === "info" ? "status" : "alert");
    t.textContent = text;
    $("toasts").appendChild(t);
    setTimeout(function () { t.classList.add("going"); }, 4200);
    setTimeout(function () { t.remove(); }, 4800);
  }

  // ------------------------------------------------------------------ socket
  function connect() {
    clearTimeout(S.reconnectTimer);
    var proto = location.protocol === "https:" ? "wss://" : "ws://";
    var ws = new WebSocket(proto + location.host + cfg.wsPath);
    S.ws = ws;
    setConn("connecting");
    ws.onopen = function () {
      S.attempts = 0;
      setConn("open");
      $("reconnect-banner").hidden = true;
      resendPending();
    };
    ws.onmessage = function (ev) {
      var msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      onMessage(msg);
    };
    ws.onclose = function (ev) {
      if (S.ws !== ws) return;
      S.ws = null;
      if (ev.code === 4401) {
        S.closedForGood = true;
        showBanner("Your session has ended. Please log in again.");
        return;
      }
      if (ev.code === 4404) {
        S.closedForGood = true;
        showBanner("This table does not exist any more.");
        return;
      }
      scheduleReconnect();
    };
    ws.onerror = function () { /* onclose follows */ };
  }
  function scheduleReconnect() {
    if (S.closedForGood) return;
    setConn("closed");
    var delay = Math.min(15000, 500 * Math.pow(2, S.attempts)) * (0.8 + Math.random() * 0.4);
    S.attempts += 1;
    showBanner("Reconnecting… (try " + S.attempts + ", in " + Math.round(delay / 100) / 10 + "s)");
    S.reconnectTimer = setTimeout(connect, delay);
  }
  function showBanner(text) {
    $("reconnect-banner").hidden = false;
    $("reconnect-banner").textContent = text;
  }
  function setConn(state) {
    var el = $("conn");
    el.className = "conn conn-" + state;
    el.title = { open: "Connected", closed: "Disconnected", connecting: "Connecting" }[state];
  }
  function rawSend(obj) {
    if (S.ws && S.ws.readyState === WebSocket.OPEN) {
      S.ws.send(JSON.stringify(obj));
      return true;
    }
    return false;
  }
  function act(action, opts) {
    var id = reqPrefix + "-" + ++reqCount;
    S.pending[id] = { action: action, sent: Date.now(), quiet: opts && opts.quiet };
    if (!rawSend({ type: "action", request_id: id, action: action }) && !(opts && opts.quiet)) {
      toast("Not connected: your move will be sent when the connection is back.", "info");
    }
    return id;
  }
  function resendPending() {
    var now = Date.now();
    Object.keys(S.pending).forEach(function (id) {
      var p = S.pending[id];
      if (now - p.sent > 20000) { delete S.pending[id]; return; }
      rawSend({ type: "action", request_id: id, action: p.action });
    });
  }

  // ------------------------------------------------------------------ messages
  function onMessage(msg) {
    switch (msg.type) {
      case "snapshot":
        S.version = msg.version;
        S.snap = msg;
        S.view = msg.view;
        render();
        break;
      case "update":
        if (msg.version <= S.version && !msg.rebuilt) return;
        if (msg.version !== S.version + 1 && !msg.rebuilt) rawSend({ type: "snapshot" });
        S.version = msg.version;
        if (msg.game) S.snap.game = msg.game;
        if (msg.seats) S.snap.seats = msg.seats;
        S.view = msg.view;
        (msg.events || []).forEach(onEvent);
        render();
        break;
      case "result":
        var p = S.pending[msg.request_id];
        delete S.pending[msg.request_id];
        if (!msg.ok) {
          var err = msg.error || {};
          toast((err.message || "That move was refused") + (err.rule ? " (" + err.rule + ")" : ""));
          if (p && (p.action.type === "discard" || p.action.type === "finish")) { S.handSig = null; render(); }
        }
        break;
      case "error":
        toast((msg.error && msg.error.message) || "The server could not read that message");
        break;
      default:
        break;
    }
  }

  function nameOf(seat) {
    var v = S.view;
    if (v && v.players && v.players[seat]) return v.players[seat].seat === v.seat ? "You" : v.players[seat].name;
    return "Seat " + seat;
  }
  function onEvent(e) {
    var t = "";
    switch (e.type) {
      case "deal_started": t = "Deal " + e.deal_no + " dealt. Joker: " + e.cut_joker; break;
      case "draw": t = nameOf(e.seat) + (e.source === "open" ? " picked " + e.card + " from the open pile" : " drew from the deck"); break;
      case "discard": t = nameOf(e.seat) + " discarded " + e.card; break;
      case "drop": t = nameOf(e.seat) + " dropped (" + e.points + " pts)"; break;
      case "finish": t = nameOf(e.seat) + " placed a card in the finish slot"; break;
      case "declaration":
        t = nameOf(e.seat) + (e.valid ? " declared — valid show!" : " made a wrong show (" + e.points + " pts)");
        toast(t, e.valid ? "info" : "warn");
        break;
      case "show": t = nameOf(e.seat) + " showed: " + e.points + " pts"; break;
      case "extra_time": t = nameOf(e.seat) + " is on extra time"; break;
      case "turn_missed": t = nameOf(e.seat) + " missed a turn (" + e.misses + ")"; break;
      case "reshuffle": t = "The open pile was reshuffled into the deck"; break;
      case "scores": S.lastScores = e; break;
      case "eliminated": t = nameOf(e.seat) + " is out at " + e.score; toast(t, "warn"); break;
      case "rejoined": t = nameOf(e.seat) + " rejoined at " + e.score; break;
      case "split_accepted": t = nameOf(e.seat) + " accepted the split"; break;
      case "split_declined": t = nameOf(e.seat) + " declined the split"; break;
      case "player_left": t = nameOf(e.seat) + " left the game"; break;
      case "game_over": t = "Game over"; break;
      default: break;
    }
    if (t) $("ticker").textContent = t;
  }

  // ------------------------------------------------------------------ derived
  function me() {
    var v = S.view;
    return v && v.seat != null ? v.players[v.seat] : null;
  }
  function legal(name) {
    return !!(S.view && S.view.legal && S.view.legal.indexOf(name) >= 0);
  }
  function myTurn() {
    var v = S.view;
    return !!(v && v.seat != null && v.deal_phase === "turn" && v.turn === v.seat);
  }
  function canDiscard() { return myTurn() && S.view.has_drawn && legal("discard"); }
  function canDraw() { return myTurn() && !S.view.has_drawn && legal("draw"); }
  function dropCost() {
    var v = S.view, m = me();
    if (!v || !m) return 0;
    return m.turns_taken === 0 ? v.rules.first_drop : v.rules.middle_drop;
  }

  // Keep my arrangement across updates: cards that left the hand disappear, new cards
  // go where they were dropped (or into a group of their own at the end).
  function reconcile() {
    var v = S.view;
    if (!v || !v.hand) { S.groups = null; S.groupsDeal = null; return; }
    if (S.groups === null || S.groupsDeal !== v.deal_no) {
      S.groups = (v.arrangement && v.arrangement.length ? v.arrangement : [v.hand.slice()]).map(function (g) { return g.slice(); });
      S.groupsDeal = v.deal_no;
      S.selected = null;
      return;
    }
    var need = {};
    v.hand.forEach(function (c) { need[c] = (need[c] || 0) + 1; });
    var groups = S.groups.map(function (g) {
      return g.filter(function (c) {
        if (need[c] > 0) { need[c] -= 1; return true; }
        return false;
      });
    });
    var extra = [];
    v.hand.forEach(function (c) { if (need[c] > 0) { need[c] -= 1; extra.push(c); } });
    if (extra.length) {
      var p = S.placement;
      if (p && groups[p.g]) {
        groups[p.g].splice.apply(groups[p.g], [Math.min(p.i, groups[p.g].length), 0].concat(extra));
      } else if (p && p.g === groups.length) {
        groups.push(extra);
      } else {
        groups.push(extra);
      }
    }
    S.placement = null;
    S.groups = groups.filter(function (g) { return g.length; });
  }

  // ------------------------------------------------------------------ render
  function render() {
    if (!S.snap) return;
    if (S.dragging || S.pointerDown) { S.dirty = true; return; } // re-rendered on drag end / release
    S.dirty = false;
    var v = S.view;
    reconcile();
    renderHeader();
    renderSeats();
    renderCenter();
    renderWaiting();
    renderDeclared();
    renderHand();
    renderActions();
    maybeShowResult();
    tick();
  }

  function renderHeader() {
    var v = S.view;
    var pool = $("prize-pool"), deal = $("deal-no");
    if (v && v.prize_pool != null && v.phase) {
      pool.hidden = false;
      pool.textContent = "Prize " + money(v.prize_pool);
      deal.hidden = !v.deal_no;
      deal.textContent = "Deal " + v.deal_no;
    } else {
      pool.hidden = true;
      deal.hidden = true;
    }
    $("btn-last-result").hidden = !(v && v.last_result);
  }

  function seatLayout(n, mine) {
    // Angles around an ellipse, my seat at the bottom centre, others clockwise.
    var out = [];
    for (var k = 0; k < n; k++) {
      var a = Math.PI / 2 + (2 * Math.PI * k) / n; // k=0 at the bottom
      var rx = window.matchMedia("(max-width: 600px)").matches ? 36 : 45;
      out.push({ x: 50 + rx * Math.cos(a), y: 50 + 50 * Math.sin(a) });
    }
    return out;
  }

  function renderSeats() {
    var box = $("seats");
    box.innerHTML = "";
    var v = S.view;
    if (!v || !v.players) { box.hidden = true; return; }
    box.hidden = false;
    var n = v.players.length;
    var mine = v.seat != null ? v.seat : 0;
    var spots = seatLayout(n, mine);
    v.players.forEach(function (p, i) {
      var k = (i - mine + n) % n;
      var spot = spots[k];
      var el = document.createElement("div");
      el.className = "seat";
      el.dataset.seat = i;
      el.style.left = spot.x + "%";
      el.style.top = spot.y + "%";
      if (i === v.seat) el.classList.add("me");
      if (p.eliminated) el.classList.add("out");
      if (p.status && p.status !== "playing" && p.status !== "won") el.classList.add("inactive");
      var dl = v.deadline;
      var active = (v.deal_phase === "turn" && v.turn === i) || (dl && dl.seat === i);
      if (active) el.classList.add("turn");
      var initials = (p.name || "?").trim().slice(0, 1).toUpperCase();
      var stat = p.left ? "left" : p.eliminated ? "out" : p.status && p.status !== "playing" ? (STATUS_LABEL[p.status] || p.status) : "";
      el.innerHTML =
        '<div class="avatar">' + esc(initials) + (v.dealer === i ? '<span class="dealer" title="Dealer">D</span>' : "") + "</div>" +
        '<div class="seat-info">' +
        '<div class="seat-name">' + esc(p.name) + (i === v.seat ? " <small>(you)</small>" : "") + "</div>" +
        '<div class="seat-score" title="Pool score / limit">' + p.score + "<small>/" + v.pool_limit + "</small>" +
        ' <span class="drops" title="Drops remaining">' + p.drops_remaining + (p.drops_remaining === 1 ? " drop" : " drops") + "</span></div>" +
        (stat ? '<div class="seat-stat">' + esc(stat) + "</div>" : "") +
        '<div class="timer" hidden><div class="timer-bar"><i></i></div><span class="timer-text"></span></div>' +
        '<div class="bank" title="Extra-time bank">bank ' + Math.round((p.extra_ms || 0) / 1000) + "s</div>" +
        "</div>";
      if (i !== v.seat && p.card_count) {
        var fan = document.createElement("div");
        fan.className = "fan";
        fan.title = p.card_count + " cards";
        for (var c = 0; c < Math.min(p.card_count, 7); c++) fan.appendChild(backEl("tiny"));
        el.appendChild(fan);
      }
      box.appendChild(el);
    });
  }

  function renderCenter() {
    var v = S.view;
    var inDeal = !!(v && (v.phase === "playing" || v.phase === "declaring"));
    document.querySelector(".felt-center").hidden = !v;
    var cut = $("cut-joker");
    cut.innerHTML = "";
    if (v && v.cut_joker) cut.appendChild(cardEl(v.cut_joker, { plain: true }));
    var deck = $("closed-deck");
    deck.innerHTML = "";
    deck.classList.toggle("can", inDeal && canDraw());
    if (inDeal && v.closed_count) {
      var b = backEl("deck-card");
      b.dataset.source = "closed";
      deck.appendChild(b);
    }
    $("closed-count").textContent = inDeal ? "(" + v.closed_count + ")" : "";
    var open = $("open-pile");
    open.innerHTML = "";
    open.classList.toggle("can", inDeal && canDraw() && v.can_pick_open);
    open.classList.toggle("target", inDeal && canDiscard());
    open.classList.toggle("blocked", inDeal && canDraw() && !v.can_pick_open);
    if (inDeal && v.open_top) {
      var pile = v.open_pile || [];
      if (pile.length > 1) {
        var under = cardEl(pile[pile.length - 2]);
        under.classList.add("under");
        under.dataset.source = "none";
        open.appendChild(under);
      }
      var top = cardEl(v.open_top);
      top.dataset.source = "open";
      top.classList.add("top");
      if (canDraw() && !v.can_pick_open) top.title = "A joker on the open pile cannot be picked up";
      open.appendChild(top);
    }
    var slot = $("finish-slot");
    slot.innerHTML = '<span class="slot-hint">Finish</span>';
    slot.classList.toggle("target", inDeal && myTurn() && v.has_drawn && legal("finish"));
    if (S.finishCard) slot.appendChild(cardEl(S.finishCard));
    $("status-line").textContent = statusText();
    setupPileSortables();
  }

  function statusText() {
    var v = S.view, snap = S.snap;
    if (!snap.game || !v) return "";
    var m = me();
    if (v.phase === "playing" && v.deal_phase === "turn") {
      if (myTurn()) return v.has_drawn ? "Your turn: discard a card, or finish" : "Your turn: draw from the deck or the open pile";
      if (m && m.status && m.status !== "playing") return "You are out of this deal (" + (STATUS_LABEL[m.status] || m.status) + "). " + nameOf(v.turn) + " to play";
      return nameOf(v.turn) + (nameOf(v.turn) === "You" ? "r" : "'s") + " turn";
    }
    if (v.phase === "declaring") {
      if (legal("show")) return "Declaration! Arrange your groups and press Show";
      if (v.declarer != null) return nameOf(v.declarer) + " declared. Waiting for the shows…";
      return "Declaration in progress…";
    }
    if (v.phase === "between_deals") return "Deal over. Next deal soon…";
    if (v.phase === "rejoin_window") return "Rejoin window open";
    if (v.phase === "split_offer") return "Split offered";
    if (v.phase === "finished") return "Game over";
    return "";
  }

  function renderWaiting() {
    var snap = S.snap, v = S.view;
    var waiting = !v || !snap.game || snap.game.status === "waiting" || snap.game.status === "cancelled";
    var finished = snap.game && snap.game.status === "finished";
    var box = $("waiting");
    box.hidden = !(waiting || (finished && !v));
    app.classList.toggle("is-waiting", waiting);
    if (!waiting) return;
    var t = snap.table;
    var names = (snap.seats || []).map(function (s) { return esc(s.name); });
    var seated = snap.you && snap.you.position != null;
    var chairs = "";
    for (var i = 0; i < t.seats; i++) {
      var s = (snap.seats || []).filter(function (x) { return x.position === i; })[0];
      chairs += '<span class="chair' + (s ? " taken" : "") + '">' + (s ? esc(s.name) : "empty") + "</span>";
    }
    $("waiting-seats").innerHTML =
      "<strong>" + t.seats_taken + " / " + t.seats + "</strong> seats taken" + (names.length ? "" : "") +
      '<span class="chairs">' + chairs + "</span>";
    $("join-form").hidden = seated || t.status !== "open";
    $("leave-form").hidden = !seated;
  }

  function renderDeclared() {
    var v = S.view, box = $("declared");
    if (!v || v.phase !== "declaring" || !v.shown || !Object.keys(v.shown).length) { box.hidden = true; return; }
    box.hidden = false;
    box.innerHTML = "";
    Object.keys(v.shown).forEach(function (seat) {
      var row = document.createElement("div");
      row.className = "shown-row";
      row.innerHTML = '<span class="shown-name">' + esc(nameOf(+seat)) + (String(v.declarer) === seat ? " declared" : " showed") + "</span>";
      var gs = document.createElement("span");
      gs.className = "shown-groups";
      v.shown[seat].forEach(function (g) {
        var gb = document.createElement("span");
        gb.className = "mini-group";
        g.forEach(function (c) { gb.appendChild(cardEl(c, { small: true })); });
        gs.appendChild(gb);
      });
      row.appendChild(gs);
      box.appendChild(row);
    });
  }

  function renderHand() {
    var v = S.view;
    var area = $("hand-area");
    var hasHand = !!(v && v.hand && S.groups);
    area.hidden = !hasHand;
    // Leave the DOM alone when nothing the hand shows has changed (a drag may be starting).
    var sig = hasHand ? JSON.stringify([S.groups, S.selected, S.finishCard, v.drawn_card, myTurn(), legal("arrange"), v.wild_rank]) : "";
    if (sig && sig === S.handSig && document.querySelector("#groups .group")) return;
    S.handSig = sig;
    S.sortables.forEach(function (s) { s.destroy(); });
    S.sortables = [];
    var box = $("groups");
    box.innerHTML = "";
    if (!hasHand) { setupPileSortables(); return; }
    var groups = S.groups.map(function (g) { return g.slice(); });
    if (S.finishCard) {
      // the card in the finish slot is not part of the groups
      for (var gi = 0; gi < groups.length; gi++) {
        var at = groups[gi].indexOf(S.finishCard);
        if (at >= 0) { groups[gi].splice(at, 1); break; }
      }
    }
    groups.forEach(function (g, gi) {
      if (!g.length) return;
      var wrap = document.createElement("div");
      wrap.className = "group";
      wrap.dataset.group = gi;
      var label = document.createElement("div");
      label.className = "group-label pending";
      label.textContent = "…";
      wrap.appendChild(label);
      var row = document.createElement("div");
      row.className = "group-cards";
      g.forEach(function (code, ci) {
        var el = cardEl(code);
        el.dataset.g = gi;
        el.dataset.i = ci;
        if (S.selected && S.selected.g === gi && S.selected.i === ci) el.classList.add("selected");
        if (v.drawn_card === code && myTurn()) el.classList.add("fresh");
        row.appendChild(el);
      });
      wrap.appendChild(row);
      box.appendChild(wrap);
    });
    setupHandSortables();
    evaluate();
  }

  function renderActions() {
    var v = S.view;
    var nav = $("actions");
    var seated = !!(v && v.seat != null && me());
    var live = seated && v.phase !== "finished";
    nav.hidden = !live;
    if (!live) return;
    var m = me();
    $("btn-discard").disabled = !(canDiscard() && S.selected);
    $("btn-finish").disabled = !(myTurn() && v.has_drawn && legal("finish") && (S.selected || S.finishCard));
    var showing = legal("show");
    $("btn-show").hidden = !showing;
    var drop = $("btn-drop");
    drop.disabled = !legal("drop");
    drop.textContent = legal("drop") ? "Drop (" + dropCost() + " pts)" : "Drop";
    var auto = $("auto-drop");
    auto.checked = !!v.auto_drop;
    auto.disabled = !(legal("auto_drop") || legal("im_back"));
    $("btn-back").hidden = !v.auto_drop;
    $("btn-forfeit").hidden = !legal("leave") || m.eliminated;
    $("btn-sort").disabled = !legal("arrange");
  }

  // ------------------------------------------------------------------ clocks
  function tick() {
    var v = S.view, snap = S.snap;
    if (!snap) return;
    var now = Date.now();
    // seat timers
    var seats = document.querySelectorAll(".seat");
    for (var k = 0; k < seats.length; k++) {
      var el = seats[k];
      var seat = +el.dataset.seat;
      var timer = el.querySelector(".timer");
      var dl = v && v.deadline;
      if (dl && dl.seat === seat && (dl.kind === "turn" || dl.kind === "extra")) {
        var left = dl.at_ms - now;
        var total = dl.kind === "turn" ? v.rules.turn_ms : Math.max(v.players[seat].extra_ms || 1, 1);
        timer.hidden = false;
        timer.classList.toggle("extra", dl.kind === "extra");
        timer.querySelector("i").style.width = Math.max(0, Math.min(100, (100 * left) / total)) + "%";
        timer.querySelector(".timer-text").textContent = (dl.kind === "extra" ? "extra " : "") + fmtSecs(left);
        var bank = el.querySelector(".bank");
        if (dl.kind === "extra") bank.textContent = "bank " + Math.max(0, Math.ceil(left / 1000)) + "s";
      } else if (timer) {
        timer.hidden = true;
      }
    }
    // centre clock for table-wide deadlines
    var line = $("status-line");
    if (v && v.deadline && ["declare", "next_deal", "rejoin", "split"].indexOf(v.deadline.kind) >= 0) {
      var rest = fmtSecs(v.deadline.at_ms - now);
      var what = { declare: "Shows close in ", next_deal: "Next deal in ", rejoin: "Rejoin closes in ", split: "Split offer closes in " }[v.deadline.kind];
      line.textContent = statusText() + " · " + what + rest;
      var c = document.getElementById("sheet-countdown");
      if (c) c.textContent = what + rest;
    } else if (v) {
      line.textContent = statusText();
    }
    // the start countdown while waiting
    var wc = $("waiting-countdown");
    if (snap.game && snap.game.status === "waiting" && snap.game.deadline_kind === "start" && snap.game.deadline_at) {
      wc.textContent = "Starting in " + fmtSecs(Date.parse(snap.game.deadline_at) - now);
    } else if (!snap.game || snap.game.status === "waiting") {
      wc.textContent = (snap.table.seats_taken || 0) < 2 ? "The game starts once two players are seated." : "";
    } else {
      wc.textContent = "";
    }
  }
  setInterval(tick, 250);

  // ------------------------------------------------------------------ hand: drag & drop
  function readGroups() {
    var out = [];
    document.querySelectorAll("#groups .group-cards").forEach(function (row) {
      var g = [];
      row.querySelectorAll(".card").forEach(function (c) { g.push(c.dataset.code); });
      if (g.length) out.push(g);
    });
    var extra = document.querySelectorAll("#new-group .card");
    if (extra.length) out.push(Array.prototype.map.call(extra, function (c) { return c.dataset.code; }));
    if (S.finishCard) out.push([S.finishCard]);
    return out;
  }
  function sortableOpts(extra) {
    var base = {
      animation: 150,
      forceFallback: true, // mouse/touch events, not native HTML5 drag: the same on phones and desktops
      fallbackOnBody: true,
      fallbackTolerance: 4,
      delay: 120,
      delayOnTouchOnly: true,
      ghostClass: "ghost",
      chosenClass: "chosen",
      dragClass: "dragging",
      onStart: function () {
        S.dragging = true;
        S.handSig = null; // a drag changes the DOM: the next render redraws the hand
        document.body.classList.add("is-dragging");
      },
      onEnd: dragDone,
    };
    for (var k in extra) base[k] = extra[k];
    return base;
  }
  function setupHandSortables() {
    if (typeof Sortable === "undefined") return;
    var arrangeable = legal("arrange");
    document.querySelectorAll("#groups .group-cards").forEach(function (row) {
      S.sortables.push(Sortable.create(row, sortableOpts({
        group: { name: "hand", pull: true, put: true },
        disabled: !arrangeable,
        onAdd: onHandAdd,
        onEnd: onHandDragEnd,
      })));
    });
    S.sortables.push(Sortable.create($("new-group"), sortableOpts({
      group: { name: "hand", pull: false, put: true },
      disabled: !arrangeable,
      onAdd: function (evt) {
        if (evt.from.id === "closed-deck" || evt.from.id === "open-pile") {
          var src = evt.item.dataset.source;
          evt.item.remove();
          S.dragging = false;
          document.body.classList.remove("is-dragging");
          S.placement = { g: S.groups.length, i: 0 };
          drawFrom(src);
          return;
        }
        // a card dropped on "new group": it becomes a group of its own
        S.groups = readGroups();
        if (S.finishCard) S.groups.pop();
        evt.item.remove();
        afterArrange();
      },
    })));
  }
  var pileSortables = [];
  function setupPileSortables() {
    if (typeof Sortable === "undefined") return;
    pileSortables.forEach(function (s) { s.destroy(); });
    pileSortables = [];
    var v = S.view;
    if (!v || !v.hand) return;
    pileSortables.push(Sortable.create($("closed-deck"), sortableOpts({
      group: { name: "hand", pull: "clone", put: false },
      sort: false,
      disabled: !canDraw(),
    })));
    pileSortables.push(Sortable.create($("open-pile"), sortableOpts({
      group: {
        name: "hand",
        pull: canDraw() && v.can_pick_open ? "clone" : false,
        put: function () { return canDiscard(); },
      },
      sort: false,
      filter: ".under",
      onAdd: function (evt) {
        var code = evt.item.dataset.code;
        evt.item.remove();
        S.dragging = false;
        discard(code);
      },
    })));
    pileSortables.push(Sortable.create($("finish-slot"), sortableOpts({
      group: { name: "hand", pull: false, put: function () { return myTurn() && S.view.has_drawn && legal("finish"); } },
      sort: false,
      onAdd: function (evt) {
        var code = evt.item.dataset.code;
        evt.item.remove();
        S.dragging = false;
        startFinish(code);
      },
    })));
  }
  function onHandAdd(evt) {
    if (evt.from.id === "closed-deck" || evt.from.id === "open-pile") {
      var src = evt.item.dataset.source;
      var row = evt.to;
      var gi = +row.parentNode.dataset.group;
      var idx = Array.prototype.indexOf.call(row.children, evt.item);
      evt.item.remove();
      S.dragging = false;
      document.body.classList.remove("is-dragging");
      S.placement = { g: gi, i: idx };
      drawFrom(src);
    }
  }
  function dragDone() {
    S.dragging = false;
    document.body.classList.remove("is-dragging");
    if (S.dirty) setTimeout(render, 0);
  }
  function onHandDragEnd(evt) {
    var moved = !(evt.from === evt.to && evt.oldIndex === evt.newIndex);
    var away = evt.to && (evt.to.id === "open-pile" || evt.to.id === "finish-slot" || evt.to.id === "new-group");
    if (away || !moved) { dragDone(); return; }
    S.dragging = false;
    document.body.classList.remove("is-dragging");
    S.groups = readGroups();
    if (S.finishCard) S.groups.pop();
    S.selected = null;
    afterArrange();
  }
  function afterArrange() {
    render();
    clearTimeout(S.arrangeTimer);
    S.arrangeTimer = setTimeout(sendArrange, 400);
  }
  function sendArrange() {
    if (!legal("arrange") || !S.groups) return;
    // one pending arrange at a time is enough: the newest replaces the older ones
    Object.keys(S.pending).forEach(function (id) {
      if (S.pending[id].action.type === "arrange") delete S.pending[id];
    });
    act({ type: "arrange", groups: S.groups }, { quiet: true });
  }

  // ------------------------------------------------------------------ evaluate (the engine's verdict)
  var evalCache = {};
  function evaluate() {
    var v = S.view;
    if (!v || v.wild_rank == null || !S.groups) return;
    var groups = S.groups.map(function (g) { return g.slice(); });
    if (S.finishCard) {
      for (var gi = 0; gi < groups.length; gi++) {
        var at = groups[gi].indexOf(S.finishCard);
        if (at >= 0) { groups[gi].splice(at, 1); break; }
      }
    }
    groups = groups.filter(function (g) { return g.length; });
    var seq = ++S.evalSeq;
    fetchVerdict(groups, v.wild_rank).then(function (res) {
      if (seq !== S.evalSeq) return;
      S.verdict = res;
      paintVerdict(res, groups);
    }).catch(function () {});
  }
  function fetchVerdict(groups, wild) {
    var key = wild + ":" + JSON.stringify(groups);
    if (evalCache[key]) return Promise.resolve(evalCache[key]);
    return fetch(cfg.evaluateUrl, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": cfg.csrf },
      body: JSON.stringify({ groups: groups, wild_rank: wild }),
    }).then(function (r) {
      if (!r.ok) throw new Error("evaluate " + r.status);
      return r.json();
    }).then(function (res) {
      evalCache[key] = res;
      return res;
    });
  }
  function paintVerdict(res, groups) {
    var labels = document.querySelectorAll("#groups .group");
    labels.forEach(function (wrap, k) {
      var r = res.groups[k];
      if (!r) return;
      var label = wrap.querySelector(".group-label");
      label.className = "group-label kind-" + r.kind;
      label.textContent = KIND_LABEL[r.kind] + (r.kind === "invalid" ? " · " + r.points + " pts" : " ✓");
      wrap.className = "group kind-" + r.kind;
      wrap.dataset.kind = r.kind;
    });
    var v = S.view;
    var cap = v.rules ? v.rules.full_count : 80;
    var count = groups.reduce(function (n, g) { return n + g.length; }, 0);
    var sum = $("hand-summary");
    var pts = Math.min(res.points, cap);
    if (res.valid) {
      sum.innerHTML = '<span class="ok">Ready to declare ✓</span>';
    } else {
      sum.innerHTML = "Hand count <strong>" + pts + "</strong> pts" + (count === 14 ? ' <span class="hint">· drop one card in the finish slot to declare</span>' : "");
    }
  }

  // ------------------------------------------------------------------ moves
  function drawFrom(source) {
    if (!canDraw()) { toast("It is not your turn to draw"); render(); return; }
    if (source === "open" && !S.view.can_pick_open) { toast("A joker on the open pile cannot be picked up"); render(); return; }
    act({ type: "draw", source: source === "open" ? "open" : "closed" });
  }
  function discard(code) {
    if (!canDiscard()) { toast("You can discard only on your turn, after drawing"); render(); return; }
    S.selected = null;
    // remove it locally at once; the server's update confirms
    act({ type: "discard", card: code });
    render();
  }
  function selectedCode() {
    if (!S.selected || !S.groups) return null;
    var g = S.groups[S.selected.g];
    return g ? g[S.selected.i] : null;
  }
  function startFinish(code) {
    if (!(myTurn() && S.view.has_drawn && legal("finish"))) { toast("You can finish only on your turn, after drawing"); render(); return; }
    S.finishCard = code;
    S.selected = null;
    render();
    openDeclareDialog();
  }
  function groupsWithout(card) {
    var groups = S.groups.map(function (g) { return g.slice(); });
    for (var gi = 0; gi < groups.length; gi++) {
      var at = groups[gi].indexOf(card);
      if (at >= 0) { groups[gi].splice(at, 1); break; }
    }
    return groups.filter(function (g) { return g.length; });
  }
  function groupsHtml(groups, verdict) {
    return '<div class="sheet-groups">' + groups.map(function (g, k) {
      var r = verdict && verdict.groups[k];
      return '<div class="sheet-group' + (r ? " kind-" + r.kind : "") + '">' +
        '<div class="cards-row">' + g.map(function (c) { return cardEl(c, { small: true }).outerHTML; }).join("") + "</div>" +
        (r ? '<div class="group-label kind-' + r.kind + '">' + KIND_LABEL[r.kind] + (r.kind === "invalid" ? " · " + r.points : "") + "</div>" : "") +
        "</div>";
    }).join("") + "</div>";
  }
  function openDeclareDialog() {
    var card = S.finishCard;
    var groups = groupsWithout(card);
    fetchVerdict(groups, S.view.wild_rank).then(function (verdict) {
      var body = '<div class="sheet-meta"><span>Finish card</span> ' + cardEl(card, { small: true }).outerHTML + "</div>" +
        groupsHtml(groups, verdict) +
        (verdict.valid
          ? '<p class="ok big-ok">Valid declaration ✓ — you win this deal with 0 points.</p>'
          : '<p class="warn-text">These groups are <strong>not</strong> a valid show: a wrong show costs ' + S.view.rules.wrong_show + " points.</p>");
      openModal("declare", "Declare?", body, [
        { text: "Cancel", cls: "ghost-btn", id: "declare-cancel", fn: cancelFinish },
        { text: verdict.valid ? "Declare" : "Declare anyway", cls: verdict.valid ? "gold" : "danger", id: "declare-confirm", fn: function () {
          act({ type: "finish", card: card, groups: groups });
          S.finishCard = null;
          closeModal();
        } },
      ], cancelFinish);
    }).catch(function () { toast("Could not check your groups; try again"); cancelFinish(); });
  }
  function cancelFinish() {
    S.finishCard = null;
    closeModal();
    render();
  }

  // ------------------------------------------------------------------ modal
  function openModal(kind, title, html, buttons, onClose) {
    S.modalKind = kind;
    $("modal-title").textContent = title;
    $("modal-body").innerHTML = html;
    var acts = $("modal-actions");
    acts.innerHTML = "";
    (buttons || []).forEach(function (b) {
      var btn = document.createElement("button");
      btn.type = "button";
      btn.className = "act " + (b.cls || "");
      btn.textContent = b.text;
      if (b.id) btn.id = b.id;
      btn.addEventListener("click", b.fn);
      acts.appendChild(btn);
    });
    $("modal").hidden = false;
    $("modal").dataset.kind = kind;
    $("modal-x").onclick = onClose || closeModal;
  }
  function closeModal() {
    $("modal").hidden = true;
    S.modalKind = null;
  }

  // ------------------------------------------------------------------ result sheet
  function maybeShowResult() {
    var v = S.view;
    if (!v) return;
    var over = v.phase === "between_deals" || v.phase === "rejoin_window" || v.phase === "split_offer" || v.phase === "finished";
    if (over && (v.last_result || v.result)) {
      var key = (v.last_result ? v.last_result.deal_no : "x") + ":" + v.phase + ":" + JSON.stringify(v.rejoin_offer) + JSON.stringify(v.split_offer && v.split_offer.accepted);
      if (S.resultSeen !== key || S.modalKind === "result") {
        S.resultSeen = key;
        showResultSheet();
      }
    } else if (S.modalKind === "result" && v.phase === "playing" && S.autoSheet) {
      closeModal();
    }
  }
  function showResultSheet() {
    var v = S.view;
    var r = v.last_result;
    S.autoSheet = true;
    var parts = [];
    if (r) {
      parts.push('<div class="sheet-meta"><span>Cut joker</span> ' + (r.cut_joker ? cardEl(r.cut_joker, { small: true, plain: true }).outerHTML : "") +
        (r.finish_card ? "<span>Finish card</span> " + cardEl(r.finish_card, { small: true, plain: true }).outerHTML : "") +
        (v.prize_pool != null ? '<span class="sheet-pool">Prize pool ' + money(v.prize_pool) + "</span>" : "") + "</div>");
      parts.push('<table class="sheet" id="result-table"><thead><tr><th>Player</th><th>Cards shown</th><th>Points</th><th>Score</th></tr></thead><tbody>');
      Object.keys(r.players).forEach(function (seat) {
        var p = r.players[seat];
        var pl = v.players[+seat] || {};
        var status = STATUS_LABEL[p.status] || p.status;
        var reason = p.reason ? " (" + (REASON_LABEL[p.reason] || p.reason) + ")" : "";
        var won = String(r.winner) === seat;
        parts.push('<tr class="' + (won ? "winner" : "") + '" data-seat="' + seat + '"><td class="pname">' + (won ? "★ " : "") + esc(pl.name || "Seat " + seat) +
          '<div class="pstatus">' + esc(status + reason) + (p.deal_show ? " · deal show (half)" : "") + "</div></td>" +
          '<td class="pgroups" data-groups=\'' + esc(JSON.stringify(p.groups || [])) + "'>" +
          (p.groups ? groupsHtml(p.groups, null) : '<span class="muted">—</span>') + "</td>" +
          '<td class="ppoints">' + p.points + "</td>" +
          '<td class="pscore">' + (pl.score != null ? pl.score : "") + (pl.eliminated ? ' <span class="out-tag">out</span>' : "") + "</td></tr>");
      });
      parts.push("</tbody></table>");
    }
    var buttons = [];
    var m = me();
    if (v.rejoin_offer) {
      var ro = v.rejoin_offer;
      var mineOffer = v.seat != null && ro.seats.indexOf(v.seat) >= 0;
      parts.push('<div class="offer" id="rejoin-offer"><strong>Rejoin</strong>: ' +
        (mineOffer ? "you may rejoin" : ro.seats.map(nameOf).join(", ") + " may rejoin") +
        " for " + money(ro.fee) + ", starting at <strong>" + ro.score + "</strong> points.</div>");
      if (mineOffer && legal("rejoin")) buttons.push({ text: "Rejoin · " + money(ro.fee), cls: "gold", id: "btn-rejoin", fn: function () { act({ type: "rejoin" }); } });
    }
    if (v.split_offer) {
      var so = v.split_offer;
      parts.push('<div class="offer" id="split-offer"><strong>Split the prize?</strong><ul>' + Object.keys(so.amounts).map(function (seat) {
        var acc = so.accepted.indexOf(+seat) >= 0;
        return "<li>" + esc(nameOf(+seat)) + ": <strong>" + money(so.amounts[seat]) + "</strong>" + (acc ? ' <span class="ok">accepted</span>' : "") + "</li>";
      }).join("") + "</ul>Everyone must accept.</div>");
      if (legal("split_accept")) {
        buttons.push({ text: "Accept split", cls: "gold", id: "btn-split-accept", fn: function () { act({ type: "split_accept" }); } });
        buttons.push({ text: "Decline", cls: "ghost-btn", id: "btn-split-decline", fn: function () { act({ type: "split_decline" }); } });
      }
    }
    var res = v.result || (S.snap.game && S.snap.game.result);
    if (res) {
      var winner = res.winner != null ? v.players.filter(function (p) { return p.id === String(res.winner); })[0] : null;
      parts.push('<div class="final" id="final-result"><h3>' + (res.split ? "The prize was split" : winner ? "★ " + esc(winner.name) + " wins the pool!" : "Game over") + "</h3>" +
        "<p>Prize pool " + money(res.prize_pool) + (res.rake ? " · platform fee " + money(res.rake) : "") + "</p><ul>" +
        Object.keys(res.payouts || {}).map(function (pid) {
          var p = v.players.filter(function (x) { return x.id === pid; })[0];
          return "<li>" + esc(p ? p.name : pid) + ": <strong>" + money(res.payouts[pid]) + "</strong></li>";
        }).join("") + "</ul></div>");
      buttons.push({ text: "Back to lobby", cls: "primary", id: "btn-lobby", fn: function () { location.href = cfg.lobbyUrl; } });
    } else {
      parts.push('<p class="countdown" id="sheet-countdown"></p>');
    }
    if (!res) buttons.push({ text: "Close", cls: "ghost-btn", id: "btn-sheet-close", fn: closeModal });
    openModal("result", r ? "Deal " + r.deal_no + " result" : "Result", parts.join(""), buttons);
    // label every shown group with the engine's verdict
    if (r) {
      document.querySelectorAll("#result-table .pgroups").forEach(function (td) {
        var groups = JSON.parse(td.dataset.groups || "[]");
        if (!groups.length) return;
        fetchVerdict(groups, r.wild_rank).then(function (vd) {
          td.innerHTML = groupsHtml(groups, vd);
        }).catch(function () {});
      });
    }
  }

  // ------------------------------------------------------------------ open cards viewer
  function showOpenCards() {
    var v = S.view;
    var pile = (v && v.open_pile) || [];
    var html = pile.length
      ? '<p class="muted">Oldest first; the last card is on top.</p><div class="cards-row wrap">' + pile.map(function (c) { return cardEl(c, { small: true }).outerHTML; }).join("") + "</div>"
      : "<p>No open cards yet.</p>";
    openModal("open-cards", "Open cards (" + pile.length + ")", html, [{ text: "Close", cls: "ghost-btn", fn: closeModal }]);
  }

  // ------------------------------------------------------------------ wiring
  $("groups").addEventListener("click", function (e) {
    var card = e.target.closest(".card");
    if (!card || S.dragging) return;
    var g = +card.dataset.g, i = +card.dataset.i;
    S.selected = S.selected && S.selected.g === g && S.selected.i === i ? null : { g: g, i: i };
    document.querySelectorAll("#groups .card.selected").forEach(function (c) { c.classList.remove("selected"); });
    if (S.selected) card.classList.add("selected");
    renderActions();
  });
  $("closed-deck").addEventListener("click", function () {
    if (S.view && S.view.hand) drawFrom("closed");
  });
  $("open-pile").addEventListener("click", function (e) {
    if (!S.view || !S.view.hand) return;
    if (canDiscard() && S.selected) { discard(selectedCode()); return; }
    if (canDraw()) drawFrom("open");
  });
  $("finish-slot").addEventListener("click", function () {
    if (S.selected && myTurn() && S.view.has_drawn) startFinish(selectedCode());
  });
  $("btn-discard").addEventListener("click", function () {
    var code = selectedCode();
    if (!code) { toast("Select a card to discard first"); return; }
    discard(code);
  });
  $("btn-finish").addEventListener("click", function () {
    var code = S.finishCard || selectedCode();
    if (!code) { toast("Select the card to put in the finish slot"); return; }
    startFinish(code);
  });
  $("btn-show").addEventListener("click", function () {
    var groups = S.groups.filter(function (g) { return g.length; });
    act({ type: "show", groups: groups });
  });
  $("btn-sort").addEventListener("click", function () {
    if (!S.groups) return;
    var all = [].concat.apply([], S.groups).sort(cmpCards);
    var bySuit = {};
    all.forEach(function (c) { var k = parse(c).joker ? "J" : parse(c).suit; (bySuit[k] = bySuit[k] || []).push(c); });
    S.groups = ["S", "H", "D", "C", "J"].filter(function (k) { return bySuit[k]; }).map(function (k) { return bySuit[k]; });
    S.selected = null;
    afterArrange();
  });
  $("btn-drop").addEventListener("click", function () {
    if (!legal("drop")) return;
    var cost = dropCost();
    var first = me().turns_taken === 0;
    openModal("drop", "Drop this deal?", "<p>A " + (first ? "first" : "middle") + " drop adds <strong>" + cost + " points</strong> to your score (" + me().score + " → " + (me().score + cost) + " of " + S.view.pool_limit + ").</p>", [
      { text: "Keep playing", cls: "ghost-btn", fn: closeModal },
      { text: "Drop · " + cost + " pts", cls: "danger", id: "drop-confirm", fn: function () { act({ type: "drop" }); closeModal(); } },
    ]);
  });
  $("auto-drop").addEventListener("change", function (e) {
    if (e.target.checked) act({ type: "auto_drop", on: true });
    else act({ type: "im_back" });
  });
  $("btn-back").addEventListener("click", function () { act({ type: "im_back" }); });
  $("btn-forfeit").addEventListener("click", function () {
    openModal("leave", "Leave the game?", "<p>You forfeit this pool game; the entry fee is not refunded once the game has started.</p>", [
      { text: "Stay", cls: "ghost-btn", fn: closeModal },
      { text: "Leave and forfeit", cls: "danger", fn: function () { act({ type: "leave" }); closeModal(); setTimeout(function () { location.href = cfg.lobbyUrl; }, 600); } },
    ]);
  });
  $("btn-open-cards").addEventListener("click", showOpenCards);
  $("btn-last-result").addEventListener("click", function () { if (S.view && S.view.last_result) { showResultSheet(); S.autoSheet = false; } });
  $("modal").addEventListener("click", function (e) {
    if (e.target === $("modal")) {
      if (S.modalKind === "declare") cancelFinish(); else closeModal();
    }
  });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && !$("modal").hidden) {
      if (S.modalKind === "declare") cancelFinish(); else closeModal();
    }
  });
  window.addEventListener("online", function () { if (!S.ws) connect(); });
  // no re-render under a finger or a mouse button: the card being pressed must stay where it is
  app.addEventListener("pointerdown", function (e) {
    if (e.target.closest && e.target.closest(".card")) S.pointerDown = true;
  });
  function released() {
    if (!S.pointerDown) return;
    S.pointerDown = false;
    setTimeout(function () { if (S.dirty && !S.dragging) render(); }, 0);
  }
  document.addEventListener("pointerup", released, true);
  document.addEventListener("pointercancel", released, true);

  // test hook: a read-only look at what the page knows (never more than the server sent)
  window.rummyTable = { state: S, send: act };

  connect();
})();
