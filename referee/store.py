"""Games as move logs: create, apply a move, undo, replay. Every write on a game serializes.

The game row is locked before it is read, by the first statement of the transaction: on SQLite
``UPDATE games ... WHERE id = ?``, which takes the database write lock, on PostgreSQL (for an undo,
or a move the unlocked path below leaves to it) ``SELECT ... FOR UPDATE``, which takes the row lock
without writing the row. Concurrent writers queue instead of reading a snapshot that is stale by
the time they write.
The ``(game_id, seq)`` unique constraint is the last line of defence.

On PostgreSQL a move with the game's own token takes no lock (``_unlocked_write``): it reads the
row, and saves it, with its log row, only if no other write has changed the row since, each one
statement in autocommit; a move that another write overtook is read and judged again.

On a SQLite file, writers first queue on an ``flock`` of a file beside the database (see
``writer_queue``), where SQLite's busy handler would sleep and poll (up to 100 ms a try), which
made the slowest moves wait hundreds of milliseconds; and the moves and undos that a process has
queued by the time it gets the lock commit together, behind one fsync (``_grouped``). A move with
the game's own token is judged before it queues, on the row as this process's last write on the
game left it (``_judged_first``): under the lock it is only saved, if the row is still so, and
else judged again on the row as locked.
"""
from __future__ import annotations

import contextlib
import copy
import fcntl
import functools
import hashlib
import hmac
import json
import os
import re
import secrets
import string
import threading
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Callable

from flask import current_app
from sqlalchemy import (ClauseElement, Insert, and_, bindparam, case, delete, exists, func, insert, literal, null,
                        select, type_coerce, update)
from sqlalchemy.exc import DBAPIError, OperationalError

from referee import deadlines, events, jsonio, metrics
from referee.models import Credential, Game, Group, IdempotencyRecord, Move, _now, aware, db, new_game_id
from referee.names import check_names
from referee.rules import get_engine
from referee.rules.base import APPEND_ONLY, RuleError, implied_actor, load_move, public_state
from referee.texts import N_, T

GAME_ID_CHARS = frozenset(string.ascii_letters + string.digits + "-_")
CHECKPOINT_EVERY = 25  # versions between stored states: undo replays at most this many moves
PURGE_EVERY = 25  # writes to a game between clearings of its expired idempotency records


class StoreError(Exception):
    """A refusal that is not a rule of the game: unknown game, bad token, stale version..."""

    def __init__(self, status: int, title: str, detail: str, kind: str, headers: dict | None = None, **extra):
        super().__init__(detail)
        self.status, self.title, self.detail, self.kind = status, title, detail, kind
        self.headers = headers or {}
        self.extra = extra  # more members of the problem+json body (e.g. the existing ``rematch``)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def request_fingerprint(payload: Any) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def engine_for(name: str):
    engine = get_engine(name)
    if engine is None:
        raise StoreError(404, "Unknown game", T("There is no game called '{name}'.", name=name), "unknown-game")
    return engine


def game_view(game: Game, state: dict | None = None, version: int | None = None, etag: str | None = None) -> dict:
    """The public state of a game as the API shows it (``view_at``: as it was at ``version``)."""
    engine = engine_for(game.game)
    view = {
        "id": game.id,
        "game": game.game,
        "players": game.players,
        "options": game.options,
        "version": game.version if version is None else version,
        "etag": entity_tag(game) if etag is None else etag,
        "group": game.group_id,
        "rematch": game.rematch_id,
        "rematch_of": game.rematch_of_id,
    }
    view.update(public_state(engine, game.state if state is None else state))
    return view


# ---------------------------------------------------------------- reads

def _possible_id(game_id) -> bool:
    # Ids are token_urlsafe strings; anything else (a NUL byte, say, which PostgreSQL refuses
    # outright) cannot name a game and never reaches the database.
    return isinstance(game_id, str) and 0 < len(game_id) <= 32 and GAME_ID_CHARS.issuperset(game_id)


def _not_found(game_id) -> StoreError:
    return StoreError(404, "Game not found", T("No game has the id {id}.", id=repr(game_id)), "not-found")


def get_game(game_id: str) -> Game:
    game = db.session.get(Game, game_id) if _possible_id(game_id) else None
    if game is None:
        raise _not_found(game_id)
    return game


_HEAD = select(Game.version, Game.revision).where(Game.id == bindparam("id"))


def game_head(game_id: str) -> tuple[int, int]:
    """The game's (version, revision), without reading its state (a 404 for no such game): what a
    follower's ``If-None-Match`` is checked against, and where its stream starts."""
    if not _possible_id(game_id):
        raise _not_found(game_id)
    # Core on a pooled connection, no ORM session: making and closing one cost more than the read.
    # On PostgreSQL in autocommit: one round trip, where a transaction took three (BEGIN, the read,
    # the pool's ROLLBACK), each a wait of the worker's hub (a fifth of its CPU at 1,000 tables).
    with db.engine.connect() as connection, (autocommitting(connection.connection)
                                               if connection.dialect.name == "postgresql" else contextlib.nullcontext()):
        head = connection.execute(_HEAD, {"id": game_id}).first()
    if head is None:
        raise _not_found(game_id)
    return head.version, head.revision


def game_tag(game_id: str) -> str:
    """The game's ETag (unquoted) from its version and revision alone."""
    return events.tag_of(*game_head(game_id))


@contextlib.contextmanager
def autocommitting(pooled):
    """PostgreSQL: each statement inside commits on its own (psycopg's autocommit, a switch on the
    client: no round trip), and the pool's connection ``pooled`` goes back as it came, or is never
    pooled again. Core's ``isolation_level`` option does the same through its connection
    characteristics, set at every checkout and reset at every checkin, which cost a move 5 % of its
    worker time (bench/README.md, eleventh pass)."""
    driver = pooled.driver_connection
    driver.autocommit = True
    try:
        yield
    finally:
        try:
            driver.autocommit = False
        except Exception:  # a statement cut off midway (a timeout) left it busy
            if pooled.is_valid:  # (one that failed was invalidated then)
                pooled.invalidate()


def listed_tags(header: str) -> list[tuple[bool, str]]:
    """An ``If-Match`` or ``If-None-Match`` list as (weak, opaque tag) pairs (RFC 9110, 8.8.3): each
    ``"3"`` or ``W/"3"``, or ``*`` as (False, "*"). A tag sent without its quotes (``3``) is read as
    the quoted one, in both headers alike: the version a client saw is what it means."""
    tags = []
    for item in header.split(","):
        item = item.strip()
        weak = item[:2] == "W/"
        if weak:
            item = item[2:]
        if len(item) >= 2 and item[0] == item[-1] == '"':
            item = item[1:-1]
        if item:
            tags.append((weak, item))
    return tags


