"""XIX engine: every ruling X19-1..X19-7 (and G-2), legal and illegal, plus property tests."""
from __future__ import annotations

import json
from copy import deepcopy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.rules import xix
from referee.rules.base import IllegalMove, InvalidInput, public_state
from engine_checks import refused_by

ANN, BOB = "ann", "bob"
PLAYERS = [ANN, BOB]


# ------------------------------------------------------------------ helpers

def play(player, card, source="closed"):
    return {"type": "play", "player": player, "card": card, "from": source}


def decide(player, choice):
    return {"type": "decide", "player": player, "choice": choice}


def draft(player, card):
    return {"type": "draft", "player": player, "card": card}


def trade(player, card, source, slot, strike_card=None):
    return {"type": "trade", "player": player, "card": card, "from": source, "slot": slot,
            "strike_card": strike_card}


def run(state, *moves):
    for move in moves:
        state = xix.GAME.apply(state, move)
    return state


def trick(state, lead, follow, lead_from="closed", follow_from="closed"):
    """Play one trick: whoever is to play leads ``lead``, the other follows ``follow``."""
    leader = state["to_play"]
    other = BOB if leader == ANN else ANN
    return run(state, play(leader, lead, lead_from), play(other, follow, follow_from))


def refused(state, move, exc=IllegalMove, rule=None):
    return refused_by(xix.GAME, state, move, exc, rule)


def view(state):
    return public_state(xix.GAME, state)


def new(**options):
    return xix.new_game(PLAYERS, options or None)


def exchange_won_by_ann_3_0():
    """Ann takes three tricks (18>2, 17>3, 16>4): Bob's third strike ends the exchange."""
    state = new()
    state = trick(state, 18, 2)
    state = run(state, decide(BOB, "raise"))
    state = trick(state, 17, 3)
    state = run(state, decide(BOB, "raise"))
    return trick(state, 16, 4)


def after_draft(state, picks):
    """Draft ``picks`` in the order given, each by whoever is to pick."""
    for card in picks:
        state = run(state, draft(state["to_play"], card))
    return state


# ------------------------------------------------------------------ X19-1 / G-2: setup and options

def test_new_game_setup():
    state = new()
    v = view(state)
    assert v["phase"] == "trick" and v["status"] == "in_progress"
    assert v["to_play"] == ANN and v["leader"] == ANN          # G-2: the first listed plays first
    assert v["exchange"] == 1 and v["round"] == 1
    assert v["hand_sizes"] == {ANN: 6, BOB: 6}
    assert v["open_hands"] == {ANN: [], BOB: []}
    assert v["strike_row"] == [{"face": "down", "card": None}] * 5
    assert v["strikes"] == {ANN: 0, BOB: 0} and v["stakes"] == 0
    assert v["points"] == v["standings"] == {ANN: 0, BOB: 0}
    assert v["trick"] == [] and v["winners"] == [] and v["rounds"] == []
    assert v["unseen"] == list(range(1, 19))
    json.dumps(state)
    json.dumps(v)


def test_first_leader_option_is_the_tables_choice():
    state = new(first_leader=BOB)
    assert view(state)["to_play"] == BOB
    refused(state, play(ANN, 5), rule="X19-2")
    assert view(run(state, play(BOB, 5)))["to_play"] == ANN


@pytest.mark.parametrize("players, options", [
    (["ann"], None), (["ann", "bob", "cy"], None), (["ann", "ANN"], None), ("ann,bob", None),
    (PLAYERS, {"first_leader": "cy"}), (PLAYERS, {"first_leader": 1}), (PLAYERS, {"leader": ANN}),
    (PLAYERS, ["first_leader"]),
])
def test_bad_setup_is_invalid_input(players, options):
    with pytest.raises(InvalidInput):
        xix.new_game(players, options)


def test_module_interface():
    assert xix.NAME == "xix" and xix.PLAYERS == (2, 2)
    assert set(xix.RULINGS) == {"G-1", "G-2"} | {f"X19-{i}" for i in range(1, 9)} | {"T-1", "T-2", "T-4"}
    assert set(xix.MOVES) == {"play", "decide", "draft", "trade", "exchange_result", "correct_round", "switch_record",
                              "adjust"}
    assert xix.OPTIONS["first_leader"]["default"] is None
    assert set(xix.JUDGES) == {"trick"}


def test_public_view_has_every_field():
    keys = {"status", "round", "to_play", "standings", "winners", "rounds", "phase", "exchange", "trick",
            "strikes", "stakes", "points", "open_hands", "hand_sizes", "strike_row"}
    assert keys <= set(view(new()))
    assert not {"players", "game", "version", "id"} & set(view(new()))


