"""Random players: one per engine, each building a legal move from a state and its allowed moves.

Every one of them now and then makes the table's own moves too (T-1, T-2): ``adjustment`` here,
and a ``correct_round`` of a round entered whole; and now and then, between rounds, it switches how
the table records (T-4, ``switch``) and then enters whole rounds.

The tests that cover every registered engine ask here for what they need of one, found by the
engine's module name (``referee.rules.nines`` plays with ``players/nines.py``): ``player_for``
(its ``random_move``), ``samples_for`` (its ``SAMPLES``, a well-formed move of every type),
``table_for`` (seats it takes), ``quick_options`` (a short game) and ``house_rules`` (every house
rule it declares at a value other than its default). An engine that lives in the tests
(``tests/contract/``) may carry its ``random_move``, ``SAMPLES`` and ``QUICK`` in its own module;
an engine with none of these is played by ``generic_move``, which reads ``allowed`` and the moves'
declarations alone."""
from __future__ import annotations

import importlib
import importlib.util
import random
import sys
from functools import lru_cache
from typing import Any, Callable

from referee.cards import (FIVE_CROWNS_RANKS, FIVE_CROWNS_SUITS, JOKER, SIXTY_NINE_SPECIALS, SIXTY_NINE_SUITS,
                           STANDARD_RANKS, STANDARD_SUITS)
from referee.errors import RuleError
from referee.rules.fields import Card, Cards, Choice, Field, Flag, Int, Player, Shaped, Text

ADJUST = {"type": "adjust", "player": "Ann", "points": 2, "reason": "A forgotten bonus"}  # a well-formed sample
SWITCH = {"type": "switch_record", "record": "rounds"}
SEATS = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jon", "Kim", "Lou", "Max", "Ned", "Oli",
         "Pam", "Quin", "Rex", "Sue", "Tom", "Uma")
# Options that keep a game of the five short (each engine's own QUICK wins over this).
QUICK = {"ninety-nine": {"tokens": 2}, "nines": {"hands": 2}, "sixty-nine": {"target": 12}}
TABLE_MOVES = ("adjust", "correct_round", "switch_record")  # the table's own (T-1, T-2, T-4)


def switch(allowed: dict, rng: random.Random, chance: float = 0.05) -> dict | None:
    """Now and then, between rounds, the table changes how it records (T-4)."""
    entry = allowed.get("switch_record")
    if entry is None or rng.random() >= chance:
        return None
    return {"type": "switch_record", "record": entry["choices"]["record"][0]}


def adjustment(allowed: dict, totals: dict, rng: random.Random, chance: float = 0.01) -> dict | None:
    """Now and then a small adjustment (T-2) of a player ``allowed`` offers, never taking a total
    below 0 (where the game counts upward, that is refused)."""
    entry = allowed.get("adjust")
    if entry is None or rng.random() >= chance:
        return None
    player = rng.choice(entry["choices"]["player"])
    points = rng.choice([-2, -1, 1, 2, 3])
    if totals[player] + points < 0:
        points = -points
    return {"type": "adjust", "player": player, "points": points, "reason": f"random {points:+d}"}


# ---------------------------------------------------------------- what the tests ask of an engine

def own_module(engine):
    """The module that holds the engine's own random player: ``players/<module>.py``, else the
    engine's module itself when it carries one (a game of the tests), else None."""
    name = engine.module.rsplit(".", 1)[-1]
    if importlib.util.find_spec(f"players.{name}") is not None:
        return importlib.import_module(f"players.{name}")
    module = sys.modules[engine.module]
    return module if hasattr(module, "random_move") and hasattr(module, "SAMPLES") else None


def player_for(engine) -> Callable[[dict, dict, random.Random], dict]:
    """``move(state, allowed, rng)``: the engine's own random player, or the generic one."""
    module = own_module(engine)
    if module is not None:
        return module.random_move
    return lambda state, allowed, rng: generic_move(engine, state, allowed, rng)


def samples_for(engine) -> dict:
    """A well-formed move of every type (whether the table may make it now is another matter)."""
    module = own_module(engine)
    if module is not None:
        return module.SAMPLES
    return {kind: declared_sample(kind, move) for kind, move in engine.moves.items()}


def table_for(engine, size: int = 3) -> list[str]:
    """Seats for a table of ``size`` players, or as near as the engine takes (XIX: two)."""
    low, high = engine.players
    return list(SEATS[:max(low, min(size, high))])


def quick_options(engine) -> dict:
    """Options that keep a random game short: the engine's own ``QUICK``, else this package's."""
    module = own_module(engine)
    return dict(getattr(module, "QUICK", None) or QUICK.get(engine.name) or {})


