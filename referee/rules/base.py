"""The engine contract shared by every game: declared moves and phases, one pipeline that applies
every move, the moves allowed now, and the outcome.

An engine is a module registered in ``referee.rules.ENGINES`` under its own ``NAME``. It declares:

``NAME``            the game's name in URLs (``"ninety-nine"``)
``TITLE``           its printed name
``PLAYERS``         ``(min, max)`` number of players
``OPTIONS``         ``{option: {"default": ..., "description": ..., "schema": JSON Schema, "rule": id}}``;
                    ``rule`` is the ruling a refused value of the option cites (G-3)
``RULINGS``         ``{ruling id: one-line summary}``
``MOVES``           ``{move type: Move}``: each move's fields, description, ruling ids and handler
``PHASES``          ``{phase: (move types it accepts)}``; ``state["phase"]`` names the current one
``JUDGES``          ``{verdict name: Judge}``: stateless dispute verdicts
``new_game(players, options) -> state``
``public_view(state) -> dict``       the game's own public fields (JSON-able)
``standings(state) -> {name: total}``
``outcome(state) -> Outcome``        whether the game is over, who won, why and by which ruling

and may refine the pipeline with these hooks (each has a default here):

``actors(state, kind) -> [names] | None``   who may make the move now (None: the move names no
                                             player who must be entitled); default ``to_play``
``refuse_phase(state, kind) -> IllegalMove`` why a move the phase does not accept is refused
``refuse_actor(state, kind, player) -> IllegalMove``  why this player may not make it now
``choices(state, kind) -> dict | None``     the legal values of its fields where the choice is
                                             small; None when the move is not possible after all

Every engine module ends with ``apply, allowed = bind(__name__)``: ``apply(state, move) -> state``
runs the pipeline (never mutating ``state``; raises ``RuleError``), ``allowed(state)`` lists the
moves allowed now. States are plain JSON-able data (dicts, lists, str, int, bool, None), so they
can be stored, compared and replayed. Nothing here knows about HTTP or a database.
"""
from __future__ import annotations

import copy
import sys
import unicodedata
from dataclasses import dataclass, field
from string import Formatter
from typing import Any, Callable, TypedDict

from referee.errors import IllegalMove, InvalidInput, RuleError
from referee.rules.fields import Field, check_type

__all__ = ["RuleError", "InvalidInput", "IllegalMove", "Move", "Judge", "Outcome", "bind", "apply_move", "load_move",
           "allowed_moves", "public_state", "public_move", "next_state"]


class Outcome(TypedDict):
    """Like python-chess's ``outcome()``: ``status`` is ``in_progress`` or ``finished``."""

    status: str
    winners: list[str]
    reason: str | None
    rule: str | None


def in_progress() -> Outcome:
    return {"status": "in_progress", "winners": [], "reason": None, "rule": None}


def finished(winners: list[str], reason: str, rule: str) -> Outcome:
    return {"status": "finished", "winners": list(winners), "reason": reason, "rule": rule}


