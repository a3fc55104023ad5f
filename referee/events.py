"""Live events per game: every committed write (a move, an undo) reaches the followers of the game
as a server-sent event (``GET /api/v1/games/{id}/events``), on any process or machine.

- The process that commits a write tells its own followers at once (``committed``).
- On PostgreSQL the write also sends ``NOTIFY referee_games`` in its transaction (delivered at
  commit, never for a write that rolled back); each process LISTENs on one connection of its own,
  so a move made on one machine reaches followers on another.
- On SQLite, each process polls the rows of the games its followers watch, a few times a second,
  in one query: that is how a move made by another gunicorn worker is seen.

On PostgreSQL the listener also keeps each game's newest tag as heard (``TagBook``): a follower's
``GET`` is answered from it without a query (``referee.api.followers``).

A follower keeps only the newest change it has not sent yet (the event says the game's new version
and ETag; the page or client fetches what it shows), so a slow reader costs nothing to the
writers. Events carry the game's revision (its count of writes) as their id, which a client sends
back as ``Last-Event-ID`` to resume. Under gevent a follower is a greenlet, not a thread.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass

from sqlalchemy import select, text

log = logging.getLogger("referee.events")

CHANNEL = "referee_games"
POLL_SECONDS = 0.25  # SQLite: how often a process looks for writes made by the others
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


class TagBook:
    """Each game's newest (revision, version) that this process has heard of, on PostgreSQL: from
    the listener (every write's NOTIFY, from any process or machine), from this process's own
    commits, and from the reads that found it missing (``learn``).

    It is trusted only while the listener is known to hear: after its LISTEN and within
    ``STALE_SECONDS`` of its last heartbeat. A lost connection forgets everything.

    An entry is read again after ``KEEP_SECONDS``, which bounds what a change that sent no NOTIFY
    (a hand edit, a restore) can hide. One reader reads it, and the others are answered as heard
    meanwhile: every follower asking at once went to the database together, and on two busy cores
    some waited 0.1-1.2 s. A read that never reports back hands the turn on after
    ``STALE_SECONDS``. What that read finds replaces the entry, even an older revision (a restore).
    Otherwise the higher revision wins, whichever arrives first. A read learns what it found only
    if nothing was forgotten since it began (``epoch``), so a read that raced a lost connection or
    a pruning teaches nothing old.

    What it answers can be behind the database by the time a NOTIFY takes to arrive (well under a
    millisecond on one host): a follower then hears "not modified" once more and sees the write at
    its next ask or event. A writer's own answer carries the new state and ETag, and an
    ``If-None-Match`` naming a tag the book does not hold is read from the database."""

    SIZE = 10_000  # games; a full book drops what is too old to be trusted, or everything
    KEEP_SECONDS = 10.0
    STALE_SECONDS = 3.0  # the listener's heartbeat is every HEARTBEAT_SECONDS

    def __init__(self):
        self._lock = threading.Lock()
        self._known: dict[str, tuple[int, int, float]] = {}  # game -> (revision, version, when heard)
        self._rereading: dict[str, float] = {}  # game -> when a reader began to read it again
        self._heard_at: float | None = None  # the listener's last heartbeat; None: not listening
        self.epoch = 0

    def hears(self) -> bool:
        heard_at = self._heard_at
        return heard_at is not None and time.monotonic() - heard_at <= self.STALE_SECONDS

    def tag(self, game_id: str) -> str | None:
        """The game's tag as heard, or None when the book cannot tell (then read the database)."""
        known = self._known.get(game_id)
        if known is None or not self.hears():
            return None
        now = time.monotonic()
        if now - known[2] > self.KEEP_SECONDS and not self._rereading_elsewhere(game_id, now):
            return None  # this caller reads it again
        return tag_of(known[1], known[0])

    def _rereading_elsewhere(self, game_id: str, now: float) -> bool:
        """Is another reader reading this game again (since STALE_SECONDS at most)? If not, the
        caller is the one."""
        with self._lock:
            began = self._rereading.get(game_id)
            if began is not None and now - began <= self.STALE_SECONDS:
                return True
            self._rereading[game_id] = now
            return False

    def heard(self, change: Change) -> None:
        self._note(change.game_id, change.revision, change.version, None)

    def learn(self, game_id: str, revision: int, version: int, epoch: int) -> None:
        """What a read begun at ``epoch`` found."""
        self._note(game_id, revision, version, epoch)

    def _note(self, game_id: str, revision: int, version: int, epoch: int | None) -> None:
        with self._lock:
            if self._heard_at is None or (epoch is not None and epoch != self.epoch):
                return
            now = time.monotonic()
            known = self._known.get(game_id)
            if known is None:
                if len(self._known) >= self.SIZE:
                    self._prune(now)
                    if epoch is not None:
                        return
            elif revision < known[0] and (epoch is None or now - known[2] <= self.KEEP_SECONDS):
                return  # older than what was heard (and not a read of an entry kept too long)
            self._known[game_id] = (revision, version, now)
            self._rereading.pop(game_id, None)

    def _prune(self, now: float) -> None:
        self.epoch += 1
        self._known = {game: known for game, known in self._known.items() if now - known[2] <= self.KEEP_SECONDS}
        if len(self._known) >= self.SIZE:
            self._known = {}
        self._rereading = {}

    def listening(self) -> None:
        """The listener's LISTEN is in effect (every commit from now on is heard), or it is alive."""
        with self._lock:
            if self._heard_at is None:
                self._known, self._rereading, self.epoch = {}, {}, self.epoch + 1
            self._heard_at = time.monotonic()

    def lost(self) -> None:
        with self._lock:
            self._known, self._rereading, self.epoch, self._heard_at = {}, {}, self.epoch + 1, None


class Follower:
    """One open stream: the newest change not sent yet, and a wake-up. ``sent`` is the revision
    the client has (it may be set after the follower starts listening, so nothing falls between)."""

    def __init__(self, game_id: str, sent: int = -1):
        self.game_id, self.sent = game_id, sent
        self.pending: Change | None = None
        self.ready = threading.Event()

    def offer(self, change: Change) -> None:
        pending = self.pending
        if (pending is None or change.revision > pending.revision
                or (change.revision == pending.revision and pending.kind == "sync")):  # the kind is news
            self.pending = change
            self.ready.set()

    def next(self, timeout: float) -> Change | None:
        """The next change the client has not seen, or None after ``timeout`` seconds without one."""
        self.ready.clear()  # before the look: an offer made after it sets the flag again
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


class Hub:
    """The followers of this process, by game, and the one watcher that hears other processes."""

    def __init__(self):
        self._lock = threading.Lock()
        self._followers: dict[str, set[Follower]] = {}
        self._writing: dict[str, int] = {}  # game -> this process's writes not yet told
        self._watcher: threading.Thread | None = None
        self._pid = None
        self._engine = None
        self.tags = TagBook()

    def follow(self, app, game_id: str) -> Follower:
        follower = Follower(game_id)
        with self._lock:
            self._followers.setdefault(game_id, set()).add(follower)
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

    def publish(self, change: Change) -> None:
        self.tags.heard(change)
        with self._lock:
            followers = list(self._followers.get(change.game_id, ()))
        for follower in followers:
            follower.offer(change)

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
        self.tags.lost()  # and hears for itself: nothing a parent heard is trusted
        target = self._listen if engine.url.get_backend_name() == "postgresql" else self._poll
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
                    self.tags.listening()
                    while True:
                        for note in conn.notifies(timeout=HEARTBEAT_SECONDS):
                            change = Change.parse(note.payload)
                            if change is not None:
                                self.publish(change)
                        conn.execute("SELECT 1")  # the connection still hears (a dead one raises)
                        self.tags.listening()
            except Exception:  # the database went away: followers keep their streams, we retry
                self.tags.lost()
                log.warning("event listener lost its connection; retrying", exc_info=True)
                time.sleep(2.0)

    def _poll(self, engine) -> None:
        """SQLite: read the watched games' rows a few times a second, in one query."""
        seen: dict[str, tuple[int, int]] = {}
        while True:
            time.sleep(POLL_SECONDS)
            ids = self.watched()
            if not ids:
                seen.clear()
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
    """A write is durable: tell this process's followers now (others hear of it as above)."""
    hub.publish(change)
