"""Where the web server keeps its games: the storage contract and its implementations.

A store keeps one row per game (enough to rebuild the :class:`~chuhan.game.Game` by
replaying its moves), the seat tokens, an append-only event log and the chat. Every
method is a coroutine, so no implementation ever blocks the event loop, and every write is
one transaction, committed before the coroutine returns: the server acknowledges an action
only after the store has it.

Implementations: :class:`~chuhan.web.store.sqlite.SqliteStore` (one file, one server; the
default). A store that is shared by several server processes (PostgreSQL) implements the
same :class:`Store` protocol. Game logic catches :class:`StoreError` only, never a
driver's own exceptions.

Damage stays with the games it touches: a game whose rows cannot be read raises
:class:`GameUnreadable` when it is asked for, is left out of lists (and logged), and
every other game is served. A store that finds damage, or data that may be missing, when
it opens says so in sentences on the ``chuhan.web.store`` log; it refuses to open (with a
:class:`StoreError` that says why) only a database it cannot use at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from chuhan.errors import ChuhanError

__all__ = [
    "QUIET_EVENTS",
    "ChatLine",
    "DatabaseInUse",
    "GameRow",
    "GameUnreadable",
    "Store",
    "StoreError",
    "StoredEvent",
    "open_store",
]

#: Events logged without changing the game's state version.
QUIET_EVENTS = ("create", "import", "name", "setup_timer")


class StoreError(ChuhanError):
    """The store cannot do what was asked: it cannot be opened, is not a chuhan database,
    or a read or write failed (the message says which, naming the database)."""


class DatabaseInUse(StoreError):
    """Another chuhan server has the game database open. ``owner`` is what it wrote in
    the lock file: its ``pid`` and, once it listens, its ``url``."""

    def __init__(self, path: Path, owner: dict[str, Any]) -> None:
        self.path = path
        self.owner = owner
        who = f"process {owner.get('pid', '?')}"
        if owner.get("url"):
            who += f", serving {owner['url']}"
        super().__init__(
            f"the game database {path} is in use by another chuhan server ({who}); "
            "stop that server or choose another --db"
        )


class GameUnreadable(StoreError):
    """One game's stored rows cannot be read (a damaged database page, a value that is
    not what this version wrote); the other games are unaffected."""

    def __init__(self, game_id: str, reason: str) -> None:
        self.game_id = game_id
        super().__init__(f"game {game_id[:40]!r} cannot be read from the database: {reason}")


@dataclass
class GameRow:
    """One game as stored. The mutable part (from ``version`` on) is rewritten by
    :meth:`Store.save_game` after every accepted action."""

    id: str
    kind: str
    variant: str
    rules: str
    start_fen: str | None
    time_control: dict[str, Any] | None
    level: int | None
    computer_side: str | None
    names: dict[str, str]
    created: float
    updated: float
    version: int = 1
    status: str = "playing"
    setup: dict[str, str] = field(default_factory=dict)
    setup_deadline: float | None = None
    moves: list[str] = field(default_factory=list)
    clock: dict[str, Any] | None = None
    clock_at: float | None = None
    offers: dict[str, str | None] = field(default_factory=dict)
    ending: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    rematch: dict[str, Any] | None = None


class StoredEvent(NamedTuple):
    """One entry of a game's event log: what happened (``kind`` and ``data``), when (``at``,
    the server's wall clock) and the state version it made."""

    version: int
    at: float
    kind: str
    data: dict[str, Any]


class ChatLine(NamedTuple):
    at: float
    sender: str
    name: str
    text: str


class Store(Protocol):
    """What the web server needs from a game database."""

    def announce(self, url: str) -> None:
        """Say where this server listens (for ``chuhan play`` to find it)."""

    async def close(self) -> None:
        """Let the database go, complete: nothing committed is left only in a place a copy
        of the database could miss (SQLite's write-ahead log)."""

    async def create_game(
        self, row: GameRow, seats: dict[str, str], *, event: str = "create"
    ) -> None:
        """Insert a new game and its seat tokens (``{token: seat}``) in one transaction."""

    async def save_game(self, row: GameRow, event: str, data: dict[str, Any]) -> None:
        """Write the game's mutable state and log ``event`` in one transaction."""

    async def add_chat(self, game_id: str, line: ChatLine) -> None: ...

    async def load_game(self, game_id: str) -> GameRow | None:
        """The game's row, None if there is no such game; :class:`GameUnreadable` if its
        rows are damaged."""

    async def seat(self, token: str) -> tuple[str, str] | None:
        """The ``(game_id, seat)`` a token opens, or None."""

    async def seats_of(self, game_id: str) -> dict[str, str]:
        """``{seat: token}`` of one game; :class:`GameUnreadable` if they cannot be
        read."""

    async def games_for_tokens(self, tokens: list[str]) -> list[tuple[str, str, GameRow]]:
        """``(token, seat, game)`` for every known token, most recently updated first
        (games that cannot be read are left out, and logged)."""

    async def unfinished_game_ids(self) -> list[str]:
        """The games not over (rows that cannot be read are left out, and logged)."""

    async def chat_history(self, game_id: str, limit: int = 50) -> list[ChatLine]:
        """The last ``limit`` lines, oldest first (empty, and logged, if they cannot be
        read: a damaged chat does not stop the game)."""

    async def events(self, game_id: str) -> list[StoredEvent]:
        """The game's event log in order (the truth a game is rebuilt from);
        :class:`GameUnreadable` if it cannot be read."""


def open_store(location: str | Path) -> Store:
    """The store at ``location``: a SQLite file path (the default kind)."""
    from chuhan.web.store.sqlite import SqliteStore

    return SqliteStore(location)
