"""gunicorn settings from the environment (see the README, "Deployment").

The worker class is gevent (the measurements are in bench/README.md, "How the service is served"):
a connection costs a greenlet, not a thread, so 200 slow clients or a thousand open event streams
cannot take every worker, and it serves hello and moves faster than gthread on these two cores.
"""
import atexit
import json
import os
import tempfile

GEVENT = os.environ.get("GUNICORN_WORKER_CLASS", "gevent") == "gevent"
if GEVENT:
    # Patch before anything else is imported (preload_app loads the app in the master): psycopg
    # picks a cooperative wait only if it finds select patched when it is imported, and locks
    # made before the patch would block the whole worker instead of one greenlet.
    from gevent import monkey

    monkey.patch_all()

import gunicorn.util  # noqa: E402

# Each worker writes its metrics here and /metrics adds them up (referee/metrics.py); set before
# the app (and prometheus_client) is loaded in the master. A folder made here is removed when the
# master exits (on_exit); one given in PROMETHEUS_MULTIPROC_DIR is left as it is. METRICS_DIR_MADE
# remembers which, as a reload (HUP) runs this file again in the same master. A new master (USR2)
# starts from the original environment, so it makes a folder of its own.
METRICS_DIR_MADE = "REFEREE_METRICS_DIR_MADE"
if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = os.environ[METRICS_DIR_MADE] = tempfile.mkdtemp(
        prefix="referee-metrics-")
MASTER_PID = os.getpid()

from referee import logs  # noqa: E402  (after the folder: it loads prometheus_client)
from referee.bodies import linger  # noqa: E402

if GEVENT:
    import gunicorn.workers.ggevent

    from referee import serving

    # gevent's worker with the evening's limits: a 503 at once when full, a quick SIGTERM (referee/serving.py)
    worker_class = "referee.serving.BoundedGeventWorker"

    # A worker takes a new connection at once only when it is not ahead of another worker
    # (referee/serving.py): the shared socket's race for each connection split wrk's 16 up to 15/1.
    # Its measured need on an evening (bench/README.md, "Fast paths, each measured on and off"):
    # without it PostgreSQL's move p99 at 600 tables rose from 27-46 to 61-62 ms.
    gunicorn.workers.ggevent.StreamServer = serving.BalancedServer  # looked up when a worker starts
    CONNECTIONS = serving.ConnectionCounts()  # made before the fork: the master's and the workers'
else:
    worker_class = os.environ["GUNICORN_WORKER_CLASS"]

bind = f"0.0.0.0:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
# Sized for an evening (docs/operations.md, "Connections"): thousands of tables, each a phone moving every
# 2-10 s and three or four following its event stream, about 5 connections a table, 10,000 on a 2-core node.
# Connections one gevent worker holds at once; the next gets a 503 at once (referee/serving.py). With
# gunicorn's 1,000 the node was full at 350 tables, and new connections waited 4 s in the queue.
worker_connections = int(os.environ.get("GUNICORN_CONNECTIONS", "6000"))
# Connections the kernel queues before a worker accepts them: all the phones of a node coming back
# at once after a restart (Linux caps it at net.core.somaxconn, 4,096 by default since 5.4).
backlog = int(os.environ.get("GUNICORN_BACKLOG", "4096"))
# How long an idle connection stays open for its next request: gunicorn's 2 s closed a phone's connection
# between its moves (every 2-10 s), so nearly every request opened a new one, and a request sent as the
# server closed its connection met a reset. 75 s outlasts a phone's pauses and the idle timeout of the
# usual proxies (60 s), which then close first (docs/operations.md, "Keep-alive").
keepalive = int(os.environ.get("GUNICORN_KEEPALIVE", "75"))
# Load the app (and run migrations) once in the master, before the workers fork.
preload_app = True
# The app logs each request itself as a JSON line with the route's pattern (referee/logs.py): the
# access log would print raw paths, and a table link's path holds the game's token.
accesslog = None
loglevel = os.environ.get("LOG_LEVEL", "info")
# gunicorn's own lines (boot, WORKER TIMEOUT, a worker killed, shutdown) as JSON lines on stdout like
# the service's, not text on stderr: logconfig_dict replaces the handler errorlog would set, and the
# logger class keeps gunicorn's access log off, which a logconfig_dict turns on (referee/logs.py).
errorlog = "-"
logconfig_dict = logs.gunicorn_logging()
logger_class = logs.GunicornLogger
logs.log_uncaught()  # the master failing to load the app: a JSON line too, not a traceback on stderr
timeout = 30
graceful_timeout = 20


