"""The cost of importing a game's record, and what it costs the other clients of the service. Prints
figures; never passes or fails.

    python -m bench.imports                       # SQLite, then PostgreSQL (BENCH_PG_URL)
    python -m bench.imports --db sqlite --moves 500 2000 15000

The service is served as the README starts it (bench.common.Server: gunicorn.conf.py, 2 gevent
workers). Each record is a legal Ninety-nine game of 16 players (bench.common.move_stream), topped
up with score adjustments (T-2) past the length such a game reaches, with created_at times as an
export has them. While each import runs once, ``--clients`` threads ask ``/healthz`` and a game's
state over and over, each on its own keep-alive connection; the row prints the import's time, its
body's size, the database's growth, and the others' median and worst wait during the import beside
their worst wait in as long a time with no import (the baseline, measured just before).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import threading
import time

import requests

from bench.common import PG_URL, Server, machine, move_stream, reset_postgres
from referee.rules import ninety_nine as nn

PLAYERS = [f"P{i:02d}" for i in range(16)]
OPTIONS = {"tokens": 99, "decks": 2}
PLAYS = 12_000  # the stream's game ends a little later (about 12,600 moves)


def record(n: int) -> dict:
    plays = move_stream(min(n, PLAYS), players=PLAYERS, options=OPTIONS)
    state = nn.new_game(PLAYERS, OPTIONS)
    for move in plays[:n] if n > len(plays) else ():
        state = nn.GAME.apply(state, move)
    still_in = [p for p in PLAYERS if p not in state.get("out", ())] if n > len(plays) else PLAYERS
    adjustments = [{"type": "adjust", "player": still_in[i % len(still_in)], "points": 1, "reason": "bench"}
                   for i in range(n - len(plays))]
    moves = [{"seq": i + 1, "version": i + 1, "voided": False, "payload": move,
              "created_at": "2026-11-27T20:00:00+00:00"} for i, move in enumerate(plays + adjustments)]
    return {"format": "referee-game", "format_version": 1, "game": "ninety-nine", "players": PLAYERS,
            "options": OPTIONS, "moves": moves}


class Others:
    """``clients`` threads reading /healthz and a game's state in turns, each timing its requests."""

    def __init__(self, base: str, clients: int, game_id: str):
        self.base, self.clients, self.game_id = base, clients, game_id
        self.waits: list[float] = []
        self.errors = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()

    def _run(self, index: int) -> None:
        http = requests.Session()
        paths = ["/healthz", f"/api/v1/games/{self.game_id}"]
        i = index
        while not self._stop.is_set():
            started = time.perf_counter()
            try:
                ok = http.get(self.base + paths[i % 2], timeout=60).status_code == 200
            except requests.RequestException:
                ok = False
            with self._lock:
                self.waits.append(time.perf_counter() - started)
                self.errors += not ok
            i += 1

    def during(self, work) -> tuple[object, list[float], int]:
        """Run ``work()`` while the clients ask; its result, their waits and their errors."""
        self.waits, self.errors = [], 0
        self._stop.clear()
        threads = [threading.Thread(target=self._run, args=(i,), daemon=True) for i in range(self.clients)]
        for thread in threads:
            thread.start()
        time.sleep(0.2)  # all of them asking before the work starts
        try:
            result = work()
        finally:
            self._stop.set()
            for thread in threads:
                thread.join()
        return result, list(self.waits), self.errors


def database_bytes(db: str, url: str) -> int:
    if db == "sqlite":
        # the file itself, once the write-ahead log is copied back into it (the log keeps its size)
        import sqlite3

        path = url.removeprefix("sqlite:///")
        with sqlite3.connect(path, timeout=30) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return os.path.getsize(path)
    from sqlalchemy import create_engine, text

    from referee.config import normalise_url

    engine = create_engine(normalise_url(url))
    with engine.connect() as conn:
        size = conn.execute(text("SELECT pg_database_size(current_database())")).scalar()
    engine.dispose()
    return size


def measure(db: str, sizes: list[int], clients: int) -> None:
    if db == "sqlite":
        url = f"sqlite:///{tempfile.mkdtemp(prefix='bench-')}/imports.sqlite3"
    else:
        reset_postgres(PG_URL)
        url = PG_URL
    print(f"\n## {db}: {clients} other clients (/healthz and GET /games/{{id}} in turns)\n")
    print("| moves | body MB | import s | ms per move | database growth MB | others' p50 / worst ms during "
          "| worst ms without | others' errors |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    with Server("wsgi:app", database_url=url, IMPORT_MAX_BYTES=str(64 * 1024 * 1024)) as server:
        server.wait("/readyz")
        game = requests.post(f"{server.base}/api/v1/games", json={"game": "ninety-nine", "players": ["Ann", "Bob"]},
                             timeout=10).json()
        others = Others(server.base, clients, game["id"])
        for n in sizes:
            body = json.dumps(record(n))
            before = database_bytes(db, url)

            def post():
                started = time.perf_counter()
                response = requests.post(f"{server.base}/api/v1/games/import", data=body, timeout=300,
                                         headers={"Content-Type": "application/json"})
                return response.status_code, time.perf_counter() - started

            (status, seconds), waits, errors = others.during(post)
            _, quiet, _ = others.during(lambda: time.sleep(min(seconds, 5)))
            grown = (database_bytes(db, url) - before) / 2**20
            print(f"| {n:,} | {len(body) / 2**20:.2f} | {seconds:.2f}{'' if status == 201 else f' ({status})'} "
                  f"| {seconds / n * 1000:.3f} | {grown:.1f} | {statistics.median(waits) * 1000:.1f} / "
                  f"{max(waits) * 1000:.0f} | {max(quiet) * 1000:.0f} | {errors} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", nargs="+", default=["sqlite", "postgres"], choices=["sqlite", "postgres"])
    parser.add_argument("--moves", nargs="+", type=int, default=[500, 2000, 15000])
    parser.add_argument("--clients", type=int, default=12)
    args = parser.parse_args()
    print(machine())
    for db in args.db:
        measure(db, args.moves, args.clients)


if __name__ == "__main__":
    main()
