"""Ninety-nine rounds entered whole (T-4) and corrected (T-1): the `record` option, the round result
checked as far as tokens tell (N99-5, N99-6, N99-7), the next round's first player (N99-2), the
switch between rounds only, and corrections of rounds entered whole, never of rounds refereed card
by card. Every refusal names its ruling and changes nothing."""
from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine_checks import refused_by
from referee.rules import ninety_nine as n99
from referee.rules.base import IllegalMove, InvalidInput, public_state

ABC = ["Ann", "Bob", "Cid"]
ABCD = ["Ann", "Bob", "Cid", "Dee"]


def whole(lost: dict, ended_by: str, ending: str | None = None) -> dict:
    move = {"type": "round_result", "lost": lost, "ended_by": ended_by}
    if ending is not None:
        move["ending"] = ending
    return move


def fix(number: int, lost: dict, ended_by: str, ending: str | None = None, reason: str = "miscounted",
        **extra) -> dict:
    return {**whole(lost, ended_by, ending), "type": "correct_round", "round": number, "reason": reason, **extra}


def by_rounds(players=ABC, **options) -> dict:
    return n99.new_game(players, {"record": "rounds", **options})


def refused(state, move, rule, exc=IllegalMove):
    return refused_by(n99.GAME, state, move, exc, rule=rule)


def play(state, player, card, value=None):
    move = {"type": "play", "player": player, "card": card}
    if value is not None:
        move["value"] = value
    return n99.GAME.apply(state, move)


# ---------------------------------------------------------------- the option and the mode (T-4)

def test_the_record_option_defaults_to_moves_and_is_kept_in_the_state_t4():
    state = n99.new_game(ABC)
    assert state["record"] == "moves" and state["options"]["record"] == "moves"
    assert public_state(n99.GAME, state)["record"] == "moves"
    assert by_rounds()["record"] == "rounds"
    with pytest.raises(InvalidInput) as caught:
        n99.new_game(ABC, {"record": "hands"})
    assert caught.value.rule == "T-4"


def test_recording_by_rounds_offers_the_round_entry_and_refuses_cards_t4():
    state = by_rounds()
    allowed = n99.GAME.allowed(state)
    assert set(allowed) == {"round_result", "switch_record", "adjust"}
    assert allowed["round_result"] == {"players": None, "choices": {"ended_by": ABC}}
    error = refused(state, {"type": "play", "player": "Ann", "card": "5S"}, "T-4")
    assert error.legal == {"type": ["round_result", "switch_record"]}
    refused(state, {"type": "missed_draw", "player": "Ann"}, "T-4")


# ---------------------------------------------------------------- a round entered whole

def test_a_round_entered_whole_takes_the_tokens_and_the_next_round_starts_one_seat_left_n99_2():
    state = by_rounds()
    after = n99.GAME.apply(state, whole({"Bob": 2, "Cid": 3}, "Ann", "reached_99"))
    assert after["tokens"] == {"Ann": 9, "Bob": 7, "Cid": 6}
    assert after["round"] == 2 and after["to_play"] == "Bob" and after["total"] == 0
    entry = after["rounds"][0]
    assert entry["recorded"] == "rounds" and entry["round"] == 1 and entry["starter"] == "Ann"
    assert entry["scores"] == {"Ann": 0, "Bob": -2, "Cid": -3}      # tokens lost, as refereed rounds keep them
    assert entry["totals"] == {"Ann": 9, "Bob": 7, "Cid": 6}
    assert entry["lost"] == {"Ann": 0, "Bob": 2, "Cid": 3}          # a player left out lost none
    assert entry["ended_by"] == "Ann" and entry["ending"] == "reached_99"
    assert entry["breakdown"]["Ann"][0]["rule"] == "N99-5" and entry["breakdown"]["Bob"][0]["rule"] == "T-4"
    assert [e["rule"] for e in after["events"]] == ["T-4", "N99-2"]
    # without an ending said, the losses only have to fit some way to end
    third = n99.GAME.apply(after, whole({"Cid": 2}, "Cid"))
    assert third["tokens"]["Cid"] == 4 and third["to_play"] == "Cid" and third["rounds"][-1]["ending"] is None


