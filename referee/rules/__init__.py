"""Pure rules engines, one module per game, registered under each engine's own ``NAME``
(``base`` describes the contract every engine follows). Standard library only."""
from __future__ import annotations

from types import ModuleType

from referee.rules import five_crowns, nines, ninety_nine, sixty_nine, xix

ENGINES: dict[str, ModuleType] = {}


def register(engine: ModuleType) -> ModuleType:
    """Add an engine under its own ``NAME``: the service, the API and the pages find it there."""
    ENGINES[engine.NAME] = engine
    return engine


for _engine in (ninety_nine, nines, five_crowns, xix, sixty_nine):
    register(_engine)


def get_engine(name: str) -> ModuleType | None:
    return ENGINES.get(name) if isinstance(name, str) else None
