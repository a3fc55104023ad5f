"""The pages' session cookie: Flask's signed cookie, Secure whenever the request came over HTTPS.

It holds a phone's own key to a game (``"<id>.<secret>"``, revocable, see ``referee.links``), its own
key to each group it made or opened (``"<id>.<secret>"`` too, revocable, see ``referee.groups``) and
the CSRF secret; never a game's token or a group's (a cookie from before that held one has it
exchanged for a key on the next visit). ``SESSION_COOKIE_SECURE`` is ``"auto"`` by default: the cookie is
Secure when the request is HTTPS, that is when it came over TLS, when a trusted proxy said so
(``TRUSTED_PROXIES``: Werkzeug's ProxyFix applies ``X-Forwarded-Proto``), or when any proxy says so in
``X-Forwarded-Proto`` or ``Forwarded`` (heeded even from an untrusted proxy: it can only make the cookie
stricter, and a page's own script cannot set these headers). ``True`` or ``False`` force it.
"""
from __future__ import annotations

import re

from flask import Flask, has_request_context, request
from flask.sessions import SecureCookieSessionInterface

from referee.config import cookie_secure

_FORWARDED_HTTPS = re.compile(r"(?:^|[;,\s])proto=\"?https\"?(?:$|[;,\s])", re.IGNORECASE)


def came_over_https() -> bool:
    if request.is_secure:
        return True
    proto = request.headers.get("X-Forwarded-Proto", "")
    if proto.split(",")[0].strip().lower() == "https":
        return True
    return bool(_FORWARDED_HTTPS.search(request.headers.get("Forwarded", "")))


class SessionInterface(SecureCookieSessionInterface):
    def get_cookie_secure(self, app: Flask) -> bool:
        setting = app.config.get("SESSION_COOKIE_SECURE", "auto")
        if isinstance(setting, str):
            setting = cookie_secure(setting)
        if isinstance(setting, bool):
            return setting
        return has_request_context() and came_over_https()

    def open_session(self, app: Flask, request):
        # No cookie (every API call): the empty session Flask would give, without building a signer.
        if app.secret_key and not request.cookies.get(self.get_cookie_name(app)):
            return self.session_class()
        return super().open_session(app, request)

    def save_session(self, app: Flask, session, response) -> None:
        # An empty session nothing read or changed (every API call): Flask would send nothing, but
        # only after working out the cookie's flags, whether the request came over HTTPS included.
        if not session and not session.modified and not session.accessed:
            return
        super().save_session(app, session, response)
