"""69 engine: the sheet's examples and every ruling S69-1..S69-12 (and G-1, G-2), legal and illegal."""
from __future__ import annotations

import json
from copy import deepcopy

import pytest

from referee.rules import sixty_nine as g
from referee.rules.base import IllegalMove, InvalidInput, public_state
from referee.rules.sixty_nine.sets import read_set
from engine_checks import refused_by

ANN, BOB, CAT = "ann", "bob", "cat"
P3 = [ANN, BOB, CAT]


# ------------------------------------------------------------------ helpers

def deal(dealer=CAT, flip="5A"):
    return {"type": "deal", "dealer": dealer, "flip": flip}


def play(player, set_id, *cards):
    return {"type": "play", "player": player, "set": set_id, "cards": list(cards)}


def chance(player, *cards):
    return {"type": "chance", "player": player, "cards": list(cards)}


def chance_sets(player, sets):
    return {"type": "chance", "player": player, "sets": sets}


def pass_(player, card):
    return {"type": "pass", "player": player, "flip": card}


def flip(player, card):
    return {"type": "flip", "player": player, "card": card}


def scramble(player, from_hand, arrangement):
    return {"type": "scramble", "player": player, "from_hand": from_hand, "arrangement": arrangement}


def run(state, *moves):
    for move in moves:
        before = deepcopy(state)
        new = g.GAME.apply(state, move)
        assert state == before, "apply mutated its input"
        state = new
    return state


def start(players=P3, flip_card="5A", **options):
    state = g.new_game(list(players), options or None)
    return run(state, deal(state["dealer"], flip_card))


def refused(state, move, exc=IllegalMove, rule=None):
    return refused_by(g.GAME, state, move, exc, rule)


def the_set(state, set_id):
    return next(s for s in state["table"] if s["id"] == set_id)


def values(table_set):
    return {r["card"]: r["value"] for r in table_set["reading"]}


def captured_cards(state, player):
    return [sorted(s["cards"]) for s in state["captured"][player]]


def with_hands(state, sizes):
    """A state in which the hands hold the given numbers of cards (to reach round ends fast)."""
    state = deepcopy(state)
    state["hand_sizes"].update(sizes)
    return state


# ------------------------------------------------------------------ interface

def test_interface_constants():
    assert g.NAME == "sixty-nine" and g.PLAYERS == (2, 6)
    assert set(g.MOVES) == {"deal", "play", "pass", "chance", "pass_chances", "flip", "scramble", "round_result",
                            "correct_round", "switch_record", "adjust"}
    assert set(g.RULINGS) == {"G-1", "G-2"} | {f"S69-{n}" for n in range(1, 14)} | {"T-1", "T-2", "T-4"}
    assert set(g.OPTIONS) == {"dealer", "target", "single_winner", "record"} and g.OPTIONS["target"]["default"] == 69
    assert set(g.JUDGES) == {"set", "score"}


def test_public_view_fields_and_json():
    state = start()
    view = public_state(g.GAME, state)
    for key in ("status", "round", "to_play", "standings", "winners", "rounds", "table", "captured",
                "hand_sizes", "draw_pile", "phase"):
        assert key in view
    assert set(view["table"][0]) == {"id", "cards", "reading", "complete", "claimant", "count", "locked"}
    assert json.loads(json.dumps(state)) == state
    assert view["status"] == "in_progress" and view["round"] == 1 and view["winners"] == []


# ------------------------------------------------------------------ G-1, G-2, setup

def test_g2_default_dealer_is_last_and_first_listed_plays_first():
    state = g.new_game(P3, None)
    assert state["phase"] == "round_over" and state["to_play"] == CAT
    state = run(state, deal(CAT, "5A"))
    assert state["phase"] == "turn" and state["to_play"] == ANN


def test_g2_recorded_dealer_and_g1_left_is_next_in_list():
    state = start(dealer=CAT)
    assert state["to_play"] == ANN
    state = start(dealer=BOB)
    assert state["to_play"] == CAT
    state = start(dealer=ANN)
    assert state["to_play"] == BOB


def test_g2_deal_by_the_wrong_dealer_refused():
    refused(g.new_game(P3, None), deal(ANN), rule="G-2")


@pytest.mark.parametrize("players", [["a"], ["a", "b", "c", "d", "e", "f", "g"]])
def test_s69_12_two_to_six_players(players):
    with pytest.raises(InvalidInput) as info:
        g.new_game(players, None)
    assert info.value.rule == "S69-12"                     # the refusal cites the ruling


def test_g2_deal_may_name_the_dealer_as_player():
    state = g.new_game(P3, None)
    dealt = run(state, {"type": "deal", "player": CAT, "dealer": CAT, "flip": "5A"})
    assert dealt["phase"] == "turn" and dealt["to_play"] == ANN
    refused(state, {"type": "deal", "player": ANN, "dealer": CAT, "flip": "5A"}, exc=InvalidInput)


@pytest.mark.parametrize("options", [{"target": 0}, {"target": True}, {"target": "69"},
                                     {"dealer": "zed"}, {"colour": 1}])
def test_bad_options(options):
    with pytest.raises(InvalidInput):
        g.new_game(P3, options)


@pytest.mark.parametrize("count, deck", [(2, 48), (3, 38), (6, 8)])
def test_deal_hand_sizes_and_deck_count(count, deck):
    players = [f"p{i}" for i in range(count)]
    state = start(players)
    assert state["hand_sizes"] == {p: 10 for p in players}
    assert state["deck"] == deck
    assert [s["cards"] for s in state["table"]] == [["5A"]]


# ------------------------------------------------------------------ S69-1 deck

def test_s69_1_card_on_the_table_cannot_be_played():
    state = start()
    refused(state, play(ANN, 1, "5A"), rule="S69-1")


def test_s69_1_captured_card_cannot_be_played_or_flipped():
    state = run(start(), play(ANN, 1, "5B", "5C"), chance(BOB), chance(CAT))
    assert captured_cards(state, ANN) == [["5A", "5B", "5C"]]
    refused(state, flip(ANN, "5B"), rule="S69-1")
    state = run(state, flip(ANN, "7A"))
    refused(state, play(BOB, 2, "5C"), rule="S69-1")


def test_s69_1_specials_three_copies_each():
    state = run(start(flip_card="WILD"), pass_(ANN, "WILD"), pass_(BOB, "WILD"))
    refused(state, pass_(CAT, "W"), rule="S69-1")
    state = run(state, pass_(CAT, "LOCK"))
    assert [s["cards"] for s in state["table"]] == [["WILD"], ["WILD"], ["WILD"], ["LOCK"]]


def test_s69_1_same_card_twice_in_one_move():
    refused(start(), play(ANN, 1, "5B", "5B"), rule="S69-1")


@pytest.mark.parametrize("cards", [["5G"], ["11A"], ["JOKER"], [5], [None], "5B"])
def test_unknown_codes_are_invalid_input(cards):
    state = start()
    refused(state, {"type": "play", "player": ANN, "set": 1, "cards": cards}, exc=InvalidInput)


def test_input_is_forgiving_output_canonical():
    state = run(start(), play(ANN, 1, "b5", " 5c "))
    assert state["captured"] == {ANN: [], BOB: [], CAT: []}
    assert the_set(state, 1)["cards"] == ["5A", "5B", "5C"]
    state = start(flip_card="l")
    assert state["table"][0]["cards"] == ["LOCK"]


# ------------------------------------------------------------------ S69-2 set reading