def not_modified(if_none_match: str | None, tag: str) -> bool:
    """Whether a GET's ``If-None-Match`` names ``tag`` (a 304): the weak comparison, as RFC 9110
    has it for this header (``W/"3"`` matches ``"3"``), or ``*``."""
    return any(sent in (tag, "*") for _, sent in listed_tags(if_none_match or ""))


class ViewCache:
    """The JSON of recent games' views, by game id, each with the ETag it was made at. An ETag names
    one state forever (``events.tag_of``: every write counts in the revision), so a copy made at the
    tag that the database holds now is the view as it is now, in any process: followers that read a
    game after each move share one rendering of it instead of each loading and encoding its state."""

    def __init__(self, size: int = 512):
        self.size = size
        self._views: dict[str, tuple[str, bytes]] = {}
        self._lock = threading.Lock()

    def get(self, game_id: str, tag: str) -> bytes | None:
        found = self._views.get(game_id)
        return found[1] if found is not None and found[0] == tag else None

    def put(self, game_id: str, tag: str, body: bytes) -> None:
        with self._lock:
            self._views.pop(game_id, None)
            self._views[game_id] = (tag, body)
            while len(self._views) > self.size:  # the least recently stored goes first
                self._views.pop(next(iter(self._views)))


views = ViewCache(size=2048)  # as many as ``states``: each table's newest view


def live_move(game_id: str, version: int) -> Move | None:
    """The move in effect that produced ``version`` (undo only voids the last move, so the live
    moves carry versions 1..n); None for version 0."""
    return db.session.scalar(select(Move).where(Move.game_id == game_id, Move.version == version,
                                                Move.voided.is_(False)))


def tag_at(game: Game, at: int) -> str:
    """The ETag (unquoted) of the table as it was after the first ``at`` moves in effect: ``<at>@<seq>``,
    the log position of the move that made it (0 for the first table). It names that one table
    forever: an undo and a different move bring a version back, never a log position (a move after
    an undo of an earlier one is logged after it, so its position says which moves came before)."""
    move = live_move(game.id, at) if at else None
    return f"{at}@{move.seq if move is not None else 0}"


def view_at(game: Game, at: int, tag: str | None = None) -> dict:
    """The table as it was after the first ``at`` moves in effect, as the API shows it, with its tag
    (``tag_at``, when the caller has not read it already)."""
    return game_view(game, replay(game, at), version=at, etag=tag or tag_at(game, at))


def all_moves(game_id: str) -> list[Move]:
    return list(db.session.scalars(select(Move).where(Move.game_id == game_id).order_by(Move.seq)))


def moves_page(game_id: str, after: int, limit: int) -> list[Move]:
    """The log entries after position ``after``, at most ``limit`` of them."""
    return list(db.session.scalars(select(Move).where(Move.game_id == game_id, Move.seq > after)
                                   .order_by(Move.seq).limit(limit)))


def checkpoint_due(version: int, state: dict) -> bool:
    """Whether the move to ``version`` keeps its state (a checkpoint): every ``CHECKPOINT_EVERY``
    versions, further apart as the state's ever-growing lists (``APPEND_ONLY``: the finished rounds,
    the adjustments) grow, a power of two times as far as those lists hold more than that many
    entries. Each checkpoint stores those lists whole, so a fixed spacing stored the square of a
    long game (an import of 15,000 adjustments wrote 290 MB); spaced so, what a game's checkpoints
    store grows with its moves (about two list entries a move), and an undo replays at most about as
    many moves as the state holds entries. A game of fewer than 50 rounds and adjustments keeps one
    every 25 versions, as before. Only a cost: a replay starts from whatever checkpoint it finds."""
    entries = sum(len(state.get(key) or ()) for key in APPEND_ONLY)
    spacing = CHECKPOINT_EVERY
    while entries >= 2 * spacing:
        spacing *= 2
    return version % spacing == 0


def replay(game: Game, upto: int | None = None) -> dict:
    """The state after the first ``upto`` moves in effect (all of them when None): from the newest
    checkpoint at or before that point, or from the start. Live moves carry versions 1..n (undo
    only voids the last one), so a checkpoint on a live move is the replay up to it."""
    engine = engine_for(game.game)
    live = select(Move).where(Move.game_id == game.id, Move.voided.is_(False))
    if upto is not None:
        live = live.where(Move.version <= upto)
    base = db.session.scalars(live.where(Move.checkpoint.is_not(None))
                              .order_by(Move.seq.desc()).limit(1)).first()
    if base is None:
        state, after = engine.new_game(game.players, game.options), 0
    else:
        state, after = copy.deepcopy(base.checkpoint), base.seq
    for move in db.session.scalars(live.where(Move.seq > after).order_by(Move.seq)):
        state = engine.apply(state, move.payload)
    return state


# ---------------------------------------------------------------- writes

def new_game(name: str, players: Any, options: Any, group_id: str | None = None) -> tuple[Game, str]:
    """A new game row (not yet in the session) and its token; RuleError on bad players or options."""
    engine = engine_for(name)
    state = engine.new_game(players, options)
    check_names(state["players"])  # none blank, none that read alike
    token = secrets.token_urlsafe(24)
    game = Game(id=new_game_id(), game=name, players=state["players"], options=state["options"], state=state,
                token_hash=hash_token(token), version=0, revision=0, status=_status(engine, state),
                group_id=group_id)
    return game, token


def create_game(name: str, players: Any, options: Any) -> tuple[Game, str]:
    game, token = new_game(name, players, options)
    with writer_queue():
        db.session.add(game)
        db.session.commit()
    return game, token


def _status(engine, state: dict) -> str:
    return engine.outcome(state)["status"]


@dataclass
class WriteRequest:
    """One write on a game: what the client sent, and the preconditions it carried."""

    game_id: str
    token: str | None  # the game's token (the API's Bearer)
    if_match: str | None = None
    idempotency_key: str | None = None
    fingerprint: str = ""
    phone: str | None = None  # or, from the pages, a phone's key ("<id>.<secret>"), never both


@dataclass
class WriteResult:
    status: int
    body: dict
    replayed: bool = False


