"""The engine interface shared by every game, and the typed errors engines raise.

An engine is a module (registered in ``referee.rules.ENGINES``) that provides:

``NAME``            the game's name in URLs (``"ninety-nine"``)
``TITLE``           its printed name
``PLAYERS``         ``(min, max)`` number of players
``OPTIONS``         ``{option: {"default": ..., "description": ...}}``
``MOVES``           ``{move type: description}``
``RULINGS``         ``{ruling id: one-line summary}``
``new_game(players, options) -> state``
``apply(state, move) -> state``      never mutates ``state``; raises ``RuleError``
``public_view(state) -> dict``       the public state (JSON-able), with the common keys
                                     ``status round to_play standings winners rounds``
``standings(state) -> {name: total}``
``JUDGES``          ``{verdict name: Judge}``: stateless dispute verdicts

States are plain JSON-able data (dicts, lists, str, int, bool, None), so they can be
stored, compared and replayed. Nothing here knows about HTTP or a database.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Callable


class RuleError(Exception):
    """Base for everything an engine refuses. ``status`` is the HTTP status it maps to."""

    status = 422
    kind = "invalid-input"
    title = "Invalid input"

    def __init__(self, detail: str, rule: str | None = None, legal: Any = None):
        super().__init__(detail)
        self.detail = detail
        self.rule = rule
        self.legal = legal


class InvalidInput(RuleError):
    """The move or request is malformed: a missing or mistyped field, an unknown card."""


class IllegalMove(RuleError):
    """A well-formed move that the rules forbid. Always names the rule (ruling id)."""

    kind = "illegal-move"
    title = "Illegal move"

    def __init__(self, rule: str, detail: str, legal: Any = None):
        super().__init__(detail, rule=rule, legal=legal)


def next_state(state: dict) -> dict:
    """The copy of ``state`` that a move changes. The finished rounds (``rounds``) are only ever
    appended to, never edited, so the new state shares them with the old one and copies just the
    list: a move then costs the same at move 1,000 as at move 10."""
    rounds = state.get("rounds")
    new = copy.deepcopy({key: value for key, value in state.items() if key != "rounds"})
    if rounds is not None:
        new["rounds"] = list(rounds)
    return new


@dataclass(frozen=True)
class Judge:
    """A stateless verdict: ``fn(body) -> dict``. ``request``/``response`` are JSON Schema
    fragments (plain data) used to document the endpoint in OpenAPI."""

    fn: Callable[[dict], dict]
    summary: str
    request: dict = field(default_factory=lambda: {"type": "object"})
    response: dict = field(default_factory=lambda: {"type": "object"})


# ---------------------------------------------------------------- input helpers
# Engines validate moves themselves (the shape of a move depends on its type), with these.

_TYPE_NAMES = {int: "an integer", str: "a string", list: "a list", dict: "an object", bool: "true or false"}


def check_keys(obj: dict, allowed: set[str] | frozenset[str], what: str = "move") -> None:
    if not isinstance(obj, dict):
        raise InvalidInput(f"The {what} must be a JSON object.")
    unknown = sorted(set(obj) - set(allowed))
    if unknown:
        raise InvalidInput(f"Unknown field(s) in the {what}: {', '.join(unknown)}.")


def get_field(obj: dict, key: str, kind: type | tuple, required: bool = True, default: Any = None,
              nullable: bool = False) -> Any:
    """Return ``obj[key]`` checked against ``kind``; bool is never accepted as an int."""
    if key not in obj:
        if required:
            raise InvalidInput(f"Missing field '{key}'.")
        return default
    value = obj[key]
    if value is None and nullable:
        return None
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        ok = False
    else:
        ok = isinstance(value, kinds)
    if not ok:
        names = " or ".join(_TYPE_NAMES.get(k, k.__name__) for k in kinds)
        raise InvalidInput(f"Field '{key}' must be {names}.")
    return value


def get_int(obj: dict, key: str, lo: int | None = None, hi: int | None = None, required: bool = True,
            default: Any = None, nullable: bool = False) -> Any:
    if key not in obj or (nullable and obj[key] is None):
        return get_field(obj, key, int, required=required, default=default, nullable=nullable)
    value = get_field(obj, key, int)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise InvalidInput(f"Field '{key}' must be between {lo} and {hi}.")
    return value


def get_choice(obj: dict, key: str, choices, required: bool = True, default: Any = None) -> Any:
    kinds = tuple({type(c) for c in choices})
    value = get_field(obj, key, kinds, required=required, default=default)
    if key in obj and value not in choices:
        raise InvalidInput(f"Field '{key}' must be one of: {', '.join(map(str, choices))}.")
    return value


def move_type(move: Any, types) -> str:
    if not isinstance(move, dict):
        raise InvalidInput("A move must be a JSON object.")
    kind = get_field(move, "type", str)
    if kind not in types:
        raise InvalidInput(f"Unknown move type '{kind}'. This game knows: {', '.join(types)}.")
    return kind


def get_player(state: dict, move: dict, key: str = "player") -> str:
    name = get_field(move, key, str)
    if name not in state["players"]:
        raise InvalidInput(f"'{name}' is not a player in this game.")
    return name


# ---------------------------------------------------------------- setup helpers

def check_players(players: Any, lo: int, hi: int) -> list[str]:
    """Seat order (G-1): names must be distinct, non-blank strings."""
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise InvalidInput("'players' must be a list of names.")
    names = [p.strip() for p in players]
    if any(not n for n in names):
        raise InvalidInput("Player names cannot be blank.")
    if any(len(n) > 40 for n in names):
        raise InvalidInput("Player names are at most 40 characters.")
    if len(set(n.casefold() for n in names)) != len(names):
        raise InvalidInput("Player names must be distinct.")
    if not lo <= len(names) <= hi:
        raise InvalidInput(f"This game needs {lo} to {hi} players." if lo != hi else
                           f"This game needs exactly {lo} players.")
    return names


def resolve_options(spec: dict, options: Any) -> dict:
    """Fill defaults for options the table did not record; refuse unknown ones.

    A default may be ``None`` when it depends on the players (the engine fills it)."""
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise InvalidInput("'options' must be an object.")
    unknown = sorted(set(options) - set(spec))
    if unknown:
        raise InvalidInput(f"Unknown option(s): {', '.join(unknown)}. Known: {', '.join(spec) or 'none'}.")
    return {name: options.get(name, info.get("default")) for name, info in spec.items()}


def player_option(options: dict, key: str, players: list[str]) -> str | None:
    value = options.get(key)
    if value is None:
        return None
    if value not in players:
        raise InvalidInput(f"Option '{key}' must name a player.")
    return value


def left_of(players: list[str], name: str, steps: int = 1) -> str:
    """The player ``steps`` seats to the left (G-1: the next one in the list)."""
    return players[(players.index(name) + steps) % len(players)]


def ranked(totals: dict[str, int], lowest_wins: bool) -> list[str]:
    """Names in finishing order."""
    return sorted(totals, key=lambda n: totals[n] if lowest_wins else -totals[n])
