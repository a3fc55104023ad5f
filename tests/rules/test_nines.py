"""Nines engine: every ruling N9-1..N9-8 (and G-1, G-2), legal and illegal, plus the grid verdict."""
from __future__ import annotations

import copy
import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.rules import nines
from referee.cards import STANDARD_RANKS, STANDARD_SUITS
from referee.rules.base import IllegalMove, InvalidInput, public_state
from engine_checks import refused_by

P3 = ["Ann", "Bob", "Cy"]
DEAL3 = {"type": "deal", "discard": "5H", "revealed": {
    "Ann": {"0": "2H", "4": "3S", "8": "KD"},
    "Bob": {"1": "QH", "2": "JK", "3": "9C"},
    "Cy": {"0": "AS", "1": "AH", "2": "AD"},
}}
FULL_DECK = [r + s for r in STANDARD_RANKS for s in STANDARD_SUITS] + ["JK", "JK"]


# ---------------------------------------------------------------- helpers

def play(state, *moves):
    for move in moves:
        state = nines.GAME.apply(state, move)
    return state


def turn(player, source, card, position=None, replaced=None):
    move = {"type": "turn", "player": player, "source": source, "card": card, "position": position}
    if replaced is not None:
        move["replaced"] = replaced
    return move


def refused(state, move, exc=IllegalMove, rule=None):
    return refused_by(nines.GAME, state, move, exc, rule)


def view(state):
    return public_state(nines.GAME, state)


def dealt(players=P3, options=None, deal=DEAL3):
    return play(nines.new_game(players, options), deal)


# Ann fills her six face-down positions with stock cards; Bob and Cy draw and discard.
ANN_FILL = [(1, "4C", "6H"), (2, "4D", "6S"), (3, "2S", "7H"), (5, "3D", "7S"), (6, "2D", "8H"), (7, "3C", "8S")]
OTHERS_DISCARD = ["9H", "9S", "10H", "10S", "JH", "JS", "QC", "QD", "10C", "10D"]


def play_until_ann_done(state):
    """Six rounds of Ann, Bob, Cy; Ann's last placement makes her done (N9-4)."""
    others = iter(OTHERS_DISCARD)
    for i, (position, card, replaced) in enumerate(ANN_FILL):
        state = play(state, turn("Ann", "stock", card, position, replaced))
        if i < len(ANN_FILL) - 1:
            state = play(state, turn("Bob", "stock", next(others)), turn("Cy", "stock", next(others)))
    return state


# Ann's final grid: column 0 holds three 2s (a set); nothing else matches.
ANN_FINAL = ["2H", "4C", "4D", "2S", "3S", "3D", "2D", "3C", "KD"]
BOB_GRID = ["7C", "QH", "JK", "9C", "KS", "KH", "AC", "5C", "5D"]
CY_GRID = ["AS", "AH", "AD", "6C", "6D", "8C", "JD", "JC", "8D"]


def reach_final_turns(state):
    state = play_until_ann_done(state)
    return play(state, {"type": "reveal", "player": "Bob", "grid": BOB_GRID},
                {"type": "reveal", "player": "Cy", "grid": CY_GRID})


# ---------------------------------------------------------------- options, setup (N9-1, G-1, G-2)

@pytest.mark.parametrize("count, decks", [(2, 2), (3, 2), (4, 3), (6, 3), (7, 4), (9, 4), (10, 5), (13, 6)])
def test_default_decks_follow_n9_1(count, decks):
    state = nines.new_game([f"p{i}" for i in range(count)], None)
    assert view(state)["decks"] == decks
    assert view(state)["draw_pile"] == 54 * decks


def test_table_may_choose_more_decks_but_not_fewer():
    assert view(nines.new_game(P3, {"decks": 3}))["decks"] == 3
    # G-3: fewer decks than N9-1 requires cite N9-1 ("3 for 4-6", "one more for every three further")
    for players, decks, least in ((4, 2, 3), (7, 3, 4), (13, 5, 6)):
        with pytest.raises(InvalidInput) as caught:
            nines.new_game([f"p{i}" for i in range(players)], {"decks": decks})
        assert caught.value.rule == "N9-1" and caught.value.legal == {"decks": {"minimum": least, "maximum": 20}}
        assert view(nines.new_game([f"p{i}" for i in range(players)], {"decks": least}))["decks"] == least
    for bad in (True, "2", 0, 1, 21):
        with pytest.raises(InvalidInput) as caught:
            nines.new_game(P3, {"decks": bad})
        assert caught.value.rule == "N9-1", bad


@pytest.mark.parametrize("options", [
    {"decks": True}, {"decks": "2"}, {"decks": 0}, {"target": "100"}, {"target": 0}, {"target": False},
    {"dealer": "Zed"}, {"dealer": 3}, {"colour": "red"}, "decks=2",
])
def test_bad_options_are_invalid_input(options):
    with pytest.raises(InvalidInput):
        nines.new_game(P3, options)


@pytest.mark.parametrize("players", [["solo"], ["a", "A"], "Ann,Bob", ["a", ""]])
def test_bad_players_are_invalid_input(players):
    with pytest.raises(InvalidInput):
        nines.new_game(players, None)


def test_new_game_waits_for_the_deal_recorded_by_the_default_dealer():
    v = view(nines.new_game(P3, None))
    assert v["status"] == "in_progress" and v["phase"] == "deal"
    assert v["dealer"] == "Cy" and v["to_play"] == "Ann"  # G-2: last listed deals, so the first listed plays first
    assert v["round"] == v["hand"] == 1
    assert v["target"] == 100
    assert v["grids"] == {p: [None] * 9 for p in P3}
    assert v["discard_top"] is None and v["done"] is None and v["final_turns_left"] == []
    assert v["standings"] == {p: 0 for p in P3} and v["winners"] == [] and v["rounds"] == []
    json.dumps(v)


def test_first_player_is_first_listed_after_default_deal():  # G-2, N9-8
    assert view(dealt())["to_play"] == "Ann"


def test_recorded_dealer_moves_the_first_player():  # G-1: left of Ann is Bob; of Cy wraps to Ann
    assert view(dealt(options={"dealer": "Ann"}))["to_play"] == "Bob"
    assert view(dealt(options={"dealer": "Bob"}))["to_play"] == "Cy"