def lock_row(model, row_id: str, column, not_found: Callable[[Any], StoreError]):
    """Lock a row of ``model`` (a game, a group) and read it, as the first statement of the
    transaction: an ``UPDATE`` that sets ``column`` to itself, ``RETURNING`` the row (see the module
    docstring; RETURNING needs SQLite 3.35 or newer, PostgreSQL has it)."""
    if not _possible_id(row_id):
        raise not_found(row_id)
    row = db.session.scalars(update(model).where(model.id == row_id).values({column: column}).returning(model),
                             execution_options={"populate_existing": True}).first()
    if row is None:
        db.session.rollback()
        raise not_found(row_id)
    return row


def lock_game(game_id: str) -> Game:
    """Lock the game's row (the first statement of the transaction) and read it."""
    return lock_row(Game, game_id, Game.version, _not_found)


@dataclass(frozen=True)
class Kept:
    """A game as this process's last write on it left it: its row (the columns a write reads) and
    its state."""
    row: dict
    state: dict


class StateCache(ViewCache):
    """The states of recent games (``Kept``, with the row), by game id, each with the (version,
    revision) it was made at: a write finds the state it builds on here instead of reading and
    unpacking it (its stored JSON grows with the game). Safe for the reason ``ViewCache`` is: the
    two name one state forever (they make its ETag). The engines never change a state they are
    given (``rules.base.apply_move`` works on a copy), so one object serves."""

    def latest(self, game_id: str) -> tuple[tuple[int, int], Kept] | None:
        """The newest game kept and its (version, revision), whatever they are."""
        return self._views.get(game_id)


# The tables a worker serves at once: every table's moves reach both workers, and with 64 at 1,000
# tables nearly every move missed, took the locked path and read the row, the state and its key's
# record (a quarter of the workers' CPU, py-spy; bench/README.md, "An evening"). A miss reads the row.
states = StateCache(size=2048)

_GAMES = Game.__table__
_LOCKED_NAMES = ("id", "game", "players", "options", "token_hash", "version", "revision", "status", "group_id",
                 "rematch_id", "rematch_of_id")
_LOCKED = [_GAMES.c[name] for name in _LOCKED_NAMES]
# (updated_at named: every column a write sets is named, as in the statements below)
_LOCK = update(_GAMES).where(_GAMES.c.id == bindparam("game_id")).values(
    version=_GAMES.c.version, updated_at=bindparam("now", type_=_GAMES.c.updated_at.type)).returning(*_LOCKED)
# PostgreSQL locks the row without writing it: the UPDATE above wrote a new version of the row
# (and its WAL) only to lock it, and the move's own UPDATE wrote another
_LOCK_FOR_UPDATE = select(*_LOCKED).where(_GAMES.c.id == bindparam("game_id")).with_for_update()
_STATE = select(_GAMES.c.state).where(_GAMES.c.id == bindparam("game_id"))

# What a write on a game's moves writes, each statement built once (one with its values inline is
# compiled and keyed again on every call), every column named (a statement inside WITH gets no
# column defaults): the move it adds to the log, the game row, the answer kept for its
# Idempotency-Key, and on PostgreSQL its NOTIFY (Core's compiled cache keys each once).
_MOVES = Move.__table__
_OF_GAME, _VERSION, _NOW = bindparam("of_game"), bindparam("version"), bindparam("now", type_=_MOVES.c.created_at.type)
# a move's values and its Idempotency-Key's record's, by column: each INSERT's VALUES, or on
# PostgreSQL its SELECT from the saved game row (``_after_save``)
_MOVE_VALUES = dict(
    game_id=_OF_GAME, version=_VERSION, voided=False, created_at=_NOW,
    # the next position in the log is read in the INSERT itself (one statement, not two), from the
    # game's last entry in the (game_id, seq) index: max(seq), planned on a young table's statistics,
    # walked every move of the game (bench/README.md, eleventh pass)
    seq=func.coalesce(select(_MOVES.c.seq).where(_MOVES.c.game_id == _OF_GAME).order_by(_MOVES.c.seq.desc())
                      .limit(1).scalar_subquery(), 0) + 1,
    payload=bindparam("payload", type_=_MOVES.c.payload.type),
    idempotency_key=bindparam("idempotency_key", type_=_MOVES.c.idempotency_key.type),
    checkpoint=bindparam("checkpoint", type_=_MOVES.c.checkpoint.type))
_INSERT_MOVE = insert(_MOVES).values(_MOVE_VALUES)
# the game row as the write read it: saved only if no other write has changed it since (under the
# row lock none can; an unlocked write on PostgreSQL checks it so, ``_unlocked_write``)
_SAVE = update(_GAMES).where(_GAMES.c.id == _OF_GAME).values(
    version=_VERSION, revision=bindparam("revision"), status=bindparam("status", type_=_GAMES.c.status.type),
    state=bindparam("state", type_=_GAMES.c.state.type), updated_at=_NOW)
_SAVE_IF_AS_READ = _SAVE.where(_GAMES.c.version == bindparam("read_version"),
                               _GAMES.c.revision == bindparam("read_revision"))
# a write judged on the row this process kept, not read (``_kept_game``): also only if the token is
# still the one it checked (a rotation leaves the revision as it was), and, for a keyed write, if its
# Idempotency-Key has no record yet (a record means a retry, or a reused key: the row as read answers it)
_SAVE_IF_KEPT = _SAVE_IF_AS_READ.where(_GAMES.c.token_hash == bindparam("kept_token_hash"))
_RECORDS = IdempotencyRecord.__table__
_SAVE_IF_KEPT_UNRECORDED = _SAVE_IF_KEPT.where(
    ~exists().where(_RECORDS.c.game_id == _OF_GAME, _RECORDS.c.key == bindparam("key")))
_RECORD_VALUES = dict(
    game_id=_OF_GAME, created_at=_NOW, key=bindparam("key", type_=_RECORDS.c.key.type),
    request_hash=bindparam("request_hash", type_=_RECORDS.c.request_hash.type),
    status_code=bindparam("status_code", type_=_RECORDS.c.status_code.type),
    response=bindparam("response", type_=_RECORDS.c.response.type))
_INSERT_RECORD = insert(_RECORDS).values(_RECORD_VALUES)
# an unlocked write's read (PostgreSQL), one statement, so all of it is of one moment: the row,
# whether the write's Idempotency-Key has a record (a replay, left to the locked path), and the
# state unless it is the one this process keeps (at version and revision "kept_at_*")
_READ = select(
    *_LOCKED,
    exists().where(_RECORDS.c.game_id == bindparam("game_id"), _RECORDS.c.key == bindparam("key")).label("key_recorded"),
    type_coerce(case((and_(_GAMES.c.version == bindparam("kept_at_version"),
                           _GAMES.c.revision == bindparam("kept_at_revision")), null()), else_=_GAMES.c.state),
                _GAMES.c.state.type).label("state"),
).where(_GAMES.c.id == bindparam("game_id"))