@dataclass(frozen=True)
class Move:
    """One move type, declared once: everything else (validation, the rules listing, the OpenAPI
    schema, the phone page's form, the text of a logged move) is read from here.

    ``handler(state, move)`` changes the new state in place; ``move`` is already clean (every field
    parsed). ``actor`` names the field that says who makes the move (checked against ``actors``),
    or is None for a move that the table records as a whole. ``says`` is a format string over the
    move's fields (or a function of the move and of ``show``, which prints a card) that reads a
    logged move aloud. ``check(move)`` checks what spans several fields (which of them go
    together) and raises ``InvalidInput``, like a malformed field. ``private(move)`` names the
    fields that record what nobody at the table can see (a card put face down): the service keeps
    them for card accounting but never shows them (G-5)."""

    handler: Callable[[dict, dict], None]
    fields: tuple[Field, ...]
    description: str
    rules: tuple[str, ...]
    label: str = ""
    says: str | Callable[[dict, Callable[[Any], str]], str] = ""
    actor: str | None = "player"
    check: Callable[[dict], Any] | None = None
    private: Callable[[dict], tuple[str, ...]] | None = None

    def field_names(self) -> list[str]:
        return [f.name for f in self.fields]

    def schema(self, kind: str) -> dict:
        """The JSON Schema of a move of this type (for the OpenAPI document and API clients)."""
        properties = {"type": {"type": "string", "enum": [kind]}}
        properties.update((f.name, f.schema()) for f in self.fields)
        return {"type": "object", "description": f"{self.description} ({', '.join(self.rules)})",
                "properties": properties, "required": ["type", *(f.name for f in self.fields if f.required)],
                "additionalProperties": False}

    def listing(self, kind: str) -> dict:
        """What the rules listing says about this move type: enough for a client to build a form."""
        return {"label": self.label or kind, "description": self.description, "rules": list(self.rules),
                "actor": self.actor,
                "fields": [{"name": f.name, "required": f.required, "nullable": f.nullable, "widget": f.widget,
                            "schema": f.schema()} for f in self.fields]}

    def load(self, move: dict, state: dict) -> dict:
        """Check every field of ``move`` against the declaration; returns the clean move."""
        unknown = sorted(set(move) - {"type", *self.field_names()})
        if unknown:
            raise InvalidInput(f"Unknown field(s) in the move: {', '.join(map(str, unknown))}.")
        clean = {"type": move["type"]}
        for spec in self.fields:
            value = spec.load(move, state)
            if spec.name in move:
                clean[spec.name] = value
        if self.check is not None:
            self.check(clean)
        return clean

    def public(self, move: dict) -> dict:
        """The logged move as the table may see it: private fields left out and listed in ``hidden``."""
        hidden = [name for name in (self.private(move) if self.private else ()) if name in move]
        if not hidden:
            return move
        return {**{k: v for k, v in move.items() if k not in hidden}, "hidden": hidden}

    def text(self, move: dict, show: Callable[[Any], str] = str) -> str:
        """The logged move in words (``show`` prints a value, e.g. a card with its suit symbol)."""
        if callable(self.says):
            return self.says(move, show)
        if self.says:
            names = [name for _, name, _, _ in Formatter().parse(self.says) if name]
            return self.says.format(**{name: show_value(move.get(name), show) for name in names})
        who = move.get(self.actor) if self.actor else None
        rest = ", ".join(f"{k} {show_value(v, show)}" for k, v in move.items() if k not in ("type", self.actor))
        return f"{who + ': ' if who else ''}{self.label or move.get('type')}{' ' + rest if rest else ''}"


def show_value(value: Any, show: Callable[[Any], str] = str) -> str:
    if isinstance(value, list):
        return " ".join(show_value(v, show) for v in value) or "none"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {show_value(v, show)}" for k, v in value.items())
    return "none" if value is None else show(value)


# ---------------------------------------------------------------- the pipeline

def _hook(engine, name: str, default):
    return getattr(engine, name, None) or default


def default_actors(state: dict, kind: str) -> list[str] | None:
    return [state["to_play"]] if state.get("to_play") else []


def default_refuse_phase(engine, state: dict, kind: str) -> IllegalMove:
    accepted = engine.PHASES.get(state.get("phase"), ())
    return IllegalMove(engine.MOVES[kind].rules[0],
                       f"A '{kind}' move is not possible now: the table is at '{state.get('phase')}', "
                       f"which takes {', '.join(accepted) or 'no move'}.", legal=list(accepted))


def default_refuse_actor(engine, state: dict, kind: str, player: str) -> IllegalMove:
    who = _hook(engine, "actors", default_actors)(state, kind) or []
    return IllegalMove("G-1", f"It is {' or '.join(who) or 'nobody'}'s turn, not {player}'s.", legal=who)


def move_kind(engine, move: Any) -> str:
    if not isinstance(move, dict):
        raise InvalidInput("A move must be a JSON object.")
    kind = move.get("type")
    if "type" not in move:
        raise InvalidInput("Missing field 'type'.")
    check_type("type", kind, str)
    if kind not in engine.MOVES:
        raise InvalidInput(f"Unknown move type '{kind}'. This game knows: {', '.join(engine.MOVES)}.")
    return kind


def load_move(engine, state: dict, move: Any) -> tuple[str, dict]:
    """The move's type and its clean fields, or ``InvalidInput`` for a malformed move."""
    kind = move_kind(engine, move)
    return kind, engine.MOVES[kind].load(move, state)


