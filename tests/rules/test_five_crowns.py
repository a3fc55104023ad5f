"""Five Crowns engine: every ruling (FC-1..FC-7, G-1, G-2) legal and illegal, the sheet's
examples, scoring, the tie-break, and the dispute verdicts. The solver has its own file."""
from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.rules import five_crowns as fc
from referee.rules.base import IllegalMove, InvalidInput, public_state

P4 = ["Ann", "Bob", "Cat", "Dan"]


def illegal(state, move, rule):
    """The move is refused with ``rule`` and the state is untouched."""
    before = copy.deepcopy(state)
    with pytest.raises(IllegalMove) as caught:
        fc.GAME.apply(state, move)
    assert caught.value.rule == rule, caught.value.detail
    assert state == before
    return caught.value


def invalid(state, move):
    before = copy.deepcopy(state)
    with pytest.raises(InvalidInput) as caught:
        fc.GAME.apply(state, move)
    assert state == before
    return caught.value


def play(state, *moves):
    for move in moves:
        state = fc.GAME.apply(state, move)
    return state


def deal(card):
    return {"type": "deal", "discard": card}


def draw(player, source="stock"):
    return {"type": "draw", "player": player, "source": source}


def discard(player, card):
    return {"type": "discard", "player": player, "card": card}


def go_out(player, melds, card):
    return {"type": "go_out", "player": player, "melds": melds, "discard": card}


def final(player, card, melds=None, leftover=None, cards=None):
    move = {"type": "final_turn", "player": player, "discard": card}
    if cards is not None:
        move["cards"] = cards
    else:
        move.update(melds=melds or [], leftover=leftover or [])
    return move


def points_round(went_out, points, players=P4):
    return {"type": "round_result", "went_out": went_out,
            "hands": {p: {"points": points.get(p, 0)} for p in players if p != went_out}}


@pytest.fixture
def game():
    return fc.new_game(P4)


@pytest.fixture
def dealt(game):
    return fc.GAME.apply(game, deal("5H"))


# ---------------------------------------------------------------- setup, G-1, G-2, FC-1

def test_new_game_defaults_g2(game):
    view = public_state(fc.GAME, game)
    assert view["status"] == "in_progress" and view["round"] == 1
    assert view["dealer"] == "Dan"                 # G-2: the last player listed deals
    assert view["to_play"] == "Ann"                # so the first listed plays first
    assert view["wild"] == "3" and view["cards_dealt"] == 3
    assert view["standings"] == {p: 0 for p in P4} and view["winners"] == [] and view["rounds"] == []
    assert view["decks"] == 2 and view["tie_break"] == "share" and view["step"] == "deal"
    for key in ("players", "game", "version", "id"):
        assert key not in view


def test_dealer_option_g2():
    state = fc.new_game(P4, {"dealer": "Ann"})
    assert public_state(fc.GAME, state)["to_play"] == "Bob"


@pytest.mark.parametrize("options", [
    {"decks": 3}, {"decks": "2"}, {"decks": True}, {"decks": 2.0}, {"dealer": "Zed"},
    {"dealer": 4}, {"tie_break": "coin"}, {"tie_break": None}, {"colour": "red"}, [],
])
def test_bad_options(options):
    with pytest.raises(InvalidInput):
        fc.new_game(P4, options)


def test_players_count_and_decks_fc1():
    eight = [f"P{i}" for i in range(8)]
    assert fc.new_game(eight)["options"]["decks"] == 4
    with pytest.raises(InvalidInput):
        fc.new_game(eight, {"decks": 2})
    with pytest.raises(InvalidInput):
        fc.new_game(["Solo"])
    fc.new_game([f"P{i}" for i in range(14)])
    with pytest.raises(InvalidInput):
        fc.new_game([f"P{i}" for i in range(22)])


def test_fc8_six_decks_seat_up_to_21_players():
    fifteen = [f"P{i}" for i in range(15)]
    state = fc.new_game(fifteen)
    assert state["options"]["decks"] == 6                      # the fewest decks that seat them
    with pytest.raises(InvalidInput) as caught:
        fc.new_game(fifteen, {"decks": 4})
    assert caught.value.rule == "FC-1"
    for bad in (3, 5, 8, "2", True, 2.0):
        with pytest.raises(InvalidInput) as caught:
            fc.new_game(["Ann", "Bob"], {"decks": bad})
        assert caught.value.rule == "FC-8", bad                 # G-3: the house rule's own ruling
    for option, bad, rule in (("round_order", "sideways", "FC-8"), ("tie_break", "coin", "FC-5"),
                              ("tie_break", None, "FC-5"), ("dealer", "Zed", "G-2")):
        with pytest.raises(InvalidInput) as caught:
            fc.new_game(["Ann", "Bob"], {option: bad})
        assert caught.value.rule == rule, (option, bad)
    state = fc.new_game(["Ann", "Bob"], {"decks": 6})
    state = play(state, deal("KH"))
    assert state["stock"] == 6 * 58 - 2 * 3 - 1
    # six decks hold six of each card and 18 Jokers (FC-1): a seventh KH is refused
    assert fc.JUDGES["meld"].fn({"round": 1, "cards": ["KH"] * 6, "decks": 6})["legal"] is True
    with pytest.raises(IllegalMove):
        fc.JUDGES["meld"].fn({"round": 1, "cards": ["KH"] * 7, "decks": 6})


def test_fc8_rounds_played_down():
    state = fc.new_game(P4, {"round_order": "down"})
    view = public_state(fc.GAME, state)
    assert view["round"] == 1 and view["cards_dealt"] == 13 and view["wild"] == "K"
    dealt = []
    for _ in range(11):
        dealt.append((state["cards_dealt"], state["wild"]))
        state = play(state, points_round(state["to_play"], {p: 1 for p in state["in_round"]}))
    assert dealt[0] == (13, "K") and dealt[1] == (12, "Q") and dealt[8] == (5, "5") and dealt[-1] == (3, "3")
    assert public_state(fc.GAME, state)["status"] == "finished"
    with pytest.raises(InvalidInput) as caught:
        fc.new_game(P4, {"round_order": "sideways"})
    assert caught.value.rule == "FC-8"


