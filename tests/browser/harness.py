"""The browser tests' harness: the server in a subprocess, and a player's page with board
helpers (squares to screen points, moves by clicking or dragging, waiting for the state)."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relay import Relay

if TYPE_CHECKING:  # (playwright is imported where a browser starts)
    from playwright.sync_api import Browser, CDPSession, Page, ViewportSize, WebSocketRoute

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: How often ``page.wait_for_function`` asks again, in ms, unless a call says (conftest.py
#: makes it the default). Playwright's own default asks on every animation frame, which
#: keeps the page drawing 60 frames a second while a test waits: an idle game page and
#: its waiting test took about 0.09 CPU-s a second more.
POLL_MS = 20
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-output" / "browser"
SHOT_PATHS: list[Path] = []

# The board's SVG geometry (board.js): a 1000 x 1100 viewBox, lines 100 apart, 100 in.
VIEW_WIDTH = 1000
VIEW_HEIGHT = 1100
MARGIN = 100
STEP = 100


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _serve_command(port: int, db: Path | str, *options: str) -> list[str]:
    if importlib.util.find_spec("chuhan.__main__") is not None:
        head = [sys.executable, "-m", "chuhan"]
    else:  # no chuhan/__main__.py yet: the console script does the same
        head = [sys.executable, "-m", "chuhan.cli"]
    # A tournament's game whose side to move lets its time for a first move pass is
    # called off by the server (30 s by default): at a test server's pace on a loaded
    # machine, an hour, unless a test sets it.
    if "--first-move-seconds" not in options:
        options = (*options, "--first-move-seconds", "3600")
    return [*head, "serve", "--port", str(port), "--db", str(db), *options]


class Server:
    """``chuhan serve`` in a subprocess behind a :class:`Relay`; ``restart()`` SIGKILLs it and
    starts it again on the same database. ``options`` are more ``chuhan serve`` options."""

    def __init__(self, db: Path, log: Path, options: tuple[str, ...] = ()) -> None:
        self.db = db
        self.log = log
        self.options = options
        self.relay = Relay()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.relay.port}"

    def start(self) -> None:
        port = _free_port()
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                _serve_command(port, self.db, *self.options),
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        deadline = time.monotonic() + 120  # a bound on a hang only (a loaded machine starts slowly)
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text(errors='replace')}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/options", timeout=1):
                    self.relay.target = port
                    return
            except (urllib.error.URLError, OSError):
                time.sleep(0.1)
        raise RuntimeError(f"the server did not answer in 120 s: {self.log.read_text()}")

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        self.relay.close()
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)

    def restart(self) -> None:
        self.kill()
        self.start()


class ServerGroup:
    """Several ``chuhan serve`` processes on one PostgreSQL database behind one address (a
    :class:`Relay` that gives each new connection to the next process in turn, skipping
    dead ones); ``kill(i)`` SIGKILLs one."""

    def __init__(self, db: str, folder: Path, count: int = 2) -> None:
        self.db = db
        self.folder = folder
        self.count = count
        self.relay = Relay()
        self.processes: list[subprocess.Popen[bytes]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.relay.port}"

    def start(self) -> None:
        for number in range(self.count):
            port = _free_port()
            log = self.folder / f"server-{number}.log"
            with open(log, "ab") as out:
                process = subprocess.Popen(
                    _serve_command(port, self.db),
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env={**os.environ, "PYTHONUNBUFFERED": "1"},
                )
            self.processes.append(process)
            deadline = time.monotonic() + 120  # a bound on a hang only
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"a server exited: {log.read_text(errors='replace')}")
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/options", timeout=1):
                        break
                except (urllib.error.URLError, OSError):
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"a server did not answer: {log.read_text()}") from None
                    time.sleep(0.1)
            self.relay.targets.append(port)

    def kill(self, number: int) -> None:
        process = self.processes[number]
        process.send_signal(signal.SIGKILL)
        process.wait(10)

    def stop(self) -> None:
        self.relay.close()
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(10)


class Player:
    """One browser context (one person) on one page, with board helpers."""

    def __init__(
        self,
        browser: Browser,
        server: Server | ServerGroup | AppServer,
        *,
        locale: str = "en-US",
        viewport: ViewportSize | None = None,
        address: str | None = None,
        touch: bool = False,
    ) -> None:
        # ``touch``: a phone's browser (a touch screen, the meta viewport honoured), tapped
        # with ``locator.tap()``.
        # ``address``: the client address this person's requests and sockets come from, as
        # the server's trusted proxy says (X-Forwarded-For; the servers run --trust-proxy),
        # for the rating rules, which do not rate two accounts of one address.
        self.context = browser.new_context(
            viewport=viewport or {"width": 1200, "height": 900},
            locale=locale,
            device_scale_factor=1,
            is_mobile=touch,
            has_touch=touch,
            extra_http_headers={"x-forwarded-for": address} if address else None,
        )
        self.page = self.context.new_page()
        self.server = server
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on(
            "console",
            lambda message: self.errors.append(message.text) if message.type == "error" else None,
        )
        self.page.set_default_timeout(60000)  # a bound on a hang only

    def goto(self, path: str) -> None:
        self.page.goto(self.server.url + path)

    def flipped(self) -> bool:
        return bool(self.page.evaluate("window.chuhanApp.view.flipped()"))

    def point(self, square: str) -> tuple[float, float]:
        box = self.page.locator("svg.board").bounding_box()
        assert box is not None
        file = "abcdefghi".index(square[0])
        rank = int(square[1:])
        col, row = (8 - file, rank) if self.flipped() else (file, 9 - rank)
        x = box["x"] + (MARGIN + col * STEP) * box["width"] / VIEW_WIDTH
        y = box["y"] + (MARGIN + row * STEP) * box["height"] / VIEW_HEIGHT
        return x, y

    def wait_my_turn(self) -> None:
        self.page.wait_for_selector("svg.board .piece.movable")

    def click_move(self, move: str) -> None:
        """Play an ICCS move by clicking its two squares."""
        self.wait_my_turn()
        version = self.version()
        origin, target = move[:2], move[2:]
        self.page.mouse.click(*self.point(origin))
        self.page.wait_for_selector(f'svg.board .dest[data-square="{target}"]', state="attached")
        self.page.mouse.click(*self.point(target))
        self.wait_version_after(version)

    def drag_move(self, move: str) -> None:
        """Play an ICCS move by dragging the piece."""
        self.wait_my_turn()
        version = self.version()
        x0, y0 = self.point(move[:2])
        x1, y1 = self.point(move[2:])
        self.page.mouse.move(x0, y0)
        self.page.mouse.down()
        self.page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=4)
        self.page.mouse.move(x1, y1, steps=4)
        self.page.mouse.up()
        self.wait_version_after(version)

    def version(self) -> int:
        return int(self.page.evaluate("window.chuhanApp.view.state.version"))

    def wait_version_after(self, version: int) -> None:
        self.page.wait_for_function(
            f"() => window.chuhanApp.view.state && window.chuhanApp.view.state.version > {version}"
        )

    def wait_ply(self, ply: int) -> None:
        self.page.wait_for_function(
            f"() => window.chuhanApp.view.state && window.chuhanApp.view.state.ply >= {ply}"
        )

    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = self.page.evaluate("window.chuhanApp.view.state")
        return state

    def screenshot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=str(path))
        SHOT_PATHS.append(path)
        print(f"screenshot: {path}")
        return path

    def close(self) -> None:
        self.context.close()


def new_player(
    players: list[Player], browser: Browser, server: Server | ServerGroup | AppServer, **kwargs: Any
) -> Player:
    player = Player(browser, server, **kwargs)
    players.append(player)
    return player


def create_from_home(
    player: Player, *, variant: str, kind: str, reload: bool = True, **fields: str
) -> None:
    """Fill in the home page's new-game form and start (``reload=False``: on the home page
    already open, keeping what was set on it)."""
    page = player.page
    if reload:
        player.goto("/")
    open_custom_game(page)
    page.check(f'input[name="variant"][value="{variant}"]')
    page.check(f'input[name="kind"][value="{kind}"]')
    for selector, value in fields.items():
        page.select_option(f"#{selector}", value)
    page.click("#create")
    page.wait_for_url("**/g/**")
    page.wait_for_selector("svg.board .piece")


def open_custom_game(page: Page) -> None:
    """Open the home page's "Custom game" disclosure, where the full new-game form is."""
    page.wait_for_selector("#custom-game", state="attached")
    page.evaluate("document.getElementById('custom-game').open = true")


