"""G-5 over every game: "What no one at the table can see stays unseen. A card recorded face down
... is never shown by the service, in a state, a log, a past table or an error message, until the
table records it face up."

Random whole games (the random players of ``tests/rules/players``) are played through. At every
move whose declaration names ``private`` fields (a card put face down):

- the logged move as the table sees it (``public_move``) leaves those fields out and lists them in
  ``hidden``, and the text of the move never depends on them;
- the same move with other private values (another card, or none named) gives the very same public
  state, and so does every later version of the table replayed from there with the same later moves
  (a past table viewed at any version): nothing public depends on what was recorded face down;
- no earlier version of the table (a past table) differs either: the public states before the move
  are those of the game as played.

An engine with no private fields passes by showing every logged move whole (nothing hidden)."""
from __future__ import annotations

import copy
import json

import pytest

from referee.errors import RuleError
from referee.rules import ENGINES
from referee.rules.base import public_move, public_state
from referee.rules.fields import Card, Cards
from test_engine_contract import play_random_game

SEEDS = range(8)


def private_names(engine, move: dict) -> tuple[str, ...]:
    spec = engine.moves[move["type"]]
    return tuple(spec.private(move)) if spec.private else ()


def value_pool(engine, games) -> dict[str, list]:
    """Every value a card field took in the games played: the other values a private field may take."""
    pool: dict[str, set] = {}
    for _, moves in games:
        for move in moves:
            for spec in engine.moves[move["type"]].fields:
                if isinstance(spec, (Card, Cards)) and spec.name in move:
                    pool.setdefault(spec.name, set()).add(json.dumps(move[spec.name], sort_keys=True))
    return {name: [json.loads(v) for v in sorted(values)] for name, values in pool.items()}


def variants(engine, move: dict, pool: dict) -> list[dict]:
    """The same move with each private field given another value, set to null or left out."""
    spec = engine.moves[move["type"]]
    fields = {f.name: f for f in spec.fields}
    found = []
    for name in private_names(engine, move):
        field = fields[name]
        others = [v for v in pool.get(name, []) + pool.get("card", []) if v != move.get(name)]
        if field.nullable and move.get(name) is not None:
            others.append(None)
        for value in others[:24]:
            found.append({**move, name: value})
        if not field.required and name in move:
            found.append({k: v for k, v in move.items() if k != name})
    return found


def without_hidden(move: dict) -> dict:
    return {k: v for k, v in move.items() if k != "hidden"}


def text_of(engine, move: dict) -> str:
    return engine.moves[move["type"]].text(move)


def same_table_after(engine, state: dict, move: dict, other: dict, later: list[dict]) -> int:
    """Applies ``move`` and ``other`` to ``state`` and the ``later`` moves to both: the public states
    must agree at every version both accept. Returns how many versions were compared."""
    try:
        twin = engine.apply(copy.deepcopy(state), other)
    except RuleError:
        return 0                     # that card could not be there: not a twin of this game
    real = engine.apply(state, move)
    compared = 1
    assert public_state(engine, twin) == public_state(engine, real), (engine.name, move, other)
    for step in later:
        try:
            twin = engine.apply(twin, step)
        except RuleError:
            break                    # the twin's card shows up where the real one could not: stop here
        real = engine.apply(real, step)
        compared += 1
        assert public_state(engine, twin) == public_state(engine, real), (engine.name, move, other, step)
    return compared


@pytest.mark.parametrize("engine", list(ENGINES.values()), ids=list(ENGINES))
def test_g5_private_values_never_reach_a_public_view(engine):
    games = []
    for seed in SEEDS:
        states, moves, _ = play_random_game(engine, seed)
        games.append((states, moves))
    pool = value_pool(engine, games)
    declares = any(spec.private for spec in engine.moves.values())
    private_moves = compared = 0
    for states, moves in games:
        views = [public_state(engine, s) for s in states]
        for index, move in enumerate(moves):
            names = [n for n in private_names(engine, move) if n in move]
            shown = public_move(engine, move)
            if not names:
                assert shown == move and "hidden" not in shown, (engine.name, move)
                continue
            private_moves += 1
            # the log: the private fields are left out and listed as hidden; JSON keeps it so
            assert not set(names) & set(shown) and shown["hidden"] == names, (engine.name, shown)
            assert {k: v for k, v in shown.items() if k != "hidden"} == {k: v for k, v in move.items()
                                                                          if k not in names}
            assert json.loads(json.dumps(shown)) == shown
            # a past table before the move is the table as it was: the move cannot reach back
            assert all(public_state(engine, states[v]) == views[v] for v in range(index + 1))
            for other in variants(engine, move, pool):
                # the log and its text read the same whatever was recorded face down
                assert without_hidden(public_move(engine, other)) == without_hidden(shown), (other, shown)
                assert text_of(engine, other) == text_of(engine, move), (engine.name, move, other)
                compared += same_table_after(engine, states[index], move, other, moves[index + 1:])
    if declares:
        assert private_moves, f"{engine.name}: no move with private fields in {len(SEEDS)} random games"
        assert compared, f"{engine.name}: no other private value was ever possible to compare"