def test_g1_turn_order(dealt):
    illegal(dealt, draw("Bob"), "G-1")
    state = play(dealt, draw("Ann"), discard("Ann", "9S"))
    assert public_state(fc.GAME, state)["to_play"] == "Bob"
    state = play(state, draw("Bob"), discard("Bob", "9C"), draw("Cat"), discard("Cat", "9D"),
                 draw("Dan"), discard("Dan", "9H"))
    assert public_state(fc.GAME, state)["to_play"] == "Ann"      # the last player's left is the first


def test_g2_deal_first(game):
    illegal(game, draw("Ann"), "G-2")
    state = fc.GAME.apply(game, deal("5h"))
    assert public_state(fc.GAME, state)["discard_top"] == "5H"   # canonical code
    illegal(state, deal("6H"), "G-2")


def test_fc1_copies_two_decks(dealt):
    state = play(dealt, draw("Ann"), discard("Ann", "9S"), draw("Bob"), discard("Bob", "9S"))
    err = illegal(play(state, draw("Cat")), discard("Cat", "9S"), "FC-1")
    assert "9S" in err.detail
    state = play(dealt, draw("Ann"), discard("Ann", "JK"), draw("Bob"), discard("Bob", "JK"),
                 draw("Cat"), discard("Cat", "JK"), draw("Dan"), discard("Dan", "JK"),
                 draw("Ann"), discard("Ann", "JK"), draw("Bob"), discard("Bob", "JK"), draw("Cat"))
    illegal(state, discard("Cat", "JK"), "FC-1")           # six Jokers in two decks


def test_fc1_four_decks_hold_four_copies():
    players = [f"P{i}" for i in range(8)]
    state = play(fc.new_game(players), deal("9S"))
    for name in players[:3]:
        state = play(state, draw(name), discard(name, "9S"))
    illegal(fc.GAME.apply(state, draw("P3")), discard("P3", "9S"), "FC-1")


def test_fc1_card_taken_from_discard_must_be_shown(dealt):
    state = play(dealt, draw("Ann", "discard"))
    assert public_state(fc.GAME, state)["known_cards"] == {"Ann": ["5H"]}
    err = illegal(state, go_out("Ann", [["6S", "6D", "6C"]], "KH"), "FC-1")
    assert "5H" in err.detail
    out = fc.GAME.apply(state, go_out("Ann", [["6S", "6D", "6C"]], "5H"))
    assert public_state(fc.GAME, out)["discard_top"] == "5H"


def test_fc1_discarding_the_taken_card_is_not_a_new_copy(dealt):
    state = play(dealt, draw("Ann"), discard("Ann", "5H"))     # two 5H seen: fine
    state = play(state, draw("Bob", "discard"), discard("Bob", "5H"))
    illegal(play(state, draw("Cat")), discard("Cat", "5H"), "FC-1")


def test_unknown_card_and_card_not_in_deck(dealt):
    state = fc.GAME.apply(dealt, draw("Ann"))
    for card in ("2H", "AS", "ZZ", 7, None, ""):
        assert invalid(state, discard("Ann", card))


# ---------------------------------------------------------------- FC-2, FC-7: rounds, wilds, deal

def test_fc2_rounds_wilds_and_fc7_dealer_rotation(game):
    state = game
    expected = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    for number, wild in enumerate(expected, start=1):
        view = public_state(fc.GAME, state)
        assert (view["round"], view["wild"], view["cards_dealt"]) == (number, wild, number + 2)
        dealer = P4[(3 + number - 1) % 4]                  # Dan, Ann, Bob, ...
        assert view["dealer"] == dealer
        assert view["to_play"] == P4[(P4.index(dealer) + 1) % 4]
        state = fc.GAME.apply(state, points_round(view["to_play"], {}))
    assert public_state(fc.GAME, state)["status"] == "finished"


def test_fc7_stock_reshuffles_discards_but_top():
    state = play(fc.new_game(["Ann", "Bob"]), deal("KS"))
    assert public_state(fc.GAME, state)["draw_pile"] == 116 - 2 * 3 - 1
    names = ["Ann", "Bob"]
    codes = [r + s for r in fc.RANKS for s in "*HCSD"] * 2 + ["JK"] * 6
    codes.remove("KS")                             # one KS is the first discard
    for turn in range(109):
        name = names[turn % 2]
        state = play(state, draw(name), discard(name, codes[turn]))
    view = public_state(fc.GAME, state)
    assert view["draw_pile"] == 0 and view["discard_pile_size"] == 110
    state = fc.GAME.apply(state, draw("Bob"))           # the pile but its top becomes the stock
    view = public_state(fc.GAME, state)
    assert view["draw_pile"] == 108 and view["discard_top"] == codes[108]
    assert view["discard_pile_size"] == 1


def test_fc7_no_stock_and_single_discard():
    state = play(fc.new_game(["Ann", "Bob"]), deal("KS"))
    state["stock"] = 0              # a drawn-out stock with a one-card pile: the guard itself
    err = illegal(state, draw("Ann"), "FC-7")
    assert err.legal == {"source": ["discard"]}


def test_draw_from_empty_discard_pile(dealt):
    state = play(dealt, draw("Ann", "discard"))
    state = fc.GAME.apply(state, discard("Ann", "9S"))
    state = play(state, draw("Bob", "discard"))
    state = fc.GAME.apply(state, discard("Bob", "9S"))
    assert public_state(fc.GAME, state)["discard_top"] == "9S"
    state["discard_pile"] = []                    # only reachable by hand: the check itself
    illegal(state, draw("Cat", "discard"), "FC-7")


# ---------------------------------------------------------------- FC-3: melds (sheet examples)

