"""The OpenAPI components read from each engine's declarations: its moves (one schema per move type,
joined in a ``oneOf`` with a ``type`` discriminator), its options, its state, its move log and its
verdicts, each named after the game in CamelCase (for a game ``high-card``: ``HighCardShow``,
``HighCardMove``, ``HighCardState``, ``HighCardMoveLog``). Built when the app starts, from whatever
engines are registered then: a new game needs nothing here."""
from __future__ import annotations

from itertools import product

from referee.rules import ENGINES, vocabulary
from referee.rules.fields import nullable


def camel(name: str) -> str:
    """``high-card`` -> ``HighCard``, ``missed_draw`` -> ``MissedDraw``."""
    return "".join(part[:1].upper() + part[1:] for part in name.replace("_", "-").split("-"))


def ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def option_schema(info: dict) -> dict:
    """An option's JSON Schema: declared with the option, or read off its default."""
    if "schema" in info:
        schema = dict(info["schema"])
    else:
        kind = {bool: "boolean", int: "integer", str: "string"}.get(type(info.get("default")))
        schema = {"type": kind} if kind else {}
    if info.get("default") is None:
        nullable(schema)
    else:
        schema["default"] = info["default"]
    schema["description"] = info.get("description", "")
    return schema


def hideable(move) -> list[str]:
    """The fields that a logged move of this type may leave out (G-5, ``Move.private``), in the
    move's order: what ``private`` names for every combination of the values of the move's fields
    that have a list of them (which hand a card came from, say), the others null. A ``private``
    that needs more than that to answer may leave out any of the move's fields."""
    if move.private is None:
        return []
    listed = [(field.name, field.schema()["enum"]) for field in move.fields if "enum" in field.schema()]
    named: set[str] = set()
    try:
        for values in product(*(values for _, values in listed)):
            named.update(move.private({**dict.fromkeys(move.field_names()),
                                       **dict(zip((name for name, _ in listed), values))}))
    except (LookupError, TypeError, ValueError, AttributeError):
        named = set(move.field_names())
    return [name for name in move.field_names() if name in named]


HIDDEN = ("The fields left out (G-5: the cards put face down, which nobody at the table has seen); present only "
          "when some are, and never in the whole record that the game's token exports once the game is over.")
NEXT_PAGE = {"type": "string", "nullable": True,
             "description": "The next page's whole URL (as in the Link header), or null on the last page."}


def logged_components(engine, prefix: str) -> dict[str, dict]:
    """The game's move log (``GET /games/{game_id}/moves``): each entry's move is one of the game's
    moves as it was made, the player named; a move type with private fields (``hideable``) has a
    schema of its own for the log, ``<Game><Move>Logged``, where they may be left out and named in
    ``hidden``."""
    schemas: dict[str, dict] = {}
    mapping = {}
    for kind, move in engine.moves.items():
        name = prefix + camel(kind)
        hidden = hideable(move)
        if hidden:
            made = move.schema(kind)
            name += "Logged"
            schemas[name] = {
                **made, "description": f"{made['description']}, as the log shows it: {', '.join(hidden)} left out "
                                       "while nobody at the table has seen them, and named in `hidden`.",
                "properties": {**made["properties"], "hidden": {"type": "array", "minItems": 1, "description": HIDDEN,
                                                                 "items": {"type": "string", "enum": hidden}}},
                "required": [field for field in made["required"] if field not in hidden],
            }
        mapping[kind] = ref(name)["$ref"]
    schemas[prefix + "LoggedMove"] = {
        "description": f"A move of {engine.title} as the log keeps it: as it was made, with the player named "
                       f"where the move left it implied (G-1).",
        "oneOf": [{"$ref": target} for target in dict.fromkeys(mapping.values())],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }
    schemas[prefix + "LogEntry"] = {
        "type": "object", "required": ["seq", "version", "move", "voided", "created_at"], "properties": {
            "seq": {"type": "integer", "description": "Position in the log, voided moves included."},
            "version": {"type": "integer", "description": "The game version this move produced."},
            "move": ref(prefix + "LoggedMove"),
            "voided": {"type": "boolean", "description": "Undone: the move stays in the log, out of effect."},
            "created_at": {"type": "string", "format": "date-time",
                           "description": "When it was made (ISO 8601, UTC, with its offset)."}}}
    schemas[prefix + "MoveLog"] = {
        "type": "object", "description": f"A page of the move log of a {engine.title} game.",
        "required": ["id", "game", "version", "moves", "next"], "properties": {
            "id": {"type": "string"},
            "game": {"type": "string", "enum": [engine.name]},
            "version": {"type": "integer", "description": "Moves in effect now."},
            "moves": {"type": "array", "items": ref(prefix + "LogEntry"), "description": "In log order."},
            "next": NEXT_PAGE}}
    return schemas


