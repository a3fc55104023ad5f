"""Five Crowns over HTTP: a whole four-player game through all eleven rounds (turn by turn and
score-only rounds), illegal moves (422, rule id, version unchanged), the tie-break play-off,
and the two verdicts."""
from __future__ import annotations

GAME = "five-crowns"
PLAYERS = ["Ann", "Bob", "Cat", "Dan"]


def draw(player, source="stock"):
    return {"type": "draw", "player": player, "source": source}


def discard(player, card):
    return {"type": "discard", "player": player, "card": card}


def round_one_turn_by_turn(api, game):
    """Round 1 (3 cards, 3s wild): Dan deals, Ann plays first (G-2), Ann goes out on her second
    turn, the others play their final turns (FC-4) in the three ways a table can enter them."""
    body = api.move(game, {"type": "deal", "discard": "KH"})
    assert body["to_play"] == "Ann" and body["discard_top"] == "KH" and body["step"] == "draw"
    assert body["draw_pile"] == 116 - 4 * 3 - 1
    api.refused(game, draw("Bob"), "G-1")
    api.refused(game, discard("Ann", "9S"), "FC-4")             # draw first
    api.move(game, draw("Ann"))
    api.move(game, discard("Ann", "9S"))
    body = api.move(game, draw("Bob", "discard"))
    assert body["known_cards"] == {"Bob": ["9S"]} and body["hand_sizes"]["Bob"] == 4
    api.move(game, discard("Bob", "4D"))
    api.move(game, draw("Cat"))
    api.move(game, discard("Cat", "QC"))
    api.move(game, draw("Dan"))
    api.move(game, discard("Dan", "10C"))
    api.move(game, draw("Ann"))
    bad = api.refused(game, {"type": "go_out", "player": "Ann", "melds": [["7H", "8H", "10S"]],
                              "discard": "KC"}, "FC-3")
    assert bad["detail"] == "7H 8H 10S: a run needs one suit"
    api.refused(game, {"type": "final_turn", "player": "Ann", "melds": [["5H", "5S", "3D"]],
                        "leftover": [], "discard": "KC"}, "FC-4")  # nobody is out yet
    body = api.move(game, {"type": "go_out", "player": "Ann", "melds": [["5H", "5S", "3D"]],
                           "discard": "KC"})
    assert body["went_out"] == "Ann" and body["final_turns_left"] == ["Bob", "Cat", "Dan"]
    api.move(game, draw("Bob"))
    api.refused(game, discard("Bob", "8H"), "FC-4")             # a final turn lays down
    api.refused(game, {"type": "final_turn", "player": "Bob", "melds": [["9D", "JK", "JK"]],
                        "leftover": [], "discard": "8H"}, "FC-1")  # Bob holds the 9S he took
    api.move(game, {"type": "final_turn", "player": "Bob", "melds": [["9S", "9D", "JK"]],
                    "leftover": [], "discard": "8H"})
    api.move(game, draw("Cat", "discard"))
    api.move(game, {"type": "final_turn", "player": "Cat", "cards": ["8H", "8C", "7D"], "discard": "6S"})
    api.move(game, draw("Dan"))
    body = api.move(game, {"type": "final_turn", "player": "Dan", "melds": [],
                           "leftover": ["KD", "QD", "4S"], "discard": "6C"})
    record = body["rounds"][0]
    assert record["scores"] == {"Ann": 0, "Bob": 0, "Cat": 23, "Dan": 29}
    assert record["hands"]["Cat"] == {"melds": [], "leftover": ["7D", "8H", "8C"]}
    assert sum(line["points"] for line in record["breakdown"]["Dan"]) == 29
    assert body["round"] == 2 and body["wild"] == "4" and body["dealer"] == "Ann"
    assert body["to_play"] == "Bob" and body["step"] == "deal"
    return body


