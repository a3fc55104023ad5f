"""Core statements run on the driver's connection: compiled once per dialect, their values passed
through the same type processors Core would use, their errors raised as Core raises them.

A move's write path runs a few statements a move, and Core's execution around each (a context,
a cached-compile lookup, a result object, the column descriptions) cost more than the statement
itself: 24 us of a 30 us lock on SQLite, and on PostgreSQL about as much as psycopg's own work
(bench/README.md, fifth pass). What stays Core's: the SQL (built and compiled by
SQLAlchemy), the parameters' and results' types, the transaction (the session's connection), and
the handling of a failed statement (wrapped as ``DBAPIError``; a lost connection invalidates the
pool), so the 503s and retries of the rest of the service see these statements as any other.
"""
from __future__ import annotations

from typing import Any, Callable

from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.sql import Executable


class _Compiled:
    __slots__ = ("sql", "fixed", "processors", "order", "names", "loaders")

    def __init__(self, statement: Executable, dialect: Dialect):
        compiled = statement.compile(dialect=dialect)
        self.sql = compiled.string
        # values the statement carries itself (a literal 0 or 1 in an expression); the caller's
        # values are added to these
        self.fixed = {name: value for name, value in compiled.params.items() if value is not None}
        self.processors: dict[str, Callable] = {}
        for bind, name in compiled.bind_names.items():  # the dialect's own type: SQLite's dates are text
            process = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if process is not None:
                self.processors[name] = process
        self.order = compiled.positiontup  # positional drivers (sqlite3): the names in order
        columns = list(getattr(statement, "exported_columns", ()))
        self.names = [column.key for column in columns]
        self.loaders = [column.type.dialect_impl(dialect).result_processor(dialect, None) for column in columns]


class DriverStatement:
    """A Core statement to run on the transaction's driver connection (``run``, ``first``)."""

    def __init__(self, statement: Executable):
        self.statement = statement
        self._compiled: dict[Dialect, _Compiled] = {}

    def compiled(self, dialect: Dialect) -> _Compiled:
        found = self._compiled.get(dialect)
        if found is None:
            found = self._compiled[dialect] = _Compiled(self.statement, dialect)
        return found

    def run(self, connection: Connection, values: dict[str, Any]):
        """Run the statement in ``connection``'s transaction; returns the driver's cursor."""
        compiled = self.compiled(connection.dialect)
        params = {**compiled.fixed, **values}
        for name, process in compiled.processors.items():
            if name in params:  # None too, as Core does: a JSON column stores it as null unless none_as_null
                params[name] = process(params[name])
        if compiled.order is not None:
            params = [params[name] for name in compiled.order]
        try:
            return connection.connection.driver_connection.execute(compiled.sql, params)
        except BaseException as error:  # a timeout or a kill too: the connection's state is unknown
            # Core's own handling, as if Core had run the statement: wrap it, and on a lost
            # connection invalidate it and the pool (a private method, stable across 2.0 and 2.1)
            connection._handle_dbapi_exception(error, compiled.sql, params, None, None)
            raise  # not reached: the handler raises

    def first(self, connection: Connection, values: dict[str, Any]) -> dict[str, Any] | None:
        """The first row the statement returns, by column name, its values loaded as Core loads
        them; None when it returns none."""
        cursor = self.run(connection, values)
        try:
            row = cursor.fetchone()
        finally:
            cursor.close()  # sqlite3 keeps a statement open until its cursor is read out or closed
        if row is None:
            return None
        compiled = self.compiled(connection.dialect)
        return {name: value if load is None or value is None else load(value)
                for name, value, load in zip(compiled.names, row, compiled.loaders)}
