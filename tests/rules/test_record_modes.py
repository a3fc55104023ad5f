"""T-4: how the table records, in the games whose rounds the table could already enter whole (Five
Crowns, Nines): the `record` option, moves refused while the table records by rounds, the switch
between rounds only, and a Nines hand entered as each player's points (checked as far as points
tell: N9-1, N9-6). The other games' round entries have their own files (test_*_rounds.py)."""
from __future__ import annotations

import copy

import pytest

from referee.errors import IllegalMove, InvalidInput
from referee.rules import ENGINES, five_crowns, nines

WHOLE = {"five-crowns": {"type": "round_result", "went_out": "Ann", "hands": {"Bob": {"points": 10}}},
         "nines": {"type": "hand_result", "points": {"Ann": 12, "Bob": -3}}}


def refused(engine, state, move, rule):
    before = copy.deepcopy(state)
    with pytest.raises((IllegalMove, InvalidInput)) as caught:
        engine.apply(state, move)
    assert caught.value.rule == rule, caught.value.detail
    assert state == before  # a refusal changes nothing
    return caught.value


@pytest.mark.parametrize("name", ["five-crowns", "nines"])
def test_the_record_option_defaults_to_moves_and_is_kept_in_the_state_and_the_options(name):
    engine = ENGINES[name]
    state = engine.new_game(["Ann", "Bob"])
    assert state["record"] == "moves" and state["options"]["record"] == "moves"
    assert engine.new_game(["Ann", "Bob"], {"record": "rounds"})["record"] == "rounds"
    with pytest.raises(InvalidInput) as caught:
        engine.new_game(["Ann", "Bob"], {"record": "hands"})
    assert caught.value.rule == "T-4"


@pytest.mark.parametrize("name", ["five-crowns", "nines"])
def test_recording_by_rounds_refuses_the_deal_and_offers_only_the_round_entry_T4(name):
    engine = ENGINES[name]
    state = engine.new_game(["Ann", "Bob"], {"record": "rounds"})
    assert set(engine.allowed(state)) == {WHOLE[name]["type"], "switch_record", "adjust"}
    error = refused(engine, state, {"type": "deal", "discard": "3H", **({"revealed": {}} if name == "nines" else {})},
                    "T-4")
    assert error.legal == {"type": [WHOLE[name]["type"], "switch_record"]}
    after = engine.apply(state, WHOLE[name])
    assert after["rounds"][-1]["scores"]["Ann"] in (0, 12) and after["record"] == "rounds"


@pytest.mark.parametrize("name", ["five-crowns", "nines"])
def test_the_table_switches_between_rounds_never_inside_one_T4(name):
    engine = ENGINES[name]
    state = engine.new_game(["Ann", "Bob"], {"record": "rounds"})
    state = engine.apply(state, WHOLE[name])
    assert engine.allowed(state)["switch_record"]["choices"] == {"record": ["moves"]}
    refused(engine, state, {"type": "switch_record", "record": "rounds"}, "T-4")  # already so
    moves = engine.apply(state, {"type": "switch_record", "record": "moves"})
    assert moves["record"] == "moves" and moves["events"][-1]["rule"] == "T-4"
    deal = ({"type": "deal", "discard": "3H"} if name == "five-crowns" else
            {"type": "deal", "discard": "7D", "revealed": {"Ann": {"0": "5H", "1": "5S", "2": "KS"},
                                                           "Bob": {"0": "2H", "4": "JC", "8": "QD"}}})
    dealt = engine.apply(moves, deal)
    assert "switch_record" not in engine.allowed(dealt)
    refused(engine, dealt, {"type": "switch_record", "record": "rounds"}, "T-4")
    # a malformed mode is refused as malformed
    with pytest.raises(InvalidInput):
        engine.apply(moves, {"type": "switch_record", "record": "hands"})


def test_a_switch_is_refused_once_the_game_is_over():
    state = nines.new_game(["Ann", "Bob"], {"record": "rounds", "target": 10})
    state = nines.GAME.apply(state, {"type": "hand_result", "points": {"Ann": 12, "Bob": 0}})
    assert nines.outcome(state)["status"] == "finished"
    assert "switch_record" not in nines.GAME.allowed(state)
    refused(nines.GAME, state, {"type": "switch_record", "record": "moves"}, "N9-7")


