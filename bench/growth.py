"""Cost of a move as the game grows, and of undo late in a long game, through gunicorn (one client,
keep-alive). Prints figures; never passes or fails.

    python -m bench.growth                      # SQLite, then PostgreSQL (BENCH_PG_URL)
    python -m bench.growth --db sqlite --games 3 --moves 1000

Each game plays the same legal stream (bench.common.move_stream: rounds end, tokens are lost,
the state grows as in a real game). Every move's round trip is timed; "move 10" is the median
of moves 6-15 over all games, "move 1000" the median of moves 996-1005. Undo is timed at
version 10 and at version 1000 (undo, then the same move posted again, several times).
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time

import requests

from bench.common import PG_URL, Server, create_game, machine, move_stream, reset_postgres

UNDO_REPEATS = 5


def measure(db: str, games: int, moves: int, stream: list[dict]) -> dict:
    if db == "sqlite":
        url = f"sqlite:///{tempfile.mkdtemp(prefix='bench-')}/growth.sqlite3"
    else:
        reset_postgres(PG_URL)
        url = PG_URL
    early, late = range(6, 16), range(moves - 4, moves + 6)
    times: dict[int, list[float]] = {}
    undo_times: dict[int, list[float]] = {10: [], moves: []}
    sizes = {}
    with Server("wsgi:app", database_url=url) as server:
        server.wait("/readyz")
        http = requests.Session()
        for _ in range(games):
            game = create_game(server.base, http)
            path = f"{server.base}/api/v1/games/{game['id']}"
            auth = {"Authorization": f"Bearer {game['token']}"}
            for n, move in enumerate(stream[:moves + 5], start=1):
                t = time.perf_counter()
                r = http.post(path + "/moves", json=move, headers=auth, timeout=30)
                times.setdefault(n, []).append(time.perf_counter() - t)
                assert r.status_code == 201, (n, r.status_code, r.text)
                if n in undo_times:
                    sizes[n] = len(r.content)
                    for _ in range(UNDO_REPEATS):
                        t = time.perf_counter()
                        u = http.post(path + "/undo", headers=auth, timeout=60)
                        undo_times[n].append(time.perf_counter() - t)
                        assert u.status_code == 200 and u.json()["version"] == n - 1, u.text
                        again = http.post(path + "/moves", json=move, headers=auth, timeout=30)
                        assert again.status_code == 201, again.text
        rss = server.worker_rss_mib()
    ms = lambda xs: 1000 * statistics.median(xs)  # noqa: E731
    t_early = ms([t for n in early for t in times[n]])
    t_late = ms([t for n in late for t in times[n]])
    return {"db": db, "move10_ms": t_early, "move_late_ms": t_late, "ratio": t_late / t_early,
            "undo10_ms": ms(undo_times[10]), "undo_late_ms": ms(undo_times[moves]), "moves": moves,
            "body10": sizes[10], "body_late": sizes[moves], "rss": rss}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", nargs="+", default=["sqlite", "postgres"], choices=["sqlite", "postgres"])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--moves", type=int, default=1000)
    args = parser.parse_args()
    print(machine(), flush=True)
    stream = move_stream(args.moves + 5)
    for db in args.db:
        started = time.time()
        r = measure(db, args.games, args.moves, stream)
        print(f"{db:8} move 10: {r['move10_ms']:.2f} ms   move {r['moves']}: {r['move_late_ms']:.2f} ms   "
              f"ratio {r['ratio']:.2f}   undo at 10: {r['undo10_ms']:.2f} ms   undo at {r['moves']}: "
              f"{r['undo_late_ms']:.2f} ms   response bytes {r['body10']} -> {r['body_late']}   "
              f"worker RSS MiB {r['rss']}   ({time.time() - started:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
