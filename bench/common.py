"""Shared by the benchmarks: gunicorn servers on loopback, a legal Ninety-nine move stream, wrk."""
from __future__ import annotations

import json
import os
import platform
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

from referee.rules import ninety_nine as nn
from referee.rules.base import RuleError

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"]
OPTIONS = {"tokens": 99, "decks": 2}
PG_URL = os.environ.get("BENCH_PG_URL", "postgresql://postgres@127.0.0.1:5432/bench")
SUITS = "SHDC"
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


# ---------------------------------------------------------------- the machine

def machine() -> str:
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem_kb = next(int(line.split()[1]) for line in open("/proc/meminfo") if line.startswith("MemTotal"))
    except OSError:
        mem_kb = 0
    return (f"nproc={os.cpu_count()} cpu={cpu!r} mem={mem_kb / 1024 / 1024:.1f} GiB "
            f"python={platform.python_version()}")


# ---------------------------------------------------------------- a legal move stream

def move_stream(n: int, seed: int = 1, players=PLAYERS, options=OPTIONS) -> list[dict]:
    """``n`` legal moves of one Ninety-nine game, as a table would play them: each player plays a
    random card that is still available (the service does not know hands: any card with a copy
    left since the last shuffle is legal), preferring a card that costs nobody a token. Rounds end,
    tokens are lost and the state grows as in a real game. Checked against the engine itself."""
    rng = random.Random(seed)
    state = nn.new_game(list(players), dict(options))
    moves: list[dict] = []
    while len(moves) < n:
        if state["winners"]:
            raise RuntimeError(f"the game ended after {len(moves)} moves: use more tokens")
        player = state["to_play"]
        candidates = []
        for rank in RANKS:
            for value in {"10": (10, -10), "A": (1, 11)}.get(rank, (None,)):
                card = rank + rng.choice(SUITS)
                effect = nn.play_effect(state["total"], card, value, len(nn._active(state)))
                candidates.append((effect.player_loses + effect.others_lose, rng.random(), card, value))
        candidates.sort()
        for _, _, card, value in candidates:
            move = {"type": "play", "player": player, "card": card}
            if value is not None:
                move["value"] = value
            try:
                state = nn.GAME.apply(state, move)
            except RuleError:
                continue
            moves.append(move)
            break
        else:
            raise RuntimeError("no legal play found")
    return moves


# ---------------------------------------------------------------- servers

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def reset_postgres(url: str = PG_URL) -> None:
    """Empty the benchmark database (never the test database)."""
    from sqlalchemy import create_engine, text

    from referee.config import normalise_url

    engine = create_engine(normalise_url(url))
    with engine.begin() as conn:
        conn.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
    engine.dispose()


def cpu_seconds(pids) -> float:
    """CPU time (user + system) the processes ``pids`` have used so far, from /proc; a process that
    has ended meanwhile counts for nothing."""
    total = 0
    for pid in pids:
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / os.sysconf("SC_CLK_TCK")


