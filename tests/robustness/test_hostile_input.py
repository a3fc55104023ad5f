"""Hostile input that tests/api/test_contract.py does not already cover: each is refused with
application/problem+json (never a 5xx) and changes nothing -- or, for names that are merely odd
(markup, SQL-like, control characters), is stored and echoed verbatim as JSON data."""
from __future__ import annotations

import json

import pytest
from sqlalchemy import text

from referee.models import db

PLAYERS = ["Ann", "Bob", "Cid"]


@pytest.fixture
def game(api):
    return api.create("ninety-nine", PLAYERS)


def snapshot(api, game):
    return api.state(game), api.log(game)


def count_games(app) -> int:
    with app.app_context():
        n = db.session.scalar(text("SELECT COUNT(*) FROM games"))
        db.session.remove()
    return n


def assert_problem(response, *statuses):
    assert response.status_code in statuses, (response.status_code, response.get_data(as_text=True)[:500])
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["status"] == response.status_code and body["title"] and body["detail"]
    return body


def auth(game):
    return {"Authorization": f"Bearer {game['token']}"}


def nested(depth: int, leaf="x") -> dict:
    value = leaf
    for _ in range(depth):
        value = {"a": value}
    return value


# ---------------------------------------------------------------- deep and huge JSON

@pytest.mark.parametrize("where", ["move", "create", "judge"])
def test_deeply_nested_objects_are_400(app, client, api, game, where):
    before, games = snapshot(api, game), count_games(app)
    deep = nested(200)
    if where == "move":
        response = client.post(f"/api/v1/games/{game['id']}/moves", headers=auth(game),
                               json={"type": "play", "player": "Ann", "card": deep})
    elif where == "create":
        response = client.post("/api/v1/games", json={"game": "ninety-nine", "players": PLAYERS, "options": deep})
    else:
        response = client.post("/api/v1/judge/ninety-nine/play", json={"total": 1, "card": deep})
    assert_problem(response, 400)
    assert snapshot(api, game) == before and count_games(app) == games


def test_nesting_under_the_depth_limit_is_an_ordinary_422(client, api, game):
    before = snapshot(api, game)
    response = client.post(f"/api/v1/games/{game['id']}/moves", headers=auth(game),
                           json={"type": "play", "player": "Ann", "card": nested(20)})
    assert_problem(response, 422)
    assert snapshot(api, game) == before


@pytest.mark.parametrize("body", [
    {"type": "play", "player": "Ann", "card": ["KS"] * 8000},          # ~50 kB, under the size limit
    {"type": "play", "player": "Ann", "card": "K" * 60_000},
    {"type": "play", "player": "A" * 60_000, "card": "KS"},
    {"type": "play", "player": "Ann", "card": "KS", **{f"f{i}": i for i in range(4000)}},
])
def test_huge_bodies_under_the_limit_are_422(client, api, game, body):
    before = snapshot(api, game)
    raw = json.dumps(body)
    assert len(raw) < 64 * 1024
    response = client.post(f"/api/v1/games/{game['id']}/moves", headers=auth(game), data=raw,
                           content_type="application/json")
    assert_problem(response, 422)
    assert snapshot(api, game) == before


def test_many_players_or_huge_names_at_creation_are_422(app, client):
    games = count_games(app)
    for players in (["p%d" % i for i in range(5000)], ["x" * 50_000, "Bob"]):
        assert_problem(client.post("/api/v1/games", json={"game": "ninety-nine", "players": players}), 422)
    assert count_games(app) == games


@pytest.mark.parametrize("raw", [
    b'{"type": "play", "player": "Ann", "card": "KS", "value": ' + b"9" * 5000 + b"}",  # > int digit limit
    b'{"type": "play", "player": "Ann", "card": "AS", "value": 1e400}',                   # infinity
    b'{"type": "play", "player": "Ann", "card": "AS", "value": -Infinity}',
    b'{"type": "play", "player": "Ann", "card": "AS", "value": 1.0}',
    b'{"type": "play", "player": "Ann", "card": "KS"} {"type": "play"}',                  # two documents
    b'{"type": "play", "type": "dance", "player": "Ann", "card": "KS"}',                  # duplicate key
])
def test_odd_numbers_and_documents_are_refused(client, api, game, raw):
    before = snapshot(api, game)
    response = client.post(f"/api/v1/games/{game['id']}/moves", headers=auth(game), data=raw,
                           content_type="application/json")
    assert_problem(response, 400, 422)
    assert snapshot(api, game) == before


# ---------------------------------------------------------------- content types and encodings

