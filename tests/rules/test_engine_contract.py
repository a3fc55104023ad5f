"""The engine contract, checked over every registered engine (the service's own, the games the tests
register from tests/contract, and the sixth game, tests/contract/high_card.py): the declarations
are there, the core loads the standard library only, ``apply`` never mutates its input, views
survive JSON, a replay of the log gives the same state, every ruling cited exists, and ``allowed``
agrees with ``apply`` in random whole games, each played by the engine's own random player
(tests/rules/players) or, for an engine without one, by the generic player."""
from __future__ import annotations

import copy
import dataclasses
import inspect
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from referee.errors import IllegalMove, RuleError
from referee.rules import ENGINES
from referee.rules.base import Game, Judge, Move, public_state
from referee.rules.fields import Field
from engine_checks import invalid_option_values
from players import player_for, samples_for, table_for

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "contract"))
import high_card  # noqa: E402  (the sixth game: written against the contract alone, no player of its own)

GAMES = 12
MAX_MOVES = 6000
ENGINE_LIST = [*ENGINES.values(), *([high_card.GAME] if high_card.GAME.name not in ENGINES else [])]
IDS = [engine.name for engine in ENGINE_LIST]


def test_the_registry_is_keyed_by_each_engines_own_name():
    assert list(ENGINES) == [engine.name for engine in ENGINES.values()]


def test_production_serves_its_own_engines_and_the_games_of_the_tests_live_in_the_tests_only():
    code = "from referee.rules import ENGINES\nprint(','.join(f'{n}={e.module}' for n, e in ENGINES.items()))"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    served = dict(entry.split("=") for entry in found.split(","))
    assert all(module.startswith("referee.rules.") for module in served.values()), served
    assert served == {name: e.module for name, e in ENGINES.items() if e.module.startswith("referee.")}


def test_the_core_loads_the_standard_library_only():
    code = ("import sys, referee.rules, referee.cards, referee.errors\n"
            "from referee.rules import ENGINES\n"
            "outside = sorted({m.split('.')[0] for m in sys.modules} - set(sys.stdlib_module_names) - {'referee'})\n"
            "print(','.join(m for m in outside if not m.startswith('_')))")
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert found == "", f"the rules core imports {found}"


@pytest.mark.parametrize("engine", ENGINE_LIST, ids=IDS)
def test_the_declarations_are_complete(engine):
    assert set(samples_for(engine)) == set(engine.moves), "the random player's samples name every move"
    assert isinstance(engine, Game) and engine.name and engine.title
    assert engine.moves and all(isinstance(m, Move) for m in engine.moves.values())
    for kind, move in engine.moves.items():
        assert move.description and move.rules, kind
        assert all(isinstance(f, Field) for f in move.fields)
        assert move.actor is None or move.actor in move.field_names()
        for rule in move.rules:
            assert rule in engine.rulings, f"{engine.name} {kind} cites {rule}, which it does not rule"
    for phase, kinds in engine.phases.items():
        assert set(kinds) <= set(engine.moves), phase
    # the switch between recording modes (T-4) is taken in every phase until the end, by the contract
    assert set().union(*engine.phases.values()) == set(engine.moves) - {"switch_record"}, "a move no phase accepts"
    if "record" in engine.options:
        assert engine.whole_round in engine.moves and "switch_record" in engine.moves, "T-4 needs both moves"


# Each hook of the contract and the arguments it is called with (``referee.rules.base``).
HOOKS = {"new_game": 1, "public_view": 1, "standings": 1, "outcome": 1, "actors": 2, "choices": 2, "facts": 2,
         "refuse_phase": 2, "refuse_actor": 3}


def takes(fn, count: int) -> bool:
    """Whether ``fn`` may be called with ``count`` positional arguments."""
    try:
        inspect.signature(fn).bind(*range(count))
    except TypeError:
        return False
    return True


@pytest.mark.parametrize("engine", ENGINE_LIST, ids=IDS)
def test_every_part_is_of_its_declared_kind_and_every_hook_takes_its_arguments(engine):
    low, high = engine.players
    assert 1 <= low <= high and engine.module in sys.modules
    assert all(isinstance(judge, Judge) for judge in engine.judges.values())
    assert engine.round_label in ("round", "exchange", "hand") and isinstance(engine.lower_is_better, bool)
    if engine.first_deal is not None:
        assert engine.first_deal[0] in engine.options, "the first deal is named by an option (G-2)"
    for hook, count in HOOKS.items():
        fn = getattr(engine, hook)
        if fn is None and hook.startswith("refuse_"):
            continue  # the contract's own refusal
        assert callable(fn) and takes(fn, count), f"{engine.name}.{hook} cannot take {count} argument(s)"
        assert not takes(fn, count + 1) or hook == "new_game", f"{engine.name}.{hook} takes more than {count}"
    assert takes(engine.new_game, 2), "new_game(players, options)"


