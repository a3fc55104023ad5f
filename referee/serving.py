"""How gunicorn's gevent workers hold their connections: two things, independent of each other.

``BoundedGeventWorker`` (gunicorn.conf.py's worker class) is gunicorn's gevent worker with an
evening's limits: a worker that holds ``worker_connections`` answers a new one with a 503 at once
instead of leaving it in the listening socket's queue, and on SIGTERM it ends its event streams and
closes its idle keep-alive connections, so it exits as soon as no request is in flight.

``BalancedServer``: new connections spread evenly over the workers.

The workers share one listening socket and race to accept each connection, and the race is not
fair: wrk's 16 connections split from 8/8 to 15/1 between the two workers, and moves/s on SQLite
followed the split (3,690 a second at 8/8, 3,000-3,080 at 13/3 and 15/1): the worker with most of
them did most of the work on one core while the other core waited (bench/README.md, thirteenth
pass). A phone keeps its connection open, so a split stays as it fell.

So a worker that holds two connections or more beyond another leaves a new connection to the
others for ``PATIENCE``, and takes it itself if none has by then: when every other worker is
busy, blocked or stuck, a connection waits that long (and one ``PATIENCE`` more for each one
queued before it), never longer. The counts are in memory that the master and its workers share
(``ConnectionCounts``); ``gunicorn.conf.py`` makes it and hands each worker its slot.
"""
from __future__ import annotations

import ctypes
import json
import mmap
import resource
import select
import sys
import time

import gevent
from gevent import monkey
from gevent.server import StreamServer
from gunicorn import util
from gunicorn.workers.ggevent import GeventWorker
from prometheus_client import Counter

from referee import events, metrics
from referee.bodies import PROBLEM, TYPE_BASE, linger

REFUSING_AT_ONCE = 128  # connections beyond its limit a worker may be answering 503 at once (each for ms)
FILES_BESIDES_CONNECTIONS = 256  # a worker's other descriptors: database pool, listener, logs, metrics files
SHUTDOWN_WAIT_FOR_REQUEST = 1.0  # after SIGTERM: how long an idle keep-alive connection may still send a request
FULL_RETRY_AFTER = 2  # seconds, for a client that met a full worker
REFUSALS_LOG_SECONDS = 10.0  # one log line at most this often while a worker refuses connections

CONNECTIONS_REFUSED = Counter("referee_connections_refused_total",
                              "New connections answered 503 because the worker held all it may (gevent).")


def _full_answer() -> bytes:
    body = json.dumps({
        "type": TYPE_BASE + "too-many-connections", "title": "Too many connections", "status": 503,
        "detail": "This server holds all the connections it can, so this request was not read and nothing was "
                  "done. Send it again after Retry-After seconds; a move with the same Idempotency-Key."}).encode()
    head = (f"HTTP/1.1 503 Service Unavailable\r\nContent-Type: {PROBLEM}\r\nRetry-After: {FULL_RETRY_AFTER}\r\n"
            f"Connection: close\r\nContent-Length: {len(body)}\r\n\r\n")
    return head.encode("latin1") + body


FULL_ANSWER = _full_answer()
_original_poll = monkey.get_original("select", "poll")  # a look that never waits, at any descriptor number


