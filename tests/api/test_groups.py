"""Groups through the API: create, read, rename; games created in a group and written with its token
(and never with another group's, nor a group's work done with a game's token); player renames applied
to the group's history; the group's games filtered and paged by cursor; migration 0005 up and down.
Rematches are in test_rematch.py."""
from __future__ import annotations

import json
import os
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy import text

from referee import groups, store
from referee.models import Game, db

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL")
FINISH = ["KS", "KH", "KD", "3S"]  # with one token each, the fourth card reaches 33: the others are out (N99-5, N99-6)


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def make_group(client, name="Friday cards") -> dict:
    response = client.post("/api/v1/groups", json={"name": name})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def game_in(client, group, players, game="ninety-nine", options=None, token=None, expect=201) -> dict:
    body = {"game": game, "players": players, "group": group["id"], "options": options or {}}
    response = client.post("/api/v1/games", json=body, headers=bearer(token or group["token"]))
    assert response.status_code == expect, response.get_json()
    return response.get_json()


def play_out(client, game, token=None) -> dict:
    """A Ninety-nine game with one token each (``"tokens": 1``) played to its end."""
    for card in FINISH:
        state = client.get(f"/api/v1/games/{game['id']}").get_json()
        response = client.post(f"/api/v1/games/{game['id']}/moves", headers=bearer(token or game["token"]),
                               json={"type": "play", "player": state["to_play"], "card": card})
        assert response.status_code == 201, response.get_json()
    final = response.get_json()
    assert final["status"] == "finished"
    return final


def group_state(client, group) -> dict:
    response = client.get(f"/api/v1/groups/{group['id']}")
    assert response.status_code == 200
    return response.get_json()


def listing(client, group, **query) -> dict:
    response = client.get(f"/api/v1/groups/{group['id']}/games", query_string=query)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def refused(response, status, kind=None) -> dict:
    assert response.status_code == status, (response.status_code, response.get_json())
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["status"] == status and body["detail"]
    if kind:
        assert body["type"].endswith("/" + kind), body
    return body


def count_games(app) -> int:
    with app.app_context():
        return db.session.scalar(text("SELECT COUNT(*) FROM games"))


# ---------------------------------------------------------------- create, read, rename

def test_a_group_is_created_with_its_token_shown_once_and_read_with_its_id(client):
    response = client.post("/api/v1/groups", json={"name": "  Friday cards "})
    assert response.status_code == 201 and response.headers["Cache-Control"] == "no-store"
    group = response.get_json()
    assert response.headers["Location"].endswith(f"/api/v1/groups/{group['id']}")
    assert group["name"] == "Friday cards" and len(group["token"]) >= 32 and len(group["id"]) >= 16
    assert group["games"] == 0 and group["players"] == [] and group["renames"] == []
    read = group_state(client, group)
    assert read == {k: v for k, v in group.items() if k != "token"}
    text_of_read = json.dumps(read)
    assert group["token"] not in text_of_read and "hash" not in text_of_read
    assert make_group(client)["id"] != group["id"]


@pytest.mark.parametrize("body, status", [
    ({"name": ""}, 422), ({"name": "   "}, 422), ({"name": "a\u0000b"}, 422), ({"name": "a\u202eb"}, 422),
    ({"name": "x" * 81}, 422), ({}, 422), ({"name": 7}, 422), ({"name": "ok", "extra": 1}, 422), (["ok"], 422),
])
def test_a_group_needs_a_plain_name(app, client, body, status):
    refused(client.post("/api/v1/groups", json=body), status)
    with app.app_context():
        assert db.session.scalar(text("SELECT COUNT(*) FROM groups")) == 0


def test_odd_requests_on_groups_are_problems_never_500(client):
    group = make_group(client)
    refused(client.post("/api/v1/groups", data="name=x", content_type="text/plain"), 415)
    refused(client.post("/api/v1/groups", data="{", content_type="application/json"), 400)
    for odd in ["nope", "a" * 33, "%00", "a.b"]:
        refused(client.get(f"/api/v1/groups/{odd}"), 404)
        refused(client.get(f"/api/v1/groups/{odd}/games"), 404)
        refused(client.patch(f"/api/v1/groups/{odd}", json={"name": "x"}, headers=bearer(group["token"])), 404)
    refused(client.delete(f"/api/v1/groups/{group['id']}"), 405)


