"""Nines at the table: once a player is done, one form turns every other grid up (N9-4)."""
from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "api"))
from test_nines_http import ANN_FILL, BOB_GRID, CY_GRID, DEAL, PLAYERS, turn  # noqa: E402


def test_every_other_grid_in_one_form(table_client, api):
    game = api.create("nines", PLAYERS)
    api.move(game, DEAL)
    others = iter(["9H", "9S", "10H", "10S", "JH", "JS", "QC", "QD", "10C", "10D"])
    for i, (card, position, replaced) in enumerate(ANN_FILL):
        api.move(game, turn("Ann", "stock", card, position, replaced))
        if i < len(ANN_FILL) - 1:
            api.move(game, turn("Bob", "stock", next(others)))
            api.move(game, turn("Cy", "stock", next(others)))
    table = table_client(game)
    html = table.get(f"/g/{game['id']}").get_data(as_text=True)
    assert 'id="reveal-all-form"' in html
    form = html[html.index('id="reveal-all-form"'):]
    data = {name: value for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form)[:4]}
    assert data["type"] == "reveal_all"
    cy = [code for row in CY_GRID for code in row]
    for index, grid in ((1, BOB_GRID), (2, cy)):
        data.update({f"g-{index}-{pos}": code for pos, code in enumerate(grid)})
    response = table.post(f"/g/{game['id']}/move", data=data)
    assert response.status_code == 302
    body = api.state(game)
    assert body["phase"] == "final" and body["grids"]["Bob"] == BOB_GRID and body["grids"]["Cy"] == cy
    log = table.get(f"/g/{game['id']}/log").get_data(as_text=True)
    assert "Every other grid turned face up" in log


def test_a_move_without_a_form_of_its_own_gets_one_from_its_declaration(table_client, api, monkeypatch):
    """A game's own template renders the moves it names (``own_forms``); any other move that
    ``allowed`` lists is offered with a form built from its declaration."""
    from referee.rules import ENGINES
    from referee.web.games import ui_for

    for name, engine in ENGINES.items():
        assert ui_for(name).own_forms <= set(engine.moves), name
    game = api.create("nines", PLAYERS)
    table = table_client(game)
    html = table.get(f"/g/{game['id']}").get_data(as_text=True)
    assert 'id="other-moves"' not in html                      # every allowed move has its form:
    assert 'id="adjust-form"' in html                          # the table's own (T-2) in a section of its own
    monkeypatch.setattr(type(ui_for("nines")), "own_forms", frozenset({"deal", "turn"}))
    html = table.get(f"/g/{game['id']}").get_data(as_text=True)
    other = html[html.index('id="other-moves"'):]
    assert 'data-move="hand_result"' in other and 'data-move="deal"' not in other