LEGAL = [
    ["5A"], ["WILD"], ["5A", "5B"], ["5A", "6B"], ["4A", "WILD"], ["6A", "9B"],
    ["6A", "6B", "7C", "8D"],            # sheet: a 6 turned to 9 with 7 and 8 between
    ["2A", "3B", "WILD"],                # sheet: Wild as 4
    ["2A", "3B", "WILD", "4C"],          # sheet: Wild then read as 5 or 1
    ["0A", "1B", "2C"], ["8A", "9B", "0C"], ["0A", "0B", "0C"],
    ["9A", "9B", "6C"], ["6A", "8B", "7C"], ["9A", "8B", "7C"],
    ["WILD", "LOCK", "SCRAMBLE"], ["1A", "WILD", "3B"], ["1A", "2B", "3C", "4D", "5E", "6F"],
    ["5A", "5B", "5C", "5D", "5E", "5F"], ["7A", "7B", "WILD", "LOCK", "SCRAMBLE", "7C"],
    ["0A", "WILD", "8B"],                # 8, 9 (Wild), 10 (the 0)
]

ILLEGAL = [
    ([], "at least one"),
    (["1A", "2A", "3B"], "suit"),
    (["5A", "WILD", "WILD"], "WILD"),
    (["LOCK", "LOCK"], "LOCK"),
    (["9A", "0B", "1C"], "run"),         # no wrap
    (["1A", "3B"], "run"),
    (["5A", "5B", "6C"], "run"),
    (["1A", "2B", "3C", "4D", "5E", "6F", "WILD"], "six"),
    (["0A", "WILD", "WILD"], "WILD"),
    (["1A", "2B", "4C", "5D"], "run"),
    (["8A", "9B", "0C", "1D"], "run"),   # 0 high and low at once is impossible
    (["6A", "7B", "9C"], "run"),         # a turned 9 is a 6, never an 8
]


@pytest.mark.parametrize("cards", LEGAL)
def test_s69_2_legal_sets_read_legally(cards):
    reading, reason = read_set(cards)
    assert reason is None
    assert_valid_reading(cards, reading)


@pytest.mark.parametrize("cards, words", ILLEGAL)
def test_s69_2_illegal_sets(cards, words):
    reading, reason = read_set(cards)
    assert reading is None and words in reason


def assert_valid_reading(cards, reading):
    """An independent check of a reading against S69-2."""
    assert [r["card"] for r in reading] == cards
    suits = [r["suit"] for r in reading]
    assert len(set(suits)) == len(suits) and set(suits) <= set("ABCDEF")
    vals = [r["value"] for r in reading]
    for r in reading:
        card, value = r["card"], r["value"]
        if card in ("WILD", "LOCK", "SCRAMBLE"):
            assert 0 <= value <= 10
        else:
            assert r["suit"] == card[1]
            allowed = {"6": {6, 9}, "9": {6, 9}, "0": {0, 10}}.get(card[0], {int(card[0])})
            assert value in allowed
    assert len(set(vals)) == 1 or sorted(vals) == list(range(min(vals), min(vals) + len(vals)))
    assert len(cards) <= 6


def test_sheet_example_six_turned_to_nine_with_seven_and_eight():
    state = run(start(flip_card="6A"), play(ANN, 1, "6B"))
    assert values(the_set(state, 1)) == {"6A": 6, "6B": 6}
    state = run(state, play(BOB, 1, "7C", "8D"))
    table_set = the_set(state, 1)
    assert table_set["complete"] and table_set["claimant"] == BOB and table_set["count"] == 2
    assert sorted(values(table_set).values()) == [6, 7, 8, 9]


def test_sheet_example_wild_as_four_then_stolen_with_a_four():
    state = run(start(flip_card="2A"), play(ANN, 1, "3B"), play(BOB, 1, "WILD"))
    table_set = the_set(state, 1)
    assert values(table_set)["WILD"] == 4 and table_set["claimant"] == BOB and table_set["count"] == 1
    assert state["phase"] == "chances" and state["to_play"] == CAT
    state = run(state, chance(CAT, "4C"))
    table_set = the_set(state, 1)
    assert table_set["claimant"] == CAT and values(table_set)["WILD"] in (1, 5)
    assert_valid_reading(table_set["cards"], table_set["reading"])


def test_s69_2_set_order_does_not_matter():
    for cards in LEGAL:
        assert (read_set(cards)[0] is None) == (read_set(list(reversed(cards)))[0] is None)


def test_s69_2_illegal_play_refused():
    state = run(start(flip_card="5A"), play(ANN, 1, "6B"))
    refused(state, play(BOB, 1, "8C"), rule="S69-2")
    refused(state, play(BOB, 1, "6C"), rule="S69-2")        # 5, 6, 6: neither equal nor a run
    refused(state, play(BOB, 1, "7A"), rule="S69-2")        # suit A twice


def test_s69_2_zero_as_ten_in_play():
    state = run(start(flip_card="9A"), play(ANN, 1, "0B"))
    assert values(the_set(state, 1)) == {"9A": 9, "0B": 10}
    refused(state, play(BOB, 1, "1C"), rule="S69-2")        # 9-0-1 does not wrap
    state = run(state, play(BOB, 1, "8C"))
    assert the_set(state, 1)["complete"]


# ------------------------------------------------------------------ S69-3 plays

def test_s69_3_play_goes_into_one_set_on_the_table():
    state = start()
    refused(state, play(ANN, 2, "5B"), rule="S69-3")
    # a play with no set (or a null one) would start a new set: S69-3, not a bare input error
    refused(state, {"type": "play", "player": ANN, "cards": ["5B"]}, rule="S69-3")
    refused(state, play(ANN, None, "5B"), rule="S69-3")
    state = run(state, play(ANN, "1", "5B"))                 # ids may come as strings
    assert the_set(state, 1)["cards"] == ["5A", "5B"] and not the_set(state, 1)["complete"]
    assert state["hand_sizes"][ANN] == 9 and state["to_play"] == BOB and state["phase"] == "turn"


def test_s69_3_not_more_cards_than_the_hand_holds():
    state = with_hands(start(flip_card="1A"), {ANN: 2})
    refused(state, play(ANN, 1, "2B", "3C", "4D"), rule="S69-3")


def test_play_checks_turn_and_fields():
    state = start()
    refused(state, play(BOB, 1, "5B"), rule="S69-7")
    refused(state, play(ANN, 1), exc=InvalidInput)
    refused(state, play(ANN, True, "5B"), exc=InvalidInput)
    refused(state, play(ANN, "one", "5B"), exc=InvalidInput)
    refused(state, play("zed", 1, "5B"), exc=InvalidInput)
    refused(state, play(ANN, 1, "5B") | {"extra": 1}, exc=InvalidInput)
    refused(state, {"type": "dance", "player": ANN}, exc=InvalidInput)
    refused(state, ["not", "a", "move"], exc=InvalidInput)
    refused(state, chance(ANN), rule="S69-4")
    refused(state, flip(ANN, "7A"), rule="S69-7")
    refused(state, deal(CAT), rule="S69-10")


# ------------------------------------------------------------------ S69-4 claims and steals

def test_s69_4_claim_count_and_chances_leftwards_then_capture():
    state = run(start(), play(ANN, 1, "5B", "5C"))
    table_set = the_set(state, 1)
    assert (table_set["complete"], table_set["claimant"], table_set["count"]) == (True, ANN, 2)
    assert state["phase"] == "chances" and state["to_play"] == BOB
    refused(state, chance(CAT), rule="S69-4")
    refused(state, play(BOB, 1, "5D"), rule="S69-4")
    state = run(state, chance(BOB, "5D"))                     # 1 < 2: no steal, cards still go in
    assert the_set(state, 1)["claimant"] == ANN and state["hand_sizes"][BOB] == 9
    state = run(state, chance(CAT))
    assert captured_cards(state, ANN) == [["5A", "5B", "5C", "5D"]] and state["table"] == []
    assert state["phase"] == "flip" and state["to_play"] == ANN


