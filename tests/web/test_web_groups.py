"""The table's memory on the phone (issue 14): groups on the home page and their own page (games,
stats, the chart of wins), the rematch from a finished game, the table's corrections (T-1) and
adjustments (T-2). Forms refused through Flask's test client (bad CSRF, no key, bad input: never a
500, nothing changed), then the whole story in Chromium at 390x844.

The group's key on the phone (issue 35): the cookie keeps a revocable phone key of its own to the
group, never the group's token; the key works on the pages only (never as the API's Bearer), is listed
and revoked on the group's page, and a cookie from before (holding the token) is exchanged for one."""
from __future__ import annotations

import json
import re

import pytest
import requests
from playwright.sync_api import expect

from referee import groups as group_store
from referee import store
from referee.models import Credential, Game, Group, db

UA = {"User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) Version/17.5 Mobile/15E148 Safari/604.1"}

# Ninety-nine with one token each: Ann K, Bob K, Ann K, Bob 3 reaches 33 (N99-5), Ann loses her only
# token and is out (N99-6): Bob wins in four plays.
QUICK_99 = [("Ann", "K", "S"), ("Bob", "K", "H"), ("Ann", "K", "D"), ("Bob", "3", "S")]


def csrf(client, path: str = "/") -> str:
    html = client.get(path).get_data(as_text=True)
    return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)


def session_of(client) -> dict:
    app = client.application
    cookie = client.get_cookie("session")
    return app.session_interface.get_signing_serializer(app).loads(cookie.value) if cookie else {}


def make_group(client, name: str = "Friday cards") -> str:
    response = client.post("/groups", data={"csrf_token": csrf(client), "name": name})
    assert response.status_code == 302, response.get_data(as_text=True)
    return re.fullmatch(r"/groups/([\w-]+)", response.headers["Location"]).group(1)


def start(client, game: str, players: str, group: str | None = None, **options) -> str:
    data = {"csrf_token": csrf(client, f"/new/{game}"), "players": players, **options}
    if group:
        data["group"] = group
    response = client.post(f"/new/{game}", data=data)
    assert response.status_code == 302, response.get_data(as_text=True)
    return re.fullmatch(r"/g/([^/]+)", response.headers["Location"]).group(1)


def play_99(client, game_id: str, plays=QUICK_99):
    token = csrf(client, f"/g/{game_id}")
    for player, rank, suit in plays:
        response = client.post(f"/g/{game_id}/move", data={"csrf_token": token, "type": "play", "player": player,
                                                            "rank": rank, "suit": suit})
        assert response.status_code == 302


def view(client, game_id: str) -> dict:
    return client.application.test_client().get(f"/api/v1/games/{game_id}").get_json()


def group_count(app) -> int:
    with app.app_context():
        return db.session.query(Group).count()


def game_count(app) -> int:
    with app.app_context():
        return db.session.query(Game).count()


def round_result(client, game_id: str, went_out: str = "Ann", **points):
    """A Five Crowns round result through the page's form (``points-<seat>``)."""
    data = {"csrf_token": csrf(client, f"/g/{game_id}"), "type": "round_result", "went_out": went_out, **points}
    assert client.post(f"/g/{game_id}/move", data=data).status_code == 302


# ---------------------------------------------------------------- groups: made, listed, kept in the cookie

def test_a_group_made_on_the_home_page_is_kept_by_the_phone_not_shown(app, client):
    group_id = make_group(client)
    key = session_of(client)["groups"][group_id]  # the phone's key to the group, in the signed cookie only
    with app.app_context():
        assert group_store.find_phone(group_store.get_group(group_id), key).kind == "phone"
    home = client.get("/").get_data(as_text=True)
    assert f'href="/groups/{group_id}"' in home and "Friday cards" in home
    game_id = start(client, "ninety-nine", "Ann\nBob", group=group_id, tokens="1")
    assert view(client, game_id)["group"] == group_id
    pages = ["/", f"/groups/{group_id}", f"/g/{game_id}", f"/g/{game_id}/share", f"/new/nines?group={group_id}"]
    for path in pages:
        assert key.split(".")[1] not in client.get(path).get_data(as_text=True), path
    # the new-game page offers the phone's groups, the one asked for chosen
    html = client.get(f"/new/nines?group={group_id}").get_data(as_text=True)
    assert re.search(rf'<option value="{group_id}" selected>Friday cards</option>', html)
    # a phone without the key sees the group's page, without its forms
    other = app.test_client()
    html = other.get(f"/groups/{group_id}").get_data(as_text=True)
    assert "Friday cards" in html and f"/g/{game_id}" in html and 'id="group-name-form"' not in html
    assert 'name="group"' not in other.get("/new/nines").get_data(as_text=True)


# ---------------------------------------------------------------- the group's key on the phone (issue 35)

def strings_in(value) -> list[str]:
    """Every string of a decoded cookie, keys and values, however deep."""
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in strings_in(k) + strings_in(v)]
    if isinstance(value, (list, tuple)):
        return [s for item in value for s in strings_in(item)]
    return [value] if isinstance(value, str) else []


def token_hash(app, group_id: str) -> str:
    with app.app_context():
        return db.session.get(Group, group_id).token_hash


def phones(app, group_id: str) -> list[tuple]:
    with app.app_context():
        return [(c.id, c.kind, c.game_id, c.revoked_at is not None, c.label)
                for c in group_store.phones_of(db.session.get(Group, group_id))]


