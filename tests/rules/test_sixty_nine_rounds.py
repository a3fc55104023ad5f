"""69 recorded by rounds (T-4) and a round entered whole corrected (T-1): the `record` option, the
`round_result` entry (captured sets and cards left in hand scored as S69-11 scores them, or points),
every check it makes (S69-1, S69-2, S69-4, S69-8, S69-10, S69-11), the next dealer (S69-12), the end
of the game (S69-12, S69-13), the switch between rounds only, and `correct_round`."""
from __future__ import annotations

import json
from copy import deepcopy

import pytest

from referee.rules import sixty_nine as g
from referee.rules.base import IllegalMove, InvalidInput, public_state
from referee.rules.sixty_nine.scoring import MOST_POINTS
from engine_checks import refused_by
from test_sixty_nine import run  # apply each move, checking it never mutates its input

ANN, BOB, CAT = "Ann", "Bob", "Cat"
P3 = [ANN, BOB, CAT]

RUN_56789_0 = ["6A", "9B", "7C", "8D", "0E", "5F"]    # six cards, a printed 6 and 9: 6 + 6 + 2 = 14
SPECIALS = ["WILD", "LOCK", "SCRAMBLE"]               # 3 + 3 = 6
FIVES = ["5A", "5B", "5C"]                            # 3


def refused(state, move, rule, exc=IllegalMove):
    return refused_by(g.GAME, state, move, exc, rule)


def by_rounds(players=P3, **options):
    return g.new_game(list(players), {"record": "rounds", **options})


def points(emptied=ANN, **scores):
    """A round entered as points only (every player of P3, 0 where not named)."""
    return {"type": "round_result", "emptied": emptied,
            "players": {p: {"points": scores.get(p, 0)} for p in P3}}


def result(emptied, **forms):
    return {"type": "round_result", "emptied": emptied, "players": forms}


def fix(number, move, reason="entered wrong", **extra):
    return {**move, "type": "correct_round", "round": number, "reason": reason, **extra}


def dealt(state):
    """``state`` (between rounds, recording moves) with the round dealt: a round begun move by move."""
    return run(state, {"type": "deal", "dealer": state["dealer"], "flip": "5A"})


def ended_by_moves(state):
    """A round begun move by move, ended move by move: the player to play holds one card and plays it."""
    state = deepcopy(state)
    state["hand_sizes"][state["to_play"]] = 1
    return run(state, {"type": "play", "player": state["to_play"], "set": 1, "cards": ["5B"]})


# ---------------------------------------------------------------- the option (T-4)

def test_the_record_option_defaults_to_moves_and_is_kept_in_the_state_T4():
    state = g.new_game(P3)
    assert state["record"] == "moves" and state["options"]["record"] == "moves"
    assert public_state(g.GAME, state)["record"] == "moves"
    assert by_rounds()["record"] == "rounds" and by_rounds()["options"]["record"] == "rounds"
    with pytest.raises(InvalidInput) as caught:
        g.new_game(P3, {"record": "hands"})
    assert caught.value.rule == "T-4"


def test_by_rounds_only_the_round_entry_the_switch_and_the_tables_moves_are_offered_T4():
    state = by_rounds()
    assert g.GAME.allowed(state) == {
        "round_result": {"players": None, "choices": {"emptied": P3}},
        "adjust": {"players": None, "choices": {"player": P3}},
        "switch_record": {"players": None, "choices": {"record": ["moves"]}}}
    error = refused(state, {"type": "deal", "dealer": CAT, "flip": "5A"}, "T-4")
    assert error.legal == {"type": ["round_result", "switch_record"]}
    # recording moves, a round may still be entered whole between rounds: both are offered
    assert {"deal", "round_result"} <= set(g.GAME.allowed(g.new_game(P3)))


# ---------------------------------------------------------------- scoring a round entered whole

