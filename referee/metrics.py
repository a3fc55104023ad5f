"""Prometheus metrics at ``/metrics``: requests by route and status, latency histograms, moves
applied by game, refusals by ruling, database errors, SQLite's commit groups and dropped wake-ups. Under gunicorn each worker writes its
numbers to ``PROMETHEUS_MULTIPROC_DIR`` (set in ``gunicorn.conf.py``) and ``/metrics`` adds them
up, so every scrape sees the whole service, whichever worker answers it."""
from __future__ import annotations

import os

from flask import Flask, Response
from prometheus_client import (CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest,
                               multiprocess)
from prometheus_client import REGISTRY

REQUESTS = Counter("referee_requests_total", "Requests answered, by route pattern, method and status.",
                   ["route", "method", "status"])
LATENCY = Histogram("referee_request_seconds", "Time to answer a request, by route pattern.", ["route"],
                    buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10))
MOVES = Counter("referee_moves_applied_total", "Moves applied, by game.", ["game"])
REFUSALS = Counter("referee_refusals_total", "Moves and verdict requests refused, by ruling id.", ["rule"])
COMMIT_GROUPS = Histogram("referee_commit_group_writes", "Writes committed together behind one fsync (SQLite).",
                          buckets=(1, 2, 4, 8, 16, 32, 64))
DATABASE_ERRORS = Counter("referee_database_errors_total", "Requests that found the database unavailable.")
WAKEUPS_DROPPED = Counter("referee_wakeups_dropped_total",
                          "SQLite: wake-ups not sent because the other process's queue was full (its poll tells them).")


_worker_connections: Gauge | None = None


def worker_connections() -> Gauge:
    """Each gevent worker's open connections (a ``pid`` label under gunicorn): how evenly the workers
    share them (referee/serving.py). Made at its first use, in a worker: an unlabelled gauge made at
    import would also report the master, which loads the app and holds no connection."""
    global _worker_connections
    if _worker_connections is None:
        _worker_connections = Gauge("referee_worker_connections", "Open connections a worker holds (gevent).",
                                    multiprocess_mode="liveall")
    return _worker_connections


def observe(route: str, method: str, status: int, seconds: float) -> None:
    REQUESTS.labels(route, method, str(status)).inc()
    LATENCY.labels(route).observe(seconds)


def init_app(app: Flask) -> None:
    @app.get("/metrics")
    def metrics():
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry)
        else:
            registry = REGISTRY
        # content_type, not mimetype: Flask appends "; charset=utf-8" to a text mimetype, and the type
        # already names its charset; Prometheus (Go's mime.ParseMediaType) refuses a repeated parameter.
        return Response(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
