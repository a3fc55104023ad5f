"""New connections spread evenly over the gevent workers (referee/serving.py): a worker that holds
two connections or more beyond another leaves a new one to the others for ``PATIENCE``, and takes
it itself when none has by then. Two servers on one listening socket, in this process, stand for two workers
(gevent, without patching the test process); then gunicorn as the README starts it."""
from __future__ import annotations

import os
import re
import signal
import socket
import time

import gevent
import gevent.event
import pytest
import requests
from gevent import socket as gsocket

from referee import serving
from referee.serving import BalancedServer, ConnectionCounts


def test_a_slot_is_claimed_counted_and_freed():
    counts = ConnectionCounts(slots=3)
    first, second, third = counts.claim(), counts.claim(), counts.claim()
    assert (first, second, third) == (0, 1, 2) and counts.claim() is None  # every slot held
    counts.set(first, 3)
    counts.set(second, 1)
    counts.set(third, 2)
    # two beyond another is ahead; one beyond is as even as three connections between two can be
    assert counts.ahead(first) and not counts.ahead(second) and not counts.ahead(third)
    counts.free(second)  # that worker exited: the others no longer count it
    assert not counts.ahead(first) and not counts.ahead(third)
    assert counts.claim() == second


class Workers:
    """Two BalancedServers sharing one listening socket and one ConnectionCounts, as two gunicorn
    workers share them; each records the connections it handled, and holds them open."""

    def __init__(self):
        self.listener = gsocket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.counts = ConnectionCounts(slots=4)
        self.taken: dict[str, list[float]] = {"a": [], "b": []}
        self.release = gevent.event.Event()
        self.clients: list[gsocket.socket] = []
        self.servers = {name: self._server(name) for name in ("a", "b")}

    def _server(self, name: str) -> BalancedServer:
        def handle(sock, _address):
            self.taken[name].append(time.monotonic())
            self.release.wait()

        server = BalancedServer(self.listener, handle=handle)
        server.counts, server.slot = self.counts, self.counts.claim()
        server.max_accept = 1  # as gunicorn's gevent worker sets it with several workers (the balance's wins)
        server.start()
        return server

    def connect(self) -> gsocket.socket:
        client = gsocket.create_connection(("127.0.0.1", self.port))
        self.clients.append(client)
        return client

    def until(self, condition, seconds: float = 2.0) -> float:
        started = time.monotonic()
        while not condition():
            assert time.monotonic() - started < seconds, "waited too long"
            gevent.sleep(0.0005)
        return time.monotonic() - started

    def close(self):
        self.release.set()
        for client in self.clients:
            client.close()
        for server in self.servers.values():
            server.stop(timeout=1)
        self.listener.close()


@pytest.fixture
def workers():
    found = Workers()
    yield found
    found.close()


@pytest.mark.serial  # the waits are timed
def test_connections_arriving_one_by_one_are_shared_between_the_workers(workers):
    # in one process the same server always wins the race for a connection: without the balance
    # one of the two would take all ten
    for count in range(1, 11):
        workers.connect()
        workers.until(lambda: len(workers.taken["a"]) + len(workers.taken["b"]) == count)
        assert abs(len(workers.taken["a"]) - len(workers.taken["b"])) <= 2
    assert min(len(workers.taken["a"]), len(workers.taken["b"])) >= 4


@pytest.mark.serial  # the waits are timed
def test_a_worker_that_does_not_accept_costs_a_new_connection_a_moment_not_a_hang(workers):
    workers.servers["b"].stop_accepting()  # stuck (blocked, or slow): holds none, takes none
    for count in (1, 2):  # one and then two beyond the stuck worker: taken at once
        workers.connect()
        workers.until(lambda: len(workers.taken["a"]) == count)
    connected = time.monotonic()
    workers.connect()  # two beyond: left to the other worker first
    waited = workers.until(lambda: len(workers.taken["a"]) == 3)
    assert workers.taken["a"][2] - connected >= serving.PATIENCE / 2  # (libev's timers may run up to 1 ms early)
    assert waited < 1.0
    assert not workers.taken["b"]


@pytest.mark.serial  # the waits are timed
def test_counts_follow_connections_as_they_open_and_close(workers):
    for _ in range(5):
        workers.connect()
    workers.until(lambda: len(workers.taken["a"]) + len(workers.taken["b"]) == 5)
    slots = [server.slot for server in workers.servers.values()]
    assert [workers.counts._counts[slot] for slot in slots] == [len(workers.taken["a"]), len(workers.taken["b"])]
    workers.release.set()  # the handlers return: each server closes its connections
    workers.until(lambda: [workers.counts._counts[slot] for slot in slots] == [0, 0])


@pytest.mark.slow  # gunicorn
@pytest.mark.serial  # the waits are timed
def test_gunicorn_workers_share_their_counts(gunicorns):
    """The counts are shared across gunicorn's worker processes: with one worker stopped (it holds
    none and takes none), the other answers two new connections at once and from then on leaves
    each to the stopped one for PATIENCE first, which only the shared counts can tell it."""
    server = gunicorns()  # the project's gunicorn.conf.py: two gevent workers
    deadline = time.monotonic() + 30
    while len(server.worker_pids()) < 2:  # the second may still be forking when the first answers
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.5)  # and booting
    running, stopped = server.worker_pids()
    os.kill(stopped, signal.SIGSTOP)
    held, waits = [], []
    try:
        for _ in range(5):
            started = time.monotonic()
            client = socket.create_connection(("127.0.0.1", server.port))
            client.sendall(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
            assert client.recv(65536).startswith(b"HTTP/1.1 200")
            waits.append(time.monotonic() - started)
            held.append(client)
        text = requests.get(f"{server.base}/metrics", headers={"Connection": "close"}).text
    finally:
        os.kill(stopped, signal.SIGCONT)
        for client in held:
            client.close()
    assert all(wait >= serving.PATIENCE / 2 for wait in waits[2:]), waits  # (libev's timers may run early)
    assert all(wait < 1.0 for wait in waits), waits
    found = dict(re.findall(r'referee_worker_connections\{pid="(\d+)"\} ([\d.]+)', text))
    assert float(found[str(running)]) == 6  # the five held, and the one asking
