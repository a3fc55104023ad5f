"""Issue 34: schemathesis's stateful run over openapi.yaml against the app. It follows the spec's
OpenAPI links (a game created, then read, moved, undone, logged, exported and imported, linked,
rematched; a group created, then renamed, listed, its games made...) with generated data, and finds
no 5xx and no answer that breaks the spec (status, content type, headers, body schema).

The scenarios start from real tables: a ``createGame`` that names no game of the spec gets one (the
stateless run, tests/robustness/test_schemathesis.py, fuzzes that body); every other move on a game
the run made is a legal one, from the game's random player (tests/rules/players), so that the
games move on (their states, logs and records are checked too), the rest as generated; and each
request on a game or a group carries the token that its creation (or latest rotation) answered, as
the spec's securitySchemes say. Bounded: a few scenarios of a few steps (fewer locally:
``property_examples``), derandomized, no shrinking."""
from __future__ import annotations

import importlib
import random
import sys
from collections import Counter
from pathlib import Path

import pytest

schemathesis = pytest.importorskip("schemathesis")
pytestmark = pytest.mark.slow
from hypothesis import HealthCheck, Phase, settings  # noqa: E402
from test_schemathesis import CHECKS, header, load_schema  # noqa: E402  (the same spec, app and checks)

from referee.rules import ENGINES  # noqa: E402
from referee.rules.base import implied_actor  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rules"))  # the random players' own package

SCENARIOS = 30
STEPS = 10
PLAYERS = ["Ann", "Bob", "Cid"]


def real_games(spec: dict) -> list[dict]:
    """A body that creates each game the spec types, with the fewest players it takes (three at most)."""
    games = []
    for name in spec["components"]["schemas"]["AnyCreatedGame"]["discriminator"]["mapping"]:
        low, high = ENGINES[name].PLAYERS
        games.append({"game": name, "players": PLAYERS[:max(low, min(3, high))]})
    return games


class Shadow:
    """A game the run made, as its engine has it (the moves in effect, and the state they make), to
    draw legal moves from."""

    def __init__(self, name: str, players: list[str], options: dict):
        self.engine = ENGINES[name]
        self.player = importlib.import_module(f"players.{self.engine.__name__.rsplit('.', 1)[-1]}")
        self.start = self.engine.new_game(players, options)
        self.moves: list[dict] = []
        self.state = self.start

    def legal_move(self) -> dict | None:
        if self.engine.outcome(self.state)["status"] == "finished":
            return None
        return self.player.random_move(self.state, self.engine.allowed(self.state), random.Random(len(self.moves)))

    def applied(self, move: dict) -> None:
        done = implied_actor(self.engine, self.state, move)
        self.state = self.engine.apply(self.state, done)
        self.moves.append(done)

    def undone(self) -> None:
        self.moves.pop()
        self.state = self.start
        for move in self.moves:
            self.state = self.engine.apply(self.state, move)


def stateful_machine(app, reached: Counter):
    schema = load_schema(app)
    games = real_games(schema.raw_schema)

    class Table(schema.as_state_machine()):
        def setup(self):
            self.tokens: dict[str, str] = {}  # game or group id -> its token
            self.shadows: dict[str, Shadow] = {}  # the games the run made -> as their engine has them
            self.created = self.moved = 0

        def before_call(self, case):
            body = case.body if isinstance(case.body, dict) else None
            if case.operation.label == "POST /api/v1/games" and (body is None or body.get("game") not in {
                    game["game"] for game in games}):
                group = {"group": body["group"]} if body and body.get("group") in self.tokens else {}
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
            if owner in self.tokens and case.operation.definition.raw.get("security"):
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


@pytest.mark.serial  # alone: under a loaded worker a SQLite write may wait past its deadline (a 503)
def test_the_stateful_run_finds_no_5xx_and_no_answer_outside_the_spec(app, monkeypatch, property_examples):
    monkeypatch.setitem(app.config, "EVENTS_MAX_SECONDS", 0.05)  # an event stream ends at once here
    reached: Counter = Counter()
    machine = stateful_machine(app, reached)
    machine.run(settings=settings(max_examples=property_examples(SCENARIOS), stateful_step_count=STEPS,
                                  deadline=None, database=None, derandomize=True, phases=[Phase.generate],
                                  suppress_health_check=list(HealthCheck)))
    # (a 5xx or an answer outside the spec fails the run itself: validate_response's checks)
    # the links were followed: operations that succeeded on the games and groups the run made
    succeeded = {label for label, status in reached if status < 300}
    assert "POST /api/v1/games" in succeeded and any("{game_id}" in label for label in succeeded), sorted(reached)
    assert "POST /api/v1/groups" in succeeded and any("{group_id}" in label for label in succeeded), sorted(reached)