# ------------------------------------------------------------------ X19-2: tricks

@pytest.mark.parametrize("lead, follow, winner", [
    (10, 9, "follow"), (9, 10, "lead"),        # 19: the lower card takes it
    (1, 18, "lead"), (18, 1, "follow"),
    (7, 12, "lead"), (12, 7, "follow"),
    (18, 2, "lead"), (2, 18, "follow"),        # 20: the higher card
    (10, 8, "lead"), (8, 12, "follow"),        # 18 and 20: next to 19
    (17, 18, "follow"), (1, 2, "follow"),
])
def test_judge_trick(lead, follow, winner):
    verdict = xix.JUDGES["trick"].fn({"lead": lead, "follow": follow})
    assert verdict["winner"] == winner and verdict["rule"] == "X19-2"
    assert set(verdict) == {"winner", "rule", "explanation", "says"}
    assert str(lead + follow) in verdict["explanation"]


def test_judge_trick_accepts_numeric_strings():
    assert xix.JUDGES["trick"].fn({"lead": "10", "follow": " 9 "})["winner"] == "follow"


def test_judge_equal_cards_are_impossible():
    with pytest.raises(IllegalMove) as info:
        xix.JUDGES["trick"].fn({"lead": 7, "follow": 7})
    assert info.value.rule == "X19-1"


@pytest.mark.parametrize("body", [
    {}, {"lead": 3}, {"lead": 3, "follow": 4, "extra": 1}, {"lead": True, "follow": 4},
    {"lead": 0, "follow": 4}, {"lead": 19, "follow": 4}, {"lead": "x", "follow": 4},
    {"lead": [3], "follow": 4}, {"lead": 3.0, "follow": 4}, {"lead": None, "follow": 4}, [3, 4], "3,4",
])
def test_judge_malformed_is_invalid_input(body):
    with pytest.raises(InvalidInput):
        xix.JUDGES["trick"].fn(body)


@given(st.integers(1, 18), st.integers(1, 18))
def test_judge_swapping_lead_and_follow_swaps_the_winner(a, b):
    if a == b:
        return
    first = xix.JUDGES["trick"].fn({"lead": a, "follow": b})["winner"]
    second = xix.JUDGES["trick"].fn({"lead": b, "follow": a})["winner"]
    assert {first, second} == {"lead", "follow"}
    taker = a if first == "lead" else b
    assert taker == (min(a, b) if a + b == 19 else max(a, b))


def test_nineteen_sum_in_play_lower_card_takes_and_leads_next():
    state = trick(new(), 10, 9)                 # ann leads 10, bob 9: sum 19
    v = view(state)
    assert v["tricks"][0]["winner"] == BOB and v["leader"] == BOB
    assert v["strikes"] == {ANN: 1, BOB: 0}
    state = run(state, decide(ANN, "raise"))
    assert view(state)["to_play"] == BOB        # the taker leads the next trick
    refused(state, play(ANN, 5), rule="X19-2")


def test_higher_card_takes_when_sum_is_not_19():
    state = trick(new(), 12, 11)                # 23: higher wins
    assert view(state)["tricks"][0]["winner"] == ANN and view(state)["strikes"][BOB] == 1


def test_trick_in_progress_is_public():
    state = run(new(), play(ANN, 12))
    v = view(state)
    assert v["trick"] == [{"player": ANN, "card": 12}] and v["to_play"] == BOB
    assert v["exchange_cards"] == [12] and 12 not in v["unseen"]
    refused(state, play(ANN, 11), rule="X19-2")       # the leader cannot play twice


def test_wrong_player_cannot_lead():
    refused(new(), play(BOB, 3), rule="X19-2")


def test_play_while_a_decision_is_due_is_refused():
    state = trick(new(), 12, 11)
    refused(state, play(ANN, 5), rule="X19-3")
    refused(state, play(BOB, 5), rule="X19-3")


def test_taker_of_the_last_trick_leads_the_next_exchange():
    state = new()
    state = trick(state, 2, 18)                  # bob takes it
    state = run(state, decide(ANN, "abandon"))   # bob wins the exchange
    state = after_draft(state, [2, 18])
    state = run(state, trade(ANN, 5, "closed", 0))
    v = view(state)
    assert v["exchange"] == 2 and v["phase"] == "trick" and v["to_play"] == BOB
    refused(state, play(ANN, 6), rule="X19-2")


# ------------------------------------------------------------------ X19-3: strikes and the decision

