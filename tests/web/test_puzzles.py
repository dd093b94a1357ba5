"""Puzzles on the server (:mod:`chuhan.web.puzzles.service`): the set as shipped, the judging of a
solver's moves by chuhan's real engine in its worker processes, hints, solutions, the
daily puzzle, and requests that are not attempts at all."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from web_helpers import FakeClock

import chuhan
from chuhan.web.app import create_app
from chuhan.web.compute.service import ProcessCompute
from chuhan.web.puzzles.service import DATA, Puzzle, defender_lost, judge_move, load_puzzles
from chuhan.web.settings import Settings

PUZZLES = load_puzzles()
#: A janggi mate in 2 (3 plies) with two winning first moves, both proved by
#: tools/make_janggi_mates.py; its line starts with the first, g6g8.
TWO_WINNERS = "janggi-m2-03"


@pytest.fixture(scope="module")
def compute() -> Iterator[ProcessCompute]:
    engine = ProcessCompute(workers=1)
    yield engine
    engine.close()


@pytest.fixture
def client(tmp_path: Path, static_dir: Path, compute: ProcessCompute) -> Iterator[TestClient]:
    clock = FakeClock(datetime.datetime(2026, 11, 25, 12, tzinfo=datetime.UTC).timestamp())
    app = create_app(tmp_path / "games.db", now=clock, compute=compute, static_dir=static_dir)
    # The lifespan closes the compute it was given; the module's compute starts again on use.
    with TestClient(app) as test_client:
        yield test_client


def _move(client: TestClient, puzzle_id: str, moves: list[str], move: Any) -> Any:
    return client.post(f"/api/puzzles/{puzzle_id}/move", json={"moves": moves, "move": move})


# ---------------------------------------------------------------- the set


def test_the_set_holds_both_collections_with_their_sources() -> None:
    ids = set(PUZZLES.by_id)
    assert sum(p.variant.game == "xiangqi" for p in PUZZLES.by_id.values()) >= 110
    assert sum(p.variant.game == "janggi" for p in PUZZLES.by_id.values()) >= 34
    assert "xq_shi_qing_ya_qu_014" in ids and TWO_WINNERS in ids
    for puzzle in PUZZLES.by_id.values():
        source = puzzle.source
        if source.get("mined"):
            assert {"game", "ply", "engine", "verified_by"} <= set(source)
        else:
            assert source["case"] == puzzle.id
        if "xiangqibench" in source.get("collection", ""):
            assert "MIT" in source["licence"]
    assert (DATA.parent / "XIANGQIBENCH-LICENSE").read_text().startswith("MIT License")


@pytest.mark.parametrize("puzzle", list(PUZZLES.by_id.values()), ids=list(PUZZLES.by_id))
def test_each_solution_line_mates_within_the_puzzle(puzzle: Puzzle) -> None:
    board = puzzle.board()
    for number, move in enumerate(puzzle.line):
        assert not defender_lost(board), f"over before ply {number}"
        board.push_iccs(move)
    assert defender_lost(board)
    assert len(puzzle.line) <= puzzle.plies and len(puzzle.line) % 2 == 1


# ---------------------------------------------------------------- judging moves


def test_the_lines_move_is_right_and_answered_by_the_lines_defence(client: TestClient) -> None:
    puzzle = PUZZLES.by_id["xq_shi_qing_ya_qu_014"]
    answer = _move(client, puzzle.id, [], puzzle.line[0]).json()
    assert answer["result"] == "right"
    assert answer["reply"] == puzzle.line[1]
    assert answer["moves"] == list(puzzle.line[:2])
    board = puzzle.board()
    board.push_iccs(puzzle.line[0])
    board.push_iccs(puzzle.line[1])
    assert sum(len(t) for t in answer["legal"].values()) == len(list(board.legal_moves))


def test_following_the_line_to_the_end_solves_the_puzzle(client: TestClient) -> None:
    puzzle = PUZZLES.by_id["janggi-m3-07"]
    moves: list[str] = []
    for ply in range(0, len(puzzle.line), 2):
        answer = _move(client, puzzle.id, moves, puzzle.line[ply]).json()
        moves = answer["moves"]
    assert answer["result"] == "solved"
    assert moves == list(puzzle.line)


def test_another_mating_move_is_solved_too(client: TestClient) -> None:
    puzzle = PUZZLES.by_id["janggi-m1-02"]
    others = sorted(puzzle.winning_first_moves - {puzzle.line[0]})
    assert others
    for move in others:
        assert _move(client, puzzle.id, [], move).json()["result"] == "solved"


def test_another_winning_move_is_accepted_by_the_search(compute: ProcessCompute) -> None:
    """The second winning first move, with the set's list of winners taken away: only
    the engine's search of the position after it can accept it. Its defence is the
    engine's, and the attempt goes on to mate off the stored line."""
    listed = PUZZLES.by_id[TWO_WINNERS]
    puzzle = dataclasses.replace(listed, winning_first_moves=frozenset())
    other = sorted(listed.winning_first_moves - {listed.line[0]})[0]

    async def attempt() -> list[dict[str, Any]]:
        first = await judge_move(compute, puzzle, [], other)
        if first["result"] != "right":
            return [first]
        board = puzzle.board()
        for move in first["moves"]:
            board.push_iccs(move)
        mates = [m.iccs() for m in board.legal_moves if not m.is_pass() and _mates(board, m)]
        return [first, await judge_move(compute, puzzle, first["moves"], mates[0])]

    first, second = asyncio.run(attempt())
    compute.close()
    assert first["result"] == "right", first
    assert first["moves"][0] == other
    assert second["result"] == "solved"


