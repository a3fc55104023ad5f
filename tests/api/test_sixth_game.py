"""A sixth game that lives only in the tests (``tests/contract/high_card.py``), registered without a
change anywhere else: the service creates it, lists it, validates and applies its moves, documents
them in the OpenAPI document and answers with its typed state."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from referee import create_app
from referee.rules import ENGINES, register

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "contract"))
import high_card  # noqa: E402


@pytest.fixture
def sixth(app, database_url):
    """An app made after high card was registered (on the same, already migrated database)."""
    register(high_card.GAME)
    try:
        yield create_app({"SQLALCHEMY_DATABASE_URI": database_url, "AUTO_MIGRATE": False, "TESTING": True,
                          "SECRET_KEY": "test-secret", "RATELIMIT_ENABLED": False})
    finally:
        ENGINES.pop("high-card", None)


def test_the_service_referees_a_game_registered_from_outside(sixth):
    client = sixth.test_client()
    listed = client.get("/api/v1/rules").get_json()
    assert "high-card" in {game["game"] for game in listed}
    rules = client.get("/api/v1/rules/high-card").get_json()
    assert rules["moves"]["show"]["fields"][1]["widget"] == "card" and rules["phases"] == {"show": ["show"]}

    created = client.post("/api/v1/games", json={"game": "high-card", "players": ["Ann", "Bob"],
                                                 "options": {"target": 1}})
    assert created.status_code == 201, created.get_json()
    game = created.get_json()
    assert game["allowed"] == {"show": {"players": ["Ann", "Bob"]}}
    auth = {"Authorization": f"Bearer {game['token']}"}
    url = f"/api/v1/games/{game['id']}/moves"

    bad = client.post(url, json={"type": "show", "player": "Ann", "card": "ZZ"}, headers=auth)
    assert bad.status_code == 422 and bad.content_type == "application/problem+json"
    assert client.post(url, json={"type": "show", "player": "Ann", "card": "KS"}, headers=auth).status_code == 201
    again = client.post(url, json={"type": "show", "player": "Ann", "card": "2S"}, headers=auth)
    assert again.status_code == 422 and again.get_json()["rule"] == "HC-1"
    done = client.post(url, json={"type": "show", "player": "Bob", "card": "2H"}, headers=auth).get_json()
    assert done["outcome"] == {"status": "finished", "winners": ["Ann"], "rule": "HC-2",
                               "reason": "Ann reached 1 points."}
    assert done["status"] == "finished" and done["allowed"] == {}
    over = client.post(url, json={"type": "show", "player": "Bob", "card": "3H"}, headers=auth)
    assert over.status_code == 422 and over.get_json()["rule"] == "HC-2"


def test_the_openapi_document_types_the_sixth_game(sixth):
    spec = sixth.extensions["referee_api"].spec.to_dict()
    schemas = spec["components"]["schemas"]
    assert schemas["HighCardShow"]["required"] == ["type", "card"]  # the player, implied when only one may show
    assert schemas["HighCardMove"]["discriminator"]["mapping"] == {"show": "#/components/schemas/HighCardShow"}
    assert {"$ref": "#/components/schemas/HighCardState"} in schemas["AnyGame"]["oneOf"]
    assert schemas["HighCardOptions"]["properties"]["target"]["default"] == 5
