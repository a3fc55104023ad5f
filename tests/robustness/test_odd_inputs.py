"""Inputs that once gave a 500 or said two things at once: each now gets a clear answer and
changes nothing (issue 16). A 500 is a bug."""
from __future__ import annotations

import logging
import re

import pytest

from referee import create_app

ODD_NUMBERS = ["²", "٣", "9" * 5000, "-", "1e3", "0x10"]


def csrf(client, path: str) -> str:
    html = client.get(path).get_data(as_text=True)
    return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)


def test_a_key_named_twice_in_a_json_body_is_a_400(client, api):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    body = '{"type": "play", "player": "Bob", "player": "Ann", "card": "5H"}'
    response = client.post(f"/api/v1/games/{game['id']}/moves", data=body, content_type="application/json",
                           headers={"Authorization": f"Bearer {game['token']}"})
    assert response.status_code == 400 and "player" in response.json["detail"]
    assert response.content_type == "application/problem+json"
    assert api.state(game)["version"] == 0
    nested = '{"game": "nines", "players": ["Ann", "Bob"], "options": {"target": 5, "target": 500}}'
    assert client.post("/api/v1/games", data=nested, content_type="application/json").status_code == 400


@pytest.mark.parametrize("odd", ODD_NUMBERS)
def test_odd_numbers_in_the_start_form_are_refused_not_a_crash(client, odd):
    response = client.post("/new/nines", data={"csrf_token": csrf(client, "/new/nines"), "players": "Ann\nBob",
                                               "target": odd})
    assert response.status_code == 422


@pytest.mark.parametrize("odd", ODD_NUMBERS)
def test_odd_numbers_in_move_forms_are_refused_not_a_crash(table_client, api, odd):
    cases = [("xix", ["Ann", "Bob"], None, {"type": "play", "player": "Ann", "card": odd, "from": "closed"}),
             ("sixty-nine", ["Ann", "Bob", "Cid"], {"type": "deal", "dealer": "Cid", "flip": "5A"},
              {"type": "play", "player": "Ann", "set": odd, "cards": "5B"}),
             ("nines", ["Ann", "Bob"], {"type": "deal", "discard": "2C", "revealed": {
                 "Ann": {"0": "KS", "1": "KH", "2": "KD"}, "Bob": {"0": "QS", "1": "QH", "2": "QD"}}},
              {"type": "turn", "player": "Ann", "source": "stock", "card": "7D", "position": odd})]
    for name, players, first, form in cases:
        game = api.create(name, players)
        if first:
            api.move(game, first)
        version = api.state(game)["version"]
        table = table_client(game)
        token = csrf(table, f"/g/{game['id']}")
        for data in ({**form, "csrf_token": token}, {**form, "csrf_token": token, "version": odd}):
            response = table.post(f"/g/{game['id']}/move", data=data)
            assert response.status_code in (302, 303, 412, 422), (name, response.status_code)
        assert api.state(game)["version"] == version


def test_a_deep_array_in_the_json_box_and_a_nul_in_the_form_key_are_no_crash(table_client, api):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    table = table_client(game)
    token = csrf(table, f"/g/{game['id']}")
    deep = "[" * 3000 + "]" * 3000
    response = table.post(f"/g/{game['id']}/move", data={"csrf_token": token, "type": "json", "json": deep})
    assert response.status_code == 302
    move = {"csrf_token": token, "type": "play", "player": "Ann", "card": "5H", "idempotency_key": "a\x00b"}
    response = table.post(f"/g/{game['id']}/move", data=move)
    assert response.status_code == 302
    assert api.state(game)["version"] == 1                     # the move went through, once


def test_migrating_at_start_keeps_every_logger_working(tmp_path):
    """Alembic's fileConfig() used to disable every logger that existed (gunicorn's access and error
    logs, the app's tracebacks) whenever the app migrated at start."""
    logger = logging.getLogger("gunicorn.error")
    logger.disabled = False
    create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'fresh.sqlite3'}", "AUTO_MIGRATE": True,
                "TESTING": True, "SECRET_KEY": "x", "RATELIMIT_ENABLED": False})  # the limiter is shared
    assert not logger.disabled and not logging.getLogger("referee").disabled


@pytest.mark.parametrize("odd", ["²", "٣", "9" * 5000, "²A", "A²"])
def test_odd_digits_in_api_card_and_set_fields(api, odd):
    xix = api.create("xix", ["Ann", "Bob"])
    body = api.move(xix, {"type": "play", "player": "Ann", "card": odd, "from": "closed"}, expect=422)
    assert body["rule"] == "X19-1"
    sixty_nine = api.create("sixty-nine", ["Ann", "Bob", "Cid"])
    api.move(sixty_nine, {"type": "deal", "dealer": "Cid", "flip": "5A"})
    body = api.move(sixty_nine, {"type": "play", "player": "Ann", "set": 1, "cards": [odd]}, expect=422)
    assert body["rule"] == "S69-1"
    body = api.move(sixty_nine, {"type": "play", "player": "Ann", "set": odd, "cards": ["5B"]}, expect=422)
    assert body["status"] == 422
    assert api.state(xix)["version"] == 0 and api.state(sixty_nine)["version"] == 1


def test_a_method_a_route_lacks_is_a_405_with_allow_whatever_the_body(client):
    for method, path in [("PUT", "/api/v1/games"), ("PATCH", "/api/v1/rules"), ("PUT", "/api/v1/games/x/moves")]:
        for body, kind in (("{}", "application/json"), ("xx", "text/plain")):
            response = client.open(path, method=method, data=body, content_type=kind)
            assert response.status_code == 405 and response.headers["Allow"], (method, path, kind)
            assert response.content_type == "application/problem+json"


class _BrokenChunks:
    """A body the server cannot read, as gunicorn's reader fails on a malformed chunked body."""

    def read(self, *args):
        raise OSError("Invalid chunk size")

    readline = read


def test_an_unreadable_body_is_a_400_before_any_token_check(client, api):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    for path in ("/api/v1/games", f"/api/v1/games/{game['id']}/moves", "/api/v1/judge/xix/trick"):
        response = client.post(path, content_type="application/json", headers={"Transfer-Encoding": "chunked"},
                               environ_overrides={"wsgi.input": _BrokenChunks(), "wsgi.input_terminated": True})
        assert response.status_code == 400 and response.content_type == "application/problem+json", path


def test_a_count_for_the_69_hand_is_in_the_spec(client):
    spec = client.get("/openapi.json").json
    hand = spec["components"]["schemas"]["SixtyNineScoreVerdictRequest"]["properties"]["hand"]
    assert {"type": "integer", "minimum": 0, "maximum": 69} in hand["oneOf"]
    assert client.post("/api/v1/judge/sixty-nine/score", json={"captured": [], "hand": 4}).json["points"] == 0
