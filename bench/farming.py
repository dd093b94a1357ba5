"""Rating farming, as issue 28's hostile user tried it (item 7), against a real ``chuhan
serve`` on loopback: a farmer signs up sock puppets and beats each in a rated game, and the
farmer's rating is printed. Before the rules, ten puppets resigning at once took a farmer
from 1500 to 1993 in two seconds, sixty to 2274.

    PYTHONPATH=src .venv/bin/python bench/farming.py [--puppets 10 60]

One server (``--trust-proxy``, on a free port of 127.0.0.1 and a fresh SQLite database in
a temporary folder); each attack has a farmer of its own. Each client is given an address
of its own in ``X-Forwarded-For`` (RFC 2544's benchmarking range: it only travels in a
header, to this machine's server), as a botnet or a pool of proxies would give it:

- ``resign at once``: each puppet resigns before anyone moved (the issue's attack);
- ``4 plies, one network``: both players move twice, then the puppet resigns; the puppets
  signed up elsewhere but play from the farmer's address;
- ``4 plies, own networks``: the same, every puppet on an address of its own.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

from chuhan.web.server import free_port

sys.path.insert(0, str(Path(__file__).parent))
from load import serving  # the same server start as the load test

PASSWORD = "correct horse battery"
OPENING = ("h2e2", "h9g7", "h0g2", "i9h9")
#: No attack runs longer than this.
ATTACK_SECONDS = 600


def call(
    base: str, path: str, body: dict[str, Any] | None, cookie: str | None, address: str
) -> tuple[int, Any, str | None]:
    """A request from ``address``: its status, JSON body and the session cookie it set."""
    headers = {"content-type": "application/json", "x-forwarded-for": address}
    if cookie:
        headers["cookie"] = f"chuhan_session={cookie}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{base}{path}", data=data, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            status, text, answer = response.status, response.read(), response.headers
    except urllib.error.HTTPError as error:
        status, text, answer = error.code, error.read(), error.headers
    cookie_set = (answer.get("set-cookie") or "").split(";", 1)[0]
    found = cookie_set.split("=", 1)[1] if cookie_set.startswith("chuhan_session=") else None
    return status, json.loads(text), found


class Seat:
    """One player's socket on a game."""

    def __init__(self, port: int, game_id: str, token: str, cookie: str, address: str) -> None:
        headers = {"cookie": f"chuhan_session={cookie}", "x-forwarded-for": address}
        self._opened = connect(f"ws://127.0.0.1:{port}/ws/{game_id}", additional_headers=headers)
        self.ws: ClientConnection = self._opened.__enter__()
        self.seq = 0
        self.state: dict[str, Any] = {}
        self.send("hello", token=token)
        self.until(lambda message: message["type"] == "chat_history")

    def send(self, kind: str, **fields: Any) -> None:
        self.seq += 1
        self.ws.send(json.dumps({"type": kind, "seq": self.seq, **fields}))

    def until(self, done: Any) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = json.loads(self.ws.recv(timeout=60))
            if message["type"] == "state":
                self.state = message
            if message["type"] == "error":
                raise SystemExit(f"the server refused: {message}")
            if done(message):
                return message

    def wait_ply(self, ply: int) -> None:
        if self.state.get("ply") != ply:
            self.until(lambda m: m["type"] == "state" and m["ply"] == ply)

    def close(self) -> None:
        self._opened.__exit__(None, None, None)


def address(number: int) -> str:
    return f"198.18.{number // 250}.{number % 250 + 1}"


def beat(
    base: str,
    port: int,
    farmer: tuple[str, str],
    puppet: tuple[str, str],
    plies: int,
    created_at: str,
) -> dict[str, Any]:
    """The puppet creates a rated game (from ``created_at``: new games are limited per
    address) and plays it, the farmer joins, they play ``plies``, the puppet resigns; the
    settlement (asked until it is made)."""
    body = {"kind": "friend", "rated": True, "color": "first"}
    status, game, _ = call(base, "/api/games", body, puppet[0], created_at)
    if status != 201:
        raise SystemExit(f"cannot create a rated game: {status} {game}")
    red = Seat(port, game["game_id"], game["token"], *puppet)
    black = Seat(port, game["game_id"], game["invite_url"].split("?t=")[1], *farmer)
    try:
        for ply, move in enumerate(OPENING[:plies]):
            mover, other = (red, black) if ply % 2 == 0 else (black, red)
            mover.wait_ply(ply)
            mover.send("move", version=mover.state["version"], **{"from": move[:2], "to": move[2:]})
            other.wait_ply(ply + 1)
        red.wait_ply(plies)
        red.send("resign", version=red.state["version"])
        red.until(lambda m: m["type"] == "state" and m["status"] == "over")
    finally:
        red.close()
        black.close()
    deadline = time.monotonic() + 30
    while True:
        found = call(base, f"/api/games/{game['game_id']}/rating", None, None, farmer[1])[1]
        if found["settlement"] is not None:
            return dict(found["settlement"])
        if time.monotonic() > deadline:
            raise SystemExit(f"game {game['game_id']} was never settled")
        time.sleep(0.05)


def attack(base: str, port: int, name: str, puppets: int, plies: int, one_network: bool) -> str:
    """One farmer against ``puppets`` fresh puppets; a line saying what it gained."""
    started = time.monotonic()
    farmer_at = address(_take())
    status, _, cookie = call(
        base, "/api/account/signup", {"name": name, "password": PASSWORD}, None, farmer_at
    )
    if status != 201 or cookie is None:
        raise SystemExit(f"cannot sign the farmer up: {status}")
    counted = 0
    for number in range(puppets):
        signed_at = address(_take())  # (the sign-up limit is 5 per address)
        body = {"name": f"{name}P{number:02d}", "password": PASSWORD}
        status, _, puppet = call(base, "/api/account/signup", body, None, signed_at)
        if status != 201 or puppet is None:
            raise SystemExit(f"cannot sign a puppet up: {status}")
        plays_at = farmer_at if one_network else signed_at
        settled = beat(base, port, (cookie, farmer_at), (puppet, plays_at), plies, signed_at)
        counted += bool(settled["changes"].get("second", {}).get("counted", settled["counted"]))
        if time.monotonic() - started > ATTACK_SECONDS:
            raise SystemExit("the attack ran out of time")
    profile = call(base, f"/api/players/{name}", None, None, farmer_at)[1]
    rating = profile["ratings"].get("xiangqi")
    shown = "1500 (no game counted)" if rating is None else str(rating["rating"])
    return (
        f"{puppets:3d} puppets  {counted:3d} counted for the farmer  rating {shown:>22}  "
        f"({time.monotonic() - started:.1f} s)"
    )


_next_address = 0


def _take() -> int:
    global _next_address
    _next_address += 1
    return _next_address


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--puppets", type=int, nargs="+", default=[10, 60])
    args = parser.parse_args()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as folder:
        server = serving(port, Path(folder) / "games.sqlite3", "--trust-proxy")
        try:
            attacks = [
                ("resign at once", 0, False),
                ("4 plies, one network", 4, True),
                ("4 plies, own networks", 4, False),
            ]
            for number, (title, plies, one_network) in enumerate(attacks):
                for count in args.puppets:
                    name = f"Farmer{number}x{count}"
                    line = attack(base, port, name, count, plies, one_network)
                    print(f"{title:22}  {line}", flush=True)
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