def test_strike_goes_to_the_trick_loser_who_decides():
    state = trick(new(), 18, 2)
    v = view(state)
    assert v["phase"] == "decision" and v["to_play"] == BOB and v["strikes"] == {ANN: 0, BOB: 1}
    refused(state, decide(ANN, "raise"), rule="X19-3")          # only the struck player decides


def test_decide_without_a_strike_is_refused():
    refused(new(), decide(ANN, "raise"), rule="X19-3")
    refused(run(new(), play(ANN, 4)), decide(BOB, "abandon"), rule="X19-3")


def test_raise_keeps_the_exchange_going():
    state = run(trick(new(), 18, 2), decide(BOB, "raise"))
    v = view(state)
    assert v["phase"] == "trick" and v["to_play"] == ANN and v["points"] == {ANN: 0, BOB: 0}
    assert v["stakes"] == 1


def test_abandon_ends_the_exchange():
    state = run(trick(new(), 18, 2), decide(BOB, "abandon"))
    v = view(state)
    assert v["phase"] == "draft" and v["points"] == {ANN: 1, BOB: 0}
    assert v["exchange_winner"] == ANN and v["exchange_loser"] == BOB
    record = v["rounds"][0]
    assert record["round"] == 1 and record["scores"] == {ANN: 1, BOB: 0} and record["totals"] == {ANN: 1, BOB: 0}
    assert record["breakdown"][ANN][0]["rule"] == "X19-4" and record["breakdown"][ANN][0]["points"] == 1
    assert record["ended_by"] == "abandoned"


def test_third_strike_forces_abandon_without_a_move():
    state = exchange_won_by_ann_3_0()
    v = view(state)
    assert v["phase"] == "draft" and v["to_play"] == BOB      # no decision: straight to the draft
    assert v["strikes"] == {ANN: 0, BOB: 3} and v["points"] == {ANN: 3, BOB: 0}
    assert v["rounds"][0]["ended_by"] == "third strike"
    refused(state, decide(BOB, "raise"), rule="X19-3")


def test_third_strike_after_mixed_tricks():
    state = new()
    state = trick(state, 18, 2)                        # bob 1
    state = run(state, decide(BOB, "raise"))
    state = trick(state, 3, 17)                        # ann 1
    state = run(state, decide(ANN, "raise"))
    state = trick(state, 16, 4)                        # bob leads 16: ann 2
    state = run(state, decide(ANN, "raise"))
    state = trick(state, 15, 5)                        # ann 3: forced
    v = view(state)
    assert v["strikes"] == {ANN: 3, BOB: 1} and v["points"] == {ANN: 0, BOB: 5} and v["phase"] == "draft"


# ------------------------------------------------------------------ X19-4: stakes

def five_strike_exchange(stop_after):
    """Tricks ann 18>2, ann 17>3, bob 16>4, bob 15>5, bob 14>1; the loser raises until
    ``stop_after`` strikes, then abandons (the fifth strike is ann's third)."""
    plan = [(18, 2, BOB), (17, 3, BOB), (4, 16, ANN), (15, 5, ANN), (14, 1, ANN)]
    state = new()
    stakes_seen = []
    for number, (lead, follow, struck) in enumerate(plan, start=1):
        state = trick(state, lead, follow)
        stakes_seen.append(view(state)["stakes"])
        if number == stop_after:
            if view(state)["phase"] == "decision":
                state = run(state, decide(struck, "abandon"))
            return state, stakes_seen
        state = run(state, decide(struck, "raise"))
    raise AssertionError("unreachable")


@pytest.mark.parametrize("strikes, winner, points", [
    (1, ANN, 1), (2, ANN, 2), (3, BOB, 3), (4, BOB, 5), (5, BOB, 8),
])
def test_each_stakes_level(strikes, winner, points):
    state, stakes_seen = five_strike_exchange(strikes)
    assert stakes_seen == [1, 2, 3, 5, 8][:strikes]
    v = view(state)
    assert v["points"][winner] == points and sum(v["points"].values()) == points
    assert v["rounds"][0]["stakes"] == points
    [entry] = v["rounds"][0]["breakdown"][winner]
    assert entry["rule"] == "X19-4" and entry["points"] == points


def test_the_fifth_trick_is_forced_and_worth_eight():
    state, _ = five_strike_exchange(5)
    assert view(state)["rounds"][0]["ended_by"] == "third strike"


# ------------------------------------------------------------------ X19-5: the end of the game

def with_points(state, ann, bob):
    state = deepcopy(state)
    state["points"] = {ANN: ann, BOB: bob}
    return state