def test_s69_4_chances_go_on_from_the_stealers_left():
    state = run(start(flip_card="3A"), play(ANN, 1, "3B", "3C"))          # ann claims, count 2
    state = run(state, chance(BOB, "3D", "3E"))                         # bob steals, count 2
    table_set = the_set(state, 1)
    assert (table_set["claimant"], table_set["count"]) == (BOB, 2)
    assert state["to_play"] == CAT                                     # from bob's left
    state = run(state, chance(CAT))
    assert state["to_play"] == ANN                                     # ann gets a second chance
    refused(state, chance(BOB), rule="S69-4")
    state = run(state, chance(ANN, "WILD"))                             # 1 < 2, and six cards:
    assert captured_cards(state, BOB) == [sorted(["3A", "3B", "3C", "3D", "3E", "WILD"])]
    assert state["phase"] == "flip" and state["to_play"] == BOB


def test_s69_4_two_steals_then_capture_by_the_last_claimer():
    state = run(start(flip_card="2A"), play(ANN, 1, "3B"), play(BOB, 1, "WILD"))   # bob claims 1
    state = run(state, chance(CAT, "4C"))                               # cat steals (1 >= 1)
    assert the_set(state, 1)["claimant"] == CAT and state["to_play"] == ANN
    state = run(state, chance(ANN, "1D"))                               # ann steals back (1 >= 1)
    assert the_set(state, 1)["claimant"] == ANN and state["to_play"] == BOB
    state = run(state, chance(BOB), chance(CAT))                        # back round to ann
    assert state["phase"] == "flip" and state["to_play"] == ANN
    assert captured_cards(state, ANN) == [sorted(["2A", "3B", "WILD", "4C", "1D"])]
    state = run(state, flip(ANN, "7F"))
    assert state["phase"] == "turn" and state["to_play"] == BOB         # S69-7: capturer's left
    assert [s["cards"] for s in state["table"]] == [["7F"]] and state["deck"] == 37


def test_s69_4_equal_count_steals_fewer_does_not():
    state = run(start(flip_card="7A"), play(ANN, 1, "7B", "7C"))
    state = run(state, chance(BOB, "7D", "7E"))
    assert (the_set(state, 1)["claimant"], the_set(state, 1)["count"]) == (BOB, 2)


def test_s69_4_chance_must_stay_legal():
    state = run(start(), play(ANN, 1, "5B", "5C"))
    refused(state, chance(BOB, "6D"), rule="S69-2")
    refused(state, chance(BOB, "5D") | {"sets": {"1": []}}, exc=InvalidInput)
    refused(state, {"type": "chance", "player": BOB}, exc=InvalidInput)
    refused(state, chance_sets(BOB, {"2": ["5D"]}), rule="S69-4")
    refused(state, chance_sets(BOB, {"x": ["5D"]}), exc=InvalidInput)
    refused(state, chance_sets(BOB, ["5D"]), exc=InvalidInput)
    refused(with_hands(state, {BOB: 1}), chance(BOB, "5D", "5E"), rule="S69-4")
    state = run(state, chance_sets(BOB, {"1": ["5D"]}))                   # the sets form works too
    assert the_set(state, 1)["cards"][-1] == "5D"


# ------------------------------------------------------------------ S69-5 Lock

def test_s69_5_lock_in_the_completing_play_stops_steals_but_not_chances():
    state = run(start(flip_card="4A"), play(ANN, 1, "4B", "LOCK"))
    table_set = the_set(state, 1)
    assert table_set["locked"] and table_set["claimant"] == ANN
    state = run(state, chance(BOB, "4C", "4D"))                         # 2 >= 2 but locked
    assert the_set(state, 1)["claimant"] == ANN and state["hand_sizes"][BOB] == 8
    state = run(state, chance(CAT))
    assert captured_cards(state, ANN) == [sorted(["4A", "4B", "LOCK", "4C", "4D"])]


def test_s69_5_lock_played_alone_works_once_the_set_completes():
    state = run(start(flip_card="LOCK"), play(ANN, 1, "8A"))
    assert not the_set(state, 1)["locked"]
    state = run(state, play(BOB, 1, "8B"))
    assert the_set(state, 1)["locked"] and the_set(state, 1)["claimant"] == BOB
    state = run(state, chance(CAT, "8C", "8D"), chance(ANN, "8E"))
    assert state["phase"] == "flip" and state["to_play"] == BOB


def test_s69_5_lock_added_in_a_steal_protects_the_new_claimer():
    state = run(start(flip_card="1A"), play(ANN, 1, "2B"), play(BOB, 1, "3C"))   # bob, count 1
    state = run(state, chance(CAT, "LOCK"))                             # cat steals with a Lock
    table_set = the_set(state, 1)
    assert table_set["claimant"] == CAT and table_set["locked"]
    state = run(state, chance(ANN, "4D"))                               # 1 >= 1, but locked now
    assert the_set(state, 1)["claimant"] == CAT
    state = run(state, chance(BOB))
    assert captured_cards(state, CAT) == [sorted(["1A", "2B", "3C", "LOCK", "4D"])]
    assert state["phase"] == "flip" and state["to_play"] == CAT


# ------------------------------------------------------------------ S69-6 six cards

def test_s69_6_completing_play_to_six_cards_is_captured_at_once():
    state = run(start(flip_card="5A"), play(ANN, 1, "5B", "5C", "5D", "5E", "5F"))
    assert captured_cards(state, ANN) == [["5A", "5B", "5C", "5D", "5E", "5F"]]
    assert state["phase"] == "flip" and state["to_play"] == ANN and state["table"] == []


def test_s69_6_chance_reaching_six_cards_ends_at_once():
    state = run(start(flip_card="5A"), play(ANN, 1, "5B", "5C"))
    state = run(state, chance(BOB, "5D", "5E", "5F"))                   # bob steals and fills it
    assert captured_cards(state, BOB) == [["5A", "5B", "5C", "5D", "5E", "5F"]]
    assert state["phase"] == "flip" and state["to_play"] == BOB


def test_s69_6_six_cards_go_to_the_locked_claimer():
    state = run(start(flip_card="5A"), play(ANN, 1, "5B", "LOCK"))
    state = run(state, chance(BOB, "5C", "5D", "5E"))
    assert captured_cards(state, ANN) == [sorted(["5A", "5B", "LOCK", "5C", "5D", "5E"])]
    assert state["phase"] == "flip" and state["to_play"] == ANN
    assert state["hand_sizes"] == {ANN: 8, BOB: 7, CAT: 10}


def test_s69_6_no_seventh_card():
    state = run(start(flip_card="5A"), play(ANN, 1, "5B", "5C", "5D", "5E"))
    refused(state, chance(BOB, "5F", "WILD"), rule="S69-2")


# ------------------------------------------------------------------ S69-7 turns, passes, flips

def test_s69_7_pass_flips_a_new_set_and_turn_passes_left():
    state = run(start(), pass_(ANN, "5B"))
    assert [s["cards"] for s in state["table"]] == [["5A"], ["5B"]]    # a flip always starts a set
    assert [s["id"] for s in state["table"]] == [1, 2]
    assert state["deck"] == 37 and state["to_play"] == BOB and state["hand_sizes"][ANN] == 10
    refused(state, pass_(ANN, "5C"), rule="S69-7")


def test_s69_7_flip_only_by_the_capturer():
    state = run(start(), play(ANN, 1, "5B", "5C"), chance(BOB), chance(CAT))
    refused(state, flip(BOB, "7A"), rule="S69-7")
    refused(state, play(BOB, 1, "7A"), rule="S69-7")
    refused(state, pass_(BOB, "7A"), rule="S69-7")
    state = run(state, flip(ANN, "7A"))
    assert state["to_play"] == BOB and state["phase"] == "turn"