def api_group(client, name: str = "Friday cards") -> dict:
    """A group made through the API: the only way anyone sees a group's token."""
    response = client.application.test_client().post("/api/v1/groups", json={"name": name})
    assert response.status_code == 201
    return response.get_json()


def open_with_token(client, group_id: str, token: str):
    return client.post(f"/groups/{group_id}/key", data={"csrf_token": csrf(client), "token": token}, headers=UA)


def bearer(key: str) -> dict:
    return {"Authorization": f"Bearer {key}"}


def problem(response, status: int) -> dict:
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True))
    assert response.mimetype == "application/problem+json"
    return response.get_json()


def test_the_cookie_of_the_phone_that_made_a_group_holds_a_key_of_its_own_never_the_token(app, client):
    response = client.post("/groups", data={"csrf_token": csrf(client), "name": "Friday cards"}, headers=UA)
    group_id = re.fullmatch(r"/groups/([\w-]+)", response.headers["Location"]).group(1)
    contents = session_of(client)
    # nothing in the cookie is the group's token (the token is kept hashed; none of the cookie's strings hashes to it)
    assert all(store.hash_token(value) != token_hash(app, group_id) for value in strings_in(contents))
    key = contents["groups"][group_id]
    assert re.fullmatch(r"[\w-]{1,16}\.[\w-]{16,64}", key)
    with app.app_context():
        group = group_store.get_group(group_id)
        with pytest.raises(store.StoreError) as refused:
            group_store.check_group_token(group, key)
        assert refused.value.status == 403
    [(phone_id, kind, game_id, revoked, label)] = phones(app, group_id)
    assert key.startswith(phone_id + ".") and kind == "phone" and game_id is None and not revoked
    assert label == "Made the group (Safari on iPhone)"
    assert set(contents) <= {"groups", "csrf_token", "_permanent", "_flashes"}
    # the group's page lists it as this phone's, and never shows its secret
    html = client.get(f"/groups/{group_id}").get_data(as_text=True)
    assert f'id="key-{phone_id}"' in html and "this phone" in html and key.split(".")[1] not in html


def test_the_phones_key_works_on_the_pages_and_never_as_the_apis_bearer(app, client):
    group_id = make_group(client)
    key = session_of(client)["groups"][group_id]
    game_id = start(client, "ninety-nine", "Ann\nBob", group=group_id, tokens="1")  # the key starts a game in it
    play_99(client, game_id)
    api = app.test_client()
    before = api.get(f"/api/v1/groups/{group_id}").get_json()
    games_before = game_count(app)
    # every write of the group through the API: refused with the phone's key as Bearer, nothing changed
    for method, path, body in [("patch", f"/api/v1/groups/{group_id}", {"name": "Stolen"}),
                               ("post", f"/api/v1/groups/{group_id}/renames", {"from": "Ann", "to": "Anna"}),
                               ("post", f"/api/v1/groups/{group_id}/token", None),
                               ("post", "/api/v1/games", {"game": "nines", "players": ["Ann", "Bob"],
                                                          "group": group_id}),
                               ("post", f"/api/v1/games/{game_id}/rematch", None),
                               ("get", f"/api/v1/games/{game_id}/links", None),
                               ("post", f"/api/v1/games/{game_id}/token", None)]:
        response = getattr(api, method)(path, json=body, headers=bearer(key))
        problem(response, 403)
    assert api.get(f"/api/v1/groups/{group_id}").get_json() == before and game_count(app) == games_before
    assert api.get(f"/api/v1/games/{game_id}").get_json()["rematch"] is None
    # nor do the game's own writes
    problem(api.post(f"/api/v1/games/{game_id}/undo", headers=bearer(key)), 403)
    assert api.get(f"/api/v1/games/{game_id}").get_json()["version"] == 4
    # on the pages it renames the group and its players
    form = csrf(client, f"/groups/{group_id}")
    assert client.post(f"/groups/{group_id}/name", data={"csrf_token": form, "name": "Fridays"}).status_code == 302
    response = client.post(f"/groups/{group_id}/players", data={"csrf_token": form, "old": "Ann", "new": "Anna"})
    assert response.status_code == 302
    described = api.get(f"/api/v1/groups/{group_id}").get_json()
    assert described["name"] == "Fridays" and described["players"] == ["Anna", "Bob"]
    assert len(phones(app, group_id)) == 1
    with app.app_context():
        assert db.session.get(Credential, key.split(".")[0]).last_used_at is not None