def test_captured_sets_and_cards_in_hand_score_as_S69_11_scores_them():
    state = run(by_rounds(), result(ANN, Ann={"captured": [RUN_56789_0, SPECIALS]},
                                    Bob={"captured": [FIVES], "hand": 2},
                                    Cat={"captured": [], "hand": ["1A", "2B", "3C", "4D"]}))
    entry = state["rounds"][0]
    assert entry["scores"] == {ANN: 14 + 6, BOB: 3 - 2, CAT: 0}        # Cat: -4 counts 0 (S69-11)
    assert entry["totals"] == state["totals"] == {ANN: 20, BOB: 1, CAT: 0}
    for name, (sets, hand) in {ANN: ([RUN_56789_0, SPECIALS], 0), BOB: ([FIVES], 2), CAT: ([], 4)}.items():
        # the same scorer as the score verdict, with its breakdown
        verdict = g.judge_score({"captured": sets, "hand": hand})
        assert {"points": entry["scores"][name], "breakdown": entry["breakdown"][name]} == \
            {"points": verdict["points"], "breakdown": verdict["breakdown"]}
        assert sum(item["points"] for item in entry["breakdown"][name]) == entry["scores"][name]
        assert {item["rule"] for item in entry["breakdown"][name]} == {"S69-11"}
    assert "a round score below zero counts as zero" in [item["detail"] for item in entry["breakdown"][CAT]]
    # what the table entered is kept, to be entered again in a correction (T-1)
    assert entry["recorded"] == "rounds" and entry["emptied"] == ANN and entry["dealer"] == CAT
    assert entry["players"] == {ANN: {"captured": [RUN_56789_0, SPECIALS], "hand": 0},
                                BOB: {"captured": [FIVES], "hand": 2},
                                CAT: {"captured": [], "hand": ["1A", "2B", "3C", "4D"]}}
    assert entry["hands"] == {ANN: 0, BOB: 2, CAT: 4}
    # the table shows the round as a refereed one leaves it, until the next deal
    assert [s["cards"] for s in state["captured"][ANN]] == [RUN_56789_0, SPECIALS] and state["table"] == []
    assert state["events"][0]["rule"] == "S69-10"


def test_a_collection_of_0_to_9_is_found_across_the_captured_sets_S69_11():
    sets = [["0A", "1B", "2C"], ["3A", "4B", "5C"], ["6A", "7B", "8C"], ["9D", "9E", "9F"]]
    state = run(by_rounds(), result(BOB, Ann={"captured": [], "hand": 3}, Bob={"captured": sets},
                                    Cat={"points": 0}))
    assert state["rounds"][0]["scores"][BOB] == 12 + 10
    assert any("0-9 collection" in item["detail"] for item in state["rounds"][0]["breakdown"][BOB])


def test_points_are_taken_as_the_table_counted_them_and_cite_T4():
    state = run(by_rounds(), points(BOB, Ann=7, Bob=15))
    entry = state["rounds"][0]
    assert entry["scores"] == {ANN: 7, BOB: 15, CAT: 0}
    assert entry["breakdown"][ANN] == [{"rule": "T-4", "points": 7, "detail": "Entered as points."}]
    assert entry["hands"] == {ANN: None, BOB: None, CAT: None}
    assert entry["players"][BOB] == {"points": 15}


def test_the_next_dealer_sits_left_of_whoever_emptied_their_hand_S69_12():
    state = by_rounds()
    assert state["dealer"] == CAT                    # G-2: the last player listed deals first
    state = run(state, points(BOB, Ann=1))
    assert state["dealer"] == state["to_play"] == CAT and state["round"] == 2   # Bob's left
    state = run(state, points(CAT, Ann=1))
    assert state["dealer"] == ANN and state["round"] == 3                       # Cat's left is Ann (G-1)
    assert [r["dealer"] for r in state["rounds"]] == [CAT, CAT]


# ---------------------------------------------------------------- what a round entry cannot hold

@pytest.mark.parametrize("forms, rule", [
    ({ANN: {"captured": [["5A", "6B", "8C"]]}}, "S69-2"),                     # not a run
    ({ANN: {"captured": [["5A", "5A", "5B"]]}}, "S69-2"),                     # a suit twice in a set
    ({ANN: {"captured": [["WILD", "WILD", "5B"]]}}, "S69-2"),                 # a special kind twice
    ({ANN: {"captured": [["5A", "5B"]]}}, "S69-4"),                           # two cards are not captured
    ({ANN: {"captured": [["1A", "1B", "1C", "1D", "1E", "1F", "WILD"]]}}, "S69-2"),   # seven cards
    ({ANN: {"captured": [FIVES]}, BOB: {"captured": [["5C", "5D", "5E"]], "hand": 1}}, "S69-1"),  # 5C twice
    ({ANN: {"captured": [["WILD", "1A", "2B"], ["WILD", "3A", "4B"]]},
      BOB: {"captured": [["WILD", "5A", "6B"], ["WILD", "7A", "8B"]], "hand": 0}}, "S69-1"),      # four Wilds
    ({ANN: {"captured": [FIVES]}, BOB: {"captured": [], "hand": ["5A"]}}, "S69-1"),  # in a set and a hand
    ({ANN: {"captured": [["5Z", "5A", "5B"]]}}, "S69-1"),                     # no such card
    ({ANN: {"captured": [], "hand": 2}}, "S69-10"),                           # Ann emptied her hand
    ({BOB: {"captured": [], "hand": 11}}, "S69-8"),                           # ten dealt, never more
    ({BOB: {"captured": [], "hand": -1}}, "S69-8"),
    ({BOB: {"points": -1}}, "S69-11"),                                        # never below 0
    ({BOB: {"points": MOST_POINTS + 1}}, "S69-11"),                           # more than 69 cards score
])
def test_a_round_entry_that_breaks_a_ruling_is_refused_citing_it_and_changes_nothing(forms, rule):
    move = result(ANN, **{ANN: {"points": 0}, BOB: {"points": 0}, CAT: {"points": 0}, **forms})
    refused(by_rounds(), move, rule, (IllegalMove, InvalidInput))


