"""Cost of a move as the game grows, and of undo late in a long game, through gunicorn (one client,
keep-alive). Prints figures; never passes or fails.

    python -m bench.growth                      # SQLite, then PostgreSQL (BENCH_PG_URL)
    python -m bench.growth --db sqlite --games 3 --moves 1000

Each game plays the same legal stream (bench.common.move_stream: rounds end, tokens are lost,
the state grows as in a real game). For each of ``--games`` pairs, a young game is played to
move 5 and an old one to move 995 untimed; then moves 6-15 of the young game and 996-1005 of the
old one are posted in turns and timed, so both see the same machine at the same moments ("move
10" and "move 1000" are the medians). Undo is timed the same way at versions 15 and 1005 (undo,
then the same move posted again, several times).

Writes send ``Prefer: return=minimal`` (the answer without the finished rounds, as a phone that
follows the game with GET needs it) unless ``--answer full``; the full state's size (a GET) is
printed beside the answer's.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time

import requests

from bench.common import PG_URL, Server, create_game, machine, move_stream, reset_postgres

UNDO_REPEATS = 5


def measure(db: str, games: int, moves: int, stream: list[dict], answer: str = "minimal") -> dict:
    if db == "sqlite":
        url = f"sqlite:///{tempfile.mkdtemp(prefix='bench-')}/growth.sqlite3"
    else:
        reset_postgres(PG_URL)
        url = PG_URL
    young, old = {"at": 5, "times": [], "undo": []}, {"at": moves - 5, "times": [], "undo": []}
    with Server("wsgi:app", database_url=url) as server:
        server.wait("/readyz")
        http = requests.Session()

        def post(game, path, body=None):
            url = f"{server.base}/api/v1/games/{game['id']}/{path}"
            headers = {"Authorization": f"Bearer {game['token']}"}
            if answer == "minimal":
                headers["Prefer"] = "return=minimal"
            r = http.post(url, json=body, headers=headers, timeout=60)
            assert r.status_code in (200, 201), (path, r.status_code, r.text)
            return r

        for _ in range(games):
            # A young game and an old one, played to moves 5 and ``moves - 5`` without timing, then
            # timed in turns (young, old, young, ...) so that both see the same machine.
            pair = [(young, create_game(server.base, http)), (old, create_game(server.base, http))]
            for side, game in pair:
                for move in stream[:side["at"]]:
                    post(game, "moves", move)
            for step in range(10):
                for side, game in pair:
                    t = time.perf_counter()
                    r = post(game, "moves", stream[side["at"] + step])
                    side["times"].append(time.perf_counter() - t)
                    side["bytes"] = len(r.content)
            for side, game in pair:
                side["state_bytes"] = len(http.get(f"{server.base}/api/v1/games/{game['id']}").content)
            for _ in range(UNDO_REPEATS):
                for side, game in pair:
                    t = time.perf_counter()
                    post(game, "undo")
                    side["undo"].append(time.perf_counter() - t)
                    post(game, "moves", stream[side["at"] + 9])
        rss = server.worker_rss_mib()
    ms = lambda xs: 1000 * statistics.median(xs)  # noqa: E731
    return {"db": db, "move10_ms": ms(young["times"]), "move_late_ms": ms(old["times"]),
            "ratio": ms(old["times"]) / ms(young["times"]), "undo10_ms": ms(young["undo"]),
            "undo_late_ms": ms(old["undo"]), "moves": moves, "body10": young["bytes"],
            "body_late": old["bytes"], "state10": young["state_bytes"], "state_late": old["state_bytes"],
            "rss": rss}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", nargs="+", default=["sqlite", "postgres"], choices=["sqlite", "postgres"])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--moves", type=int, default=1000)
    parser.add_argument("--answer", choices=["minimal", "full"], default="minimal",
                        help="the answer a write asks for (Prefer: return=minimal, or the whole state)")
    args = parser.parse_args()
    print(machine(), flush=True)
    stream = move_stream(args.moves + 5)
    for db in args.db:
        started = time.time()
        r = measure(db, args.games, args.moves, stream, args.answer)
        print(f"{db:8} move 10: {r['move10_ms']:.2f} ms   move {r['moves']}: {r['move_late_ms']:.2f} ms   "
              f"ratio {r['ratio']:.2f}   undo at 10: {r['undo10_ms']:.2f} ms   undo at {r['moves']}: "
              f"{r['undo_late_ms']:.2f} ms   {args.answer} answer bytes {r['body10']} -> {r['body_late']}   "
              f"state (GET) bytes {r['state10']} -> {r['state_late']}   "
              f"worker RSS MiB {r['rss']}   ({time.time() - started:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
