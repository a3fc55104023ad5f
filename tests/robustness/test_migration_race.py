"""Several masters starting together on a fresh database all come up: the migrations run one
process at a time (issue 16: without the lock one crashed in 3 of 8 trials on PostgreSQL)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

PG = os.environ.get("TEST_DATABASE_URL")
pytestmark = pytest.mark.slow  # 8 processes start the app at once
START = ("from referee import create_app; "
         "create_app({'SQLALCHEMY_DATABASE_URI': %r, 'AUTO_MIGRATE': True, 'SECRET_KEY': 'x'})")


def start_together(url: str, count: int = 8) -> list[subprocess.CompletedProcess]:
    procs = [subprocess.Popen([sys.executable, "-c", START % url], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(count)]
    return [subprocess.CompletedProcess(p.args, p.wait(timeout=120), *p.communicate()) for p in procs]


def test_masters_starting_together_on_a_fresh_sqlite_file(tmp_path):
    url = f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    for result in start_together(url):
        assert result.returncode == 0, result.stderr[-2000:]


@pytest.mark.skipif(not PG, reason="needs the PostgreSQL server (TEST_DATABASE_URL)")
def test_masters_starting_together_on_a_fresh_postgresql_database(fresh_postgresql):
    url = fresh_postgresql("referee_race")
    for trial in range(2):
        for result in start_together(url):
            assert result.returncode == 0, (trial, result.stderr[-2000:])
