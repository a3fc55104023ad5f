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
                state = ninety_nine.GAME.apply(state, move)
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
        state = ninety_nine.GAME.apply(state, m)
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


def read_response(conn: socket.socket) -> tuple[int, dict, bytes]:
    """One HTTP/1.1 answer read off a raw socket: its status, headers (lower-case names) and body (by its
    Content-Length, else up to the end of the connection)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            raise AssertionError(f"the connection ended before an answer's head: {data!r}")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin1").split("\r\n")
    headers = {name.lower(): value for name, value in (line.split(": ", 1) for line in lines[1:])}
    if "content-length" in headers:
        while len(body) < int(headers["content-length"]):
            chunk = conn.recv(65536)
            if not chunk:
                break
            body += chunk
    else:
        while chunk := conn.recv(65536):
            body += chunk
    return int(lines[0].split(" ", 2)[1]), headers, body


def open_event_stream(port: int, game_id: str, timeout: float = 10) -> socket.socket:
    """A raw connection holding the game's event stream, once the server has begun it (its head and the
    stream's first line are in)."""
    conn = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    conn.sendall(f"GET /api/v1/games/{game_id}/events HTTP/1.1\r\nHost: test\r\n\r\n".encode())
    data = b""
    while b"retry:" not in data:
        chunk = conn.recv(65536)
        assert chunk, f"the stream ended before it began: {data!r}"
        data += chunk
    assert data.startswith(b"HTTP/1.1 200"), data
    return conn


def read_to_end(conn: socket.socket) -> bytes:
    """Everything the server still sends, up to its end of the connection (a reset raises)."""
    data = b""
    while chunk := conn.recv(65536):
        data += chunk
    return data
