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