def test_revoking_a_phones_key_stops_it_and_forget_revokes_its_own(app, client, join_table):
    group = api_group(client)
    first, second = app.test_client(), app.test_client()
    assert open_with_token(first, group["id"], group["token"]).status_code == 302
    assert open_with_token(second, group["id"], group["token"]).status_code == 302
    first_key, second_key = (session_of(phone)["groups"][group["id"]] for phone in (first, second))
    assert group["token"] not in json.dumps(session_of(first)) + json.dumps(session_of(second))
    assert first_key != second_key
    thief = app.test_client()  # a copy of the second phone's cookie
    thief.set_cookie("session", second.get_cookie("session").value)
    # the first phone sees both keys on the group's page and revokes the second
    html = first.get(f"/groups/{group['id']}").get_data(as_text=True)
    second_id = second_key.split(".")[0]
    assert f'id="key-{second_id}"' in html and html.count("<strong>Opened with the group&#39;s token (Safari on iPhone)</strong>") == 2
    response = first.post(f"/groups/{group['id']}/revoke/{second_id}", data={"csrf_token": csrf(first)})
    assert response.status_code == 302
    assert "Revoked: Opened with the group" in first.get(f"/groups/{group['id']}").get_data(as_text=True)
    # the second phone and the copy of its cookie write nothing more, and the page says why
    for phone in (second, thief):  # (a form token from a page that reads no group key)
        response = phone.post(f"/groups/{group['id']}/name", data={"csrf_token": csrf(phone, "/check/nines"),
                                                                    "name": "Mine"})
        assert response.status_code == 403 and "key was revoked" in response.get_data(as_text=True)
        assert group["id"] not in session_of(phone).get("groups", {})
    response = thief.post("/new/nines", data={"csrf_token": csrf(thief), "players": "Ann\nBob", "group": group["id"]})
    assert response.status_code == 403 and game_count(app) == 0
    assert app.test_client().get(f"/api/v1/groups/{group['id']}").get_json()["name"] == "Friday cards"
    # revoking again, or what is not the group's, or by a phone without a key: nothing changes
    token = csrf(first)
    assert first.post(f"/groups/{group['id']}/revoke/{second_id}", data={"csrf_token": token}).status_code == 302
    for bad in ["nope", "a%00b", "x" * 40]:
        assert first.post(f"/groups/{group['id']}/revoke/{bad}", data={"csrf_token": token}).status_code == 404, bad
    first_id = first_key.split(".")[0]
    assert second.post(f"/groups/{group['id']}/revoke/{first_id}", data={"csrf_token": csrf(second)}).status_code == 403
    assert first.post(f"/groups/{group['id']}/revoke/{first_id}").status_code == 400  # no CSRF token
    assert [revoked for _, _, _, revoked, _ in phones(app, group["id"])] == [False, True]
    # a phone's key to one of the group's games is no key to the group
    game = app.test_client().post("/api/v1/games", json={"game": "nines", "players": ["Ann", "Bob"], "group": group["id"]},
                                  headers=bearer(group["token"])).get_json()
    other = app.test_client()
    join_table(other, game)
    game_key = session_of(other)["tables"][game["id"]]
    other.set_cookie("session", app.session_interface.get_signing_serializer(app).dumps(
        {"groups": {group["id"]: game_key}}))
    assert other.post(f"/groups/{group['id']}/name", data={"csrf_token": csrf(other), "name": "X"}).status_code == 403
    # "Forget": the first phone's key is revoked on the server, so a copy of its cookie opens nothing either
    copy = app.test_client()
    copy.set_cookie("session", first.get_cookie("session").value)
    response = first.post(f"/groups/{group['id']}/forget", data={"csrf_token": csrf(first)})
    assert response.status_code == 302 and group["id"] not in session_of(first).get("groups", {})
    assert 'id="group-name-form"' not in first.get(f"/groups/{group['id']}").get_data(as_text=True)
    response = copy.post(f"/groups/{group['id']}/name", data={"csrf_token": csrf(copy), "name": "Mine"})
    assert response.status_code == 403
    assert [revoked for _, _, _, revoked, _ in phones(app, group["id"])] == [True, True]
    # the group's token still works on the API, and opens the group again on a page
    assert app.test_client().patch(f"/api/v1/groups/{group['id']}", json={"name": "Fridays"},
                                   headers=bearer(group["token"])).status_code == 200
    assert open_with_token(first, group["id"], group["token"]).status_code == 302
    assert 'id="group-name-form"' in first.get(f"/groups/{group['id']}").get_data(as_text=True)


def test_opening_a_group_with_a_wrong_token_gets_no_key(app, client):
    group = api_group(client)
    other = api_group(client, "Tuesdays")
    game = app.test_client().post("/api/v1/games", json={"game": "nines", "players": ["Ann", "Bob"],
                                                         "group": group["id"]}, headers=bearer(group["token"]))
    for wrong in ["", "not-the-token", other["token"], game.get_json()["token"], "x" * 500]:
        response = open_with_token(client, group["id"], wrong)
        html = response.get_data(as_text=True)
        assert response.status_code in (401, 403) and 'id="refused"' in html, wrong
        assert wrong[:40] not in html or not wrong  # never shown back
        assert 'id="group-key-form"' in html and 'id="group-name-form"' not in html
    assert phones(app, group["id"]) == [] and group["id"] not in session_of(client).get("groups", {})
    assert client.post(f"/groups/{group['id']}/key", data={"token": group["token"]}).status_code == 400  # no CSRF
    assert client.post("/groups/nope/key", data={"csrf_token": csrf(client), "token": "x"}).status_code == 404
    assert phones(app, group["id"]) == []


