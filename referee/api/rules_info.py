"""What each game accepts, read from its declarations: move types with their fields, the phases
that accept them, options, ruling ids and verdicts."""
from __future__ import annotations

from flask.views import MethodView

from referee.api.blueprint import Blueprint
from referee.api.errors import problem_response
from referee.api.examples import example
from referee.api.schemas import RulesSchema
from referee.rules import ENGINES
from referee.store import engine_for

blp = Blueprint("rules", __name__, url_prefix="/api/v1", description="Rules of each game.")


def describe(name: str) -> dict:
    engine = engine_for(name)
    lo, hi = engine.players
    return {
        "game": name,
        "title": engine.title,
        "players": {"min": lo, "max": hi},
        "options": engine.options,
        "moves": {kind: move.listing(kind) for kind, move in engine.moves.items()},
        "phases": {phase: list(kinds) for phase, kinds in engine.phases.items()},
        "rulings": engine.rulings,
        "judges": {verdict: {"path": f"/api/v1/judge/{name}/{verdict}", "summary": judge.summary}
                   for verdict, judge in engine.judges.items()},
    }


@blp.route("/rules")
class AllRules(MethodView):
    @blp.doc(operationId="listRules")
    @blp.response(200, RulesSchema(many=True), example=example("listRules 200"),
                  description="Every game (the example shows one of them)")
    def get(self):
        """Every game the service referees."""
        return [describe(name) for name in ENGINES]


@blp.route("/rules/<game>")
class GameRules(MethodView):
    @blp.doc(operationId="getRules")
    @blp.response(200, RulesSchema, example=example("getRules 200"))
    @problem_response(blp, 404, "No such game")
    def get(self, game):
        """One game's move types, options (with defaults) and ruling ids."""
        return describe(game)
