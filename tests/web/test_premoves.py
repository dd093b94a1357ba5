"""The state's ``premoves``: what the player waiting for the opponent may premove."""

from __future__ import annotations

from starlette.testclient import TestClient
from web_helpers import Player, create_game, join_friend_game

#: Red to move; Black's chariot on e5 stands between Red's chariot and Black's general.
PINNED_FEN = "4k4/9/9/9/4r4/9/9/9/4R4/3K5 w - - 0 1"


def test_the_waiting_player_is_offered_its_pieces_moves(client: TestClient) -> None:
    _, red, black = join_friend_game(client)
    premoves = red.state["premoves"]
    assert "e7" in premoves["b7"] and "b0" in premoves["b7"]  # Black's cannon
    assert "h2" not in premoves  # Red is to move: its moves are in ``legal``
    state = red.move("h2e2")
    black.wait_state(lambda s: s["ply"] == 1)
    assert "e2" in state["premoves"] and "b7" not in state["premoves"]
    red.close()
    black.close()


def test_a_premove_may_leave_the_king_attacked_now(client: TestClient) -> None:
    _, red, black = join_friend_game(client, fen=PINNED_FEN)
    # The pinned chariot may not leave the file now, but Red's move may unpin it.
    assert "d5" not in black.state["legal"].get("e5", [])
    assert "d5" in black.state["premoves"]["e5"]
    red.close()
    black.close()


def test_no_premoves_in_a_local_game_nor_for_the_computer(client: TestClient) -> None:
    local = create_game(client, kind="local")
    player = Player(client, local["game_id"], local["token"])
    player.hello()
    assert player.state["premoves"] == {}
    player.close()
    # The computer plays Black and moves second: Red waits for it after moving, and only
    # Red is offered premoves.
    computer = create_game(client, kind="computer", level=1, color="first")
    red = Player(client, computer["game_id"], computer["token"])
    red.hello()
    assert red.state["premoves"] == {}  # the waiting side is the computer
    state = red.move("h2e2")
    assert state["ply"] == 1 and state["thinking"]
    assert "e2" in state["premoves"]
    red.close()


def test_the_rest_state_has_no_premoves(client: TestClient) -> None:
    game, red, black = join_friend_game(client)
    assert red.state["premoves"]  # the players' state has them
    state = client.get(f"/api/games/{game['game_id']}").json()
    assert "premoves" not in state and "legal" not in state
    red.close()
    black.close()
