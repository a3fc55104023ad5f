"""The Check pages: every verdict of every engine (its ``judges``) as a form, built from the
Judge's request JSON Schema, and the verdict's answer read back with the rulings it cites.

Nothing here knows a game: fields are read from the schemas (an integer, a text, a choice, a
yes/no, a list of card codes, lines of card codes; anything else a JSON text), defaults from the
public state or options of a game when a field has the same name.
"""
from __future__ import annotations

import json
import re
from typing import Any

from flask_babel import gettext as _
from flask_babel import lazy_gettext

from referee.i18n import say
from referee.web.games import COMMON_KEYS, int_or_text, split_codes

MAX_FIELD = 4000  # characters of one field: more is refused before any judge reads it
_ALTERNATIVE = re.compile(r"Give '?([A-Za-z_]+)'? or '?([A-Za-z_]+)'?")


class CheckFormError(Exception):
    """The form cannot be turned into a verdict request (a field too long, malformed JSON)."""


def _is_cards(schema: dict) -> bool:
    return schema.get("type") == "array" and (schema.get("items") or {}).get("type") == "string"


def _is_card_lines(schema: dict) -> bool:
    return schema.get("type") == "array" and _is_cards(schema.get("items") or {})


def field_kind(schema: dict) -> str:
    """How a request field is typed on the page, from its JSON Schema."""
    alternatives = schema.get("oneOf") or schema.get("anyOf")
    if alternatives:
        if any(_is_cards(a) for a in alternatives):
            return "cards_or_number" if any(a.get("type") == "integer" for a in alternatives) else "cards"
        if any(_is_card_lines(a) for a in alternatives):
            return "card_lines"
        return "json"
    if "enum" in schema:
        return "choice"
    kind = schema.get("type")
    if kind == "boolean":
        return "flag"
    if kind == "integer":
        return "number"
    if kind == "string":
        return "text"
    if _is_cards(schema):
        return "cards"
    if _is_card_lines(schema):
        return "card_lines"
    return "json"


_HINTS = {"cards": lazy_gettext("Card codes separated by spaces."),
          "cards_or_number": lazy_gettext("Card codes separated by spaces, or just how many."),
          "card_lines": lazy_gettext("One group of card codes per line."), "json": lazy_gettext("As JSON.")}


def fields(judge) -> list[dict]:
    """The form fields of a verdict, in the order its request schema lists them."""
    request = judge.request or {}
    required = set(request.get("required") or ())
    found = []
    for name, schema in (request.get("properties") or {}).items():
        kind = field_kind(schema)
        hint = " ".join(str(part) for part in (say(schema.get("description")), _HINTS.get(kind)) if part)
        if "default" in schema:
            hint += " " + _("Left blank: %(value)s.", value=schema["default"])
        choices = None
        if kind == "choice":
            choices = [(_choice_text(v), str(v)) for v in schema["enum"]]
        elif kind == "flag":
            choices = [("true", _("Yes")), ("false", _("No"))]
        example = schema.get("example")
        # the label is the schema's own title, in the reader's language; a field without one shows its name
        label = say(schema["title"]) if schema.get("title") else name.replace("_", " ").capitalize()
        found.append({"name": name, "kind": kind, "required": name in required, "hint": hint.strip(),
                      "label": label, "choices": choices,
                      "placeholder": " ".join(map(str, example)) if isinstance(example, list)
                      else ("" if example is None else str(example))})
    return found


def _as_text(kind: str, schema: dict, value: Any) -> str | None:
    """A game's value as the text of a field of ``kind``, or None when it does not fit."""
    if kind == "number":
        if isinstance(value, list):  # a list where a count is asked: how many
            return str(len(value))
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else None
    if kind == "choice":
        return _choice_text(value) if any(value == v and type(value) is type(v) for v in schema["enum"]) else None
    if kind == "flag":
        return ("true" if value else "false") if isinstance(value, bool) else None
    if kind == "text":
        return value if isinstance(value, str) else None
    if kind in ("cards", "cards_or_number") and isinstance(value, list) and all(isinstance(v, str) for v in value):
        return " ".join(value)
    return None


def defaults(judge, view: dict | None) -> dict[str, str]:
    """The fields a game fills: a request field named like a key of its public view or options.
    Of two fields the schema calls alternatives ("Give a or b"), the game's own one is kept."""
    if not view:
        return {}
    sources = {**(view.get("options") or {}), **view}
    properties = (judge.request or {}).get("properties") or {}
    filled = {}
    for spec in fields(judge):
        if spec["name"] in sources:
            text = _as_text(spec["kind"], properties[spec["name"]], sources[spec["name"]])
            if text is not None:
                filled[spec["name"]] = text
    for schema in properties.values():
        match = _ALTERNATIVE.search(str(schema.get("description") or ""))
        if match and set(match.groups()) <= set(filled):
            first, second = match.groups()
            drop = first if first in COMMON_KEYS or second not in COMMON_KEYS else second
            filled.pop(drop, None)
    return filled


def body_from(judge, form) -> dict:
    """The verdict request from a posted form: each field read as its kind says; blank is left out."""
    body: dict[str, Any] = {}
    for spec in fields(judge):
        raw = form.get(spec["name"], "")
        if len(raw) > MAX_FIELD:
            raise CheckFormError(_("'%(field)s' is too long: at most %(most)s characters.", field=spec["label"],
                                   most=MAX_FIELD))
        if not raw.strip():
            continue
        kind = spec["kind"]
        if kind == "cards":
            body[spec["name"]] = split_codes(raw)
        elif kind == "cards_or_number":
            number = int_or_text(raw)
            body[spec["name"]] = number if isinstance(number, int) else split_codes(raw)
        elif kind == "card_lines":
            body[spec["name"]] = [codes for codes in (split_codes(line) for line in raw.splitlines()) if codes]
        elif kind == "number":
            body[spec["name"]] = int_or_text(raw)
        elif kind == "flag":
            body[spec["name"]] = raw == "true"
        elif kind == "choice":
            lookup = {_choice_text(v): v for v in judge.request["properties"][spec["name"]]["enum"]}
            if raw not in lookup:
                raise CheckFormError(_("'%(field)s' must be one of: %(choices)s.", field=spec["label"],
                                       choices=", ".join(v[1] for v in spec["choices"])))
            body[spec["name"]] = lookup[raw]
        elif kind == "text":
            body[spec["name"]] = raw.strip()
        else:
            try:
                body[spec["name"]] = json.loads(raw)
            except (ValueError, RecursionError):
                raise CheckFormError(_("'%(field)s' is not valid JSON.", field=spec["label"])) from None
    return body


def _choice_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def cited(answer: Any) -> list[str]:
    """Every ruling id the answer names in a field called ``rule`` or ``rules``, in order, once."""
    found: list[str] = []

    def walk(value: Any, key: str | None = None) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif key in ("rule", "rules") and isinstance(value, str) and value and value not in found:
            found.append(value)

    walk(answer)
    return found


_RULING_ID = re.compile(r"\b[A-Z][A-Z0-9]*-[0-9]+\b")


def verdict_rulings(judge, engine) -> list[str]:
    """The rulings a verdict's summary names (those its engine lists)."""
    return [rid for rid in dict.fromkeys(_RULING_ID.findall(judge.summary or "")) if rid in engine.rulings]


def summaries(ids: list[str], engine, general: dict) -> list[tuple[str, str]]:
    """Each ruling id with its text: the engine's summary, else the general rulings' text."""
    return [(rid, engine.rulings.get(rid) or general.get(rid) or "") for rid in ids]
