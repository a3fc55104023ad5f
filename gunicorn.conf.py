"""gunicorn settings from the environment (see the README, "Deployment").

The worker class is gevent (the measurements are in bench/README.md, "How the service is served"):
a connection costs a greenlet, not a thread, so 200 slow clients or a thousand open event streams
cannot take every worker, and it serves hello and moves faster than gthread on these two cores.
"""
import atexit
import json
import os
import tempfile

worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "gevent")
if worker_class == "gevent":
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

if worker_class == "gevent":
    import gunicorn.workers.ggevent

    from referee import serving

    # A worker takes a new connection at once only when it is not ahead of another worker
    # (referee/serving.py): the shared socket's race for each connection split wrk's 16 up to 15/1.
    gunicorn.workers.ggevent.StreamServer = serving.BalancedServer  # looked up when a worker starts
    CONNECTIONS = serving.ConnectionCounts()  # made before the fork: the master's and the workers'

bind = f"0.0.0.0:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
# Connections one gevent worker holds at once (the README names the variable; it was never read)
worker_connections = int(os.environ.get("GUNICORN_CONNECTIONS", "1000"))
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
    problem+json like every other error of the service, instead of gunicorn's HTML page."""
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


def post_worker_init(worker):
    if worker_class == "gevent":
        logs.gevent_errors_as_lines()  # an error no greenlet caught: a JSON line, not text on stderr


# A master that exits before its arbiter runs (the app failed to load) never calls on_exit.
atexit.register(_remove_metrics_dir)


def child_exit(server, worker):
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)
    if worker_class == "gevent":
        CONNECTIONS.free(getattr(worker, "connection_slot", None))


def pre_fork(server, worker):
    if worker_class == "gevent":
        worker.connection_slot = CONNECTIONS.claim()


def post_fork(server, worker):
    if worker_class == "gevent":
        # with SO_REUSEPORT each worker has a socket of its own, which the kernel fills: a connection
        # left there would only wait for this same worker
        serving.BalancedServer.share(CONNECTIONS, None if server.cfg.reuse_port else worker.connection_slot)
    # Connections must not be shared across processes: each worker opens its own.
    from referee.models import db

    app = server.app.wsgi()
    with app.app_context():
        db.engine.dispose(close=False)


def post_request(worker, req, environ, resp):
    if worker_class == "gevent":
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
