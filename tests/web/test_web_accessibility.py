"""Accessibility, checked by a tool: axe-core (bundled with axe-playwright-python, no network) on every
kind of page of the phone app, at 390x844 in Chromium, with the phone set to light and to dark
colours. No violation of impact serious or critical may remain; a failure lists each one with its
rule id, impact, the element's selector and what axe says would help.

Every <details> is opened before the check, so the forms and breakdowns it folds away are checked too.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import requests
from axe_playwright_python.sync_playwright import Axe

from test_web_comfort import contrast
from web_helpers import join, make_link

pytestmark = pytest.mark.browser

SCHEMES = ["light", "dark"]
BLOCKING = ("serious", "critical")
TRANSLATIONS = os.path.join(os.path.dirname(__file__), "..", "..", "referee", "translations")
_axe = Axe()


# ----------------------------------------------------------------------------------- the games

def create(base: str, game: str, players: list[str], options=None) -> dict:
    response = requests.post(f"{base}/api/v1/games", timeout=5,
                             json={"game": game, "players": players, "options": options or {}})
    assert response.status_code == 201, response.text
    return response.json()


def moves(base: str, game: dict, *payloads: dict) -> None:
    for payload in payloads:
        response = requests.post(f"{base}/api/v1/games/{game['id']}/moves", json=payload, timeout=5,
                                 headers={"Authorization": f"Bearer {game['token']}"})
        assert response.status_code == 201, (payload, response.text)


def play99(player: str, card: str) -> dict:
    return {"type": "play", "player": player, "card": card}


# Ninety-nine, two players with 4 tokens: Bob wins round 1 (a score sheet, a breakdown, a chart).
NINETY_NINE_ROUND = [play99(p, c) for p, c in [
    ("Ann", "KS"), ("Bob", "KH"), ("Ann", "KD"), ("Bob", "KC"), ("Ann", "QS"), ("Bob", "QH"), ("Ann", "QD"),
    ("Bob", "QC"), ("Ann", "JS"), ("Ann", "5S"), ("Bob", "4S")]]
NINETY_NINE_END = [play99("Bob", "KS"), play99("Ann", "KH"), play99("Bob", "KD"), play99("Ann", "KC")]


def ninety_nine(base: str) -> dict:
    game = create(base, "ninety-nine", ["Ann", "Bob"], {"tokens": 4})
    moves(base, game, *NINETY_NINE_ROUND, play99("Bob", "7H"))
    return game


def nines(base: str) -> dict:
    game = create(base, "nines", ["Ann", "Bob", "Cy"])
    moves(base, game,
          {"type": "deal", "discard": "5H", "revealed": {"Ann": {"0": "2H", "4": "3S", "8": "KD"},
                                                         "Bob": {"1": "QH", "2": "JK", "3": "9C"},
                                                         "Cy": {"0": "AS", "1": "AH", "2": "AD"}}},
          {"type": "turn", "player": "Ann", "source": "stock", "card": "4C", "position": 1, "replaced": "6H"},
          {"type": "turn", "player": "Bob", "source": "stock", "card": "9H", "position": None})
    return game


def five_crowns(base: str) -> dict:
    game = create(base, "five-crowns", ["Ann", "Bob", "Cid"])
    moves(base, game,
          {"type": "round_result", "went_out": "Ann", "hands": {"Bob": {"points": 3}, "Cid": {"points": 6}}},
          {"type": "deal", "discard": "7H"},
          {"type": "draw", "player": "Bob", "source": "discard"})
    return game


def xix(base: str) -> dict:
    game = create(base, "xix", ["Ann", "Bob"])
    moves(base, game,
          {"type": "play", "player": "Ann", "card": 5, "from": "closed"},
          {"type": "play", "player": "Bob", "card": 14, "from": "closed"},
          {"type": "decide", "player": "Bob", "choice": "raise"})
    return game


def sixty_nine(base: str) -> dict:
    game = create(base, "sixty-nine", ["Ann", "Bob", "Cid"])
    moves(base, game, {"type": "deal", "dealer": "Cid", "flip": "3A"},
          {"type": "play", "player": "Ann", "set": 1, "cards": ["4B"]})
    return game


GAMES = {"ninety-nine": ninety_nine, "nines": nines, "five-crowns": five_crowns, "xix": xix,
         "sixty-nine": sixty_nine}


# ----------------------------------------------------------------------------------- the pages
# Each opens one kind of page on ``phone`` (setting up what it shows) and returns the HTTP statuses
# it expects to see refused in the console (an error page logs its status there).

PAGES = {}


def page_type(name):
    def register(fn):
        PAGES[name] = fn
        return fn
    return register


@page_type("home")
def _home(phone, base):
    join(phone, ninety_nine(base))  # "Your tables" is listed too
    phone.goto("/")


def visit(path: str):
    """A page that needs nothing set up."""
    def open_it(phone, base):
        phone.goto(path)
    return open_it


for _name in GAMES:
    page_type(f"new-{_name}")(visit(f"/new/{_name}"))


@page_type("new-refused")
def _new_refused(phone, base):
    phone.goto("/new/ninety-nine")
    phone.page.locator("#players").fill("Ann\nAnn")
    phone.page.locator("main form button[type=submit]").click()
    phone.page.wait_for_selector(".refused")
    return [422]


def at_the_table(setup):
    """A game's page, as the phone at the table sees it (with its move forms)."""
    def open_it(phone, base):
        join(phone, setup(base))
    return open_it


