"""Several real server processes on one PostgreSQL database, as a site runs them behind a
reverse proxy: players of one game on different processes, two processes racing to write
one game, a process killed with SIGKILL while it drives a game, and the database itself
unreachable at the start or lost while serving."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from process_helpers import Client, create_game, invite_token, start_server, stop
from websockets.sync.client import connect

from chuhan.web.db import open_store
from chuhan.web.server import free_port
from relay import Relay

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="uses SIGKILL")


@pytest.fixture
def servers(postgres_url: str) -> Iterator[Any]:
    """``servers(n)`` starts n servers on one fresh database: their ports."""
    started: list[subprocess.Popen[str]] = []

    def start(count: int, url: str = postgres_url, options: tuple[str, ...] = ()) -> list[int]:
        ports = []
        for _ in range(count):
            port = free_port()
            started.append(start_server(port, url, *options))
            ports.append(port)
        return ports

    start.processes = started  # type: ignore[attr-defined]
    yield start
    for process in started:
        stop(process)


def stored_events(url: str, game_id: str) -> list[Any]:
    async def read() -> list[Any]:
        store = open_store(url)
        await store.open()
        try:
            return await store.events(game_id)
        finally:
            await store.close()

    return asyncio.run(read())


def write_unannounced(url: str, game_id: str, change: Any) -> None:
    """Write ``change(row)`` (which returns the event) to the game as a process would that
    died between its write and its notice: the store's notices are cut off."""

    async def write() -> None:
        store = open_store(url)
        await store.open()
        store._announce = lambda *args, **options: None  # type: ignore[attr-defined]
        try:
            row = await store.load_game(game_id)
            assert row is not None
            event, data = change(row)
            await store.save_game(row, event, data)
        finally:
            await store.close()

    asyncio.run(write())


def test_players_on_two_processes_see_each_others_moves_at_once(servers: Any) -> None:
    one, two = servers(2)
    game = create_game(one, kind="friend", time_control="10+5")
    with contextlib.ExitStack() as stack:
        red = Client(stack, one, game["game_id"], game["token"])
        black = Client(stack, two, game["game_id"], invite_token(game))
        # Each sees the other connected, though the other is on another process.
        red.wait(lambda s: red.presence.get("players", {}).get("second", {}).get("connected"))
        black.wait(lambda s: black.presence.get("players", {}).get("first", {}).get("connected"))
        watcher = Client(stack, two, game["game_id"], None)
        moves = ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7"]
        for ply, move in enumerate(moves, 1):
            mover, other = (red, black) if ply % 2 else (black, red)
            mover.move(move)
            assert other.wait_ply(ply, timeout=60)["moves"][-1]["iccs"] == move
        assert watcher.wait_ply(len(moves))["fen"] == red.state["fen"] == black.state["fen"]
        # Chat crosses too.
        red.send("chat", text="good luck")
        red.until("ack")
        deadline = time.monotonic() + 60  # a bound on a hang only
        while not black.chat and time.monotonic() < deadline:
            black.receive(5)
        assert black.chat and black.chat[-1]["text"] == "good luck"


def test_two_processes_accepting_moves_for_one_game_never_both_succeed(
    servers: Any, postgres_url: str
) -> None:
    one, two = servers(2)
    game = create_game(one, kind="friend")
    red_token, black_token = game["token"], invite_token(game)
    with contextlib.ExitStack() as stack:
        # Red has the game open twice, once on each process, and plays two different moves
        # at the same moment, round after round.
        red_one = Client(stack, one, game["game_id"], red_token)
        red_two = Client(stack, two, game["game_id"], red_token)
        black = Client(stack, one, game["game_id"], black_token)
        # (each round's two tries are legal whichever won the rounds before)
        rounds = [("h2e2", "b2e2", "h9g7"), ("a0a1", "i0i1", "i9h9"), ("g3g4", "c3c4", "b9c7")]
        acks = 0
        for number, (first_try, second_try, answer) in enumerate(rounds):
            ply = 2 * number
            red_two.wait_ply(ply)
            red_one.wait_ply(ply)
            sent = [
                (red_one.send_move(first_try), red_one),
                (red_two.send_move(second_try), red_two),
            ]
            outcomes = []
            for seq, client in sent:
                while True:
                    message = client.receive()
                    if message["type"] in ("ack", "error") and message.get("seq") == seq:
                        outcomes.append(message)
                        break
            won = [m for m in outcomes if m["type"] == "ack"]
            lost = [m for m in outcomes if m["type"] == "error"]
            assert len(won) == 1 and len(lost) == 1, outcomes
            assert lost[0]["code"] in ("stale_version", "not_your_turn"), lost[0]
            acks += 1
            state = black.wait_ply(ply + 1)
            assert state["moves"][-1]["iccs"] in (first_try, second_try)
            black.move(answer)
        assert acks == len(rounds)
    events = stored_events(postgres_url, game["game_id"])
    moves = [e for e in events if e.kind == "move"]
    assert len(moves) == 2 * len(rounds)
    versions = [e.version for e in events if e.kind == "move"]
    assert versions == sorted(set(versions))


