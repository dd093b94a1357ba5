"""The database layer's errors. Game logic catches :class:`StoreError` only, never a
driver's own exceptions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chuhan.errors import ServiceError

__all__ = ["DatabaseInUse", "Duplicate", "GameUnreadable", "StoreConflict", "StoreError"]


class StoreError(ServiceError):
    """The store cannot do what was asked: it cannot be opened, is not a chuhan database,
    or a read or write failed (the message says which, naming the database). A service
    error, never an input error: a database failure is never told to a player as an
    illegal move."""


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


class StoreConflict(StoreError):
    """Another server process changed the game first: the stored game is no longer at the
    revision the write was made on, and nothing was written. The writer catches up
    (:meth:`Store.game_since`) and decides again."""

    def __init__(self, game_id: str, revision: int) -> None:
        self.game_id = game_id
        self.revision = revision
        super().__init__(
            f"game {game_id[:40]!r} was changed by another server process (the write was "
            f"made on revision {revision}); nothing was written"
        )


class GameUnreadable(StoreError):
    """One game's stored rows cannot be read (a damaged database page, a value that is
    not what this version wrote); the other games are unaffected."""

    def __init__(self, game_id: str, reason: str) -> None:
        self.game_id = game_id
        super().__init__(f"game {game_id[:40]!r} cannot be read from the database: {reason}")


class Duplicate(StoreError):
    """(Thrown into a transaction body, at the statement that met it) a row with the same
    unique key is already there. On PostgreSQL the transaction can do nothing more after
    it: a body that catches it ends (returning, or raising an error of its own)."""
