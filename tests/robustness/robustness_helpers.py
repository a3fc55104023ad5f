"""Helpers for the robustness tests: gunicorn on loopback, a legal move stream. (A module of its own,
not conftest.py: several conftest modules share that name, so importing from one is ambiguous.)"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from referee.rules import ninety_nine
from referee.rules.base import RuleError

ROOT = Path(__file__).resolve().parents[2]
PLAYERS = ["Ann", "Bob", "Cid", "Dee"]
OPTIONS = {"tokens": 99, "decks": 2}
CARDS = [r + s for s in "SHDC" for r in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")]


def legal_stream(n: int, offset: int = 0, players=PLAYERS, options=OPTIONS) -> list[dict]:
    """``n`` legal Ninety-nine moves of one game, checked against the engine (``offset`` varies
    the cards, so different games get different streams)."""
    state = ninety_nine.new_game(list(players), dict(options))
    moves, i = [], offset
    while len(moves) < n:
        for k in range(len(CARDS) * 2):
            card = CARDS[(i + k * 7) % len(CARDS)]
            move = {"type": "play", "player": state["to_play"], "card": card}
            if card.startswith("10"):
                move["value"] = -10 if state["total"] >= 10 else 10
            elif card.startswith("A"):
                move["value"] = 1
            try:
                state = ninety_nine.apply(state, move)
            except RuleError:
                continue
            moves.append(move)
            i += 1
            break
        else:
            raise AssertionError("no legal move found")
    return moves


def replay_with_engine(players, options, log_moves) -> dict:
    state = ninety_nine.new_game(list(players), dict(options))
    for m in log_moves:
        state = ninety_nine.apply(state, m)
    return state


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Gunicorn:
    """One gunicorn master (the project's gunicorn.conf.py) on 127.0.0.1 and a free port."""

    def __init__(self, database_url: str, log_path: Path, workers: int = 2, **env):
        self.database_url, self.log_path, self.workers_wanted, self.env = database_url, log_path, workers, env
        self.proc = None
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"

    def command(self) -> tuple[list[str], dict]:
        env = dict(os.environ, DATABASE_URL=self.database_url, PORT=str(self.port),
                   WEB_CONCURRENCY=str(self.workers_wanted), SECRET_KEY="test", RATELIMIT_ENABLED="0",
                   LOG_LEVEL="warning", AUTO_MIGRATE="0")
        env.update(self.env)  # a test's own settings win (RATELIMIT_ENABLED="1", say)
        return ([sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py", "--bind",
                 f"127.0.0.1:{self.port}", "--access-logfile", "/dev/null", "wsgi:app"], env)

    def outputs(self):
        """Where the master's stdout and stderr go: stdout too, since the service's lines, gunicorn's
        own included, are JSON lines there."""
        return open(self.log_path, "a"), subprocess.STDOUT

    def output(self) -> str:
        return self.log_path.read_text()

    def start(self) -> "Gunicorn":
        import requests

        argv, env = self.command()
        stdout, stderr = self.outputs()
        self.proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=stdout, stderr=stderr)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                if requests.get(self.base + "/readyz", timeout=1).status_code == 200:
                    return self
            except requests.RequestException:
                time.sleep(0.1)
        self.stop()
        raise AssertionError(self.output())

    def worker_pids(self) -> list[int]:
        out = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True).stdout
        return [int(p) for p in out.split()]

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
