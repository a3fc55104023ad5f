"""A move made through one gunicorn master reaches a follower of another (issue 15): on PostgreSQL
by LISTEN/NOTIFY (as between machines), on one SQLite file by the writer's wake-up of the other
processes (issue 36), with each process's poll as the safety net."""
from __future__ import annotations

import json
import os
import time

import pytest
import requests
from sqlalchemy.engine import make_url

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


POLL_NEVER = 30.0  # seconds: longer than the test lasts, so only a wake-up can deliver an event


@pytest.mark.parametrize("writer_class, reader_class", [("gevent", "gthread"), ("gthread", "gevent")])
def test_on_sqlite_the_writer_wakes_the_other_process_and_no_poll_is_needed(gunicorns, database_url,
                                                                            writer_class, reader_class):
    """With the poll set to 30 s, every move still reaches the follower on the other process: its
    event can only come from the writer's wake-up. Sent and received under gevent and threads."""
    database = make_url(database_url).database
    if not database_url.startswith("sqlite") or not database:
        pytest.skip("wake-ups are between the processes of one SQLite file")
    writer = gunicorns(workers=1, GUNICORN_WORKER_CLASS=writer_class, EVENTS_POLL_SECONDS=str(POLL_NEVER))
    reader = gunicorns(workers=1, GUNICORN_WORKER_CLASS=reader_class, EVENTS_POLL_SECONDS=str(POLL_NEVER))
    folder = os.path.realpath(database) + "-wakeups"
    (reader_worker,) = reader.worker_pids()
    game = requests.post(f"{writer.base}/api/v1/games", json={"game": "ninety-nine", "players": PLAYERS,
                                                              "options": OPTIONS}, timeout=10).json()
    following_since = time.monotonic()
    with requests.get(f"{reader.base}/api/v1/games/{game['id']}/events", stream=True, timeout=(5, 10)) as stream:
        lines = stream.iter_lines(decode_unicode=True)
        assert next(lines).startswith("retry:")
        assert str(reader_worker) in os.listdir(folder)  # bound before the stream answered
        for version, move in enumerate(legal_stream(5), start=1):
            answer = requests.post(f"{writer.base}/api/v1/games/{game['id']}/moves", json=move, timeout=10,
                                   headers={"Authorization": f"Bearer {game['token']}"})
            assert answer.status_code == 201
            data = next(json.loads(line[5:]) for line in lines if line.startswith("data:"))
            assert (data["version"], data["kind"]) == (version, "move")
    assert time.monotonic() - following_since < POLL_NEVER  # the reader's first poll had not come yet