def test_a_misspelt_or_missing_part_fails_where_the_game_is_built():
    parts = {field.name: getattr(high_card.GAME, field.name) for field in dataclasses.fields(Game)}
    assert Game(**parts).name == "high-card"
    with pytest.raises(TypeError, match="refuse_phse"):
        Game(**parts, refuse_phse=lambda state, kind: None)
    with pytest.raises(TypeError, match="outcome"):
        Game(**{name: value for name, value in parts.items() if name != "outcome"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        high_card.GAME.name = "low-card"  # a registered game does not change


@pytest.mark.parametrize("engine", list(ENGINES.values()), ids=list(ENGINES))
def test_every_option_declares_the_ruling_its_refusals_cite(engine):
    # G-3: a refused option value names the ruling that states the option
    for name, info in engine.options.items():
        assert info.get("rule") in engine.rulings, f"{engine.name} option {name} cites no ruling it lists"


@pytest.mark.parametrize("engine", list(ENGINES.values()), ids=list(ENGINES))
def test_an_invalid_option_value_is_refused_citing_the_options_ruling(engine):
    players = table_for(engine)
    if not engine.options:
        pytest.skip(f"{engine.name} has no options")
    tried = 0
    for name, info in engine.options.items():
        for value in invalid_option_values(info):
            options = {name: value}
            before = copy.deepcopy(options)
            with pytest.raises(RuleError) as info_:
                engine.new_game(list(players), options)
            assert info_.value.rule == info["rule"], (engine.name, name, value, info_.value.detail)
            assert info["rule"] in info_.value.detail, (name, value)
            assert options == before
            tried += 1
    assert tried


def _cited(state: dict, error: RuleError | None = None) -> set[str]:
    rules = {e["rule"] for e in state.get("events") or [] if e.get("rule")}
    for round_ in state.get("rounds") or []:
        for notes in (round_.get("breakdown") or {}).values():
            rules |= {n["rule"] for n in notes if isinstance(n, dict) and n.get("rule")}
    if error is not None and error.rule:
        rules.add(error.rule)
    return rules


def _not_allowed_refused(engine, state: dict, allowed: dict, rng: random.Random, cited: set) -> None:
    """A move of each type that ``allowed`` does not list is refused with a ruling id."""
    snapshot = json.dumps(state, sort_keys=True)
    for kind, sample in samples_for(engine).items():
        if kind in allowed:
            continue
        body = dict(sample)
        actor = engine.moves[kind].actor
        if actor:
            body[actor] = rng.choice(state["players"])
        with pytest.raises(IllegalMove) as info:
            engine.apply(state, body)
        assert info.value.rule, f"{engine.name}: a {kind} move refused without a ruling"
        cited.add(info.value.rule)
    assert json.dumps(state, sort_keys=True) == snapshot


def play_random_game(engine, seed: int):
    """Plays one random game: returns the states and the moves, checking the contract at each step."""
    rng = random.Random(seed)
    player = player_for(engine)
    state = engine.new_game(table_for(engine), {})
    states, moves, cited = [state], [], set()
    for _ in range(MAX_MOVES):
        allowed = engine.allowed(state)
        view = public_state(engine, state)
        assert json.loads(json.dumps(view)) == view
        assert view["allowed"] == allowed
        assert view["phase"] == state["phase"] and "round" in view and isinstance(view["events"], list)
        outcome = view["outcome"]
        assert set(outcome) == {"status", "winners", "reason", "rule"}
        if outcome["status"] == "finished":
            # after the end only the table's own moves (T-1, T-2) are allowed
            assert all(engine.moves[kind].table_rule for kind in allowed), allowed
            assert outcome["winners"] and outcome["rule"] in engine.rulings
            break
        assert allowed, f"{engine.name}: nothing is allowed in phase {state['phase']} of a game in progress"
        if rng.random() < 0.1:
            _not_allowed_refused(engine, state, allowed, rng, cited)
        move = player(state, allowed, rng)
        assert move["type"] in allowed
        actor = engine.moves[move["type"]].actor
        if actor and allowed[move["type"]]["players"] is not None and move.get(actor) is not None:
            assert move[actor] in allowed[move["type"]]["players"]
        before = copy.deepcopy(state)
        try:
            new = engine.apply(state, move)
        except RuleError as error:  # pragma: no cover - the message says what went wrong
            raise AssertionError(f"{engine.name} seed {seed}: {move} drawn from {allowed} was refused: "
                                 f"{error.rule} {error.detail}") from None
        assert state == before, f"{engine.name}: apply changed the state it was given"
        cited |= _cited(new)
        state = new
        states.append(state)
        moves.append(move)
    else:
        raise AssertionError(f"{engine.name} seed {seed}: no end after {MAX_MOVES} moves")
    return states, moves, cited


@pytest.mark.parametrize("engine", ENGINE_LIST, ids=IDS)
def test_random_whole_games_keep_the_contract(engine):
    cited = set()
    for seed in range(GAMES):
        states, moves, rules = play_random_game(engine, seed)
        cited |= rules
        # Replaying the log gives the same state; so does a state that went through JSON.
        replayed = engine.new_game(table_for(engine), {})
        for move in moves:
            replayed = engine.apply(json.loads(json.dumps(replayed)), move)
        assert json.dumps(replayed, sort_keys=True) == json.dumps(states[-1], sort_keys=True)
    unknown = cited - set(engine.rulings)
    assert not unknown, f"{engine.name} cites rulings it does not list: {sorted(unknown)}"


@pytest.mark.parametrize("engine", ENGINE_LIST, ids=IDS)
def test_an_unknown_type_and_a_malformed_move_change_nothing(engine):
    state = engine.new_game(table_for(engine), {})
    before = copy.deepcopy(state)
    for move in ({"type": "no-such-move"}, {"type": 7}, [], "play", {}):
        with pytest.raises(RuleError):
            engine.apply(state, move)
    assert state == before
