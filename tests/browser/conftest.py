"""Browser tests: the real server in a subprocess, Debian's chromium driven by Playwright.

Screenshots go to ``test-output/browser/`` (git-ignored); their paths are printed at the end
of the run.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Literal

import pytest

from .harness import CHROMIUM, CHROMIUM_ARGS, POLL_MS, SHOT_PATHS, Player, Server

if TYPE_CHECKING:
    from playwright.sync_api import Browser


def as_function(expression: str) -> str:
    """An expression or a function's text as the text of one function of the argument.

    Playwright evaluates the text it is given with ``eval`` at every poll unless it is a
    function's text (that is evaluated once, and the function called). Our pages' Content
    Security Policy has no 'unsafe-eval', and chromium refuses an ``eval`` outside the
    first, synchronous check: an expression still false at its first check then failed
    with EvalError (a CI run at 27960d9). As one function, the text is evaluated once.
    """
    return (
        "(arg) => { const value = (" + expression + ");"
        " return typeof value === 'function' ? value(arg) : value; }"
    )


def _poll_by_default() -> None:
    """``page.wait_for_function`` polls every POLL_MS unless a call says otherwise, and
    takes its text as one function (see as_function)."""
    try:
        from playwright.sync_api import JSHandle, Page
    except ImportError:  # (the browser tests then fail to start, saying so)
        return
    original = Page.wait_for_function
    if getattr(original, "chuhan_polls", False):
        return

    def wait_for_function(
        self: Page,
        expression: str,
        *,
        arg: Any = None,
        timeout: float | timedelta | None = None,
        polling: float | Literal["raf"] | None = POLL_MS,
    ) -> JSHandle:
        return original(self, as_function(expression), arg=arg, timeout=timeout, polling=polling)

    wait_for_function.chuhan_polls = True  # type: ignore[attr-defined]
    Page.wait_for_function = wait_for_function  # type: ignore[method-assign]


_poll_by_default()


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    skip = pytest.mark.skip(reason=f"{CHROMIUM} is missing (make chromium installs it)")
    for item in items:
        if "browser" not in item.keywords:
            continue
        if not CHROMIUM.exists():
            item.add_marker(skip)
        # Each module's browser tests run on one worker, one after another (Playwright's
        # sync API keeps an event loop running while the module's browser is open, which
        # asyncio.run() elsewhere cannot share), and `--dist loadgroup` spreads the modules
        # over the workers: one worker running every browser test took most of the run.
        assert isinstance(item, pytest.Function)  # (a test function: it has a module)
        item.add_marker(pytest.mark.xdist_group(f"browser-{item.module.__name__}"))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if SHOT_PATHS:
        terminalreporter.write_sep("-", "board screenshots")
        for path in SHOT_PATHS:
            terminalreporter.write_line(str(path))


def _new_server(tmp_path_factory: pytest.TempPathFactory) -> Server:
    folder = tmp_path_factory.mktemp("server")
    # (--trust-proxy: a player may be given an address of its own, harness.Player(address=))
    server = Server(folder / "games.db", folder / "server.log", ("--trust-proxy",))
    server.start()
    return server


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = _new_server(tmp_path_factory)
    yield server
    server.stop()


@pytest.fixture
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server of the test's own, for tests that kill it."""
    server = _new_server(tmp_path_factory)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def players(browser: Browser) -> Iterator[list[Player]]:
    """The players a test makes (``new_player``), closed after it."""
    made: list[Player] = []
    yield made
    for player in made:
        player.close()
