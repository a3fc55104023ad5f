"""Fixtures of the API tests that look at the layers in front of Flask (referee.api.followers and
referee.api.movers): what Flask itself answers, which requests reached it, and what they asked of
the store."""
from __future__ import annotations

import pytest
from flask import request, request_started
from werkzeug.test import Client

from referee import store
from referee.api.followers import Followers
from referee.api.movers import Movers


@pytest.fixture
def flask_only(app):
    """A client of the app without the layers that answer in front of Flask: what Flask itself
    answers (the layers around them, which read the body and set the database deadline, are left
    out too)."""
    layer = app.wsgi_app
    while not isinstance(layer, Followers):
        layer = layer.wsgi_app
    assert isinstance(layer.wsgi_app, Movers)
    return Client(layer.wsgi_app.wsgi_app)


@pytest.fixture
def view_calls(app):
    """The requests that reached Flask's dispatch (its ``request_started`` signal), by path."""
    calls = []

    def started(sender, **extra):
        calls.append(request.path)

    request_started.connect(started, app)
    yield calls
    request_started.disconnect(started, app)


def _calls_to_store(monkeypatch, name: str) -> list:
    """Each call of ``store.<name>`` from now on, by its second argument."""
    calls = []
    real = getattr(store, name)

    def counted(first, second, *rest):
        calls.append(second)
        return real(first, second, *rest)

    monkeypatch.setattr(store, name, counted)
    return calls


@pytest.fixture
def applied(monkeypatch):
    """The moves the store was asked to apply."""
    return _calls_to_store(monkeypatch, "apply_move")


@pytest.fixture
def reads(monkeypatch):
    """The follower reads that went to the database, by game id."""
    return _calls_to_store(monkeypatch, "read_head")
