"""The typed refusals every layer shares. Standard library only: the card notation, the rules
engines and the HTTP layer all import this module, and it imports none of them."""
from __future__ import annotations

from typing import Any


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
    """The move or request is malformed: a missing or mistyped field, an unknown card code."""


class IllegalMove(RuleError):
    """A well-formed move that the rules forbid. Always names the rule (ruling id, G-3)."""

    kind = "illegal-move"
    title = "Illegal move"

    def __init__(self, rule: str, detail: str, legal: Any = None):
        super().__init__(detail, rule=rule, legal=legal)