def test_the_group_is_renamed_with_its_token_only(app, client):
    group = make_group(client)
    other = make_group(client, "Sunday")
    game = game_in(client, group, ["Ann", "Bob"])
    path = f"/api/v1/groups/{group['id']}"
    refused(client.patch(path, json={"name": "Poker night"}), 401)
    refused(client.patch(path, json={"name": "Poker night"}, headers=bearer("nonsense")), 403)
    refused(client.patch(path, json={"name": "Poker night"}, headers=bearer(other["token"])), 403)
    refused(client.patch(path, json={"name": "Poker night"}, headers=bearer(game["token"])), 403)  # a game's token
    refused(client.patch(path, json={"name": ""}, headers=bearer(group["token"])), 422)
    assert group_state(client, group)["name"] == "Friday cards"
    renamed = client.patch(path, json={"name": "Poker night"}, headers=bearer(group["token"]))
    assert renamed.status_code == 200 and renamed.get_json()["name"] == "Poker night"
    after = group_state(client, group)
    assert after["name"] == "Poker night" and after["updated_at"] > group["updated_at"]
    assert group_state(client, other)["name"] == "Sunday"


# ---------------------------------------------------------------- games of a group and tokens

def test_a_game_is_created_in_a_group_with_the_groups_token_only(app, client, api):
    group = make_group(client)
    other = make_group(client, "Sunday")
    loose = api.create("ninety-nine", ["Ann", "Bob"])
    before = count_games(app)
    body = {"game": "ninety-nine", "players": ["Ann", "Bob"], "group": group["id"]}
    refused(client.post("/api/v1/games", json=body), 401)
    refused(client.post("/api/v1/games", json=body, headers=bearer(other["token"])), 403)
    refused(client.post("/api/v1/games", json=body, headers=bearer(loose["token"])), 403)
    refused(client.post("/api/v1/games", json=dict(body, group="no-such-group"), headers=bearer(group["token"])), 404)
    refused(client.post("/api/v1/games", json=dict(body, group=17), headers=bearer(group["token"])), 422)
    refused(client.post("/api/v1/games", json=dict(body, players=["Ann"]), headers=bearer(group["token"])), 422)
    assert count_games(app) == before and group_state(client, group)["games"] == 0

    game = game_in(client, group, ["Ann", "Bob"])
    assert game["group"] == group["id"] and game["token"] and game["token"] != group["token"]
    assert client.get(f"/api/v1/games/{game['id']}").get_json()["group"] == group["id"]
    assert loose["group"] is None
    assert group_state(client, group)["games"] == 1 and group_state(client, group)["players"] == ["Ann", "Bob"]
    # a name reading like a player's of the group is refused there, as within one game
    refused(client.post("/api/v1/games", json=dict(body, players=["\u0410nn", "Cid"]), headers=bearer(group["token"])),
            422)


def test_the_groups_token_writes_its_games_and_no_other(app, client):
    group = make_group(client)
    other = make_group(client, "Sunday")
    game = game_in(client, group, ["Ann", "Bob"])
    foreign = game_in(client, other, ["Ann", "Bob"])
    moves = f"/api/v1/games/{game['id']}/moves"
    play = {"type": "play", "player": "Ann", "card": "5H"}
    # another group's token, and a game's token of another game of the same group, open nothing here
    sibling = game_in(client, group, ["Cid", "Dee"])
    for token in (other["token"], foreign["token"], sibling["token"]):
        refused(client.post(moves, json=play, headers=bearer(token)), 403)
        refused(client.post(f"/api/v1/games/{game['id']}/undo", headers=bearer(token)), 403)
        refused(client.post(f"/api/v1/games/{game['id']}/links", headers=bearer(token)), 403)
        refused(client.post(f"/api/v1/games/{game['id']}/token", headers=bearer(token)), 403)
    refused(client.post(f"/api/v1/games/{foreign['id']}/moves", json=play, headers=bearer(group["token"])), 403)
    assert client.get(f"/api/v1/games/{game['id']}").get_json()["version"] == 0

    # the group's token: moves, undo, links and the game's token rotation
    assert client.post(moves, json=play, headers=bearer(group["token"])).status_code == 201
    assert client.post(f"/api/v1/games/{game['id']}/undo", headers=bearer(group["token"])).status_code == 200
    assert client.post(moves, json=play, headers=bearer(group["token"])).status_code == 201
    assert client.post(f"/api/v1/games/{game['id']}/links", headers=bearer(group["token"])).status_code == 201
    assert client.get(f"/api/v1/games/{game['id']}/links", headers=bearer(group["token"])).status_code == 200
    rotated = client.post(f"/api/v1/games/{game['id']}/token", headers=bearer(group["token"]))
    assert rotated.status_code == 200
    refused(client.post(moves, json={"type": "play", "player": "Bob", "card": "6H"}, headers=bearer(game["token"])), 403)
    assert client.post(moves, json={"type": "play", "player": "Bob", "card": "6H"},
                       headers=bearer(rotated.get_json()["token"])).status_code == 201
    # and the game's own token keeps writing it, as a game without a group
    loose = client.post("/api/v1/games", json={"game": "ninety-nine", "players": ["Ann", "Bob"]}).get_json()
    assert client.post(f"/api/v1/games/{loose['id']}/moves", json=play, headers=bearer(loose["token"])).status_code == 201
    refused(client.post(f"/api/v1/games/{loose['id']}/moves", json=play, headers=bearer(group["token"])), 403)


