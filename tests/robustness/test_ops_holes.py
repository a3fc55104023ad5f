"""Secrets and operations (issue 35): /metrics' Content-Type as strict parsers read it, a 503's own
Retry-After under the rate limiter, gunicorn's own lines as JSON on stdout, no metrics folder left
behind, and a missing browser named rather than skipped."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from robustness_helpers import ROOT, Gunicorn, free_port
from test_hung_database import silent_server  # noqa: F401  (a fixture)

from referee import create_app

# ---------------------------------------------------------------------------------------------------
# 1. /metrics: one media type, no repeated parameter, a body Prometheus's parser reads


_TOKEN = set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def strict_media_type(value: str) -> tuple[str, dict[str, str]]:
    """A Content-Type parsed as Go's ``mime.ParseMediaType`` does (what Prometheus's scraper calls):
    type/subtype and ``;``-separated token=token or token="quoted" parameters, any syntax error or a
    parameter named twice (case-insensitively) refused with ValueError."""
    media, _, rest = value.partition(";")
    media = media.strip().lower()
    kind, slash, sub = media.partition("/")
    if not slash or not kind or not sub or set(kind) - _TOKEN or set(sub) - _TOKEN:
        raise ValueError(f"bad media type {media!r}")
    params: dict[str, str] = {}
    while rest.strip():
        part, rest = _parameter(rest)
        name, eq, raw = part.partition("=")
        name = name.strip().lower()
        raw = raw.strip()
        if not eq or not name or set(name) - _TOKEN:
            raise ValueError(f"bad parameter {part!r}")
        if raw.startswith('"'):
            if len(raw) < 2 or not raw.endswith('"'):
                raise ValueError(f"bad quoted value {raw!r}")
            raw = raw[1:-1].replace('\\"', '"')
        elif not raw or set(raw) - _TOKEN:
            raise ValueError(f"bad value {raw!r}")
        if name in params:
            raise ValueError(f"duplicate parameter name {name!r}")
        params[name] = raw
    return media, params


def _parameter(rest: str) -> tuple[str, str]:
    """The next parameter of ``rest`` (after a ``;``) and what follows it; ``;`` inside quotes is kept."""
    quoted = False
    for i, ch in enumerate(rest):
        if ch == '"' and (i == 0 or rest[i - 1] != "\\"):
            quoted = not quoted
        elif ch == ";" and not quoted:
            return rest[:i], rest[i + 1:]
    return rest, ""


def test_the_strict_parser_refuses_what_go_refuses():
    assert strict_media_type("text/plain; version=1.0.0; charset=utf-8") == (
        "text/plain", {"version": "1.0.0", "charset": "utf-8"})
    for bad in ("text/plain; version=1.0.0; charset=utf-8; charset=utf-8", "text/plain; Charset=a; charset=b",
                "text; charset=utf-8", "text/plain; charset", "text/plain; a=b c"):
        with pytest.raises(ValueError):
            strict_media_type(bad)
    from email.message import EmailMessage

    message = EmailMessage()
    message["Content-Type"] = "text/plain; version=1.0.0; charset=utf-8; charset=utf-8"
    assert "duplicate parameter name" in str(message["Content-Type"].defects)


def test_metrics_content_type_has_each_parameter_once_and_the_body_parses(client, api):
    from email.message import EmailMessage

    from prometheus_client.parser import text_string_to_metric_families

    game = api.create("ninety-nine", ["Ann", "Bob"])
    api.move(game, {"type": "play", "player": "Ann", "card": "5H"})
    response = client.get("/metrics")
    assert response.status_code == 200
    header = response.headers["Content-Type"]
    assert len(response.headers.getlist("Content-Type")) == 1
    media, params = strict_media_type(header)
    assert media == "text/plain" and params == {"version": "1.0.0", "charset": "utf-8"}, header
    message = EmailMessage()
    message["Content-Type"] = header
    assert message.get_content_type() == "text/plain" and message.get_content_charset() == "utf-8"
    assert not message["Content-Type"].defects, message["Content-Type"].defects  # "duplicate parameter name"

    families = {f.name: f for f in text_string_to_metric_families(response.get_data(as_text=True))}
    assert {"referee_requests", "referee_request_seconds", "referee_moves_applied", "referee_refusals",
            "referee_database_errors"} <= set(families)
    moves = [s for s in families["referee_moves_applied"].samples if s.name == "referee_moves_applied_total"]
    assert any(s.labels == {"game": "ninety-nine"} and s.value >= 1 for s in moves)


PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"


@pytest.mark.slow
def test_a_real_prometheus_scrapes_metrics(gunicorns, tmp_path):
    """Debian's Prometheus (``apt-get install -y prometheus``) scrapes a gunicorn's /metrics: the
    target is up, the samples arrive, and its scraper found no fault with the Content-Type (at
    debug level it logs one it cannot parse before falling back to the text parser)."""
    if not os.path.exists(PROMETHEUS):
        pytest.skip(f"{PROMETHEUS} is not installed (apt-get install -y prometheus)")
    import requests

    server = gunicorns(workers=1)
    requests.get(server.base + "/healthz", timeout=5)
    port = free_port()
    (tmp_path / "prometheus.yml").write_text(
        "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
        f"scrape_configs:\n  - job_name: referee\n    static_configs:\n      - targets: ['127.0.0.1:{server.port}']\n")
    log = tmp_path / "prometheus.log"
    with open(log, "wb") as out:
        prometheus = subprocess.Popen(
            [PROMETHEUS, f"--config.file={tmp_path / 'prometheus.yml'}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
             f"--web.listen-address=127.0.0.1:{port}", "--log.level=debug"], stdout=out, stderr=subprocess.STDOUT)
    try:
        query, found = f"http://127.0.0.1:{port}/api/v1/query", None
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline:
            try:
                targets = requests.get(f"http://127.0.0.1:{port}/api/v1/targets", timeout=2).json()["data"]
                ours = targets["activeTargets"]
                result = requests.get(query, params={"query": 'referee_requests_total{route="/healthz"}'},
                                      timeout=2).json()["data"]["result"]
                if ours and ours[0]["health"] == "up" and result:
                    found = ours[0]
                    break
            except (requests.RequestException, KeyError, ValueError):
                pass
            time.sleep(0.5)
        assert found is not None, log.read_text()[-3000:]
        assert found["lastError"] == ""
    finally:
        prometheus.send_signal(signal.SIGTERM)
        try:
            prometheus.wait(timeout=20)
        except subprocess.TimeoutExpired:
            prometheus.kill()
            prometheus.wait(timeout=10)
    text = log.read_text()
    assert "Invalid content type" not in text and "duplicate parameter" not in text, text[-3000:]


# ---------------------------------------------------------------------------------------------------
# 2. A 503 says when the database may be back; only a 429 carries the limiter's window


@pytest.fixture
def limiter_put_back():
    """The Limiter is one module-level object shared by every app: an app made here with it on would
    leave it on, and counting, for the rest of the suite."""
    from referee.api.limits import limiter

    enabled = limiter.enabled
    yield
    limiter.reset()
    limiter.enabled = enabled


def test_a_503_under_the_rate_limiter_keeps_the_services_retry_after(silent_server, limiter_put_back):  # noqa: F811
    app = create_app({"SQLALCHEMY_DATABASE_URI": f"postgresql://postgres@127.0.0.1:{silent_server}/x",
                      "AUTO_MIGRATE": False, "TESTING": True, "SECRET_KEY": "x", "DB_TIMEOUT_SECONDS": 1,
                      "RATELIMIT_ENABLED": True, "RATELIMIT_STORAGE_URI": "memory://",
                      "RATELIMIT_CREATE": "2 per hour"})
    client = app.test_client()
    body = {"game": "nines", "players": ["Ann", "Bob"]}
    for _ in range(2):
        failed = client.post("/api/v1/games", json=body)
        assert failed.status_code == 503, failed.get_data(as_text=True)
        assert failed.headers.getlist("Retry-After") == ["5"]       # errors.database_unavailable's own
        assert failed.headers["X-RateLimit-Limit"] == "2"            # the limiter did see the request
    refused = client.post("/api/v1/games", json=body)
    assert refused.status_code == 429
    assert len(refused.headers.getlist("Retry-After")) == 1
    assert 3000 < int(refused.headers["Retry-After"]) <= 3600       # the hour's window


def test_a_busy_writer_queue_keeps_its_two_seconds_under_the_rate_limiter(tmp_path, limiter_put_back):
    """store._busy's 503 (another write held the SQLite file too long) says 2 s, not the window."""
    from referee import store
    from referee.api.limits import limit_game_creation

    app = create_app({"SQLALCHEMY_DATABASE_URI": "sqlite:///" + str(tmp_path / "x.sqlite3"), "AUTO_MIGRATE": True,
                      "TESTING": True, "SECRET_KEY": "x", "RATELIMIT_ENABLED": True,
                      "RATELIMIT_STORAGE_URI": "memory://", "RATELIMIT_CREATE": "1 per hour"})

    @app.post("/busy-for-the-test")
    @limit_game_creation
    def busy():
        raise store._busy()

    client = app.test_client()
    first = client.post("/busy-for-the-test")
    assert first.status_code == 503 and first.headers.getlist("Retry-After") == ["2"]
    assert first.headers["X-RateLimit-Remaining"] == "0"
    second = client.post("/busy-for-the-test")
    assert second.status_code == 429 and int(second.headers["Retry-After"]) > 3000