def test_a_cookie_from_before_group_keys_is_exchanged_for_a_phone_key(app, client):
    """A cookie written before group keys held the group's token: on the phone's next visit it gets a key
    of its own in its place (the groups keep their order) and the token leaves the cookie; a token that
    no longer opens its group (rotated through the API) is dropped, and gets no key."""
    kept, rotated, later = api_group(client, "Kept"), api_group(client, "Rotated"), api_group(client, "Later")
    old_token = rotated["token"]
    response = app.test_client().post(f"/api/v1/groups/{rotated['id']}/token", headers=bearer(old_token))
    assert response.status_code == 200
    client.get("/")
    serializer = app.session_interface.get_signing_serializer(app)
    client.set_cookie("session", serializer.dumps({"groups": {kept["id"]: kept["token"], rotated["id"]: old_token,
                                                              later["id"]: later["token"]}}))
    home = client.get("/", headers=UA).get_data(as_text=True)
    assert "Kept" in home and "Later" in home and f'href="/groups/{rotated["id"]}"' not in home
    contents = session_of(client)
    assert list(contents["groups"]) == [kept["id"], later["id"]]
    for group in (kept, later):
        assert all(store.hash_token(value) != token_hash(app, group["id"]) for value in strings_in(contents))
        [(phone_id, _, _, revoked, label)] = phones(app, group["id"])
        assert contents["groups"][group["id"]].startswith(phone_id + ".") and not revoked
        assert label == "Safari on iPhone (before group keys)"
    assert phones(app, rotated["id"]) == []
    # the key does what the token did on the pages; the token itself still works on the API
    token = csrf(client)
    assert client.post(f"/groups/{kept['id']}/name", data={"csrf_token": token, "name": "Kept still"}).status_code == 302
    assert app.test_client().get(f"/api/v1/groups/{kept['id']}").get_json()["name"] == "Kept still"
    assert app.test_client().patch(f"/api/v1/groups/{kept['id']}", json={"name": "Kept"},
                                   headers=bearer(kept["token"])).status_code == 200
    # the exchange is once: the next visits keep the same key
    client.get(f"/groups/{kept['id']}")
    assert len(phones(app, kept["id"])) == 1
    # the group page of an old cookie exchanges it as well
    phone = app.test_client()
    phone.get("/")
    phone.set_cookie("session", serializer.dumps({"groups": {kept["id"]: kept["token"]}}))
    assert 'id="group-name-form"' in phone.get(f"/groups/{kept['id']}").get_data(as_text=True)
    assert kept["token"] not in json.dumps(session_of(phone)) and len(phones(app, kept["id"])) == 2
    # a cookie's value of the wrong type is dropped
    phone.set_cookie("session", serializer.dumps({"groups": {kept["id"]: 7, later["id"]: None}}))
    assert "Kept" not in phone.get("/").get_data(as_text=True)
    assert session_of(phone).get("groups") == {}


def test_the_home_page_says_who_won_and_who_leads(client):
    finished = start(client, "ninety-nine", "Ann\nBob", tokens="1")
    play_99(client, finished)
    going = start(client, "five-crowns", "Ann\nBob")
    round_result(client, going, "Bob", **{"points-0": "12"})
    html = client.get("/").get_data(as_text=True)
    mine = html[html.index('id="my-games"'):]
    assert "Bob won" in mine and "Bob leads" in mine  # Five Crowns: the lowest total leads


def test_the_group_page_names_each_games_own_figures_as_its_engine_declares_them(client):
    group_id = make_group(client)
    play_99(client, start(client, "ninety-nine", "Ann\nBob", group_id, tokens="1"))
    html = client.get(f"/groups/{group_id}").get_data(as_text=True)
    assert '<th scope="row">Tokens lost</th>' in html and '<th scope="row">Rounds won at 99</th>' in html
    german = client.get(f"/groups/{group_id}?lang=de").get_data(as_text=True)
    assert '<th scope="row">Verlorene Marken</th>' in german  # the engine's catalogue


def test_group_forms_refused_without_a_500_and_nothing_changes(app, client):
    # bad CSRF: no group
    assert client.post("/groups", data={"name": "Friday cards"}).status_code == 400
    assert client.post("/groups", data={"name": "Friday cards", "csrf_token": "forged"}).status_code == 400
    assert group_count(app) == 0
    # bad names: a clear refusal on the home page, no group
    for name in ["   ", "x" * 81, "Fri\x00day", "Fri\u200bday"]:
        response = client.post("/groups", data={"csrf_token": csrf(client), "name": name})
        assert response.status_code == 422, name
        assert "No group made" in response.get_data(as_text=True)
    assert group_count(app) == 0

    group_id = make_group(client)
    game_id = start(client, "ninety-nine", "Ann\nBob", group=group_id, tokens="1")
    play_99(client, game_id)
    # a phone without the group's key renames nothing
    other = app.test_client()
    token = csrf(other)
    for path, data in [(f"/groups/{group_id}/name", {"name": "Mine now"}),
                       (f"/groups/{group_id}/players", {"old": "Ann", "new": "Anna"})]:
        response = other.post(path, data={"csrf_token": token, **data})
        assert response.status_code == 403 and "group&#39;s key" in response.get_data(as_text=True)
    # nor starts a game in the group (a group id it does not hold)
    response = other.post("/new/nines", data={"csrf_token": token, "players": "Ann\nBob", "group": group_id})
    assert response.status_code == 403
    # the holder, with a bad CSRF token or bad input
    assert client.post(f"/groups/{group_id}/name", data={"name": "X"}).status_code == 400
    response = client.post(f"/groups/{group_id}/name", data={"csrf_token": csrf(client), "name": " "})
    assert response.status_code == 422 and 'id="refused"' in response.get_data(as_text=True)
    token = csrf(client)
    for data, status in [({"old": "Ann", "new": "Bob"}, 409),               # another player: a merge
                         ({"old": "Ann", "new": "Bob", "merge": "true"}, 409),  # they sat at one game
                         ({"old": "Nobody", "new": "Zed"}, 422),
                         ({"old": "Ann", "new": "y" * 41}, 422),
                         ({"old": "Ann", "new": ""}, 422),
                         ({"old": "Ann", "new": "A\x07nn"}, 422)]:
        response = client.post(f"/groups/{group_id}/players", data={"csrf_token": token, **data})
        assert response.status_code == status, (data, response.status_code)
        assert 'id="refused"' in response.get_data(as_text=True)
    with app.app_context():
        described = group_store.describe(group_store.get_group(group_id))
    assert described["name"] == "Friday cards" and described["players"] == ["Ann", "Bob"]
    assert described["renames"] == [] and game_count(app) == 1
    # and when they are right
    token = csrf(client)
    assert client.post(f"/groups/{group_id}/name", data={"csrf_token": token, "name": "Fridays"}).status_code == 302
    response = client.post(f"/groups/{group_id}/players", data={"csrf_token": token, "old": "Ann", "new": "Anna"})
    assert response.status_code == 302
    html = client.get(f"/groups/{group_id}").get_data(as_text=True)
    assert "<h1>Fridays" in html and "Anna, Bob" in html


