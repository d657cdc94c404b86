"""Drives the sink with the client openapi-python-client generated from its /openapi.json (package dir first arg)."""
import datetime
import importlib
import json
import os
import sys

package_dir, url, token, body_file, sample_type, day_from, day_to, tz, priority = sys.argv[1:10]
sys.path.insert(0, os.path.dirname(os.path.abspath(package_dir)))
name = os.path.basename(os.path.abspath(package_dir))
client_module = importlib.import_module(name)
post_samples = importlib.import_module(f"{name}.api.default.post_samples")
list_samples = importlib.import_module(f"{name}.api.default.list_samples")
daily_steps = importlib.import_module(f"{name}.api.default.daily_steps")
models = importlib.import_module(f"{name}.models")

client = client_module.AuthenticatedClient(base_url=url, token=token, raise_on_unexpected_status=True)
with open(body_file) as f:
    body = models.SamplesRequest.from_dict(json.load(f))
saved = post_samples.sync(client=client, body=body)
assert isinstance(saved, models.Saved), saved
accepted = saved.inserted + saved.duplicates

UNSET = importlib.import_module(f"{name}.types").UNSET
uuids, cursor = [], UNSET
while True:
    page = list_samples.sync(client=client, type_=sample_type, limit=7, cursor=cursor)
    assert isinstance(page, models.SamplePage), page
    uuids += [str(s.uuid).upper() for s in page.samples]
    if not page.next_cursor:
        break
    cursor = page.next_cursor

daily = daily_steps.sync(client=client, from_=datetime.date.fromisoformat(day_from),
                         to=datetime.date.fromisoformat(day_to), tz=tz, priority=priority)
assert isinstance(daily, models.DailySteps), daily
print(json.dumps({"accepted": accepted, "uuids": sorted(uuids), "daily": daily.to_dict()}, sort_keys=True))
