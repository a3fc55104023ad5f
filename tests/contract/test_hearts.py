"""Hearts, the seventh game of the tests (``hearts.py`` beside this file), scenario by scenario from
its rulings (HE-1..HE-8) and the table's own (T-1..T-4); and its registration for the whole run
(``tests/conftest.py``), through which every test of "every registered game" covers it."""
from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest

from referee.errors import IllegalMove, InvalidInput
from referee.rules import ENGINES

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hearts  # noqa: E402

P4 = ["Ann", "Bob", "Cid", "Dee"]
CLUBS = [rank + "C" for rank in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")]


def play(state, *moves):
    for move in moves:
        state = hearts.GAME.apply(state, move)
    return state


def refused(state, move, rule, exc=IllegalMove):
    before = copy.deepcopy(state)
    with pytest.raises(exc) as info:
        hearts.GAME.apply(state, move)
    assert info.value.rule == rule, (info.value.rule, str(info.value.detail))
    assert state == before
    return info.value


def trick(leader, *cards):
    return {"type": "trick", "leader": leader, "cards": list(cards)}


def hand(**points):
    return {"type": "hand_result", "points": points}


def test_the_run_registers_it_and_every_game_test_finds_it():
    assert ENGINES["hearts"] is sys.modules["hearts"].GAME  # the module this file imports, as tests/conftest.py registered it


def test_the_tests_app_types_it_and_productions_does_not_know_it(app, production_app):
    served = app.extensions["referee_api"].spec.to_dict()["components"]["schemas"]
    assert set(served["HeartsMove"]["discriminator"]["mapping"]) == set(hearts.MOVES)
    assert served["HeartsTrickVerdictRequest"]["example"] == {"cards": ["5H", "QS", "KH", "2H"]}
    assert served["HeartsOptions"]["properties"]["moon"]["enum"] == ["add", "subtract", "none"]
    production = production_app.extensions["referee_api"].spec.to_dict()["components"]["schemas"]
    assert not [name for name in production if name.startswith("Hearts")]
    assert "hearts" in ENGINES  # and the registry is the run's again


def test_a_trick_is_taken_by_the_highest_card_of_the_suit_led_and_its_winner_leads_the_next():
    state = play(hearts.new_game(P4), trick("Bob", "2C", "QS", "KH", "5C"))  # Bob, Cid, Dee, Ann: clockwise
    assert state["tricks"][-1] == {"leader": "Bob", "cards": ["2C", "QS", "KH", "5C"], "winner": "Ann", "points": 14}
    assert state["taken"] == {"Ann": 14, "Bob": 0, "Cid": 0, "Dee": 0} and state["phase"] == "play"
    assert hearts.GAME.allowed(state)["trick"]["players"] == ["Ann"] and "hand_result" not in hearts.GAME.allowed(state)
    error = refused(state, trick("Bob", "3C", "4C", "6C", "7C"), "HE-3")           # Ann took it: Ann leads
    assert error.legal == {"leader": ["Ann"]}
    refused(state, trick("Ann", "KH", "3C", "4C", "6C"), "HE-1")                    # KH is already on the table
    refused(state, trick("Ann", "3C", "3C", "4C", "6C"), "HE-1")                    # one deck
    refused(state, trick("Ann", "3C", "4C", "6C"), "HE-4")                          # one card from each player
    refused(state, trick("Ann", "3C", "4C", "6C", "ZZ"), "HE-1", InvalidInput)      # no such card (G-3)


def test_the_first_trick_is_led_with_the_lowest_club_in_the_deck():
    state = hearts.new_game(P4)
    assert hearts.GAME.allowed(state)["trick"] == {"players": P4, "facts": {"first_lead": "2C"}}
    refused(state, trick("Ann", "3C", "2C", "4C", "5C"), "HE-3")
    three = hearts.new_game(P4[:3])
    refused(three, trick("Ann", "2C", "2D", "4C"), "HE-1")  # three players: the 2D leaves the deck
    five = hearts.new_game([*P4, "Eve"])
    assert hearts.GAME.allowed(five)["trick"]["facts"] == {"first_lead": "3C"}  # five: the 2C leaves it too


def test_a_hand_of_tricks_is_scored_at_its_last_trick():
    state = hearts.new_game(P4)
    suits = [[rank + suit for rank in hearts.RANK_ORDER] for suit in "CDSH"]  # each suit low to high
    leader = "Ann"
    for cards in (suit[i:i + 4] for suit in suits for i in range(0, 12, 4)):
        state = hearts.GAME.apply(state, trick(leader, *cards))
        leader = state["to_play"] or leader
    # the thirteenth: the last club, diamond, spade and heart, led with the AC
    state = hearts.GAME.apply(state, trick(leader, "AC", "AD", "AS", "AH"))
    [entry] = state["rounds"]
    assert sum(entry["taken"].values()) == 26 and entry["entered"] == "tricks"
    assert state["totals"] == entry["scores"] and state["hand"] == 2 and state["phase"] == "deal"
    assert state["tricks"] == [] and hearts.public_view(state)["pass"] == "right"  # HE-2: left, right, across, hold


def test_a_hand_entered_whole_adds_up_to_26():
    state = hearts.new_game(P4, {"record": "rounds"})
    refused(state, hand(Ann=10, Bob=10, Cid=5, Dee=0), "HE-5")
    refused(state, hand(Ann=13, Bob=13), "HE-5")                                    # every player's points
    error = refused(state, hand(Ann=27, Bob=0, Cid=0, Dee=-1), "HE-5")
    assert error.legal == {"points": {"Ann": {"minimum": 0, "maximum": 26}}}
    refused(state, trick("Ann", "2C", "3C", "4C", "5C"), "T-4")                     # recording by rounds
    state = hearts.GAME.apply(state, hand(Ann=13, Bob=1, Cid=4, Dee=8))
    assert state["totals"] == {"Ann": 13, "Bob": 1, "Cid": 4, "Dee": 8}


@pytest.mark.parametrize("moon, scores", [("add", {"Ann": 0, "Bob": 26, "Cid": 26, "Dee": 26}),
                                          ("subtract", {"Ann": -26, "Bob": 0, "Cid": 0, "Dee": 0}),
                                          ("none", {"Ann": 26, "Bob": 0, "Cid": 0, "Dee": 0})])
def test_shooting_the_moon_scores_as_the_house_rule_says(moon, scores):
    state = hearts.GAME.apply(hearts.new_game(P4, {"moon": moon}), hand(Ann=26, Bob=0, Cid=0, Dee=0))
    entry = state["rounds"][0]
    assert entry["scores"] == scores and state["totals"] == scores
    assert {p: sum(line["points"] for line in lines) for p, lines in entry["breakdown"].items()} == scores
    rules = {line["rule"] for lines in entry["breakdown"].values() for line in lines}
    assert rules == {"HE-5", "HE-6"} if moon == "add" else rules == {"HE-5", "HE-8"} if moon == "subtract" else \
        rules == {"HE-5"}


def test_the_game_ends_at_the_end_of_the_hand_that_reaches_the_target_and_the_lowest_total_wins():
    state = play(hearts.new_game(P4, {"target": 30}), hand(Ann=20, Bob=6, Cid=0, Dee=0))
    assert hearts.outcome(state)["status"] == "in_progress"
    state = hearts.GAME.apply(state, hand(Ann=10, Bob=10, Cid=6, Dee=0))
    assert hearts.outcome(state) == {"status": "finished", "winners": ["Dee"], "rule": "HE-7",
                                     "reason": "A total reached the target (30) at the end of hand 2; the lowest "
                                               "total wins."}
    assert set(hearts.GAME.allowed(state)) == {"adjust", "correct_round"}
    tied = play(hearts.new_game(P4[:3], {"target": 20}), hand(Ann=26, Bob=0, Cid=0))  # the moon: Bob and Cid 26
    assert hearts.outcome(tied)["winners"] == ["Ann"]
    shared = play(hearts.new_game(P4[:3], {"target": 20}), hand(Ann=20, Bob=3, Cid=3))
    assert hearts.outcome(shared)["winners"] == ["Bob", "Cid"]  # ties share


def test_a_hand_entered_whole_is_corrected_and_one_scored_trick_by_trick_is_adjusted_instead():
    state = play(hearts.new_game(P4, {"target": 25}), hand(Ann=20, Bob=6, Cid=0, Dee=0))
    fixed = hearts.GAME.apply(state, {"type": "correct_round", "round": 1, "reason": "Bob's hearts were Cid's",
                                 "points": {"Ann": 20, "Bob": 0, "Cid": 6, "Dee": 0}})
    assert fixed["totals"] == {"Ann": 20, "Bob": 0, "Cid": 6, "Dee": 0}
    assert fixed["rounds"][0]["corrections"][0]["changes"] == {"Bob": {"from": 6, "to": 0}, "Cid": {"from": 0, "to": 6}}
    # between hands, a correction that takes a total to the target ends the game at once (HE-7)
    over = hearts.GAME.apply(fixed, {"type": "correct_round", "round": 1, "reason": "Ann took every heart",
                                "points": {"Ann": 26, "Bob": 0, "Cid": 0, "Dee": 0}})
    assert hearts.outcome(over)["winners"] == ["Ann"] and over["hand"] == 1  # the moon: the others 26
    # after the end, a change of the result needs change_result (T-3)
    refused(over, {"type": "adjust", "player": "Ann", "points": 40, "reason": "a revoke"}, "T-2")
    again = hearts.GAME.apply(over, {"type": "correct_round", "round": 1, "reason": "it was right", "change_result": True,
                                "points": {"Ann": 20, "Bob": 6, "Cid": 0, "Dee": 0}})
    assert hearts.outcome(again)["status"] == "in_progress" and again["hand"] == 2 and again["phase"] == "deal"
    # a hand the referee scored trick by trick is not corrected: the table adjusts a score (T-2)
    played = hearts.new_game(P4)
    played["rounds"] = [{**hearts._hand_entry(played, 1, {"Ann": 26, "Bob": 0, "Cid": 0, "Dee": 0}, "tricks"),
                         "totals": {"Ann": 0, "Bob": 26, "Cid": 26, "Dee": 26}}]
    played["hand"] = 2
    refused(played, {"type": "correct_round", "round": 1, "reason": "x", "points": {"Ann": 26, "Bob": 0, "Cid": 0,
                                                                                    "Dee": 0}}, "T-1")


def test_the_table_switches_how_it_records_between_hands_only():
    state = play(hearts.new_game(P4), trick("Ann", "2C", "3C", "4C", "5C"))
    refused(state, {"type": "switch_record", "record": "rounds"}, "T-4")
    refused(state, hand(Ann=26, Bob=0, Cid=0, Dee=0), "T-4")
    fresh = hearts.GAME.apply(hearts.new_game(P4), {"type": "switch_record", "record": "rounds"})
    assert set(hearts.GAME.allowed(fresh)) == {"hand_result", "adjust", "switch_record"}


def test_the_trick_verdict_says_who_takes_it_and_its_points():
    verdict = hearts.JUDGES["trick"].fn({"cards": ["5H", "QS", "KH", "2H"]})
    assert (verdict["position"], verdict["card"], verdict["points"]) == (3, "KH", 16)
    assert str(verdict["says"]) == "Card 3 (KH) takes the trick, the highest H (HE-4): 16 points (HE-5)."
    for body, rule in (({"cards": ["5H", "5H", "2C"]}, "HE-1"), ({"cards": ["5H", "2C"]}, "HE-1"),
                       ({"cards": ["5H", "2C", "ZZ"]}, "HE-1")):
        with pytest.raises((IllegalMove, InvalidInput)) as info:
            hearts.JUDGES["trick"].fn(body)
        assert info.value.rule == rule
