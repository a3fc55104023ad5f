"""Steps shared by the browser tests: open a table's page, submit a form, check a refusal."""
from __future__ import annotations

import re

import requests
from playwright.sync_api import expect


def table_phone(phone, base: str, game: str, players: list[str], options=None):
    response = requests.post(f"{base}/api/v1/games", json={"game": game, "players": players,
                                                           "options": options or {}}, timeout=5)
    assert response.status_code == 201, response.text
    created = response.json()
    join(phone, created)
    return created, phone.page


def make_link(base: str, game: dict) -> dict:
    """A table link, made with the game's token (the API)."""
    response = requests.post(f"{base}/api/v1/games/{game['id']}/links", timeout=5,
                             headers={"Authorization": f"Bearer {game['token']}"})
    assert response.status_code == 201, response.text
    return response.json()


def open_link(phone, url: str, game_id: str):
    """Open a table link (``/g/<id>/join#<code>``) as a person would: with scripts on, the join page
    posts the fragment's code by itself; with scripts off, the link is pasted into its form."""
    page = phone.page
    phone.goto(url)
    if not phone.scripts:
        page.locator("#code").fill(url)
        page.get_by_role("button", name="Join the table").click()
    page.wait_for_url(f"{phone.base}/g/{game_id}")


def join(phone, game: dict) -> dict:
    """The phone joins the table through a fresh table link; returns the link."""
    link = make_link(phone.base, game)
    open_link(phone, f"/g/{game['id']}/join#{link['code']}", game["id"])
    return link


def submit(page, form_id: str):
    page.locator(f"#{form_id} button[type=submit]").first.click()
    page.wait_for_load_state()


def refused(page, rule: str):
    expect(page.locator("#refused")).to_contain_text(f"Ruling {rule}")


def undo(page):
    page.get_by_role("link", name=re.compile("Undo the last move")).click()
    page.get_by_role("button", name="Yes, undo it").click()


def assert_fits_360(page):
    """No horizontal scrolling on a 360 px wide phone."""
    page.set_viewport_size({"width": 360, "height": 740})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.set_viewport_size({"width": 390, "height": 844})
