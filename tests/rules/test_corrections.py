"""The table's own moves (T-1, T-2): a finished round's result corrected (Five Crowns, Nines) and a
score adjusted (every game), with the totals, standings and the end of the game following; what
is refused names its ruling and changes nothing."""
from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest

from referee.rules import ENGINES
from referee.rules import five_crowns as fc
from referee.rules import nines, ninety_nine, sixty_nine, xix
from referee.rules.base import IllegalMove, InvalidInput, public_state
from engine_checks import refused_by
from players import table_for

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "contract"))
import high_card  # noqa: E402  (the sixth game knows nothing of the table's moves)

P3 = ["Ann", "Bob", "Cid"]


def play(engine, state, *moves):
    for move in moves:
        state = engine.apply(state, move)
    return state


def adjust(player, points, reason="a penalty", **more):
    return {"type": "adjust", "player": player, "points": points, "reason": reason, **more}


def texts(state) -> list[str]:
    return [str(event["text"]) for event in state["events"]]


# ---------------------------------------------------------------- Five Crowns (T-1)

def fc_round(went_out, **points):
    return {"type": "round_result", "went_out": went_out, "hands": {p: {"points": n} for p, n in points.items()}}


def fc_fix(number, went_out, reason="Bob's points were Cid's", change_result=None, **points):
    move = {**fc_round(went_out, **points), "type": "correct_round", "round": number, "reason": reason}
    if change_result is not None:
        move["change_result"] = change_result
    return move


def fc_eleven(options=None):
    """Eleven rounds entered as points: Ann always goes out, Bob 10 and Cid 20 each round."""
    state = fc.new_game(P3, options)
    for _ in range(fc.ROUNDS):
        state = fc.GAME.apply(state, fc_round("Ann", Bob=10, Cid=20))
    return state


def test_fc_a_correction_replaces_the_round_moves_the_totals_and_keeps_the_old_result():
    state = play(fc.GAME, fc.new_game(P3), fc_round("Ann", Bob=10, Cid=20), fc_round("Bob", Ann=5, Cid=7))
    assert fc.standings(state) == {"Ann": 5, "Bob": 10, "Cid": 27}
    assert fc.GAME.allowed(state)["correct_round"]["choices"] == {"round": [1, 2]}
    fixed = fc.GAME.apply(state, fc_fix(1, "Ann", Bob=3, Cid=20))
    assert fc.standings(fixed) == {"Ann": 5, "Bob": 3, "Cid": 27}
    first, second = fixed["rounds"]
    assert first["scores"] == {"Ann": 0, "Bob": 3, "Cid": 20} and first["totals"] == {"Ann": 0, "Bob": 3, "Cid": 20}
    assert second["totals"] == {"Ann": 5, "Bob": 3, "Cid": 27} and "corrections" not in second
    [correction] = first["corrections"]
    assert correction["reason"] == "Bob's points were Cid's" and correction["rule"] == "T-1"
    assert correction["changes"] == {"Bob": {"from": 10, "to": 3}}
    assert correction["replaced"]["scores"] == {"Ann": 0, "Bob": 10, "Cid": 20}
    assert correction["replaced"]["totals"] == {"Ann": 0, "Bob": 10, "Cid": 20}
    assert any("Bob 10 -> 3" in text for text in texts(fixed)) and fixed["events"][0]["rule"] == "T-1"
    # the state it was applied to still holds the old result (rounds are shared, never edited)
    assert state["rounds"][0]["scores"]["Bob"] == 10 and fc.standings(state)["Bob"] == 10
    # a second correction keeps both replaced results, oldest first
    again = fc.GAME.apply(fixed, fc_fix(1, "Cid", reason="Cid went out", Ann=4, Bob=3))
    assert [c["reason"] for c in again["rounds"][0]["corrections"]] == ["Bob's points were Cid's", "Cid went out"]
    assert fc.standings(again) == {"Ann": 9, "Bob": 3, "Cid": 7}