def apply_move(engine, state: dict, move: Any) -> dict:
    """Every move of every game, in one order: a known type and well-formed fields, the game not
    over, the phase accepts it, the right player; then the engine's handler on a copy of the
    state. (A malformed body is refused as malformed whenever it is sent.)"""
    kind, clean = load_move(engine, state, move)
    spec = engine.MOVES[kind]
    result = engine.outcome(state)
    if result["status"] == "finished":
        raise IllegalMove(result["rule"], f"The game is over: {result['reason']}")
    if kind not in engine.PHASES.get(state.get("phase"), ()):
        refuse = getattr(engine, "refuse_phase", None)
        raise refuse(state, kind) if refuse else default_refuse_phase(engine, state, kind)
    if spec.actor and clean.get(spec.actor) is not None:
        who = _hook(engine, "actors", default_actors)(state, kind)
        if who is not None and clean[spec.actor] not in who:
            refuse = getattr(engine, "refuse_actor", None)
            raise (refuse(state, kind, clean[spec.actor]) if refuse
                   else default_refuse_actor(engine, state, kind, clean[spec.actor]))
    new = next_state(state)
    new["events"] = []
    spec.handler(new, clean)
    return new


def allowed_moves(engine, state: dict) -> dict:
    """The moves allowed now: ``{type: {"players": [names] | None, "choices": {field: values}}}``.
    ``players`` None means the move names no player who must be entitled (the table records it)."""
    if engine.outcome(state)["status"] == "finished":
        return {}
    actors = _hook(engine, "actors", default_actors)
    choices = getattr(engine, "choices", None)
    found = {}
    for kind in engine.PHASES.get(state.get("phase"), ()):
        who = actors(state, kind) if engine.MOVES[kind].actor else None
        if who is not None and not who:
            continue
        entry: dict[str, Any] = {"players": who}
        values = choices(state, kind) if choices else {}
        if values is None:
            continue
        if values:
            entry["choices"] = values
        found[kind] = entry
    return found


def bind(module_name: str):
    """``apply`` and ``allowed`` for the engine module ``module_name`` (looked up when called, so
    an engine can bind at import time, before its own module object is complete)."""

    def apply(state: dict, move: Any) -> dict:
        return apply_move(sys.modules[module_name], state, move)

    def allowed(state: dict) -> dict:
        return allowed_moves(sys.modules[module_name], state)

    return apply, allowed


def public_move(engine, move: Any) -> Any:
    """A logged move as anyone with the game's id may see it (G-5)."""
    spec = engine.MOVES.get(move.get("type")) if isinstance(move, dict) and isinstance(move.get("type"), str) else None
    return spec.public(move) if spec else move


def public_state(engine, state: dict) -> dict:
    """The public state of a game in one vocabulary: the engine's own view, then ``phase``,
    ``round``, ``events``, ``outcome`` (and ``status``/``winners`` from it) and ``allowed``."""
    view = engine.public_view(state)
    result = engine.outcome(state)
    view.update(phase=state.get("phase"), round=view.get("round", state.get("round")),
                events=list(state.get("events") or []), status=result["status"],
                winners=list(result["winners"]), outcome=result, allowed=allowed_moves(engine, state))
    return view


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
# For what the declared fields do not cover: verdict requests, options, nested shapes.

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
    return check_type(key, value, kind)


def get_int(obj: dict, key: str, lo: int | None = None, hi: int | None = None, required: bool = True,
            default: Any = None, nullable: bool = False, rule: str | None = None) -> Any:
    """``obj[key]`` as an int; a value out of ``lo``..``hi`` cites ``rule`` when the rules set the
    range (G-3)."""
    if key not in obj or (nullable and obj[key] is None):
        return get_field(obj, key, int, required=required, default=default, nullable=nullable)
    value = get_field(obj, key, int)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise InvalidInput(f"Field '{key}' must be between {lo} and {hi}" + (f" ({rule})." if rule else "."),
                           rule=rule)
    return value


def get_choice(obj: dict, key: str, choices, required: bool = True, default: Any = None,
               rule: str | None = None) -> Any:
    kinds = tuple({type(c) for c in choices})
    value = get_field(obj, key, kinds, required=required, default=default)
    if key in obj and value not in choices:
        raise InvalidInput(f"Field '{key}' must be one of: {', '.join(map(str, choices))}"
                           + (f" ({rule})." if rule else "."), rule=rule, legal=list(choices))
    return value


# ---------------------------------------------------------------- setup helpers

def in_deck(read: Callable[[Any], Any], rule: str) -> Callable[[Any], Any]:
    """``read`` (a card parser of ``referee.cards``) whose refusal of a card that is not in the
    game's deck names the deck's ruling (G-3)."""

    def parse(code: Any) -> Any:
        try:
            return read(code)
        except InvalidInput as error:
            if error.rule:
                raise
            raise InvalidInput(error.detail, rule=rule, legal=error.legal) from None

    return parse


