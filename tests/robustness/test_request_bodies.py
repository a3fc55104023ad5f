"""Request bodies that are malformed, cut short, mislabelled or never end (issue 35), sent with raw
sockets to gunicorn started as the README starts it (gunicorn.conf.py, two gevent workers), on a
move, a game's creation, a judge route and a page's form: each is refused with problem+json (400,
or 408 for a body that stops coming), closes its connection, changes nothing and logs no error nor
traceback; a body that stops is cut at BODY_TIMEOUT_SECONDS while /healthz and moves go on."""
from __future__ import annotations

import json
import re
import socket
import subprocess
import time
import urllib.parse
from contextlib import ExitStack
from unittest import mock

import pytest
import requests
from sqlalchemy import text

from bench.slow_clients import probe
from referee.models import db
from robustness_helpers import PLAYERS, Gunicorn, legal_stream

# one worker runs the module (its gunicorn is started once); the tests that time answers run alone
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("request-bodies")]

DEADLINE = 1.0  # BODY_TIMEOUT_SECONDS of the servers here
ROUTES = ["move", "create", "judge", "page"]


class Served(Gunicorn):
    """gunicorn as the README starts it (robustness_helpers.Gunicorn), with its stdout, where the
    service writes its JSON log lines and their tracebacks, kept in a file too."""

    def __init__(self, database_url, directory, name, workers=2, **env):
        super().__init__(database_url, directory / f"{name}.err", workers, **env)
        self.out_path = directory / f"{name}.out"
        self.marks = (0, 0)

    def start(self) -> Served:
        popen = subprocess.Popen
        with open(self.out_path, "ab") as out:
            def with_stdout(*args, **kwargs):
                return popen(*args, **{**kwargs, "stdout": out})

            with mock.patch("subprocess.Popen", with_stdout):
                super().start()
        return self

    def mark(self) -> None:
        self.marks = (self.log_path.stat().st_size, self.out_path.stat().st_size)

    def logged_since_mark(self) -> str:
        texts = []
        for path, mark in zip((self.log_path, self.out_path), self.marks):
            with open(path, "rb") as f:
                f.seek(mark)
                texts.append(f.read().decode("utf-8", "replace"))
        return "\n".join(texts)


@pytest.fixture(scope="module")
def server(app, database_url, tmp_path_factory):
    """One gunicorn for the module (each start costs seconds), with a one-second body deadline."""
    pytest.importorskip("requests")
    served = Served(database_url, tmp_path_factory.mktemp("bodies"), "gunicorn",
                    BODY_TIMEOUT_SECONDS=str(DEADLINE))
    served.start()
    yield served
    served.stop()


@pytest.fixture
def quiet(server):
    """No ERROR line and no traceback in the server's output during the test."""
    server.mark()
    yield server
    time.sleep(0.2)  # the last lines are written
    logged = server.logged_since_mark()
    assert "Traceback" not in logged, logged[-3000:]
    assert '"level":"error"' not in logged and "[ERROR]" not in logged and '"level":"critical"' not in logged, \
        logged[-3000:]


# ---------------------------------------------------------------- raw HTTP

class Answer:
    def __init__(self, data: bytes, seconds: float):
        head, _, self.body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin1").split("\r\n")
        self.line, self.seconds = lines[0], seconds
        self.status = int(lines[0].split(" ")[1]) if lines[0].startswith("HTTP/") else None
        self.headers = {k.lower(): v for k, v in (line.split(": ", 1) for line in lines[1:] if ": " in line)}

    def problem(self, status: int) -> dict:
        assert self.status == status, (self.line, self.body[:500])
        assert self.headers["content-type"] == "application/problem+json"
        found = json.loads(self.body)
        assert found["status"] == status and found["title"] and found["detail"]
        assert found["type"].startswith("https://referee.invalid/problems/")
        return found


