"""A storage for the ``limits`` library (Flask-Limiter's backend) that keeps the rate-limit counters
in a small SQLite file, so that every process on the machine (each gunicorn worker) counts against
one budget. ``memory://`` counts per process: two workers would allow twice the limit.

``RATELIMIT_STORAGE_URI=sqlite:////absolute/path/ratelimit.sqlite3`` (three slashes and a relative
path, four and an absolute one, as in ``DATABASE_URL``); ``?timeout=2`` sets how long, in seconds,
a process waits for another's write lock before the call fails (default 2; a write holds the lock for
microseconds, but a busy machine may not run its holder at once). The wait is cooperative: SQLite
answers "locked" at once and the storage tries again every few milliseconds with ``time.sleep``,
which lets a gevent worker serve other requests meanwhile. Several machines need a shared server
instead: ``redis://``.

One table, ``counters(key, count, expiry)``; a hit is one short write transaction (``BEGIN
IMMEDIATE``, an upsert, a read of the count), so two processes never lose an increment. An expired
row is overwritten by the next hit on its key, and expired rows are swept by a hit at most once a
minute per process. The file is in WAL mode with ``synchronous=NORMAL``: counters need no fsync per
hit (a crash of the machine may forget the last hits, never corrupt the file).

Only what the fixed-window strategy (Flask-Limiter's default, and the service's) uses is implemented:
``incr``, ``get``, ``get_expiry``, ``check``, ``reset``, ``clear``. The moving-window and
sliding-window-counter strategies refuse this storage when the limiter starts (``limits`` raises
NotImplementedError).

A failure (disk full, the file locked longer than the timeout, unreadable) raises ``sqlite3.Error``
(or ``limits.errors.StorageError`` with ``wrap_exceptions``) and is logged once until the storage
works again; ``referee.api.limits`` lets the request through instead of answering 500.
"""
from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
import urllib.parse

from limits.errors import ConfigurationError
from limits.storage import Storage

log = logging.getLogger(__name__)

SWEEP_SECONDS = 60.0

_SCHEMA = ("CREATE TABLE IF NOT EXISTS counters ("
           "key TEXT PRIMARY KEY, count INTEGER NOT NULL, expiry REAL NOT NULL) WITHOUT ROWID")

# A missing or expired row starts a new window; a live row is incremented and keeps its expiry.
_UPSERT = ("INSERT INTO counters (key, count, expiry) VALUES (:key, :amount, :now + :expiry) "
           "ON CONFLICT (key) DO UPDATE SET "
           "count = CASE WHEN counters.expiry <= :now THEN excluded.count ELSE counters.count + excluded.count END, "
           "expiry = CASE WHEN counters.expiry <= :now THEN excluded.expiry ELSE counters.expiry END")


def _busy(error: sqlite3.OperationalError) -> bool:
    """The file is locked by another connection (SQLITE_BUSY or SQLITE_LOCKED)."""
    return getattr(error, "sqlite_errorcode", None) in (5, 6) or "locked" in str(error)


def path_from_uri(uri: str) -> str:
    """``sqlite:///relative/file`` or ``sqlite:////absolute/file`` -> the file's path."""
    parsed = urllib.parse.urlparse(uri)
    if parsed.scheme != "sqlite" or parsed.netloc or not parsed.path.startswith("/") or len(parsed.path) < 2:
        raise ConfigurationError(
            f"rate limit storage {uri!r}: expected sqlite:///relative/path or sqlite:////absolute/path")
    return parsed.path[1:]


