"""One dialect for API clients (issue 34): every refusal's ``legal`` has one shape in every game, and
``allowed[move]["choices"]`` is keyed by the move's own field names only.

``legal`` is None or an object. Its keys name fields of what was refused (the move, the verdict
request, the game's options), or are ``type`` for the move types that would be taken instead. Each
value says what that field may hold instead: a list of the values allowed; for a number in a range,
``{"minimum": lo, "maximum": hi}`` (either bound may be left out); for a field that maps names to
values (tokens lost, strikes, points per player), an object with those names as keys and one of
these forms under each (an entry that is itself an object, such as 69's per-player round, again by
its own field names).

Checked in random whole games (the contract's random players): every allowed entry, every move that
``allowed`` does not list, a player it does not name, and moves the random player would make with
one field spoiled; and over every option and every verdict route with values they do not take."""
from __future__ import annotations

import json
import random

import pytest

from referee.errors import RuleError
from referee.rules import ENGINES
from referee.rules.fields import Shaped
from engine_checks import invalid_option_values
from players import player_for, samples_for, table_for
from test_engine_contract import GAMES, play_random_game

ENGINE_LIST = list(ENGINES.values())
IDS = list(ENGINES)
BOUNDS = {"minimum", "maximum"}
ENTRY = {"players", "choices", "facts"}
SEEDS = range(GAMES // 3)


# ---------------------------------------------------------------- the shape itself

def value_problems(value, where: str, mapping_ok: bool) -> list[str]:
    """What is wrong with what ``legal`` says a field may hold (``mapping_ok``: the field is an
    object, so an object keyed by its own keys is its form)."""
    if isinstance(value, list):
        return []
    if isinstance(value, dict) and value and set(value) <= BOUNDS:
        problems = [f"{where}.{bound}: {number!r} is no number" for bound, number in value.items()
                    if type(number) not in (int, float)]
        if not problems and len(value) == 2 and value["minimum"] > value["maximum"]:
            problems.append(f"{where}: an empty range {value}")
        return problems
    if isinstance(value, dict) and value and mapping_ok:
        return [problem for key, inner in value.items()
                for problem in value_problems(inner, f"{where}.{key}", mapping_ok=True)]
    return [f"{where}: {value!r} is neither a list of values, a range nor an object of them"]


def legal_problems(legal, fields: dict[str, bool], types: set[str] | None = None) -> list[str]:
    """What is wrong with a refusal's ``legal``: ``fields`` maps the names it may use to whether that
    field is an object; ``types``, the move types allowed now (for ``type``), when a move was refused."""
    if legal is None:
        return []
    if not isinstance(legal, dict) or not legal:
        return [f"legal {legal!r} is not an object"]
    if json.loads(json.dumps(legal)) != legal:
        return [f"legal {legal!r} does not survive JSON"]
    problems = []
    for key, value in legal.items():
        if key == "type" and types is not None:
            if not isinstance(value, list) or not set(value) <= types:
                problems.append(f"legal.type {value!r}: not move types allowed now ({sorted(types)})")
        elif key not in fields:
            problems.append(f"legal.{key}: no field of what was refused ({sorted(fields)})")
        else:
            problems += value_problems(value, f"legal.{key}", mapping_ok=fields[key])
    return problems


def move_fields(engine, kind: str) -> dict[str, bool]:
    return {spec.name: isinstance(spec, Shaped) and (spec.shape or {}).get("type") == "object"
            for spec in engine.moves[kind].fields}


def test_the_shape_checker_tells_the_old_shapes_from_the_one():
    fields = {"player": False, "points": False, "lost": True, "card": False}
    for good in (None, {"player": ["Ann"]}, {"points": {"minimum": -3, "maximum": 1000}}, {"points": {"minimum": 0}},
                 {"lost": {"Ann": {"minimum": 0, "maximum": 9}, "Bob": [0]}}, {"card": []}):
        assert not legal_problems(good, fields), good
    for old in (["Ann"], "Ann", {"to_play": "Ann"}, {"source": "discard"}, {"type": "draw"}, {"open": [3, 7]},
                {"card": {"Ann": [1]}}, {"points": {"minimum": 5, "maximum": 1}}, {}):
        assert legal_problems(old, {**fields, "source": False, "type": False}, types={"draw"}), old


# ---------------------------------------------------------------- allowed: choices by field names, facts apart

def entry_problems(engine, kind: str, entry: dict) -> list[str]:
    problems = [f"{kind}: unknown member(s) {sorted(set(entry) - ENTRY)}"] if set(entry) - ENTRY else []
    names = engine.moves[kind].field_names()
    for name, values in (entry.get("choices") or {}).items():
        if name not in names:
            problems.append(f"{kind}: choices.{name} is no field of the move ({names}): a fact?")
        elif not isinstance(values, list):
            problems.append(f"{kind}: choices.{name} is {values!r}, not the list of its values")
    if "choices" in entry and not entry["choices"]:
        problems.append(f"{kind}: empty choices (left out when empty)")
    if "facts" in entry and (not isinstance(entry["facts"], dict) or not entry["facts"]):
        problems.append(f"{kind}: facts {entry['facts']!r} is not a non-empty object")
    return problems


@pytest.mark.parametrize("engine", ENGINE_LIST, ids=IDS)
def test_allowed_keys_choices_by_the_moves_own_field_names(engine):
    checked = 0
    for seed in SEEDS:
        states, _moves, _cited = play_random_game(engine, seed)
        for state in states:
            for kind, entry in engine.allowed(state).items():
                assert not entry_problems(engine, kind, entry), (engine.name, seed, entry_problems(engine, kind, entry))
                checked += 1
    assert checked


# ---------------------------------------------------------------- refused moves

def _spoiled(engine, state: dict, move: dict, rng: random.Random) -> list[dict]:
    """``move`` with one field spoiled, a few ways: values of the wrong type, out of any range,
    another player's name, another sample's value for the same field, a per-player object with a
    player left out or an impossible count."""
    others = [sample for sample in samples_for(engine).values()]
    spoiled = []
    for name in [key for key in move if key != "type"]:
        value = move[name]
        tries = [None, -1, 10 ** 6, "?", [], {}, True, *state["players"],
                 *[sample[name] for sample in others if name in sample]]
        if isinstance(value, dict):
            keys = list(value)
            tries += [{**value, key: bad} for key in keys[:2] for bad in (-1, 99, "?", {"points": -1}, {"hand": 11})]
            tries += [{key: value[key] for key in keys[1:]}, {**value, "Nobody": 1}]
        if isinstance(value, list) and value:
            tries += [value[:-1], value + value[-1:]]
        spoiled += [{**move, name: bad} for bad in rng.sample(tries, min(4, len(tries)))]
    return spoiled


def _refusals(engine, state: dict, allowed: dict, rng: random.Random):
    """The refusals of moves ``allowed`` does not list, of a player it does not name, and of spoiled
    moves: ``(kind, error)`` for each."""
    moves = []
    for kind, sample in samples_for(engine).items():
        actor = engine.moves[kind].actor
        body = dict(sample)
        if kind not in allowed:
            if actor:
                body[actor] = rng.choice(state["players"])
            moves.append(body)
        elif actor and allowed[kind]["players"] is not None:
            outside = [p for p in state["players"] if p not in allowed[kind]["players"]]
            if outside:
                moves.append({**body, actor: rng.choice(outside)})
    if engine.outcome(state)["status"] != "finished":
        move = player_for(engine)(state, allowed, rng)
        moves += _spoiled(engine, state, move, rng)
    for move in moves:
        try:
            engine.apply(state, move)
        except RuleError as error:
            yield move, error


@pytest.mark.parametrize("engine", ENGINE_LIST, ids=IDS)
def test_every_refused_move_says_what_is_legal_in_the_one_shape(engine):
    rng = random.Random(34)
    seen: dict[str, int] = {}
    for seed in SEEDS:
        states, _moves, _cited = play_random_game(engine, seed)
        for state in states:
            if rng.random() > 0.15:
                continue
            allowed = engine.allowed(state)
            snapshot = json.dumps(state, sort_keys=True)
            for move, error in _refusals(engine, state, allowed, rng):
                kind = move["type"]
                problems = legal_problems(error.legal, move_fields(engine, kind), types=set(allowed))
                assert not problems, (engine.name, seed, move, error.rule, str(error.detail), error.legal, problems)
                actor = engine.moves[kind].actor
                if error.legal and actor in error.legal and (allowed.get(kind) or {}).get("players") is not None:
                    assert set(error.legal[actor]) <= set(allowed[kind]["players"]), (move, error.legal, allowed)
                if error.legal:
                    for key in error.legal:
                        seen[key] = seen.get(key, 0) + 1
            assert json.dumps(state, sort_keys=True) == snapshot
    assert seen, f"{engine.name}: no refusal said what is legal"


# ---------------------------------------------------------------- refused options and verdicts

def _extreme_options(engine) -> list[dict]:
    """Options that the largest and the smallest tables may refuse: each enum value and each bound
    of a declared range (too few decks for many players, ...)."""
    found = []
    for name, info in engine.options.items():
        schema = info.get("schema") or {}
        for value in [*(schema.get("enum") or []), schema.get("minimum"), schema.get("maximum")]:
            if value is not None:
                found.append({name: value})
    return found


@pytest.mark.parametrize("engine", ENGINE_LIST, ids=IDS)
def test_refused_options_say_what_is_legal_by_option_names(engine):
    fields = {name: False for name in engine.options}
    tables = [table_for(engine), [f"P{i}" for i in range(engine.players[1])]]
    tried = said = 0
    for players in tables:
        cases = [{name: value} for name, info in engine.options.items() for value in invalid_option_values(info)]
        for options in cases + _extreme_options(engine):
            try:
                engine.new_game(list(players), options)
            except RuleError as error:
                assert not legal_problems(error.legal, fields), (options, error.legal)
                tried += 1
                said += error.legal is not None
    assert tried and said


VERDICTS = {  # a request each verdict answers, to spoil field by field (else the example its schema declares)
    ("ninety-nine", "play"): {"total": 10, "card": "5H"},
    ("nines", "grid"): {"grid": ["5H", "2C", "3C", "4C", "6C", "7C", "KS", "9D", "10S"]},
    ("five-crowns", "hand"): {"round": 1, "cards": ["3H", "4H", "5H"]},
    ("five-crowns", "meld"): {"round": 1, "cards": ["3H", "4H", "5H"]},
    ("xix", "trick"): {"lead": 3, "follow": 5},
    ("sixty-nine", "set"): {"cards": ["1A", "2B"]},
    ("sixty-nine", "score"): {"captured": [["1A", "2B", "3C"]], "hand": 2},
}
ROUTES = [(name, verdict) for name, engine in ENGINES.items() for verdict in engine.judges]


def example_request(name: str, verdict: str) -> dict | None:
    """A request the verdict answers: this module's, else the example its request schema declares."""
    return VERDICTS.get((name, verdict)) or ENGINES[name].judges[verdict].request.get("example")


REFUSED_VERDICTS = {  # requests refused by the rules, beside the spoiled ones
    ("ninety-nine", "play"): [{"total": 5, "card": "AH"}, {"total": 5, "card": "10H", "value": 3},
                              {"total": 5, "card": "5H", "value": 5}],
    ("nines", "grid"): [{"grid": ["5H"] * 9, "decks": 2}],
    ("five-crowns", "meld"): [{"round": 1, "cards": ["3H"] * 5}],
}


def _spoiled_requests(request: dict, schema: dict) -> list[dict]:
    bodies = [{k: v for k, v in request.items() if k != name} for name in request]
    for name, prop in (schema.get("properties") or {}).items():
        bad = [None, "?", 7, [], {}, True, -1, 10 ** 6]
        bad += [value for value in (prop.get("minimum"), prop.get("maximum")) if value is not None]
        bad += [prop["minimum"] - 1] if prop.get("minimum") is not None else []
        bad += [prop["maximum"] + 1] if prop.get("maximum") is not None else []
        bad += [max(prop["enum"]) + 1] if prop.get("enum") else []
        bodies += [{**request, name: value} for value in bad]
    return bodies


@pytest.mark.parametrize("route", ROUTES, ids=[f"{name}-{verdict}" for name, verdict in ROUTES])
def test_refused_verdict_requests_say_what_is_legal_by_request_fields(route):
    name, verdict = route
    judge, request = ENGINES[name].judges[verdict], example_request(*route)
    judge.fn(request)  # answered as it is
    fields = {key: prop.get("type") == "object" for key, prop in (judge.request.get("properties") or {}).items()}
    tried = said = 0
    for body in _spoiled_requests(request, judge.request) + REFUSED_VERDICTS.get(route, []):
        try:
            judge.fn(body)
        except RuleError as error:
            assert not legal_problems(error.legal, fields), (body, error.legal)
            tried += 1
            said += error.legal is not None
    assert tried


def test_every_verdict_route_is_tried():
    untried = [route for route in ROUTES if example_request(*route) is None]
    assert not untried, f"give these verdicts an example request (their request schema's 'example'): {untried}"


def test_a_verdict_refusal_says_the_values_it_takes():
    with pytest.raises(RuleError) as caught:
        ENGINES["ninety-nine"].judges["play"].fn({"total": 5, "card": "AH"})
    assert caught.value.legal == {"value": [1, 11]}
    with pytest.raises(RuleError) as caught:
        ENGINES["nines"].judges["grid"].fn({**VERDICTS[("nines", "grid")], "joker_points": 4})
    assert caught.value.legal == {"joker_points": [-3, -2, -5]}