def test_module_declares_every_ruling_and_move():
    assert set(nines.RULINGS) == {"G-1", "G-2"} | {f"N9-{i}" for i in range(1, 10)} | {"T-1", "T-2", "T-4"}
    assert set(nines.MOVES) == {"deal", "turn", "reveal", "reveal_all", "hand_result", "correct_round", "switch_record", "adjust"}
    assert nines.NAME == "nines" and set(nines.JUDGES) == {"grid"}


# ---------------------------------------------------------------- the deal (N9-2, N9-1)

def test_deal_records_face_up_cards_discard_and_stock():
    v = view(dealt())
    assert v["phase"] == "play"
    assert v["grids"]["Ann"] == ["2H", None, None, None, "3S", None, None, None, "KD"]
    assert v["grids"]["Bob"][1:4] == ["QH", "JK", "9C"]
    assert v["discard_top"] == "5H" and v["discard_pile"] == ["5H"]
    assert v["draw_pile"] == 108 - 27 - 1


def test_deal_accepts_forgiving_codes_and_int_positions():
    deal = copy.deepcopy(DEAL3)
    deal["discard"] = "5♥"
    deal["revealed"]["Ann"] = {0: "2h", 4: " s3 ", 8: "K♦"}
    v = view(dealt(deal=deal))
    assert v["grids"]["Ann"][0] == "2H" and v["grids"]["Ann"][4] == "3S" and v["discard_top"] == "5H"


def test_deal_stock_with_more_players_and_decks():
    players = ["a", "b", "c", "d"]
    deal = {"type": "deal", "discard": "2C",
            "revealed": {p: {"0": "AS", "1": "KS", "2": "QS"} if i < 3 else {"0": "4D", "5": "5D", "8": "6D"}
                         for i, p in enumerate(players)}}
    v = view(dealt(players, None, deal))
    assert v["decks"] == 3 and v["draw_pile"] == 162 - 36 - 1


@pytest.mark.parametrize("cells", [{"0": "2H", "4": "3S"}, {"0": "2H", "4": "3S", "8": "KD", "7": "KC"}, {}])
def test_deal_needs_exactly_three_face_up_cards(cells):
    deal = copy.deepcopy(DEAL3)
    deal["revealed"]["Ann"] = cells
    refused(nines.new_game(P3, None), deal, rule="N9-2")


def test_deal_needs_every_player():
    deal = copy.deepcopy(DEAL3)
    del deal["revealed"]["Cy"]
    err = refused(nines.new_game(P3, None), deal, rule="N9-2")
    assert err.legal is None and "missing: Cy" in err.detail  # no field's value says it: the detail does


def test_hand_is_dealt_only_once():
    refused(dealt(), DEAL3, rule="N9-2")


def test_deal_may_be_recorded_by_any_player():
    # G-2: the table deals and any player may record it; `to_play` already names the first player (Ann),
    # so a client that sends `"player": to_play` with every move can record the deal too.
    state = nines.new_game(P3, None)
    assert view(play(state, {**DEAL3, "player": "Cy"}))["to_play"] == "Ann"
    assert view(play(state, {**DEAL3, "player": view(state)["to_play"]}))["to_play"] == "Ann"
    refused(state, {**DEAL3, "player": "Zed"}, exc=InvalidInput)


def test_deal_card_accounting_n9_1():
    deal = copy.deepcopy(DEAL3)
    deal["revealed"]["Bob"] = {"1": "AS", "2": "AS", "3": "9C"}  # Cy shows a third AS (two decks hold two)
    refused(nines.new_game(P3, None), deal, rule="N9-1")
    deal = copy.deepcopy(DEAL3)
    deal["discard"] = "JK"
    deal["revealed"]["Ann"] = {"0": "JK", "4": "JK", "8": "JK"}  # five Jokers, two decks hold four
    refused(nines.new_game(P3, None), deal, rule="N9-1")
    deal["discard"] = "5H"  # four Jokers are fine
    assert view(play(nines.new_game(P3, None), deal))["grids"]["Ann"][0] == "JK"


@pytest.mark.parametrize("mutate", [
    lambda d: d["revealed"]["Ann"].update({"9": "4C"}),
    lambda d: d["revealed"].update({"Ann": {"x": "2H", "4": "3S", "8": "KD"}}),
    lambda d: d["revealed"].update({"Ann": {True: "2H", "4": "3S", "8": "KD"}}),
    lambda d: d["revealed"].update({"Ann": {0: "2H", "0": "4C", "8": "KD"}}),
    lambda d: d["revealed"].update({"Ann": ["2H", "3S", "KD"]}),
    lambda d: d["revealed"].update({"Zed": {"0": "2C", "1": "3C", "2": "4C"}}),
    lambda d: d["revealed"]["Ann"].update({"0": "ZZ"}),
    lambda d: d["revealed"]["Ann"].update({"0": 7}),
    lambda d: d.update({"discard": ["5H"]}),
    lambda d: d.update({"revealed": []}),
    lambda d: d.pop("discard"),
    lambda d: d.update({"extra": 1}),
    lambda d: d.update({"player": 5}),
])
def test_malformed_deal_is_invalid_input(mutate):
    deal = copy.deepcopy(DEAL3)
    mutate(deal)
    refused(nines.new_game(P3, None), deal, exc=InvalidInput)


# ---------------------------------------------------------------- a turn (N9-3)

def test_stock_card_into_face_down_position_reveals_and_discards_it():
    v = view(play(dealt(), turn("Ann", "stock", "7D", 1, "9D")))
    assert v["grids"]["Ann"][1] == "7D"
    assert v["discard_top"] == "9D" and v["discard_pile"] == ["5H", "9D"]
    assert v["draw_pile"] == 79 and v["to_play"] == "Bob"


def test_discard_top_into_face_up_position_discards_the_known_card():
    state = play(dealt(), turn("Ann", "discard", "5H", 0))
    v = view(state)
    assert v["grids"]["Ann"][0] == "5H" and v["discard_pile"] == ["2H"] and v["draw_pile"] == 80
    # naming the known card is accepted too
    v = view(play(dealt(), turn("Ann", "discard", "5H", 4, "3S")))
    assert v["grids"]["Ann"][4] == "5H" and v["discard_top"] == "3S"


def test_drawn_card_may_be_discarded_from_either_pile():
    v = view(play(dealt(), turn("Ann", "stock", "8C")))
    assert v["discard_top"] == "8C" and v["draw_pile"] == 79 and v["grids"]["Ann"][1] is None
    v = view(play(dealt(), turn("Ann", "discard", "5H", None)))  # "whichever pile it came from"
    assert v["discard_pile"] == ["5H"] and v["draw_pile"] == 80 and v["to_play"] == "Bob"