def test_exactly_19_awarded_fewer_points_wins():
    state = with_points(new(), 12, 6)
    state = run(trick(state, 18, 2), decide(BOB, "abandon"))      # ann +1: 13 + 6 = 19
    v = view(state)
    assert v["status"] == "finished" and v["phase"] == "finished" and v["to_play"] is None
    assert v["winners"] == [BOB] and v["end"]["rule"] == "X19-5"
    assert v["end"]["reason"] == "exactly 19 awarded"


def test_nineteen_or_more_more_points_wins():
    state = with_points(new(), 17, 5)
    state = run(trick(state, 18, 2), decide(BOB, "raise"), play(ANN, 17), play(BOB, 3),
                decide(BOB, "abandon"))                          # ann +2: 19 to 5
    v = view(state)
    assert v["points"] == {ANN: 19, BOB: 5} and v["winners"] == [ANN]
    assert v["end"]["reason"] == "19 or more"


def test_19_to_0_is_decided_by_the_exactly_19_rule():
    state = with_points(new(), 16, 0)
    state = run(state, play(ANN, 18), play(BOB, 2), decide(BOB, "raise"), play(ANN, 17), play(BOB, 3),
                decide(BOB, "raise"), play(ANN, 16), play(BOB, 4))      # ann +3 at bob's third strike
    v = view(state)
    assert v["points"] == {ANN: 19, BOB: 0}
    assert v["winners"] == [BOB] and v["end"]["reason"] == "exactly 19 awarded"


def test_below_19_the_game_goes_on():
    state = with_points(new(), 17, 0)
    state = run(trick(state, 18, 2), decide(BOB, "abandon"))      # 18 to 0
    assert view(state)["phase"] == "draft" and view(state)["winners"] == []


@pytest.mark.parametrize("move", [
    play(ANN, 1), play(BOB, 1), decide(BOB, "raise"), draft(BOB, 2), trade(BOB, 5, "closed", 0),
])
def test_a_finished_game_refuses_every_move(move):
    state = with_points(new(), 12, 6)
    state = run(trick(state, 18, 2), decide(BOB, "abandon"))
    refused(state, move, rule="X19-5")


def test_malformed_move_on_finished_game_is_invalid_input():
    state = run(trick(with_points(new(), 12, 6), 18, 2), decide(BOB, "abandon"))
    refused(state, {"type": "play", "player": ANN}, InvalidInput)


# ------------------------------------------------------------------ X19-6: the draft

def test_draft_loser_first_then_alternating():
    state = exchange_won_by_ann_3_0()
    v = view(state)
    assert v["exchange_cards"] == [2, 3, 4, 16, 17, 18] and v["to_play"] == BOB
    refused(state, draft(ANN, 18), rule="X19-6")                 # the winner does not pick first
    state = run(state, draft(BOB, 18))
    assert view(state)["to_play"] == ANN
    refused(state, draft(BOB, 17), rule="X19-6")                 # no two picks in a row
    refused(state, draft(ANN, 18), rule="X19-6")                 # already taken
    refused(state, draft(ANN, 9), rule="X19-6")                  # never played
    state = run(state, draft(ANN, 2), draft(BOB, 17), draft(ANN, 3), draft(BOB, 16), draft(ANN, 4))
    v = view(state)
    assert v["open_hands"] == {ANN: [2, 3, 4], BOB: [16, 17, 18]}
    assert v["phase"] == "trade" and v["to_play"] == BOB and v["exchange_cards"] == []
    assert v["hand_sizes"] == {ANN: 3, BOB: 3}


def test_other_moves_are_refused_during_the_draft():
    state = exchange_won_by_ann_3_0()
    refused(state, play(BOB, 9), rule="X19-6")
    refused(state, trade(BOB, 9, "closed", 0), rule="X19-6")
    refused(new(), draft(ANN, 1), rule="X19-6")


def drafted():
    """Exchange 1 won 3-0 by ann; bob drafted 16, 17, 18, ann 2, 3, 4; bob is to trade."""
    return after_draft(exchange_won_by_ann_3_0(), [18, 2, 17, 3, 16, 4])


def test_only_the_loser_trades():
    refused(drafted(), trade(ANN, 2, "open", 0), rule="X19-6")
    refused(drafted(), play(BOB, 9), rule="X19-6")
    refused(drafted(), draft(BOB, 9), rule="X19-6")


def test_trade_closed_card_for_face_down_card():
    state = run(drafted(), trade(BOB, 9, "closed", 2))
    v = view(state)
    assert v["strike_row"][2] == {"face": "down", "card": None}     # the identity stays hidden
    assert v["hand_sizes"] == {ANN: 3, BOB: 3} and v["open_hands"][BOB] == [16, 17, 18]
    assert v["exchange"] == 2 and v["phase"] == "trick" and v["to_play"] == ANN
    assert v["strikes"] == {ANN: 0, BOB: 0} and v["stakes"] == 0 and v["tricks"] == []
    assert 9 in v["unseen"]
    # 9 is recorded face down in the strike row: it cannot come from a closed hand now
    refused(state, play(ANN, 9), rule="X19-7")


