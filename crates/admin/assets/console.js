// dubbo-admin console: the forms of the server-rendered pages, talking to /api/v1 with JSON.
// Checked in as is: no build step.
"use strict";

async function api(method, path, body) {
  const init = { method, headers: {}, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = { message: text }; }
  if (response.status === 401 && !path.startsWith("/api/v1/auth/login")) {
    window.location = "/login";
  }
  if (!response.ok) {
    const message = data && data.message ? data.message : "HTTP " + response.status;
    throw new Error((data && data.code ? "[" + data.code + "] " : "") + message);
  }
  return data;
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

function table(headers, rows) {
  const t = el("table", {}, el("tr", {}, ...headers.map((h) => el("th", {}, h))));
  for (const r of rows) t.append(el("tr", {}, ...r.map((c) => el("td", {}, c))));
  return t;
}

function link(href, text) { return el("a", { href }, text); }

function setupLogin() {
  const form = document.getElementById("login");
  if (!form) return;
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      await api("POST", "/api/v1/auth/login", {
        username: document.getElementById("username").value,
        password: document.getElementById("password").value,
      });
      window.location = "/";
    } catch (e) {
      document.getElementById("login-error").textContent = e.message;
    }
  });
}

function setupLogout() {
  const b = document.getElementById("logout");
  if (!b) return;
  b.addEventListener("click", async () => {
    await api("POST", "/api/v1/auth/logout");
    window.location = "/login";
  });
}

function argValue(input) {
  switch (input.dataset.kind) {
    case "string": return input.value;
    case "number": return Number(input.value);
    case "boolean": return input.checked;
    default: return input.value.trim() === "" ? null : JSON.parse(input.value);
  }
}

function setupTestForms() {
  const title = document.getElementById("service-name");
  if (!title) return;
  for (const form of document.querySelectorAll("form.test-form")) {
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const out = form.querySelector(".result");
      out.className = "result";
      out.textContent = "calling…";
      try {
        const args = [...form.querySelectorAll(".arg")].map(argValue);
        const target = document.getElementById("target").value;
        const answer = await api("POST", "/api/v1/invoke", {
          service: title.dataset.service,
          version: title.dataset.version,
          group: title.dataset.group,
          method: form.dataset.method,
          parameterTypes: JSON.parse(form.dataset.types),
          args,
          address: target || undefined,
        });
        out.className = "result ok";
        out.textContent = JSON.stringify(answer.result, null, 2) +
          "\n(" + answer.elapsedMs.toFixed(1) + " ms, " + answer.target + ")";
      } catch (e) {
        out.className = "result failed";
        out.textContent = e.message;
      }
    });
  }
}

function rulePath(kind, scope, target) {
  return "/api/v1/rules/" + encodeURIComponent(kind) + "/" + encodeURIComponent(scope) + "/" +
    encodeURIComponent(target);
}

async function renderRuleEditor(box) {
  const { kind, scope, target } = box.dataset;
  const path = rulePath(kind, scope, target);
  box.replaceChildren(el("h3", {}, kind + " rule of " + target));
  const status = el("p", { class: "rule-status" });
  let view;
  try { view = await api("GET", path); } catch (e) { status.textContent = e.message; box.append(status); return; }
  const area = el("textarea", { class: "yaml", id: "yaml-" + kind });
  area.value = view.content || "";
  const save = el("button", { type: "button", class: "rule-save", id: "save-" + kind }, "Validate and write");
  const del = el("button", { type: "button", class: "rule-delete", id: "delete-" + kind }, "Delete");
  const back = el("button", { type: "button", class: "rule-rollback", id: "rollback-" + kind },
    "Roll back (" + view.history.length + " kept)");
  box.append(el("p", {}, "key ", el("code", {}, view.key), " in group ", el("code", {}, view.group),
    view.content ? "" : " (no rule now)"), area, el("div", {}, save, del, back), status);
  const history = view.history.slice().reverse().map((h) => [
    new Date(h.time * 1000).toISOString(), h.user, h.content === null ? "(none)" : el("pre", {}, h.content)]);
  if (history.length) box.append(el("h4", {}, "Versions replaced, newest first"), table(["when", "by", "rule before"], history));
  const act = async (f, what) => {
    try { await f(); await renderAll(); } catch (e) { status.className = "rule-status failed"; status.textContent = what + ": " + e.message; }
  };
  save.addEventListener("click", () => act(() => api("PUT", path, { content: area.value }), "write"));
  del.addEventListener("click", () => act(() => api("DELETE", path), "delete"));
  back.addEventListener("click", () => act(() => api("POST", path + "/rollback"), "rollback"));
}