def _after_save(table, values: dict, saved) -> Insert:
    """INSERT ``values`` into ``table`` as a SELECT from the ``saved`` game row: a row only if the
    game row was saved."""
    return insert(table).from_select(list(values), select(*(value if isinstance(value, ClauseElement) else
                                                            literal(value) for value in values.values()))
                                     .select_from(saved))


def _announced_save(added: bool, recorded: bool, kept: bool):
    """PostgreSQL: the game row if it is as read (``kept``: as this process kept it, with the same
    token, and no record yet for the write's Idempotency-Key), then the move, the record and the
    NOTIFY (sent at commit), each only if the row was saved: one statement, one round trip where
    they were up to four (a data-modifying WITH runs whether or not the query reads it). It returns
    a row only if the game row was saved."""
    save = (_SAVE_IF_KEPT_UNRECORDED if recorded else _SAVE_IF_KEPT) if kept else _SAVE_IF_AS_READ
    saved = save.returning(_GAMES.c.id).cte("saved")
    parts = [saved]
    if added:
        parts.append(_after_save(_MOVES, _MOVE_VALUES, saved).cte("moved"))
    if recorded:
        parts.append(_after_save(_RECORDS, _RECORD_VALUES, saved).cte("recorded"))
    return select(func.pg_notify(bindparam("channel"), bindparam("note"))).select_from(saved).add_cte(*parts)


_ANNOUNCED_SAVES = {(added, recorded, kept): _announced_save(added, recorded, kept)
                    for added in (False, True) for recorded in (False, True) for kept in (False, True)}
def _first(connection, statement, values: dict) -> dict | None:
    """The first row ``statement`` returns in ``connection``'s transaction, by column name."""
    row = connection.execute(statement, values).mappings().first()
    return None if row is None else dict(row)


class LockedGame:
    """The game row as a write holds it (locked; on PostgreSQL read by an unlocked write; or as this
    process kept it, ``kept``), read by one statement (the ORM's unit of work cost a move more than
    its commit): what the checks read, and the state, loaded only when a write needs it and no copy
    at this ETag is in ``states``. ``save`` writes back what changed."""

    def __init__(self, row: dict, connection, key_recorded: bool | None = None, state: dict | None = None,
                 kept: bool = False):
        for name, value in row.items():
            setattr(self, name, value)
        self._at = (self.version, self.revision)  # as read: what ``state`` was stored at
        self._state = state
        self.connection = connection  # the transaction's (an unlocked write's: in autocommit)
        self.key_recorded = key_recorded  # whether the write's Idempotency-Key has a record (None: unknown)
        self.kept = kept  # the row as this process kept it, not read: ``save`` checks it is still so
        self.added: dict | None = None  # the move this write adds to the log: its column values
        self.recorded: dict | None = None  # the answer kept for the write's Idempotency-Key
        self.announced: events.Change | None = None  # this write, for the game's followers
        self._written: dict | None = None  # what ``save`` writes, encoded (``written``)

    @property
    def state(self) -> dict:
        if self._state is None:
            kept = states.get(self.id, self._at)
            self._state = kept.state if kept is not None else None
            if self._state is None:
                self._state = _first(self.connection, _STATE, {"game_id": self.id})["state"]
        return self._state

    @state.setter
    def state(self, value: dict) -> None:
        self._state = value

    def written(self) -> dict:
        """The values ``save`` writes once the write has changed the game, encoded once (a write on
        a SQLite file judged before the writer lock encodes them there, ``_judged_first``)."""
        if self._written is None:
            values = {"of_game": self.id, "version": self.version, "revision": self.revision, "status": self.status,
                      "now": _now(), "read_version": self._at[0], "read_revision": self._at[1],
                      "kept_token_hash": self.token_hash, **(self.added or {}), **(self.recorded or {})}
            # the state (and a checkpoint, the same state) with its finished rounds encoded once per process
            values["state"] = jsonio.storable(self._state)
            if values.get("checkpoint") is not None:
                values["checkpoint"] = jsonio.storable(values["checkpoint"])
            self._written = values
        return self._written

    def save(self) -> bool:
        """Write the changed row, the move the write adds and the answer it keeps, in the
        transaction (``remember`` once it is committed); on PostgreSQL with the write's NOTIFY, in
        one statement. Only if the row is still as it was read, or as kept (``kept``): False when it
        is not (another write came first, which only an unlocked or a kept write can find), and
        nothing was written."""
        values = self.written()
        if self.connection.dialect.name == "postgresql" and self.announced is not None:
            saved = _first(self.connection, _ANNOUNCED_SAVES[self.added is not None, self.recorded is not None, self.kept],
                           {**values, "channel": events.CHANNEL, "note": self.announced.payload()})
            if saved is None:
                return False
            _purge_expired(self)
            return True
        # SQLite has no data-modifying WITH (and no NOTIFY): one statement each, under the writer lock
        if self.kept:  # the game row first: the rest only if it is still as kept
            if self.connection.execute(_SAVE_IF_KEPT_UNRECORDED if self.recorded else _SAVE_IF_KEPT,
                                       values).rowcount != 1:
                return False
        else:
            self.connection.execute(_SAVE, values)
        if self.added:
            self.connection.execute(_INSERT_MOVE, values)
        if self.recorded:
            self.connection.execute(_INSERT_RECORD, values)
        _purge_expired(self)
        return True

    def remember(self) -> None:
        """After the commit: the row and the state as they now are, for the next write on this game."""
        if self._state is not None:
            states.put(self.id, (self.version, self.revision),
                       Kept({name: getattr(self, name) for name in _LOCKED_NAMES}, self._state))


def lock_game_row(game_id: str) -> LockedGame:
    """``lock_game`` for a write on the game's moves: the same lock, read without the ORM."""
    if not _possible_id(game_id):
        raise _not_found(game_id)
    connection = db.session.connection()
    lock = _LOCK_FOR_UPDATE if connection.dialect.name == "postgresql" else _LOCK
    row = _first(connection, lock, {"game_id": game_id, "now": _now()})
    if row is None:  # the caller rolls back (the whole transaction, or a group's savepoint)
        raise _not_found(game_id)
    return LockedGame(row, connection)