# Rounds 2-10 entered by a score-keeping table, in all three hand forms (FC-6).
SCORED_ROUNDS = [
    # round 2: 4 cards, 4s wild
    ("Bob", {"Ann": {"melds": [["5H", "5S", "4C"]], "leftover": ["KS"]},          # 13
             "Cat": {"cards": ["6H", "7H", "8H", "QD"]},                           # 12
             "Dan": {"points": 30}}),
    # round 3: 5 cards, 5s wild
    ("Cat", {"Ann": {"points": 0}, "Bob": {"cards": ["9H", "9S", "JK", "3C", "4C"]},  # 7
             "Dan": {"leftover": ["3H", "4H", "6H", "8S", "10S"]}}),                # 31
    ("Dan", {"Ann": {"points": 10}, "Bob": {"points": 20}, "Cat": {"points": 5}}),
    ("Ann", {"Bob": {"points": 15}, "Cat": {"points": 25}, "Dan": {"points": 0}}),
    ("Ann", {"Bob": {"points": 8}, "Cat": {"points": 9}, "Dan": {"points": 12}}),
    ("Bob", {"Ann": {"points": 6}, "Cat": {"points": 40}, "Dan": {"points": 3}}),
    ("Cat", {"Ann": {"points": 0}, "Bob": {"points": 22}, "Dan": {"points": 17}}),
    ("Dan", {"Ann": {"points": 14}, "Bob": {"points": 0}, "Cat": {"points": 11}}),
    # round 10: 12 cards, Qs wild
    ("Ann", {"Bob": {"cards": ["3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH", "KS"]},
             "Cat": {"cards": ["3S", "3D", "3C", "5D", "6D", "7D", "QC", "JK", "9C", "10C", "KD", "KC"]},
             "Dan": {"melds": [["4S", "4D", "4C"], ["8D", "9D", "10D", "JD"]],
                     "leftover": ["6S", "7S", "9S", "10S", "JS"]}}),
]


def round_eleven_turn_by_turn(api, game):
    """Round 11 (13 cards, Kings wild): Bob deals, Cat goes out at once."""
    body = api.move(game, {"type": "deal", "discard": "4H"})
    assert body["dealer"] == "Bob" and body["to_play"] == "Cat" and body["wild"] == "K"
    api.move(game, draw("Cat"))
    api.refused(game, {"type": "go_out", "player": "Cat",
                        "melds": [["3S", "4S", "5S", "6S"], ["7D", "7C", "7H"], ["9H", "10H", "JH"]],
                        "discard": "8S"}, "FC-4")                 # ten cards, not thirteen
    body = api.move(game, {"type": "go_out", "player": "Cat",
                           "melds": [["3S", "4S", "5S", "6S"], ["7D", "7C", "7H"], ["9H", "10H", "JH"],
                                     ["QS", "QD", "KC"]], "discard": "8S"})
    assert body["final_turns_left"] == ["Dan", "Ann", "Bob"]
    api.move(game, draw("Dan", "discard"))
    api.move(game, {"type": "final_turn", "player": "Dan", "discard": "JK",
                    "cards": ["8S", "8D", "8C", "3H", "4D", "5D", "6D", "9S", "9S", "10C", "QC", "QC", "KH"]})
    api.move(game, draw("Ann"))
    api.move(game, {"type": "final_turn", "player": "Ann", "discard": "10D",
                    "melds": [["3C", "4C", "5C"], ["6H", "6C", "KD"], ["JS", "JC", "JD"]],
                    "leftover": ["9D", "9C", "10S", "5H"]})
    api.move(game, draw("Bob"))
    return api.move(game, {"type": "final_turn", "player": "Bob", "discard": "QH",
                           "cards": ["3C", "4H", "5H", "6S", "7S", "8H", "9H", "10H", "JH", "QS", "JK",
                                     "JK", "KS"]})


