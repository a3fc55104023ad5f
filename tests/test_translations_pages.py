"""The pages in two languages (the ``messages`` catalogue): the German catalogue is complete and
compiled, and the pages follow ``?lang=``, the ``lang`` cookie and ``Accept-Language``."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from referee.rules import ENGINES

ROOT = Path(__file__).resolve().parents[1]
PO = ROOT / "referee" / "translations" / "de" / "LC_MESSAGES" / "messages.po"
# The keywords of the extract command in docs/development.md, "Translations" (the engine's T and N_ are not ours).
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2), "lazy_gettext": None,
            "lazy_pgettext": ((1, "c"), 2)}
PLACEHOLDER = re.compile(r"%\([a-z_]+\)[sd]|\{[a-z_]+\}")
RULING = re.compile(r"\b[A-Z][A-Z0-9]*-[0-9]+\b")
TAG = re.compile(r"</?[a-z]+[^>]*>")


def source_messages() -> dict:
    """Every message of the pages' source, as ``{(context, msgid): (msgid, plural or None)}``."""
    with open(ROOT / "babel.cfg", encoding="utf-8") as cfg:
        method_map, options_map = parse_mapping_cfg(cfg, str(ROOT / "babel.cfg"))
    found = {}
    for _file, _line, message, _comments, context in extract_from_dir(str(ROOT), method_map, options_map,
                                                                       keywords=KEYWORDS):
        msgid, plural = (message[0], message[1]) if isinstance(message, tuple) else (message, None)
        found[(context, msgid)] = (msgid, plural)
    return found


@pytest.fixture(scope="module")
def catalog():
    with open(PO, "rb") as po:
        return read_po(po)


def marks(text: str, pattern) -> list[str]:
    return sorted(pattern.findall(text))


def test_extraction_finds_the_pages_strings():
    found = source_messages()
    # one from a template, one from page code, one of the script's (base.html #texts), one plural
    for key in [(None, "Enter a move"), (None, "Game started. Share it from Share, at the top."),
                (None, "Line {number}: {cards}"), (None, "%(num)s move"), ("phase", "trick")]:
        assert key in found, key
    assert found[(None, "%(num)s move")][1] == "%(num)s moves"


def test_every_page_string_has_a_complete_german_translation(catalog):
    problems = []
    for (context, msgid), (_, plural) in sorted(source_messages().items(), key=lambda kv: str(kv[0])):
        entry = catalog.get(msgid, context=context)
        if entry is None:
            problems.append(f"missing: {msgid!r}")
            continue
        if entry.fuzzy:
            problems.append(f"fuzzy: {msgid!r}")
        forms = list(entry.string) if isinstance(entry.string, (tuple, list)) else [entry.string]
        if plural is not None and len(forms) != catalog.num_plurals:
            problems.append(f"plural forms: {msgid!r}")
        sources = [msgid, plural or msgid]
        for n, form in enumerate(forms):
            if not form:
                problems.append(f"untranslated: {msgid!r}")
                continue
            source = sources[min(n, 1)]
            for name, pattern in (("placeholders", PLACEHOLDER), ("ruling ids", RULING), ("markup", TAG)):
                if set(marks(form, pattern)) != set(marks(source, pattern)):
                    problems.append(f"{name} differ: {msgid!r} -> {form!r}")
    assert not problems, "\n".join(problems)


def test_the_catalogue_has_no_fuzzy_header_and_german_plurals(catalog):
    assert str(catalog.locale) == "de"
    assert not catalog.fuzzy
    assert catalog.num_plurals == 2


def test_the_compiled_catalogue_matches_the_po(catalog):
    with open(PO.with_suffix(".mo"), "rb") as mo:
        compiled = read_mo(mo)
    def entries(messages):
        flat = (lambda x: tuple(x) if isinstance(x, (list, tuple)) else x)
        text = (lambda x: x.decode() if isinstance(x, bytes) else x)  # read_mo gives contexts as bytes
        return {(text(m.context), flat(m.id)): flat(m.string) for m in messages if m.id and not m.fuzzy}

    expected, got = entries(catalog), entries(compiled)
    assert len(got) > 300 and got == expected, "messages.mo is stale: run the compile command of docs/development.md, 'Translations'"


