// pitwatch pages: shared helpers (no framework, no build step, nothing fetched from elsewhere).
"use strict";

const PW = (() => {
  const ROLE_RANK = { viewer: 0, investigator: 1, admin: 2 };

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (k === "dataset") Object.assign(e.dataset, v);
      else if (k === "style") e.style.cssText = v;   // CSSOM: allowed under the pages' CSP, unlike the attribute
      else e.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  async function api(path, options) {
    const opts = Object.assign({ credentials: "same-origin", headers: {} }, options || {});
    if (opts.json !== undefined) {
      opts.method = opts.method || "POST";
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(opts.json);
      delete opts.json;
    }
    const res = await fetch(path, opts);
    if (res.status === 401) {
      location.href = "/login";
      throw new Error("signed out");
    }
    if (!res.ok) {
      let msg = res.status + " " + res.statusText;
      try { const j = await res.json(); if (j.detail) msg = typeof j.detail === "string" ? j.detail : JSON.stringify(j.detail); } catch (_) { /* not JSON */ }
      throw new Error(msg);
    }
    const type = res.headers.get("content-type") || "";
    return type.includes("json") ? res.json() : res.text();
  }

  function may(role) {
    return ROLE_RANK[document.body.dataset.role] >= ROLE_RANK[role];
  }

  const pad = (n) => String(n).padStart(2, "0");
  function hms(d) { return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`; }
  function when(iso) {
    if (!iso) return "";
    const d = new Date(iso);
    if (isNaN(d)) return "";
    const today = new Date();
    const sameDay = d.toDateString() === today.toDateString();
    return sameDay ? hms(d) : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${hms(d)}`;
  }
  function ago(iso) {
    if (!iso) return "never";
    const s = (Date.now() - new Date(iso).getTime()) / 1000;
    if (s < 2) return "now";
    if (s < 90) return `${Math.round(s)} s ago`;
    if (s < 5400) return `${Math.round(s / 60)} min ago`;
    return `${Math.round(s / 3600)} h ago`;
  }
  function money(v) {
    if (v === null || v === undefined) return "–";
    if (Array.isArray(v)) return v.map(money).join("–");
    if (typeof v === "number") return "$" + (Number.isInteger(v) ? v : v.toFixed(2));
    return String(v);
  }
  function seatName(seat) {
    if (seat === null || seat === undefined) return "table";
    return seat === "dealer" ? "dealer" : "seat " + seat;
  }
  function typeLabel(t) { return String(t || "").replace(/_/g, " "); }
  function isCamera(t) { return t === "camera_moved" || t === "camera_lost"; }

  function card(label) {
    const l = String(label);
    const cls = l === "BACK" ? "card back" : /[HD]$/.test(l) ? "card red" : "card";
    const text = l === "BACK" ? "▒▒" : l.replace(/H$/, "♥").replace(/D$/, "♦").replace(/S$/, "♠").replace(/C$/, "♣");
    return el("span", { class: cls, title: l }, text);
  }

  function startClock(node) {
    const tick = () => { node.textContent = hms(new Date()); };
    tick();
    setInterval(tick, 1000);
  }

  // one alert in a feed: type, seat, money, message, evidence (investigators), acknowledge with a comment
  function alertItem(a, opts) {
    opts = opts || {};
    const cls = ["alert-item"];
    if (a.acknowledged) cls.push("acked");
    if (isCamera(a.type)) cls.push("camera");
    if (opts.fresh) cls.push("new");
    const li = el("li", { class: cls.join(" "), dataset: { id: a.id, type: a.type } });
    const row1 = el("div", { class: "row1" },
      el("span", { class: "type" }, typeLabel(a.type)),
      el("span", { class: "seat" }, seatName(a.seat)),
      opts.showTable && a.table ? el("a", { class: "table-link", href: "/tables/" + encodeURIComponent(a.table) }, a.table) : null,
      el("span", { class: "when", title: a.utc || a.recorded_at || "" },
        when(a.utc || a.recorded_at), a.t_s !== undefined && a.t_s !== null ? ` · t ${Number(a.t_s).toFixed(1)}s` : ""));
    li.append(row1);
    if (a.message) li.append(el("div", { class: "msg" }, a.message));
    if (a.expected !== undefined && a.expected !== null && !isCamera(a.type)) {
      li.append(el("div", { class: "money" }, "expected ", el("b", {}, money(a.expected)), "  observed ",
        el("b", {}, money(a.observed)), a.rule ? el("span", { class: "rule" }, "  " + a.rule) : null));
    }
    if (a.evidence_url && may("investigator") && !opts.compact && !opts.noEvidence) {
      li.append(el("div", { class: "ev" },
        el("a", { href: a.evidence_url, target: "_blank", rel: "noopener" },
          el("img", { src: a.evidence_url, alt: "evidence", loading: "lazy" })),
        a.clip_url ? el("a", { href: a.clip_url, target: "_blank", rel: "noopener" }, "▶ clip") : null));
    }
    if (a.acknowledged && a.ack) {
      li.append(el("div", { class: "acked-by" }, "✓ acknowledged by ", el("b", {}, a.ack.by || "?"), " at ",
        when(a.ack.at), a.ack.comment ? ` — “${a.ack.comment}”` : ""));
    } else if (!opts.compact) {
      const input = el("input", { name: "comment", placeholder: "comment (what you saw / did)", maxlength: "2000",
        "aria-label": "comment" });
      const form = el("form", { class: "ack" }, input, el("button", { type: "submit" }, "Acknowledge"));
      form.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        form.querySelector("button").disabled = true;
        try {
          const updated = await api(`/api/alerts/${a.id}/ack`, { json: { comment: input.value } });
          const done = alertItem(updated, opts);
          li.replaceWith(done);
          if (opts.onAck) opts.onAck(updated, done);
        } catch (e) {
          form.querySelector("button").disabled = false;
          input.placeholder = "failed: " + e.message;
        }
      });
      li.append(form);
    }
    return li;
  }

  return { el, api, may, when, ago, hms, money, seatName, typeLabel, isCamera, card, startClock, alertItem };
})();
