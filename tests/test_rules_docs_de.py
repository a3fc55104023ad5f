"""docs/rules/de: the German rules documents match the English ones id for id (every ruling an
anchor on the German page too), the rules pages are served in the request's language with English
as the fallback, and every ruling badge leads to an anchor that exists on the German page.

A game whose document is not translated (yet) is served in English, as the README says; a game
with no document at all (a game of the tests) lists its engine's rulings under the page's own,
translated headings: either way every ruling is an anchor."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from referee import rules_docs
from referee.i18n import LANG_COOKIE
from referee.rules import ENGINES
from referee.web.rules_pages import ruling

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "rules"
DE = DOCS / "de"
NAMES = ["README", *ENGINES]
TRANSLATED = sorted(path.stem for path in DE.glob("*.md"))  # the documents with a German page
RULING_LINE = re.compile(r"^- \*\*([A-Z][A-Z0-9]*-\d+)\*\*", re.M)
MENTION = re.compile(r"\b[A-Z][A-Z0-9]*-\d+\b")
GERMAN = {"lang": "de"}


def text(folder: Path, name: str) -> str:
    return (folder / f"{name}.md").read_text(encoding="utf-8")


def element_ids(html: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', html))


def article_lang(html: str) -> str:
    return re.search(r'<article class="rules" lang="([a-z]+)"', html).group(1)


@pytest.mark.parametrize("name", TRANSLATED)
def test_each_translation_has_the_english_rulings_options_moves_and_links(name):
    english, german = text(DOCS, name), text(DE, name)
    # the same rulings in the same order, and every id the English text mentions anywhere
    assert RULING_LINE.findall(german) == RULING_LINE.findall(english)
    assert sorted(MENTION.findall(german)) == sorted(MENTION.findall(english))
    # option names, move types, values and card codes in code spans stay as the API spells them
    assert set(re.findall(r"`[^`]+`", english)) <= set(re.findall(r"`[^`]+`", german))
    assert re.findall(r"^- `([a-z_]+)`", german, re.M) == re.findall(r"^- `([a-z_]+)`", english, re.M)
    assert re.findall(r"\]\(([^)]+)\)", german) == re.findall(r"\]\(([^)]+)\)", english)
    # the same outline: one title, then the same number of sections
    assert [len(h) for h in re.findall(r"^(#+) ", german, re.M)] == \
        [len(h) for h in re.findall(r"^(#+) ", english, re.M)]


@pytest.mark.parametrize("name", [name for name in TRANSLATED if name in ENGINES])
def test_each_translations_rulings_options_and_moves_are_rendered_from_the_catalogue(name):
    assert rules_docs.generated(text(DE, name)) == rules_docs.render(ENGINES[name], "de"), \
        f"the German page of {name} is not what its declarations and the catalogue say: run {rules_docs.COMMAND}"


def test_every_translation_translates_a_document_and_the_index_is_translated():
    assert "README" in TRANSLATED
    assert set(TRANSLATED) <= {path.stem for path in DOCS.glob("*.md")}, "a German page without its English one"


@pytest.mark.parametrize("name", list(ENGINES))
@pytest.mark.parametrize("ask", [{"query_string": GERMAN}, {"headers": {"Accept-Language": "de-DE,de;q=0.9"}},
                                 {"cookie": "de"}])
def test_a_game_page_in_german_anchors_every_ruling(client, name, ask):
    ask = dict(ask)
    if "cookie" in ask:  # the language the phone remembers
        client.set_cookie(LANG_COOKIE, ask.pop("cookie"))
    response = client.get(f"/rules/{name}", **ask)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert 'lang="de"' in html  # the page's own words
    if name in TRANSLATED:
        assert "<h2>Regelentscheidungen</h2>" in html and "<h2>Tischoptionen</h2>" in html
        assert "<h2>Rulings</h2>" not in html and article_lang(html) == "de"
    elif (DOCS / f"{name}.md").exists():
        assert article_lang(html) == "en"  # an untranslated document stays English
    else:
        assert "<h2>Regelentscheidungen</h2>" in html  # no document: the engine's rulings, listed
    english = set(RULING_LINE.findall(text(DOCS, name))) if (DOCS / f"{name}.md").exists() else set()
    assert english | set(ENGINES[name].rulings) <= element_ids(html)


@pytest.mark.parametrize("ask", [{}, {"query_string": {"lang": "en"}, "headers": {"Accept-Language": "de"}},
                                 {"headers": {"Accept-Language": "fr, en;q=0.5"}}])
def test_english_otherwise(client, ask):
    html = client.get("/rules/ninety-nine", **ask).get_data(as_text=True)
    assert "<h2>Rulings</h2>" in html and "Regelentscheidungen" not in html and article_lang(html) == "en"
    index = client.get("/rules", **ask).get_data(as_text=True)
    assert "Rulings for every game" in index and article_lang(index) == "en"


def test_the_german_index_anchors_the_rulings_for_every_game_and_links_every_game(client):
    html = client.get("/rules", query_string=GERMAN).get_data(as_text=True)
    assert "<h2>Regelentscheidungen für alle Spiele</h2>" in html and article_lang(html) == "de"
    assert set(RULING_LINE.findall(text(DOCS, "README"))) <= element_ids(html)
    for name in ENGINES:
        assert f'href="/rules/{name}"' in html


def test_every_link_of_the_german_pages_reaches_its_anchor(client):
    for name in NAMES:
        path = "/rules" if name == "README" else f"/rules/{name}"
        html = client.get(path, query_string=GERMAN).get_data(as_text=True)
        for href in re.findall(r'href="(/rules[^"]*)"', html):
            target, _, anchor = href.partition("#")
            page = client.get(target, query_string=GERMAN)
            assert page.status_code == 200, href
            assert not anchor or anchor in element_ids(page.get_data(as_text=True)), href


def test_every_ruling_badge_links_to_an_anchor_of_the_german_page(app, client):
    ids = set(RULING_LINE.findall(text(DOCS, "README")))
    ids |= {rid for engine in ENGINES.values() for rid in engine.rulings}
    with app.test_request_context("/", query_string=GERMAN):
        badges = {rid: str(ruling(rid)) for rid in sorted(ids)}
    with app.test_request_context("/"):
        english = {rid: str(ruling(rid)) for rid in sorted(ids)}
    pages = {}
    for rid, badge in badges.items():
        href = re.search(r'<a class="rule" href="([^"]+)"', badge).group(1)
        assert href == re.search(r'href="([^"]+)"', english[rid]).group(1)  # the same anchor in both
        path, _, anchor = href.partition("#")
        if path not in pages:
            pages[path] = client.get(path, query_string=GERMAN).get_data(as_text=True)
        assert anchor == rid and rid in element_ids(pages[path]), href
        game = path.rpartition("/rules/")[2] if "/rules/" in path else "README"
        if game in TRANSLATED:
            assert article_lang(pages[path]) == "de", href


def test_a_game_pages_badges_reach_the_german_rules(api, client):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    api.move(game, {"type": "play", "player": "Ann", "card": "JS"})  # two players: a J plays again (N99-4)
    html = client.get(f"/g/{game['id']}", query_string=GERMAN).get_data(as_text=True)
    hrefs = set(re.findall(r'<a class="rule" href="([^"]+)"', html))
    assert "/rules/ninety-nine#N99-4" in hrefs
    for href in hrefs:
        path, _, anchor = href.partition("#")
        page = client.get(path, query_string=GERMAN).get_data(as_text=True)
        assert article_lang(page) == "de" and anchor in element_ids(page), href


def test_a_document_without_a_translation_is_served_in_english(app, client, tmp_path, monkeypatch):
    (tmp_path / "de").mkdir()
    (tmp_path / "README.md").write_text("# Rules\n\n- [Nines](nines.md)\n\n- **G-4** Remade when empty. Never earlier.\n")
    (tmp_path / "de" / "README.md").write_text("# Regeln\n\n- [Nines](nines.md)\n\n- **G-4** Neu gebildet, wenn leer. Nie früher.\n")
    (tmp_path / "nines.md").write_text("# Nines\n\n## Rulings\n\n- **N9-1** Decks.\n")
    monkeypatch.setitem(app.config, "RULES_DOCS", str(tmp_path))
    index = client.get("/rules", query_string=GERMAN).get_data(as_text=True)
    assert "<h1>Regeln</h1>" in index and article_lang(index) == "de" and 'id="G-4"' in index
    page = client.get("/rules/nines", query_string=GERMAN).get_data(as_text=True)
    assert "<h1>Nines</h1>" in page and article_lang(page) == "en" and 'id="N9-1"' in page
    with app.test_request_context("/", query_string=GERMAN):  # the summary in the page's language
        assert str(ruling("G-4")) == '<a class="rule" href="/rules#G-4" title="Neu gebildet, wenn leer.">G-4</a>'