#: A game's websocket address (the lobby's ``/ws/lobby`` and the analysis board's
#: ``/ws/analysis`` are not).
GAME_SOCKET = re.compile(r"/ws/(?!lobby$|analysis$)[^/?]+$")


class SocketTap:
    """Every game websocket a page opens (or every one at `address`) goes through here (Playwright's
    ``route_web_socket``) on its way to the real server. Frames pass unchanged, unless
    ``rewrite`` turns each server frame into the frames the page gets instead (none, one, or
    several: a stand-in for another server version). The test can close the page's socket
    with a code of its choice, hold the next connection until it lets it go, or refuse it
    with frames and a close code of its own."""

    def __init__(
        self,
        page: Page,
        rewrite: Callable[[Any, dict[str, Any]], list[Any]] | None = None,
        *,
        address: re.Pattern[str] = GAME_SOCKET,
    ) -> None:
        self.rewrite = rewrite
        self.sockets: list[WebSocketRoute] = []  # the page's end of each connection, oldest first
        self.servers: dict[int, WebSocketRoute] = {}  # id(page end) -> the server's end
        self.page_frames: list[str | bytes] = []  # what the page sent, in order
        self.refusals: list[tuple[list[dict[str, Any]], int, str]] = []
        self.hold = False
        self.held: list[tuple[WebSocketRoute, list[str | bytes]]] = []
        page.route_web_socket(address, self._route)

    @property
    def count(self) -> int:
        return len(self.sockets)

    def _route(self, page_end: WebSocketRoute) -> None:
        self.sockets.append(page_end)
        if self.refusals:
            frames, code, reason = self.refusals.pop(0)

            def refuse(_hello: Any) -> None:
                for frame in frames:
                    page_end.send(json.dumps(frame))
                page_end.close(code=code, reason=reason)

            page_end.on_message(refuse)
        elif self.hold:
            waiting: list[str | bytes] = []
            page_end.on_message(lambda frame: waiting.append(frame))
            self.held.append((page_end, waiting))
        else:
            self._connect(page_end, [])

    def _connect(self, page_end: WebSocketRoute, waiting: list[str | bytes]) -> None:
        server = page_end.connect_to_server()
        self.servers[id(page_end)] = server
        for frame in waiting:
            self._from_page(server, frame)
        page_end.on_message(lambda frame: self._from_page(server, frame))
        server.on_message(lambda frame: self._from_server(page_end, frame))

    def _from_page(self, server: WebSocketRoute, frame: str | bytes) -> None:
        self.page_frames.append(frame)
        server.send(frame)

    def _from_server(self, page_end: WebSocketRoute, frame: str | bytes) -> None:
        if self.rewrite is None or not isinstance(frame, str):
            page_end.send(frame)
            return
        for message in self.rewrite(page_end, json.loads(frame)):
            page_end.send(message if isinstance(message, str) else json.dumps(message))

    def release(self) -> None:
        """Let the held connections through (their hello included) and stop holding."""
        self.hold = False
        held, self.held = self.held, []
        for page_end, waiting in held:
            self._connect(page_end, waiting)

    def refuse_next(self, frames: list[dict[str, Any]], code: int, reason: str = "") -> None:
        """Answer the next connection's hello with these frames, then close it with `code`."""
        self.refusals.append((frames, code, reason))

    def close(self, code: int, reason: str = "") -> None:
        """Close the newest connection: the page sees `code`; the server sees it go."""
        page_end = self.sockets[-1]
        server = self.servers.get(id(page_end))
        page_end.close(code=code, reason=reason)
        if server is not None:
            with contextlib.suppress(Exception):
                server.close()

    def wait_count(self, page: Page, count: int, timeout_ms: int = 60000) -> None:
        """Wait until the page has opened `count` connections (Playwright calls the route
        while the page waits)."""
        waited = 0
        while len(self.sockets) < count:
            if waited >= timeout_ms:
                raise AssertionError(f"{len(self.sockets)} connections, not {count}")
            page.wait_for_timeout(50)
            waited += 50


