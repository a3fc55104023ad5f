"""Stateless dispute verdicts, one route per verdict that an engine declares in ``judges``."""
from __future__ import annotations

from flask import request
from flask.views import MethodView

from referee.api.blueprint import Blueprint
from referee.api.declared import camel, ref
from referee.api.errors import PROBLEM, problem_example
from referee.api.examples import optional_example
from referee.rules import ENGINES
from referee.rules.base import InvalidInput
from referee.texts import N_

PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}


def refusal(description: str, example) -> dict:
    shown = {} if example is None else {"example": example}
    return {"description": description, "content": {PROBLEM: {"schema": PROBLEM_REF, **shown}}}


def _view(judge):
    def post(self):
        body = request.get_json()
        if not isinstance(body, dict):
            raise InvalidInput(N_("The request body must be a JSON object."))
        return judge.fn(body)  # data, in English as every state is; the Check page says it in its language

    return post


def _register(blp: Blueprint, game: str, verdict: str, judge) -> None:
    name = camel(game) + camel(verdict) + "Verdict"
    doc = {
        "summary": judge.summary,
        "operationId": f"judge{name}",
        "requestBody": {"required": True, "content": {"application/json": {
            "schema": ref(name + "Request"), **optional_example(f"judge {game}/{verdict} request")}}},
        "responses": {
            "200": {"description": "The verdict", "content": {"application/json": {
                "schema": ref(name), **optional_example(f"judge {game}/{verdict} 200")}}},
            "400": refusal("Malformed JSON", problem_example(400)),
            "415": refusal("Not JSON", problem_example(415)),
            "422": refusal("Invalid input (unknown card, wrong type, impossible cards)",
                           problem_example(422, "problem invalid verdict")),
            "default": {"$ref": "#/components/responses/DEFAULT_ERROR"},
        },
    }
    post = _view(judge)
    post.__doc__ = judge.summary
    view = type(f"Judge{name}", (MethodView,), {"post": blp.doc(**doc)(post)})
    blp.route(f"/{game}/{verdict}", endpoint=f"{game}-{verdict}")(view)


def blueprint() -> Blueprint:
    """The verdict routes of every engine registered when the app is made."""
    blp = Blueprint("judge", __name__, url_prefix="/api/v1/judge",
                    description="Verdicts for disputes: nothing is stored and no token is needed.")
    for game, engine in ENGINES.items():
        for verdict, judge in engine.judges.items():
            _register(blp, game, verdict, judge)
    return blp
