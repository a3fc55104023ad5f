"""Stateless dispute verdicts, one route per verdict that an engine declares in ``JUDGES``."""
from __future__ import annotations

from flask import request
from flask.views import MethodView
from flask_smorest import Blueprint

from referee.rules import ENGINES
from referee.rules.base import InvalidInput

blp = Blueprint("judge", __name__, url_prefix="/api/v1/judge",
                description="Verdicts for disputes: nothing is stored and no token is needed.")

PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}


def _view(judge):
    def post(self):
        body = request.get_json()
        if not isinstance(body, dict):
            raise InvalidInput("The request body must be a JSON object.")
        return judge.fn(body)

    return post


def _register(game: str, verdict: str, judge) -> None:
    doc = {
        "summary": judge.summary,
        "requestBody": {"required": True, "content": {"application/json": {"schema": judge.request}}},
        "responses": {
            "200": {"description": "The verdict", "content": {"application/json": {"schema": judge.response}}},
            "400": {"description": "Malformed JSON", "content": {"application/problem+json": {"schema": PROBLEM_REF}}},
            "415": {"description": "Not JSON", "content": {"application/problem+json": {"schema": PROBLEM_REF}}},
            "422": {"description": "Invalid input (unknown card, wrong type, impossible cards)",
                    "content": {"application/problem+json": {"schema": PROBLEM_REF}}},
            "default": {"$ref": "#/components/responses/DEFAULT_ERROR"},
        },
    }
    post = _view(judge)
    post.__doc__ = judge.summary
    view = type(f"Judge_{game}_{verdict}".replace("-", "_"), (MethodView,), {"post": blp.doc(**doc)(post)})
    blp.route(f"/{game}/{verdict}", endpoint=f"{game}-{verdict}")(view)


for _game, _engine in ENGINES.items():
    for _verdict, _judge in getattr(_engine, "JUDGES", {}).items():
        _register(_game, _verdict, _judge)