def committed(work: Callable[[], Any]) -> Any:
    """Run ``work()`` as one write (in the writer queue) and commit it; roll everything back if it
    raises. ``work`` locks what it changes first (``lock_row``)."""
    with writer_queue():
        try:
            result = work()
            db.session.commit()
            return result
        except Exception:
            db.session.rollback()
            raise


def check_token(game: Game, token: str | None) -> None:
    if not token:
        raise StoreError(401, "Token required", N_("Writes need the game's token: "
                                                   "'Authorization: Bearer <token>'."), "unauthorized",
                         headers={"WWW-Authenticate": 'Bearer realm="referee"'})
    if _own_token(game, token):
        return
    digest = hash_token(token)
    # the token of the game's own group also writes it (and no other group's token does)
    group = db.session.get(Group, game.group_id) if game.group_id is not None else None
    if group is None or not hmac.compare_digest(digest, group.token_hash):
        raise StoreError(403, "Wrong token", N_("This token does not open this game."), "forbidden")


def check_writer(game: Game, request: WriteRequest) -> None:
    """The write's credential: a phone's key from the pages, else the Bearer token (the game's or its
    group's)."""
    if request.phone is not None:
        check_phone(game, request.phone)
    else:
        check_token(game, request.token)


CREDENTIAL = re.compile(r"([A-Za-z0-9_-]{1,16})\.([A-Za-z0-9_-]{16,64})")


def split_credential(value: Any) -> tuple[str, str] | None:
    """``(id, secret)`` of a table link's code or a phone's key ("<id>.<secret>"), or None."""
    match = CREDENTIAL.fullmatch(value) if isinstance(value, str) else None
    return (match.group(1), match.group(2)) if match else None


def find_credential(game: Game, value: Any, kind: str) -> Credential:
    """The game's unrevoked credential of this kind that ``value`` opens, else a 403."""
    link = kind == "link"
    return open_key(
        value, kind, lambda found: found.game_id == game.id,
        N_("This table link does not open this game.") if link else N_("This phone's key does not open this game."),
        N_("This table link was revoked: the phone can follow the game, not enter moves.") if link else
        N_("This phone's key was revoked: the phone can follow the game, not enter moves."))


def open_key(value: Any, kind: str, owned: Callable[[Credential], bool], wrong: str, revoked: str) -> Credential:
    """The unrevoked credential of this kind that ``value`` (``<id>.<secret>``) opens and that is
    ``owned`` (a game's, a group's), else a 403 saying ``wrong`` or ``revoked``. The row is read
    afresh (a revocation committed since this request first looked is seen)."""
    parts = split_credential(value)
    found = db.session.get(Credential, parts[0], populate_existing=True) if parts else None
    if (found is None or not owned(found) or found.kind != kind
            or not hmac.compare_digest(hash_token(parts[1]), found.secret_hash)):
        raise StoreError(403, "Wrong key", wrong, "forbidden")
    if found.revoked_at is not None:
        raise StoreError(403, "Revoked", revoked, "revoked")
    return found


def check_phone(game: Game, phone: str | None) -> Credential:
    """A phone's key (the pages' cookie): valid for this game and not revoked. The API's Bearer
    takes only the game's token (``check_token``)."""
    if not phone:
        raise StoreError(401, "Key required", N_("Only a phone that joined the table enters moves."),
                         "unauthorized")
    credential = find_credential(game, phone, "phone")
    now = _now()
    last = aware(credential.last_used_at)
    if last is None or last < now - timedelta(minutes=1):
        credential.last_used_at = now  # committed with the write (at most once a minute)
    return credential


def _own_token(game: Game, token: str | None) -> bool:
    """Whether ``token`` is the game's own (not its group's)."""
    return bool(token) and hmac.compare_digest(hash_token(token), game.token_hash)


def entity_tag(game: Game) -> str:
    return events.tag_of(game.version, game.revision)


def _check_version(game: Game, if_match: str | None) -> None:
    if if_match is None:
        return
    # the strong comparison (RFC 9110, 13.1.1): a weak tag names no table a write may be made on
    wanted = [sent for weak, sent in listed_tags(if_match) if not weak]
    if "*" not in wanted and entity_tag(game) not in wanted:
        raise StoreError(412, "Stale version", T("The game is at version {version} (ETag \"{etag}\"), not {asked}. "
                                                 "Reload and try again.", version=game.version,
                                                 etag=entity_tag(game), asked=if_match), "stale-version",
                         headers={"ETag": f'"{entity_tag(game)}"'})


def _replayed(game: LockedGame, request: WriteRequest) -> WriteResult | None:
    if not request.idempotency_key or game.key_recorded is False:  # read with the row: no record
        return None
    found = db.session.execute(select(IdempotencyRecord, IdempotencyRecord.created_at < _expiry_cutoff()).where(
        IdempotencyRecord.game_id == game.id, IdempotencyRecord.key == request.idempotency_key)).first()
    if found is None:
        return None
    record, expired = found
    if expired:  # the key is free again (compared in SQL: SQLite gives back naive datetimes)
        db.session.delete(record)
        db.session.flush()
        return None
    if record.request_hash != request.fingerprint:
        raise StoreError(422, "Idempotency key reused", N_("This Idempotency-Key was already used "
                                                           "with a different request."), "idempotency-key-reused")
    return WriteResult(record.status_code, record.response, replayed=True)


def _expiry_cutoff():
    """Keys live IDEMPOTENCY_TTL_HOURS: a retry comes within seconds, a day is plenty."""
    return _now() - timedelta(hours=current_app.config.get("IDEMPOTENCY_TTL_HOURS", 24))


_PURGE = delete(_RECORDS).where(_RECORDS.c.game_id == bindparam("game_id"), _RECORDS.c.created_at < bindparam("cutoff"))


def _purge_expired(game: LockedGame) -> None:
    """Every few writes, a game's expired idempotency records go, so they never outgrow the moves
    they guard (one DELETE per PURGE_EVERY writes, not one per write)."""
    if game.revision % PURGE_EVERY == 0:  # in the write's transaction (an unlocked write's: at once)
        game.connection.execute(_PURGE, {"game_id": game.id, "cutoff": _expiry_cutoff()})


def _sqlite_file() -> str | None:
    url = db.engine.url
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        return url.database
    return None