def test_trade_open_card_for_face_down_card():
    state = run(drafted(), trade(BOB, 17, "open", 4))
    v = view(state)
    assert v["strike_row"][4] == {"face": "up", "card": 17}
    assert v["open_hands"][BOB] == [16, 18] and v["hand_sizes"][BOB] == 4
    assert 17 not in v["unseen"]
    refused(state, play(ANN, 17), rule="X19-7")                    # known face up in the row


def test_trade_for_a_face_up_card_goes_to_the_open_hand():
    state = run(drafted(), trade(BOB, 17, "open", 4))               # 17 face up in slot 4
    # exchange 2: ann leads and takes one trick, bob abandons; bob drafts first again
    state = run(state, play(ANN, 12), play(BOB, 11), decide(BOB, "abandon"), draft(BOB, 12), draft(ANN, 11))
    refused(state, trade(BOB, 18, "open", 4, strike_card=16), rule="X19-7")   # slot 4 holds 17
    state = run(state, trade(BOB, 13, "closed", 4, strike_card=17))
    v = view(state)
    assert v["open_hands"][BOB] == [12, 16, 17, 18] and v["hand_sizes"][BOB] == 2
    assert v["strike_row"][4] == {"face": "down", "card": None}
    assert v["points"] == {ANN: 4, BOB: 0}


def test_face_up_strike_card_may_be_left_unnamed():
    state = run(drafted(), trade(BOB, 17, "open", 4))
    state = run(state, play(ANN, 12), play(BOB, 11), decide(BOB, "abandon"), draft(BOB, 12), draft(ANN, 11))
    state = run(state, trade(BOB, 18, "open", 4))
    assert view(state)["open_hands"][BOB] == [12, 16, 17]
    assert view(state)["strike_row"][4] == {"face": "up", "card": 18}


def test_named_face_down_card_joins_the_known_closed_hand():
    state = run(drafted(), trade(BOB, 16, "open", 0, strike_card=5))
    v = view(state)
    assert v["strike_row"][0] == {"face": "up", "card": 16} and v["hand_sizes"][BOB] == 4
    refused(state, play(ANN, 5), rule="X19-7")          # 5 is known to be in bob's closed hand
    state = run(state, play(ANN, 6), play(BOB, 5))       # but bob may play it
    assert view(state)["tricks"][0]["follow"] == {"player": BOB, "card": 5}


@pytest.mark.parametrize("strike_card", [2, 18, 16, 9])
def test_named_strike_card_must_not_be_known_elsewhere(strike_card):
    # 2: ann's open hand; 18: bob's open hand; 16: the card traded away; 9 is in slot 1
    state = run(drafted(), trade(BOB, 9, "closed", 1))
    state = run(state, play(ANN, 12), play(BOB, 11), decide(BOB, "abandon"), draft(BOB, 12), draft(ANN, 11))
    refused(state, trade(BOB, 16, "open", 3, strike_card=strike_card), rule="X19-7")


def test_recorded_face_down_card_taken_unnamed_is_known_to_be_in_the_takers_hand():
    state = run(drafted(), trade(BOB, 9, "closed", 1))           # bob puts 9 face down
    # exchange 2: bob takes a trick, ann abandons and trades for slot 1
    state = run(state, play(ANN, 12), play(BOB, 13), decide(ANN, "abandon"), draft(ANN, 13), draft(BOB, 12))
    refused(state, trade(ANN, 2, "open", 1, strike_card=10), rule="X19-7")   # slot 1 holds another card
    state = run(state, trade(ANN, 2, "open", 1))
    assert view(state)["strike_row"][1] == {"face": "up", "card": 2}
    assert view(state)["to_play"] == BOB
    refused(state, play(BOB, 9), rule="X19-7")                    # 9 is in ann's closed hand now
    state = run(state, play(BOB, 14), play(ANN, 9))
    assert view(state)["tricks"][0]["follow"]["card"] == 9


def test_trade_card_must_be_in_the_hand_claimed():
    refused(drafted(), trade(BOB, 2, "open", 0), rule="X19-7")     # ann's open card
    refused(drafted(), trade(BOB, 5, "open", 0), rule="X19-7")     # not in bob's open hand
    refused(drafted(), trade(BOB, 17, "closed", 0), rule="X19-7")  # in his open hand


