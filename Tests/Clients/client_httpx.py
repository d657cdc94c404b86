"""Drives the sink with httpx, its default encodings (params= dict: a space becomes +); the scenario is client_flow's."""
import httpx

import client_flow

url, token, *scenario = client_flow.arguments()
with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}) as client:
    client_flow.run(lambda path, body: client.post(path, content=body, headers={"Content-Type": "application/json"}),
                    lambda path, params: client.get(path, params=params), *scenario)