@pytest.mark.parametrize("wild, meld, kind", [
    ("3", ["8C", "8*", "8S", "8H"], "book"),       # BOOKS: 8 8 8 8
    ("3", ["KS", "KD", "KH", "KC"], "book"),
    ("8", ["8D", "QD", "Q*"], "book"),             # 8s wild: 8D QD Q*
    ("8", ["8*", "9D", "9D", "9H"], "book"),       # 8s wild: 8* 9D 9D 9H
    ("3", ["5C", "6C", "7C"], "run"),              # RUNS: 5 6 7 of clubs
    ("3", ["9*", "10*", "J*", "Q*"], "run"),
    ("7", ["9D", "7C", "JD"], "run"),              # 7s wild: 9D 7C JD
    ("7", ["6D", "7*", "7S", "9D"], "run"),        # 7s wild: 6D 7* 7S 9D
    ("7", ["6D", "7D", "8D"], "run"),              # a wild-rank card standing for itself
    ("5", ["JK", "5H", "JK"], "book"),             # only wilds: legal
    ("5", ["JK", "JK", "QS", "JK"], "book"),       # wilds in any number
    ("9", ["3H", "JK", "JK", "JK", "JK", "JK", "JK", "9S", "9D", "9C", "KH"], "run"),  # 3..K
])
def test_fc3_legal_melds(wild, meld, kind):
    verdict = fc.judge_meld({"wild": wild, "cards": meld})
    assert {k: v for k, v in verdict.items() if k != "says"} == {"legal": True, "kind": kind, "reason": None,
                                                                 "rule": None}
    assert verdict["says"].startswith("Yes: ") and verdict["says"].endswith("(FC-3).")


@pytest.mark.parametrize("wild, meld, why", [
    ("3", ["7H", "8H", "10S"], "a run needs one suit"),
    ("3", ["7H", "8H"], "at least three cards"),
    ("3", [], "at least three cards"),
    ("3", ["4H", "5H", "7H"], "consecutive"),
    ("3", ["5H", "5H", "6H"], "same rank twice"),
    ("3", ["QH", "KH", "4H"], "consecutive"),      # no wrap from K to 3
    ("3", ["7H", "7S", "8H"], "one rank"),
    ("9", ["3H", "JK", "JK", "JK", "JK", "JK", "JK", "9S", "9D", "9C", "KH", "4H"], "eleven"),
    ("Q", ["3S", "QS", "QH", "7S"], "consecutive"),
])
def test_fc3_illegal_melds(wild, meld, why):
    verdict = fc.judge_meld({"wild": wild, "cards": meld})
    assert verdict["legal"] is False and verdict["kind"] is None and verdict["rule"] == "FC-3"
    assert why in verdict["reason"]


def test_fc3_bad_meld_named_in_the_error(dealt):
    state = fc.GAME.apply(dealt, draw("Ann"))
    err = illegal(state, go_out("Ann", [["7H", "8H", "10S"]], "KH"), "FC-3")
    assert err.detail == "7H 8H 10S: a run needs one suit"      # the words exactly (FC-3)


# ---------------------------------------------------------------- FC-4: going out, final turns

def test_fc4_go_out_and_final_turns(dealt):
    state = play(dealt, draw("Ann"))
    state = fc.GAME.apply(state, go_out("Ann", [["9S", "9D", "JK"]], "KH"))
    view = public_state(fc.GAME, state)
    assert view["went_out"] == "Ann" and view["final_turns_left"] == ["Bob", "Cat", "Dan"]
    assert view["to_play"] == "Bob" and view["step"] == "draw" and view["discard_top"] == "KH"
    state = play(state, draw("Bob", "discard"))
    assert public_state(fc.GAME, state)["step"] == "final_turn"
    state = play(state,
                 final("Bob", "4H", melds=[["KH", "KS", "3D"]], leftover=[]),
                 draw("Cat"), final("Cat", "QD", leftover=["4S", "6S", "8S"]),
                 draw("Dan"), final("Dan", "QS", cards=["7C", "7C", "10D"]))
    view = public_state(fc.GAME, state)
    assert view["round"] == 2 and view["step"] == "deal"
    record = view["rounds"][0]
    assert record["scores"] == {"Ann": 0, "Bob": 0, "Cat": 18, "Dan": 24}
    assert record["went_out"] == "Ann" and record["wild"] == "3"
    assert [line["points"] for line in record["breakdown"]["Cat"]] == [4, 6, 8]
    assert all(line["rule"] == "FC-5" for line in record["breakdown"]["Cat"])
    assert record["breakdown"]["Ann"][0]["rule"] == "FC-4"


def test_fc4_go_out_needs_the_dealt_number(dealt):
    state = fc.GAME.apply(dealt, draw("Ann"))
    illegal(state, go_out("Ann", [["9S", "9D", "9C", "9H"]], "KH"), "FC-4")
    illegal(state, go_out("Ann", [], "KH"), "FC-4")


def test_fc4_draw_before_laying_down(dealt):
    illegal(dealt, go_out("Ann", [["9S", "9D", "JK"]], "KH"), "FC-4")
    illegal(dealt, discard("Ann", "KH"), "FC-4")
    illegal(fc.GAME.apply(dealt, draw("Ann")), draw("Ann"), "FC-4")


def test_fc4_final_turn_only_after_someone_went_out(dealt):
    state = fc.GAME.apply(dealt, draw("Ann"))
    illegal(state, final("Ann", "KH", leftover=["4S", "6S", "8S"]), "FC-4")


def test_fc4_after_going_out_every_turn_is_a_final_turn(dealt):
    state = play(dealt, draw("Ann"), go_out("Ann", [["9S", "9D", "JK"]], "KH"), draw("Bob"))
    illegal(state, discard("Bob", "4S"), "FC-4")
    illegal(state, go_out("Bob", [["4S", "4D", "4C"]], "KD"), "FC-4")
    illegal(state, final("Bob", "KD", leftover=["4S", "6S"]), "FC-4")      # two cards, not three
    illegal(state, final("Bob", "KD", cards=["4S", "6S", "8S", "9S"]), "FC-4")
    illegal(state, final("Bob", "KD", melds=[["4S", "6S", "8S"]]), "FC-3")
    illegal(state, draw("Bob"), "FC-4")
    illegal(state, final("Cat", "KD", leftover=["4S", "6S", "8S"]), "G-1")
    illegal(state, {"type": "round_result", "went_out": "Ann", "hands": {}}, "FC-4")


