"""An upload is read in the format its bytes show, whatever it is called: CCBridge's CBF
(XML) included, which a reader of PGN would refuse."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from chuhan.records import read_cbf

CBF = Path(__file__).resolve().parents[1] / "data" / "records" / "xiangqi_ccbridge.cbf"


@pytest.mark.parametrize("query", ["", "?format=cbf"])
def test_a_ccbridge_file_imports_with_its_moves(client: TestClient, query: str) -> None:
    data = CBF.read_bytes()
    expected = [move.iccs() for move in read_cbf(data).main_line_moves()]
    response = client.post(f"/api/import{query}", content=data)
    assert response.status_code == 201, response.text
    answer: dict[str, Any] = response.json()
    (game,) = answer["games"]
    state = client.get(f"/api/games/{game['game_id']}").json()
    assert state["moves"] and [m["iccs"] for m in state["moves"]] == expected


def test_a_broken_ccbridge_file_is_refused_naming_what_is_wrong(client: TestClient) -> None:
    response = client.post("/api/import?format=cbf", content=b"<ChineseChessRecord><Head>")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "bad_record" and "not a CBF file: malformed XML" in error["message"]