# ------------------------------------------------------------------ X19-7: what is public

def test_open_hand_card_must_be_there():
    state = new()
    refused(state, play(ANN, 5, "open"), rule="X19-7")
    state = run(drafted(), trade(BOB, 9, "closed", 0))            # ann leads; her open hand is 2, 3, 4
    refused(state, play(ANN, 16, "open"), rule="X19-7")
    state = run(state, play(ANN, 3, "open"))
    assert view(state)["open_hands"][ANN] == [2, 4] and view(state)["hand_sizes"][ANN] == 3


@pytest.mark.parametrize("card, where", [
    (3, "in ann's open hand"), (17, "in bob's open hand"), (9, "already placed"),
])
def test_known_card_cannot_come_from_a_closed_hand(card, where):
    state = run(drafted(), trade(BOB, 9, "closed", 0))
    error = refused(state, play(ANN, card), rule="X19-7")
    assert where in error.detail
    # G-5: a card put face down is never located by a refusal: it says it cannot be there
    assert "slot" not in error.detail and "face down" not in error.detail


def test_card_already_played_this_exchange_cannot_be_played_again():
    state = trick(new(), 12, 11)
    state = run(state, decide(BOB, "raise"))
    error = refused(state, play(ANN, 11), rule="X19-7")
    assert "already played" in error.detail
    refused(run(new(), play(ANN, 7)), play(BOB, 7), rule="X19-7")


def test_fully_known_closed_hand_cannot_produce_another_card():
    # bob names the face-down card he takes (5); then, as if he had played his other closed cards
    # away, only the known 5 is left in his closed hand
    state = deepcopy(run(drafted(), trade(BOB, 9, "closed", 0, strike_card=5)))
    state["closed_sizes"][BOB] = 1
    state = run(state, play(ANN, 6))
    refused(state, play(BOB, 7), rule="X19-7")
    assert view(run(state, play(BOB, 5)))["hand_sizes"][BOB] == 0


def test_empty_closed_hand():
    state = deepcopy(new())
    state["closed_sizes"][ANN] = 0
    refused(state, play(ANN, 6), rule="X19-7")


# ------------------------------------------------------------------ malformed moves

@pytest.mark.parametrize("move", [
    None, [], "play", {}, {"type": "pass", "player": ANN}, {"type": 1, "player": ANN},
    {"type": "play", "player": ANN, "card": 5},
    {"type": "play", "player": ANN, "from": "closed"},
    {"type": "play", "player": "cy", "card": 5, "from": "closed"},
    {"type": "play", "player": ["ann"], "card": 5, "from": "closed"},
    {"type": "play", "player": ANN, "card": True, "from": "closed"},
    {"type": "play", "player": ANN, "card": 0, "from": "closed"},
    {"type": "play", "player": ANN, "card": 19, "from": "closed"},
    {"type": "play", "player": ANN, "card": 5.5, "from": "closed"},
    {"type": "play", "player": ANN, "card": "five", "from": "closed"},
    {"type": "play", "player": ANN, "card": {"v": 5}, "from": "closed"},
    {"type": "play", "player": ANN, "card": None, "from": "closed"},
    {"type": "play", "player": ANN, "card": 5, "from": "hand"},
    {"type": "play", "player": ANN, "card": 5, "from": None},
    {"type": "play", "player": ANN, "card": 5, "from": "closed", "slot": 1},
    {"type": "decide", "player": ANN, "choice": "fold"},
    {"type": "decide", "player": ANN, "choice": True},
    {"type": "decide", "player": ANN},
    {"type": "draft", "player": ANN, "card": [1]},
    {"type": "trade", "player": ANN, "card": 5, "from": "closed", "slot": 5, "strike_card": None},
    {"type": "trade", "player": ANN, "card": 5, "from": "closed", "slot": -1, "strike_card": None},
    {"type": "trade", "player": ANN, "card": 5, "from": "closed", "slot": True, "strike_card": None},
    {"type": "trade", "player": ANN, "card": 5, "from": "closed", "slot": "1", "strike_card": None},
    {"type": "trade", "player": ANN, "card": 5, "from": "closed", "slot": 1, "strike_card": False},
    {"type": "trade", "player": ANN, "card": 5, "from": "closed", "slot": 1, "strike_card": 20},
    {"type": "trade", "player": ANN, "card": 5, "from": "closed", "strike_card": None},
])
def test_malformed_moves_are_invalid_input(move):
    refused(new(), move, InvalidInput)
    refused(drafted(), move, InvalidInput)


def test_card_as_numeric_string_is_stored_as_int():
    state = run(new(), {"type": "play", "player": ANN, "card": "12", "from": "closed"})
    assert view(state)["trick"] == [{"player": ANN, "card": 12}]