def test_fc4_can_go_out_on_a_final_turn(dealt):
    state = play(dealt, draw("Ann"), go_out("Ann", [["9S", "9D", "JK"]], "KH"), draw("Bob"))
    state = fc.GAME.apply(state, final("Bob", "KD", melds=[["4S", "5S", "6S"]]))
    assert public_state(fc.GAME, state)["hand_sizes"]["Bob"] == 0


# ---------------------------------------------------------------- FC-5, FC-6: scoring

def test_fc5_card_points():
    hands = {"Bob": {"leftover": ["3H", "10S", "JC", "QD", "KH"]},           # 3s wild in round 1
             "Cat": {"leftover": ["JK", "4S", "9D"]}, "Dan": {"points": 7}}
    move = {"type": "round_result", "went_out": "Ann", "hands": hands}
    with pytest.raises(IllegalMove) as err:                                  # five cards: not dealt
        fc.GAME.apply(fc.new_game(P4), move)
    assert err.value.rule == "FC-4"
    state = fc.new_game(P4)
    state = fc.GAME.apply(state, points_round("Ann", {}))                        # round 2: 4 cards
    hands = {"Bob": {"leftover": ["4H", "10S", "JC", "KH"]},               # 4s wild
             "Cat": {"leftover": ["JK", "3S", "9D", "QD"]}, "Dan": {"points": 7}}
    state = fc.GAME.apply(state, {"type": "round_result", "went_out": "Ann", "hands": hands})
    record = public_state(fc.GAME, state)["rounds"][1]
    assert record["scores"] == {"Ann": 0, "Bob": 20 + 10 + 11 + 13, "Cat": 50 + 3 + 9 + 12, "Dan": 7}
    assert [b["points"] for b in record["breakdown"]["Bob"]] == [20, 10, 11, 13]
    assert record["totals"] == fc.standings(state)


def test_fc6_cards_scored_by_the_best_lay_down():
    state = fc.GAME.apply(fc.new_game(P4), points_round("Ann", {}))
    hands = {"Bob": {"cards": ["5H", "6H", "7H", "7S"]},                   # run, 7S left: 7
             "Cat": {"melds": [], "leftover": ["5S", "6S", "7S", "4D"]},   # declared: all count
             "Dan": {"cards": ["QD", "QS", "4C", "KH"]}}                   # Q Q + wild 4C: 13
    state = fc.GAME.apply(state, {"type": "round_result", "went_out": "Ann", "hands": hands})
    record = public_state(fc.GAME, state)["rounds"][1]
    assert record["scores"] == {"Ann": 0, "Bob": 7, "Cat": 5 + 6 + 7 + 20, "Dan": 13}
    assert record["breakdown"]["Bob"][0]["rule"] == "FC-6"
    assert record["hands"]["Bob"] == {"melds": [["5H", "6H", "7H"]], "leftover": ["7S"]}


def test_round_result_went_out_hand_checked():
    state = fc.new_game(P4)
    others = {p: {"points": 3} for p in ("Bob", "Cat", "Dan")}
    for hand, ok in [({"points": 0}, True), ({"points": 5}, False),
                     ({"cards": ["4H", "5H", "6H"]}, True), ({"cards": ["4H", "5H", "6H", "KS"]}, True),
                     ({"cards": ["4H", "5H", "7H"]}, False), ({"cards": ["4H", "5H", "7H", "9S"]}, False),
                     ({"melds": [["4H", "5H", "6H"]], "leftover": ["KS"]}, True),
                     ({"melds": [["4H", "5H", "6H"]], "leftover": ["KS", "KD"]}, False),
                     ({"melds": [["4H", "5H"]], "leftover": ["6H"]}, False)]:
        move = {"type": "round_result", "went_out": "Ann", "hands": {"Ann": hand, **others}}
        if ok:
            assert fc.GAME.apply(state, move)["rounds"][0]["scores"]["Ann"] == 0
        else:
            with pytest.raises(IllegalMove) as err:
                fc.GAME.apply(state, move)
            assert err.value.rule in ("FC-3", "FC-4", "FC-5")


def test_round_result_copies_fc1():
    state = fc.new_game(P4)
    hands = {"Bob": {"leftover": ["4H", "4H", "5S"]}, "Cat": {"leftover": ["4H", "6S", "7S"]},
             "Dan": {"points": 0}}
    illegal(state, {"type": "round_result", "went_out": "Ann", "hands": hands}, "FC-1")


@pytest.mark.parametrize("move", [
    {"type": "round_result", "went_out": "Ann"},
    {"type": "round_result", "went_out": "Zed", "hands": {}},
    {"type": "round_result", "went_out": "Ann", "hands": []},
    {"type": "round_result", "went_out": "Ann", "hands": {"Bob": {"points": 1}, "Cat": {"points": 1}}},
    {"type": "round_result", "went_out": "Ann", "hands": {"Zed": {"points": 1}}},
    {"type": "round_result", "went_out": "Ann",
     "hands": {"Bob": {"points": -1}, "Cat": {"points": 1}, "Dan": {"points": 1}}},
    {"type": "round_result", "went_out": "Ann",
     "hands": {"Bob": {"points": True}, "Cat": {"points": 1}, "Dan": {"points": 1}}},
    {"type": "round_result", "went_out": "Ann",
     "hands": {"Bob": {"points": 1, "cards": []}, "Cat": {"points": 1}, "Dan": {"points": 1}}},
    {"type": "round_result", "went_out": "Ann",
     "hands": {"Bob": {"cards": ["4H"], "melds": []}, "Cat": {"points": 1}, "Dan": {"points": 1}}},
    {"type": "round_result", "went_out": "Ann",
     "hands": {"Bob": {}, "Cat": {"points": 1}, "Dan": {"points": 1}}},
    {"type": "round_result", "went_out": "Ann",
     "hands": {"Bob": {"melds": "4H"}, "Cat": {"points": 1}, "Dan": {"points": 1}}},
    {"type": "round_result", "went_out": "Ann",
     "hands": {"Bob": {"melds": [["4H", 4]]}, "Cat": {"points": 1}, "Dan": {"points": 1}}},
    {"type": "round_result", "went_out": "Ann",
     "hands": {"Bob": {"leftover": ["4H"], "extra": 1}, "Cat": {"points": 1}, "Dan": {"points": 1}}},
    {"type": "round_result", "went_out": "Ann",
     "hands": {"Bob": 12, "Cat": {"points": 1}, "Dan": {"points": 1}}},
    {"type": "round_result", "went_out": "Ann", "hands": {}, "bonus": 1},
])
def test_round_result_malformed(game, move):
    invalid(game, move)