class Server:
    """gunicorn with the project's gunicorn.conf.py on 127.0.0.1, as deployed (for both apps)."""

    def __init__(self, app: str, database_url: str | None = None, workers: int | None = None,
                 root: str | Path = ROOT, **env):
        """``root``: the checkout to serve (its code and its gunicorn.conf.py); this one by default."""
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = tempfile.NamedTemporaryFile("w+", prefix="bench-gunicorn-", suffix=".log", delete=False)
        environ = dict(os.environ, PORT=str(self.port), SECRET_KEY="bench", RATELIMIT_ENABLED="0",
                       LOG_LEVEL="warning")
        environ.update(env)  # which may turn the rate limiter back on
        if workers:
            environ["WEB_CONCURRENCY"] = str(workers)
        if database_url:
            environ["DATABASE_URL"] = database_url
        self.proc = subprocess.Popen(
            # no access log, as gunicorn.conf.py has it (an --access-logfile, even /dev/null, has
            # gunicorn format a line for every request)
            [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py", "--bind", f"127.0.0.1:{self.port}", app],
            cwd=root, env=environ, stdout=subprocess.DEVNULL, stderr=self.log)

    def wait(self, path: str) -> "Server":
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                if requests.get(self.base + path, timeout=1).status_code == 200:
                    return self
            except requests.ConnectionError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(open(self.log.name).read())

    def workers(self) -> list[int]:
        out = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True).stdout
        return [int(p) for p in out.split()]

    def connections(self) -> list[int]:
        """How many client connections each worker holds now (``ss``), most first: how the workers
        shared a run's connections, which on SQLite sets its rate (bench/README.md, thirteenth pass)."""
        workers = self.workers()
        out = subprocess.run(["ss", "-tnpH", "state", "established", f"( sport = :{self.port} )"],
                             capture_output=True, text=True).stdout
        held = [int(pid) for pid in re.findall(r"pid=(\d+)", out)]
        return sorted((held.count(pid) for pid in workers), reverse=True)

    def worker_rss_mib(self) -> list[float]:
        sizes = []
        for pid in self.workers():
            try:
                for line in open(f"/proc/{pid}/status"):
                    if line.startswith("VmRSS:"):
                        sizes.append(int(line.split()[1]) / 1024)
            except OSError:
                pass
        return sorted(sizes)

    def cpu_seconds(self) -> float:
        """CPU time (user + system) the workers have used so far, from /proc: beside a row's requests,
        what each request cost the server's cores."""
        return cpu_seconds(self.workers())

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def database_url(db: str, tmp: str) -> str:
    """A fresh SQLite file in ``tmp`` (``db`` "sqlite"), else the emptied benchmark PostgreSQL database."""
    if db == "sqlite":
        return f"sqlite:///{tmp}/bench.sqlite3"
    reset_postgres(PG_URL)
    return PG_URL


def create_game(base: str, session: requests.Session | None = None) -> dict:
    http = session or requests
    response = http.post(f"{base}/api/v1/games", json={"game": "ninety-nine", "players": PLAYERS,
                                                        "options": OPTIONS}, timeout=10)
    response.raise_for_status()
    return response.json()


GAMES = 64  # the games a row of moves plays, each owned by one of the row's connections
JUDGE_BODY = json.dumps({"total": 60, "card": "2S", "players": 4})  # a verdict's request


def games_file(base: str, clients: int, path: str, session: requests.Session | None = None) -> str:
    """``GAMES`` new games, written to ``path`` for bench/wrk.lua a line each (``<connection> <id>
    <token>``), dealt round the ``clients`` connections; returns ``path``."""
    with open(path, "w") as f:
        for i in range(GAMES):
            game = create_game(base, session)
            f.write(f"{i % clients} {game['id']} {game['token']}\n")
    return path


# ---------------------------------------------------------------- wrk

WRK_SCRIPT = ROOT / "bench" / "wrk.lua"


def wrk(base: str, clients: int, duration: float, mode: str, path: str = "/", body: str = "",
        games_file: str = "", moves_file: str = "", if_none_match: str = "") -> dict:
    """Run wrk with one thread per connection (so each connection's requests are sequential) and
    return requests/s, p50 and p99 in ms, and the count of non-2xx answers and socket errors."""
    env = dict(os.environ, BENCH_MODE=mode, BENCH_PATH=path, BENCH_BODY=body, BENCH_GAMES=games_file,
               BENCH_MOVES=moves_file, BENCH_IF_NONE_MATCH=if_none_match)
    cmd = ["wrk", "-t", str(clients), "-c", str(clients), "-d", f"{int(duration)}s", "--timeout", "10s",
           "-s", str(WRK_SCRIPT), base + path]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=duration + 60)
    line = next((l for l in out.stdout.splitlines() if l.startswith("{")), None)
    if line is None:
        raise RuntimeError(out.stdout + out.stderr)
    data = json.loads(line)
    seconds = data["duration_us"] / 1e6
    return {
        "rps": data["requests"] / seconds,
        "p50": data["p50_us"] / 1000,
        "p99": data["p99_us"] / 1000,
        "requests": data["requests"],
        "bad": data["errors_status"],
        "socket_errors": data["errors_connect"] + data["errors_read"] + data["errors_write"] + data["errors_timeout"],
    }