def test_the_next_first_player_skips_who_went_out_n99_2_n99_6():
    # Bob goes out in round 1: round 2 starts at Cid, one seat left of Ann skipping Bob
    after = n99.GAME.apply(by_rounds(ABCD, tokens=2), whole({"Bob": 2}, "Bob", "passed_99"))
    assert after["out"] == ["Bob"] and after["to_play"] == "Cid"
    assert any(e["rule"] == "N99-6" and "Bob" in e["text"] for e in after["events"])
    assert n99.GAME.allowed(after)["round_result"]["choices"] == {"ended_by": ["Ann", "Cid", "Dee"]}
    # Cid goes out in round 2, which Cid started: round 3 starts at Dee
    after = n99.GAME.apply(after, whole({"Cid": 2}, "Cid", "no_card"))
    assert after["out"] == ["Bob", "Cid"] and after["to_play"] == "Dee"


def test_a_round_that_leaves_one_player_in_ends_the_game_n99_6():
    state = by_rounds(tokens=2)
    state = n99.GAME.apply(state, whole({"Cid": 2}, "Cid", "no_card"))
    over = n99.GAME.apply(state, whole({"Bob": 2}, "Ann", "reached_99"))
    outcome = n99.outcome(over)
    assert outcome["status"] == "finished" and outcome["winners"] == ["Ann"] and outcome["rule"] == "N99-6"
    assert over["phase"] == "finished" and over["to_play"] is None and len(over["rounds"]) == 2
    assert set(n99.GAME.allowed(over)) == {"adjust", "correct_round"}
    refused(over, whole({"Ann": 1}, "Ann", "passed_99"), "N99-6")  # the game is over
    # a round that ends the game by putting all but one out needs no 99: Bob passed 33 with his last token
    short = n99.GAME.apply(by_rounds(["Ann", "Bob"], tokens=1), whole({"Bob": 1}, "Bob"))
    assert short["winners"] == ["Ann"]


@pytest.mark.parametrize("move,rule", [
    (whole({"Bob": -1}, "Ann"), "N99-5"),                                    # a round never gives tokens back
    (whole({"Bob": 10}, "Ann"), "N99-6"),                                    # more than Bob holds
    (whole({"Ann": 9, "Bob": 9, "Cid": 9}, "Ann"), "N99-6"),                 # nobody left in
    (whole({"Ann": 9, "Bob": 2, "Cid": 2}, "Ann", "reached_99"), "N99-5"),   # the ender of a 99 stays in
    (whole({"Bob": 2, "Cid": 1}, "Ann", "reached_99"), "N99-5"),             # Cid lost two at the 99
    (whole({"Ann": 1}, "Ann", "passed_99"), "N99-5"),                        # over 99 costs two
    (whole({"Ann": 2}, "Ann", "no_card"), "N99-7"),                          # no card costs three
    (whole({"Bob": 1}, "Ann"), "N99-5"),                                     # fits no way to end
    (whole({}, "Ann"), "N99-5"),                                             # a round costs someone something
])
def test_what_no_round_can_cause_is_refused_with_its_ruling_and_changes_nothing(move, rule):
    refused(by_rounds(), move, rule)


def test_malformed_round_entries_are_refused_as_malformed():
    state = by_rounds()
    for move in (whole({"Bob": 1.5}, "Ann"), whole({"Bob": "2"}, "Ann"), whole({"Bob": True}, "Ann"),
                 whole({"Zed": 2}, "Ann"), whole(["Bob"], "Ann"), whole({"Bob": 2}, "Zed"),
                 whole({"Bob": 2}, "Ann", "won"), {"type": "round_result", "lost": {"Bob": 2}}):
        refused(state, move, None, InvalidInput)


