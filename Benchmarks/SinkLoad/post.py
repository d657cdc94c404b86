#!/usr/bin/env python3
"""Posts the sink row's load (issue 14) to a server and prints samples/s as JSON: every body of DIR (written by
bodies.py) once to `POST /steps`, over CONNECTIONS keep-alive connections that each take the next body when their
last one is answered. The clock runs from the first request to the last answer; any answer but 200 aborts the run.

    python3 post.py http://127.0.0.1:8000 DIR [CONNECTIONS=3]

With SINKLOAD_TOKEN set, every request carries `Authorization: Bearer $SINKLOAD_TOKEN` (a PostgreSQL sink's client).

Why not wrk, hey or ab: wrk runs for a fixed duration (its Lua `thread:stop()` does not end the run), and hey and ab
post a single body, which a de-duplicating sink would store once. The client is lean (stdlib http.client; a
request costs it ≈ 0.1 ms of CPU against the servers' milliseconds) and the same for every server.
"""
import glob
import http.client
import json
import os
import resource
import sys
import threading
import time
from urllib.parse import urlparse


def main(url, directory, connections):
    target = urlparse(url)
    bodies = []
    for path in sorted(glob.glob(os.path.join(directory, "body-*.json"))):
        with open(path, "rb") as f:
            bodies.append(f.read())
    samples = sum(body.count(b'"uuid"') for body in bodies)
    lock = threading.Lock()
    state = {"next": 0, "error": None}

    headers = {"Content-Type": "application/json"}
    if os.environ.get("SINKLOAD_TOKEN"):
        headers["Authorization"] = "Bearer " + os.environ["SINKLOAD_TOKEN"]

    def poster():
        conn = http.client.HTTPConnection(target.hostname, target.port, timeout=300)
        while True:
            with lock:
                k = state["next"]
                if k >= len(bodies) or state["error"]:
                    break
                state["next"] = k + 1
            conn.request("POST", "/steps", bodies[k], headers)
            response = conn.getresponse()
            answer = response.read()
            if response.status != 200:
                with lock:
                    state["error"] = "body %d: %d %s" % (k, response.status, answer[:200])
                break
        conn.close()

    threads = [threading.Thread(target=poster) for _ in range(connections)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.perf_counter() - started
    if state["error"]:
        sys.exit("post.py: " + state["error"])
    print(json.dumps({"bodies": len(bodies), "samples": samples, "connections": connections,
                      "seconds": round(seconds, 3), "samplesPerSecond": round(samples / seconds),
                      "clientCPUSeconds": round(resource.getrusage(resource.RUSAGE_SELF).ru_utime
                                                + resource.getrusage(resource.RUSAGE_SELF).ru_stime, 3)}))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 3)
