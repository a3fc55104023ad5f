"""kill -9 a gunicorn worker while moves are being posted: after a restart, every move that got a
201 is in the log (once, at the version it was told), and the stored state equals a replay."""
from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from robustness_helpers import OPTIONS, PLAYERS, legal_stream, replay_with_engine
from referee import store
from referee.models import db

CLIENTS = 4
MOVES = 80
KILLS = 3


@pytest.mark.slow
def test_kill_9_a_worker_while_moves_are_posted(app, gunicorns):
    import requests

    server = gunicorns(workers=2)
    games = [requests.post(f"{server.base}/api/v1/games", timeout=10, json={
        "game": "ninety-nine", "players": PLAYERS, "options": OPTIONS}).json() for _ in range(CLIENTS)]
    streams = [legal_stream(MOVES, offset=3 * i) for i in range(CLIENTS)]
    told: list[dict[int, int]] = [{} for _ in range(CLIENTS)]  # move index -> version from its 201
    broken: list[int] = [0] * CLIENTS
    errors: list[str] = []

    def client(i: int) -> None:
        http = requests.Session()
        game = games[i]
        url = f"{server.base}/api/v1/games/{game['id']}/moves"
        deadline = time.time() + 90
        for n, move in enumerate(streams[i]):
            key = f"crash-{i}-{n}"
            while True:  # a client retries with the same Idempotency-Key until it gets an answer
                if time.time() > deadline:
                    errors.append(f"client {i} timed out at move {n}")
                    return
                try:
                    r = http.post(url, json=move, timeout=10, headers={
                        "Authorization": f"Bearer {game['token']}", "Idempotency-Key": key})
                except requests.RequestException:
                    broken[i] += 1
                    http = requests.Session()
                    time.sleep(0.05)
                    continue
                if r.status_code == 201:
                    told[i][n] = r.json()["version"]
                    break
                if r.status_code in (500, 502, 503):  # a failed worker: retryable, must change nothing
                    broken[i] += 1
                    continue
                errors.append(f"client {i} move {n}: {r.status_code} {r.text[:300]}")
                return

    threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
    for t in threads:
        t.start()
    killed = []
    for k in range(KILLS):
        # each kill while the clients are still posting (at a quarter, a half, three quarters of the
        # moves): a kill after a fixed time found them all done on a fast run
        wanted = (k + 1) * CLIENTS * MOVES // (KILLS + 1)
        while sum(map(len, told)) < wanted and any(t.is_alive() for t in threads):
            time.sleep(0.005)
        pids = server.worker_pids()
        if pids:
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors
    assert len(killed) == KILLS

    # Restart: a new master on the same database.
    server.stop()
    server = gunicorns(workers=2)
    for i, game in enumerate(games):
        log = requests.get(f"{server.base}/api/v1/games/{game['id']}/moves", timeout=10).json()
        live = [m for m in log["moves"] if not m["voided"]]
        # Every 201 is in the log, once, at the version the client was told; nothing else is.
        assert told[i] == {n: n + 1 for n in range(MOVES)}
        assert [m["move"] for m in live] == streams[i]
        assert [m["version"] for m in live] == list(range(1, MOVES + 1))
        assert log["version"] == MOVES
        shown = requests.get(f"{server.base}/api/v1/games/{game['id']}", timeout=10).json()
        with app.app_context():
            row = store.get_game(game["id"])
            assert row.version == MOVES
            assert row.state == store.replay(row)
            assert row.state == replay_with_engine(PLAYERS, OPTIONS, [m["move"] for m in live])
            assert shown == store.game_view(row)
            db.session.remove()
    # The kills did hit requests in flight (otherwise the test proved little).
    assert sum(broken) >= 1, "no request was interrupted by the kills"
