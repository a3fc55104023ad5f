"""Live events per game: every committed write (a move, an undo) reaches the followers of the game
as a server-sent event (``GET /api/v1/games/{id}/events``), on any process or machine.

- The process that commits a write tells its own followers at once (``committed``).
- On PostgreSQL the write also sends ``NOTIFY referee_games`` in its transaction (delivered at
  commit, never for a write that rolled back); each process LISTENs on one connection of its own,
  so a move made on one machine reaches followers on another.
- On a SQLite file, the committing process sends the change as a datagram to every other process
  serving the same file that has followers (``Wakeups``: each binds a Unix datagram socket, named by
  its pid, in a folder beside the file), which tells its followers at once. Each process also polls
  the rows of the games its followers watch, in one query, every ``EVENTS_POLL_SECONDS``: the
  safety net for a datagram dropped (a receiver too busy to read its queue) and for a write made
  outside the service. An in-memory database, or a file whose folder cannot hold the sockets, just
  polls, four times a second. Why every second by default: a poll of 1,000 watched games costs a
  process about 4 ms, of 5,000 about 15 (``python -m bench.streams --across``), 2-6 % of a core
  four times a second for what the wake-ups already told; once a second it stays under 2 %, and a
  change a wake-up missed still shows within a second.

A follower keeps only the newest change it has not sent yet, so a slow reader costs nothing to the
writers; when it is sent, the event carries the game's newest table, encoded once for all the
followers of the process (``referee.api.events``), so no follower asks for it again. Events carry the game's revision (its count of writes) as their id, which a client sends
back as ``Last-Event-ID`` to resume. Under gevent a follower is a greenlet, not a thread.
"""
from __future__ import annotations

import atexit
import errno
import logging
import os
import socket
import stat
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy import select, text

from referee import metrics

log = logging.getLogger("referee.events")

CHANNEL = "referee_games"
POLL_SECONDS = 0.25  # SQLite without wake-ups: how often a process looks for writes made by the others
HEARTBEAT_SECONDS = 1.0  # PostgreSQL: how often the listener proves its connection hears


def tag_of(version: int, revision: int) -> str:
    """A game's ETag (unquoted) from its version and its count of writes: the version while no move
    was ever undone, then both, so that a tag once seen never names another state (an undo and a
    different move bring the version back, not the tag). ``store.entity_tag`` and the events use it."""
    return str(version) if revision == version else f"{version}-{revision}"


@dataclass(frozen=True)
class Change:
    """A game after one write: ``kind`` is ``move``, ``undo`` or ``sync`` (several writes, or one
    whose kind is not known: the client just reloads)."""

    game_id: str
    revision: int
    version: int
    kind: str

    @property
    def etag(self) -> str:
        return tag_of(self.version, self.revision)

    def payload(self) -> str:
        return f"{self.game_id} {self.revision} {self.version} {self.kind}"

    @staticmethod
    def parse(payload: str) -> "Change | None":
        try:
            game_id, revision, version, kind = payload.split(" ")
            return Change(game_id, int(revision), int(version), kind)
        except ValueError:
            return None


class Follower:
    """One open stream: the newest change not sent yet, and a wake-up. ``sent`` is the revision
    the client has (it may be set after the follower starts listening, so nothing falls between)."""

    def __init__(self, game_id: str, sent: int = -1):
        self.game_id, self.sent = game_id, sent
        self.pending: Change | None = None
        self.ready = threading.Event()
        self.ended = False  # the process is stopping (Hub.end_streams): the stream ends

    def offer(self, change: Change) -> None:
        pending = self.pending
        if (pending is None or change.revision > pending.revision
                or (change.revision == pending.revision and pending.kind == "sync")):  # the kind is news
            self.pending = change
            self.ready.set()

    def end(self) -> None:
        self.ended = True
        self.ready.set()

    def next(self, timeout: float) -> Change | None:
        """The next change the client has not seen, or None after ``timeout`` seconds without one
        (at once once ``ended``)."""
        self.ready.clear()  # before the look: an offer made after it sets the flag again
        if self.ended:
            return None
        if self.pending is None or self.pending.revision <= self.sent:
            if not self.ready.wait(timeout):
                return None
        change, self.pending = self.pending, None
        if change is None or change.revision <= self.sent:
            return None
        if change.revision != self.sent + 1 and change.kind != "sync":
            change = Change(change.game_id, change.revision, change.version, "sync")  # writes in between
        self.sent = change.revision
        return change