def test_the_ruling_of_a_player_already_out_n99_6():
    state = n99.GAME.apply(by_rounds(tokens=2), whole({"Cid": 2}, "Cid", "passed_99"))   # Cid is out
    refused(state, whole({"Cid": 1, "Bob": 2}, "Ann", "reached_99"), "N99-6")       # Cid loses nothing now
    refused(state, whole({"Ann": 2}, "Cid", "passed_99"), "N99-6")                  # nor ends a round
    ok = n99.GAME.apply(state, whole({"Cid": 0, "Bob": 2}, "Ann", "reached_99"))          # a 0 for Cid is no loss
    assert ok["winners"] == ["Ann"]


def test_who_holds_fewer_than_the_cost_loses_what_they_hold_n99_5_n99_6():
    state = n99.GAME.apply(by_rounds(tokens=3), whole({"Bob": 2, "Cid": 2}, "Ann", "reached_99"))  # Bob, Cid hold 1
    after = n99.GAME.apply(state, whole({"Bob": 1, "Ann": 2}, "Cid", "reached_99"))    # Bob's last token, not two
    assert after["tokens"] == {"Ann": 1, "Bob": 0, "Cid": 1} and after["out"] == ["Bob"]
    refused(state, whole({"Bob": 1}, "Ann", "no_card"), "N99-7")                  # Ann held 3: loses three
    assert n99.GAME.apply(state, whole({"Cid": 1}, "Cid", "no_card"))["out"] == ["Cid"]


def test_over_99_or_no_card_needs_someone_else_still_in_n99_6():
    state = n99.GAME.apply(by_rounds(tokens=4), whole({"Cid": 4}, "Cid", "passed_99"))   # Cid out
    # Bob out before Ann's last turn would have ended the game there, Ann the last one in
    refused(state, whole({"Bob": 4, "Ann": 2}, "Ann", "passed_99"), "N99-6")
    refused(state, whole({"Bob": 4, "Ann": 3}, "Ann", "no_card"), "N99-6")
    assert n99.GAME.apply(state, whole({"Bob": 4}, "Bob", "passed_99"))["winners"] == ["Ann"]


# ---------------------------------------------------------------- between rounds, in either mode (T-4)

def test_recording_moves_a_whole_round_is_taken_only_before_the_first_card_t4():
    state = n99.new_game(ABC)
    assert n99.GAME.allowed(state)["round_result"]["choices"] == {"ended_by": ABC}
    entered = n99.GAME.apply(state, whole({"Ann": 2}, "Ann", "passed_99"))
    assert entered["record"] == "moves" and entered["to_play"] == "Bob"
    begun = play(entered, "Bob", "7H")
    assert "round_result" not in n99.GAME.allowed(begun) and "switch_record" not in n99.GAME.allowed(begun)
    error = refused(begun, whole({"Bob": 2}, "Bob", "passed_99"), "T-4")
    assert "under way" in error.detail
    refused(begun, {"type": "switch_record", "record": "rounds"}, "T-4")


def test_the_table_switches_between_rounds_and_the_seats_go_on_turning_n99_2_t4():
    state = n99.new_game(ABC)
    for player, card in [("Ann", "KS"), ("Bob", "KH"), ("Cid", "KD"), ("Ann", "KC"), ("Bob", "QS"),
                         ("Cid", "QH"), ("Ann", "QD"), ("Bob", "QC"), ("Cid", "JS")]:
        state = play(state, player, card)
    state = play(state, "Bob", "10S", 10)   # Cid's J skipped Ann: Bob, 90 -> 100: over 99
    assert state["round"] == 2 and state["to_play"] == "Bob" and "recorded" not in state["rounds"][0]
    state = n99.GAME.apply(state, {"type": "switch_record", "record": "rounds"})
    assert state["record"] == "rounds" and state["events"][-1]["rule"] == "T-4"
    refused(state, {"type": "switch_record", "record": "rounds"}, "T-4")   # already so
    state = n99.GAME.apply(state, whole({"Ann": 3}, "Ann", "no_card"))
    assert state["to_play"] == "Cid"                                     # round 3: one seat left of Bob
    state = n99.GAME.apply(state, {"type": "switch_record", "record": "moves"})
    assert set(n99.GAME.allowed(state)) == {"play", "round_result", "correct_round", "switch_record", "adjust"}
    assert play(state, "Cid", "5S")["total"] == 5


