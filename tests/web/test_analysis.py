"""The analysis board's server: positions answered by the rules (and bad input named), the
engine's lines streamed as it deepens on a real ``chuhan serve``, shared fairly between
analysts and never delaying a computer player, stopped when a page closes; game reviews
with their marks; an external engine (chuhan's own, run as a UCI process) for analyses."""

from __future__ import annotations

import contextlib
import json
import shlex
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from process_helpers import create_game, start_server, stop
from starlette.testclient import TestClient
from test_compute_server import cpu_ticks, is_running, searching_worker
from web_helpers import MakeClient, Player, wait_held
from websockets.sync.client import ClientConnection, connect

from chuhan.records import GameRecord, write_pgn
from chuhan.squares import Move
from chuhan.web.analysis.rules import (
    BLUNDER,
    INACCURACY,
    MISTAKE,
    judge_review,
    read_line,
    win_chance,
)
from chuhan.web.analysis.service import why_not_deeper
from chuhan.web.server import free_port

MATE_FEN = "3k5/R8/3R5/9/9/9/9/9/9/4K4 w"
#: A blunder on the first move: the chariot's step lets the cannon take the horse on b0.
BLUNDER_LINE = ["a0a2", "b7b0"]


class Analyst:
    """One analysis board's websocket."""

    def __init__(self, stack: contextlib.ExitStack, port: int) -> None:
        self.ws: ClientConnection = stack.enter_context(
            connect(f"ws://127.0.0.1:{port}/ws/analysis")
        )
        self.seq = 0
        self.welcome = self.ask("hello")

    def send(self, kind: str, **fields: Any) -> int:
        self.seq += 1
        self.ws.send(json.dumps({"type": kind, "seq": self.seq, **fields}))
        return self.seq

    def receive(self, timeout: float = 60) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        return message

    def ask(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send a message and return the first answer to it (an error included)."""
        seq = self.send(kind, **fields)
        while True:
            message = self.receive()
            if message.get("seq") == seq and message["type"] != "lines":
                return message

    def lines(self, seconds: float) -> list[tuple[float, dict[str, Any]]]:
        """The ``lines`` messages of the next ``seconds`` (with when each came)."""
        seen = []
        start = time.monotonic()
        deadline = start + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                message = self.receive(timeout=left)
            except TimeoutError:
                break
            if message["type"] == "lines":
                seen.append((time.monotonic() - start, message))
            # (an engine that failed says so: not a wait for lines that never come)
            assert message["type"] != "error", f"the server answered an error: {message}"
        return seen


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[int, int]]:
    """A real ``chuhan serve``: its port and process id."""
    port = free_port()
    process = start_server(port, tmp_path / "games.sqlite3")
    try:
        yield port, process.pid
    finally:
        stop(process)


@pytest.fixture
def server(served: tuple[int, int]) -> int:
    return served[0]


# ---------------------------------------------------------------------- the judgments


def test_a_score_is_a_chance_of_winning_on_the_elo_curve() -> None:
    assert win_chance(0, None) == 0.5
    assert round(win_chance(400, None), 2) == 0.91
    assert win_chance(None, 3) == 1.0 and win_chance(None, -2) == 0.0


def evaluation(ply: int, turn: str, first_cp: int, best: str) -> dict[str, Any]:
    pv = {"iccs": [best], "wxf": [best], "chinese": [best], "korean": None}
    line = {"first_cp": first_cp, "first_mate": None, "pv": pv}
    return {"ply": ply, "turn": turn, "line": line}


@pytest.mark.parametrize(
    ("after", "mark"),
    [(-60, None), (-115, "inaccuracy"), (-190, "mistake"), (-450, "blunder")],
)
def test_a_move_is_marked_by_how_much_it_lowers_its_players_chance(
    after: int, mark: str | None
) -> None:
    evaluations = [evaluation(0, "first", 0, "h2e2"), evaluation(1, "second", after, "h9g7")]
    judged = judge_review(evaluations, ["a0a1"])
    assert judged["moves"][0]["mark"] == mark
    assert judged["summary"]["first"]["blunder"] == (mark == "blunder")
    assert INACCURACY < MISTAKE < BLUNDER


def test_the_engines_own_choice_is_never_marked_and_the_mark_shows_the_better_move() -> None:
    evaluations = [evaluation(0, "first", 0, "h2e2"), evaluation(1, "second", -450, "h9g7")]
    assert judge_review(evaluations, ["h2e2"])["moves"][0]["mark"] is None
    blunder = judge_review(evaluations, ["a0a1"])["moves"][0]
    assert blunder["best"]["iccs"] == "h2e2"


def test_black_is_judged_from_blacks_side() -> None:
    evaluations = [
        evaluation(0, "first", 0, "h2e2"),
        evaluation(1, "second", 0, "h9g7"),
        evaluation(2, "first", 450, "h0g2"),
    ]
    judged = judge_review(evaluations, ["h2e2", "a9a8"])
    assert [m["mark"] for m in judged["moves"]] == [None, "blunder"]
    assert judged["summary"]["second"]["blunder"] == 1


def mate_evaluation(ply: int, turn: str, mate: int | None, cp: int, best: str) -> dict[str, Any]:
    """A position whose side to move (``turn``) mates in ``mate`` (or scores ``cp``)."""
    sign = 1 if turn == "first" else -1
    pv = {"iccs": [best], "wxf": [best], "chinese": [best], "korean": None}
    line = {
        "score_cp": None if mate else cp,
        "mate": mate,
        "first_cp": None if mate else sign * cp,
        "first_mate": None if mate is None else sign * mate,
        "pv": pv,
    }
    return {"ply": ply, "turn": turn, "line": line}


def test_a_move_into_a_forced_mate_is_a_blunder_and_says_the_mate() -> None:
    # Black at -230 (a 21 % chance): the drop to a mate would be a mistake by chances.
    evaluations = [
        mate_evaluation(0, "second", None, -230, "h9g7"),
        mate_evaluation(1, "first", 4, 0, "h2e2"),
    ]
    move = judge_review(evaluations, ["a9a8"])["moves"][0]
    assert (move["mark"], move["mated_in"]) == ("blunder", 4)
    assert move["best"]["iccs"] == "h9g7"


def test_a_move_into_mate_from_a_lost_position_is_judged_by_its_chance() -> None:
    lost = [
        mate_evaluation(0, "second", None, -800, "h9g7"),
        mate_evaluation(1, "first", 3, 0, "h2e2"),
    ]
    move = judge_review(lost, ["a9a8"])["moves"][0]
    assert (move["mark"], move["mated_in"]) == (None, 3)
    mated_already = [
        mate_evaluation(0, "second", -5, 0, "h9g7"),
        mate_evaluation(1, "first", 3, 0, "h2e2"),
    ]
    assert judge_review(mated_already, ["a9a8"])["moves"][0]["mated_in"] is None


def test_a_move_inside_a_mate_under_way_is_not_a_move_into_mate() -> None:
    # Red mates in 4 starting h2e2 and plays it: black's next move is mated in 3 whatever
    # it is, though black's own line (a search of a few plies) only saw -510.
    evaluations = [
        mate_evaluation(0, "first", 4, 0, "h2e2"),
        mate_evaluation(1, "second", None, -510, "h9g7"),
        mate_evaluation(2, "first", 3, 0, "e2e6"),
    ]
    judged = judge_review(evaluations, ["h2e2", "a9a8"])["moves"]
    assert [(m["mark"], m["mated_in"]) for m in judged] == [(None, None), (None, None)]


# ---------------------------------------------------------------------- positions (the rules)


@pytest.fixture
def analysis_client(make_client: MakeClient) -> TestClient:
    return make_client()


class SocketAnalyst:
    """An analysis websocket on the test app."""

    def __init__(self, client: TestClient) -> None:
        self._context = client.websocket_connect("/ws/analysis")
        self.ws = self._context.__enter__()
        self.seq = 0

    def ask(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.seq += 1
        self.ws.send_text(json.dumps({"type": kind, "seq": self.seq, **fields}))
        while True:
            message: dict[str, Any] = self.ws.receive_json()
            if message.get("seq") == self.seq and message["type"] != "lines":
                return message

    def close(self) -> None:
        self._context.__exit__(None, None, None)


@pytest.fixture
def analyst(analysis_client: TestClient) -> Iterator[SocketAnalyst]:
    board = SocketAnalyst(analysis_client)
    board.ask("hello")
    yield board
    board.close()


@pytest.mark.sqlite_only
def test_a_position_comes_with_its_legal_moves_and_each_move_in_every_notation(
    analyst: SocketAnalyst,
) -> None:
    answer = analyst.ask("position", variant="xiangqi", moves=["h2e2", "h9g7"], all_moves=True)
    assert answer["type"] == "position"
    assert answer["turn"] == "first" and answer["ply"] == 2
    assert "e2" in answer["dests"] and "e6" in answer["dests"]["e2"]
    assert [m["wxf"] for m in answer["moves"]] == ["C2.5", "H8+7"]
    assert [m["chinese"] for m in answer["moves"]] == ["炮二平五", "馬８進７"]
    assert answer["moves"][1]["fen"] == answer["fen"]


@pytest.mark.sqlite_only
def test_a_mated_position_says_how_the_game_ended_and_has_no_moves(
    analyst: SocketAnalyst,
) -> None:
    answer = analyst.ask("position", variant="xiangqi", fen=MATE_FEN, moves=["a8d8"])
    assert answer["dests"] == {}
    assert answer["over"]["termination"] == "checkmate"
    assert answer["check"] == "d9"


@pytest.mark.sqlite_only
def test_a_janggi_position_offers_the_pass_and_korean_notation(analyst: SocketAnalyst) -> None:
    answer = analyst.ask("position", variant="janggi", moves=["b0c2"])
    assert answer["can_pass"] and answer["pass_move"] == "e8e8"
    assert answer["moves"][0]["korean"]


@pytest.mark.sqlite_only
@pytest.mark.parametrize(
    ("fields", "code", "said"),
    [
        ({"fen": "rnbakabnr/9/9 w"}, "bad_fen", "the FEN 'rnbakabnr/9/9 w' is not a position"),
        ({"moves": ["h2e2", "h2e2"]}, "illegal_move", "move 2 'h2e2' is not legal in"),
        ({"moves": ["h2"]}, "bad_move", "move 1 'h2' is not an ICCS move like 'h2e2'"),
        ({"moves": ["h0g2", "h9g7", "g2h0", "g7h9"] * 151}, "too_many_moves", "at most 600"),
        ({"variant": "chess"}, "bad_variant", "chess"),
        ({"moves": "h2e2"}, "bad_field", "'moves' must be a list of ICCS moves"),
        ({"deeper_than": 500}, "bad_field", "'deeper_than' must be a depth from 0 to 112"),
    ],
)
def test_bad_input_gets_an_error_naming_it(
    analyst: SocketAnalyst, fields: dict[str, Any], code: str, said: str
) -> None:
    answer = analyst.ask("position", **{"variant": "xiangqi", **fields})
    assert answer["type"] == "error", answer
    assert answer["code"] == code
    assert said in answer["message"]


@pytest.mark.sqlite_only
def test_a_flood_of_messages_is_slowed_down(analysis_client: TestClient) -> None:
    board = SocketAnalyst(analysis_client)
    try:
        board.ask("hello")
        for _ in range(50):
            board.seq += 1
            board.ws.send_text(json.dumps({"type": "ping", "seq": board.seq}))
        while (message := board.ws.receive_json())["type"] == "pong":
            pass
        assert message["code"] == "rate_limited"
    finally:
        board.close()


@pytest.mark.sqlite_only
def test_a_game_in_play_is_not_opened_on_the_analysis_board(
    analysis_client: TestClient, analyst: SocketAnalyst
) -> None:
    game = analysis_client.post("/api/games", json={"kind": "friend"}).json()
    answer = analyst.ask("game", game=game["game_id"])
    assert answer["type"] == "error" and answer["code"] == "game_in_progress"
    assert "still being played" in answer["message"]
    review = analyst.ask("review", game=game["game_id"])
    assert review["code"] == "game_in_progress"


@pytest.mark.sqlite_only
def test_a_finished_game_opens_with_its_moves_and_players(
    analysis_client: TestClient, analyst: SocketAnalyst
) -> None:
    game = analysis_client.post(
        "/api/games", json={"kind": "local", "fen": MATE_FEN, "name": "Ann"}
    ).json()
    hands = Player(analysis_client, game["game_id"], game["token"])
    hands.hello()
    hands.move("a8d8")
    hands.close()
    answer = analyst.ask("game", game=game["game_id"])
    assert answer["type"] == "game"
    assert [m["iccs"] for m in answer["position"]["moves"]] == ["a8d8"]
    assert answer["position"]["start_fen"].startswith("3k5/R8/3R5")
    assert answer["result"]["termination"] == "checkmate"


# ---------------------------------------------------------------------- the engine (real server)


def deepening(seen: list[tuple[float, dict[str, Any]]]) -> list[int]:
    return [message["depth"] for _, message in seen]


def lines_until(
    board: Analyst, enough: Callable[[list[tuple[float, dict[str, Any]]]], bool]
) -> list[tuple[float, dict[str, Any]]]:
    """The ``lines`` messages that come until ``enough`` of them have (a bound on a hang only:
    a loaded machine only makes them come later)."""
    seen: list[tuple[float, dict[str, Any]]] = []
    deadline = time.monotonic() + 120
    while not enough(seen):
        assert time.monotonic() < deadline, f"the lines stopped coming: {deepening(seen)}"
        seen += board.lines(0.2)
    return seen


def test_the_engines_lines_stream_and_deepen_with_three_lines(server: int) -> None:
    with contextlib.ExitStack() as stack:
        board = Analyst(stack, server)
        assert board.welcome["engine"] == "chuhan"
        answer = board.ask("position", variant="xiangqi", engine=True, multipv=3)
        assert answer["type"] == "position"
        seen = lines_until(board, lambda seen: len(set(deepening(seen))) >= 3)
    depths = deepening(seen)
    assert len(depths) >= 3 and depths == sorted(depths) and depths[-1] > depths[0]
    last = seen[-1][1]
    assert len(last["lines"]) == 3
    assert all(line["pv"]["wxf"] and line["first_cp"] is not None for line in last["lines"])


def final_lines(board: Analyst, seq: int) -> dict[str, Any]:
    """The ``done`` lines of the analysis asked by ``seq`` (waited for: the engine's time)."""
    while True:
        message = board.receive(timeout=600)  # a bound on a hang only
        if message["type"] == "lines" and message["seq"] == seq and message["done"]:
            return message


@pytest.fixture
def quick_server(tmp_path: Path) -> Iterator[int]:
    """A real ``chuhan serve`` whose analyses get a tenth of a second."""
    port = free_port()
    process = start_server(port, tmp_path / "games.sqlite3", "--analysis-seconds", "0.1")
    try:
        yield port
    finally:
        stop(process)


def test_think_longer_goes_deeper_than_the_depth_shown(quick_server: int) -> None:
    # The board showed depth 4 (whatever the machine's speed); a tenth of a second again
    # would end at any depth, but asked to go deeper, the engine goes on until it is.
    with contextlib.ExitStack() as stack:
        board = Analyst(stack, quick_server)
        seq = board.send("position", variant="xiangqi", engine=True, longer=1, deeper_than=4)
        longer = final_lines(board, seq)
    assert longer["depth"] >= 5
    assert "not_deeper" not in longer


def test_think_longer_on_a_proved_mate_says_so(quick_server: int) -> None:
    with contextlib.ExitStack() as stack:
        board = Analyst(stack, quick_server)
        seq = board.send(
            "position", variant="xiangqi", fen=MATE_FEN, engine=True, longer=1, deeper_than=5
        )
        longer = final_lines(board, seq)
    assert longer["lines"][0]["mate"] == 1 and longer["depth"] <= 5
    assert longer["not_deeper"] == "mate"


@pytest.mark.sqlite_only
def test_think_longer_on_an_ended_game_says_so(analysis_client: TestClient) -> None:
    with analysis_client.websocket_connect("/ws/analysis") as ws:
        ws.send_text(json.dumps({"type": "hello", "seq": 1}))
        ws.send_text(
            json.dumps(
                {
                    "type": "position",
                    "seq": 2,
                    "variant": "xiangqi",
                    "fen": MATE_FEN,
                    "moves": ["a8d8"],
                    "engine": True,
                    "deeper_than": 3,
                }
            )
        )
        while True:
            message = ws.receive_json()
            if message["type"] == "lines":
                break
    assert message["done"] and message["not_deeper"] == "over"


@pytest.mark.parametrize(
    ("fen", "last", "out_of_time", "why"),
    [
        (MATE_FEN, {"depth": 2, "lines": [{"mate": 1}]}, False, "mate"),
        # Black in check from the chariot with one way out.
        (
            "4k4/9/9/9/9/9/9/9/4R4/3K5 b",
            {"depth": 1, "lines": [{"mate": None}]},
            False,
            "only_move",
        ),
        (None, {"depth": 112, "lines": [{"mate": None}]}, False, "depth_cap"),
        (None, {"depth": 20, "hashfull": 1000, "lines": [{"mate": None}]}, True, "hash_full"),
        (None, {"depth": 20, "hashfull": 300, "lines": [{"mate": None}]}, True, "time"),
    ],
)
def test_why_think_longer_went_no_deeper(
    fen: str | None, last: dict[str, Any], out_of_time: bool, why: str
) -> None:
    line = read_line("xiangqi", None, fen, [], max_plies=10)
    assert why_not_deeper(line, last, out_of_time) == why


def test_the_deepest_depth_is_the_searchs() -> None:
    from chuhan.search.tree import MAX_PLY
    from chuhan.web.analysis.service import MAX_SEARCH_DEPTH

    assert MAX_SEARCH_DEPTH == MAX_PLY - 8  # (tree.run's deepest iteration)


def stop_and_check_still_running(analyst: Analyst, why: str) -> None:
    """Stop ``analyst``'s analysis and check it was still running: its socket carries no
    final (``done``) lines before the answer to the stop (a stop cancels the search, and
    only an analysis that ran out its budget sends final lines)."""
    seq = analyst.send("stop")
    while True:
        message = analyst.receive(timeout=120)  # a bound on a hang only
        assert not (message["type"] == "lines" and message["done"]), why
        if message["type"] == "stopped" and message["seq"] == seq:
            return


def test_two_analysts_at_once_both_get_deepening_lines(server: int) -> None:
    with contextlib.ExitStack() as stack:
        first, second = Analyst(stack, server), Analyst(stack, server)
        first.ask("position", variant="xiangqi", engine=True, multipv=2)
        seen = {first: [], second: []}  # type: dict[Analyst, list[tuple[float, dict[str, Any]]]]
        deadline = time.monotonic() + 120  # a bound on a hang only
        while not seen[first]:  # the first has the worker before the second asks
            assert time.monotonic() < deadline, "the first analysis never started"
            seen[first] += first.lines(0.2)
        second.ask("position", variant="janggi", moves=["b0c2"], engine=True)
        while any(len(set(deepening(seen[board]))) < 3 for board in (first, second)):
            assert time.monotonic() < deadline, "an analysis stopped deepening"
            for board in (first, second):
                seen[board] += board.lines(0.2)
        # The second deepened while the first's analysis was still running: it did not
        # wait for the first one's whole budget (30 s) but had its turn after the first
        # one's slice (2 s).
        stop_and_check_still_running(first, "the second analyst waited for the first's end")
    for board in (first, second):
        depths = deepening(seen[board])
        assert depths == sorted(depths), depths


def test_a_closed_page_stops_its_search_at_once_and_the_worker_stays(
    served: tuple[int, int],
) -> None:
    port, pid = served
    with contextlib.ExitStack() as stack:
        board = Analyst(stack, port)
        board.ask("position", variant="xiangqi", engine=True)
        deadline = time.monotonic() + 60  # a bound on a hang only
        while not board.lines(0.2):  # it has the worker, for 30 s if nobody else asks
            assert time.monotonic() < deadline, "the analysis never started"
        worker = searching_worker(pid)
    # The page is closed: within a bound on a hang, a second comes when the worker uses
    # under a tenth of a core (not searching).
    deadline = time.monotonic() + 60
    while True:
        before = cpu_ticks(worker)
        time.sleep(1)
        if cpu_ticks(worker) - before < 10:
            break
        assert time.monotonic() < deadline, "the closed page's search went on"
    assert is_running(worker)  # kept, warm, for the next analysis


def play_first_computer_move(port: int, stack: contextlib.ExitStack) -> None:
    """Start a level-1 computer game (the computer moves first) and wait for its move."""
    game = create_game(port, kind="computer", level=1, color="second")
    ws = stack.enter_context(connect(f"ws://127.0.0.1:{port}/ws/{game['game_id']}"))
    ws.send(json.dumps({"type": "hello", "seq": 1, "token": game["token"], "protocol": 2}))
    while True:
        message = json.loads(ws.recv(timeout=120))  # a bound on a hang only
        if message["type"] == "state" and message["ply"] == 1:
            return


def test_a_computer_move_is_not_delayed_by_analyses(server: int) -> None:
    with contextlib.ExitStack() as stack:
        play_first_computer_move(server, stack)  # the computer's workers started
        analysts = [Analyst(stack, server) for _ in range(2)]
        for analyst, moves in zip(analysts, ([], ["h2e2"]), strict=True):
            analyst.ask("position", variant="xiangqi", moves=moves, engine=True)
        deadline = time.monotonic() + 120  # a bound on a hang only
        while not analysts[0].lines(0.2):  # the analyses are searching
            assert time.monotonic() < deadline, "the analysis never started"
        play_first_computer_move(server, stack)
        # Behind an analysis the move would have waited for its whole budget (30 s): both
        # analyses were still running when it came, whatever the machine's load.
        for analyst in analysts:
            stop_and_check_still_running(analyst, "the computer's move waited for an analysis")


def import_game(port: int, record: GameRecord) -> str:
    """Import ``record`` into the server on ``port``: the game's id."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/import", data=write_pgn(record).encode()
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        game_id: str = json.loads(response.read())["games"][0]["game_id"]
    return game_id


def reviewed(board: Analyst, game_id: str) -> tuple[list[int], dict[str, Any]]:
    """Ask for the review of ``game_id``: the plies of its progress, and its end."""
    started = board.ask("review", game=game_id)
    assert started["type"] == "review_started", started
    progress = []
    while True:
        message = board.receive(120)  # a bound on a hang only
        if message["type"] == "review":
            progress.append(message["evaluation"]["ply"])
        if message["type"] == "review_done":
            return progress, message


def test_a_finished_games_review_marks_the_blunder_with_the_better_move(server: int) -> None:
    record = GameRecord.from_moves([Move.from_iccs(m) for m in BLUNDER_LINE])
    record.result = "0-1"
    game_id = import_game(server, record)
    with contextlib.ExitStack() as stack:
        board = Analyst(stack, server)
        progress, message = reviewed(board, game_id)
        assert message["plies"] == 2
        again = Analyst(stack, server).ask("review", game=game_id)  # kept: answered at once
    assert progress == [0, 1, 2]
    assert [e["ply"] for e in message["evaluations"]] == [0, 1, 2]
    first, second = message["moves"]
    assert first["mark"] == "blunder" and first["best"]["iccs"] != "a0a2"
    assert first["best"]["wxf"]
    assert second["mark"] is None
    assert message["summary"]["first"]["blunder"] == 1
    assert again["type"] == "review_done" and again["moves"] == message["moves"]


#: Black at about -2 (horse and cannon against advisor, elephant and soldier; 8,000 nodes
#: score it -201 for black, and f8e8 holds) plays the elephant a7c5, after which red mates
#: in 4 starting with a quiet horse move, e7g6: a search of 8,000 nodes sees +641 for red
#: and no mate, so the review of the searches alone called it a mistake at most.
INTO_MATE_FEN = "5a3/5k3/b3N4/8p/9/7C1/9/9/9/4K4 b - - 0 1"
INTO_MATE_LINE = ["a7c5", "e7g6", "f8f7", "h4f4", "c5e7", "g6e7", "i6i5", "e7f5"]


def test_a_review_marks_a_move_into_a_forced_mate_a_blunder_and_says_the_mate(
    server: int,
) -> None:
    record = GameRecord.from_moves([Move.from_iccs(m) for m in INTO_MATE_LINE], fen=INTO_MATE_FEN)
    record.result = "1-0"
    game_id = import_game(server, record)
    with contextlib.ExitStack() as stack:
        _, message = reviewed(Analyst(stack, server), game_id)
    assert message["evaluations"][-1]["over"]["termination"] == "checkmate"
    blunder, *rest = message["moves"]
    assert (blunder["side"], blunder["mark"], blunder["mated_in"]) == ("second", "blunder", 4)
    assert blunder["best"]["iccs"] != "a7c5"
    assert message["evaluations"][1]["line"]["mate"] == 4  # red, to move, mates in 4
    # The moves of the mate itself are not marked: black was mated whatever it played.
    assert [move["mark"] for move in rest] == [None] * 7
    assert message["summary"]["second"]["blunder"] == 1


def test_an_external_uci_engine_analyses_when_the_operator_names_one(tmp_path: Path) -> None:
    port = free_port()
    command = shlex.join([sys.executable, "-m", "chuhan", "engine"])
    # (the engine's start and handshakes get two minutes: on a loaded machine the
    # default 30 s has been too short for a Python program)
    process = start_server(
        port,
        tmp_path / "games.sqlite3",
        "--analysis-engine",
        command,
        "--analysis-engine-start-seconds",
        "120",
    )
    try:
        with contextlib.ExitStack() as stack:
            board = Analyst(stack, port)
            assert board.welcome["engine"] == Path(sys.executable).name
            board.ask("position", variant="xiangqi", moves=["h2e2"], engine=True, multipv=2)
            seen = lines_until(board, lambda seen: len(set(deepening(seen))) >= 2)
            # A new position stops the engine's search (asked for 30 s) at once.
            moved = board.ask("position", variant="xiangqi", moves=["b0c2"], engine=True)
            after = [
                message
                for _, message in lines_until(
                    board, lambda seen: any(m["seq"] == moved["seq"] for _, m in seen)
                )
                if message["seq"] == moved["seq"]
            ]
    finally:
        stop(process)
    depths = deepening(seen)
    assert len(set(depths)) >= 2, depths
    assert len(seen[-1][1]["lines"]) == 2
    assert seen[-1][1]["lines"][0]["pv"]["chinese"]
    assert after and after[0]["lines"][0]["pv"]["iccs"]


def test_serve_refuses_an_analysis_engine_it_cannot_find(tmp_path: Path) -> None:
    from chuhan.cli import main

    code = main(["serve", "--db", str(tmp_path / "g.db"), "--analysis-engine", "no-such-engine-x"])
    assert code == 2


def test_analysis_boards_beyond_the_cap_of_an_address_are_refused(make_client: MakeClient) -> None:
    client = make_client(analysis_sockets_per_address=2)
    boards = [SocketAnalyst(client) for _ in range(2)]
    for board in boards:
        assert board.ask("hello")["type"] == "welcome"
    extra = SocketAnalyst(client)
    refused = extra.ws.receive_json()  # (refused before its hello is read)
    assert refused["code"] == "too_many_analyses" and "2 analysis boards" in refused["message"]
    extra.close()
    boards[0].close()  # a place is free again, once the server has seen it close
    wait_held(client, "analysis address testclient", 1)
    again = SocketAnalyst(client)
    assert again.ask("hello")["type"] == "welcome"
    for board in (again, boards[1]):
        board.close()
