"""The HTTP contract shared by every game (ARCHITECTURE.md), proven on Ninety-nine, and its core
(create, read, a move, If-Match, undo, the rules route) over every registered game."""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from referee.rules import ENGINES

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rules"))
from players import player_for, table_for  # noqa: E402

PLAYERS = ["Ann", "Bob", "Cid"]
PLAY_K = {"type": "play", "player": "Ann", "card": "KS"}


@pytest.fixture
def game(api):
    return api.create("ninety-nine", PLAYERS)


def assert_problem(response, status, rule=None):
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["status"] == status
    assert body["title"] and body["detail"] and body["type"].startswith("https://")
    if rule is not None:
        assert body["rule"] == rule
    return body



# ---------------------------------------------------------------- create and read

def test_create_returns_location_token_and_state(client):
    response = client.post("/api/v1/games", json={"game": "ninety-nine", "players": PLAYERS})
    assert response.status_code == 201
    body = response.get_json()
    assert response.headers["Location"].endswith(f"/api/v1/games/{body['id']}")
    assert response.headers["ETag"] == '"0"'
    assert len(body["id"]) >= 16 and len(body["token"]) >= 24
    assert body["version"] == 0 and body["status"] == "in_progress"
    assert body["game"] == "ninety-nine" and body["players"] == PLAYERS
    assert body["standings"] == {"Ann": 9, "Bob": 9, "Cid": 9}
    assert body["winners"] == [] and body["rounds"] == [] and body["round"] == 1
    assert body["to_play"] == "Ann"


def test_get_is_public_and_never_shows_the_token(client, game):
    response = client.get(f"/api/v1/games/{game['id']}")
    assert response.status_code == 200
    assert response.headers["ETag"] == '"0"'
    assert "token" not in response.get_json() and game["token"] not in response.get_data(as_text=True)


def test_ids_are_unguessable_and_distinct(api):
    ids = {api.create("ninety-nine", PLAYERS)["id"] for _ in range(20)}
    assert len(ids) == 20


def test_unknown_game_is_404(client):
    assert_problem(client.get("/api/v1/games/nope"), 404)
    assert_problem(client.get("/api/v1/games/nope/moves"), 404)
    assert_problem(client.post("/api/v1/games/nope/moves", json=PLAY_K,
                               headers={"Authorization": "Bearer x"}), 404)
    assert_problem(client.get("/api/v1/rules/chess"), 404)


@pytest.mark.parametrize("body", [
    {"game": "chess", "players": PLAYERS},
    {"game": "ninety-nine", "players": ["Ann"]},
    {"game": "ninety-nine", "players": ["Ann", "Ann"]},
    {"game": "ninety-nine", "players": ["Ann", ""]},
    {"game": "ninety-nine", "players": "Ann, Bob"},
    {"game": "ninety-nine", "players": [1, 2]},
    {"game": "ninety-nine", "players": PLAYERS, "options": {"tokens": "nine"}},
    {"game": "ninety-nine", "players": PLAYERS, "options": {"colour": "red"}},
    {"game": "ninety-nine", "players": PLAYERS, "extra": 1},
    {"players": PLAYERS},
    [],
    "ninety-nine",
    None,
])
def test_bad_create_is_422_and_creates_nothing(client, body):
    response = client.post("/api/v1/games", data=json.dumps(body), content_type="application/json")
    assert_problem(response, 422)


def test_etag_if_none_match_gives_304(client, game):
    response = client.get(f"/api/v1/games/{game['id']}", headers={"If-None-Match": '"0"'})
    assert response.status_code == 304 and response.data == b""
    assert client.get(f"/api/v1/games/{game['id']}", headers={"If-None-Match": '"7"'}).status_code == 200


# ---------------------------------------------------------------- tokens

def test_write_without_token_is_401(client, api, game):
    before = api.state(game)
    response = client.post(f"/api/v1/games/{game['id']}/moves", json=PLAY_K)
    assert_problem(response, 401)
    assert "Bearer" in response.headers["WWW-Authenticate"]
    assert_problem(client.post(f"/api/v1/games/{game['id']}/undo"), 401)
    assert api.state(game) == before


def test_wrong_token_and_other_games_token_are_403(client, api, game):
    other = api.create("ninety-nine", PLAYERS)
    before = api.state(game)
    for token in ("wrong", other["token"]):
        response = client.post(f"/api/v1/games/{game['id']}/moves", json=PLAY_K,
                               headers={"Authorization": f"Bearer {token}"})
        assert_problem(response, 403)
    assert api.state(game) == before and api.log(game)["moves"] == []


# ---------------------------------------------------------------- versions

def test_if_match_current_version_applies_and_stale_is_412(client, api, game):
    auth = {"Authorization": f"Bearer {game['token']}"}
    ok = client.post(f"/api/v1/games/{game['id']}/moves", json=PLAY_K, headers={**auth, "If-Match": '"0"'})
    assert ok.status_code == 201 and ok.headers["ETag"] == '"1"'
    before = api.state(game)
    stale = client.post(f"/api/v1/games/{game['id']}/moves",
                        json={"type": "play", "player": "Bob", "card": "QS"}, headers={**auth, "If-Match": '"0"'})
    body = assert_problem(stale, 412)
    assert "version 1" in body["detail"]
    assert api.state(game) == before


