"""Live events per game: every committed write (a move, an undo) reaches the followers of the game
as a server-sent event (``GET /api/v1/games/{id}/events``), on any process or machine.

- The process that commits a write tells its own followers at once (``committed``).
- On PostgreSQL the write also sends ``NOTIFY referee_games`` in its transaction (delivered at
  commit, never for a write that rolled back); each process LISTENs on one connection of its own,
  so a move made on one machine reaches followers on another.
- On SQLite, each process polls the rows of the games its followers watch, a few times a second,
  in one query: that is how a move made by another gunicorn worker is seen.

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
from dataclasses import dataclass

from sqlalchemy import select, text

log = logging.getLogger("referee.events")

CHANNEL = "referee_games"
POLL_SECONDS = 0.25  # SQLite: how often a process looks for writes made by the others


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

    def offer(self, change: Change) -> None:
        if self.pending is None or change.revision > self.pending.revision:
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
        self._watcher: threading.Thread | None = None
        self._pid = None

    def follow(self, app, game_id: str) -> Follower:
        follower = Follower(game_id)
        with self._lock:
            self._followers.setdefault(game_id, set()).add(follower)
            self._start_watcher(app)
        return follower

    def leave(self, follower: Follower) -> None:
        with self._lock:
            watching = self._followers.get(follower.game_id)
            if watching is not None:
                watching.discard(follower)
                if not watching:
                    del self._followers[follower.game_id]

    def publish(self, change: Change) -> None:
        with self._lock:
            followers = list(self._followers.get(change.game_id, ()))
        for follower in followers:
            follower.offer(change)

    def watched(self) -> list[str]:
        with self._lock:
            return list(self._followers)

    # ------------------------------------------------------------ other processes

    def _start_watcher(self, app) -> None:
        if self._watcher is not None and self._watcher.is_alive() and self._pid == os.getpid():
            return
        self._pid = os.getpid()  # a watcher never crosses a fork: each worker starts its own
        with app.app_context():
            from referee.models import db

            engine = db.engine
        target = self._listen if engine.url.get_backend_name() == "postgresql" else self._poll
        self._watcher = threading.Thread(target=target, args=(engine,), name="referee-events", daemon=True)
        self._watcher.start()

    def _listen(self, engine) -> None:
        """PostgreSQL: LISTEN on a connection of our own; reconnect after a failure."""
        import psycopg

        conninfo = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        while True:
            try:
                with psycopg.connect(conninfo, autocommit=True, connect_timeout=10) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    while True:
                        for note in conn.notifies(timeout=5.0):
                            change = Change.parse(note.payload)
                            if change is not None:
                                self.publish(change)
            except Exception:  # the database went away: followers keep their streams, we retry
                log.warning("event listener lost its connection; retrying", exc_info=True)
                time.sleep(2.0)

    def _poll(self, engine) -> None:
        """SQLite: read the watched games' rows a few times a second, in one query."""
        from referee.models import Game

        seen: dict[str, tuple[int, int]] = {}
        while True:
            time.sleep(POLL_SECONDS)
            ids = self.watched()
            if not ids:
                seen.clear()
                continue
            try:
                with engine.connect() as conn:
                    rows = conn.execute(select(Game.id, Game.revision, Game.version).where(Game.id.in_(ids[:5000])))
                    for game_id, revision, version in rows:
                        before = seen.get(game_id)
                        seen[game_id] = (revision, version)
                        if before is not None and revision > before[0]:
                            kind = ("move" if version > before[1] else "undo") if revision == before[0] + 1 else "sync"
                            self.publish(Change(game_id, revision, version, kind))
                        elif before is None:
                            self.publish(Change(game_id, revision, version, "sync"))  # caught up on first sight
            except Exception:
                log.warning("event poller could not read the games; retrying", exc_info=True)


hub = Hub()


def notify_in_transaction(session, change: Change) -> None:
    """PostgreSQL: queue the NOTIFY in the write's own transaction (sent at commit, or never)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_notify(:channel, :payload)"), {"channel": CHANNEL, "payload": change.payload()})


def committed(change: Change) -> None:
    """A write is durable: tell this process's followers now (others hear of it as above)."""
    hub.publish(change)
