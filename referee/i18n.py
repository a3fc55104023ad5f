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

from flask import Flask, request
from flask_babel import Babel, Domain

LANGUAGES = {"en": "English", "de": "Deutsch"}
DEFAULT = "en"
TRANSLATIONS = os.path.join(os.path.dirname(__file__), "translations")
LANG_COOKIE = "lang"

babel = Babel()
engine_domain = Domain(TRANSLATIONS, domain="engine")


def select_locale() -> str:
    for asked in (request.args.get("lang"), request.cookies.get(LANG_COOKIE)):
        if asked in LANGUAGES:
            return asked
    return request.accept_languages.best_match(list(LANGUAGES), default=DEFAULT)


def init_app(app: Flask) -> None:
    babel.init_app(app, locale_selector=select_locale, default_translation_directories=TRANSLATIONS,
                   default_domain="messages")
