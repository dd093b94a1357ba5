"""Web Push with no mock in between, on both stores, with a fake clock: the server pushes to
a real HTTP push endpoint on a local port (a small threaded server in the test), which
decrypts each message with the subscription's private key and auth secret (made here with
``cryptography``; RFC 8291's aes128gcm through ``http_ece``) and checks the VAPID token's
signature against the key the server serves. An away player is pushed once a turn, in
their language; a 410 forgets the subscription; a push service that never answers holds
up no move; bad subscriptions and a flood of them get a clear refusal."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from starlette.testclient import TestClient
from test_accounts import CHEAP, Seat, as_, sign_up
from test_correspondence import correspondence_game
from test_notices import look
from web_helpers import FakeClock, MakeClient, token_of

from chuhan.web.notices.push import (
    MAX_DEVICES,
    PushError,
    PushUnavailable,
    check_subscription,
    make_vapid_keys,
    send_push,
)

MINUTE = 60.0


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Browser:
    """What a browser's Push API holds for one subscription: the key pair and the auth
    secret that decrypt what its push service hands it."""

    endpoint: str
    private: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    def subscription(self) -> dict[str, Any]:
        point = self.private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "keys": {"p256dh": b64url(point), "auth": b64url(self.auth)},
        }

    def decrypt(self, body: bytes) -> dict[str, Any]:
        import http_ece  # type: ignore[import-untyped]

        plain = http_ece.decrypt(
            body, private_key=self.private, auth_secret=self.auth, version="aes128gcm"
        )
        found: dict[str, Any] = json.loads(plain)
        return found


@dataclass
class Delivery:
    path: str
    headers: dict[str, str]
    body: bytes


class PushService:
    """A push service on a local port: keeps each message posted to it and answers 201,
    or the status set for its path (410: the subscription is gone), or first the answers
    scripted for its path, one a message (``(503, {})`` then ``(429, {"Retry-After":
    "30"})``, ...)."""

    def __init__(self) -> None:
        self.deliveries: list[Delivery] = []
        self.statuses: dict[str, int] = {}
        self.scripts: dict[str, list[tuple[int, dict[str, str]]]] = {}
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                service.deliveries.append(
                    Delivery(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
                script = service.scripts.get(self.path)
                status, headers = (
                    script.pop(0) if script else (service.statuses.get(self.path, 201), {})
                )
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def push_service() -> Any:
    service = PushService()
    yield service
    service.stop()


def push_client(make_client: MakeClient, **extra: Any) -> TestClient:
    settings = {
        **CHEAP,
        "push_http_localhost": True,
        "public_url": "https://xq.example",
        "notice_push_away_minutes": 2,
        "notice_sweep_seconds": 86400,  # (the test looks when it wants)
        "notice_attempts": 2,
        "notice_backoff_seconds": 0,
        "notice_retry_minutes": 10,
        **extra,
    }
    client: TestClient = make_client(**settings)
    return client


def subscribe(client: TestClient, cookie: str, browser: Browser, language: str = "en") -> Any:
    return client.post(
        "/api/account/push",
        json={**browser.subscription(), "language": language},
        headers=as_(cookie),
    )


def check_vapid(delivery: Delivery, server_key: str, endpoint: str) -> dict[str, Any]:
    """The VAPID token's claims, its signature checked against the server's key (RFC 8292)."""
    scheme, _, rest = delivery.headers["authorization"].partition(" ")
    assert scheme == "vapid"
    fields = dict(part.strip().split("=", 1) for part in rest.split(","))
    assert fields["k"] == server_key
    head, claims, signature = fields["t"].split(".")
    raw = unb64url(signature)
    assert len(raw) == 64
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(server_key))
    public.verify(  # (raises InvalidSignature for a token another key signed)
        encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
        f"{head}.{claims}".encode(),
        ec.ECDSA(hashes.SHA256()),
    )
    found: dict[str, Any] = json.loads(unb64url(claims))
    origin = endpoint.split("/push")[0]
    assert found["aud"] == origin and found["sub"].startswith("mailto:")
    return found


def turns_kept(client: TestClient) -> list[tuple[str, int]]:
    """The game turns the store keeps as pushed or being pushed: (game, moves) each."""
    from chuhan.web.db.statements import All, Body

    def read() -> Body[list[tuple[str, int]]]:
        rows = yield All("SELECT game_id, plies FROM push_turns ORDER BY game_id", ())
        return [(str(row["game_id"]), int(row["plies"])) for row in rows]

    context = client.app.state.context  # type: ignore[attr-defined]
    found: list[tuple[str, int]] = client.portal.call(  # type: ignore[union-attr]
        context.store.read, read(), "test"
    )
    return found


def server_key(client: TestClient) -> str:
    response = client.get("/api/push/key")
    assert response.status_code == 200, response.text
    key: str = response.json()["key"]
    return key


def test_an_away_player_is_pushed_once_a_turn_in_their_language_and_it_decrypts(
    make_client: MakeClient, clock: FakeClock, push_service: PushService
) -> None:
    client = push_client(make_client)
    ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
    browser = Browser(push_service.url("/push/bob"))
    saved = subscribe(client, bob, browser, "ko")
    assert saved.status_code == 200, saved.text
    assert (saved.json()["push"], saved.json()["devices"], saved.json()["language"]) == (
        True,
        1,
        "ko",
    )
    key = server_key(client)
    game, red, black = correspondence_game(client, ada, bob, rated=False)
    red.move("h2e2")
    black.wait_state(lambda s: s["ply"] == 1)
    clock.advance(3 * MINUTE)
    look(client)
    assert push_service.deliveries == []  # Bob's socket is open: he is here
    black.close()
    clock.advance(1 * MINUTE)
    look(client)
    assert push_service.deliveries == []  # (gone a minute only)
    clock.advance(2 * MINUTE)
    look(client)
    assert len(push_service.deliveries) == 1
    delivery = push_service.deliveries[0]
    assert delivery.path == "/push/bob"
    assert delivery.headers["content-encoding"] == "aes128gcm"
    check_vapid(delivery, key, browser.endpoint)
    message = browser.decrypt(delivery.body)
    assert message["game"] == game["game_id"]
    assert message["url"].startswith(f"https://xq.example/g/{game['game_id']}")
    assert message["title"] == "당신 차례입니다" and message["body"] == "샹치, 상대 Ada"
    # One push a turn: later looks push nothing more while the turn waits.
    for _ in range(3):
        clock.advance(30 * MINUTE)
        look(client)
    assert len(push_service.deliveries) == 1
    # The next turn is pushed again.
    black = Seat(client, game["game_id"], token_of(game["invite_url"]), bob)
    black.hello()
    black.move("h9g7")
    red.wait_state(lambda s: s["ply"] == 2)
    black.close()
    assert turns_kept(client) == [(game["game_id"], 1)]
    look(client)
    assert turns_kept(client) == []  # (Ada's move: Bob's turn is over, its row goes)
    red.move("h0g2")
    clock.advance(3 * MINUTE)
    look(client)
    assert len(push_service.deliveries) == 2
    assert browser.decrypt(push_service.deliveries[1].body)["game"] == game["game_id"]
    assert turns_kept(client) == [(game["game_id"], 3)]
    red.close()


def test_another_feature_notifies_an_account_of_a_challenge_in_its_language(
    make_client: MakeClient, push_service: PushService
) -> None:
    client = push_client(make_client)
    bob = sign_up(client, "Bob")
    browser = Browser(push_service.url("/push/bob"))
    assert subscribe(client, bob, browser, "zh-Hant").status_code == 200
    context = client.app.state.context  # type: ignore[attr-defined]
    account_id = client.portal.call(  # type: ignore[union-attr]
        context.accounts.repository.account_by_name, "Bob"
    ).id
    went = client.portal.call(  # type: ignore[union-attr]
        context.notices._notify, account_id, "challenge", "/?challenge=c1", {"name": "Ada"}
    )
    assert went == 1
    message = browser.decrypt(push_service.deliveries[0].body)
    assert message["title"] == "有人向你挑戰" and message["body"] == "Ada 向你發起挑戰"
    assert message["url"] == "https://xq.example/?challenge=c1"
    ada = sign_up(client, "Ada")
    ada_id = client.portal.call(  # type: ignore[union-attr]
        context.accounts.repository.account_by_name, "Ada"
    ).id
    assert ada is not None
    assert (
        client.portal.call(  # type: ignore[union-attr]
            context.notices._notify, ada_id, "challenge", "/", {"name": "Bob"}
        )
        == 0
    )  # (Ada's pushes are off)


def test_the_push_key_is_kept_across_restarts(make_client: MakeClient) -> None:
    first = server_key(push_client(make_client))
    again = server_key(push_client(make_client))  # (a restart on the same database)
    assert first == again and len(unb64url(first)) == 65


def test_a_subscription_the_push_service_says_is_gone_is_forgotten(
    make_client: MakeClient,
    clock: FakeClock,
    push_service: PushService,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, "chuhan.web")
    client = push_client(make_client)
    ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
    gone, kept = Browser(push_service.url("/push/gone")), Browser(push_service.url("/push/kept"))
    push_service.statuses["/push/gone"] = 410
    assert subscribe(client, bob, gone).status_code == 200
    assert subscribe(client, bob, kept).json()["devices"] == 2
    _game, red, black = correspondence_game(client, ada, bob, rated=False)
    black.close()
    red.move("h2e2")
    clock.advance(3 * MINUTE)
    look(client)
    assert sorted(d.path for d in push_service.deliveries) == ["/push/gone", "/push/kept"]
    assert "subscription is gone (410)" in caplog.text
    found = client.get("/api/account/notices", headers=as_(bob)).json()
    assert (found["push"], found["devices"]) == (True, 1)
    # The last one gone turns the account's pushes off.
    removed = client.request(
        "DELETE", "/api/account/push", json={"endpoint": kept.endpoint}, headers=as_(bob)
    )
    assert removed.status_code == 200 and removed.json()["push"] is False
    red.close()


class SilentService:
    """A push service that takes the connection and never answers (until closed)."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.connected = threading.Event()
        self.connections: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        try:
            connection, _ = self.listener.accept()
        except OSError:
            return
        self.connections.append(connection)
        self.connected.set()

    def close(self) -> None:
        for connection in self.connections:
            connection.close()
        self.listener.close()