def test_a_write_whose_notice_is_lost_still_reaches_every_process(
    servers: Any, postgres_url: str
) -> None:
    """A process that dies between committing a write and sending its notice (played here
    by this test: its store's notices are cut off) leaves the others behind only until
    their beats find the write in the store."""
    one, two = servers(2)
    game = create_game(one, kind="friend")
    with contextlib.ExitStack() as stack:
        red = Client(stack, one, game["game_id"], game["token"])
        black = Client(stack, two, game["game_id"], invite_token(game))
        red.move("h2e2")
        black.wait_ply(1)

        def move(row: Any) -> tuple[str, dict[str, Any]]:
            row.moves.append("h9g7")
            row.version += 1
            row.updated = time.time()
            return "move", {"move": "h9g7"}

        write_unannounced(postgres_url, game["game_id"], move)
        for client in (red, black):  # (a bound on a hang only)
            assert [m["iccs"] for m in client.wait_ply(2, 60)["moves"]] == ["h2e2", "h9g7"]
        red.move("h0g2")  # and the game goes on from there
        black.wait_ply(3)


def test_a_move_overtaken_by_a_quiet_write_of_another_process_is_made_again(
    servers: Any, postgres_url: str
) -> None:
    """Another process renamed a seat just before a move (a name changes nothing the
    player saw: the game's version stays): the move's write is refused by the store, and
    the server makes the move again on the game as stored instead of answering
    ``stale_version``. (The rename's notice is held back here, so the move always meets it
    unannounced.)"""
    one, two = servers(2)
    game = create_game(one, kind="friend")
    with contextlib.ExitStack() as stack:
        red = Client(stack, one, game["game_id"], game["token"])
        black = Client(stack, two, game["game_id"], invite_token(game))
        red.move("h2e2")
        black.wait_ply(1)

        def rename(row: Any) -> tuple[str, dict[str, Any]]:
            row.names = {**row.names, "first": "Renamed"}
            return "name", {"side": "first", "name": "Renamed"}

        write_unannounced(postgres_url, game["game_id"], rename)
        seq = black.send_move("h9g7")
        ack = black.until("ack")
        assert ack["seq"] == seq
        assert [m["iccs"] for m in red.wait_ply(2)["moves"]] == ["h2e2", "h9g7"]
        assert red.state["players"]["first"]["name"] == "Renamed"
    kinds = [e.kind for e in stored_events(postgres_url, game["game_id"])]
    assert kinds == ["create", "move", "name", "move"]


