"""An imported record and the stored game agree on where the game ends (issue 28, 10): a
record that goes on after the referee ended the game keeps its moves up to the end, the
summary says what was left out, and the stored game opens (state, PGN, its socket)."""

from __future__ import annotations

from typing import Any

from starlette.testclient import TestClient
from web_helpers import Player

SHUFFLE = "h0g2 h9g7 g2h0 g7h9 "


def test_a_record_that_runs_past_a_repetition_is_stored_up_to_the_end_and_opens(
    client: TestClient,
) -> None:
    text = f'[Event "past the end"]\n\n{SHUFFLE * 3}h2e2 h7e7 *\n'
    response = client.post("/api/import", content=text.encode())
    assert response.status_code == 201, response.text
    answer: dict[str, Any] = response.json()
    (game,) = answer["games"]
    (said,) = answer["errors"]
    assert "past the end" in said and "Draw by repetition" in said
    assert "the 6 moves after it from h0g2 on were left out" in said
    state = client.get(f"/api/games/{game['game_id']}")
    assert state.status_code == 200, state.text
    stored = state.json()["moves"]
    assert 0 < len(stored) < 14
    pgn = client.get(f"/api/games/{game['game_id']}/pgn")
    assert pgn.status_code == 200 and "h2e2" not in pgn.text
    watcher = Player(client, game["game_id"], None)
    watcher.hello()
    assert len(watcher.state["moves"]) == len(stored)


def test_a_record_that_ends_where_the_referee_ends_it_loses_nothing(client: TestClient) -> None:
    text = f"{SHUFFLE}h2e2 h7e7 *\n"  # the start position twice: the game goes on
    answer = client.post("/api/import", content=text.encode()).json()
    assert answer["errors"] == []
    state = client.get(f"/api/games/{answer['games'][0]['game_id']}").json()
    assert len(state["moves"]) == 6


def test_a_record_stored_past_its_end_by_an_earlier_version_still_opens(
    client: TestClient,
) -> None:
    """An import made before the import stopped at the referee's end: the stored game
    opens, shown up to the end."""
    from chuhan.variants import get_variant

    manager = client.app.state.manager  # type: ignore[attr-defined]
    moves = (SHUFFLE * 3 + "h2e2 h7e7").split()
    result = {"winner": None, "termination": "imported", "reason": "Draw.", "result": "1/2-1/2"}
    row = client.portal.call(  # type: ignore[union-attr]
        manager.store_imported,
        get_variant("xiangqi"),
        get_variant("xiangqi").start_fen,
        moves,
        result,
        {},
    )
    manager.rooms.pop(row.id, None)  # read back from the store, as after a restart
    state = client.get(f"/api/games/{row.id}")
    assert state.status_code == 200, state.text
    assert len(state.json()["moves"]) == 8
    assert client.get(f"/api/games/{row.id}/pgn").status_code == 200