def _mates(board: chuhan.Board, move: chuhan.Move) -> bool:
    board.push(move)
    try:
        return defender_lost(board)
    finally:
        board.pop()


def test_a_move_that_does_not_win_is_wrong_and_shows_the_solution(client: TestClient) -> None:
    """janggi-m2-03's list of winning first moves is complete (proved exhaustively), so
    any other move is a move that lets the mate go; the engine's search finds a defence."""
    puzzle = PUZZLES.by_id[TWO_WINNERS]
    board = puzzle.board()
    losing = sorted(
        m.iccs()
        for m in board.legal_moves
        if not m.is_pass() and m.iccs() not in puzzle.winning_first_moves
    )
    answer = _move(client, puzzle.id, [], losing[0]).json()
    assert answer["result"] == "wrong", answer
    assert answer["solution"] == list(puzzle.line)
    assert answer["moves"] == []


def test_a_last_move_that_does_not_mate_is_wrong(client: TestClient) -> None:
    puzzle = PUZZLES.by_id["janggi-m1-01"]
    board = puzzle.board()
    quiet = sorted(m.iccs() for m in board.legal_moves if not m.is_pass() and not _mates(board, m))
    answer = _move(client, puzzle.id, [], quiet[0]).json()
    assert answer["result"] == "wrong"
    assert answer["solution"] == list(puzzle.line)


# ---------------------------------------------------------------- hints, solutions, daily


def test_a_hint_is_the_lines_next_move(client: TestClient) -> None:
    puzzle = PUZZLES.by_id["xq_shi_qing_ya_qu_014"]
    moves = list(puzzle.line[:2])
    answer = client.post(f"/api/puzzles/{puzzle.id}/hint", json={"moves": moves})
    assert answer.json() == {"move": puzzle.line[2]}


def test_the_solution_is_the_rest_of_the_line(client: TestClient) -> None:
    puzzle = PUZZLES.by_id["xq_shi_qing_ya_qu_014"]
    answer = client.post(f"/api/puzzles/{puzzle.id}/solution", json={"moves": []}).json()
    assert answer["line"] == list(puzzle.line)
    assert answer["notation"]["iccs"] == list(puzzle.line)
    assert answer["notation"]["wxf"][0] == "P6+1"  # d8d9: the soldier on file 6 goes up one
    assert len(answer["notation"]["chinese"]) == len(puzzle.line)
    assert "korean" not in answer["notation"]


