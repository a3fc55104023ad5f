"""Ninety-nine engine: the sheet's examples and every ruling N99-1..N99-8, legal and illegal."""
from __future__ import annotations


import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.rules import ninety_nine as n99
from referee.rules.base import public_state
from referee.rules.base import IllegalMove, InvalidInput
from engine_checks import refused_by

ABC = ["Ann", "Bob", "Cid"]


def play(state, player, card, value=None):
    move = {"type": "play", "player": player, "card": card}
    if value is not None:
        move["value"] = value
    return n99.GAME.apply(state, move)


def at_total(total, players=ABC, **options):
    """A game whose pile stands at ``total`` with the first player to play."""
    state = n99.new_game(players, options)
    state["total"] = total
    return state


def refused(state, move, rule):
    return refused_by(n99.GAME, state, move, rule=rule)


# ---------------------------------------------------------------- the sheet's own examples

def test_29_plus_7_passes_33_and_costs_the_player_a_token():
    state = play(at_total(29), "Ann", "7H")
    assert state["total"] == 36
    assert state["tokens"] == {"Ann": 8, "Bob": 9, "Cid": 9}
    assert any(e["rule"] == "N99-5" and "Ann" in e["text"] for e in state["events"])


def test_56_with_a_2_halves_to_28_and_costs_nothing():
    state = play(at_total(56), "Ann", "2C")
    assert state["total"] == 28 and state["tokens"] == {p: 9 for p in ABC}


def test_76_with_a_10_down_to_66_costs_nobody():
    state = play(at_total(76), "Ann", "10D", value=-10)
    assert state["total"] == 66 and state["tokens"] == {p: 9 for p in ABC}


def test_53_doubled_to_106_loses_the_round_and_three_tokens():
    state = play(at_total(53), "Ann", "2S")
    assert state["tokens"] == {"Ann": 6, "Bob": 9, "Cid": 9}
    assert state["round"] == 2 and state["total"] == 0
    assert state["rounds"][0]["scores"] == {"Ann": -3, "Bob": 0, "Cid": 0}
    assert state["rounds"][0]["final_total"] == 106


# ---------------------------------------------------------------- N99-3 card effects

@pytest.mark.parametrize("total,card,value,expected", [
    (10, "3H", None, 13), (10, "8H", None, 18), (10, "9H", None, 10),
    (10, "JH", None, 20), (10, "QH", None, 20), (10, "KH", None, 20),
    (10, "10H", 10, 20), (10, "10H", -10, 0), (5, "10H", -10, -5),
    (10, "AH", 1, 11), (10, "AH", 11, 21),
    (48, "2H", None, 96), (50, "2H", None, 25), (51, "2H", None, 102), (-10, "2H", None, -20),
    (0, "2H", None, 0),
])
def test_card_effects(total, card, value, expected):
    assert n99.play_effect(total, card, value, 3).total == expected


@pytest.mark.parametrize("card,value", [("10S", None), ("10S", 5), ("AS", None), ("AS", 10), ("KS", 10),
                                        ("2S", 2), ("9S", 0)])
def test_illegal_values_are_refused_with_n99_3(card, value):
    move = {"type": "play", "player": "Ann", "card": card}
    if value is not None:
        move["value"] = value
    error = refused(at_total(10), move, "N99-3")
    assert card in error.detail


def test_a_4_reverses_and_a_second_4_restores():
    state = play(n99.new_game(ABC), "Ann", "4H")
    assert state["direction"] == "counterclockwise" and state["to_play"] == "Cid"
    state = play(state, "Cid", "4S")
    assert state["direction"] == "clockwise" and state["to_play"] == "Ann"


def test_a_jack_skips_the_next_player():
    state = play(n99.new_game(ABC), "Ann", "JH")
    assert state["to_play"] == "Cid"
    assert any("Bob skips" in e["text"] for e in state["events"])


def test_going_below_zero_is_allowed():
    assert play(at_total(3), "Ann", "10C", value=-10)["total"] == -7


# ---------------------------------------------------------------- N99-4 two players, skipping the eliminated

