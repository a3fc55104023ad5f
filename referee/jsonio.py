"""JSON in and out with orjson (C, several times the standard library's speed): the stored states
and move payloads (``stored``, the database engine's serializer), the answers (``JSONProvider``)
and the log lines. What each writes is what the standard library wrote, read back the same way."""
from __future__ import annotations

from typing import Any

import orjson
from flask.json.provider import DefaultJSONProvider

from referee import texts

loads = orjson.loads

# Text is a str subclass: passed through, it comes to ``_stored`` and keeps its msgid and params
_STORED = orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_NON_STR_KEYS


def _stored(value: Any) -> Any:
    if isinstance(value, texts.Text):
        return texts.packed_one(value)
    for kind in (dict, list, str, int, float):  # any other subclass stores as its base type
        if isinstance(value, kind):
            return kind(value)
    if isinstance(value, tuple):
        return list(value)
    raise TypeError(f"not JSON: {type(value).__name__}")


def stored(value: Any) -> str:
    """A value as the database keeps it: every marked text as ``texts.unpack`` reads it back, by
    orjson's ``default`` (``texts.packed_one``) rather than a walk over the value in Python."""
    return orjson.dumps(value, default=_stored, option=_STORED).decode()


# The JSON of finished rounds' entries, by the entry (held here, so its id names no other object)
_ENTRIES: dict[int, tuple[dict, orjson.Fragment]] = {}
ENTRIES_KEPT = 1024  # the finished rounds of the games in ``store.states``, with room to spare


def storable(value: Any) -> Any:
    """A state to be written by ``stored`` (the write path's, ``store.LockedGame.save``), each entry
    of its finished ``rounds`` as the JSON written for that entry object before. An entry is never
    edited, only replaced (``rules.base.next_state``, ``replace_round``), and every later state
    shares it, so one entry object always writes the same JSON: a move encodes its finished rounds'
    texts once, not again at every move, where they were most of the state's encoding
    (bench/README.md)."""
    rounds = value.get("rounds") if type(value) is dict else None
    if type(rounds) is not list or not rounds:
        return value
    return {**value, "rounds": [_entry_json(entry) for entry in rounds]}


def _entry_json(entry: Any) -> orjson.Fragment:
    kept = _ENTRIES.get(id(entry))
    if kept is not None and kept[0] is entry:
        return kept[1]
    if len(_ENTRIES) >= ENTRIES_KEPT:  # the states they came from have left the cache long ago
        _ENTRIES.clear()
    fragment = orjson.Fragment(orjson.dumps(entry, default=_stored, option=_STORED))
    _ENTRIES[id(entry)] = (entry, fragment)
    return fragment


def line(value: dict) -> str:
    """A log line: marked texts as their English words, anything unknown as its ``str``."""
    return orjson.dumps(value, default=str, option=orjson.OPT_NON_STR_KEYS).decode()


# The database engine's JSON: every JSON column, and the marked texts of models.StateJSON, which
# only this serializer keeps (create_app adds it to any engine options)
ENGINE_OPTIONS = {"json_serializer": stored, "json_deserializer": loads}


_ANSWER = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_NON_STR_KEYS


class JSONProvider(DefaultJSONProvider):
    """Flask's JSON with orjson: the same values out (dates as HTTP dates, dataclasses as dicts, by
    Flask's own ``default``), UTF-8 rather than ``\\u`` escapes. Pretty-printing and any other
    option go to the standard library as before."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        if kwargs or self.sort_keys:
            return super().dumps(obj, **kwargs)
        return orjson.dumps(obj, default=self.default, option=_ANSWER).decode()

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return super().loads(s, **kwargs) if kwargs else orjson.loads(s)

    @property
    def pretty(self) -> bool:
        """Whether answers are pretty-printed (Flask's rule: ``compact`` False, or None in debug mode),
        by the standard library; else ``answer`` writes them."""
        return self.compact is False or (self.compact is None and self._app.debug)

    def response(self, *args: Any, **kwargs: Any):
        obj = self._prepare_response_obj(args, kwargs)
        if self.pretty:
            return super().response(obj)
        return self._app.response_class(self.answer(obj), mimetype=self.mimetype)

    def answer(self, obj: Any) -> bytes:
        """The body of a compact JSON answer, as ``response`` makes it when not ``pretty``."""
        return orjson.dumps(obj, default=self.default, option=_ANSWER) + b"\n"