def test_a_killed_process_s_games_go_on_through_another(servers: Any, postgres_url: str) -> None:
    one, two = servers(2)
    processes = servers.processes
    # Byo-yomi alone, two seconds a move: a clock that flags soon after the kill.
    game = create_game(one, kind="friend", time_control="0 1x2")
    with contextlib.ExitStack() as stack:
        red = Client(stack, one, game["game_id"], game["token"])
        black = Client(stack, two, game["game_id"], invite_token(game))
        red.move("h2e2")
        black.wait_ply(1)
        black.move("h9g7")
        red.wait_ply(2)
        red.move("h0g2")
        black.wait_ply(3)
        # The process that created the game drives its clock: it dies, black does not
        # move, and the other process must take the clock over and flag black.
        killed = time.monotonic()
        os.kill(processes[0].pid, signal.SIGKILL)
        processes[0].wait(timeout=60)
        state = black.wait(lambda s: s["status"] == "over", timeout=120)  # hang bound
        took = time.monotonic() - killed
        assert state["result"] is not None and state["last_event"]["kind"] == "flag"
        assert state["last_event"]["side"] == "second"
        assert [m["iccs"] for m in state["moves"]] == ["h2e2", "h9g7", "h0g2"]
        print(f"takeover: the flag fell {took:.2f} s after the kill")
        # Red, whose connection died with its process, is no longer shown as here.
        black.wait(lambda s: not black.presence["players"]["first"]["connected"], timeout=60)
        # Red reconnects to the survivor and sees it all.
        red_again = Client(stack, two, game["game_id"], game["token"])
        assert red_again.state["status"] == "over"
    kinds = [e.kind for e in stored_events(postgres_url, game["game_id"])]
    assert kinds.count("flag") == 1 and kinds.count("move") == 3


def test_a_janggi_setup_deadline_is_kept_by_the_survivor(postgres_url: str) -> None:
    """The process driving a janggi game's setup deadlines is killed while Han has the
    choice: the other process takes the deadline over and chooses Han's default arrangement
    when the time runs out, once. Cho, whose connection died with the process, is not timed
    while away; back on the survivor, Cho's time starts there and runs out there too."""
    ports = [free_port(), free_port()]
    processes = [start_server(port, postgres_url, "--setup-seconds", "3") for port in ports]
    try:
        one, two = ports
        game = create_game(one, kind="friend", variant="janggi")
        with contextlib.ExitStack() as stack:
            Client(stack, one, game["game_id"], game["token"])
            han = Client(stack, two, game["game_id"], invite_token(game))
            state = han.wait(lambda s: s["status"] == "setup" and s["setup"]["deadline_ms"])
            assert state["setup"]["chooser"] == "second"
            os.kill(processes[0].pid, signal.SIGKILL)
            processes[0].wait(timeout=60)
            # Han's setup time ran out on the survivor (a bound on a hang only).
            state = han.wait(lambda s: "second" in s["setup"]["chosen"], timeout=120)
            assert state["last_event"] == {
                "kind": "setup",
                "side": "second",
                "arrangement": state["setup"]["default"],
                "default": True,
            }
            assert state["setup"]["chooser"] == "first"
            time.sleep(1.5)  # Cho is away: Cho's time has not started
            assert han.state["status"] == "setup" and han.state["setup"]["deadline_ms"] is None
            cho = Client(stack, two, game["game_id"], game["token"])
            state = cho.wait(lambda s: s["status"] == "playing", timeout=60)
            assert cho.any_move()  # the game goes on from the survivor
        setups = [e for e in stored_events(postgres_url, game["game_id"]) if e.kind == "setup"]
        assert [(e.data["side"], e.data.get("default")) for e in setups] == [
            ("second", True),
            ("first", True),
        ]
    finally:
        for process in processes:
            stop(process)


def test_the_computer_moves_once_after_its_process_is_killed(
    servers: Any, postgres_url: str
) -> None:
    one, two = servers(2)
    processes = servers.processes
    game = create_game(one, kind="computer", level=1, side="first")
    with contextlib.ExitStack() as stack:
        human = Client(stack, two, game["game_id"], game["token"])
        human.move("h2e2")
        human.wait_ply(2, timeout=60)
        human.move(human.any_move())  # (level 1 varies its answer: a fixed move may be illegal)
        human.wait_ply(4, timeout=60)
        # The human's move goes to the survivor; the process that drives the computer dies
        # as it starts thinking about its answer, and the survivor answers instead.
        human.send_move(human.any_move())
        human.until("ack")
        os.kill(processes[0].pid, signal.SIGKILL)
        processes[0].wait(timeout=60)
        state = human.wait_ply(6, timeout=60)
        assert state["status"] == "playing" and state["turn"] == "first"
    events = stored_events(postgres_url, game["game_id"])
    moves = [e for e in events if e.kind == "move"]
    assert len(moves) == 6
    assert sum(1 for e in moves if e.data.get("computer")) == 3


