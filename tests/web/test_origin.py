"""Another site's page cannot act with a visitor's session cookie: websocket handshakes and
requests that change anything are refused when their ``Origin`` is not this site, and JSON
bodies are read only when sent as ``application/json`` (as hostile pages would send them:
another port of the same host, a sibling subdomain, an opaque ``null`` origin, a forged
``X-Forwarded-Host`` behind a trusted proxy)."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from web_helpers import MakeClient, create_game

#: The test client sends ``Host: testserver``; this is the site's own page.
SAME_SITE = "http://testserver"
FOREIGN = [
    "http://testserver:8001",  # another port of the same host
    "https://testserver",  # another scheme's default port
    "http://evil.testserver",  # a sibling subdomain
    "http://evil.example",
    "null",  # a sandboxed frame or a file
    "file://",
]
PASSWORD = "correct horse battery"
#: Cheap Argon2 for the tests.
CHEAP: dict[str, Any] = {"argon2_time_cost": 1, "argon2_memory_kib": 8192, "argon2_parallelism": 1}


def sign_up(client: TestClient, name: str) -> dict[str, str]:
    response = client.post(
        "/api/account/signup",
        json={"name": name, "password": PASSWORD},
        headers={"origin": SAME_SITE},
    )
    assert response.status_code == 201, response.text
    cookie = response.cookies["chuhan_session"]
    client.cookies.clear()  # each request says which session it uses
    return {"cookie": f"chuhan_session={cookie}"}


@pytest.fixture
def client(make_client: MakeClient) -> TestClient:
    return make_client(**CHEAP)


def socket_paths(client: TestClient) -> list[str]:
    game = create_game(client)
    return ["/ws/lobby", "/ws/analysis", f"/ws/{game['game_id']}"]


@pytest.mark.parametrize("origin", FOREIGN)
def test_a_websocket_opened_by_another_sites_page_is_refused_before_its_handshake(
    client: TestClient, origin: str
) -> None:
    headers = {**sign_up(client, "Victim01"), "origin": origin}
    for path in socket_paths(client):
        with (
            pytest.raises(WebSocketDisconnect) as refused,
            client.websocket_connect(path, headers=headers),
        ):
            pass
        assert refused.value.code == 1008, path


def test_a_websocket_opened_by_the_sites_own_page_is_taken(client: TestClient) -> None:
    headers = {**sign_up(client, "Ada01"), "origin": SAME_SITE}
    for path in socket_paths(client):
        with client.websocket_connect(path, headers=headers) as socket:
            socket.send_json({"type": "ping", "seq": 1})


def test_a_websocket_without_an_origin_is_not_a_browsers_and_is_taken(client: TestClient) -> None:
    for path in socket_paths(client):
        with client.websocket_connect(path) as socket:
            socket.send_json({"type": "ping", "seq": 1})


@pytest.mark.parametrize("origin", FOREIGN)
def test_a_game_cannot_be_created_from_another_sites_page(client: TestClient, origin: str) -> None:
    cookie = sign_up(client, "Victim02")
    for kind in ("application/json", "text/plain"):
        response = client.post(
            "/api/games",
            content=b'{"kind": "friend", "rated": true}',
            headers={**cookie, "origin": origin, "content-type": kind},
        )
        assert response.status_code == 403, (origin, kind)
        assert response.json()["error"]["code"] == "cross_site"
        assert origin[:20] in response.json()["error"]["message"]


def test_a_json_body_sent_as_plain_text_is_refused_even_from_the_site(client: TestClient) -> None:
    cookie = sign_up(client, "Ada02")
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data", ""):
        response = client.post(
            "/api/games",
            content=b'{"kind": "friend"}',
            headers={**cookie, "origin": SAME_SITE, "content-type": kind},
        )
        assert response.status_code == 415, kind
        error = response.json()["error"]
        assert error["code"] == "not_json"
        assert "application/json" in error["message"]


def test_a_json_body_with_a_charset_is_read(client: TestClient) -> None:
    response = client.post(
        "/api/games",
        content=b'{"kind": "friend"}',
        headers={"origin": SAME_SITE, "content-type": "application/json; charset=utf-8"},
    )
    assert response.status_code == 201, response.text


@pytest.mark.parametrize(
    "path, body",
    [
        ("/api/account/signout", {}),
        ("/api/account/password", {"password": PASSWORD, "new_password": "another long one"}),
        ("/api/account/delete", {"password": PASSWORD}),
        ("/api/games/mine", {"tokens": []}),
    ],
)
def test_the_account_cannot_be_used_from_another_port_of_the_same_host(
    client: TestClient, path: str, body: dict[str, Any]
) -> None:
    cookie = sign_up(client, "Victim03")
    response = client.post(path, json=body, headers={**cookie, "origin": "http://testserver:9"})
    assert response.status_code == 403
    me = client.get("/api/account", headers=cookie).json()
    assert me["account"]["name"] == "Victim03"


def test_behind_a_trusted_proxy_a_forged_forwarded_host_does_not_make_a_page_this_site(
    make_client: MakeClient,
) -> None:
    client = make_client(**CHEAP, trust_proxy=True)
    cookie = sign_up(client, "Victim04")
    forged = {**cookie, "origin": "http://evil.example", "x-forwarded-host": "evil.example"}
    response = client.post("/api/games", json={"kind": "friend"}, headers=forged)
    assert response.status_code == 403
    null = {**cookie, "origin": "null", "x-forwarded-host": ""}
    assert client.post("/api/games", json={"kind": "friend"}, headers=null).status_code == 403
    game = create_game(client)
    with (
        pytest.raises(WebSocketDisconnect),
        client.websocket_connect(f"/ws/{game['game_id']}", headers=forged),
    ):
        pass
    same = {**cookie, "origin": SAME_SITE}
    assert client.post("/api/games", json={"kind": "friend"}, headers=same).status_code == 201
