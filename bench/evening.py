"""A Friday night on one machine (issue 36): many tables, each a game of one of the five with a move
every 2-10 s, four phones following each table's event stream, phones coming and going; the service
served as the README serves it (gunicorn with gunicorn.conf.py, bench.common.Server). Prints figures;
never passes or fails.

    python -m bench.evening                                   # the sweep, SQLite then PostgreSQL
    python -m bench.evening --db sqlite --tables 100 200 --seconds 20
    python -m bench.evening --tables 5 --seconds 10 --db sqlite   # a quick look (about 30 s)

PostgreSQL is the database at BENCH_PG_URL (default postgresql://postgres@127.0.0.1:5432/bench, made
once with ``psql -h 127.0.0.1 -U postgres -c 'create database bench'``); the bench empties it.

A table (``Table``): a game of one of the five, in turn (so the mix is even), created through the
API with its token; four players (XIX: two) and the game's default options. Its mover sends a move
every 2-10 s (a new random wait each time), drawn by the game's random player from what the engine
allows (the players of tests/rules/players, which the API tests play whole games with; they read the
engine's own state, which the mover mirrors by applying each accepted move). A game that ends is
followed by a new game at the same table, which its followers move to once they have the end.

A phone (``Phone``) reuses its open connection for half its requests (when the server has not
closed it meanwhile) and opens a new one for the others. A move that meets a reset or a timeout is
sent again with its Idempotency-Key, as the pages' outbox does (counted as an error all the same).

A follower (``follower``) holds the game's event stream (GET /api/v1/games/{id}/events) and after
each event gets the new table as the pages do: from the event itself when its data carries
``state``, else with GET /api/v1/games/{id} and If-None-Match. Now and then it drops its stream (on
average every ``STAY_SECONDS``) and comes back after 0.2-2 s with Last-Event-ID.

A row, for a number of tables, over ``--seconds`` after a short warm-up:
- moves/s and the moves' p50/p99 (from sending, connect included, to the 201);
- follower p50/p99: from a move's 201 to each follower having that table (0 when it had it first; a
  follower whose stream was down at the 201 counts from when its stream is back);
- errors: any answer but 2xx/304, resets, timeouts, streams the server ended, and (after a few
  seconds' grace) each follower that never got a move of the window;
- req/s and connects/s the tables made; the server's open connections (mean and most, ``ss``) and
  the most waiting in its accept queue;
- CPU in cores: the workers' (and their RSS); on PostgreSQL, every PostgreSQL process's; the load
  generator's own CPU (per process: near a whole core it was the bottleneck, and the row says so);
  how many cores the whole machine kept busy, and how many of them went to something else than this
  row (another program on a shared machine makes a row's figures worse than the service's own).

The sweep (no ``--tables``): doubles the tables from ``--start`` until a row fails (move p99 >= 100 ms,
follower p99 >= 500 ms or any error), then bisects ``--steps`` times, within ``--budget`` seconds per
database, and names the largest number of tables that passed. Beside it, the floor measured in the
same run by this same generator: bench/hello.py's bare ``GET /hello`` (keep-alive, and a new connection
each) and its ``POST /commit`` (one durable commit of a move-sized row, nothing else), 16 clients.

The load generator is asyncio with a small HTTP/1.1 client of its own (``Connection``), thousands of
connections per process; ``--procs`` splits the tables over processes (by default one per 500
tables). Each server is started afresh for each row, on the same database.
"""
from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import math
import multiprocessing
import os
import queue
import random
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import uuid
from collections import Counter
from dataclasses import dataclass, field

from bench.common import ROOT, Server, cpu_seconds, database_url, machine
from bench.compare import machine_times, postgres_cpu_seconds
from referee.rules import ENGINES

sys.path.insert(0, str(ROOT / "tests" / "rules"))  # the random players' own package, as the API tests import it

MOVE_EVERY = (2.0, 10.0)  # seconds between a table's moves
FOLLOWERS = 4
KEEP_ALIVE = 0.5  # the share of a phone's requests that reuse its connection (when still open)
STAY_SECONDS = 60.0  # a follower's stream stays up this long on average, then the phone drops it
AWAY_SECONDS = (0.2, 2.0)  # and comes back after this long
TIMEOUT = 10.0  # a request not answered by then is a timeout
WARM_SECONDS = 2.0  # moves start, then the window opens
GRACE_SECONDS = 3.0  # after the window, for the last moves to reach every follower
MOVE_P99_MS, FOLLOWER_P99_MS = 100.0, 500.0  # an evening the node serves
SEATS = {"xix": ["Ann", "Bob"]}
PLAYERS = ["Ann", "Bob", "Cid", "Dee"]
TABLES_PER_PROCESS = 500  # about a third of a core each, fetching after each event
RESETS = (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, OSError)