def raise_open_file_limit() -> tuple[int, int]:
    """The process's soft limit on open files raised to its hard limit (every connection is a
    descriptor; a soft limit of 1,024, common, would stop a worker's accepting far below its
    connections, while the hard limit is usually much higher): (before, now). Run in gunicorn's master
    before it forks, so that every worker inherits it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)  # (Linux caps it at nr_open)
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return soft, soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    except (ValueError, OSError):
        return soft, soft
    return soft, wanted


def connections_within(wanted: int, open_files: int | None = None) -> int:
    """The connections a worker can hold, at most ``wanted``, with room left under its open-file limit
    for its refusals and its other descriptors (``open_files``: the soft limit now)."""
    if open_files is None:
        open_files = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if open_files == resource.RLIM_INFINITY:
        return wanted
    return max(1, min(wanted, open_files - REFUSING_AT_ONCE - FILES_BESIDES_CONNECTIONS))


def _has_bytes(sock) -> bool:
    """Whether the client has sent something not read yet (or closed its side), without waiting."""
    try:
        look = _original_poll()
        look.register(sock.fileno(), select.POLLIN)
        return bool(look.poll(0))
    except (OSError, ValueError):  # closed meanwhile
        return False


class _Connection:
    """A connection a worker serves; ``waiting`` while gunicorn waits for its next request."""

    __slots__ = ("sock", "waiting")

    def __init__(self, sock):
        self.sock, self.waiting = sock, None


class _NextRequest:
    """gunicorn's wait for a connection's next request line and headers (``timeout_ctx``): the
    keep-alive timeout, as gevent's worker has it, noted on the connection, so that a stopping worker
    can tell an idle connection from one in the middle of a request."""

    def __init__(self, connection: _Connection, seconds: float, began_before_shutdown: bool):
        self.connection, self.began_before_shutdown = connection, began_before_shutdown
        self.timeout = gevent.Timeout(seconds, False)  # False: its end is silent, gunicorn closes the connection

    def __enter__(self):
        self.timeout.start()
        self.connection.waiting = self
        return self

    def __exit__(self, kind, error, traceback):
        self.connection.waiting = None
        return self.timeout.__exit__(kind, error, traceback)


class BoundedGeventWorker(GeventWorker):
    """gunicorn's gevent worker (``gunicorn.conf.py`` names it as the worker class), with two changes:

    - At ``worker_connections`` open connections (``connection_limit``, lowered to fit the open-file
      limit), it still accepts a new one and answers it at once with a 503 problem+json,
      ``Retry-After`` and ``Connection: close``, instead of gevent's way, which stops accepting and
      leaves new connections waiting in the listening socket's queue (4 s a move at 400 tables,
      issue 36). Its pool has ``REFUSING_AT_ONCE`` more greenlets for those answers.
    - On SIGTERM it ends its event streams at once (``referee.events.Hub.end_streams``: the clients come back with
      Last-Event-ID, to a worker that stays) and closes its keep-alive connections that wait for a
      request, after ``SHUTDOWN_WAIT_FOR_REQUEST`` for one already sent. gevent's worker waited for
      both until ``graceful_timeout`` (20 s): an open stream never ends by itself, and an idle
      connection only at its keep-alive timeout. A request in flight still finishes.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.connection_limit = connections_within(self.cfg.worker_connections)
        self.worker_connections = self.connection_limit + REFUSING_AT_ONCE  # the size of gevent's pool
        self._connections: dict[gevent.Greenlet, _Connection] = {}
        self._refused_unlogged, self._refusals_logged_at = 0, float("-inf")

    def handle(self, listener, client, addr):
        if len(self._connections) >= self.connection_limit:
            self._refuse(client)
            return
        me = gevent.getcurrent()
        self._connections[me] = _Connection(client)
        try:
            super().handle(listener, client, addr)
        finally:
            del self._connections[me]

    def _refuse(self, client) -> None:
        CONNECTIONS_REFUSED.inc()
        self._refused_unlogged += 1
        now = time.monotonic()
        if now - self._refusals_logged_at >= REFUSALS_LOG_SECONDS:
            self.log.warning("Worker full (pid:%s): %d connections open, %d new ones answered 503 "
                             "(GUNICORN_CONNECTIONS)", self.pid, len(self._connections), self._refused_unlogged)
            self._refused_unlogged, self._refusals_logged_at = 0, now
        try:
            client.setblocking(1)
            client.sendall(FULL_ANSWER)
            linger(client)  # the request it sent meanwhile is read, so the client gets the 503, not a reset
        except OSError:
            pass
        finally:
            util.close(client)

    def timeout_ctx(self):
        connection = self._connections.get(gevent.getcurrent())
        seconds = self.cfg.keepalive if self.alive else min(self.cfg.keepalive, SHUTDOWN_WAIT_FOR_REQUEST)
        if connection is None:
            return gevent.Timeout(seconds, False)
        return _NextRequest(connection, seconds, began_before_shutdown=self.alive)

    def handle_exit(self, sig, frame):
        super().handle_exit(sig, frame)  # not alive: gunicorn's loop closes the listener within a second
        gevent.spawn(self._let_go)  # out of the signal handler, as gunicorn's gevent worker does on SIGQUIT

    def _let_go(self) -> None:
        events.hub.end_streams()
        gevent.sleep(SHUTDOWN_WAIT_FOR_REQUEST)
        gevent.get_hub().loop.run_callback(self._close_idle)

    def _close_idle(self) -> None:
        """Each connection still waiting for a request it began to wait for before SIGTERM, with
        nothing sent, ends as its keep-alive timeout would end it (those that began after wait
        ``SHUTDOWN_WAIT_FOR_REQUEST`` themselves). Run in gevent's hub: no connection wakes between
        the look and the close, so no request that arrived is cut."""
        for greenlet, connection in list(self._connections.items()):
            waiting = connection.waiting
            if waiting is not None and waiting.began_before_shutdown and not _has_bytes(connection.sock):
                greenlet.throw(waiting.timeout)


