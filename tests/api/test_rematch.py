"""Rematch through the API: the next game at the table with the same players and options, the first
deal one seat on (G-2) in every game, in the same group, linked both ways, made once even when two
phones press at once; and every refusal a problem+json that changes nothing."""
from __future__ import annotations

import re
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import func, select

from referee import groups, store
from referee.models import Game, db
from tests.api.test_groups import bearer, game_in, make_group, play_out, refused

PHONES = 8


def rematch(client, game, token=None, expect=201, **body):
    headers = bearer(token) if token else {}
    response = client.post(f"/api/v1/games/{game['id']}/rematch", json=body or None, headers=headers)
    assert response.status_code == expect, response.get_json()
    return response


def finished_game(client, players=("Ann", "Bob", "Cid"), group=None) -> dict:
    body = {"game": "ninety-nine", "players": list(players), "options": {"tokens": 1}}
    if group:
        game = game_in(client, group, list(players), options={"tokens": 1})
    else:
        game = client.post("/api/v1/games", json=body).get_json()
    play_out(client, game)
    return game


def count_games(app) -> int:
    with app.app_context():
        return db.session.scalar(select(func.count()).select_from(Game))


def test_the_rematch_has_the_same_players_and_options_and_the_deal_one_seat_on(client):
    game = finished_game(client)
    before = client.get(f"/api/v1/games/{game['id']}")
    response = rematch(client, game, game["token"])
    new = response.get_json()
    assert response.headers["Location"].endswith(f"/api/v1/games/{new['id']}")
    assert response.headers["Cache-Control"] == "no-store" and response.headers["ETag"] == '"0"'
    assert new["game"] == "ninety-nine" and new["players"] == ["Ann", "Bob", "Cid"] and new["version"] == 0
    assert new["options"] == dict(game["options"], first_player="Bob")  # N99-2: Ann started, now Bob
    assert new["to_play"] == "Bob" and new["status"] == "in_progress"
    assert new["token"] and new["token"] != game["token"] and new["id"] != game["id"]
    assert new["rematch_of"] == game["id"] and new["rematch"] is None and new["group"] is None

    # the finished game links to it, with a new ETag (a page that follows it hears of it)
    after = client.get(f"/api/v1/games/{game['id']}")
    assert after.get_json()["rematch"] == new["id"] and after.get_json()["status"] == "finished"
    assert after.headers["ETag"] != before.headers["ETag"]
    assert client.get(f"/api/v1/games/{game['id']}", headers={"If-None-Match": before.headers["ETag"]}).status_code == 200

    # the new game's token writes it; the old one does not
    move = {"type": "play", "player": "Bob", "card": "5H"}
    refused(client.post(f"/api/v1/games/{new['id']}/moves", json=move, headers=bearer(game["token"])), 403)
    assert client.post(f"/api/v1/games/{new['id']}/moves", json=move, headers=bearer(new["token"])).status_code == 201
    # and its own rematch moves the deal on again
    third = rematch(client, new, new["token"], force=True).get_json()
    assert third["options"]["first_player"] == "Cid" and third["rematch_of"] == new["id"]


@pytest.mark.parametrize("name, players, options, option, first, then", [
    ("ninety-nine", ["Ann", "Bob", "Cid"], {"first_player": "Cid"}, "first_player", "Cid", "Ann"),
    ("xix", ["Ann", "Bob"], {}, "first_leader", "Ann", "Bob"),
    ("nines", ["Ann", "Bob", "Cid"], {}, "dealer", "Cid", "Ann"),
    ("nines", ["Ann", "Bob", "Cid"], {"dealer": "Ann"}, "dealer", "Ann", "Bob"),
    ("five-crowns", ["Ann", "Bob", "Cid"], {}, "dealer", "Cid", "Ann"),
    ("sixty-nine", ["Ann", "Bob", "Cid"], {}, "dealer", "Cid", "Ann"),  # options hold the dealer resolved (G-2)
    ("sixty-nine", ["Ann", "Bob", "Cid"], {"dealer": "Bob"}, "dealer", "Bob", "Cid"),
])
def test_every_game_moves_the_deal_one_seat_on(client, name, players, options, option, first, then):
    game = client.post("/api/v1/games", json={"game": name, "players": players, "options": options}).get_json()
    assert game["options"].get(option) == first
    new = rematch(client, game, game["token"], force=True).get_json()
    assert new["players"] == players and new["options"][option] == then
    assert {k: v for k, v in new["options"].items() if k != option} == \
           {k: v for k, v in game["options"].items() if k != option}
    # the engine deals from there: the state shows who deals or starts
    if option == "dealer":
        assert new["dealer"] == then
    else:
        assert new["to_play"] == then


def test_a_rematch_stays_in_the_group_with_the_players_as_renamed(client):
    group = make_group(client)
    game = finished_game(client, group=group)
    assert client.post(f"/api/v1/groups/{group['id']}/renames", json={"from": "Ann", "to": "Anna"},
                       headers=bearer(group["token"])).status_code == 201
    new = rematch(client, game, group["token"]).get_json()  # the group's token may ask for it
    assert new["group"] == group["id"] and new["players"] == ["Anna", "Bob", "Cid"]
    assert new["options"]["first_player"] == "Bob"
    listed = client.get(f"/api/v1/groups/{group['id']}/games").get_json()["games"]
    assert [(g["id"], g["rematch"], g["rematch_of"]) for g in listed] == [(new["id"], None, game["id"]),
                                                                          (game["id"], new["id"], None)]
    # the new game's token and the group's both write it
    for token in (new["token"], group["token"]):
        assert client.post(f"/api/v1/games/{new['id']}/moves", headers=bearer(token),
                           json={"type": "play", "player": client.get(f"/api/v1/games/{new['id']}").get_json()[
                               "to_play"], "card": "5H" if token == new["token"] else "6H"}).status_code == 201


