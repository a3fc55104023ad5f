"""The Check pages: every verdict of every engine (its JUDGES) as a form built from the verdict's
request schema, filled from a game where a field has its name, answered with the verdict, its
reading and the rulings it cites; refusals shown on the page, never a 500. Every registered game is
covered (a game without verdicts has an empty page); a verdict whose request schema declares an
example is asked it through the page."""
from __future__ import annotations

import html as htmllib
import json
import re
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect
from web_helpers import table_phone

from referee.rules import ENGINES

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rules"))
from players import table_for  # noqa: E402


def csrf(client, path: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', client.get(path).get_data(as_text=True)).group(1)


def post(client, game: str, verdict: str, form: dict, query: str = ""):
    token = csrf(client, f"/check/{game}{query}")
    response = client.post(f"/check/{game}/{verdict}{query}", data={"csrf_token": token, **form})
    return response, htmllib.unescape(response.get_data(as_text=True))


def answer_of(page: str) -> str:
    match = re.search(r'<section id="answer".*?</section>', page, re.DOTALL)
    assert match, page
    return match.group(0)


def ruling_link(game: str, rid: str) -> str:
    return f'href="/rules/{game}#{rid}"'


def field_value(page: str, form_id: str, name: str) -> str | None:
    form = re.search(rf'<form [^>]*id="{form_id}".*?</form>', page, re.DOTALL).group(0)
    field = re.search(rf'<(input|select|textarea)[^>]*name="{name}"[^>]*>(.*?</select>)?', form, re.DOTALL)
    assert field, name
    if field.group(1) == "select":
        chosen = re.search(r'<option value="([^"]*)" selected>', field.group(0))
        return chosen.group(1) if chosen else None
    value = re.search(r'value="([^"]*)"', field.group(0))
    return value.group(1) if value else None


def test_the_check_index_lists_every_game_and_the_home_page_links_it(client):
    response = client.get("/check")
    assert response.status_code == 200 and response.mimetype == "text/html"
    page = htmllib.unescape(response.get_data(as_text=True))
    for name, engine in ENGINES.items():
        assert f'href="/check/{name}"' in page and engine.title in page
    assert 'href="/check"' in client.get("/").get_data(as_text=True)


@pytest.mark.parametrize("name", list(ENGINES))
def test_each_game_has_a_form_for_every_verdict(client, name):
    response = client.get(f"/check/{name}")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    for verdict, judge in ENGINES[name].judges.items():
        form = re.search(rf'<form [^>]*id="check-{verdict}"[^>]*action="/check/{name}/{verdict}".*?</form>',
                         page, re.DOTALL)
        assert form, verdict
        assert 'name="csrf_token"' in form.group(0)
        for field in judge.request.get("properties", {}):
            assert f'name="{field}"' in form.group(0), (verdict, field)


def test_an_unknown_game_or_verdict_is_a_404(client):
    assert client.get("/check/no-such-game").status_code == 404
    name = next(iter(ENGINES))
    token = csrf(client, f"/check/{name}")
    assert client.post(f"/check/{name}/no-such-verdict", data={"csrf_token": token}).status_code == 404


VERDICTS = [
    ("ninety-nine", "play", {"total": "53", "card": "2S"}, ["106", "2S doubles: 53 -> 106"], "N99-3"),
    ("five-crowns", "hand", {"round": "5", "cards": "9D 7C JD KS"}, ["13", "9D 7C JD", "KS"], "FC-6"),
    ("five-crowns", "meld", {"wild": "8", "cards": "8D QD Q*", "decks": "2"}, ["book"], "FC-3"),
    ("sixty-nine", "set", {"cards": "6A 6B 7C 8D"}, ["legal", "yes", "6A"], "S69-2"),
    ("sixty-nine", "score", {"captured": "6A 7B 8C 9D WILD 5E\nWILD LOCK SCRAMBLE", "hand": "1F 2F"},
     ["18", "2 cards left in hand"], "S69-11"),
    ("xix", "trick", {"lead": "10", "follow": "9"}, ["follow", "the lower card (9) takes the trick"], "X19-2"),
    ("nines", "grid", {"grid": "KH 2S KD 3C KC 4C 5C KS 6C"}, ["20", "0 2 0 3 0 4 5 0 6"], "N9-6"),
]


@pytest.mark.parametrize("name, verdict, form, texts, rule", VERDICTS, ids=[f"{v[0]}-{v[1]}" for v in VERDICTS])
def test_a_verdict_posted_through_the_page_is_answered_with_its_rulings(client, name, verdict, form, texts, rule):
    response, page = post(client, name, verdict, form)
    assert response.status_code == 200, page
    answer = answer_of(page)
    for text in texts:
        assert text in answer, text
    assert ruling_link(name, rule) in answer
    assert ENGINES[name].rulings[rule] in answer  # the ruling's text beside its badge
    for field, value in form.items():  # the form keeps what was asked
        assert field_value(page, f"check-{verdict}", field) in (value, None)


REFUSALS = [
    ("xix", "trick", {"lead": "7", "follow": "7"}, "X19-1"),
    ("five-crowns", "hand", {"round": "1", "cards": "7H 7H 7H"}, "FC-1"),
    ("ninety-nine", "play", {"total": "5", "card": "AH"}, "N99-3"),
    ("sixty-nine", "score", {"captured": "1A 1B", "hand": ""}, "S69-4"),
]


@pytest.mark.parametrize("name, verdict, form, rule", REFUSALS, ids=[f"{v[0]}-{v[1]}" for v in REFUSALS])
def test_a_refused_verdict_shows_the_refusal_and_its_ruling(client, name, verdict, form, rule):
    response, page = post(client, name, verdict, form)
    assert response.status_code == 422
    refused = re.search(r'<div class="refused" id="refused".*?</div>', page, re.DOTALL).group(0)
    assert ruling_link(name, rule) in refused and ENGINES[name].rulings[rule] in refused
    assert 'id="answer"' not in page


EXAMPLES = [(name, verdict) for name, engine in ENGINES.items() for verdict, judge in engine.judges.items()
            if judge.request.get("example") is not None]


def form_text(value) -> str:
    """A request value as the page's field takes it: card codes separated by spaces, else as it is
    written (a number, a text), lists of card codes one per line, else JSON."""
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return " ".join(value)
    if isinstance(value, list) and value and all(isinstance(item, list) and all(isinstance(code, str) for code in item)
                                                 for item in value):
        return "\n".join(" ".join(item) for item in value)
    return value if isinstance(value, str) else json.dumps(value)


@pytest.mark.parametrize("name, verdict", EXAMPLES, ids=[f"{n}-{v}" for n, v in EXAMPLES])
def test_a_verdicts_declared_example_is_answered_through_the_page(client, name, verdict):
    engine = ENGINES[name]
    example = engine.judges[verdict].request["example"]
    response, page = post(client, name, verdict, {field: form_text(value) for field, value in example.items()})
    assert response.status_code == 200, page
    answer = answer_of(page)
    assert str(engine.judges[verdict].fn(example)["says"]) in answer
    assert any(ruling_link(name, rule) in answer for rule in engine.rulings)


@pytest.mark.parametrize("name", list(ENGINES))
@pytest.mark.parametrize("junk", ["", "abc", "-", "9" * 40, "1e9", "[[[", "{\"a\": 1}", "\x00", "x" * 5_000,
                                  "true", "null", "3\n\n4", "²"])
def test_no_input_is_a_500(client, name, junk):
    if not ENGINES[name].judges:
        pytest.skip(f"{name} has no verdicts")
    token = csrf(client, f"/check/{name}")
    for verdict, judge in ENGINES[name].judges.items():
        form = {field: junk for field in judge.request.get("properties", {})}
        response = client.post(f"/check/{name}/{verdict}", data={"csrf_token": token, **form})
        assert response.status_code in (200, 400, 422), (verdict, junk, response.status_code)
        if response.status_code != 200:
            assert 'id="refused"' in response.get_data(as_text=True)
    missing = client.post(f"/check/{name}/{next(iter(ENGINES[name].judges))}", data={"csrf_token": token})
    assert missing.status_code in (400, 422) and 'id="refused"' in missing.get_data(as_text=True)


def test_a_post_without_its_csrf_token_is_refused(client):
    response = client.post("/check/xix/trick", data={"lead": "10", "follow": "9"})
    assert response.status_code == 400 and 'id="answer"' not in response.get_data(as_text=True)


def test_a_game_fills_the_fields_of_the_same_name(api, client):
    game = api.create("five-crowns", ["Ann", "Bob", "Cy"], {"decks": 4})
    page = htmllib.unescape(client.get(f"/check/five-crowns?game={game['id']}").get_data(as_text=True))
    assert field_value(page, "check-hand", "wild") == "3" and field_value(page, "check-hand", "decks") == "4"
    assert field_value(page, "check-hand", "round") == ""  # the game's own wild rank, not both
    assert f'action="/check/five-crowns/hand?game={game["id"]}"' in page
    response, answer = post(client, "five-crowns", "meld", {"wild": "3", "cards": "3H 5D 5S", "decks": "4"},
                            query=f"?game={game['id']}")
    assert response.status_code == 200 and "book" in answer_of(answer)

    other = api.create("ninety-nine", ["Ann", "Bob", "Cy", "Di"])
    page = htmllib.unescape(client.get(f"/check/ninety-nine?game={other['id']}").get_data(as_text=True))
    assert field_value(page, "check-play", "total") == "0" and field_value(page, "check-play", "players") == "4"
    # a game of another kind, or no game at all, fills nothing and says so
    page = client.get(f"/check/five-crowns?game={other['id']}").get_data(as_text=True)
    assert field_value(page, "check-hand", "wild") == "" and "not of this kind" in page
    page = client.get("/check/five-crowns?game=nope").get_data(as_text=True)
    assert field_value(page, "check-hand", "wild") == "" and "No game has that id" in page


def test_each_game_page_links_to_its_check_page(api, client):
    for name, engine in ENGINES.items():
        game = api.create(name, table_for(engine))
        page = htmllib.unescape(client.get(f"/g/{game['id']}").get_data(as_text=True))
        assert f'href="/check/{name}?game={game["id"]}"' in page


@pytest.mark.browser
def test_a_phone_checks_a_verdict_from_its_game(phone, live_server):
    game, page = table_phone(phone, live_server, "ninety-nine", ["Ann", "Bob"])
    page.get_by_role("link", name="Check", exact=True).click()
    page.wait_for_url(re.compile(rf"/check/ninety-nine\?game={re.escape(game['id'])}$"))
    form = page.locator("#check-play")
    expect(form.locator("input[name=total]")).to_have_value("0")
    form.locator("input[name=total]").fill("53")
    form.locator("input[name=card]").fill("2S")
    form.get_by_role("button", name="Check").click()
    page.wait_for_load_state()
    answer = page.locator("#answer")
    expect(answer).to_contain_text("106")
    expect(answer.locator('a.rule[href="/rules/ninety-nine#N99-3"]')).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    phone.screenshot("check-verdict")


def test_a_game_without_verdicts_has_an_empty_check_page(client):
    import sys
    from pathlib import Path

    from referee.rules import register
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "contract"))
    import high_card

    register(high_card.GAME)
    try:
        assert 'href="/check/high-card"' in client.get("/check").get_data(as_text=True)
        page = client.get("/check/high-card")
        assert page.status_code == 200 and "no verdicts to check" in page.get_data(as_text=True)
    finally:
        ENGINES.pop(high_card.NAME, None)


def test_the_answer_is_a_sentence_to_read_aloud_and_the_fields_fold_away(client):
    """Issue 33: the Check page answered with a table of fields (legal yes / kind run / reason - /
    rule -); it answers with the verdict's own sentence, citing the rule, the fields folded under it."""
    response, page = post(client, "five-crowns", "meld", {"wild": "5", "cards": "7H 5S 9H"})
    assert response.status_code == 200
    answer = answer_of(page)
    says = re.search(r'<p class="says" id="says">(.*?)</p>', answer, re.DOTALL).group(1)
    assert says == "Yes: 7H 5S 9H is a run, 5S standing in for the 8 (FC-3)."
    assert answer.index('id="says"') < answer.index("<details")
    # each form is titled by its question, each field by its own title; the cards come from the pad
    assert "Is this a legal book or run (FC-3)?" in page and ">Wild rank" in page
    form = re.search(r'<form [^>]*id="check-meld".*?</form>', page, re.DOTALL).group(0)
    assert 'class="pad' in form or "data-pad" in form