def raise_open_files() -> int:
    """Thousands of sockets: the soft open-file limit up to the hard one (the server inherits it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def percentile(values: list[float], q: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def revision_of(tag: str) -> int:
    """The revision (count of writes) in an ETag, ``"<version>"`` or ``"<version>-<revision>"``."""
    tag = tag.strip().strip('"')
    return int(tag.rsplit("-", 1)[-1])


# ---------------------------------------------------------------- a small HTTP/1.1 client

class Connection:
    """One HTTP/1.1 connection to 127.0.0.1:``port``: requests with Content-Length, answers with
    Content-Length or chunked (an event stream is chunked), one request at a time."""

    def __init__(self, port: int):
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def connect(self) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port, limit=1 << 20)

    @property
    def open(self) -> bool:
        """Connected, and not closed by the server meanwhile (its FIN has been read)."""
        return self.writer is not None and not self.writer.is_closing() and not self.reader.at_eof()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.reader = self.writer = None

    def send(self, method: str, path: str, headers: dict, body: bytes = b"") -> None:
        lines = [f"{method} {path} HTTP/1.1", "Host: bench", *(f"{k}: {v}" for k, v in headers.items())]
        if body or method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(body)}")
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)

    async def head(self) -> tuple[int, dict]:
        raw = await self.reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = raw.decode("latin-1").split("\r\n")
        headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            if value:
                headers[name.strip().lower()] = value.strip()
        return int(status_line.split(" ", 2)[1]), headers

    async def chunks(self):
        """The chunks of a chunked body, as they arrive; ends at the last (empty) chunk."""
        while True:
            size = int((await self.reader.readuntil(b"\r\n")).split(b";", 1)[0], 16)
            if size == 0:
                await self.reader.readuntil(b"\r\n")  # the empty trailer
                return
            yield (await self.reader.readexactly(size + 2))[:-2]

    async def body(self, status: int, headers: dict) -> bytes:
        if status in (204, 304) or status < 200:
            return b""
        if headers.get("transfer-encoding", "").lower() == "chunked":
            return b"".join([chunk async for chunk in self.chunks()])
        if "content-length" in headers:
            return await self.reader.readexactly(int(headers["content-length"]))
        body = await self.reader.read()  # neither: the body runs to the close
        self.close()
        return body

    async def request(self, method: str, path: str, headers: dict, body: bytes = b"") -> tuple[int, dict, bytes]:
        self.send(method, path, headers, body)
        status, answer_headers = await self.head()
        data = await self.body(status, answer_headers)
        if answer_headers.get("connection", "").lower() == "close":
            self.close()
        return status, answer_headers, data


class Phone:
    """A phone's requests: its open connection again some of the time, a new one the other times."""

    def __init__(self, port: int, rng: random.Random, counts: Counter):
        self.port, self.rng, self.counts = port, rng, counts
        self.connection: Connection | None = None

    async def request(self, method: str, path: str, headers: dict, body: bytes = b"") -> tuple[int, dict, bytes]:
        self.counts["requests"] += 1
        try:
            async with asyncio.timeout(TIMEOUT):
                if self.connection is None or not self.connection.open or self.rng.random() >= KEEP_ALIVE:
                    self.close()
                    self.connection = Connection(self.port)
                    self.counts["connects"] += 1
                    await self.connection.connect()
                return await self.connection.request(method, path, headers, body)
        except BaseException:
            self.close()  # whatever it was in the middle of, this connection is done
            raise

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None


# ---------------------------------------------------------------- tables

@dataclass
class Window:
    """When moves run and when the measured window is, on time.monotonic() (the same in every process)."""
    opens: float
    closes: float

    def holds(self, moment: float) -> bool:
        return self.opens <= moment < self.closes


@dataclass
class Follower:
    """What one follower saw: when it had each table, and when its stream was down."""
    has: dict = field(default_factory=dict)  # (game, revision) -> when it had that table
    away: list = field(default_factory=list)  # (since, until): no stream open then
    tries: asyncio.Event = field(default_factory=asyncio.Event)  # set once its first stream was tried
    stream: Connection | None = None  # the stream it holds now

    def back(self, moment: float) -> float:
        """When this follower could first have had a table sent at ``moment``."""
        for since, until in self.away:
            if since <= moment < until:
                return until
        return moment


