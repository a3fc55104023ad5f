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
    phone.goto(f"/g/{created['id']}/table/{created['token']}")
    return created, phone.page


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
