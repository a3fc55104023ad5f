"""Slow clients (issue 16): 200 connections that trickle their request, a header line or a few
bytes of body at a time, must not take the service down. gunicorn is started as the README
starts it (the project's gunicorn.conf.py, its default worker class); while the slow
connections are open, /healthz and moves are probed and each must answer within a second."""
from __future__ import annotations

import time

import pytest
import requests

from bench.slow_clients import Tricklers, probe
from robustness_helpers import PLAYERS, legal_stream

pytestmark = [pytest.mark.slow, pytest.mark.serial]  # serial: the probes are timed

SLOW = 200
PROBE_SECONDS = 6.0


def test_two_hundred_slow_connections_leave_probes_and_moves_under_a_second(gunicorns):
    server = gunicorns()  # the project's gunicorn.conf.py, as the README starts it
    http = requests.Session()
    game = http.post(f"{server.base}/api/v1/games", json={"game": "ninety-nine", "players": PLAYERS,
                                                           "options": {"tokens": 99, "decks": 2}}).json()
    slow = Tricklers(server.port, SLOW)
    try:
        time.sleep(1.5)  # every slow connection is open and has sent at least one more piece
        found = probe(server.base, game, iter(legal_stream(400)), PROBE_SECONDS)
        assert slow.sent >= SLOW, "the slow connections were not all held open"
    finally:
        slow.close()
    print(f"\n{SLOW} slow connections: {found}")
    assert found["probes"] >= 20 and found["failed"] == 0
    assert found["healthz_max"] < 1000 and found["move_max"] < 1000
    state = http.get(f"{server.base}/api/v1/games/{game['id']}").json()
    assert state["version"] == found["probes"] // 2