# ---------------------------------------------------------------- the pages in German

GERMAN = {"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}
# English words of the templates every page shows (the header), and some of each page
COMMON = ["Skip to content", "Keep the screen on", ">Referee<", ">Colours<", ">Dark<"]
GAMES = {
    "ninety-nine": (["Ann", "Bob", "Cid"], ["Enter a move", "Play the card", "Someone forgot to draw", "Tokens",
                                            "Top card", "Direction", "To play", "Keys:"],
                    ["Zug eingeben", "Karte spielen", "Marken", "Richtung"]),
    "nines": (["Ann", "Bob"], ["Record the deal", "Grids", "Discard pile", "Only keeping score?", "face down",
                               "First discard"], ["Geben eintragen", "Raster", "Ablagestapel", "Durchgang"]),
    "five-crowns": (["Ann", "Bob"], ["Wild rank", "Cards in hand", "Score the round", "First face-up discard",
                                     "Standings", "or cards"],
                    ["Jokerrang", "Karten auf der Hand", "Runde werten", "Spielstand"]),
    "xix": (["Ann", "Bob"], ["Strike row", "Open hands", "Play the card", "Closed hand", "no card yet",
                             "sees it, from the left"],
            ["Strike-Reihe", "Offene Hände", "Verdeckte Hand", "Schlagabtausch"]),
    "sixty-nine": (["Ann", "Bob", "Cid"], ["Sets on the table", "No set on the table.", "Record the deal",
                                           "The flipped card", "Captured"],
                   ["Sätze auf dem Tisch", "Kein Satz auf dem Tisch.", "Erbeutet"]),
}
PAGE_ENGLISH = [">Share<", ">Log<", "Score sheet", "Other moves", "Undo the last move", "Any move, as JSON"]


def start(client, game: str, players: list[str], headers=GERMAN) -> str:
    html = client.get(f"/new/{game}", headers=headers).get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
    response = client.post(f"/new/{game}", data={"csrf_token": token, "players": "\n".join(players)},
                           headers=headers)
    assert response.status_code == 302, response.get_data(as_text=True)
    return re.fullmatch(r"/g/([^/]+)", response.headers["Location"]).group(1)  # it lands on the game


def german(html: str, absent: list[str], present: list[str]) -> None:
    assert '<html lang="de">' in html
    left = [text for text in COMMON + absent if text in html]
    assert not left, f"English left on a German page: {left}"
    missing = [text for text in ["Zum Inhalt springen", ">Schiedsrichter<"] + present if text not in html]
    assert not missing, f"German missing: {missing}"


@pytest.mark.parametrize("game", list(GAMES))
def test_each_game_page_is_german(client, game):
    players, absent, present = GAMES[game]
    game_id = start(client, game, players)
    german(client.get(f"/g/{game_id}/share", headers=GERMAN).get_data(as_text=True),
           ["Follow the game", "Links and phones", "Go to the game"], ["Spiel verfolgen", "Zum Spiel"])
    response = client.get(f"/g/{game_id}", headers=GERMAN)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    german(html, absent + PAGE_ENGLISH, present + ["Teilen", "Protokoll", "Zug eingeben"])
    german(client.get(f"/g/{game_id}/log", headers=GERMAN).get_data(as_text=True),
           ["Move log", "Start of the game"], ["Zugprotokoll", "Spielbeginn"])


def test_home_new_rules_and_check_pages_are_german(client):
    german(client.get("/", headers=GERMAN).get_data(as_text=True),
           ["Keep score at the table", "Start a game", "Check a dispute", "The rules of every game"],
           ["Punkte schreiben am Spieltisch", "Spiel starten", "Streitfall prüfen", "Spieler</small>"])
    german(client.get("/new/ninety-nine", headers=GERMAN).get_data(as_text=True),
           ["Players, one name per line", "Start the game", "Options", "players. The first listed"],
           ["Spieler, ein Name pro Zeile, in Sitzreihenfolge", "Spiel starten", "Optionen"])
    german(client.get("/rules", headers=GERMAN).get_data(as_text=True), [], [])
    german(client.get("/rules/ninety-nine", headers=GERMAN).get_data(as_text=True),
           ["All rules", "Start a game of"], ["Alle Regeln", "Eine Partie Ninety-nine starten"])
    german(client.get("/check", headers=GERMAN).get_data(as_text=True),
           ["Check a dispute", "Ask the referee without a game", "Pick the game"], ["Streitfall prüfen"])
    german(client.get("/check/ninety-nine", headers=GERMAN).get_data(as_text=True),
           ["All games", ">Check<", "(needed)"], ["Alle Spiele", "Prüfen: Ninety-nine", "(nötig)"])


def test_the_script_words_are_json_in_the_page_language(client):
    def texts(headers):
        html = client.get("/", headers=headers).get_data(as_text=True)
        block = re.search(r'<script type="application/json" id="texts">(.*?)</script>', html, re.S).group(1)
        return json.loads(block)

    assert texts({})["line"] == "Line {number}: {cards}"
    assert texts(GERMAN)["line"] == "Zeile {number}: {cards}" and texts(GERMAN)["empty"] == "leer"


# ---------------------------------------------------------------- choosing the language

def test_english_without_accept_language_and_pages_vary(client):
    response = client.get("/")
    assert '<html lang="en">' in response.get_data(as_text=True)
    assert {"Accept-Language", "Cookie"} <= set(response.vary)
    assert "lang=" not in response.headers.get("Set-Cookie", "")


def test_the_switch_is_remembered_in_a_cookie(client):
    response = client.get("/?lang=de", headers={"Accept-Language": "en"})
    assert '<html lang="de">' in response.get_data(as_text=True)
    cookie = next(c for c in response.headers.getlist("Set-Cookie") if c.startswith("lang="))
    assert cookie.startswith("lang=de;") and "Max-Age=31536000" in cookie and "SameSite=Lax" in cookie
    # the next page, without ?lang=, follows the cookie over the browser's English
    assert '<html lang="de">' in client.get("/check", headers={"Accept-Language": "en"}).get_data(as_text=True)
    client.get("/?lang=en", headers=GERMAN)
    assert '<html lang="en">' in client.get("/check", headers=GERMAN).get_data(as_text=True)


def test_an_unknown_language_changes_nothing(client):
    response = client.get("/?lang=xx", headers=GERMAN)
    assert response.status_code == 200 and '<html lang="de">' in response.get_data(as_text=True)
    assert not [c for c in response.headers.getlist("Set-Cookie") if c.startswith("lang=")]
    client.set_cookie("lang", "<script>")
    assert '<html lang="en">' in client.get("/").get_data(as_text=True)


def test_the_switch_is_a_labelled_form_that_keeps_the_page(client, api):
    game = api.create("ninety-nine", ["Ann", "Bob"])
    html = client.get(f"/check/ninety-nine?game={game['id']}", headers=GERMAN).get_data(as_text=True)
    form = re.search(r'<form method="get" action="([^"]*)" class="lang" id="lang-form">(.*?)</form>', html, re.S)
    assert form and form.group(1) == "/check/ninety-nine"
    assert f'<input type="hidden" name="game" value="{game["id"]}">' in form.group(2)
    assert 'aria-label="Sprache"' in form.group(2) and '<option value="de" lang="de" selected>' in form.group(2)
    assert '<button type="submit" class="lang-go">Wechseln</button>' in form.group(2)  # without scripts
    # a page shown after a form post switches to the page that shows it by GET
    token = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
    verdict = next(iter(ENGINES["ninety-nine"].judges))
    posted = client.post(f"/check/ninety-nine/{verdict}", data={"csrf_token": token}, headers=GERMAN)
    assert posted.status_code in (200, 400, 422)
    assert 'action="/check/ninety-nine" class="lang"' in posted.get_data(as_text=True)