def test_a_round_entry_of_more_cards_than_the_deck_holds_is_refused_S69_1():
    # 2 players: Bob's 10 cards in hand and Ann's 60 number cards captured make 70
    sets = [[f"{d}{s}" for s in "ABCDEF"] for d in range(10)]
    state = by_rounds([ANN, BOB])
    refused(state, result(ANN, Ann={"captured": sets}, Bob={"captured": [], "hand": 10}), "S69-1")
    assert run(state, result(ANN, Ann={"captured": sets}, Bob={"captured": [], "hand": 9}))["totals"][ANN] == \
        60 + 10 * 6 + 6 * 10 + 0   # every set six cards (+6), six collections (+10); 6s and 9s never share one


def test_every_player_must_be_given_and_each_in_one_form_S69_11():
    state = by_rounds()
    error = refused(state, result(ANN, Ann={"points": 3}, Bob={"points": 0}), "S69-11")
    assert error.legal is None and f"missing: {CAT}" in error.detail
    # cards left in hand are not guessed, but the hand that emptied holds none (S69-10)
    refused(state, result(ANN, Ann={"points": 0}, Bob={"captured": [FIVES]}, Cat={"points": 0}), "S69-11",
            InvalidInput)
    assert run(state, result(ANN, Ann={"captured": [FIVES]}, Bob={"points": 0}, Cat={"points": 0}))[
        "rounds"][0]["players"][ANN] == {"captured": [FIVES], "hand": 0}
    for bad in ({"points": 3, "hand": 0}, {"points": "3"}, {"points": True}, {"captured": "5A 5B 5C", "hand": 0},
                {"captured": [FIVES], "hand": "2"}, {"cards": []}, [3]):
        refused(state, result(ANN, Ann={"points": 0}, Bob=bad, Cat={"points": 0}), None, InvalidInput)
    refused(state, result(ANN, Ann={"points": 0}, Bob={"points": 0}, Cat={"points": 0}, Dan={"points": 0}),
            None, InvalidInput)
    refused(state, {"type": "round_result", "players": {p: {"points": 0} for p in P3}}, None, InvalidInput)
    refused(state, {**points(), "emptied": "Dan"}, None, InvalidInput)
    refused(state, result(ANN, Ann={"captured": [FIVES] * 24}, Bob={"points": 0}, Cat={"points": 0}), "S69-4",
            InvalidInput)


# ---------------------------------------------------------------- the end of the game (S69-12, S69-13)

def test_a_whole_game_recorded_by_rounds_ends_when_someone_reaches_the_target_S69_12():
    state = by_rounds()
    for number in range(1, 4):
        assert g.outcome(state)["status"] == "in_progress" and state["round"] == number
        state = run(state, points(ANN, Ann=25, Bob=24, Cat=number))
    result_ = g.outcome(state)
    assert state["totals"] == {ANN: 75, BOB: 72, CAT: 6}
    assert result_ == {"status": "finished", "winners": [ANN, BOB], "rule": "S69-12",
                       "reason": "Ann, Bob reached 69 points at the end of round 3."}
    assert state["round"] == 3 and [r["round"] for r in state["rounds"]] == [1, 2, 3]
    assert set(g.GAME.allowed(state)) == {"adjust", "correct_round"}   # after the end, the table's own moves
    refused(state, points(ANN, Ann=1), "S69-12")
    refused(state, {"type": "switch_record", "record": "moves"}, "S69-12")


