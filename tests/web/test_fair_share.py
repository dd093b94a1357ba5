"""The analysis workers are shared fairly against a hostile visitor (issue 28, 4): the bound
on waiting analyses holds however many arrive at once, a puzzle's reply goes ahead of the
analyses and reviews waiting, and reviews are capped per connection, per address and in
all, so a socket asking for a hundred reviews cannot take the engine from everyone else.
No test here depends on how fast the machine is: each checks an order or a refusal."""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from chuhan import Move
from chuhan.game import Game
from chuhan.records import GameRecord, write_pgn
from chuhan.search.limits import SearchLimits
from chuhan.variants import XIANGQI_START_FEN as START
from chuhan.web.analysis.service import AnalysisService
from chuhan.web.app import create_app
from chuhan.web.compute.service import AnalysisRequest, ProcessCompute, WorkersBusy
from chuhan.web.settings import Settings


def request(seconds: float, moves: tuple[str, ...] = ()) -> AnalysisRequest:
    return AnalysisRequest(
        "xiangqi:asian", START, moves, SearchLimits(movetime=round(seconds * 1000)), 1
    )


def test_the_bound_on_waiting_analyses_holds_when_they_all_arrive_at_once() -> None:
    compute = ProcessCompute(workers=1, settings=Settings(analysis_max_waiting=2))

    async def run() -> tuple[int, str]:
        streams = [
            compute.analysis_stream(request(60, (move,)), lambda data: None, order=n)
            for n, move in enumerate(("h2e2", "b2e2"))
        ]
        streams.append(compute.analysis_stream(request(60, ("c3c4",)), lambda data: None, order=3))
        waiting = compute.analysis_waiting()  # the one running, two waiting: counted already
        try:
            compute.analysis_stream(request(60, ("g3g4",)), lambda data: None, order=4)
        except WorkersBusy as error:
            refused = str(error)
        else:
            refused = ""
        for stream in streams:
            stream.stop()
        for stream in streams:
            await stream.result()
        return waiting, refused

    try:
        waiting, refused = asyncio.run(run())
    finally:
        compute.close()
    assert waiting == 2
    assert "2 analysis jobs are waiting" in refused


def test_a_stream_stopped_before_it_ever_ran_gives_its_place_back() -> None:
    compute = ProcessCompute(workers=1, settings=Settings(analysis_max_waiting=1))

    async def run() -> int:
        running = compute.analysis_stream(request(60), lambda data: None, order=0)
        for n in range(5):  # each stopped at once: none keeps a place
            compute.analysis_stream(request(60, ("h2e2",)), lambda data: None, order=n + 1).stop()
            await asyncio.sleep(0)
        left = compute.analysis_waiting()
        last = compute.analysis_stream(request(60, ("b2e2",)), lambda data: None, order=9)
        running.stop()
        last.stop()
        await running.result()
        await last.result()
        return left

    try:
        assert asyncio.run(run()) == 0
    finally:
        compute.close()


def test_a_puzzles_reply_goes_ahead_of_the_analyses_and_reviews_waiting() -> None:
    compute = ProcessCompute(workers=1)

    async def run() -> list[float]:
        loop = asyncio.get_running_loop()
        running = compute.analysis_stream(request(60), lambda data: None, order=loop.time())
        waiting = compute.analysis_stream(
            request(20, ("h2e2",)), lambda data: None, order=loop.time()
        )
        review = asyncio.ensure_future(compute.evaluate(request(0.2, ("c3c4",)), order=loop.time()))
        puzzle = asyncio.ensure_future(compute.analyse(request(0.2, ("b2e2",)), first=True))
        await asyncio.sleep(0)  # the review's and the puzzle's jobs take their places
        # The worker is handed on earliest place first: the puzzle's, then the others.
        queue = [waiter.deadline for waiter in sorted(compute._analysis._waiters)]
        running.stop()
        await running.result()
        lines = await puzzle
        assert lines and lines[0]["pv"]["iccs"]
        waiting.stop()
        await waiting.result()
        await review
        return queue

    try:
        queue = asyncio.run(run())
    finally:
        compute.close()
    assert len(queue) == 3
    assert queue[0] == -math.inf and queue[1] < queue[2]


# ---------------------------------------------------------------------- reviews


def long_game_pgn(seed: int, plies: int = 120) -> str:
    """A legal game of random moves (a different one for each seed)."""
    rng = random.Random(seed)
    game = Game.new("xiangqi")
    moves: list[Move] = []
    while len(moves) < plies and game.outcome() is None:
        move = rng.choice(sorted(game.board.legal_moves, key=lambda m: m.iccs()))
        game.push(move)
        moves.append(move)
    record = GameRecord.from_moves(moves)
    record.result = "1/2-1/2"
    return write_pgn(record)