class Table:
    """A table: its game (mirrored by the engine), its mover's phone, its followers, and what they saw."""

    def __init__(self, index: int, seed: int, port: int, followers: int, counts: Counter, errors: Counter):
        self.name = list(ENGINES)[index % len(ENGINES)]
        self.engine = ENGINES[self.name]
        self.choose = importlib.import_module(f"players.{self.engine.module.rsplit('.', 1)[-1]}").random_move
        self.rng = random.Random(seed * 1_000_003 + index)
        self.port, self.counts, self.errors = port, counts, errors
        self.players = SEATS.get(self.name, PLAYERS)
        self.phone = Phone(port, self.rng, counts)
        self.game = self.token = None
        self.games: list[str] = []  # every game of the evening at this table, in turn
        self.state: dict = {}
        self.revision = 0
        self.over = False  # the game ended, or the server and the mirror no longer agree on it
        self.sending = False  # a move is on its way
        self.left: set = set()  # games left before their end (a refused move)
        self.renewed = asyncio.Event()  # set (and replaced) when the table moves to a new game
        self.answered: dict = {}  # (game, revision) -> when its move's 201 arrived
        self.move_ms: list[tuple[float, float]] = []  # (when answered, ms from sending)
        self.followers = [Follower() for _ in range(followers)]

    async def new_game(self) -> None:
        body = json.dumps({"game": self.name, "players": self.players}).encode()
        status, _, data = await self.phone.request("POST", "/api/v1/games", {"Content-Type": "application/json"}, body)
        if status != 201:
            raise RuntimeError(f"POST /api/v1/games: {status} {data[:200]!r}")
        created = json.loads(data)
        self.game, self.token, self.revision = created["id"], created["token"], created.get("revision", 0)
        self.games.append(self.game)
        self.state, self.over = self.engine.new_game(list(self.players), {}), False
        renewed, self.renewed = self.renewed, asyncio.Event()
        renewed.set()

    async def move(self) -> None:
        """One move, sent again with its key after a reset or a timeout."""
        move = self.choose(self.state, self.engine.allowed(self.state), self.rng)
        after = self.engine.apply(self.state, move)
        path = f"/api/v1/games/{self.game}/moves"
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json",
                   "Idempotency-Key": uuid.uuid4().hex}
        body = json.dumps(move).encode()
        sent, self.sending = time.monotonic(), True
        for _ in range(3):
            try:
                status, answer, _ = await self.phone.request("POST", path, headers, body)
                break
            except TimeoutError:
                self.errors["move timeout"] += 1
            except RESETS as error:
                self.errors[f"move {type(error).__name__}"] += 1
        else:
            self.sending = False
            return
        self.sending = False
        answered = time.monotonic()
        if status != 201:
            self.errors[f"move {status}"] += 1
            if 400 <= status < 500:  # refused: the mirror and the server no longer agree; a new game
                self.over = True
                self.left.add(self.game)
                for f in self.followers:  # whose phones leave this one now, not at its end
                    if f.stream is not None:
                        f.stream.close()
            return
        self.revision = revision_of(answer["etag"])
        self.state = after
        self.answered[(self.game, self.revision)] = answered
        self.move_ms.append((answered, 1000 * (answered - sent)))
        self.over = self.engine.outcome(after)["status"] == "finished"

    async def moves(self, window: Window) -> None:
        # The first wait as if the table had been playing all along (the part left of a wait drawn
        # in proportion to its length), so that the window sees the steady rate from its start.
        low, high = MOVE_EVERY
        await asyncio.sleep(self.rng.uniform(0, math.sqrt(low * low + self.rng.random() * (high * high - low * low))))
        while time.monotonic() < window.closes:
            if self.over:  # the table's next game, after the usual wait
                try:
                    await self.new_game()
                except TimeoutError:
                    self.errors["create timeout"] += 1
                except (RuntimeError, *RESETS) as error:
                    self.errors[f"create {type(error).__name__}"] += 1
            else:
                await self.move()
            await asyncio.sleep(self.rng.uniform(*MOVE_EVERY))


class Refused(Exception):
    """The server answered a stream's request with something else than 200 (counted already)."""


