"""Uploads are read in a worker process with a deadline, never on the server's loop."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient
from web_helpers import MakeClient


def test_an_upload_that_takes_too_long_is_refused_with_a_sentence(make_client: MakeClient) -> None:
    client = make_client(import_seconds=0.001)
    body = b'[Event "long"]\n\n' + b"1. h2e2 h7e7 2. e2h2 e7h7 " * 8000
    refused = client.post("/api/import", content=body)
    assert refused.status_code == 422
    error = refused.json()["error"]
    assert error["code"] == "too_slow" and "could not be read within" in error["message"]
    # The worker was replaced: the next upload is read.
    client2 = make_client()
    ok = client2.post("/api/import", content=b'[Event "short"]\n\n1. h2e2 h9g7 *\n')
    assert ok.status_code == 201 and ok.json()["games"][0]["plies"] == 2


def test_an_error_is_said_once_with_its_game(client: TestClient) -> None:
    body = b'[Event "Broken"]\n\n1. h2e2 h2h9 *\n'
    answer = client.post("/api/import", content=body).json()
    assert answer["errors"], answer
    for error in answer["errors"]:
        assert error.count("game 1") == 1, error


def test_an_upload_beyond_the_limits_is_refused_naming_the_limit(client: TestClient) -> None:
    many = b"".join(b'[Event "g%d"]\n\n1. h2e2 h9g7 *\n\n' % n for n in range(51))
    refused = client.post("/api/import", content=many)
    assert refused.status_code == 400
    assert "more than 50 games" in refused.json()["error"]["message"]
    deep = b'[Event "deep"]\n\n1. h2e2 ' + b"(h2e2 " * 30 + b")" * 30 + b" *\n"
    answer = client.post("/api/import", content=deep).json()
    assert any("nested more than 20 deep" in error for error in answer["errors"]), answer


DATA = Path(__file__).parent.parent / "data" / "records"


def test_a_gib_upload_is_read_as_janggi(client: TestClient) -> None:
    answer = client.post("/api/import", content=(DATA / "janggi_euckr.gib").read_bytes())
    assert answer.status_code == 201, answer.text
    (game,) = answer.json()["games"]
    assert (game["variant"], game["plies"], game["result"]) == ("janggi", 20, "0-1")


def test_a_dhtmlxq_upload_is_read_with_its_headers(client: TestClient) -> None:
    answer = client.post("/api/import", content=(DATA / "xiangqi_dhtmlxq_gbk.ubb").read_bytes())
    assert answer.status_code == 201, answer.text
    (game,) = answer.json()["games"]
    assert (game["plies"], game["result"], game["red"], game["event"]) == (
        16,
        "1-0",
        "红方甲",
        "测试杯象棋赛",
    )


def test_a_bad_dhtmlxq_game_is_refused_alone(client: TestClient) -> None:
    body = (DATA / "xiangqi_dhtmlxq_broken.ubb").read_bytes()
    answer = client.post("/api/import?format=ubb", content=body).json()
    assert len(answer["games"]) == 3  # the second keeps its two good moves
    assert len(answer["errors"]) == 1 and answer["errors"][0].startswith("game 2 (第二局)")


def test_an_unknown_format_is_refused_naming_those_known(client: TestClient) -> None:
    refused = client.post("/api/import?format=doc", content=b"[Event]")
    assert refused.status_code == 400
    assert "pgn, xqf, gib, dhtmlxq" in refused.json()["error"]["message"]
