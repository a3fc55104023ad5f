"""Connection limits for an evening (issue 36): a worker that holds all the connections it may answers
a new one with a 503 at once, never a wait in the listening socket's queue; an idle keep-alive
connection outlasts a phone's pause between moves; SIGTERM ends event streams and idle connections
at once and still finishes a request in flight; the limits come from the environment."""
from __future__ import annotations

import json
import os
import resource
import signal
import socket
import subprocess
import sys
import time

import pytest
import requests

from referee import serving
from referee.app import create_app
from referee.models import db
from robustness_helpers import (OPTIONS, PLAYERS, ROOT, legal_stream, open_event_stream, read_response,
                                read_to_end)

CLOSE = {"Connection": "close"}  # a helper's request that leaves no idle connection holding a slot


def new_game(base: str) -> dict:
    answer = requests.post(f"{base}/api/v1/games", json={"game": "ninety-nine", "players": PLAYERS,
                                                         "options": OPTIONS}, headers=CLOSE, timeout=10)
    assert answer.status_code == 201, answer.text
    return answer.json()


def move_request(game: dict, move: dict) -> bytes:
    body = json.dumps(move).encode()
    return (f"POST /api/v1/games/{game['id']}/moves HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer {game['token']}\r\nIdempotency-Key: evening-{game['id']}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


def until(condition, seconds: float = 10.0, what: str = "the condition"):
    deadline = time.monotonic() + seconds
    while not (found := condition()):
        assert time.monotonic() < deadline, f"waited {seconds} s for {what}"
        time.sleep(0.05)
    return found


@pytest.mark.slow
def test_a_full_worker_answers_a_new_connection_503_at_once_and_serves_again_once_there_is_room(gunicorns):
    # one worker that may hold 5 connections and 2 database connections; its streams end after 8 s (a
    # stream whose client left holds its connection until the server writes to it: its heartbeat, or its end)
    server = gunicorns(workers=1, GUNICORN_CONNECTIONS="5", DB_POOL_SIZE="2", EVENTS_MAX_SECONDS="8",
                       LOG_LEVEL="info")
    assert "each worker holds up to 5 connections" in server.output()  # the master logged its open-file limit
    game = new_game(server.base)
    streams = [open_event_stream(server.port, game["id"]) for _ in range(4)]
    try:
        # the streams hold no database connection while they wait: a read still gets one of the two
        read = requests.get(f"{server.base}/api/v1/games/{game['id']}", headers=CLOSE, timeout=10)
        assert read.status_code == 200 and read.json()["version"] == 0
        streams.append(open_event_stream(server.port, game["id"]))  # the fifth: the worker is full
        for request in (b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n", move_request(game, legal_stream(1)[0])):
            # without the limit's answer the sixth would wait in the queue until a stream ended (300 s)
            with socket.create_connection(("127.0.0.1", server.port), timeout=5) as conn:
                conn.sendall(request)
                status, headers, body = read_response(conn)
                assert read_to_end(conn) == b""  # and the server closes it, as it said
            assert status == 503 and headers["content-type"] == "application/problem+json"
            assert headers["connection"] == "close" and int(headers["retry-after"]) > 0
            problem = json.loads(body)
            assert problem["status"] == 503 and problem["type"].endswith("/too-many-connections")
            assert "Idempotency-Key" in problem["detail"]
    finally:
        for stream in streams:
            stream.close()
    # room again once the streams are gone: served, and the refused move was never applied
    until(lambda: requests.get(f"{server.base}/healthz", headers=CLOSE, timeout=5).status_code == 200,
          seconds=20, what="the worker to serve again")
    assert requests.get(f"{server.base}/api/v1/games/{game['id']}", headers=CLOSE, timeout=5).json()["version"] == 0
    metrics = requests.get(f"{server.base}/metrics", headers=CLOSE, timeout=5).text
    refused = [line for line in metrics.splitlines() if line.startswith("referee_connections_refused_total ")]
    assert refused and float(refused[0].split()[1]) >= 2, refused  # and each of the waits' while it was full
    assert '"Worker full' in server.output()  # logged (once: at most one line every 10 s)


@pytest.mark.slow
def test_an_idle_keep_alive_connection_outlasts_a_phones_pause_between_moves(gunicorns):
    server = gunicorns(workers=1)
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
        for pause in (0, 3):  # 3 s: gunicorn's own keep-alive (2 s) had closed it by then
            time.sleep(pause)
            conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
            status, headers, _ = read_response(conn)
            assert status == 200 and headers["connection"] == "keep-alive"


@pytest.mark.slow
def test_sigterm_ends_streams_and_idle_connections_at_once_and_finishes_a_move_in_flight(gunicorns):
    server = gunicorns()  # the project's gunicorn.conf.py: two workers, graceful_timeout 20 s
    game = new_game(server.base)
    streams = [open_event_stream(server.port, game["id"]) for _ in range(3)]
    idle = socket.create_connection(("127.0.0.1", server.port), timeout=15)
    idle.sendall(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
    assert read_response(idle)[0] == 200  # and left open, as a phone leaves it between moves
    moving = socket.create_connection(("127.0.0.1", server.port), timeout=15)
    request = move_request(game, legal_stream(1)[0])
    moving.sendall(request[:-5])  # in flight: the worker reads its body when SIGTERM comes
    time.sleep(0.5)
    signalled = time.monotonic()
    server.proc.send_signal(signal.SIGTERM)
    time.sleep(1.0)  # the workers are stopping
    moving.sendall(request[-5:])
    status, _, body = read_response(moving)
    assert status == 201, body
    assert json.loads(body)["version"] == 1
    for stream in streams:  # each stream ended as a stream ends (its last chunk), not cut off
        assert read_to_end(stream).endswith(b"0\r\n\r\n")
    assert read_to_end(idle) == b""  # closed, not reset
    server.proc.wait(timeout=30)
    stopped = time.monotonic() - signalled
    for conn in (*streams, idle, moving):
        conn.close()
    print(f"\nSIGTERM to the master's exit with 3 streams, an idle connection and a move in flight: {stopped:.2f} s")
    assert stopped < 10, f"the master took {stopped:.1f} s (graceful_timeout: 20 s)"
    again = gunicorns(workers=1)  # the move is stored
    assert requests.get(f"{again.base}/api/v1/games/{game['id']}", headers=CLOSE, timeout=10).json()["version"] == 1


def test_the_limits_come_from_the_environment(tmp_path):
    """Each in a process of its own: the settings file patches gevent and gunicorn where it runs."""
    names = ("worker_connections", "backlog", "keepalive", "worker_class")
    script = f"import json, runpy; s = runpy.run_path('gunicorn.conf.py'); print(json.dumps([s[n] for n in {names!r}]))"

    def settings(**env) -> list:
        out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60,
                             env=dict(os.environ, PROMETHEUS_MULTIPROC_DIR=str(tmp_path), **env))
        assert out.returncode == 0, out.stderr[-2000:]
        return json.loads(out.stdout.strip().splitlines()[-1])

    assert settings() == [6000, 4096, 75, "referee.serving.BoundedGeventWorker"]
    assert settings(GUNICORN_CONNECTIONS="123", GUNICORN_BACKLOG="77", GUNICORN_KEEPALIVE="9")[:3] == [123, 77, 9]


def test_the_database_pool_size_comes_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("DB_POOL_SIZE", "7")
    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path}/pool.sqlite3", "AUTO_MIGRATE": False,
                      "SECRET_KEY": "test"})
    with app.app_context():
        assert db.engine.pool.size() == 7


def test_a_worker_holds_the_connections_its_open_file_limit_leaves_room_for():
    assert serving.connections_within(6000, 20000) == 6000
    spare = serving.REFUSING_AT_ONCE + serving.FILES_BESIDES_CONNECTIONS
    assert serving.connections_within(6000, 1024) == 1024 - spare  # each refusal and the pool need a descriptor
    assert serving.connections_within(6000, 100) == 1


def test_the_open_file_limit_is_raised_to_the_hard_limit():
    """In a process of its own, whose soft limit is lowered first (a limit once lowered stays so)."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard == resource.RLIM_INFINITY or hard <= 256:
        pytest.skip(f"a hard limit of {hard} leaves nothing to raise a soft limit of 256 to")
    script = ("import json, resource; from referee.serving import raise_open_file_limit; "
              f"resource.setrlimit(resource.RLIMIT_NOFILE, (256, {hard})); "
              "print(json.dumps([raise_open_file_limit(), resource.getrlimit(resource.RLIMIT_NOFILE)[0]]))")
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [[256, hard], hard]
