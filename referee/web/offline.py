"""The pages offline (issue 15): the web app manifest, the service worker and the offline page.

The service worker (templates/sw.js) is served from the root (``/sw.js``, scope ``/``) so it can
keep the pages: it pre-caches the app shell (``SHELL_FILES``, the offline page and the home page),
keeps each game page the phone opens (network first, the kept copy when the network fails), and
keeps in the outbox (static/outbox.js) a move whose form post failed on the way; static/offline.js
registers it and sends the outbox when the network returns. Its cache is named after a digest of
the web layer's files, so a deploy that changes any of them installs a new worker and a new cache.
"""
from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from flask import make_response, render_template, url_for
from flask_babel import gettext as _

from referee.web.views import bp

HERE = Path(__file__).resolve().parent
SHELL_FILES = ["app.css", "app.js", "offline.js", "outbox.js", "icon.svg", "icon-192.png", "icon-512.png",
               "icon-maskable-512.png", "apple-touch-icon.png"]
ICONS = [("icon-192.png", "192x192", "any"), ("icon-512.png", "512x512", "any"),
         ("icon-maskable-512.png", "512x512", "maskable")]
# The pages' colours (app.css): the top bar as the theme, the page as the splash background.
LIGHT = {"theme_color": "#20242c", "background_color": "#fafaf7"}
DARK = {"theme_color": "#050608", "background_color": "#121418"}


@lru_cache(maxsize=1)
def shell_version() -> str:
    """A digest of every file of the web layer (static files and templates): the cache's name."""
    digest = hashlib.sha256()
    for folder in ("static", "templates"):
        for path in sorted((HERE / folder).rglob("*")):
            if path.is_file():
                digest.update(path.relative_to(HERE).as_posix().encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


@bp.get("/sw.js")
def service_worker():
    shell = [url_for("web.static", filename=name) for name in SHELL_FILES]
    body = render_template("sw.js", version=shell_version(), root=url_for("web.index"),
                           shell=shell + [url_for("web.manifest")], pages=[url_for("web.index")],
                           offline=url_for("web.offline_page"),
                           outbox=url_for("web.static", filename="outbox.js"))
    response = make_response(body)
    response.mimetype = "text/javascript"
    response.headers["Service-Worker-Allowed"] = url_for("web.index")
    # the browser checks for a new worker on each visit; a deploy is picked up at once
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/manifest.webmanifest")
def manifest():
    root = url_for("web.index")
    body = {
        "id": root, "name": _("Referee: card game scorekeeper"), "short_name": _("Referee"),
        "description": _("Keeps the score at a real card table and checks every move against the rules."),
        "start_url": root, "scope": root, "display": "standalone", **LIGHT,
        # the colours of the dark scheme, where the browser reads them (the meta theme-color tags of
        # base.html say the same)
        "user_preferences": {"color_scheme_dark": DARK},
        "icons": [{"src": url_for("web.static", filename=name), "sizes": sizes, "type": "image/png", "purpose": purpose}
                  for name, sizes, purpose in ICONS]
                 + [{"src": url_for("web.static", filename="icon.svg"), "sizes": "any", "type": "image/svg+xml"}],
    }
    response = make_response(body)
    response.mimetype = "application/manifest+json"
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/offline")
def offline_page():
    """What a page the phone never kept shows without a network (the service worker serves it)."""
    return render_template("offline.html")
