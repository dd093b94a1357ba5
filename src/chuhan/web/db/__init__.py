"""Where the web server keeps its games: the storage contract and its implementations.

A store keeps one row per game (enough to rebuild the :class:`~chuhan.game.Game` by
replaying its moves), the seat tokens, an append-only event log and the chat. Every
method is a coroutine, so no implementation ever blocks the event loop, and every write is
one transaction, committed before the coroutine returns: the server acknowledges an action
only after the store has it.

Implementations: :class:`~chuhan.web.db.sqlite.SqliteStore` (one file, one server; the
default) and :class:`~chuhan.web.db.postgres.PostgresStore` (one database shared by any
number of server processes, on one machine or many). Game logic catches
:class:`StoreError` only, never a driver's own exceptions.

Several processes on one store (``shared``): a game has one writer at a time because every
write names the revision it was made on (:attr:`GameRow.revision`, the number of events
logged) and is refused with :class:`StoreConflict` when another process wrote first. Every
committed write is announced to the other processes (:class:`Notice`, delivered to the
handler given to :meth:`Store.listen`), right after it commits, with the write itself when
it fits (:func:`~chuhan.web.db.rows.game_notice`), so they catch up from the notice
(:func:`~chuhan.web.db.rows.noticed_change`) or,
when one is missing, with :meth:`Store.game_since`; every second each process also compares
its games' revisions with the store's (:meth:`Store.newer_revisions`), so a notice lost
in a crash costs two seconds at most. Clocks, setup deadlines and computer moves of an unfinished
game are driven by one process, its *driver*; :meth:`Store.beat` keeps this process alive in the
database and hands it the games of processes that stopped beating.

Damage stays with the games it touches: a game whose rows cannot be read raises
:class:`GameUnreadable` when it is asked for, is left out of lists (and logged), and
every other game is served. A store that finds damage, or data that may be missing, when
it opens says so in sentences on the ``chuhan.web.db`` log; it refuses to open (with a
:class:`StoreError` that says why) only a database it cannot use at all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TypeVar

from chuhan.web.db.errors import DatabaseInUse, Duplicate, GameUnreadable, StoreConflict, StoreError
from chuhan.web.db.statements import Body

T = TypeVar("T")

__all__ = [
    "DB_ENVIRONMENT",
    "QUIET_EVENTS",
    "ChatLine",
    "DatabaseInUse",
    "Duplicate",
    "GameRow",
    "GameUnreadable",
    "Notice",
    "Store",
    "StoreConflict",
    "StoreError",
    "StoredEvent",
    "is_database_url",
    "open_store",
    "shown_location",
]

#: Events logged without changing the game's state version.
QUIET_EVENTS = ("create", "import", "name", "setup_timer")


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
    #: How many events the game's log holds: a write is made on this revision and the
    #: store moves it on by one (see :meth:`Store.save_game`).
    revision: int = 0
    #: The ``clock`` column's JSON text, when the row was computed with it (a live game's
    #: row, :meth:`~chuhan.clock.Clock.stored`): written as it is, not encoded again. Not
    #: an argument: a row made from another (``dataclasses.replace``) has none.
    clock_text: str | None = field(default=None, init=False, compare=False, repr=False)


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


@dataclass(frozen=True, slots=True)
class Notice:
    """What another server process announced about a game (see :meth:`Store.listen`).

    - ``game``: a write committed; ``data`` is ``{"revision": r}``, the game's new revision,
      and (when it fits) the write itself, ``event`` and ``row``: see
      :func:`~chuhan.web.db.rows.game_notice`;
    - ``chat``: a chat line was stored; ``data`` is ``{"line": [at, sender, name, text]}``
      (or empty, when the line was too long to announce: read the chat again);
    - ``presence``: who that process has connected to the game; ``data`` is
      ``{"roles": {role: count}}`` (an empty dict: nobody any more);
    - ``lobby``: the lobby changed (``game_id`` is empty; see :mod:`chuhan.web.lobby.service`);
    - ``session``: sessions ended; ``data`` is ``{"ended": [session keys]}`` (``game_id`` is
      empty): the sockets opened with them are closed (:mod:`chuhan.web.sockets.sessions`);
    - ``resync``: notices may have been missed (the store lost its connection to the
      database and has it again); ``game_id`` is empty: catch up every game in memory.
    """

    kind: str
    game_id: str
    origin: str
    data: dict[str, Any]


class Store(Protocol):
    """What the web server needs from a game database: a driver that runs transaction
    bodies (:meth:`write`, :meth:`read`; each feature's repository writes its own, such as
    :class:`~chuhan.web.accounts.repository.AccountRepository`), hears the other processes
    (:meth:`listen`, :meth:`notify`) and beats; and the games' tuned paths."""

    #: Whether other server processes may use this database at the same time.
    shared: bool
    #: This process's name in the database (a random id chosen when the store is made);
    #: notices carry it as their ``origin`` and games record it as their driver.
    server_id: str

    async def open(self) -> None:
        """Connect, on the event loop that will use the store (before any other coroutine;
        the SQLite store is already open when it is made). Raises :class:`StoreError` with
        a sentence naming the database when it cannot be reached or used."""

    def announce(self, url: str) -> None:
        """Say where this server listens (for ``chuhan play`` to find it)."""

    async def write(self, body: Body[T], what: str) -> T:
        """Run the transaction ``body`` (:mod:`chuhan.web.db.statements`): the SQLite
        store in its next group commit, the PostgreSQL store in a transaction with the
        locks the body asks for; its result, once committed. ``what`` names it in an
        error."""

    async def read(self, body: Body[T], what: str) -> T:
        """Run a body that only reads (no transaction of its own)."""

    async def close(self) -> None:
        """Let the database go, complete: nothing committed is left only in a place a copy
        of the database could miss (SQLite's write-ahead log)."""

    async def create_game(
        self, row: GameRow, seats: dict[str, str], *, event: str = "create"
    ) -> None:
        """Insert a new game and its seat tokens (``{token: seat}``) in one transaction, with
        ``event`` as its first logged event (``row.revision`` becomes 1); this process
        becomes its driver."""

    async def save_game(
        self,
        row: GameRow,
        event: str,
        data: dict[str, Any],
        *,
        changed: frozenset[str] | None = None,
    ) -> None:
        """Write the game's mutable state and log ``event`` as event number
        ``row.revision + 1``, in one transaction, if the stored game is still at
        ``row.revision`` (then ``row.revision`` is moved on by one, and a ``game`` notice
        goes to the other processes once the transaction has committed: notices travel in
        batches after the writes, and one a crash loses is made up by the others' next
        check of :meth:`revisions`). Raises
        :class:`StoreConflict`, having written nothing, when another process wrote
        first. ``changed``, when given, names the columns (of ``rows.SAVED``) that may
        differ from the row stored at ``row.revision``: a store may leave the others as
        they are (SQLite does; PostgreSQL's batched statement writes them all)."""

    async def add_chat(self, game_id: str, line: ChatLine) -> None:
        """Store a chat line (and announce it: a ``chat`` notice)."""

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

    async def game_since(
        self, game_id: str, revision: int
    ) -> tuple[GameRow, list[StoredEvent]] | None:
        """The game's row and the events logged after ``revision`` (numbers
        ``revision + 1`` to ``row.revision``), read together from one snapshot; None if
        there is no such game; :class:`GameUnreadable` if its rows are damaged."""

    # ------------------------------------------------------------ several processes

    async def listen(self, handler: Callable[[Notice], None]) -> None:
        """From now on call ``handler`` (on the event loop) with every notice other server
        processes send (never this process's own); a store nobody else shares never
        calls it."""

    async def notify(self, game_id: str, kind: str, data: dict[str, Any]) -> None:
        """Send a notice to the other processes (a shared store; otherwise nothing)."""

    async def beat(self, takeover_seconds: float) -> set[str]:
        """Mark this process alive; take over (become the driver of) the unfinished games
        whose driver has not beaten for ``takeover_seconds``, or has none; return the ids of
        every unfinished game this process drives now. A store nobody else shares drives
        every unfinished game."""

    async def newer_revisions(self, held: dict[str, int]) -> dict[str, int]:
        """Of the games in ``held`` (id: the revision this process holds), those stored at a
        newer revision, with that revision: a process compares its rooms with the store,
        so a notice lost never leaves a room behind."""

    async def live_servers(self, takeover_seconds: float) -> set[str]:
        """The server processes (their :attr:`server_id`) that have beaten within
        ``takeover_seconds``: what others heard from a process not among them (who it had
        connected) is forgotten."""


#: Environment variable naming the game database when ``--db`` is not given.
DB_ENVIRONMENT = "CHUHAN_DB"


def is_database_url(location: str | Path) -> bool:
    """Whether ``location`` names a PostgreSQL database (``postgresql://`` or
    ``postgres://``) rather than a SQLite file."""
    text = str(location)
    return text.startswith(("postgresql://", "postgres://"))


def shown_location(location: str | Path) -> str:
    """``location`` as it may be printed: a database address without its password."""
    text = str(location)
    if not is_database_url(text):
        return text
    scheme, _, rest = text.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not at:
        return text
    user = credentials.split(":", 1)[0]
    return f"{scheme}://{user}@{host}" if user else f"{scheme}://{host}"


def open_store(location: str | Path) -> Store:
    """The store at ``location``: a PostgreSQL address (``postgresql://USER@HOST/DB``,
    not yet connected: :meth:`Store.open` connects) or a SQLite file path (the default
    kind, open at once)."""
    if is_database_url(location):
        from chuhan.web.db.postgres import PostgresStore

        return PostgresStore(str(location))
    from chuhan.web.db.sqlite import SqliteStore

    return SqliteStore(location)