def _datagram_queue_length() -> int:
    """How many datagrams a Unix socket's queue holds (Linux; ten elsewhere and by default)."""
    try:
        with open("/proc/sys/net/unix/max_dgram_qlen") as setting:
            return max(1, int(setting.read()))
    except (OSError, ValueError):
        return 10


class Wakeups:
    """SQLite: wake-ups between the processes serving one database file. A process with followers
    binds a Unix datagram socket named by its pid in ``folder`` (beside the file, mode 0700: only
    the user running the service may send); a process that commits a write sends the change to
    every other socket it finds there (``Change.payload``, one datagram each).

    A send never waits: a receiver whose queue is full (the kernel holds ``net.unix.max_dgram_qlen``
    datagrams, ten by default) misses the change, counted in ``dropped``, and its poll tells it. A
    receiver that finds its queue full (``crowded``: it read that many without waiting) has its poll
    run soon: a worker too busy to read its wake-ups in time (2,000 tables on two cores dropped one in
    seven) then shows its followers the missed moves within a quarter of a second, not a poll's second.
    A socket nobody holds any longer (its process was killed) is removed by the send that finds it
    so. Everything is kept per ``os.getpid()``: a child forked after a send or a bind (gunicorn's
    preload_app) makes sockets of its own and never touches its parent's file."""

    SUFFIX = "-wakeups"
    PATH_BYTES = 107  # the longest path a Unix socket can be bound at (sun_path, less its NUL)
    DATAGRAM_BYTES = 512  # a change's payload is well under 100
    CHECK_SECONDS = 1.0  # how often a receiver makes sure its socket's file is still its own

    def __init__(self, folder: str):
        self.folder = folder
        self._lock = threading.Lock()
        self._pid: int | None = None  # the process the sockets below belong to
        self._sender: socket.socket | None = None
        self._receiver: socket.socket | None = None
        self._bound: tuple[int, int] | None = None  # (device, inode) of the receiver's file
        self._folder_checked = False  # a sender found the folder to be this user's
        self._warned = False
        self.dropped = 0  # sends this process dropped on a full queue
        self._streak = 0  # datagrams received in a row without waiting
        self.queue_length = _datagram_queue_length()
        atexit.register(self.close)

    @classmethod
    def folder_for(cls, url) -> str | None:
        """The folder of the sockets for a SQLite database file; None for anything else (a database
        in memory, a ``file:`` URI, PostgreSQL), which has no wake-ups."""
        database = url.database
        if url.get_backend_name() != "sqlite" or not database or database == ":memory:" or database.startswith("file:"):
            return None
        return os.path.realpath(database) + cls.SUFFIX

    @property
    def bound(self) -> bool:
        return self._receiver is not None and self._pid == os.getpid()

    def _this_process(self) -> int:
        """This process's pid, after dropping the sockets a parent made before the fork: their
        copies are closed here; the parent's file stays the parent's."""
        pid = os.getpid()
        if self._pid != pid:
            for sock in (self._sender, self._receiver):
                if sock is not None:
                    sock.close()
            self._pid, self._sender, self._receiver, self._bound = pid, None, None, None
            self._folder_checked = False
        return pid

    def _path(self, pid: int) -> str:
        return os.path.join(self.folder, str(pid))

    # ------------------------------------------------------------ sending

    def send(self, change: Change) -> int:
        """Send the change to every other process listening on this file, without ever waiting:
        how many it reached. Never raises: whoever it missed hears of the change at its poll."""
        pid = self._this_process()
        try:
            names = os.listdir(self.folder)
        except OSError:
            return 0  # no process has listened yet
        if not self._folder_checked:
            if not self._is_ours():
                return 0
            self._folder_checked = True
        sender = self._sender
        if sender is None:
            sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            sender.setblocking(False)  # under gevent too: a full queue raises instead of waiting
            self._sender = sender
        data, me, reached = change.payload().encode(), str(pid), 0
        for name in names:
            if name == me or not name.isdigit():
                continue
            path = os.path.join(self.folder, name)
            try:
                sender.sendto(data, path)
                reached += 1
            except BlockingIOError:
                self.dropped += 1
                metrics.WAKEUPS_DROPPED.inc()
            except ConnectionRefusedError:  # a file no socket is bound to: its process is gone
                self._remove(path)
            except OSError as error:  # removed meanwhile (ENOENT), or not a socket of ours
                if error.errno != errno.ENOENT:
                    log.debug("wake-up to %s failed: %s", path, error)
        return reached

    @staticmethod
    def _remove(path: str) -> None:
        try:
            os.unlink(path)
        except OSError:
            pass

    # ------------------------------------------------------------ receiving

    def listen(self) -> bool:
        """Bind this process's socket, if it is not bound: whether it now receives wake-ups."""
        with self._lock:
            pid = self._this_process()
            if self._receiver is not None:
                return True
            path = self._path(pid)
            if len(os.fsencode(os.path.join(self.folder, str(2 ** 22)))) > self.PATH_BYTES:
                return self._cannot(f"the path {path!r} is too long for a Unix socket")
            try:
                os.mkdir(self.folder, 0o700)
            except FileExistsError:
                pass
            except OSError as error:
                return self._cannot(f"cannot make {self.folder!r}: {error}")
            if not self._is_ours():
                return self._cannot(f"{self.folder!r} is not a folder of this user")
            self._remove(path)  # a socket left by a process that had this pid
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            try:
                sock.bind(path)
                info = os.stat(path)
            except OSError as error:
                sock.close()
                return self._cannot(f"cannot bind {path!r}: {error}")
            sock.settimeout(self.CHECK_SECONDS)
            self._receiver, self._bound = sock, (info.st_dev, info.st_ino)
            return True

    def _is_ours(self) -> bool:
        """The folder is a folder (not a link) of this user, closed to others (made so if it was not)."""
        try:
            info = os.lstat(self.folder)
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
                return False
            if info.st_mode & 0o077:
                os.chmod(self.folder, 0o700)
            return True
        except OSError:
            return False

    def _cannot(self, why: str) -> bool:
        if not self._warned:
            self._warned = True
            log.warning("no wake-ups between processes: %s; followers on other processes wait for "
                        "the poll", why)
        return False

    def receive(self) -> Change | None:
        """The next change another process sent, or None after ``CHECK_SECONDS`` without one."""
        sock = self._receiver
        if sock is None or self._pid != os.getpid():
            time.sleep(self.CHECK_SECONDS)
            return None
        try:
            sock.settimeout(0)  # one queued already? (then the queue may have filled meanwhile)
            data = sock.recv(self.DATAGRAM_BYTES)
            self._streak += 1
        except BlockingIOError:
            self._streak = 0
            sock.settimeout(self.CHECK_SECONDS)
            try:
                data = sock.recv(self.DATAGRAM_BYTES)
            except TimeoutError:
                return None
        return Change.parse(data.decode("utf-8", "replace"))

    def crowded(self) -> bool:
        """Was the queue full (as many read in a row without waiting as it holds)? Once per fill:
        some wake-ups were probably dropped."""
        if self._streak < self.queue_length:
            return False
        self._streak = 0
        return True

    def still_bound(self) -> bool:
        """Is this process's socket still at its path (a hand, a cleaner of temporary files or a
        sender that raced the reuse of a pid may have removed it)? If not, bind it again."""
        if self._receiver is not None and self._pid == os.getpid():
            try:
                info = os.stat(self._path(self._pid))
                if (info.st_dev, info.st_ino) == self._bound:
                    return True
            except OSError:
                pass
            with self._lock:
                self._receiver.close()
                self._receiver, self._bound = None, None
        return self.listen()

    def close(self) -> None:
        """This process's sockets closed and its file removed (at exit), if it is still its own."""
        with self._lock:
            if self._pid != os.getpid():
                return
            if self._receiver is not None:
                path = self._path(self._pid)
                try:
                    info = os.stat(path)
                    if (info.st_dev, info.st_ino) == self._bound:
                        os.unlink(path)
                except OSError:
                    pass
            for sock in (self._sender, self._receiver):
                if sock is not None:
                    sock.close()
            self._sender, self._receiver, self._bound = None, None, None