@pytest.mark.parametrize("move", [
    {"type": "draw", "player": "Ann"},
    {"type": "draw", "player": "Ann", "source": None},
    {"type": "draw", "player": "Ann", "source": "deck"},
    {"type": "draw", "player": 1, "source": "stock"},
    {"type": "draw", "player": "Ann", "source": "stock", "extra": True},
    {"type": "discard", "player": "Ann"},
    {"type": "discard", "player": "Ann", "card": ["KH"]},
    {"type": "go_out", "player": "Ann", "melds": "KH", "discard": "KH"},
    {"type": "go_out", "player": "Ann", "melds": [["KH"], "QH"], "discard": "KH"},
    {"type": "go_out", "player": "Ann", "discard": "KH"},
    {"type": "go_out", "player": "Ann", "melds": [], "discard": None},
    {"type": "final_turn", "player": "Ann", "discard": "KH"},
    {"type": "final_turn", "player": "Ann", "discard": "KH", "cards": ["KS"], "melds": []},
    {"type": "final_turn", "player": "Ann", "discard": "KH", "points": 3},
    {"type": "final_turn", "player": "Ann", "discard": "KH", "leftover": "KS"},
    {"type": "deal", "discard": "KH", "player": "Dan"},
    {"type": "fold", "player": "Ann"},
    {"player": "Ann"},
    "draw",
])
def test_malformed_moves(dealt, move):
    invalid(dealt, move)                                       # before Ann's draw
    invalid(fc.GAME.apply(dealt, draw("Ann")), move)                # and after it


# ---------------------------------------------------------------- the end: FC-5 winners and ties

def eleven_rounds(state, scores_by_round):
    for number, scores in enumerate(scores_by_round, start=1):
        state = fc.GAME.apply(state, points_round(next(p for p in state["in_round"] if not scores.get(p)),
                                             scores, state["in_round"]))
    return state


def test_fc5_lowest_total_wins_and_game_over(game):
    state = eleven_rounds(game, [{"Bob": 10, "Cat": 20, "Dan": 5}] + [{"Ann": 1, "Cat": 3, "Dan": 4}] * 10)
    view = public_state(fc.GAME, state)
    assert view["status"] == "finished" and view["to_play"] is None
    assert view["standings"] == {"Ann": 10, "Bob": 10 + 0, "Cat": 50, "Dan": 45}
    assert view["winners"] == ["Ann", "Bob"]                 # share (default)
    assert len(view["rounds"]) == 11
    illegal(state, deal("5H"), "FC-5")
    illegal(state, points_round("Ann", {}), "FC-5")


def test_fc5_play_off_among_tied_players():
    state = fc.new_game(P4, {"tie_break": "play_off"})
    state = eleven_rounds(state, [{"Bob": 10, "Cat": 20, "Dan": 5}] + [{"Ann": 1, "Cat": 3, "Dan": 4}] * 10)
    view = public_state(fc.GAME, state)
    assert view["status"] == "in_progress" and view["round"] == 12 and view["play_off"] is True
    assert view["in_round"] == ["Ann", "Bob"]
    assert view["wild"] == "6" and view["cards_dealt"] == 6
    assert view["dealer"] == "Cat"
    assert view["to_play"] == "Ann"                  # Cat deals; Dan sits out; Ann plays first
    illegal(state, points_round("Cat", {}), "FC-5")
    state = play(state, deal("KS"))
    illegal(state, draw("Dan"), "FC-5")
    state = play(state, draw("Ann"))
    state = play(state, go_out("Ann", [["6S", "7S", "8S"], ["9S", "9D", "9C"]], "KC"),
                 draw("Bob"), final("Bob", "KD", cards=["4S", "4D", "5S", "5D", "10H", "JH"]))
    view = public_state(fc.GAME, state)
    assert view["status"] == "finished" and view["winners"] == ["Ann"]
    assert view["standings"] == {"Ann": 10, "Bob": 10, "Cat": 50, "Dan": 45}   # 11-round totals
    last = view["rounds"][-1]
    assert last["round"] == 12 and last["play_off"] is True
    assert last["scores"] == {"Ann": 0, "Bob": 4 + 4 + 5 + 5 + 10 + 11}


def test_fc5_play_off_tied_again_is_shared():
    state = fc.new_game(["Ann", "Bob"], {"tie_break": "play_off"})
    state = eleven_rounds(state, [{"Ann": 0, "Bob": 0}] * 11)
    assert public_state(fc.GAME, state)["round"] == 12
    state = fc.GAME.apply(state, {"type": "round_result", "went_out": "Ann",
                             "hands": {"Ann": {"points": 0}, "Bob": {"points": 0}}})
    assert public_state(fc.GAME, state)["winners"] == ["Ann", "Bob"]


def test_single_winner_no_play_off():
    state = fc.new_game(P4, {"tie_break": "play_off"})
    state = eleven_rounds(state, [{"Bob": 10, "Cat": 20, "Dan": 5}] * 11)
    view = public_state(fc.GAME, state)
    assert view["status"] == "finished" and view["winners"] == ["Ann"] and view["round"] == 11


# ---------------------------------------------------------------- dispute verdicts