def test_only_the_discard_top_can_be_taken():
    state = play(dealt(), turn("Ann", "stock", "8C"))
    err = refused(state, turn("Bob", "discard", "5H", 0, "4H"), rule="N9-3")
    assert err.legal == {"card": ["8C"]}


def test_replaced_must_match_a_face_up_card():
    err = refused(dealt(), turn("Ann", "stock", "7D", 0, "9D"), rule="N9-3")
    assert err.legal == {"replaced": ["2H"]}


def test_face_down_replacement_needs_the_replaced_card_n9_3():
    # N9-3: the replaced card is revealed as it is discarded; `replaced` is needed when the position was face down.
    refused(dealt(), turn("Ann", "stock", "7D", 1), rule="N9-3")
    refused(dealt(), turn("Ann", "discard", "5H", 1), rule="N9-3")


def test_discarded_card_replaces_nothing_n9_3():
    refused(dealt(), turn("Ann", "stock", "7D", None, "9D"), rule="N9-3")


def test_turn_before_the_deal():
    refused(nines.new_game(P3, None), turn("Ann", "stock", "7D"), rule="N9-2")


def test_first_turn_n9_8_then_play_passes_left_g_1():
    err = refused(dealt(), turn("Bob", "stock", "7D"), rule="N9-8")  # the dealer's left plays first
    assert err.legal == {"player": ["Ann"]}
    state = play(dealt(), turn("Ann", "stock", "7D"))
    refused(state, turn("Cy", "stock", "8C"), rule="G-1")  # Bob is to Ann's left
    state = play(state, turn("Bob", "stock", "7C"), turn("Cy", "stock", "8D"))
    assert view(state)["to_play"] == "Ann"  # G-1: wraps to the first listed
    refused(state, turn("Cy", "stock", "8C"), rule="G-1")


def test_turn_card_accounting_n9_1():
    state = dealt()  # Cy shows AS AH AD
    refused(state, turn("Ann", "stock", "AS", 1, "AS"), rule="N9-1")  # two new AS and one shown
    state = play(state, turn("Ann", "stock", "AS", 1, "9D"))  # second AS: fine
    refused(state, turn("Bob", "stock", "AS"), rule="N9-1")  # a third
    refused(state, turn("Bob", "stock", "7C", 0, "AS"), rule="N9-1")  # a third, revealed from the grid


@pytest.mark.parametrize("move", [
    {"type": "turn", "player": "Ann", "source": "deck", "card": "7D", "position": None},
    {"type": "turn", "player": "Ann", "source": "stock", "card": "7D", "position": 9, "replaced": "2C"},
    {"type": "turn", "player": "Ann", "source": "stock", "card": "7D", "position": True, "replaced": "2C"},
    {"type": "turn", "player": "Ann", "source": "stock", "card": "7D", "position": "1", "replaced": "2C"},
    {"type": "turn", "player": "Ann", "source": "stock", "card": "7X", "position": None},
    {"type": "turn", "player": "Ann", "source": "stock", "card": ["7D"], "position": None},
    {"type": "turn", "player": "Ann", "source": "stock", "card": "7D", "position": 1, "replaced": 5},
    {"type": "turn", "player": "Ann", "source": "stock", "position": None},
    {"type": "turn", "player": "Zed", "source": "stock", "card": "7D", "position": None},
    {"type": "turn", "player": "Ann", "source": "stock", "card": "7D", "position": None, "why": "x"},
    {"type": "draw", "player": "Ann"},
    {"player": "Ann"},
    ["turn"],
])
def test_malformed_turn_is_invalid_input(move):
    refused(dealt(), move, exc=InvalidInput)


def test_a_turn_that_names_no_player_is_the_player_to_plays_G1():
    """Left out, the player is the one whose turn it is (a queued move, a tap): no longer malformed."""
    state = nines.GAME.apply(dealt(), {"type": "turn", "source": "stock", "card": "7D", "position": None})
    assert state["discard_pile"][-1] == "7D" and state["to_play"] != dealt()["to_play"]


def test_apply_never_mutates_its_input():
    state = dealt()
    before = copy.deepcopy(state)
    nines.GAME.apply(state, turn("Ann", "stock", "7D", 1, "9D"))
    assert state == before


# ---------------------------------------------------------------- stock and reshuffle (N9-8)

def _deck_without(cards):
    pool = Counter(FULL_DECK * 2)
    pool.subtract(cards)
    return sorted(pool.elements(), key=lambda c: (c == "JK", c))


def test_empty_stock_is_remade_from_the_discard_pile_but_its_top():
    deal = {"type": "deal", "discard": "2C", "revealed": {
        "Ann": {"0": "KS", "1": "KH", "2": "KD"}, "Bob": {"0": "QS", "1": "QH", "2": "QD"}}}
    state = play(nines.new_game(["Ann", "Bob"], None), deal)
    assert view(state)["draw_pile"] == 108 - 18 - 1
    draws = _deck_without(["KS", "KH", "KD", "QS", "QH", "QD", "2C"])[:89]
    assert draws[:2] == ["10C", "10C"]
    players = ["Ann", "Bob"]
    for i, card in enumerate(draws):
        state = play(state, turn(players[i % 2], "stock", card))
        v = view(state)
        assert v["draw_pile"] + 18 + len(v["discard_pile"]) == 108
    v = view(state)
    # G-4: the stock is remade when a draw finds it empty, not when the last card leaves it
    assert v["reshuffles"] == 0 and v["draw_pile"] == 0 and len(v["discard_pile"]) == 90
    refused(state, turn("Bob", "stock", "QC"), rule="N9-1")  # the remade stock holds only the old pile
    drawn = play(state, turn("Bob", "stock", "10C"))
    v = view(drawn)
    assert v["reshuffles"] == 1 and v["draw_pile"] == 88 and v["discard_pile"] == [draws[-1], "10C"]
    assert any(e["rule"] == "N9-8" for e in v["events"])
    face_down = _deck_without(["KS", "KH", "KD", "QS", "QH", "QD", "2C"])[89:]  # the 12 face-down cards
    assert "5S" not in face_down and "QC" in face_down
    # Both 10C were in the old pile; they are back in the stock, so a 10C may be drawn again.
    state = play(state, turn("Bob", "stock", "10C"), turn("Ann", "stock", "10C", 3, "QC"))
    assert view(state)["draw_pile"] == 87
    refused(state, turn("Bob", "stock", "10C"), rule="N9-1")  # but not a third while two are shown


