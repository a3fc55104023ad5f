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
    assert {"text": "Ann passed 33: Ann loses a token", "rule": "N99-5"} in state["events"]
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


def test_rulings_over_http_two_players_eliminations_missed_draws_and_rounds(api):
    # N99-4: with two players a J gives another turn and a 4 does not reverse
    game = api.create("ninety-nine", ["Ann", "Bob"], {"tokens": 3})
    state = api.move(game, {"type": "play", "player": "Ann", "card": "JS"})
    assert state["to_play"] == "Ann" and {"text": "Ann plays again", "rule": "N99-4"} in state["events"]
    state = api.move(game, {"type": "play", "player": "Ann", "card": "4S"})
    assert state["direction"] == "clockwise" and state["to_play"] == "Bob"
    # N99-7: Bob forgets to draw three times; when his turn comes with no card he loses three tokens
    for card, answer in (("9S", "3S"), ("9H", "3H"), ("9D", None)):
        state = api.move(game, {"type": "play", "player": "Bob", "card": card})
        state = api.move(game, {"type": "missed_draw", "player": "Bob"})
        if answer:
            state = api.move(game, {"type": "play", "player": "Ann", "card": answer})
    assert state["hand_sizes"]["Bob"] == 0
    state = api.move(game, {"type": "play", "player": "Ann", "card": "3D"})
    assert state["tokens"] == {"Ann": 3, "Bob": 0} and state["out"] == ["Bob"]
    assert state["status"] == "finished" and state["winners"] == ["Ann"]
    assert any(e["rule"] == "N99-7" for e in state["events"])


def test_elimination_mid_round_and_the_next_rounds_first_player_over_http(api):
    game = api.create("ninety-nine", ["Ann", "Bob", "Cid", "Dee"], {"tokens": 1, "first_player": "Bob"})
    state = api.move(game, {"type": "play", "player": "Bob", "card": "KS"})
    state = api.move(game, {"type": "play", "player": "Cid", "card": "KH"})
    state = api.move(game, {"type": "play", "player": "Dee", "card": "KD"})  # 30
    state = api.move(game, {"type": "play", "player": "Ann", "card": "5S"})  # 35: Ann passed 33, out
    assert state["out"] == ["Ann"] and state["tokens"]["Ann"] == 0
    assert state["round"] == 1 and state["total"] == 35 and state["to_play"] == "Bob"  # the round goes on
    assert {"text": "Ann has no tokens left and is out of the game", "rule": "N99-6"} in state["events"]
    body = api.move(game, {"type": "play", "player": "Ann", "card": "6S"}, expect=422)
    assert body["rule"] == "N99-6"
    body = api.move(game, {"type": "play", "player": "Bob", "card": "KS"}, expect=422)
    assert body["rule"] == "N99-8" and "KS" in body["detail"]  # the only KS is on the pile
    state = api.move(game, {"type": "play", "player": "Bob", "card": "4S"})  # 39, reverses
    # counterclockwise from Bob skips Ann, who is out (N99-4)
    assert state["direction"] == "counterclockwise" and state["to_play"] == "Dee"
    state = api.move(game, {"type": "play", "player": "Dee", "card": "QS"})  # 49
    state = api.move(game, {"type": "play", "player": "Cid", "card": "QH"})  # 59
    state = api.move(game, {"type": "play", "player": "Bob", "card": "2S"})  # 118: passes 66 and 99
    assert state["out"] == ["Ann", "Bob"] and state["round"] == 2 and state["total"] == 0
    # N99-2: round 1 began with Bob, so round 2 begins with Cid (one seat further left)
    assert state["to_play"] == "Cid" and state["direction"] == "clockwise"
    assert state["hand_sizes"] == {"Ann": 0, "Bob": 0, "Cid": 3, "Dee": 3}


def test_judge_players_field_and_value_checks_over_http(api):
    three = api.judge("ninety-nine", "play", {"total": 23, "card": "JH"})  # players default 3
    assert three["total"] == 33 and three["others_lose"] == 1 and three["skip_next"] is True
    assert "N99-4" not in three["rule"]
    assert api.judge("ninety-nine", "play", {"total": 0, "card": "4H"})["reverse"] is True
    two = api.judge("ninety-nine", "play", {"total": 0, "card": "4H", "players": 2})
    assert two["reverse"] is False and "N99-4" in two["rule"]
    for body in ({"total": 5, "card": "10H", "value": "-10"}, {"total": 5, "card": "AH", "value": 5},
                 {"total": 5, "card": "KH", "value": 10}):
        assert api.judge("ninety-nine", "play", body, expect=422)["rule"] == "N99-3"
    over = api.judge("ninety-nine", "play", {"total": 95, "card": "AH", "value": 11})
    assert (over["total"], over["player_loses"], over["others_lose"], over["round_over"]) == (106, 2, 0, True)