# ------------------------------------------------------------------ S69-8 empty deck

def empty_deck_game():
    players = [f"p{i}" for i in range(6)]                      # deck of 8 after the deal
    state = start(players, flip_card="0A")
    cards = ["1A", "2B", "3C", "4D", "5E", "6F", "7A", "8B"]
    for i, card in enumerate(cards):
        state = run(state, pass_(players[(i) % 6], card))
    return players, state


def test_s69_8_flip_with_an_empty_deck_comes_from_the_right_hand_neighbour():
    players, state = empty_deck_game()
    assert state["deck"] == 0 and state["to_play"] == "p2"
    state = run(state, pass_("p2", "9C"))
    assert state["hand_sizes"]["p1"] == 9 and state["hand_sizes"]["p2"] == 10
    assert state["pulls"] == [{"by": "p2", "from": "p1", "card": "9C"}]
    assert state["table"][-1]["cards"] == ["9C"] and state["deck"] == 0
    state = run(state, pass_("p3", "9D"))
    assert state["hand_sizes"]["p2"] == 9


def test_s69_8_pull_that_empties_a_hand_ends_the_round():
    players, state = empty_deck_game()
    state = with_hands(state, {"p1": 1})
    state = run(state, pass_("p2", "9C"))
    assert state["phase"] == "round_over"
    record = state["rounds"][0]
    assert record["emptied"] == "p1" and record["hands"]["p1"] == 0
    assert state["dealer"] == "p2" and state["to_play"] == "p2"      # S69-12


def test_s69_8_capture_flip_with_an_empty_deck():
    players, state = empty_deck_game()
    # table: 1 [0A], 2 [1A], ..., 6 [5E], ...; p2 completes set 6 with 5A 5B
    state = run(state, play("p2", 6, "5A", "5B"), *[chance(p) for p in players[3:] + players[:2]])
    assert state["phase"] == "flip" and state["to_play"] == "p2"
    state = run(state, flip("p2", "9E"))
    assert state["hand_sizes"]["p1"] == 9 and state["pulls"][-1]["from"] == "p1"


# ------------------------------------------------------------------ S69-9 Scramble

def scramble_table():
    """Table: 1 [2A], 2 [2B], 3 [7C], 4 [8D] with ann to play."""
    state = start(flip_card="2A")
    return run(state, pass_(ANN, "2B"), pass_(BOB, "7C"), pass_(CAT, "8D"))


def test_s69_9_scramble_completes_several_sets_each_with_count_one():
    state = scramble_table()
    state = run(state, scramble(ANN, ["SCRAMBLE", "2C", "9E"],
                                [["2A", "2B", "2C"], ["7C", "8D", "9E", "SCRAMBLE"]]))
    assert state["hand_sizes"][ANN] == 7 and state["phase"] == "chances" and state["to_play"] == BOB
    for table_set in state["table"]:
        assert (table_set["complete"], table_set["claimant"], table_set["count"]) == (True, ANN, 1)
    assert public_state(g.GAME, state)["chances"]["sets"] == [s["id"] for s in state["table"]]


def test_s69_9_separate_steals_and_independent_ends():
    state = run(scramble_table(), scramble(ANN, ["SCRAMBLE", "2C"],
                                           [["2A", "2B", "2C"], ["7C", "8D", "SCRAMBLE"]]))
    twos, run_set = [s["id"] for s in state["table"]]
    refused(state, chance(BOB, "2D"), rule="S69-9")                       # several sets: say which
    assert run(state, chance(BOB))["to_play"] == CAT                      # declining needs no id
    state = run(state, chance_sets(BOB, {str(twos): ["2D"]}))             # bob steals the 2s
    assert the_set(state, twos)["claimant"] == BOB and the_set(state, run_set)["claimant"] == ANN
    state = run(state, chance_sets(CAT, {str(run_set): ["9E"]}))          # cat steals the run
    assert the_set(state, run_set)["claimant"] == CAT and state["to_play"] == ANN
    state = run(state, chance_sets(ANN, {}))                               # ann declines
    # the 2s went round from bob's left back to bob: bob captures them; the run is still cat's
    assert captured_cards(state, BOB) == [["2A", "2B", "2C", "2D"]]
    assert state["phase"] == "chances" and state["to_play"] == BOB
    assert [s["id"] for s in state["table"]] == [run_set]
    state = run(state, chance_sets(BOB, {str(run_set): ["6F"]}))          # 1 >= 1: bob steals it
    assert the_set(state, run_set)["claimant"] == BOB and state["to_play"] == CAT
    state = run(state, chance(CAT), chance(ANN))                          # one set left: cards form
    assert captured_cards(state, BOB)[-1] == sorted(["6F", "7C", "8D", "9E", "SCRAMBLE"])
    assert state["phase"] == "flip" and state["to_play"] == BOB             # last capturer flips
    state = run(state, flip(BOB, "0A"))
    assert state["phase"] == "turn" and state["to_play"] == CAT


def test_s69_9_six_card_set_in_a_chance_after_scramble():
    state = run(scramble_table(), scramble(ANN, ["SCRAMBLE", "2C", "9E"],
                                           [["2A", "2B", "2C"], ["7C", "8D", "9E", "SCRAMBLE"]]))
    twos, run_set = [s["id"] for s in state["table"]]
    state = run(state, chance_sets(BOB, {str(run_set): ["6F", "5A"]}))      # 6 cards: captured at once
    assert captured_cards(state, BOB) == [sorted(["5A", "6F", "7C", "8D", "9E", "SCRAMBLE"])]
    assert [s["id"] for s in state["table"]] == [twos] and state["to_play"] == CAT
    state = run(state, chance(CAT))
    assert captured_cards(state, ANN) == [["2A", "2B", "2C"]]
    assert state["phase"] == "flip" and state["to_play"] == ANN             # ann captured last


def test_s69_9_chance_into_an_incomplete_set_refused():
    state = run(start(flip_card="2A"), pass_(ANN, "7B"), pass_(BOB, "9C"))
    state = run(state, scramble(CAT, ["SCRAMBLE", "2D", "2E"],
                                [["2A", "2D", "2E"], ["7B", "SCRAMBLE"], ["9C"]]))
    assert [s["complete"] for s in state["table"]] == [True, False, False]
    lone = state["table"][-1]["id"]
    refused(state, chance_sets(ANN, {str(lone): ["9D"]}), rule="S69-9")
    state = run(state, chance(ANN, "2F"))                                  # one complete set
    assert state["table"][0]["claimant"] == ANN


def test_s69_9_arrangement_must_hold_every_card_legally():
    state = scramble_table()
    refused(state, scramble(ANN, ["SCRAMBLE"], [["2A", "2B", "SCRAMBLE"], ["7C"]]), rule="S69-9")
    refused(state, scramble(ANN, ["SCRAMBLE"], [["2A", "2B", "SCRAMBLE"], ["7C", "8D"], ["3F"]]),
            rule="S69-9")
    refused(state, scramble(ANN, ["SCRAMBLE"], [["2A", "7C", "SCRAMBLE"], ["2B", "8D"]]), rule="S69-2")
    refused(state, scramble(ANN, ["SCRAMBLE", "4E", "4F"],
                            [["2A", "2B", "SCRAMBLE"], ["7C", "8D"], ["4E", "4F"]]), rule="S69-9")
    refused(state, scramble(ANN, ["2C"], [["2A", "2B", "2C"], ["7C", "8D"]]), rule="S69-9")
    refused(state, scramble(ANN, ["SCRAMBLE", "2A"], [["2A", "2B", "SCRAMBLE"], ["7C", "8D"]]), rule="S69-1")
    refused(state, scramble(BOB, ["SCRAMBLE"], [["2A", "2B", "SCRAMBLE"], ["7C", "8D"]]), rule="S69-7")
    refused(state, scramble(ANN, ["SCRAMBLE"], [["2A"], []]), exc=InvalidInput)
    refused(state, scramble(ANN, ["SCRAMBLE"], "2A"), exc=InvalidInput)
    refused(state, {"type": "scramble", "player": ANN, "from_hand": ["SCRAMBLE"]}, exc=InvalidInput)


