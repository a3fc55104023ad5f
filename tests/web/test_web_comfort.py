"""At night and between turns: dark colours (the phone's setting, or the page's switch, remembered),
the screen kept on during a game (Screen Wake Lock API, a switch), text that follows the browser's
size without breaking the page, and a table of 21 players that still reads on a 360 px phone."""
from __future__ import annotations

import re

import pytest
import requests
from playwright.sync_api import expect

from test_web_ninety_nine import api_move as move, create_via_api as create

pytestmark = pytest.mark.browser

NARROW = {"width": 360, "height": 740}
LONG_NAMES = ["Anastasia Konstantinopoulou-Wolfe", "Bartholomew", "Cid", "Dorothea-Wilhelmina", "Eve",
              "Fitzgerald Montgomery", "Gus", "Hildegard von Bingen", "Ian", "Jo", "Kristoffersen",
              "Lu", "Maximiliana Esperanza", "Ned", "Oluwaseun", "Pat", "Quentin", "Rosalind", "Sol",
              "Tatiana Alexandrovna", "Ugo"]


def scored_five_crowns(base: str, players: list[str]) -> dict:
    """A Five Crowns game with one round on its score sheet."""
    game = create(base, "five-crowns", players)
    move(base, game, {"type": "round_result", "went_out": players[0],
                      "hands": {p: {"points": 3 * i} for i, p in enumerate(players) if i}})
    return game


def rgb(css: str) -> tuple[int, int, int]:
    return tuple(int(x) for x in re.findall(r"\d+(?:\.\d+)?", css)[:3])


def luminance(css: str) -> float:
    def channel(c):
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in rgb(css))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def body_colours(page) -> tuple[str, str]:
    return page.evaluate("(() => { const s = getComputedStyle(document.body);"
                         " return [s.backgroundColor, s.color]; })()")


def assert_dark(page):
    background, text = body_colours(page)
    assert luminance(background) < 0.05 and luminance(text) > 0.6, (background, text)
    assert contrast(background, text) >= 4.5


def assert_light(page):
    background, text = body_colours(page)
    assert luminance(background) > 0.8 and luminance(text) < 0.05, (background, text)
    assert contrast(background, text) >= 4.5