def house_rules(engine) -> dict:
    """Every house rule the engine declares, at a value other than its default: the options whose
    ruling says it is a house rule (``"House rule: ..."``), each at the last value its schema
    lists (an enum; a flag the other way), or one above its default (a number; one above its
    minimum where the default depends on the table)."""
    chosen = {}
    for name, info in engine.options.items():
        if not str(engine.rulings.get(info.get("rule"), "")).startswith("House rule"):
            continue
        value = house_value(info)
        if value is not None:
            chosen[name] = value
    return chosen


def house_value(info: dict) -> Any:
    schema, default = info.get("schema") or {}, info.get("default")
    if schema.get("enum"):
        return [value for value in schema["enum"] if value != default][-1]
    if schema.get("type") == "boolean":
        return not default
    if schema.get("type") == "integer":
        value = default + 1 if default is not None else (schema.get("minimum") or 0) + 1
        return value if schema.get("maximum") is None or value <= schema["maximum"] else default - 1
    return None


# ---------------------------------------------------------------- the generic player

# Every card code of every deck the service knows: a field's own reader says which are its game's.
_CODES = tuple(dict.fromkeys(
    [r + s for s in STANDARD_SUITS for r in STANDARD_RANKS] + [r + s for s in FIVE_CROWNS_SUITS for r in FIVE_CROWNS_RANKS]
    + [JOKER] + [d + s for s in SIXTY_NINE_SUITS for d in "0123456789"] + list(SIXTY_NINE_SPECIALS)))


def deck_of(spec: Card | Cards) -> tuple:
    """The cards a card field takes: the codes (or XIX's numbers) its reader accepts, canonical."""
    return _deck(spec.read, getattr(spec, "numbers", False))


@lru_cache(maxsize=None)
def _deck(read: Callable[[Any], Any], numbers: bool) -> tuple:
    candidates = range(1, 100) if numbers else _CODES
    found = []
    for code in candidates:
        try:
            found.append(read(code))
        except RuleError:
            continue
    return tuple(dict.fromkeys(found))


def declared_value(spec: Field, players: list[str], rng: random.Random | None = None) -> Any:
    """A value of the field's declared type: drawn at random with ``rng``, else its example."""
    if isinstance(spec, Player):
        return rng.choice(players) if rng else players[0]
    if isinstance(spec, Card):
        return rng.choice(deck_of(spec)) if rng else (spec.example or deck_of(spec)[0])
    if isinstance(spec, Cards):
        if rng:
            return rng.sample(deck_of(spec), rng.randint(1, min(len(players), spec.max_items, len(deck_of(spec)))))
        return list(spec.example or deck_of(spec)[:1])
    if isinstance(spec, Int):
        low = spec.lo if spec.lo is not None else 0
        high = spec.hi if spec.hi is not None else low + 10
        return rng.randint(low, min(high, low + 20)) if rng else low
    if isinstance(spec, Choice):
        return rng.choice(spec.choices) if rng else spec.choices[0]
    if isinstance(spec, Flag):
        return rng.random() < 0.5 if rng else False
    if isinstance(spec, Text):
        return "a reason"
    if isinstance(spec, Shaped):
        return (spec.shape or {}).get("example")
    return None


def declared_sample(kind: str, move) -> dict:
    """A well-formed move of type ``kind`` from its declaration (the table's own moves: theirs)."""
    if kind == "adjust":
        return dict(ADJUST)
    if kind == "switch_record":
        return dict(SWITCH)
    sample = {"type": kind}
    for spec in move.fields:
        if spec.required:
            sample[spec.name] = declared_value(spec, list(SEATS[:3]))
    return sample


def generic_move(engine, state: dict, allowed: dict, rng: random.Random, tries: int = 200) -> dict:
    """A move drawn from ``allowed`` alone: a type it lists (the table's own now and then), the
    player it names, each field from its choices or else a value of the field's declared type,
    drawn again until the engine takes it (a game whose legal moves are too rare to draw this way
    needs a random player of its own)."""
    table = adjustment(allowed, engine.standings(state), rng) or switch(allowed, rng)
    if table:
        return table
    kinds = [kind for kind in allowed if kind not in TABLE_MOVES] or list(allowed)
    for _ in range(tries):
        kind = rng.choice(kinds)
        entry, spec = allowed[kind], engine.moves[kind]
        choices = entry.get("choices") or {}
        move: dict[str, Any] = {"type": kind}
        for field in spec.fields:
            if field.name == spec.actor and entry.get("players"):
                move[field.name] = rng.choice(entry["players"])
            elif field.name in choices:
                move[field.name] = rng.choice(choices[field.name])
            elif field.required:
                move[field.name] = declared_value(field, list(state["players"]), rng)
        try:
            engine.apply(state, move)
        except RuleError:
            continue
        return move
    raise AssertionError(f"{engine.name}: no legal move drawn from {allowed} in {tries} tries: give the game a random "
                         "player of its own (tests/rules/players)")