def test_remade_stock_counts_as_seen_n9_1_n9_8():
    """N9-1 counts every card the table has seen: the remade stock is the old discard pile (N9-8)."""
    deal = {"type": "deal", "discard": "2C", "revealed": {
        "Ann": {"0": "KS", "1": "KH", "2": "KD"}, "Bob": {"0": "QS", "1": "QH", "2": "QD"}}}
    state = play(nines.new_game(["Ann", "Bob"], None), deal)
    pool = _deck_without(["KS", "KH", "KD", "QS", "QH", "QD", "2C"])
    draws, face_down = pool[:89], pool[89:]
    for i, card in enumerate(draws):
        state = play(state, turn(["Ann", "Bob"][i % 2], "stock", card))
    assert view(state)["reshuffles"] == 0 and view(state)["draw_pile"] == 0 and draws.count("5S") == 2
    # Both 5S lie in the remade stock: a face-down 5S would be a third one seen.
    refused(state, turn("Bob", "stock", "10C", 3, "5S"), rule="N9-1")
    # The remade stock holds only the old pile: a card that never reached the pile cannot be drawn from it.
    assert "QC" in face_down and "QC" not in draws
    err = refused(state, turn("Bob", "stock", "QC"), rule="N9-1")
    assert "5S" in err.legal["card"] and "QC" not in err.legal["card"]
    # Each card of the remade stock can be drawn as often as it lies there.
    state = play(state, turn("Bob", "stock", "5S"), turn("Ann", "stock", "5S", 3, "QC"))
    refused(state, turn("Bob", "stock", "5S"), rule="N9-1")
    assert view(state)["draw_pile"] == 87


def test_stock_cannot_be_drawn_when_nothing_is_left_to_reshuffle():
    state = dealt()
    state["stock"] = 0  # a table with the discard pile holding only its top card
    refused(state, turn("Ann", "stock", "7D"), rule="N9-8")
    assert view(play(state, turn("Ann", "discard", "5H", 0)))["discard_top"] == "2H"


# ---------------------------------------------------------------- done, reveals, final turns (N9-4)

def test_player_with_nine_face_up_cards_is_done():
    state = play_until_ann_done(dealt())
    v = view(state)
    assert v["grids"]["Ann"] == ANN_FINAL
    assert v["done"] == "Ann" and v["phase"] == "reveal"
    assert v["reveals_pending"] == ["Bob", "Cy"] and v["to_play"] == "Bob"
    assert v["final_turns_left"] == ["Bob", "Cy"]


def test_n9_4_every_other_grid_turned_up_in_one_entry():
    state = play_until_ann_done(dealt())
    together = play(state, {"type": "reveal_all", "grids": {"Bob": BOB_GRID, "Cy": CY_GRID}})
    one_by_one = play(state, {"type": "reveal", "player": "Bob", "grid": BOB_GRID},
                      {"type": "reveal", "player": "Cy", "grid": CY_GRID})
    assert together == one_by_one
    assert view(together)["phase"] == "final" and view(together)["to_play"] == "Bob"
    err = refused(state, {"type": "reveal_all", "grids": {"Bob": BOB_GRID}}, rule="N9-4")
    assert err.legal is None and "missing: Cy" in err.detail
    refused(state, {"type": "reveal_all", "grids": {"Bob": BOB_GRID, "Cy": CY_GRID, "Ann": ANN_FINAL}},
            rule="N9-4")
    bad = list(BOB_GRID)
    bad[1] = "QS"  # position 1 is face up as QH
    refused(state, {"type": "reveal_all", "grids": {"Bob": bad, "Cy": CY_GRID}}, rule="N9-4")
    refused(dealt(), {"type": "reveal_all", "grids": {"Bob": BOB_GRID, "Cy": CY_GRID}}, rule="N9-4")


def test_not_done_while_a_card_is_face_down():
    state = play(dealt(), turn("Ann", "stock", "7D", 1, "9D"))
    assert view(state)["done"] is None and view(state)["final_turns_left"] == []


def test_reveals_come_before_final_turns():
    state = play_until_ann_done(dealt())
    err = refused(state, turn("Bob", "stock", "7D"), rule="N9-4")
    assert err.legal == {"type": ["reveal", "reveal_all"]} and "Bob, Cy" in err.detail
    refused(state, {"type": "reveal", "player": "Ann", "grid": ANN_FINAL}, rule="N9-4")  # done already
    bad = list(BOB_GRID)
    bad[1] = "QS"  # position 1 is face up as QH
    refused(state, {"type": "reveal", "player": "Bob", "grid": bad}, rule="N9-4")
    state = play(state, {"type": "reveal", "player": "Cy", "grid": CY_GRID})  # any order
    assert view(state)["to_play"] == "Bob"
    refused(state, {"type": "reveal", "player": "Cy", "grid": CY_GRID}, rule="N9-4")  # twice


def test_reveal_card_accounting_n9_1():
    state = play_until_ann_done(dealt())
    grid = list(BOB_GRID)
    grid[0] = "AS"  # Cy shows AS ...
    grid[4] = "AS"  # ... so two more is one too many
    refused(state, {"type": "reveal", "player": "Bob", "grid": grid}, rule="N9-1")


def test_reveal_before_anyone_is_done():
    refused(dealt(), {"type": "reveal", "player": "Bob", "grid": BOB_GRID}, rule="N9-4")


@pytest.mark.parametrize("grid", [BOB_GRID[:8], BOB_GRID + ["2C"], "7C QH", [BOB_GRID[:3], BOB_GRID[3:6]],
                                  [BOB_GRID[:3], BOB_GRID[3:6], BOB_GRID[6:8]], [1] * 9])
def test_malformed_reveal_is_invalid_input(grid):
    state = play_until_ann_done(dealt())
    refused(state, {"type": "reveal", "player": "Bob", "grid": grid}, exc=InvalidInput)


def test_reveal_accepts_three_rows():
    state = play_until_ann_done(dealt())
    rows = [BOB_GRID[:3], BOB_GRID[3:6], BOB_GRID[6:]]
    assert view(play(state, {"type": "reveal", "player": "Bob", "grid": rows}))["grids"]["Bob"] == BOB_GRID