def test_judge_hand_sheet_examples():
    verdict = fc.judge_hand({"wild": "8", "cards": ["8D", "QD", "Q*", "8*", "9D", "9D", "9H"]})
    assert verdict["min_points"] == 0 and verdict["leftover"] == []
    assert verdict["can_go_out"] is True and verdict["go_out_discard"] in verdict_cards(verdict)
    cards = ["9D", "7C", "JD", "6D", "7*", "7S", "9D"]
    verdict = fc.judge_hand({"round": 5, "cards": cards})
    assert verdict["min_points"] == 0 and sorted(verdict_cards(verdict)) == sorted(cards)
    assert all(fc.judge_meld({"round": 5, "cards": m})["legal"] for m in verdict["melds"])


def verdict_cards(verdict):
    return [c for meld in verdict["melds"] for c in meld] + verdict["leftover"]


def test_judge_hand_fields_and_go_out():
    verdict = fc.judge_hand({"round": 1, "cards": ["5h", "5S", "5D", "KH"]})
    assert verdict == {"min_points": 13, "melds": [["5H", "5S", "5D"]], "leftover": ["KH"],
                       "can_go_out": True, "go_out_discard": "KH", "says": verdict["says"]}
    verdict = fc.judge_hand({"wild": "K", "cards": ["4H", "9S", "QD", "JK"]})
    assert verdict["min_points"] == 4 + 9 + 12 + 50 and verdict["can_go_out"] is False
    assert verdict["go_out_discard"] is None


@pytest.mark.parametrize("body", [
    {"cards": ["5H", "5S", "5D"]}, {"round": 1, "wild": "3", "cards": ["5H"]},
    {"round": 0, "cards": ["5H"]}, {"round": 12, "cards": ["5H"]}, {"round": "1", "cards": ["5H"]},
    {"wild": "2", "cards": ["5H"]}, {"wild": "A", "cards": ["5H"]}, {"wild": None, "cards": ["5H"]},
    {"round": 1}, {"round": 1, "cards": "5H"}, {"round": 1, "cards": ["5X"]}, {"round": 1, "cards": []},
    {"round": 1, "cards": ["5H"] * 2 + ["JK"] * 19}, {"round": 1, "cards": ["5H"], "decks": 3},
    {"round": 1, "cards": ["5H"], "extra": 1}, [], "cards",
])
def test_judge_hand_bad_requests(body):
    with pytest.raises(InvalidInput):
        fc.judge_hand(body)


def test_judge_copies_fc1():
    with pytest.raises(IllegalMove) as err:
        fc.judge_hand({"round": 1, "cards": ["5H", "5H", "5H"]})
    assert err.value.rule == "FC-1"
    assert fc.judge_hand({"round": 1, "cards": ["5H", "5H", "5H"], "decks": 4})["min_points"] == 0
    with pytest.raises(IllegalMove):
        fc.judge_meld({"wild": "K", "cards": ["JK"] * 7})


@pytest.mark.parametrize("meld", [["QH", "KH", "4H"], ["KH", "4H", "5H"], ["JS", "QS", "KS", "4S"]])
def test_fc3_no_wrap_named_in_the_reason(meld):
    # FC-3: runs go from 3 to K, no wrap; the reason says so when wrapping would have made a run
    verdict = fc.judge_meld({"wild": "8", "cards": meld})
    assert verdict["legal"] is False and verdict["rule"] == "FC-3"
    assert "no wrap" in verdict["reason"]
    assert "no wrap" not in fc.judge_meld({"wild": "8", "cards": ["4H", "6H", "9H"]})["reason"]


@pytest.mark.parametrize("cards", [["5H"], ["JK"], ["5H", "5S"], ["5H", "5S", "5D"]])
def test_fc4_judge_no_go_out_without_a_meld(cards):
    # FC-4: going out lays down books and runs (the dealt number, at least three cards) and
    # discards one more: fewer than four cards can never go out
    verdict = fc.judge_hand({"round": 1, "cards": cards})
    assert verdict["can_go_out"] is False and verdict["go_out_discard"] is None


def test_state_names_the_wild_rank_as_wild_too(game):
    # FC-2: the round's wild rank, under the name the verdicts and round records use
    view = public_state(fc.GAME, game)
    assert view["wild"] == view["wild"] == "3"
    state = fc.GAME.apply(game, points_round("Ann", {}))
    assert public_state(fc.GAME, state)["wild"] == "4"


def test_judge_meld_wild_forms():
    for wild in ("10", "t", 10, "T"):
        assert fc.judge_meld({"wild": wild, "cards": ["9H", "10S", "JH"]})["legal"] is True
    assert fc.judge_meld({"wild": "q", "cards": ["QH", "QS", "QD"]})["kind"] == "book"


def test_interface_metadata():
    assert fc.NAME == "five-crowns" and fc.PLAYERS == (2, 21)
    assert set(fc.RULINGS) == {f"FC-{i}" for i in range(1, 9)} | {"G-1", "G-2"} | {"T-1", "T-2", "T-4"}
    assert set(fc.MOVES) == {"deal", "draw", "discard", "go_out", "final_turn", "round_result", "correct_round",
                             "switch_record", "adjust"}
    assert set(fc.JUDGES) == {"hand", "meld"}
    assert set(fc.OPTIONS) == {"decks", "dealer", "round_order", "tie_break", "record"}


# ---------------------------------------------------------------- properties

@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.lists(st.integers(0, 120), min_size=4, max_size=4)),
                min_size=11, max_size=11),
       st.sampled_from(["share", "play_off"]))
def test_property_totals_are_the_sum_of_round_scores(rounds, tie_break):
    state = fc.new_game(P4, {"tie_break": tie_break})
    for went_out, points in rounds:
        scores = {p: 0 if k == went_out else points[k] for k, p in enumerate(P4)}
        before = copy.deepcopy(state)
        new = fc.GAME.apply(state, points_round(P4[went_out], scores))
        assert state == before                                  # apply never mutates its input
        assert json.loads(json.dumps(new)) == new                # plain JSON data
        state = new
    view = public_state(fc.GAME, state)
    expected = {p: sum(0 if w == k else pts[k] for w, pts in rounds) for k, p in enumerate(P4)}
    assert view["standings"] == expected
    low = [p for p in P4 if expected[p] == min(expected.values())]
    if len(low) == 1 or tie_break == "share":
        assert view["status"] == "finished" and view["winners"] == low
    else:
        assert view["round"] == 12 and view["in_round"] == low and view["winners"] == []