def test_two_players_jack_plays_again_and_four_does_not_reverse():
    state = play(n99.new_game(["Ann", "Bob"]), "Ann", "JH")
    assert state["to_play"] == "Ann"
    state = play(state, "Ann", "4H")
    assert state["direction"] == "clockwise" and state["to_play"] == "Bob"
    assert n99.judge_play({"total": 0, "card": "4H", "players": 2})["reverse"] is False


def test_everyone_else_out_at_once_leaves_the_winner():
    state = n99.new_game(["Ann", "Bob", "Cid", "Dee"], {"tokens": 1})
    state["total"] = 30
    state = play(state, "Ann", "3H")  # reaches 33: everyone else loses their last token
    assert state["winners"] == ["Ann"] and state["out"] == ["Bob", "Cid", "Dee"]


def test_eliminated_player_is_skipped_in_turn_order():
    state = n99.new_game(["Ann", "Bob", "Cid"], {"tokens": 1})
    state["total"] = 30
    state = play(state, "Ann", "5H")  # passes 33: Ann is out at once
    assert state["out"] == ["Ann"] and state["to_play"] == "Bob"
    state = play(state, "Bob", "3H")
    state = play(state, "Cid", "3S")
    assert state["to_play"] == "Bob"  # Ann skipped
    refused(state, {"type": "play", "player": "Ann", "card": "5S"}, "N99-6")


# ---------------------------------------------------------------- N99-5 token losses

def test_reaching_33_costs_every_other_player_a_token():
    state = play(at_total(30), "Ann", "3H")
    assert state["tokens"] == {"Ann": 9, "Bob": 8, "Cid": 8}
    # the issue's own line: "Cid reached 33: Ann and Bob lose a token"
    assert state["events"][1] == {"text": "Ann reached 33: Bob and Cid lose a token", "rule": "N99-5"}


def test_reaching_66_by_doubling_33_costs_the_others():
    state = play(at_total(33), "Ann", "2H")
    assert state["total"] == 66 and state["tokens"] == {"Ann": 9, "Bob": 8, "Cid": 8}


def test_passing_both_limits_at_once_costs_two():
    state = play(at_total(30), "Ann", "2H")  # 30 -> 60: passes 33 only
    assert state["tokens"]["Ann"] == 8
    state = play(at_total(20), "Ann", "2H")  # 20 -> 40
    assert state["tokens"]["Ann"] == 8
    state = play(at_total(32), "Ann", "2H")  # 32 -> 64: passes 33
    assert state["tokens"]["Ann"] == 8
    state = play(at_total(40), "Ann", "2H")  # 40 -> 80: passes 66
    assert state["tokens"]["Ann"] == 8


def test_exactly_99_wins_the_round_and_costs_the_others_two():
    state = play(at_total(89), "Ann", "KH")
    assert state["tokens"] == {"Ann": 9, "Bob": 7, "Cid": 7}
    assert state["round"] == 2 and state["total"] == 0 and state["to_play"] == "Bob"
    assert state["rounds"][0]["scores"] == {"Ann": 0, "Bob": -2, "Cid": -2}


def test_over_99_loses_the_round_and_two_tokens():
    state = play(at_total(95), "Ann", "8H")
    assert state["tokens"] == {"Ann": 7, "Bob": 9, "Cid": 9} and state["round"] == 2


def test_coming_down_onto_or_through_a_limit_costs_nothing():
    assert play(at_total(43), "Ann", "10H", value=-10)["tokens"] == {p: 9 for p in ABC}
    assert play(at_total(70), "Ann", "2H")["tokens"] == {p: 9 for p in ABC}


def test_limit_already_reached_is_not_reached_again_by_a_nine():
    assert play(at_total(33), "Ann", "9H")["tokens"] == {p: 9 for p in ABC}


# ---------------------------------------------------------------- N99-6 eliminations and the winner

