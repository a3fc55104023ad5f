"""/metrics (issue 16): Prometheus text with requests by route and status, latency histograms,
moves applied by game, refusals by ruling id and database errors."""
from __future__ import annotations

import re


def value(text: str, name: str, **labels) -> float:
    for line in text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            found = dict(re.findall(r'(\w+)="([^"]*)"', line.split("}")[0])) if "{" in line else {}
            if all(found.get(k) == v for k, v in labels.items()):
                return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_metrics_count_requests_moves_and_refusals(client, api):
    before = client.get("/metrics").get_data(as_text=True)
    game = api.create("ninety-nine", ["Ann", "Bob"])
    api.move(game, {"type": "play", "player": "Ann", "card": "5H"})
    api.move(game, {"type": "play", "player": "Ann", "card": "6H"}, expect=422)    # Bob's turn: N99-2
    response = client.get("/metrics")
    assert response.status_code == 200 and response.mimetype == "text/plain"
    after = response.get_data(as_text=True)
    route = "/api/v1/games/<game_id>/moves"

    def grew(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("referee_requests_total", route=route, method="POST", status="201") == 1
    assert grew("referee_requests_total", route=route, method="POST", status="422") == 1
    assert grew("referee_moves_applied_total", game="ninety-nine") == 1
    assert grew("referee_refusals_total", rule="N99-2") == 1
    assert grew("referee_request_seconds_count", route=route) == 2
    assert "referee_database_errors_total" in after
    assert game["id"] not in after and game["token"] not in after
