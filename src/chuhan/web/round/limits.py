"""The server's settings as its rooms read them (chat limits, the abandonment grace).

The app registers its :class:`~chuhan.web.settings.Settings` for the manager it builds
(:func:`use_settings`); a manager no app registered (a test's) gets the defaults.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from chuhan.web.settings import Settings

if TYPE_CHECKING:
    from chuhan.web.round.manager import GameManager

__all__ = ["settings_of", "use_settings"]

_DEFAULTS = Settings()
_REGISTERED: weakref.WeakKeyDictionary[GameManager, Settings] = weakref.WeakKeyDictionary()


def use_settings(manager: GameManager, settings: Settings) -> None:
    """Make ``settings`` the ones the rooms of ``manager`` follow."""
    _REGISTERED[manager] = settings


def settings_of(manager: GameManager) -> Settings:
    return _REGISTERED.get(manager, _DEFAULTS)
