"""Reads of games as a hostile client makes them, on both stores: a long finished game read
over and over (its state, PGN and FEN at a ply, the analysis of a position) is replayed once,
in the read worker and never on the server's event loop, kept while it does not change and
read again once it does; reads and the games read from the store are counted per address,
with a 429 that names the limit; what is kept stays within its bound."""

from __future__ import annotations

import concurrent.futures
import os
import time
from typing import Any

import pytest
from starlette.testclient import TestClient
from web_helpers import FakeClock, MakeClient, Player, join_friend_game

from chuhan.board import Board
from chuhan.records import GameRecord, read_pgn, write_pgn
from chuhan.squares import Move
from chuhan.web.round import reads as reads_module
from chuhan.web.round import room as room_module
from chuhan.web.round.view import public_state

#: A legal xiangqi game of 120 plies that the referee lets run (no repetition, no mate).
LONG = [
    "b2c2",
    "i9i8",
    "c2g2",
    "b7f7",
    "g2f2",
    "g6g5",
    "h2h3",
    "e6e5",
    "h0i2",
    "a6a5",
    "b0c2",
    "h7h8",
    "h3h7",
    "e9e8",
    "c2e1",
    "g5g4",
    "c0a2",
    "a9a7",
    "a2c0",
    "h8g8",
    "e1d3",
    "e8d8",
    "f2d2",
    "f7d7",
    "h7h1",
    "a7a8",
    "i2h0",
    "g4h4",
    "h1i1",
    "g9i7",
    "d2d1",
    "a8a9",
    "i1e1",
    "i8h8",
    "e1h1",
    "d9e8",
    "d1c1",
    "e5e4",
    "c1a1",
    "g8f8",
    "i3i4",
    "e8d9",
    "h1d1",
    "d7d5",
    "c3c4",
    "h4g4",
    "d1e1",
    "f8g8",
    "a1a2",
    "f9e8",
    "e1b1",
    "b9c7",
    "b1b3",
    "d5d6",
    "a2i2",
    "h8h5",
    "b3b9",
    "g4f4",
    "b9b1",
    "h9g7",
    "i2d2",
    "f4f3",
    "d2g2",
    "d6g6",
    "g2b2",
    "g6h6",
    "b2b8",
    "h5c5",
    "a0a2",
    "g8i8",
    "b8a8",
    "i6i5",
    "i0i3",
    "h6h1",
    "i3i2",
    "c5g5",
    "i2e2",
    "e4f4",
    "b1b6",
    "a5a4",
    "b6b0",
    "g5d5",
    "a2d2",
    "d5a5",
    "d0e1",
    "h1h9",
    "d2d1",
    "a5h5",
    "b0a0",
    "h5h6",
    "e1d0",
    "e8f7",
    "e0e1",
    "h6h3",
    "e2a2",
    "h3h6",
    "a8a7",
    "f4e4",
    "g3g4",
    "h6h7",
    "a7a6",
    "i8e8",
    "h0g2",
    "h7h8",
    "e1f1",
    "e4d4",
    "g2i3",
    "h9f9",
    "a2b2",
    "h8f8",
    "b2d2",
    "d8d7",
    "d2c2",
    "e8a8",
    "c2c3",
    "f3f2",
    "f1e1",
    "f8h8",
    "e3e4",
    "a4a3",
]


def import_long(client: TestClient, plies: int = len(LONG), event: str = "Long") -> str:
    """An imported record of the first ``plies`` of :data:`LONG`, drawn; its game id."""
    record = GameRecord.from_moves(
        [Move.from_iccs(move) for move in LONG[:plies]],
        headers={"Event": event, "Red": "Ada", "Black": "Bo"},
    )
    record.result = "1/2-1/2"
    response = client.post("/api/import", content=write_pgn(record).encode())
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["games"][0]["plies"] == plies, body
    return str(body["games"][0]["game_id"])


def context_of(client: TestClient) -> Any:
    return client.app.state.context  # type: ignore[attr-defined]