def test_an_unreachable_database_at_the_start_is_named(tmp_path: Path) -> None:
    port = free_port()
    url = f"postgresql://chuhan:secret-password@127.0.0.1:{port}/games"
    run = subprocess.run(
        [sys.executable, "-m", "chuhan.cli", "serve", "--port", str(free_port()), "--db", url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2, run
    assert run.stderr.startswith("chuhan: error: "), run.stderr
    assert f"postgresql://chuhan@127.0.0.1:{port}/games" in run.stderr
    assert "secret-password" not in run.stderr
    assert "Traceback" not in run.stderr


def test_a_database_lost_while_serving_refuses_actions_and_recovers(
    servers: Any, postgres_url: str
) -> None:
    host_port = int(postgres_url.rsplit(":", 1)[1].split("/", 1)[0])
    cable = Relay(host_port)  # the server's cable to its database
    url = postgres_url.replace(f":{host_port}/", f":{cable.port}/")
    try:
        (port,) = servers(1, url)
        game = create_game(port, kind="local")
        with contextlib.ExitStack() as stack:
            hands = Client(stack, port, game["game_id"], game["token"])
            hands.move("h2e2")
            cable.cut()
            hands.send_move("h9g7")
            refused = hands.until("error", timeout=60)
            assert refused["code"] == "internal" and "could not save" in refused["message"]
        # While it is away, the game cannot be loaded, and says so (before any hello).
        with connect(f"ws://127.0.0.1:{port}/ws/{game['game_id']}") as ws:
            said = json.loads(ws.recv(timeout=60))
        assert said["type"] == "error" and said["code"] == "internal", said
        assert "cannot be loaded: the game database failed" in said["message"]
        cable.plug_in()
        deadline = time.monotonic() + 120  # a bound on a hang only
        while True:
            try:
                with contextlib.ExitStack() as stack:
                    hands = Client(stack, port, game["game_id"], game["token"])
                    assert [m["iccs"] for m in hands.state["moves"]] == ["h2e2"]
                    assert hands.move("h9g7")["moves"][-1]["iccs"] == "h9g7"
                    break
            except AssertionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        # Nothing refused was stored.
        moves = [
            e.data["move"] for e in stored_events(postgres_url, game["game_id"]) if e.kind == "move"
        ]
        assert moves == ["h2e2", "h9g7"]
    finally:
        cable.close()


def test_a_player_gone_from_another_process_can_be_claimed_against(
    servers: Any, postgres_url: str
) -> None:
    one, two = servers(2, options=("--abandon-seconds", "3"))
    game = create_game(one, kind="friend", time_control="10+5")
    game_id = game["game_id"]

    def second_connected(client: Client) -> Any:
        return client.presence.get("players", {}).get("second", {}).get("connected")

    with contextlib.ExitStack() as stack:
        red = Client(stack, one, game_id, game["token"])
        watcher = Client(stack, two, game_id, None)
        with contextlib.ExitStack() as black_stack:
            black = Client(black_stack, two, game_id, invite_token(game))
            red.wait(lambda s: second_connected(red) is True)
            red.move("h2e2")
            black.wait_ply(1)
            black.move("h9g7")
            red.wait_ply(2)
            red.send("claim_abandoned", version=red.state["version"])
            assert "your opponent is here" in red.until("error")["message"]
        # Black's page closed on the other process: this one hears of it at once.
        red.wait(lambda s: second_connected(red) is False)
        gone = red.presence["players"]["second"]
        assert gone["claim_ms"] - gone["left_ms"] == 3000
        red.send("claim_abandoned", version=red.state["version"])
        assert (
            "you may claim the game once they have been gone 3 s" in red.until("error")["message"]
        )
        time.sleep(3.2)
        red.send("claim_abandoned", version=red.state["version"])
        red.until("ack")
        result = red.wait(lambda s: s["status"] == "over")["result"]
        assert (result["winner"], result["termination"]) == ("first", "abandonment")
        assert watcher.wait(lambda s: s["status"] == "over")["result"] == result
    assert stored_events(postgres_url, game_id)[-1].kind == "abandoned"