def test_a_games_token_never_acts_for_its_group(app, client):
    group = make_group(client)
    game = game_in(client, group, ["Ann", "Bob"])
    token = bearer(game["token"])
    refused(client.patch(f"/api/v1/groups/{group['id']}", json={"name": "Mine"}, headers=token), 403)
    refused(client.post(f"/api/v1/groups/{group['id']}/renames", json={"from": "Ann", "to": "Anna"}, headers=token),
            403)
    game_in(client, group, ["Ann", "Bob"], token=game["token"], expect=403)
    state = group_state(client, group)
    assert state["name"] == "Friday cards" and state["renames"] == [] and state["games"] == 1
    refused(client.post(f"/api/v1/groups/{group['id']}/token", headers=token), 403)


def test_the_groups_token_is_rotated_and_the_old_one_opens_nothing(app, client):
    group = make_group(client)
    other = make_group(client, "Sunday")
    game = game_in(client, group, ["Ann", "Bob"])
    refused(client.post(f"/api/v1/groups/{group['id']}/token", headers=bearer(other["token"])), 403)
    refused(client.post(f"/api/v1/groups/{group['id']}/token"), 401)
    rotated = client.post(f"/api/v1/groups/{group['id']}/token", headers=bearer(group["token"]))
    assert rotated.status_code == 200 and rotated.headers["Cache-Control"] == "no-store"
    fresh = rotated.get_json()["token"]
    assert rotated.get_json()["id"] == group["id"] and fresh != group["token"]
    play = {"type": "play", "player": "Ann", "card": "5H"}
    # the old token: not the group, not its games, not a new game in it
    refused(client.patch(f"/api/v1/groups/{group['id']}", json={"name": "Mine"}, headers=bearer(group["token"])), 403)
    refused(client.post(f"/api/v1/games/{game['id']}/moves", json=play, headers=bearer(group["token"])), 403)
    game_in(client, group, ["Ann", "Bob"], token=group["token"], expect=403)
    # the new one: all of them; the game's own token is untouched
    assert client.patch(f"/api/v1/groups/{group['id']}", json={"name": "Mine"}, headers=bearer(fresh)).status_code == 200
    assert client.post(f"/api/v1/games/{game['id']}/moves", json=play, headers=bearer(fresh)).status_code == 201
    assert client.post(f"/api/v1/games/{game['id']}/moves", json={"type": "play", "player": "Bob", "card": "6H"},
                       headers=bearer(game["token"])).status_code == 201
    game_in(client, group, ["Cid", "Dee"], token=fresh)


# ---------------------------------------------------------------- renames

