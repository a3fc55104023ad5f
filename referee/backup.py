"""Backups of the embedded database, safe while the service runs: SQLite's online backup API
copies a consistent snapshot page by page (WAL included), so no write is half in the copy.
``flask --app wsgi backup FILE`` and ``flask --app wsgi restore FILE`` (the service stopped).
PostgreSQL has its own tools (``pg_dump``/``pg_restore``)."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import click
from flask import Flask, current_app
from sqlalchemy.engine import make_url


def sqlite_path(url: str) -> Path | None:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    return Path(parsed.database)


def copy_database(source: Path, target: Path) -> int:
    """A consistent copy of ``source`` into ``target`` (replaced); returns the number of games."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
        dst.execute("PRAGMA journal_mode=WAL")
        games = dst.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    src.close()
    dst.close()
    return games


def _database() -> Path:
    path = sqlite_path(current_app.config["SQLALCHEMY_DATABASE_URI"])
    if path is None:
        raise click.ClickException("Backups here are for the embedded SQLite database; for PostgreSQL use "
                                   "pg_dump and pg_restore.")
    return path


def init_app(app: Flask) -> None:
    @app.cli.command("backup")
    @click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
    def backup(file: Path) -> None:
        """Copy the database to FILE while the service runs."""
        games = copy_database(_database(), file)
        click.echo(f"Backed up {games} games to {file}.")

    @app.cli.command("restore")
    @click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
    def restore(file: Path) -> None:
        """Replace the database with the backup FILE (stop the service first)."""
        games = copy_database(file, _database())
        click.echo(f"Restored {games} games from {file}.")