@contextlib.contextmanager
def writer_queue(begin: bool = True):
    """On a SQLite file, one writer at a time across threads and processes; with ``begin``, the
    session's write transaction is begun once the writer's turn has come (``_begin_write``): all but
    the migrations, which write on a connection of their own.

    A process's writers queue on a lock of their own (threads, or greenlets under gevent: woken in
    turn, at once), so only one of them at a time polls the file lock that the processes share.
    A process that lets the file lock go while a writer of another process polls for it (that
    writer holds the ``-writers.want`` file shared) lets its own next writer wait one poll, so the
    other process gets its turn and none is starved."""
    path = _sqlite_file()
    if path is None:  # PostgreSQL: the row lock in lock_game is the queue
        yield
        return
    deadline = deadlines.deadline(WRITER_WAIT_SECONDS)
    if not _PROCESS_WRITERS.acquire(timeout=max(deadline - time.monotonic(), 0)):
        raise _busy()
    try:
        with _file_lock(path, deadline):
            if begin:
                _begin_write(db.session.connection(), deadline)
            yield
    finally:
        _PROCESS_WRITERS.release()


SQLITE_LOCK_RETRY_SECONDS = 0.02  # between tries for a write lock that another process holds


def _begin_write(connection, deadline: float) -> None:
    """SQLite: begin the write transaction (BEGIN IMMEDIATE takes the database's write lock), unless
    one is open. The service's own writers queue for their turn first (``_file_lock``); only another
    process (an operator's shell, a backup tool) can hold the lock then, and it is waited for in
    turns until ``deadline``: SQLite's busy wait is a C call that a gevent worker cannot leave, so
    it is kept to a few milliseconds (``app._engine_options``) and the waits between tries let the
    worker's other requests run. A long busy wait held up every request of its worker (an undo
    answered after 35 s while another process held the lock)."""
    if connection.connection.driver_connection.in_transaction:
        return
    while True:
        try:
            connection.exec_driver_sql("BEGIN IMMEDIATE")
            return
        except OperationalError as error:
            if "locked" not in str(error.orig) and "busy" not in str(error.orig):
                raise
            if time.monotonic() + SQLITE_LOCK_RETRY_SECONDS > deadline:
                raise _busy() from None
            time.sleep(SQLITE_LOCK_RETRY_SECONDS)


WRITER_WAIT_SECONDS = 10  # outside a request; a request waits until its deadline (referee.deadlines)
POLL_SECONDS = 0.00025  # one poller per process: polling often costs little
_PROCESS_WRITERS = threading.Lock()  # gevent's own when the worker is patched (gunicorn.conf.py)
_handover = {"yield": False}  # the last release saw another process waiting: give it a poll first


def _busy() -> StoreError:
    return StoreError(503, "Busy", N_("Another write has held the database for too long; "
                                      "nothing was applied. Try again."), "unavailable", headers={"Retry-After": "2"})