def test_a_five_crowns_game_recorded_by_rounds_runs_its_eleven_rounds_FC2():
    state = five_crowns.new_game(["Ann", "Bob", "Cy"], {"record": "rounds"})
    for number in range(1, 12):
        assert state["round"] == number
        state = five_crowns.GAME.apply(state, {"type": "round_result", "went_out": "Ann",
                                          "hands": {"Bob": {"points": number}, "Cy": {"points": 2 * number}}})
    assert five_crowns.outcome(state)["winners"] == ["Ann"]
    assert state["totals"] == {"Ann": 0, "Bob": 66, "Cy": 132}


# ---------------------------------------------------------------- Nines: a hand entered as points

def test_a_nines_hand_entered_as_points_scores_them_and_can_be_corrected_T1_T4():
    state = nines.new_game(["Ann", "Bob"], {"record": "rounds"})
    state = nines.GAME.apply(state, {"type": "hand_result", "points": {"Ann": 12, "Bob": -3}})
    entry = state["rounds"][0]
    assert entry["scores"] == {"Ann": 12, "Bob": -3} and entry["totals"] == {"Ann": 12, "Bob": -3}
    assert entry["breakdown"]["Ann"][0]["rule"] == "T-4" and entry["grids"] == {}
    assert state["hand"] == 2 and state["dealer"] == "Ann"  # N9-8: the deal passes left
    fixed = nines.GAME.apply(state, {"type": "correct_round", "round": 1, "reason": "Bob had a set",
                                "points": {"Ann": 12, "Bob": 0}})
    assert fixed["totals"] == {"Ann": 12, "Bob": 0} and fixed["rounds"][0]["corrections"][0]["rule"] == "T-1"
    # a hand entered as points may be corrected with grids, and the other way round
    grids = nines.GAME.apply(state, {"type": "correct_round", "round": 1, "reason": "grids found",
                                "grids": {"Ann": ["2H", "2S", "2D", "5H", "5S", "5D", "KH", "KS", "KD"],
                                          "Bob": ["3H", "3S", "3D", "4H", "4S", "4D", "AH", "AS", "AD"]}})
    assert grids["totals"] == {"Ann": 0, "Bob": 0}  # N9-5: three row sets each


@pytest.mark.parametrize("points, rule", [
    ({"Ann": 91, "Bob": 0}, "N9-6"),     # nine cards of 10 points, none in a set, are 90
    ({"Ann": -13, "Bob": 0}, "N9-6"),    # two decks: four Jokers at most, -12
    ({"Ann": -9, "Bob": -6}, "N9-1"),    # three Jokers and two more: five, and the decks hold four
])
def test_points_no_grid_can_score_are_refused_N9_1_N9_6(points, rule):
    state = nines.new_game(["Ann", "Bob"], {"record": "rounds"})
    refused(nines.GAME, state, {"type": "hand_result", "points": points}, rule)


def test_a_hand_entry_needs_every_player_and_one_form_N9_2():
    state = nines.new_game(["Ann", "Bob"], {"record": "rounds"})
    refused(nines.GAME, state, {"type": "hand_result", "points": {"Ann": 3}}, "N9-2")
    with pytest.raises(InvalidInput):
        nines.GAME.apply(state, {"type": "hand_result", "points": {"Ann": 3, "Bob": 1}, "grids": {}})
    with pytest.raises(InvalidInput):
        nines.GAME.apply(state, {"type": "hand_result"})
    with pytest.raises(InvalidInput):
        nines.GAME.apply(state, {"type": "hand_result", "points": {"Ann": "3", "Bob": 1}})


# ---------------------------------------------------------------- the player to play is implied

def test_a_move_that_names_no_player_is_made_by_the_one_player_to_play_G1():
    """A tap per card, and a move queued offline after another, name no player: the one player who
    may make the move now is implied; where several may (a Nines reveal), the player is needed."""
    state = five_crowns.GAME.apply(five_crowns.new_game(["Ann", "Bob"]), {"type": "deal", "discard": "3H"})
    drawn = five_crowns.GAME.apply(state, {"type": "draw", "source": "stock"})
    assert drawn["hand_sizes"]["Ann"] == 4 and drawn["to_play"] == "Ann"   # Ann, Bob dealing (G-2)
    schema = five_crowns.MOVES["draw"].schema("draw")
    assert "player" not in schema["required"] and "Left out" in schema["properties"]["player"]["description"]
    game = nines.new_game(["Ann", "Bob", "Cy"])
    game["phase"], game["reveals_pending"], game["done"] = "reveal", ["Bob", "Cy"], "Ann"
    with pytest.raises(InvalidInput) as caught:
        nines.GAME.apply(game, {"type": "reveal", "grid": ["2H"] * 9})
    assert "player" in caught.value.detail
