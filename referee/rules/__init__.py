"""Pure rules engines, one module per game, registered by name (see ``base`` for the interface)."""
from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from importlib import import_module
from types import ModuleType

# Game name in URLs -> module. Adding a game is one module here plus its tests.
_MODULES = {
    "ninety-nine": "referee.rules.ninety_nine",
    "nines": "referee.rules.nines",
    "five-crowns": "referee.rules.five_crowns",
    "xix": "referee.rules.xix",
    "sixty-nine": "referee.rules.sixty_nine",
}


class _Registry(Mapping):
    """Engines are imported on first use, so that ``referee.cards`` and the engines can import
    ``referee.rules.base`` without a cycle through this package."""

    @cached_property
    def _engines(self) -> dict[str, ModuleType]:
        return {name: import_module(path) for name, path in _MODULES.items()}

    def __getitem__(self, name: str) -> ModuleType:
        return self._engines[name]

    def __iter__(self):
        return iter(self._engines)

    def __len__(self) -> int:
        return len(self._engines)


ENGINES: Mapping[str, ModuleType] = _Registry()


def get_engine(name: str) -> ModuleType | None:
    return ENGINES.get(name) if isinstance(name, str) else None