class AppServer:
    """The app served in this process by uvicorn on an event loop of its own thread, on a
    clock the test moves (``now``: a :class:`FakeClock` of tests/web, or any callable):
    for the tests that let days pass. No option reaches a production server: the fake
    clock is the test's ``create_app(now=...)``. ``call(fn)`` runs ``fn(context)``'s
    coroutine on the server's loop and returns its result (a look for notices, a sweep of
    the deadlines, when the test wants one). ``settings`` are :class:`Settings` fields."""

    def __init__(self, db: Path, now: Callable[[], float], **settings: Any) -> None:
        import asyncio
        import threading

        import uvicorn

        from chuhan.web.app import create_app
        from chuhan.web.settings import Settings

        self.port = _free_port()
        settings.setdefault("public_url", self.url)  # (the links in its mails and pushes)
        self.app = create_app(db, now=now, settings=Settings(**settings))
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=self.port,
            log_level="warning",
            access_log=False,
            ws_per_message_deflate=False,
            lifespan="on",
        )
        self.server = uvicorn.Server(config)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_until_complete, args=(self.server.serve(),), daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 120  # a bound on a hang only
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the in-process server did not start")
            time.sleep(0.05)

    def call(self, work: Callable[[Any], Any]) -> Any:
        import asyncio

        async def run() -> Any:
            return await work(self.app.state.context)

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(timeout=120)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(60)
        self.loop.close()


