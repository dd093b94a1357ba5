"""The server's bus: what happened, for whoever wants to react, in this process and from
the other processes that share its database.

Local events: a room publishes :class:`StateChanged` after every committed change and
:class:`GameFinished` once, when a game ends. Notices between processes
(:class:`~chuhan.web.db.Notice`): :meth:`Bus.notify` sends one to the other processes (a
store nobody shares sends nothing), and once :meth:`Bus.hear_other_processes` is called,
every notice another process sends is published here like a local event, so a subscriber
of ``Notice`` hears them (the rooms' manager does, and hands the lobby its own and the
sockets' sessions theirs: :mod:`chuhan.web.sockets.sessions`). Subscribers
are called in the order they subscribed, on the event loop, after the change is stored; a
subscriber that fails is logged and the others still run. Events are plain frozen data with
JSON-ready fields.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chuhan.web.db import Notice

if TYPE_CHECKING:
    from chuhan.web.db import Store

__all__ = ["Bus", "Event", "GameFinished", "Notice", "StateChanged"]

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


Event = StateChanged | GameFinished | Notice


class Bus:
    """Publish and subscribe within one process; notices to and from the other processes
    on ``store`` (None: this process alone)."""

    def __init__(self, store: Store | None = None) -> None:
        self.store = store
        self._subscribers: list[tuple[type, Callable[[Any], None]]] = []

    async def notify(self, game_id: str, kind: str, data: dict[str, Any]) -> None:
        """Send a notice to the other processes (see :class:`~chuhan.web.db.Notice`);
        raises :class:`~chuhan.web.db.StoreError` when it cannot."""
        if self.store is not None:
            await self.store.notify(game_id, kind, data)

    async def hear_other_processes(self) -> None:
        """From now on publish every notice the other processes send."""
        if self.store is not None:
            await self.store.listen(self.publish)

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
