"""The rules engines type-check: mypy over ``referee/rules`` (the settings are pyproject.toml's
``[tool.mypy]``), so a game's parts (``Game(...)``) are checked against the contract's types."""
from __future__ import annotations

from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parents[2]


def test_mypy_finds_no_error_in_the_rules_engines(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)  # the files and the settings are named from the project's root
    out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(tmp_path),
                                "--no-error-summary", "referee/rules"])
    assert status == 0 and not out.strip(), out + err
