"""The floor under a move: what a move cannot cost less than, measured in the same run as a whole
move, so that a move's figure reads as "how far above the physical floor". Prints figures; never
passes or fails.

    python -m bench.floor                       # SQLite, then PostgreSQL (BENCH_PG_URL)
    python -m bench.floor --db sqlite --moves 300

- ``commit``: a bare durable commit of a move-sized row (the move's JSON, plus the game row's
  snapshot updated), on a fresh connection as the service opens it (SQLite in WAL mode with
  ``synchronous=FULL``; PostgreSQL with its default ``synchronous_commit=on``).
- ``apply``: the engine alone, ``ninety_nine.GAME.apply`` on the state of a game at that point.
- ``json``: encoding the public state (``public_state``) as the answer's JSON.
- ``move``: a whole move through the application in process (Flask's test client: the HTTP layer,
  the store, the engine, the commit), no socket. bench/throughput.py measures it over HTTP.

The floor under a follower's read (``GET /games/{id}`` answered 304), in the same run:

- ``query``: the indexed read of the game's version and revision on a bare driver connection
  (``sqlite3``; ``psycopg`` in autocommit), one round trip on PostgreSQL.
- ``304``: the whole answer through the app's WSGI callable (Flask's view, its log line and
  metrics), no socket.

Each figure is the median of ``--moves`` samples, taken at the same moves of one game.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sqlite3
import statistics
import tempfile
import time

import psycopg
from sqlalchemy import create_engine, make_url, text
from werkzeug.test import EnvironBuilder

from bench.common import OPTIONS, PG_URL, PLAYERS, machine, move_stream, reset_postgres
from referee.app import _engine_options, create_app
from referee.rules import ninety_nine
from referee.rules.base import public_state


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def bare_commits(url: str, payload: str, state: str, n: int) -> list[float]:
    """Insert one move-sized row and update one snapshot-sized row, then commit: ``n`` times."""
    engine = create_engine(url, **_engine_options(url, 10))
    times = []
    with engine.connect() as connection:
        if url.startswith("sqlite"):
            for pragma in ("PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL"):
                connection.exec_driver_sql(pragma)
        connection.execute(text("DROP TABLE IF EXISTS floor_moves"))
        connection.execute(text("DROP TABLE IF EXISTS floor_games"))
        connection.execute(text("CREATE TABLE floor_games (id INTEGER PRIMARY KEY, version INTEGER, state TEXT)"))
        connection.execute(text("CREATE TABLE floor_moves (id INTEGER PRIMARY KEY, game INTEGER, seq INTEGER, "
                                "payload TEXT)"))
        connection.execute(text("INSERT INTO floor_games VALUES (1, 0, :s)"), {"s": state})
        connection.commit()
        for seq in range(1, n + 1):
            started = time.perf_counter()
            connection.execute(text("UPDATE floor_games SET version = :v, state = :s WHERE id = 1"),
                               {"v": seq, "s": state})
            connection.execute(text("INSERT INTO floor_moves (id, game, seq, payload) VALUES (:i, 1, :i, :p)"),
                               {"i": seq, "p": payload})
            connection.commit()
            times.append(time.perf_counter() - started)
        connection.execute(text("DROP TABLE floor_moves"))
        connection.execute(text("DROP TABLE floor_games"))
        connection.commit()
    engine.dispose()
    return times


def measure(db: str, moves: int) -> dict:
    url = (f"sqlite:///{tempfile.mkdtemp(prefix='bench-')}/floor.sqlite3" if db == "sqlite" else PG_URL)
    if db == "postgres":
        reset_postgres(url)
    stream = move_stream(moves)
    # the engine and the JSON, at every move of the stream
    state = ninety_nine.new_game(PLAYERS, OPTIONS)
    applies, encodes = [], []
    for move in stream:
        started = time.perf_counter()
        state = ninety_nine.GAME.apply(state, move)
        applies.append(time.perf_counter() - started)
        started = time.perf_counter()
        json.dumps(public_state(ninety_nine.GAME, state))
        encodes.append(time.perf_counter() - started)
    commits = bare_commits(url, json.dumps(stream[len(stream) // 2]), json.dumps(state), moves)
    if db == "postgres":
        reset_postgres(url)
    # the whole move, in process; its log lines are written as the service writes them, to nowhere
    whole = []
    with open(os.devnull, "w") as nowhere, contextlib.redirect_stdout(nowhere):
        app = create_app({"SQLALCHEMY_DATABASE_URI": url, "RATELIMIT_ENABLED": False})
        client = app.test_client()
        game = client.post("/api/v1/games", json={"game": "ninety-nine", "players": PLAYERS,
                                                  "options": OPTIONS}).get_json()
        headers = {"Authorization": f"Bearer {game['token']}"}
        for move in stream:
            started = time.perf_counter()
            response = client.post(f"/api/v1/games/{game['id']}/moves", json=move, headers=headers)
            whole.append(time.perf_counter() - started)
            assert response.status_code == 201, response.get_data(as_text=True)
        figures = {"commit": median_ms(commits), "apply": median_ms(applies), "json": median_ms(encodes),
                   "move": median_ms(whole), **follower_read(app, url, game["id"], response.headers["ETag"], moves)}
    figures["floor"] = figures["commit"] + figures["apply"] + figures["json"]
    return figures


def follower_read(app, url: str, game_id: str, etag: str, n: int) -> dict:
    """A follower's 304 beside its floor: the bare query, the whole answer."""
    if url.startswith("sqlite"):
        connection = sqlite3.connect(make_url(url).database)
        query = "SELECT version, revision FROM games WHERE id = ?"
    else:
        connection = psycopg.connect(url, autocommit=True)
        query = "SELECT version, revision FROM games WHERE id = %s"
    environ = EnvironBuilder(path=f"/api/v1/games/{game_id}", headers={"If-None-Match": etag}).get_environ()
    answered = []
    samples = {"query": lambda: connection.execute(query, (game_id,)).fetchone(),
               "304": lambda: app.wsgi_app(dict(environ), lambda status, headers: answered.append(status))}
    figures = {}
    for name, run in samples.items():
        for _ in range(50):  # warm: psycopg prepares a statement at its fifth use
            run()
        times = []
        for _ in range(n):
            started = time.perf_counter()
            run()
            times.append(time.perf_counter() - started)
        figures[name] = median_ms(times)
    connection.close()
    assert set(answered) == {"304 NOT MODIFIED"}, set(answered)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", nargs="+", default=["sqlite", "postgres"], choices=["sqlite", "postgres"])
    parser.add_argument("--moves", type=int, default=300)
    args = parser.parse_args()
    os.environ.setdefault("SECRET_KEY", "bench")
    print(machine(), flush=True)
    print(f"{'db':8} {'commit ms':>10} {'apply ms':>9} {'json ms':>8} {'floor ms':>9} {'move ms':>8} {'move/floor':>11}")
    reads = []
    for name in args.db:
        f = measure(name, args.moves)
        reads.append((name, f))
        print(f"{name:8} {f['commit']:10.3f} {f['apply']:9.3f} {f['json']:8.3f} {f['floor']:9.3f} {f['move']:8.3f} "
              f"{f['move'] / f['floor']:11.2f}", flush=True)
    print(f"\n{'db':8} {'query ms':>9} {'304 ms':>8} {'304/query':>10}")
    for name, f in reads:
        print(f"{name:8} {f['query']:9.3f} {f['304']:8.3f} {f['304'] / f['query']:10.2f}")


if __name__ == "__main__":
    main()