async def follower(table: Table, me: Follower, window: Window, rng: random.Random, notices: bool) -> None:
    """A phone on the table's event stream, getting each new table as the pages do (``notices``: it
    asks for events without the state, and fetches the state after each)."""
    counts, errors, port = table.counts, table.errors, table.port
    phone = Phone(port, rng, counts)
    game, have, tag, finished = table.game, table.revision, str(table.revision), False
    away_since = time.monotonic()

    def adopt(revision: int, new_tag: str, now: float) -> None:
        nonlocal have, tag
        for r in range(have + 1, revision + 1):
            me.has[(game, r)] = now
        if revision > have:
            have, tag = revision, new_tag

    async def fetch() -> bool:
        """GET the game as the pages do after an event; whether it is finished."""
        counts["fetches"] += 1
        try:
            status, answer, body = await phone.request("GET", f"/api/v1/games/{game}", {"If-None-Match": f'"{tag}"'})
        except TimeoutError:
            errors["fetch timeout"] += 1
            return False
        except RESETS as error:
            errors[f"fetch {type(error).__name__}"] += 1
            return False
        if status == 200:
            adopt(revision_of(answer["etag"]), answer["etag"].strip('"'), time.monotonic())
            return json.loads(body)["status"] == "finished"
        if status != 304:
            errors[f"fetch {status}"] += 1
        return False

    while True:
        if finished or game in table.left:  # on to the table's next game (which may have ended meanwhile too)
            following = table.games.index(game) + 1
            while len(table.games) <= following:
                await table.renewed.wait()
            game, have, tag, finished = table.games[following], 0, "0", False
        stream = Connection(port)
        counts["connects"] += 1
        counts["requests"] += 1
        try:
            async with asyncio.timeout(TIMEOUT):
                await stream.connect()
                stream.send("GET", f"/api/v1/games/{game}/events{'?state=none' if notices else ''}",
                            {"Last-Event-ID": str(have)})
                status, _ = await stream.head()
            if status != 200:
                errors[f"stream {status}"] += 1
                raise Refused
        except (Refused, TimeoutError, *RESETS) as error:
            if not isinstance(error, Refused):
                errors[f"stream {'timeout' if isinstance(error, TimeoutError) else type(error).__name__}"] += 1
            stream.close()
            me.tries.set()
            await asyncio.sleep(1.0)
            continue
        me.tries.set()
        if game in table.left:  # left while this phone was connecting
            stream.close()
            continue
        me.stream, back = stream, time.monotonic()  # from here the table closes it if it leaves the game
        me.away.append((away_since, back))
        stays = back + rng.expovariate(1 / STAY_SECONDS)
        try:
            # a phone drops its stream now and then, but not once the window is over
            async with asyncio.timeout_at(stays if stays < window.closes else None):
                pending = b""
                async for chunk in stream.chunks():
                    pending += chunk
                    while b"\n\n" in pending and not finished:
                        block, pending = pending.split(b"\n\n", 1)
                        data = event_data(block)
                        if data is None:  # a comment or the retry line
                            continue
                        if "state" in data:  # the table itself came with the event
                            adopt(data["revision"], data["etag"], time.monotonic())
                            finished = data["state"].get("status") == "finished"
                        elif data["etag"] != tag:
                            finished = await fetch()
                    if finished:
                        break
                else:
                    errors["stream ended by the server"] += 1
        except TimeoutError:
            pass  # the phone dropped its stream
        except RESETS as error:
            if game not in table.left:  # (else the table closed it: the game was left)
                errors[f"stream {type(error).__name__}"] += 1
        stream.close()
        me.stream, away_since = None, time.monotonic()
        if not (finished or game in table.left):
            await asyncio.sleep(rng.uniform(*AWAY_SECONDS))


def event_data(block: bytes) -> dict | None:
    """The JSON data of one server-sent event, or None for a comment or a retry line."""
    data = [line[5:] for line in block.split(b"\n") if line.startswith(b"data:")]
    return json.loads(b"\n".join(data)) if data else None


# ---------------------------------------------------------------- one process of the load generator

