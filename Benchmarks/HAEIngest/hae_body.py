#!/usr/bin/env python3
"""Writes a Health Auto Export REST body as the iOS app sends it (export format version 2, minute buckets): half
`step_count` points from an Apple Watch and an iPhone, half `heart_rate` Min/Avg/Max points from the Watch, one a
minute from 2025-01-01 00:00 +0100 on, source names as the phone writes them (a curly apostrophe, a no-break space).

    python3 hae_body.py OUT.json            # 400,000 points (≈ 36 MB): issue 34's row
    python3 hae_body.py OUT.json 1000       # 1,000 points
    python3 hae_body.py OUT.json 400000 7   # another value per point (seed 7): the app re-sending grown buckets
"""
import json
import random
import sys
from datetime import datetime, timedelta, timezone

ZONE = timezone(timedelta(hours=1))
START = datetime(2025, 1, 1, tzinfo=ZONE)
WATCH = "Anna\u2019s\u00a0Apple Watch"
PHONE = "Anna\u2019s iPhone"


def date(minute):
    return (START + timedelta(minutes=minute)).strftime("%Y-%m-%d %H:%M:%S %z")


def main(path, points=400_000, seed=34):
    rng = random.Random(seed)
    half = points // 2
    steps = [{"date": date(m // 2), "qty": rng.randint(0, 140), "source": WATCH if m % 2 == 0 else PHONE}
             for m in range(half)]
    heart = []
    for m in range(points - half):
        low = rng.randint(48, 90)
        heart.append({"date": date(m), "Min": low, "Avg": round(low + rng.random() * 20, 1),
                      "Max": low + rng.randint(21, 60), "source": WATCH})
    body = {"data": {"metrics": [{"name": "step_count", "units": "count", "data": steps},
                                 {"name": "heart_rate", "units": "bpm", "data": heart}],
                     "workouts": []}}
    with open(path, "w", encoding="utf-8") as out:
        json.dump(body, out, ensure_ascii=False, separators=(",", ":"))


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:]))
