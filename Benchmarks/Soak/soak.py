#!/usr/bin/env python3
"""Issue 35's soak: mixed load on one running sink for N minutes, sampling its resident memory and open descriptors
(from its own GET /metrics) and the load's p50/p99 latency every 10 s; writes soak-<label>.csv and soak-<label>.svg
into --out and prints a JSON summary. Python's standard library only. Started by soak.sh, which makes the sink, its
storage and the three clients' stores.

Load: three `stepsync sync` clients (each appends a day to its store, layers and syncs, in a loop), Health Auto
Export posts (today's minute buckets, growing: replaced), dashboard reads (/, /stats, /steps/daily), /export NDJSON
streams, and a stranger (random paths, bad tokens, bad JSON, half-open connections that send half a request head).
"""
import argparse, json, os, random, socket, statistics, subprocess, threading, time, urllib.error, urllib.request

p = argparse.ArgumentParser()
p.add_argument("--base", required=True)
p.add_argument("--tokens", required=True, help="three client tokens, comma-separated (one repeated for JSONL)")
p.add_argument("--metrics-token", required=True)
p.add_argument("--stepsync", required=True)
p.add_argument("--stores", required=True, help="three store directories, comma-separated")
p.add_argument("--minutes", type=float, default=10)
p.add_argument("--out", required=True)
p.add_argument("--label", required=True)
a = p.parse_args()
tokens = a.tokens.split(",")
stores = a.stores.split(",")
stop = threading.Event()
lock = threading.Lock()
latencies = []  # (finished at, seconds)
counts = {"requests": 0, "errors": 0, "syncs": 0, "syncFailures": 0, "hae": 0, "exports": 0, "halfOpen": 0}


def count(key, n=1):
    with lock:
        counts[key] += n


def request(method, path, token=None, body=None, headers=None, record=True, timeout=60):
    req = urllib.request.Request(a.base + path, data=body, method=method)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    t0 = time.monotonic()
    status = 0
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            while r.read(1 << 16):
                pass
            status = r.status
    except urllib.error.HTTPError as e:
        e.read()
        status = e.code
    except Exception:
        status = -1
    t1 = time.monotonic()
    with lock:
        counts["requests"] += 1
        if status >= 500 or status < 0:
            counts["errors"] += 1
        if record:
            latencies.append((t1, t1 - t0))
    return status


