#!/usr/bin/env python3
"""Writes the sink row's load (issue 14): 200 `POST /steps` bodies of 1,000 samples each, in the bytes stepsync's
WireEncoder writes (the same samples as SinkBenchmarks' bodies, with seeded uuids so a run can be repeated).

    python3 bodies.py DIR          # writes DIR/body-000.json … DIR/body-199.json (≈ 200 KB each)
    python3 bodies.py DIR 400      # 400 bodies (issue 26's PostgreSQL row); the first 200 are the same as above
"""
import os
import random
import sys
import uuid
from datetime import datetime, timedelta, timezone

BODIES, SAMPLES = 200, 1_000
BASE = datetime(2015, 1, 1, tzinfo=timezone.utc)


def iso(ms):
    t = BASE + timedelta(milliseconds=ms)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)


def main(directory, bodies=BODIES):
    os.makedirs(directory, exist_ok=True)
    rng = random.Random(14)
    for b in range(bodies):
        objects = []
        for i in range(SAMPLES):
            n = b * SAMPLES + i
            u = str(uuid.UUID(int=rng.getrandbits(128), version=4)).upper()
            o = '{"uuid":"%s","startDate":"%s","endDate":"%s","count":%d,"sourceBundleId":"com.apple.health.ABCDEF"' % (
                u, iso(n * 600_000), iso(n * 600_000 + 120_000), n % 900 + 1)
            if n % 3 != 0:
                o += ',"sourceDeviceName":"iPhone"'
            objects.append(o + "}")
        with open(os.path.join(directory, "body-%03d.json" % b), "w") as f:
            f.write('{"samples":[' + ",".join(objects) + "]}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bodies", int(sys.argv[2]) if len(sys.argv) > 2 else BODIES)
