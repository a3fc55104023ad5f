"""A hung database (issue 16): a server that accepts connections and never answers. Every request
that needs it answers 503 problem+json with Retry-After within the timeout, /healthz still
answers at once, and /readyz says not ready."""
from __future__ import annotations

import contextlib
import os
import socket
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from sqlalchemy import make_url

from referee import create_app

TEST_DATABASE_URL = os.environ.get("TEST_DATABASE_URL")


@pytest.fixture
def silent_server():
    """A TCP server that accepts and then says nothing, forever."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    held, stop = [], threading.Event()

    def accept():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


@pytest.mark.slow  # each request waits out its one-second timeout
def test_a_database_that_never_answers_is_a_503_not_a_hang(silent_server):
    app = create_app({"SQLALCHEMY_DATABASE_URI": f"postgresql://postgres@127.0.0.1:{silent_server}/x",
                      "AUTO_MIGRATE": False, "TESTING": True, "SECRET_KEY": "x", "RATELIMIT_ENABLED": False,
                      "DB_TIMEOUT_SECONDS": 1})
    client = app.test_client()
    started = time.monotonic()
    assert client.get("/healthz").status_code == 200
    for method, path, body in (("GET", "/readyz", None), ("GET", "/api/v1/games/AAAAAAAAAAAAAAAA", None),
                               ("POST", "/api/v1/games", {"game": "nines", "players": ["Ann", "Bob"]})):
        response = client.open(path, method=method, json=body)
        assert response.status_code == 503, (path, response.get_data(as_text=True))
        assert response.content_type == "application/problem+json" and response.headers["Retry-After"]
    page = client.get("/g/AAAAAAAAAAAAAAAA")
    assert page.status_code == 503 and page.mimetype == "text/html"
    assert time.monotonic() - started < 30                  # each waited about a second, never for ever
    detail = client.post("/api/v1/games", json={"game": "nines", "players": ["Ann", "Bob"]}).json["detail"]
    assert "Idempotency-Key" in detail


# ---------------------------------------------------------------- a database that stops answering mid-run

TIMEOUT = 2  # DB_TIMEOUT_SECONDS of the servers below: each request must answer within it + 2 s
BOUND = TIMEOUT + 2


class FreezingProxy:
    """A TCP proxy to PostgreSQL that forwards until ``freeze()``, then forwards nothing, in either
    direction, while still accepting connections: a server that stops answering with every socket
    open (as a hung host or a stalled network does), which no server-side timeout can end."""

    def __init__(self, host: str, port: int):
        self.target = (host, port)
        self.frozen = threading.Event()
        self.stopped = threading.Event()
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(256)
        self.server.settimeout(0.1)
        self.port = self.server.getsockname()[1]
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.stopped.is_set():
            try:
                client = self.server.accept()[0]
            except OSError:
                continue
            self.sockets.append(client)
            if self.frozen.is_set():
                continue  # accepted, never answered
            upstream = socket.create_connection(self.target)
            self.sockets.append(upstream)
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source, sink):
        source.settimeout(0.1)
        while not self.stopped.is_set():
            if self.frozen.is_set():
                time.sleep(0.05)  # holds what arrives: nothing goes through, nothing is closed
                continue
            try:
                data = source.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            if not data:  # the end of one side's stream reaches the other, as a network passes it on
                with contextlib.suppress(OSError):
                    sink.shutdown(socket.SHUT_WR)
                return
            try:
                sink.sendall(data)
            except OSError:
                return

    def freeze(self):
        self.frozen.set()

    def thaw(self):
        self.frozen.clear()

    def close(self):
        self.stopped.set()
        self.server.close()
        for sock in self.sockets:
            with contextlib.suppress(OSError):
                sock.close()


def _timed(method: str, url: str, **kwargs) -> tuple[float, requests.Response]:
    started = time.monotonic()
    response = requests.request(method, url, timeout=60, **kwargs)
    return time.monotonic() - started, response


def _bounded_answers(server, game: dict) -> dict:
    """Moves, an undo, the game's page and state, a creation and /readyz, all at once: each with
    the seconds it took and its answer."""
    auth = {"Authorization": f"Bearer {game['token']}"}
    base = f"{server.base}/api/v1/games/{game['id']}"
    asks = {
        "move": ("POST", base + "/moves", {"json": {"type": "play", "player": game["to_play"], "card": "2C"},
                                          "headers": {**auth, "Idempotency-Key": "hung-1"}}),
        "move 2": ("POST", base + "/moves", {"json": {"type": "play", "player": game["to_play"], "card": "3C"},
                                            "headers": auth}),
        "undo": ("POST", base + "/undo", {"headers": auth}),
        "state": ("GET", base, {}),
        "page": ("GET", f"{server.base}/g/{game['id']}", {}),
        "create": ("POST", f"{server.base}/api/v1/games", {"json": {"game": "nines", "players": ["Ann", "Bob"]}}),
        "readyz": ("GET", f"{server.base}/readyz", {}),
    }
    with ThreadPoolExecutor(len(asks)) as pool:
        futures = {name: pool.submit(_timed, method, url, **kwargs) for name, (method, url, kwargs) in asks.items()}
        return {name: future.result() for name, future in futures.items()}


def _moves_seen(server, game) -> int:
    return requests.get(f"{server.base}/api/v1/games/{game['id']}", timeout=30).json()["version"]


@pytest.mark.slow
@pytest.mark.serial  # each answer is timed
@pytest.mark.skipif(not (TEST_DATABASE_URL or "").startswith("postgresql"), reason="needs the PostgreSQL server")
def test_a_postgresql_that_stops_answering_mid_run_costs_each_request_at_most_its_timeout(app, gunicorns):
    url = make_url(TEST_DATABASE_URL)
    proxy = FreezingProxy(url.host or "127.0.0.1", url.port or 5432)
    try:
        server = gunicorns(workers=2, DATABASE_URL=url.set(host="127.0.0.1", port=proxy.port).render_as_string(False),
                           DB_TIMEOUT_SECONDS=str(TIMEOUT))
        game = requests.post(f"{server.base}/api/v1/games", timeout=30,
                             json={"game": "ninety-nine", "players": ["Ann", "Bob", "Cid"]}).json()
        auth = {"Authorization": f"Bearer {game['token']}"}
        with ThreadPoolExecutor(8) as pool:  # a warm pool in both workers
            list(pool.map(lambda _: requests.get(f"{server.base}/api/v1/games/{game['id']}", timeout=30), range(40)))
        proxy.freeze()
        answers = _bounded_answers(server, game)
        for name, (seconds, response) in answers.items():
            assert seconds < BOUND, (name, seconds)
            if name in ("state", "page") and response.status_code == 200:
                continue  # a read this process could answer from what it knows (the followers' tag book)
            assert response.status_code == 503, (name, response.status_code, response.text)
            assert response.headers["Content-Type"].startswith(("application/problem+json", "text/html")), name
            assert 0 < int(response.headers["Retry-After"]) <= 30, name
        assert "Idempotency-Key" in answers["move"][1].json()["detail"]
        # /healthz needs no database: answered at once
        assert _timed("GET", f"{server.base}/healthz")[0] < 1
        proxy.thaw()
        deadline = time.monotonic() + 30
        while requests.get(f"{server.base}/readyz", timeout=30).status_code != 200:
            assert time.monotonic() < deadline, "the service did not come back"
            time.sleep(0.2)
        # The two moves (the same player's) got 503s; either may have landed, never both. The keyed
        # one's retry tells: its first answer again, or applied now, or refused because the other
        # landed (a connection that the outage left broken may cost a worker one more 503 first).
        for _ in range(5):
            retry = requests.post(f"{server.base}/api/v1/games/{game['id']}/moves", timeout=30,
                                  json={"type": "play", "player": game["to_play"], "card": "2C"},
                                  headers={**auth, "Idempotency-Key": "hung-1"})
            if retry.status_code != 503:
                break
        assert retry.status_code == 201 or (retry.status_code == 422 and retry.json()["rule"] == "N99-2"), retry.text
        assert _moves_seen(server, game) == 1
    finally:
        proxy.close()


@pytest.mark.slow
@pytest.mark.serial  # each answer is timed
@pytest.mark.skipif(bool(TEST_DATABASE_URL), reason="SQLite's own write lock")
def test_sqlite_locked_by_another_process_costs_each_request_at_most_its_timeout(app, gunicorns, database_url):
    server = gunicorns(workers=2, DB_TIMEOUT_SECONDS=str(TIMEOUT))
    game = requests.post(f"{server.base}/api/v1/games", timeout=30,
                         json={"game": "ninety-nine", "players": ["Ann", "Bob", "Cid"]}).json()
    auth = {"Authorization": f"Bearer {game['token']}"}
    first = requests.post(f"{server.base}/api/v1/games/{game['id']}/moves", timeout=30, headers=auth,
                          json={"type": "play", "player": game["to_play"], "card": "4C"})
    assert first.status_code == 201, first.text
    game["to_play"] = first.json()["to_play"]
    holder = sqlite3.connect(make_url(database_url).database, timeout=0)
    holder.execute("BEGIN IMMEDIATE")  # another process's write lock, held for longer than any timeout
    holder.execute("UPDATE games SET version = version WHERE 1 = 0")
    try:
        answers = _bounded_answers(server, game)
    finally:
        holder.rollback()
        holder.close()
    for name, (seconds, response) in answers.items():
        assert seconds < BOUND, (name, seconds)
    for name in ("move", "move 2", "undo", "create"):  # writes wait for the lock, then give up
        response = answers[name][1]
        assert response.status_code == 503, (name, response.status_code, response.text)
        assert response.headers["Content-Type"].startswith("application/problem+json") and response.headers["Retry-After"]
    for name in ("state", "page"):  # reads never wait for a writer (WAL)
        assert answers[name][1].status_code == 200, name
    assert _moves_seen(server, game) == 1  # nothing was applied
    moved = requests.post(f"{server.base}/api/v1/games/{game['id']}/moves", timeout=30, headers=auth,
                          json={"type": "play", "player": game["to_play"], "card": "2C"})
    assert moved.status_code == 201, moved.text