def test_whole_four_player_game_eleven_rounds(api):
    game = api.create(GAME, PLAYERS)
    assert game["round"] == 1 and game["wild"] == "3" and game["cards_dealt"] == 3
    assert game["dealer"] == "Dan" and game["to_play"] == "Ann" and game["status"] == "in_progress"
    body = round_one_turn_by_turn(api, game)
    for number, (went_out, hands) in enumerate(SCORED_ROUNDS, start=2):
        assert body["round"] == number and body["cards_dealt"] == number + 2
        body = api.move(game, {"type": "round_result", "went_out": went_out, "hands": hands})
    assert [r["scores"]["Ann"] for r in body["rounds"][1:3]] == [13, 0]
    assert body["rounds"][1]["scores"]["Cat"] == 12 and body["rounds"][2]["scores"]["Bob"] == 7
    assert body["rounds"][2]["scores"]["Dan"] == 3 + 4 + 6 + 8 + 10
    tenth = body["rounds"][9]["scores"]           # Qs wild: QH fills the hearts, Q C the clubs
    assert tenth == {"Ann": 0, "Bob": 0, "Cat": 0, "Dan": 6 + 7 + 9 + 10 + 11}
    body = round_eleven_turn_by_turn(api, game)
    last = body["rounds"][10]
    assert last["round"] == 11 and last["wild"] == "K"
    assert last["scores"]["Cat"] == 0
    # Dan: 8s, 4-5-6 of diamonds, Q Q + KH; 3H 9S 9S 10C left (the best lay-down, FC-6)
    assert last["scores"]["Dan"] == 3 + 9 + 9 + 10
    assert last["hands"]["Dan"]["leftover"] == ["3H", "9S", "9S", "10C"]
    assert last["scores"]["Ann"] == 9 + 9 + 10 + 5                 # as declared
    assert last["scores"]["Bob"] == 3 + 4 + 5                      # 8H-JH, 6S 7S JK, QS JK KS
    totals = {name: sum(r["scores"][name] for r in body["rounds"]) for name in PLAYERS}
    assert body["standings"] == totals == last["totals"] == {"Ann": 76, "Bob": 84, "Cat": 125, "Dan": 196}
    assert body["status"] == "finished" and body["to_play"] is None
    assert body["winners"] == ["Ann"]                              # lowest total (FC-5)
    assert len(body["rounds"]) == 11 and [r["round"] for r in body["rounds"]] == list(range(1, 12))
    api.refused(game, {"type": "deal", "discard": "4H"}, "FC-5")
    assert api.state(game)["version"] == body["version"]


def test_four_decks_and_malformed_moves(api):
    api.create(GAME, PLAYERS, {"decks": 3}, expect=422)
    api.create(GAME, [f"P{i}" for i in range(8)], {"decks": 2}, expect=422)
    big = api.create(GAME, [f"P{i}" for i in range(8)])
    assert big["decks"] == 4
    game = api.create(GAME, PLAYERS, {"dealer": "Ann", "tie_break": "play_off"})
    assert game["to_play"] == "Bob" and game["tie_break"] == "play_off"
    version = game["version"]
    for move in ({"type": "deal"}, {"type": "deal", "discard": "2H"}, {"type": "deal", "discard": 7},
                 {"type": "deal", "discard": "5H", "extra": 1}, {"type": "shuffle"}):
        body = api.move(game, move, expect=422)
        assert body["status"] == 422
    assert api.state(game)["version"] == version


def test_play_off_round_over_http(api):
    game = api.create(GAME, ["Ann", "Bob", "Cat"], {"tie_break": "play_off"})
    for number in range(1, 12):
        body = api.move(game, {"type": "round_result", "went_out": "Ann" if number % 2 else "Bob",
                               "hands": {"Ann": {"points": 0}, "Bob": {"points": 0},
                                         "Cat": {"points": 5}}})
    assert body["status"] == "in_progress" and body["round"] == 12 and body["play_off"] is True
    assert body["in_round"] == ["Ann", "Bob"] and body["wild"] == "6"
    api.refused(game, {"type": "round_result", "went_out": "Cat", "hands": {}}, "FC-5")
    body = api.move(game, {"type": "round_result", "went_out": "Bob",
                           "hands": {"Ann": {"cards": ["3H", "4H", "5H", "9S", "9D", "KC"]}}})
    assert body["status"] == "finished" and body["winners"] == ["Bob"]
    assert body["rounds"][-1]["scores"] == {"Ann": 9 + 9 + 13, "Bob": 0}
    assert body["standings"] == {"Ann": 0, "Bob": 0, "Cat": 55}