def test_fc_a_round_played_move_by_move_is_corrected_with_cards_and_the_best_lay_down_fc6():
    state = play(fc.GAME, fc.new_game(P3), {"type": "deal", "discard": "KH"},
                 {"type": "draw", "player": "Ann", "source": "stock"},
                 {"type": "go_out", "player": "Ann", "melds": [["3H", "3S", "3D"]], "discard": "7C"},
                 {"type": "draw", "player": "Bob", "source": "stock"},
                 {"type": "final_turn", "player": "Bob", "melds": [], "leftover": ["5H", "6H", "9S"], "discard": "KS"},
                 {"type": "draw", "player": "Cid", "source": "stock"},
                 {"type": "final_turn", "player": "Cid", "melds": [], "leftover": ["QD", "KD", "JS"], "discard": "KC"})
    assert state["rounds"][0]["scores"] == {"Ann": 0, "Bob": 20, "Cid": 36} and state["round"] == 2
    # Bob's cards were 5H 6H 7H: a run (FC-3), found by the best lay-down (FC-6)
    fixed = fc.GAME.apply(state, {"type": "correct_round", "round": 1, "reason": "Bob held a run", "went_out": "Ann",
                             "hands": {"Bob": {"cards": ["5H", "6H", "7H"]}, "Cid": {"points": 36}}})
    assert fixed["rounds"][0]["scores"]["Bob"] == 0 and fc.standings(fixed) == {"Ann": 0, "Bob": 0, "Cid": 36}
    assert {"FC-6"} <= {line["rule"] for line in fixed["rounds"][0]["breakdown"]["Bob"]}
    assert fixed["round"] == 2 and fixed["phase"] == "deal"  # the round under way is untouched


def test_fc_what_cannot_be_corrected_is_refused_with_a_ruling_and_changes_nothing():
    state = play(fc.GAME, fc.new_game(P3), fc_round("Ann", Bob=10, Cid=20))
    refused_by(fc.GAME, state, fc_fix(2, "Ann", Bob=1, Cid=1), IllegalMove, "T-1")      # round 2 is in progress
    error = refused_by(fc.GAME, state, fc_fix(5, "Ann", Bob=1, Cid=1), IllegalMove, "T-1")  # not played yet
    assert "not been played" in error.detail and error.legal == {"round": [1]}
    refused_by(fc.GAME, state, fc_fix(0, "Ann", Bob=1, Cid=1), InvalidInput, "T-1")     # no such round
    refused_by(fc.GAME, state, fc_fix(1, "Ann", reason="  ", Bob=1, Cid=1), InvalidInput, "T-1")
    refused_by(fc.GAME, state, {k: v for k, v in fc_fix(1, "Ann", Bob=1, Cid=1).items() if k != "reason"},
               InvalidInput, "T-1")
    refused_by(fc.GAME, state, fc_fix(1, "Zed", Bob=1, Cid=1), InvalidInput, "T-1")     # not a player
    refused_by(fc.GAME, state, fc_fix(1, "Ann", Bob=1), InvalidInput, "T-1")            # Cid's hand is missing
    # the same checks as a round result, with the round's own rulings
    refused_by(fc.GAME, state, {**fc_fix(1, "Ann", Cid=1), "hands": {"Bob": {"cards": ["ZZ"]}, "Cid": {"points": 1}}},
               InvalidInput, "FC-1")
    refused_by(fc.GAME, state, {**fc_fix(1, "Ann", Cid=1), "hands": {"Bob": {"cards": ["5H"]}, "Cid": {"points": 1}}},
               IllegalMove, "FC-4")   # round 1 deals three cards
    refused_by(fc.GAME, state, {**fc_fix(1, "Ann", Cid=1), "hands": {"Ann": {"points": 4}, "Bob": {"points": 1},
                                                                  "Cid": {"points": 1}}}, IllegalMove, "FC-5")


def test_fc_a_finished_games_result_changes_only_when_the_table_says_so():
    state = fc_eleven()
    assert fc.outcome(state)["winners"] == ["Ann"] and state["phase"] == "finished"
    assert set(fc.GAME.allowed(state)) == {"adjust", "correct_round"}
    refused_by(fc.GAME, state, fc_round("Ann", Bob=1, Cid=1), IllegalMove, "FC-5")     # no round after the end
    # a correction that leaves Ann the winner is taken as it is
    same = fc.GAME.apply(state, fc_fix(3, "Ann", Bob=12, Cid=20))
    assert fc.outcome(same)["winners"] == ["Ann"] and fc.standings(same)["Bob"] == 112
    # Bob went out in round 1 and Ann held 200 points: Bob would win
    error = refused_by(fc.GAME, state, fc_fix(1, "Bob", Ann=200, Cid=20), IllegalMove, "T-1")
    assert error.legal == {"change_result": [True]} and "Bob would win instead of Ann" in error.detail
    changed = fc.GAME.apply(state, fc_fix(1, "Bob", Ann=200, Cid=20, change_result=True))
    assert fc.outcome(changed)["winners"] == ["Bob"] and fc.standings(changed) == {"Ann": 200, "Bob": 100, "Cid": 220}
    assert changed["events"][-1]["rule"] == "T-1" and "changed the game's result" in texts(changed)[-1]


