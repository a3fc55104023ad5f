"""Live event streams (GET /api/v1/games/{id}/events) under gunicorn as the README serves it: how
many open streams the box holds, the time from a move's 201 to its event at a follower, and move
throughput with and without the streams open. Prints figures; never passes or fails.

    python -m bench.streams                          # SQLite, then PostgreSQL (BENCH_PG_URL)
    python -m bench.streams --db sqlite --streams 1000 1800
    python -m bench.streams --across /tmp/before .   # a follower on the OTHER worker, builds in turns

``--across``: the time from a move's 201 on one gunicorn worker to its event at a follower held
by the other worker (``ss`` tells which worker holds a connection), over ``--moves`` moves sent
10-60 ms apart whatever the events do (so that they fall at every phase of a poll), for each build
directory served in turns on a fresh SQLite file, ``--rounds`` times; then the ratio of the last
build's figures to the first's. A build is a copy of this repository (``git archive HEAD | tar -x
-C /tmp/before``; for issue 36's "before", a copy of this tree whose ``Wakeups.folder_for`` returns
None: the poll alone, every 0.25 s). Then what one poll of SQLite's safety net costs in a process as
its watched games grow (``poll_cost``).

Idle streams are raw sockets that sent their request and read nothing more (the server's 15 s
heartbeats wait in the kernel's buffers); followers that measure latency read their stream in a
thread. Moves come from wrk as in bench.throughput (legal moves, one in flight per game).
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

import requests

from bench.common import GAMES, Server, create_game, database_url, games_file, machine, move_stream, wrk


def open_idle_streams(port: int, game_ids: list[str], n: int) -> list[socket.socket]:
    socks = []
    for i in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(f"GET /api/v1/games/{game_ids[i % len(game_ids)]}/events HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
        socks.append(s)
    for s in socks:  # each answered its headers: the stream is open
        head = s.recv(4096)
        if not head.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(head[:200])
    return socks


def latency(base: str, rounds: int) -> tuple[list[float], list[float]]:
    """For each move on a fresh game with one follower: seconds from sending the move to its 201,
    and from sending it to the follower's event (the event may come first: it leaves at commit)."""
    game = create_game(base)
    arrived: dict[int, float] = {}
    stream = requests.get(f"{base}/api/v1/games/{game['id']}/events", stream=True, timeout=30)

    def read():
        try:
            for line in stream.iter_lines(decode_unicode=True):
                if line.startswith("data:"):
                    arrived[json.loads(line[5:])["revision"]] = time.monotonic()
        except Exception:  # closed at the end
            pass

    threading.Thread(target=read, daemon=True).start()
    time.sleep(0.3)
    answers, events = [], []
    for revision, move in enumerate(move_stream(rounds), start=1):
        sent = time.monotonic()
        answer = requests.post(f"{base}/api/v1/games/{game['id']}/moves", json=move, timeout=10,
                               headers={"Authorization": f"Bearer {game['token']}"})
        answers.append(time.monotonic() - sent)
        assert answer.status_code == 201, answer.text
        deadline = time.monotonic() + 5
        while revision not in arrived and time.monotonic() < deadline:
            time.sleep(0.0005)
        events.append(arrived.get(revision, float("inf")) - sent)
        time.sleep(0.02)
    stream.close()
    return answers, events


def figures(answers: list[float], events: list[float]) -> str:
    def p(values, q):
        return sorted(values)[min(len(values) - 1, int(q * len(values)))] * 1000

    return (f"201 p50 {p(answers, .5):5.1f} p99 {p(answers, .99):5.1f} ms, event p50 {p(events, .5):5.1f} "
            f"p99 {p(events, .99):5.1f} ms")


