"""The game page's connection as a player meets it: sockets the server closes, the compact
state messages of protocol 2 (a delta of the move list, presence on its own), and a server
that has too many connections. The page's sockets pass through a tap (``SocketTap``) that
closes them with a chosen code or rewrites the server's frames."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from .harness import Player, Server, SocketTap, create_from_home, new_player

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

SEATS = ("first", "second")


def create_game(player: Player, **request: Any) -> dict[str, Any]:
    """Create a game through the REST API from the player's page (on the home page)."""
    player.goto("/")
    created: dict[str, Any] = player.page.evaluate(
        """async (request) => (await fetch("/api/games", {
            method: "POST", headers: {"Content-Type": "application/json"},
            body: JSON.stringify(request),
        })).json()""",
        {"variant": "xiangqi", **request},
    )
    return created


def move_texts(player: Player) -> list[str]:
    texts: list[str] = player.page.locator("#moves .move:not(.empty)").all_text_contents()
    return texts


def test_a_closed_socket_reconnects_and_the_game_goes_on(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    """Whatever code the server closes a player's socket with, other than the two that say
    the link is wrong, the page says it is reconnecting, connects again with a fresh hello,
    and the player's next move counts. A close for too many messages (1008) used to leave the
    player disconnected for good while the clock ran."""
    player = new_player(players, browser, server)
    page = player.page
    tap = SocketTap(page)
    player.goto(create_game(player, kind="local", time_control="10+0")["seat_url"])
    page.wait_for_selector("svg.board .piece")
    player.click_move("h2e2")

    for code, move in ((1008, "h9g7"), (1011, "h0g2")):
        opened = tap.count
        tap.hold = True  # the new connection waits, so the page can be seen reconnecting
        tap.close(code)
        page.wait_for_selector("#connection:not([hidden])")
        assert "reconnecting" in (page.text_content("#connection") or ""), code
        tap.wait_count(page, opened + 1)
        tap.release()
        page.wait_for_selector("#connection", state="hidden")
        player.click_move(move)

    assert [entry["iccs"] for entry in player.state()["moves"]] == ["h2e2", "h9g7", "h0g2"]
    hellos = [f for f in tap.page_frames if isinstance(f, str) and '"type":"hello"' in f]
    assert len(hellos) == tap.count == 3 and all('"seq":1,' in hello for hello in hellos)
    assert player.errors == []


class Recorder:
    """Passes the server's frames to the page unchanged and keeps them for the test."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def __call__(self, socket: Any, message: dict[str, Any]) -> list[Any]:
        self.messages.append(message)
        return [message]


def test_protocol_two_move_list_deltas_and_presence(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    """Red's page keeps the whole move list from states that carry only the new moves (and
    the shorter list after a takeback), and shows who is connected and how many watch from
    presence messages, without dropping the piece Red has picked."""
    red = new_player(players, browser, server)
    recorder = Recorder()
    tap = SocketTap(red.page, rewrite=recorder)
    create_from_home(red, variant="xiangqi", kind="friend", colour="first")
    red.page.wait_for_selector("#invite:not([hidden])")
    invite_url = red.page.input_value("#invite-url")
    watch_url = red.page.input_value("#watch-url")
    assert red.page.locator("#bar-top.offline").count() == 1  # Black has not come yet

    black = new_player(players, browser, server)
    black.page.goto(invite_url)
    black.page.wait_for_selector("svg.board .piece")
    red.page.wait_for_selector("#invite", state="hidden")  # a presence message says Black is here
    assert red.page.locator("#bar-top.offline").count() == 0

    for mover, other, move, ply in (
        (red, black, "h2e2", 1),
        (black, red, "h9g7", 2),
        (red, black, "h0g2", 3),
    ):
        mover.click_move(move)
        other.wait_ply(ply)
    assert move_texts(red) == move_texts(black) == ["C2.5", "H8+7", "H2+3"]

    # A takeback: the state keeps the first two moves and adds none.
    red.page.click("#btn-takeback")
    black.page.wait_for_selector("#offer:not([hidden])")
    black.page.click("#offer-accept")
    red.page.wait_for_function("() => window.chuhanApp.view.state.ply === 2")
    assert move_texts(red) == ["C2.5", "H8+7"]

    # Red picks a piece; a watcher comes and goes, Black leaves and comes back.
    red.wait_my_turn()
    red.page.mouse.click(*red.point("h0"))
    red.page.wait_for_selector('svg.board .dest[data-square="g2"]', state="attached")
    watcher = new_player(players, browser, server)
    watcher.page.goto(watch_url)
    red.page.wait_for_selector("#watchers:not([hidden])")
    assert red.page.text_content("#watchers") == "1 watching"
    watcher.goto("/")
    red.page.wait_for_selector("#watchers", state="hidden")
    black.goto("/")
    red.page.wait_for_selector("#bar-top.offline")
    black.page.goto(invite_url)
    red.page.wait_for_selector("#bar-top:not(.offline)")
    assert red.page.locator('svg.board .dest[data-square="g2"]').count() == 1

    version = red.version()
    red.page.mouse.click(*red.point("g2"))
    red.wait_version_after(version)
    black.wait_ply(3)
    assert move_texts(red) == move_texts(black) == ["C2.5", "H8+7", "H2+3"]
    assert tap.count == 1  # all of it on one connection
    assert red.errors == []
    # What the server sent: move lists as changes, arrivals and departures as presence.
    states = [m for m in recorder.messages if m["type"] == "state"]
    assert states[0]["moves_from"] == 0 and any(s["moves_from"] > 0 for s in states)
    assert all(len(s["moves"]) <= 1 for s in states[1:])
    assert any(m["type"] == "presence" for m in recorder.messages)


def test_a_state_that_does_not_fit_the_move_list_is_asked_for_again(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    """A state that adds to more moves than the page holds (``moves_from`` past its list)
    cannot be used: the page asks for the whole state again and shows that one."""
    spoiled: list[int] = []

    def spoil_the_first_move(_socket: Any, message: dict[str, Any]) -> list[Any]:
        if message.get("type") == "state" and message["ply"] == 1 and not spoiled:
            spoiled.append(message["version"])
            return [{**message, "moves_from": 5, "moves": []}]
        return [message]

    player = new_player(players, browser, server)
    tap = SocketTap(player.page, rewrite=spoil_the_first_move)
    player.goto(create_game(player, kind="local")["seat_url"])
    player.page.wait_for_selector("svg.board .piece")
    player.click_move("h2e2")
    assert spoiled and any('"resync"' in frame for frame in tap.page_frames)
    assert move_texts(player) == ["C2.5"]
    player.click_move("h9g7")
    assert move_texts(player) == ["C2.5", "H8+7"]
    assert player.errors == []


def test_too_many_connections_says_why_and_tries_again_later(
    browser: Browser, server: Server, players: list[Player]
) -> None:
    """A server with too many connections sends an error with its sentence, then closes with
    4429: the page shows the sentence and tries again after half a minute, not at once."""
    player = new_player(players, browser, server)
    page = player.page
    created = create_game(player, kind="local")
    tap = SocketTap(page)
    sentence = "This game has 500 watchers already: try again in a minute."
    tap.refuse_next([{"type": "error", "code": "too_many_watchers", "message": sentence}], 4429)
    page.clock.install()
    player.goto(created["watch_url"])
    page.wait_for_function(
        "(sentence) => document.getElementById('connection').textContent.includes(sentence)"
        " && !document.getElementById('connection').hidden",
        arg=sentence,
    )
    page.wait_for_timeout(2000)
    assert tap.count == 1  # no second try yet
    assert sentence in (page.text_content("#connection") or "")

    page.clock.fast_forward("00:31")
    tap.wait_count(page, 2)
    page.wait_for_selector("svg.board .piece")
    page.wait_for_selector("#connection", state="hidden")
    assert player.errors == []