# ---------------------------------------------------------------- going out as the cards alone (FC-4, FC-6)

def test_fc4_going_out_with_the_cards_alone_finds_the_melds_and_the_discard(dealt):
    state = play(dealt, draw("Ann"))
    out = play(state, {"type": "go_out", "player": "Ann", "cards": ["KS", "6H", "7H", "8H"]})
    view = public_state(fc.GAME, out)
    assert view["went_out"] == "Ann" and view["discard_top"] == "KS"
    assert view["laid_down"]["Ann"]["melds"] == [["6H", "7H", "8H"]]
    same = play(state, go_out("Ann", [["6H", "7H", "8H"]], "KS"))
    assert {k: v for k, v in out.items() if k != "events"} == {k: v for k, v in same.items() if k != "events"}
    given = play(state, {"type": "go_out", "player": "Ann", "cards": ["6H", "7H", "8H"], "discard": "KS"})
    assert public_state(fc.GAME, given)["laid_down"]["Ann"]["melds"] == [["6H", "7H", "8H"]]


def test_fc4_a_hand_that_cannot_go_out_is_refused_with_what_it_lacks(dealt):
    state = play(dealt, draw("Ann"))
    error = illegal(state, {"type": "go_out", "player": "Ann", "cards": ["KS", "6H", "9D", "JC"]}, "FC-4")
    # what is left over is no value of a go_out field: the detail names it
    assert "cannot go out" in error.detail and error.legal is None
    error = illegal(state, {"type": "go_out", "player": "Ann", "cards": ["6H", "7H", "9D"], "discard": "KS"},
                    "FC-4")
    left = error.detail.split("leaves")[1]
    assert error.legal is None and all(card in left for card in ("6H", "7H", "9D"))
    illegal(state, {"type": "go_out", "player": "Ann", "cards": ["6H", "7H", "8H"]}, "FC-4")   # one short
    invalid(state, {"type": "go_out", "player": "Ann", "cards": ["6H", "7H", "8H"], "melds": [["6H"]]})


# ---------------------------------------------------------------- final turns as the cards alone (FC-4, FC-6)

def final_cards(player, cards):
    """A final turn given as the cards held after the draw, the discard among them."""
    return {"type": "final_turn", "player": player, "cards": cards}


@pytest.fixture
def final_turns(dealt):
    """Round 1 (3 cards, 3s wild): Ann went out discarding KH; Bob has drawn for his final turn."""
    return play(dealt, draw("Ann"), go_out("Ann", [["9S", "9D", "JK"]], "KH"), draw("Bob"))


def test_fc6_final_turn_as_the_cards_alone_finds_the_discard_and_the_melds(final_turns):
    # FC-4: "lay down any books and/or runs you can before discarding"; FC-6: "when the table enters
    # only the cards, the best lay-down is used": here discarding KD leaves the run 4S 5S 6S, 0 points
    state = fc.GAME.apply(final_turns, final_cards("Bob", ["4S", "5S", "6S", "KD"]))
    view = public_state(fc.GAME, state)
    assert view["laid_down"]["Bob"] == {"melds": [["4S", "5S", "6S"]], "leftover": [], "discard": "KD",
                                        "solved": True}
    assert view["discard_top"] == "KD" and view["hand_sizes"]["Bob"] == 0 and view["to_play"] == "Cat"
    assert {"rule": "FC-6", "text": "Bob's best lay-down: discarding KD leaves 0 points."} in view["events"]
    same = fc.GAME.apply(final_turns, final("Bob", "KD", melds=[["4S", "5S", "6S"]]))
    assert same["laid"]["Bob"]["melds"] == state["laid"]["Bob"]["melds"]
    assert same["discard_pile"] == state["discard_pile"] and same["hand_sizes"] == state["hand_sizes"]


def test_fc5_final_turn_cards_alone_discard_leaves_the_lowest_score(final_turns):
    # FC-5: "Jokers are 50 and the current wild cards are 20": with no meld possible, keeping the
    # Joker would cost 50, so the Joker is the discard: 12 + 13 + 4 left
    state = fc.GAME.apply(final_turns, final_cards("Bob", ["JK", "QD", "KC", "4C"]))
    assert state["laid"]["Bob"] == {"melds": [], "leftover": ["4C", "QD", "KC"], "discard": "JK",
                                    "solved": True}
    # a wild 3 makes a book with the Queens (FC-3): the King goes, nothing is left
    state = fc.GAME.apply(final_turns, final_cards("Bob", ["3H", "QD", "QS", "KC"]))
    assert state["laid"]["Bob"]["discard"] == "KC" and state["laid"]["Bob"]["leftover"] == []
    assert sorted(state["laid"]["Bob"]["melds"][0]) == ["3H", "QD", "QS"]
    # the round's score is the leftover's (FC-5), with the best lay-down named (FC-6)
    state = play(final_turns, final_cards("Bob", ["JK", "QD", "KC", "4C"]),
                 draw("Cat"), final_cards("Cat", ["4S", "5S", "6S", "KD"]),
                 draw("Dan"), final("Dan", "QS", cards=["7C", "7C", "10D"]))
    record = public_state(fc.GAME, state)["rounds"][0]
    assert record["scores"] == {"Ann": 0, "Bob": 4 + 12 + 13, "Cat": 0, "Dan": 24}
    assert record["breakdown"]["Bob"][0]["rule"] == "FC-6"
    assert [line["points"] for line in record["breakdown"]["Bob"][1:]] == [4, 12, 13]


