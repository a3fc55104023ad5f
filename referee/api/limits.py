"""Rate limits (Flask-Limiter): creating games is limited per client address.

The counters live where ``RATELIMIT_STORAGE_URI`` says: by default a SQLite file in the instance
folder, shared by every gunicorn worker of the machine (``referee.ratelimit_storage``); ``redis://...``
shares them between machines; ``memory://`` counts per process. Only the fixed-window strategy
(Flask-Limiter's default) works with the SQLite file.

A storage that fails (disk full, locked too long, a Redis that is down) never turns a request into a
500: the limiter logs it and counts in this process's memory until the storage answers again
(Flask-Limiter checks it at growing intervals, up to half a minute); any other error of the limiter
is logged and the request goes through (availability over the limit).
"""
from __future__ import annotations

import logging

from flask import current_app, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits.storage import MemoryStorage

import referee.ratelimit_storage  # noqa: F401  (registers the sqlite:// storage scheme with limits)


class _Limiter(Limiter):
    def init_app(self, app) -> None:
        # Flask runs after_request hooks last registered first: around the limiter's own hook, which
        # sets Retry-After on every answer under a limit (the later of any Retry-After already there
        # and its window's end), one hook before it remembers the answer's own Retry-After and one
        # after it puts that back on any answer but a 429 (_retry_after_only_when_refused).
        app.after_request(_retry_after_only_when_refused)  # registered before the limiter's: runs after it
        super().init_app(app)
        app.after_request(_remember_own_retry_after)  # registered after the limiter's: runs before it
        # limits' MemoryStorage (the fallback, or memory://) starts a 10 ms timer thread when made.
        # The app is made in the gunicorn master: a gevent thread still pending at the fork would
        # end in a worker, where gevent prints a KeyError traceback for it. Let it end here.
        for storage in (self._storage, getattr(self, "_fallback_storage", None)):
            timer = getattr(storage, "timer", None) if isinstance(storage, MemoryStorage) else None
            if timer is not None:
                timer.cancel()
                timer.join(timeout=1)

    def _check_request_limit(self, callable_name: str | None = None, in_middleware: bool = True) -> None:
        # Flask-Limiter checks every request before its view, for limits set on the whole app or a
        # blueprint. The service sets none: its one limit is on the views that create games, which
        # their decorator checks when they run. Skipping the check in front of every other request (a
        # move, a verdict) saves it 30-50 us in process (bench/README.md, seventh pass); with such
        # limits configured it stays.
        if in_middleware and not self.limits_beyond_views():
            return
        super()._check_request_limit(callable_name, in_middleware)

    def limits_beyond_views(self) -> bool:
        """Whether any limit is set on the whole app or a blueprint (or a meta limit); an attribute
        this version of Flask-Limiter does not have counts as a limit, so the check stays."""
        manager = self.limit_manager
        return any(getattr(owner, name, True) for owner, name in (
            (manager, "_default_limits"), (manager, "_application_limits"), (manager, "_blueprint_limits"),
            (self, "_meta_limits")))


_OWN_RETRY_AFTER = "referee.own_retry_after"


def _remember_own_retry_after(response):
    """The answer's own Retry-After (a 503's "the database may be back in 5 s", ``errors.py`` and
    ``store._busy``), or None, before the limiter's hook replaces it with its window's end."""
    request.environ[_OWN_RETRY_AFTER] = response.headers.get("Retry-After")
    return response


def _retry_after_only_when_refused(response):
    """Flask-Limiter sends Retry-After with every answer under a limit: on a 201 it would tell a
    client to wait before retrying something that worked, on a 503 it would replace the service's
    own estimate (seconds) with the limit's window (up to an hour). Only a 429 keeps the limiter's;
    any other answer gets back its own Retry-After, or none."""
    if _OWN_RETRY_AFTER not in request.environ:  # not remembered (an app without the hook): leave it
        return response
    own = request.environ.pop(_OWN_RETRY_AFTER)
    if response.status_code == 429:
        return response
    if own is not None:
        response.headers["Retry-After"] = own
    elif "Retry-After" in response.headers:  # pop() raises inside
        del response.headers["Retry-After"]
    return response


limiter = _Limiter(key_func=get_remote_address, swallow_errors=True, in_memory_fallback_enabled=True)
# Its messages as the service's JSON log lines; warnings only (a refused client's address is not logged).
limiter.logger = logging.getLogger("referee.ratelimit")
limiter.logger.setLevel(logging.WARNING)

# One budget for both ways of creating a game (the API and the start page's form).
limit_game_creation = limiter.shared_limit(
    lambda: current_app.config["RATELIMIT_CREATE"], scope="create-game", methods=["POST"],
    error_message="Too many games created from this address; wait and try again.",
)