def worker_of(server: Server, conn: http.client.HTTPConnection) -> int:
    """The pid of the worker holding the server's end of the client connection ``conn``."""
    port = conn.sock.getsockname()[1]
    for _ in range(50):  # the worker accepts it a moment after the client's connect returns
        out = subprocess.run(["ss", "-tnpH", "state", "established", f"( sport = :{server.port} )"],
                             capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            fields = line.split()
            if len(fields) >= 4 and fields[3].endswith(f":{port}"):
                return int(re.search(r"pid=(\d+)", line).group(1))
        time.sleep(0.01)
    raise RuntimeError(f"no worker holds the connection from port {port}")


def connection_on(server: Server, wanted, tries: int = 100) -> tuple[http.client.HTTPConnection, int]:
    """A new keep-alive connection held by a worker for which ``wanted(pid)`` is true, and that pid."""
    for _ in range(tries):
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        conn.connect()
        pid = worker_of(server, conn)
        if wanted(pid):
            return conn, pid
        conn.close()
    raise RuntimeError("no connection reached the wanted worker")


def across_workers(server: Server, moves: int, state: str = "full") -> dict:
    """One game, one follower held by one worker, its moves sent on a connection held by the other,
    10-60 ms apart whatever the events do (so they fall at every phase of a poll): for each move,
    seconds from its 201 to the follower's first event at or past its revision (a poll's event may
    carry several moves; negative: the event came first), and from sending it to its 201. ``state``:
    the stream's ``?state=`` (``none``: notices, no table in the events)."""
    game = create_game(server.base)
    stream, follower_pid = connection_on(server, lambda pid: True)
    stream.request("GET", f"/api/v1/games/{game['id']}/events?state={state}")
    events = stream.getresponse()
    assert events.status == 200, events.status
    arrived: list[tuple[float, int]] = []  # (when, revision), in order

    def read():
        try:
            for line in iter(events.readline, b""):
                if line.startswith(b"data:"):
                    arrived.append((time.monotonic(), json.loads(line[5:])["revision"]))
        except (OSError, ValueError, http.client.HTTPException):  # closed at the end
            pass

    threading.Thread(target=read, daemon=True).start()
    mover, _ = connection_on(server, lambda pid: pid != follower_pid)
    mover_port = mover.sock.getsockname()[1]
    headers = {"Authorization": f"Bearer {game['token']}", "Content-Type": "application/json"}
    answered_at, answers, rng = [], [], random.Random(1)
    time.sleep(0.3)
    for move in move_stream(moves):
        time.sleep(rng.uniform(0.01, 0.06))
        sent = time.monotonic()
        mover.request("POST", f"/api/v1/games/{game['id']}/moves", body=json.dumps(move), headers=headers)
        answer = mover.getresponse()
        body = answer.read()
        answered_at.append(time.monotonic())
        answers.append(answered_at[-1] - sent)
        assert answer.status == 201, body[:300]
        if mover.sock is None or mover.sock.getsockname()[1] != mover_port:  # closed by the server
            mover.close()
            mover, _ = connection_on(server, lambda pid: pid != follower_pid)
            mover_port = mover.sock.getsockname()[1]
    deadline = time.monotonic() + 5
    while (not arrived or arrived[-1][1] < moves) and time.monotonic() < deadline:
        time.sleep(0.01)
    stream.close()
    mover.close()
    lags, seen = [], list(arrived)
    for revision, answered in enumerate(answered_at, start=1):
        when = next((at for at, has in seen if has >= revision), float("inf"))
        lags.append(when - answered)
    return {"lags": lags, "answers": answers, "events": len(seen)}


def poll_cost(url: str, counts: list[int], repeat: int = 20) -> list[tuple[int, float]]:
    """Milliseconds one poll (``events.Hub._poll_once``) takes in this process for each number of
    watched games, the games made in the database at ``url`` beforehand."""
    from sqlalchemy import create_engine, insert

    from referee import events
    from referee.models import Game

    engine = create_engine(url)
    ids = [f"poll-{i:06d}" for i in range(max(counts))]
    with engine.begin() as conn:
        conn.execute(insert(Game), [{"id": i, "game": "ninety-nine", "players": ["Ann", "Bob"], "options": {},
                                     "state": {}, "version": 0, "revision": 0, "token_hash": "x"} for i in ids])
    hub, costs = events.Hub(), []
    hub.publish = lambda change: None
    for n in counts:
        seen: dict = {}
        hub._poll_once(engine, ids[:n], seen)  # the first sight, and a warm connection
        started = time.perf_counter()
        for _ in range(repeat):
            hub._poll_once(engine, ids[:n], seen)
        costs.append((n, (time.perf_counter() - started) / repeat * 1000))
    engine.dispose()
    return costs


RECEIVERS = """
import os, selectors, socket, sys
chosen = selectors.DefaultSelector()
for i in range(int(sys.argv[2])):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(os.path.join(sys.argv[1], str(4_000_000 + i)))
    chosen.register(sock, selectors.EVENT_READ)
print("ready", flush=True)
while True:
    for key, _ in chosen.select():
        key.fileobj.recv(512)
"""


def send_cost(listeners: int, sends: int = 20000) -> tuple[float, float]:
    """Microseconds one wake-up's send (``events.Wakeups.send``) takes a writer in this process, to
    ``listeners`` sockets that another process reads; and, beside it, one listing of their folder."""
    from referee.events import Change, Wakeups

    folder = tempfile.mkdtemp(prefix="bench-wakeups-")
    os.chmod(folder, 0o700)
    with subprocess.Popen([sys.executable, "-c", RECEIVERS, folder, str(listeners)], stdout=subprocess.PIPE,
                          text=True) as receivers:
        receivers.stdout.readline()
        wakeups, change = Wakeups(folder), Change("Xq3v9TgH2kLmPw0a", 123, 120, "move")
        started = time.perf_counter()
        for _ in range(sends):
            wakeups.send(change)
        send = (time.perf_counter() - started) / sends * 1e6
        started = time.perf_counter()
        for _ in range(sends):
            os.listdir(folder)
        listing = (time.perf_counter() - started) / sends * 1e6
        receivers.kill()
    return send, listing


def p(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(q * len(values)))] * 1000


