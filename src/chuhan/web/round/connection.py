"""A game websocket as its room sees it: a :class:`~chuhan.web.sockets.connection.Connection`
with the seat it holds and what it has been sent of the game."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chuhan.web.sockets.connection import Connection
from chuhan.web.sockets.protocol import TokenBucket

if TYPE_CHECKING:
    from chuhan.web.round.room import Room

__all__ = ["GameConnection"]


class GameConnection(Connection):
    """One game websocket: its role and token (after hello), a spectator's name, what it
    has been sent of the game, and its room."""

    def __init__(self, bucket: TokenBucket, patience: TokenBucket, address: str = "") -> None:
        super().__init__(bucket, patience, address)
        self.role: str | None = None  # first | second | both | watcher, after hello
        self.token: str | None = None
        #: The name a spectator gave in its hello (shown with its chat lines).
        self.name: str | None = None
        #: The publication (:attr:`Room.published`) this connection was last sent and how
        #: many move-list entries it holds (the next state sends only the entries after those).
        self.sent_seq = -1
        self.sent_moves = 0
        #: Whether the client reads move lists as changes (``moves_from``, protocol 2); a
        #: client that does not say so gets the whole list in every state.
        self.deltas = False
        #: The room this connection joined (set by :meth:`Room.join`).
        self.room: Room | None = None
