"""The lobby across real server processes on one PostgreSQL database: a seek posted on one
process is listed live on another and accepted there; two acceptors on two processes
racing for one seek, exactly one wins; a killed process's seeks disappear."""

from __future__ import annotations

import contextlib
import json
import secrets
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from process_helpers import Client, start_server, stop
from websockets.sync.client import ClientConnection, connect

from chuhan.web.server import free_port

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")


class Member:
    """An anonymous lobby connection to one server process."""

    def __init__(self, stack: contextlib.ExitStack, port: int) -> None:
        self.ws: ClientConnection = stack.enter_context(connect(f"ws://127.0.0.1:{port}/ws/lobby"))
        self.seq = 0
        self.seeks: list[dict[str, Any]] = []
        self.send("hello", visitor=secrets.token_urlsafe(24))
        self.until("seeks")

    def send(self, kind: str, **fields: Any) -> int:
        self.seq += 1
        self.ws.send(json.dumps({"type": kind, "seq": self.seq, **fields}))
        return self.seq

    def receive(self, timeout: float) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        if message["type"] == "seeks":
            self.seeks = message["seeks"]
        return message

    def until(self, kind: str, timeout: float = 60) -> dict[str, Any]:
        """The next message of ``kind`` (or the error, when ``kind`` is ``"answer"``)."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.receive(max(0.01, deadline - time.monotonic()))
            if message["type"] == kind or (kind == "answer" and message["type"] != "seeks"):
                return message
            assert message["type"] != "error", message

    def wait_seeks(
        self, predicate: Callable[[list[dict[str, Any]]], bool], timeout: float = 20
    ) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while not predicate(self.seeks):
            self.receive(max(0.01, deadline - time.monotonic()))
        return self.seeks


def listing(seek_id: str) -> Callable[[list[dict[str, Any]]], bool]:
    """Whether a seek list is that one seek alone."""
    return lambda seeks: [seek["id"] for seek in seeks] == [seek_id]


@pytest.fixture
def servers(postgres_url: str) -> Iterator[list[Any]]:
    processes: list[Any] = []
    ports: list[int] = []
    for _ in range(2):
        port = free_port()
        processes.append(start_server(port, postgres_url))
        ports.append(port)
    yield [ports, processes]
    for process in processes:
        stop(process)


def test_a_seek_posted_on_one_process_is_accepted_on_another(servers: Any) -> None:
    (one, other), _ = servers
    with contextlib.ExitStack() as stack:
        seeker, acceptor = Member(stack, one), Member(stack, other)
        seeker.send("seek", variant="xiangqi", color="first", time_control="5+3")
        seek_id = seeker.until("ack")["seek"]
        acceptor.wait_seeks(lambda seeks: [s["id"] for s in seeks] == [seek_id])
        acceptor.send("accept", seek=seek_id)
        accepted = acceptor.until("paired")
        sought = seeker.until("paired")
        assert sought["game_id"] == accepted["game_id"] and sought["seat"] == "first"
        assert sought["token"] != accepted["token"]
        red = Client(stack, one, sought["game_id"], sought["token"])
        black = Client(stack, other, accepted["game_id"], accepted["token"])
        red.move("h2e2")
        assert black.wait_ply(1, timeout=60)["moves"][0]["iccs"] == "h2e2"
        seeker.wait_seeks(lambda seeks: not seeks)


def test_two_acceptors_on_two_processes_racing_exactly_one_wins(servers: Any) -> None:
    (one, other), _ = servers
    with contextlib.ExitStack() as stack:
        seeker = Member(stack, one)
        racers = [Member(stack, one), Member(stack, other)]
        for _ in range(5):
            seeker.send("seek", variant="xiangqi")
            seek_id = seeker.until("ack")["seek"]
            for racer in racers:
                racer.wait_seeks(listing(seek_id))
            start = threading.Barrier(2)
            answers: list[dict[str, Any]] = []

            def race(
                racer: Member, seek_id: str = seek_id, start: Any = start, answers: Any = answers
            ) -> None:
                start.wait()
                racer.send("accept", seek=seek_id)
                answers.append(racer.until("answer"))

            threads = [threading.Thread(target=race, args=(racer,)) for racer in racers]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(30)
            kinds = sorted(answer["type"] for answer in answers)
            assert kinds == ["error", "paired"], answers
            refused = next(answer for answer in answers if answer["type"] == "error")
            assert refused["code"] in ("seek_taken", "no_seek"), refused
            seeker.until("paired")


def test_a_killed_process_s_seeks_disappear_from_the_others(servers: Any) -> None:
    (one, other), processes = servers
    with contextlib.ExitStack() as stack:
        watcher = Member(stack, other)
        doomed = Member(stack, one)
        doomed.send("seek", variant="janggi")
        seek_id = doomed.until("ack")["seek"]
        watcher.wait_seeks(lambda seeks: [s["id"] for s in seeks] == [seek_id])
        processes[0].kill()
        assert watcher.wait_seeks(lambda seeks: not seeks, timeout=120) == []  # hang bound