def test_each_other_player_has_exactly_one_final_turn_then_the_hand_is_scored():
    state = reach_final_turns(dealt())
    v = view(state)
    assert v["phase"] == "final" and v["to_play"] == "Bob" and v["final_turns_left"] == ["Bob", "Cy"]
    refused(state, turn("Ann", "stock", "7D"), rule="N9-4")  # the done player
    refused(state, turn("Cy", "stock", "7D"), rule="N9-4")  # out of order
    state = play(state, turn("Bob", "stock", "5S", 0, "7C"))  # over a face-up card: 7C is discarded
    v = view(state)
    assert v["to_play"] == "Cy" and v["final_turns_left"] == ["Cy"]
    refused(state, turn("Bob", "stock", "7D"), rule="N9-4")  # Bob has had his last turn
    state = play(state, turn("Cy", "discard", "7C", None))  # takes and throws back the top
    v = view(state)
    assert v["hand"] == 2 and v["phase"] == "deal" and v["to_play"] == "Bob"  # N9-8: Ann deals hand 2, Bob first
    assert v["dealer"] == "Ann" and v["done"] is None and v["final_turns_left"] == []
    assert v["grids"] == {p: [None] * 9 for p in P3}
    record = v["rounds"][0]
    # Ann: 2H/2S/2D column 0 is a set; 4C 4D 3S 3D 3C KD score 4+4+3+3+3+0.
    assert record["sets"]["Ann"] == [{"cells": [0, 3, 6], "rank": "2"}]
    assert record["scores"] == {"Ann": 17, "Bob": 5 + 10 - 3 + 9 + 0 + 0 + 1 + 5 + 5, "Cy": 0 + 6 + 6 + 8 + 10 + 10 + 8}
    assert record["totals"] == v["standings"] == record["scores"]
    assert record["round"] == 1 and record["done"] == "Ann"
    assert sum(item["points"] for item in record["breakdown"]["Bob"]) == record["scores"]["Bob"]
    assert {item["rule"] for item in record["breakdown"]["Cy"]} == {"N9-5", "N9-6"}
    # hand 2 is dealt by Ann, so Bob plays first
    assert view(play(state, DEAL3))["to_play"] == "Bob"


def test_final_turns_go_from_the_done_players_left():
    # Bob gets done: Cy then Ann have the final turns.
    deal = {"type": "deal", "discard": "5H", "revealed": {
        "Ann": {"0": "2H", "4": "3S", "8": "KD"},
        "Bob": {"0": "9C", "1": "9D", "2": "9H"},
        "Cy": {"0": "AS", "1": "AH", "2": "AD"}}}
    state = dealt(deal=deal)
    stock = iter(["4C", "4D", "4H", "4S", "6C", "6D", "6H", "6S", "7C", "7D", "7H", "7S", "8C", "8D",
                  "8H", "8S", "10C", "10D", "10H", "10S", "JC", "JD", "JH", "JS"])
    for position in range(3, 9):
        state = play(state, turn("Ann", "stock", next(stock)),
                     turn("Bob", "stock", next(stock), position, next(stock)))
        if position < 8:
            state = play(state, turn("Cy", "stock", next(stock)))
    v = view(state)
    assert v["done"] == "Bob" and v["reveals_pending"] == ["Cy", "Ann"] and v["final_turns_left"] == ["Cy", "Ann"]


def test_hand_ends_after_done_even_without_the_target():
    state = reach_final_turns(dealt(options={"target": 1000}))
    state = play(state, turn("Bob", "stock", "2C"), turn("Cy", "stock", "2C"))
    assert view(state)["status"] == "in_progress" and len(view(state)["rounds"]) == 1


# ---------------------------------------------------------------- sets and points (N9-5, N9-6)

def score(grid, **body):
    return nines.JUDGES["grid"].fn({"grid": grid, **body})


def test_row_set():
    result = score(["7H", "7S", "7D", "2C", "3C", "4C", "5C", "6C", "8C"])
    assert result["sets"] == [{"cells": [0, 1, 2], "rank": "7"}]
    assert result["card_points"] == [0, 0, 0, 2, 3, 4, 5, 6, 8] and result["points"] == 28


def test_column_set():
    result = score(["QH", "2C", "3C", "QS", "4C", "5C", "QD", "6C", "8C"])
    assert result["sets"] == [{"cells": [0, 3, 6], "rank": "Q"}]
    assert result["points"] == 2 + 3 + 4 + 5 + 6 + 8


def test_card_in_a_row_set_and_a_column_set_at_once():
    result = score(["9H", "9S", "9D", "9C", "JH", "AC", "9H", "QC", "10D"])
    assert result["sets"] == [{"cells": [0, 1, 2], "rank": "9"}, {"cells": [0, 3, 6], "rank": "9"}]
    assert result["card_points"] == [0, 0, 0, 0, 10, 1, 0, 10, 10] and result["points"] == 31


def test_all_nine_of_a_rank_make_six_sets():
    result = score(["5H"] * 9, decks=9)          # nine copies need nine decks (N9-1: the table may choose more)
    assert len(result["sets"]) == 6 and result["points"] == 0


def test_kings_score_zero_in_or_out_of_a_set():
    result = score(["KH", "KS", "KD", "KC", "2C", "3C", "KH", "4C", "6C"])
    assert result["sets"] == [{"cells": [0, 1, 2], "rank": "K"}, {"cells": [0, 3, 6], "rank": "K"}]
    assert score(["KH", "2S", "KD", "3C", "KC", "4C", "5C", "KS", "6C"])["points"] == 20


def test_jokers_never_form_a_set():
    result = score(["JK", "JK", "JK", "JK", "2C", "3C", "JK", "4C", "5C"])
    assert result["sets"] == []
    assert result["card_points"] == [-3, -3, -3, -3, 2, 3, -3, 4, 5] and result["points"] == -1
    assert score(["JK"] * 9)["points"] == -27


def test_jokers_are_not_wild():
    assert score(["7H", "7S", "JK", "2C", "3C", "4C", "5C", "6C", "8C"])["sets"] == []


def test_diagonals_never_count():
    result = score(["8H", "2C", "8S", "3C", "8D", "4C", "8C", "5C", "8H"])
    assert result["sets"] == [] and result["points"] == 8 * 5 + 2 + 3 + 4 + 5


