"""Running the web app: ``chuhan serve`` and ``chuhan play`` (uvicorn on one port)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import ipaddress
import logging
import socket
import sys
import webbrowser
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from chuhan.errors import ChuhanError

__all__ = ["ServeError", "free_port", "loop_factory", "play", "serve"]

#: uvicorn closes a websocket whose frame is larger than this (the protocol's own limit,
#: 4 KB, is answered with an error message; this stops a client from making the server
#: buffer megabytes first).
WS_MAX_BYTES = 64 * 1024


class ServeError(ChuhanError):
    """The server cannot start (port in use, bad host, database not writable)."""


def port_is_free(host: str, port: int) -> bool:
    """Whether nothing listens on ``host:port`` (connections of a killed server still in
    TIME_WAIT do not count: the server binds with SO_REUSEADDR too)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
    return port


def is_loopback(host: str) -> bool:
    """Whether ``host`` is an address only this machine reaches."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def lan_address() -> str | None:
    """This machine's address on its local network, or None when it has none.

    Connecting a UDP socket sends nothing; it only asks the kernel which local address
    would carry traffic to a private-network address."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("10.254.254.254", 1))
        address: str = probe.getsockname()[0]
        if not ipaddress.ip_address(address).is_loopback and address != "0.0.0.0":
            return address
    return None


def share_origin(host: str, port: int) -> str | None:
    """The origin other machines use to reach a server listening on ``host:port``: the
    LAN address when it listens on every interface, the host itself when it is a specific
    non-loopback address, None when it listens on loopback only."""
    if host in ("0.0.0.0", "::", ""):
        address = lan_address()
        return None if address is None else f"http://{address}:{port}"
    if is_loopback(host):
        return None
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def _display_url(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


class _ConsoleFormatter(logging.Formatter):
    """``chuhan: warning: <sentence>``, the way the command's own messages read."""

    def format(self, record: logging.LogRecord) -> str:
        level = "" if record.levelno <= logging.INFO else f"{record.levelname.lower()}: "
        text = f"chuhan: {level}{record.getMessage()}"
        if record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        return text


@contextlib.contextmanager
def console_log() -> Iterator[None]:
    """While the server runs, what chuhan logs (a damaged game database found at the
    start, a game that cannot be loaded) is printed on the console, unless the program
    that runs the server configured logging itself."""
    logger = logging.getLogger("chuhan")
    if logger.handlers or logging.getLogger().handlers:
        yield
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_ConsoleFormatter())
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def open_in_browser(url: str) -> None:
    """Open ``url`` in the user's browser, or say where to go when there is none."""
    opened = False
    with contextlib.suppress(Exception):
        opened = webbrowser.open(url)
    if not opened:
        print(f"chuhan: no browser found; open {url} yourself", flush=True)


def database_location(db: str | Path | None) -> str | Path:
    """The game database a command uses: ``db`` when given, else the environment variable
    ``CHUHAN_DB``, else the SQLite file in the user data directory."""
    import os

    from chuhan.web.db import DB_ENVIRONMENT
    from chuhan.web.db.files import default_db_path

    if db is not None and str(db) != "":
        return db
    return os.environ.get(DB_ENVIRONMENT) or default_db_path()


def play(port: int = 8000, db: str | Path | None = None, *, open_browser: bool = True) -> int:
    """``chuhan play``: serve on loopback (on ``port``, or a free one if it is taken) and
    open the browser; when a server already has these games open, open that one instead of
    starting a second."""
    from chuhan.web.db import is_database_url
    from chuhan.web.db.files import database_owner

    location = database_location(db)
    if not is_database_url(location):
        owner = database_owner(Path(location))
        if owner is not None and owner.get("url"):
            url = str(owner["url"])
            print(f"chuhan: the games in {location} are already served on {url}", flush=True)
            if open_browser:
                open_in_browser(url)
            return 0
    if not port_is_free("127.0.0.1", port):
        port = free_port()
    return serve("127.0.0.1", port, location, open_browser=open_browser)


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    db: str | Path | None = None,
    *,
    open_browser: bool = False,
    limits: dict[str, Any] | None = None,
    explorer_db: str | Path | None = None,
) -> int:
    """Serve the web app until interrupted. ``open_browser`` opens the home page;
    ``limits`` are :class:`~chuhan.web.settings.Settings` fields to change (``trust_proxy``,
    ``max_watchers_per_game``...); ``explorer_db`` is the explorer's index (default: the
    game database when it is PostgreSQL, else the file of this machine). What the game
    database was found like (damage, games that may be missing) is printed."""
    with console_log():
        return _serve(
            host,
            port,
            db,
            open_browser=open_browser,
            limits=limits or {},
            explorer_db=explorer_db,
        )


