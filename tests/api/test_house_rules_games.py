"""A whole game of each registered game over HTTP with every house rule it declares at a value other
than its default (the options whose ruling says "House rule": N99-9, N9-9, FC-8, X19-8, S69-13...,
chosen by tests/rules/players ``house_rules``). Each move is drawn by the game's random player from
the moves the service says are allowed, and the service's answer must equal the engine's own public
state after the same move: the service and the rules agree to the end of the game. The house rules
must leave a trace: the same moves under the default options are refused somewhere or end in
another table."""
from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from referee.errors import RuleError
from referee.rules import ENGINES
from referee.rules.base import public_state

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rules"))
from players import house_rules, player_for, quick_options, table_for  # noqa: E402

MAX_MOVES = 3000
SEEDS = (7, 8, 9)  # a game whose house rules happened not to matter is played again, up to three times
SERVICE_ONLY = {"id", "game", "players", "options", "version", "etag", "group", "rematch", "rematch_of"}  # the game row's fields beside the state


def play_over_http(api, engine, players: list[str], options: dict, seed: int) -> tuple[dict, list[dict]]:
    """The game played to its end over HTTP, checked against the engine move by move: the last
    answer and the moves."""
    player = player_for(engine)
    game = api.create(engine.name, players, options)
    for option, value in options.items():
        assert game["options"][option] == value
    shadow = engine.new_game(list(players), dict(options))
    rng = random.Random(seed)
    moves = []
    for _ in range(MAX_MOVES):
        body = api.state(game)
        if body["status"] == "finished":
            return body, moves
        move = player(shadow, body["allowed"], rng)
        body = api.move(game, move)
        shadow = engine.apply(shadow, move)
        moves.append(move)
        assert {k: v for k, v in body.items() if k not in SERVICE_ONLY} == public_state(engine, shadow)
    raise AssertionError(f"{engine.name}: no end after {MAX_MOVES} moves")


def left_a_trace(engine, players: list[str], options: dict, house: dict, moves: list[dict], final: dict) -> bool:
    """Whether the same moves under the default of every house rule are refused somewhere or end in
    another table than ``final``."""
    state = engine.new_game(list(players), {k: v for k, v in options.items() if k not in house})
    try:
        for move in moves:
            state = engine.apply(state, move)
    except RuleError:
        return True
    return public_state(engine, state) != {k: v for k, v in final.items() if k not in SERVICE_ONLY}


@pytest.mark.parametrize("name", list(ENGINES))
def test_a_whole_game_with_every_house_rule_over_http(api, name):
    engine = ENGINES[name]
    house = house_rules(engine)
    if not house:
        pytest.skip(f"{name} declares no house rule")
    players, options = table_for(engine), {**quick_options(engine), **house}
    if name == "ninety-nine":
        assert api.create(name, players, options)["hand_sizes"] == {p: options["hand_size"] for p in players}  # N99-9
    for seed in SEEDS:
        body, moves = play_over_http(api, engine, players, options, seed)
        assert body["outcome"]["status"] == "finished" and body["winners"]
        assert set(body["allowed"]) <= {"adjust", "correct_round"}  # after the end, the table's own moves only (T-1, T-2)
        cited = {e["rule"] for e in body["events"]} | {body["outcome"]["rule"]}
        assert cited <= set(engine.rulings)
        if left_a_trace(engine, players, options, house, moves, body):
            return
    raise AssertionError(f"{name}: the house rules {house} left no trace in {len(SEEDS)} games")


def test_the_house_rules_are_read_off_the_declarations():
    found = {name: house_rules(engine) for name, engine in ENGINES.items()}
    assert found["ninety-nine"] == {"hand_size": 4} and found["xix"] == {"rules": "2.0"}
    assert found["nines"] == {"hands": 2, "joker_points": -5} and found["sixty-nine"] == {"single_winner": True}
    assert found["five-crowns"] == {"decks": 6, "round_order": "down"}
