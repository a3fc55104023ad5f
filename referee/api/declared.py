"""The OpenAPI components read from each engine's declarations: its moves (one schema per move type,
joined in a ``oneOf`` with a ``type`` discriminator), its options, its state and its verdicts, each
named after the game in CamelCase (for a game ``high-card``: ``HighCardShow``, ``HighCardMove``, ``HighCardState``).
Built when the app starts, from whatever engines are registered then: a new game needs nothing here."""
from __future__ import annotations

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


def engine_components(engine) -> dict[str, dict]:
    """Every schema one game contributes to the OpenAPI document, by component name."""
    prefix = camel(engine.NAME)
    schemas: dict[str, dict] = {}
    mapping = {}
    for kind, move in engine.MOVES.items():
        schemas[prefix + camel(kind)] = move.schema(kind)
        mapping[kind] = ref(prefix + camel(kind))["$ref"]
    schemas[prefix + "Move"] = {
        "description": f"A move of {engine.TITLE}: GET /api/v1/rules/{engine.NAME} lists them with their rulings.",
        "oneOf": [ref(prefix + camel(kind)) for kind in engine.MOVES],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }
    schemas[prefix + "Options"] = {
        "type": "object", "additionalProperties": False, "description": f"The options of a {engine.TITLE} game.",
        "properties": {name: option_schema(info) for name, info in engine.OPTIONS.items()},
    }
    view = (*vocabulary.COMMON, *((vocabulary.RECORD,) if "record" in engine.OPTIONS else ()),
            *getattr(engine, "VIEW", ()))
    schemas[prefix + "State"] = {
        "description": f"The public state of a {engine.TITLE} game.",
        "allOf": [ref("Game"), {"type": "object", "properties": {
            "game": {"type": "string", "enum": [engine.NAME]},
            "options": ref(prefix + "Options"),
            **vocabulary.view_schema(view),
        }, "required": ["game", "options", *(field.name for field in view)]}],
    }
    schemas["Created" + prefix + "State"] = {
        "description": f"A {engine.TITLE} game just made: its public state, and the token for its writes.",
        "allOf": [ref(prefix + "State"), {"type": "object", "required": ["token"], "properties": {"token": {
            "type": "string", "description": "Shown once: the Bearer token for every write on this game, and for "
                                             "its table links (POST /games/{game_id}/token replaces it)."}}}],
    }
    for verdict, judge in engine.JUDGES.items():
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
    schemas["AnyCreatedGame"] = {
        "description": "A game just made (created or imported), typed by its 'game', with its token.",
        "oneOf": [ref("Created" + camel(name) + "State") for name in ENGINES],
        "discriminator": {"propertyName": "game",
                          "mapping": {name: ref("Created" + camel(name) + "State")["$ref"] for name in ENGINES}},
    }
    return schemas
