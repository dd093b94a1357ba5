"""Helpers for tests that run the real server in processes of its own: start one on a
database (a SQLite file or a PostgreSQL address), create games over HTTP, and play over real
websockets (``tests/relay.py`` cuts a database's network connection)."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect


def start_server(port: int, db: Path | str, *options: str) -> subprocess.Popen[str]:
    """``chuhan serve`` on ``port`` and ``db``, once it answers (its output is kept for a
    failure's message). A tournament game not started within the time for a first move
    is called off: an hour here, unless ``options`` say."""
    if "--first-move-seconds" not in options:
        options = (*options, "--first-move-seconds", "3600")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "chuhan.cli",
            "serve",
            "--port",
            str(port),
            "--db",
            str(db),
            *options,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 120  # a bound on a hang only
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/options", timeout=1):
                return process
        except OSError:
            if process.poll() is not None:
                output = process.stdout.read() if process.stdout else ""
                raise AssertionError(f"server exited: {output}") from None
            time.sleep(0.1)
    process.kill()
    raise AssertionError("server did not start")


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.kill()
    process.wait(timeout=60)
    if process.stdout is not None:
        process.stdout.close()


def create_game(port: int, **fields: Any) -> dict[str, Any]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/games",
        data=json.dumps(fields).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        game: dict[str, Any] = json.loads(response.read())
    return game


def invite_token(game: dict[str, Any]) -> str:
    return str(game["invite_url"].split("?t=")[1])


class Client:
    """A websocket player (or watcher, without a token) on one server."""

    def __init__(
        self, stack: contextlib.ExitStack, port: int, game_id: str, token: str | None
    ) -> None:
        url = f"ws://127.0.0.1:{port}/ws/{game_id}"
        self.ws: ClientConnection = stack.enter_context(connect(url))
        self.seq = 0
        self.state: dict[str, Any] = {}
        self.presence: dict[str, Any] = {}
        self.chat: list[dict[str, Any]] = []
        self.send("hello", token=token, protocol=2)
        self.until("chat_history")

    def send(self, kind: str, **fields: Any) -> int:
        self.seq += 1
        self.ws.send(json.dumps({"type": kind, "seq": self.seq, **fields}))
        return self.seq

    def receive(self, timeout: float = 60) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        if message["type"] == "state":
            if "moves_from" in message and self.state:
                message["moves"] = self.state["moves"][: message["moves_from"]] + message["moves"]
            self.state = message
        elif message["type"] == "presence":
            self.presence = message
        elif message["type"] == "chat":
            self.chat.append(message)
        return message

    def until(self, kind: str, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            message = self.receive(max(0.01, deadline - time.monotonic()))
            if message["type"] == "error" and kind != "error":
                raise AssertionError(message)
            if message["type"] == kind:
                return message

    def send_move(self, iccs: str) -> int:
        return self.send(
            "move", version=self.state["version"], **{"from": iccs[:2], "to": iccs[2:]}
        )

    def any_move(self) -> str:
        """A legal move of the side to move (the first listed)."""
        source, targets = next(iter(self.state["legal"].items()))
        return f"{source}{targets[0]}"

    def move(self, iccs: str) -> dict[str, Any]:
        self.send_move(iccs)
        self.until("ack")
        return self.wait_ply(len(self.state["moves"]) + 1)

    def wait(self, predicate: Any, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while not (self.state and predicate(self.state)):
            self.receive(max(0.01, deadline - time.monotonic()))
        return self.state

    def wait_ply(self, ply: int, timeout: float = 60) -> dict[str, Any]:
        return self.wait(lambda state: state.get("ply") == ply, timeout)