def syncer(i):
    env = dict(os.environ, STEPSYNC_TOKEN=tokens[i])
    run = lambda *args: subprocess.run([a.stepsync, *args, "--data-dir", stores[i]], env=env,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    while not stop.is_set():
        run("generate", "--append-days", "1")
        run("layer")
        ok = run("sync", "--server", a.base) == 0
        count("syncs")
        if not ok:
            count("syncFailures")
        stop.wait(1)


def hae():
    day = time.strftime("%Y-%m-%d", time.gmtime())
    n = 0
    while not stop.is_set():
        n += 1
        points = [{"date": f"{day} {h:02d}:{m:02d}:00 +0000", "qty": 10 + n + m, "source": "Soak Watch"}
                  for h in range(8) for m in range(60)]
        body = json.dumps({"data": {"metrics": [{"name": "step_count", "units": "count", "data": points}]}}).encode()
        request("POST", "/ingest/health-auto-export", tokens[n % 3], body,
                {"Content-Type": "application/json", "automation-aggregation": "minutes"})
        count("hae")
        stop.wait(2)


def dashboard():
    n = 0
    while not stop.is_set():
        n += 1
        t = tokens[n % 3]
        request("GET", "/", t)
        request("GET", "/stats", t)
        request("GET", "/steps/daily?from=2024-01-01&to=2024-12-31&tz=UTC", t)
        stop.wait(1)


def exporter():
    n = 0
    while not stop.is_set():
        n += 1
        request("GET", "/export?format=ndjson", tokens[n % 3], record=False, timeout=300)
        count("exports")
        stop.wait(5)


def stranger():
    host, port = a.base.split("//")[1].split(":")
    held = []
    while not stop.is_set():
        request("GET", "/%x/%s" % (random.getrandbits(32), "x" * random.randint(0, 40)))
        request("POST", "/samples", "wrong-token-%d" % random.getrandbits(16), b'{"samples":[', {"Content-Type": "application/json"})
        request("POST", "/steps", tokens[0], b'{"samples":[{"uuid":1}]}', {"Content-Type": "application/json"})
        held = [s for s in held if s.fileno() >= 0]
        while len(held) < 20:
            try:
                s = socket.create_connection((host, int(port)), timeout=5)
                s.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finished: the header timeout ends it
                held.append(s)
                count("halfOpen")
            except OSError:
                break
        if len(held) >= 20 and random.random() < 0.2:
            held.pop(0).close()
        stop.wait(0.2)
    for s in held:
        s.close()


def metrics():
    req = urllib.request.Request(a.base + "/metrics")
    req.add_header("Authorization", "Bearer " + a.metrics_token)
    text = urllib.request.urlopen(req, timeout=30).read().decode()
    figures = {}
    for line in text.splitlines():
        if line.startswith("process_resident_memory_bytes "):
            figures["rssMB"] = float(line.split()[1]) / 1e6
        elif line.startswith("process_open_fds "):
            figures["fds"] = int(float(line.split()[1]))
    return figures


baseline = metrics()
threads = [threading.Thread(target=syncer, args=(i,)) for i in range(3)] + [
    threading.Thread(target=f) for f in (hae, dashboard, exporter, stranger)]
start = time.monotonic()
for t in threads:
    t.start()
rows = []
end = start + a.minutes * 60
last = start
while time.monotonic() < end:
    time.sleep(10 - ((time.monotonic() - start) % 10))
    now = time.monotonic()
    with lock:
        window = sorted(s for (t, s) in latencies if last < t <= now)
        reqs = counts["requests"]
    last = now
    f = metrics()
    q = lambda p: (window[min(len(window) - 1, int(p * len(window)))] * 1000) if window else 0.0
    rows.append({"t": round(now - start), "rssMB": round(f.get("rssMB", 0), 1), "fds": f.get("fds", -1),
                 "p50ms": round(q(0.50), 1), "p99ms": round(q(0.99), 1), "requests": reqs})
    print(json.dumps(rows[-1]), flush=True)
stop.set()
for t in threads:
    t.join()
time.sleep(15)  # half-open connections closed by the sink's header timeout (10 s), keep-alives by the client
after = metrics()

os.makedirs(a.out, exist_ok=True)
with open(os.path.join(a.out, f"soak-{a.label}.csv"), "w") as out:
    out.write("t,rssMB,fds,p50ms,p99ms,requests\n")
    for r in rows:
        out.write(f"{r['t']},{r['rssMB']},{r['fds']},{r['p50ms']},{r['p99ms']},{r['requests']}\n")

# An SVG of memory (MB) and p99 (ms) against minutes.
W, H, L, B = 720, 300, 50, 30
tmax = max(r["t"] for r in rows) or 1
def polyline(key, top, color):
    pts = " ".join(f"{L + (W - L - 10) * r['t'] / tmax:.1f},{H - B - (H - B - 10) * r[key] / top:.1f}" for r in rows)
    return f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{pts}"/>'
rtop = max(r["rssMB"] for r in rows) * 1.2 or 1
ptop = max(r["p99ms"] for r in rows) * 1.2 or 1
svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
       f'<rect width="{W}" height="{H}" fill="white"/>',
       f'<text x="{L}" y="14">soak ({a.label}): resident MB (blue, 0–{rtop:.0f}) and p99 ms (orange, 0–{ptop:.0f}) over {tmax / 60:.0f} min</text>',
       f'<line x1="{L}" y1="{H - B}" x2="{W - 10}" y2="{H - B}" stroke="#888"/>',
       f'<line x1="{L}" y1="20" x2="{L}" y2="{H - B}" stroke="#888"/>',
       polyline("rssMB", rtop, "#1f77b4"), polyline("p99ms", ptop, "#ff7f0e")]
for m in range(0, int(tmax // 60) + 1):
    x = L + (W - L - 10) * m * 60 / tmax
    svg.append(f'<text x="{x:.0f}" y="{H - B + 14}" text-anchor="middle">{m}</text>')
svg.append("</svg>")
with open(os.path.join(a.out, f"soak-{a.label}.svg"), "w") as out:
    out.write("\n".join(svg) + "\n")

warm = min(120, a.minutes * 12)  # minute 2 on; for a short trial run, the last 80 %
steady = [r["rssMB"] for r in rows if r["t"] >= warm]
all_lat = sorted(s for (_, s) in latencies)
summary = {"label": a.label, "minutes": a.minutes, **counts,
           "rssMB": {"baseline": round(baseline.get("rssMB", 0), 1), "min2to10": min(steady), "max2to10": max(steady),
                     "spread": round(max(steady) / min(steady) - 1, 3)},
           "fds": {"baseline": baseline.get("fds"), "peak": max(r["fds"] for r in rows), "after": after.get("fds")},
           "p50ms": round(statistics.median(all_lat) * 1000, 1),
           "p99ms": round(all_lat[int(0.99 * (len(all_lat) - 1))] * 1000, 1)}
print(json.dumps(summary))
