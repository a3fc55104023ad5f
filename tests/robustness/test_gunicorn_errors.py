"""gunicorn's own refusals (too long a request line or header, a malformed request) are
problem+json like every other error, not gunicorn's HTML page (issue 16)."""
from __future__ import annotations

import json
import socket

import pytest

pytestmark = pytest.mark.slow


def raw(port: int, request: bytes) -> tuple[str, dict, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(request)
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return lines[0], headers, body


@pytest.mark.parametrize("request_bytes, status", [
    (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
    (b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n", 431),
    (b"NOT A REQUEST\r\n\r\n", 400),
])
def test_gunicorns_own_refusals_are_problem_json(gunicorns, request_bytes, status):
    server = gunicorns(workers=1)
    line, headers, body = raw(server.port, request_bytes)
    assert line.split(" ", 2)[1] == str(status), line
    assert headers["Content-Type"] == "application/problem+json"
    problem = json.loads(body)
    assert problem["status"] == status and problem["title"] and problem["detail"]
