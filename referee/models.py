"""SQLAlchemy models: a game is its append-only move log plus a snapshot of the current state."""
from __future__ import annotations

import secrets
from datetime import datetime, timezone

from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import JSON, UniqueConstraint
from sqlalchemy.types import TypeDecorator

from referee import texts

db = SQLAlchemy()


class StateJSON(TypeDecorator):
    """JSON that keeps the marked texts of a state (events, score breakdowns) translatable: they
    are stored as their msgid and params (the engine's serializer, ``referee.jsonio.stored``, writes
    them so) and read back as ``referee.texts.Text``."""

    impl = JSON
    cache_ok = True

    def process_result_value(self, value, dialect):
        return texts.unpack(value)


def _now() -> datetime:
    return datetime.now(timezone.utc)


def aware(moment: datetime | None) -> datetime | None:
    """A stored time as UTC: SQLite gives naive datetimes back, and every stored time is UTC."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=timezone.utc)


def new_game_id() -> str:
    return secrets.token_urlsafe(12)  # 96 random bits: ids are unguessable, reads need only the id


class Group(db.Model):
    """A regular table ("Friday cards"): its games, and a token of its own that also writes them."""

    __tablename__ = "groups"

    id = db.Column(db.String(32), primary_key=True, default=new_game_id)  # unguessable, like a game's
    name = db.Column(db.String(80), nullable=False)
    token_hash = db.Column(db.String(64), nullable=False)
    created_at = db.Column(db.DateTime(timezone=True), nullable=False, default=_now)
    updated_at = db.Column(db.DateTime(timezone=True), nullable=False, default=_now, onupdate=_now)


class GroupRename(db.Model):
    """Append-only: one player of a group renamed (``merge``: into another player of the group). The
    group's history shows names as the renames, folded in order, make them (``referee.groups``)."""

    __tablename__ = "group_renames"

    id = db.Column(db.Integer, primary_key=True)  # the order of the renames
    group_id = db.Column(db.String(32), db.ForeignKey("groups.id"), nullable=False, index=True)
    old_name = db.Column(db.String(40), nullable=False)
    new_name = db.Column(db.String(40), nullable=False)
    merge = db.Column(db.Boolean, nullable=False, default=False)
    created_at = db.Column(db.DateTime(timezone=True), nullable=False, default=_now)


class Game(db.Model):
    __tablename__ = "games"
    # a group's games newest first, a page at a time (keyset on created_at, id)
    __table_args__ = (db.Index("ix_games_group_created", "group_id", "created_at", "id"),
                      db.Index("uq_games_rematch", "rematch_id", unique=True),
                      db.Index("uq_games_rematch_of", "rematch_of_id", unique=True))

    id = db.Column(db.String(32), primary_key=True, default=new_game_id)
    game = db.Column(db.String(32), nullable=False)
    players = db.Column(JSON, nullable=False)
    options = db.Column(JSON, nullable=False)
    token_hash = db.Column(db.String(64), nullable=False)
    state = db.Column(StateJSON, nullable=False)
    version = db.Column(db.Integer, nullable=False, default=0)  # moves in effect (not voided)
    # every write (a move or an undo): with the version it names one state forever (the ETag)
    revision = db.Column(db.Integer, nullable=False, default=0, server_default="0")
    status = db.Column(db.String(16), nullable=False, default="in_progress")
    created_at = db.Column(db.DateTime(timezone=True), nullable=False, default=_now)
    updated_at = db.Column(db.DateTime(timezone=True), nullable=False, default=_now, onupdate=_now)
    group_id = db.Column(db.String(32), db.ForeignKey("groups.id"), nullable=True)
    # The next game at the table and the game this one follows: both kept, so that a view needs no
    # query; unique, so a game has one rematch at most (two phones pressing at once make one game).
    rematch_id = db.Column(db.String(32), db.ForeignKey("games.id"), nullable=True)
    rematch_of_id = db.Column(db.String(32), db.ForeignKey("games.id"), nullable=True)


