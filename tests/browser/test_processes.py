"""The web app in a real browser, served by two processes on one PostgreSQL database behind
one address that hands each connection to the next process in turn (no sticky sessions),
one of them killed mid-game."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from .harness import Player, ServerGroup, create_from_home, new_player, open_custom_game

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

# Red mates with doubled cannons on the e-file while Black shuffles a chariot.
MATING_LINE = ["h2e2", "a9a8", "e2e6", "a8a9", "b2b5", "a9a8", "b5e5"]


@pytest.fixture
def group(postgres_url: str, tmp_path: Path) -> Iterator[ServerGroup]:
    servers = ServerGroup(postgres_url, tmp_path)
    servers.start()
    yield servers
    servers.stop()


def test_a_game_across_two_processes_survives_one_of_them_killed(
    browser: Browser, group: ServerGroup, players: list[Player]
) -> None:
    red = new_player(players, browser, group)
    red.goto("/")
    open_custom_game(red.page)
    red.page.check('input[name="tc"][value="fischer"]')  # 10 minutes + 5 s
    create_from_home(red, variant="xiangqi", kind="friend", colour="first", reload=False)
    invite = red.page.input_value("#invite-url")
    black = new_player(players, browser, group)
    black.page.goto(invite)
    black.page.wait_for_selector("svg.board .piece")
    watcher = new_player(players, browser, group)
    watcher.page.goto(invite.split("?")[0].replace("/g/", "/w/"))
    watcher.page.wait_for_selector("svg.board .piece")
    # Each sees the other here, wherever their sockets went.
    red.page.wait_for_function("() => window.chuhanApp.view.state.players.second.connected")
    black.page.wait_for_function("() => window.chuhanApp.view.state.players.first.connected")

    for ply, move in enumerate(MATING_LINE[:4]):
        mover, other = (red, black) if ply % 2 == 0 else (black, red)
        mover.click_move(move)
        other.wait_ply(ply + 1)
    watcher.wait_ply(4)

    # The sockets went to both processes: the players are on different ones.
    sockets = [port for port, line in group.relay.requests if line.startswith("GET /ws/")]
    assert set(sockets) == set(group.relay.targets), group.relay.requests

    # One process dies without warning: the pages on it reconnect through the same
    # address (to the survivor), and the game goes on, its clock still running.
    group.kill(0)
    for player in (red, black, watcher):
        player.page.wait_for_function(
            "() => document.getElementById('connection').hidden"
            " && window.chuhanApp.view.state.ply === 4",
            timeout=60000,
        )
    # Whoever was connected to the dead process is no longer counted there.
    red.page.wait_for_function("() => window.chuhanApp.view.state.watchers === 1")
    for ply, move in enumerate(MATING_LINE[4:], start=4):
        mover, other = (red, black) if ply % 2 == 0 else (black, red)
        mover.click_move(move)
        other.wait_ply(ply + 1)
    for player in (red, black, watcher):
        player.page.wait_for_selector("#banner:not([hidden])")
        assert "checkmated" in (player.page.text_content("#banner-reason") or "")
    moves = [m["iccs"] for m in watcher.state()["moves"]]
    assert moves == MATING_LINE
    assert red.state()["clock"] is not None
    red.screenshot("xiangqi-two-processes-red")
