"""The rules pages and the ruling links of every other page.

A game's page is its rules document, ``docs/rules/<name>.md`` at the root of the source tree (the
``RULES_DOCS`` config key may name another folder), rendered with markdown-it (raw HTML off, so
everything in it is escaped); the index is ``README.md`` there, with the rulings for every game.
Each ruling line (``- **<id>** text``) gets its id as an anchor. A ruling an engine lists that its
document does not (or a game without a document) is listed from the game's ``rulings``. A
document's rulings, options and moves are generated (``referee.rules_docs``), its markers left out.
A translation is ``<lang>/<name>.md`` beside it (``docs/rules/de/``), with the same ruling ids, so
every badge links to the same anchor in either language; a document without one is served in English.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from flask import current_app, url_for
from flask_babel import get_locale
from markdown_it import MarkdownIt
from markupsafe import Markup

import referee
from referee.i18n import DEFAULT, LANGUAGES
from referee.rules import ENGINES
from referee.rules_docs import strip_markers

DOCS = Path(referee.__file__).resolve().parents[1] / "docs" / "rules"
INDEX = "README"
_ID = re.compile(r"[A-Z][A-Z0-9]*-[0-9]+")
_PAGE = re.compile(r"([A-Za-z0-9_-]+)\.md(#[A-Za-z0-9_-]*)?")
_SENTENCE = re.compile(r"(.+?[.!?])(?:\s|$)")
_md = MarkdownIt("commonmark", {"html": False})


class Doc(NamedTuple):
    html: Markup
    rulings: dict  # {ruling id: its text, as plain text}
    pages: frozenset  # the documents it links to (by name)
    lang: str  # the language it is written in (it may be English on a German page)


def document(name: str | None) -> Doc | None:
    """The rendered document of game ``name`` (None: the index) in the request's language, else in
    English, or None when there is none."""
    folder, file = Path(current_app.config.get("RULES_DOCS") or DOCS), f"{name or INDEX}.md"
    locale = get_locale()
    lang = locale.language if locale and locale.language in LANGUAGES else DEFAULT
    tries = [(lang, folder / lang / file)] if lang != DEFAULT else []
    for lang, path in tries + [(DEFAULT, folder / file)]:
        try:
            stamp = path.stat().st_mtime_ns
        except OSError:
            continue
        return _render(path, stamp, url_for("web.rules_index"), lang)
    return None


@lru_cache(maxsize=64)
def _render(path: Path, stamp: int, base: str, lang: str) -> Doc:
    tokens = _md.parse(strip_markers(path.read_text(encoding="utf-8")))
    rulings, pages = {}, set()
    for i, token in enumerate(tokens):
        kids = [k for k in token.children or [] if k.type != "text" or k.content]
        if (token.type == "inline" and i >= 2 and tokens[i - 2].type == "list_item_open" and len(kids) > 2
                and kids[0].type == "strong_open" and _ID.fullmatch(kids[1].content)
                and kids[2].type == "strong_close"):
            tokens[i - 2].attrSet("id", kids[1].content)
            rulings[kids[1].content] = "".join(" " if k.type == "softbreak" else k.content
                                               for k in kids[3:]).strip()
        for kid in kids:  # links between the documents become links between the pages
            match = _PAGE.fullmatch(str(kid.attrGet("href") or "")) if kid.type == "link_open" else None
            if match:
                page = match.group(1)
                pages.add(page)
                kid.attrSet("href", (base if page == INDEX else f"{base}/{page}") + (match.group(2) or ""))
    return Doc(Markup(_md.renderer.render(tokens, _md.options, {})), rulings, frozenset(pages), lang)


def _summary(text: str) -> str:
    match = _SENTENCE.match(text)
    return match.group(1) if match else text


def ruling(ids, game: str | None = None, label: str = "") -> Markup:
    """Ruling badges: each id of ``ids`` (an id, ``"A-1, A-2"`` or a list) a link to its text, on the
    index for the rulings of every game, else on the page of ``game`` (or of the engine that lists
    it), titled with its one-line summary. An id nobody lists stays plain text. ``label`` goes
    before the first id, inside its badge."""
    if not ids:
        return Markup("")
    if isinstance(ids, str):
        ids = [part.strip() for part in ids.split(",") if part.strip()]
    index = document(None)
    general = index.rulings if index else {}
    badges = []
    for n, rid in enumerate(map(str, ids)):
        text = (label if n == 0 else "") + rid
        owners = [name for name in [game, *ENGINES] if name in ENGINES and rid in ENGINES[name].rulings]
        if rid in general:
            href = url_for("web.rules_index", _anchor=rid)
        elif owners:
            href = url_for("web.rules_page", game=owners[0], _anchor=rid)
        else:
            badges.append(Markup('<span class="rule">{}</span>').format(text))
            continue
        title = ENGINES[owners[0]].rulings[rid] if owners else _summary(general[rid])
        badges.append(Markup('<a class="rule" href="{}" title="{}">{}</a>').format(href, title, text))
    return Markup(" ").join(badges)