def test_points_per_card():
    result = score(["AS", "10H", "JD", "QC", "KS", "JK", "2H", "5D", "9C"])
    assert result["card_points"] == [1, 10, 10, 10, 0, -3, 2, 5, 9] and result["points"] == 44


def test_mixed_suits_same_rank_is_a_set_and_ranks_must_match():
    assert score(["10H", "10H", "10S", "2C", "3C", "4C", "5C", "6C", "8C"])["sets"][0]["rank"] == "10"
    assert score(["JH", "QH", "KH", "2C", "3C", "4C", "5C", "6C", "8C"])["points"] == 20 + 28


def test_judge_shape_breakdown_and_nested_grid():
    rows = [["t♠", "10h", "10D"], ["2c", "3c", "4c"], ["5c", "6c", "8c"]]
    result = score(rows)
    assert set(result) == {"points", "sets", "card_points", "breakdown", "says"}
    assert result["sets"] == [{"cells": [0, 1, 2], "rank": "10"}]
    assert sum(item["points"] for item in result["breakdown"]) == result["points"]
    assert all(set(item) == {"rule", "points", "detail"} for item in result["breakdown"])
    assert "10S" in result["breakdown"][1]["detail"]  # canonical codes in the verdict
    json.dumps(result)


GRID_OK = ["7H", "7S", "7D", "2C", "3C", "4C", "5C", "6C", "JK"]


@pytest.mark.parametrize("body", [
    {}, {"grid": ["7H"] * 8}, {"grid": ["7H"] * 10}, {"grid": "7H"}, {"grid": ["7H"] * 8 + ["ZZ"]},
    {"grid": [["7H"] * 3, ["7H"] * 3, ["7H"] * 2]}, {"grid": [["7H"] * 3] * 2}, {"grid": GRID_OK, "extra": 2}, {"grid": GRID_OK, "decks": "2"},
    {"grid": GRID_OK, "decks": 0}, {"grid": GRID_OK, "joker_points": -4},
    {"grid": [7] * 9}, {"grid": [None] * 9}, ["7H"] * 9, None,
])
def test_judge_rejects_malformed_bodies(body):
    with pytest.raises(InvalidInput):
        nines.JUDGES["grid"].fn(body)


def test_judge_refuses_more_copies_than_the_decks_hold():
    # Nines verdict: as in a game, a grid holds no more copies of a card than the decks (N9-1)
    three = ["7H", "7H", "7H", "2C", "3C", "4C", "5C", "6C", "8C"]
    with pytest.raises(IllegalMove) as caught:
        nines.JUDGES["grid"].fn({"grid": three, "decks": 2})
    assert caught.value.rule == "N9-1"
    assert nines.JUDGES["grid"].fn({"grid": three, "decks": 3})["points"] == 28  # the 7H row is a set
    jokers = ["JK"] * 5 + ["2C", "3C", "4C", "5C"]
    with pytest.raises(IllegalMove):
        nines.JUDGES["grid"].fn({"grid": jokers, "decks": 2})  # 2 decks hold 4 Jokers
    assert nines.JUDGES["grid"].fn({"grid": jokers, "decks": 3})["points"] == -15 + 14
    # no decks given: the decks N9-1 gives the most players the service seats (18 players, 7 decks)
    assert nines.VERDICT_DECKS == nines.default_decks(18) == 7
    assert nines.JUDGES["grid"].fn({"grid": jokers})["points"] == -1  # 5 of 14 Jokers


@pytest.mark.parametrize("grid, copies", [(["5H"] * 9, 9), (["5H"] * 8 + ["KS"], 8),
                                          (["7D"] * 8 + ["JK"], 8)])
def test_g3_verdict_without_decks_refuses_more_copies_than_any_default_deck_count(grid, copies):
    # N9-1 with G-3: "more copies than the decks hold" is refused citing the ruling, decks or not
    before = list(grid)
    with pytest.raises(IllegalMove) as caught:
        nines.JUDGES["grid"].fn({"grid": grid})
    assert caught.value.rule == "N9-1" and f"{copies} have been seen" in caught.value.detail
    assert grid == before
    assert nines.JUDGES["grid"].fn({"grid": grid, "decks": 9})["points"] is not None   # the table chose 9
    seven = ["5H"] * 7 + ["2C", "3C"]                                           # 7 copies: 7 decks hold them
    assert nines.JUDGES["grid"].fn({"grid": seven})["points"] == 5


@pytest.mark.parametrize("body, rule", [({"decks": 0}, "N9-1"), ({"decks": 21}, "N9-1"),
                                        ({"joker_points": -4}, "N9-9"), ({"joker_points": 3}, "N9-9")])
def test_g3_verdict_out_of_range_decks_and_joker_points_cite_their_ruling(body, rule):
    with pytest.raises(InvalidInput) as caught:
        nines.JUDGES["grid"].fn({"grid": GRID_OK, **body})
    assert caught.value.rule == rule


def test_n9_9_joker_points_in_the_verdict_and_in_a_game():
    grid = ["JK", "2C", "3C", "4C", "5C", "6C", "8C", "9C", "KS"]     # 2+3+4+5+6+8+9 = 37
    assert nines.JUDGES["grid"].fn({"grid": grid})["points"] == 37 - 3
    result = nines.JUDGES["grid"].fn({"grid": grid, "joker_points": -5})
    assert result["points"] == 37 - 5 and result["breakdown"][0]["rule"] == "N9-9"
    state = nines.new_game(P3, {"joker_points": -2})
    other = ["KH", "KD", "KC", "AC", "AD", "AH", "2D", "2H", "2S"]
    state = play(state, {"type": "hand_result", "grids": {"Ann": grid, "Bob": other, "Cy": other}})
    assert state["rounds"][0]["scores"]["Ann"] == 37 - 2
    for bad in (-4, 4, "-3", None):
        with pytest.raises(InvalidInput) as caught:
            nines.new_game(P3, {"joker_points": bad})
        assert caught.value.rule == "N9-9", bad                 # G-3: the house rule's own ruling
    for bad in (0, 101, "9"):
        with pytest.raises(InvalidInput) as caught:
            nines.new_game(P3, {"hands": bad})
        assert caught.value.rule == "N9-9", bad