def exchange(port: int, data: bytes, half_close: bool = False, timeout: float = 10) -> Answer:
    """Send ``data``, then read until the server closes the connection (a refusal must close it)."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        conn.sendall(data)
        if half_close:
            conn.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    return Answer(answer, time.monotonic() - started)


def chunked(body: bytes, size_line: bytes | None = None, after_data: bytes = b"\r\n") -> bytes:
    return (size_line if size_line is not None else b"%x" % len(body)) + b"\r\n" + body + after_data + b"0\r\n\r\n"


MALFORMED = {
    "bad size": lambda body: chunked(body, size_line=b"zz"),
    "bad extension": lambda body: chunked(body, size_line=b"%x;a b" % len(body)),
    "missing terminator": lambda body: chunked(body, after_data=b"XX"),
}


class Target:
    """A route's request: its path, headers and a body that the route takes."""

    def __init__(self, server: Served, route: str, app):
        self.server, self.route, self.app = server, route, app
        self.base = server.base
        self.game = requests.post(f"{self.base}/api/v1/games", json={"game": "ninety-nine", "players": PLAYERS,
                                                                    "options": {"tokens": 99, "decks": 2}}).json()
        game_id, token = self.game["id"], self.game["token"]
        first = {"type": "play", "player": "Ann", "card": "5H"}  # the first player's, legal
        json_headers = "Content-Type: application/json\r\n"
        if route == "move":
            self.path = f"/api/v1/games/{game_id}/moves"
            self.headers = json_headers + f"Authorization: Bearer {token}\r\n"
            self.body = json.dumps(first).encode()
        elif route == "create":
            self.path, self.headers = "/api/v1/games", json_headers
            self.body = json.dumps({"game": "ninety-nine", "players": PLAYERS}).encode()
        elif route == "judge":
            self.path, self.headers = "/api/v1/judge/ninety-nine/play", json_headers
            self.body = json.dumps({"total": 60, "card": "2S", "players": 4}).encode()
        else:  # the table's page: a phone that joined through a table link, its cookie and CSRF token
            cookie, csrf = table_phone(self.base, self.game)
            self.path = f"/g/{game_id}/move"
            self.headers = f"Content-Type: application/x-www-form-urlencoded\r\nCookie: {cookie}\r\n"
            self.body = urllib.parse.urlencode({"csrf_token": csrf, **first}).encode()

    def head(self, framing: str, close: bool = False) -> bytes:
        return (f"POST {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{self.headers}{framing}"
                f"{'Connection: close' + chr(13) + chr(10) if close else ''}\r\n").encode()

    def state(self):
        """What the route could have changed: the game's version and the number of games."""
        version = requests.get(f"{self.base}/api/v1/games/{self.game['id']}").json()["version"]
        return version, count_games(self.app)

    def applied(self, answer: Answer) -> bool:
        """The route's success (the control requests)."""
        return answer.status == {"move": 201, "create": 201, "judge": 200, "page": 302}[self.route]


def table_phone(base: str, game: dict) -> tuple[str, str]:
    http = requests.Session()
    link = http.post(f"{base}/api/v1/games/{game['id']}/links",
                     headers={"Authorization": f"Bearer {game['token']}"}).json()
    html = http.get(f"{base}/g/{game['id']}/join").text
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
    joined = http.post(f"{base}/g/{game['id']}/join", data={"csrf_token": csrf, "code": link["code"]},
                       allow_redirects=False)
    assert joined.status_code in (302, 303), joined.text[:500]
    return "; ".join(f"{c.name}={c.value}" for c in http.cookies), csrf


def count_games(app) -> int:
    with app.app_context():
        n = db.session.scalar(text("SELECT COUNT(*) FROM games"))
        db.session.remove()
    return n


@pytest.fixture
def target(request, app, quiet):
    return Target(quiet, request.param, app)


# ---------------------------------------------------------------- the controls

@pytest.mark.parametrize("target", ROUTES, indirect=True)
@pytest.mark.parametrize("framing", ["length", "chunked"])
def test_whole_bodies_are_applied_as_sent(target, framing):
    """The requests of the tests below, whole: each route takes them (so that a refusal below is
    the framing's, and "unchanged" means something)."""
    if framing == "length":
        data = target.head(f"Content-Length: {len(target.body)}\r\n", close=True) + target.body
    else:
        data = target.head("Transfer-Encoding: chunked\r\n", close=True) + chunked(target.body)
    version, games = target.state()
    answer = exchange(target.server.port, data)
    assert target.applied(answer), (answer.line, answer.body[:500])
    assert target.state() == {"move": (version + 1, games), "create": (version, games + 1), "judge": (version, games),
                              "page": (version + 1, games)}[target.route]