async def generate(port: int, indices: list[int], seed: int, seconds: float, followers: int, notices: bool,
                   barrier) -> dict:
    counts, errors = Counter(), Counter()
    tables = [Table(i, seed, port, followers, counts, errors) for i in indices]
    setup = asyncio.Semaphore(32)  # not every table at once: the setup is not what is measured

    async def create(table: Table) -> None:
        async with setup:
            for attempt in range(3):
                try:
                    return await table.new_game()
                except (TimeoutError, RuntimeError, *RESETS) as error:
                    errors[f"create {'timeout' if isinstance(error, TimeoutError) else type(error).__name__}"] += 1
                    if attempt == 2:
                        raise

    await asyncio.gather(*(create(t) for t in tables))
    window = Window(math.inf, math.inf)  # set once every process is ready
    streams = []
    for first in range(0, len(tables), 50):  # the streams of 50 tables at a time, for the same reason
        batch = [(t, f) for t in tables[first:first + 50] for f in t.followers]
        streams += [asyncio.create_task(follower(t, f, window, random.Random(t.rng.random()), notices))
                    for t, f in batch]
        for _, f in batch:
            await f.tries.wait()
        failed = {k: v for k, v in errors.items() if k.startswith("stream")}
        if failed:  # the node is full already: the row has failed, and waiting out the rest would take minutes
            raise RuntimeError(f"the streams of {len(streams)} followers could not all be opened: {failed}")
    for table in tables:
        table.phone.close()  # the creating connection: each move decides afresh
    await asyncio.to_thread(barrier.wait)
    window.opens = time.monotonic() + WARM_SECONDS
    window.closes = window.opens + seconds
    movers = [asyncio.create_task(t.moves(window)) for t in tables]
    await asyncio.sleep(window.opens - time.monotonic())
    counted = Counter(counts)
    await asyncio.sleep(window.closes - time.monotonic())
    counted = Counter(counts) - counted  # the requests and connects of the window
    await asyncio.sleep(max(0.0, window.closes + GRACE_SECONDS - time.monotonic()))
    unanswered = sum(t.sending for t in tables)
    if unanswered:
        errors["a move unanswered at the end"] += unanswered
    for task in movers + streams:  # (a mover sends nothing after the window)
        task.cancel()
    await asyncio.gather(*movers, *streams, return_exceptions=True)

    moves, lags, missed = [], [], 0
    for table in tables:
        table.phone.close()
        moves += [ms for answered, ms in table.move_ms if window.holds(answered)]
        for key, answered in table.answered.items():
            if not window.holds(answered):
                continue
            for f in table.followers:
                had = f.has.get(key)
                if had is None:
                    missed += key[0] not in table.left  # (a game left after a refusal: counted as that)
                else:
                    lags.append(1000 * max(0.0, had - f.back(answered)))
    if missed:
        errors["a follower never got a move"] += missed
    return {"moves": moves, "lags": lags, "errors": dict(errors), "counts": dict(counted)}


def generator_process(port: int, indices: list[int], seed: int, seconds: float, followers: int, notices: bool,
                      barrier, results) -> None:
    raise_open_files()
    try:
        results.put(asyncio.run(generate(port, indices, seed, seconds, followers, notices, barrier)))
    except BaseException:
        barrier.abort()
        results.put({"failed": traceback.format_exc()})


# ---------------------------------------------------------------- a row

def server_sockets(port: int) -> tuple[int, int]:
    """The server's open client connections, and the connections waiting in its accept queue."""
    established = subprocess.run(["ss", "-tnH", "state", "established", f"( sport = :{port} )"],
                                 capture_output=True, text=True, check=False).stdout.count("\n")
    listening = subprocess.run(["ss", "-ltnH", f"( sport = :{port} )"], capture_output=True, text=True,
                               check=False).stdout
    waiting = sum(int(line.split()[1]) for line in listening.splitlines() if line.split())
    return established, waiting


def ready_server(app: str, **env) -> Server:
    """A server that answered /readyz (hello's /hello); tried twice, as the machine is shared and a
    database that is briefly out of connections is not what a row measures."""
    ready = "/hello" if app.startswith("bench.hello") else "/readyz"
    try:
        return Server(app, **env).wait(ready)
    except RuntimeError:
        return Server(app, **env).wait(ready)