def test_n9_9_a_fixed_number_of_hands_ends_the_game_whatever_the_totals():
    low = ["KC", "KC", "KS", "2H", "2H", "2S", "3H", "3H", "3S"]  # three sets: 0
    state = nines.new_game(P3, {"hands": 2, "target": 5})
    grids = {"Ann": GRID_LOW, "Bob": low, "Cy": GRID_60}           # 12, 0, 60: past the target
    state = play(state, {"type": "hand_result", "grids": grids})
    v = view(state)
    assert v["status"] == "in_progress" and v["hand"] == 2            # the target is unused (N9-9)
    state = play(state, {"type": "hand_result", "grids": grids})
    v = view(state)
    assert v["status"] == "finished" and v["winners"] == ["Bob"] and v["outcome"]["rule"] == "N9-9"
    refused(state, {"type": "hand_result", "grids": grids}, rule="N9-9")
    with pytest.raises(InvalidInput):
        nines.new_game(P3, {"hands": 0})


CARDS = st.sampled_from(FULL_DECK)
GRIDS = st.lists(CARDS, min_size=9, max_size=9)


@settings(max_examples=200, deadline=None)
@given(GRIDS)
def test_grid_score_invariants(grid):
    result = nines.score_grid(grid)
    assert sum(result["card_points"]) == result["points"]
    in_sets = {i for s in result["sets"] for i in s["cells"]}
    for i, card in enumerate(grid):
        assert result["card_points"][i] == (0 if i in in_sets else nines.card_points(card))
    assert all(s["rank"] != "JK" for s in result["sets"])
    transposed = [grid[3 * (i % 3) + i // 3] for i in range(9)]  # rows become columns (N9-5 symmetry)
    assert nines.score_grid(transposed)["points"] == result["points"]
    assert len(nines.score_grid(transposed)["sets"]) == len(result["sets"])


# ---------------------------------------------------------------- hand_result, target, winners (N9-7)

GRID_LOW = ["KH", "KS", "KD", "JK", "AC", "2C", "3C", "4C", "5C"]  # K row set, 12
GRID_60 = ["10H", "10S", "JD", "QC", "2D", "3D", "4D", "5D", "6D"]  # no set, 60
GRID_20 = ["8H", "8S", "8D", "8C", "KC", "KC", "8H", "QH", "QH"]  # row 1 and column 1 sets, 20


def hand_result(grids):
    return {"type": "hand_result", "grids": grids}


def test_hand_result_scores_a_whole_hand_and_rotates_the_dealer():
    state = nines.new_game(P3, None)
    state = play(state, hand_result({"Ann": GRID_LOW, "Bob": GRID_20, "Cy": [GRID_60[:3], GRID_60[3:6], GRID_60[6:]]}))
    v = view(state)
    assert v["rounds"][0]["scores"] == {"Ann": 12, "Bob": 20, "Cy": 60}
    assert v["rounds"][0]["sets"]["Bob"] == [{"cells": [0, 1, 2], "rank": "8"}, {"cells": [0, 3, 6], "rank": "8"}]
    assert v["hand"] == 2 and v["dealer"] == "Ann" and v["to_play"] == "Bob" and v["phase"] == "deal"  # N9-8
    assert v["status"] == "in_progress"


def test_hand_result_only_before_the_deal():
    grids = {"Ann": GRID_LOW, "Bob": GRID_20, "Cy": GRID_60}
    refused(dealt(), hand_result(grids), rule="N9-4")


def test_hand_result_needs_every_grid_and_respects_the_decks():
    state = nines.new_game(P3, None)
    err = refused(state, hand_result({"Ann": GRID_LOW, "Bob": GRID_20}), rule="N9-2")
    assert err.legal is None and "missing: Cy" in err.detail
    refused(state, hand_result({"Ann": GRID_LOW, "Bob": GRID_20, "Cy": GRID_20}), rule="N9-1")


@pytest.mark.parametrize("move", [
    {"type": "hand_result", "grids": {"Ann": GRID_LOW, "Bob": GRID_20, "Zed": GRID_60}},
    {"type": "hand_result", "grids": {"Ann": GRID_LOW[:8], "Bob": GRID_20, "Cy": GRID_60}},
    {"type": "hand_result", "grids": [GRID_LOW, GRID_20, GRID_60]},
    {"type": "hand_result"},
    {"type": "hand_result", "grids": {"Ann": GRID_LOW, "Bob": GRID_20, "Cy": GRID_60}, "done": "Ann"},
])
def test_malformed_hand_result_is_invalid_input(move):
    refused(nines.new_game(P3, None), move, exc=InvalidInput)


def test_game_ends_at_the_target_lowest_total_wins():
    state = nines.new_game(P3, {"target": 100})
    grids = {"Ann": GRID_LOW, "Bob": GRID_20, "Cy": GRID_60}
    state = play(state, hand_result(grids))  # 12 20 60
    assert view(state)["status"] == "in_progress"
    state = play(state, hand_result(grids))  # 24 40 120: Cy reached the target
    v = view(state)
    assert v["status"] == "finished" and v["winners"] == ["Ann"] and v["to_play"] is None
    assert v["standings"] == {"Ann": 24, "Bob": 40, "Cy": 120} and v["round"] == 2
    assert v["grids"]["Cy"] == GRID_60  # the final hand stays on show
    refused(state, hand_result(grids), rule="N9-7")
    refused(state, DEAL3, rule="N9-7")
    refused(state, turn("Ann", "stock", "7D"), rule="N9-7")


def test_reaching_the_target_exactly_ends_the_game():
    state = play(nines.new_game(P3, {"target": 60}), hand_result({"Ann": GRID_LOW, "Bob": GRID_20, "Cy": GRID_60}))
    assert view(state)["status"] == "finished" and view(state)["winners"] == ["Ann"]
    state = play(nines.new_game(P3, {"target": 61}), hand_result({"Ann": GRID_LOW, "Bob": GRID_20, "Cy": GRID_60}))
    assert view(state)["status"] == "in_progress"


def test_tied_lowest_totals_share_the_win():
    state = play(nines.new_game(P3, {"target": 50}),
                 hand_result({"Ann": GRID_LOW, "Bob": GRID_LOW, "Cy": GRID_60}))
    assert view(state)["winners"] == ["Ann", "Bob"]


def test_negative_totals_and_dealer_rotation_over_hands():
    state = nines.new_game(["Ann", "Bob"], {"target": 30})
    jokers = ["JK", "JK", "2C", "KS", "QH", "2D", "KH", "AC", "2H"]  # column 3 of 2s: -6 + 10 + 1 = 5
    dealers = []
    for _ in range(3):
        dealers.append(view(state)["dealer"])
        state = play(state, hand_result({"Ann": jokers, "Bob": GRID_LOW}))
    v = view(state)
    assert dealers == ["Bob", "Ann", "Bob"]
    assert v["standings"] == {"Ann": 15, "Bob": 36} and v["winners"] == ["Ann"]


# ---------------------------------------------------------------- random whole games (property)

def _random_game(rnd, players, target, place=0.8, discard_until_reshuffle=False):
    """Plays legal random moves to the end, checking invariants after every move."""
    state = nines.new_game(players, {"target": target})
    decks = view(state)["decks"]
    copies = {c: n * decks for c, n in Counter(FULL_DECK).items()}

    def fresh(v, extra=()):
        seen = Counter(c for g in v["grids"].values() for c in g if c) + Counter(v["discard_pile"]) + Counter(extra)
        seen += Counter(state.get("stock_cards") or [])  # a remade stock holds cards already seen (N9-8)
        return rnd.choice([c for c in copies if seen[c] < copies[c]])

    for _ in range(2000):
        v = view(state)
        if v["status"] == "finished":
            return state
        if v["phase"] == "deal":
            cards = []
            revealed = {}
            for p in players:
                cells = {}
                for pos in rnd.sample(range(9), 3):
                    cells[str(pos)] = fresh(v, cards)
                    cards.append(cells[str(pos)])
                revealed[p] = cells
            move = {"type": "deal", "discard": fresh(v, cards), "revealed": revealed}
        elif v["phase"] == "reveal":
            player = v["to_play"]
            grid = list(v["grids"][player])
            turned = []  # the cards this reveal turns up (the face-up ones are already counted in v)
            for i, c in enumerate(grid):
                if c is None:
                    grid[i] = fresh(v, turned)
                    turned.append(grid[i])
            move = {"type": "reveal", "player": player, "grid": grid}
        else:
            player = v["to_play"]
            grid = v["grids"][player]
            can_draw = v["draw_pile"] or len(v["discard_pile"]) > 1
            source = "stock" if can_draw and rnd.random() < 0.7 else "discard"
            remade = source == "stock" and (state.get("stock_cards") is not None or not v["draw_pile"])
            if source == "discard":
                card = v["discard_top"]
            elif not v["draw_pile"]:  # G-4: this draw remakes the stock from the pile but its top (N9-8)
                card = rnd.choice(v["discard_pile"][:-1])
            elif state.get("stock_cards") is not None:  # the stock was remade from the old pile (N9-8)
                card = rnd.choice(state["stock_cards"])
            else:
                card = fresh(v)
            hidden = [i for i, c in enumerate(grid) if c is None]
            placing = place if not (discard_until_reshuffle and state["reshuffles"] == 0) else 0
            position = rnd.choice(hidden or [None, 0]) if rnd.random() < placing else None
            move = turn(player, source, card, position)
            if position is not None and grid[position] is None:
                move["replaced"] = fresh(v, [card] if source == "stock" and not remade else [])
        snapshot = copy.deepcopy(state)
        new = nines.GAME.apply(state, move)
        assert state == snapshot  # the input is never mutated
        state = new
        after = view(state)
        if after["phase"] in ("play", "reveal", "final"):
            assert after["draw_pile"] + 9 * len(players) + len(after["discard_pile"]) == 54 * decks
    raise AssertionError("game did not end")


@settings(max_examples=5, deadline=None)
@given(st.randoms(use_true_random=False))
def test_random_long_hands_reshuffle_and_keep_the_books(rnd):
    """Players who mostly discard run the stock out: it is remade from the pile, whose cards stay counted
    (N9-8, N9-1), and a hand still ends and scores."""
    state = _random_game(rnd, ["p0", "p1"], target=1, place=0.3, discard_until_reshuffle=True)
    v = view(state)
    assert v["status"] == "finished" and len(v["rounds"]) == 1 and v["reshuffles"] >= 1



@settings(max_examples=15, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(min_value=2, max_value=5))
def test_random_games_keep_the_books(rnd, count):
    players = [f"p{i}" for i in range(count)]
    state = _random_game(rnd, players, target=60)
    v = view(state)
    assert v["status"] == "finished"
    assert max(v["standings"].values()) >= 60
    for p in players:
        assert v["standings"][p] == sum(r["scores"][p] for r in v["rounds"])
    assert v["winners"] == [p for p in players if v["standings"][p] == min(v["standings"].values())]
    assert [r["dealer"] for r in v["rounds"]] == [players[(count - 1 + k) % count] for k in range(len(v["rounds"]))]
    json.dumps(v)


# ---------------------------------------------------------------- junk input never crashes

JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 12) | st.sampled_from(["7H", "JK", "Ann", "x", "4"]),
                    lambda inner: st.lists(inner, max_size=9) | st.dictionaries(st.sampled_from(
                        ["0", "4", "Ann", "Bob", "Cy", "x"]), inner, max_size=4), max_leaves=12)
