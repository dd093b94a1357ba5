"""chuhan.engine driving the scripted engine in tests/fake_engine.py over UCI and UCCI."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import chuhan.engine
from chuhan import Board, Move
from chuhan.engine import (
    EngineError,
    EngineMoveError,
    EngineTerminatedError,
    EngineTimeoutError,
    Limit,
    PovScore,
    Score,
    SimpleEngine,
    parse_option_line,
    popen_uci,
)
from chuhan.errors import ChuhanError, ServiceError

FAKE = [sys.executable, str(Path(__file__).parent / "fake_engine.py")]
KINGS_AND_BLACK_ROOK = "r3k4/9/9/9/9/9/9/9/9/4K4 b - - 0 1"


@pytest.fixture(scope="module")
def engine() -> Iterator[SimpleEngine]:
    """One fake engine shared by the tests that leave it as they found it."""
    with SimpleEngine.popen_uci(FAKE) as running:
        yield running


def logged(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


# ---------------------------------------------------------------------- handshake, options


def test_handshake_reads_name_author_and_options(engine: SimpleEngine) -> None:
    assert engine.name == "Fake Engine"
    assert engine.id["author"] == "the chuhan tests"
    skill = engine.options["skill level"]
    assert (skill.type, skill.default, skill.min, skill.max) == ("spin", "20", 0, 20)
    assert engine.options["style"].var == ("Solid", "Normal", "Risky")
    assert engine.options["evalfile"].default == ""


def test_ucci_option_lines_have_no_name_keyword() -> None:
    option = parse_option_line("option hashsize type spin min 0 max 1024 default 16")
    assert option is not None
    assert (option.name, option.type, option.min, option.max, option.default) == (
        "hashsize",
        "spin",
        0,
        1024,
        "16",
    )


def test_configure_sends_checked_values(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    with SimpleEngine.popen_uci([*FAKE, "--log", str(log)]) as engine:
        engine.configure({"skill level": 3, "Ponder": True, "style": "risky", "Clear Hash": None})
    lines = logged(log)
    assert "setoption name Skill Level value 3" in lines
    assert "setoption name Ponder value true" in lines
    assert "setoption name Style value Risky" in lines
    assert "setoption name Clear Hash" in lines


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"Skill Level": 21}, "outside its range 0 to 20"),
        ({"Skill Level": "three"}, "expected a whole number"),
        ({"Ponder": "maybe"}, "expected true or false"),
        ({"Style": "Wild"}, "not one of Solid, Normal, Risky"),
        ({"Contempt": 10}, "has no option 'Contempt'"),
        ({"MultiPV": 2}, "set by chuhan.engine itself"),
        ({"EvalFile": "a\nquit"}, "line break"),
    ],
)
def test_configure_rejects_bad_values(
    engine: SimpleEngine, options: dict[str, object], message: str
) -> None:
    with pytest.raises(EngineError, match=message):
        engine.configure(options)


# ---------------------------------------------------------------------- play, analyse


def test_play_returns_a_legal_move_ponder_and_info(engine: SimpleEngine) -> None:
    board = Board()
    result = engine.play(board, Limit(time=0.05))
    assert result.move == Move.from_iccs("a0a1")  # the fake plays the first legal move
    assert result.ponder is not None
    assert result.info["pv"][:1] == [result.move]
    assert result.info["time"] == 0.02


def test_position_is_sent_from_the_root_with_the_moves(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    board = Board("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1")
    board.push_iccs("h7e7")
    board.push_iccs("h2e2")
    with SimpleEngine.popen_uci([*FAKE, "--log", str(log)]) as engine:
        engine.play(board, Limit(depth=2))
    assert (
        "position fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1 "
        "moves h7e7 h2e2"
    ) in logged(log)
    assert "go depth 2" in logged(log)


def test_clock_limits_are_sent_in_milliseconds(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    with SimpleEngine.popen_uci([*FAKE, "--log", str(log)]) as engine:
        engine.play(Board(), Limit(wtime=60, btime=59.5, winc=1, binc=1, byoyomi=10))
    assert "go wtime 60000 btime 59500 winc 1000 binc 1000 byoyomi 10000" in logged(log)


def test_analyse_multipv_returns_the_lines_best_first(engine: SimpleEngine) -> None:
    board = Board()
    board.push_iccs("h2e2")
    infos = engine.analyse(board, Limit(depth=3), multipv=3)
    assert [info["multipv"] for info in infos] == [1, 2, 3]
    assert len({info["pv"][0] for info in infos}) == 3
    assert infos[0]["depth"] == 3
    # Black to move: the engine's +100 is -100 from red's side.
    assert infos[0]["score"] == PovScore(Score(cp=100), False)
    assert infos[0]["score"].first() == Score(cp=-100)


def test_analyse_without_multipv_returns_one_info(engine: SimpleEngine) -> None:
    info = engine.analyse(Board(), Limit(nodes=500))
    assert info["score"].first() == Score(cp=100)
    assert info["nodes"] == 1000


def test_play_after_analyse_resets_multipv(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    with SimpleEngine.popen_uci([*FAKE, "--log", str(log)]) as engine:
        engine.analyse(Board(), Limit(depth=1), multipv=2)
        engine.play(Board(), Limit(depth=1))
    multipv = [line for line in logged(log) if "MultiPV" in line]
    assert multipv == ["setoption name MultiPV value 2", "setoption name MultiPV value 1"]


def test_banned_moves_become_searchmoves_under_uci(engine: SimpleEngine) -> None:
    result = engine.play(Board(), Limit(depth=1), ban_moves=[Move.from_iccs("a0a1")])
    assert result.move is not None and result.move != Move.from_iccs("a0a1")


def test_noise_between_protocol_lines_is_ignored() -> None:
    with SimpleEngine.popen_uci([*FAKE, "--noise"]) as engine:
        assert engine.play(Board(), Limit(depth=1)).move == Move.from_iccs("a0a1")


def test_scores_from_either_side() -> None:
    score = PovScore(Score(mate=3), turn=False)
    assert score.first() == Score(mate=-3)
    assert score.second() == Score(mate=3)
    assert str(Score(mate=-2)) == "#-2" and str(Score(cp=35)) == "+35"
    assert Score(mate=2).score(mate_score=10000) == 9998


# ---------------------------------------------------------------------- coordinates


def test_ranks_1_10_both_ways(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    board = Board()
    board.push_iccs("h2e2")
    command = [*FAKE, "--ranks", "1-10", "--log", str(log)]
    with SimpleEngine.popen_uci(command, coordinates="ranks-1-10") as engine:
        result = engine.play(board, Limit(depth=1))
    assert any(line.endswith("moves h3e3") for line in logged(log))
    assert result.move == Move.from_iccs("a6a5")  # the engine wrote a7a6


def test_fairy_stockfish_is_recognised_by_name() -> None:
    command = [*FAKE, "--ranks", "1-10", "--name", "Fairy-Stockfish 14.0.1 LB"]
    with SimpleEngine.popen_uci(command) as engine:
        assert engine.coordinates(Board()) == "ranks-1-10"
        assert engine.play(Board(), Limit(depth=1)).move == Move.from_iccs("a0a1")


def test_default_coordinates_follow_the_game(engine: SimpleEngine) -> None:
    assert engine.coordinates(Board()) == "ranks-0-9"
    assert engine.coordinates(Board(variant="janggi")) == "ranks-1-10"


def test_a_rank_10_reveals_the_numbering() -> None:
    with SimpleEngine.popen_uci([*FAKE, "--ranks", "1-10"]) as engine:
        result = engine.play(Board(KINGS_AND_BLACK_ROOK), Limit(depth=1))
        assert result.move == Move.from_iccs("e9f9")  # sent as e10f10
        assert engine.coordinates(Board()) == "ranks-1-10"


def test_explicit_coordinates_are_not_second_guessed() -> None:
    command = [*FAKE, "--ranks", "1-10"]
    expected = "'e10f10', which is not a move in ranks-0-9"
    with (
        SimpleEngine.popen_uci(command, coordinates="ranks-0-9") as engine,
        pytest.raises(EngineMoveError, match=expected),
    ):
        engine.play(Board(KINGS_AND_BLACK_ROOK), Limit(depth=1))


def test_uci_variant_is_set_and_implies_ranks_1_10(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    command = [*FAKE, "--ranks", "1-10", "--variants", "xiangqi,janggi", "--log", str(log)]
    board = Board(variant="janggi")
    with SimpleEngine.popen_uci(command) as engine:
        assert engine.coordinates(Board()) == "ranks-1-10"
        result = engine.play(board, Limit(depth=1))
    assert "setoption name UCI_Variant value janggi" in logged(log)
    assert result.move == Move.from_iccs("a0a1")


def test_uci_variant_names_the_rule_set_when_offered(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    command = [*FAKE, "--ranks", "1-10", "--variants", "janggi,janggimodern", "--log", str(log)]
    with SimpleEngine.popen_uci(command) as engine:
        engine.play(Board(variant="janggi", rules="modern"), Limit(depth=1))
        engine.play(Board(variant="janggi", rules="classic"), Limit(depth=1))
    variants = [line for line in logged(log) if "UCI_Variant" in line]
    assert variants == [
        "setoption name UCI_Variant value janggimodern",
        "setoption name UCI_Variant value janggi",
    ]


def test_janggi_pass_is_sent_and_read_as_the_king_square_twice(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    board = Board(variant="janggi")
    board.push_iccs("e1e1")  # Cho passes
    command = [*FAKE, "--game", "janggi", "--ranks", "1-10", "--pass", "first", "--log", str(log)]
    with SimpleEngine.popen_uci(command) as engine:
        result = engine.play(board, Limit(depth=1))
    assert any(line.endswith("moves e2e2") for line in logged(log))
    assert result.move == Move.from_iccs("e8e8")  # Han's pass, written e9e9
    assert result.move.is_pass()


def test_janggi_pass_written_0000_is_accepted() -> None:
    command = [*FAKE, "--game", "janggi", "--pass", "null"]
    with SimpleEngine.popen_uci(command, coordinates="ranks-0-9") as engine:
        result = engine.play(Board(variant="janggi"), Limit(depth=1))
    assert result.move == Move.from_iccs("e1e1")


def test_0000_is_illegal_in_xiangqi() -> None:
    # No pass is ever legal in xiangqi, so the fake never sends one: feed the driver directly.
    with (
        SimpleEngine.popen_uci([*FAKE, "--pass", "null"]) as engine,
        pytest.raises(EngineMoveError, match="passing is not legal"),
    ):
        engine._session.decode(Board(), "0000")


# ---------------------------------------------------------------------- UCCI


def test_ucci_handshake_millisec_clock_and_banmoves(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    with SimpleEngine.popen_ucci([*FAKE, "--ucci", "--log", str(log)]) as engine:
        engine.configure({"hashsize": 64})
        limit = Limit(wtime=30, btime=20, winc=2, binc=2)
        result = engine.play(Board(), limit, ban_moves=[Move.from_iccs("a0a1")])
        info = engine.analyse(Board(), Limit(depth=4))
    lines = logged(log)
    assert lines[0] == "ucci"
    assert "setoption usemillisec true" in lines
    assert "setoption hashsize 64" in lines
    assert "banmoves a0a1" in lines
    assert "go time 30000 increment 2000 opptime 20000 oppincrement 2000" in lines
    assert "go depth 4" in lines
    assert result.move == Move.from_iccs("a0a2")
    assert info["score"].first() == Score(cp=100)


def test_ucci_times_in_whole_seconds_are_rounded_down(tmp_path: Path) -> None:
    # An engine that cannot take milliseconds is never told it has more time than it has.
    log = tmp_path / "log.txt"
    with SimpleEngine.popen_ucci([*FAKE, "--ucci", "--seconds-only", "--log", str(log)]) as engine:
        engine.play(Board(), Limit(wtime=30.9, btime=0.4, winc=1.5, binc=0.6))
        engine.play(Board(), Limit(time=0.7))
    lines = logged(log)
    assert "setoption usemillisec true" not in lines
    assert "go time 30 increment 1 opptime 0 oppincrement 0" in lines
    assert "go time 0 movestogo 1" in lines


def test_ucci_has_no_mate_search() -> None:
    with (
        SimpleEngine.popen_ucci([*FAKE, "--ucci"]) as engine,
        pytest.raises(EngineError, match="UCCI, which has no mate search"),
    ):
        engine.play(Board(), Limit(mate=3))


def test_no_move_when_none_is_legal() -> None:
    mated = "3k5/3R5/3R5/9/9/9/9/9/9/4K4 b - - 0 1"
    with SimpleEngine.popen_ucci([*FAKE, "--ucci"]) as engine:
        assert engine.play(Board(mated), Limit(depth=1)).move is None


# ---------------------------------------------------------------------- misbehaviour


def test_engine_death_is_reported_with_exit_code_and_stderr() -> None:
    with SimpleEngine.popen_uci([*FAKE, "--die-after", "1"]) as engine:
        engine.play(Board(), Limit(depth=1))
        with pytest.raises(EngineTerminatedError, match=r"exit code 3.*segmentation fault"):
            engine.play(Board(), Limit(depth=1))
        with pytest.raises(EngineTerminatedError):
            engine.ping()


def test_illegal_bestmove_names_engine_move_and_reason() -> None:
    expected = "'Fake Engine' sent the illegal move 'a0a9'"
    with (
        SimpleEngine.popen_uci([*FAKE, "--illegal-after", "0"]) as engine,
        pytest.raises(EngineMoveError, match=expected) as e,
    ):
        engine.play(Board(), Limit(depth=1))
    assert e.value.text == "a0a9"
    assert "the chariot on a0 cannot move to a9" in str(e.value)


def test_unparseable_bestmove() -> None:
    with (
        SimpleEngine.popen_uci([*FAKE, "--garbage-after", "0"]) as engine,
        pytest.raises(EngineMoveError, match="sent 'xyzzy', which is not a move"),
    ):
        engine.play(Board(), Limit(depth=1))


def test_a_hung_search_times_out_after_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chuhan.engine, "GRACE", 0.3)
    with SimpleEngine.popen_uci([*FAKE, "--hang-after", "0"]) as engine:
        started = time.monotonic()
        expected = "did not answer 'go depth 1' with a bestmove within 0.2 s, nor 0.3 s after"
        with pytest.raises(EngineTimeoutError, match=expected):
            engine.play(Board(), Limit(depth=1), timeout=0.2)
        assert time.monotonic() - started < 120  # a bound on a hang only


def test_a_silent_handshake_times_out() -> None:
    started = time.monotonic()
    with pytest.raises(EngineTimeoutError, match="did not send 'uciok'"):
        SimpleEngine.popen_uci([*FAKE, "--silent-handshake"], timeout=0.3)
    assert time.monotonic() - started < 120  # a bound on a hang only


def test_a_missing_program_is_a_clear_error() -> None:
    with pytest.raises(
        EngineError, match="cannot start engine 'no-such-engine-xyz --threads 2': No such file"
    ):
        SimpleEngine.popen_uci("no-such-engine-xyz --threads 2")


def test_an_engine_failure_is_a_service_error_not_bad_input() -> None:
    with pytest.raises(ServiceError) as raised:
        SimpleEngine.popen_uci("no-such-engine-xyz")
    assert isinstance(raised.value, EngineError)
    assert isinstance(raised.value, RuntimeError)
    assert not isinstance(raised.value, ValueError)


def test_quit_ends_the_process() -> None:
    engine = SimpleEngine.popen_uci(FAKE)
    engine.quit()
    assert engine.returncode == 0
    with pytest.raises(EngineTerminatedError):
        engine.play(Board(), Limit(depth=1))


@pytest.mark.parametrize(
    "limit",
    [
        {},
        {"time": -1.0},
        {"depth": 2.5},
        {"nodes": True},
        {"wtime": float("nan")},
    ],
)
def test_bad_limits_are_rejected(limit: dict[str, object]) -> None:
    with pytest.raises(ChuhanError, match="invalid limit"):
        Limit(**limit)  # type: ignore[arg-type]


def test_bad_coordinates_are_rejected() -> None:
    with pytest.raises(EngineError, match="invalid coordinates 'ranks-1-9'"):
        SimpleEngine.popen_uci(FAKE, coordinates="ranks-1-9")


# ---------------------------------------------------------------------- asyncio


def test_async_engine_plays_and_analyses() -> None:
    async def run() -> tuple[Move | None, int]:
        async with await popen_uci(FAKE) as engine:
            board = Board()
            result = await engine.play(board, Limit(time=0.05))
            infos = await engine.analyse(board, Limit(depth=2), multipv=2)
            return result.move, len(infos)

    assert asyncio.run(run()) == (Move.from_iccs("a0a1"), 2)


def test_async_engine_reports_death() -> None:
    async def run() -> None:
        engine = await popen_uci([*FAKE, "--die-after", "0"])
        try:
            await engine.play(Board(), Limit(depth=1))
        finally:
            await engine.close()

    with pytest.raises(EngineTerminatedError, match="exit code 3"):
        asyncio.run(run())


def test_analyse_streams_each_info_and_stops_when_told() -> None:
    """The analysis board's use of the driver: chuhan's own engine as a UCI process tells
    each depth as it completes, and a search asked for 30 s ends when ``stop`` is set."""
    import threading
    import time

    stop = threading.Event()
    heard: list[int] = []

    def on_info(info: chuhan.engine.InfoDict) -> None:
        heard.append(info.get("depth", 0))
        if info.get("depth", 0) >= 4:
            stop.set()

    with SimpleEngine.popen_uci([sys.executable, "-m", "chuhan", "engine"]) as engine:
        started = time.monotonic()
        lines = engine.analyse(Board(), Limit(time=3600), multipv=2, on_info=on_info, stop=stop)
        took = time.monotonic() - started
    assert heard[:4] == [1, 1, 2, 2] and max(heard) >= 4
    assert len(lines) == 2 and lines[0]["pv"]
    assert took < 1800  # the stop ended it: its limit was an hour
