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


def test_openapi_yaml_matches_the_app(production_app):  # the games of the tests are not production's
    on_disk = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    assert on_disk == served_spec(production_app), "openapi.yaml is stale: regenerate it (see this module's docstring)"


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
        for verdict in engine.judges:
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


def test_every_link_names_an_operation_and_its_parameters(app):
    """The responses' OpenAPI links (what a client can do next with what an answer names) lead to
    operations that exist, set only parameters those operations take, and take their values from the
    answer or from the request's own path."""
    spec = served_spec(app)
    operations = {op["operationId"]: (path, op) for path, item in spec["paths"].items() for op in item.values()
                  if isinstance(op, dict) and "operationId" in op}
    links = [(path, link) for path, item in spec["paths"].items() for source in item.values()
             if isinstance(source, dict) and "responses" in source
             for response in source["responses"].values() for link in response.get("links", {}).values()]
    assert {link["operationId"] for _, link in links} >= {"getGame", "applyMove", "undoMove", "getMoveLog",
                                                          "exportGame", "importGame", "revokeLink", "getGroup"}
    for source_path, link in links:
        path, target = operations[link["operationId"]]
        taken = {p["name"] for p in target.get("parameters", []) + spec["paths"][path].get("parameters", [])}
        assert link.get("parameters") or "requestBody" in target, link
        for name, expression in link.get("parameters", {}).items():
            assert name in taken, (source_path, link)
            if expression.startswith("$request.path."):
                assert "{" + expression.removeprefix("$request.path.") + "}" in source_path, (source_path, link)
            else:
                assert expression.startswith("$response.body#/"), (source_path, link)
