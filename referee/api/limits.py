"""Rate limits (Flask-Limiter): creating games is limited per client address."""
from __future__ import annotations

from flask import current_app
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

limiter = Limiter(key_func=get_remote_address)

# One budget for both ways of creating a game (the API and the start page's form).
limit_game_creation = limiter.shared_limit(
    lambda: current_app.config["RATELIMIT_CREATE"], scope="create-game", methods=["POST"],
    error_message="Too many games created from this address; wait and try again.",
)