def test_an_answer_that_is_neither_429_nor_its_own_retry_after_gets_none(tmp_path, limiter_put_back):
    app = create_app({"SQLALCHEMY_DATABASE_URI": "sqlite:///" + str(tmp_path / "x.sqlite3"), "AUTO_MIGRATE": True,
                      "TESTING": True, "SECRET_KEY": "x", "RATELIMIT_ENABLED": True,
                      "RATELIMIT_STORAGE_URI": "memory://", "RATELIMIT_CREATE": "5 per hour"})
    created = app.test_client().post("/api/v1/games", json={"game": "nines", "players": ["Ann", "Bob"]})
    assert created.status_code == 201 and "Retry-After" not in created.headers
    assert created.headers["X-RateLimit-Remaining"] == "4"


# ---------------------------------------------------------------------------------------------------
# 3. gunicorn's own lines (boot, a worker's timeout and death, shutdown) are JSON lines on stdout


class LoggedGunicorn(Gunicorn):
    """The helpers' gunicorn, started with the project's logging as it is (no --access-logfile), its
    stdout and stderr kept in files, and extra command-line arguments."""

    def __init__(self, database_url: str, folder: Path, args=(), **env):
        super().__init__(database_url, folder / "stderr.log", 2, **env)
        self.out_path, self.args = folder / "stdout.log", list(args)

    def command(self) -> tuple[list[str], dict]:
        env = dict(os.environ, DATABASE_URL=self.database_url, PORT=str(self.port), WEB_CONCURRENCY="2",
                   SECRET_KEY="test", RATELIMIT_ENABLED="0", LOG_LEVEL="info", AUTO_MIGRATE="0")
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        env.pop("REFEREE_METRICS_DIR_MADE", None)
        env.update(self.env)
        return ([sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py", "--bind", f"127.0.0.1:{self.port}",
                 *self.args, "wsgi:app"], env)

    def outputs(self):
        return open(self.out_path, "ab"), open(self.log_path, "ab")

    def output(self) -> str:
        return self.out_path.read_text()[-3000:] + self.log_path.read_text()[-3000:]

    def run_to_the_end(self, seconds: float = 60) -> int:
        """For a start that fails: run it until it exits, and return its exit status."""
        argv, env = self.command()
        with open(self.out_path, "ab") as out, open(self.log_path, "ab") as err:
            return subprocess.run(argv, check=False, cwd=ROOT, env=env, stdout=out, stderr=err,
                                  timeout=seconds).returncode

    def lines(self) -> list[dict]:
        """Every line on stdout, each of which must be a JSON object."""
        found = []
        for line in self.out_path.read_text().splitlines():
            if line.strip():
                parsed = json.loads(line)  # a text line fails here
                assert isinstance(parsed, dict), line
                found.append(parsed)
        return found