def test_the_group_page_filters_pages_and_refuses_bad_queries(app, client):
    group_id = make_group(client)
    finished = start(client, "ninety-nine", "Ann\nBob", group=group_id, tokens="1")
    play_99(client, finished)
    going = start(client, "five-crowns", "Ann\nBob", group=group_id)
    html = client.get(f"/groups/{group_id}?status=finished").get_data(as_text=True)
    assert f"/g/{finished}" in html and f"/g/{going}" not in html
    html = client.get(f"/groups/{group_id}?game=five-crowns").get_data(as_text=True)
    assert f"/g/{going}" in html and f"/g/{finished}" not in html
    for query in ["game=chess", "status=lost", "after=not-a-cursor", "after=" + "A" * 300]:
        response = client.get(f"/groups/{group_id}?{query}")
        assert response.status_code == 400, query
    assert client.get("/groups/no-such-group").status_code == 404
    assert client.get("/groups/bad%00id").status_code == 404


def test_the_group_list_is_paged(app, client, monkeypatch):
    from referee.web import groups as pages

    monkeypatch.setattr(pages, "PAGE", 2)
    group_id = make_group(client)
    made = [start(client, "five-crowns", "Ann\nBob", group=group_id) for _ in range(3)]
    html = client.get(f"/groups/{group_id}").get_data(as_text=True)
    shown = re.findall(r'href="/g/([\w-]+)"', html[html.index('id="group-games"'):])
    older = re.search(r'href="([^"]+)" rel="next"', html).group(1).replace("&amp;", "&")
    html = client.get(older).get_data(as_text=True)
    rest = re.findall(r'href="/g/([\w-]+)"', html[html.index('id="group-games"'):])
    assert 'rel="next"' not in html and sorted(shown + rest) == sorted(made) and len(shown) == 2


# ---------------------------------------------------------------- rematch

def test_rematch_refused_without_a_500(app, client):
    game_id = start(client, "ninety-nine", "Ann\nBob", tokens="1")
    assert client.post(f"/g/{game_id}/rematch").status_code == 400  # no CSRF token
    response = client.post(f"/g/{game_id}/rematch", data={"csrf_token": csrf(client)})
    assert response.status_code == 302  # not over: refused on the game's page
    assert "is not over" in client.get(f"/g/{game_id}").get_data(as_text=True)
    play_99(client, game_id)
    follower = app.test_client()
    response = follower.post(f"/g/{game_id}/rematch", data={"csrf_token": csrf(follower)})
    assert response.status_code == 403
    assert client.post("/g/nope/rematch", data={"csrf_token": csrf(client)}).status_code == 404
    assert view(client, game_id)["rematch"] is None and game_count(app) == 1
    # the table's phone: once, and again lands on the same game
    first = client.post(f"/g/{game_id}/rematch", data={"csrf_token": csrf(client)})
    again = client.post(f"/g/{game_id}/rematch", data={"csrf_token": csrf(client)})
    assert first.status_code == again.status_code == 302 and first.headers["Location"] == again.headers["Location"]
    assert game_count(app) == 2
    # the follower now sees a link to it, no button
    html = follower.get(f"/g/{game_id}").get_data(as_text=True)
    assert f'id="next-game" href="{first.headers["Location"]}"' in html and 'id="rematch-form"' not in html


# ---------------------------------------------------------------- corrections and adjustments

