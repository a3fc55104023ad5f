"""The exact best lay-down (FC-3, FC-5, FC-6) and going out (FC-4): hand-picked traps for a
greedy solver, and hypothesis checks against a plain exhaustive search."""
from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.rules.five_crowns.brute_force import exhaustive_can_go_out, exhaustive_points
from referee.rules.five_crowns.solver import (RANKS, SUITS, best_lay_down, can_meld_all,
                                              card_points, go_out_discard, meld_kind)


def check_lay_down(cards, wild):
    """The lay-down covers exactly the cards, every meld is legal, the score is its leftover."""
    result = best_lay_down(cards, wild)
    shown = [c for meld in result.melds for c in meld] + result.leftover
    assert Counter(shown) == Counter(cards)
    for meld in result.melds:
        assert meld_kind(meld, wild)[0], (meld, wild)
    assert result.points == sum(card_points(c, wild) for c in result.leftover)
    return result


def check_discard(cards, wild):
    card = go_out_discard(cards, wild)
    if card is not None:
        rest = list(cards)
        rest.remove(card)
        assert best_lay_down(rest, wild).points == 0
    return card


# ---------------------------------------------------------------- hand-picked

def test_book_first_is_a_trap():
    # Book 6H 6S 6D leaves 24; runs 4-5-6 of hearts and 6-7-8 of spades leave only 6D.
    result = check_lay_down(["4H", "5H", "6H", "6S", "6D", "7S", "8S"], "3")
    assert result.points == 6 and result.leftover == ["6D"]


def test_longest_run_first_is_a_trap():
    # 3..8 of hearts as one run leaves 7S 8S 7D 8D (30); 3-6 of hearts and two books leave 0.
    cards = ["3H", "4H", "5H", "6H", "7H", "8H", "7S", "8S", "7D", "8D"]
    assert check_lay_down(cards, "K").points == 0


def test_duplicates_make_two_runs():
    assert check_lay_down(["5H", "5H", "6H", "6H", "7H", "7H"], "K").points == 0


def test_wild_rank_stands_for_itself():
    assert check_lay_down(["6D", "7D", "8D"], "7").points == 0
    assert check_lay_down(["7D", "7S", "7H"], "7").points == 0      # all wild


def test_lone_wilds_score_unless_three():
    assert best_lay_down(["JK", "9S"], "3").points == 50 + 9
    assert best_lay_down(["JK", "3S", "KD"], "3").points == 0       # one natural + two wilds
    assert best_lay_down(["JK", "JK", "3S"], "3").points == 0       # three wilds
    assert best_lay_down(["JK", "3S", "4H", "9D"], "3").points == 4   # the wilds go with 9D
    assert best_lay_down(["JK", "4H", "9D", "KC"], "3").points == 4 + 9 + 13 + 50


def test_spare_wilds_join_a_meld():
    result = check_lay_down(["5H", "5S", "5D", "JK", "JK", "KC"], "K")
    assert result.points == 0 and result.leftover == []


def test_spare_wilds_with_a_full_run_split_it():
    # 3H..QH and KH (wild) make 3..K; the Joker must still go somewhere.
    cards = ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH", "JK"]
    result = check_lay_down(cards, "K")
    assert result.points == 0 and len(result.melds) == 2


def test_wilds_fill_gaps_in_runs():
    assert check_lay_down(["9D", "7C", "JD"], "7").points == 0
    assert check_lay_down(["3S", "JK", "JK", "JK", "7S"], "K").points == 0
    assert check_lay_down(["3S", "JK", "JK", "7S"], "K").points == 3   # 7S JK JK is a book


def test_go_out_discards():
    assert check_discard(["5H", "5S", "5D", "KH"], "3") == "KH"
    assert check_discard(["5H", "5S", "5D", "5C"], "3") in ("5H", "5S", "5D", "5C")
    assert check_discard(["4H", "5H", "6H", "9S", "9D"], "3") is None
    assert check_discard(["4H", "5H", "JK", "9S"], "3") == "9S"
    assert check_discard(["JK", "JK", "JK", "JK"], "3") == "JK"
    assert check_discard(["JK", "JK", "JK"], "3") is None              # two wilds cannot meld
    assert check_discard(["4H", "5H", "6H", "7H"], "K") in ("4H", "7H")
    assert check_discard(["4H", "5H", "6H", "6S", "6D", "KC", "KS", "KD", "9S"], "3") is None
    assert check_discard(["4H", "5H", "6H", "6S", "6D", "6C", "KC", "KS", "KD", "9S"], "3") == "9S"


def test_can_meld_all():
    assert can_meld_all([], "3")
    assert can_meld_all(["JK", "JK", "JK"], "3")
    assert not can_meld_all(["JK", "JK"], "3")
    assert can_meld_all(["4H", "JK", "6H", "QS", "QD", "QC"], "3")
    assert not can_meld_all(["4H", "7H", "JK", "QS", "QD", "QC"], "3")


# ---------------------------------------------------------------- against the exhaustive search

def dense_hands(max_size):
    """Hands drawn from a few ranks and suits, so books, runs, duplicates and wilds collide."""
    @st.composite
    def hands(draw):
        low = draw(st.integers(0, 8))
        ranks = RANKS[low:low + draw(st.integers(2, 5))]
        suits = SUITS[:draw(st.integers(1, 3))]
        pool = [r + s for r in ranks for s in suits] * 2 + ["JK"] * draw(st.integers(0, 3))
        size = draw(st.integers(1, min(max_size, len(pool))))
        picked = draw(st.lists(st.integers(0, len(pool) - 1), min_size=size, max_size=size,
                               unique=True))
        wild = draw(st.sampled_from(RANKS[max(0, low - 1):low + 5] + ("K",)))
        return [pool[k] for k in picked], wild
    return hands()


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dense_hands(8))
def test_best_lay_down_matches_exhaustive_search(hand):
    cards, wild = hand
    assert check_lay_down(cards, wild).points == exhaustive_points(cards, wild)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dense_hands(7))
def test_go_out_matches_exhaustive_search(hand):
    cards, wild = hand
    assert (check_discard(cards, wild) is not None) == exhaustive_can_go_out(cards, wild)


@settings(max_examples=150, deadline=None)
@given(dense_hands(14))
def test_big_hands_give_a_valid_lay_down(hand):
    cards, wild = hand
    result = check_lay_down(cards, wild)
    check_discard(cards, wild)
    assert result.points <= sum(card_points(c, wild) for c in cards)
