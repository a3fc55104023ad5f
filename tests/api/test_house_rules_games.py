"""A whole game of each of the five over HTTP with every house rule the game has at a non-default
value (N99-9, N9-9, FC-8, X19-8, S69-13). Each move is drawn by the game's random player from the
moves the service says are allowed, and the service's answer must equal the engine's own public
state after the same move: the service and the rules agree to the end of the game."""
from __future__ import annotations

import importlib
import random
import sys
from pathlib import Path

import pytest

from referee.rules import ENGINES
from referee.rules.base import public_state

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rules"))

HOUSE_RULES = {
    "ninety-nine": (["Ann", "Bob", "Cid"], {"hand_size": 4, "tokens": 3}),
    "nines": (["Ann", "Bob", "Cid"], {"hands": 2, "joker_points": -5}),
    "five-crowns": (["Ann", "Bob", "Cid"], {"round_order": "down", "decks": 6, "tie_break": "play_off"}),
    "xix": (["Ann", "Bob"], {"rules": "2.0"}),
    "sixty-nine": (["Ann", "Bob", "Cid"], {"single_winner": True, "target": 25}),
}
MAX_MOVES = 3000
SERVICE_ONLY = {"id", "game", "players", "options", "version", "etag", "group", "rematch", "rematch_of"}  # the game row's fields beside the state


def test_every_game_with_house_rules_is_here():
    assert set(HOUSE_RULES) == set(ENGINES)


@pytest.mark.parametrize("name", list(HOUSE_RULES))
def test_a_whole_game_with_every_house_rule_over_http(api, name):
    engine = ENGINES[name]
    player = importlib.import_module(f"players.{engine.__name__.rsplit('.', 1)[-1]}").random_move
    players, options = HOUSE_RULES[name]
    game = api.create(name, players, options)
    for option, value in options.items():
        assert game["options"][option] == value
    if name == "ninety-nine":
        assert game["hand_sizes"] == {p: 4 for p in players}            # N99-9
    shadow = engine.new_game(list(players), dict(options))
    rng = random.Random(7)
    for _ in range(MAX_MOVES):
        body = api.state(game)
        if body["status"] == "finished":
            break
        move = player(shadow, body["allowed"], rng)
        body = api.move(game, move)
        shadow = engine.apply(shadow, move)
        expected = public_state(engine, shadow)
        assert {k: v for k, v in body.items() if k not in SERVICE_ONLY} == expected
    else:
        raise AssertionError(f"{name}: no end after {MAX_MOVES} moves")
    assert body["outcome"]["status"] == "finished" and body["winners"]
    assert set(body["allowed"]) <= {"adjust", "correct_round"}  # after the end, the table's own moves only (T-1, T-2)
    cited = {e["rule"] for e in body["events"]} | {body["outcome"]["rule"]}
    assert cited <= set(engine.RULINGS)
    assert HOUSE_RULE_SEEN[name](body), f"{name}: the house rules left no trace"


HOUSE_RULE_SEEN = {  # what each game's house rules changed, read off the finished game
    "ninety-nine": lambda body: body["outcome"]["rule"] == "N99-6",
    "nines": lambda body: len(body["rounds"]) == 2 and body["outcome"]["rule"] == "N9-9",
    "five-crowns": lambda body: (body["rounds"][0]["cards_dealt"], body["rounds"][0]["wild"]) == (13, "K")
    and body["decks"] == 6,
    "xix": lambda body: all(r["stakes"] in (3, 5, 8) for r in body["rounds"]),
    "sixty-nine": lambda body: body["outcome"]["rule"] == "S69-13",
}