def engine_components(engine) -> dict[str, dict]:
    """Every schema one game contributes to the OpenAPI document, by component name."""
    prefix = camel(engine.name)
    schemas: dict[str, dict] = {}
    mapping = {}
    for kind, move in engine.moves.items():
        schemas[prefix + camel(kind)] = move.schema(kind)
        mapping[kind] = ref(prefix + camel(kind))["$ref"]
    schemas[prefix + "Move"] = {
        "description": f"A move of {engine.title}: GET /api/v1/rules/{engine.name} lists them with their rulings.",
        "oneOf": [ref(prefix + camel(kind)) for kind in engine.moves],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }
    schemas[prefix + "Options"] = {
        "type": "object", "additionalProperties": False, "description": f"The options of a {engine.title} game.",
        "properties": {name: option_schema(info) for name, info in engine.options.items()},
    }
    view = (*vocabulary.COMMON, *((vocabulary.RECORD,) if "record" in engine.options else ()), *engine.view)
    schemas[prefix + "State"] = {
        "description": f"The public state of a {engine.title} game.",
        "allOf": [ref("Game"), {"type": "object", "properties": {
            "game": {"type": "string", "enum": [engine.name]},
            "options": ref(prefix + "Options"),
            **vocabulary.view_schema(view),
        }, "required": ["game", "options", *(field.name for field in view)]}],
    }
    schemas["Created" + prefix + "State"] = {
        "description": f"A {engine.title} game just made: its public state, and the token for its writes.",
        "allOf": [ref(prefix + "State"), {"type": "object", "required": ["token"], "properties": {"token": {
            "type": "string", "description": "Shown once: the Bearer token for every write on this game, and for "
                                             "its table links (POST /games/{game_id}/token replaces it)."}}}],
    }
    schemas.update(logged_components(engine, prefix))
    for verdict, judge in engine.judges.items():
        schemas[prefix + camel(verdict) + "VerdictRequest"] = judge.request
        schemas[prefix + camel(verdict) + "Verdict"] = judge.response
    return schemas


def components() -> dict[str, dict]:
    """The components of every registered game, plus ``AnyMove`` and ``AnyGame`` across them."""
    schemas: dict[str, dict] = {}
    for engine in ENGINES.values():
        schemas.update(engine_components(engine))
    schemas["AnyMove"] = {"description": "A move of the game at hand; each game's moves are a oneOf on 'type'.",
                          "anyOf": [ref(camel(name) + "Move") for name in ENGINES]}
    schemas["AnyGame"] = {
        "description": "The public state of a game, typed by its 'game'.",
        "oneOf": [ref(camel(name) + "State") for name in ENGINES],
        "discriminator": {"propertyName": "game",
                          "mapping": {name: ref(camel(name) + "State")["$ref"] for name in ENGINES}},
    }
    schemas["AnyMoveLog"] = {
        "description": "A page of a game's move log, typed by its 'game'.",
        "oneOf": [ref(camel(name) + "MoveLog") for name in ENGINES],
        "discriminator": {"propertyName": "game",
                          "mapping": {name: ref(camel(name) + "MoveLog")["$ref"] for name in ENGINES}},
    }
    schemas["AnyCreatedGame"] = {
        "description": "A game just made (created or imported), typed by its 'game', with its token.",
        "oneOf": [ref("Created" + camel(name) + "State") for name in ENGINES],
        "discriminator": {"propertyName": "game",
                          "mapping": {name: ref("Created" + camel(name) + "State")["$ref"] for name in ENGINES}},
    }
    return schemas