def test_fc_a_correction_that_makes_a_tie_after_round_11_starts_the_play_off_fc5():
    state = fc_eleven({"tie_break": "play_off"})
    # Ann went out in round 1 only on paper: Bob did, and Ann held 100 points: Ann 100, Bob 100
    refused_by(fc.GAME, state, fc_fix(1, "Bob", Ann=100, Cid=20), IllegalMove, "T-1")
    tied = fc.GAME.apply(state, fc_fix(1, "Bob", Ann=100, Cid=20, change_result=True))
    assert fc.outcome(tied)["status"] == "in_progress" and tied["round"] == 12 and tied["in_round"] == ["Ann", "Bob"]
    assert tied["phase"] == "deal" and tied["play_off"]
    # and taken back while the play-off waits for its deal: the game is over again, Ann alone lowest
    back = fc.GAME.apply(tied, fc_fix(1, "Ann", Bob=10, Cid=20))
    assert fc.outcome(back)["winners"] == ["Ann"] and back["round"] == 11 and not back["play_off"]


# ---------------------------------------------------------------- Nines (T-1)

ANN_GRID = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S"]          # 45, no set
BOB_GRID = ["KH", "KD", "KC", "QH", "QD", "QC", "2H", "2D", "3H"]          # K row and Q row are sets: 7
CID_GRID = ["AH", "AD", "AC", "4H", "4D", "4C", "5H", "5D", "JK"]          # 10 - 3 = 7


def hand(ann=ANN_GRID, bob=BOB_GRID, cid=CID_GRID):
    return {"type": "hand_result", "grids": {"Ann": ann, "Bob": bob, "Cid": cid}}


def n9_fix(number, reason="Ann's grid was misread", change_result=None, **grids):
    move = {**hand(**grids), "type": "correct_round", "round": number, "reason": reason}
    if change_result is not None:
        move["change_result"] = change_result
    return move


LOW_ANN = ["KS", "KS", "KD", "QS", "QS", "QC", "2S", "2C", "3S"]            # K row (one), Q row: 7


def test_nines_a_correction_replaces_the_hand_and_its_totals():
    state = play(nines.GAME, nines.new_game(P3, {"target": 500}), hand(), hand())
    assert nines.standings(state) == {"Ann": 90, "Bob": 14, "Cid": 14}
    fixed = nines.GAME.apply(state, n9_fix(1, ann=LOW_ANN))
    assert nines.standings(fixed) == {"Ann": 52, "Bob": 14, "Cid": 14}
    first, second = fixed["rounds"]
    assert first["scores"]["Ann"] == 7 and first["grids"]["Ann"] == LOW_ANN and second["totals"]["Ann"] == 52
    [correction] = first["corrections"]
    assert correction["replaced"]["grids"]["Ann"] == ANN_GRID and correction["changes"] == {
        "Ann": {"from": 45, "to": 7}}
    assert "Hand 1 corrected" in texts(fixed)[0]
    assert public_state(nines.GAME, fixed)["rounds"][0]["corrections"][0]["reason"] == "Ann's grid was misread"


def test_nines_what_cannot_be_corrected_is_refused_with_a_ruling_and_changes_nothing():
    state = play(nines.GAME, nines.new_game(P3, {"target": 500}), hand())
    refused_by(nines.GAME, state, n9_fix(2), IllegalMove, "T-1")                      # hand 2 is next
    refused_by(nines.GAME, state, n9_fix(9), IllegalMove, "T-1")
    refused_by(nines.GAME, state, {**n9_fix(1), "grids": {"Ann": ANN_GRID}}, IllegalMove, "N9-2")
    refused_by(nines.GAME, state, n9_fix(1, bob=["KH"] * 9), IllegalMove, "N9-1")    # three decks' worth of KH
    refused_by(nines.GAME, state, n9_fix(1, bob=["KH"] * 8), InvalidInput, "T-1")    # not a grid
    refused_by(nines.GAME, state, {**n9_fix(1), "change_result": "yes"}, InvalidInput, "T-1")
    refused_by(nines.GAME, state, {**n9_fix(1), "extra": 1}, InvalidInput, "T-1")


