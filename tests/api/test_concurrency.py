"""Many clients on one game at once: contiguous versions, nothing lost, nothing applied twice.

Runs on whichever database the suite uses (SQLite, or PostgreSQL through TEST_DATABASE_URL), first
in-process with threads, then through a real gunicorn with several worker processes.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from referee.rules import ninety_nine

CLIENTS = 24
ROOT = Path(__file__).resolve().parents[2]
CARDS = [r + s for s in "SHDC" for r in ("3", "5", "6", "7", "8", "9")]  # keeps a round going


def next_move(state: dict) -> dict:
    """A legal play for whoever is to play (a card not yet on the pile this round)."""
    on_pile = set(state.get("discard_top") and [state["discard_top"]] or [])
    for card in CARDS:
        if card not in on_pile:
            return {"type": "play", "player": state["to_play"], "card": card}
    raise AssertionError("no card left")


def check_log_and_replay(log: dict, state: dict, successes: int, game_row_players=("Ann", "Bob", "Cid")):
    moves = log["moves"]
    assert [m["version"] for m in moves] == list(range(1, successes + 1))
    assert [m["seq"] for m in moves] == list(range(1, successes + 1))
    assert state["version"] == successes
    replayed = ninety_nine.new_game(list(game_row_players), state["options"])
    for m in moves:
        replayed = ninety_nine.GAME.apply(replayed, m["move"])
    assert ninety_nine.public_view(replayed)["total"] == state["total"]
    assert ninety_nine.public_view(replayed)["tokens"] == state["tokens"]


def race(post_one, clients: int = CLIENTS) -> list[int]:
    with ThreadPoolExecutor(max_workers=clients) as pool:
        return list(pool.map(post_one, range(clients)))


class Contender:
    """Each client reads the game, then posts a move for that version (If-Match), retrying on 412/422."""

    def __init__(self, get, post):
        self.get, self.post = get, post

    def __call__(self, i: int) -> int:
        for _ in range(400):
            state = self.get()
            move = next_move(state)
            # Vary the card a little so that concurrent posts differ
            move["card"] = CARDS[(CARDS.index(move["card"]) + i) % len(CARDS)]
            status, body = self.post(move, state["version"], f"client-{i}")
            if status == 201:
                return 201
            assert status in (412, 422), (status, body)
        raise AssertionError("client never got its move in")


def test_threads_on_one_game_serialize(app, api):
    game = api.create("ninety-nine", ["Ann", "Bob", "Cid"], {"decks": 2, "tokens": 99})

    def get():
        return app.test_client().get(f"/api/v1/games/{game['id']}").get_json()

    def post(move, version, key):
        response = app.test_client().post(
            f"/api/v1/games/{game['id']}/moves", json=move,
            headers={"Authorization": f"Bearer {game['token']}", "If-Match": f'"{version}"', "Idempotency-Key": key})
        return response.status_code, response.get_json()

    results = race(Contender(get, post))
    assert results == [201] * CLIENTS
    check_log_and_replay(api.log(game), api.state(game), CLIENTS)


def test_the_same_idempotency_key_from_many_clients_applies_once(app, api):
    game = api.create("ninety-nine", ["Ann", "Bob", "Cid"])
    move = {"type": "play", "player": "Ann", "card": "5S"}

    def post(_):
        response = app.test_client().post(
            f"/api/v1/games/{game['id']}/moves", json=move,
            headers={"Authorization": f"Bearer {game['token']}", "Idempotency-Key": "one"})
        return response.status_code, response.get_json()

    results = race(post)
    assert {status for status, _ in results} == {201}
    assert len({str(body) for _, body in results}) == 1
    assert api.state(game)["version"] == 1 and len(api.log(game)["moves"]) == 1


def test_blind_posts_without_if_match_are_each_applied_or_refused(app, api):
    """Without If-Match every client posts 'Ann plays', and exactly one can succeed."""
    game = api.create("ninety-nine", ["Ann", "Bob", "Cid"])

    def post(i):
        response = app.test_client().post(
            f"/api/v1/games/{game['id']}/moves", json={"type": "play", "player": "Ann", "card": CARDS[i % 24]},
            headers={"Authorization": f"Bearer {game['token']}"})
        return response.status_code

    results = race(post)
    assert results.count(201) == 1 and results.count(422) == CLIENTS - 1
    assert api.state(game)["version"] == 1


# ---------------------------------------------------------------- through gunicorn workers

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def gunicorn_server(app, database_url, tmp_path):
    pytest.importorskip("requests")
    port = free_port()
    env = dict(os.environ, DATABASE_URL=database_url, PORT=str(port), WEB_CONCURRENCY="3",
               SECRET_KEY="test", RATELIMIT_ENABLED="0", LOG_LEVEL="warning")
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py", "--bind", f"127.0.0.1:{port}",
         "--access-logfile", "/dev/null", "wsgi:app"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=open(tmp_path / "gunicorn.log", "w"))
    import requests

    base = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            if requests.get(base + "/readyz", timeout=1).status_code == 200:
                break
        except requests.ConnectionError:
            time.sleep(0.1)
    else:
        proc.kill()
        raise AssertionError((tmp_path / "gunicorn.log").read_text())
    yield base
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)


@pytest.mark.slow  # gunicorn
def test_several_gunicorn_workers_serialize_moves(gunicorn_server):
    import requests

    base = gunicorn_server
    created = requests.post(f"{base}/api/v1/games", timeout=10, json={
        "game": "ninety-nine", "players": ["Ann", "Bob", "Cid"], "options": {"decks": 2, "tokens": 99}}).json()
    url = f"{base}/api/v1/games/{created['id']}"

    def get():
        return requests.get(url, timeout=10).json()

    def post(move, version, key):
        response = requests.post(url + "/moves", json=move, timeout=30, headers={
            "Authorization": f"Bearer {created['token']}", "If-Match": f'"{version}"', "Idempotency-Key": key})
        return response.status_code, response.json()

    results = race(Contender(get, post))
    assert results == [201] * CLIENTS
    check_log_and_replay(requests.get(url + "/moves", timeout=10).json(), get(), CLIENTS)
