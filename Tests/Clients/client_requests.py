"""Drives the sink with Python requests, its default encodings (params= dict: a space becomes +); the scenario is
client_flow's."""
import requests

import client_flow

url, token, *scenario = client_flow.arguments()
session = requests.Session()
session.headers["Authorization"] = f"Bearer {token}"
client_flow.run(lambda path, body: session.post(f"{url}{path}", data=body, headers={"Content-Type": "application/json"}),
                lambda path, params: session.get(f"{url}{path}", params=params), *scenario)