for _name, _setup in GAMES.items():
    page_type(f"game-{_name}")(at_the_table(_setup))


@page_type("game-finished")
def _game_finished(phone, base):
    game = ninety_nine(base)
    moves(base, game, *NINETY_NINE_END[1:])  # round 2 opened with Bob's 7H instead of the K♠
    join(phone, game)
    phone.page.wait_for_selector(".winners")


@page_type("game-refused")
def _game_refused(phone, base):
    join(phone, nines(base))
    page = phone.page
    page.locator("details#more > summary").click()
    page.locator("textarea[name=json]").fill('{"type": "turn", "player": "Ann", "source": "stock", "card": "7D"}')
    page.locator("details#more button[type=submit]").click()
    page.wait_for_selector("#refused")


@page_type("game-follower")
def _game_follower(phone, base):
    phone.goto(f"/g/{sixty_nine(base)['id']}")


@page_type("log")
def _log(phone, base):
    game = ninety_nine(base)
    join(phone, game)
    requests.post(f"{base}/api/v1/games/{game['id']}/undo", timeout=5,
                  headers={"Authorization": f"Bearer {game['token']}"}).raise_for_status()
    phone.goto(f"/g/{game['id']}/log")


@page_type("at")
def _at(phone, base):
    game = ninety_nine(base)
    phone.goto(f"/g/{game['id']}/at/11")


@page_type("share")
def _share(phone, base):
    game = five_crowns(base)
    join(phone, game)
    make_link(base, game)  # one more link in the list
    phone.goto(f"/g/{game['id']}/share")


@page_type("join")
def _join(phone, base):
    phone.goto(f"/g/{xix(base)['id']}/join")


@page_type("undo")
def _undo(phone, base):
    game = xix(base)
    join(phone, game)
    phone.goto(f"/g/{game['id']}/undo")


page_type("rules")(visit("/rules"))

for _name in GAMES:
    page_type(f"rules-{_name}")(visit(f"/rules/{_name}"))


page_type("check")(visit("/check"))


@page_type("check-verdict")
def _check_verdict(phone, base):
    game = five_crowns(base)
    phone.goto(f"/check/five-crowns?game={game['id']}")
    form = phone.page.locator("#check-hand")
    form.locator("[name=cards]").fill("3H 4H 5H 7S 7D")
    form.locator("button[type=submit]").click()
    phone.page.wait_for_selector("#answer")


@page_type("check-refused")
def _check_refused(phone, base):
    phone.goto("/check/ninety-nine")
    form = phone.page.locator("#check-play")
    form.locator("[name=total]").fill("90")
    form.locator("[name=card]").fill("ZZ")
    form.locator("button[type=submit]").click()
    phone.page.wait_for_selector("#refused")
    return [422]


@page_type("not-found")
def _not_found(phone, base):
    phone.goto("/g/no-such-game")
    return [404]


# ----------------------------------------------------------------------------------- the check

def blocking_violations(page) -> list[dict]:
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    results = _axe.run(page)
    return [v for v in results.response["violations"] if v["impact"] in BLOCKING]


def report(violations: list[dict]) -> str:
    lines = []
    for v in violations:
        for node in v["nodes"]:
            detail = next((c["message"] for c in node.get("any", []) + node.get("all", []) + node.get("none", [])
                           if c.get("message")), "")
            lines.append(f"- {v['id']} ({v['impact']}) {' '.join(map(str, node['target']))}: {v['help']}"
                         + (f" [{detail}]" if detail else ""))
    return "\n".join(lines)


def expected_console_errors(phone, statuses) -> None:
    """An error page's status is logged by Chromium as a console error: expected there, nowhere else."""
    if statuses:
        pattern = re.compile(rf"status of ({'|'.join(map(str, statuses))})\b")
        phone.errors[:] = [e for e in phone.errors if not pattern.search(e)]


def open_page(phones, live_server, name: str, scheme: str, lang: str | None = None):
    phone = phones()
    phone.page.emulate_media(color_scheme=scheme)
    if lang:
        phone.goto(f"/?lang={lang}")  # the language switch: the phone remembers it (a cookie)
    expected_console_errors(phone, PAGES[name](phone, live_server))
    return phone