def evening(db: str, url: str, tables: int, seconds: float, seed: int, procs: int, followers: int,
            notices: bool = False) -> dict:
    """One row: ``tables`` tables for ``seconds`` on a fresh server over the database at ``url``."""
    procs = procs or max(1, math.ceil(tables / TABLES_PER_PROCESS))
    row = dict(db=db, tables=tables, procs=procs, ok=False, saturated=False)
    context = multiprocessing.get_context("fork")  # nothing runs in threads yet: a fork is safe and quick
    with ready_server("wsgi:app", database_url=url) as server:
        barrier, results = context.Barrier(procs + 1), context.Queue()
        workers = [context.Process(target=generator_process, daemon=True,
                                   args=(server.port, list(range(k, tables, procs)), seed, seconds, followers,
                                         notices, barrier, results))
                   for k in range(procs)]
        for w in workers:
            w.start()
        try:
            barrier.wait(timeout=60 + tables / 20)
        except threading.BrokenBarrierError:  # a process failed to set its tables up (or took too long)
            try:
                outcome = results.get(timeout=10)
            except queue.Empty:
                outcome = {"failed": "the setup took too long"}
            for w in workers:
                w.kill()
            server.proc.send_signal(signal.SIGQUIT)
            return {**row, "failed": outcome["failed"].strip().splitlines()[-1]}
        opens = time.monotonic() + WARM_SECONDS
        time.sleep(WARM_SECONDS)
        cpu, generator_cpu, busy = server.cpu_seconds(), cpu_seconds([w.pid for w in workers]), machine_times()
        pg = postgres_cpu_seconds() if db == "postgres" else 0.0
        sockets = []
        while time.monotonic() < opens + seconds - 0.5:
            sockets.append(server_sockets(server.port))
            time.sleep(min(1.0, max(0.0, opens + seconds - time.monotonic())))
        took = time.monotonic() - opens
        row.update(worker_cpu=(server.cpu_seconds() - cpu) / took,
                   generator_cpu=(cpu_seconds([w.pid for w in workers]) - generator_cpu) / took / procs,
                   postgres_cpu=(postgres_cpu_seconds() - pg) / took if db == "postgres" else None)
        all_after, idle_after = machine_times()
        row["busy"] = (1 - (idle_after - busy[1]) / max(all_after - busy[0], 1)) * os.cpu_count()  # in cores
        # what the machine did beside this row (another program, or PostgreSQL serving someone else)
        row["others"] = max(0.0, row["busy"] - row["worker_cpu"] - row["generator_cpu"] * procs
                            - (row["postgres_cpu"] or 0.0))
        row["worker_rss"] = server.worker_rss_mib()
        outcomes = [results.get(timeout=GRACE_SECONDS + 60) for _ in workers]
        for w in workers:
            w.join(timeout=10)
        server.proc.send_signal(signal.SIGQUIT)  # gunicorn's quick shutdown: the phones are gone already
    failed = [o["failed"] for o in outcomes if "failed" in o]
    if failed:
        return {**row, "failed": failed[0].strip().splitlines()[-1]}
    moves = [ms for o in outcomes for ms in o["moves"]]
    lags = [ms for o in outcomes for ms in o["lags"]]
    errors = sum((Counter(o["errors"]) for o in outcomes), Counter())
    counts = sum((Counter(o["counts"]) for o in outcomes), Counter())
    row.update(moves_per_s=len(moves) / seconds, move_p50=percentile(moves, .5), move_p99=percentile(moves, .99),
               follower_p50=percentile(lags, .5), follower_p99=percentile(lags, .99), follower_samples=len(lags),
               errors=dict(errors), requests_per_s=counts["requests"] / seconds,
               fetches_per_s=counts["fetches"] / seconds, connects_per_s=counts["connects"] / seconds,
               connections_mean=sum(s[0] for s in sockets) / max(len(sockets), 1),
               connections_most=max((s[0] for s in sockets), default=0),
               accept_queue_most=max((s[1] for s in sockets), default=0),
               saturated=row["generator_cpu"] > 0.9)
    row["ok"] = (bool(moves) and row["move_p99"] < MOVE_P99_MS and row["follower_p99"] < FOLLOWER_P99_MS
                 and not errors)
    return row


