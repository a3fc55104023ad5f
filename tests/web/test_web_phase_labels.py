"""A phase on the pages: the shared catalogue's label, else the game's own ``phase_labels``, else the
phase's name as it is (``referee.web.games.phase_text``)."""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from referee.texts import N_
from referee.web.games import PHASES, phase_text

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "contract"))
import high_card  # noqa: E402  (its phase, "show", is in no catalogue)


def test_a_games_own_phase_prints_its_declared_label(app):
    labelled = dataclasses.replace(high_card.GAME, phase_labels={"show": N_("cards shown"), "deal": N_("not this")})
    with app.test_request_context("/"):
        assert phase_text("show", labelled) == "cards shown"
        assert phase_text("show", high_card.GAME) == "show"
        assert phase_text("round_over", high_card.GAME) == "round over"
        assert phase_text("deal", labelled) == str(PHASES["deal"])  # the shared catalogue's, translated
    assert phase_text(None, labelled) is None
