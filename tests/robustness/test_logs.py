"""Logs (issue 16): one JSON line per request on stdout, with a request id (sent back as a header),
the method, the route's pattern, the status and the latency; no token, table link code or game id appears."""
from __future__ import annotations

import json


def lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def test_each_request_is_one_json_line_without_secrets(client, api, capsys):
    import re

    game = api.create("ninety-nine", ["Ann", "Bob"])
    link = client.post(f"/api/v1/games/{game['id']}/links", headers={"Authorization": f"Bearer {game['token']}"}).json
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', client.get(f"/g/{game['id']}/join").get_data(as_text=True))
    capsys.readouterr()
    response = client.post(f"/g/{game['id']}/join", data={"csrf_token": csrf.group(1), "code": link["code"]},
                           headers={"X-Request-Id": "phone-42"})
    assert response.headers["X-Request-Id"] == "phone-42"
    moved = client.post(f"/api/v1/games/{game['id']}/moves", json={"type": "play", "player": "Ann", "card": "5H"},
                        headers={"Authorization": f"Bearer {game['token']}"})
    out = capsys.readouterr().out
    assert game["token"] not in out and game["id"] not in out and link["code"].split(".")[1] not in out
    found = [line for line in lines(out) if line["logger"] == "referee.access"]
    assert [line["route"] for line in found] == ["/g/<game_id>/join", "/api/v1/games/<game_id>/moves"]
    assert found[0]["request_id"] == "phone-42" and found[0]["status"] == 302 and found[0]["method"] == "POST"
    assert found[1]["request_id"] == moved.headers["X-Request-Id"] and len(found[1]["request_id"]) == 32
    assert found[1]["status"] == 201 and found[1]["ms"] >= 0 and found[1]["time"].endswith("+00:00")


def test_an_odd_request_id_is_replaced(client, capsys):
    response = client.get("/healthz", headers={"X-Request-Id": "x" * 100})
    assert response.headers["X-Request-Id"] != "x" * 100
    assert lines(capsys.readouterr().out)[-1]["route"] == "/healthz"
