"""``chuhan db copy``: a SQLite game database moved into PostgreSQL loses nothing, and the
games go on there."""

from __future__ import annotations

import asyncio
import warnings
from pathlib import Path
from typing import Any

import pytest
from web_helpers import (
    FakeClock,
    FakeEngine,
    MakeClient,
    Player,
    create_game,
    join_friend_game,
    token_of,
)

from chuhan.cli import main
from chuhan.web.app import create_app
from chuhan.web.db import open_store

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


def snapshot(location: str | Path, tokens: list[str]) -> dict[str, Any]:
    """The games ``tokens`` open, each with its row, events, seats and chat, as a store
    reads them."""

    async def read() -> dict[str, Any]:
        store = open_store(location)
        await store.open()
        try:
            found = {}
            for _, _, row in await store.games_for_tokens(tokens):
                found[row.id] = (
                    row,
                    await store.events(row.id),
                    await store.seats_of(row.id),
                    await store.chat_history(row.id),
                )
            return found
        finally:
            await store.close()

    return asyncio.run(read())


def test_a_sqlite_database_copied_into_postgresql_is_whole_and_plays_on(
    make_client: MakeClient,
    db_path: Path,
    postgres_url: str,
    clock: FakeClock,
    capsys: pytest.CaptureFixture[str],
) -> None:
    client = make_client()
    friend, red, black = join_friend_game(client, time_control="5+3")
    red.move("h2e2")
    clock.advance(2)
    black.wait_state(lambda s: s["ply"] == 1)
    black.move("h9g7")
    red.send("chat", text="nice")
    red.expect("ack")
    resigned, red_2, black_2 = join_friend_game(client)
    red_2.move("b2e2")
    black_2.wait_state(lambda s: s["ply"] == 1)
    black_2.do("resign")
    computer = create_game(client, kind="computer", level=2, side="first")
    hands = Player(client, computer["game_id"], computer["token"])
    hands.hello()
    hands.move("h2e2")
    hands.wait_state(lambda s: s["ply"] == 2)
    for player in (red, black, red_2, black_2, hands):
        player.close()
    client.__exit__(None, None, None)
    tokens = [friend["token"], resigned["token"], computer["token"]]
    before = snapshot(db_path, tokens)
    assert len(before) == 3

    assert main(["db", "copy", str(db_path), postgres_url]) == 0
    said = capsys.readouterr().out
    assert said.startswith("chuhan: copied 3 games (2 not over), ") and " 1 chat lines" in said

    after = snapshot(postgres_url, tokens)
    assert after == before  # rows (with their revisions), events, seats and chat

    # Served from PostgreSQL, the games go on where they were.
    with TestClient(create_app(postgres_url, now=clock, compute=FakeEngine())) as again:
        red = Player(again, friend["game_id"], friend["token"])
        red.hello()
        assert [m["iccs"] for m in red.state["moves"]] == ["h2e2", "h9g7"]
        assert red.state["clock"]["running"] == "first"
        assert red.move("h0g2")["ply"] == 3
        black = Player(again, friend["game_id"], token_of(friend["invite_url"]))
        black.hello()
        assert black.state["ply"] == 3
        for player in (red, black):
            player.close()
        over = again.get(f"/api/games/{resigned['game_id']}")
        assert over.status_code == 200 and over.json()["status"] == "over"

    # A second copy into the same database is refused, and changes nothing.
    assert main(["db", "copy", str(db_path), postgres_url]) == 2
    assert "already holds 3 games: chuhan db copy fills an empty database" in (
        capsys.readouterr().err
    )


def test_a_copy_is_refused_while_a_server_uses_the_file_and_names_a_bad_destination(
    make_client: MakeClient, db_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_client()  # a server owns the file
    assert main(["db", "copy", str(db_path), "postgresql://x@127.0.0.1:1/games"]) == 2
    assert "in use by another chuhan server" in capsys.readouterr().err
    assert main(["db", "copy", str(db_path), "games.sqlite3"]) == 2
    assert "DEST must be a PostgreSQL address" in capsys.readouterr().err


def test_a_copy_takes_the_tournaments_and_the_vacations_along(
    make_client: MakeClient, db_path: Path, postgres_url: str, clock: FakeClock
) -> None:
    """An over-the-board Swiss in its second round (players with clubs, a result, a board's
    moves, a pair kept apart, a half-point bye) and an account's vacation read the same from
    the copy."""
    from test_accounts import COOKIE, as_, sign_in, sign_up
    from test_tournament_over_the_board import an_event, post

    client = make_client()
    tournament_id, director = an_event(client, clock)
    assert post(client, director, tournament_id, "forbid", first="p:1", second="p:2")
    assert post(client, director, tournament_id, "pair").status_code == 200
    for board, result in ((1, "1-0"), (2, "1/2-1/2")):
        entered = post(
            client, director, tournament_id, "result", round=1, board=board, result=result
        )
        assert entered.status_code == 200, entered.text
    moves = post(client, director, tournament_id, "moves", round=1, board=1, moves="h2e2 h9g7")
    assert moves.status_code == 200, moves.text
    # (a player's half-point bye in round 2, asked for before it is paired)
    assert post(client, director, tournament_id, "players/4/bye").status_code == 200
    assert post(client, director, tournament_id, "pair").status_code == 200
    away = sign_up(client, "Traveller")
    taken = client.post("/api/account/vacation", json={"days": 3}, headers=as_(away))
    assert taken.status_code == 200, taken.text
    before = client.get(f"/api/tournaments/{tournament_id}").json()["tournament"]
    vacation = client.get("/api/account/vacation", headers=as_(away)).json()
    for line in ("first line", "second line"):  # (the tournament's chat, in its order)
        with client.websocket_connect(f"/ws/t/{tournament_id}", headers=as_(away)) as page:
            page.send_json({"type": "hello", "seq": 1})
            while page.receive_json()["type"] != "chat_history":
                pass
            page.send_json({"type": "chat", "seq": 2, "text": line})
            while (answer := page.receive_json())["type"] != "ack":
                assert answer["type"] != "error", answer
    client.__exit__(None, None, None)

    assert main(["db", "copy", str(db_path), postgres_url]) == 0

    with TestClient(create_app(postgres_url, now=clock, compute=FakeEngine())) as again:
        after = again.get(f"/api/tournaments/{tournament_id}").json()["tournament"]
        assert after == before
        # (sessions are not copied: the traveller signs in again)
        back = sign_in(again, "Traveller").cookies[COOKIE]
        assert again.get("/api/account/vacation", headers=as_(back)).json() == vacation
        with again.websocket_connect(f"/ws/t/{tournament_id}") as page:
            page.send_json({"type": "hello", "seq": 1})
            while (history := page.receive_json())["type"] != "chat_history":
                pass
        said = [(line["name"], line["text"]) for line in history["lines"]]
        assert said == [("Traveller", "first line"), ("Traveller", "second line")]
        trf = again.get(f"/api/tournaments/{tournament_id}/trf")
        assert trf.status_code == 200 and "Club championship" in trf.text
