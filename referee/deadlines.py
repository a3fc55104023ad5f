"""Every request's waits on the database end by its deadline: ``DB_TIMEOUT_SECONDS`` after it began.

A timeout set on the server (PostgreSQL's ``statement_timeout``) cannot help when the server stops
answering: a request then waited on its socket for the whole outage (40 s, 80 s), holding its
pooled connection. So the client bounds its own waits, for every request (``Bounded``, the
outermost layer of the app, sets the deadline):
- a connection taken from the pool during a request is watched (``watch``, the pool's checkout
  event) until it goes back: on PostgreSQL, one still out at the request's deadline (or, taken
  after long work of the request's own, ``DB_TIMEOUT_SECONDS`` after it was taken: an import's
  replay is no wait on the database) has its socket shut down by the watchdog (``_Watchdog``),
  which ends whatever the driver waits for (a query, the commit) with an error, a 503 that says a
  lost commit may have landed (``api.errors``); the pool then replaces its connections, as after
  any lost connection;
- on SQLite, the waits for the writer queue and for another process's write lock end by the
  deadline (``store.writer_queue``, ``store._begin_write``, which read it with ``deadline``);
- connecting waits ``connect_timeout``, and a free pooled connection ``pool_timeout``, each
  ``DB_TIMEOUT_SECONDS`` (``app._engine_options``).
Work outside a request (migrations, the event poller, backups) has no deadline here.
"""
from __future__ import annotations

import contextvars
import logging
import os
import socket
import threading
import time

from sqlalchemy import event

log = logging.getLogger(__name__)

_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("referee_db_deadline", default=None)
WATCH_EVERY = 0.05  # seconds between the watchdog's looks: a cut comes at most this late


def deadline(default_seconds: float) -> float:
    """The monotonic time by which this request's wait must end; outside a request,
    ``default_seconds`` from now."""
    ends = _deadline.get()
    return ends if ends is not None else time.monotonic() + default_seconds


class Bounded:
    """WSGI middleware: the request's database deadline is ``seconds`` after it began. A response
    streamed after the app returned (an event stream) is outside it."""

    def __init__(self, wsgi_app, seconds: float):
        self.wsgi_app, self.seconds = wsgi_app, seconds

    def __call__(self, environ, start_response):
        token = _deadline.set(time.monotonic() + self.seconds)
        try:
            return self.wsgi_app(environ, start_response)
        finally:
            _deadline.reset(token)


class _Watchdog:
    """This process's pooled PostgreSQL connections that are out during a request, each with its
    request's deadline; a thread (a greenlet under gevent) shuts down the socket of one still out
    after it."""

    def __init__(self):
        self._out: dict[int, tuple[float, object]] = {}  # id(dbapi connection) -> (deadline, connection)
        self._lock = threading.Lock()
        self._pid = None

    def watch(self, dbapi_connection, ends: float) -> None:
        with self._lock:
            self._out[id(dbapi_connection)] = (ends, dbapi_connection)
            if self._pid != os.getpid():  # the first in this process (a fork leaves no thread behind)
                self._pid = os.getpid()
                threading.Thread(target=self._run, name="referee-db-deadlines", daemon=True).start()

    def forget(self, dbapi_connection) -> None:
        with self._lock:
            self._out.pop(id(dbapi_connection), None)

    def _run(self) -> None:
        while True:
            time.sleep(WATCH_EVERY)
            now = time.monotonic()
            with self._lock:  # held while cutting: a connection going back waits, never is cut after
                late = [key for key, (ends, _) in self._out.items() if ends <= now]
                for key in late:
                    _, connection = self._out.pop(key)
                    _cut(connection)


def _cut(dbapi_connection) -> None:
    """Shut the connection's socket down (both ways): the driver's wait on it ends at once, with an
    error. Its file descriptor stays the driver's, closed when the pool discards the connection."""
    try:
        fd = dbapi_connection.fileno()
        with socket.socket(fileno=os.dup(fd)) as sock:
            sock.shutdown(socket.SHUT_RDWR)
        log.warning("A database connection passed its request's deadline and was cut")
    except Exception:  # closed meanwhile: nothing to cut
        pass


watchdog = _Watchdog()


def init_engine(engine, seconds: float) -> None:
    """Watch the engine's pooled connections to a server (not a SQLite file) as described above."""
    if engine.dialect.name == "sqlite":
        return

    @event.listens_for(engine, "checkout")
    def _checkout(dbapi_connection, record, proxy):
        ends = _deadline.get()
        if ends is not None:
            watchdog.watch(dbapi_connection, max(ends, time.monotonic() + seconds))

    @event.listens_for(engine, "checkin")
    def _checkin(dbapi_connection, record):
        if dbapi_connection is not None:
            watchdog.forget(dbapi_connection)

    @event.listens_for(engine, "invalidate")
    def _invalidate(dbapi_connection, record, exception):
        if dbapi_connection is not None:
            watchdog.forget(dbapi_connection)
