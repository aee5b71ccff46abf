// A plain reference of the OpenAPI schema (the service serves no third-party docs UI: nothing is fetched).
"use strict";
(async () => {
  const { el, api } = PW;
  const spec = await api("/openapi.json");
  document.getElementById("title").textContent = `${spec.info.title} API ${spec.info.version}`;
  document.getElementById("desc").textContent = spec.info.description || "";
  const byTag = new Map();
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const tag = (op.tags && op.tags[0]) || "other";
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push({ path, method, op });
    }
  }
  const resolve = (schema) => {
    if (schema && schema.$ref) return spec.components.schemas[schema.$ref.split("/").pop()] || schema;
    return schema;
  };
  const out = document.getElementById("ops");
  for (const [tag, ops] of byTag) {
    out.append(el("h2", {}, tag));
    for (const { path, method, op } of ops) {
      const params = (op.parameters || []).map((p) => el("tr", {},
        el("td", {}, p.name), el("td", {}, p.in), el("td", {}, p.required ? "required" : ""),
        el("td", {}, JSON.stringify(resolve(p.schema) || {}).slice(0, 160)), el("td", {}, p.description || "")));
      const body = op.requestBody ? Object.entries(op.requestBody.content).map(([type, c]) =>
        el("div", {}, el("b", {}, type), el("pre", {}, JSON.stringify(resolve(c.schema), null, 1)))) : [];
      const responses = Object.entries(op.responses || {}).map(([code, r]) => el("li", {}, el("b", {}, code), " ", r.description || ""));
      out.append(el("details", { class: "op" },
        el("summary", {}, el("span", { class: "m " + method }, method.toUpperCase()), el("span", { class: "p" }, path),
          el("span", { class: "s" }, op.summary || "")),
        el("div", { class: "d" },
          op.description ? el("p", {}, op.description) : null,
          params.length ? el("table", { class: "grid" }, el("thead", {}, el("tr", {}, ...["name", "in", "", "schema", ""].map((h) => el("th", {}, h)))),
            el("tbody", {}, params)) : null,
          body.length ? el("div", {}, el("p", { class: "dim" }, "request body"), body) : null,
          el("ul", {}, responses))));
    }
  }
})();