# ---------------------------------------------------------------- corrections (T-1)

def test_a_whole_round_is_corrected_and_the_tokens_follow_t1():
    state = n99.GAME.apply(by_rounds(), whole({"Bob": 2, "Cid": 2}, "Ann", "reached_99"))
    state = n99.GAME.apply(state, whole({"Bob": 2}, "Bob", "passed_99"))
    assert n99.GAME.allowed(state)["correct_round"]["choices"] == {"round": [1, 2]}
    fixed = n99.GAME.apply(state, fix(1, {"Bob": 2, "Cid": 4}, "Ann", "reached_99", reason="Cid also passed 66"))
    assert fixed["tokens"] == {"Ann": 9, "Bob": 5, "Cid": 5}
    first, second = fixed["rounds"]
    assert first["scores"]["Cid"] == -4 and first["totals"]["Cid"] == 5 and second["totals"]["Cid"] == 5
    assert first["corrections"][0]["replaced"]["scores"]["Cid"] == -2 and first["corrections"][0]["rule"] == "T-1"
    assert fixed["to_play"] == state["to_play"] and fixed["round"] == 3
    # checked as the first entry was, from the tokens held when the round began
    refused(state, fix(1, {"Bob": 2, "Cid": 10}, "Ann", "reached_99"), "N99-6")
    refused(state, fix(1, {"Bob": 1, "Cid": 2}, "Ann", "reached_99"), "N99-5")
    refused(state, fix(3, {"Bob": 2}, "Bob", "passed_99"), "T-1")     # round 3 is in progress
    refused(state, fix(1, {"Bob": 2}, "Bob", "passed_99", reason=" "), "T-1", InvalidInput)  # why, never blank


def test_a_round_refereed_card_by_card_is_not_corrected_but_adjusted_t1_t2():
    state = play(n99.new_game(["Ann", "Bob"]), "Ann", "AS", 11)
    state = play(state, "Bob", "2S")          # 22
    state = play(state, "Ann", "2H")          # 44: passes 33
    state = play(state, "Bob", "2D")          # 88: passes 66
    state = play(state, "Ann", "KS")          # 98
    state = play(state, "Bob", "AD", 1)       # 99: Bob wins the round
    assert state["round"] == 2 and "correct_round" not in n99.GAME.allowed(state)
    error = refused(state, fix(1, {"Ann": 2}, "Bob", "reached_99"), "T-1")
    assert error.legal["type"] == ["adjust"] and "adjust" in error.detail
    state = n99.GAME.apply(state, whole({"Bob": 2}, "Ann", "reached_99"))
    assert n99.GAME.allowed(state)["correct_round"]["choices"] == {"round": [2]}


