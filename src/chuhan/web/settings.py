"""The web server's settings: every limit and option in one frozen value, built once by
:func:`~chuhan.web.app.create_app` and read by the endpoints from the app's state."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["TIME_CONTROL_EXAMPLES", "Settings"]

#: The time controls the new-game form suggests.
TIME_CONTROL_EXAMPLES = ("none", "5+3", "10+5", "15+10", "20 3x30", "10 5x20")


@dataclass(frozen=True, slots=True)
class Settings:
    """What a server allows and where it is reached.

    ``share_origin`` is the address other machines reach the server at
    (``http://192.168.1.20:8000``), for invite links made on a page opened on loopback;
    ``local_only`` says the server listens on loopback only, so the page can say a friend
    elsewhere cannot join.
    """

    #: Seconds each janggi player has to choose an arrangement once connected.
    setup_seconds: float = 60.0
    #: Each connection's message budget: burst, then refill per second.
    rate_burst: float = 40
    rate_per_second: float = 20
    #: A connection is closed once it has had more than this many messages dropped by the
    #: rate limit, forgiven at ``drops_forgiven_per_second`` (so a client that keeps
    #: sending faster than the limit is closed, however it paces its messages).
    max_dropped: float = 20
    drops_forgiven_per_second: float = 1.0
    share_origin: str | None = None
    local_only: bool = False
    #: Watchers one game admits at once; more are refused (close code 4429).
    max_watchers_per_game: int = 500
    #: Websockets one client address may hold open at once (close code 4429).
    max_sockets_per_address: int = 64
    #: Seconds a new websocket has to say ``hello`` (close code 4408).
    hello_timeout: float = 10.0
    #: Games one client address may create (``POST /api/games``): a burst, then one every
    #: so many seconds; the same for imports (``POST /api/import``).
    create_burst: float = 20
    create_every_seconds: float = 3.0
    import_burst: float = 10
    import_every_seconds: float = 10.0
    #: Take the client's address from the ``X-Forwarded-For`` header the reverse proxy in
    #: front of the server adds (its last entry). Off by default: without a proxy that
    #: rewrites it, any client could claim any address.
    trust_proxy: bool = False
    max_json_bytes: int = 16 * 1024
    max_import_bytes: int = 256 * 1024
    max_import_games: int = 50
