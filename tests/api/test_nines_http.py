"""Nines through HTTP: a whole three-player game to the target, illegal moves, the grid verdict."""
from __future__ import annotations

import pytest

PLAYERS = ["Ann", "Bob", "Cy"]
DEAL = {"type": "deal", "discard": "5H", "revealed": {
    "Ann": {"0": "2H", "4": "3S", "8": "KD"},
    "Bob": {"1": "QH", "2": "JK", "3": "9C"},
    "Cy": {"0": "AS", "1": "AH", "2": "AD"},
}}
# Ann fills her face-down positions from the stock (card, position, the face-down card it replaced).
ANN_FILL = [("4C", 1, "6H"), ("4D", 2, "6S"), ("2S", 3, "7H"), ("3D", 5, "7S"), ("2D", 6, "8H"), ("3C", 7, "8S")]
BOB_GRID = ["7C", "QH", "JK", "9C", "KS", "KH", "AC", "5C", "5D"]
CY_GRID = [["AS", "AH", "AD"], ["6C", "6D", "8C"], ["JD", "JC", "8D"]]  # three rows accepted


def turn(player, source, card, position=None, replaced=None):
    move = {"type": "turn", "player": player, "source": source, "card": card, "position": position}
    if replaced is not None:
        move["replaced"] = replaced
    return move


def play_hand_move_by_move(api, game):
    """Hand 1: the deal, Ann fills her grid and is done, reveals, final turns (N9-2..N9-4)."""
    body = api.move(game, DEAL)
    assert body["to_play"] == "Ann" and body["draw_pile"] == 80 and body["discard_top"] == "5H"
    others = iter(["9H", "9S", "10H", "10S", "JH", "JS", "QC", "QD", "10C", "10D"])
    for i, (card, position, replaced) in enumerate(ANN_FILL):
        body = api.move(game, turn("Ann", "stock", card, position, replaced))
        if i < len(ANN_FILL) - 1:
            api.move(game, turn("Bob", "stock", next(others)))
            body = api.move(game, turn("Cy", "stock", next(others)))
    assert body["done"] == "Ann" and body["final_turns_left"] == ["Bob", "Cy"] and body["to_play"] == "Bob"
    assert body["draw_pile"] == 80 - 16
    api.refused(game, turn("Bob", "stock", "7D"), "N9-4")  # reveals first
    api.move(game, {"type": "reveal", "player": "Bob", "grid": BOB_GRID})
    body = api.move(game, {"type": "reveal", "player": "Cy", "grid": CY_GRID})
    assert body["grids"]["Cy"][3:6] == ["6C", "6D", "8C"] and body["to_play"] == "Bob"
    api.refused(game, turn("Ann", "stock", "7D"), "N9-4")  # the done player has no final turn
    api.move(game, turn("Bob", "stock", "5S", 0, "7C"))
    body = api.move(game, turn("Cy", "discard", "7C"))
    return body


def test_whole_three_player_game_to_the_target(api):
    game = api.create("nines", PLAYERS)
    assert game["to_play"] == "Ann" and game["dealer"] == "Cy" and game["draw_pile"] == 108  # G-2: Cy deals, Ann first
    body = play_hand_move_by_move(api, game)
    record = body["rounds"][0]
    assert record["scores"] == {"Ann": 17, "Bob": 32, "Cy": 48}
    assert record["sets"]["Ann"] == [{"cells": [0, 3, 6], "rank": "2"}]
    assert record["sets"]["Cy"] == [{"cells": [0, 1, 2], "rank": "A"}]
    assert sum(item["points"] for item in record["breakdown"]["Cy"]) == 48
    assert body["hand"] == 2 and body["round"] == 2 and body["dealer"] == "Ann" and body["to_play"] == "Bob"  # N9-8

    # Hand 2 (Ann deals, N9-8) and hand 3 are entered from the final grids only.
    hand2 = {"Ann": ["KH", "KS", "KD", "JK", "AC", "2C", "3C", "4C", "5C"],       # K row set: 12
             "Bob": ["8H", "8S", "8D", "8C", "KC", "KC", "8H", "QH", "QH"],       # row and column of 8s: 20
             "Cy": ["10H", "10S", "JD", "QC", "2D", "3D", "4D", "5D", "6D"]}      # 60
    body = api.move(game, {"type": "hand_result", "grids": hand2})
    assert body["standings"] == {"Ann": 29, "Bob": 52, "Cy": 108}
    assert body["status"] == "finished" and body["winners"] == ["Ann"] and body["to_play"] is None
    assert [r["totals"] for r in body["rounds"]] == [{"Ann": 17, "Bob": 32, "Cy": 48},
                                                     {"Ann": 29, "Bob": 52, "Cy": 108}]
    assert body["version"] == api.state(game)["version"]
    api.refused(game, {"type": "hand_result", "grids": hand2}, "N9-7")


def test_target_option_and_shared_win(api):
    game = api.create("nines", PLAYERS, {"target": 30, "dealer": "Ann"})
    assert game["to_play"] == "Bob" and game["dealer"] == "Ann" and game["target"] == 30  # G-2, N9-8
    low = ["KH", "KS", "KD", "JK", "AC", "2C", "3C", "4C", "5C"]  # 12
    high = ["10H", "10S", "JD", "QC", "2D", "3D", "4D", "5D", "6D"]  # 60
    body = api.move(game, {"type": "hand_result", "grids": {"Ann": low, "Bob": low, "Cy": high}})
    assert body["status"] == "finished" and body["winners"] == ["Ann", "Bob"]


