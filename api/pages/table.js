// Table view: live video with boxes (MJPEG drawn by the server), round state, zone readings, alert feed with
// acknowledge + comment, round timeline and events, fed by the table's WebSocket.
"use strict";
(() => {
  const { el, api, when, money, seatName, typeLabel, card, alertItem } = PW;
  const TABLE = document.body.dataset.table;
  const T = encodeURIComponent(TABLE);
  const $ = (id) => document.getElementById(id);

  let clock = null;            // {ms: wall-clock ms of the latest frame, t: its t_s}
  let current = null;          // the open round (JSON), from the WebSocket
  let stored = [];             // stored rounds of this table, oldest first
  let selected = null;         // round shown in the detail panel (null: follow the live one)
  const alertNodes = new Map();
  let filterOpen = true;

  // ---------------------------------------------------------------- status (top bar)
  async function refreshStatus() {
    try { showStatus(await api(`/api/tables/${T}`)); } catch (e) { console.warn(e); }
  }
  async function pollStatus() {
    await refreshStatus();
    setTimeout(pollStatus, 2000);
  }

  function showStatus(s) {
    $("t-dot").className = "dot " + s.source_state;
    $("t-source").textContent = s.source_state + (s.observer === "oracle" ? " · oracle readings" : "");
    $("t-source").title = (s.source || "") + (s.source_reason ? "\n" + s.source_reason : "");
    $("t-fps").textContent = Number(s.fps_analysed).toFixed(1);
    $("t-frames").textContent = s.frames_read;
    $("t-dropped").textContent = s.frames_dropped;
    $("t-open").textContent = s.open_alerts;
    $("t-open").className = "v" + (s.open_alerts ? " bad" : "");
    $("hud-dot").className = "dot " + s.source_state;
    $("hud-live").textContent = s.source_state === "playing" ? "LIVE" : s.source_state.toUpperCase();
    if (s.source_state !== "playing" && s.source_reason) $("nosignal").textContent = s.source_reason;
    if (s.current_round !== undefined && !current) setCurrent(s.current_round, s.phase);
  }

  // ---------------------------------------------------------------- video
  function startVideo() {
    const img = $("stream");
    img.onload = () => { $("nosignal").hidden = true; img.classList.remove("off"); };
    img.onerror = () => {
      $("nosignal").hidden = false;
      img.classList.add("off");   // no broken-image icon or alt text over the message
      setTimeout(() => { img.src = `/api/tables/${T}/stream.mjpg?width=960&t=${Date.now()}`; }, 3000);
    };
    img.src = `/api/tables/${T}/stream.mjpg?width=960`;
  }

  let bannerTimer = null;
  function banner(a) {
    const b = $("banner");
    b.textContent = `⚠ ${typeLabel(a.type).toUpperCase()} · ${seatName(a.seat)}` +
      (a.expected !== null && a.expected !== undefined && !PW.isCamera(a.type)
        ? ` · expected ${money(a.expected)} observed ${money(a.observed)}` : "") + (a.message ? ` · ${a.message}` : "");
    b.classList.add("show");
    clearTimeout(bannerTimer);
    bannerTimer = setTimeout(() => b.classList.remove("show"), 8000);
  }

  // ---------------------------------------------------------------- zone readings
  let lastZones = 0;
  function showFrame(m) {
    clock = { ms: m.utc ? new Date(m.utc).getTime() : Date.now(), t: m.t_s };
    const n = m.boxes.length;
    $("hud-boxes").textContent = `${n} box${n === 1 ? "" : "es"} · ${m.boxes.filter((b) => b.kind === "card").length} cards`;
    $("hud-boxes").dataset.n = n;
    $("hud-t").textContent = `t ${m.t_s.toFixed(1)} s · frame ${m.frame}`;
    const now = performance.now();
    if (now - lastZones < 250) return;
    lastZones = now;
    const zones = new Set([...Object.keys(m.cards || {}), ...Object.keys(m.chips || {})]);
    const rows = [...zones].sort(zoneOrder).map((z) => el("tr", {},
      el("td", {}, z),
      el("td", {}, ...(m.cards[z] || []).map(card)),
      el("td", { class: "v" }, m.chips[z] !== undefined ? (m.chips[z] === null ? "?" : money(m.chips[z])) : "")));
    $("zones").replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", { colspan: "3", class: "dim" }, "nothing on the layout"))]));
  }
  function zoneOrder(a, b) {
    const k = (z) => (z.startsWith("dealer") ? "0" : z.replace(/seat(\d)/, (_, d) => "1" + d)) ;
    return k(a) < k(b) ? -1 : k(a) > k(b) ? 1 : 0;
  }

  // ---------------------------------------------------------------- rounds
  function setCurrent(r, phase) {
    current = r;
    $("hud-round").textContent = r ? `ROUND ${r.index}` : "NO ROUND";
    $("hud-phase").textContent = phase || "idle";
    $("hud-phase").className = "phase " + (phase || "idle");
    if (!selected) showRound(r, true);
    drawTimeline();
  }

  function outcomeCell(bet) {
    if (!bet) return el("td", { class: "dim" }, "–");
    const bad = bet.expected_payout !== null && bet.observed_payout !== null &&
      JSON.stringify(bet.expected_payout) !== JSON.stringify(bet.observed_payout) && bet.outcome !== "open";
    return el("td", { class: "out-" + bet.outcome, title: `expected payout ${money(bet.expected_payout)}, paid ${money(bet.observed_payout)}` },
      bet.outcome, " ", el("span", { class: bad ? "" : "dim" },
        `${money(bet.expected_payout)}/${money(bet.observed_payout)}`));
  }

  function showRound(r, live) {
    const box = $("round-detail");
    if (!r) {
      $("rd-title").textContent = "";
      box.replaceChildren(el("div", { class: "empty" }, "No round open: waiting for the next bets."));
      return;
    }
    $("rd-title").textContent = `${live ? "live · " : ""}#${r.index} · ${r.start_s.toFixed(1)}–${r.end_s === null || r.end_s === undefined ? "…" : r.end_s.toFixed(1)} s` +
      (selected ? " (click the open round to follow live)" : "");
    const alertSeats = new Set((r.alerts || []).map((a) => String(a.seat)));
    const dealer = el("div", { class: "dealer" },
      el("div", { class: "dim" }, "dealer"),
      el("div", { class: "cards" }, ...(r.dealer.cards || []).map(card)),
      el("div", { class: "dim" }, "up ", r.dealer.up ? card(r.dealer.up) : "–"),
      el("div", { class: "dim" }, `${(r.alerts || []).length} alert(s)`));
    const rows = (r.seats || []).map((s) => el("tr", { class: alertSeats.has(String(s.seat)) ? "bad" : "" },
      el("td", {}, s.seat),
      el("td", {}, ...s.cards.map(card), s.hits && s.hits.length ? el("span", { class: "dim" }, " + ") : null, ...(s.hits || []).map(card)),
      el("td", {}, Object.entries(s.wagers).map(([k, v]) => `${k} ${money(v)}`).join("  ")),
      outcomeCell(s.mtd), outcomeCell(s.bonus)));
    const seats = el("table", { class: "grid" },
      el("thead", {}, el("tr", {}, ...["seat", "cards", "wagers", "mtd exp/paid", "bonus exp/paid"].map((h) => el("th", {}, h)))),
      el("tbody", {}, rows.length ? rows : el("tr", {}, el("td", { colspan: "5", class: "dim" }, "no wager yet"))));
    box.replaceChildren(el("div", { class: "rd" }, dealer, el("div", {}, seats)));
  }

  async function loadRounds() {
    try {
      stored = await api(`/api/rounds?table=${T}&limit=200`);
    } catch (e) { console.warn(e); }
    drawTimeline();
  }

  function roundSpan(r) {
    // wall-clock ms of a round's start and end; rounds of this run are placed by the live clock
    let start;
    if (clock && (r === current || sameRun(r))) start = clock.ms - (clock.t - r.start_s) * 1000;
    else if (r.utc) start = new Date(r.utc).getTime();
    else return null;
    const end = r.end_s === null || r.end_s === undefined ? (clock ? clock.ms : Date.now())
      : start + (r.end_s - r.start_s) * 1000;
    return [start, end];
  }
  let runBase = null;
  function sameRun(r) { return runBase && r.evidence_base === runBase; }

  function drawTimeline() {
    const box = $("timeline");
    const win = Number($("tl-window").value) * 1000;
    const now = clock ? clock.ms : Date.now();
    const t0 = now - win;
    const x = (ms) => `${(100 * (ms - t0) / win).toFixed(3)}%`;
    const nodes = [el("div", { class: "lane" })];
    const lane = nodes[0];
    const all = stored.slice();
    if (current && !all.some((r) => sameRun(r) && r.index === current.index)) all.push(current);
    for (const r of all) {
      const span = roundSpan(r);
      if (!span || span[1] < t0) continue;
      const left = Math.max(span[0], t0);
      const open = r === current;
      const alerts = r.alerts || [];
      const div = el("div", {
        class: "rnd" + (open ? " open" : "") + (alerts.length ? " alerted" : "") + (selected === r ? " sel" : ""),
        style: `left:${x(left)};width:${Math.max(0.4, 100 * (span[1] - left) / win).toFixed(3)}%`,
        title: `round ${r.index}: ${r.start_s.toFixed(1)}–${r.end_s ?? "…"} s, ${alerts.length} alert(s)`,
      }, `R${r.index}`);
      div.addEventListener("click", () => { selected = open ? null : r; showRound(r, open); drawTimeline(); });
      lane.append(div);
      for (const a of alerts) {
        const ms = span[0] + (a.t_s - r.start_s) * 1000;
        if (ms < t0) continue;
        lane.append(el("div", { class: "mark", style: `left:${x(ms)}`, title: `${typeLabel(a.type)} · ${seatName(a.seat)} · t ${a.t_s}s` }));
      }
    }
    const axis = el("div", { class: "axis" });
    const step = win <= 180000 ? 30000 : win <= 600000 ? 60000 : win <= 1800000 ? 300000 : 900000;
    for (let ms = Math.ceil(t0 / step) * step; ms <= now; ms += step) {
      const d = new Date(ms);
      axis.append(el("span", { class: "tick", style: `left:${x(ms)}` },
        `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}` + (step < 60000 ? `:${String(d.getSeconds()).padStart(2, "0")}` : "")));
    }
    nodes.push(axis, el("div", { class: "now", style: `left:${x(now)}` }));
    box.replaceChildren(...nodes);
    $("tl-span").textContent = `· ${all.filter((r) => { const s = roundSpan(r); return s && s[1] >= t0; }).length} round(s) in view`;
  }

  // ---------------------------------------------------------------- alerts
  async function loadAlerts() {
    try {
      const q = filterOpen ? "&acknowledged=false" : "";
      const list = await api(`/api/alerts?table=${T}&limit=200${q}`);
      alertNodes.clear();
      $("alerts").replaceChildren(...list.reverse().map((a) => makeAlert(a, false)));
      countAlerts();
    } catch (e) { console.warn(e); }
  }
  function makeAlert(a, fresh) {
    const li = alertItem(a, { fresh, onAck: (u, done) => {
      alertNodes.set(u.id, done);
      countAlerts();
      refreshStatus();
      if (filterOpen) setTimeout(() => { done.remove(); alertNodes.delete(u.id); countAlerts(); }, 5000);
    } });
    alertNodes.set(a.id, li);
    return li;
  }
  function addAlert(a) {
    if (alertNodes.has(a.id)) return;
    $("alerts").prepend(makeAlert(a, true));
    countAlerts();
  }
  function ackFromElsewhere(a) {
    const li = alertNodes.get(a.id);
    if (!li || li.classList.contains("acked")) return;
    const done = alertItem(a, {});
    li.replaceWith(done);
    alertNodes.set(a.id, done);
    countAlerts();
  }
  function countAlerts() {
    const open = [...alertNodes.values()].filter((li) => li.isConnected && !li.classList.contains("acked")).length;
    $("al-count").textContent = open;
    $("al-count").className = "badge" + (open ? " bad" : "");
    $("al-empty").hidden = $("alerts").children.length > 0;
  }

  // ---------------------------------------------------------------- events log
  function logEvent(text, strong) {
    const ul = $("events");
    ul.prepend(el("li", {}, el("b", {}, strong), " ", text));
    while (ul.children.length > 200) ul.lastChild.remove();
  }
  function describe(m) {
    const d = m.data || {};
    if (m.kind === "card_dealt") return `${d.to === "dealer" ? "dealer" : "seat " + d.to} ← ${d.face_up ? d.card : "face down"}`;
    if (m.kind === "round_started") return `round ${m.round_index}`;
    if (m.kind === "first_card") return `round ${m.round_index}: wagers locked`;
    if (m.kind === "side_bets_due") return `side bets due: ${Object.entries(d).map(([s, o]) => `seat ${s} ${Object.entries(o).map(([b, r]) => b + " " + r).join(", ")}`).join("; ")}`;
    return JSON.stringify(d).slice(0, 120);
  }

  // ---------------------------------------------------------------- WebSocket
  let backoff = 1000;
  function connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}/api/tables/${T}/events`);
    ws.onopen = () => { $("t-conn").className = "conn on"; backoff = 1000; };
    ws.onclose = () => {
      $("t-conn").className = "conn off";
      setTimeout(connect, backoff);
      backoff = Math.min(15000, backoff * 2);
    };
    ws.onmessage = (ev) => {
      const m = JSON.parse(ev.data);
      switch (m.type) {
        case "hello":
          runBase = `live/${m.status.id.replace(/[^A-Za-z0-9_.-]/g, "_")}/${m.status.run_id}`;
          showStatus(Object.assign({ open_alerts: 0 }, m.status));
          setCurrent(m.status.current_round, m.status.phase);
          break;
        case "frame": showFrame(m); break;
        case "round": setCurrent(m.round, m.phase); break;
        case "round_ended":
          stored.push(m.round);
          logEvent(`round ${m.round.index} ended, ${m.round.alerts.length} alert(s)`, `t ${m.round.end_s ?? "?"}s`);
          drawTimeline();
          break;
        case "alert":
          addAlert(m.alert);
          banner(m.alert);
          logEvent(`${typeLabel(m.alert.type)} · ${seatName(m.alert.seat)}`, `t ${m.alert.t_s}s ALERT`);
          break;
        case "ack": ackFromElsewhere(m.alert); break;
        case "status":
          $("hud-live").textContent = m.source_state === "playing" ? "LIVE" : m.source_state.toUpperCase();
          $("hud-dot").className = "dot " + m.source_state;
          logEvent(m.reason || "", `source ${m.source_state}`);
          break;
        case "event": logEvent(describe(m), `t ${m.t_s}s ${m.kind.replace(/_/g, " ")}`); break;
        default: break;
      }
    };
    setInterval(() => { if (ws.readyState === 1) ws.send("ping"); }, 20000);
  }

  $("al-filter").addEventListener("change", (e) => { filterOpen = e.target.value === "open"; loadAlerts(); });
  $("tl-window").addEventListener("change", drawTimeline);
  setInterval(drawTimeline, 2000);
  PW.startClock($("clock"));
  startVideo();
  pollStatus();
  loadRounds();
  loadAlerts();
  connect();
})();