FIELDS = ["type", "player", "source", "card", "position", "replaced", "grid", "grids", "discard", "revealed"]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["deal", "turn", "reveal", "reveal_all", "hand_result"]), st.dictionaries(st.sampled_from(FIELDS), JSON),
       st.sampled_from(["new", "dealt", "done"]))
def test_junk_moves_raise_only_rule_errors(kind, fields, where):
    state = {"new": nines.new_game(P3, None), "dealt": dealt(), "done": DONE_STATE}[where]
    before = copy.deepcopy(state)
    try:
        nines.GAME.apply(state, {**fields, "type": kind})
    except (IllegalMove, InvalidInput):
        pass
    assert state == before


@settings(max_examples=200, deadline=None)
@given(JSON)
def test_junk_judge_bodies_raise_only_invalid_input(body):
    try:
        nines.JUDGES["grid"].fn({"grid": body})
    except InvalidInput:
        pass


DONE_STATE = play_until_ann_done(dealt())



def test_the_grid_verdict_says_itself_in_a_sentence_N9_5_N9_6():
    says = nines.JUDGES["grid"].fn({"grid": ["5H", "5S", "5D", "2H", "3H", "4H", "KH", "QH", "JK"]})["says"]
    assert says == "This grid scores 16: row 1 is a set of 5s, 0 points (N9-5); the other cards count their points (N9-6)."
    plain = nines.JUDGES["grid"].fn({"grid": ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H"]})["says"]
    assert plain.startswith("This grid scores 45: no row or column is a set (N9-5)")