def test_corrections_refused_without_a_500_and_nothing_changes(app, client):
    game_id = start(client, "five-crowns", "Ann\nBob\nCy")
    round_result(client, game_id, "Ann", **{"points-1": "10", "points-2": "7"})
    before = view(client, game_id)
    path = f"/g/{game_id}/correct/1"
    good = {"round": "1", "reason": "miscounted", "went_out": "Ann", "points-1": "13", "points-2": "7"}
    html = client.get(path).get_data(as_text=True)
    assert 'name="points-1" value="10"' in html and 'name="points-2" value="7"' in html
    assert re.search(r'<option value="Ann" selected>', html)
    assert client.post(path, data=good).status_code == 400  # no CSRF token
    token = csrf(client, path)
    for changed, status, rule in [({"reason": ""}, 422, "T-1"), ({"reason": "a\x00b"}, 422, "T-1"),
                                  ({"points-1": "lots"}, 400, None), ({"points-1": "-4"}, 422, "T-1"),
                                  ({"went_out": "Nobody"}, 422, "T-1"),
                                  ({"version": "99"}, 412, None)]:
        response = client.post(path, data={"csrf_token": token, **good, **changed})
        html = response.get_data(as_text=True)
        assert response.status_code == status, (changed, response.status_code)
        assert 'id="refused"' in html and (rule is None or f"Ruling {rule}" in html), changed
        assert 'name="reason"' in html  # the form again, with what was typed
    assert view(client, game_id)["version"] == before["version"]
    follower = app.test_client()
    assert follower.get(path).status_code == 403
    assert follower.post(path, data={"csrf_token": csrf(follower), **good}).status_code == 403
    for missing in [f"/g/{game_id}/correct/2", f"/g/{game_id}/correct/0", "/g/nope/correct/1"]:
        assert client.get(missing).status_code == 404, missing
    n99 = start(client, "ninety-nine", "Ann\nBob")
    response = client.get(f"/g/{n99}/correct/1")
    assert response.status_code == 404 and "Ruling T-1" in response.get_data(as_text=True)
    assert view(client, game_id)["version"] == before["version"]
    # and when it is right: the totals follow, the sheet shows the old score, the log both entries
    response = client.post(path, data={"csrf_token": token, **good})
    assert response.status_code == 302 and response.headers["Location"].endswith(f"/g/{game_id}#scores")
    assert view(client, game_id)["standings"]["Bob"] == 13
    html = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert re.search(r'<del><span class="visually-hidden">was </span>10</del> 13', html)
    log = client.get(f"/g/{game_id}/log").get_data(as_text=True)
    assert "Round result: Ann went out" in log and "Round 1 corrected: miscounted" in log


def test_adjust_is_offered_in_every_game_and_refusals_name_t2(app, client):
    for name, players in [("ninety-nine", "Ann\nBob"), ("nines", "Ann\nBob"), ("five-crowns", "Ann\nBob"),
                          ("xix", "Ann\nBob"), ("sixty-nine", "Ann\nBob\nCy")]:
        game_id = start(client, name, players)
        html = client.get(f"/g/{game_id}").get_data(as_text=True)
        assert 'id="adjust-form"' in html, name
        assert 'data-move="adjust"' not in html, name  # not offered twice (among "Other moves")
    game_id = start(client, "five-crowns", "Ann\nBob")
    token = csrf(client, f"/g/{game_id}")
    for points, reason in [("0", "nothing"), ("5", ""), ("5000", "too much")]:
        client.post(f"/g/{game_id}/move", data={"csrf_token": token, "type": "adjust", "player": "Bob",
                                                 "points": points, "reason": reason})
        assert "Ruling T-2" in client.get(f"/g/{game_id}").get_data(as_text=True), (points, reason)
    assert view(client, game_id)["version"] == 0
    client.post(f"/g/{game_id}/move", data={"csrf_token": token, "type": "adjust", "player": "Bob", "points": "-3",
                                             "reason": "forgotten bonus"})
    assert view(client, game_id)["standings"]["Bob"] == -3
    # a follower has no such form
    assert 'id="adjust-form"' not in app.test_client().get(f"/g/{game_id}").get_data(as_text=True)


def test_nines_corrects_a_hand_from_its_grids(client):
    game_id = start(client, "nines", "Ann\nBob")
    grids = {0: ["KS", "KH", "KD", "2C", "3C", "4C", "5C", "6C", "7C"],
             1: ["AH", "AD", "AC", "JK", "9H", "9D", "QH", "QD", "QC"]}
    data = {"csrf_token": csrf(client, f"/g/{game_id}"), "type": "hand_result"}
    data.update({f"g-{i}-{pos}": code for i, grid in grids.items() for pos, code in enumerate(grid)})
    assert client.post(f"/g/{game_id}/move", data=data).status_code == 302
    before = view(client, game_id)["standings"]
    html = client.get(f"/g/{game_id}/correct/1").get_data(as_text=True)
    assert "<h1>Correct hand 1" in html
    assert re.search(r'name="g-0-3"[^>]*value="2C"', html) and re.search(r'name="g-1-3"[^>]*value="JK"', html)
    data.update(type=None, round="1", reason="Ann had a 2 of spades", **{"g-0-3": "2S"})
    response = client.post(f"/g/{game_id}/correct/1", data={k: v for k, v in data.items() if v is not None})
    assert response.status_code == 302
    after = view(client, game_id)
    assert after["rounds"][0]["corrections"] and after["standings"]["Bob"] == before["Bob"]


# ---------------------------------------------------------------- the whole story in Chromium

def phone_group(page, name: str) -> str:
    page.goto("/")
    page.get_by_label("New group's name").fill(name)
    page.get_by_role("button", name="Make the group").click()
    expect(page.locator("h1")).to_contain_text(name)
    return re.search(r"/groups/([\w-]+)", page.url).group(1)


def phone_start(page, group_id: str, title: str, players: str, **options) -> str:
    page.goto(f"/groups/{group_id}")
    page.locator("section", has=page.get_by_role("heading", name="Start a game in this group")) \
        .get_by_role("link", name=title, exact=True).click()
    expect(page.locator("#group")).to_have_value(group_id)
    page.get_by_label(re.compile("Players, one name per line")).fill(players)
    for key, value in options.items():
        page.get_by_label(re.compile(f"^{key}", re.IGNORECASE)).fill(value)
    page.get_by_role("button", name="Start the game").click()  # lands on the game
    page.wait_for_url(re.compile(r".*/g/[\w-]+$"))
    return re.search(r"/g/([\w-]+)", page.url).group(1)