def test_a_body_on_a_kept_connection_leaves_the_next_request_whole(server, app, quiet):
    """Bodies read in front of the app: a request that follows on the same connection is read from
    where the body ended, with a Content-Length and chunked."""
    target = Target(server, "judge", app)
    data = (target.head(f"Content-Length: {len(target.body)}\r\n") + target.body
            + target.head("Transfer-Encoding: chunked\r\n") + chunked(target.body)
            + b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
        conn.sendall(data)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    assert [int(s) for s in re.findall(rb"HTTP/1.1 (\d{3}) ", answer)] == [200, 200, 200], answer[:1000]


# ---------------------------------------------------------------- malformed, short, mislabelled

@pytest.mark.parametrize("target", ROUTES, indirect=True)
@pytest.mark.parametrize("malformation", list(MALFORMED))
def test_malformed_chunked_bodies_are_400_problem_json(target, malformation):
    before = target.state()
    answer = exchange(target.server.port, target.head("Transfer-Encoding: chunked\r\n")
                      + MALFORMED[malformation](target.body))
    problem = answer.problem(400)
    assert "chunked" in problem["detail"]
    assert answer.headers["connection"] == "close"
    assert target.state() == before


@pytest.mark.parametrize("target", ROUTES, indirect=True)
def test_a_body_shorter_than_its_content_length_is_400_and_applies_nothing(target):
    before = target.state()
    answer = exchange(target.server.port, target.head("Content-Length: 500\r\n") + target.body, half_close=True)
    problem = answer.problem(400)
    assert f"after {len(target.body)} of the 500 bytes" in problem["detail"]
    assert answer.headers["connection"] == "close"
    assert target.state() == before


@pytest.mark.parametrize("target", ROUTES, indirect=True)
@pytest.mark.parametrize("coding", ["gzip, chunked", "deflate, chunked", "identity, chunked"])
def test_a_transfer_coding_other_than_chunked_alone_is_400(target, coding):
    before = target.state()
    answer = exchange(target.server.port, target.head(f"Transfer-Encoding: {coding}\r\n") + chunked(target.body))
    problem = answer.problem(400)
    assert coding in problem["detail"]
    assert target.state() == before


def test_a_body_over_the_largest_limit_is_413_before_it_is_read(server, quiet):
    path = "POST /api/v1/games/import HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    # announced: refused at once, though not a byte of it came (reading it would wait for the deadline)
    answer = exchange(server.port, (path + "Content-Length: 3000000\r\n\r\n").encode())
    answer.problem(413)
    assert answer.seconds < DEADLINE / 2 and answer.headers["connection"] == "close"
    # chunked: refused once it passes the limit; the client still sending gets the answer
    piece = b"x" * (1 << 20)
    answer = exchange(server.port, (path + "Transfer-Encoding: chunked\r\n\r\n").encode()
                      + (b"%x\r\n" % len(piece) + piece + b"\r\n") * 3 + b"0\r\n\r\n")
    answer.problem(413)


# ---------------------------------------------------------------- bodies that never end

def stalled(port: int, target: Target) -> socket.socket:
    """A connection that sent its headers and part of its body, and then nothing."""
    conn = socket.create_connection(("127.0.0.1", port), timeout=10)
    conn.sendall(target.head(f"Content-Length: {len(target.body)}\r\n") + target.body[:len(target.body) // 2])
    return conn


def closed_after(conn: socket.socket, started: float) -> tuple[float, bytes]:
    answer = b""
    while chunk := conn.recv(65536):
        answer += chunk
    return time.monotonic() - started, answer


@pytest.mark.serial
@pytest.mark.parametrize("target", ROUTES, indirect=True)
def test_a_body_that_stops_is_cut_at_the_deadline_while_healthz_answers(target):
    before = target.state()
    started = time.monotonic()
    conn = stalled(target.server.port, target)
    try:
        asked = time.monotonic()
        assert requests.get(f"{target.base}/healthz", timeout=5).status_code == 200
        assert time.monotonic() - asked < 1
        seconds, answer = closed_after(conn, started)
    finally:
        conn.close()
    assert DEADLINE * 0.9 <= seconds <= DEADLINE + 1, seconds
    found = Answer(answer, seconds)
    found.problem(408)
    assert found.headers["connection"] == "close"
    assert target.state() == before


@pytest.mark.serial
def test_hundreds_of_stalled_bodies_leave_healthz_and_moves_answering(server, app, quiet):
    target = Target(server, "move", app)
    game = requests.post(f"{server.base}/api/v1/games", json={"game": "ninety-nine", "players": PLAYERS,
                                                             "options": {"tokens": 99, "decks": 2}}).json()
    with ExitStack() as stack:
        started = time.monotonic()
        conns = [stack.enter_context(stalled(server.port, target)) for _ in range(300)]
        opened = time.monotonic()
        found = probe(server.base, game, iter(legal_stream(100)), DEADLINE * 0.8)  # while all are held
        answers = [closed_after(conn, started) for conn in conns]
    print(f"\n300 stalled bodies: opened in {opened - started:.2f} s, {found}")
    assert found["failed"] == 0 and found["healthz_max"] < 1000 and found["move_max"] < 1000
    assert max(seconds for seconds, _ in answers) <= (opened - started) + DEADLINE + 1
    assert all(answer.startswith(b"HTTP/1.1 408 ") for _, answer in answers)
    assert target.state()[0] == 0  # none of the stalled moves was applied
    assert requests.get(f"{server.base}/api/v1/games/{game['id']}").json()["version"] == found["probes"] // 2


@pytest.mark.serial
def test_more_stalled_bodies_than_a_worker_waits_for_cut_the_longest_waiting(app, database_url, tmp_path):
    """A worker waits for at most referee.bodies.MOST_WAITING bodies at once: beyond, the longest
    waiting is cut at once (408), long before the deadline, and the health check is answered."""
    from referee.bodies import MOST_WAITING

    served = Served(database_url, tmp_path, "one", workers=1, BODY_TIMEOUT_SECONDS="60").start()
    try:
        target = Target(served, "move", app)
        count = MOST_WAITING + 100
        with ExitStack() as stack:
            started = time.monotonic()
            conns = [stack.enter_context(stalled(served.port, target)) for _ in range(count)]
            asked = time.monotonic()
            assert requests.get(f"{served.base}/healthz", timeout=5).status_code == 200
            healthz = time.monotonic() - asked
            for conn in conns[:100]:
                conn.settimeout(5)
            cut = [closed_after(conn, started) for conn in conns[:100]]
        assert healthz < 1, healthz
        assert all(seconds < 5 and answer.startswith(b"HTTP/1.1 408 ") for seconds, answer in cut), cut[:3]
        assert b"many others" in cut[0][1]
        assert target.state()[0] == 0
    finally:
        served.stop()