def test_nines_a_finished_game_goes_on_only_when_the_table_says_so_n9_7():
    state = play(nines.GAME, nines.new_game(P3, {"target": 40}), hand())
    assert nines.outcome(state) == {"status": "finished", "winners": ["Bob", "Cid"], "rule": "N9-7",
                                    "reason": nines.outcome(state)["reason"]}
    error = refused_by(nines.GAME, state, n9_fix(1, ann=LOW_ANN), IllegalMove, "T-1")
    assert "would go on" in error.detail
    on = nines.GAME.apply(state, n9_fix(1, ann=LOW_ANN, change_result=True))
    assert nines.outcome(on)["status"] == "in_progress" and on["phase"] == "deal" and on["hand"] == 2
    assert on["dealer"] == "Ann"   # the deal passes left (N9-8): Cid dealt hand 1
    # between hands, a correction that takes a total to the target ends the game at once
    over = nines.GAME.apply(on, n9_fix(1, reason="It was right after all"))
    assert nines.outcome(over)["winners"] == ["Bob", "Cid"] and over["hand"] == 1 and over["dealer"] == "Cid"
    assert over["grids"]["Ann"] == ANN_GRID


# ---------------------------------------------------------------- adjustments in each game (T-2)

ADJUSTED = [engine for engine in ENGINES.values() if "adjust" in engine.moves]  # T-2: every game that takes it


@pytest.mark.parametrize("engine", ADJUSTED, ids=[engine.name for engine in ADJUSTED])
def test_adjust_is_offered_in_every_phase_of_every_game_and_recorded_with_its_round_and_reason(engine):
    players = table_for(engine)
    state = engine.new_game(players)
    assert engine.allowed(state)["adjust"] == {"players": None, "choices": {"player": players}}
    new = engine.apply(state, adjust("Bob", 2, "a forgotten bonus"))
    [entry] = new["adjustments"]
    assert entry["player"] == "Bob" and entry["points"] == 2 and entry["reason"] == "a forgotten bonus"
    assert entry["round"] == public_state(engine, state)["round"]
    assert new["events"][0]["rule"] == "T-2" and "Bob +2 by the table's decision" in texts(new)[0]
    assert public_state(engine, new)["adjustments"] == [entry]
    assert engine.moves["adjust"].text(adjust("Bob", -3, "slow play")) == "Bob -3 by the table's decision: slow play"
    assert "adjustments" not in state


@pytest.mark.parametrize("engine", ADJUSTED, ids=[engine.name for engine in ADJUSTED])
def test_a_malformed_adjustment_is_refused_citing_t2_and_changes_nothing(engine):
    state = engine.new_game(table_for(engine))
    for move in (adjust("Bob", 0), adjust("Bob", 1001), adjust("Bob", -1001), adjust("Zed", 1),
                 adjust("Bob", 1, "   "), adjust("Bob", 1, "x" * 201), adjust("Bob", 1, "bad\u202eturn"),
                 adjust("Bob", True), adjust("Bob", "3"), adjust("Bob", 1, change_result=1),
                 {"type": "adjust", "player": "Bob", "points": 1}, {**adjust("Bob", 1), "round": 1}):
        refused_by(engine, state, move, InvalidInput, "T-2")


def test_adjust_five_crowns_penalty_points_change_who_leads():
    state = play(fc.GAME, fc.new_game(P3), fc_round("Ann", Bob=10, Cid=20))
    state = fc.GAME.apply(state, adjust("Ann", 15, "looked at the stock"))
    assert fc.standings(state) == {"Ann": 15, "Bob": 10, "Cid": 20}
    assert state["adjustments"][0]["round"] == 2 and state["rounds"][0]["totals"]["Ann"] == 0
    state = fc.GAME.apply(state, adjust("Cid", -11, "a forgotten bonus"))
    assert fc.standings(state)["Cid"] == 9
    # after the end: a penalty that costs Ann the game needs change_result
    done = fc_eleven()
    refused_by(fc.GAME, done, adjust("Ann", 150), IllegalMove, "T-2")
    assert fc.outcome(fc.GAME.apply(done, adjust("Ann", 50)))["winners"] == ["Ann"]
    assert fc.outcome(fc.GAME.apply(done, adjust("Ann", 150, change_result=True)))["winners"] == ["Bob"]