def test_last_player_in_wins_and_the_game_refuses_more_moves():
    state = n99.new_game(["Ann", "Bob"], {"tokens": 2})
    state["total"] = 89
    state = play(state, "Ann", "KH")
    assert state["out"] == ["Bob"] and state["winners"] == ["Ann"]
    view = public_state(n99.GAME, state)
    assert view["status"] == "finished" and view["to_play"] is None
    refused(state, {"type": "play", "player": "Ann", "card": "5H"}, "N99-6")


def test_tokens_never_go_below_zero():
    state = n99.new_game(ABC, {"tokens": 1})
    state["total"] = 53
    state = play(state, "Ann", "2H")  # three tokens owed, one held
    assert state["tokens"]["Ann"] == 0 and state["out"] == ["Ann"]


# ---------------------------------------------------------------- N99-2 turns and rounds

def test_wrong_player_is_refused():
    error = refused(n99.new_game(ABC), {"type": "play", "player": "Bob", "card": "5H"}, "N99-2")
    assert error.legal == {"player": ["Ann"]}


def test_first_player_option_and_round_rotation_skips_the_eliminated():
    state = n99.new_game(ABC + ["Dee"], {"first_player": "Bob"})
    assert state["to_play"] == "Bob"
    state["total"] = 95
    state["out"], state["tokens"]["Cid"] = ["Cid"], 0
    state = play(state, "Bob", "KH")  # over 99: next round starts left of Bob, skipping Cid
    assert state["round"] == 2 and state["to_play"] == "Dee"


def test_new_round_resets_total_direction_and_hands():
    state = play(n99.new_game(ABC), "Ann", "4H")
    state = n99.GAME.apply(state, {"type": "missed_draw", "player": "Ann"})
    state["total"] = 90
    state = play(state, "Cid", "9H")
    state = play(state, "Bob", "KS")  # 100: Bob loses the round
    assert state["total"] == 0 and state["direction"] == "clockwise"
    assert state["hand_sizes"] == {p: 3 for p in ABC} and state["to_play"] == "Bob"
    # N99-2: an empty pile, with no top card carried over from the last round
    view = public_state(n99.GAME, state)
    assert view["discard_top"] is None and state["pile"] == []


# ---------------------------------------------------------------- N99-9 house rule: hand size

@pytest.mark.parametrize("size", [1, 2, 4, 5])
def test_n99_9_the_table_chooses_the_hand_size_and_n99_7_counts_from_it(size):
    state = n99.new_game(ABC, {"hand_size": size})
    assert state["hand_sizes"] == {p: size for p in ABC}
    assert state["draw_pile"] == 52 - size * 3
    state = play(state, "Ann", "5H")
    state = n99.GAME.apply(state, {"type": "missed_draw", "player": "Ann"})
    assert state["hand_sizes"]["Ann"] == size - 1
    state["total"] = 95
    state = play(state, "Bob", "KS")  # 105: Bob loses the round; everyone is dealt ``size`` again
    assert state["hand_sizes"] == {p: size for p in ABC}
    assert state["draw_pile"] == 52 - size * 3


def test_n99_9_hand_size_default_and_limits():
    assert n99.new_game(ABC)["options"]["hand_size"] == 3
    for bad in (0, 6, 7, "3", True, None):
        with pytest.raises(InvalidInput) as caught:
            n99.new_game(ABC, {"hand_size": bad})
        assert caught.value.rule == "N99-9", bad              # G-3: the option's own ruling
    assert n99.new_game(ABC, {"hand_size": 5})["hand_sizes"] == {p: 5 for p in ABC}


# ---------------------------------------------------------------- N99-7 missed draws

def test_missed_draw_shrinks_the_hand_for_the_round():
    state = play(n99.new_game(ABC), "Ann", "5H")
    pile = state["draw_pile"]
    state = n99.GAME.apply(state, {"type": "missed_draw", "player": "Ann"})
    assert state["hand_sizes"]["Ann"] == 2 and state["draw_pile"] == pile + 1


def test_missed_draw_before_playing_is_refused():
    refused(n99.new_game(ABC), {"type": "missed_draw", "player": "Bob"}, "N99-7")


