"""Uploads are read in a worker process with a deadline, never on the server's loop."""

from __future__ import annotations

from typing import Any


def test_an_upload_that_takes_too_long_is_refused_with_a_sentence(make_client: Any) -> None:
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


def test_an_error_is_said_once_with_its_game(client: Any) -> None:
    body = b'[Event "Broken"]\n\n1. h2e2 h2h9 *\n'
    answer = client.post("/api/import", content=body).json()
    assert answer["errors"], answer
    for error in answer["errors"]:
        assert error.count("game 1") == 1, error


def test_an_upload_beyond_the_limits_is_refused_naming_the_limit(client: Any) -> None:
    many = b"".join(b'[Event "g%d"]\n\n1. h2e2 h9g7 *\n\n' % n for n in range(51))
    refused = client.post("/api/import", content=many)
    assert refused.status_code == 400
    assert "more than 50 games" in refused.json()["error"]["message"]
    deep = b'[Event "deep"]\n\n1. h2e2 ' + b"(h2e2 " * 30 + b")" * 30 + b" *\n"
    answer = client.post("/api/import", content=deep).json()
    assert any("nested more than 20 deep" in error for error in answer["errors"]), answer
