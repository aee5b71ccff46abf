// Wall view: a tile per table (live thumbnail, source, round state, fps, open alerts), open alerts of all tables.
"use strict";
(() => {
  const { el, api, when, ago, typeLabel, seatName, alertItem } = PW;
  const tiles = new Map();   // id -> {node, parts, img, loading}
  let lastAlertByTable = new Map();

  function makeTile(t) {
    const img = el("img", { alt: `table ${t.id}`, hidden: true });
    const nosignal = el("div", { class: "nosignal" }, "no signal");
    const parts = {
      dot: el("span", { class: "dot" }), src: el("span", { class: "src" }),
      phase: el("span", { class: "phase" }), round: el("span", { class: "phase" }),
      fps: el("div", { class: "v" }), open: el("div", { class: "v" }), lastframe: el("div", { class: "v" }),
      frames: el("div", { class: "v" }), last: el("div", { class: "last" }), img, nosignal,
    };
    const node = el("a", { class: "tile", href: "/tables/" + encodeURIComponent(t.id), dataset: { table: t.id } },
      el("div", { class: "head" }, parts.dot, el("span", { class: "name" }, t.id), parts.src,
        el("span", { class: "spacer" }), parts.round, parts.phase),
      el("div", { class: "thumb" }, img, nosignal),
      el("div", { class: "foot" },
        el("div", {}, el("div", { class: "k" }, "analysed fps"), parts.fps),
        el("div", {}, el("div", { class: "k" }, "open alerts"), parts.open),
        el("div", {}, el("div", { class: "k" }, "last frame"), parts.lastframe),
        el("div", {}, el("div", { class: "k" }, "dropped"), parts.frames)),
      parts.last);
    const tile = { node, parts, loading: false, failures: 0 };
    tiles.set(t.id, tile);
    document.getElementById("tiles").append(node);
    refreshThumb(t.id);
    return tile;
  }

  function refreshThumb(id) {
    const tile = tiles.get(id);
    if (!tile || tile.loading) return;
    tile.loading = true;
    const next = new Image();
    next.onload = () => {
      tile.parts.img.src = next.src;
      tile.parts.img.hidden = false;
      tile.parts.nosignal.hidden = true;
      tile.loading = false;
      tile.failures = 0;
      if (tile.prevUrl) URL.revokeObjectURL(tile.prevUrl);
      setTimeout(() => refreshThumb(id), 1000);
    };
    next.onerror = () => {
      tile.loading = false;
      tile.failures += 1;
      tile.parts.nosignal.hidden = false;
      tile.parts.img.hidden = true;
      setTimeout(() => refreshThumb(id), Math.min(10000, 1000 * tile.failures));
    };
    next.src = `/api/tables/${encodeURIComponent(id)}/snapshot.jpg?width=480&t=${Date.now()}`;
  }

  function update(t) {
    const tile = tiles.get(t.id) || makeTile(t);
    const p = tile.parts;
    p.dot.className = "dot " + t.source_state;
    p.dot.title = t.source_state + (t.source_reason ? ": " + t.source_reason : "");
    p.src.textContent = `${t.source_state}${t.observer === "oracle" ? " · oracle" : ""}`;
    p.src.title = t.source;
    p.phase.textContent = t.phase;
    p.phase.className = "phase " + t.phase;
    p.round.textContent = t.round_index === null || t.round_index === undefined ? "no round" : "R" + t.round_index;
    p.fps.textContent = t.fps_analysed.toFixed(1);
    p.open.textContent = t.open_alerts;
    p.open.className = "v" + (t.open_alerts ? " bad" : "");
    p.lastframe.textContent = t.last_frame_utc ? ago(t.last_frame_utc) : "–";
    p.frames.textContent = t.frames_dropped;
    tile.node.classList.toggle("alerting", t.open_alerts > 0);
    const last = lastAlertByTable.get(t.id);
    if (t.source_state !== "playing" && t.source_reason) {
      p.last.textContent = "⚠ " + t.source_reason;
      p.last.className = "last bad";
    } else if (last) {
      p.last.textContent = `⚠ ${typeLabel(last.type)} · ${seatName(last.seat)} · ${when(last.utc || last.recorded_at)}`;
      p.last.className = "last bad";
    } else {
      p.last.textContent = "no open alert";
      p.last.className = "last";
    }
  }

  async function pollTables() {
    try {
      const list = await api("/api/tables");
      document.getElementById("n-tables").textContent = list.length;
      document.getElementById("n-live").textContent = list.filter((t) => t.source_state === "playing").length;
      const open = list.reduce((n, t) => n + t.open_alerts, 0);
      const nOpen = document.getElementById("n-open");
      nOpen.textContent = open;
      nOpen.className = "v" + (open ? " bad" : "");
      const seen = new Set();
      for (const t of list) { update(t); seen.add(t.id); }
      for (const [id, tile] of tiles) if (!seen.has(id)) { tile.node.remove(); tiles.delete(id); }
      if (!list.length) document.getElementById("tiles").replaceChildren(el("div", { class: "empty" },
        "No table is served. Start pitwatch serve with --tables TABLE.yaml."));
    } catch (e) { console.warn(e); }
    setTimeout(pollTables, 2000);
  }

  const feedItems = new Map();   // alert id -> li (kept, so a comment being typed survives a refresh)
  let firstFeed = true;
  async function pollAlerts() {
    try {
      const list = (await api("/api/alerts?acknowledged=false&limit=100")).filter((a) => !a.review_id).reverse();
      lastAlertByTable = new Map();
      for (const a of list) if (!lastAlertByTable.has(a.table)) lastAlertByTable.set(a.table, a);
      const feed = document.getElementById("feed");
      const ids = new Set(list.map((a) => a.id));
      for (const [id, li] of feedItems) if (!ids.has(id)) { li.remove(); feedItems.delete(id); }
      let prev = null;
      for (const a of list) {
        let li = feedItems.get(a.id);
        if (!li) {
          li = alertItem(a, { showTable: true, noEvidence: true, fresh: !firstFeed,
            onAck: (_u, done) => { feedItems.delete(a.id); setTimeout(() => done.remove(), 4000); } });
          feedItems.set(a.id, li);
        }
        if (prev ? prev.nextSibling !== li : feed.firstChild !== li) {
          if (prev) prev.after(li); else feed.prepend(li);
        }
        prev = li;
      }
      firstFeed = false;
      document.getElementById("feed-count").textContent = list.length;
      document.getElementById("feed-count").className = "badge" + (list.length ? " bad" : "");
      document.getElementById("feed-empty").hidden = list.length > 0;
    } catch (e) { console.warn(e); }
    setTimeout(pollAlerts, 3000);
  }

  PW.startClock(document.getElementById("clock"));
  pollAlerts();
  pollTables();
})();