def test_the_daily_puzzle_is_one_puzzle_a_utc_date(client: TestClient) -> None:
    daily = client.get("/api/puzzles/daily").json()
    assert daily["date"] == "2026-11-25"
    assert daily["id"] == PUZZLES.daily(datetime.date(2026, 11, 25)).id
    assert client.get("/api/puzzles").json()["daily"] == daily["id"]
    days = {PUZZLES.daily(datetime.date(2026, 11, d)).id for d in range(1, 31)}
    assert len(days) > 20  # it changes from day to day
    public = client.get(f"/api/puzzles/{daily['id']}").json()
    assert "line" not in public and "winning_first_moves" not in public
    assert public["legal"]


# ---------------------------------------------------------------- hostile input


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"moves": "h2e2", "move": "h2e2"}, "'moves' must be a list"),
        ({"moves": ["d8d9"], "move": "e9d9"}, "even number"),
        ({"moves": ["d8d9"] * 40, "move": "e9d9"}, "even number"),
        ({"moves": [], "move": 7}, "'move' must be a move"),
        ({"moves": [], "move": "x" * 5000}, "'move' must be a move"),
        ({"moves": [], "move": "z9z9"}, "not a move in ICCS"),
        ({"moves": [], "move": "a0a1"}, "'move' a0a1 is not legal"),
        ({"moves": [None, "e9d9"], "move": "h5h9"}, "'moves[0]' must be a move"),
        ({"moves": ["d8d9", "e9e8"], "move": "h5h9"}, "'moves[1]' e9e8 is not legal"),
        ({"moves": []}, "'move' must be a move"),
    ],
)
def test_what_is_not_an_attempt_is_refused_by_name(
    client: TestClient, body: dict[str, Any], words: str
) -> None:
    answer = client.post("/api/puzzles/xq_shi_qing_ya_qu_014/move", json=body)
    assert answer.status_code == 400
    assert words in answer.json()["error"]["message"]


def test_moves_that_already_mate_are_not_an_attempt(client: TestClient) -> None:
    puzzle = PUZZLES.by_id["janggi-m1-01"]
    padded = [puzzle.line[0], "e7e7"]
    answer = client.post(f"/api/puzzles/{puzzle.id}/hint", json={"moves": padded})
    assert answer.status_code == 400


def test_unknown_puzzles_and_bodies_are_refused(client: TestClient) -> None:
    assert client.get("/api/puzzles/nothing-here").status_code == 404
    answer = client.post("/api/puzzles/../../etc/passwd/move", json={"moves": []})
    assert answer.status_code == 404
    as_json = {"content-type": "application/json"}
    answer = client.post("/api/puzzles/janggi-m1-01/move", content=b"[1, 2]", headers=as_json)
    assert answer.json()["error"]["code"] == "not_object"
    answer = client.post("/api/puzzles/janggi-m1-01/move", content=b"{" * 100_000, headers=as_json)
    assert answer.status_code in (400, 413)


def test_the_search_budget_is_per_address(tmp_path: Path, static_dir: Path) -> None:
    from chuhan.web.puzzles import routes as endpoints

    # The budget refills by the app's clock: a fake one that stands still, so that the
    # burst is spent however long the searches take (on a loaded machine 62 real seconds'
    # searches took more than two seconds, and two tokens came back).
    app = create_app(
        tmp_path / "games.db",
        now=FakeClock(),
        compute=ProcessCompute(workers=1),
        static_dir=static_dir,
        settings=Settings(),
    )
    with TestClient(app) as test_client:
        answers = [
            test_client.post("/api/puzzles/janggi-m1-01/hint", json={"moves": []}).status_code
            for _ in range(endpoints.SEARCH_BURST + 2)
        ]
    assert answers[: endpoints.SEARCH_BURST] == [200] * endpoints.SEARCH_BURST
    assert answers[endpoints.SEARCH_BURST :] == [429, 429]
