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
from gunicorn import glogging

from referee import jsonio, metrics

REQUEST_ID = "X-Request-Id"


class JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {"time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
                "level": record.levelname.lower(), "logger": record.name}
        line.update(self.fields(record))
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return jsonio.line(line)

    def fields(self, record: logging.LogRecord) -> dict:
        return getattr(record, "fields", None) or {"message": record.getMessage()}


class ProcessLines(JsonLines):
    """The same JSON lines with the process id: gunicorn's master and workers (which of them booted,
    timed out, was killed), as gunicorn's own text lines print it."""

    def fields(self, record: logging.LogRecord) -> dict:
        return {**super().fields(record), "pid": record.process}


def gunicorn_logging(level: str = "warning") -> dict:
    """gunicorn's ``logconfig_dict`` (gunicorn.conf.py): gunicorn's own lines (boot, a worker's
    timeout or death, shutdown) and any other library's as JSON lines on stdout, like the service's
    (its ``referee`` loggers keep their own handler, ``init_app``). ``gunicorn.error`` keeps the
    level gunicorn's ``loglevel`` gives it; every other logger prints ``level`` and above."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": ProcessLines}},
        "handlers": {"stdout": {"class": "referee.logs.StdoutHandler", "formatter": "json"}},
        "root": {"level": level.upper(), "handlers": ["stdout"]},
        # no "level": gunicorn set it from loglevel just before it applies this dictionary
        "loggers": {"gunicorn.error": {"handlers": ["stdout"], "propagate": False}},
    }


def log_uncaught(logger: str = "gunicorn.error") -> None:
    """An exception that nothing caught (gunicorn's master failing to load the app, say) as a JSON line
    of ``logger`` on stdout too, not Python's text traceback on stderr."""
    def hook(kind, value, tb) -> None:
        if issubclass(kind, KeyboardInterrupt):
            sys.__excepthook__(kind, value, tb)
            return
        logging.getLogger(logger).critical("Exiting on an uncaught %s", kind.__name__, exc_info=(kind, value, tb))

    sys.excepthook = hook


def gevent_errors_as_lines() -> None:
    """gevent's hub prints an error that no greenlet caught (a server's accept loop failing, say) as
    a text traceback on stderr; this thread's hub logs it as a JSON line of ``gevent.hub`` instead
    (gevent lets an application replace the hub's printing on the instance)."""
    import gevent

    hub = gevent.get_hub()
    log = logging.getLogger("gevent.hub")

    def print_exception(context, kind, value, tb) -> None:
        try:
            where = context if isinstance(context, str) or context is None else hub.format_context(context)
        except Exception:
            where = repr(context)
        log.error("%s failed with %s", where or "the hub", getattr(kind, "__name__", "exception"),
                  exc_info=(kind, value, tb) if value is not None else None)

    hub.print_exception = print_exception


class GunicornLogger(glogging.Logger):
    """gunicorn's logger (its ``logger_class``), but for one thing: a ``logconfig_dict`` turns
    gunicorn's access log on, and it stays off here unless ``accesslog`` asks for it. The service logs
    each request itself with the route's pattern (``answered``): gunicorn's lines would print raw
    paths (a table link's path holds the game's token), and building them costs every request."""

    def setup(self, cfg) -> None:
        super().setup(cfg)
        self.access_log.propagate = False  # an --access-logfile keeps its own file, not stdout too

    def access(self, resp, req, environ, request_time) -> None:
        if self.cfg.accesslog:
            super().access(resp, req, environ, request_time)


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
    """A request answered: its log line and its metrics (from Flask's hook, and from the body
    reader's refusals in front of Flask, ``referee.bodies``)."""
    access.info("request", extra={"fields": {
        "request_id": rid, "method": method, "route": route, "status": status, "ms": round(seconds * 1000, 2)}})
    metrics.observe(route, method, status, seconds)
