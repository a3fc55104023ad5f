"""A hung database (issue 16): a server that accepts connections and never answers. Every request
that needs it answers 503 problem+json with Retry-After within the timeout, /healthz still
answers at once, and /readyz says not ready."""
from __future__ import annotations

import socket
import threading
import time

import pytest

from referee import create_app


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