@pytest.fixture
def replays_here(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The games the server's own process replays (a room loaded, or a read made on the
    event loop); the read worker is another process, which this does not see."""
    made: list[str] = []
    real = room_module.replay  # type: ignore[attr-defined]  # the name the room calls

    def counted(row: Any, events: Any, **options: Any) -> Any:
        made.append(row.id)
        return real(row, events, **options)

    monkeypatch.setattr(room_module, "replay", counted)
    monkeypatch.setattr(reads_module, "replay", counted)
    return made


def fen_after(plies: int) -> str:
    board = Board()
    for move in LONG[:plies]:
        board.push(Move.from_iccs(move))
    return board.fen()


# ---------------------------------------------------------------------- read once, elsewhere


def test_a_long_finished_game_read_over_and_over_is_replayed_once_in_the_read_worker(
    client: TestClient, replays_here: list[str]
) -> None:
    game_id = import_long(client)
    for _ in range(5):
        state = client.get(f"/api/games/{game_id}")
        assert state.status_code == 200, state.text
        assert state.json()["ply"] == len(LONG) and state.json()["status"] == "over"
        fen = client.get(f"/api/games/{game_id}/fen?ply=37").json()
        assert fen == {"fen": fen_after(37), "ply": 37}
        assert client.get(f"/api/games/{game_id}/fen").json()["fen"] == fen_after(len(LONG))
        for notation in ("iccs", "wxf", "chinese"):
            pgn = client.get(f"/api/games/{game_id}/pgn?format={notation}")
            assert pgn.status_code == 200, pgn.text
    assert replays_here == []  # nothing on the server's event loop
    reads = context_of(client).reads
    assert reads.builds == 1
    kept = reads.kept(game_id)
    assert kept is not None and kept.built_by not in (0, os.getpid())
    record = read_pgn(client.get(f"/api/games/{game_id}/pgn").text)[0]
    assert [move.iccs() for move in record.main_line_moves()] == LONG
    assert record.headers["Red"] == "Ada" and record.result == "1/2-1/2"


def test_the_analysis_of_a_long_finished_game_is_read_in_the_worker_too(
    client: TestClient, replays_here: list[str]
) -> None:
    game_id = import_long(client)
    for ply in (0, 41, len(LONG)):
        response = client.post(f"/api/games/{game_id}/analysis", json={"ply": ply})
        body = response.json()
        assert response.status_code == 200, body
        assert body["ply"] == ply and body["fen"] == fen_after(ply) and body["lines"]
        assert body["turn"] == ("first" if ply % 2 == 0 else "second")
    assert replays_here == []
    assert context_of(client).reads.builds == 1


def test_reads_arriving_together_wait_for_one_build(
    client: TestClient, replays_here: list[str]
) -> None:
    game_id = import_long(client)
    with concurrent.futures.ThreadPoolExecutor(8) as threads:
        answers = list(
            threads.map(lambda _: client.get(f"/api/games/{game_id}").status_code, range(16))
        )
    assert answers == [200] * 16
    assert context_of(client).reads.builds == 1
    assert replays_here == []


def test_a_kept_game_is_read_again_once_it_changes_and_not_before(client: TestClient) -> None:
    game, red, black = join_friend_game(client, time_control="10+5")
    red.move("h2e2")
    black.wait_state(lambda state: state["ply"] == 1)
    black.do("resign")
    red.close()
    black.close()
    reads = context_of(client).reads
    first = client.get(f"/api/games/{game['game_id']}").json()
    assert first["result"]["termination"] == "resignation" and first["offers"]["rematch"] is None
    assert client.get(f"/api/games/{game['game_id']}").json() == first
    assert reads.builds == 1
    # A rematch offer changes the finished game: the next read is built again.
    red = Player(client, game["game_id"], game["token"])
    red.hello()
    red.do("rematch")
    offered = client.get(f"/api/games/{game['game_id']}").json()
    assert offered["offers"]["rematch"] == "first" and offered["version"] > first["version"]
    assert offered["players"]["first"]["connected"] is True  # (from the room here)
    assert reads.builds == 2
    red.close()
    # The room is gone; the store's revision is the one kept: nothing is built.
    again = client.get(f"/api/games/{game['game_id']}").json()
    assert again["offers"]["rematch"] == "first" and reads.builds == 2


def test_a_finished_game_reads_as_its_room_shows_it(client: TestClient, clock: FakeClock) -> None:
    game, red, black = join_friend_game(client, time_control="10+5")
    for ply, move in enumerate(("h2e2", "h9g7", "b0c2"), start=1):
        mover, other = (red, black) if ply % 2 else (black, red)
        mover.move(move)
        other.wait_state(lambda state, ply=ply: state["ply"] == ply)
        clock.advance(3)
    black.do("resign")
    read = client.get(f"/api/games/{game['game_id']}").json()
    context = context_of(client)

    async def from_the_room() -> dict[str, Any]:
        return public_state(context.manager.rooms[game["game_id"]], context.now())

    assert read == client.portal.call(from_the_room)  # type: ignore[union-attr]
    assert read["clock"]["running"] is None and read["players"]["second"]["connected"]
    red.close()
    black.close()


def test_an_unknown_game_or_a_bad_read_is_answered_as_before(client: TestClient) -> None:
    assert client.get("/api/games/nope").status_code == 404
    assert client.get("/api/games/nope/pgn").json()["error"]["code"] == "no_game"
    game_id = import_long(client, 10)
    assert client.get(f"/api/games/{game_id}/fen?ply=11").status_code == 400
    assert client.get(f"/api/games/{game_id}/pgn?format=korean").status_code == 400
    assert client.get(f"/api/games/{game_id}/pgn?format=morse").status_code == 400
    game, red, _ = join_friend_game(client)
    red.move("h2e2")
    playing = client.get(f"/api/games/{game['game_id']}/fen?ply=0").json()
    assert playing == {"fen": Board().fen(), "ply": 0}
    refused = client.post(f"/api/games/{game['game_id']}/analysis", json={})
    assert refused.status_code == 403


# ---------------------------------------------------------------------- counted per address


def test_reads_are_counted_per_address_with_a_429_naming_the_limit(make_client: MakeClient) -> None:
    client = make_client(read_burst=4, read_every_seconds=10, read_refusal_delay_seconds=0.3)
    game_id = import_long(client, 20)
    paths = ["", "/fen?ply=3", "/pgn", "/fen"]
    assert [client.get(f"/api/games/{game_id}{p}").status_code for p in paths] == [200] * 4
    asked = time.monotonic()
    refused = client.get(f"/api/games/{game_id}")
    assert time.monotonic() - asked >= 0.3  # (refused after the delay: a flood slows down)
    assert refused.status_code == 429
    error = refused.json()["error"]
    assert error["code"] == "rate_limited"
    assert "at most 4 at once, then one every 10 s" in error["message"]
    assert refused.headers["retry-after"] == "10"
    other = client.get(f"/api/games/{game_id}", headers={"x-forwarded-for": "198.51.100.7"})
    assert other.status_code == 429  # (without --trust-proxy the header is no address)


def test_games_read_from_the_store_are_counted_per_address(
    make_client: MakeClient, clock: FakeClock
) -> None:
    client = make_client(rebuild_burst=2, rebuild_every_seconds=30)
    games = [import_long(client, plies, f"game {plies}") for plies in (10, 11, 12)]
    assert client.get(f"/api/games/{games[0]}").status_code == 200
    assert client.get(f"/api/games/{games[1]}").status_code == 200
    refused = client.get(f"/api/games/{games[2]}/pgn")
    assert refused.status_code == 429
    assert "reads of games not read recently" in refused.json()["error"]["message"]
    assert "one every 30 s" in refused.json()["error"]["message"]
    for game_id in games[:2]:  # (kept: read again at no cost)
        assert client.get(f"/api/games/{game_id}/fen?ply=5").status_code == 200
    clock.advance(30)
    assert client.get(f"/api/games/{games[2]}").status_code == 200


def test_what_is_kept_stays_within_its_bound(make_client: MakeClient) -> None:
    client = make_client(read_cache_bytes=60_000)
    games = [import_long(client, plies, f"game {plies}") for plies in (100, 101, 102)]
    reads = context_of(client).reads
    for game_id in games:
        assert client.get(f"/api/games/{game_id}").status_code == 200
        assert 0 < reads.kept_bytes() <= 60_000
    assert reads.kept(games[0]) is None and reads.kept(games[2]) is not None
    assert client.get(f"/api/games/{games[0]}").status_code == 200
    assert reads.builds == 4