def test_no_card_on_your_turn_ends_the_round_and_costs_three():
    state = n99.new_game(["Ann", "Bob"])
    for card in ("5H", "6H", "7H"):
        state = play(state, "Ann", card)
        state = n99.GAME.apply(state, {"type": "missed_draw", "player": "Ann"})
        if card != "7H":
            state = play(state, "Bob", {"5H": "3C", "6H": "3D"}[card])
    # Ann's hand is empty; her turn comes after Bob plays
    assert state["hand_sizes"]["Ann"] == 0
    state = play(state, "Bob", "3S")
    assert state["tokens"]["Ann"] == 6 and state["round"] == 2
    assert state["rounds"][0]["breakdown"]["Ann"][-1]["rule"] == "N99-7"


# ---------------------------------------------------------------- N99-1 and N99-8 decks and reshuffles

def test_decks_default_to_two_above_five_players():
    assert n99.new_game(ABC)["options"]["decks"] == 1
    assert n99.new_game([f"P{i}" for i in range(6)])["options"]["decks"] == 2
    for bad in ({"decks": 3}, {"decks": 2.0}, {"decks": True}, {"decks": "2"},
                {"tokens": 0}, {"tokens": 9.0}, {"tokens": 100}):
        with pytest.raises(InvalidInput) as caught:
            n99.new_game(ABC, bad)
        assert caught.value.rule == "N99-1", bad               # G-3: decks and tokens are N99-1's
    with pytest.raises(InvalidInput) as caught:
        n99.new_game(ABC, {"first_player": "Zed"})
    assert caught.value.rule == "N99-2"


def test_g3_too_many_players_for_the_deck_cites_n99_1():
    # N99-1: "One standard 52-card deck, or two (table's choice; default two when there are more than
    # five players)": eleven hands of five cannot come from one deck of 52
    eleven = [f"P{i}" for i in range(11)]
    with pytest.raises(InvalidInput) as caught:
        n99.new_game(eleven, {"decks": 1, "hand_size": 5})
    assert caught.value.rule == "N99-1" and caught.value.legal == {"decks": [2]}
    assert "two decks" in caught.value.detail
    state = n99.new_game(eleven, {"decks": 2, "hand_size": 5})         # two decks deal them
    assert state["draw_pile"] == 104 - 55
    sixteen = [f"P{i}" for i in range(16)]
    assert n99.new_game(sixteen, {"decks": 1})["draw_pile"] == 52 - 48  # 16 hands of 3 still fit
    with pytest.raises(InvalidInput) as caught:
        n99.new_game(sixteen, {"decks": 1, "hand_size": 4})
    assert caught.value.rule == "N99-1"


def test_a_card_already_on_the_pile_cannot_be_played_again():
    state = play(n99.new_game(ABC), "Ann", "5H")
    error = refused(state, {"type": "play", "player": "Bob", "card": "5h"}, "N99-8")
    assert "5H" in error.detail
    two = play(n99.new_game(ABC, {"decks": 2}), "Ann", "5H")
    assert play(two, "Bob", "5H")["total"] == 10


def test_the_draw_pile_is_counted_and_reshuffled():
    state = n99.new_game(["Ann", "Bob"])
    assert state["draw_pile"] == 52 - 6
    for n, card in enumerate(["9S", "9H", "9D", "9C", "3S"], start=1):
        state = play(state, state["to_play"], card)
        assert state["draw_pile"] == 46 - n


def test_reshuffle_keeps_the_total_and_frees_the_cards():
    state = n99.new_game(["Ann", "Bob"])
    state["draw_pile"] = 1
    state = play(state, "Ann", "5H")   # draws the last card
    assert state["draw_pile"] == 0
    state = play(state, "Bob", "6H")   # must draw: reshuffle the pile but its top card (6H)
    assert state["draw_pile"] == 0 and state["pile"] == ["6H"] and state["total"] == 11
    assert any(e["rule"] == "N99-8" for e in state["events"])
    assert play(state, "Ann", "5H")["total"] == 16  # 5H went back into the draw pile


# ---------------------------------------------------------------- the dispute verdict

