"""Texts the service says in words, marked for translation (the Babel domain ``engine``).

``T("{card} must be declared as {a} or {b}.", card=card, a=1, b=11)`` is the English sentence
(a ``str``: logs, tests and the JSON API read it as it always was) that also keeps its msgid and
named params, so a page or a refusal can say it in the reader's language at the edge
(``translate``; ``referee.i18n.say`` in a request). ``N_("Play a card")`` marks a static string
(a label, a description). ``joined(parts)`` keeps a sentence made of several marked ones.
A msgid with params is formatted like ``str.format`` (braces that are not params are doubled,
``{{``); one without params is read as it is (so ``N_("{player} forgot to draw")`` can be a
format string that ``T`` fills in later).

Texts survive storage: ``packed_one`` gives a Text's plain JSON (``{"$text": msgid,
"params": ...}``), which ``referee.jsonio.stored`` writes, and ``unpack`` turns it back
(``referee.models.StateJSON``), so the events and score breakdowns of a game read months later are
still translatable.

Standard library only: the rules engines mark their words with it. The extraction keywords are
``T`` and ``N_`` (``babel-engine.cfg``); the pages' own ``_`` belongs to the ``messages`` domain.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from string import Formatter
from typing import Any

_FORMATTER = Formatter()


class Text(str):
    """An English text that keeps its ``msgid`` and ``params`` (plain values or other Texts)."""

    msgid: str
    params: dict

    def __new__(cls, msgid: str, params: dict | None = None) -> Text:
        params = dict(params or {})
        self = super().__new__(cls, msgid.format(**params) if params else msgid)
        self.msgid, self.params = msgid, params
        return self

    def __copy__(self):  # immutable, like str
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return Text, (self.msgid, self.params)

    def __repr__(self) -> str:
        return f"T({self.msgid!r}{''.join(f', {k}={v!r}' for k, v in self.params.items())})"

    def say(self, gettext: Callable[[str], str]) -> str:
        if not self.params:
            return gettext(self.msgid)
        values = {k: translate(v, gettext) for k, v in self.params.items()}
        try:
            return gettext(self.msgid).format(**values)
        except (KeyError, IndexError, ValueError):  # a broken translation: the English is still right
            return self.msgid.format(**values)


class Joined(Text):
    """Several marked texts read as one (a verdict's explanation): each part translated alone."""

    parts: tuple
    sep: str

    def __new__(cls, parts: Iterable[Any], sep: str = " ") -> Joined:
        parts = tuple(parts)
        self = str.__new__(cls, sep.join(map(str, parts)))
        self.msgid, self.params, self.parts, self.sep = "", {}, parts, sep
        return self

    def __reduce__(self):
        return Joined, (self.parts, self.sep)

    def __repr__(self) -> str:
        return f"joined({list(self.parts)!r}, {self.sep!r})"

    def say(self, gettext: Callable[[str], str]) -> str:
        return self.sep.join(translate(part, gettext) for part in self.parts)


def T(msgid: str, /, **params: Any) -> Text:
    """Mark a sentence with named params: ``T("{player} is out of the game.", player=name)``."""
    return Text(msgid, params)


def N_(msgid: str) -> Text:
    """Mark a static string (a label, a description); it reads as itself."""
    return Text(msgid)


def joined(parts: Iterable[Any], sep: str = " ") -> Text:
    return Joined(parts, sep)


def translate(text: Any, gettext: Callable[[str], str]) -> Any:
    """``text`` in the language of ``gettext`` (a marked text; anything else is returned as it is)."""
    return text.say(gettext) if isinstance(text, Text) else text


def fields_of(msgid: str) -> set[str]:
    """The named params of a msgid (``{card}`` -> ``card``): a translation must keep the same set."""
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in _FORMATTER.parse(msgid) if name}


# ---------------------------------------------------------------- storage

_MARK, _PARTS = "$text", "$texts"


_PLAIN = frozenset({str, int, float, bool, type(None)})  # left as they are: no call per card or number


def packed_one(value: Text) -> dict:
    """The stored form of one Text, its params left as they are: the JSON encoder of stored states
    (``referee.jsonio.stored``) calls it for each Text it meets, params and parts included."""
    if type(value) is Joined:
        return {_PARTS: list(value.parts), "sep": value.sep}
    return {_MARK: value.msgid, "params": value.params}


def unpack(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        if len(value) == 2:
            if isinstance(value.get(_MARK), str) and isinstance(value.get("params"), dict):
                return Text(value[_MARK], {k: unpack(v) for k, v in value["params"].items()})
            if isinstance(value.get(_PARTS), list) and isinstance(value.get("sep"), str):
                return Joined([unpack(p) for p in value[_PARTS]], value["sep"])
        return {k: v if type(v) in _PLAIN else unpack(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _PLAIN else unpack(v) for v in value]
    return value
