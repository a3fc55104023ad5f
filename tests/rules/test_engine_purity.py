"""apply() never changes the state it is given, even though a new state shares the finished rounds
with the old one (base.next_state): every earlier state stays as it was when it was made."""
from __future__ import annotations

import json

from bench.common import OPTIONS, PLAYERS, move_stream
from referee.rules import ninety_nine


def test_earlier_states_are_untouched_across_round_ends():
    state = ninety_nine.new_game(list(PLAYERS), dict(OPTIONS))
    history = [(state, json.dumps(state, sort_keys=True))]
    for move in move_stream(400):
        state = ninety_nine.GAME.apply(state, move)
        history.append((state, json.dumps(state, sort_keys=True)))
    assert len(state["rounds"]) >= 3  # several rounds ended, each appended to the shared list
    for old, snapshot in history:
        assert json.dumps(old, sort_keys=True) == snapshot