def test_only_one_rematch_and_not_before_the_end_unless_forced(app, client):
    game = client.post("/api/v1/games", json={"game": "ninety-nine", "players": ["Ann", "Bob"],
                                              "options": {"tokens": 1}}).get_json()
    before = count_games(app)
    body = refused(client.post(f"/api/v1/games/{game['id']}/rematch", headers=bearer(game["token"])), 409,
                   "game-in-progress")
    assert "force" in body["detail"]
    assert count_games(app) == before and client.get(f"/api/v1/games/{game['id']}").get_json()["rematch"] is None

    play_out(client, game)
    new = rematch(client, game, game["token"]).get_json()
    again = refused(client.post(f"/api/v1/games/{game['id']}/rematch", json={"force": True},
                                headers=bearer(game["token"])), 409, "rematch-exists")
    assert again["rematch"] == new["id"] and new["id"] in again["detail"]
    assert count_games(app) == before + 1


def test_refused_rematches_change_nothing(app, client):
    group = make_group(client)
    other = make_group(client, "Sunday")
    game = finished_game(client, group=group)
    foreign = game_in(client, other, ["Ann", "Bob"])
    path = f"/api/v1/games/{game['id']}/rematch"
    view = client.get(f"/api/v1/games/{game['id']}")
    before = count_games(app)
    refused(client.post(path), 401)
    for token in ("nonsense", other["token"], foreign["token"]):
        refused(client.post(path, headers=bearer(token)), 403)
    refused(client.post("/api/v1/games/no-such-game/rematch", headers=bearer(game["token"])), 404)
    refused(client.post("/api/v1/games/%00/rematch", headers=bearer(game["token"])), 404)
    for odd in ("yes", 1, None):
        refused(client.post(path, json={"force": odd}, headers=bearer(game["token"])), 422)
    refused(client.post(path, json={"players": ["Zed"]}, headers=bearer(game["token"])), 422)
    refused(client.post(path, json=[True], headers=bearer(game["token"])), 422)
    refused(client.post(path, data="force", content_type="text/plain", headers=bearer(game["token"])), 415)
    refused(client.post(path, data="{", content_type="application/json", headers=bearer(game["token"])), 400)
    refused(client.get(path), 405)
    assert count_games(app) == before
    after = client.get(f"/api/v1/games/{game['id']}")
    assert after.get_json()["rematch"] is None and after.headers["ETag"] == view.headers["ETag"]


def test_two_phones_pressing_at_once_make_one_game(app, client):
    game = finished_game(client)
    before = count_games(app)
    start = threading.Barrier(PHONES)

    def press(_):
        start.wait(timeout=30)
        response = app.test_client().post(f"/api/v1/games/{game['id']}/rematch", headers=bearer(game["token"]))
        return response.status_code, response.get_json()

    with ThreadPoolExecutor(max_workers=PHONES) as pool:
        results = list(pool.map(press, range(PHONES)))
    made = [body for status, body in results if status == 201]
    assert len(made) == 1, results
    assert sorted(status for status, _ in results) == [201] + [409] * (PHONES - 1)
    assert {body["rematch"] for status, body in results if status == 409} == {made[0]["id"]}
    assert count_games(app) == before + 1
    assert client.get(f"/api/v1/games/{game['id']}").get_json()["rematch"] == made[0]["id"]


def test_a_phone_at_the_table_starts_the_rematch(app, client, join_table):
    """The pages' writes carry a phone's key: a rematch takes it too (``groups.rematch``)."""
    game = finished_game(client)
    phone = app.test_client()
    join_table(phone, game)
    tables = app.session_interface.get_signing_serializer(app).loads(phone.get_cookie("session").value)["tables"]
    key = tables[game["id"]]
    assert re.fullmatch(r"[\w-]+\.[\w-]+", key)
    with app.test_request_context():
        with pytest.raises(store.StoreError) as wrong:
            groups.rematch(store.WriteRequest(game_id=game["id"], token=None, phone=key.split(".")[0] + "." + "A" * 24))
        assert wrong.value.status == 403
        made = groups.rematch(store.WriteRequest(game_id=game["id"], token=None, phone=key))
        assert made.game.rematch_of_id == game["id"] and made.game.players == ["Ann", "Bob", "Cid"]
        new_id = made.game.id
    assert client.get(f"/api/v1/games/{game['id']}").get_json()["rematch"] == new_id


def test_an_engine_that_declares_no_first_deal_keeps_its_options():
    """A sixth game (tests/contract/high_card.py) knows nothing of rematches: same options, names renamed."""
    import sys
    from pathlib import Path

    from referee.rules.base import next_deal

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "contract"))
    import high_card

    assert next_deal(high_card.GAME, ["Ann", "Bob"], {"target": 3}, str.upper) == (["ANN", "BOB"], {"target": 3})
