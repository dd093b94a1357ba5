"""How long a challenge's answer waits when its sender's push service fails, measured.

An app on a throwaway SQLite file (in this process, on the real clock, with the default
tries: 3, 20 s then 40 s apart) and a push service on a local port answering ``--status``
to every message. Each round Ada, with a browser subscribed there, sends Bob a challenge
of days per move and leaves the lobby; Bob declines it, which pushes the decline to Ada.
Printed: the decline's round trip (its message to its ``ack``), the pushes still being
tried when the rounds end, and how long the app takes to stop (it cancels and awaits the
pushes under way).

    .venv/bin/python bench/notice_acks.py --status 503
    .venv/bin/python bench/notice_acks.py --status 201   # (the push service working)
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from chuhan.web.app import create_app
from chuhan.web.settings import Settings

sys.path.insert(0, str(Path(__file__).parent.parent / "tests" / "web"))
from starlette.testclient import TestClient
from web_helpers import FakeEngine  # the tests' stand-in engine (no game is played)

#: The pause between rounds: the lobby socket allows a few messages a second.
ROUND_PAUSE = 0.6
PASSWORD = "correct horse battery"


class PushService:
    """A push service on a local port that answers ``status`` to every message."""

    def __init__(self, status: int) -> None:
        self.posted = 0
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                service.posted += 1
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/push/ada"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def subscription(endpoint: str) -> dict[str, Any]:
    """What a browser's Push API would hand the page for ``endpoint``."""
    point = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )
    return {"endpoint": endpoint, "keys": {"p256dh": b64url(point), "auth": b64url(os.urandom(16))}}


def sign_up(client: TestClient, name: str) -> dict[str, str]:
    """A new account's session, as request headers."""
    response = client.post("/api/account/signup", json={"name": name, "password": PASSWORD})
    assert response.status_code == 201, response.text
    cookie = response.cookies["chuhan_session"]
    client.cookies.clear()
    return {"cookie": f"chuhan_session={cookie}"}


class Lobby:
    """A lobby socket of an account, said hello."""

    def __init__(self, client: TestClient, headers: dict[str, str]) -> None:
        self._context = client.websocket_connect("/ws/lobby", headers=headers)
        self.ws = self._context.__enter__()
        self.seq = 0
        self.send("hello")
        self.until("welcome")

    def send(self, kind: str, **fields: Any) -> int:
        self.seq += 1
        self.ws.send_text(json.dumps({"type": kind, "seq": self.seq, **fields}))
        return self.seq

    def until(self, kind: str, seq: int | None = None) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = self.ws.receive_json()
            assert message["type"] != "error", message
            if message["type"] == kind and (seq is None or message.get("seq") == seq):
                return message

    def close(self) -> None:
        self._context.__exit__(None, None, None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--status", type=int, default=503, help="what the push service answers")
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args(argv)
    service = PushService(args.status)
    settings = Settings(
        argon2_time_cost=1,
        argon2_memory_kib=8192,
        argon2_parallelism=1,
        push_http_localhost=True,
        public_url="https://xq.example",
        notice_sweep_seconds=86400,
        lobby_sweep_seconds=86400,
    )
    took: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(Path(folder) / "games.db", compute=FakeEngine(), settings=settings)
        with TestClient(app) as client:
            ada, bob = sign_up(client, "Ada"), sign_up(client, "Bob")
            saved = client.post("/api/account/push", json=subscription(service.url), headers=ada)
            assert saved.status_code == 200, saved.text
            bob_lobby = Lobby(client, bob)
            context = app.state.context
            portal: Any = client.portal
            for _ in range(args.rounds):
                time.sleep(ROUND_PAUSE)
                sender = Lobby(client, ada)
                seq = sender.send("challenge", to="Bob", variant="xiangqi", time_control="3d")
                seek = sender.until("ack", seq)["seek"]
                sender.close()
                portal.call(context.lobby.sweep)  # (Ada is out of the lobby: pushed)
                start = time.perf_counter()
                bob_lobby.until("ack", bob_lobby.send("decline", seek=seek))
                took.append((time.perf_counter() - start) * 1000)
            trying = len(context.notices._notifying)
            bob_lobby.close()
            stopping = time.perf_counter()
        stopped = (time.perf_counter() - stopping) * 1000
    service.stop()
    print(
        f"push service answering {args.status}: the decline's ack in "
        f"{statistics.median(took):.1f} ms median, {max(took):.1f} ms at most "
        f"({args.rounds} rounds); pushes still being tried: {trying}; "
        f"posts to the service: {service.posted}; the app stopped in {stopped:.0f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
