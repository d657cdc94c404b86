import Foundation
import StepSyncTestSupport
import Testing

/// The dashboard's refresh never overlaps itself (issue 31): its script runs in Node against a stand-in page whose
/// timers are virtual and whose `fetch` holds `/steps/daily` until the harness lets it answer — a minute of
/// 5-second ticks passes while the first chart load waits. Node is the real-client tests' (`.ci/run` installs it).
@Suite("the dashboard's refresh", .enabled(if: DashboardScript.node != nil || ProcessInfo.processInfo.environment["CI"] == "true"))
struct DashboardRefreshTests {
    @Test("a slow /steps/daily is never joined by a second one from the page: no refresh starts while one runs, and refreshes resume 5 s after it answered")
    func noOverlap() async throws {
        let answer = try await DashboardScript.run()
        let held = try #require(answer["whileHeld"] as? [String: Any], "\(answer)")
        // Before issue 31 the 5-second interval started a new chart load on every tick: 13 at once after a minute.
        #expect(held["dailyRequests"] as? Int == 1, "\(answer)")
        #expect(held["maxDailyInFlight"] as? Int == 1, "\(answer)")
        #expect(answer["maxDailyInFlight"] as? Int == 1, "\(answer)")
        // 20 virtual seconds after it answered: a refresh every 5 s after the last ended (4), not none.
        #expect(answer["statsAfterRelease"] as? Int == 4, "\(answer)")
    }
}

/// Runs `Sources/StepSyncSink/Resources/dashboard.html`'s script in Node under ``harness``.
enum DashboardScript {
    static let node = ["/usr/bin/node", "/usr/local/bin/node"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The harness's one line of JSON.
    static func run() async throws -> [String: Any] {
        let node = try #require(node, "node is not installed: apt-get install nodejs")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let page = root.appendingPathComponent("Sources/StepSyncSink/Resources/dashboard.html").path
        let dir = TemporaryDirectory.uniquePath("stepsync-dashjs")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try harness.write(toFile: dir + "/harness.js", atomically: true, encoding: .utf8)
        let process = try ChildProcess(node, [dir + "/harness.js", page], stdout: dir + "/out")
        while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        let out = try String(contentsOfFile: dir + "/out", encoding: .utf8)
        #expect(process.terminationStatus == 0, "\(out)")
        let line = try #require(out.split(separator: "\n").last.map(String.init), "no output")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
    }

    /// The stand-in page (virtual timers; `/stats` answers at once, `/steps/daily` when released).
    static let harness = #"""
"use strict";
// Runs the dashboard's script against a fake page: virtual timers, and a fetch whose /steps/daily answers only when
// the harness releases it. Prints {"maxDailyInFlight":…,"dailyRequests":…,"statsRequests":…,"statsAfterRelease":…}.
const fs = require("fs"), vm = require("vm");
const html = fs.readFileSync(process.argv[2], "utf8");
const script = html.slice(html.indexOf("<script>") + 8, html.lastIndexOf("</script>"));
function fake(name) {
  const store = { dataset: {}, style: {}, children: [], checked: true, hidden: false, value: "",
                  classList: { toggle() {}, add() {}, remove() {}, contains() { return false; } } };
  return new Proxy(function () {}, {
    get(target, key) {
      if (key in store) return store[key];
      if (key === "then" || typeof key === "symbol") return undefined;
      return (store[key] = fake(name + "." + String(key)));
    },
    set(target, key, value) { store[key] = value; return true; },
    apply() { return fake(name + "()"); },
  });
}
let now = 0, nextId = 1;
const timers = new Map();
function setTimer(fn, ms, repeat) { const id = nextId++; timers.set(id, { at: now + Math.max(0, ms || 0), fn, repeat: repeat ? ms : null }); return id; }
async function settle() { for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r)); }
async function advance(ms) {
  const end = now + ms;
  for (;;) {
    let due = null;
    for (const [id, t] of timers) if (t.at <= end && (!due || t.at < due[1].at)) due = [id, t];
    if (!due) break;
    const [id, t] = due;
    now = t.at;
    if (t.repeat) t.at = now + t.repeat; else timers.delete(id);
    t.fn();
    await settle();
  }
  now = end;
}
const elements = new Map();
const document = {
  getElementById(id) { if (!elements.has(id)) elements.set(id, fake("#" + id)); return elements.get(id); },
  querySelectorAll() { return []; },
  querySelector(q) { return fake(q); },
  createElement(t) { return fake(t); },
  createElementNS(ns, t) { return fake(t); },
  body: fake("body"),
};
let dailyInFlight = 0, maxDailyInFlight = 0, dailyRequests = 0, statsRequests = 0;
const held = [];
const day = { from: "2024-01-01", to: "2024-01-02", timeZone: "UTC", days: [{ date: "2024-01-01", steps: 5 }, { date: "2024-01-02", steps: 7 }], totalSteps: 12, unmatchedDevices: [] };
const stats = { samples: { total: 10, steps: 10, types: { HKQuantityTypeIdentifierStepCount: 10 }, firstStepStart: "2024-01-01T08:00:00Z", lastStepStart: "2024-01-02T08:00:00Z" },
                activity: { lastIngest: "2024-01-02T09:00:00Z", requests: 1, errors: 0, inserted: 10, duplicates: 0, startedAt: "2024-01-02T07:00:00Z" },
                storage: { kind: "jsonl", status: "ok", location: "x", files: [], totalBytes: 0 } };
const reply = (body) => ({ status: 200, ok: true, json: async () => body });
function fetch(path) {
  if (path.startsWith("/steps/daily")) {
    dailyRequests++; dailyInFlight++; maxDailyInFlight = Math.max(maxDailyInFlight, dailyInFlight);
    return new Promise((resolve) => held.push(() => { dailyInFlight--; resolve(reply(day)); }));
  }
  if (path.startsWith("/stats")) { statsRequests++; return Promise.resolve(reply(stats)); }
  return Promise.resolve({ status: 404, ok: false, json: async () => ({}) });
}
const context = {
  document, fetch, console, Intl, Date, Math, Number, Object, Array, JSON, Promise, URLSearchParams, Error, String, Map, Set,
  setTimeout: (fn, ms) => setTimer(fn, ms, false), setInterval: (fn, ms) => setTimer(fn, ms, true),
  clearTimeout: (id) => timers.delete(id), clearInterval: (id) => timers.delete(id),
  location: { search: "?tz=UTC", hash: "#token=t", pathname: "/" }, history: { replaceState() {} },
  sessionStorage: { getItem() { return null; }, setItem() {}, removeItem() {} },
  addEventListener() {}, devicePixelRatio: 1, innerWidth: 1280,
};
context.window = context;
(async () => {
  vm.createContext(context);
  vm.runInContext(script, context);
  await settle();
  await advance(60000);            // a minute while the first /steps/daily is held
  const whileHeld = { maxDailyInFlight, dailyRequests };
  while (held.length) { held.shift()(); await settle(); }
  const statsBefore = statsRequests;
  await advance(20000);            // refreshes resume once it answered
  while (held.length) { held.shift()(); await settle(); }
  console.log(JSON.stringify({ whileHeld, maxDailyInFlight, statsAfterRelease: statsRequests - statsBefore }));
})().catch((e) => { console.log(JSON.stringify({ error: String(e && e.stack || e) })); });
"""#
}