def run_across(builds: list[str], rounds: int, moves: int, worker_class: str, state: str) -> None:
    kept: dict[str, list[dict]] = {build: [] for build in builds}
    for turn in range(rounds):
        for build in builds:
            tmp = tempfile.mkdtemp(prefix="bench-across-")
            with Server("wsgi:app", database_url=f"sqlite:///{tmp}/bench.sqlite3", workers=2, root=build,
                        PYTHONPATH=os.path.abspath(build), GUNICORN_WORKER_CLASS=worker_class,
                        EVENTS_MAX_SECONDS="600") as server:
                server.wait("/readyz")
                cpu = server.cpu_seconds()
                row = across_workers(server, moves, state)
                row["worker_ms"] = 1000 * (server.cpu_seconds() - cpu) / moves
            kept[build].append(row)
            lost = sum(lag == float("inf") for lag in row["lags"])
            print(f"{build:24} turn {turn + 1}  {moves} moves, 201 -> event on the other worker: p50 "
                  f"{p(row['lags'], .5):6.1f} p99 {p(row['lags'], .99):6.1f} max {p(row['lags'], 1):6.1f} ms"
                  f"{f' ({lost} never came)' if lost else ''}  201 p50 {p(row['answers'], .5):5.1f} "
                  f"p99 {p(row['answers'], .99):5.1f} ms  {row['events']} events  workers {row['worker_ms']:.2f} ms "
                  "CPU/move", flush=True)
    if len(builds) > 1:
        first, last = builds[0], builds[-1]
        merged = {build: {key: [v for row in kept[build] for v in row[key]] for key in ("lags", "answers")}
                  for build in (first, last)}
        for q, name in ((.5, "p50"), (.99, "p99")):
            lag = [p(merged[build]["lags"], q) for build in (first, last)]
            answer = [p(merged[build]["answers"], q) for build in (first, last)]
            print(f"{last} / {first}: 201 -> event {name} {lag[1]:.1f} / {lag[0]:.1f} ms = {lag[1] / lag[0]:.3f}; "
                  f"the moves' 201 {name} {answer[1]:.1f} / {answer[0]:.1f} ms = {answer[1] / answer[0]:.2f}")
        cpu = [sum(row["worker_ms"] for row in kept[build]) / rounds for build in (first, last)]
        print(f"{last} / {first}: workers' CPU per move (its event included) {cpu[1]:.2f} / {cpu[0]:.2f} ms "
              f"= {cpu[1] / cpu[0]:.2f}")
        (one, listing), (three, _) = send_cost(1), send_cost(3)
        print(f"a wake-up's send in this process: {one:.1f} us to 1 other process ({one / 10 / cpu[1]:.2f} % of the "
              f"workers' CPU per move above; {one / listing:.1f} x a listing of the folder), {three:.1f} us to 3",
              flush=True)
    tmp = tempfile.mkdtemp(prefix="bench-poll-")
    url = f"sqlite:///{tmp}/bench.sqlite3"
    with Server("wsgi:app", database_url=url) as server:  # made and migrated by the service itself
        server.wait("/readyz")
    print("one poll of the watched games (SQLite, in this process): " + ", ".join(
        f"{n} games {ms:.2f} ms" for n, ms in poll_cost(url, [10, 100, 1000, 5000])), flush=True)