def test_s69_9_scramble_may_split_sets_and_complete_nothing():
    state = run(start(flip_card="2A"), play(ANN, 1, "3B"), pass_(BOB, "9C"))
    state = run(state, scramble(CAT, ["SCRAMBLE"], [["2A"], ["3B", "SCRAMBLE"], ["9C"]]))
    assert [s["cards"] for s in state["table"]] == [["2A"], ["3B", "SCRAMBLE"], ["9C"]]
    assert state["table"][2]["id"] == 2                    # an unchanged set keeps its id
    assert len({s["id"] for s in state["table"]}) == 3
    assert state["phase"] == "turn" and state["to_play"] == ANN and state["hand_sizes"][CAT] == 9


def test_s69_9_flipped_scramble_is_the_flippers_to_use():
    state = run(start(), pass_(ANN, "SCRAMBLE"))
    assert state["pending_scramble"] == ANN and state["to_play"] == ANN and state["phase"] == "scramble"
    assert list(g.GAME.allowed(state)) == ["scramble", "adjust"] and g.GAME.allowed(state)["scramble"]["players"] == [ANN]
    refused(state, play(ANN, 1, "5B"), rule="S69-9")
    refused(state, pass_(ANN, "7B"), rule="S69-9")
    refused(state, play(CAT, 1, "5B"), rule="S69-9")
    used = run(state, scramble(ANN, ["5B"], [["5A", "5B", "SCRAMBLE"]]))
    assert used["phase"] == "chances" and the_set(used, used["table"][0]["id"])["count"] == 1
    declined = run(state, {"type": "scramble", "player": ANN})
    assert declined["pending_scramble"] is None and declined["to_play"] == BOB
    assert [s["cards"] for s in declined["table"]] == [["5A"], ["SCRAMBLE"]]
    refused(state, {"type": "scramble", "player": ANN, "from_hand": ["5B"]}, exc=InvalidInput)
    # S69-9 (new text): the next player's move is refused, it no longer declines for the flipper
    refused(state, play(BOB, 1, "5B"), rule="S69-9")
    refused(state, {"type": "scramble", "player": BOB}, rule="S69-9")


def test_s69_9_every_other_move_waits_for_a_pending_scramble():
    # S69-9: "the player who put it there acts next and no one else: they rearrange, or decline and
    # leave the table as it is; any other player's move is refused (S69-9), and `to_play` names them."
    state = run(start(), pass_(ANN, "SCRAMBLE"))
    assert state["phase"] == "scramble" and state["to_play"] == ANN
    for move in (play(BOB, 1, "5B"), play(ANN, 1, "5B"), pass_(CAT, "7B"), pass_(ANN, "7B"),
                 chance(BOB, "5B"), chance(ANN), chance_sets(BOB, {"1": ["5B"]}),
                 {"type": "pass_chances"}, flip(ANN, "7B"), flip(BOB, "7B"), deal(CAT, "7B"),
                 {"type": "scramble", "player": BOB}, scramble(CAT, ["5B"], [["5A", "5B", "SCRAMBLE"]])):
        error = refused(state, move, rule="S69-9")
        assert ANN in error.detail, move
    # after a play that brings a Scramble and completes a set: still the scrambler first
    state = run(start(), play(ANN, 1, "SCRAMBLE", "5B"))
    for move in (chance(BOB, "5C"), {"type": "pass_chances"}, flip(ANN, "7B"), deal(CAT, "7B"),
                 play(BOB, 1, "5C")):
        refused(state, move, rule="S69-9")


def test_s69_9_scramble_pulled_from_a_hand_is_the_pullers():
    # S69-8 with S69-9: "a pulled card under S69-8" that is a Scramble is the puller's to rearrange or
    # decline, and no one else moves.
    players, state = empty_deck_game()
    assert state["deck"] == 0 and state["to_play"] == "p2"
    state = run(state, pass_("p2", "SCRAMBLE"))
    assert state["pulls"] == [{"by": "p2", "from": "p1", "card": "SCRAMBLE"}]
    assert state["hand_sizes"]["p1"] == 9 and state["hand_sizes"]["p2"] == 10
    assert (state["phase"], state["to_play"], state["pending_scramble"]) == ("scramble", "p2", "p2")
    assert list(g.GAME.allowed(state)) == ["scramble", "adjust"] and g.GAME.allowed(state)["scramble"]["players"] == ["p2"]
    for move in (pass_("p3", "9C"), play("p3", 1, "1B"), play("p1", 1, "1B"), pass_("p2", "9C"),
                 {"type": "scramble", "player": "p3"}, {"type": "scramble", "player": "p1"},
                 chance("p3"), flip("p2", "9C")):
        refused(state, move, rule="S69-9")
    declined = run(state, {"type": "scramble", "player": "p2"})
    assert declined["phase"] == "turn" and declined["to_play"] == "p3" and declined["pending_scramble"] is None
    assert declined["table"] == state["table"]
    # or rearranges: every set keeps a card that was on the table (the pulled Scramble counts)
    used = run(state, scramble("p2", [], [["2B", "3C", "SCRAMBLE"], ["0A"], ["1A"], ["4D"], ["5E"], ["6F"],
                                          ["7A"], ["8B"]]))
    complete = [s for s in used["table"] if s["complete"]]
    assert [(s["cards"], s["claimant"], s["count"]) for s in complete] == [(["2B", "3C", "SCRAMBLE"], "p2", 1)]
    assert used["phase"] == "chances" and used["to_play"] == "p3"
    refused(state, scramble("p2", ["4E", "4F"], [["2B", "3C", "SCRAMBLE"], ["0A"], ["1A"], ["4D"], ["5E"],
                                                 ["6F"], ["7A"], ["8B"], ["4E", "4F"]]), rule="S69-9")


def test_s69_9_scramble_added_on_a_chance_is_a_plain_special():
    # S69-9: "A Scramble added on a chance (S69-4) is a plain special in that set: chances add to
    # complete sets only." No rearrangement, and it counts as one card of the chance.
    state = run(start(), play(ANN, 1, "5B", "5C"))
    assert state["phase"] == "chances" and state["table"][0]["count"] == 2
    state = run(state, chance(BOB, "SCRAMBLE", "5D"))               # 2 >= 2: bob takes the claim
    assert state["phase"] == "chances" and state["to_play"] == CAT and state["pending_scramble"] is None
    assert (state["table"][0]["claimant"], state["table"][0]["count"]) == (BOB, 2)
    assert "scramble" not in g.GAME.allowed(state)
    refused(state, {"type": "scramble", "player": BOB}, rule="S69-4")
    refused(state, scramble(CAT, [], [["5A", "5B"], ["5C", "5D", "SCRAMBLE"]]), rule="S69-4")
    lone = run(start(), play(ANN, 1, "5B", "5C"), chance(BOB, "SCRAMBLE"))   # 1 < 2: no steal
    assert (lone["table"][0]["claimant"], lone["table"][0]["count"]) == (ANN, 2)
    assert lone["phase"] == "chances" and lone["to_play"] == CAT and lone["pending_scramble"] is None
    state = run(state, chance(CAT), chance(ANN))
    assert captured_cards(state, BOB) == [sorted(["5A", "5B", "5C", "5D", "SCRAMBLE"])]
    assert state["phase"] == "flip" and state["to_play"] == BOB


