"""The fields a move is made of, declared once in its engine; a verdict's request (``Judge``) and
a game's options (``declared_options``) are declared with them too.

Each field knows how to check and clean what a client sent (``parse``), how to describe itself as
a JSON Schema for the OpenAPI document (``schema``), and what kind of input a form should offer
for it (``widget``). The validation messages are the ones the engines always gave, so a malformed
move is refused the same way whichever game it is for. Standard library only.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from referee.errors import InvalidInput
from referee.texts import N_, T

_TYPE_NAMES = {int: N_("an integer"), str: N_("a string"), list: N_("a list"), dict: N_("an object"),
               bool: N_("true or false")}


def check_type(key: str, value: Any, kinds: type | tuple) -> Any:
    """``value`` checked against ``kinds``; bool is never accepted as an int."""
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        names = [_TYPE_NAMES.get(k, k.__name__) for k in kinds]
        raise InvalidInput(T("Field '{field}' must be {kind}.", field=key, kind=names[0]) if len(names) == 1 else
                           T("Field '{field}' must be {kind} or {other}.", field=key, kind=names[0],
                             other=names[1] if len(names) == 2 else T("{kind} or {other}", kind=names[1],
                                                                      other=names[2])))
    return value


def between(lo: Any = None, hi: Any = None) -> dict:
    """What a refusal's ``legal`` says of a number that may lie in a range: ``{"minimum": lo,
    "maximum": hi}`` (JSON Schema's words), a bound that does not apply left out."""
    return {key: value for key, value in (("minimum", lo), ("maximum", hi)) if value is not None}


def nullable(schema: dict) -> dict:
    """``schema`` (a JSON Schema of OpenAPI 3.0) that also takes null: with an ``enum``, null is one of
    its values too, or a client generated from the spec refuses it."""
    schema["nullable"] = True
    if "enum" in schema and None not in schema["enum"]:
        schema["enum"] = [*schema["enum"], None]
    return schema


@dataclass(frozen=True)
class Field:
    """One field of a move or of a verdict's request. ``required`` fields must be present;
    ``nullable`` ones may be null. ``default`` is what an optional field left out stands for (a
    verdict's request: its ``fn`` gets it), ``title`` what a form labels it (the Check pages), and
    ``rule`` the ruling a value out of its range or choices cites (G-3)."""

    name: str
    description: str = ""
    required: bool = True
    nullable: bool = False
    default: Any = None
    title: str = ""
    rule: str | None = None
    widget = "text"

    def parse(self, value: Any, state: dict) -> Any:
        return value

    def value_schema(self) -> dict:
        return {}

    def schema(self) -> dict:
        schema = dict(self.value_schema())
        if self.nullable:
            nullable(schema)
        if self.title:
            schema["title"] = self.title
        if self.description:
            schema["description"] = self.description
        if self.default is not None:
            schema["default"] = self.default
        return schema

    def load(self, move: dict, state: dict) -> Any:
        """The clean value of this field in ``move`` (its ``default`` when absent and optional)."""
        if self.name not in move:
            if self.required:
                raise InvalidInput(T("Missing field '{field}'.", field=self.name))
            return self.default
        value = move[self.name]
        if value is None and self.nullable:
            return None
        return self.parse(value, state)


def load_fields(fields: tuple[Field, ...], given: dict, state: dict, absent: bool = False) -> dict:
    """Each of ``fields`` loaded from ``given`` (``Field.load``), in their order: the clean values
    of those given, and with ``absent`` the defaults of those left out too. What is not a field
    (an unknown name) is for the caller to refuse, in its own words."""
    clean = {}
    for spec in fields:
        value = spec.load(given, state)
        if absent or spec.name in given:
            clean[spec.name] = value
    return clean


@dataclass(frozen=True)
class Player(Field):
    """The name of a player in this game."""

    description: str = N_("A player's name, as listed at the game's creation.")
    widget = "player"

    def parse(self, value, state):
        check_type(self.name, value, str)
        if value not in state["players"]:
            raise InvalidInput(T("'{player}' is not a player in this game.", player=value))
        return value

    def value_schema(self):
        return {"type": "string", "example": "Ann"}


@dataclass(frozen=True)
class Int(Field):
    lo: int | None = None
    hi: int | None = None
    widget = "number"

    def parse(self, value, state):
        check_type(self.name, value, int)
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            raise InvalidInput(T("Field '{field}' must be between {lo} and {hi} ({rule}).", field=self.name,
                                 lo=self.lo, hi=self.hi, rule=self.rule) if self.rule else
                               T("Field '{field}' must be between {lo} and {hi}.", field=self.name, lo=self.lo,
                                 hi=self.hi), rule=self.rule, legal={self.name: between(self.lo, self.hi)})
        return value

    def value_schema(self):
        schema: dict[str, Any] = {"type": "integer"}
        if self.lo is not None:
            schema["minimum"] = self.lo
        if self.hi is not None:
            schema["maximum"] = self.hi
        return schema


@dataclass(frozen=True)
class Choice(Field):
    choices: tuple = ()
    widget = "choice"

    def parse(self, value, state):
        check_type(self.name, value, tuple({type(c) for c in self.choices}))
        if value not in self.choices:
            values = ", ".join(map(str, self.choices))
            raise InvalidInput(T("Field '{field}' must be one of: {values} ({rule}).", field=self.name, values=values,
                                 rule=self.rule) if self.rule else
                               T("Field '{field}' must be one of: {values}.", field=self.name, values=values),
                               rule=self.rule, legal={self.name: list(self.choices)})
        return value

    def value_schema(self):
        kind = "integer" if all(isinstance(c, int) for c in self.choices) else "string"
        return {"type": kind, "enum": list(self.choices)}


@dataclass(frozen=True)
class Flag(Field):
    widget = "flag"

    def parse(self, value, state):
        return check_type(self.name, value, bool)

    def value_schema(self):
        return {"type": "boolean"}


@dataclass(frozen=True)
class Text(Field):
    max_length: int = 200

    def parse(self, value, state):
        check_type(self.name, value, str)
        if len(value) > self.max_length:
            raise InvalidInput(T("Field '{field}' is at most {n} characters.", field=self.name, n=self.max_length))
        return value

    def value_schema(self):
        return {"type": "string", "maxLength": self.max_length}


@dataclass(frozen=True)
class Card(Field):
    """One card code of the game's deck; ``read`` turns forgiving input into the canonical code
    (``referee.cards``). ``numbers`` when the deck's cards are numbers (XIX)."""

    read: Callable[[Any], Any] = str
    example: Any = None
    numbers: bool = False
    widget = "card"

    def parse(self, value, state):
        check_type(self.name, value, (int, str) if self.numbers else str)
        return self.read(value)

    def value_schema(self):
        schema: dict[str, Any]
        if self.numbers:
            schema = {"oneOf": [{"type": "integer"}, {"type": "string"}]}
        else:
            schema = {"type": "string"}
        if self.example is not None:
            schema["example"] = self.example
        return schema


@dataclass(frozen=True)
class Cards(Field):
    """A list of card codes of the game's deck."""

    read: Callable[[Any], Any] = str
    example: Any = None
    max_items: int = 60
    widget = "cards"

    def parse(self, value, state):
        check_type(self.name, value, list)
        if len(value) > self.max_items:
            raise InvalidInput(T("Field '{field}' holds at most {n} cards.", field=self.name, n=self.max_items))
        return [self.read(code) for code in value]

    def value_schema(self):
        schema = {"type": "array", "items": {"type": "string"}, "maxItems": self.max_items}
        if self.example is not None:
            schema["example"] = self.example
        return schema


@dataclass(frozen=True)
class Shaped(Field):
    """A field with a shape of its own (a grid, melds, a hand per player): the engine gives its
    JSON Schema and the function that checks and cleans it, side by side in the declaration."""

    shape: dict = field(default_factory=dict)
    read: Callable[[Any, dict], Any] | None = None
    widget = "json"

    def parse(self, value, state):
        return value if self.read is None else self.read(value, state)

    def value_schema(self):
        return self.shape