async function renderAll() {
  for (const box of document.querySelectorAll(".rule-editor")) await renderRuleEditor(box);
}

function setupWeightForm() {
  const form = document.getElementById("weight-form");
  if (!form) return;
  const status = el("p", { id: "weight-status" });
  const back = el("button", { type: "button", id: "weight-rollback" }, "Roll back");
  form.append(back, status);
  const path = rulePath("weight", "service", form.dataset.target);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const addresses = [...form.querySelectorAll(".weight-address:checked")].map((c) => c.value);
    try {
      await api("PUT", path, { weight: Number(document.getElementById("weight").value), addresses });
      status.className = "ok"; status.textContent = "weight rule written";
      await renderAll();
    } catch (e) { status.className = "failed"; status.textContent = e.message; }
  });
  back.addEventListener("click", async () => {
    try {
      await api("POST", path + "/rollback");
      status.className = "ok"; status.textContent = "rolled back";
      await renderAll();
    } catch (e) { status.className = "failed"; status.textContent = e.message; }
  });
}

async function setupLists() {
  const box = document.querySelector(".list");
  if (!box) return;
  if (box.dataset.what === "applications") {
    const page = await api("GET", "/api/v1/applications?size=1000");
    box.append(table(["application", "instances", "services"], page.content.map((a) => [
      link("/application/" + encodeURIComponent(a.application), a.application), a.instances, a.services.join(", ")])));
  } else {
    const page = await api("GET", "/api/v1/instances?size=1000");
    box.append(table(["instance", "application", "ports", "QoS", "found by"], page.content.map((i) => [
      link("/instance/" + encodeURIComponent(i.id), i.id), i.application,
      Object.entries(i.ports).map(([p, n]) => p + ":" + n).join(", "), i.qosAddress, i.sources.join(", ")])));
  }
}

function requestsByMethod(samples) {
  const counts = {};
  for (const s of samples) {
    if (s.name !== "dubbo_provider_requests_total") continue;
    const m = s.labels.method || "?";
    counts[m] = (counts[m] || 0) + s.value;
  }
  return counts;
}

function chart(points) {
  const w = 360, h = 80, max = Math.max(1, ...points);
  const step = points.length > 1 ? w / (points.length - 1) : w;
  const coords = points.map((p, i) => (i * step).toFixed(1) + "," + (h - (p / max) * (h - 4)).toFixed(1)).join(" ");
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("class", "chart"); svg.setAttribute("width", w); svg.setAttribute("height", h);
  const line = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
  line.setAttribute("points", coords); line.setAttribute("fill", "none"); line.setAttribute("stroke", "#24414f");
  svg.append(line);
  return svg;
}

async function setupInstance(box) {
  const id = box.dataset.name;
  const detail = await api("GET", "/api/v1/instance/" + encodeURIComponent(id));
  const i = detail.instance;
  box.append(table(["application", "ports", "revision", "QoS"], [[i.application,
    Object.entries(i.ports).map(([p, n]) => p + ":" + n).join(", "), i.revision, i.qosAddress]]));
  box.append(el("h2", {}, "Provided"), table(["service", "protocol", "address", "weight"],
    detail.providers.map((p) => [p.service + (p.version ? ":" + p.version : ""), p.protocol, p.address, p.weight])));
  const metrics = el("div", { id: "metrics" });
  box.append(el("h2", {}, "Metrics (QoS /metrics, every second)"), metrics);
  let last = null;
  const history = {};
  const poll = async () => {
    try {
      const m = await api("GET", "/api/v1/instance/" + encodeURIComponent(id) + "/metrics");
      const counts = requestsByMethod(m.samples);
      const now = Date.now();
      const rows = [];
      for (const [method, total] of Object.entries(counts).sort()) {
        let rate = 0;
        if (last && last.counts[method] !== undefined) rate = (total - last.counts[method]) / ((now - last.time) / 1000);
        (history[method] = history[method] || []).push(rate);
        if (history[method].length > 60) history[method].shift();
        rows.push([method, el("span", { id: "total-" + method }, String(total)),
          el("span", { id: "rate-" + method }, rate.toFixed(1)), chart(history[method])]);
      }
      last = { time: now, counts };
      metrics.replaceChildren(table(["method", "requests", "requests/s", "last minute"], rows),
        el("p", { id: "metrics-time" }, "read " + new Date(now).toISOString() + " from " + m.qosAddress));
    } catch (e) {
      metrics.replaceChildren(el("p", { class: "failed" }, e.message));
    }
    setTimeout(poll, 1000);
  };
  poll();
  setupRange(box, id);
}

