"""Migrating at start logs like the rest of the service (issue 16): JSON lines on stdout, and the
loggers that existed before (the app's, gunicorn's) still speak afterwards."""
from __future__ import annotations

import json
import logging

from referee import create_app


def test_migrations_log_json_lines_on_stdout_and_silence_no_logger(tmp_path, capsys):
    before = logging.getLogger("gunicorn.error")
    create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path}/fresh.sqlite3", "AUTO_MIGRATE": True,
                "TESTING": True, "SECRET_KEY": "x", "RATELIMIT_ENABLED": False})
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines() if line.strip()]
    upgrades = [line for line in lines if line["logger"].startswith("alembic")]
    assert upgrades and all(line["level"] == "info" and line["message"] for line in upgrades)
    assert any("0001_initial" in line["message"] for line in upgrades)
    assert "alembic" not in captured.err
    assert not before.disabled and not logging.getLogger("referee").disabled
