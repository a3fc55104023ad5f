"""openapi.yaml at the root is the spec the app serves: regenerate it when this fails with
``flask --app wsgi openapi write --format yaml openapi.yaml``."""
from __future__ import annotations

import json
from pathlib import Path

import yaml

from referee.rules import ENGINES

ROOT = Path(__file__).resolve().parents[2]


def served_spec(app) -> dict:
    return json.loads(json.dumps(app.extensions["referee_api"].spec.to_dict()))


def test_openapi_yaml_matches_the_app(app):
    on_disk = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    assert on_disk == served_spec(app), "openapi.yaml is stale: regenerate it (see this module's docstring)"


def test_openapi_json_is_served(client, app):
    assert client.get("/openapi.json").get_json() == served_spec(app)


def test_every_route_is_documented(app):
    paths = served_spec(app)["paths"]
    for expected in ("/api/v1/games", "/api/v1/games/{game_id}", "/api/v1/games/{game_id}/moves",
                     "/api/v1/games/{game_id}/undo", "/api/v1/games/{game_id}/links",
                     "/api/v1/games/{game_id}/links/{link_id}", "/api/v1/games/{game_id}/token",
                     "/api/v1/rules/{game}"):
        assert expected in paths
    for name, engine in ENGINES.items():
        for verdict in engine.JUDGES:
            assert f"/api/v1/judge/{name}/{verdict}" in paths
