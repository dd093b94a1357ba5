"""The real server in its own process: play over real websockets, SIGKILL it, start it
again on the same database and port, and the game is intact and goes on."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from process_helpers import Client, create_game, start_server
from websockets.exceptions import ConnectionClosed

from chuhan.web.server import free_port

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")


def test_sigkill_and_restart(tmp_path: Path) -> None:
    port = free_port()
    db = tmp_path / "games.sqlite3"
    server = start_server(port, db)
    stack = contextlib.ExitStack()
    try:
        game = create_game(port, kind="friend", time_control="10+5")
        red = Client(stack, port, game["game_id"], game["token"])
        black = Client(stack, port, game["game_id"], game["invite_url"].split("?t=")[1])
        for ply, (player, move) in enumerate(
            [(red, "h2e2"), (black, "h9g7"), (red, "h0g2"), (black, "i9h9")], 1
        ):
            player.move(move)
            (black if player is red else red).wait_ply(ply)
        before = red.state
        os.kill(server.pid, signal.SIGKILL)
        server.wait(timeout=60)
        stack.close()

        server = start_server(port, db)
        red = Client(stack, port, game["game_id"], game["token"])
        after = red.state
        assert [m["iccs"] for m in after["moves"]] == ["h2e2", "h9g7", "h0g2", "i9h9"]
        assert after["fen"] == before["fen"] and after["version"] == before["version"]
        assert after["clock"]["running"] == "first"
        assert (
            0 < after["clock"]["first"]["remaining_ms"] <= before["clock"]["first"]["remaining_ms"]
        )
        black = Client(stack, port, game["game_id"], game["invite_url"].split("?t=")[1])
        assert red.move("i0h0")["ply"] == 5
        assert black.wait_ply(5)["moves"][-1]["wxf"] == "R1.2"
    finally:
        stack.close()
        server.kill()
        server.wait(timeout=60)


def test_an_oversized_frame_closes_only_its_socket_and_a_second_server_is_refused(
    tmp_path: Path,
) -> None:
    port = free_port()
    db = tmp_path / "games.sqlite3"
    server = start_server(port, db)
    stack = contextlib.ExitStack()
    try:
        game = create_game(port, kind="local")
        hands = Client(stack, port, game["game_id"], game["token"])
        hands.move("h2e2")
        # A frame over 64 KB is never buffered: the socket is closed with 1009 at once.
        hostile = Client(stack, port, game["game_id"], game["token"])
        hostile.ws.send(json.dumps({"type": "chat", "seq": 2, "text": "x" * 100_000}))
        with pytest.raises(ConnectionClosed) as closed:
            hostile.ws.recv(timeout=60)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        # The game is as it was, and its other connection plays on.
        assert hands.move("h9g7")["moves"][-1]["iccs"] == "h9g7"
        assert [m["iccs"] for m in hands.state["moves"]] == ["h2e2", "h9g7"]

        # A second server on the same games is refused, naming the first.
        second = subprocess.run(
            [
                sys.executable,
                "-m",
                "chuhan.cli",
                "serve",
                "--port",
                str(free_port()),
                "--db",
                str(db),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert second.returncode == 2
        assert f"in use by another chuhan server (process {server.pid}, serving " in second.stderr
    finally:
        stack.close()
        server.kill()
        server.wait(timeout=60)


def test_play_serves_and_prints_the_address_when_no_browser_opens(tmp_path: Path) -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "chuhan", "play", "--port", str(port), "--db", str(tmp_path / "g")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "BROWSER": "false"},  # a browser command that fails
    )
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(2)]
        url = f"http://127.0.0.1:{port}/"
        assert lines[0].startswith(f"chuhan: serving on {url}")
        assert lines[1].strip() == f"chuhan: no browser found; open {url} yourself"
        with urllib.request.urlopen(url, timeout=60) as page:
            assert page.read().startswith(b"<!doctype html>")
    finally:
        process.terminate()
        process.wait(timeout=60)
