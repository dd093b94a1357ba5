"""What every endpoint and socket of one server shares: its settings, store, computer
compute, event bus, rooms and wall clock. :func:`~chuhan.web.app.create_app` builds it at
start-up and keeps it in ``app.state.context``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from chuhan.web.bus import Bus
from chuhan.web.compute.service import Compute
from chuhan.web.compute.workers import Workers
from chuhan.web.db import Store
from chuhan.web.db.budgets import Budgets, Rate
from chuhan.web.db.holdings import Holdings
from chuhan.web.settings import Settings
from chuhan.web.sockets.sessions import SessionSockets

if TYPE_CHECKING:  # the features are built by create_app; this module imports none of them
    from chuhan.web.accounts.service import AccountService
    from chuhan.web.analysis.service import AnalysisService
    from chuhan.web.correspondence.service import Correspondence
    from chuhan.web.explorer.service import ExplorerService
    from chuhan.web.explorer.site import SiteGames
    from chuhan.web.lobby.service import Lobby
    from chuhan.web.notices.service import Notices
    from chuhan.web.round.manager import GameManager
    from chuhan.web.round.reads import GameReads
    from chuhan.web.tournaments.service import TournamentService

__all__ = ["ServerContext", "context_of"]


@dataclass(slots=True)
class ServerContext:
    settings: Settings
    store: Store
    compute: Compute
    bus: Bus
    manager: GameManager
    now: Callable[[], float]
    #: New sockets being taken in at once: a crowd arriving together is taken in a few at
    #: a time, so the games already being played keep their turns of the event loop.
    arrivals: asyncio.Semaphore = field(init=False)
    #: The worker that reads uploaded records (:mod:`chuhan.web.imports.uploads`).
    import_workers: Workers = field(init=False)
    #: The websockets open per client address, counted over the live processes
    #: (started and closed by the lifespan).
    holdings: Holdings = field(init=False)
    #: This process's websockets by the session they came with (closed when it ends).
    sessions: SessionSockets = field(init=False)
    #: The rate budgets, kept in the store so that they hold across processes.
    budgets: Budgets = field(init=False)
    #: Games created and records imported per client address.
    create_rate: Rate = field(init=False)
    import_rate: Rate = field(init=False)
    #: Accounts and sessions (:mod:`chuhan.web.accounts.service`; started by the lifespan).
    accounts: AccountService = field(init=False)
    #: The live lobby (:mod:`chuhan.web.lobby.service`; started by the lifespan).
    lobby: Lobby = field(init=False)
    #: The analysis boards' engine and the game reviews (:mod:`chuhan.web.analysis.service`).
    analysis: AnalysisService = field(init=False)
    #: The games read by requests, kept and built off the event loop
    #: (:mod:`chuhan.web.round.reads`).
    reads: GameReads = field(init=False)
    #: Tournaments (:mod:`chuhan.web.tournaments.service`).
    tournaments: TournamentService = field(init=False)
    #: The opening explorer's index (:mod:`chuhan.web.explorer.service`).
    explorer: ExplorerService = field(init=False)
    #: The explorer's second source, this server's own games in its database
    #: (:mod:`chuhan.web.explorer.site`).
    site_games: SiteGames = field(init=False)
    #: Correspondence deadlines and "your games" (:mod:`chuhan.web.correspondence.service`).
    correspondence: Correspondence = field(init=False)
    #: The e-mail digests (:mod:`chuhan.web.notices.service`).
    notices: Notices = field(init=False)

    def __post_init__(self) -> None:
        settings = self.settings
        self.budgets = Budgets(self.store, self.now)
        self.sessions = SessionSockets()
        self.holdings = Holdings(self.store, settings.takeover_seconds)
        self.create_rate = Rate(settings.create_burst, settings.create_every_seconds)
        self.import_rate = Rate(settings.import_burst, settings.import_every_seconds)
        self.import_workers = Workers(1, "import", max_waiting=settings.import_waiting)
        self.arrivals = asyncio.Semaphore(settings.arrivals_at_once)


def context_of(connection: Any) -> ServerContext:
    """The context of the app serving a request or a websocket."""
    context: ServerContext = connection.app.state.context
    return context
