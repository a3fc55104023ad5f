"""Table links, phones and the game's token through the API: each link and each phone is its own
revocable key, listed (never with a secret) and revoked with the game's token, which can itself be
rotated. The pages' side (joining, the cookie, Secure, the share page) is in
tests/web/test_web_table_links.py."""
from __future__ import annotations

import json
import re

import pytest

from referee import links

PLAY = {"type": "play", "player": "Ann", "card": "5H"}


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def make_link(client, game, expect=201, **body):
    response = client.post(f"/api/v1/games/{game['id']}/links", json=body or None, headers=bearer(game["token"]))
    assert response.status_code == expect, response.get_json()
    return response


def listed(client, game) -> list[dict]:
    response = client.get(f"/api/v1/games/{game['id']}/links", headers=bearer(game["token"]))
    assert response.status_code == 200, response.get_json()
    return response.get_json()["links"]


def by_id(entries: list[dict]) -> dict:
    return {e["id"]: e for e in entries}


def join(app, game, code: str):
    """A phone opens the link (the join page posts the code); returns the phone's client and key."""
    phone = app.test_client()
    html = phone.get(f"/g/{game['id']}/join").get_data(as_text=True)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
    response = phone.post(f"/g/{game['id']}/join", data={"csrf_token": csrf, "code": code},
                          headers={"User-Agent": "Mozilla/5.0 (Linux; Android 14) Chrome/126.0 Mobile Safari/537.36"})
    assert response.status_code == 302, response.get_data(as_text=True)
    tables = phone.application.session_interface.get_signing_serializer(phone.application).loads(
        phone.get_cookie("session").value)["tables"]
    return phone, tables[game["id"]], csrf


def web_move(phone, game, csrf, player="Ann", rank="5", suit="H"):
    return phone.post(f"/g/{game['id']}/move", data={"csrf_token": csrf, "type": "play", "player": player,
                                                      "rank": rank, "suit": suit})


def test_a_link_is_made_with_the_token_and_its_code_is_shown_once(client, api):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    response = make_link(client, game)
    body = response.get_json()
    assert response.headers["Cache-Control"] == "no-store"
    assert body["kind"] == "link" and body["label"] == "Table link 1" and body["parent"] is None
    assert body["revoked"] is False and body["revoked_at"] is None and body["created_at"].endswith("+00:00")
    link_id, secret = body["code"].split(".")
    assert link_id == body["id"] and len(secret) >= 20
    # the code rides in the fragment: neither the path nor the query of the link carries it
    assert body["url"] == f"http://localhost/g/{game['id']}/join#{body['code']}"
    assert secret not in body["url"].split("#")[0]
    named = make_link(client, game, label="  Bob's phone ").get_json()
    assert named["label"] == "Bob's phone"
    assert make_link(client, game).get_json()["label"] == "Table link 3"
    # listed, never with a secret (nor its hash)
    entries = listed(client, game)
    assert [e["id"] for e in entries] == [body["id"], named["id"], entries[2]["id"]]
    text = json.dumps(entries)
    assert secret not in text and "code" not in text and "hash" not in text
    assert set(entries[0]) == {"id", "kind", "label", "parent", "created_at", "last_used_at", "revoked", "revoked_at"}


@pytest.mark.parametrize("body, status", [
    ('{"label": ""}', 422), ('{"label": "   "}', 422), ('{"label": "a\\u0000b"}', 422),
    ('{"label": "a\\u202eb"}', 422), ('{"label": "a\\ud800"}', 422), ('{"label": "' + "x" * 81 + '"}', 422),
    ('{"label": "' + "\u0958" * 80 + '"}', 422),  # 80 characters that NFC makes 160
    ('{"label": 5}', 422), ('{"secret": "mine"}', 422), ('[1]', 422), ('{"label": "a", "label": "b"}', 400),
    ('{', 400),
])
def test_a_bad_link_body_is_refused_and_makes_nothing(client, api, body, status):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    response = client.post(f"/api/v1/games/{game['id']}/links", data=body, content_type="application/json",
                           headers=bearer(game["token"]))
    assert response.status_code == status and response.content_type == "application/problem+json"
    assert listed(client, game) == []


