/// The dashboard `GET /` serves: one HTML page with its style and script inline (no CDN, no other file), which reads
/// `GET /stats` and `GET /steps/daily` with the token it is given (kept in the tab's `sessionStorage`, sent as
/// `Authorization: Bearer`). What it shows and how it is tested: `Planning/dashboard.md`.
///
/// DOM hooks the browser test reads: `body[data-state]` (`loading`, `login`, `ready`, `error`), `#total-samples` and
/// `#step-samples` (`data-value`), one `rect.day` per day of the chart (`data-date`, `data-steps`), `#range-total`.
/// Open it as `/?tz=Europe/Berlin&days=365` to choose the zone and span; `#token=…` logs in and is then removed from
/// the address.
enum DashboardPage {
    /// The page's UTF-8 bytes.
    static let bytes: [UInt8] = Array(html.utf8)

    /// The page.
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>stepsync sink</title>
<style>
:root { --fg:#1d2330; --muted:#5f6b7a; --line:#e3e7ee; --bg:#f6f8fb; --card:#fff; --accent:#2f6fde; --bar:#3b82f6; --bad:#c0392b; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif; color:var(--fg); background:var(--bg); }
header { display:flex; flex-wrap:wrap; align-items:center; gap:8px 16px; padding:12px 20px; background:var(--card); border-bottom:1px solid var(--line); }
header h1 { font-size:18px; margin:0; }
header .status { color:var(--muted); font-size:13px; }
header .spacer { flex:1; }
main { padding:16px 20px; max-width:1280px; margin:0 auto; }
.cards { display:grid; grid-template-columns:repeat(auto-fit,minmax(250px,1fr)); gap:12px; }
.card { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:12px 14px; min-width:0; }
.card h2 { font-size:13px; text-transform:uppercase; letter-spacing:.04em; color:var(--muted); margin:0 0 8px; font-weight:600; }
.big { font-size:26px; font-weight:650; }
.sub { color:var(--muted); font-size:12px; }
table { border-collapse:collapse; width:100%; font-size:13px; }
td,th { padding:3px 4px; border-bottom:1px solid var(--line); text-align:left; }
td.n,th.n { text-align:right; font-variant-numeric:tabular-nums; }
.name { overflow-wrap:anywhere; }
.chart-card { margin-top:12px; }
.controls { display:flex; flex-wrap:wrap; gap:6px 10px; align-items:center; margin-bottom:8px; }
.controls button { border:1px solid var(--line); background:#fff; border-radius:6px; padding:4px 10px; cursor:pointer; font:inherit; }
.controls button.on { background:var(--accent); color:#fff; border-color:var(--accent); }
.controls input[type=date] { font:inherit; padding:2px 4px; }
#chart svg { width:100%; height:auto; display:block; }
#chart .day { fill:var(--bar); }
#chart .day:hover { fill:#1e40af; }
#chart .axis { stroke:#9aa5b4; stroke-width:1; }
#chart .grid { stroke:var(--line); stroke-width:1; }
#chart text { font-size:11px; fill:var(--muted); }
#login { max-width:420px; margin:48px auto; }
#login input { width:100%; font:inherit; padding:6px 8px; margin:8px 0; }
#login button { font:inherit; padding:6px 14px; }
.error { color:var(--bad); }
[hidden] { display:none !important; }
@media (max-width:600px) { main { padding:10px; } header { padding:10px; } .big { font-size:22px; } }
</style>
</head>
<body data-state="loading">
<header>
  <h1>stepsync sink</h1>
  <span class="status" id="status">loading…</span>
  <span class="spacer"></span>
  <label class="sub"><input type="checkbox" id="auto" checked> refresh every 5 s</label>
  <button id="refresh" type="button">Refresh</button>
  <button id="logout" type="button" hidden>Forget token</button>
</header>
<section id="login" class="card" hidden>
  <h2>This sink needs its token</h2>
  <form id="login-form">
    <label for="token">Token (<code>stepsync serve --token</code>); kept in this tab only.</label>
    <input id="token" type="password" autocomplete="current-password" required>
    <button type="submit">Open</button>
    <p class="error" id="login-error"></p>
  </form>
</section>
<main id="main" hidden>
  <div class="cards">
    <div class="card">
      <h2>Samples stored</h2>
      <div class="big" id="total-samples" data-value="">–</div>
      <div class="sub">step samples: <b id="step-samples" data-value="">–</b></div>
      <div class="sub" id="step-span"></div>
    </div>
    <div class="card">
      <h2>Activity since start</h2>
      <table><tbody>
        <tr><td>last ingest</td><td class="n" id="last-ingest">–</td></tr>
        <tr><td>requests (errors)</td><td class="n" id="requests">–</td></tr>
        <tr><td>inserted</td><td class="n" id="inserted">–</td></tr>
        <tr><td>duplicates</td><td class="n" id="duplicates">–</td></tr>
        <tr><td>started</td><td class="n" id="started">–</td></tr>
      </tbody></table>
    </div>
    <div class="card">
      <h2>Storage</h2>
      <div><b id="storage-kind">–</b> <span id="storage-status" class="sub"></span></div>
      <div class="sub name" id="storage-location"></div>
      <table><tbody id="storage-files"></tbody></table>
    </div>
    <div class="card">
      <h2>Samples per type</h2>
      <table><tbody id="types"></tbody></table>
    </div>
  </div>
  <div class="card chart-card">
    <h2>Daily steps (each walk counted once)</h2>
    <div class="controls">
      <button type="button" data-range="90">90 days</button>
      <button type="button" data-range="365">1 year</button>
      <button type="button" data-range="1826">5 years</button>
      <button type="button" data-range="all">all</button>
      <label>from <input type="date" id="from"></label>
      <label>to <input type="date" id="to"></label>
      <span class="sub" id="tz"></span>
    </div>
    <div class="sub">total <b id="range-total" data-value="">–</b> steps in <b id="range-days" data-value="">–</b> days;
      average <b id="range-average">–</b> a day; busiest <b id="range-max">–</b></div>
    <div id="chart"></div>
  </div>
</main>
<script>
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const fmt = (n) => Number(n).toLocaleString("en-US");
  const params = new URLSearchParams(location.search);
  const tz = params.get("tz") || Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  const TOKEN_KEY = "stepsync.token";
  const DAY = 86400000, MAX_DAYS = 3700;
  let token = null;
  try { token = sessionStorage.getItem(TOKEN_KEY); } catch (e) { token = null; }
  if (location.hash.startsWith("#token=")) {
    token = decodeURIComponent(location.hash.slice(7));
    try { sessionStorage.setItem(TOKEN_KEY, token); } catch (e) { /* memory only */ }
    history.replaceState(null, "", location.pathname + location.search);
  }
  let range = { days: params.get("days") || "90", from: params.get("from"), to: params.get("to") };
  let last = { steps: null, lastIngest: null, first: null, newest: null };
  let timer = null;

  class Unauthorized extends Error {}
  async function get(path) {
    const headers = { "Accept": "application/json" };
    if (token) headers["Authorization"] = "Bearer " + token;
    const response = await fetch(path, { headers, cache: "no-store" });
    if (response.status === 401) throw new Unauthorized();
    const body = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(body.message || ("HTTP " + response.status));
    return body;
  }
  function setStatus(text, error) {
    $("status").textContent = text;
    $("status").className = "status" + (error ? " error" : "");
  }
  function showLogin(message) {
    $("main").hidden = true;
    $("login").hidden = false;
    $("logout").hidden = true;
    $("login-error").textContent = message || "";
    document.body.dataset.state = "login";
    setStatus("token needed");
  }
  const isoDay = (ms) => new Date(ms).toISOString().slice(0, 10);
  function localDay(iso) {
    if (!iso) return null;
    const parts = new Intl.DateTimeFormat("en-CA", { timeZone: tz, year: "numeric", month: "2-digit", day: "2-digit" })
      .formatToParts(new Date(iso));
    const get = (t) => parts.find((p) => p.type === t).value;
    return get("year") + "-" + get("month") + "-" + get("day");
  }
  const addDays = (day, n) => isoDay(Date.parse(day + "T00:00:00Z") + n * DAY);
  const daysBetween = (a, b) => Math.round((Date.parse(b + "T00:00:00Z") - Date.parse(a + "T00:00:00Z")) / DAY);
  function when(iso) {
    if (!iso) return "never";
    const d = new Date(iso);
    return d.toLocaleString("en-GB", { timeZone: tz, dateStyle: "medium", timeStyle: "medium" });
  }
  function bytes(n) {
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let i = 0, v = n;
    while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    return (i === 0 ? v : v.toFixed(1)) + " " + units[i];
  }
  function cell(text, numeric) {
    const td = document.createElement("td");
    td.textContent = text;
    if (numeric) td.className = "n"; else td.className = "name";
    return td;
  }
  function row(parent, a, b) {
    const tr = document.createElement("tr");
    tr.append(cell(a, false), cell(b, true));
    parent.append(tr);
    return tr;
  }
  const shortType = (t) => t.replace(/^HK(Quantity|Category|Correlation)TypeIdentifier/, "").replace(/^HKWorkoutTypeIdentifier$/, "Workout");

  function renderStats(s) {
    $("total-samples").textContent = fmt(s.samples.total);
    $("total-samples").dataset.value = s.samples.total;
    $("step-samples").textContent = fmt(s.samples.steps);
    $("step-samples").dataset.value = s.samples.steps;
    $("step-span").textContent = s.samples.firstStepStart
      ? "steps from " + localDay(s.samples.firstStepStart) + " to " + localDay(s.samples.lastStepStart) : "no step samples yet";
    const types = $("types");
    types.replaceChildren();
    Object.entries(s.samples.types).sort((a, b) => b[1] - a[1]).forEach(([t, n]) => {
      row(types, shortType(t), fmt(n)).dataset.type = t;
    });
    if (!types.children.length) row(types, "none yet", "");
    const a = s.activity;
    $("last-ingest").textContent = when(a.lastIngest);
    $("requests").textContent = fmt(a.requests) + " (" + fmt(a.errors) + ")";
    $("inserted").textContent = fmt(a.inserted);
    $("inserted").dataset.value = a.inserted;
    $("duplicates").textContent = fmt(a.duplicates);
    $("duplicates").dataset.value = a.duplicates;
    $("started").textContent = when(a.startedAt);
    const st = s.storage;
    $("storage-kind").textContent = st.kind;
    $("storage-status").textContent = st.status === "ok" ? "writing fine" : "degraded: " + st.reason;
    $("storage-status").className = st.status === "ok" ? "sub" : "error";
    $("storage-location").textContent = st.location;
    const files = $("storage-files");
    files.replaceChildren();
    st.files.forEach((f) => row(files, f.name.split("/").slice(-2).join("/"), bytes(f.bytes)));
    row(files, "total", bytes(st.totalBytes)).id = "storage-total";
  }

  function chosenSpan() {
    const newest = last.newest || localDay(new Date().toISOString());
    if (range.from && range.to) return [range.from, range.to];
    const to = range.to || newest;
    if (range.days === "all") {
      const first = last.first || to;
      return [daysBetween(first, to) >= MAX_DAYS ? addDays(to, -(MAX_DAYS - 1)) : first, to];
    }
    return [addDays(to, -(Number(range.days) - 1)), to];
  }

  function renderChart(result) {
    const days = result.days;
    const box = $("chart");
    const width = Math.max(320, Math.round(box.clientWidth || 1200)), height = Math.round(Math.min(320, Math.max(200, width * 0.3)));
    const left = 52, right = 8, top = 10, bottom = 24;
    const plotW = width - left - right, plotH = height - top - bottom;
    const maxSteps = Math.max(1, ...days.map((d) => d.steps));
    const magnitude = Math.pow(10, Math.floor(Math.log10(maxSteps)));
    const stepY = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => maxSteps / s <= 5) || magnitude * 10;
    const yMax = Math.ceil(maxSteps / stepY) * stepY;
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", `daily steps ${days.length ? days[0].date + " to " + days[days.length - 1].date : ""}`);
    const el = (name, attrs, text) => {
      const e = document.createElementNS(ns, name);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      if (text !== undefined) e.textContent = text;
      svg.append(e);
      return e;
    };
    for (let v = 0; v <= yMax; v += stepY) {
      const y = top + plotH - (v / yMax) * plotH;
      el("line", { class: "grid", x1: left, x2: width - right, y1: y, y2: y });
      el("text", { x: left - 6, y: y + 4, "text-anchor": "end" }, fmt(v));
    }
    const slot = plotW / Math.max(1, days.length);
    const barW = Math.max(0.5, slot > 3 ? slot * 0.8 : slot);
    const g = document.createElementNS(ns, "g");
    g.setAttribute("class", "days");
    svg.append(g);
    days.forEach((d, i) => {
      const h = (d.steps / yMax) * plotH;
      const r = document.createElementNS(ns, "rect");
      r.setAttribute("class", "day");
      r.setAttribute("x", (left + i * slot).toFixed(2));
      r.setAttribute("y", (top + plotH - h).toFixed(2));
      r.setAttribute("width", barW.toFixed(2));
      r.setAttribute("height", h.toFixed(2));
      r.setAttribute("data-date", d.date);
      r.setAttribute("data-steps", d.steps);
      const t = document.createElementNS(ns, "title");
      t.textContent = d.date + ": " + fmt(d.steps) + " steps";
      r.append(t);
      g.append(r);
    });
    el("line", { class: "axis", x1: left, x2: width - right, y1: top + plotH, y2: top + plotH });
    // Date labels: months for spans up to ~2 years, years beyond; at most ~10.
    const span = days.length;
    const everyMonths = span <= 120 ? 1 : span <= 400 ? 2 : span <= 800 ? 3 : 12;
    let lastX = -1e9;
    days.forEach((d, i) => {
      const [y, m, day] = d.date.split("-").map(Number);
      const firstOfPeriod = span <= 31 ? (i % 7 === 0) : (day === 1 && (everyMonths < 12 ? (m - 1) % everyMonths === 0 : m === 1));
      if (!firstOfPeriod) return;
      const x = left + i * slot;
      if (x - lastX < 56) return;
      lastX = x;
      el("line", { class: "axis", x1: x, x2: x, y1: top + plotH, y2: top + plotH + 4 });
      el("text", { x: x, y: height - 6 }, span <= 31 ? d.date.slice(5) : everyMonths === 12 ? String(y) : d.date.slice(0, 7));
    });
    box.replaceChildren(svg);
    const total = days.reduce((s, d) => s + d.steps, 0);
    const busiest = days.reduce((b, d) => (!b || d.steps > b.steps ? d : b), null);
    $("range-total").textContent = fmt(total);
    $("range-total").dataset.value = total;
    $("range-days").textContent = fmt(days.length);
    $("range-days").dataset.value = days.length;
    $("range-average").textContent = days.length ? fmt(Math.round(total / days.length)) : "–";
    $("range-max").textContent = busiest && busiest.steps > 0 ? fmt(busiest.steps) + " on " + busiest.date : "–";
  }

  async function loadChart() {
    const [from, to] = chosenSpan();
    $("from").value = from;
    $("to").value = to;
    $("tz").textContent = "days in " + tz;
    document.querySelectorAll("[data-range]").forEach((b) => {
      b.classList.toggle("on", !range.from && b.dataset.range === range.days);
    });
    const q = new URLSearchParams({ from, to, tz });
    renderChart(await get("/steps/daily?" + q.toString()));
  }

  async function refresh() {
    try {
      const stats = await get("/stats");
      $("login").hidden = true;
      $("main").hidden = false;
      $("logout").hidden = !token;
      renderStats(stats);
      const changed = stats.samples.steps !== last.steps || stats.activity.lastIngest !== last.lastIngest;
      last = { steps: stats.samples.steps, lastIngest: stats.activity.lastIngest,
               first: localDay(stats.samples.firstStepStart), newest: localDay(stats.samples.lastStepStart) };
      if (changed || document.body.dataset.state !== "ready") await loadChart();
      setStatus("updated " + new Date().toLocaleTimeString("en-GB"));
      document.body.dataset.state = "ready";
    } catch (error) {
      if (error instanceof Unauthorized) {
        showLogin(token ? "That token was refused." : "");
        token = null;
        try { sessionStorage.removeItem(TOKEN_KEY); } catch (e) { /* ignore */ }
      } else {
        setStatus("cannot reach the sink: " + error.message, true);
        document.body.dataset.state = "error";
      }
    }
  }
  function schedule() {
    if (timer) clearInterval(timer);
    timer = $("auto").checked ? setInterval(refresh, 5000) : null;
  }

  $("login-form").addEventListener("submit", (event) => {
    event.preventDefault();
    token = $("token").value;
    try { sessionStorage.setItem(TOKEN_KEY, token); } catch (e) { /* memory only */ }
    $("token").value = "";
    refresh();
  });
  $("logout").addEventListener("click", () => {
    token = null;
    try { sessionStorage.removeItem(TOKEN_KEY); } catch (e) { /* ignore */ }
    showLogin("");
  });
  $("refresh").addEventListener("click", () => { document.body.dataset.state = "refreshing"; refresh(); });
  $("auto").addEventListener("change", schedule);
  document.querySelectorAll("[data-range]").forEach((b) => b.addEventListener("click", () => {
    range = { days: b.dataset.range, from: null, to: null };
    loadChart().catch((e) => setStatus(e.message, true));
  }));
  const pick = () => {
    const from = $("from").value, to = $("to").value;
    if (!from || !to || to < from) return;
    range = { days: null, from: daysBetween(from, to) >= MAX_DAYS ? addDays(to, -(MAX_DAYS - 1)) : from, to };
    loadChart().catch((e) => setStatus(e.message, true));
  };
  $("from").addEventListener("change", pick);
  $("to").addEventListener("change", pick);
  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => { if (document.body.dataset.state === "ready") loadChart().catch(() => {}); }, 200);
  });
  refresh();
  schedule();
})();
</script>
</body>
</html>
"""#
}