@pytest.fixture
def analysis_app(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(
        review_nodes=20_000,  # 120 positions each: no review ends while the test asks
        analysis_seconds=600,  # no analysis ends while the test asks
        analysis_slice_seconds=0.2,  # the analyses waiting get their turns soon
        analyses_per_address=3,
        reviews_per_connection=2,
        reviews_per_address=3,
        reviews_at_once=4,
        import_burst=100,
        create_burst=100,
        trust_proxy=True,  # each board's address from X-Forwarded-For
    )
    app = create_app(
        tmp_path / "games.sqlite3", compute=ProcessCompute(settings=settings), settings=settings
    )
    with TestClient(app) as client:
        yield client


def imported(client: TestClient, seed: int) -> str:
    response = client.post("/api/import", content=long_game_pgn(seed).encode())
    assert response.status_code == 201, response.text
    game_id: str = response.json()["games"][0]["game_id"]
    return game_id


class Board:
    def __init__(self, socket: Any) -> None:
        self.socket = socket
        self.seq = 0
        self.ask("hello")

    def ask(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.seq += 1
        self.socket.send_text(json.dumps({"type": kind, "seq": self.seq, **fields}))
        while True:
            message: dict[str, Any] = self.socket.receive_json()
            if message.get("seq") == self.seq and message["type"] not in ("lines", "review"):
                return message


def test_reviews_are_capped_per_connection_per_address_and_in_all(
    analysis_app: TestClient,
) -> None:
    client = analysis_app
    games = [imported(client, seed) for seed in range(6)]
    with (
        client.websocket_connect("/ws/analysis") as first_socket,
        client.websocket_connect("/ws/analysis") as second_socket,
    ):
        first, second = Board(first_socket), Board(second_socket)
        assert first.ask("review", game=games[0])["type"] == "review_started"
        assert first.ask("review", game=games[1])["type"] == "review_started"
        refused = first.ask("review", game=games[2])
        assert refused["code"] == "too_many_reviews" and "this board" in refused["message"]
        # The same review again is not another one.
        assert first.ask("review", game=games[0])["type"] == "review_started"
        # Another board of the same address: its third review is the address's last.
        assert second.ask("review", game=games[2])["type"] == "review_started"
        refused = second.ask("review", game=games[3])
        assert refused["code"] == "too_many_reviews" and "your address" in refused["message"]
        # Joining a review under way costs the address nothing more.
        assert second.ask("review", game=games[0])["type"] == "review_started"


def test_reviews_never_take_more_than_their_share_of_the_server(analysis_app: TestClient) -> None:
    client = analysis_app
    games = [imported(client, seed) for seed in range(6)]
    with contextlib.ExitStack() as stack:
        boards = [
            Board(
                stack.enter_context(
                    client.websocket_connect(
                        "/ws/analysis", headers={"x-forwarded-for": f"10.0.0.{number}"}
                    )
                )
            )
            for number in range(3)
        ]
        for board, pair in zip(boards[:2], (games[0:2], games[2:4]), strict=True):
            for game_id in pair:
                assert board.ask("review", game=game_id)["type"] == "review_started"
        busy = boards[2].ask("review", game=games[4])
        assert busy["code"] == "engine_busy" and "4 reviews" in busy["message"]
        # A review already under way is still open to anyone.
        assert boards[2].ask("review", game=games[0])["type"] == "review_started"
        # The analysis board still gets the engine's lines: the reviews left it room.
        seq = boards[2].ask("position", variant="xiangqi", engine=True)["seq"]
        while True:
            message = boards[2].socket.receive_json()
            if message.get("seq") == seq and message["type"] in ("lines", "error"):
                break
        assert message["type"] == "lines", message


def first_lines(board: Board, seq: int) -> dict[str, Any]:
    """The first engine answer (lines or an error) to the position numbered ``seq``."""
    while True:
        message: dict[str, Any] = board.socket.receive_json()
        if message.get("seq") == seq and message["type"] in ("lines", "error"):
            return message


def test_a_few_addresses_cannot_fill_the_queue_of_analyses(analysis_app: TestClient) -> None:
    client = analysis_app
    with contextlib.ExitStack() as stack:

        def board(address: str) -> Board:
            socket = client.websocket_connect("/ws/analysis", headers={"x-forwarded-for": address})
            return Board(stack.enter_context(socket))

        boards = [board("10.0.1.1") for _ in range(4)]
        for one in boards[:3]:
            asked = one.ask("position", variant="xiangqi", engine=True)
            assert asked["type"] == "position"
        # The address's fourth board is refused; asking again on a thinking board is not
        # another analysis.
        asked = boards[3].ask("position", variant="xiangqi", moves=["h2e2"], engine=True)
        refused = first_lines(boards[3], asked["seq"])
        assert refused["code"] == "too_many_analyses", refused
        assert "3 boards thinking" in refused["message"]
        asked = boards[0].ask("position", variant="xiangqi", moves=["b2e2"], engine=True)
        assert first_lines(boards[0], asked["seq"])["type"] == "lines"
        # Another address still gets the engine.
        other = board("10.0.1.2")
        asked = other.ask("position", variant="xiangqi", engine=True)
        assert first_lines(other, asked["seq"])["type"] == "lines"
        # A board that stops thinking gives its place to the address's next one.
        assert boards[1].ask("position", variant="xiangqi")["type"] == "position"
        asked = boards[3].ask("position", variant="xiangqi", moves=["h2e2"], engine=True)
        assert first_lines(boards[3], asked["seq"])["type"] == "lines"


def test_turns_are_queued_fairly_by_address() -> None:
    """Start-time fair queueing: an address's turns are placed one cost apart, an idle
    address's first turn goes ahead of all but the first of them, and while turns wait the
    places follow the turns that have started, not the wall clock (a newcomer asking long
    after the busy address queued its turns still goes ahead of them)."""

    class Waiting:
        def analysis_waiting(self) -> int:
            return 3

    class Busy(AnalysisService):
        @property
        def compute(self) -> Any:
            return Waiting()

    service = Busy(Settings(), compute=None, manager=None)  # type: ignore[arg-type]
    service.virtual_time = 0.0  # the latest turn that started was placed at 0

    async def run() -> tuple[list[float], float, float]:
        busy = [service._turn_order("10.0.2.1", 2.0) for _ in range(3)]
        newcomer = service._turn_order("10.0.2.2", 2.0)
        again = service._turn_order("10.0.2.2", 2.0)
        return busy, newcomer, again

    busy, newcomer, again = asyncio.run(run())
    # An address with nothing queued starts a turn ahead of the round; then each of its
    # turns comes after the one before.
    assert busy == [-2.0, 0.0, 2.0]
    assert (newcomer, again) == (-2.0, 0.0)  # each after the busy address's turn of its round
