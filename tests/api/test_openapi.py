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


def test_documentation_only_decorators_do_not_wrap_the_view(app):
    """``doc`` and ``alt_response`` put their part of the spec on the view (referee.api.blueprint):
    a move passes through one flask-smorest wrapper, the response's, not eleven; and what they
    documented is in the spec."""
    from referee.api.games import Moves

    layers, view = 0, Moves.post
    while hasattr(view, "__wrapped__"):
        layers, view = layers + 1, view.__wrapped__
    assert layers == 1
    apply_move = served_spec(app)["paths"]["/api/v1/games/{game_id}/moves"]["post"]
    assert apply_move["operationId"] == "applyMove"  # doc
    assert {"400", "401", "403", "404", "412", "413", "415", "422"} <= set(apply_move["responses"])  # alt_response
    assert any(p.get("name") == "Idempotency-Key" for p in apply_move["parameters"])  # documented_write's doc
