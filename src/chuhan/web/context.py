"""What every endpoint and socket of one server shares: its settings, store, computer
pool, event bus, rooms and wall clock. :func:`~chuhan.web.app.create_app` builds it at
start-up and keeps it in ``app.state.context``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chuhan.web.events import EventBus
from chuhan.web.pool import Pool
from chuhan.web.round.manager import GameManager
from chuhan.web.settings import Settings
from chuhan.web.store import Store

__all__ = ["ServerContext", "context_of"]


@dataclass(slots=True)
class ServerContext:
    settings: Settings
    store: Store
    pool: Pool
    bus: EventBus
    manager: GameManager
    now: Callable[[], float]


def context_of(connection: Any) -> ServerContext:
    """The context of the app serving a request or a websocket."""
    context: ServerContext = connection.app.state.context
    return context