class SQLiteStorage(Storage):
    """Rate-limit counters in a SQLite file shared by the processes of one machine."""

    STORAGE_SCHEME = ["sqlite"]

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False, timeout: float | str | None = None,
                 **options: float | str | bool) -> None:
        if not uri:
            raise ConfigurationError("the sqlite rate limit storage needs a file: sqlite:////path/to/file")
        self.path = path_from_uri(uri)
        query = urllib.parse.parse_qs(urllib.parse.urlparse(uri).query)
        if timeout is None:
            timeout = query.get("timeout", ["2"])[0]
        try:
            self.timeout = float(timeout)
        except ValueError:
            raise ConfigurationError(f"rate limit storage {uri!r}: timeout must be a number of seconds") from None
        folder = os.path.dirname(os.path.abspath(self.path))
        if not os.path.isdir(folder):
            raise ConfigurationError(f"rate limit storage {uri!r}: the folder {folder} does not exist")
        # One connection per process, made on first use: a connection must not cross a fork (the
        # app is loaded in the gunicorn master, the workers fork from it). Threads and greenlets of
        # a process share it behind a lock; no statement waits longer than ``timeout``.
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._pid = 0
        self._last_sweep = 0.0
        self._failing = False
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return sqlite3.Error

    # ---------------------------------------------------------------- the connection

    def _connect(self) -> sqlite3.Connection:
        if self._connection is not None and self._pid == os.getpid():
            return self._connection
        # A connection inherited through fork is dropped, not closed: closing it here could release
        # the parent's locks on the file.
        self._connection = None
        # timeout=0: a locked file answers at once and _run waits for it cooperatively
        connection = sqlite3.connect(self.path, timeout=0, isolation_level=None, check_same_thread=False)
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.execute(_SCHEMA)
        except BaseException:
            connection.close()
            raise
        self._connection, self._pid = connection, os.getpid()
        return connection

    def _run(self, work):
        """``work(connection)`` under the process's lock. A file locked by another process is tried
        again every few milliseconds for up to ``timeout`` seconds: a ``time.sleep`` that lets a
        gevent worker serve others meanwhile, where SQLite's own busy wait would block it. Any
        other failure, or a lock held longer, is logged (once, until the storage works again) and
        raised."""
        with self._lock:
            deadline = time.monotonic() + self.timeout
            while True:
                try:
                    result = work(self._connect())
                    break
                except sqlite3.OperationalError as exc:
                    if _busy(exc) and time.monotonic() < deadline:
                        self._roll_back()
                        time.sleep(0.002)
                        continue
                    error = exc
                except sqlite3.Error as exc:
                    error = exc
                if not self._failing:
                    self._failing = True
                    log.warning("rate limit storage %s failed: %s: %s", self.path, type(error).__name__, error)
                # A new connection next time (closing this one rolls back what it had begun): after
                # a full disk, an I/O error or a replaced file, the old one may be stuck.
                self._drop_connection()
                raise error
            if self._failing:
                self._failing = False
                log.info("rate limit storage %s works again", self.path)
            return result

    def _roll_back(self) -> None:
        connection = self._connection
        if connection is not None and connection.in_transaction:
            try:
                connection.execute("ROLLBACK")
            except sqlite3.Error:
                self._drop_connection()

    def _drop_connection(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None and self._pid == os.getpid():
            try:
                connection.close()
            except sqlite3.Error:
                pass

    # ---------------------------------------------------------------- the Storage interface

    def incr(self, key: str, expiry: float, amount: int = 1) -> int:
        def work(connection: sqlite3.Connection) -> int:
            # One write transaction: processes queue on the file's write lock, so none loses a hit.
            connection.execute("BEGIN IMMEDIATE")
            now = time.time()
            connection.execute(_UPSERT, {"key": key, "amount": amount, "now": now, "expiry": expiry})
            count = connection.execute("SELECT count FROM counters WHERE key = ?", (key,)).fetchone()[0]
            if now - self._last_sweep >= SWEEP_SECONDS:
                self._last_sweep = now
                connection.execute("DELETE FROM counters WHERE expiry <= ?", (now,))
            connection.execute("COMMIT")
            return count

        return self._run(work)

    def get(self, key: str) -> int:
        row = self._run(lambda connection: connection.execute(
            "SELECT count FROM counters WHERE key = ? AND expiry > ?", (key, time.time())).fetchone())
        return row[0] if row else 0

    def get_expiry(self, key: str) -> float:
        now = time.time()
        row = self._run(lambda connection: connection.execute(
            "SELECT expiry FROM counters WHERE key = ? AND expiry > ?", (key, now)).fetchone())
        return row[0] if row else now

    def check(self) -> bool:
        """Healthy when the file takes a write lock (so a hit would work); never raises, since
        Flask-Limiter calls it to decide whether the storage has recovered."""
        def work(connection: sqlite3.Connection) -> bool:
            connection.execute("BEGIN IMMEDIATE")
            connection.execute("ROLLBACK")
            return True

        try:
            return self._run(work)
        except Exception:  # noqa: BLE001  (any failure means: not healthy)
            return False

    def reset(self) -> int | None:
        return self._run(lambda connection: connection.execute("DELETE FROM counters").rowcount)

    def clear(self, key: str) -> None:
        self._run(lambda connection: connection.execute("DELETE FROM counters WHERE key = ?", (key,)))