def test_s69_9_scramble_flipped_after_capture():
    state = run(start(), play(ANN, 1, "5B", "5C"), chance(BOB), chance(CAT), flip(ANN, "SCRAMBLE"))
    assert state["pending_scramble"] == ANN
    state = run(state, scramble(ANN, [], [["SCRAMBLE"]]))                # keep the table as it is
    assert state["to_play"] == BOB and state["phase"] == "turn"


def test_s69_9_scramble_flipped_at_the_deal_is_the_dealers():
    state = start(flip_card="SCRAMBLE")
    assert state["to_play"] == CAT and state["pending_scramble"] == CAT
    state = run(state, scramble(CAT, ["4A", "4B"], [["4A", "4B", "SCRAMBLE"]]))
    assert state["phase"] == "chances" and state["to_play"] == ANN and state["table"][0]["claimant"] == CAT
    state = run(state, chance(ANN), chance(BOB))
    assert state["phase"] == "flip" and state["to_play"] == CAT


def test_s69_9_scramble_played_through_a_play():
    state = run(start(), pass_(ANN, "5B"), play(BOB, 1, "SCRAMBLE"))
    # S69-9: the player who brought the Scramble acts next and no one else
    assert state["to_play"] == BOB and state["pending_scramble"] == BOB and state["phase"] == "scramble"
    used = run(state, scramble(BOB, ["5C"], [["5A", "5B", "SCRAMBLE", "5C"]]))
    assert used["phase"] == "chances" and used["table"][0]["claimant"] == BOB
    assert used["table"][0]["count"] == 1 and used["hand_sizes"][BOB] == 8
    refused(state, play(BOB, 2, "5C"), rule="S69-9")
    refused(state, pass_(CAT, "7F"), rule="S69-9")
    refused(state, {"type": "scramble", "player": BOB, "from_hand": ["5C"]}, exc=InvalidInput)
    declined = run(state, {"type": "scramble", "player": BOB})       # it stays a plain special
    assert declined["pending_scramble"] is None and declined["to_play"] == CAT and declined["phase"] == "turn"
    assert [s["cards"] for s in declined["table"]] == [["5A", "SCRAMBLE"], ["5B"]]
    moved_on = run(declined, pass_(CAT, "7F"))
    refused(moved_on, scramble(BOB, [], [["5A", "SCRAMBLE"], ["5B"], ["7F"]]), rule="S69-7")


def test_s69_9_completing_play_with_a_scramble_rearranges_first_then_chances():
    state = run(start(), play(ANN, 1, "SCRAMBLE", "5B"))
    # S69-9 (new text): the rearrangement comes first, then the chances
    assert state["phase"] == "scramble" and state["pending_scramble"] == ANN and state["to_play"] == ANN
    refused(state, chance(BOB, "5C"), rule="S69-9")                       # S69-9: no one else moves
    refused(state, chance(ANN, "5C"), rule="S69-9")                       # nor the scrambler's chance yet
    declined = run(state, {"type": "scramble", "player": ANN})
    assert declined["phase"] == "chances" and declined["to_play"] == BOB and declined["pending_scramble"] is None
    # S69-4: "a Scramble counts as one card for every set it completes": the claim is 1, not 2,
    # exactly as with the same cards given in a 'scramble' move
    assert declined["table"][0]["claimant"] == ANN and declined["table"][0]["count"] == 1
    stolen = run(declined, chance(BOB, "5C"))
    assert stolen["table"][0]["claimant"] == BOB
    split = run(state, scramble(ANN, [], [["5A", "SCRAMBLE"], ["5B"]]))   # completes nothing now
    assert split["phase"] == "turn" and split["to_play"] == BOB
    same = run(start(), scramble(ANN, ["SCRAMBLE", "5B"], [["5A", "SCRAMBLE", "5B"]]))
    assert same["table"][0]["count"] == 1


# ------------------------------------------------------------------ S69-10 round end

def test_s69_10_play_emptying_a_hand_ends_the_round():
    state = with_hands(start(flip_card="1A"), {ANN: 1, BOB: 4, CAT: 2})
    state = run(state, play(ANN, 1, "2B"))
    assert state["phase"] == "round_over" and state["to_play"] == BOB and state["dealer"] == BOB
    record = state["rounds"][0]
    assert record["scores"] == {ANN: 0, BOB: 0, CAT: 0} and record["hands"] == {ANN: 0, BOB: 4, CAT: 2}
    assert state["round"] == 2
    refused(state, pass_(CAT, "9F"), rule="S69-12")
    state = run(state, deal(BOB, "0F"))
    assert state["to_play"] == CAT and state["hand_sizes"] == {p: 10 for p in P3}
    assert state["table"][0]["cards"] == ["0F"] and state["captured"] == {p: [] for p in P3}


def test_s69_10_chances_resolve_before_the_round_ends():
    state = with_hands(start(flip_card="1A"), {ANN: 2})
    state = run(state, play(ANN, 1, "2B", "3C"))
    assert state["hand_sizes"][ANN] == 0 and state["phase"] == "chances"
    state = run(state, chance(BOB, "4D", "5E"))                         # bob steals
    state = run(state, chance(CAT), chance(ANN))                       # ann's empty-handed chance
    assert state["phase"] == "round_over"                              # no flip after it
    assert state["rounds"][0]["scores"][BOB] == 0                      # 5 cards - 8 in hand
    assert state["rounds"][0]["scores"][ANN] == 0
    assert state["dealer"] == BOB                                      # left of ann, who emptied


def test_s69_10_steal_that_empties_the_stealers_hand():
    state = with_hands(start(flip_card="1A"), {BOB: 2})
    state = run(state, play(ANN, 1, "2B", "3C"), chance(BOB, "4D", "5E"), chance(CAT), chance(ANN))
    assert state["phase"] == "round_over"
    assert state["rounds"][0]["scores"][BOB] == 5 and state["dealer"] == CAT


# ------------------------------------------------------------------ S69-11 scoring

def score(captured, hand=()):
    return g.JUDGES["score"].fn({"captured": captured, "hand": list(hand)})


def test_s69_11_one_per_card_minus_one_per_hand_card():
    result = score([["1A", "1B", "1C"]], ["5F", "7F"])
    assert result["points"] == 1
    assert sum(e["points"] for e in result["breakdown"]) == 1
    assert all(e["rule"] == "S69-11" for e in result["breakdown"])


def test_s69_11_floor_at_zero():
    result = score([["1A", "1B", "1C"]], ["5F", "7F", "8F", "9F"])
    assert result["points"] == 0 and sum(e["points"] for e in result["breakdown"]) == 0
    assert score([], ["5F"])["points"] == 0


def test_s69_11_six_and_nine_bonus_needs_printed_cards():
    assert score([["6A", "7B", "8C", "9D"]])["points"] == 4 + 2
    assert score([["6A", "7B", "8C", "WILD"]])["points"] == 4
    assert score([["9A", "9B", "6C"]])["points"] == 3 + 2


def test_s69_11_three_specials_bonus():
    assert score([["WILD", "LOCK", "SCRAMBLE"]])["points"] == 3 + 3
    assert score([["WILD", "LOCK", "4A"]])["points"] == 3


def test_s69_11_six_card_bonus():
    assert score([["5A", "5B", "5C", "5D", "5E", "5F"]])["points"] == 6 + 6
    both = score([["7A", "7B", "7C", "WILD", "LOCK", "SCRAMBLE"]])
    assert both["points"] == 6 + 3 + 6


