"""gunicorn settings from the environment (see the README, "Deployment").

The worker class is gevent (the measurements are in bench/README.md, "How the service is served"):
a connection costs a greenlet, not a thread, so 200 slow clients or a thousand open event streams
cannot take every worker, and it serves hello and moves faster than gthread on these two cores.
"""
import json
import os
import socket
import tempfile
import time

worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "gevent")
if worker_class == "gevent":
    # Patch before anything else is imported (preload_app loads the app in the master): psycopg
    # picks a cooperative wait only if it finds select patched when it is imported, and locks
    # made before the patch would block the whole worker instead of one greenlet.
    from gevent import monkey

    monkey.patch_all()

import gunicorn.util  # noqa: E402

# Each worker writes its metrics here and /metrics adds them up (referee/metrics.py); set before
# the app (and prometheus_client) is loaded in the master.
os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="referee-metrics-"))

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
# Load the app (and run migrations) once in the master, before the workers fork.
preload_app = True
# The app logs each request itself as a JSON line with the route's pattern (referee/logs.py): the
# access log would print raw paths, and a table link's path holds the game's token.
accesslog = None
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info")
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
    _linger(sock)


def _linger(sock, seconds=0.5, most=1 << 20):
    """Read what the client is still sending before the worker closes the socket: closing with
    unread bytes makes the kernel answer with a reset, and the client loses the refusal we sent."""
    try:
        sock.shutdown(socket.SHUT_WR)
        sock.settimeout(seconds)
        deadline, read = time.monotonic() + seconds, 0
        while read < most and time.monotonic() < deadline:
            chunk = sock.recv(65536)
            if not chunk:
                break
            read += len(chunk)
    except OSError:
        pass


gunicorn.util.write_error = _problem_error  # looked up at call time by every worker


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
