"""Two gunicorn masters (separate processes, two workers each) sharing one database -- PostgreSQL
with TEST_DATABASE_URL, else one SQLite file -- and many clients on one game: contiguous versions,
nothing lost, nothing doubled, and every client told the truth (201, or an error it can retry)."""
from __future__ import annotations

import itertools
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from robustness_helpers import OPTIONS, PLAYERS, replay_with_engine
from referee import store
from referee.models import db

CLIENTS = 24
MOVES_EACH = 3
CARDS = [r + s for s in "SHDC" for r in ("3", "5", "6", "7", "8", "9", "J", "Q", "K", "2")]
RETRYABLE = {412, 422, 503}


def a_legal_move(state: dict, i: int, tries: int) -> dict:
    """A play for whoever is to play, chosen from the public state. The pile is not public, so
    the server may refuse it (422, nothing changes) and the client picks again: another card on
    each try (the same card at the same version would be refused for ever, and a client left alone
    at the end would never get its move in)."""
    card = CARDS[(state["version"] * 7 + i + tries) % len(CARDS)]
    return {"type": "play", "player": state["to_play"], "card": card}


@pytest.mark.slow
def test_two_masters_share_one_database(app, gunicorns):
    import requests

    servers = [gunicorns(workers=2), gunicorns(workers=2)]
    game = requests.post(f"{servers[0].base}/api/v1/games", timeout=10, json={
        "game": "ninety-nine", "players": PLAYERS, "options": OPTIONS}).json()
    applied: list[tuple[int, dict, str]] = []  # (version told, move, key) for every 201
    lock = threading.Lock()
    statuses: list[int] = []

    def client(i: int) -> None:
        http = requests.Session()
        deadline = time.time() + 90
        for k in range(MOVES_EACH):
            key = f"c{i}-m{k}"
            base = servers[(i + k) % 2].base  # each client alternates between the two masters
            url = f"{base}/api/v1/games/{game['id']}"
            for tries in itertools.count():
                assert time.time() < deadline, f"client {i} never got move {k} in"
                state = http.get(url, timeout=10).json()
                if state["status"] != "in_progress":
                    return
                move = a_legal_move(state, i, tries)
                r = http.post(url + "/moves", json=move, timeout=30, headers={
                    "Authorization": f"Bearer {game['token']}", "If-Match": f'"{state["version"]}"',
                    "Idempotency-Key": key})
                with lock:
                    statuses.append(r.status_code)
                if r.status_code == 201:
                    body = r.json()
                    assert r.headers["ETag"] == f'"{body["version"]}"'
                    with lock:
                        applied.append((body["version"], move, key))
                    break
                assert r.status_code in RETRYABLE, (r.status_code, r.text)
                assert r.headers["Content-Type"].startswith("application/problem+json")
                # A retried key must not reuse an answer for another body: use a fresh key.
                key = f"c{i}-m{k}-{len(statuses)}"

    with ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(client, range(CLIENTS)))

    log = requests.get(f"{servers[1].base}/api/v1/games/{game['id']}/moves", timeout=10).json()
    moves = log["moves"]
    total = len(applied)
    assert total == CLIENTS * MOVES_EACH
    # Contiguous versions and sequence numbers: nothing lost, nothing doubled.
    assert [m["version"] for m in moves] == list(range(1, total + 1))
    assert [m["seq"] for m in moves] == list(range(1, total + 1))
    assert not any(m["voided"] for m in moves)
    # Each client was told the truth: the log holds its move at the version its 201 named.
    for version, move, _ in applied:
        assert moves[version - 1]["move"] == move
    assert sorted(v for v, _, _ in applied) == list(range(1, total + 1))
    # Both masters agree, and the stored state is the replay of the log.
    shown = [requests.get(f"{s.base}/api/v1/games/{game['id']}", timeout=10).json() for s in servers]
    assert shown[0] == shown[1] and shown[0]["version"] == total
    with app.app_context():
        row = store.get_game(game["id"])
        assert row.state == store.replay(row)
        assert row.state == replay_with_engine(PLAYERS, OPTIONS, [m["move"] for m in moves])
        db.session.remove()
    assert statuses.count(201) == total and len(statuses) > total  # there was contention