def test_a_rename_applies_to_the_groups_history_and_chains_resolve(app, client):
    group = make_group(client)
    first = game_in(client, group, ["Ann", "Bob", "Cid"], options={"tokens": 1})
    final = play_out(client, first)
    assert final["winners"] == ["Ann"]
    second = game_in(client, group, ["Bob", "Dee"])
    def rename(old, new):
        return client.post(f"/api/v1/groups/{group['id']}/renames", json={"from": old, "to": new},
                           headers=bearer(group["token"]))

    response = rename("Ann", "Anna")
    assert response.status_code == 201
    assert response.get_json()["players"] == ["Anna", "Bob", "Cid", "Dee"]
    assert response.get_json()["renames"][0]["from"] == "Ann" and response.get_json()["renames"][0]["to"] == "Anna"
    games = {g["id"]: g for g in listing(client, group)["games"]}
    assert games[first["id"]]["players"] == ["Anna", "Bob", "Cid"] and games[first["id"]]["winners"] == ["Anna"]
    assert games[first["id"]]["standings"] == {"Anna": 1, "Bob": 0, "Cid": 0}
    # the game itself keeps the names its moves use
    assert client.get(f"/api/v1/games/{first['id']}").get_json()["players"] == ["Ann", "Bob", "Cid"]

    # a chain: Bob -> Rob -> Robert, and the filter finds him under any of his names
    assert rename("Bob", "Rob").status_code == 201
    assert rename("Rob", "Robert").status_code == 201
    for name in ("Robert", "Rob", "Bob"):
        assert {g["id"] for g in listing(client, group, player=name)["games"]} == {first["id"], second["id"]}
    assert [g["players"] for g in listing(client, group)["games"]] == [["Robert", "Dee"], ["Anna", "Robert", "Cid"]]
    assert listing(client, group, player="Anna")["games"][0]["id"] == first["id"]
    assert listing(client, group, player="Nobody")["games"] == []
    # renamed back: the first name is his again
    assert rename("Robert", "Bob").status_code == 201
    assert group_state(client, group)["players"] == ["Anna", "Bob", "Cid", "Dee"]
    with app.app_context():
        resolve = groups.resolver(group["id"])
        assert [resolve(n) for n in ("Ann", "Bob", "Rob", "Robert", "Cid")] == ["Anna", "Bob", "Bob", "Bob", "Cid"]
        assert groups.resolve_name(group["id"], "Rob") == "Bob"
        assert [g.id for g in groups.games_of(group["id"], player="Robert")] == [second["id"], first["id"]]
    # a new game of the group's players is listed with theirs
    third = game_in(client, group, ["Anna", "Rob"])
    newest = listing(client, group, limit=1)["games"][0]
    assert newest["id"] == third["id"] and newest["players"] == ["Anna", "Bob"]


def test_renames_that_would_confuse_the_history_are_refused_and_change_nothing(app, client):
    group = make_group(client)
    game_in(client, group, ["Ann", "Bob"])
    game_in(client, group, ["Cid", "Dee"])
    game_in(client, group, ["Bob", "Eve"])
    game_in(client, group, ["Rob", "Fay"])
    path = f"/api/v1/groups/{group['id']}/renames"
    assert client.post(path, json={"from": "Rob", "to": "Robert"}, headers=bearer(group["token"])).status_code == 201
    before = group_state(client, group)

    def refuse(body, status, kind=None):
        return refused(client.post(path, json=body, headers=bearer(group["token"])), status, kind)

    taken = refuse({"from": "Cid", "to": "Ann"}, 409, "name-taken")  # another player: only as a merge
    assert taken["player"] == "Ann" and "merge" in taken["detail"]
    refuse({"from": "Ann", "to": "Bob", "merge": True}, 409, "merge-refused")  # they sat at one game
    refuse({"from": "Cid", "to": "Rob"}, 409, "name-taken")  # Robert's earlier name
    refuse({"from": "Cid", "to": "\u0410nn"}, 422)  # reads like Ann (Cyrillic A)
    refuse({"from": "Cid", "to": "ann"}, 422)  # so does a case variant
    refuse({"from": "Zed", "to": "Zoe"}, 422)  # no such player
    refuse({"from": "Rob", "to": "Bobby"}, 422)  # Rob is called Robert now
    refuse({"from": "Cid", "to": "Cid"}, 422)
    refuse({"from": "Cid", "to": "Zoe", "merge": True}, 422)  # no one to merge into
    refuse({"from": "Cid", "to": "Ann", "merge": "yes"}, 422)
    refuse({"from": "Cid", "to": " "}, 422)
    refuse({"from": "Cid", "to": "x" * 41}, 422)
    refuse({"from": "Cid", "to": "a\u200bb"}, 422)
    refuse({"from": "Cid"}, 422)
    refuse({"from": "Cid", "to": "Zoe", "why": "typo"}, 422)
    refused(client.post(path, json={"from": "Cid", "to": "Zoe"}), 401)
    assert group_state(client, group) == before

    merged = client.post(path, json={"from": "Cid", "to": "Ann", "merge": True}, headers=bearer(group["token"]))
    assert merged.status_code == 201
    assert merged.get_json()["players"] == ["Ann", "Bob", "Dee", "Eve", "Fay", "Robert"]
    assert merged.get_json()["renames"][-1]["merge"] is True
    assert len(listing(client, group, player="Ann")["games"]) == 2