def test_verdicts_over_http(api):
    body = api.judge(GAME, "hand", {"wild": "8", "cards": ["8D", "QD", "Q*", "8*", "9D", "9D", "9H"]})
    assert body["min_points"] == 0 and body["leftover"] == [] and body["can_go_out"] is True
    assert set(body) == {"min_points", "melds", "leftover", "can_go_out", "go_out_discard", "says"}
    body = api.judge(GAME, "hand", {"round": 5, "cards": ["9D", "7C", "JD", "KS"]})
    assert body == {"min_points": 13, "melds": [["9D", "7C", "JD"]], "leftover": ["KS"],
                    "can_go_out": True, "go_out_discard": "KS",
                    "says": "Best lay-down: 9D 7C JD; 13 points left over (KS) (FC-6). It goes out discarding KS "
                            "(FC-4)."}
    for wild, cards in (("8", ["8D", "QD", "Q*"]), ("8", ["8*", "9D", "9D", "9H"]),
                        ("7", ["9D", "7C", "JD"]), ("7", ["6D", "7*", "7S", "9D"])):
        body = api.judge(GAME, "meld", {"wild": wild, "cards": cards})
        assert body["legal"] is True and body["kind"] in ("book", "run")
    body = api.judge(GAME, "meld", {"round": 1, "cards": ["7H", "8H", "10S"]})
    assert body == {"legal": False, "kind": None, "reason": "7H 8H 10S: a run needs one suit",
                    "rule": "FC-3", "says": "No: 7H 8H 10S: a run needs one suit (FC-3)."}
    assert api.judge(GAME, "meld", {"round": 1, "cards": ["7X"]}, expect=422)["status"] == 422
    assert api.judge(GAME, "hand", {"cards": ["7H"]}, expect=422)["status"] == 422
    assert api.judge(GAME, "hand", {"round": 1, "cards": ["7H"] * 3}, expect=422)["rule"] == "FC-1"


def test_final_turns_as_the_cards_alone_over_http(api):
    """FC-4, FC-6: after someone goes out, every final turn entered as the cards held after the draw
    alone; the service finds each discard (the one leaving the lowest score) and the melds."""
    game = api.create(GAME, PLAYERS)
    api.move(game, {"type": "deal", "discard": "KH"})
    api.move(game, draw("Ann"))
    api.move(game, {"type": "go_out", "player": "Ann", "cards": ["5H", "5S", "3D", "KC"]})
    api.move(game, draw("Bob", "discard"))                          # Bob takes Ann's KC
    version = api.state(game)["version"]
    api.refused(game, {"type": "final_turn", "player": "Bob", "cards": ["4S", "5D", "6S", "KD"]}, "FC-1")
    api.refused(game, {"type": "final_turn", "player": "Bob", "cards": ["4S", "6S", "KC"]}, "FC-4")
    api.refused(game, {"type": "final_turn", "player": "Cat", "cards": ["4S", "6S", "9S", "KC"]}, "G-1")
    missing = api.move(game, {"type": "final_turn", "player": "Bob", "melds": [["KC", "KS", "3C"]],
                              "leftover": []}, expect=422)
    assert "discard" in missing["detail"]
    assert api.state(game)["version"] == version
    body = api.move(game, {"type": "final_turn", "player": "Bob", "cards": ["KC", "KS", "3C", "9C"]})
    assert body["laid_down"]["Bob"]["discard"] == "9C" and body["laid_down"]["Bob"]["leftover"] == []
    assert body["discard_top"] == "9C"
    assert {"rule": "FC-6", "text": "Bob's best lay-down: discarding 9C leaves 0 points."} in body["events"]
    api.move(game, draw("Cat"))
    body = api.move(game, {"type": "final_turn", "player": "Cat", "cards": ["JK", "QD", "KS", "4C"]})
    assert body["laid_down"]["Cat"]["discard"] == "JK"              # a Joker left over costs 50 (FC-5)
    api.move(game, draw("Dan"))
    body = api.move(game, {"type": "final_turn", "player": "Dan", "cards": ["7C", "8C", "9C", "10D"]})
    record = body["rounds"][0]
    assert record["scores"] == {"Ann": 0, "Bob": 0, "Cat": 4 + 12 + 13, "Dan": 0}
    assert record["hands"]["Dan"] == {"melds": [["7C", "8C", "9C"]], "leftover": []}
    log = api.log(game)["moves"]
    assert log[-1]["move"] == {"type": "final_turn", "player": "Dan", "cards": ["7C", "8C", "9C", "10D"]}


def test_a_move_without_its_player_is_logged_with_the_player_implied(api):
    """G-1: the one player who may make the move now is implied, and the log names them (so the
    move reads aloud and replays the same)."""
    game = api.create("five-crowns", ["Ann", "Bob"])
    api.move(game, {"type": "deal", "discard": "3H"})
    state = api.move(game, {"type": "draw", "source": "stock"})
    assert state["hand_sizes"]["Ann"] == 4
    logged = api.log(game)
    moves = logged["moves"] if isinstance(logged, dict) else logged
    assert moves[-1]["move"] == {"type": "draw", "source": "stock", "player": "Ann"}
