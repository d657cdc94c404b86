"""Drives the sink with httpx, its default encodings (params= dict: a space becomes +)."""
import json
import sys

import httpx

url, token, body_file, sample_type, day_from, day_to, tz, priority = sys.argv[1:9]
with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}) as client:
    with open(body_file, "rb") as f:
        reply = client.post("/samples", content=f.read(), headers={"Content-Type": "application/json"})
    reply.raise_for_status()
    accepted = reply.json()["inserted"] + reply.json()["duplicates"]

    uuids, cursor = [], None
    while True:
        params = {"type": sample_type, "limit": 7}
        if cursor:
            params["cursor"] = cursor
        page = client.get("/samples", params=params)
        page.raise_for_status()
        uuids += [s["uuid"] for s in page.json()["samples"]]
        cursor = page.json().get("nextCursor")
        if not cursor:
            break

    daily = client.get("/steps/daily", params={"from": day_from, "to": day_to, "tz": tz, "priority": priority})
    daily.raise_for_status()
    assert "+" in str(daily.request.url), daily.request.url
    print(json.dumps({"accepted": accepted, "uuids": sorted(uuids), "daily": daily.json()}, sort_keys=True))
