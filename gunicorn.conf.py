"""gunicorn settings from the environment (see the README, "Deployment")."""
import json
import os
import tempfile

import gunicorn.util

# Each worker writes its metrics here and /metrics adds them up (referee/metrics.py); set before
# the app (and prometheus_client) is loaded in the master.
os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="referee-metrics-"))

bind = f"0.0.0.0:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
worker_class = "gthread"
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


gunicorn.util.write_error = _problem_error  # looked up at call time by every worker


def child_exit(server, worker):
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def post_fork(server, worker):
    # Connections must not be shared across processes: each worker opens its own.
    from referee.models import db

    app = server.app.wsgi()
    with app.app_context():
        db.engine.dispose(close=False)
