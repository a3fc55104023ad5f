"""Checks shared by the engine tests."""
from __future__ import annotations

import copy

import pytest

from referee.rules.base import IllegalMove


def refused_by(engine, state: dict, move, exc=IllegalMove, rule: str | None = None):
    """The engine refuses ``move`` with ``exc`` (citing ``rule`` when given) and leaves the state it
    was given untouched; returns the error."""
    before = copy.deepcopy(state)
    with pytest.raises(exc) as info:
        engine.apply(state, move)
    assert state == before
    if rule is not None:
        assert info.value.rule == rule
    return info.value


def invalid_option_values(info: dict) -> list:
    """Values that option ``info`` (an ``OPTIONS`` entry) does not allow, read off its declared
    schema: out of its range, outside its enum, of another type, null where the default is not,
    and a name that is no player's for an option that names a player."""
    schema = info.get("schema") or {}
    kind, enum = schema.get("type"), schema.get("enum")
    bad: list = []
    if enum is not None:
        bad.append(max(enum) + 1 if kind == "integer" else "no-such-value")
    if schema.get("minimum") is not None:
        bad.append(schema["minimum"] - 1)
    if schema.get("maximum") is not None:
        bad.append(schema["maximum"] + 1)
    bad += {"integer": ["3", True, 2.5], "string": [3, True], "boolean": ["yes", 1]}.get(kind, [])
    if kind == "string" and enum is None:
        bad.append("Nobody At This Table")
    if info.get("default") is not None:
        bad.append(None)
    return bad
