"""Languages: Flask-Babel picks the language of the pages and of the refusals' ``detail``.

Two catalogues (Babel domains) under ``referee/translations/<lang>/LC_MESSAGES/``:
``messages`` for the pages (templates, page code, the script's strings) and ``engine`` for what
the pure layer says (refusals, move labels, events); ``referee.texts`` marks those strings
without importing Flask. Ruling ids are never translated.

The language is, in order: ``?lang=`` on the request (the page switch, which the phone then
remembers in the ``lang`` cookie), the ``lang`` cookie, then ``Accept-Language``.
"""
from __future__ import annotations

import os

from flask import Flask, current_app, has_request_context, request
from flask_babel import Babel, Domain, get_locale
from werkzeug.exceptions import HTTPException

from referee.texts import Text, translate

LANGUAGES = {"en": "English", "de": "Deutsch"}
DEFAULT = "en"
TRANSLATIONS = os.path.join(os.path.dirname(__file__), "translations")
LANG_COOKIE = "lang"
LANG_COOKIE_AGE = 365 * 24 * 3600  # the phone remembers its switch for a year

babel = Babel()
engine_domain = Domain(TRANSLATIONS, domain="engine")


def select_locale() -> str:
    if not has_request_context():  # a command or a test outside any request: the source language
        return DEFAULT
    for asked in (request.args.get("lang"), request.cookies.get(LANG_COOKIE)):
        if asked in LANGUAGES:
            return asked
    return request.accept_languages.best_match(list(LANGUAGES), default=DEFAULT)


def say(text):
    """A text marked by ``referee.texts`` (a refusal, a label, an event...) in the request's language,
    from the ``engine`` catalogue; anything else, or outside a request, as it is."""
    if not isinstance(text, Text) or not has_request_context():
        return text
    return translate(text, engine_domain.gettext)


def language() -> str:
    """The language this request is answered in (``Content-Language``)."""
    return str(get_locale() or DEFAULT) if has_request_context() else DEFAULT


def init_app(app: Flask) -> None:
    babel.init_app(app, locale_selector=select_locale, default_translation_directories=TRANSLATIONS,
                   default_domain="messages")
    app.add_template_filter(say, "say")
    app.after_request(_remember_language)
    app.context_processor(_language_context)


def _remember_language(response):
    """``?lang=`` naming a known language is remembered in the ``lang`` cookie; a page varies with
    the language asked for, so no cache hands one phone's language to another."""
    asked = request.args.get("lang")
    if asked in LANGUAGES and request.cookies.get(LANG_COOKIE) != asked:
        response.set_cookie(LANG_COOKIE, asked, max_age=LANG_COOKIE_AGE, samesite="Lax", secure=request.is_secure,
                            httponly=True)
    if response.mimetype == "text/html":
        response.vary.update(("Accept-Language", "Cookie"))
    return response


def _switch_target() -> tuple[str, list[tuple[str, str]]]:
    """Where the language switch reloads: this page with its other query arguments; after a form
    post, the page that shows it by GET (the path, else its parent), else the home page."""
    if request.method in ("GET", "HEAD"):
        return request.script_root + request.path, [(k, v) for k, v in request.args.items(multi=True) if k != "lang"]
    adapter = current_app.url_map.bind("")
    path = request.path
    for candidate in (path, path.rsplit("/", 1)[0]):
        try:
            adapter.match(candidate, method="GET")
        except HTTPException:
            continue
        return request.script_root + candidate, []
    return request.script_root + "/", []


def _language_context() -> dict:
    if not has_request_context():
        return {}
    action, keep = _switch_target()
    return {"lang": str(get_locale() or DEFAULT), "languages": LANGUAGES, "lang_action": action,
            "lang_keep": keep}