def _problem_error(sock, status_int, reason, mesg):
    """gunicorn's own refusals (a request line or headers too long, a malformed request) as
    problem+json like every other error of the service, instead of gunicorn's HTML page. Its need is
    that standard, not speed (tests/robustness/test_gunicorn_errors.py): gunicorn has no hook or
    setting for these answers, so its public ``util.write_error`` is replaced."""
    kind = reason.lower().replace(" ", "-")
    body = json.dumps({"type": f"https://referee.invalid/problems/{kind}", "title": reason, "status": status_int,
                       "detail": str(mesg or reason)[:300]}).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/problem+json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode("latin1")
    gunicorn.util.write_nonblock(sock, head + body)
    linger(sock)  # the client gets the refusal, not a reset


gunicorn.util.write_error = _problem_error  # looked up at call time by every worker


def on_exit(server):
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if server.reexec_pid and server.cfg.env_orig.get("PROMETHEUS_MULTIPROC_DIR") == folder:
        # A new master started with USR2 gets gunicorn's original environment, or the one of the last
        # reload (HUP), which names this folder: it uses it, and removes it when it exits.
        os.environ.pop(METRICS_DIR_MADE, None)
        return
    _remove_metrics_dir()


def _remove_metrics_dir():
    """The metrics folder this master made, once it exits (not a folder it was given; not in a
    worker, which runs atexit hooks too)."""
    made = os.environ.get(METRICS_DIR_MADE)
    if os.getpid() != MASTER_PID or not made or made != os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return
    os.environ.pop(METRICS_DIR_MADE)  # once: on_exit, then atexit
    import shutil

    shutil.rmtree(made, ignore_errors=True)


def on_starting(server):
    """Every connection is a descriptor: the soft limit on open files (often 1,024) is raised to the
    hard one here, in the master before it forks, so that every worker inherits it."""
    if not GEVENT:
        return
    before, now = serving.raise_open_file_limit()
    held = serving.connections_within(server.cfg.worker_connections, now)
    server.log.info("Open files: %s per process (was %s); each worker holds up to %s connections", now, before, held)
    if held < server.cfg.worker_connections:
        server.log.warning("The open-file limit (%s, hard limit) holds %s connections a worker, fewer than "
                           "GUNICORN_CONNECTIONS (%s): raise it (ulimit -Hn, LimitNOFILE=)",
                           now, held, server.cfg.worker_connections)


def post_worker_init(worker):
    if GEVENT:
        logs.gevent_errors_as_lines()  # an error no greenlet caught: a JSON line, not text on stderr


# A master that exits before its arbiter runs (the app failed to load) never calls on_exit.
atexit.register(_remove_metrics_dir)


def child_exit(server, worker):
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)
    if GEVENT:
        CONNECTIONS.free(getattr(worker, "connection_slot", None))


def pre_fork(server, worker):
    if GEVENT:
        worker.connection_slot = CONNECTIONS.claim()


def post_fork(server, worker):
    if GEVENT:
        # with SO_REUSEPORT each worker has a socket of its own, which the kernel fills: a connection
        # left there would only wait for this same worker
        serving.BalancedServer.share(CONNECTIONS, None if server.cfg.reuse_port else worker.connection_slot)
    # Connections must not be shared across processes: each worker opens its own.
    from referee.models import db

    app = server.app.wsgi()
    with app.app_context():
        db.engine.dispose(close=False)


def post_request(worker, req, environ, resp):
    if GEVENT:
        # A keep-alive connection whose next request is already buffered never blocks, so its
        # greenlet would serve it again and again while the others wait (a p99 of 0.5-1 s for
        # hello at 16 clients); yielding once per request keeps the worker fair (18 ms).
        import gevent

        gevent.sleep(0)


def when_ready(server):
    # The app is loaded (preload_app): move everything it made into the permanent generation,
    # which the collector never scans. A full collection walked that whole heap in every worker,
    # a 35-40 ms stall at random requests (the judge's p99 at 1 client: 37 ms -> 0.8 ms).
    import gc

    gc.collect()
    gc.freeze()
