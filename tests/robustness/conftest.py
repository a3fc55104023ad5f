"""Fixtures for the robustness tests (helpers are in robustness_helpers.py)."""
from __future__ import annotations

import pytest

from robustness_helpers import Gunicorn


@pytest.fixture
def gunicorns(app, database_url, tmp_path):
    """A factory of gunicorn masters on the suite's database; every one is stopped at teardown."""
    pytest.importorskip("requests")
    started: list[Gunicorn] = []

    def start(workers: int = 2, **env) -> Gunicorn:
        server = Gunicorn(database_url, tmp_path / f"gunicorn-{len(started)}.log", workers, **env)
        started.append(server)
        return server.start()

    yield start
    for server in started:
        server.stop()
