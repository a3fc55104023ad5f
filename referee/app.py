"""The Flask application factory: configuration, database, migrations, the API and the pages."""
from __future__ import annotations

import os

from flask import Flask
from flask_migrate import Migrate, upgrade
from sqlalchemy import event, make_url, text
from sqlalchemy.engine import Engine
from werkzeug.middleware.proxy_fix import ProxyFix

from referee import MIGRATIONS, deadlines, jsonio
from referee.bodies import Bodies
from referee import config as config_module
from referee.models import db

migrate = Migrate(directory=MIGRATIONS)


def create_app(config: dict | None = None) -> Flask:
    app = Flask("referee", instance_relative_config=True)  # the package: its instance folder and templates
    os.makedirs(app.instance_path, exist_ok=True)
    app.config.update(config_module.from_environment(app.instance_path))
    app.config.update(config or {})
    app.config["SQLALCHEMY_DATABASE_URI"] = config_module.normalise_url(app.config["SQLALCHEMY_DATABASE_URI"])
    engine_options = app.config.setdefault("SQLALCHEMY_ENGINE_OPTIONS", _engine_options(
        app.config["SQLALCHEMY_DATABASE_URI"], app.config["DB_TIMEOUT_SECONDS"], app.config.get("DB_POOL_SIZE", 30)))
    for key, value in jsonio.ENGINE_OPTIONS.items():  # also when options were given: states keep their texts
        engine_options.setdefault(key, value)
    app.json = jsonio.JSONProvider(app)
    app.json.sort_keys = False
    hops = app.config.get("TRUSTED_PROXIES", 0)
    if hops:  # behind a proxy: the client's address and scheme come from its X-Forwarded-* headers
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops)

    db.init_app(app)
    migrate.init_app(app, db)
    with app.app_context():  # each request's waits on the database end by its deadline
        deadlines.init_engine(db.engine, app.config["DB_TIMEOUT_SECONDS"])

    from referee import api, backup, i18n, logs, metrics, web

    logs.init_app(app)
    i18n.init_app(app)
    metrics.init_app(app)
    api.init_app(app)
    web.init_app(app)
    app.wsgi_app = Bodies(app.wsgi_app, app)  # outermost: every body read whole and in time, or refused
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
    with writer_queue(begin=False):  # the SQLite file's writer lock (alembic writes on a connection of its own)
        upgrade(directory=MIGRATIONS)


SQLITE_BUSY_SECONDS = 0.01  # how long one statement waits in SQLite's busy handler (see _engine_options)
MIGRATION_LOCK = 0x5265_6665  # "Refe": any fixed number that no other lock of this database uses


def _engine_options(url: str, timeout: int, pool_size: int = 30) -> dict:
    """A connect, a statement or a lock wait longer than ``timeout`` seconds is a 503, never a hang."""
    # A worker keeps the connections it opened, up to pool_size (DB_POOL_SIZE), and a request beyond them waits for one:
    # connections opened for a burst beyond the pool's size ("overflow") are closed as they come
    # back, and on PostgreSQL each costs a new server process (at 64 clients a follower's read fell
    # to a fifth, bench/README.md).
    pool = {"pool_size": pool_size, "max_overflow": 0, "pool_timeout": timeout}
    if url.startswith("sqlite"):
        # Writers queue on the writer lock first (store.writer_queue), then wait for another process's
        # lock in turns (store._begin_write); SQLite's own busy wait, which holds up a gevent worker
        # whole, is kept to a few milliseconds.
        in_memory = make_url(url).database in (None, "", ":memory:")  # one connection, no pool to size
        return {**({} if in_memory else pool),
                "connect_args": {"timeout": SQLITE_BUSY_SECONDS, "check_same_thread": False}}
    ms = timeout * 1000
    # No pre-ping: it cost every request a round trip. A connection that died (the database
    # restarted) fails its request with a 503 and the pool replaces all its connections at once.
    # Generic plans: psycopg prepares a statement a connection has run five times, and PostgreSQL
    # then kept planning a move's two statements at every run (its custom plans looked cheaper):
    # two fifths of its CPU under load (bench/README.md, sixth pass). Every statement of the
    # service finds its rows by a key, a game's id or a group's id, where one plan serves all.
    return {**pool,
            "connect_args": {"connect_timeout": timeout,
                             "options": f"-c statement_timeout={ms} -c lock_timeout={ms} "
                                        f"-c idle_in_transaction_session_timeout={6 * ms} "
                                        "-c plan_cache_mode=force_generic_plan"}}


@event.listens_for(Engine, "connect")
def _sqlite_pragmas(dbapi_connection, _record):
    """WAL so readers never wait for the writer; synchronous=FULL so a commit survives a crash."""
    if type(dbapi_connection).__module__.startswith("sqlite3"):
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()
