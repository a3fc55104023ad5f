"""Slow clients (issue 16): 200 connections that trickle their request, a header line or a few
bytes of body at a time, must not take the service down. gunicorn is started as the README
starts it (the project's gunicorn.conf.py, its default worker class); while the slow
connections are open, /healthz and moves are probed and each must answer within a second."""
from __future__ import annotations

import socket
import threading
import time

import pytest
import requests

from robustness_helpers import PLAYERS, legal_stream

pytestmark = pytest.mark.slow

SLOW = 200
PROBE_SECONDS = 6.0


class Tricklers:
    """``n`` connections, half stuck in their headers and half in a declared body, each sending
    one more small piece every ``every`` seconds until stopped."""

    def __init__(self, port: int, n: int, every: float = 1.0):
        self.socks: list[socket.socket] = []
        for i in range(n):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            if i % 2:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: referee\r\n")
            else:
                s.sendall(b"POST /api/v1/games HTTP/1.1\r\nHost: referee\r\nContent-Type: application/json\r\n"
                          b"Content-Length: 100000\r\n\r\n{")
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


def test_two_hundred_slow_connections_leave_probes_and_moves_under_a_second(gunicorns):
    server = gunicorns()  # the project's gunicorn.conf.py, as the README starts it
    http = requests.Session()
    game = http.post(f"{server.base}/api/v1/games", json={"game": "ninety-nine", "players": PLAYERS,
                                                           "options": {"tokens": 99, "decks": 2}}).json()
    moves = iter(legal_stream(200))
    slow = Tricklers(server.port, SLOW)
    try:
        time.sleep(1.5)  # every slow connection is open and has sent at least one more piece
        probes, writes = [], []
        deadline = time.monotonic() + PROBE_SECONDS
        while time.monotonic() < deadline:
            started = time.monotonic()
            assert requests.get(f"{server.base}/healthz", timeout=5).status_code == 200
            probes.append(time.monotonic() - started)
            started = time.monotonic()
            answer = requests.post(f"{server.base}/api/v1/games/{game['id']}/moves", json=next(moves), timeout=5,
                                   headers={"Authorization": f"Bearer {game['token']}"})
            writes.append(time.monotonic() - started)
            assert answer.status_code == 201, answer.text
            time.sleep(0.1)
        assert slow.sent >= SLOW, "the slow connections were not all held open"
    finally:
        slow.close()
    assert len(probes) >= 10
    print(f"\n{SLOW} slow connections: {len(probes)} probes, /healthz max {max(probes) * 1000:.0f} ms, "
          f"move max {max(writes) * 1000:.0f} ms")
    assert max(probes) < 1.0 and max(writes) < 1.0
    state = http.get(f"{server.base}/api/v1/games/{game['id']}").json()
    assert state["version"] == len(writes)
