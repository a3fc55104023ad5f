"""Pure rules engines, one module per game, each ending with its ``GAME`` (a ``base.Game``),
registered under the game's own ``name`` (``base`` describes the contract every game follows).
Standard library only."""
from __future__ import annotations

from referee.rules import five_crowns, nines, ninety_nine, sixty_nine, xix
from referee.rules.base import Game

ENGINES: dict[str, Game] = {}


def register(game: Game) -> Game:
    """Add a game under its own ``name``: the service, the API and the pages find it there."""
    ENGINES[game.name] = game
    return game


for _module in (ninety_nine, nines, five_crowns, xix, sixty_nine):
    register(_module.GAME)


def get_engine(name: str) -> Game | None:
    return ENGINES.get(name) if isinstance(name, str) else None