def test_correcting_the_last_round_brings_back_a_player_it_put_out_and_restarts_the_next_round_n99_2():
    state = n99.GAME.apply(by_rounds(ABCD, tokens=2), whole({"Bob": 2, "Cid": 2, "Dee": 2}, "Ann", "reached_99"))
    assert state["winners"] == ["Ann"]
    refused(state, fix(1, {"Bob": 2, "Cid": 2, "Dee": 1}, "Ann", "reached_99"), "N99-5")  # Dee held two
    refused(state, fix(1, {"Bob": 2, "Cid": 2}, "Ann", "passed_99"), "N99-5")              # over 99 costs two
    error = refused(state, fix(1, {"Ann": 2, "Cid": 2}, "Ann", "passed_99"), "T-1")        # the game goes on
    assert error.legal == {"change_result": [True]}
    on = n99.GAME.apply(state, fix(1, {"Ann": 2, "Cid": 2}, "Ann", "passed_99", change_result=True))
    assert on["out"] == ["Cid", "Ann"] and on["winners"] == [] and on["phase"] == "play"
    assert on["round"] == 2 and on["to_play"] == "Bob" and on["hand_sizes"] == {"Ann": 0, "Bob": 3, "Cid": 0,
                                                                                "Dee": 3}
    assert any(e["rule"] == "T-1" and "Bob" in e["text"] and "back" in e["text"] for e in on["events"])
    # the next round not begun yet starts again among the players now in: Dee back, Bob still first
    state = n99.GAME.apply(by_rounds(ABCD, tokens=2), whole({"Bob": 2}, "Bob", "passed_99"))
    assert state["to_play"] == "Cid"
    back = n99.GAME.apply(state, fix(1, {"Cid": 2}, "Cid", "passed_99"))
    assert back["out"] == ["Cid"] and back["to_play"] == "Bob" and back["round"] == 2


def test_an_adjustment_after_the_round_is_kept_by_its_correction_t1_t2():
    state = n99.GAME.apply(by_rounds(tokens=4), whole({"Bob": 2, "Cid": 2}, "Ann", "reached_99"))   # 4 2 2
    state = n99.GAME.apply(state, {"type": "adjust", "player": "Bob", "points": -2, "reason": "dealt badly"})
    assert state["out"] == ["Bob"] and state["to_play"] == "Cid"
    refused(state, fix(1, {"Bob": 5, "Cid": 2}, "Ann", "reached_99"), "N99-6")       # Bob held four
    error = refused(state, fix(1, {"Bob": 3, "Cid": 2}, "Ann", "reached_99"), "T-1")  # 4 - 3 - 2 < 0
    assert "fewer than no tokens" in error.detail
    # Cid went over 99 and Bob only passed 33: Bob keeps one token after the adjustment, and is back
    back = n99.GAME.apply(state, fix(1, {"Bob": 1, "Cid": 2}, "Cid", "passed_99"))
    assert back["tokens"] == {"Ann": 4, "Bob": 1, "Cid": 2} and back["out"] == []
    assert back["round"] == 2 and back["to_play"] == "Bob" and back["hand_sizes"]["Bob"] == 3


def test_an_earlier_round_is_corrected_only_if_every_later_round_stays_as_played_t1():
    state = n99.GAME.apply(by_rounds(tokens=4), whole({"Bob": 2, "Cid": 2}, "Ann", "reached_99"))   # 4 2 2
    state = n99.GAME.apply(state, whole({"Ann": 2, "Cid": 2}, "Bob", "reached_99"))                 # 2 2 0: Cid out
    assert state["out"] == ["Cid"] and state["to_play"] == "Ann"   # round 3: Cid's seat, skipped
    # Cid went out in round 2: taking another token from Cid in round 1 would change round 2
    error = refused(state, fix(1, {"Bob": 2, "Cid": 3}, "Ann", "reached_99"), "T-1")
    assert "Cid" in error.detail and "since round 1" in error.detail
    # Bob losing one more in round 1 leaves round 2 as it was played
    fixed = n99.GAME.apply(state, fix(1, {"Bob": 3, "Cid": 2}, "Ann", "reached_99"))
    assert fixed["tokens"] == {"Ann": 2, "Bob": 1, "Cid": 0} and fixed["rounds"][1]["totals"]["Bob"] == 1
    assert fixed["to_play"] == state["to_play"] and fixed["out"] == ["Cid"]
    # two more would have put Bob out in round 1, and he played round 2
    error = refused(state, fix(1, {"Bob": 4, "Cid": 2}, "Ann", "reached_99"), "T-1")
    assert "run out of tokens by round 1" in error.detail
    # Ann two tokens down after round 1 would have run out in round 2, which cost her two
    error = refused(state, fix(1, {"Ann": 2, "Bob": 2, "Cid": 2}, "Bob"), "T-1")
    assert "Ann" in error.detail and "by round 2" in error.detail