// Requests/s by method over the last 15 minutes, from the Prometheus server the admin is
// configured with (GET .../metrics/range); nothing shown when none is configured.
async function setupRange(box, id) {
  const range = el("div", { id: "metrics-range" });
  const load = async () => {
    let r;
    try {
      r = await api("GET", "/api/v1/instance/" + encodeURIComponent(id) + "/metrics/range?minutes=15");
    } catch (e) {
      if (!range.isConnected) return;
      range.replaceChildren(el("p", { class: "failed" }, e.message));
      setTimeout(load, 15000);
      return;
    }
    if (!range.isConnected) box.append(el("h2", {}, "Requests/s, last 15 minutes (Prometheus)"), range);
    const rows = r.series.map((s) => [s.method, el("span", { id: "range-" + s.method },
      s.points.length ? s.points[s.points.length - 1][1].toFixed(2) : "-"), chart(s.points.map((p) => p[1]))]);
    range.replaceChildren(table(["method", "requests/s now", "last 15 minutes"], rows),
      el("p", { id: "range-time" }, "from Prometheus, step " + r.step + " s: " + r.query));
    setTimeout(load, 15000);
  };
  load();
}

// The service page's charts over the last 15 minutes, summed over its providers (requests/s,
// failed requests/s, average response time), from the configured Prometheus server.
async function setupServiceRange() {
  const box = document.getElementById("service-range");
  if (!box) return;
  const load = async () => {
    try {
      const r = await api("GET", "/api/v1/service/" + encodeURIComponent(box.dataset.key) + "/metrics/range?minutes=15");
      const rows = r.charts.map((c, n) => [c.name, el("span", { id: "service-range-" + n },
        c.points.length ? c.points[c.points.length - 1][1].toFixed(2) : "-"), chart(c.points.map((p) => p[1]))]);
      box.replaceChildren(table(["", "now", "last 15 minutes"], rows),
        el("p", {}, "from Prometheus, step " + r.step + " s, " + r.providers + " providers"));
    } catch (e) {
      box.replaceChildren(el("p", { class: "failed" }, e.message));
    }
    setTimeout(load, 15000);
  };
  load();
}

async function setupDetail() {
  const box = document.querySelector(".detail");
  if (!box) return;
  if (box.dataset.what === "instance") return setupInstance(box);
  const app = await api("GET", "/api/v1/application/" + encodeURIComponent(box.dataset.name));
  box.append(el("h2", {}, "Instances"), table(["instance", "ports", "QoS"], app.instances.map((i) => [
    link("/instance/" + encodeURIComponent(i.id), i.id), Object.entries(i.ports).map(([p, n]) => p + ":" + n).join(", "), i.qosAddress])));
  const keys = [...new Set(app.providers.map((p) => (p.group ? p.group + "/" : "") + p.service + (p.version ? ":" + p.version : "")))];
  box.append(el("h2", {}, "Services"), el("ul", {}, ...keys.map((k) => el("li", {}, link("/service/" + encodeURIComponent(k), k)))));
  for (const kind of ["tag", "migration", "override", "condition"]) {
    const editor = el("div", { class: "rule-editor", "data-kind": kind, "data-scope": "application", "data-target": box.dataset.name });
    box.append(editor);
  }
  await renderAll();
}

document.addEventListener("DOMContentLoaded", () => {
  setupLogin();
  setupLogout();
  setupTestForms();
  setupWeightForm();
  renderAll();
  setupLists();
  setupDetail();
  setupServiceRange();
});
