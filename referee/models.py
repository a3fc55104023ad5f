"""SQLAlchemy models: a game is its append-only move log plus a snapshot of the current state."""
from __future__ import annotations

import secrets
from datetime import datetime, timezone

from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import JSON, UniqueConstraint

db = SQLAlchemy()


def _now() -> datetime:
    return datetime.now(timezone.utc)


def aware(moment: datetime | None) -> datetime | None:
    """A stored time as UTC: SQLite gives naive datetimes back, and every stored time is UTC."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=timezone.utc)


def new_game_id() -> str:
    return secrets.token_urlsafe(12)  # 96 random bits: ids are unguessable, reads need only the id


class Game(db.Model):
    __tablename__ = "games"

    id = db.Column(db.String(32), primary_key=True, default=new_game_id)
    game = db.Column(db.String(32), nullable=False)
    players = db.Column(JSON, nullable=False)
    options = db.Column(JSON, nullable=False)
    token_hash = db.Column(db.String(64), nullable=False)
    state = db.Column(JSON, nullable=False)
    version = db.Column(db.Integer, nullable=False, default=0)  # moves in effect (not voided)
    # every write (a move or an undo): with the version it names one state forever (the ETag)
    revision = db.Column(db.Integer, nullable=False, default=0, server_default="0")
    status = db.Column(db.String(16), nullable=False, default="in_progress")
    created_at = db.Column(db.DateTime(timezone=True), nullable=False, default=_now)
    updated_at = db.Column(db.DateTime(timezone=True), nullable=False, default=_now, onupdate=_now)


class Move(db.Model):
    """Append-only: rows are never deleted; undo only sets ``voided``."""

    __tablename__ = "moves"
    __table_args__ = (UniqueConstraint("game_id", "seq", name="uq_moves_game_seq"),)

    id = db.Column(db.Integer, primary_key=True)
    game_id = db.Column(db.String(32), db.ForeignKey("games.id"), nullable=False, index=True)
    seq = db.Column(db.Integer, nullable=False)       # position in the log, voided moves included
    version = db.Column(db.Integer, nullable=False)   # the game version this move produced
    payload = db.Column(JSON, nullable=False)
    voided = db.Column(db.Boolean, nullable=False, default=False)
    idempotency_key = db.Column(db.String(200), nullable=True)
    created_at = db.Column(db.DateTime(timezone=True), nullable=False, default=_now)
    # The state after this move, kept every few versions (store.CHECKPOINT_EVERY) so that undo and
    # past views replay a few moves instead of the whole game. NULL elsewhere.
    checkpoint = db.Column(JSON(none_as_null=True), nullable=True)


class IdempotencyRecord(db.Model):
    """The first answer to a write that carried an ``Idempotency-Key``, replayed on a retry."""

    __tablename__ = "idempotency_records"
    __table_args__ = (UniqueConstraint("game_id", "key", name="uq_idempotency_game_key"),)

    id = db.Column(db.Integer, primary_key=True)
    game_id = db.Column(db.String(32), db.ForeignKey("games.id"), nullable=False)
    key = db.Column(db.String(200), nullable=False)
    request_hash = db.Column(db.String(64), nullable=False)
    status_code = db.Column(db.Integer, nullable=False)
    response = db.Column(JSON, nullable=False)
    created_at = db.Column(db.DateTime(timezone=True), nullable=False, default=_now)


class Credential(db.Model):
    """A revocable key to a game's writes, other than the game's own token (``referee.links``).

    ``kind`` "link": a table link, whose code (``<id>.<secret>``) a phone redeems once to join;
    ``parent_id`` is the phone whose share page made it (NULL when the game's token made it).
    ``kind`` "phone": one phone's key, kept in its session cookie (``<id>.<secret>``); ``parent_id``
    is the link it joined through (NULL for the phone that started the game). Only the secret's
    SHA-256 is stored; ``revoked_at`` set means it opens nothing any more.
    """

    __tablename__ = "credentials"

    id = db.Column(db.String(16), primary_key=True)  # public: shown in lists, sent with the secret
    game_id = db.Column(db.String(32), db.ForeignKey("games.id"), nullable=False, index=True)
    kind = db.Column(db.String(8), nullable=False)
    label = db.Column(db.String(80), nullable=True)
    secret_hash = db.Column(db.String(64), nullable=False)
    parent_id = db.Column(db.String(16), db.ForeignKey("credentials.id"), nullable=True, index=True)
    created_at = db.Column(db.DateTime(timezone=True), nullable=False, default=_now)
    revoked_at = db.Column(db.DateTime(timezone=True), nullable=True)
    last_used_at = db.Column(db.DateTime(timezone=True), nullable=True)
