"""schemathesis's stateful run over openapi.yaml, in a process of its own (issue 34; the test is
tests/robustness/test_schemathesis_stateful.py, which says why).

``python stateful_run.py DATABASE_FILE SCENARIOS STEPS OUT_JSON``: a fresh app from the factory on
its own SQLite file, the run, and the (operation, status) pairs it reached written to OUT_JSON. A 5xx
or an answer outside the spec raises (a traceback and exit status 1)."""
from __future__ import annotations

import json
import random
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "rules")]  # test_schemathesis; the random players' package

from hypothesis import HealthCheck, Phase, settings
from players import player_for
from sqlalchemy import text
from test_schemathesis import CHECKS, header, load_schema  # the same spec and checks

from referee import create_app
from referee.models import db
from referee.rules import ENGINES
from referee.rules.base import implied_actor

PLAYERS = ["Ann", "Bob", "Cid"]


def real_games(spec: dict) -> list[dict]:
    """A body that creates each game the spec types, with the fewest players it takes (three at most)."""
    games = []
    for name in spec["components"]["schemas"]["AnyCreatedGame"]["discriminator"]["mapping"]:
        low, high = ENGINES[name].players
        games.append({"game": name, "players": PLAYERS[:max(low, min(3, high))]})
    return games


class Shadow:
    """A game the run made, as its engine has it (the moves in effect, and the state they make), to
    draw legal moves from."""

    def __init__(self, name: str, players: list[str], options: dict):
        self.engine = ENGINES[name]
        self.player = player_for(self.engine)  # the engine's random player (tests/rules/players)
        self.start = self.engine.new_game(players, options)
        self.moves: list[dict] = []
        self.state = self.start

    def legal_move(self) -> dict | None:
        if self.engine.outcome(self.state)["status"] == "finished":
            return None
        return self.player(self.state, self.engine.allowed(self.state), random.Random(len(self.moves)))

    def applied(self, move: dict) -> None:
        done = implied_actor(self.engine, self.state, move)
        self.state = self.engine.apply(self.state, done)
        self.moves.append(done)

    def undone(self) -> None:
        self.moves.pop()
        self.state = self.start
        for move in self.moves:
            self.state = self.engine.apply(self.state, move)


def empty_database(app) -> None:
    """Every table emptied (children first): each scenario starts where the first one did."""
    with app.app_context():
        db.session.remove()
        for table in reversed(db.metadata.sorted_tables):
            db.session.execute(text(f'DELETE FROM "{table.name}"'))
        db.session.commit()


def _one_of(value, known) -> bool:
    """Whether a generated value is one of ``known`` (a name, an id): a body may hold any JSON there."""
    return isinstance(value, str) and value in known


def stateful_machine(app, reached: Counter):
    schema = load_schema(app)
    games = real_games(schema.raw_schema)

    class Table(schema.as_state_machine()):
        def setup(self):
            # The draws of a scenario follow the answers it gets (a 201 opens the created game's
            # links, a 404 does not). Hypothesis checks that the same draws meet the same answers
            # across scenarios, so nothing an earlier scenario wrote may change them.
            empty_database(app)
            self.tokens: dict[str, str] = {}  # game or group id -> its token
            self.shadows: dict[str, Shadow] = {}  # the games the run made -> as their engine has them
            self.created = self.moved = 0

        def before_call(self, case):
            body = case.body if isinstance(case.body, dict) else None
            names = {game["game"] for game in games}
            if case.operation.label == "POST /api/v1/games" and (body is None or not _one_of(body.get("game"), names)):
                group = {"group": body["group"]} if body and _one_of(body.get("group"), self.tokens) else {}
                case.body = {**games[self.created % len(games)], **group}
                self.created += 1
            game_id = (case.path_parameters or {}).get("game_id")
            if case.operation.label == "POST /api/v1/games/{game_id}/moves" and game_id in self.shadows:
                self.moved += 1
                legal = self.shadows[game_id].legal_move() if self.moved % 2 else None
                if legal is not None:
                    case.body = legal
            owner = game_id or (case.path_parameters or {}).get("group_id")
            if owner is None and isinstance(case.body, dict):  # a game made in a group, a record of one
                owner = case.body.get("group")
            if _one_of(owner, self.tokens) and case.operation.definition.raw.get("security"):
                case.headers = {**(case.headers or {}), "Authorization": f"Bearer {self.tokens[owner]}"}

        def after_call(self, response, case):
            super().after_call(response, case)
            reached[case.operation.label, response.status_code] += 1
            try:
                answer = response.json()
            except ValueError:  # no body (a 204), or not JSON (a CSV, an event stream)
                answer = None
            if isinstance(answer, dict) and isinstance(answer.get("token"), str) and "id" in answer:
                self.tokens[answer["id"]] = answer["token"]  # made, or its token rotated
            game_id = (case.path_parameters or {}).get("game_id")
            if response.status_code >= 300 or header(response, "idempotent-replayed"):
                return  # nothing applied (a replay applies nothing again)
            if case.operation.label == "POST /api/v1/games":
                self.shadows[answer["id"]] = Shadow(answer["game"], answer["players"], case.body.get("options", {}))
            elif case.operation.label == "POST /api/v1/games/{game_id}/moves" and game_id in self.shadows:
                self.shadows[game_id].applied(case.body)
            elif case.operation.label == "POST /api/v1/games/{game_id}/undo" and game_id in self.shadows:
                self.shadows[game_id].undone()

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            case.validate_response(response, checks=CHECKS, transport_kwargs=kwargs or None, recorder=self.recorder)

    return Table


def run(database: str, scenarios: int, steps: int) -> Counter:
    # Rate limits off: creating games is limited per minute (30 in production), and a 429 that comes
    # or not with the clock would make the same draws meet other answers. tests/robustness covers
    # the limit itself. An event stream ends at once here.
    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{database}", "AUTO_MIGRATE": True, "TESTING": True,
                      "SECRET_KEY": "stateful-run", "RATELIMIT_ENABLED": False, "EVENTS_MAX_SECONDS": 0.05})
    reached: Counter = Counter()
    # too_slow only: it times the drawing, and on a machine busy with other tests that says nothing
    # about the strategies (none of the other health checks fires on this run)
    stateful_machine(app, reached).run(settings=settings(
        max_examples=scenarios, stateful_step_count=steps, deadline=None, database=None, derandomize=True,
        phases=[Phase.generate], suppress_health_check=[HealthCheck.too_slow]))
    return reached


if __name__ == "__main__":
    database, scenarios, steps, out = sys.argv[1:5]
    reached = run(database, int(scenarios), int(steps))
    Path(out).write_text(json.dumps([[label, status, count] for (label, status), count in reached.items()]))