def test_adjust_nines_penalty_points_and_the_target_at_the_end_of_a_hand():
    state = play(nines.GAME, nines.new_game(P3, {"target": 100}), hand())      # Ann 45, Bob 7, Cid 7
    ended = nines.GAME.apply(state, adjust("Bob", 95, "misdealt twice"))      # between hands: at once
    assert nines.outcome(ended)["winners"] == ["Cid"] and nines.standings(ended)["Bob"] == 102
    assert ended["hand"] == 1 and ended["phase"] == "finished"
    # during a hand it counts at the hand's end: the hand goes on
    playing = play(nines.GAME, state, {"type": "deal", "discard": "5C", "revealed": {
        "Ann": {"0": "2C", "1": "2D", "2": "2H"}, "Bob": {"0": "3C", "1": "3D", "2": "3H"},
        "Cid": {"0": "4C", "1": "4D", "2": "4H"}}})
    later = nines.GAME.apply(playing, adjust("Bob", 95, "misdealt twice"))
    assert nines.outcome(later)["status"] == "in_progress" and later["phase"] == "play"
    assert nines.standings(later) == {"Ann": 45, "Bob": 102, "Cid": 7}


def test_adjust_ninety_nine_counts_tokens_and_a_player_left_with_none_is_out():
    state = ninety_nine.new_game(P3)
    state = ninety_nine.GAME.apply(state, adjust("Bob", -2, "played out of turn"))
    assert ninety_nine.standings(state) == {"Ann": 9, "Bob": 7, "Cid": 9}
    refused_by(ninety_nine.GAME, state, adjust("Bob", -8), IllegalMove, "T-2")        # holds 7
    state = ninety_nine.GAME.apply(state, adjust("Ann", -9, "left the table"))       # Ann's turn: out, Bob plays
    assert state["out"] == ["Ann"] and state["to_play"] == "Bob"
    assert ninety_nine.GAME.allowed(state)["adjust"]["choices"] == {"player": ["Bob", "Cid"]}
    refused_by(ninety_nine.GAME, state, adjust("Ann", 3), IllegalMove, "T-2")        # nobody is brought back
    over = ninety_nine.GAME.apply(state, adjust("Cid", -9, "left too"))
    assert ninety_nine.outcome(over)["winners"] == ["Bob"] and over["phase"] == "finished"
    assert set(ninety_nine.GAME.allowed(over)) == {"adjust"}
    refused_by(ninety_nine.GAME, over, adjust("Bob", -7), IllegalMove, "T-2")        # the last player in
    assert ninety_nine.standings(ninety_nine.GAME.apply(over, adjust("Bob", 1, "bonus")))["Bob"] == 8


def _sixty_nine_round_ended(state):
    """``state`` (in a round) with the player to play holding one card, who plays it: the round ends."""
    short = copy.deepcopy(state)
    short["hand_sizes"][short["to_play"]] = 1
    return sixty_nine.GAME.apply(short, {"type": "play", "player": short["to_play"], "set": 1, "cards": ["2B"]})


