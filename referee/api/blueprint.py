"""The blueprint every API module declares its routes on."""
from __future__ import annotations

import flask_smorest


class Blueprint(flask_smorest.Blueprint):
    """flask-smorest's Blueprint, whose documentation-only decorators (``doc``, ``alt_response``)
    add their part of the spec (the view's ``_apidoc``, which the blueprint reads when the route is
    registered) to the view itself instead of wrapping it. Their wrappers only call through, asking
    Flask on the way whether the view is a coroutine; a write wore eleven of them, 15 us a request
    (bench/README.md, ninth pass). ``response`` and ``arguments`` still wrap: they do the work."""

    @staticmethod
    def doc(**kwargs):
        return _documentation_only(flask_smorest.Blueprint.doc(**kwargs))

    def alt_response(self, *args, **kwargs):
        return _documentation_only(super().alt_response(*args, **kwargs))


def _documentation_only(decorator):
    def document(view):
        view._apidoc = decorator(view)._apidoc  # the spec the wrapper would carry; the wrapper is dropped
        return view

    return document


# Who may call an operation, by the spec's securitySchemes (``api.configure_openapi``): each is a bearer
# token in ``Authorization``, so a client generated from the spec sends it for the operations that
# name it. ``optional``: the operation also answers without one.
GAME_TOKEN = [{"gameToken": []}]
GROUP_TOKEN = [{"groupToken": []}]


def optional(requirement: list[dict]) -> list[dict]:
    return [{}, *requirement]
