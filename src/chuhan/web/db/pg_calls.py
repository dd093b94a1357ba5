"""The PostgreSQL driver's calls: how long they may take, the errors they can end with,
and which of those mean the connection went away (shared by the store, its notices and
its beats)."""

from __future__ import annotations

from typing import Any

import asyncpg  # type: ignore[import-untyped]

__all__ = [
    "COMMAND_TIMEOUT",
    "CONNECT_TIMEOUT",
    "FAILURES",
    "LOST",
    "OPEN_FAILURES",
    "Lost",
    "close_quietly",
    "is_closed",
    "is_lost",
]

#: Seconds to wait for a connection to the database.
CONNECT_TIMEOUT = 5.0
#: Seconds to wait for one statement's answer (and for a connection from the pool).
COMMAND_TIMEOUT = 10.0

#: The errors a database call can end with (all become :class:`StoreError`).
FAILURES: tuple[type[BaseException], ...] = (
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,
    OSError,
    TimeoutError,
)
#: What opening can end with besides (a malformed address).
OPEN_FAILURES: tuple[type[BaseException], ...] = (*FAILURES, ValueError)
#: Among them, those that mean the connection went away (a read is tried once more).
LOST: tuple[type[BaseException], ...] = (
    asyncpg.PostgresConnectionError,
    asyncpg.AdminShutdownError,
    asyncpg.CannotConnectNowError,
    asyncpg.ConnectionDoesNotExistError,
    ConnectionError,
)


class Lost(Exception):
    """(Inside a call of the store) the connection went away under ``error``."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


def is_lost(error: BaseException) -> bool:
    """Whether ``error`` means the connection went away (rather than a refused query)."""
    if isinstance(error, LOST):
        return True
    if isinstance(error, asyncpg.InternalClientError):
        return True  # (asyncpg's state after its server process was terminated under it)
    return isinstance(error, asyncpg.InterfaceError) and "closed" in str(error)


def is_closed(connection: Any) -> bool:
    """Whether the pooled ``connection`` is closed (or already taken back by the pool,
    which it is once it closes)."""
    try:
        return bool(connection.is_closed())
    except asyncpg.InterfaceError:
        return True


async def close_quietly(connection: Any) -> None:
    """Close a connection that may be dead already, without waiting long."""
    try:
        await connection.close(timeout=1.0)
    except FAILURES:
        connection.terminate()