def overflowing_controls(page) -> list[str]:
    """Buttons, links drawn as buttons and chips whose words spill out of them (axe only flags such
    text as "incomplete": it cannot tell the colour behind it)."""
    return page.evaluate("""() => [...document.querySelectorAll('button, .button, .chip span')]
        .filter(e => e.getClientRects().length && e.scrollWidth > e.clientWidth + 1)
        .map(e => `${e.outerHTML.slice(0, 120)} (${e.scrollWidth} px of text in ${e.clientWidth} px)`)""")


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("name", list(PAGES))
def test_no_serious_violations(phones, live_server, name, scheme):
    phone = open_page(phones, live_server, name, scheme)
    page = phone.page
    # the colours checked are the scheme's: the phone's setting reaches the stylesheet
    assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") is (scheme == "dark")
    found = blocking_violations(page)
    assert not found, f"{name} ({scheme}) at {page.url}:\n{report(found)}"
    spilled = overflowing_controls(page)
    assert not spilled, f"{name} ({scheme}) at {page.url}: text spills out of\n" + "\n".join(spilled)


@pytest.mark.skipif(not os.path.exists(os.path.join(TRANSLATIONS, "de", "LC_MESSAGES", "messages.mo")),
                    reason="no German catalogue compiled")
@pytest.mark.parametrize("name", list(PAGES))
def test_german_pages(phones, live_server, name):
    """The same check once in German: longer words, the page's language declared."""
    phone = open_page(phones, live_server, name, "light", lang="de")
    page = phone.page
    assert page.evaluate("document.documentElement.lang") == "de"
    assert page.locator(".skip").text_content() != "Skip to content"  # the catalogue is in use
    found = blocking_violations(page)
    assert not found, f"{name} (German) at {page.url}:\n{report(found)}"
    spilled = overflowing_controls(page)
    assert not spilled, f"{name} (German) at {page.url}: text spills out of\n" + "\n".join(spilled)


def colour_names() -> list[str]:
    """The stylesheet's colour properties (the light ones, in its first :root rule)."""
    css = (Path(__file__).resolve().parents[2] / "referee" / "web" / "static" / "app.css").read_text()
    first = re.search(r":root\{([^}]*)\}", css).group(1)
    names = re.findall(r"(--[\w-]+):", first)
    assert len(names) > 10, names
    return names


def colours(page, names: list[str]) -> dict:
    return page.evaluate("names => { const s = getComputedStyle(document.documentElement);"
                         " return Object.fromEntries(names.map(n => [n, s.getPropertyValue(n).trim()])); }", names)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_colour_switch_gives_the_checked_colours(phones, live_server, scheme):
    """The page's switch sets the same colours as the phone's setting, which the test above checks:
    the stylesheet writes the dark colours twice (@media and data-theme), and they must agree."""
    names = colour_names()
    by_setting = phones()
    by_setting.page.emulate_media(color_scheme=scheme)
    by_setting.goto("/")
    by_switch = phones()
    by_switch.page.emulate_media(color_scheme="light" if scheme == "dark" else "dark")
    by_switch.goto("/")
    by_switch.page.locator("#theme").select_option(scheme)
    assert by_switch.page.evaluate("document.documentElement.dataset.theme") == scheme
    assert colours(by_switch.page, names) == colours(by_setting.page, names)


FOCUSED = """() => {
    const e = document.activeElement;
    const ring = e.matches('.chip input') ? e.nextElementSibling : e;  // a chip draws its ring on its face
    const s = getComputedStyle(ring);
    let behind = 'rgba(0, 0, 0, 0)';
    for (let p = ring.parentElement; p; p = p.parentElement) {
        const b = getComputedStyle(p).backgroundColor;
        if (b !== 'transparent' && !/^rgba\\(.*,\\s*0\\)$/.test(b)) { behind = b; break; }
    }
    return {html: e.outerHTML.slice(0, 100), style: s.outlineStyle, width: parseFloat(s.outlineWidth),
            color: s.outlineColor, behind};
}"""


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_focus_ring_stands_out(phones, live_server, scheme):
    """Tabbing through a game page: every stop shows a ring of at least 2 px, with a contrast of at
    least 3:1 against what it is drawn on (WCAG 1.4.11; axe does not check focus rings)."""
    phone = phones()
    phone.page.emulate_media(color_scheme=scheme)
    join(phone, ninety_nine(live_server))
    page = phone.page
    seen, weak = 0, []
    for _ in range(60):
        page.keyboard.press("Tab")
        stop = page.evaluate(FOCUSED)
        if stop["html"].startswith("<body"):
            break
        seen += 1
        if stop["style"] == "none" or stop["width"] < 2 or contrast(stop["color"], stop["behind"]) < 3:
            weak.append(f"{stop['html']}: {stop['style']} {stop['width']} px {stop['color']} on {stop['behind']}")
    assert seen > 15, seen  # the header, the chips and buttons of the move form, the score sheet
    assert not weak, "focus rings that do not stand out:\n" + "\n".join(weak)