# ---------------------------------------------------------------- listing: filters and pages

def follow(client, url) -> tuple[list[str], int]:
    """Every game id from ``url`` to the last page, through the Link headers; and the pages read."""
    seen, pages = [], 0
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.get_json()
        seen += [g["id"] for g in response.get_json()["games"]]
        pages += 1
        link = response.headers.get("Link")
        url = link[1:link.index(">")] if link else None
        if link:
            assert link.endswith('; rel="next"')
        assert response.get_json()["next"] == url  # the next page in the body too, or null on the last
    return seen, pages


def test_pages_follow_the_link_header_to_the_end_without_repeats_or_misses(client):
    group = make_group(client)
    made = [game_in(client, group, ["Ann", "Bob"])["id"] for _ in range(7)]
    ids, pages = follow(client, f"/api/v1/groups/{group['id']}/games?limit=3")
    assert ids == made[::-1] and pages == 3  # newest first

    # games created between pages never repeat or hide one
    first = client.get(f"/api/v1/groups/{group['id']}/games?limit=3")
    seen = [g["id"] for g in first.get_json()["games"]]
    link = first.headers["Link"]
    url = link[1:link.index(">")]
    newer = [game_in(client, group, ["Ann", "Bob"])["id"] for _ in range(4)]
    while url:
        response = client.get(url)
        seen += [g["id"] for g in response.get_json()["games"]]
        game_in(client, group, ["Ann", "Bob"])
        link = response.headers.get("Link")
        url = link[1:link.index(">")] if link else None
    assert seen == made[::-1] and len(set(seen)) == len(seen)
    assert set(newer) <= set(follow(client, f"/api/v1/groups/{group['id']}/games")[0])


def test_filters_combine_and_the_next_page_keeps_them(app, client):
    group = make_group(client)
    other = make_group(client, "Sunday")
    xix = [game_in(client, group, ["Ann", "Bob"], game="xix")["id"] for _ in range(3)]
    done = game_in(client, group, ["Ann", "Cid", "Dee"], options={"tokens": 1})
    play_out(client, done)
    nines = game_in(client, group, ["Cid", "Dee"], game="nines")["id"]
    game_in(client, other, ["Ann", "Bob"], game="xix")  # another group's: never listed here

    assert [g["id"] for g in listing(client, group, game="xix")["games"]] == xix[::-1]
    assert [g["id"] for g in listing(client, group, status="finished")["games"]] == [done["id"]]
    assert {g["id"] for g in listing(client, group, status="in_progress")["games"]} == set(xix) | {nines}
    assert [g["id"] for g in listing(client, group, player="Cid", game="nines")["games"]] == [nines]
    assert [g["id"] for g in listing(client, group, player="Ann", status="finished")["games"]] == [done["id"]]
    summary = listing(client, group, status="finished")["games"][0]
    assert summary["game"] == "ninety-nine" and summary["winners"] == ["Ann"] and summary["version"] == 4
    assert set(summary) == {"id", "game", "players", "status", "winners", "standings", "version", "created_at",
                            "updated_at", "rematch", "rematch_of"}

    ids, pages = follow(client, f"/api/v1/groups/{group['id']}/games?game=xix&player=Bob&limit=1")
    assert ids == xix[::-1] and pages == 3
    response = client.get(f"/api/v1/groups/{group['id']}/games?game=xix&player=Bob&limit=1")
    query = parse_qs(urlsplit(response.headers["Link"][1:].split(">")[0]).query)
    assert query["game"] == ["xix"] and query["player"] == ["Bob"] and query["limit"] == ["1"]


def test_updated_since_lists_the_games_changed_since(client):
    group = make_group(client)
    quiet = game_in(client, group, ["Ann", "Bob"])
    busy = game_in(client, group, ["Ann", "Bob"])
    mark = listing(client, group)["games"][0]["updated_at"]  # the newest game's creation
    assert {g["id"] for g in listing(client, group, updated_since=mark)["games"]} == {busy["id"]}
    response = client.post(f"/api/v1/games/{quiet['id']}/moves", headers=bearer(group["token"]),
                           json={"type": "play", "player": "Ann", "card": "5H"})
    changed = response.get_json()
    assert response.status_code == 201 and changed["version"] == 1
    since = next(g for g in listing(client, group)["games"] if g["id"] == quiet["id"])["updated_at"]
    assert [g["id"] for g in listing(client, group, updated_since=since)["games"]] == [quiet["id"]]
    # an offset is read as such; without one the time is UTC
    assert listing(client, group, updated_since="2000-01-01T02:00:00+02:00")["games"] != []
    assert listing(client, group, updated_since="2999-01-01T00:00:00")["games"] == []