def phone_play_99(page):
    for _player, rank, suit in QUICK_99:
        page.locator(f"#play-form button[name=card][value='{rank}{suit}']").click()  # one tap a card
        page.wait_for_load_state()
    expect(page.locator(".winners")).to_contain_text("Bob")


def api_game(base: str, game_id: str) -> dict:
    return requests.get(f"{base}/api/v1/games/{game_id}", timeout=5).json()


@pytest.mark.browser
def test_group_page_lists_games_stats_and_wins_chart(phone, live_server):
    page = phone.page
    group_id = phone_group(page, "Friday cards")
    n99 = phone_start(page, group_id, "Ninety-nine", "Ann\nBob", Tokens="1")
    phone_play_99(page)
    fc = phone_start(page, group_id, "Five Crowns", "Ann\nBob")
    page.goto("/")
    expect(page.locator("#my-groups")).to_contain_text("Friday cards")
    expect(page.locator("#my-games")).to_contain_text("Bob won")
    page.locator("#my-groups").get_by_role("link", name="Friday cards").click()
    games = page.locator("#group-games li")
    expect(games).to_have_count(2)
    expect(games.first).to_contain_text("Five Crowns")  # newest first
    expect(page.locator(f"#group-games a[href='/g/{n99}']")).to_contain_text("Bob won")
    stats = page.locator("section.stats", has=page.get_by_role("heading", name="Ninety-nine"))
    won = stats.locator("tr", has=page.get_by_role("rowheader", name="Won", exact=True))
    expect(won.locator("td")).to_have_text(["0", "1"])  # Ann, Bob
    expect(stats).to_contain_text("Head to head")
    # issue 33: the head-to-head table fits a 390 px phone, with no scrolling of its own
    h2h = stats.locator("table.h2h")
    expect(h2h.locator("tbody tr").first).to_contain_text("0 / 1 / 0")  # Ann behind Bob once
    assert h2h.evaluate("t => t.scrollWidth <= t.parentElement.clientWidth && t.parentElement.clientWidth <= 390")
    expect(page.locator("#wins svg.chart path.line")).to_have_count(2)
    expect(page.locator("#wins title#wins-title")).to_contain_text("Bob 1")
    expect(page.locator("#group-export")).to_have_attribute("href", f"/api/v1/groups/{group_id}/export.csv")
    page.get_by_label("Status").select_option("finished")
    page.get_by_role("button", name="Show").click()
    expect(page.locator("#group-games li")).to_have_count(1)
    expect(page.locator(f"#group-games a[href='/g/{fc}']")).to_have_count(0)
    # rename a player: the group's pages follow, the game keeps its names
    page.goto(f"/groups/{group_id}")
    form = page.locator("#player-name-form")
    form.get_by_label("Player to rename").select_option("Ann")
    form.get_by_label("New name", exact=True).fill("Anna")
    form.get_by_role("button", name="Rename the player").click()
    expect(page.locator("main")).to_contain_text("Anna, Bob")
    assert api_game(live_server, n99)["players"] == ["Ann", "Bob"]
    page.goto(f"/g/{n99}")
    expect(page.locator("#group-link")).to_have_attribute("href", f"/groups/{group_id}")
    expect(page.locator("#records a", has_text="CSV")).to_have_attribute("href", f"/api/v1/games/{n99}/export.csv")
    page.goto(f"/groups/{group_id}")
    expect(page.locator("#group-phones li")).to_have_count(1)  # this phone's own key to the group
    expect(page.locator("#group-phones li .badge")).to_have_text("this phone")
    phone.screenshot("group")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


@pytest.mark.browser
def test_rematch_once_for_two_phones(phones, live_server):
    from web_helpers import open_link

    first, second = phones(), phones()
    page = first.page
    group_id = phone_group(page, "Tuesdays")
    old = phone_start(page, group_id, "Ninety-nine", "Ann\nBob", Tokens="1")
    phone_play_99(page)
    # the second phone joins the table through the first one's table link
    page.goto(f"/g/{old}/share")
    page.get_by_text("Show the table link").click()
    open_link(second, page.locator("#table-link").get_attribute("href"), old)
    expect(second.page.locator("#rematch-form button")).to_have_text("Rematch")
    # one press: the next game, same players, the deal one seat on, in the group
    page.goto(f"/g/{old}")
    page.locator("#rematch-form").get_by_role("button", name="Rematch").click()
    page.wait_for_url(re.compile(r"/g/[\w-]+$"))
    new = re.search(r"/g/([\w-]+)$", page.url).group(1)
    assert new != old
    body = api_game(live_server, new)
    assert body["players"] == ["Ann", "Bob"] and body["group"] == group_id and body["rematch_of"] == old
    assert body["options"]["first_player"] == "Bob" and body["to_play"] == "Bob"
    expect(page.locator(".facts .turn")).to_have_text("Bob")
    expect(page.locator("#play-form")).to_be_visible()
    # the second phone presses on its (older) page: the same new game, where it keeps score too
    second.page.locator("#rematch-form button").click()
    second.page.wait_for_url(f"{live_server}/g/{new}")
    expect(second.page.locator("#play-form")).to_be_visible()
    assert api_game(live_server, old)["rematch"] == new
    listed = requests.get(f"{live_server}/api/v1/groups/{group_id}/games", timeout=5).json()["games"]
    assert sorted(g["id"] for g in listed) == sorted([old, new])
    # the finished game now leads to the next one
    page.goto(f"/g/{old}")
    expect(page.locator("#rematch-form button")).to_have_text("Go to the next game")
    expect(page.locator("#records")).to_be_visible()