@pytest.mark.parametrize("content_type", [
    None, "text/plain", "application/xml", "multipart/form-data; boundary=x", "application/x-www-form-urlencoded",
])
@pytest.mark.parametrize("path", ["/api/v1/games", "/api/v1/judge/ninety-nine/play", "MOVES"])
def test_a_json_body_under_another_content_type_is_415(app, client, api, game, content_type, path):
    before, games = snapshot(api, game), count_games(app)
    body = {"/api/v1/games": {"game": "ninety-nine", "players": PLAYERS},
            "/api/v1/judge/ninety-nine/play": {"total": 1, "card": "KS"}}.get(path, {"type": "play", "player": "Ann",
                                                                                     "card": "KS"})
    url = f"/api/v1/games/{game['id']}/moves" if path == "MOVES" else path
    headers = auth(game) if path == "MOVES" else {}
    if content_type is None:
        response = client.post(url, data=json.dumps(body).encode(), headers=headers)
    else:
        response = client.post(url, data=json.dumps(body).encode(), headers={**headers, "Content-Type": content_type})
    assert_problem(response, 415)
    assert snapshot(api, game) == before and count_games(app) == games


@pytest.mark.parametrize("encoding", ["latin-1", "utf-16", "utf-32", "cp1252"])
@pytest.mark.parametrize("path", ["/api/v1/games", "/api/v1/judge/ninety-nine/play", "MOVES"])
def test_non_utf8_bodies_are_400(app, client, api, game, encoding, path):
    before, games = snapshot(api, game), count_games(app)
    text_body = {"/api/v1/games": '{"game": "ninety-nine", "players": ["Zoë", "Bob"]}',
                 "/api/v1/judge/ninety-nine/play": '{"total": 1, "card": "KS", "players": 3, "x": "é"}'}.get(
        path, '{"type": "play", "player": "Ann", "card": "KS", "note": "Zoë"}')
    url = f"/api/v1/games/{game['id']}/moves" if path == "MOVES" else path
    headers = auth(game) if path == "MOVES" else {}
    response = client.post(url, data=text_body.encode(encoding), content_type="application/json", headers=headers)
    assert_problem(response, 400)
    assert snapshot(api, game) == before and count_games(app) == games


def test_an_undo_with_a_body_that_is_not_json_is_refused(client, api, game):
    api.move(game, {"type": "play", "player": "Ann", "card": "KS"})
    before = snapshot(api, game)
    response = client.post(f"/api/v1/games/{game['id']}/undo", data="please", content_type="text/plain",
                           headers=auth(game))
    assert_problem(response, 415)
    response = client.post(f"/api/v1/games/{game['id']}/undo", data=b"\xff{", content_type="application/json",
                           headers=auth(game))
    assert_problem(response, 400)
    assert snapshot(api, game) == before


# ---------------------------------------------------------------- unknown fields

@pytest.mark.parametrize("body", [
    {"total": 1, "card": "KS", "extra": 1},
    {"total": 1, "card": "KS", "players": 3, "__proto__": {"admin": True}},
    {"total": "1; DROP TABLE games", "card": "KS"},
    {"total": 1, "card": "<img src=x onerror=alert(1)>"},
])
def test_judge_refuses_unknown_fields_and_junk(client, body):
    assert_problem(client.post("/api/v1/judge/ninety-nine/play", json=body), 422)


def test_unknown_fields_in_a_missed_draw_are_422(client, api, game):
    api.move(game, {"type": "play", "player": "Ann", "card": "KS"})
    before = snapshot(api, game)
    response = client.post(f"/api/v1/games/{game['id']}/moves", headers=auth(game),
                           json={"type": "missed_draw", "player": "Ann", "tokens": 99})
    assert_problem(response, 422)
    assert snapshot(api, game) == before


# ---------------------------------------------------------------- odd names and SQL-like strings

@pytest.mark.parametrize("name", [
    "<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "Robert'); DROP TABLE games;--",
    "' OR '1'='1", "{{7*7}}", "${jndi:ldap://x}", "Zoë 🂡",  # a bidi override: test_player_names
])
def test_odd_names_are_kept_verbatim_as_json_data(app, client, api, name):
    response = client.post("/api/v1/games", json={"game": "ninety-nine", "players": [name, "Bob"]})
    assert response.status_code == 201 and response.mimetype == "application/json"
    game = response.get_json()
    assert game["players"] == [name, "Bob"] and game["to_play"] == name
    played = api.move(game, {"type": "play", "player": name, "card": "5S"})
    assert played["to_play"] == "Bob" and list(played["standings"]) == [name, "Bob"]
    shown = client.get(f"/api/v1/games/{game['id']}")
    assert shown.mimetype == "application/json" and shown.get_json()["players"] == [name, "Bob"]
    with app.app_context():  # the tables are all still there
        for table in ("games", "moves", "idempotency_records"):
            db.session.execute(text(f"SELECT COUNT(*) FROM {table}"))
        db.session.remove()