@pytest.mark.parametrize("query", [
    "game=bridge", "status=over", "limit=0", "limit=201", "limit=x", "player=", "updated_since=yesterday",
    "after=%%%", "after=bm9wZQ", "after=" + "A" * 201, "after=MjAyNi0wMS0wMVQwMDowMDowMHxhYmM",
])
def test_bad_listing_queries_are_refused(client, query):
    group = make_group(client)
    body = refused(client.get(f"/api/v1/groups/{group['id']}/games?{query}"), 422)
    assert "after" in body["detail"] or query.split("=")[0] in json.dumps(body)


# ---------------------------------------------------------------- the migration

def _migrate_down_and_up(url: str) -> None:
    from flask_migrate import downgrade, upgrade
    from sqlalchemy import inspect

    from referee import MIGRATIONS, create_app

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "AUTO_MIGRATE": False, "TESTING": True, "SECRET_KEY": "x",
                      "RATELIMIT_ENABLED": False})
    with app.app_context():
        upgrade(directory=MIGRATIONS, revision="0004_credentials")
        # a game with a move and a phone, as a service at 0004 holds them
        db.session.execute(text(
            "INSERT INTO games (id, game, players, options, token_hash, state, version, revision, status, created_at,"
            " updated_at) VALUES ('g1', 'xix', '[]', '{}', 'h', '{}', 1, 1, 'in_progress', '2026-01-01',"
            " '2026-01-01')"))
        db.session.execute(text("INSERT INTO moves (game_id, seq, version, payload, voided, created_at) "
                                "VALUES ('g1', 1, 1, '{}', false, '2026-01-01')"))
        db.session.execute(text("INSERT INTO credentials (id, game_id, kind, secret_hash, created_at) "
                                "VALUES ('c1', 'g1', 'phone', 'h', '2026-01-01')"))
        db.session.commit()
        upgrade(directory=MIGRATIONS, revision="0005_groups")
        inspector = inspect(db.engine)
        assert {"groups", "group_renames"} <= set(inspector.get_table_names())
        assert {"group_id", "rematch_id", "rematch_of_id"} <= {c["name"] for c in inspector.get_columns("games")}
        assert {"ix_games_group_created", "uq_games_rematch", "uq_games_rematch_of"} <= {
            i["name"] for i in inspector.get_indexes("games")}
        assert {fk["referred_table"] for fk in inspector.get_foreign_keys("games")} == {"groups", "games"}
        assert db.session.execute(text("SELECT group_id, rematch_id FROM games")).all() == [(None, None)]
        db.session.execute(text("INSERT INTO groups (id, name, token_hash, created_at, updated_at) "
                                "VALUES ('grp', 'G', 'h', '2026-01-01', '2026-01-01')"))
        db.session.execute(text("UPDATE games SET group_id = 'grp'"))
        db.session.commit()

        downgrade(directory=MIGRATIONS, revision="0004_credentials")
        inspector = inspect(db.engine)
        assert not {"groups", "group_renames"} & set(inspector.get_table_names())
        assert not {"group_id", "rematch_id", "rematch_of_id"} & {c["name"] for c in inspector.get_columns("games")}
        # the games, their moves and phones are all there, and still point at one another
        assert [db.session.scalar(text(f"SELECT COUNT(*) FROM {t}")) for t in ("games", "moves", "credentials")] == [1, 1, 1]
        assert {fk["referred_table"] for fk in inspector.get_foreign_keys("moves")} == {"games"}
        if db.engine.dialect.name == "sqlite":
            assert db.session.execute(text("PRAGMA foreign_key_check")).all() == []
            assert db.session.execute(text("PRAGMA foreign_keys")).scalar() == 1
        db.session.rollback()  # ends the reads' transaction: PostgreSQL's ALTER would wait for it

        upgrade(directory=MIGRATIONS)
        assert "groups" in inspect(db.engine).get_table_names()
        db.session.remove()
        db.engine.dispose()


