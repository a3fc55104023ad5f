"""Live event streams (GET /api/v1/games/{id}/events) under gunicorn as the README serves it: how
many open streams the box holds, the time from a move's 201 to its event at a follower, and move
throughput with and without the streams open. Prints figures; never passes or fails.

    python -m bench.streams                          # SQLite, then PostgreSQL (BENCH_PG_URL)
    python -m bench.streams --db sqlite --streams 1000 1800

Idle streams are raw sockets that sent their request and read nothing more (the server's 15 s
heartbeats wait in the kernel's buffers); followers that measure latency read their stream in a
thread. Moves come from wrk as in bench.throughput (legal moves, one in flight per game).
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import tempfile
import threading
import time

import requests

from bench.common import GAMES, Server, create_game, database_url, games_file, machine, move_stream, wrk


def open_idle_streams(port: int, game_ids: list[str], n: int) -> list[socket.socket]:
    socks = []
    for i in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(f"GET /api/v1/games/{game_ids[i % len(game_ids)]}/events HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
        socks.append(s)
    for s in socks:  # each answered its headers: the stream is open
        head = s.recv(4096)
        if not head.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(head[:200])
    return socks


def latency(base: str, rounds: int) -> tuple[list[float], list[float]]:
    """For each move on a fresh game with one follower: seconds from sending the move to its 201,
    and from sending it to the follower's event (the event may come first: it leaves at commit)."""
    game = create_game(base)
    arrived: dict[int, float] = {}
    stream = requests.get(f"{base}/api/v1/games/{game['id']}/events", stream=True, timeout=30)

    def read():
        try:
            for line in stream.iter_lines(decode_unicode=True):
                if line.startswith("data:"):
                    arrived[json.loads(line[5:])["revision"]] = time.monotonic()
        except Exception:  # closed at the end
            pass

    threading.Thread(target=read, daemon=True).start()
    time.sleep(0.3)
    answers, events = [], []
    for revision, move in enumerate(move_stream(rounds), start=1):
        sent = time.monotonic()
        answer = requests.post(f"{base}/api/v1/games/{game['id']}/moves", json=move, timeout=10,
                               headers={"Authorization": f"Bearer {game['token']}"})
        answers.append(time.monotonic() - sent)
        assert answer.status_code == 201, answer.text
        deadline = time.monotonic() + 5
        while revision not in arrived and time.monotonic() < deadline:
            time.sleep(0.0005)
        events.append(arrived.get(revision, float("inf")) - sent)
        time.sleep(0.02)
    stream.close()
    return answers, events


def figures(answers: list[float], events: list[float]) -> str:
    def p(values, q):
        return sorted(values)[min(len(values) - 1, int(q * len(values)))] * 1000

    return (f"201 p50 {p(answers, .5):5.1f} p99 {p(answers, .99):5.1f} ms, event p50 {p(events, .5):5.1f} "
            f"p99 {p(events, .99):5.1f} ms")


def move_rate(server: Server, http: requests.Session, tmp: str, moves_file: str, clients: int,
              duration: float) -> dict:
    games = games_file(server.base, clients, os.path.join(tmp, f"games-{time.monotonic_ns()}.txt"), http)
    return wrk(server.base, clients, duration, "moves", "/", games_file=games, moves_file=moves_file)


def run(db: str, counts: list[int], clients: int, duration: float, moves_file: str) -> None:
    tmp = tempfile.mkdtemp(prefix="bench-streams-")
    url = database_url(db, tmp)
    with Server("wsgi:app", database_url=url, EVENTS_MAX_SECONDS="600") as server:
        server.wait("/readyz")
        http = requests.Session()
        base = move_rate(server, http, tmp, moves_file, clients, duration)
        print(f"{db:8} streams=0     moves c={clients} {base['rps']:6.0f}/s p99 {base['p99']:7.1f} ms  "
              f"from sending a move: {figures(*latency(server.base, 100))}", flush=True)
        watched = [create_game(server.base, http)["id"] for _ in range(GAMES)]
        for n in counts:
            started = time.monotonic()
            socks = open_idle_streams(server.port, watched, n)
            opened = time.monotonic() - started
            try:
                health = [requests.get(f"{server.base}/healthz", timeout=10).elapsed.total_seconds() for _ in range(20)]
                loaded = move_rate(server, http, tmp, moves_file, clients, duration)
                print(f"{db:8} streams={n:<5} moves c={clients} {loaded['rps']:6.0f}/s p99 {loaded['p99']:7.1f} ms "
                      f"({loaded['rps'] / base['rps']:.2f} of no streams)  from sending a move: "
                      f"{figures(*latency(server.base, 100))}  "
                      f"opened in {opened:.1f} s, /healthz worst {max(health) * 1000:.1f} ms  "
                      f"worker RSS {server.worker_rss_mib()} MiB", flush=True)
            finally:
                for s in socks:
                    s.close()
            time.sleep(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", nargs="+", default=["sqlite", "postgres"], choices=["sqlite", "postgres"])
    parser.add_argument("--streams", nargs="+", type=int, default=[1000, 1800],
                        help="idle streams held open (two workers hold 1,000 connections each)")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--duration", type=float, default=5.0)
    args = parser.parse_args()
    print(machine(), flush=True)
    moves_file = tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False)
    moves_file.write("\n".join(json.dumps(m, separators=(",", ":")) for m in move_stream(1000)) + "\n")
    moves_file.close()
    for db in args.db:
        run(db, args.streams, args.clients, args.duration, moves_file.name)


if __name__ == "__main__":
    main()