@pytest.mark.browser
def test_correct_a_five_crowns_round_and_adjust_a_score(phone, live_server):
    page = phone.page
    group_id = phone_group(page, "Crowns club")
    game_id = phone_start(page, group_id, "Five Crowns", "Ann\nBob\nCy")
    page.get_by_text("Only keeping score? Enter the round result").click()
    form = page.locator("#round-result-form")
    form.get_by_label("Who went out").select_option("Ann")
    form.locator("input[name='points-1']").fill("10")
    form.locator("input[name='points-2']").fill("7")
    form.get_by_role("button", name="Score the round").click()
    standings = page.locator("#scores table.standings")
    expect(standings.locator("tr", has_text="Bob").locator("td")).to_have_text("10")
    # correct it: the form comes filled with the round as entered (from the round's breakdown, closed)
    page.locator("details.breakdown summary").first.click()
    page.get_by_role("link", name=re.compile("Correct this round")).click()
    correct = page.locator("#correct-form")
    expect(correct.locator("input[name='points-1']")).to_have_value("10")
    expect(correct.locator("input[name='points-2']")).to_have_value("7")
    correct.get_by_label("Why: what was entered wrong").fill("Bob held a King")
    correct.locator("input[name='points-1']").fill("-3")  # refused by the engine, with its ruling
    correct.get_by_role("button", name="Correct the round").click()
    expect(page.locator("#refused")).to_contain_text("Ruling T-1")
    expect(page.locator("#correct-form input[name='reason']")).to_have_value("Bob held a King")
    assert [e for e in phone.errors if "422" not in e] == []
    phone.errors.clear()  # Chromium logs the refusal's expected 422 itself as a console error
    page.locator("#correct-form input[name='points-1']").fill("23")
    page.locator("#correct-form").get_by_role("button", name="Correct the round").click()
    expect(standings.locator("tr", has_text="Bob").locator("td")).to_have_text("23")
    row = page.locator("table.sheet tbody tr").first
    expect(row).to_contain_text("corrected")
    expect(row.locator("del")).to_contain_text("10")
    expect(page.locator("details.breakdown").first).to_contain_text("Bob held a King")
    # adjust a score (T-2)
    page.get_by_text("Adjust a score").click()
    adjust = page.locator("#adjust-form")
    adjust.get_by_label("Whose score").select_option("Cy")
    adjust.get_by_label(re.compile("^Points")).fill("-2")
    adjust.get_by_label("Reason").fill("forgotten bonus")
    adjust.get_by_role("button", name="Adjust the score").click()
    expect(standings.locator("tr", has_text="Cy").locator("td")).to_have_text("5")
    phone.screenshot("five-crowns-corrected")
    # the log keeps the round as entered and its correction
    page.get_by_role("link", name="Log").click()
    log = page.locator("ol.log")
    expect(log).to_contain_text("Round result: Ann went out")
    expect(log).to_contain_text("Round 1 corrected: Bob held a King")
    expect(log).to_contain_text("Cy -2 by the table's decision: forgotten bonus")
    assert api_game(live_server, game_id)["standings"] == {"Ann": 0, "Bob": 23, "Cy": 5}


@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_memory_pages_pass_axe(phone, live_server, scheme):
    """axe-core, as tests/web/test_web_accessibility.py runs it, on this issue's pages: the home page with
    a group and games, the group's page with stats and chart, a finished game with its next game and
    adjustment, a round's correction."""
    from test_web_accessibility import blocking_violations, overflowing_controls, report

    page = phone.page
    page.emulate_media(color_scheme=scheme)
    group_id = phone_group(page, "Friday cards")
    n99 = phone_start(page, group_id, "Ninety-nine", "Ann\nBob", Tokens="1")
    phone_play_99(page)
    fc = phone_start(page, group_id, "Five Crowns", "Ann\nBob")
    page.get_by_text("Only keeping score? Enter the round result").click()
    page.locator("#round-result-form").get_by_label("Who went out").select_option("Ann")
    page.locator("#round-result-form input[name='points-1']").fill("10")
    page.locator("#round-result-form").get_by_role("button", name="Score the round").click()
    page.locator("#scores").wait_for()
    for path in ["/", f"/groups/{group_id}", f"/g/{n99}", f"/g/{fc}", f"/g/{fc}/correct/1"]:
        phone.goto(path)
        found = blocking_violations(page)
        assert not found, f"{path} ({scheme}):\n{report(found)}"
        spilled = overflowing_controls(page)
        assert not spilled, f"{path} ({scheme}): text spills out of\n" + "\n".join(spilled)
    # the group's page on a phone without its key: the form that opens it with the group's token
    page.context.clear_cookies()
    phone.goto(f"/groups/{group_id}")
    page.locator("#group-key summary").click()
    expect(page.get_by_label("The group's token")).to_be_visible()
    found = blocking_violations(page)
    assert not found, f"/groups/{group_id} without its key ({scheme}):\n{report(found)}"
    assert not overflowing_controls(page)
