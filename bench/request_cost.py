"""What the referee's own layers cost a request, in process: its WSGI callable called with a built
environ (no socket, no gunicorn), against the bare Flask hello of ``bench/hello.py`` in the same
run, with the rate limiter off (as the HTTP benches serve the referee: their games would hit the
creation limit) and on (as deployed, with a creation limit the run never reaches). Prints figures;
never passes or fails.

    python -m bench.request_cost                 # SQLite in a temporary file
    python -m bench.request_cost --db postgres   # PostgreSQL at BENCH_PG_URL (emptied first)
    python -m bench.request_cost --repeat 9 --requests 2000 --moves 300

- ``hello``: the bare Flask view, the baseline.
- ``/healthz``: the referee's hooks around a view that does nothing (the log line and metrics, the
  session, the language, the rate limiter's).
- ``judge``: ``POST /api/v1/judge/ninety-nine/play``, the rules with no database.
- ``move``: ``POST /api/v1/games/{id}/moves``, a whole move with its durable commit, each run on a
  fresh game (the move stream of ``bench.throughput``).

Each figure is the best of ``--repeat`` runs (the machine's noise only ever adds), in microseconds
per request. Over HTTP these costs are part of ``bench.throughput``'s rows; in process a change of
a few microseconds shows, where the HTTP figures drift more than that from one minute to the next.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import tempfile
import time

from werkzeug.test import EnvironBuilder

from bench.common import JUDGE_BODY, OPTIONS, PLAYERS, database_url, machine, move_stream

LIMITED = {"RATELIMIT_ENABLED": True, "RATELIMIT_CREATE": "1000000 per minute", "RATELIMIT_STORAGE_URI": "memory://"}


def environ(method: str, path: str, body: bytes = b"", headers: dict | None = None) -> tuple[dict, bytes]:
    built = EnvironBuilder(method=method, path=path, data=body or None, headers=headers or {},
                           content_type="application/json" if body else None).get_environ()
    return built, body


def call(app, request: tuple[dict, bytes]) -> str:
    """One request through ``app``'s WSGI callable; its status line."""
    built, body = request
    env = dict(built, **{"wsgi.input": io.BytesIO(body)})
    status = []
    answer = app(env, lambda line, headers, exc_info=None: status.append(line))
    for _ in answer:
        pass
    getattr(answer, "close", lambda: None)()
    return status[0]


def best_us(run, repeat: int) -> float:
    """The best of ``repeat`` runs of ``run()``, which returns (seconds, requests)."""
    return min(seconds / requests for seconds, requests in (run() for _ in range(repeat))) * 1e6


def timed(app, request: tuple[dict, bytes], n: int):
    def run():
        started = time.perf_counter()
        for _ in range(n):
            call(app, request)
        return time.perf_counter() - started, n
    return run


def timed_moves(app, stream: list[dict]):
    def run():
        client = app.test_client()
        game = client.post("/api/v1/games", json={"game": "ninety-nine", "players": PLAYERS,
                                                  "options": OPTIONS}).get_json()
        requests = [environ("POST", f"/api/v1/games/{game['id']}/moves", json.dumps(move).encode(),
                            {"Authorization": f"Bearer {game['token']}"}) for move in stream]
        started = time.perf_counter()
        for request in requests:
            status = call(app, request)
            assert status.startswith("201"), status
        return time.perf_counter() - started, len(requests)
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--requests", type=int, default=2000, help="requests per run of hello, /healthz, judge")
    parser.add_argument("--moves", type=int, default=300, help="moves per run (each run a fresh game)")
    parser.add_argument("--db", default="sqlite", choices=["sqlite", "postgres"],
                        help="where the moves are written: a temporary SQLite file, or the PostgreSQL at BENCH_PG_URL")
    args = parser.parse_args()
    os.environ.setdefault("SECRET_KEY", "bench")
    print(machine(), flush=True)
    from bench import hello
    from referee.app import create_app
    url = database_url(args.db, tempfile.mkdtemp(prefix="bench-"))
    stream = move_stream(args.moves)
    rows = []
    # the service's log lines are written as it writes them, to nowhere
    with open(os.devnull, "w") as nowhere, contextlib.redirect_stdout(nowhere):
        for label, extra in (("limiter off", {"RATELIMIT_ENABLED": False}), ("limiter on", LIMITED)):
            app = create_app({"SQLALCHEMY_DATABASE_URI": url, **extra})
            figures = {
                "hello": best_us(timed(hello.app, environ("GET", "/hello"), args.requests), args.repeat),
                "/healthz": best_us(timed(app, environ("GET", "/healthz"), args.requests), args.repeat),
                "judge": best_us(timed(app, environ("POST", "/api/v1/judge/ninety-nine/play", JUDGE_BODY.encode()),
                                       args.requests), args.repeat),
                "move": best_us(timed_moves(app, stream), args.repeat),
            }
            rows.append((label, figures))
    print(f"{'':12} {'hello us':>9} {'/healthz us':>12} {'judge us':>9} {'move us':>8}   x hello: /healthz, judge, move")
    for label, f in rows:
        print(f"{label:12} {f['hello']:9.1f} {f['/healthz']:12.1f} {f['judge']:9.1f} {f['move']:8.1f}   "
              f"{f['/healthz'] / f['hello']:.2f}, {f['judge'] / f['hello']:.2f}, {f['move'] / f['hello']:.2f}")


if __name__ == "__main__":
    main()