@pytest.mark.parametrize("hand", [
    ["8D", "QD", "QS", "JK", "9C", "10C", "KH", "3S", "5S"],      # the sheet's book 8 Q Q, a run, a Joker
    ["9D", "7C", "JD", "6D", "7S", "9H", "QH", "QS", "KC"],
    ["KH", "KS", "QD", "JC", "10S", "9S", "4H", "5D", "6C"],
    ["JK", "JK", "8H", "3C", "4D", "5H", "6S", "7C", "KD"],
])
def test_fc6_the_found_discard_is_the_best_of_every_discard(hand):
    # Round 6 (8 cards, 8s wild; the sheet: "if 8s are wild, a book could be 8 Q Q"), with a
    # hand of the dealt number plus the card drawn: the service's score is the least over every
    # discard the hand allows, each scored by the FC-6 verdict
    state = fc.new_game(P4)
    for _ in range(5):
        state = fc.GAME.apply(state, points_round("Ann", {}))
    assert state["cards_dealt"] == 8 and state["wild"] == "8"
    state = play(state, deal("3C"), draw("Bob"), go_out("Bob", [["4S", "5S", "6S", "7S", "8C", "9S", "10S", "JS"]],
                                                        "QC"), draw("Cat"))
    done = fc.GAME.apply(state, final_cards("Cat", hand))
    laid = done["laid"]["Cat"]
    best = min(fc.JUDGES["hand"].fn({"wild": "8", "cards": [c for i, c in enumerate(hand) if i != k]})["min_points"]
               for k in range(len(hand)))
    assert sum(fc.card_points(c, "8") for c in laid["leftover"]) == best
    kept = list(hand)
    kept.remove(laid["discard"])
    assert sorted(kept) == sorted([c for m in laid["melds"] for c in m] + laid["leftover"])
    assert all(fc.meld_kind(m, "8")[0] for m in laid["melds"])


def test_fc4_final_turn_cards_alone_refusals_change_nothing(final_turns):
    # FC-4: the hand after the draw holds the dealt number plus one (3 + 1 in round 1)
    illegal(final_turns, final_cards("Bob", ["4S", "5S", "6S"]), "FC-4")
    illegal(final_turns, final_cards("Bob", ["4S", "5S", "6S", "7S", "KD"]), "FC-4")
    illegal(final_turns, final_cards("Cat", ["4S", "5S", "6S", "KD"]), "G-1")
    # FC-1: two decks hold two 9S: Ann laid one down, a third cannot be in Bob's hand
    illegal(final_turns, final_cards("Bob", ["9S", "9S", "6S", "KD"]), "FC-1")
    # melds without a discard: the service finds the discard only from the cards alone
    error = invalid(final_turns, {"type": "final_turn", "player": "Bob", "melds": [["4S", "5S", "6S"]],
                                  "leftover": []})
    assert "discard" in error.detail
    invalid(final_turns, {"type": "final_turn", "player": "Bob"})
    # the declared form is checked as before: a discard with the cards alone means the dealt number
    illegal(final_turns, final("Bob", "KD", cards=["4S", "5S", "6S", "7S"]), "FC-4")


def test_fc1_final_turn_cards_alone_must_show_the_card_taken_from_the_discard(dealt):
    # FC-1: a card taken from the discard pile is known: the hand shown must hold it
    state = play(dealt, draw("Ann"), go_out("Ann", [["9S", "9D", "JK"]], "KH"), draw("Bob", "discard"))
    illegal(state, final_cards("Bob", ["4S", "5S", "6S", "KD"]), "FC-1")
    done = fc.GAME.apply(state, final_cards("Bob", ["4S", "5S", "6S", "KH"]))
    assert done["laid"]["Bob"]["discard"] == "KH" and done["known"]["Bob"] == []
    kept = fc.GAME.apply(state, final_cards("Bob", ["KH", "KS", "3C", "9C"]))       # K K + wild 3: 9C goes
    assert kept["laid"]["Bob"]["discard"] == "9C" and kept["laid"]["Bob"]["leftover"] == []


def test_fc6_equal_scores_discard_a_natural_card_before_a_wild_then_the_highest():
    # every discard of 3H 5S 6S 7S leaves a run (3s wild): the service keeps the wild and lets the
    # 7 go; the same hand always gives the same discard
    assert fc.best_discard(["3H", "5S", "6S", "7S"], "3")[0] == "7S"
    assert fc.best_discard(["7S", "6S", "5S", "3H"], "3")[0] == "7S"
    discard, kept = fc.best_discard(["JK", "QD", "KC", "4C"], "3")
    assert discard == "JK" and kept.points == 4 + 12 + 13



@pytest.mark.parametrize("wild, meld, says", [
    ("5", ["7H", "5S", "9H"], "Yes: 7H 5S 9H is a run, 5S standing in for the 8 (FC-3)."),   # issue 33's example
    ("5", ["4H", "5H", "6H"], "Yes: 4H 5H 6H is a run (FC-3)."),                              # the 5H stands for itself
    ("3", ["QD", "QS", "JK"], "Yes: QD QS JK is a book of Qs, JK standing in for the Q (FC-3)."),
    ("5", ["JH", "QH", "JK", "5S"], "Yes: JH QH JK 5S is a run, JK standing in for the K and 5S standing in for "
                                    "the 10 (FC-3)."),                                         # no wrap: below J
    ("3", ["JK", "JK", "3H"], "Yes: JK JK 3H are all wild cards, and a meld of wild cards alone is legal (FC-3)."),
    ("3", ["7H", "8H", "10S"], "No: 7H 8H 10S: a run needs one suit (FC-3)."),
])
def test_the_meld_verdict_says_itself_in_a_sentence_citing_FC3(wild, meld, says):
    """Issue 33: the Check page reads the answer aloud, not a table of fields."""
    assert fc.judge_meld({"wild": wild, "cards": meld})["says"] == says


def test_the_hand_verdict_says_the_best_lay_down_and_whether_it_goes_out_FC4_FC6():
    says = fc.judge_hand({"wild": "5", "cards": ["7H", "5S", "9H", "KD"]})["says"]
    assert says == "Best lay-down: 7H 5S 9H; 13 points left over (KD) (FC-6). It goes out discarding KD (FC-4)."
    assert "cannot go out" in fc.judge_hand({"wild": "5", "cards": ["7H", "KD"]})["says"]