def test_an_earlier_correction_counts_tokens_given_back_during_later_rounds_t1_t2():
    state = n99.GAME.apply(n99.new_game(ABC, {"tokens": 4}), whole({"Bob": 2, "Cid": 2}, "Ann", "reached_99"))  # 4 2 2
    for player, card in [("Bob", "KS"), ("Cid", "KH"), ("Ann", "KD"), ("Bob", "5S")]:   # Bob passes 33: 1 left
        state = play(state, player, card)
    state = n99.GAME.apply(state, {"type": "adjust", "player": "Bob", "points": 2, "reason": "a forgotten bonus"})
    assert state["tokens"]["Bob"] == 3
    # one token fewer after round 1 and Bob would have had none when he passed 33, before the bonus
    error = refused(state, fix(1, {"Bob": 3, "Cid": 2}, "Ann", "reached_99"), "T-1")
    assert "Bob" in error.detail and "by round 2" in error.detail
    # one token more stands: nobody runs out on the way
    assert n99.GAME.apply(state, fix(1, {"Bob": 1, "Cid": 2}, "Cid", "passed_99"))["tokens"]["Bob"] == 4


def test_a_correction_during_a_round_under_way_keeps_it_t1():
    state = n99.GAME.apply(n99.new_game(ABC, {"tokens": 3}), whole({"Bob": 2, "Cid": 2}, "Ann", "reached_99"))
    state = play(state, "Bob", "5S")
    assert n99.GAME.allowed(state)["correct_round"]["choices"] == {"round": [1]}
    fixed = n99.GAME.apply(state, fix(1, {"Bob": 1, "Cid": 2}, "Cid", "passed_99"))   # Bob only passed 33
    assert fixed["tokens"] == {"Ann": 3, "Bob": 2, "Cid": 1} and fixed["total"] == 5 and fixed["to_play"] == "Cid"
    error = refused(state, fix(1, {"Bob": 3, "Cid": 2}, "Ann", "reached_99"), "T-1")   # Bob out, yet he played
    assert "round 1" in error.detail


@settings(max_examples=300, deadline=None)
@given(tokens=st.lists(st.integers(0, 4), min_size=2, max_size=5), ender=st.integers(0, 4),
       lost=st.lists(st.integers(-1, 5), min_size=5, max_size=5),
       ending=st.sampled_from([None, "reached_99", "passed_99", "no_card"]))
def test_a_round_entered_whole_leaves_a_possible_table_or_changes_nothing(tokens, ender, lost, ending):
    """Whatever is entered: either the tokens fall by what was entered, never below 0, with someone
    still in, or it is refused citing N99-5, N99-6 or N99-7 and nothing changes."""
    players = ["Ann", "Bob", "Cid", "Dee", "Eve"][:len(tokens)]
    if sum(1 for t in tokens if t) < 2:
        return
    state = n99.new_game(players, {"record": "rounds"})
    state["tokens"] = dict(zip(players, tokens))
    state["out"] = [p for p, t in zip(players, tokens) if not t]
    state["to_play"] = state["starter"] = next(p for p, t in zip(players, tokens) if t)
    move = whole(dict(zip(players, lost)), players[ender % len(players)], ending)
    before = copy.deepcopy(state)
    try:
        after = n99.GAME.apply(state, move)
    except IllegalMove as error:
        assert error.rule in ("N99-5", "N99-6", "N99-7") and state == before
        return
    assert all(after["tokens"][p] == before["tokens"][p] - lost[i] >= 0 for i, p in enumerate(players))
    assert 1 <= len([p for p in players if after["tokens"][p]]) and after["rounds"][-1]["totals"] == after["tokens"]
    assert set(after["out"]) == {p for p in players if not after["tokens"][p]}
    assert (after["winners"] != []) == (len([p for p in players if after["tokens"][p]]) == 1)