def test_a_whole_game_recorded_by_rounds_over_http_t4(api):
    game = api.create("ninety-nine", ["Ann", "Bob", "Cid"], {"tokens": 3, "record": "rounds"})
    state = api.state(game)
    assert state["record"] == "rounds" and set(state["allowed"]) == {"round_result", "switch_record", "adjust"}
    assert state["allowed"]["round_result"]["choices"] == {"ended_by": ["Ann", "Bob", "Cid"]}
    body = api.move(game, {"type": "play", "player": "Ann", "card": "5S"}, expect=422)
    assert body["rule"] == "T-4"
    # refusals name their ruling and change nothing
    before = api.state(game)
    for move, rule in (({"lost": {"Bob": 4}, "ended_by": "Ann"}, "N99-6"),
                       ({"lost": {"Bob": 2, "Cid": 1}, "ended_by": "Ann", "ending": "reached_99"}, "N99-5"),
                       ({"lost": {"Ann": 2}, "ended_by": "Ann", "ending": "no_card"}, "N99-7")):
        assert api.move(game, {"type": "round_result", **move}, expect=422)["rule"] == rule
    assert api.state(game) == before
    state = api.move(game, {"type": "round_result", "lost": {"Bob": 2, "Cid": 2}, "ended_by": "Ann",
                            "ending": "reached_99"})
    assert state["tokens"] == {"Ann": 3, "Bob": 1, "Cid": 1} and state["round"] == 2 and state["to_play"] == "Bob"
    assert state["rounds"][0]["scores"] == {"Ann": 0, "Bob": -2, "Cid": -2}
    assert state["rounds"][0]["recorded"] == "rounds" and state["allowed"]["correct_round"]["choices"] == {
        "round": [1]}
    state = api.move(game, {"type": "round_result", "lost": {"Cid": 1}, "ended_by": "Cid", "ending": "passed_99"})
    assert state["out"] == ["Cid"] and state["to_play"] == "Ann"   # round 3: Cid's seat is skipped (N99-2)
    # T-1: round 2 entered again: Bob went over 99, not Cid, and Cid only passed 66
    state = api.move(game, {"type": "correct_round", "round": 2, "reason": "it was Bob", "lost": {"Bob": 1, "Cid": 1},
                            "ended_by": "Bob", "ending": "passed_99"})
    assert state["out"] == ["Cid", "Bob"] and state["status"] == "finished" and state["winners"] == ["Ann"]
    assert state["rounds"][1]["corrections"][0]["rule"] == "T-1"
    assert [m["move"]["type"] for m in api.log(game)["moves"]] == ["round_result", "round_result",
                                                                    "correct_round"]


def test_the_table_switches_how_it_records_between_rounds_over_http_t4(api):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    state = api.move(game, {"type": "round_result", "lost": {"Ann": 2}, "ended_by": "Ann", "ending": "passed_99"})
    assert state["record"] == "moves" and state["to_play"] == "Bob"   # a whole round between rounds, by moves too
    state = api.move(game, {"type": "play", "player": "Bob", "card": "KS"})
    assert "switch_record" not in state["allowed"] and "round_result" not in state["allowed"]
    assert api.move(game, {"type": "switch_record", "record": "rounds"}, expect=422)["rule"] == "T-4"
    assert api.move(game, {"type": "round_result", "lost": {"Bob": 2}, "ended_by": "Bob"}, expect=422)["rule"] == "T-4"
    for card in ("KH", "KD", "KC", "QS", "QH", "QD", "QC", "JS"):   # to 90; the J gives Bob another turn (N99-4)
        state = api.move(game, {"type": "play", "player": state["to_play"], "card": card})
    state = api.move(game, {"type": "play", "player": "Bob", "card": "9S"})
    state = api.move(game, {"type": "play", "player": state["to_play"], "card": "JH"})   # 100: over 99
    assert state["round"] == 3 and state["allowed"]["switch_record"]["choices"] == {"record": ["rounds"]}
    state = api.move(game, {"type": "switch_record", "record": "rounds"})
    assert state["record"] == "rounds" and "play" not in state["allowed"]
    state = api.move(game, {"type": "round_result", "lost": {"Bob": 2}, "ended_by": "Ann", "ending": "reached_99"})
    state = api.move(game, {"type": "switch_record", "record": "moves"})
    assert state["record"] == "moves" and state["to_play"] == "Bob"
    assert [r.get("recorded") for r in state["rounds"]] == ["rounds", None, "rounds"]