def test_a_link_body_that_is_not_json_is_415(client, api):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    response = client.post(f"/api/v1/games/{game['id']}/links", data="label=x", headers=bearer(game["token"]),
                           content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415 and listed(client, game) == []


@pytest.mark.parametrize("method, path", [("GET", "links"), ("POST", "links"), ("DELETE", "links/abc"),
                                          ("POST", "token")])
def test_every_operation_needs_the_games_own_token(app, client, api, method, path):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    other = api.create("ninety-nine", ["Ann", "Bob"])
    link = make_link(client, game).get_json()
    _, key, _ = join(app, game, link["code"])
    url = f"/api/v1/games/{game['id']}/{path}"
    for headers, status in [({}, 401), (bearer(other["token"]), 403), (bearer(key), 403),
                            (bearer(link["code"]), 403), ({"Authorization": f"Basic {game['token']}"}, 401)]:
        response = client.open(url, method=method, headers=headers)
        assert response.status_code == status, (headers, response.get_json())
        assert response.content_type == "application/problem+json"
    missing = client.open(f"/api/v1/games/nope/{path}", method=method, headers=bearer(game["token"]))
    assert missing.status_code == 404
    assert len(listed(client, game)) == 2  # nothing made, revoked or rotated
    assert all(not e["revoked"] for e in listed(client, game))
    api.move(game, PLAY)  # the token still works


def test_the_api_takes_only_the_games_token_never_a_phones_key(app, client, api):
    """A phone's key opens the pages' writes; the API's Bearer is the game's token alone."""
    game = api.create("ninety-nine", ["Ann", "Bob"])
    _, key, _ = join(app, game, make_link(client, game).get_json()["code"])
    assert api.move(game, PLAY, expect=403, headers=bearer(key))["status"] == 403
    assert api.undo(game, expect=403, headers=bearer(key))["status"] == 403
    assert api.state(game)["version"] == 0


def test_a_phone_joins_through_a_link_with_a_key_of_its_own(app, client, api):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    link = make_link(client, game).get_json()
    phone, key, csrf = join(app, game, link["code"])
    phone_id, secret = key.split(".")
    assert phone_id != link["id"] and secret not in link["code"] and key != game["token"]
    entries = by_id(listed(client, game))
    assert entries[phone_id]["kind"] == "phone" and entries[phone_id]["parent"] == link["id"]
    assert entries[phone_id]["label"] == "Chrome on Android"
    assert entries[link["id"]]["last_used_at"] is not None and entries[phone_id]["last_used_at"] is None
    assert web_move(phone, game, csrf).status_code == 302
    assert api.state(game)["version"] == 1
    assert by_id(listed(client, game))[phone_id]["last_used_at"] is not None
    # a second phone through the same link gets another key
    _, other, _ = join(app, game, link["code"])
    assert other.split(".")[0] not in (phone_id, link["id"])


def test_revoking_a_link_revokes_the_phones_that_joined_through_it(app, client, api):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    link = make_link(client, game).get_json()
    keep = make_link(client, game).get_json()
    first, first_key, first_csrf = join(app, game, link["code"])
    second, _, second_csrf = join(app, game, link["code"])
    kept, kept_key, kept_csrf = join(app, game, keep["code"])
    response = client.delete(f"/api/v1/games/{game['id']}/links/{link['id']}", headers=bearer(game["token"]))
    assert response.status_code == 204 and response.get_data() == b""
    entries = by_id(listed(client, game))
    assert entries[link["id"]]["revoked"] and entries[first_key.split(".")[0]]["revoked"]
    assert entries[first_key.split(".")[0]]["revoked_at"] is not None
    assert not entries[keep["id"]]["revoked"] and not entries[kept_key.split(".")[0]]["revoked"]
    assert [e["revoked"] for e in listed(client, game)] == [False, False, True, True, True]  # in use first
    for phone, csrf in ((first, first_csrf), (second, second_csrf)):
        assert web_move(phone, game, csrf).status_code == 403
    assert api.state(game)["version"] == 0
    assert web_move(kept, game, kept_csrf).status_code == 302
    # the revoked link lets no new phone in
    phone = app.test_client()
    html = phone.get(f"/g/{game['id']}/join").get_data(as_text=True)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
    refused = phone.post(f"/g/{game['id']}/join", data={"csrf_token": csrf, "code": link["code"]})
    assert refused.status_code == 403 and "does not open this game" in refused.get_data(as_text=True)
    # revoking again changes nothing; unknown, odd or another game's ids are 404s, never a 500
    again = client.delete(f"/api/v1/games/{game['id']}/links/{link['id']}", headers=bearer(game["token"]))
    assert again.status_code == 204
    other = api.create("ninety-nine", ["Ann", "Bob"])
    foreign = make_link(client, other).get_json()["id"]
    for odd in ["nope", foreign, "a%00b", "x" * 40, "%E2%98%83", "..%2F"]:
        response = client.delete(f"/api/v1/games/{game['id']}/links/{odd}", headers=bearer(game["token"]))
        assert response.status_code == 404 and response.content_type == "application/problem+json", odd
    assert not by_id(listed(client, other))[foreign]["revoked"]


def test_revoking_a_phone_closes_the_links_it_shared_but_not_their_phones(app, client, api):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    link = make_link(client, game).get_json()
    phone, key, _ = join(app, game, link["code"])
    share = phone.get(f"/g/{game['id']}/share").get_data(as_text=True)
    shared = re.search(r'id="table-link" href="[^"#]+#([^"]+)"', share).group(1)
    friend, friend_key, friend_csrf = join(app, game, shared)
    entries = by_id(listed(client, game))
    assert entries[shared.split(".")[0]]["parent"] == key.split(".")[0]
    assert entries[friend_key.split(".")[0]]["parent"] == shared.split(".")[0]
    response = client.delete(f"/api/v1/games/{game['id']}/links/{key.split('.')[0]}", headers=bearer(game["token"]))
    assert response.status_code == 204
    entries = by_id(listed(client, game))
    assert entries[key.split(".")[0]]["revoked"] and entries[shared.split(".")[0]]["revoked"]
    assert not entries[link["id"]]["revoked"] and not entries[friend_key.split(".")[0]]["revoked"]
    assert web_move(friend, game, friend_csrf).status_code == 302  # it joined before: it keeps its key
    latecomer = app.test_client()
    html = latecomer.get(f"/g/{game['id']}/join").get_data(as_text=True)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
    assert latecomer.post(f"/g/{game['id']}/join", data={"csrf_token": csrf, "code": shared}).status_code == 403


def test_rotating_the_token(app, client, api):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    link = make_link(client, game).get_json()
    phone, _, csrf = join(app, game, link["code"])
    response = client.post(f"/api/v1/games/{game['id']}/token", headers=bearer(game["token"]))
    assert response.status_code == 200 and response.headers["Cache-Control"] == "no-store"
    body = response.get_json()
    assert body["id"] == game["id"] and body["token"] != game["token"] and len(body["token"]) >= 32
    old, new = game, dict(game, token=body["token"])
    assert api.move(old, PLAY, expect=403)["status"] == 403
    assert client.get(f"/api/v1/games/{game['id']}/links", headers=bearer(old["token"])).status_code == 403
    assert client.post(f"/api/v1/games/{game['id']}/token", headers=bearer(old["token"])).status_code == 403
    assert api.state(game)["version"] == 0
    api.move(new, PLAY)
    assert listed(client, new)[0]["id"] == link["id"]
    # links and phones are not touched by a rotation
    assert web_move(phone, game, csrf, player="Bob", rank="6").status_code == 302
    assert api.state(game)["version"] == 2
    # an empty JSON object is as good as no body; a body that is not JSON is refused
    again = client.post(f"/api/v1/games/{game['id']}/token", json={}, headers=bearer(new["token"]))
    assert again.status_code == 200
    refused = client.post(f"/api/v1/games/{game['id']}/token", data="x", content_type="text/plain",
                          headers=bearer(again.get_json()["token"]))
    assert refused.status_code == 415


def test_a_game_holds_a_bounded_number_of_keys_in_use(client, api, monkeypatch):
    monkeypatch.setattr(links, "MAX_PER_GAME", 3)
    game = api.create("ninety-nine", ["Ann", "Bob"])
    made = [make_link(client, game).get_json() for _ in range(3)]
    refused = make_link(client, game, expect=409).get_json()
    assert refused["status"] == 409 and "revoke" in refused["detail"]
    client.delete(f"/api/v1/games/{game['id']}/links/{made[0]['id']}", headers=bearer(game["token"]))
    make_link(client, game)  # a revoked one no longer counts


def test_the_new_routes_are_in_the_spec(app):
    paths = app.extensions["referee_api"].spec.to_dict()["paths"]
    operations = {op["operationId"] for path in paths.values() for op in path.values() if isinstance(op, dict)
                  and "operationId" in op}
    assert {"createLink", "listLinks", "revokeLink", "rotateToken"} <= operations
    assert "/api/v1/games/{game_id}/links/{link_id}" in paths and "/api/v1/games/{game_id}/token" in paths


def test_the_migration_goes_down_and_up_again(tmp_path):
    """0004 (the credentials table) on a fresh database: up, down to 0003, and up again."""
    from flask_migrate import downgrade, upgrade
    from sqlalchemy import inspect

    from referee import MIGRATIONS, create_app
    from referee.models import db

    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'm.sqlite3'}", "AUTO_MIGRATE": True,
                      "TESTING": True, "SECRET_KEY": "x", "RATELIMIT_ENABLED": False})
    with app.app_context():
        assert "credentials" in inspect(db.engine).get_table_names()
        downgrade(directory=MIGRATIONS, revision="0003_game_revision")
        assert "credentials" not in inspect(db.engine).get_table_names()
        upgrade(directory=MIGRATIONS)
        columns = {c["name"] for c in inspect(db.engine).get_columns("credentials")}
        assert {"id", "game_id", "kind", "label", "secret_hash", "parent_id", "created_at", "revoked_at",
                "last_used_at"} <= columns