def no_page_overflow(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def sticking_out(page) -> list[str]:
    """The elements that reach past the right edge of the page (for the failure message)."""
    return page.evaluate("""() => [...document.querySelectorAll('body *')]
        .filter(e => !e.closest('.scroll') && e.getBoundingClientRect().right > window.innerWidth + 0.5)
        .map(e => e.tagName + '.' + e.className + '#' + e.id + ' ' + Math.round(e.getBoundingClientRect().right) + ' ' + e.textContent.slice(0, 60))
        .slice(0, 12)""")


# ---------------------------------------------------------------------------------------- colours

def test_dark_mode_follows_the_phone_and_the_switch_is_remembered(phones, live_server):
    game = scored_five_crowns(live_server, ["Ann", "Bob", "Cid"])
    phone = phones()
    page = phone.page
    page.emulate_media(color_scheme="dark")
    phone.goto(f"/g/{game['id']}")
    assert_dark(page)
    # the texts that are not the body's own colour read on the dark page too
    for selector in (".facts dd", "table.sheet td small", ".top a", "h1 small"):
        colours = page.evaluate("sel => { const e = document.querySelector(sel); const s = getComputedStyle(e);"
                                " return s.color; }", selector)
        back = page.evaluate("sel => { let e = document.querySelector(sel);"
                             " while (e) { const b = getComputedStyle(e).backgroundColor;"
                             " if (!/rgba\\(0, 0, 0, 0\\)|transparent/.test(b)) return b; e = e.parentElement; }"
                             " return 'rgb(255, 255, 255)'; }", selector)
        assert contrast(colours, back) >= 4.5, (selector, colours, back)
    switch = page.get_by_role("combobox", name="Colours")
    expect(switch).to_be_visible()
    expect(switch).to_have_value("auto")

    switch.select_option("light")
    expect(page.locator("html")).to_have_attribute("data-theme", "light")
    assert_light(page)
    page.reload()
    assert_light(page)                                   # remembered by this phone
    expect(page.get_by_role("combobox", name="Colours")).to_have_value("light")
    phone.goto("/")
    assert_light(page)                                   # on every page

    page.get_by_role("combobox", name="Colours").select_option("auto")
    assert_dark(page)
    page.reload()
    assert_dark(page)

    page.emulate_media(color_scheme="light")
    page.get_by_role("combobox", name="Colours").select_option("dark")
    assert_dark(page)                                    # the switch beats a light phone
    phone.goto(f"/g/{game['id']}")
    assert_dark(page)
    phone.screenshot("comfort-dark-game")


def test_dark_mode_without_scripts(phones, live_server):
    phone = phones(scripts=False)
    phone.page.emulate_media(color_scheme="dark")
    phone.goto("/")
    assert_dark(phone.page)
    expect(phone.page.locator("#theme")).to_be_hidden()  # a switch that could do nothing is not shown
    phone.page.emulate_media(color_scheme="light")
    assert_light(phone.page)


# ------------------------------------------------------------------------------------- wake lock

WAKE_STUB = """
window.__wake = [];
(() => {
  const refuse = %s;
  const lock = {
    request(type) {
      window.__wake.push('request:' + type);
      if (refuse) return Promise.reject(new DOMException('not allowed', 'NotAllowedError'));
      const sentinel = new EventTarget();
      sentinel.type = type;
      sentinel.released = false;
      sentinel.release = () => {
        if (!sentinel.released) {
          sentinel.released = true;
          window.__wake.push('release');
          sentinel.dispatchEvent(new Event('release'));
        }
        return Promise.resolve();
      };
      window.__wake_sentinel = sentinel;
      return Promise.resolve(sentinel);
    },
  };
  Object.defineProperty(Navigator.prototype, 'wakeLock', {configurable: true, get: () => lock});
})();
"""


def wake_calls(page) -> list[str]:
    return page.evaluate("window.__wake")


def test_the_screen_is_kept_on_during_a_game(phones, live_server):
    game = create(live_server, "ninety-nine", ["Ann", "Bob", "Cid"])
    phone = phones()
    page = phone.page
    phone.context.add_init_script(WAKE_STUB % "false")

    phone.goto("/")
    expect(page.locator("#wake")).to_be_hidden()         # only on a game page
    assert wake_calls(page) == []

    phone.goto(f"/g/{game['id']}")
    switch = page.get_by_role("checkbox", name="Keep the screen on")
    expect(switch).to_be_visible()
    expect(switch).to_be_checked()                        # on unless switched off
    expect(page.locator("#wake")).to_have_attribute("data-wake", "on")
    assert wake_calls(page) == ["request:screen"]

    # the browser lets go when the page is hidden; the page asks again when it is shown
    page.evaluate("window.__wake_sentinel.release()")
    expect(page.locator("#wake")).to_have_attribute("data-wake", "released")
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    expect(page.locator("#wake")).to_have_attribute("data-wake", "on")
    assert wake_calls(page) == ["request:screen", "release", "request:screen"]

    switch.uncheck()
    expect(page.locator("#wake")).to_have_attribute("data-wake", "off")
    assert wake_calls(page)[-1] == "release"
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    page.reload()                                         # switched off stays off on this phone
    expect(page.get_by_role("checkbox", name="Keep the screen on")).not_to_be_checked()
    page.wait_for_load_state("load")
    assert wake_calls(page) == []

    page.get_by_role("checkbox", name="Keep the screen on").check()
    expect(page.locator("#wake")).to_have_attribute("data-wake", "on")
    assert wake_calls(page) == ["request:screen"]


def test_a_refused_wake_lock_is_quiet(phones, live_server):
    game = create(live_server, "ninety-nine", ["Ann", "Bob"])
    phone = phones()
    phone.context.add_init_script(WAKE_STUB % "true")
    phone.goto(f"/g/{game['id']}")
    expect(phone.page.locator("#wake")).to_have_attribute("data-wake", "refused")
    assert wake_calls(phone.page) == ["request:screen"]
    # the phones fixture fails the test on any console error (an unhandled rejection among them)


def test_no_wake_lock_switch_without_the_api(phones, live_server):
    game = create(live_server, "ninety-nine", ["Ann", "Bob"])
    phone = phones()
    phone.context.add_init_script("delete Navigator.prototype.wakeLock; delete navigator.wakeLock;")
    phone.goto(f"/g/{game['id']}")
    expect(phone.page.locator("#game")).to_be_visible()
    assert phone.page.evaluate("'wakeLock' in navigator") is False
    expect(phone.page.locator("#wake")).to_be_hidden()


# ------------------------------------------------------------------------------------- text size

def root_font_px(page) -> float:
    return page.evaluate("parseFloat(getComputedStyle(document.documentElement).fontSize)")


def test_larger_text_does_not_break_the_pages(phones, live_server):
    games = [scored_five_crowns(live_server, ["Ann", "Bartholomew", "Cid"]),
             create(live_server, "ninety-nine", ["Ann", "Bob", "Cid"]),
             create(live_server, "nines", ["Ann", "Bob", "Cid"]),
             create(live_server, "sixty-nine", ["Ann", "Bob", "Cid"]),
             create(live_server, "xix", ["Ann", "Bob"])]
    paths = ["/", "/new/five-crowns"] + [f"/g/{g['id']}" for g in games]
    phone = phones()
    page = phone.page
    # the browser's own text size (Chromium's default font size: 150%, then 200%): the page follows it
    cdp = phone.context.new_cdp_session(page)
    for default in (24, 32):
        cdp.send("Page.setFontSizes", {"fontSizes": {"standard": default, "fixed": default}})
        for path in paths:
            phone.goto(path)
            assert root_font_px(page) == pytest.approx(default * 17 / 16)
            assert no_page_overflow(page), (path, default, sticking_out(page))
    phone.screenshot("comfort-text-200")
    # text at 200% set on the page itself, the browser's default left as it is
    cdp.send("Page.setFontSizes", {"fontSizes": {"standard": 16, "fixed": 13}})
    for path in paths:
        phone.goto(path)
        assert root_font_px(page) == pytest.approx(17)
        page.evaluate("document.documentElement.style.fontSize = '200%'")
        assert root_font_px(page) == pytest.approx(32)
        assert no_page_overflow(page), (path, "text at 200%", sticking_out(page))


# ------------------------------------------------------------------------------- a long table

def test_twenty_one_players_on_a_360_px_phone(phones, live_server):
    rules = requests.get(f"{live_server}/api/v1/rules", timeout=5).json()
    assert "21" in str(rules)                             # Five Crowns seats up to 21 (FC-8)
    game = scored_five_crowns(live_server, LONG_NAMES)
    phone = phones(viewport=NARROW)
    page = phone.page
    phone.goto(f"/g/{game['id']}")
    expect(page.locator("table.sheet tbody tr")).to_have_count(1)
    assert no_page_overflow(page)

    box = page.locator("#scores .scroll")
    sizes = box.evaluate("e => [e.scrollWidth, e.clientWidth, getComputedStyle(e).overflowX]")
    assert sizes[0] > sizes[1] and sizes[2] == "auto", sizes    # the sheet scrolls in its box
    heads = page.locator("table.sheet thead th")
    expect(heads).to_have_count(len(LONG_NAMES) + 1)
    for i, name in enumerate(LONG_NAMES, start=1):
        head = heads.nth(i)
        expect(head).to_have_text(name)
        cut = head.evaluate("e => e.scrollWidth > e.clientWidth || getComputedStyle(e).textOverflow === 'ellipsis'")
        assert not cut, name
    for name in LONG_NAMES:
        expect(page.locator("#scores table.standings")).to_contain_text(name)

    # scrolling to the last player keeps the round column in view
    box.evaluate("e => { e.scrollLeft = e.scrollWidth; }")
    round_head = page.locator("table.sheet thead th").first.bounding_box()
    box_left = box.bounding_box()["x"]
    assert abs(round_head["x"] - box_left) < 2
    last = heads.nth(len(LONG_NAMES)).bounding_box()
    assert last["x"] + last["width"] <= NARROW["width"] + 1
    assert no_page_overflow(page)
    phone.screenshot("comfort-21-players-360")

    page.evaluate("document.documentElement.style.fontSize = '200%'")
    assert no_page_overflow(page), sticking_out(page)