def deliver_push(
    page: Page,
    session: CDPSession,
    registrations: list[dict[str, Any]],
    origin: str,
    message: dict[str, Any],
) -> list[list[Any]]:
    """Hand a push ``message`` to the site's service worker as a push service would (by the
    DevTools ``session`` that hears the worker's ``registrations``) and wait until the
    notification with its tag shows; the notifications shown then, each ``[title, body,
    tag, url]``."""

    def active() -> list[dict[str, Any]]:
        return [r for r in registrations if r["scopeURL"] == origin + "/" and not r["isDeleted"]]

    # The DevTools events reach the handler while Playwright waits on something, not
    # necessarily before an evaluate returns (a CI run saw none yet): they are waited for.
    bound = time.monotonic() + 60  # a bound on a hang only
    while not active() and time.monotonic() < bound:
        page.wait_for_timeout(POLL_MS)
    assert active(), registrations
    push = {
        "origin": origin,
        "registrationId": active()[-1]["registrationId"],
        "data": json.dumps(message, ensure_ascii=False),
    }
    session.send("ServiceWorker.deliverPushMessage", push)
    # (asked again until it shows: a wait_for_function whose text gives a Promise takes the
    # Promise itself as true.) A delivery may be dropped while the worker starts (a
    # fresh-clone make test on a loaded machine saw none in 60 s): it is delivered again
    # every 10 s without the notification, as a push service would; its tag keeps it to one.
    bound = time.monotonic() + 120  # a bound on a hang only
    again_at = time.monotonic() + 10
    while True:
        shown: list[list[Any]] = page.evaluate(
            "async () => (await (await navigator.serviceWorker.ready).getNotifications())"
            ".map(n => [n.title, n.body, n.tag, n.data.url])"
        )
        if any(tag == message["tag"] for _title, _body, tag, _url in shown):
            return shown
        assert time.monotonic() < bound, shown
        if time.monotonic() > again_at:
            session.send("ServiceWorker.deliverPushMessage", push)
            again_at = time.monotonic() + 10
        page.wait_for_timeout(POLL_MS)