def test_the_migration_goes_up_and_down_on_sqlite(tmp_path):
    _migrate_down_and_up(f"sqlite:///{tmp_path / 'groups.sqlite3'}")


@pytest.mark.skipif(not TEST_DATABASE_URL or not TEST_DATABASE_URL.startswith("postgresql"),
                    reason="needs the PostgreSQL server (TEST_DATABASE_URL)")
def test_the_migration_goes_up_and_down_on_postgresql(fresh_postgresql):
    _migrate_down_and_up(fresh_postgresql("referee_groups"))


def _group_keys_down_and_up(url: str) -> None:
    """0007 (a phone's key to a group: credentials.group_id, game_id nullable, exactly one set) on a
    database at 0006 holding a game with a phone and the link it shared, and a group: up, a group's
    phone key added, down (the group's keys go, the game's stay and still point at one another), up."""
    from flask_migrate import downgrade, upgrade
    from sqlalchemy import inspect
    from sqlalchemy.exc import IntegrityError

    from referee import MIGRATIONS, create_app

    app = create_app({"SQLALCHEMY_DATABASE_URI": url, "AUTO_MIGRATE": False, "TESTING": True, "SECRET_KEY": "x",
                      "RATELIMIT_ENABLED": False})
    with app.app_context():
        upgrade(directory=MIGRATIONS, revision="0006_moves_one_game_index")
        db.session.execute(text(
            "INSERT INTO games (id, game, players, options, token_hash, state, version, revision, status, created_at,"
            " updated_at) VALUES ('g1', 'xix', '[]', '{}', 'h', '{}', 0, 0, 'in_progress', '2026-01-01',"
            " '2026-01-01')"))
        db.session.execute(text("INSERT INTO credentials (id, game_id, kind, secret_hash, created_at) "
                                "VALUES ('c1', 'g1', 'phone', 'h', '2026-01-01')"))
        db.session.execute(text("INSERT INTO credentials (id, game_id, kind, secret_hash, parent_id, created_at) "
                                "VALUES ('c2', 'g1', 'link', 'h', 'c1', '2026-01-01')"))
        db.session.execute(text("INSERT INTO groups (id, name, token_hash, created_at, updated_at) "
                                "VALUES ('grp', 'G', 'h', '2026-01-01', '2026-01-01')"))
        db.session.commit()
        upgrade(directory=MIGRATIONS, revision="0007_group_phone_keys")
        inspector = inspect(db.engine)
        columns = {c["name"]: c for c in inspector.get_columns("credentials")}
        assert columns["game_id"]["nullable"] and columns["group_id"]["nullable"]
        assert "ix_credentials_group_id" in {i["name"] for i in inspector.get_indexes("credentials")}
        assert {fk["referred_table"] for fk in inspector.get_foreign_keys("credentials")} == {
            "games", "groups", "credentials"}
        assert db.session.execute(text("SELECT id, game_id, group_id, parent_id FROM credentials ORDER BY id")).all() \
            == [("c1", "g1", None, None), ("c2", "g1", None, "c1")]
        db.session.execute(text("INSERT INTO credentials (id, group_id, kind, secret_hash, created_at) "
                                "VALUES ('k1', 'grp', 'phone', 'h', '2026-01-01')"))
        db.session.commit()
        for owners in ["NULL, NULL", "'g1', 'grp'"]:  # neither, or both: refused
            with pytest.raises(IntegrityError):
                db.session.execute(text("INSERT INTO credentials (id, game_id, group_id, kind, secret_hash, "
                                        f"created_at) VALUES ('bad', {owners}, 'phone', 'h', '2026-01-01')"))
                db.session.commit()
            db.session.rollback()

        downgrade(directory=MIGRATIONS, revision="0006_moves_one_game_index")
        inspector = inspect(db.engine)
        columns = {c["name"]: c for c in inspector.get_columns("credentials")}
        assert "group_id" not in columns and not columns["game_id"]["nullable"]
        assert db.session.execute(text("SELECT id, game_id, parent_id FROM credentials ORDER BY id")).all() \
            == [("c1", "g1", None), ("c2", "g1", "c1")]
        assert {fk["referred_table"] for fk in inspector.get_foreign_keys("credentials")} == {"games", "credentials"}
        if db.engine.dialect.name == "sqlite":
            assert db.session.execute(text("PRAGMA foreign_key_check")).all() == []
            assert db.session.execute(text("PRAGMA foreign_keys")).scalar() == 1
        db.session.rollback()  # ends the reads' transaction: PostgreSQL's ALTER would wait for it

        upgrade(directory=MIGRATIONS)
        assert "group_id" in {c["name"] for c in inspect(db.engine).get_columns("credentials")}
        db.session.remove()
        db.engine.dispose()


