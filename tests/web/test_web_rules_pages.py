"""The rules pages (docs/rules rendered, every ruling an anchor) and the ruling badges of the other
pages, each a link to its ruling's text."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from markupsafe import escape
from playwright.sync_api import expect

from referee.rules import ENGINES, register
from referee.web.rules_pages import ruling
from web_helpers import table_phone

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "contract"))
import high_card  # noqa: E402

README = Path(__file__).resolve().parents[2] / "docs" / "rules" / "README.md"


@pytest.fixture
def sixth_game():
    register(high_card.GAME)
    yield high_card
    ENGINES.pop(high_card.NAME, None)


def element_ids(html: str) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', html))


def csrf(client, path: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', client.get(path).get_data(as_text=True)).group(1)


def badge(game: str, rid: str, summary: str, label: str = "") -> str:
    # escaped as the pages' templates escape it (markupsafe writes an apostrophe as &#39;)
    return f'<a class="rule" href="/rules/{game}#{rid}" title="{escape(summary)}">{label}{rid}</a>'


def test_the_index_lists_every_game_and_the_rulings_for_every_game(client):
    response = client.get("/rules")
    assert response.status_code == 200 and response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    general = set(re.findall(r"^- \*\*([A-Z0-9]+-\d+)\*\*", README.read_text(), re.M))
    assert general == {f"G-{n}" for n in range(1, 6)} | {"T-1", "T-2", "T-3", "T-4"} and general <= element_ids(html)  # T: the table's own
    for name in ENGINES:
        assert f'href="/rules/{name}"' in html
    assert "/rules" in client.get("/").get_data(as_text=True)


@pytest.mark.parametrize("name", list(ENGINES))
def test_each_game_page_anchors_every_ruling_of_its_engine(client, name):
    response = client.get(f"/rules/{name}")
    assert response.status_code == 200 and response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    assert set(ENGINES[name].rulings) <= element_ids(html)
    assert 'href="/rules"' in html and ".md" not in re.sub(r"<code>.*?</code>", "", html)


def test_an_unknown_game_is_a_404_page(client):
    response = client.get("/rules/unknown")
    assert response.status_code == 404 and response.mimetype == "text/html"
    assert "No such game" in response.get_data(as_text=True)


def test_documents_are_escaped_and_a_game_without_one_lists_its_engines_rulings(app, client, tmp_path,
                                                                               monkeypatch, sixth_game):
    (tmp_path / "README.md").write_text("# Rules\n\n<script>alert(1)</script>\n\n- **G-1** <b>seat</b> order\n"
                                        "- [evil](javascript:alert(1))\n")
    monkeypatch.setitem(app.config, "RULES_DOCS", str(tmp_path))
    html = client.get("/rules").get_data(as_text=True)
    assert "<script>alert" not in html and "&lt;script&gt;" in html and "<b>seat" not in html
    assert 'href="javascript' not in html and 'id="G-1"' in html
    assert set(ENGINES) <= {m for m in re.findall(r'href="/rules/([^"#]+)"', html)}  # none is in this index
    page = client.get("/rules/high-card")
    assert page.status_code == 200 and {"HC-1", "HC-2"} <= element_ids(page.get_data(as_text=True))


def test_the_badge_helper(app):
    with app.test_request_context():
        assert str(ruling("G-3")).startswith('<a class="rule" href="/rules#G-3" title="A refusal that breaks')
        pair = str(ruling("S69-4, S69-9", "sixty-nine"))
        assert pair.count('<a class="rule"') == 2 and 'href="/rules/sixty-nine#S69-9"' in pair
        assert str(ruling(["N99-5"])) == badge("ninety-nine", "N99-5", ENGINES["ninety-nine"].rulings["N99-5"])
        assert str(ruling("ZZ-9", "ninety-nine")) == '<span class="rule">ZZ-9</span>'
        assert str(ruling(None)) == ""


def test_a_refusal_links_its_ruling(api, table_client):
    game = api.create("ninety-nine", ["Ann", "Bob", "Cid"])
    table = table_client(game)
    token = csrf(table, f"/g/{game['id']}")
    table.post(f"/g/{game['id']}/move", data={"csrf_token": token, "type": "play", "player": "Bob",
                                               "rank": "5", "suit": "S"})
    html = table.get(f"/g/{game['id']}").get_data(as_text=True)
    assert badge("ninety-nine", "N99-2", ENGINES["ninety-nine"].rulings["N99-2"], "Ruling ") in html
    assert 'href="/rules/ninety-nine"' in html  # the game page's own link to its rules


def test_events_breakdowns_and_forms_link_their_rulings(client, api, table_client, sixth_game):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    api.move(game, {"type": "play", "player": "Ann", "card": "JS"})  # two players: a J plays again
    html = client.get(f"/g/{game['id']}").get_data(as_text=True)
    assert badge("ninety-nine", "N99-4", ENGINES["ninety-nine"].rulings["N99-4"]) in html

    game = api.create("high-card", ["Ann", "Bob"], {"target": 3})
    api.move(game, {"type": "show", "player": "Ann", "card": "KS"})
    api.move(game, {"type": "show", "player": "Bob", "card": "2H"})
    html = table_client(game).get(f"/g/{game['id']}").get_data(as_text=True)
    summary = high_card.RULINGS["HC-1"]
    assert html.count(badge("high-card", "HC-1", summary)) >= 2 + 2 + 1  # events, breakdowns, the form
    assert 'class="breakdown"' in html


@pytest.mark.browser
def test_a_refusal_leads_to_its_ruling(phone, live_server):
    created, page = table_phone(phone, live_server, "ninety-nine", ["Ann", "Bob"])
    # a round entered whole in which Bob lost more tokens than he holds (N99-6)
    page.locator("#more > summary").click()
    page.locator("#switch-record-form button[type=submit]").click()
    page.locator("#round-result-form input[name='lost-1']").fill("12")
    page.locator("#round-result-form input[name=ended_by][value=Ann] + span").click()
    page.locator("#round-result-form button[type=submit]").click()
    link = page.locator("#refused a.rule")
    expect(link).to_have_text("Ruling N99-6")
    link.click()
    page.wait_for_url(f"{live_server}/rules/ninety-nine#N99-6")
    assert page.evaluate("location.hash") == "#N99-6"
    target = page.locator("#N99-6")
    expect(target).to_be_visible()
    expect(target).to_be_in_viewport()
    assert page.evaluate("document.querySelector(':target').id") == "N99-6"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot("rules-page")