def test_adjust_sixty_nine_counts_at_once_and_the_target_is_judged_at_the_round_end():
    """T-2 (as changed): an adjustment changes the total at once, but S69-12 is judged at the end of
    the round in progress, so a bonus never ends a round early; between rounds it is judged at once."""
    state = play(sixty_nine.GAME, sixty_nine.new_game(P3), {"type": "deal", "dealer": "Cid", "flip": "1A"})
    refused_by(sixty_nine.GAME, state, adjust("Ann", -1), IllegalMove, "T-2")        # never below 0
    ahead = sixty_nine.GAME.apply(state, adjust("Bob", 12, "a forgotten bonus"))
    assert sixty_nine.standings(ahead) == {"Ann": 0, "Bob": 12, "Cid": 0} and ahead["phase"] == "turn"
    during = sixty_nine.GAME.apply(ahead, adjust("Ann", 70, "the table's prize"))
    assert sixty_nine.outcome(during)["status"] == "in_progress" and sixty_nine.standings(during)["Ann"] == 70
    assert (during["phase"], during["to_play"]) == (ahead["phase"], ahead["to_play"])
    assert "play" in sixty_nine.GAME.allowed(during)                                 # the round goes on
    ended = _sixty_nine_round_ended(during)
    result = sixty_nine.outcome(ended)
    assert result["status"] == "finished" and result["winners"] == ["Ann"] and result["rule"] == "S69-12"
    assert ended["rounds"][-1]["round"] == 1
    # between rounds: judged at once, as part of the round just finished
    between = _sixty_nine_round_ended(ahead)
    assert between["phase"] == "round_over" and sixty_nine.outcome(between)["status"] == "in_progress"
    over = sixty_nine.GAME.apply(between, adjust("Ann", 70, "the table's prize"))
    result = sixty_nine.outcome(over)
    assert result["status"] == "finished" and result["winners"] == ["Ann"] and result["rule"] == "S69-12"
    assert sixty_nine.GAME.allowed(over) == {"adjust": {"players": None, "choices": {"player": P3}}}
    # taken back: refused without the table's say-so, then the game goes on where it stopped
    refused_by(sixty_nine.GAME, over, adjust("Ann", -10), IllegalMove, "T-2")
    back = sixty_nine.GAME.apply(over, adjust("Ann", -10, "too much", change_result=True))
    assert sixty_nine.outcome(back)["status"] == "in_progress"
    assert (back["phase"], back["to_play"], back["round"]) == (between["phase"], between["to_play"], between["round"])
    assert "resume" not in back
    # more who reach it: every one at or over the target wins, ranked by points (S69-12)
    both = sixty_nine.GAME.apply(between, adjust("Cid", 80, "a"))
    assert sixty_nine.outcome(both)["winners"] == ["Cid"]
    assert sixty_nine.outcome(sixty_nine.GAME.apply(both, adjust("Bob", 60, "b", change_result=True)))["winners"] == \
        ["Cid", "Bob"]


def _xix_exchange(state, loser="Bob"):
    """The exchange in progress won by the other player: a trick, a strike, and an abandon."""
    leader = state["to_play"]
    other = "Bob" if leader == "Ann" else "Ann"
    return play(xix.GAME, state, {"type": "play", "player": leader, "card": 18, "from": "closed"},
                {"type": "play", "player": other, "card": 2, "from": "closed"},
                {"type": "decide", "player": other, "choice": "abandon"})


def test_adjust_xix_counts_at_once_and_the_end_is_judged_at_the_exchange_end():
    """T-2 (as changed): X19-5 is judged at the end of the exchange in progress, not at the
    adjustment; between exchanges (the draft) at once."""
    state = xix.new_game(["Ann", "Bob"])
    during = xix.GAME.apply(state, adjust("Ann", 20, "conceded exchanges"))
    assert xix.outcome(during)["status"] == "in_progress" and (during["phase"], during["to_play"]) == ("trick", "Ann")
    assert xix.standings(during) == {"Ann": 20, "Bob": 0}
    ended = _xix_exchange(during)
    assert xix.outcome(ended)["winners"] == ["Ann"] and ended["phase"] == "finished"
    assert xix.standings(ended) == {"Ann": 21, "Bob": 0}
    # between exchanges: 19 awarded in all, the exactly-19 rule decides at once, fewer points wins
    between = _xix_exchange(state)
    assert between["phase"] == "draft" and xix.standings(between) == {"Ann": 1, "Bob": 0}
    exactly = xix.GAME.apply(between, adjust("Bob", 18, "conceded exchanges"))
    assert xix.outcome(exactly)["winners"] == ["Ann"] and exactly["phase"] == "finished"
    refused_by(xix.GAME, exactly, adjust("Bob", -5), IllegalMove, "T-2")
    back = xix.GAME.apply(exactly, adjust("Bob", -5, "counted twice", change_result=True))
    assert xix.outcome(back)["status"] == "in_progress"
    assert (back["phase"], back["to_play"]) == (between["phase"], between["to_play"])
    assert xix.standings(back) == {"Ann": 1, "Bob": 13}
    refused_by(xix.GAME, back, adjust("Ann", -2), IllegalMove, "T-2")                # never below 0


# ---------------------------------------------------------------- only where it makes sense

def test_the_sixth_game_knows_none_of_the_table_moves():
    """Every game now takes corrections of rounds entered whole (T-1, T-4); a round refereed move by
    move is refused in each game's own tests (test_*_rounds.py). A game that declares neither move
    knows neither."""
    state = high_card.new_game(P3)
    assert "adjust" not in high_card.GAME.allowed(state) and "adjustments" not in public_state(high_card.GAME, state)
    refused_by(high_card.GAME, state, adjust("Bob", 1), InvalidInput)