@contextlib.contextmanager
def _file_lock(path: str, deadline: float):
    lock = os.open(path + "-writers.lock", os.O_RDWR | os.O_CREAT, 0o600)
    want = os.open(path + "-writers.want", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if _handover["yield"]:
            _handover["yield"] = False
            time.sleep(POLL_SECONDS * 2)
        while True:  # a writer that hangs costs the others a 503 after a while, never a hang
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                with contextlib.suppress(BlockingIOError):  # "a writer of another process waits"
                    fcntl.flock(want, fcntl.LOCK_SH | fcntl.LOCK_NB)
                if time.monotonic() > deadline:
                    raise _busy() from None
                time.sleep(POLL_SECONDS)
        fcntl.flock(want, fcntl.LOCK_UN)
        yield
    finally:
        try:  # does a writer of another process wait? (this process's own wait on _PROCESS_WRITERS)
            fcntl.flock(want, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(want, fcntl.LOCK_UN)
            _handover["yield"] = False
        except BlockingIOError:
            _handover["yield"] = True
        os.close(lock)  # lets the lock go
        os.close(want)


def _write(request: WriteRequest, change, status: int, check=None, unlocked: bool = False) -> WriteResult:
    """Lock the game, check the token (or, from the pages, the phone's key), replay, the body
    (``check(game)``) and version, then run ``change(game)`` -> body; commit (``commit_write``).
    ``unlocked``: a write that needs nothing but the game row (a move) tries first, on PostgreSQL
    ``_unlocked_write``, on SQLite ``_judged_first``."""
    locked = functools.partial(_locked_write, request, change, status, check)
    if unlocked and request.phone is None and not _session_pending():
        if db.engine.dialect.name == "postgresql":
            result = _unlocked_write(request, change, status, check)
            if result is not None:
                return result
        else:
            saved = _judged_first(request, change, status, check)
            if saved is not None:
                return commit_write(locked, first=saved)
    return commit_write(locked)


UNLOCKED_TRIES = 3  # tries on a game that another write keeps changing, before queuing for its lock


def _unlocked_write(request: WriteRequest, change, status: int, check=None) -> WriteResult | None:
    """A write on PostgreSQL that reads the game row without locking it and saves it only if no
    other write has changed it since (``LockedGame.save``): the read and the save are each one
    statement in autocommit, two round trips where a locked write takes four (BEGIN, the lock, the
    save, COMMIT). The first try reads nothing when this process keeps the row as its last write on
    the game left it (``_kept_game``): one round trip, the save. The save is its own transaction:
    its 201 comes after its commit, as any write's. A refusal is answered from the row as read, as
    a locked write answers from the row as locked (one on the row as kept is judged again on the
    row as read). None, with nothing written, when the locked path must do it: a phone's key or a
    group's token (their rows are read in the transaction), a key with a record (a replay, or a key
    reused or expired), or a game that kept changing under it."""
    if not _possible_id(request.game_id):
        raise _not_found(request.game_id)
    with db.engine.connect() as connection, autocommitting(connection.connection):
        for attempt in range(UNLOCKED_TRIES):
            game = _kept_game(request, connection) if attempt == 0 else None
            if game is not None:
                try:
                    result, written = _checked_write(game, request, change, status, check)
                except DBAPIError:
                    raise
                except Exception:  # refused on the row as kept: judged again on the row as it is
                    continue
            else:
                game = _read_game(request, connection)
                if game is None:
                    return None
                result, written = _checked_write(game, request, change, status, check)
            if result is not None:
                written.remember()
                return result
    return None


def _judged_first(request: WriteRequest, change, status: int, check=None) -> Callable | None:
    """A write on SQLite judged on the row this process kept (``_kept_game``) before it queues for
    the writer lock, which serializes the writes of every process: work done under it left the
    cores idle (bench/README.md, ninth pass). Returns its save, to run under the lock: the game row
    only if it is still as kept (``LockedGame.save``), then the rest; it writes all or nothing, and
    returns None when another write came first (the locked path then judges the write again). None,
    with nothing done, when there is no kept row for the write's token, or when the write is
    refused on it (the row as locked may not refuse it): the locked path does it then."""
    game = _kept_game(request, None)
    if game is None:
        return None
    try:
        result = _judged(game, request, change, status, check)
    except DBAPIError:
        raise
    except Exception:  # refused on the row as kept: judged again on the row as locked
        return None
    game.written()  # encoded here, not under the lock

    def save() -> tuple[WriteResult, LockedGame] | None:
        game.connection = db.session.connection()
        return (result, game) if game.save() else None

    return save


def _kept_game(request: WriteRequest, connection) -> LockedGame | None:
    """The game as this process's last write on it left it, for a write to be judged on without
    reading the row, when the write's token is the game's own as kept. Its save (``_SAVE_IF_KEPT``)
    lands only if the row is still so (version, revision, token) and the write's Idempotency-Key has
    no record; else, as after any refusal on it, the write is judged again on the row as it is (as
    read on PostgreSQL, as locked on SQLite)."""
    kept = states.latest(request.game_id)
    if kept is None:
        return None
    _, held = kept
    game = LockedGame(held.row, connection, key_recorded=False, state=held.state, kept=True)
    return game if _own_token(game, request.token) else None


def _read_game(request: WriteRequest, connection) -> LockedGame | None:
    """The game row as it is (one statement, no lock), with the state this process keeps when the
    row is still at its ETag; None when the locked path must write: the write's key has a record,
    or its token is not the game's own (a group's)."""
    kept = states.latest(request.game_id)
    (version, revision), held = kept or ((-1, -1), None)
    row = _first(connection, _READ, {"game_id": request.game_id, "key": request.idempotency_key,
                                    "kept_at_version": version, "kept_at_revision": revision})
    if row is None:
        raise _not_found(request.game_id)
    key_recorded, state = row.pop("key_recorded"), row.pop("state")
    game = LockedGame(row, connection, key_recorded=key_recorded, state=held.state if state is None else state)
    if key_recorded or not _own_token(game, request.token):
        return None
    return game


def commit_write(run: Callable[[], tuple[Any, Any]], first: Callable[[], tuple[Any, Any] | None] | None = None) -> Any:
    """Run ``run()`` as one write and commit it; returns the first of what it returns and raises
    what it raised. ``run`` returns ``(result, written)``: ``written`` (None when nothing was
    written, as for a replay) has its ``remember()`` called once the write is durable. ``first``, a
    try that writes all or nothing (so needs no savepoint in a group), runs before ``run``, which
    runs only if it returned None.

    On a SQLite file the writes of a process commit in groups (``_grouped``), behind one fsync;
    on PostgreSQL (whose row locks let writes on different games run at once) each commits alone."""
    job = _Job(run, first)
    path = _sqlite_file()
    if path is not None and not _session_pending():
        _grouped(path, job)
    else:  # a group of one, in this writer's own session (with what it holds, committed together)
        with writer_queue():
            _run_group([job])
    if job.error is not None:
        raise job.error
    return job.result


def _session_pending() -> bool:
    """Whether this request's session holds changes of its own, which its write must commit with it
    (in its own transaction: neither in a commit group nor unlocked). A request that has made no
    session holds none, and asking does not make one (a move's write mostly needs none)."""
    if not db.session.registry.has():
        return False
    return bool(db.session.new or db.session.dirty or db.session.deleted)


def _locked_write(request: WriteRequest, change, status: int, check=None) -> tuple[WriteResult, LockedGame | None]:
    """The write in the open transaction, not committed: its result, and the game it wrote (None for
    a replay, which writes nothing)."""
    result, written = _checked_write(lock_game_row(request.game_id), request, change, status, check)
    if result is None:
        raise RuntimeError("a locked game row changed before its write")  # the lock forbids it
    return result, written


def _checked_write(game: LockedGame, request: WriteRequest, change, status: int,
                   check=None) -> tuple[WriteResult | None, LockedGame | None]:
    """The write on ``game`` as read: its result and the game written (None for a replay), or no
    result when ``save`` found the row changed since it was read."""
    result = _judged(game, request, change, status, check)
    if result.replayed:
        return result, None
    if not game.save():
        return None, game
    return result, game


def _judged(game: LockedGame, request: WriteRequest, change, status: int, check=None) -> WriteResult:
    """The write judged on ``game``, which it changes (``save`` writes it): its result, or the first
    answer to its Idempotency-Key (a replay); raises its refusal."""
    check_writer(game, request)
    previous = _replayed(game, request)
    if previous:
        return previous
    if check is not None and request.if_match is not None:
        # a malformed body is refused as such, whatever version it names (without If-Match
        # the engine's own check, in change(), refuses it the same way)
        check(game)
    _check_version(game, request.if_match)
    body = change(game)
    if request.idempotency_key:
        game.recorded = {"key": request.idempotency_key, "request_hash": request.fingerprint, "status_code": status,
                         "response": body}
    return WriteResult(status, body)


class _Job:
    """A write to run in a commit group (on a SQLite file with what else its process has queued,
    elsewhere alone); ``done`` once its group is committed (or it was refused), with its ``result``
    or its ``error``. ``first``: see ``commit_write``."""

    __slots__ = ("run", "first", "done", "result", "error")

    def __init__(self, run: Callable[[], tuple[WriteResult, LockedGame | None]],
                 first: Callable[[], tuple[WriteResult, LockedGame] | None] | None = None):
        self.run, self.first, self.done, self.result, self.error = run, first, False, None, None


_pending: list[_Job] = []  # this process's writes waiting for the next group
_PENDING = threading.Lock()


def _grouped(path: str, job: _Job) -> None:
    """Group commit on a SQLite file. A write joins its process's queue; the writer that takes the
    process's turn (``_PROCESS_WRITERS``, then the file lock) runs every write queued by then, each
    in a savepoint (a refused one is rolled back alone), and commits them with one fsync. Each
    writer learns its answer only after that commit: a 201 still means the move is on disk. The
    others of the group find their write done when their turn comes, and leave at once."""
    with _PENDING:
        _pending.append(job)
    deadline = deadlines.deadline(WRITER_WAIT_SECONDS)
    while not job.done:
        if not _PROCESS_WRITERS.acquire(timeout=max(deadline - time.monotonic(), 0)):
            if _withdraw(job):  # no group took it: nothing was applied
                raise _busy()
            _PROCESS_WRITERS.acquire()  # a group is writing it now: its answer comes when the group ends
        try:
            if not job.done:
                with _file_lock(path, deadline):
                    with _PENDING:
                        batch = list(_pending)
                        _pending.clear()
                    durable = _run_group(batch)
                    if durable:
                        metrics.COMMIT_GROUPS.observe(durable)
        except BaseException:
            if _withdraw(job) or not job.done:  # the file lock was not had in time: nothing applied
                raise
        finally:
            _PROCESS_WRITERS.release()
    # this writer's own session, if it made one, is left as a commit leaves it: nothing held, all expired
    if db.session.registry.has():
        db.session.rollback()


def _withdraw(job: _Job) -> bool:
    """Take a write out of the queue if no group has taken it yet."""
    with _PENDING:
        if job in _pending:
            _pending.remove(job)
            return True
    return False


def _run_group(batch: list[_Job]) -> int:
    """Run the writes in one transaction of this writer's session and commit it (the caller holds
    the writer lock); each job is then done. Returns how many writes the commit made durable."""
    session = db.session
    alone = len(batch) == 1  # no savepoint needed: a refusal rolls the whole transaction back
    written: list[tuple[_Job, WriteResult, LockedGame | None]] = []
    try:
        connection = session.connection()
        if connection.dialect.name == "sqlite":
            # BEGIN first (pysqlite would otherwise let the first savepoint open the transaction,
            # and releasing that savepoint would commit it), waiting for another process's lock
            _begin_write(connection, deadlines.deadline(WRITER_WAIT_SECONDS))
        for index, job in enumerate(batch):
            try:
                done = None
                if job.first is not None:  # it touches no ORM state: a plain SAVEPOINT is enough
                    with contextlib.nullcontext() if alone else _savepoint(connection):
                        done = job.first()
                if done is None:
                    with contextlib.nullcontext() if alone else session.begin_nested():
                        done = job.run()
                result, game = done
            except DBAPIError:
                # the database failed: the transaction is gone, with the writes before this one;
                # those are answered with the error, the ones after it wait for the next group
                with _PENDING:
                    _pending[:0] = batch[index + 1:]
                del batch[index + 1:]
                raise
            except Exception as error:  # refused (a rule, a token, a version): rolled back alone
                job.error, job.done = error, True
                continue
            written.append((job, result, game))
        changed = [game for _, _, game in written if game is not None]  # replays change nothing
        if changed:
            session.commit()
        else:  # only refusals and replays: nothing to make durable
            session.rollback()
    except BaseException as error:  # nothing of the group was committed: each write hears why
        session.rollback()
        for job in batch:
            if not job.done:
                job.error, job.done = (error if isinstance(error, Exception) else _busy()), True
        if not isinstance(error, Exception):
            raise
        return 0
    for job, result, game in written:
        job.result, job.done = result, True
    for game in changed:
        game.remember()
    return len(changed)


@contextlib.contextmanager
def _savepoint(connection):
    """A plain SAVEPOINT, for a write in a commit group that touches no ORM state (the session's
    nested transaction, which also undoes the session's changes, costs more under the writer
    lock): a refusal is rolled back alone."""
    connection.exec_driver_sql("SAVEPOINT first_try")
    try:
        yield
    except DBAPIError:  # the transaction is gone: the group rolls it back
        raise
    except BaseException:
        connection.exec_driver_sql("ROLLBACK TO SAVEPOINT first_try")
        connection.exec_driver_sql("RELEASE SAVEPOINT first_try")
        raise
    connection.exec_driver_sql("RELEASE SAVEPOINT first_try")


def _announce(game: LockedGame, kind: str, announced: list) -> None:
    """Tell the game's followers about this write: on PostgreSQL a NOTIFY in the transaction (sent
    with the row, ``LockedGame.save``), and this process's own followers once it is committed
    (``_write_and_tell``)."""
    game.announced = events.Change(game.id, game.revision, game.version, kind)
    announced.append(game.announced)


def _write_and_tell(request: WriteRequest, change, status: int, announced: list, check=None,
                    unlocked: bool = False) -> WriteResult:
    """``_write``, then this process's followers hear of it (``_announce``). The game is marked as
    written here until then (``events.writing``), so that SQLite's poller does not tell it first."""
    with events.writing(request.game_id):
        result = _write(request, change, status, check, unlocked)
        if announced and not result.replayed:
            events.committed(announced[-1])
    return result


def apply_move(request: WriteRequest, move: Any) -> WriteResult:
    applied, announced = [], []

    def change(game: LockedGame) -> dict:
        engine = engine_for(game.game)
        applied.append(game.game)
        done = implied_actor(engine, game.state, move)  # the log names who made it
        state = engine.apply(game.state, done)  # RuleError leaves everything as it was
        game.version += 1
        game.revision += 1
        game.added = {"payload": done, "idempotency_key": request.idempotency_key,
                      "checkpoint": state if checkpoint_due(game.version, state) else None}
        _announce(game, "move", announced)
        return _save_state(game, state)

    def well_formed(game: LockedGame) -> None:
        load_move(engine_for(game.game), game.state, move)

    result = _write_and_tell(request, change, 201, announced, well_formed, unlocked=True)
    if applied and not result.replayed:  # committed: count it
        metrics.MOVES.labels(applied[0]).inc()
    return result


def undo(request: WriteRequest) -> WriteResult:
    announced = []

    def change(game: LockedGame) -> dict:
        last = live_move(game.id, game.version)
        if last is None:
            raise StoreError(409, "Nothing to undo", N_("No move has been played yet."), "nothing-to-undo")
        last.voided = True
        db.session.flush()
        game.version -= 1
        game.revision += 1
        _announce(game, "undo", announced)
        return _save_state(game, replay(game))

    return _write_and_tell(request, change, 200, announced)


def _save_state(game: LockedGame, state: dict) -> dict:
    """Keep the new state on the game row; returns its public view (computed once, for both)."""
    view = game_view(game, state)
    game.state = state
    game.status = view["status"]
    return view


__all__ = ["RuleError", "StoreError", "WriteRequest", "WriteResult", "apply_move", "undo",
           "create_game", "new_game", "get_game", "lock_game", "check_phone", "find_credential",
           "split_credential", "game_view", "replay", "all_moves", "moves_page", "live_move",
           "entity_tag",
           "request_fingerprint", "check_token", "check_writer", "commit_write"]
