"""69 over HTTP: a whole three-player game to 69 with real (simulated) cards, illegal moves
(422, rule id, version unchanged) and the two dispute verdicts."""
from __future__ import annotations

import random
from itertools import combinations

from referee.rules.sixty_nine.sets import read_set

GAME = "sixty-nine"
ANN, BOB, CAT = "Ann", "Bob", "Cat"
PLAYERS = [ANN, BOB, CAT]
DECK = [f"{d}{s}" for d in range(10) for s in "ABCDEF"] + ["WILD", "LOCK", "SCRAMBLE"] * 3


class Table:
    """The real cards: a shuffled deck, real hands, and a plain strategy. Play the most cards
    that go legally into one set, else pass; steal when possible, else decline; decline a
    flipped Scramble."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.hands = {p: [] for p in PLAYERS}
        self.deck = []

    def deal(self, dealer):
        self.deck = list(DECK)
        self.rng.shuffle(self.deck)
        for p in PLAYERS:
            self.hands[p] = sorted(self.deck[:10])
            del self.deck[:10]
        return {"type": "deal", "dealer": dealer, "flip": self.deck.pop(0)}

    def take_flip(self, flipper):
        if self.deck:
            return self.deck.pop(0)
        donor = PLAYERS[PLAYERS.index(flipper) - 1]          # S69-8: right-hand neighbour
        card = self.rng.choice(self.hands[donor])
        self.hands[donor].remove(card)
        return card

    def best_addition(self, name, cards, least=1, most=3):
        hand = self.hands[name]
        for size in range(min(most, len(hand)), least - 1, -1):
            for extra in combinations(hand, size):
                if read_set(cards + list(extra))[0] is not None:
                    return list(extra)
        return None

    def move(self, body):
        name, phase = body["to_play"], body["phase"]
        if phase == "round_over":
            return self.deal(name)
        if phase == "flip":
            return {"type": "flip", "player": name, "card": self.take_flip(name)}
        if phase == "chances":
            return self.chance(name, body)
        if body["pending_scramble"] == name:
            return {"type": "scramble", "player": name}
        for table_set in body["table"]:
            extra = self.best_addition(name, table_set["cards"])
            if extra:
                return {"type": "play", "player": name, "set": table_set["id"], "cards": extra}
        return {"type": "pass", "player": name, "flip": self.take_flip(name)}

    def chance(self, name, body):
        sets = {}
        for table_set in body["table"]:
            if table_set["complete"] and not table_set["locked"]:
                extra = self.best_addition(name, table_set["cards"], least=table_set["count"])
                if extra:
                    sets[str(table_set["id"])] = extra
                    break
        return {"type": "chance", "player": name, "sets": sets}

    def follow(self, move):
        name = move.get("player")
        played = move.get("cards") or [c for cards in move.get("sets", {}).values() for c in cards]
        if move["type"] in ("play", "chance"):
            for card in played:
                self.hands[name].remove(card)


def test_whole_three_player_game_to_69(api):
    game = api.create(GAME, PLAYERS)
    assert game["phase"] == "round_over" and game["to_play"] == CAT and game["status"] == "in_progress"
    table = Table(seed=69)
    body, moves = game, 0
    while body["status"] != "finished":
        move = table.move(body)
        body = api.move(game, move)
        table.follow(move)
        moves += 1
        assert moves < 5000
        if body["phase"] not in ("round_over", "finished"):
            assert body["hand_sizes"] == {p: len(h) for p, h in table.hands.items()}
            assert body["draw_pile"] == len(table.deck)
    assert body["winners"] and all(body["standings"][w] >= 69 for w in body["winners"])
    assert body["winners"] == sorted(body["winners"], key=lambda w: -body["standings"][w])
    losers = [p for p in PLAYERS if p not in body["winners"]]
    assert all(body["standings"][p] < 69 for p in losers)
    for p in PLAYERS:
        assert body["standings"][p] == sum(r["scores"][p] for r in body["rounds"])
        for record in body["rounds"]:
            assert sum(e["points"] for e in record["breakdown"][p]) == record["scores"][p]
    assert body["round"] == len(body["rounds"]) >= 2
    assert body["to_play"] is None and body["version"] == moves
    after = api.move(game, {"type": "deal", "dealer": ANN, "flip": "1A"}, expect=422)
    assert after["rule"] == "S69-12"
    assert api.state(game)["version"] == moves


def test_steal_and_capture_over_http(api):
    game = api.create(GAME, PLAYERS, {"dealer": ANN})
    assert game["to_play"] == ANN
    body = api.move(game, {"type": "deal", "dealer": ANN, "flip": "2A"})
    assert body["to_play"] == BOB and body["draw_pile"] == 38
    body = api.move(game, {"type": "play", "player": BOB, "set": 1, "cards": ["3B"]})
    body = api.move(game, {"type": "play", "player": CAT, "set": 1, "cards": ["w"]})
    table_set = body["table"][0]
    assert table_set["complete"] and table_set["claimant"] == CAT and table_set["count"] == 1
    assert {r["card"]: r["value"] for r in table_set["reading"]}["WILD"] == 4
    body = api.move(game, {"type": "chance", "player": ANN, "cards": ["4C"]})
    assert body["table"][0]["claimant"] == ANN
    assert {r["card"]: r["value"] for r in body["table"][0]["reading"]}["WILD"] in (1, 5)
    body = api.move(game, {"type": "chance", "player": BOB, "cards": []})
    body = api.move(game, {"type": "chance", "player": CAT, "cards": []})
    assert body["phase"] == "flip" and body["to_play"] == ANN
    assert [s["cards"] for s in body["captured"][ANN]] == [["2A", "3B", "WILD", "4C"]]
    body = api.move(game, {"type": "flip", "player": ANN, "card": "9F"})
    assert body["to_play"] == BOB and body["hand_sizes"] == {ANN: 9, BOB: 9, CAT: 9}


def test_illegal_moves_are_422_with_rule_and_change_nothing(api):
    game = api.create(GAME, PLAYERS)
    refused = api.move(game, {"type": "deal", "dealer": ANN, "flip": "5A"}, expect=422)
    assert refused["rule"] == "G-2" and refused["status"] == 422
    body = api.move(game, {"type": "deal", "dealer": CAT, "flip": "5A"})
    version = body["version"]
    cases = [
        ({"type": "play", "player": BOB, "set": 1, "cards": ["5B"]}, "S69-7"),
        ({"type": "play", "player": ANN, "set": 1, "cards": ["5A"]}, "S69-1"),
        ({"type": "play", "player": ANN, "set": 1, "cards": ["7B"]}, "S69-2"),
        ({"type": "play", "player": ANN, "set": 9, "cards": ["5B"]}, "S69-3"),
        ({"type": "chance", "player": ANN, "cards": []}, "S69-4"),
        ({"type": "scramble", "player": ANN, "from_hand": ["5B"], "arrangement": [["5A", "5B"]]}, "S69-9"),
    ]
    for move, rule in cases:
        problem = api.move(game, move, expect=422)
        assert problem["rule"] == rule, (move, problem)
        assert problem["detail"]
    for move in ({"type": "play", "player": ANN, "set": 1, "cards": ["ZZ"]},
                 {"type": "play", "player": ANN, "set": 1, "cards": "5B"},
                 {"type": "pass", "player": ANN},
                 {"type": "pass", "player": ANN, "flip": "5B", "extra": True}):
        api.move(game, move, expect=422)
    assert api.state(game)["version"] == version


def test_set_verdict_over_http(api):
    verdict = api.judge(GAME, "set", {"cards": ["6A", "6B", "7C", "8D"]})
    assert verdict["legal"] and verdict["complete"] and verdict["rule"] is None
    assert sorted(r["value"] for r in verdict["reading"]) == [6, 7, 8, 9]
    verdict = api.judge(GAME, "set", {"cards": ["9A", "0B", "1C"]})
    assert verdict == {"legal": False, "complete": False, "reading": None, "reason": verdict["reason"],
                       "rule": "S69-2", "says": f"No: 9A 0B 1C is not a legal set (S69-2): {verdict['reason']}"}
    assert api.judge(GAME, "set", {"cards": ["1A", "1A"]}, expect=422)["rule"] == "S69-1"
    api.judge(GAME, "set", {"cards": ["QQ"]}, expect=422)


def test_score_verdict_over_http(api):
    body = {"captured": [["6A", "7B", "8C", "9D", "WILD", "5E"], ["WILD", "LOCK", "SCRAMBLE"]],
            "hand": ["1F", "2F"]}
    verdict = api.judge(GAME, "score", body)
    assert verdict["points"] == 9 + 2 + 6 + 3 - 2
    assert sum(e["points"] for e in verdict["breakdown"]) == verdict["points"]
    assert {e["rule"] for e in verdict["breakdown"]} == {"S69-11"}
    floor = api.judge(GAME, "score", {"captured": [], "hand": ["1F"]})
    assert floor["points"] == 0
    assert api.judge(GAME, "score", {"captured": [["1A", "1B"]], "hand": []}, expect=422)["rule"] == "S69-4"


def test_empty_deck_pull_over_http(api):
    players = ["p1", "p2", "p3", "p4", "p5", "p6"]
    game = api.create(GAME, players)
    body = api.move(game, {"type": "deal", "dealer": "p6", "flip": "0A"})
    assert body["draw_pile"] == 8
    for i, card in enumerate(["1A", "2B", "3C", "4D", "5E", "6F", "7A", "8B"]):
        body = api.move(game, {"type": "pass", "player": players[i % 6], "flip": card})
    assert body["draw_pile"] == 0 and body["to_play"] == "p3"
    body = api.move(game, {"type": "pass", "player": "p3", "flip": "9C"})
    assert body["hand_sizes"]["p2"] == 9 and body["pulls"] == [{"by": "p3", "from": "p2", "card": "9C"}]
    assert body["table"][-1]["cards"] == ["9C"]


def test_player_count_refusal_cites_s69_12_over_http(api):
    for players in (["solo"], [f"p{i}" for i in range(7)]):
        problem = api.create(GAME, players, expect=422)
        assert problem["rule"] == "S69-12" and problem["status"] == 422


def test_completing_play_with_a_scramble_claims_with_count_one_over_http(api):
    # S69-4: "a Scramble counts as one card for every set it completes" (S69-9)
    game = api.create(GAME, PLAYERS)
    api.move(game, {"type": "deal", "dealer": CAT, "flip": "5A"})
    body = api.move(game, {"type": "play", "player": ANN, "set": 1, "cards": ["SCRAMBLE", "5B"]})
    # S69-9: the rearrangement comes first, and only Ann may make it or decline it
    assert body["phase"] == "scramble" and body["to_play"] == ANN and list(body["allowed"]) == ["scramble", "adjust"]
    api.refused(game, {"type": "chance", "player": BOB, "cards": ["5C"]}, "S69-9")
    body = api.move(game, {"type": "scramble", "player": ANN})
    assert body["phase"] == "chances" and body["to_play"] == BOB
    assert (body["table"][0]["claimant"], body["table"][0]["count"]) == (ANN, 1)
    body = api.move(game, {"type": "chance", "player": BOB, "cards": ["5C"]})
    assert body["table"][0]["claimant"] == BOB and body["to_play"] == CAT


def test_a_pulled_scramble_is_the_pullers_and_every_other_move_cites_s69_9_over_http(api):
    # S69-8 with S69-9: with the deck empty p3's flip is pulled from p2's hand; it is a Scramble, so
    # p3 acts next and no one else: every other move is a 422 citing S69-9 and changes nothing
    players = ["p1", "p2", "p3", "p4", "p5", "p6"]
    game = api.create(GAME, players)
    api.move(game, {"type": "deal", "dealer": "p6", "flip": "0A"})
    for i, card in enumerate(["1A", "2B", "3C", "4D", "5E", "6F", "7A", "8B"]):
        api.move(game, {"type": "pass", "player": players[i % 6], "flip": card})
    body = api.move(game, {"type": "pass", "player": "p3", "flip": "SCRAMBLE"})
    assert body["pulls"] == [{"by": "p3", "from": "p2", "card": "SCRAMBLE"}]
    assert (body["phase"], body["to_play"], body["pending_scramble"]) == ("scramble", "p3", "p3")
    assert list(body["allowed"]) == ["scramble", "adjust"] and body["allowed"]["scramble"]["players"] == ["p3"]
    for move in ({"type": "pass", "player": "p4", "flip": "9C"},
                 {"type": "play", "player": "p4", "set": 1, "cards": ["1B"]},
                 {"type": "chance", "player": "p4", "cards": []},
                 {"type": "flip", "player": "p3", "card": "9C"},
                 {"type": "deal", "dealer": "p6", "flip": "9C"},
                 {"type": "scramble", "player": "p4"}):
        api.refused(game, move, "S69-9")
    body = api.move(game, {"type": "scramble", "player": "p3"})         # declined: the table stays
    assert body["phase"] == "turn" and body["to_play"] == "p4" and body["pending_scramble"] is None


# ---------------------------------------------------------------- recorded by rounds (T-4), corrected (T-1)

def _round(emptied, **forms):
    return {"type": "round_result", "emptied": emptied, "players": forms}


def test_a_whole_game_recorded_by_rounds_over_http(api):
    """T-4: only round results (and the table's own moves) are taken; each round is scored (S69-11),
    the next dealer sits left of whoever emptied their hand (S69-12), the game ends at the target, a
    round entered wrong is corrected (T-1), and undo takes a round back."""
    game = api.create(GAME, PLAYERS, {"record": "rounds"})
    assert game["record"] == "rounds" and game["options"]["record"] == "rounds"
    assert set(game["allowed"]) == {"round_result", "switch_record", "adjust"}
    assert game["allowed"]["round_result"]["choices"] == {"emptied": PLAYERS}
    problem = api.refused(game, {"type": "deal", "dealer": CAT, "flip": "5A"}, "T-4")
    assert problem["legal"] == {"type": ["round_result", "switch_record"]}
    body = api.move(game, _round(ANN, Ann={"captured": [["6A", "9B", "7C", "8D", "0E", "5F"], ["WILD", "LOCK",
                                                                                             "SCRAMBLE"]]},
                                 Bob={"captured": [["5A", "5B", "5C"]], "hand": 2}, Cat={"points": 4}))
    assert body["rounds"][0]["scores"] == {ANN: 20, BOB: 1, CAT: 4} and body["standings"] == {ANN: 20, BOB: 1, CAT: 4}
    assert body["rounds"][0]["recorded"] == "rounds" and body["dealer"] == BOB and body["round"] == 2
    assert body["allowed"]["correct_round"]["choices"] == {"round": [1]}
    # refused entries: a 422 citing the ruling, and nothing changes
    api.refused(game, _round(ANN, Ann={"captured": [["5D", "5E"]]}, Bob={"points": 0}, Cat={"points": 0}), "S69-4")
    api.refused(game, _round(ANN, Ann={"captured": [["1A", "2A", "3B"]]}, Bob={"points": 0}, Cat={"points": 0}),
                "S69-2")
    api.refused(game, _round(ANN, Ann={"points": 0}, Bob={"captured": [], "hand": 12}, Cat={"points": 0}), "S69-8")
    api.refused(game, _round(ANN, Ann={"points": 0}, Bob={"points": 0}), "S69-11")
    api.move(game, _round(ANN, Ann={"points": 0}, Bob={"points": "7"}, Cat={"points": 0}), expect=422)
    for emptied, scores in ((BOB, (20, 30, 5)), (CAT, (30, 10, 0))):
        body = api.move(game, _round(emptied, **{p: {"points": n} for p, n in zip(PLAYERS, scores)}))
    assert body["status"] == "finished" and body["winners"] == [ANN] and body["standings"][ANN] == 70
    assert body["outcome"]["rule"] == "S69-12" and body["round"] == 3
    # a correction that would change who won needs the table's say-so (T-1, T-3)
    fix = {"type": "correct_round", "round": 3, "reason": "Ann's 30 were Bob's", "emptied": CAT,
           "players": {ANN: {"points": 0}, BOB: {"points": 40}, CAT: {"points": 0}}}
    assert api.refused(game, fix, "T-1")["legal"] == {"change_result": [True]}
    body = api.move(game, {**fix, "change_result": True})
    assert body["status"] == "finished" and body["winners"] == [BOB] and body["standings"] == {ANN: 40, BOB: 71, CAT: 9}
    assert body["rounds"][2]["corrections"][0]["replaced"]["scores"][ANN] == 30
    assert [m["move"]["type"] for m in api.log(game)["moves"]] == ["round_result"] * 3 + ["correct_round"]
    back = api.undo(game)
    assert back["winners"] == [ANN] and back["rounds"][2]["scores"][ANN] == 30
    assert "corrections" not in back["rounds"][2]


def test_the_table_switches_how_it_records_between_rounds_over_http(api):
    """T-4: a round refereed move by move, then the switch (only between rounds), rounds entered
    whole, and back; a round refereed move by move is adjusted, never corrected (T-1)."""
    game = api.create(GAME, PLAYERS, {"dealer": ANN})
    assert game["record"] == "moves" and {"deal", "round_result", "switch_record"} <= set(game["allowed"])
    body = api.move(game, {"type": "deal", "dealer": ANN, "flip": "2A"})
    assert "switch_record" not in body["allowed"] and "round_result" not in body["allowed"]
    api.refused(game, {"type": "switch_record", "record": "rounds"}, "T-4")
    api.refused(game, _round(BOB, **{p: {"points": 0} for p in PLAYERS}), "T-4")
    # a quick round by moves: Bob empties his hand in three plays
    api.move(game, {"type": "play", "player": BOB, "set": 1, "cards": ["3B", "4C", "5D", "6E", "7F"]})
    body = api.move(game, {"type": "flip", "player": BOB, "card": "9A"})   # six cards: captured at once (S69-6)
    assert body["captured"][BOB][0]["cards"] == ["2A", "3B", "4C", "5D", "6E", "7F"] and body["to_play"] == CAT
    for player, card in ((CAT, "1B"), (ANN, "1C")):
        api.move(game, {"type": "pass", "player": player, "flip": card})
    body = api.move(game, {"type": "play", "player": BOB, "set": 2, "cards": ["8B", "7C", "6D", "5E"]})
    assert body["hand_sizes"][BOB] == 1 and body["phase"] == "chances"
    api.move(game, {"type": "pass_chances"})
    api.move(game, {"type": "flip", "player": BOB, "card": "3E"})
    for player, card in ((CAT, "3F"), (ANN, "4A")):
        body = api.move(game, {"type": "pass", "player": player, "flip": card})
    set_id = next(s["id"] for s in body["table"] if s["cards"] == ["3F"])
    body = api.move(game, {"type": "play", "player": BOB, "set": set_id, "cards": ["4B"]})
    assert body["phase"] == "round_over" and len(body["rounds"]) == 1 and body["rounds"][0]["emptied"] == BOB
    assert body["dealer"] == CAT and "correct_round" not in body["allowed"]
    moved = body["standings"]
    problem = api.refused(game, {"type": "correct_round", "round": 1, "reason": "x", "emptied": BOB,
                                 "players": {p: {"points": 0} for p in PLAYERS}}, "T-1")
    assert "adjust" in problem["detail"]
    # between rounds: the switch, then rounds entered whole
    body = api.move(game, {"type": "switch_record", "record": "rounds"})
    assert body["record"] == "rounds" and body["events"][-1]["rule"] == "T-4"
    assert set(body["allowed"]) == {"round_result", "switch_record", "adjust"}
    body = api.move(game, _round(CAT, Ann={"points": 5}, Bob={"points": 6}, Cat={"points": 7}))
    assert body["standings"] == {p: moved[p] + n for p, n in zip(PLAYERS, (5, 6, 7))} and body["dealer"] == ANN
    assert body["allowed"]["correct_round"]["choices"] == {"round": [2]}
    body = api.move(game, {"type": "switch_record", "record": "moves"})
    body = api.move(game, {"type": "deal", "dealer": ANN, "flip": "4F"})
    assert body["phase"] == "turn" and body["round"] == 3 and body["to_play"] == BOB
    assert [m["move"]["type"] for m in api.log(game)["moves"]][-4:] == ["switch_record", "round_result",
                                                                         "switch_record", "deal"]
