"""Referee: a REST referee and scorekeeper for five card games.

Importing the package loads nothing but the standard library, so that ``referee.rules`` (the pure
engines) and ``referee.cards`` stay free of Flask and SQLAlchemy; the web application lives in
``referee.app`` and is built by ``create_app``.
"""
from __future__ import annotations

import os

MIGRATIONS = os.path.join(os.path.dirname(__file__), "migrations")


def create_app(config: dict | None = None):
    """Build the Flask application (see ``referee.app.create_app``)."""
    from referee.app import create_app as build

    return build(config)