def test_a_push_service_that_never_answers_holds_up_no_move(
    make_client: MakeClient, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    silent = SilentService()
    try:
        client = push_client(make_client, push_timeout_seconds=3600)
        ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
        browser = Browser(f"http://127.0.0.1:{silent.port}/push/bob")
        assert subscribe(client, bob, browser).status_code == 200
        game, red, black = correspondence_game(client, ada, bob, rated=False)
        black.close()
        red.move("h2e2")
        clock.advance(3 * MINUTE)
        context = client.app.state.context  # type: ignore[attr-defined]
        pushing = client.portal.start_task_soon(context.notices.sweep)  # type: ignore[union-attr]
        assert silent.connected.wait(60), "the push never reached its service"
        # While the push waits on its service, Bob comes back and moves, and Ada sees it.
        black = Seat(client, game["game_id"], token_of(game["invite_url"]), bob)
        black.hello()
        assert black.move("h9g7")["ply"] == 2
        red.wait_state(lambda s: s["ply"] == 2)
        assert not pushing.done()
        silent.close()  # (the second try finds no one listening)
        assert pushing.result(timeout=60) == []
        assert "cannot push game" in caplog.text and "tried 2 times" in caplog.text
        assert "reached no browser (round 1)" in caplog.text
        black.close()
        red.close()
    finally:
        silent.close()


def test_a_flood_of_subscriptions_is_refused_clearly(
    make_client: MakeClient, push_service: PushService
) -> None:
    client = push_client(make_client)
    bob = sign_up(client, "Bob")
    for n in range(MAX_DEVICES):
        assert subscribe(client, bob, Browser(push_service.url(f"/push/{n}"))).status_code == 200
    again = subscribe(client, bob, Browser(push_service.url("/push/0")))  # (one kept: replaced)
    assert again.status_code == 200 and again.json()["devices"] == MAX_DEVICES
    refused = subscribe(client, bob, Browser(push_service.url("/push/more")))
    assert refused.status_code == 409
    error = refused.json()["error"]
    assert (
        error["code"] == "too_many_devices"
        and f"{MAX_DEVICES} browsers at most" in error["message"]
    )
    anonymous = client.post("/api/account/push", json=Browser("https://x.example/p").subscription())
    assert anonymous.status_code == 401


@pytest.mark.parametrize(
    ("endpoint", "p256dh", "auth", "said"),
    [
        ("http://push.example/x", None, None, "is not an https address"),
        ("https://push.example/" + "x" * 1100, None, None, "at most 1024"),
        ("https://user:pw@push.example/x", None, None, "not a push service's address"),
        ("https://push.example/x", "AAAA", None, "is not a P-256 public key"),
        ("https://push.example/x", None, "c2hvcnQ", "is not a 16-byte secret"),
    ],
)
def test_bad_subscriptions_are_named(
    make_client: MakeClient, endpoint: str, p256dh: str | None, auth: str | None, said: str
) -> None:
    client = make_client(**CHEAP)  # (http to this machine not allowed here)
    bob = sign_up(client, "Bob")
    good = Browser(endpoint).subscription()
    keys = {"p256dh": p256dh or good["keys"]["p256dh"], "auth": auth or good["keys"]["auth"]}
    response = client.post(
        "/api/account/push", json={"endpoint": endpoint, "keys": keys}, headers=as_(bob)
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "bad_subscription" and said in error["message"], error
    local = Browser("http://127.0.0.1:9/push").subscription()
    response = client.post("/api/account/push", json=local, headers=as_(bob))
    assert "is not an https address" in response.json()["error"]["message"]


def test_subscriptions_checked_for_tests_take_http_to_this_machine_only() -> None:
    keys = Browser("x").subscription()["keys"]
    for endpoint in ("http://127.0.0.1:8/p", "http://localhost/p", "http://[::1]:8/p"):
        check_subscription(endpoint, keys["p256dh"], keys["auth"], http_localhost=True)
    with pytest.raises(ValueError, match="not an https address"):
        check_subscription("http://10.0.0.1/p", keys["p256dh"], keys["auth"], http_localhost=True)


@pytest.mark.parametrize(
    "endpoint",
    [
        "https://10.0.0.5/push/x",
        "https://192.168.1.1/x",
        "https://127.0.0.1:8443/x",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/x",
        "https://[fd00::1]/x",
        "https://[::ffff:10.1.2.3]/x",
        "https://0.0.0.0/x",
    ],
)
def test_a_subscription_to_an_address_in_the_servers_own_network_is_refused(
    endpoint: str,
) -> None:
    """A hostile page cannot make the server post into its own network (SSRF)."""
    keys = Browser("x").subscription()["keys"]
    with pytest.raises(ValueError, match="private, loopback or reserved"):
        check_subscription(endpoint, keys["p256dh"], keys["auth"])


def test_a_push_service_name_that_resolves_into_the_servers_network_is_not_posted_to(
    push_service: PushService,
) -> None:
    """The check is made again when the message is sent, on the addresses the name resolves
    to (``localhost``: this machine), and a redirect is not followed."""
    browser = Browser(f"http://localhost:{push_service.port}/sub/1")
    keys_of = browser.subscription()["keys"]
    subscription = check_subscription(
        browser.endpoint, keys_of["p256dh"], keys_of["auth"], http_localhost=True
    )
    keys = make_vapid_keys()

    async def send(loopback: bool) -> None:
        await send_push(
            keys,
            subscription,
            {"title": "t"},
            contact="mailto:a@b.c",
            timeout=30,
            loopback=loopback,
        )

    with pytest.raises(PushError, match="resolves to no public address") as refused:
        asyncio.run(send(False))
    assert not isinstance(refused.value, PushUnavailable)  # (not tried again)
    assert push_service.deliveries == []
    asyncio.run(send(True))  # (the tests' own push service, allowed on purpose)
    assert len(push_service.deliveries) == 1
    push_service.statuses["/sub/1"] = 307
    with pytest.raises(PushError, match="redirect") as redirected:
        asyncio.run(send(True))
    assert not isinstance(redirected.value, PushUnavailable)
