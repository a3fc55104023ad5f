"""Configuration from the environment."""
from __future__ import annotations

import os
from datetime import timedelta
import secrets


def database_url(instance_path: str) -> str:
    url = os.environ.get("DATABASE_URL")
    if not url:
        # Embedded default: SQLite in the instance folder (WAL mode is set on connect).
        return "sqlite:///" + os.path.join(instance_path, "referee.sqlite3")
    return normalise_url(url)


def normalise_url(url: str) -> str:
    # Heroku-style URLs say postgres://; SQLAlchemy wants a driver name.
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def from_environment(instance_path: str) -> dict:
    return {
        "SQLALCHEMY_DATABASE_URI": database_url(instance_path),
        "SECRET_KEY": os.environ.get("SECRET_KEY") or _instance_secret(instance_path),
        "MAX_CONTENT_LENGTH": int(os.environ.get("MAX_CONTENT_LENGTH", 64 * 1024)),
        # POST /api/v1/games/import alone: a whole game's record (referee.records)
        "IMPORT_MAX_BYTES": int(os.environ.get("IMPORT_MAX_BYTES", 2 * 1024 * 1024)),
        "AUTO_MIGRATE": os.environ.get("AUTO_MIGRATE", "1") != "0",
        # Games created per client address (Flask-Limiter); the counts are kept in a SQLite file in the
        # instance folder, shared by the workers of this machine (redis://... for several machines).
        "RATELIMIT_CREATE": os.environ.get("RATELIMIT_CREATE", "30 per minute"),
        "RATELIMIT_ENABLED": os.environ.get("RATELIMIT_ENABLED", "1") != "0",
        "RATELIMIT_STORAGE_URI": os.environ.get(
            "RATELIMIT_STORAGE_URI", "sqlite:///" + os.path.join(instance_path, "ratelimit.sqlite3")),
        "RATELIMIT_HEADERS_ENABLED": True,
        # Proxies in front that set X-Forwarded-For/-Proto (0: none; the rate limit then sees the proxy).
        "TRUSTED_PROXIES": int(os.environ.get("TRUSTED_PROXIES", 0)),
        # Database connections each process keeps open (and never more): a request beyond them waits for
        # one, at most DB_TIMEOUT_SECONDS. An event stream holds none while it waits (referee.app).
        "DB_POOL_SIZE": int(os.environ.get("DB_POOL_SIZE", 30)),
        # A request's waits on the database end this long after it began: a 503 (referee.deadlines).
        "DB_TIMEOUT_SECONDS": int(os.environ.get("DB_TIMEOUT_SECONDS", 10)),
        # A request's body not all there this long after its headers is a 408 and its connection closes.
        "BODY_TIMEOUT_SECONDS": float(os.environ.get("BODY_TIMEOUT_SECONDS", 10)),
        # How long an Idempotency-Key's first answer is kept for retries.
        "IDEMPOTENCY_TTL_HOURS": float(os.environ.get("IDEMPOTENCY_TTL_HOURS", 24)),
        # a live event stream ends after this long; the client reconnects with Last-Event-ID
        "EVENTS_MAX_SECONDS": float(os.environ.get("EVENTS_MAX_SECONDS", 300)),
        # On a SQLite file, how often each process also reads the rows of the games its followers
        # watch: the safety net under the wake-ups between processes (referee.events.Wakeups)
        "EVENTS_POLL_SECONDS": float(os.environ.get("EVENTS_POLL_SECONDS", 1.0)),
        # The pages' cookie (a phone's key) is Secure on every request that came over HTTPS ("auto"),
        # or always (1), or never (0); see referee.web.session.
        "SESSION_COOKIE_SECURE": cookie_secure(os.environ.get("SESSION_COOKIE_SECURE", "auto")),
        # Only a request that changes the cookie sends it: a page read in the background (the service
        # worker keeping a copy, a second tab) must not write back the keys it read while a rematch or
        # a new game was adding one. The keys stay for 400 days after the last change (browsers keep a
        # cookie no longer); the server can revoke each of them.
        "SESSION_REFRESH_EACH_REQUEST": False,
        "PERMANENT_SESSION_LIFETIME": timedelta(days=400),
    }


def cookie_secure(value: str) -> bool | str:
    """SESSION_COOKIE_SECURE: 1/true/yes -> True, 0/false/no -> False, anything else -> "auto"."""
    word = value.strip().lower()
    if word in ("1", "true", "yes", "on"):
        return True
    if word in ("0", "false", "no", "off"):
        return False
    return "auto"


def _instance_secret(instance_path: str) -> str:
    """A key kept in the instance folder, so signed cookies survive restarts and are the same
    in every worker when SECRET_KEY is not set."""
    path = os.path.join(instance_path, "secret_key")
    os.makedirs(instance_path, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        with open(path) as f:
            key = f.read().strip()
        if key:
            return key
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
    key = secrets.token_hex(32)
    with os.fdopen(fd, "w") as f:
        f.write(key)
    return key