def _serve(
    host: str,
    port: int,
    db: str | Path | None,
    *,
    open_browser: bool,
    limits: dict[str, Any],
    explorer_db: str | Path | None = None,
) -> int:
    # Without the web extra these raise ImportError, which the command line turns into a
    # sentence naming the missing module and the extra to install.
    import starlette  # noqa: F401
    import uvicorn
    import websockets  # noqa: F401

    from chuhan.web.app import create_app
    from chuhan.web.db import is_database_url, open_store, shown_location
    from chuhan.web.settings import Settings

    location = database_location(db)
    if is_database_url(location):
        # Fails early, with a sentence naming the address, if the database cannot be
        # reached or used; the server's own connections are made on its event loop.
        asyncio.run(_try_database(str(location)))
    store = open_store(location)  # fails early, with a clear message, if it cannot be opened
    if not port_is_free(host, port):
        asyncio.run(store.close())
        raise ServeError(f"cannot listen on {host}:{port}: the port is in use (try --port)")
    shared = share_origin(host, port)
    settings = Settings(
        share_origin=shared, local_only=is_loopback(host), read_worker_at_start=True, **limits
    )
    app = create_app(store, settings=settings, explorer_index=explorer_db)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,  # seat links carry tokens in their query string
        ws_max_size=WS_MAX_BYTES,
        # Compressing every state costs the server more CPU than the bytes it saves on
        # the networks people play over (a state is a few kilobytes).
        ws_per_message_deflate=False,
        ws_ping_interval=20,
        ws_ping_timeout=20,
        lifespan="on",
    )
    server = uvicorn.Server(config)
    url = _display_url(host, port)
    # Everything imported so far lives as long as the server: keep it out of the cyclic
    # garbage collector's full passes, and run the young passes less often (a move makes
    # thousands of short-lived containers), which keeps GC pauses out of move latencies.
    gc.collect()
    gc.freeze()
    gc.set_threshold(7000, 20, 20)

    async def run() -> None:
        task = asyncio.create_task(server.serve())
        while not server.started and not task.done():
            await asyncio.sleep(0.05)
        if server.started:
            store.announce(url)
            where = shown_location(location)
            print(f"chuhan: serving on {url} (games in {where}); Ctrl+C stops", flush=True)
            if host in ("0.0.0.0", "::", ""):
                where = f"open {shared}/" if shared else "use this machine's address"
                print(
                    f"chuhan: listening on every interface: on other machines, {where}",
                    flush=True,
                )
            if open_browser:
                open_in_browser(url)
        await task

    with (
        contextlib.suppress(KeyboardInterrupt),
        asyncio.Runner(loop_factory=loop_factory()) as runner,
    ):
        runner.run(run())
    return 0 if server.started else 1


def loop_factory() -> Any:
    """uvloop's event loop where it is installed (the ``web`` extra has it, but for Windows),
    else asyncio's: the server runs its own loop, so uvicorn's choice of loop never
    applies, and uvloop costs each move about a seventh less CPU."""
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


async def _try_database(url: str) -> None:
    """Connect to the PostgreSQL database at ``url`` once (bringing its schema up to date)
    and let it go: raises :class:`~chuhan.web.db.StoreError` saying why it cannot be
    used."""
    import importlib.util

    if importlib.util.find_spec("asyncpg") is None:
        raise ServeError(
            "a PostgreSQL game database needs asyncpg, which this install lacks: "
            "pip install 'chuhan[web,postgresql]'"
        )
    from chuhan.web.db import open_store

    store = open_store(url)
    try:
        await store.open()
    finally:
        await store.close()