def test_strike_card_may_be_omitted():
    move = trade(BOB, 9, "closed", 2)
    del move["strike_card"]
    assert view(run(drafted(), move))["exchange"] == 2


# ------------------------------------------------------------------ whole games (property)

class Table:
    """The real cards on a table, dealt from ``order``, and a random but truthful player."""

    def __init__(self, order, rng):
        self.rng = rng
        self.closed = {ANN: set(order[:6]), BOB: set(order[6:12])}
        self.open = {ANN: set(), BOB: set()}
        self.row = [{"face": "down", "card": c} for c in order[12:17]]

    def hand_card(self, name):
        cards = [(c, "closed") for c in sorted(self.closed[name])] + [(c, "open") for c in sorted(self.open[name])]
        return self.rng.choice(cards)

    def next_move(self, state):
        name, phase = state["to_play"], state["phase"]
        if phase == "trick":
            card, source = self.hand_card(name)
            return play(name, card, source)
        if phase == "decision":
            return decide(name, "raise" if self.rng.random() < 0.75 else "abandon")
        if phase == "draft":
            return draft(name, self.rng.choice(sorted(state["exchange_cards"])))
        card, source = self.hand_card(name)
        slot = self.rng.randrange(5)
        named = self.row[slot]["card"] if self.rng.random() < 0.5 else None
        return trade(name, card, source, slot, named)

    def follow(self, move):
        name = move["player"]
        if move["type"] == "play":
            (self.closed if move["from"] == "closed" else self.open)[name].remove(move["card"])
        elif move["type"] == "draft":
            self.open[name].add(move["card"])
        elif move["type"] == "trade":
            (self.closed if move["from"] == "closed" else self.open)[name].remove(move["card"])
            taken = self.row[move["slot"]]
            (self.closed if taken["face"] == "down" else self.open)[name].add(taken["card"])
            self.row[move["slot"]] = {"face": "down" if move["from"] == "closed" else "up", "card": move["card"]}

    def check(self, state):
        v = public_state(xix.GAME, state)
        assert v["open_hands"] == {n: sorted(self.open[n]) for n in PLAYERS}
        assert v["hand_sizes"] == {n: len(self.closed[n]) for n in PLAYERS}
        assert v["strike_row"] == [s if s["face"] == "up" else {"face": "down", "card": None} for s in self.row]
        on_table = len(v["exchange_cards"])
        held = sum(len(self.closed[n]) + len(self.open[n]) for n in PLAYERS)
        assert held + on_table + 5 + 1 == 18
        if v["phase"] == "trick" and not v["tricks"] and not v["trick"]:
            assert all(len(self.closed[n]) + len(self.open[n]) == 6 for n in PLAYERS)
        assert v["stakes"] == xix.STAKES[sum(v["strikes"].values())]
        assert max(v["strikes"].values()) <= 3


@settings(max_examples=60, deadline=None)
@given(st.permutations(list(range(1, 19))), st.randoms(use_true_random=False), st.sampled_from(PLAYERS))
def test_truthful_random_games_end_with_a_winner(order, rng, first):
    table = Table(order, rng)
    state = xix.new_game(PLAYERS, {"first_leader": first})
    log, points_before = [], 0
    for _ in range(2000):
        if state["phase"] == "finished":
            break
        move = table.next_move(state)
        state = xix.GAME.apply(state, move)
        log.append(move)
        table.follow(move)
        table.check(state)
        awarded = sum(state["points"].values())
        assert awarded >= points_before
        points_before = awarded
    v = public_state(xix.GAME, state)
    assert v["status"] == "finished" and len(v["winners"]) == 1
    points = v["points"]
    expected = (min if sum(points.values()) == 19 else max)(points, key=points.get)
    assert v["winners"] == [expected]
    assert sum(r["scores"][r["winner"]] for r in v["rounds"]) == sum(points.values())
    # a game is its move log: replaying it gives the same state
    replay = xix.new_game(PLAYERS, {"first_leader": first})
    for move in log:
        replay = xix.GAME.apply(replay, move)
    assert replay == state
    json.dumps(v)


@settings(max_examples=40, deadline=None)
@given(st.permutations(list(range(1, 19))), st.randoms(use_true_random=False))
def test_apply_never_mutates_its_input(order, rng):
    table = Table(order, rng)
    state = new()
    for _ in range(60):
        if state["phase"] == "finished":
            break
        move = table.next_move(state)
        before = deepcopy(state)
        new_state = xix.GAME.apply(state, move)
        assert state == before and new_state is not state
        table.follow(move)
        state = new_state