# Control, format (zero-width, bidi overrides), private-use, surrogate, unassigned, line and
# paragraph separators: nothing a name shown at the table may hold.
_UNSEEN = {"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"}


def check_players(players: Any, lo: int, hi: int, rule: str | None = None) -> list[str]:
    """Seat order (G-1): names must be distinct, non-blank strings; a wrong number of players is
    refused citing ``rule`` (G-3)."""
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise InvalidInput("'players' must be a list of names.")
    names = [unicodedata.normalize("NFC", p).strip() for p in players]
    if any(not n for n in names):
        raise InvalidInput("Player names cannot be blank.")
    for name in names:
        hidden = next((ch for ch in name if unicodedata.category(ch) in _UNSEEN), None)
        if hidden is not None:
            raise InvalidInput(f"Player name {name!r} holds an invisible or control character "
                               f"(U+{ord(hidden):04X} {unicodedata.name(hidden, 'unnamed')}): type the name plainly.")
    if any(len(n) > 40 for n in names):
        raise InvalidInput("Player names are at most 40 characters.")
    if len(set(n.casefold() for n in names)) != len(names):
        raise InvalidInput("Player names must be distinct.")
    if not lo <= len(names) <= hi:
        raise InvalidInput(f"This game needs {lo} to {hi} players." if lo != hi else
                           f"This game needs exactly {lo} players.", rule=rule)
    return names


def resolve_options(spec: dict, options: Any) -> dict:
    """Fill defaults for options the table did not record; refuse unknown ones, and a recorded
    value that its declared schema does not allow, citing the option's ``rule`` (G-3).

    A default may be ``None`` when it depends on the players (the engine fills it)."""
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise InvalidInput("'options' must be an object.")
    unknown = sorted(set(options) - set(spec))
    if unknown:
        raise InvalidInput(f"Unknown option(s): {', '.join(unknown)}. Known: {', '.join(spec) or 'none'}.")
    for name in spec:
        if name in options:
            check_option(spec, name, options[name])
    return {name: options.get(name, info.get("default")) for name, info in spec.items()}


def option_refusal(spec: dict, name: str, detail: str, legal: Any = None) -> InvalidInput:
    """The refusal of a value of option ``name``: it names the option's ruling (G-3)."""
    rule = spec[name].get("rule")
    return InvalidInput(f"{detail} ({rule})." if rule else f"{detail}.", rule=rule, legal=legal)


_OPTION_TYPES = {"integer": (int, "a whole number"), "string": (str, "a text"), "boolean": (bool, "true or false")}


def check_option(spec: dict, name: str, value: Any) -> None:
    """``value`` against option ``name``'s declared schema (type, enum, minimum, maximum); null only
    where the default is null (then the engine decides)."""
    info = spec[name]
    schema = info.get("schema") or {}
    if value is None:
        if info.get("default") is None:
            return
        raise option_refusal(spec, name, f"Option '{name}' cannot be null: omit it for the default "
                                         f"({info.get('default')!r})")
    kind, words = _OPTION_TYPES.get(schema.get("type"), (None, ""))
    enum = schema.get("enum")
    if enum is not None and not (value in enum and type(value) in {type(v) for v in enum}):
        raise option_refusal(spec, name, f"Option '{name}' must be one of: {', '.join(map(str, enum))}",
                             legal=list(enum))
    if kind is not None and (not isinstance(value, kind) or isinstance(value, bool) and kind is not bool):
        raise option_refusal(spec, name, f"Option '{name}' must be {words}")
    lo, hi = schema.get("minimum"), schema.get("maximum")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        bounds = (f"from {lo} to {hi}" if lo is not None and hi is not None
                  else f"at least {lo}" if lo is not None else f"at most {hi}")
        raise option_refusal(spec, name, f"Option '{name}' must be {bounds}")


def player_option(options: dict, key: str, players: list[str], rule: str | None = None) -> str | None:
    value = options.get(key)
    if value is None:
        return None
    if value not in players:
        raise InvalidInput(f"Option '{key}' must name a player" + (f" ({rule})." if rule else "."), rule=rule,
                           legal=list(players))
    return value


def left_of(players: list[str], name: str, steps: int = 1) -> str:
    """The player ``steps`` seats to the left (G-1: the next one in the list)."""
    return players[(players.index(name) + steps) % len(players)]


def ranked(totals: dict[str, int], lowest_wins: bool) -> list[str]:
    """Names in finishing order."""
    return sorted(totals, key=lambda n: totals[n] if lowest_wins else -totals[n])
