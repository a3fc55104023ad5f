"""The phone scorekeeper pages (see issue 8).

Server-rendered pages over the same store and engines as the API: forms post plainly and
redirect (they work with scripts off); a small script polls the API with ETags to keep
followers' pages fresh. CSRF (Flask-WTF) and the security headers apply to these pages only,
never to the JSON API under /api/.
"""
from __future__ import annotations

from flask import Flask


def init_app(app: Flask) -> None:
    """Registers the web pages; the API works without them."""
    from referee.web.session import SessionInterface
    from referee.web import offline  # noqa: F401  (the manifest, /sw.js and the offline page, on bp)
    from referee.web import groups  # noqa: F401  (groups, rematch and corrections, on bp)
    from referee.web.views import bp

    # A phone's key (never a game's token) lives in Flask's signed session cookie: HttpOnly, SameSite,
    # and Secure over HTTPS (referee/web/session.py).
    app.session_interface = SessionInterface()
    app.config["SESSION_COOKIE_HTTPONLY"] = True
    if not app.config.get("SESSION_COOKIE_SAMESITE"):
        app.config["SESSION_COOKIE_SAMESITE"] = "Lax"
    # A game outlasts an hour: CSRF tokens stay valid for the session (still bound to it).
    app.config.setdefault("WTF_CSRF_TIME_LIMIT", None)
    app.register_blueprint(bp)
