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
``property_examples``), derandomized, no shrinking.

The run's draws follow the app's answers, and Hypothesis fails a run whose same draws meet other
answers (FlakyStrategyDefinition). In the suite's process that happened after other tests only:
Hypothesis also draws constants from every local module imported so far, so what ran before changed
the scenarios drawn, and the session's app and database answered them. So the run has a process of
its own (stateful_run.py), the same hash seed every time, an app made fresh by the factory (the
service's games only) on its own SQLite file, emptied before each scenario."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("schemathesis")
pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
SCENARIOS = 30
STEPS = 10


def run_stateful(tmp_path: Path, scenarios: int) -> tuple[subprocess.CompletedProcess, list]:
    out = tmp_path / "reached.json"
    env = {**os.environ, "PYTHONHASHSEED": "0"}  # the same order of every set, run after run
    done = subprocess.run([sys.executable, str(HERE / "stateful_run.py"), str(tmp_path / "stateful.sqlite3"),
                           str(scenarios), str(STEPS), str(out)],
                          cwd=HERE.parents[1], env=env, capture_output=True, text=True, timeout=900, check=False)
    return done, json.loads(out.read_text()) if out.exists() else []


@pytest.mark.serial  # alone: under a loaded machine a SQLite write may wait past its deadline (a 503)
def test_the_stateful_run_finds_no_5xx_and_no_answer_outside_the_spec(tmp_path, property_examples):
    done, reached = run_stateful(tmp_path, property_examples(SCENARIOS))
    # a 5xx or an answer outside the spec fails the run itself (stateful_run.py's validate_response)
    assert done.returncode == 0, done.stderr[-6000:]
    # the links were followed: operations that succeeded on the games and groups the run made
    succeeded = {label for label, status, _ in reached if status < 300}
    assert "POST /api/v1/games" in succeeded and any("{game_id}" in label for label in succeeded), reached
    assert "POST /api/v1/groups" in succeeded and any("{group_id}" in label for label in succeeded), reached