def test_s69_11_collections():
    sets = [["0A", "1B", "2C"], ["3A", "4B", "5C"], ["6A", "7B", "8C"], ["9A", "9B", "9C"]]
    assert score(sets)["points"] == 12 + 10
    # a 9 card fills the 6: 0-5, 7, 8 and two 9s make one collection
    sets = [["0A", "1B", "2C"], ["3A", "4B", "5C"], ["9D", "9E", "9F"], ["7A", "8B", "WILD"]]
    assert score(sets)["points"] == 12 + 10
    assert score(sets[:2] + [["7A", "8B", "9C"]])["points"] == 9               # no 6 or second 9
    three = [[f"{d}A", f"{d}B", f"{d}C"] for d in range(9)]                    # 0-8 three times
    assert score(three)["points"] == 27 + 10                                    # three 6s: one 6/9 pair
    assert score(three + [["9D", "9E", "WILD"]])["points"] == 30 + 20          # five 6/9 cards: two
    detail = [e for e in score(three)["breakdown"] if e["points"] == 10]
    assert detail and detail[0]["rule"] == "S69-11"


def test_s69_11_score_verdict_refusals():
    with pytest.raises(IllegalMove) as info:
        score([["1A", "2A", "3B"]])
    assert info.value.rule == "S69-2"
    with pytest.raises(IllegalMove) as info:
        score([["1A", "1B"]])
    assert info.value.rule == "S69-4"
    with pytest.raises(IllegalMove) as info:
        score([["1A", "1B", "1C"]], ["1A"])
    assert info.value.rule == "S69-1"
    for body in ({}, {"captured": "1A"}, {"captured": [["ZZ"]]}, {"captured": [], "extra": 1},
                 {"captured": [], "hand": -1}, {"captured": [], "hand": True}, {"captured": [1]}, []):
        with pytest.raises(InvalidInput):
            g.JUDGES["score"].fn(body)


def test_s69_11_score_verdict_takes_a_hand_count_too():
    # "hand": the cards left in hand, as codes or (the table may not want to list them) a count
    assert score([["1A", "1B", "1C"]], ["5F", "7F"])["points"] == 1
    counted = g.JUDGES["score"].fn({"captured": [["1A", "1B", "1C"]], "hand": 2})
    assert counted == score([["1A", "1B", "1C"]], ["5F", "7F"])
    assert g.JUDGES["score"].fn({"captured": [], "hand": 4})["points"] == 0


def test_round_record_breakdown_in_game():
    state = with_hands(start(flip_card="6A"), {ANN: 3})
    state = run(state, play(ANN, 1, "7B", "8C", "9D"), chance(BOB), chance(CAT))
    record = state["rounds"][0]
    assert record["scores"] == {ANN: 4 + 2, BOB: 0, CAT: 0}
    assert sum(e["points"] for e in record["breakdown"][ANN]) == 6
    assert {e["rule"] for e in record["breakdown"][BOB]} == {"S69-11"}
    assert record["totals"] == g.standings(state) == {ANN: 6, BOB: 0, CAT: 0}


# ------------------------------------------------------------------ set verdict

def judge_set(cards):
    return g.JUDGES["set"].fn({"cards": cards})


def test_set_verdict_shapes():
    ok = judge_set(["2A", "3B", "W"])
    assert ok == {"legal": True, "complete": True, "reason": None, "rule": None, "says": ok["says"],
                  "reading": [{"card": "2A", "suit": "A", "value": 2}, {"card": "3B", "suit": "B", "value": 3},
                              {"card": "WILD", "suit": "C", "value": 4}]}
    assert judge_set(["2A", "3B"])["complete"] is False
    bad = judge_set(["9A", "0B", "1C"])
    assert bad["legal"] is False and bad["reading"] is None and bad["rule"] == "S69-2" and bad["reason"]
    with pytest.raises(IllegalMove) as info:
        judge_set(["1A", "1A"])
    assert info.value.rule == "S69-1"
    for body in ({}, {"cards": "1A"}, {"cards": ["1Z"]}, {"cards": [], "x": 1}, None):
        with pytest.raises(InvalidInput):
            g.JUDGES["set"].fn(body)


# ------------------------------------------------------------------ S69-12 next dealer, game end

def test_s69_12_targets_winners_and_finished_game():
    state = g.new_game(P3, {"target": 30})
    state = run(state, deal(CAT, "5A"), play(ANN, 1, "5B", "5C", "5D", "5E", "5F"), flip(ANN, "7A"))
    state = run(state, pass_(BOB, "8A"), pass_(CAT, "9A"), play(ANN, 2, "7B", "7C", "7D", "7E", "7F"))
    assert state["phase"] == "round_over" and state["rounds"][0]["scores"] == {ANN: 24, BOB: 0, CAT: 0}
    assert state["dealer"] == BOB and state["to_play"] == BOB and state["round"] == 2
    refused(state, deal(CAT, "1A"), rule="S69-12")
    state = run(state, deal(BOB, "1A"))
    assert state["to_play"] == CAT                                       # dealer's left plays first
    state = run(state, play(CAT, 1, "1B", "1C", "1D", "1E", "1F"), flip(CAT, "3A"))
    state = run(with_hands(state, {ANN: 1}), play(ANN, 2, "3B"))
    assert state["rounds"][1]["scores"] == {ANN: 0, BOB: 0, CAT: 7}
    assert state["phase"] == "round_over" and state["dealer"] == BOB     # left of ann again
    state = run(state, deal(BOB, "2A"), play(CAT, 1, "2B", "2C", "2D", "2E", "2F"), flip(CAT, "4A"))
    state = run(with_hands(state, {ANN: 5}), play(ANN, 2, "4B", "4C", "4D", "4E", "4F"))
    view = public_state(g.GAME, state)
    assert view["status"] == "finished" and state["phase"] == "finished" and view["to_play"] is None
    assert view["standings"] == {ANN: 36, BOB: 0, CAT: 14}
    assert view["winners"] == [ANN] and view["round"] == 3 and len(view["rounds"]) == 3
    refused(state, deal(BOB, "2A"), rule="S69-12")
    refused(state, pass_(BOB, "2A"), rule="S69-12")


def test_s69_12_every_player_at_the_target_wins_ranked_by_points():
    state = g.new_game(P3, {"target": 4})
    state = run(state, deal(CAT, "5A"), play(ANN, 1, "5B", "5C", "5D", "5E", "5F"), flip(ANN, "7A"))
    state = run(with_hands(state, {BOB: 3}), play(BOB, 2, "7B", "7C", "7D"), chance(CAT), chance(ANN))
    assert state["phase"] == "finished"
    assert g.standings(state) == {ANN: 12 - 5, BOB: 4, CAT: 0}
    assert state["winners"] == [ANN, BOB]


def test_s69_13_single_winner_house_rule():
    state = g.new_game(P3, {"target": 4, "single_winner": True})
    state = run(state, deal(CAT, "5A"), play(ANN, 1, "5B", "5C", "5D", "5E", "5F"), flip(ANN, "7A"))
    state = run(with_hands(state, {BOB: 3}), play(BOB, 2, "7B", "7C", "7D"), chance(CAT), chance(ANN))
    view = public_state(g.GAME, state)
    assert view["status"] == "finished" and view["winners"] == [ANN]          # 7 beats 4
    assert view["outcome"]["rule"] == "S69-13"
    refused(state, deal(BOB, "2A"), rule="S69-13")
    assert g.new_game(P3, {})["options"]["single_winner"] is False
    for bad in ("yes", 1, None):
        with pytest.raises(InvalidInput) as caught:
            g.new_game(P3, {"single_winner": bad})
        assert caught.value.rule == "S69-13", bad               # G-3: the house rule's own ruling
    for bad in (0, True, "69", None):
        with pytest.raises(InvalidInput) as caught:
            g.new_game(P3, {"target": bad})
        assert caught.value.rule == "S69-12", bad
    with pytest.raises(InvalidInput) as caught:
        g.new_game(P3, {"dealer": "zed"})
    assert caught.value.rule == "G-2"