def _wait_for(server: LoggedGunicorn, message: str, seconds: float = 30) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for line in server.lines():
            if line.get("message") == message:
                return line
        time.sleep(0.2)
    raise AssertionError(f"no line {message!r}:\n" + server.out_path.read_text()[-3000:])


@pytest.mark.slow
def test_gunicorn_lines_are_json_on_stdout_and_stderr_stays_empty(app, database_url, tmp_path):
    import requests

    server = LoggedGunicorn(database_url, tmp_path, ["--timeout", "3"]).start()
    master, stopped = server.proc.pid, None
    try:
        assert requests.get(server.base + "/healthz", headers={"X-Request-Id": "ops-35"}, timeout=5).status_code == 200
        workers = server.worker_pids()
        stopped = workers[0]
        os.kill(stopped, signal.SIGSTOP)  # a hung worker: no heartbeat, and the abort it is sent waits
        timeout = _wait_for(server, f"WORKER TIMEOUT (pid:{stopped})")
        killed = _wait_for(server, f"Worker (pid:{stopped}) was sent SIGKILL! Perhaps out of memory?")
    finally:
        if stopped is not None:
            try:
                os.kill(stopped, signal.SIGCONT)
            except ProcessLookupError:
                pass
        server.stop()
    assert server.proc.returncode == 0
    assert server.log_path.read_text() == ""                       # nothing on stderr, text or otherwise
    lines = server.lines()
    assert timeout["level"] == "critical" and timeout["logger"] == "gunicorn.error" and timeout["pid"] == master
    assert killed["level"] == "error" and killed["pid"] == master
    gunicorn = [line for line in lines if line["logger"] == "gunicorn.error"]
    assert all(set(line) >= {"time", "level", "logger", "message", "pid"} for line in gunicorn)
    assert all(line["time"].endswith("+00:00") for line in gunicorn)
    messages = [line["message"] for line in gunicorn]
    assert messages[0] == "Starting gunicorn " + __import__("gunicorn").__version__
    for pid in workers:
        assert {"message": f"Booting worker with pid: {pid}", "pid": pid}.items() <= next(
            line for line in gunicorn if line["message"] == f"Booting worker with pid: {pid}").items()
    assert len([m for m in messages if m.startswith("Booting worker")]) >= 3  # the replacement too
    assert gunicorn[-1]["message"] == "Shutting down: Master" and gunicorn[-1]["pid"] == master
    # the request: the service's own line with its route's pattern, and no access line of gunicorn's
    assert [line["route"] for line in lines if line.get("request_id") == "ops-35"] == ["/healthz"]
    assert not [line for line in lines if line["logger"].startswith("gunicorn.access")]
    assert "GET /healthz" not in server.out_path.read_text()