def move_rate(server: Server, http: requests.Session, tmp: str, moves_file: str, clients: int,
              duration: float) -> dict:
    games = games_file(server.base, clients, os.path.join(tmp, f"games-{time.monotonic_ns()}.txt"), http)
    return wrk(server.base, clients, duration, "moves", "/", games_file=games, moves_file=moves_file)


def run(db: str, counts: list[int], clients: int, duration: float, moves_file: str) -> None:
    tmp = tempfile.mkdtemp(prefix="bench-streams-")
    url = database_url(db, tmp)
    with Server("wsgi:app", database_url=url, EVENTS_MAX_SECONDS="600") as server:
        server.wait("/readyz")
        http = requests.Session()
        base = move_rate(server, http, tmp, moves_file, clients, duration)
        print(f"{db:8} streams=0     moves c={clients} {base['rps']:6.0f}/s p99 {base['p99']:7.1f} ms  "
              f"from sending a move: {figures(*latency(server.base, 100))}", flush=True)
        watched = [create_game(server.base, http)["id"] for _ in range(GAMES)]
        for n in counts:
            started = time.monotonic()
            socks = open_idle_streams(server.port, watched, n)
            opened = time.monotonic() - started
            try:
                health = [requests.get(f"{server.base}/healthz", timeout=10).elapsed.total_seconds() for _ in range(20)]
                loaded = move_rate(server, http, tmp, moves_file, clients, duration)
                print(f"{db:8} streams={n:<5} moves c={clients} {loaded['rps']:6.0f}/s p99 {loaded['p99']:7.1f} ms "
                      f"({loaded['rps'] / base['rps']:.2f} of no streams)  from sending a move: "
                      f"{figures(*latency(server.base, 100))}  "
                      f"opened in {opened:.1f} s, /healthz worst {max(health) * 1000:.1f} ms  "
                      f"worker RSS {server.worker_rss_mib()} MiB", flush=True)
            finally:
                for s in socks:
                    s.close()
            time.sleep(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", nargs="+", default=["sqlite", "postgres"], choices=["sqlite", "postgres"])
    parser.add_argument("--streams", nargs="+", type=int, default=[1000, 1800],
                        help="idle streams held open (two workers hold 1,000 connections each)")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--across", nargs="+", metavar="BUILD",
                        help="instead: a follower on the other worker, for these builds (directories) in turns")
    parser.add_argument("--moves", type=int, default=300, help="with --across: moves per build and turn")
    parser.add_argument("--rounds", type=int, default=2, help="with --across: turns of every build")
    parser.add_argument("--worker-class", default="gevent", dest="worker_class", help="with --across")
    parser.add_argument("--state", default="full", choices=["full", "none"],
                        help="with --across: the follower's ?state= (none: notices without the table)")
    args = parser.parse_args()
    print(machine(), flush=True)
    if args.across:
        run_across(args.across, args.rounds, args.moves, args.worker_class, args.state)
        return
    moves_file = tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False)
    moves_file.write("\n".join(json.dumps(m, separators=(",", ":")) for m in move_stream(1000)) + "\n")
    moves_file.close()
    for db in args.db:
        run(db, args.streams, args.clients, args.duration, moves_file.name)


if __name__ == "__main__":
    main()
