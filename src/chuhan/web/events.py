"""The server's event bus: what happened to a game, for whoever wants to react.

A room publishes :class:`StateChanged` after every committed change and
:class:`GameFinished` once, when a game ends. Subscribers (ratings, a lobby, the fan-out
to other server processes) are called in the order they subscribed, on the event loop,
after the change is stored; a subscriber that fails is logged and the others still run.
Events are plain frozen data with JSON-ready fields, so a bus that carries them between
processes can serialise them as they are.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Event", "EventBus", "GameFinished", "StateChanged"]

log = logging.getLogger("chuhan.web")


@dataclass(frozen=True, slots=True)
class StateChanged:
    """A game's stored state changed to ``version`` by ``kind`` (``move``, ``resign``…)."""

    game_id: str
    version: int
    kind: str


@dataclass(frozen=True, slots=True)
class GameFinished:
    """A game ended. ``result`` is the state message's ``result`` object."""

    game_id: str
    variant: str
    kind: str
    result: dict[str, Any]


Event = StateChanged | GameFinished


class EventBus:
    """Publish and subscribe within one process."""

    def __init__(self) -> None:
        self._subscribers: list[tuple[type, Callable[[Any], None]]] = []

    def subscribe(self, kind: type, handler: Callable[[Any], None]) -> Callable[[], None]:
        """Call ``handler(event)`` for every published event of type ``kind``; returns a
        function that unsubscribes."""
        entry = (kind, handler)
        self._subscribers.append(entry)
        return lambda: self._subscribers.remove(entry)

    def publish(self, event: Event) -> None:
        for kind, handler in list(self._subscribers):
            if isinstance(event, kind):
                try:
                    handler(event)
                except Exception:
                    log.exception("event subscriber failed on %r", event)
