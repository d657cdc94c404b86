"""The scenario both Python clients (requests, httpx) run against the sink, through the client under test:
POST the body, page GET /samples 7 at a time along the cursor, GET /steps/daily with the client's default query
encoding (params= dict: a space becomes +), then print what came back as one JSON line."""
import json
import sys


def arguments():
    """url, token, body_file, sample_type, day_from, day_to, tz, priority, from the command line."""
    return sys.argv[1:9]


def run(post, get, body_file, sample_type, day_from, day_to, tz, priority):
    """post(path, body bytes) and get(path, params dict) send through the client under test and return its reply."""
    with open(body_file, "rb") as f:
        reply = post("/samples", f.read())
    reply.raise_for_status()
    accepted = reply.json()["inserted"] + reply.json()["duplicates"]

    uuids, cursor = [], None
    while True:
        params = {"type": sample_type, "limit": 7}
        if cursor:
            params["cursor"] = cursor
        page = get("/samples", params)
        page.raise_for_status()
        uuids += [s["uuid"] for s in page.json()["samples"]]
        cursor = page.json().get("nextCursor")
        if not cursor:
            break

    daily = get("/steps/daily", {"from": day_from, "to": day_to, "tz": tz, "priority": priority})
    daily.raise_for_status()
    assert "+" in str(daily.request.url), daily.request.url  # the encoding under test: a space as +
    print(json.dumps({"accepted": accepted, "uuids": sorted(uuids), "daily": daily.json()}, sort_keys=True))
