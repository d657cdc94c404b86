#!/usr/bin/env python3
"""Posts the sink row's load (issue 14) to a server and prints samples/s as JSON: every body of DIR (written by
bodies.py) once to `POST /steps`, over CONNECTIONS keep-alive connections that each take the next body when their
last one is answered. The clock runs from the first request to the last answer; any answer but 200 aborts the run.

    python3 post.py http://127.0.0.1:8000 DIR [CONNECTIONS=3]

With SINKLOAD_TOKEN set, every request carries `Authorization: Bearer $SINKLOAD_TOKEN` (a PostgreSQL sink's client).

Why not wrk, hey or ab: wrk runs for a fixed duration (its Lua `thread:stop()` does not end the run), and hey and ab
post a single body, which a de-duplicating sink would store once.

The client is lean and the same for every server: each request (head and body) is built before the clock starts
and sent with one `sendall`; the answer is read with `recv` into one buffer and only its status line and
`Content-Length` are parsed. It runs on the same cores as the server, so every CPU-ms it spends in the timed part
is taken from the server; stdlib `http.client` (the first version) spent ≈ 0.25 ms a request building the head
and parsing the answer's headers with the `email` package. `clientCPUSeconds` is the CPU of the timed part only
(`loadCPUSeconds`: reading the bodies, before the clock).
"""
import glob
import json
import os
import resource
import socket
import sys
import threading
import time
from urllib.parse import urlparse


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Connection:
    """One keep-alive HTTP/1.1 connection: sends a prepared request, reads one answer (Content-Length framed)."""

    def __init__(self, host, port):
        self.address = (host, port)
        self.sock = None
        self.buffer = bytearray()

    def open(self):
        self.sock = socket.create_connection(self.address, timeout=300)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = bytearray()

    def exchange(self, request):
        if self.sock is None:
            self.open()
        self.sock.sendall(request)
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end >= 0:
                break
            self.receive()
        head = bytes(self.buffer[:end]).decode("latin-1").split("\r\n")
        status = int(head[0].split(" ", 2)[1])
        length, close = None, head[0].startswith("HTTP/1.0")
        for line in head[1:]:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "connection":
                close = value.strip().lower() == "close"
        if length is None:
            raise RuntimeError("answer without Content-Length: " + head[0])
        while len(self.buffer) < end + 4 + length:
            self.receive()
        answer = bytes(self.buffer[end + 4:end + 4 + length])
        del self.buffer[:end + 4 + length]
        if close:
            self.close()
        return status, answer

    def receive(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise RuntimeError("connection closed before the answer ended")
        self.buffer += chunk

    def close(self):
        if self.sock is not None:
            self.sock.close()
            self.sock = None


def main(url, directory, connections):
    target = urlparse(url)
    host = target.hostname
    port = target.port or 80
    extra = ""
    if os.environ.get("SINKLOAD_TOKEN"):
        extra = "Authorization: Bearer " + os.environ["SINKLOAD_TOKEN"] + "\r\n"
    requests = []
    samples = 0
    for path in sorted(glob.glob(os.path.join(directory, "body-*.json"))):
        with open(path, "rb") as f:
            body = f.read()
        samples += body.count(b'"uuid"')
        head = ("POST /steps HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n"
                % (host, port, len(body), extra)).encode("ascii")
        requests.append(head + body)
    lock = threading.Lock()
    state = {"next": 0, "error": None}

    def poster():
        conn = Connection(host, port)
        try:
            while True:
                with lock:
                    k = state["next"]
                    if k >= len(requests) or state["error"]:
                        break
                    state["next"] = k + 1
                status, answer = conn.exchange(requests[k])
                if status != 200:
                    with lock:
                        state["error"] = "body %d: %d %s" % (k, status, answer[:200])
                    break
        except Exception as error:  # noqa: BLE001 - any failure aborts the run with its message
            with lock:
                state["error"] = state["error"] or "%s: %s" % (type(error).__name__, error)
        finally:
            conn.close()

    threads = [threading.Thread(target=poster) for _ in range(connections)]
    load_cpu = cpu_seconds()
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.perf_counter() - started
    if state["error"]:
        sys.exit("post.py: " + state["error"])
    print(json.dumps({"bodies": len(requests), "samples": samples, "connections": connections,
                      "seconds": round(seconds, 3), "samplesPerSecond": round(samples / seconds),
                      "clientCPUSeconds": round(cpu_seconds() - load_cpu, 3),
                      "loadCPUSeconds": round(load_cpu, 3)}))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 3)