def test_judge_play_fields():
    verdict = n99.judge_play({"total": 53, "card": "2D"})
    assert verdict == {
        "total": 106, "player_loses": 3, "others_lose": 0, "round_over": True, "skip_next": False,
        "reverse": False, "rule": ["N99-3", "N99-5"], "explanation": verdict["explanation"],
        "says": verdict["says"]}
    assert "106" in verdict["explanation"]
    jack = n99.judge_play({"total": 23, "card": "JC", "players": 2})
    assert jack["total"] == 33 and jack["others_lose"] == 1 and jack["skip_next"] is True
    assert "N99-4" in jack["rule"]


@pytest.mark.parametrize("body", [{"total": "5", "card": "5H"}, {"card": "5H"}, {"total": 5},
                                  {"total": 5, "card": "XX"}, {"total": 5, "card": "5H", "players": 1},
                                  {"total": 5, "card": "5H", "colour": 1}, {"total": True, "card": "5H"}])
def test_judge_refuses_bad_requests(body):
    with pytest.raises(InvalidInput):
        n99.judge_play(body)


def test_judge_refuses_a_missing_value_with_the_ruling():
    with pytest.raises(IllegalMove) as caught:
        n99.judge_play({"total": 5, "card": "AH"})
    assert caught.value.rule == "N99-3" and caught.value.legal == {"value": [1, 11]}


# ---------------------------------------------------------------- properties

