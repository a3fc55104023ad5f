"""A move made through one gunicorn master reaches a follower of another (issue 15): on PostgreSQL
by LISTEN/NOTIFY (as between machines), on one SQLite file by each process's poller."""
from __future__ import annotations

import json
import time

import pytest
import requests

from robustness_helpers import OPTIONS, PLAYERS, legal_stream

pytestmark = [pytest.mark.slow, pytest.mark.serial]  # serial: the delays are timed


def test_a_move_on_one_master_reaches_a_follower_on_another_within_a_second(gunicorns):
    writer, reader = gunicorns(workers=1), gunicorns(workers=1)
    game = requests.post(f"{writer.base}/api/v1/games", json={"game": "ninety-nine", "players": PLAYERS,
                                                              "options": OPTIONS}, timeout=10).json()
    delays = []
    with requests.get(f"{reader.base}/api/v1/games/{game['id']}/events", stream=True, timeout=10) as stream:
        lines = stream.iter_lines(decode_unicode=True)
        assert next(lines).startswith("retry:")
        time.sleep(0.5)  # the reader's process is watching the game
        for version, move in enumerate(legal_stream(3), start=1):
            started = time.monotonic()
            answer = requests.post(f"{writer.base}/api/v1/games/{game['id']}/moves", json=move, timeout=10,
                                   headers={"Authorization": f"Bearer {game['token']}"})
            assert answer.status_code == 201
            data = next(json.loads(line[5:]) for line in lines if line.startswith("data:"))
            delays.append(time.monotonic() - started)
            assert data["version"] == version and data["etag"] == answer.headers["ETag"].strip('"')
            time.sleep(0.4)
    print(f"\n201 -> event on the other master: {[round(d * 1000) for d in delays]} ms")
    assert max(delays) < 1.0
