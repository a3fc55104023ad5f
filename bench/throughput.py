"""HTTP throughput and latency under gunicorn, as ratios to a bare "hello" Flask endpoint served
the same way in the same run, beside the floor of a write over HTTP (bench/hello.py's ``POST
/commit``: one durable commit of what a move stores, and nothing else). Prints a table; never
passes or fails.

    python -m bench.throughput                  # SQLite, then PostgreSQL (BENCH_PG_URL)
    python -m bench.throughput --db sqlite --duration 5 --clients 1 16 64

Load generator: wrk, one thread per connection (``-t N -c N``), driven by bench/wrk.lua.
Move submission must stay legal under load, so every connection owns its own games and posts
to each, in order, the next move of one precomputed legal stream (bench.common.move_stream,
checked against the engine): no two requests of one game are ever in flight at once, and every
request is a legal move (a non-201 is counted and printed in the "bad" column). There are 64
games at every client count (64/N per connection), so each game stays in its first few hundred
moves; the cost of late moves is measured by bench/growth.py. The memory figure is the resident
size of each gunicorn worker after the whole run. ``cpu ms`` is the CPU time the server's workers
used per request in that row (from /proc): when it times the rate comes to about the cores, the
row is bound by the CPU, not by waiting.
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import requests

from bench.common import JUDGE_BODY, Server, create_game, database_url, games_file, machine, move_stream, wrk


def rows_for(db: str, clients: list[int], duration: float, moves_file: str, stream: list[dict],
             worker_class: str) -> list[dict]:
    tmp = tempfile.mkdtemp(prefix="bench-")
    url = database_url(db, tmp)
    rows = []
    served = {"GUNICORN_WORKER_CLASS": worker_class}  # hello is served the same way as the referee
    # the floor of a write over HTTP (bench/hello.py): on SQLite a file of its own on the same disk
    floor_url = f"sqlite:///{tmp}/floor.sqlite3" if db == "sqlite" else url
    with Server("bench.hello:app", **served) as hello, Server("wsgi:app", database_url=url, **served) as referee, \
            Server("bench.hello:app", FLOOR_DATABASE_URL=floor_url, **served) as floor:
        hello.wait("/hello")
        referee.wait("/readyz")
        floor.wait("/hello")
        http = requests.Session()
        # A game some way in, for GET /games/{id}.
        shown = create_game(referee.base, http)
        for move in stream[:200]:
            r = http.post(f"{referee.base}/api/v1/games/{shown['id']}/moves", json=move,
                          headers={"Authorization": f"Bearer {shown['token']}"}, timeout=10)
            assert r.status_code == 201, r.text
        shown_tag = r.headers["ETag"]
        rss_start = referee.worker_rss_mib()
        for n in clients:
            games = games_file(referee.base, n, os.path.join(tmp, f"games-{n}.txt"), http)
            base_hello = timed(hello, wrk, hello.base, n, duration, "get", "/hello")
            rows.append(dict(db=db, worker=worker_class, what="hello (baseline)", clients=n, **base_hello, ratio=1.0))
            for what, result in (
                ("POST /judge/ninety-nine/play", timed(referee, wrk, referee.base, n, duration, "post",
                                                       "/api/v1/judge/ninety-nine/play", JUDGE_BODY)),
                ("GET /games/{id} (v200)", timed(referee, wrk, referee.base, n, duration, "get",
                                                 f"/api/v1/games/{shown['id']}")),
                ("GET /games/{id} 304", timed(referee, wrk, referee.base, n, duration, "get",
                                              f"/api/v1/games/{shown['id']}", if_none_match=shown_tag)),
                ("POST /games/{id}/moves", timed(referee, wrk, referee.base, n, duration, "moves", "/",
                                                 games_file=games, moves_file=moves_file)),
                ("POST bare commit (floor)", timed(floor, wrk, floor.base, n, duration, "post", "/commit",
                                                   json.dumps(stream[0], separators=(",", ":")))),
            ):
                rows.append(dict(db=db, worker=worker_class, what=what, clients=n, **result,
                                 ratio=result["rps"] / base_hello["rps"]))
            print_rows(rows[-6:])
        rss_end = referee.worker_rss_mib()
        total = sum(r["requests"] for r in rows if r["what"] not in ("hello (baseline)", "POST bare commit (floor)"))
        print(f"[{db} {worker_class}] worker RSS MiB after warm-up {rss_start} -> after {total} referee requests {rss_end}",
              flush=True)
        rows.append(dict(db=db, worker=worker_class, what="worker RSS MiB", rss_start=rss_start, rss_end=rss_end,
                         requests=total))
    return rows


def timed(server, run, *args, **kwargs) -> dict:
    """``run(*args, **kwargs)`` (a wrk row) with the server's CPU time per request beside it."""
    before = server.cpu_seconds()
    result = run(*args, **kwargs)
    result["cpu_ms"] = 1000 * (server.cpu_seconds() - before) / max(result["requests"], 1)
    return result


def print_rows(rows: list[dict]) -> None:
    for r in rows:
        print(f"{r['db']:8} {r['worker']:7} {r['what']:30} c={r['clients']:<3} {r['rps']:8.0f} req/s  p50 {r['p50']:7.2f} ms  "
              f"p99 {r['p99']:7.2f} ms  ratio {r['ratio']:.2f}  cpu {r['cpu_ms']:.3f} ms/req  bad {r['bad']}  "
              f"socket errors {r['socket_errors']}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", nargs="+", default=["sqlite", "postgres"], choices=["sqlite", "postgres"])
    parser.add_argument("--clients", nargs="+", type=int, default=[1, 16, 64])
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per wrk run")
    parser.add_argument("--worker-class", nargs="+", default=["gevent", "gthread"], dest="worker_classes",
                        help="gunicorn worker classes to compare, each in turn with its own hello baseline")
    parser.add_argument("--json", help="also write every row to this file")
    args = parser.parse_args()
    print(machine(), flush=True)
    stream = move_stream(1000)
    moves_file = tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False)
    moves_file.write("\n".join(json.dumps(m, separators=(",", ":")) for m in stream) + "\n")
    moves_file.close()
    started = time.time()
    rows = []
    for db in args.db:
        for worker_class in args.worker_classes:
            rows += rows_for(db, args.clients, args.duration, moves_file.name, stream, worker_class)
    print(f"\n{'db':8} {'worker':7} {'endpoint':30} {'clients':>7} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'x hello':>8} "
          f"{'cpu ms':>7} {'bad':>5}")
    for r in rows:
        if "rps" in r:
            print(f"{r['db']:8} {r['worker']:7} {r['what']:30} {r['clients']:>7} {r['rps']:8.0f} {r['p50']:8.2f} {r['p99']:8.2f} "
                  f"{r['ratio']:8.2f} {r['cpu_ms']:7.3f} {r['bad'] + r['socket_errors']:>5}")
        else:
            print(f"{r['db']:8} {r['worker']:7} {r['what']:30} start {r['rss_start']} end {r['rss_end']} after {r['requests']} requests")
    print(f"({time.time() - started:.0f} s)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