@st.composite
def plays(draw):
    rank = draw(st.sampled_from(["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]))
    suit = draw(st.sampled_from("SHDC"))
    value = {"A": draw(st.sampled_from([1, 11])), "10": draw(st.sampled_from([10, -10]))}.get(rank)
    return rank + suit, value


def expected_total(total, card, value):
    rank = card[:-1]
    if rank == "2":
        return total // 2 if total % 2 == 0 and total > 49 else total * 2
    if rank in ("10", "A"):
        return total + value
    return total + {"9": 0, "J": 10, "Q": 10, "K": 10}.get(rank, int(rank) if rank.isdigit() else 0)


@settings(max_examples=150, deadline=None)
@given(st.lists(plays(), min_size=1, max_size=60), st.integers(min_value=2, max_value=5))
def test_tokens_never_go_up_and_the_total_moves_only_by_the_card(moves, players):
    names = [f"P{i}" for i in range(players)]
    state = n99.new_game(names, {"decks": 2})
    for card, value in moves:
        if state["winners"]:
            break
        before = state
        move = {"type": "play", "player": state["to_play"], "card": card}
        if value is not None:
            move["value"] = value
        try:
            state = n99.GAME.apply(state, move)
        except IllegalMove as error:
            assert error.rule == "N99-8"  # only a card with every copy on the pile is refused here
            continue
        assert all(state["tokens"][p] <= before["tokens"][p] for p in names)
        new_total = expected_total(before["total"], card, value)
        if state["round"] == before["round"]:
            assert state["total"] == new_total
        else:
            assert state["total"] == 0 and (new_total >= 99 or state["rounds"][-1]["round"] == before["round"])


# ---------------------------------------------------------------- audit: fixes with their rulings

def test_n99_5_event_lines_match_the_issue_and_name_the_limits():
    # the issue's example line, word for word: "Cid reached 33: Ann and Bob lose a token"
    state = n99.new_game(ABC, {"first_player": "Cid"})
    state["total"] = 30
    state = play(state, "Cid", "3H")
    assert {"text": "Cid reached 33: Ann and Bob lose a token", "rule": "N99-5"} in state["events"]
    # passing names the limit passed (29 + 7, the sheet's example)
    assert {"text": "Ann passed 33: Ann loses a token", "rule": "N99-5"} in play(at_total(29), "Ann", "7H")["events"]
    # 53 doubled: passes 66 and goes over 99, three tokens in one line
    lines = [e["text"] for e in play(at_total(53), "Ann", "2S")["events"] if e["rule"] == "N99-5"]
    assert lines == ["Ann passed 66 and went over 99 and loses the round: Ann loses 3 tokens"]
    lines = [e["text"] for e in play(at_total(89), "Ann", "KH")["events"] if e["rule"] == "N99-5"]
    assert lines == ["Ann reached 99 and wins the round: Bob and Cid lose 2 tokens"]


@pytest.mark.parametrize("card,value", [("10S", "10"), ("10S", 10.0), ("10S", True), ("AS", "eleven"),
                                        ("AS", [1]), ("5S", "5"), ("KS", False)])
def test_n99_3_a_value_of_the_wrong_type_is_refused_citing_the_ruling(card, value):
    error = refused(at_total(10), {"type": "play", "player": "Ann", "card": card, "value": value}, "N99-3")
    assert card in error.detail
    with pytest.raises(IllegalMove) as caught:
        n99.judge_play({"total": 10, "card": card, "value": value})
    assert caught.value.rule == "N99-3"


def test_n99_3_a_null_value_counts_as_no_declaration():
    assert n99.GAME.apply(at_total(10), {"type": "play", "player": "Ann", "card": "5S", "value": None})["total"] == 15
    refused(at_total(10), {"type": "play", "player": "Ann", "card": "10S", "value": None}, "N99-3")


def test_n99_7_a_missed_draw_needs_a_card_played_for_each_one():
    state = play(n99.new_game(ABC), "Ann", "5H")
    state = n99.GAME.apply(state, {"type": "missed_draw", "player": "Ann"})
    # one card played, one draw missed: a second missed draw for the same play is impossible
    refused(state, {"type": "missed_draw", "player": "Ann"}, "N99-7")
    state = play(state, "Bob", "6H")
    state = play(state, "Cid", "7H")
    state = play(state, "Ann", "8H")
    state = n99.GAME.apply(state, {"type": "missed_draw", "player": "Ann"})
    assert state["hand_sizes"]["Ann"] == 1
    # a new round forgets the missed draws
    state["total"] = 95
    state = play(state, "Bob", "KH")
    assert state["round"] == 2 and state["hand_sizes"]["Ann"] == 3
    refused(state, {"type": "missed_draw", "player": "Ann"}, "N99-7")


def test_n99_6_a_player_out_at_once_does_not_draw_and_the_round_goes_on():
    state = n99.new_game(ABC, {"tokens": 1})
    state["total"] = 30
    pile = state["draw_pile"]
    state = play(state, "Ann", "5H")  # passes 33 with her last token: out at once, mid-round
    assert state["out"] == ["Ann"] and state["hand_sizes"]["Ann"] == 0
    assert state["draw_pile"] == pile  # nobody drew
    assert state["round"] == 1 and state["total"] == 35 and state["to_play"] == "Bob"
    state = play(state, "Bob", "3H")
    assert state["draw_pile"] == pile - 1


def test_n99_4_two_players_left_after_an_elimination_use_the_two_player_rules():
    state = n99.new_game(ABC, {"tokens": 1})
    state["total"] = 30
    state = play(state, "Ann", "5H")  # Ann out: Bob and Cid are the two players in the game
    state = play(state, "Bob", "JH")
    assert state["to_play"] == "Bob"
    state = play(state, "Bob", "4H")
    assert state["direction"] == "clockwise" and state["to_play"] == "Cid"
    state = play(state, "Cid", "3H")
    assert state["to_play"] == "Bob"  # Ann is skipped


def test_the_play_verdict_says_itself_in_a_sentence_with_the_losses_added_up_N99_5():
    """Issue 33: the losses of one play add up (53 doubled to 106 passes 66 and 99: three tokens)."""
    assert n99.judge_play({"total": 53, "card": "2H"})["says"] == (
        "2H doubles: 53 -> 106. Passing 66: the player loses a token. Going over 99 loses the round and two "
        "tokens. In all the player loses 3 tokens (N99-3, N99-5).")
    assert n99.judge_play({"total": 30, "card": "3H"})["says"].endswith(
        "In all every other player loses a token (N99-3, N99-5).")
    assert n99.judge_play({"total": 90, "card": "9H"})["says"] == "9H adds 0: 90 -> 90. No token is lost (N99-3)."