def test_s69_13_a_tie_for_most_still_shares():
    state = g.new_game([ANN, BOB, CAT], {"target": 1, "single_winner": True})
    state.update(totals={ANN: 5, BOB: 5, CAT: 2}, events=[], emptied=ANN)   # a round ending on 5, 5, 2
    g.game.end_round(state)
    assert state["phase"] == "finished" and state["winners"] == [ANN, BOB]


# ------------------------------------------------------------------ property tests

import random  # noqa: E402
from collections import Counter  # noqa: E402
from itertools import product as _product  # noqa: E402

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from referee.rules.base import RuleError  # noqa: E402

ALL_CARDS = [f"{d}{s}" for d in range(10) for s in "ABCDEF"] + ["WILD", "LOCK", "SCRAMBLE"]
SMALL_POOL = [f"{d}{s}" for d in (0, 1, 5, 6, 8, 9) for s in "ABC"] + ["WILD", "LOCK", "SCRAMBLE"]


def brute_force_legal(cards):
    """S69-2 straight from the text: try every value for every card."""
    numbers = [c for c in cards if c[0].isdigit()]
    specials = [c for c in cards if not c[0].isdigit()]
    if not cards or len(cards) > 6 or len(set(specials)) != len(specials):
        return False
    if len({c[1] for c in numbers}) != len(numbers):
        return False
    options = [{"6": (6, 9), "9": (6, 9), "0": (0, 10)}.get(c[0], (int(c[0]),)) for c in numbers]
    options += [range(11)] * len(specials)
    for vals in _product(*options):
        if len(set(vals)) == 1:
            return True
        if len(set(vals)) == len(vals) and max(vals) - min(vals) == len(vals) - 1:
            return True
    return False


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(SMALL_POOL), min_size=0, max_size=7, unique=True))
def test_property_reading_agrees_with_brute_force(cards):
    reading, reason = read_set(cards)
    assert (reading is not None) == brute_force_legal(cards)
    if reading is not None:
        assert_valid_reading(cards, reading)
    else:
        assert reason


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(ALL_CARDS), min_size=1, max_size=6, unique=True), st.randoms())
def test_property_order_does_not_matter(cards, rnd):
    shuffled = list(cards)
    rnd.shuffle(shuffled)
    assert (read_set(cards)[0] is None) == (read_set(shuffled)[0] is None)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(ALL_CARDS), min_size=0, max_size=40, unique=True), st.integers(0, 20))
def test_property_score_breakdown_adds_up_and_never_negative(cards, hand):
    captured = [cards[i:i + 3] for i in range(0, len(cards) - 2, 3)]
    captured = [s for s in captured if read_set(s)[0] is not None]
    points, breakdown = g.scoring.score_round(captured, hand)
    assert points >= 0 and sum(e["points"] for e in breakdown) == points


def card_total(state):
    on_table = sum(len(s["cards"]) for s in state["table"])
    captured = sum(len(s["cards"]) for sets in state["captured"].values() for s in sets)
    return sum(state["hand_sizes"].values()) + state["deck"] + on_table + captured


def candidate_moves(state, rnd):
    who, phase = state["to_play"], state["phase"]
    if phase == "round_over":
        return [deal(who, rnd.choice(ALL_CARDS))]
    seen = Counter(c for s in state["table"] for c in s["cards"])
    seen.update(c for sets in state["captured"].values() for s in sets for c in s["cards"])
    fresh = [c for c in ALL_CARDS for _ in range(g.sets.copies_of(c) - seen[c])]
    rnd.shuffle(fresh)
    if phase == "flip":
        return [flip(who, fresh[0])]
    if phase == "chances":
        moves = [chance_sets(who, {str(s["id"]): fresh[i:i + 1]}) for i, s in
                 enumerate(state["table"]) if s["complete"]]
        return moves + [chance(who)]
    if state["pending_scramble"] == who:
        return [{"type": "scramble", "player": who}]
    moves = []
    for table_set in state["table"]:
        for size in (3, 2, 1):
            for start_at in range(0, len(fresh) - size, size):
                moves.append(play(who, table_set["id"], *fresh[start_at:start_at + size]))
    rnd.shuffle(moves)
    return moves[:30] + [pass_(who, fresh[0])]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(2, 6))
def test_property_random_games_keep_69_cards_and_never_crash(seed, count):
    rnd = random.Random(seed)
    players = [f"p{i}" for i in range(count)]
    state = g.new_game(players, {"target": 25})
    for _ in range(150):
        if state["phase"] == "finished":
            break
        for move in candidate_moves(state, rnd):
            before = deepcopy(state)
            try:
                state = g.GAME.apply(state, move)
                break
            except RuleError:
                assert state == before
        else:
            raise AssertionError(f"no legal move found in phase {state['phase']}")
        if state["phase"] != "round_over":
            assert card_total(state) == 69
        assert all(size >= 0 for size in state["hand_sizes"].values())
        assert all(read_set(s["cards"])[0] == s["reading"] for s in state["table"])
        assert all(len(s["cards"]) <= 2 for s in state["table"] if state["phase"] == "turn")
        json.dumps(public_state(g.GAME, state))


# ------------------------------------------------------------------ one entry for a round of empty chances

def test_s69_4_nobody_else_adds_in_one_entry():
    state = run(start(), play(ANN, 1, "5B", "5C"))               # ann completes set 1; bob, cat to come
    assert state["phase"] == "chances" and state["to_play"] == BOB
    one = run(state, {"type": "pass_chances"})
    step_by_step = run(state, chance(BOB), chance(CAT))
    assert one["phase"] == "flip" and one["to_play"] == ANN
    assert {k: v for k, v in one.items() if k != "events"} == {k: v for k, v in step_by_step.items() if k != "events"}
    assert any(e["rule"] == "S69-4" and BOB in e["text"] and CAT in e["text"] for e in one["events"])


def test_s69_4_everyone_up_to_a_named_player_adds_nothing():
    state = run(start(), play(ANN, 1, "5B", "5C"))
    upto = run(state, {"type": "pass_chances", "until": CAT})
    assert upto["phase"] == "chances" and upto["to_play"] == CAT and upto["table"][0]["claimant"] == ANN
    refused(state, {"type": "pass_chances", "until": ANN}, rule="S69-4")   # the chances end first
    refused(state, {"type": "pass_chances", "until": BOB}, rule="S69-4")   # it is bob's chance already
    refused(state, {"type": "pass_chances", "until": "Zed"}, exc=InvalidInput)
    refused(run(start()), {"type": "pass_chances"}, rule="S69-4")          # no chances now



def test_the_set_verdict_says_itself_in_a_sentence_S69_2_S69_4():
    assert g.JUDGES["set"].fn({"cards": ["6A", "9B", "WILD"]})["says"] == (
        "Yes: 6A 9B WILD is a legal set (6A as 6 in suit A, 9B as 6 in suit B, WILD as 6 in suit C) and complete: "
        "three cards or more (S69-2, S69-4).")
    assert "not complete yet" in g.JUDGES["set"].fn({"cards": ["6A", "7B"]})["says"]
    assert g.JUDGES["set"].fn({"cards": ["6A", "9B", "8C"]})["says"].startswith(
        "No: 6A 9B 8C is not a legal set (S69-2): ")
    assert g.JUDGES["score"].fn({"captured": [["6A", "7B", "8C"]], "hand": 2})["says"].startswith(
        "This round scores 1 (S69-11)")