def describe(row: dict) -> str:
    """A row in two lines: what the tables saw, then what it cost."""
    if "failed" in row:
        return f"{row['db']:8} {row['tables']:5} tables: the load generator failed: {row['failed']}  -> FAILS"
    errors = sum(row["errors"].values())
    detail = ", ".join(f"{k} {v}" for k, v in sorted(row["errors"].items(), key=lambda kv: -kv[1]))
    postgres = f", postgres {row['postgres_cpu']:.2f}" if row["postgres_cpu"] is not None else ""
    verdict = "ok" if row["ok"] else "FAILS"
    if row["saturated"]:
        verdict += " (the load generator was near a whole core: its own delays are in these figures)"
    if row["others"] > 0.25 * os.cpu_count():
        verdict += f" (while {row['others']:.1f} cores went to something else)"
    return (f"{row['db']:8} {row['tables']:5} tables {row['moves_per_s']:6.1f} moves/s  "
            f"move p50 {row['move_p50']:.1f} p99 {row['move_p99']:.1f} ms  "
            f"follower p50 {row['follower_p50']:.1f} p99 {row['follower_p99']:.1f} ms "
            f"({row['follower_samples']} seen)  "
            f"errors {errors}{f' ({detail})' if detail else ''}  -> {verdict}\n"
            f"{'':21}{row['requests_per_s']:.0f} req/s ({row['fetches_per_s']:.0f} follower fetches), "
            f"{row['connects_per_s']:.0f} connects/s  "
            f"server connections {row['connections_mean']:.0f} (most {row['connections_most']}, "
            f"most queued {row['accept_queue_most']})  CPU in cores: workers {row['worker_cpu']:.2f}{postgres}, "
            f"generator {row['generator_cpu']:.2f} each of {row['procs']}; the machine {row['busy']:.2f} busy, "
            f"{row['others']:.2f} of them outside this row  "
            f"worker RSS {'/'.join(f'{r:.0f}' for r in row['worker_rss'])} MiB")


# ---------------------------------------------------------------- the floor

async def hammer(port: int, method: str, path: str, body: bytes, clients: int, seconds: float,
                 fresh: bool) -> tuple[float, float, float]:
    """``clients`` loops sending one request after another for ``seconds``: rate, p50, p99 (ms)."""
    times, bad = [], Counter()
    ends = time.monotonic() + seconds

    async def client() -> None:
        connection = Connection(port)
        while time.monotonic() < ends:
            started = time.monotonic()
            if fresh or not connection.open:
                connection.close()
                await connection.connect()
            status, _, _ = await connection.request(method, path, {"Content-Type": "application/json"}, body)
            if fresh:
                connection.close()
            if status >= 300:
                bad[status] += 1
            times.append(1000 * (time.monotonic() - started))
        connection.close()

    await asyncio.gather(*(client() for _ in range(clients)))
    if sum(bad.values()):
        raise RuntimeError(f"the floor answered {dict(bad)}")
    return len(times) / seconds, percentile(times, .5), percentile(times, .99)


def floor(db: str, url: str, tmp: str, clients: int = 16, seconds: float = 2.0) -> tuple[str, dict]:
    """bench/hello.py's hello and bare commit, served the same way, measured by this generator."""
    floor_url = f"sqlite:///{tmp}/floor.sqlite3" if db == "sqlite" else url
    move = json.dumps({"type": "play", "player": "Ann", "card": "5H"}).encode()
    with ready_server("bench.hello:app", FLOOR_DATABASE_URL=floor_url) as hello:
        before = cpu_seconds([os.getpid()])
        figures = [asyncio.run(hammer(hello.port, *what, clients, seconds, fresh)) for what, fresh in (
            (("GET", "/hello", b""), False), (("GET", "/hello", b""), True), (("POST", "/commit", move), False))]
        generator = (cpu_seconds([os.getpid()]) - before) / (3 * seconds)
        hello.proc.send_signal(signal.SIGQUIT)
    (keep, _, keep99), (new, _, new99), (commit, commit50, commit99) = figures
    return (f"{db:8} floor (bench/hello.py, {clients} clients, this generator at {100 * generator:.0f}% of a core): "
            f"GET /hello {keep:.0f}/s (p99 {keep99:.1f} ms), a new connection each {new:.0f}/s (p99 {new99:.1f} ms); "
            f"POST /commit {commit:.0f}/s (p50 {commit50:.1f} p99 {commit99:.1f} ms)"), \
        {"connects": new, "commits": commit}


# ---------------------------------------------------------------- the sweep