@pytest.mark.parametrize("game_id", [
    "' OR '1'='1", "1; DROP TABLE games", "%", "_", "*", "..", "x" * 33, "x" * 5000, "%E2%80%AE", "%F0%9F%82%A1",
])
def test_sql_like_and_odd_game_ids_are_404(app, client, game, game_id):
    games = count_games(app)
    assert_problem(client.get(f"/api/v1/games/{game_id}"), 404)
    assert_problem(client.get(f"/api/v1/games/{game_id}/moves"), 404)
    assert_problem(client.post(f"/api/v1/games/{game_id}/moves", headers=auth(game),
                               json={"type": "play", "player": "Ann", "card": "KS"}), 404)
    assert_problem(client.post(f"/api/v1/games/{game_id}/undo", headers=auth(game)), 404)
    assert count_games(app) == games


def test_a_nul_byte_in_a_game_id_is_404(client, game):
    """Found by this suite: on PostgreSQL a NUL in the id reached the database and gave a 500."""
    for url in ("/api/v1/games/%00", "/api/v1/games/a%00b/moves"):
        assert_problem(client.get(url), 404)
    assert_problem(client.post("/api/v1/games/%00/moves", headers=auth(game),
                               json={"type": "play", "player": "Ann", "card": "KS"}), 404)
    assert_problem(client.post("/api/v1/games/%00/undo", headers=auth(game)), 404)


@pytest.mark.parametrize("key", ["a\x00b", "tab\tkey", "é-key", "x" * 201])
def test_an_idempotency_key_with_control_characters_or_too_long_is_400(client, api, game, key):
    """Found by this suite: on PostgreSQL a NUL in the key reached a text column and gave a 500."""
    response = client.post(f"/api/v1/games/{game['id']}/moves", json={"type": "play", "player": "Ann", "card": "KS"},
                           headers={**auth(game), "Idempotency-Key": key})
    assert_problem(response, 400)
    assert api.state(game)["version"] == 0


@pytest.mark.parametrize("raw_name", ['"A\\u0000n"', '"\\ud800"', '"\\u0007bell"', '"tab\\tname"'])
def test_control_characters_and_lone_surrogates_in_names_are_never_a_500(client, raw_name):
    raw = '{"game": "ninety-nine", "players": [%s, "Bob"]}' % raw_name
    response = client.post("/api/v1/games", data=raw, content_type="application/json")
    if response.status_code == 201:
        created = response.get_json()
        assert created["players"][0] == json.loads(raw_name).strip()
        assert client.get(f"/api/v1/games/{created['id']}").get_json()["players"] == created["players"]
    else:
        assert_problem(response, 422)


# ---------------------------------------------------------------- tokens

def test_another_games_token_cannot_undo(client, api, game):
    other = api.create("ninety-nine", PLAYERS)
    api.move(game, {"type": "play", "player": "Ann", "card": "KS"})
    before = snapshot(api, game)
    assert_problem(client.post(f"/api/v1/games/{game['id']}/undo", headers=auth(other)), 403)
    assert snapshot(api, game) == before


@pytest.mark.parametrize("header", [
    "Basic {token}", "Token {token}", "{token}", "Bearer", "Bearer ", "Bearer {token}x", "Bearer x{token}",
    "Bearer {upper}", "Bearer {token}{token}", "Bearer " + "A" * 8000,
])
def test_malformed_or_altered_tokens_are_refused(client, api, game, header):
    before = snapshot(api, game)
    value = header.format(token=game["token"], upper=game["token"].upper())
    for url, body in ((f"/api/v1/games/{game['id']}/moves", {"type": "play", "player": "Ann", "card": "KS"}),
                      (f"/api/v1/games/{game['id']}/undo", None)):
        response = client.post(url, json=body, headers={"Authorization": value})
        assert_problem(response, 401, 403)
    assert snapshot(api, game) == before


def test_an_idempotency_key_of_another_game_replays_nothing_here(client, api, game):
    other = api.create("ninety-nine", PLAYERS)
    move = {"type": "play", "player": "Ann", "card": "KS"}
    first = client.post(f"/api/v1/games/{other['id']}/moves", json=move,
                        headers={**auth(other), "Idempotency-Key": "shared"})
    assert first.status_code == 201
    # The other game's key and token together, on this game: refused, and nothing replayed.
    response = client.post(f"/api/v1/games/{game['id']}/moves", json=move,
                           headers={**auth(other), "Idempotency-Key": "shared"})
    assert_problem(response, 403)
    assert api.state(game)["version"] == 0 and api.log(game)["moves"] == []
