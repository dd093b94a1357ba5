"""One socket client on every page: the lobby and the analysis board come back after the
server closes their socket as the game page does (a fresh hello, the page whole again), and
a server with too many connections (4429) is left alone for half a minute by each of them,
not asked again at once. The page's sockets pass through a tap (``SocketTap``); the page's
clock is Playwright's, so the half minute is run through, not waited for."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import pytest

from .harness import Player, Server, SocketTap, new_player

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

LOBBY = re.compile(r"/ws/lobby$")
ANALYSIS = re.compile(r"/ws/analysis$")

#: Counts the sockets the page makes to each path, at once (a timer that fires inside
#: ``clock.run_for`` makes its socket before that call returns).
COUNT_SOCKETS = """
(() => {
  const Native = window.WebSocket;
  window.socketsMade = {};
  window.WebSocket = class extends Native {
    constructor(url, ...rest) {
      super(url, ...rest);
      const path = new URL(url).pathname;
      window.socketsMade[path] = (window.socketsMade[path] || 0) + 1;
    }
  };
})();
"""


def sockets_made(player: Player, path: str) -> int:
    count: int = player.page.evaluate("(path) => window.socketsMade[path] || 0", path)
    return count


def test_the_lobby_reconnects_after_a_close_and_knows_the_player_again(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server)
    page = player.page
    tap = SocketTap(page, address=LOBBY)
    player.goto("/")
    page.wait_for_selector('#lobby[data-player=""]:not(.offline)')

    for code in (1008, 1011, 4408):
        opened = tap.count
        tap.hold = True  # the new connection waits, so the page can be seen offline
        tap.close(code)
        page.wait_for_selector("#lobby.offline")
        tap.wait_count(page, opened + 1)
        tap.release()
        page.wait_for_selector('#lobby[data-player=""]:not(.offline)')

    page.click("#lobby-post")  # the reconnected socket carries the player's seek
    page.wait_for_selector('#lobby-seeks li.seek[data-mine="true"]')
    hellos = [frame for frame in map(json.loads, tap.page_frames) if frame["type"] == "hello"]
    assert len(hellos) == tap.count == 4
    assert all(hello["seq"] == 1 and hello["visitor"] for hello in hellos)
    assert player.errors == []


def test_the_analysis_board_reconnects_after_a_close_and_asks_again(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    player = new_player(players, browser, server)
    page = player.page
    tap = SocketTap(page, address=ANALYSIS)
    player.goto("/analysis?engine=off")
    page.wait_for_selector('svg.board .piece.movable[data-square="h2"]')

    opened = tap.count
    tap.hold = True
    tap.close(1011)
    page.wait_for_function("() => document.getElementById('an-status').textContent !== ''")
    tap.wait_count(page, opened + 1)
    tap.release()
    page.wait_for_function("() => document.getElementById('an-status').textContent === ''")
    # The new connection asked for the position again, and a move is answered on it.
    page.mouse.click(*player.point("h2"))
    page.wait_for_selector('svg.board .dest[data-square="e2"]', state="attached")
    page.mouse.click(*player.point("e2"))
    page.wait_for_selector('#move-tree .tree-move.current[data-iccs="h2e2"]')
    hellos = [frame for frame in map(json.loads, tap.page_frames) if frame["type"] == "hello"]
    assert len(hellos) == tap.count == 2 and all(hello["seq"] == 1 for hello in hellos)
    assert player.errors == []


@pytest.mark.parametrize(
    ("path", "address", "came_back"),
    [
        ("/", LOBBY, "#lobby:not(.offline)"),
        ("/analysis?engine=off", ANALYSIS, 'svg.board .piece.movable[data-square="h2"]'),
    ],
    ids=["lobby", "analysis"],
)
def test_too_many_connections_is_asked_again_only_after_half_a_minute(
    browser: Browser,
    server: Server,
    players: list[Player],
    path: str,
    address: re.Pattern[str],
    came_back: str,
) -> None:
    """The lobby reconnected half a second after a 4429, the analysis board a second after:
    a full server was asked again at once by every page it had turned away."""
    player = new_player(players, browser, server)
    page = player.page
    tap = SocketTap(page, address=address)
    page.add_init_script(COUNT_SOCKETS)  # (after the tap's own script: it counts the tap's sockets)
    sentence = "This address has 64 sockets open already."
    tap.refuse_next([{"type": "error", "code": "too_many_sockets", "message": sentence}], 4429)
    page.clock.install()
    player.goto(path)
    tap.wait_count(page, 1)
    socket_path = address.pattern.strip("$")
    page.wait_for_function(
        "(path) => window.socketsMade[path] >= 1 && document.querySelector("
        "path === '/ws/lobby' ? '#lobby.offline' : '#an-status:not(:empty)') !== null",
        arg=socket_path,
    )
    page.clock.run_for(20000)  # every ordinary backoff is over by now
    assert sockets_made(player, socket_path) == 1
    page.clock.run_for(11000)
    assert sockets_made(player, socket_path) == 2
    tap.wait_count(page, 2)
    page.wait_for_selector(came_back)
    assert player.errors == []