@pytest.mark.slow
def test_a_master_that_cannot_load_the_app_says_so_in_json(tmp_path):
    """The app failing to load in the master (here: migrations against a database that refuses):
    its traceback is a JSON line on stdout too, and the metrics folder is gone (section 4)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    server = LoggedGunicorn("postgresql://postgres@127.0.0.1:1/x", tmp_path, AUTO_MIGRATE="1",
                            DB_TIMEOUT_SECONDS="2", TMPDIR=str(tmp))
    assert server.run_to_the_end() != 0
    assert server.log_path.read_text() == ""
    last = server.lines()[-1]
    assert last["level"] == "critical" and last["logger"] == "gunicorn.error"
    assert "OperationalError" in last["message"] and "Traceback" in last["exception"]
    assert list(tmp.iterdir()) == []


# ---------------------------------------------------------------------------------------------------
# 4. No referee-metrics-* folder outlives the master that made it; a folder given is left alone


@pytest.mark.slow
def test_the_metrics_folder_made_at_start_goes_when_the_master_stops(app, database_url, tmp_path):
    import requests

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    server = LoggedGunicorn(database_url, tmp_path / "made", TMPDIR=str(tmp))
    (tmp_path / "made").mkdir()
    server.start()
    try:
        made = list(tmp.iterdir())
        assert [p.name.startswith("referee-metrics-") for p in made] == [True]
        requests.get(server.base + "/healthz", timeout=5)
        assert "referee_requests_total" in requests.get(server.base + "/metrics", timeout=5).text
        assert list(made[0].glob("*.db"))                   # the workers' files are in it
    finally:
        server.stop()
    assert server.proc.returncode == 0
    assert list(tmp.iterdir()) == []


@pytest.mark.slow
def test_a_metrics_folder_given_is_left_where_it_was(app, database_url, tmp_path):
    import requests

    tmp, given = tmp_path / "tmp", tmp_path / "given"
    tmp.mkdir()
    given.mkdir()
    (tmp_path / "run").mkdir()
    server = LoggedGunicorn(database_url, tmp_path / "run", TMPDIR=str(tmp), PROMETHEUS_MULTIPROC_DIR=str(given))
    server.start()
    try:
        requests.get(server.base + "/healthz", timeout=5)
    finally:
        server.stop()
    assert list(tmp.iterdir()) == []                        # none made
    assert given.is_dir() and list(given.glob("*.db"))      # and the given one kept, with its files


# ---------------------------------------------------------------------------------------------------
# 5. A run that selects browser tests and has no browser fails at once, naming it; -m "not browser" runs


def _pytest(*args: str, chromium: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, TEST_CHROMIUM=chromium)
    env.pop("TEST_DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.slow
def test_a_missing_browser_fails_the_run_with_one_message_unless_deselected(tmp_path):
    missing = str(tmp_path / "no-chromium")
    run = _pytest("tests/web/test_web_card_pad.py", chromium=missing)
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.stdout[-2000:]
    assert "no tests ran" in run.stdout and "passed" not in run.stdout          # stopped before any test
    message = [line for line in run.stdout.splitlines() if "apt-get install -y chromium" in line]
    assert len(message) == 1 and missing in message[0] and "is missing" in message[0], run.stdout[-2000:]
    assert '-m "not browser"' in message[0] and "skipped" not in run.stdout

    deselected = _pytest("tests/web/test_web_card_pad.py", "-m", "not browser", chromium=missing)
    assert deselected.returncode == 0, deselected.stdout[-2000:]
    assert "deselected" in deselected.stdout and "skipped" not in deselected.stdout


@pytest.mark.slow
def test_a_browser_that_cannot_start_stops_the_run_with_one_message(tmp_path):
    fake = tmp_path / "chromium"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    run = _pytest("tests/web/test_web_games.py", chromium=str(fake))
    assert run.returncode == pytest.ExitCode.TESTS_FAILED, run.stdout[-2000:]
    message = [line for line in run.stdout.splitlines() if "apt-get install -y chromium" in line]
    assert len(message) == 1 and str(fake) in message[0] and "could not launch" in message[0], run.stdout[-2000:]


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True, check=False).stdout
    return [int(p) for p in out.split()]


def _until(check, seconds: float = 30, what: str = ""):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"timed out: {what}")


@pytest.mark.slow
@pytest.mark.parametrize("reloaded", [False, True], ids=["usr2", "hup-then-usr2"])
def test_a_new_master_keeps_the_folder_it_uses_and_each_master_removes_its_own(app, database_url, tmp_path, reloaded):
    """USR2 starts a new master with gunicorn's original environment, or with the one of the last HUP,
    which already names the first master's folder: then the new master uses that folder, and the old
    master must leave it when it exits. (gunicorn's script, as the README starts it: ``python -m
    gunicorn`` cannot re-execute itself.)"""
    import requests

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    (tmp_path / "run").mkdir()
    server = LoggedGunicorn(database_url, tmp_path / "run", TMPDIR=str(tmp))
    command = server.command

    def with_the_script():
        argv, env = command()
        return [str(Path(sys.executable).parent / "gunicorn"), *argv[3:]], env

    server.command = with_the_script
    server.start()
    old, new = server.proc.pid, None
    try:
        first = list(tmp.iterdir())
        assert len(first) == 1
        if reloaded:
            workers = set(_children(old))
            os.kill(old, signal.SIGHUP)
            _until(lambda: len(set(_children(old)) - workers) >= 2, what="the reload's workers")
        os.kill(old, signal.SIGUSR2)
        new = _until(lambda: next((p for p in _children(old) if _children(p)), None), what="a new master")
        def ready():
            try:
                return requests.get(server.base + "/readyz", timeout=2).status_code == 200
            except requests.RequestException:
                return False

        _until(ready, what="ready")
        os.kill(old, signal.SIGTERM)
        server.proc.wait(timeout=30)
        kept = list(tmp.iterdir())
        assert kept == (first if reloaded else [p for p in kept if p != first[0]]) and len(kept) == 1
        for _ in range(3):  # the new master's workers write into the folder it uses
            assert requests.get(server.base + "/metrics", timeout=5).status_code == 200
    finally:
        for pid in (old, new):
            if pid is not None:
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
    _until(lambda: not list(tmp.iterdir()), what="the new master's folder removed")
    assert server.log_path.read_text() == ""
    server.lines()  # every line on stdout is JSON


def test_gunicorn_connections_sets_the_workers_connection_limit(tmp_path):
    """GUNICORN_CONNECTIONS, which the README names, is gunicorn's worker_connections (read in a
    process of its own: the settings file patches gevent and gunicorn where it runs)."""
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, GUNICORN_CONNECTIONS="4321", PROMETHEUS_MULTIPROC_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", "import runpy; print(runpy.run_path('gunicorn.conf.py')"
                          "['worker_connections'])"], cwd=root, env=env, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip().splitlines()[-1] == "4321", out.stderr[-2000:]