def test_the_group_keys_migration_goes_up_and_down_on_sqlite(tmp_path):
    _group_keys_down_and_up(f"sqlite:///{tmp_path / 'keys.sqlite3'}")


@pytest.mark.skipif(not TEST_DATABASE_URL or not TEST_DATABASE_URL.startswith("postgresql"),
                    reason="needs the PostgreSQL server (TEST_DATABASE_URL)")
def test_the_group_keys_migration_goes_up_and_down_on_postgresql(fresh_postgresql):
    _group_keys_down_and_up(fresh_postgresql("referee_keys"))


# ---------------------------------------------------------------- a phone's key to a group (issue 35)

def test_a_phones_key_to_a_group_is_never_a_bearer_and_opens_none_of_its_games(app, client):
    """The pages' key to a group (``groups.phone_from_token``) is refused by every write of the API, for the
    group and its games (403 problem+json, nothing changed); the group's token still works."""
    group = make_group(client)
    game = game_in(client, group, ["Ann", "Bob"])
    with app.app_context():
        key = groups.phone_from_token(group["id"], group["token"], "a phone")
    before = group_state(client, group)
    for method, path, body in [("patch", f"/api/v1/groups/{group['id']}", {"name": "Stolen"}),
                               ("post", f"/api/v1/groups/{group['id']}/renames", {"from": "Ann", "to": "Anna"}),
                               ("post", f"/api/v1/groups/{group['id']}/token", None),
                               ("post", f"/api/v1/games/{game['id']}/moves",
                                {"type": "play", "player": "Ann", "card": "5S"}),
                               ("post", f"/api/v1/games/{game['id']}/links", None),
                               ("post", f"/api/v1/games/{game['id']}/rematch", {"force": True})]:
        refused(getattr(client, method)(path, json=body, headers=bearer(key)), 403)
    refused(client.post("/api/v1/games", json={"game": "nines", "players": ["Ann", "Bob"], "group": group["id"]},
                        headers=bearer(key)), 403)
    assert group_state(client, group) == before and count_games(app) == 1
    assert client.get(f"/api/v1/games/{game['id']}").get_json()["version"] == 0
    with app.app_context():
        # on the pages' side it opens the group, never one of its games (each game has keys of its own)
        group_row = groups.get_group(group["id"])
        assert groups.find_phone(group_row, key).group_id == group["id"]
        with pytest.raises(store.StoreError) as wrong:
            store.check_phone(db.session.get(Game, game["id"]), key)
        assert wrong.value.status == 403
        # revoked, it opens nothing; another group's phone opens not this one
        other = make_group(client, "Tuesdays")
        other_key = groups.phone_from_token(other["id"], other["token"], "another phone")
        with pytest.raises(store.StoreError):
            groups.rename_group(group["id"], None, "X", phone=other_key)
        assert [c.id for c in groups.revoke_phone(group["id"], key, key.split(".")[0])] == [key.split(".")[0]]
        with pytest.raises(store.StoreError) as revoked:
            groups.rename_group(group["id"], None, "X", phone=key)
        assert revoked.value.kind == "revoked"
        assert groups.get_group(group["id"]).name == "Friday cards"
    renamed = client.patch(f"/api/v1/groups/{group['id']}", json={"name": "Fridays"}, headers=bearer(group["token"]))
    assert renamed.status_code == 200 and renamed.get_json()["name"] == "Fridays"


def test_games_of_and_the_renames_are_what_the_stats_read(app, client):
    group = make_group(client)
    a = game_in(client, group, ["Ann", "Bob"], game="xix")
    b = game_in(client, group, ["Ann", "Cid"])
    with app.app_context():
        assert [g.id for g in groups.games_of(group["id"])] == [b["id"], a["id"]]
        assert [g.id for g in groups.games_of(group["id"], game="xix")] == [a["id"]]
        assert all(isinstance(g, Game) for g in groups.games_of(group["id"], limit=1))
        assert groups.renames_of(group["id"]) == {} and groups.resolve_name(group["id"], "Ann") == "Ann"
        assert groups.players_of(group["id"]) == ["Ann", "Bob", "Cid"]