def test_a_single_winner_is_the_one_with_the_most_points_S69_13():
    state = by_rounds(single_winner=True, target=20)
    state = run(state, points(BOB, Ann=21, Bob=25, Cat=3))
    assert g.outcome(state)["winners"] == [BOB] and g.outcome(state)["rule"] == "S69-13"


# ---------------------------------------------------------------- between rounds only (T-4)

def test_a_round_begun_move_by_move_is_never_entered_whole_T4():
    state = dealt(g.new_game(P3))
    assert "round_result" not in g.GAME.allowed(state) and "switch_record" not in g.GAME.allowed(state)
    refused(state, points(ANN, Ann=3), "T-4")
    refused(state, {"type": "switch_record", "record": "rounds"}, "T-4")
    # a pending Scramble too: the entry waits for no Scramble, it is simply not a round's end
    scramble = run(g.new_game(P3), {"type": "deal", "dealer": CAT, "flip": "SCRAMBLE"})
    assert scramble["phase"] == "scramble"
    refused(scramble, points(ANN), "T-4")
    # once the round is over (move by move), the next one may be entered whole
    over = ended_by_moves(state)
    assert over["phase"] == "round_over" and "recorded" not in over["rounds"][0]
    assert run(over, points(BOB, Bob=4))["rounds"][1]["recorded"] == "rounds"


def test_the_table_switches_between_rounds_and_never_inside_one_T4():
    state = run(by_rounds(), points(ANN, Ann=4))
    refused(state, {"type": "switch_record", "record": "rounds"}, "T-4")       # already so
    moves = run(state, {"type": "switch_record", "record": "moves"})
    assert moves["record"] == "moves" and moves["events"][-1]["rule"] == "T-4"
    assert moves["round"] == 2 and moves["dealer"] == BOB                     # left of Ann (S69-12)
    playing = dealt(moves)
    assert playing["dealer"] == BOB and playing["to_play"] == CAT
    refused(playing, {"type": "switch_record", "record": "rounds"}, "T-4")
    back = run(ended_by_moves(playing), {"type": "switch_record", "record": "rounds"})
    assert back["record"] == "rounds" and len(back["rounds"]) == 2
    back = run(back, points(CAT, Cat=9))
    assert [r.get("recorded") for r in back["rounds"]] == ["rounds", None, "rounds"]
    assert back["totals"][ANN] == 4 + back["rounds"][1]["scores"][ANN]


# ---------------------------------------------------------------- corrections (T-1)

def test_a_round_entered_whole_is_corrected_and_the_totals_follow_T1():
    state = run(by_rounds(), points(ANN, Ann=10, Bob=5), points(BOB, Ann=1, Bob=2, Cat=3))
    assert g.GAME.allowed(state)["correct_round"] == {"players": None, "choices": {"round": [1, 2]}}
    fixed = run(state, fix(1, result(ANN, Ann={"captured": [RUN_56789_0]}, Bob={"points": 5}, Cat={"points": 0}),
                           "Ann's six-card set"))
    first, second = fixed["rounds"]
    assert first["scores"] == {ANN: 14, BOB: 5, CAT: 0} and first["totals"] == {ANN: 14, BOB: 5, CAT: 0}
    assert second["totals"] == fixed["totals"] == {ANN: 15, BOB: 7, CAT: 3}
    [correction] = first["corrections"]
    assert correction["rule"] == "T-1" and correction["reason"] == "Ann's six-card set"
    assert correction["changes"] == {ANN: {"from": 10, "to": 14}} and correction["replaced"]["scores"][ANN] == 10
    assert first["players"][ANN] == {"captured": [RUN_56789_0], "hand": 0} and first["recorded"] == "rounds"
    assert fixed["events"][0]["rule"] == "T-1"
    # checked as a round result is
    refused(state, fix(1, result(ANN, Ann={"captured": [["5A", "5B"]]}, Bob={"points": 5}, Cat={"points": 0})),
            "S69-4")
    refused(state, fix(3, points(ANN)), "T-1")                                  # not played yet
    refused(state, fix(1, points(ANN), reason="  "), "T-1", InvalidInput)


def test_a_corrected_last_round_moves_the_next_deal_to_the_left_of_who_emptied_their_hand_S69_12():
    state = run(by_rounds(), points(ANN, Ann=10))
    assert state["dealer"] == BOB
    fixed = run(state, fix(1, points(BOB, Ann=10)))
    assert fixed["dealer"] == fixed["to_play"] == CAT and fixed["rounds"][0]["emptied"] == BOB
    assert fixed["events"][-1]["rule"] == "S69-12"
    # an earlier round's: that deal is done
    later = run(state, points(CAT, Bob=2))
    assert run(later, fix(1, points(BOB, Ann=10)))["dealer"] == ANN


