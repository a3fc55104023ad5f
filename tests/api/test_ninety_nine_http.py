"""Ninety-nine through HTTP: rulings with their ids, and a whole game to a winner."""
from __future__ import annotations

import itertools

CARDS = [r + s for s in "SHDC" for r in ("K", "7", "Q", "8", "J", "5", "6", "3", "9", "10", "A", "2", "4")]


def test_sheet_examples_over_http(api):
    game = api.create("ninety-nine", ["Ann", "Bob", "Cid"])
    state = api.move(game, {"type": "play", "player": "Ann", "card": "KS"})
    state = api.move(game, {"type": "play", "player": "Bob", "card": "QS"})
    state = api.move(game, {"type": "play", "player": "Cid", "card": "9S"})
    state = api.move(game, {"type": "play", "player": "Ann", "card": "9h"})    # 20... -> 29 with the next
    state = api.move(game, {"type": "play", "player": "Bob", "card": "9D"})
    assert state["total"] == 20
    state = api.move(game, {"type": "play", "player": "Cid", "card": "9C"})
    state = api.move(game, {"type": "play", "player": "Ann", "card": "5S"})
    state = api.move(game, {"type": "play", "player": "Bob", "card": "4S"})    # 29, reverses
    assert state["total"] == 29 and state["direction"] == "counterclockwise" and state["to_play"] == "Ann"
    state = api.move(game, {"type": "play", "player": "Ann", "card": "7S"})    # 36: Ann passed 33
    assert state["tokens"] == {"Ann": 8, "Bob": 9, "Cid": 9}
    assert {"text": "Ann passed a limit: Ann loses a token.", "rule": "N99-5"} in state["events"]
    assert state["to_play"] == "Cid"


def test_illegal_moves_over_http_name_the_ruling_and_change_nothing(api):
    game = api.create("ninety-nine", ["Ann", "Bob", "Cid"])
    api.move(game, {"type": "play", "player": "Ann", "card": "5S"})
    before = api.state(game)
    cases = [
        ({"type": "play", "player": "Ann", "card": "6S"}, "N99-2"),
        ({"type": "play", "player": "Bob", "card": "10S"}, "N99-3"),
        ({"type": "play", "player": "Bob", "card": "AS", "value": 5}, "N99-3"),
        ({"type": "play", "player": "Bob", "card": "6S", "value": 6}, "N99-3"),
        ({"type": "play", "player": "Bob", "card": "5S"}, "N99-8"),
        ({"type": "missed_draw", "player": "Cid"}, "N99-7"),
    ]
    for move, rule in cases:
        body = api.move(game, move, expect=422)
        assert body["rule"] == rule, (move, body)
        assert api.state(game) == before


def test_judge_play_over_http(api, client):
    verdict = api.judge("ninety-nine", "play", {"total": 76, "card": "10H", "value": -10})
    assert verdict["total"] == 66 and verdict["player_loses"] == 0 and verdict["others_lose"] == 0
    assert verdict["round_over"] is False and "N99-3" in verdict["rule"]
    bad = api.judge("ninety-nine", "play", {"total": 5, "card": "ZZ"}, expect=422)
    assert "ZZ" in bad["detail"]
    assert api.judge("ninety-nine", "play", {"total": 5, "card": "AH"}, expect=422)["rule"] == "N99-3"
    response = client.post("/api/v1/judge/ninety-nine/play", data="x", content_type="text/plain")
    assert response.status_code == 415


def test_a_whole_three_player_game_to_a_winner(api):
    game = api.create("ninety-nine", ["Ann", "Bob", "Cid"], {"tokens": 4})
    deck = itertools.cycle(CARDS)
    state = api.state(game)
    moves = 0
    while state["status"] == "in_progress":
        card = next(deck)
        move = {"type": "play", "player": state["to_play"], "card": card}
        if card[:-1] == "10":
            move["value"] = 10
        elif card[:-1] == "A":
            move["value"] = 11
        response = api.client.post(f"/api/v1/games/{game['id']}/moves", json=move,
                                   headers={"Authorization": f"Bearer {game['token']}"})
        if response.status_code == 422:
            assert response.get_json()["rule"] == "N99-8"  # that card is already on the pile
            continue
        assert response.status_code == 201, response.get_json()
        state = response.get_json()
        moves += 1
        assert moves < 1000
    assert state["status"] == "finished" and len(state["winners"]) == 1
    winner = state["winners"][0]
    assert state["tokens"][winner] > 0 and sorted(state["out"]) == sorted(set(["Ann", "Bob", "Cid"]) - {winner})
    assert state["rounds"] and all(set(r["scores"]) == {"Ann", "Bob", "Cid"} for r in state["rounds"])
    assert state["version"] == moves == len(api.log(game)["moves"])
    after = api.move(game, {"type": "play", "player": winner, "card": "5S"}, expect=422)
    assert after["rule"] == "N99-6"