# ---------------------------------------------------------------- idempotency

def test_replay_with_same_key_returns_first_answer_and_applies_nothing(client, api, game):
    headers = {"Authorization": f"Bearer {game['token']}", "Idempotency-Key": "k-1"}
    first = client.post(f"/api/v1/games/{game['id']}/moves", json=PLAY_K, headers=headers)
    again = client.post(f"/api/v1/games/{game['id']}/moves", json=PLAY_K, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.get_json() == first.get_json()
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert api.state(game)["version"] == 1 and len(api.log(game)["moves"]) == 1


def test_same_key_with_a_different_body_is_422(client, api, game):
    headers = {"Authorization": f"Bearer {game['token']}", "Idempotency-Key": "k-2"}
    client.post(f"/api/v1/games/{game['id']}/moves", json=PLAY_K, headers=headers)
    before = api.state(game)
    other = {"type": "play", "player": "Bob", "card": "QS"}
    assert_problem(client.post(f"/api/v1/games/{game['id']}/moves", json=other, headers=headers), 422)
    assert api.state(game) == before


def test_keys_belong_to_one_game(client, api, game):
    other = api.create("ninety-nine", PLAYERS)
    for g in (game, other):
        response = client.post(f"/api/v1/games/{g['id']}/moves", json=PLAY_K,
                               headers={"Authorization": f"Bearer {g['token']}", "Idempotency-Key": "same"})
        assert response.status_code == 201
    assert api.state(other)["version"] == 1


# ---------------------------------------------------------------- bodies

def test_non_json_body_is_415(client, api, game):
    before = api.state(game)
    response = client.post(f"/api/v1/games/{game['id']}/moves", data="type=play",
                           content_type="application/x-www-form-urlencoded",
                           headers={"Authorization": f"Bearer {game['token']}"})
    assert_problem(response, 415)
    assert_problem(client.post("/api/v1/games", data="hello", content_type="text/plain"), 415)
    assert api.state(game) == before


@pytest.mark.parametrize("raw", [b"{not json", b"\xff\xfe{}", b"[" * 5000 + b"]" * 5000, b'{"a": NaN}', b""])
def test_malformed_json_is_400(client, api, game, raw):
    before = api.state(game)
    response = client.post(f"/api/v1/games/{game['id']}/moves", data=raw, content_type="application/json",
                           headers={"Authorization": f"Bearer {game['token']}"})
    assert_problem(response, 400)
    assert api.state(game) == before


def test_huge_body_is_413(client, api, game):
    before = api.state(game)
    big = json.dumps({"type": "play", "player": "Ann", "card": "KS", "pad": "x" * 200_000})
    response = client.post(f"/api/v1/games/{game['id']}/moves", data=big, content_type="application/json",
                           headers={"Authorization": f"Bearer {game['token']}"})
    assert_problem(response, 413)
    assert api.state(game) == before


@pytest.mark.parametrize("move", [
    {"type": "play", "player": "Ann", "card": "KS", "extra": True},
    {"type": "play", "player": "Ann", "card": "ZZ"},
    {"type": "play", "player": "Ann", "card": 10},
    {"type": "play", "player": "Zed", "card": "KS"},
    {"type": "play", "player": ["Ann"], "card": "KS"},
    {"type": "dance", "player": "Ann"},
    {"player": "Ann", "card": "KS"},
    {"type": "play", "player": "Ann", "card": "10S", "value": "ten"},
    {"type": "play", "player": "Ann", "card": "10S", "value": True},
    {"type": "play", "player": "<script>alert(1)</script>", "card": "KS"},
    {"type": "play", "player": "Ann'; DROP TABLE games; --", "card": "KS"},
])
def test_malformed_moves_are_422_and_change_nothing(client, api, game, move):
    before = api.state(game)
    response = client.post(f"/api/v1/games/{game['id']}/moves", json=move,
                           headers={"Authorization": f"Bearer {game['token']}"})
    assert_problem(response, 422)
    assert api.state(game) == before and api.log(game)["moves"] == []


def test_json_array_as_move_is_422(client, api, game):
    response = client.post(f"/api/v1/games/{game['id']}/moves", json=[PLAY_K],
                           headers={"Authorization": f"Bearer {game['token']}"})
    assert_problem(response, 422)


# ---------------------------------------------------------------- log and undo

def test_log_lists_moves_with_versions_and_voided_marks(api, game):
    api.move(game, PLAY_K)
    api.move(game, {"type": "play", "player": "Bob", "card": "QS"})
    api.undo(game)
    log = api.log(game)
    assert [(m["seq"], m["version"], m["voided"]) for m in log["moves"]] == [(1, 1, False), (2, 2, True)]
    assert log["moves"][1]["move"] == {"type": "play", "player": "Bob", "card": "QS"}


def test_undo_rebuilds_the_state_from_the_log(api, game):
    start = api.state(game)
    after_one = api.move(game, PLAY_K)
    api.move(game, {"type": "play", "player": "Bob", "card": "2S"})
    undone = api.undo(game)
    assert undone == after_one | {"events": undone["events"], "etag": undone["etag"]}
    assert undone["etag"] != after_one["etag"]  # the same table, reached by another path: a new tag
    assert undone["total"] == 10 and undone["to_play"] == "Bob" and undone["version"] == 1
    assert api.undo(game)["version"] == 0
    assert api.state(game)["total"] == start["total"] == 0
    body = api.undo(game, expect=409)
    assert body["status"] == 409
    again = api.move(game, {"type": "play", "player": "Ann", "card": "5S"})
    assert again["version"] == 1 and again["total"] == 5
    assert [m["seq"] for m in api.log(game)["moves"]] == [1, 2, 3]


def test_undo_honours_if_match(client, api, game):
    api.move(game, PLAY_K)
    response = client.post(f"/api/v1/games/{game['id']}/undo",
                           headers={"Authorization": f"Bearer {game['token']}", "If-Match": '"0"'})
    assert_problem(response, 412)
    assert api.state(game)["version"] == 1


def test_the_table_as_it_was_after_any_move(client, api, game):
    api.move(game, PLAY_K)
    api.move(game, {"type": "play", "player": "Bob", "card": "QS"})
    past = client.get(f"/api/v1/games/{game['id']}?at=1").get_json()
    assert past["version"] == 1 and past["total"] == 10 and past["to_play"] == "Bob"
    assert client.get(f"/api/v1/games/{game['id']}?at=0").get_json()["total"] == 0
    assert_problem(client.get(f"/api/v1/games/{game['id']}?at=-1"), 422)


# ---------------------------------------------------------------- every registered game

@pytest.mark.parametrize("name", list(ENGINES))
def test_every_game_keeps_the_contract_over_http(client, api, name):
    engine = ENGINES[name]
    players = table_for(engine)
    response = client.post("/api/v1/games", json={"game": name, "players": players})
    assert response.status_code == 201 and response.headers["ETag"] == '"0"'
    game = response.get_json()
    assert response.headers["Location"].endswith(f"/api/v1/games/{game['id']}")
    assert game["game"] == name and game["players"] == players and game["status"] == "in_progress"
    assert game["allowed"] == engine.allowed(engine.new_game(players)) and game["allowed"]
    start = api.state(game)
    assert "token" not in start
    move = player_for(engine)(engine.new_game(players), start["allowed"], random.Random(3))
    moved = client.post(f"/api/v1/games/{game['id']}/moves", json=move,
                        headers={"Authorization": f"Bearer {game['token']}", "If-Match": '"0"'})
    assert moved.status_code == 201 and moved.headers["ETag"] == '"1"', moved.get_json()
    stale = client.post(f"/api/v1/games/{game['id']}/moves", json=move,
                        headers={"Authorization": f"Bearer {game['token']}", "If-Match": '"0"'})
    assert_problem(stale, 412)
    assert_problem(client.post(f"/api/v1/games/{game['id']}/moves", json={"type": "no-such-move"},
                               headers={"Authorization": f"Bearer {game['token']}"}), 422)
    assert [entry["move"]["type"] for entry in api.log(game)["moves"]] == [move["type"]]
    undone = api.undo(game)
    assert undone["version"] == 0 and {k: v for k, v in undone.items() if k not in ("etag", "events")} == \
        {k: v for k, v in start.items() if k not in ("etag", "events")}
    rules = client.get(f"/api/v1/rules/{name}").get_json()
    assert set(rules["moves"]) == set(engine.moves) and rules["rulings"] == engine.rulings
    assert name in {entry["game"] for entry in client.get("/api/v1/rules").get_json()}


# ---------------------------------------------------------------- rules, health, docs

def test_rules_describe_moves_options_and_rulings(client):
    body = client.get("/api/v1/rules/ninety-nine").get_json()
    assert set(body["moves"]) == {"play", "missed_draw", "round_result", "correct_round", "switch_record",
                                  "adjust"}  # the table's own: T-1, T-2, T-4
    assert body["options"]["tokens"]["default"] == 9
    assert {f"N99-{i}" for i in range(1, 9)} <= set(body["rulings"])
    assert body["judges"]["play"]["path"] == "/api/v1/judge/ninety-nine/play"
    every = client.get("/api/v1/rules").get_json()
    assert "ninety-nine" in {g["game"] for g in every}


def test_health_and_readiness(client):
    assert client.get("/healthz").get_json() == {"status": "ok"}
    assert client.get("/readyz").get_json() == {"status": "ready"}


def test_docs_are_served_without_a_cdn(client):
    page = client.get("/docs")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "/docs/assets/swagger-ui-bundle.js" in html
    assert "cdn" not in html.lower() and "unpkg" not in html.lower()
    assert client.get("/docs/assets/swagger-ui-bundle.js").status_code == 200