def test_a_round_refereed_move_by_move_is_adjusted_not_corrected_T1():
    state = ended_by_moves(dealt(g.new_game(P3)))
    assert "correct_round" not in g.GAME.allowed(state)
    error = refused(state, fix(1, points(ANN)), "T-1")
    assert "adjust" in error.detail and error.legal == {"type": ["adjust"], "round": []}
    state = run(state, points(BOB, Bob=6))
    assert g.GAME.allowed(state)["correct_round"]["choices"] == {"round": [2]}
    refused(state, fix(1, points(ANN)), "T-1")
    # a round in progress is no finished round either
    refused(dealt(state), fix(3, points(ANN)), "T-1")


def test_a_correction_between_rounds_may_end_the_game_and_after_the_end_needs_change_result_T1_T3():
    state = run(by_rounds(), points(ANN, Ann=60), points(BOB, Ann=5, Bob=3))
    over = run(state, fix(1, points(ANN, Ann=66)))
    assert g.outcome(over)["status"] == "finished" and g.outcome(over)["winners"] == [ANN]
    assert over["round"] == 2 and g.outcome(over)["reason"] == "Ann reached 69 points at the end of round 2."
    # after the end: a change of the result needs the table's say-so
    error = refused(over, fix(1, points(ANN, Ann=60)), "T-1")
    assert error.legal == {"change_result": [True]}
    on = run(over, fix(1, points(ANN, Ann=60), change_result=True))
    assert g.outcome(on)["status"] == "in_progress" and on["round"] == 3
    assert on["dealer"] == on["to_play"] == CAT and on["phase"] == "round_over"   # left of Bob, who emptied
    assert on["totals"] == {ANN: 65, BOB: 3, CAT: 0}
    # a correction that keeps the result is taken as it is
    kept = run(over, fix(2, points(BOB, Ann=6, Bob=3)))
    assert g.outcome(kept)["winners"] == [ANN] and kept["totals"][ANN] == 72


def test_a_game_that_ended_with_a_round_goes_on_after_a_correction_with_the_next_dealer_S69_12():
    state = run(by_rounds(), points(ANN, Ann=70))
    assert g.outcome(state)["status"] == "finished" and state["round"] == 1
    on = run(state, fix(1, points(CAT, Ann=50), change_result=True))
    assert g.outcome(on)["status"] == "in_progress" and on["round"] == 2 and on["dealer"] == ANN  # left of Cat


def test_a_correction_during_a_round_counts_at_its_end_S69_12():
    state = run(by_rounds(), points(ANN, Ann=60), {"type": "switch_record", "record": "moves"})
    playing = dealt(state)
    fixed = run(playing, fix(1, points(ANN, Ann=70)))
    assert g.outcome(fixed)["status"] == "in_progress" and fixed["phase"] == "turn" and fixed["totals"][ANN] == 70
    assert g.outcome(ended_by_moves(fixed))["winners"] == [ANN]


def test_a_correction_that_would_take_a_total_below_0_is_refused_T1():
    state = run(by_rounds(), points(ANN, Bob=10))
    state = run(state, {"type": "adjust", "player": BOB, "points": -8, "reason": "slow play"})
    refused(state, fix(1, points(ANN, Bob=5)), "T-1")
    assert run(state, fix(1, points(ANN, Bob=8)))["totals"][BOB] == 0


# ---------------------------------------------------------------- the log replays

def test_a_game_by_rounds_replays_from_its_log_through_json():
    moves = [points(ANN, Ann=10), result(BOB, Ann={"captured": [SPECIALS], "hand": 1}, Bob={"captured": [FIVES]},
                                         Cat={"captured": [], "hand": 4}),
             fix(1, points(CAT, Ann=12)), {"type": "switch_record", "record": "moves"},
             {"type": "deal", "dealer": CAT, "flip": "7B"}]
    state = replay = by_rounds()
    for move in moves:
        state = g.GAME.apply(state, move)
        replay = g.GAME.apply(json.loads(json.dumps(replay)), json.loads(json.dumps(move)))
    assert json.dumps(replay, sort_keys=True) == json.dumps(state, sort_keys=True)
    view = public_state(g.GAME, state)
    assert json.loads(json.dumps(view)) == view and view["record"] == "moves" and view["dealer"] == CAT
    assert g.MOVES["round_result"].text(points(BOB)) == "Round result: Bob's hand emptied first"