PATIENCE = 0.005  # seconds a new connection is left to a less loaded worker
ACCEPT_AT_ONCE = 64  # connections a worker may accept a wake-up (gevent's default is 100)
_FREE = -1  # a slot that no worker holds


class ConnectionCounts:
    """Each worker's open connections, one slot per worker, in an anonymous shared mapping made in
    the master before it forks: the master claims a slot for a worker before forking it (``claim``)
    and frees it once the worker has exited (``free``); in between only the worker writes it."""

    def __init__(self, slots: int = 64):
        self._memory = mmap.mmap(-1, slots * ctypes.sizeof(ctypes.c_long))  # MAP_SHARED: seen across fork
        self._counts = (ctypes.c_long * slots).from_buffer(self._memory)
        for slot in range(slots):
            self._counts[slot] = _FREE

    def claim(self) -> int | None:
        """A free slot, now held with no connections; None when all are held (that worker then
        takes every connection it wins, and the others do not count it)."""
        for slot, count in enumerate(self._counts):
            if count == _FREE:
                self._counts[slot] = 0
                return slot
        return None

    def free(self, slot: int | None) -> None:
        if slot is not None:
            self._counts[slot] = _FREE

    def set(self, slot: int, count: int) -> None:
        self._counts[slot] = count

    def ahead(self, slot: int) -> bool:
        """Whether the worker at ``slot`` holds two connections or more beyond another worker (one
        more is as even as an odd number of connections can be shared)."""
        mine = self._counts[slot]
        return any(count != _FREE and count < mine - 1 for index, count in enumerate(self._counts) if index != slot)


class BalancedServer(StreamServer):
    """gevent's StreamServer, as gunicorn's gevent worker makes it (``gunicorn.conf.py`` puts this
    class in its place), counting its open connections and taking a new one at once only when it is
    not ahead of another worker (``ConnectionCounts.ahead``)."""

    # this worker's, set in each worker after the fork (``share``); None: no balance
    counts: ConnectionCounts | None = None
    slot: int | None = None
    _max_accept = StreamServer.max_accept  # gunicorn's, or gevent's, when there is no balance

    @classmethod
    def share(cls, counts: ConnectionCounts, slot: int | None) -> None:
        """The master's counts and this worker's slot (None: no slot, take every connection won)."""
        cls.counts, cls.slot = (counts, slot) if slot is not None else (None, None)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._open = 0
        self._resume = None  # the timer that looks for connections again after PATIENCE

    # gunicorn has a worker accept one connection a wake-up when there are several workers, to spread
    # them; the counts spread them here, and a worker behind the others takes its due at once (one a
    # wake-up, under load a wake-up a turn of the worker's loop, took 64 connections opened together
    # half a second to be all accepted; many a wake-up, 0.2 s)
    @property
    def max_accept(self) -> int:
        return ACCEPT_AT_ONCE if self.counts is not None else self._max_accept

    @max_accept.setter
    def max_accept(self, value: int) -> None:
        self._max_accept = value

    def do_read(self):
        """A new connection (the socket is readable): taken, or left to the others for now."""
        if self.counts is not None and self.counts.ahead(self.slot):
            self.stop_accepting()
            if self._resume is None or not self._resume.active:
                # a new timer each time: libev's timer, started again once it has run, ran at once
                self._resume = self.loop.timer(PATIENCE)
                self._resume.start(self._accept_again, update=True)  # from now, not from the loop's last turn
            return None
        return self._accept()

    def _accept(self):
        accepted = super().do_read()  # None when another worker took the connection first
        if accepted is not None:
            self._counted(+1)
        return accepted

    def _accept_again(self) -> None:
        """PATIENCE after leaving a connection to the others: if this worker is still ahead, it
        takes a connection that is still waiting (no other worker took it), then watches the socket
        again."""
        if not self.started:  # closed meanwhile (the worker stopping)
            return
        if not self.full() and self.counts.ahead(self.slot):
            try:
                waited = self._accept()
            except OSError:  # out of descriptors, say: gevent's own accepting handles it, with its back-off
                waited = None
            if waited is not None:
                try:
                    self.do_handle(*waited)
                except Exception:  # as gevent's accepting does: the error is reported, the server goes on
                    self.loop.handle_error((waited[1:], self), *sys.exc_info())
        self.start_accepting()

    def do_close(self, *args):
        try:
            super().do_close(*args)
        finally:
            self._counted(-1)

    def _counted(self, change: int) -> None:
        self._open += change
        if self.counts is not None:
            self.counts.set(self.slot, self._open)
        metrics.worker_connections().set(self._open)