def sweep(db: str, url: str, args) -> list[dict]:
    """Double from ``--start`` until a row fails (or halve until one passes), then bisect ``--steps``
    times; no row starts that would end past ``--budget`` seconds."""
    started, rows = time.monotonic(), []
    passed, failed = 0, math.inf  # the most tables that passed, the fewest that failed
    bisected = 0

    def next_tables(tables: int) -> int | None:
        nonlocal bisected
        if failed == math.inf:
            return tables * 2
        if not passed:
            return tables // 2 if tables // 2 >= 5 else None
        middle = round((passed + failed) / 2 / 5) * 5  # round numbers of tables
        if bisected == args.steps or not passed < middle < failed:
            return None
        bisected += 1
        return middle

    tables: int | None = args.start
    while tables is not None:
        took = time.monotonic()
        row = evening(db, url, tables, args.seconds, args.seed, args.procs, args.followers, args.notices)
        rows.append(row)
        print(describe(row), flush=True)
        if row["ok"]:
            passed = max(passed, tables)
        else:
            failed = min(failed, tables)
        following = next_tables(tables)
        # a row's setup grows with its tables: guess the next one's time from this one's
        guess = (time.monotonic() - took) * max(1.0, following / tables) if following else 0.0
        if following and time.monotonic() - started + guess > args.budget:
            print(f"{db:8} (the sweep ends here: the next row would pass its budget of {args.budget:.0f} s)",
                  flush=True)
            following = None
        tables = following
    return rows


def capacity(db: str, rows: list[dict], floors: dict) -> str:
    passing = [r for r in rows if r["ok"]]
    failing = [r for r in rows if not r["ok"]]
    best = max(passing, key=lambda r: r["tables"]) if passing else None
    above = min((r for r in failing if not best or r["tables"] > best["tables"]), key=lambda r: r["tables"],
                default=None)
    text = (f"{db}: the largest evening with move p99 < {MOVE_P99_MS:.0f} ms, follower p99 < {FOLLOWER_P99_MS:.0f} ms "
            f"and no error: ")
    if best:
        text += (f"{best['tables']} tables ({best['moves_per_s']:.1f} moves/s, move p99 {best['move_p99']:.1f} ms, "
                 f"follower p99 {best['follower_p99']:.1f} ms, workers {best['worker_cpu']:.2f} cores; its moves "
                 f"{best['moves_per_s'] / floors['commits']:.2f} of the floor's commits/s, its connects "
                 f"{best['connects_per_s'] / floors['connects']:.2f} of hello's with a new connection each)")
    else:
        text += "none of the rows"
    if above and "failed" in above:
        text += f"; {above['tables']} failed: {above['failed']}"
    elif above:
        why = [f"move p99 {above['move_p99']:.0f} ms"] if not above["move_p99"] < MOVE_P99_MS else []
        why += [f"follower p99 {above['follower_p99']:.0f} ms"] if not above["follower_p99"] < FOLLOWER_P99_MS else []
        why += [f"{sum(above['errors'].values())} errors"] if above["errors"] else []
        text += f"; {above['tables']} failed: {', '.join(why)}"
        if above["saturated"]:
            text += " (with the load generator near a whole core)"
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="both", choices=["sqlite", "postgres", "both"])
    parser.add_argument("--tables", nargs="+", type=int, help="these numbers of tables instead of the sweep")
    parser.add_argument("--seconds", type=float, default=12.0, help="the measured window of each row")
    parser.add_argument("--followers", type=int, default=FOLLOWERS, help="phones following each table")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--start", type=int, default=1000, help="the sweep's first number of tables")
    parser.add_argument("--steps", type=int, default=2, help="the sweep's bisection steps after the first failure")
    parser.add_argument("--budget", type=float, default=120.0, help="seconds of rows per database in a sweep")
    parser.add_argument("--notices", action="store_true",
                        help="followers ask for events without the state (?state=none) and fetch it after each")
    parser.add_argument("--procs", type=int, default=0,
                        help=f"load generator processes (0: one per {TABLES_PER_PROCESS} tables)")
    args = parser.parse_args()
    limit = raise_open_files()
    print(f"{machine()} open files {limit}", flush=True)
    started = time.monotonic()
    summary = []
    for db in (["sqlite", "postgres"] if args.db == "both" else [args.db]):
        tmp = tempfile.mkdtemp(prefix="bench-evening-")
        try:
            url = database_url(db, tmp)
        except Exception as error:  # no PostgreSQL here: say so and go on
            print(f"{db:8} skipped: {type(error).__name__}: {str(error).splitlines()[0]}", flush=True)
            continue
        floor_line, floors = floor(db, url, tmp)
        print(floor_line, flush=True)
        if args.tables:
            rows = []
            for n in args.tables:
                rows.append(evening(db, url, n, args.seconds, args.seed, args.procs, args.followers, args.notices))
                print(describe(rows[-1]), flush=True)
        else:
            rows = sweep(db, url, args)
        summary += [capacity(db, rows, floors), floor_line]
    print("\n" + "\n".join(summary))
    print(f"({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