def test_illegal_moves_over_http(api):
    game = api.create("nines", PLAYERS)
    api.refused(game, turn("Ann", "stock", "7D"), "N9-2")  # not dealt yet
    bad = {**DEAL, "revealed": {**DEAL["revealed"], "Bob": {"1": "QH", "2": "JK"}}}
    api.refused(game, bad, "N9-2")
    three_aces = {**DEAL, "revealed": {**DEAL["revealed"], "Bob": {"1": "AS", "2": "AS", "3": "9C"}}}
    api.refused(game, three_aces, "N9-1")
    api.move(game, DEAL)
    api.refused(game, turn("Bob", "stock", "7D"), "N9-8")  # Ann plays first
    api.refused(game, turn("Ann", "stock", "7D", 1), "N9-3")  # position 1 was face down: 'replaced' needed
    api.refused(game, turn("Ann", "stock", "7D", None, "9D"), "N9-3")  # a discard replaces nothing
    body = api.refused(game, turn("Ann", "discard", "7D", None), "N9-3")  # not the discard top
    assert body["legal"] == {"card": ["5H"]}
    api.refused(game, turn("Ann", "stock", "7D", 0, "9D"), "N9-3")  # position 0 shows 2H
    api.refused(game, turn("Ann", "stock", "AS", 1, "AS"), "N9-1")  # a third AS
    api.refused(game, {"type": "reveal", "player": "Bob", "grid": BOB_GRID}, "N9-4")  # nobody is done
    api.refused(game, {"type": "hand_result", "grids": {}}, "N9-4")  # hand is played move by move
    api.move(game, turn("Ann", "stock", "7D"))
    api.refused(game, turn("Cy", "stock", "8D"), "G-1")  # play passes left: Bob


@pytest.mark.parametrize("move", [
    {"type": "turn", "player": "Ann", "source": "pile", "card": "7D", "position": None},
    {"type": "turn", "player": "Ann", "source": "stock", "card": "7D", "position": True, "replaced": "2C"},
    {"type": "turn", "player": "Ann", "source": "stock", "card": "7D", "position": None, "extra": 1},
    {"type": "reveal", "player": "Bob", "grid": "7C"},
])
def test_malformed_moves_are_422_without_a_rule(api, move):
    game = api.create("nines", PLAYERS)
    api.move(game, DEAL)
    body = api.move(game, move, expect=422)
    assert body["status"] == 422 and body.get("rule") is None
    assert api.state(game)["version"] == 1


def test_a_card_outside_the_deck_cites_n9_1(api):
    game = api.create("nines", PLAYERS)
    api.move(game, DEAL)
    body = api.refused(game, {"type": "turn", "player": "Ann", "source": "stock", "card": "ZZ", "position": None},
                       "N9-1")  # G-3: not malformed, a card the decks do not hold
    assert "ZZ" in body["detail"]


@pytest.mark.parametrize("options", [{"decks": 1}, {"target": "lots"}, {"dealer": "Zed"}, {"jokers": 0}])
def test_bad_options_are_refused(api, options):
    body = api.create("nines", PLAYERS, options, expect=None)
    assert body["status"] in (400, 422)


# ---------------------------------------------------------------- the grid verdict

@pytest.mark.parametrize("grid, points, sets", [
    (["7H", "7S", "7D", "2C", "3C", "4C", "5C", "6C", "8C"], 28, [{"cells": [0, 1, 2], "rank": "7"}]),
    (["QH", "2C", "3C", "QS", "4C", "5C", "QD", "6C", "8C"], 28, [{"cells": [0, 3, 6], "rank": "Q"}]),
    (["9H", "9S", "9D", "9C", "JH", "AC", "9H", "QC", "10D"], 31,
     [{"cells": [0, 1, 2], "rank": "9"}, {"cells": [0, 3, 6], "rank": "9"}]),
    (["KH", "2S", "KD", "3C", "KC", "4C", "5C", "KS", "6C"], 20, []),
    (["JK", "JK", "JK", "JK", "2C", "3C", "JK", "4C", "5C"], -1, []),
    (["8H", "2C", "8S", "3C", "8D", "4C", "8C", "5C", "8H"], 54, []),
])
def test_grid_verdict(api, grid, points, sets):
    body = api.judge("nines", "grid", {"grid": grid})
    assert body["points"] == points and body["sets"] == sets
    assert set(body) == {"points", "sets", "card_points", "breakdown", "says"}
    assert len(body["card_points"]) == 9 and sum(body["card_points"]) == points


def test_grid_verdict_accepts_rows_and_forgiving_codes(api):
    body = api.judge("nines", "grid", {"grid": [["kh", "K♠", "KD"], ["JK", "a♣", "2c"], ["3c", "4c", "5c"]]})
    assert body["points"] == 12 and body["sets"] == [{"cells": [0, 1, 2], "rank": "K"}]
    assert body["card_points"] == [0, 0, 0, -3, 1, 2, 3, 4, 5]
    assert body["breakdown"][0]["rule"] == "N9-5"


@pytest.mark.parametrize("body", [{"grid": ["7H"] * 8}, {"grid": ["XX"] * 9}, {"cards": ["7H"] * 9},
                                  {"grid": ["7H"] * 9, "extra": True}, {"grid": 7}])
def test_grid_verdict_refuses_malformed_bodies(api, body):
    problem = api.judge("nines", "grid", body, expect=None)
    assert problem["status"] in (400, 422)


def test_rules_endpoint_lists_nines(client):
    body = client.get("/api/v1/rules/nines").get_json()
    assert set(body["moves"]) == {"deal", "turn", "reveal", "reveal_all", "hand_result", "correct_round", "switch_record",
                                 "adjust"}
    assert {"N9-1", "N9-8", "G-1", "G-2"} <= set(body["rulings"])
    assert body["judges"]["grid"]["path"] == "/api/v1/judge/nines/grid"