class Hub:
    """The followers of this process, by game, and the watcher that hears other processes (on
    SQLite, with the receiver of their wake-ups)."""

    ending = False  # the process is stopping (``end_streams``)

    def __init__(self):
        self._lock = threading.Lock()
        self._followers: dict[str, set[Follower]] = {}
        self._writing: dict[str, int] = {}  # game -> this process's writes not yet told
        self._watcher: threading.Thread | None = None
        self._pid = None
        self._engine = None
        self._wakeups: dict = {}  # engine -> its Wakeups (None: not a SQLite file)
        self._receiving: Wakeups | None = None  # the wake-ups this process listens to
        self._polling = False  # on SQLite: the poll below reads what ``_seen`` does not hold
        # SQLite: each watched game's (revision, version) as this process last told or read it, so
        # that the poll tells only what neither a wake-up nor this process's own write did
        self._seen: dict[str, tuple[int, int]] = {}
        self.poll_seconds = 1.0  # EVENTS_POLL_SECONDS, set by the first follower's app
        self._poll_soon: threading.Event | None = None  # set: the receiver's queue was full

    def follow(self, app, game_id: str) -> Follower:
        follower = Follower(game_id)
        with self._lock:
            self._followers.setdefault(game_id, set()).add(follower)
            if self.ending:
                follower.end()
        self.poll_seconds = app.config.get("EVENTS_POLL_SECONDS", self.poll_seconds)
        if not self._watching():
            with app.app_context():
                from referee.models import db

                self.watch(db.engine)
        return follower

    def leave(self, follower: Follower) -> None:
        with self._lock:
            watching = self._followers.get(follower.game_id)
            if watching is not None:
                watching.discard(follower)
                if not watching:
                    del self._followers[follower.game_id]
                    self._seen.pop(follower.game_id, None)

    def end_streams(self) -> None:
        """The process is stopping (gunicorn's SIGTERM, ``referee.serving``): every stream ends now,
        and one that begins from now on at once; its client comes back with Last-Event-ID, to a
        process that stays."""
        with self._lock:
            self.ending = True
            followers = [follower for watching in self._followers.values() for follower in watching]
        for follower in followers:
            follower.end()

    def publish(self, change: Change) -> None:
        with self._lock:
            followers = list(self._followers.get(change.game_id, ()))
        for follower in followers:
            follower.offer(change)

    def told(self, change: Change) -> None:
        """A change of a watched game its followers here were told of (by this process's write or
        another's wake-up): the poll need not tell it again."""
        if not self._polling:
            return
        with self._lock:
            if change.game_id in self._followers:
                before = self._seen.get(change.game_id)
                if before is None or change.revision > before[0]:
                    self._seen[change.game_id] = (change.revision, change.version)

    def wake_others(self, change: Change) -> None:
        """SQLite: send a change this process committed to the other processes serving the file."""
        from referee.models import db

        try:
            wakeups = self.wakeups_for(db.engine)
            if wakeups is not None:
                wakeups.send(change)
        except Exception:  # the write is committed all the same: the others' poll tells it
            log.warning("could not wake the other processes", exc_info=True)

    def wakeups_for(self, engine) -> Wakeups | None:
        try:
            return self._wakeups[engine]
        except KeyError:
            folder = Wakeups.folder_for(engine.url)
            wakeups = self._wakeups[engine] = Wakeups(folder) if folder else None
            return wakeups

    def watched(self) -> list[str]:
        with self._lock:
            return list(self._followers)

    @contextmanager
    def writing(self, game_id: str):
        """A write of this process on the game, from before its commit until it is told: the
        poller leaves the game alone meanwhile (``_poll_once``)."""
        with self._lock:
            self._writing[game_id] = self._writing.get(game_id, 0) + 1
        try:
            yield
        finally:
            with self._lock:
                left = self._writing.pop(game_id) - 1
                if left:
                    self._writing[game_id] = left

    # ------------------------------------------------------------ other processes

    def watch(self, engine) -> bool:
        """Start this process's watcher of other processes' writes, if it is not running. Whether
        it watches this engine's database: a process serves one, the first it asked for (an app on
        another database in the same process, as in the tests, is not told of its writes)."""
        if not self._watching():
            with self._lock:
                if not self._watching():
                    self._start_watcher(engine)
        return self._engine is engine or self._engine.url == engine.url

    def _watching(self) -> bool:
        return self._pid == os.getpid() and self._watcher is not None and self._watcher.is_alive()

    def _start_watcher(self, engine) -> None:
        self._pid = os.getpid()  # a watcher never crosses a fork: each worker starts its own
        self._engine = engine
        sqlite = self._polling = engine.url.get_backend_name() == "sqlite"
        if sqlite:
            self._poll_soon = threading.Event()  # made here: after gevent's patch and the fork
            self._receiving = wakeups = self.wakeups_for(engine)
            if wakeups is not None and wakeups.listen():
                threading.Thread(target=self._receive, args=(wakeups,), name="referee-wakeups", daemon=True).start()
        target = self._poll if sqlite else self._listen
        self._watcher = threading.Thread(target=target, args=(engine,), name="referee-events", daemon=True)
        self._watcher.start()

    def _listen(self, engine) -> None:
        """PostgreSQL: LISTEN on a connection of our own; reconnect after a failure."""
        import psycopg

        conninfo = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        while True:
            try:
                with psycopg.connect(conninfo, autocommit=True, connect_timeout=10,
                                     application_name="referee-events") as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    while True:
                        for note in conn.notifies(timeout=HEARTBEAT_SECONDS):
                            change = Change.parse(note.payload)
                            if change is not None:
                                self.publish(change)
                        conn.execute("SELECT 1")  # the connection still hears (a dead one raises)
            except Exception:  # the database went away: followers keep their streams, we retry
                log.warning("event listener lost its connection; retrying", exc_info=True)
                time.sleep(2.0)

    def _receive(self, wakeups: Wakeups) -> None:
        """SQLite: tell the changes other processes send (``Wakeups``) as they arrive."""
        check_at = time.monotonic() + wakeups.CHECK_SECONDS
        while True:
            try:
                change = wakeups.receive()
                if change is not None:
                    self.told(change)
                    self.publish(change)
                    if wakeups.crowded():
                        self._poll_soon.set()
                if time.monotonic() >= check_at:
                    wakeups.still_bound()
                    check_at = time.monotonic() + wakeups.CHECK_SECONDS
            except Exception:
                log.warning("event wake-ups could not be read; retrying", exc_info=True)
                time.sleep(wakeups.CHECK_SECONDS)

    def poll_interval(self) -> float:
        """The poll is the safety net while wake-ups arrive, and the only way without them."""
        wakeups = self._receiving
        return self.poll_seconds if wakeups is not None and wakeups.bound else min(self.poll_seconds, POLL_SECONDS)

    def _poll(self, engine) -> None:
        """SQLite: read the watched games' rows every ``poll_interval``, in one query; sooner
        (``POLL_SECONDS`` after the last read at the soonest) when the wake-ups' queue was full."""
        seen, soon = self._seen, self._poll_soon
        while True:
            time.sleep(POLL_SECONDS)
            soon.wait(max(0.0, self.poll_interval() - POLL_SECONDS))
            soon.clear()
            ids = self.watched()
            if len(seen) > len(ids):  # forget the games no longer watched
                watched = set(ids)
                for game_id in list(seen):  # (a copy: the receiver adds to it meanwhile)
                    if game_id not in watched:
                        seen.pop(game_id, None)
            if not ids:
                continue
            try:
                self._poll_once(engine, ids, seen)
            except Exception:
                log.warning("event poller could not read the games; retrying", exc_info=True)

    def _poll_once(self, engine, ids: list[str], seen: dict[str, tuple[int, int]]) -> None:
        """Tell what changed in these games' rows since ``seen`` (each game's revision and version
        as last read), which it updates. A game this process is writing is skipped, as if not read:
        its writer tells its followers, with the write's kind, once committed (``Hub.writing``);
        read between the commit and that, it would reach them first as a 'sync'."""
        from referee.models import Game

        with engine.connect() as conn:
            rows = conn.execute(select(Game.id, Game.revision, Game.version).where(Game.id.in_(ids[:5000]))).all()
        for game_id, revision, version in rows:
            if game_id in self._writing:
                continue
            before = seen.get(game_id)
            seen[game_id] = (revision, version)
            if before is not None and revision > before[0]:
                kind = ("move" if version > before[1] else "undo") if revision == before[0] + 1 else "sync"
                self.publish(Change(game_id, revision, version, kind))
            elif before is None:
                self.publish(Change(game_id, revision, version, "sync"))  # caught up on first sight


hub = Hub()


def notify_in_transaction(session, change: Change) -> None:
    """PostgreSQL: queue the NOTIFY in the write's own transaction (sent at commit, or never)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_notify(:channel, :payload)"), {"channel": CHANNEL, "payload": change.payload()})


def writing(game_id: str):
    """Around a write of this process, until its ``committed`` (``Hub.writing``)."""
    return hub.writing(game_id)


def committed(change: Change) -> None:
    """A write is durable: tell this process's followers now, and wake the other processes on a
    SQLite file (on PostgreSQL they hear its NOTIFY)."""
    hub.told(change)
    hub.publish(change)
    hub.wake_others(change)