class Move(db.Model):
    """Append-only: rows are never deleted; undo only sets ``voided``."""

    __tablename__ = "moves"
    __table_args__ = (UniqueConstraint("game_id", "seq", name="uq_moves_game_seq"),)

    id = db.Column(db.Integer, primary_key=True)
    # indexed by uq_moves_game_seq alone, whose first column it is (migration 0006)
    game_id = db.Column(db.String(32), db.ForeignKey("games.id"), nullable=False)
    seq = db.Column(db.Integer, nullable=False)       # position in the log, voided moves included
    version = db.Column(db.Integer, nullable=False)   # the game version this move produced
    payload = db.Column(JSON, nullable=False)
    voided = db.Column(db.Boolean, nullable=False, default=False)
    idempotency_key = db.Column(db.String(200), nullable=True)
    created_at = db.Column(db.DateTime(timezone=True), nullable=False, default=_now)
    # The state after this move, kept every few versions (store.CHECKPOINT_EVERY) so that undo and
    # past views replay a few moves instead of the whole game. NULL elsewhere.
    checkpoint = db.Column(StateJSON(none_as_null=True), nullable=True)


class IdempotencyRecord(db.Model):
    """The first answer to a write that carried an ``Idempotency-Key``, replayed on a retry."""

    __tablename__ = "idempotency_records"
    __table_args__ = (UniqueConstraint("game_id", "key", name="uq_idempotency_game_key"),)

    id = db.Column(db.Integer, primary_key=True)
    game_id = db.Column(db.String(32), db.ForeignKey("games.id"), nullable=False)
    key = db.Column(db.String(200), nullable=False)
    request_hash = db.Column(db.String(64), nullable=False)
    status_code = db.Column(db.Integer, nullable=False)
    response = db.Column(StateJSON, nullable=False)  # a replayed answer's texts still translate
    created_at = db.Column(db.DateTime(timezone=True), nullable=False, default=_now)


class Credential(db.Model):
    """A revocable key to a game's writes, other than the game's own token (``referee.links``), or to
    a group's (``group_id`` instead of ``game_id``: exactly one of them is set).

    ``kind`` "link": a table link, whose code (``<id>.<secret>``) a phone redeems once to join;
    ``parent_id`` is the phone whose share page made it (NULL when the game's token made it).
    ``kind`` "phone": one phone's key, kept in its session cookie (``<id>.<secret>``); ``parent_id``
    is the link it joined through (NULL for the phone that started the game). A group has phones
    only, no links (``referee.groups``): the key of the phone that made the group, or opened it with
    the group's token; it works on the pages, never as the API's Bearer. Only the secret's SHA-256 is
    stored; ``revoked_at`` set means it opens nothing any more.
    """

    __tablename__ = "credentials"
    __table_args__ = (db.CheckConstraint("(game_id IS NULL AND group_id IS NOT NULL) OR "
                                         "(game_id IS NOT NULL AND group_id IS NULL)",
                                         name="ck_credentials_one_owner"),)

    id = db.Column(db.String(16), primary_key=True)  # public: shown in lists, sent with the secret
    game_id = db.Column(db.String(32), db.ForeignKey("games.id"), nullable=True, index=True)
    group_id = db.Column(db.String(32), db.ForeignKey("groups.id", name="credentials_group_id_fkey"),
                         nullable=True, index=True)
    kind = db.Column(db.String(8), nullable=False)
    label = db.Column(db.String(80), nullable=True)
    secret_hash = db.Column(db.String(64), nullable=False)
    parent_id = db.Column(db.String(16), db.ForeignKey("credentials.id"), nullable=True, index=True)
    created_at = db.Column(db.DateTime(timezone=True), nullable=False, default=_now)
    revoked_at = db.Column(db.DateTime(timezone=True), nullable=True)
    last_used_at = db.Column(db.DateTime(timezone=True), nullable=True)
