"""Logs on stdout as JSON lines: one line per request (a request id, also sent back in the
``X-Request-Id`` header, the method, the route's pattern rather than the raw path, the status and
the latency) and the service's own messages with their tracebacks. A route's pattern never holds
a token, a table link's code (that stays in the link's fragment) or a game's id, so no secret
reaches a log line."""
from __future__ import annotations

import logging
import sys
import time
import uuid
from datetime import datetime, timezone

from flask import Flask, g, request

from referee import jsonio, metrics

REQUEST_ID = "X-Request-Id"


class JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {"time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
                "level": record.levelname.lower(), "logger": record.name}
        line.update(getattr(record, "fields", None) or {"message": record.getMessage()})
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return jsonio.line(line)


class StdoutHandler(logging.StreamHandler):
    """Writes to the sys.stdout of the moment (a test may capture it)."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stdout
        super().emit(record)


def _handler() -> logging.Handler:
    handler = StdoutHandler()
    handler.setFormatter(JsonLines())
    return handler


access = logging.getLogger("referee.access")


def init_app(app: Flask) -> None:
    # Every request logs a line: skip what no line here prints (logging's documented optimizations),
    # the caller's file and line (a walk up the stack), the thread's and the multiprocessing names.
    # The process id stays: gunicorn's own lines print it.
    logging._srcfile = None
    logging.logThreads = False
    logging.logMultiprocessing = False
    service = logging.getLogger("referee")
    if not any(isinstance(h, StdoutHandler) for h in service.handlers):
        service.addHandler(_handler())
        service.setLevel(logging.INFO)
        service.propagate = False

    @app.before_request
    def _start() -> None:
        g.request_id = request_id(request.headers.get(REQUEST_ID, ""))
        g.started = time.perf_counter()

    @app.after_request
    def _log(response):
        rid = g.get("request_id") or uuid.uuid4().hex
        response.headers[REQUEST_ID] = rid
        started = g.get("started")
        rule = request.url_rule.rule if request.url_rule is not None else "(no route)"
        answered(rid, request.method, rule, response.status_code, time.perf_counter() - started if started else 0.0)
        return response


def request_id(given: str) -> str:
    """The client's ``X-Request-Id`` when it is a sane one, else a new id."""
    ok = 0 < len(given) <= 64 and given.isascii() and given.isprintable() and " " not in given
    return given if ok else uuid.uuid4().hex


def answered(rid: str, method: str, route: str, status: int, seconds: float) -> None:
    """A request answered: its log line and its metrics (from Flask's hook, and from the
    followers' path in front of Flask, ``referee.api.followers``)."""
    access.info("request", extra={"fields": {
        "request_id": rid, "method": method, "route": route, "status": status, "ms": round(seconds * 1000, 2)}})
    metrics.observe(route, method, status, seconds)
