"""Slow clients against each gunicorn worker class: N connections that trickle their request (half
stuck in their headers, half in a declared body, one more piece a second), while /healthz and
moves are probed. Prints, per worker class, the probes answered and their worst latency; never
passes or fails (tests/robustness/test_slow_clients.py holds the service to a second).

    python -m bench.slow_clients                       # 200 slow connections, gevent and gthread
    python -m bench.slow_clients --slow 50 200 800 --worker-class gevent
"""
from __future__ import annotations

import argparse
import socket
import statistics
import tempfile
import threading
import time

import requests

from bench.common import Server, create_game, machine, move_stream


class Tricklers:
    """``n`` connections to 127.0.0.1:``port``, half stuck in their headers and half in a
    declared body, each sending one more small piece every ``every`` seconds until closed."""

    def __init__(self, port: int, n: int, every: float = 1.0):
        self.socks: list[socket.socket] = []
        for i in range(n):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            if i % 2:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: referee\r\n")
            else:
                s.sendall(b"POST /api/v1/games HTTP/1.1\r\nHost: referee\r\nContent-Type: application/json\r\n"
                          b"Content-Length: 60000\r\n\r\n{")
            self.socks.append(s)
        self.stop = threading.Event()
        self.sent = 0
        self.thread = threading.Thread(target=self._trickle, args=(every,), daemon=True)
        self.thread.start()

    def _trickle(self, every: float) -> None:
        while not self.stop.wait(every):
            for i, s in enumerate(self.socks):
                try:
                    s.sendall(b"X-Slow: 1\r\n" if i % 2 else b" ")
                    self.sent += 1
                except OSError:
                    pass

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        for s in self.socks:
            s.close()


def probe(base: str, game: dict, moves, seconds: float) -> dict:
    """/healthz then a move, every 0.1 s for ``seconds``; a probe that takes over 5 s fails."""
    health, writes, failed = [], [], 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for kind in ("healthz", "move"):
            started = time.monotonic()
            try:
                if kind == "healthz":
                    ok = requests.get(f"{base}/healthz", timeout=5).status_code == 200
                else:
                    ok = requests.post(f"{base}/api/v1/games/{game['id']}/moves", json=next(moves), timeout=5,
                                       headers={"Authorization": f"Bearer {game['token']}"}).status_code == 201
            except requests.RequestException:
                ok = False
            (health if kind == "healthz" else writes).append(time.monotonic() - started)
            failed += not ok
        time.sleep(0.1)
    return {"probes": len(health) + len(writes), "failed": failed,
            "healthz_p50": statistics.median(health) * 1000, "healthz_max": max(health) * 1000,
            "move_p50": statistics.median(writes) * 1000, "move_max": max(writes) * 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slow", nargs="+", type=int, default=[200], help="slow connections held open")
    parser.add_argument("--worker-class", nargs="+", default=["gevent", "gthread"], dest="worker_classes")
    parser.add_argument("--seconds", type=float, default=8.0, help="probing time per row")
    args = parser.parse_args()
    print(machine(), flush=True)
    stream = move_stream(2000)
    for worker_class in args.worker_classes:
        for n in args.slow:
            url = f"sqlite:///{tempfile.mkdtemp(prefix='bench-slow-')}/bench.sqlite3"
            with Server("wsgi:app", database_url=url, GUNICORN_WORKER_CLASS=worker_class) as referee:
                referee.wait("/readyz")
                game = create_game(referee.base)
                slow = Tricklers(referee.port, n)
                try:
                    time.sleep(1.5)
                    r = probe(referee.base, game, iter(stream), args.seconds)
                finally:
                    slow.close()
            print(f"{worker_class:8} slow={n:<5} probes {r['probes']:4}  failed {r['failed']:3}  "
                  f"/healthz p50 {r['healthz_p50']:7.1f} ms max {r['healthz_max']:7.1f} ms  "
                  f"move p50 {r['move_p50']:7.1f} ms max {r['move_max']:7.1f} ms", flush=True)


if __name__ == "__main__":
    main()