# ------------------------------------------------------------------ X19-8: version 2.0 (house rule)

def v2(**options):
    return new(rules="2.0", **options)


def test_x19_8_version_2_no_decision_the_taker_leads_and_a_third_strike_ends_the_exchange():
    state = trick(v2(), 18, 2)                                  # ann takes; bob's first strike
    assert state["phase"] == "trick" and state["to_play"] == ANN and state["strikes"][BOB] == 1
    assert list(xix.GAME.allowed(state)) == ["play", "adjust"] and xix.GAME.allowed(state)["play"]["choices"]["from"] == ["closed"]
    refused(state, decide(BOB, "raise"), rule="X19-8")
    refused(state, play(ANN, 17, "open"), rule="X19-8")
    state = trick(state, 3, 17)                                 # bob takes (17 > 3): ann's first strike
    assert state["to_play"] == BOB and state["strikes"] == {ANN: 1, BOB: 1}
    state = trick(state, 4, 16)                                 # bob leads 4, ann takes with 16
    state = trick(state, 15, 5)                                 # ann takes again: bob's third strike
    v = view(state)
    assert v["phase"] == "draft" and v["to_play"] == BOB          # the loser chooses first
    assert v["points"] == {ANN: 5, BOB: 0} and v["rounds"][0]["stakes"] == 5   # 4 strikes -> 5
    assert v["rounds"][0]["breakdown"][ANN][0]["rule"] == "X19-4"


def test_x19_8_version_2_stakes_draft_into_the_one_hand_and_trade():
    state = trick(v2(), 18, 2)                                  # bob 1
    state = trick(state, 3, 17)                                 # ann 1 (bob leads next)
    state = trick(state, 16, 4)                                 # bob leads 16: bob takes; ann 2
    state = trick(state, 5, 15)                                 # bob leads 5: ann takes with 15; bob 2
    state = trick(state, 14, 6)                                 # ann leads 14: ann takes; bob 3 (5 in all)
    assert state["points"] == {ANN: 8, BOB: 0}                   # 5 strikes -> 8 (X19-8)
    sizes = dict(state["closed_sizes"])
    for card in (18, 2, 17, 3, 16, 4, 15, 5, 14, 6):
        state = run(state, draft(state["to_play"], card))
    assert state["open_hands"] == {ANN: [], BOB: []}               # one hand: drafted cards join it
    assert sum(state["closed_sizes"].values()) == sum(sizes.values()) + 10
    assert state["phase"] == "trade" and state["to_play"] == BOB
    refused(state, trade(BOB, 18, "open", 0), rule="X19-8")
    state = run(state, trade(BOB, 18, "closed", 0))
    assert view(state)["strike_row"][0] == {"face": "down", "card": None}
    assert state["phase"] == "trick" and state["to_play"] == ANN  # the last trick's taker leads


def test_x19_8_version_2_ends_at_19_or_more_with_more_points_winning():
    # 16 + 3 = 19 awarded: version 1.0 gives the game to the player with fewer points (X19-5) ...
    state = with_points(new(), 16, 0)
    state = run(trick(state, 18, 2), decide(BOB, "raise"))
    state = run(trick(state, 17, 3), decide(BOB, "raise"))
    assert view(trick(state, 16, 4))["winners"] == [BOB]
    # ... version 2.0 to the player with more (X19-8)
    state = with_points(v2(), 16, 0)
    for lead, follow in ((18, 2), (17, 3), (16, 4)):
        state = trick(state, lead, follow)
    v = view(state)
    assert v["status"] == "finished" and v["winners"] == [ANN] and v["points"] == {ANN: 19, BOB: 0}
    assert "more points" in v["outcome"]["reason"]


def test_x19_8_option_values():
    assert new()["options"]["rules"] == "1.0"
    for bad in ("3.0", 2, 2.0, None):
        with pytest.raises(InvalidInput) as caught:
            new(rules=bad)
        assert caught.value.rule == "X19-8", bad                # G-3: the house rule's own ruling
    with pytest.raises(InvalidInput) as caught:
        new(first_leader="cy")
    assert caught.value.rule == "X19-1"                          # who leads first: X19-1


def test_the_trick_verdict_says_itself_in_a_sentence_X19_2():
    assert xix.JUDGES["trick"].fn({"lead": 7, "follow": 12})["says"] == (
        "The card led, 7, takes the trick (X19-2): 7 + 12 = 19, so the lower card (7) takes the trick.")
    assert xix.JUDGES["trick"].fn({"lead": 7, "follow": 11})["says"].startswith("The card that followed, 11, takes")
