"""The Flask application factory: configuration, database, migrations, the API and the pages."""
from __future__ import annotations

import os

from flask import Flask
from flask_migrate import Migrate, upgrade
from sqlalchemy import event, text
from sqlalchemy.engine import Engine

from referee import MIGRATIONS
from referee import config as config_module
from referee.models import db

migrate = Migrate(directory=MIGRATIONS)


def create_app(config: dict | None = None) -> Flask:
    app = Flask("referee", instance_relative_config=True)  # the package: its instance folder and templates
    os.makedirs(app.instance_path, exist_ok=True)
    app.config.update(config_module.from_environment(app.instance_path))
    app.config.update(config or {})
    app.config["SQLALCHEMY_DATABASE_URI"] = config_module.normalise_url(app.config["SQLALCHEMY_DATABASE_URI"])
    app.config.setdefault("SQLALCHEMY_ENGINE_OPTIONS", _engine_options(app.config["SQLALCHEMY_DATABASE_URI"]))
    app.json.sort_keys = False

    db.init_app(app)
    migrate.init_app(app, db)

    from referee import api, backup, web

    api.init_app(app)
    web.init_app(app)
    backup.init_app(app)

    if app.config["AUTO_MIGRATE"]:
        with app.app_context():
            migrate_locked()
    return app


def migrate_locked() -> None:
    """Upgrade the database, one process at a time: several masters starting together on a fresh
    database would otherwise race to create the same tables and types."""
    from referee.store import writer_queue

    if db.engine.dialect.name == "postgresql":
        with db.engine.connect() as connection:  # a session-level lock, held while upgrading
            connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK})
            try:
                upgrade(directory=MIGRATIONS)
            finally:
                connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK})
                connection.commit()
        return
    with writer_queue():  # the SQLite file's writer lock
        upgrade(directory=MIGRATIONS)


MIGRATION_LOCK = 0x5265_6665  # "Refe": any fixed number that no other lock of this database uses


def _engine_options(url: str) -> dict:
    if url.startswith("sqlite"):
        # Writers wait for the lock instead of failing at once (see store.py).
        return {"connect_args": {"timeout": 30, "check_same_thread": False}}
    return {"pool_pre_ping": True, "pool_size": 10, "max_overflow": 20}


@event.listens_for(Engine, "connect")
def _sqlite_pragmas(dbapi_connection, _record):
    """WAL so readers never wait for the writer; synchronous=FULL so a commit survives a crash."""
    if type(dbapi_connection).__module__.startswith("sqlite3"):
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()
