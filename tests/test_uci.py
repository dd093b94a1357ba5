"""The UCI / UCCI front end (``chuhan engine``): every command in both dialects, both
coordinate conventions, bad input, and the threading around ``go`` / ``stop`` /
``ponderhit``. Most tests drive :class:`EngineServer` in-process with a fake searcher; a
few run the real engine as a subprocess."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from chuhan import Board, Move
from chuhan.book import Book
from chuhan.search.limits import SearchControl, SearchInfo, SearchLimits, SearchResult
from chuhan.search.uci import EngineServer, format_info, serve

START_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
MATED_FEN = "3k5/3R5/3R5/9/9/9/9/9/9/4K4 b - - 0 1"  # black is checkmated


@dataclass
class Call:
    board: Board
    limits: SearchLimits
    control: SearchControl
    multipv: int
    level: int
    banned: list[Move]
    book: bool


@dataclass
class FakeSearcher:
    """Answers with the first legal move that is not banned. ``block``: keep searching
    until stopped (a long search); ``hold``: wait out infinite/ponder searches like the
    real searcher (without it the server must hold the answer itself)."""

    hash_mb: int = 16
    block: bool = False
    hold: bool = False
    score_cp: int | None = 15
    mate: int | None = None
    fail: bool = False
    calls: list[Call] = field(default_factory=list)
    resized: list[int] = field(default_factory=list)
    new_games: int = 0
    started: threading.Event = field(default_factory=threading.Event)

    def resize(self, hash_mb: int) -> None:
        self.resized.append(hash_mb)
        self.hash_mb = hash_mb

    def new_game(self) -> None:
        self.new_games += 1

    def search(
        self,
        board: Board,
        limits: SearchLimits,
        *,
        control: SearchControl | None = None,
        multipv: int = 1,
        level: int = 8,
        banned: Collection[Move] = (),
        on_info: Callable[[SearchInfo], None] | None = None,
        book: bool = False,
    ) -> SearchResult:
        assert control is not None
        self.calls.append(Call(board.copy(), limits, control, multipv, level, list(banned), book))
        self.started.set()
        if self.fail:
            raise RuntimeError("boom")
        moves = [m for m in board.legal_moves if m not in set(banned)]
        if not moves:
            return SearchResult(None)
        while not control.stopped and (
            self.block or (self.hold and (limits.infinite or control.pondering))
        ):
            time.sleep(0.002)
        board.push(moves[0])
        reply = next(iter(board.legal_moves), None)
        pv = [moves[0]] + ([reply] if reply is not None else [])
        info = SearchInfo(
            depth=3,
            seldepth=5,
            nodes=1200,
            time_ms=40,
            pv=pv,
            score_cp=self.score_cp,
            mate=self.mate,
            hashfull=7,
        )
        if on_info is not None:
            on_info(info)
        return SearchResult(moves[0], reply, [info])


def _real_session(*lines: str) -> list[str]:
    """What a server with chuhan's own searcher answers ``lines`` (a search waited for)."""
    out: list[str] = []
    server = EngineServer(out.append, version="9.9")
    for line in lines:
        server.handle(line)
    assert server.wait(60)
    return out


class Session:
    """A server with a fake searcher, recording what it writes."""

    def __init__(self, **fake: object) -> None:
        self.out: list[str] = []
        self.fake = FakeSearcher(**fake)  # type: ignore[arg-type]
        self.server = EngineServer(self.out.append, searcher_factory=self._make, version="9.9")

    def _make(self, hash_mb: int) -> FakeSearcher:
        self.fake.hash_mb = hash_mb
        return self.fake

    def send(self, *lines: str) -> list[str]:
        """Send lines; return what the server wrote in answer (not waiting for searches)."""
        before = len(self.out)
        for line in lines:
            self.server.handle(line)
        return self.out[before:]

    def finish(self) -> list[str]:
        """Wait for a running search to answer; return everything written so far."""
        assert self.server.wait(5)
        return self.out

    def go(self, *lines: str) -> list[str]:
        before = len(self.out)
        self.send(*lines)
        self.finish()
        return self.out[before:]

    def bestmoves(self) -> list[str]:
        return [line for line in self.out if line.startswith(("bestmove", "nobestmove"))]

    def errors(self) -> list[str]:
        return [line for line in self.out if line.startswith("info string error:")]


# ---------------------------------------------------------------------------- handshake


def test_uci_handshake_lists_the_options() -> None:
    out = Session().send("uci")
    assert out[0] == "id name chuhan 9.9"
    assert out[1] == "id author The chuhan developers"
    assert out[-1] == "uciok"
    options = {line.split(" type ")[0].removeprefix("option name "): line for line in out[2:-1]}
    assert set(options) == {
        "UCI_Variant",
        "Rules",
        "Hash",
        "MultiPV",
        "Skill Level",
        "OwnBook",
        "UCI_Coordinates",
        "Ponder",
        "Move Overhead",
    }
    assert options["UCI_Variant"].endswith("type combo default xiangqi var xiangqi var janggi")
    assert options["Hash"] == "option name Hash type spin default 64 min 1 max 4096"
    assert options["Skill Level"] == "option name Skill Level type spin default 8 min 1 max 8"
    assert options["Ponder"] == "option name Ponder type check default false"
    assert options["OwnBook"] == "option name OwnBook type check default true"
    assert options["Move Overhead"].endswith("type spin default 30 min 0 max 5000")
    for rules in ("asian", "chinese", "official", "traditional", "modern", "classic"):
        assert f"var {rules}" in options["Rules"]
    assert "default auto var auto var ranks-0-9 var ranks-1-10" in options["UCI_Coordinates"]


def test_ucci_handshake() -> None:
    out = Session().send("ucci")
    assert out[0] == "id name chuhan 9.9"
    assert out[-1] == "ucciok"
    assert "option hashsize type spin min 1 max 4096 default 64" in out
    assert "option usemillisec type check default false" in out
    assert "option newgame type button" in out
    assert not any("option name" in line for line in out)


def test_isready_creates_the_searcher_with_the_hash_size() -> None:
    session = Session()
    assert session.send("setoption name Hash value 128", "isready") == ["readyok"]
    assert session.fake.hash_mb == 128
    assert session.send("setoption name Hash value 32") == []
    assert session.fake.resized == [32]


def test_isready_answers_while_searching() -> None:
    session = Session(block=True)
    session.send("go infinite")
    assert session.fake.started.wait(5)
    assert session.send("isready") == ["readyok"]
    assert session.server.searching
    assert session.bestmoves() == []
    session.send("stop")
    session.finish()
    assert session.bestmoves() == ["bestmove a0a1 ponder a6a5"]


def test_isready_still_answers_when_the_searcher_cannot_start() -> None:
    def broken(hash_mb: int) -> FakeSearcher:
        raise MemoryError("no room")

    out: list[str] = []
    server = EngineServer(out.append, searcher_factory=broken)
    server.handle("isready")
    assert out[-1] == "readyok"
    assert out[0].startswith("info string error: the searcher could not start: MemoryError")
    # A go still gets its bestmove, any legal move.
    server.handle("go depth 3")
    assert server.wait(5)
    assert out[-1].startswith("bestmove ")


# ---------------------------------------------------------------------------- options


def test_setoption_values_reach_the_search() -> None:
    session = Session()
    session.send("setoption name MultiPV value 3", "setoption name Skill Level value 4")
    session.go("go depth 2")
    call = session.fake.calls[-1]
    assert (call.multipv, call.level) == (3, 4)
    assert call.limits.depth == 2
    assert session.errors() == []


def test_setoption_ownbook_false_turns_the_book_off() -> None:
    session = Session()
    session.send("setoption name OwnBook value false")
    session.go("go movetime 50")
    assert not session.fake.calls[-1].book
    session.send("setoption name OwnBook value true")
    session.go("go movetime 50")
    assert session.fake.calls[-1].book
    for analysis in ("go depth 2", "go nodes 500", "go mate 2"):
        session.go(analysis)
        assert not session.fake.calls[-1].book, analysis
    session.send("setoption name MultiPV value 2")
    session.go("go movetime 50")
    assert not session.fake.calls[-1].book
    assert session.errors() == []


def test_the_real_engine_answers_a_book_move_unless_ownbook_is_off() -> None:
    """The start position is in the book: with OwnBook the engine answers one of its
    moves at once (no search, so no info line); without it, it searches."""
    book_moves = {move.iccs() for move, _ in Book.load().entries(Board().zobrist_hash())}
    out = _real_session("position startpos", "go wtime 60000 btime 60000")
    assert not any(line.startswith("info depth") for line in out)
    assert out[-1].split()[1] in book_moves
    off = "setoption name OwnBook value false"
    out = _real_session(off, "position startpos", "go wtime 60000 btime 60000")
    assert any(line.startswith("info depth") for line in out)


def test_setoption_is_validated() -> None:
    session = Session()
    cases = {
        "setoption name Hash value lots": "invalid value 'lots' for option Hash",
        "setoption name Hash value 0": "invalid value '0' for option Hash: out of range 1-4096",
        "setoption name Skill Level value 9": "option Skill Level: out of range 1-8",
        "setoption name UCI_Variant value shogi": "expected one of xiangqi, janggi",
        "setoption name Ponder value maybe": "expected true or false",
        "setoption name Contempt value 10": "unknown option 'Contempt'",
        "setoption name MultiPV": "option MultiPV needs a value",
        "setoption": "invalid 'setoption'",
    }
    for line, message in cases.items():
        out = session.send(line)
        assert len(out) == 1 and out[0].startswith("info string error: "), line
        assert message in out[0], (line, out)
    assert session.server.values["Hash"] == "64"
    assert session.server.values["Skill Level"] == "8"


def test_setoption_names_and_values_are_case_insensitive_and_ucci_style_works() -> None:
    session = Session()
    session.send("setoption name uci_variant value JANGGI", "setoption hashsize 48")
    assert session.server.values["UCI_Variant"] == "janggi"
    assert session.server.values["Hash"] == "48"
    session.send("setoption name Ponder value True")
    assert session.server.values["Ponder"] == "true"
    assert session.errors() == []


def test_rules_option_selects_the_rule_set_and_warns_on_a_mismatch() -> None:
    session = Session()
    session.send("setoption name UCI_Variant value janggi", "setoption name Rules value modern")
    session.go("position startpos", "go depth 1")
    assert session.fake.calls[-1].board.variant.name == "janggi:modern"
    out = session.send("setoption name UCI_Variant value xiangqi", "position startpos")
    assert out == [
        "info string the position is now the xiangqi start position",
        "info string warning: option Rules 'modern' is not a xiangqi rule set "
        "(asian, chinese); using xiangqi:asian",
    ]
    session.go("go depth 1")
    assert session.fake.calls[-1].board.variant.name == "xiangqi:asian"
    session.send("setoption name Rules value chinese")
    session.go("go depth 1")
    assert session.fake.calls[-1].board.variant.name == "xiangqi:chinese"


# ---------------------------------------------------------------------------- position


def test_position_startpos_with_moves() -> None:
    session = Session()
    assert session.send("position startpos moves h2e2 h9g7") == []
    session.go("go depth 1")
    board = session.fake.calls[-1].board
    assert [str(m) for m in board.move_stack] == ["h2e2", "h9g7"]
    assert session.bestmoves() == ["bestmove a0a1 ponder a6a5"]


def test_position_fen_with_moves() -> None:
    session = Session()
    session.send(f"position fen {START_FEN} moves b2e2")
    session.go("go depth 1")
    board = session.fake.calls[-1].board
    assert board.root().fen() == START_FEN
    assert not board.turn


def test_without_a_position_go_searches_the_start() -> None:
    session = Session()
    session.go("go depth 1")
    assert session.fake.calls[-1].board.fen() == START_FEN


def test_an_illegal_move_is_reported_and_the_previous_position_kept() -> None:
    session = Session()
    session.send("position startpos moves h2e2")
    out = session.send("position startpos moves h2e2 h9g7 h0h9 b9c7")
    assert len(out) == 1
    expected = (
        "info string error: illegal move h0h9 at ply 3 in "
        "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2 "
        "(xiangqi:asian): "
    )
    assert out[0].startswith(expected), out
    assert out[0].endswith("; the position is unchanged")
    session.go("go depth 1")
    assert [str(m) for m in session.fake.calls[-1].board.move_stack] == ["h2e2"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("position", "invalid 'position': expected 'startpos' or 'fen <FEN>'"),
        ("position somewhere", "invalid 'position' 'somewhere'"),
        ("position fen", "invalid 'position' 'fen'"),
        ("position fen rnbakabnr/9/9 w", "invalid 'position': "),
        ("position startpos moves h2e2 x9", "invalid move 'x9' at ply 2 (ranks-0-9"),
        ("position startpos moves h2e2 h10h9", "invalid move 'h10h9' at ply 2"),
    ],
)
def test_malformed_positions_are_reported(line: str, message: str) -> None:
    session = Session()
    session.send("position startpos moves c3c4")
    out = session.send(line)
    assert len(out) == 1 and out[0].startswith("info string error: " + message), out
    session.go("go depth 1")
    assert [str(m) for m in session.fake.calls[-1].board.move_stack] == ["c3c4"]


def test_janggi_defaults_to_fairy_stockfish_coordinates() -> None:
    session = Session()
    session.send("setoption name UCI_Variant value janggi")
    # ICCS b0c2 is b1c3 here; e2e2 is Cho's king (e1 in ICCS) passing.
    assert session.send("position startpos moves b1c3 b10c8 e2e2") == []
    session.go("go depth 1")
    board = session.fake.calls[-1].board
    assert [str(m) for m in board.move_stack] == ["b0c2", "b9c7", "e1e1"]
    assert session.bestmoves() == ["bestmove a7a6 ponder a1b1"]
    # The same move in ICCS is refused in this convention.
    out = session.send("position startpos moves b0c2")
    assert "invalid move 'b0c2' at ply 1 (ranks-1-10 coordinates)" in out[0]


def test_janggi_pass_as_0000() -> None:
    session = Session()
    session.send("setoption name UCI_Variant value janggi", "position startpos moves 0000 0000")
    session.go("go depth 1")
    board = session.fake.calls[-1].board
    assert [str(m) for m in board.move_stack] == ["e1e1", "e8e8"]
    # Two passes end the game: no legal move.
    assert session.bestmoves() == ["bestmove (none)"]
    # A pass is illegal in xiangqi.
    session.send("setoption name UCI_Variant value xiangqi")
    out = session.send("position startpos moves 0000")
    assert out[0].startswith("info string error: illegal move 0000 at ply 1"), out


def test_coordinates_can_be_set_explicitly() -> None:
    session = Session()
    session.send("setoption name UCI_Coordinates value ranks-1-10")
    session.send("position startpos moves h3e3")
    session.go("go depth 1")
    assert str(session.fake.calls[-1].board.peek()) == "h2e2"
    assert session.bestmoves() == ["bestmove a7a6 ponder a1a2"]
    session.send(
        "setoption name UCI_Variant value janggi",
        "setoption name UCI_Coordinates value ranks-0-9",
        "position startpos moves b0c2",
    )
    session.go("go depth 1")
    assert str(session.fake.calls[-1].board.peek()) == "b0c2"
    assert session.bestmoves()[-1] == "bestmove a6a5 ponder a0b0"


# ---------------------------------------------------------------------------- go


def test_go_parameters_become_limits() -> None:
    session = Session()
    session.go(
        "go wtime 60000 btime 50000 winc 1000 binc 900 movestogo 20 depth 9 nodes 5000 "
        "movetime 3000 mate 4 byoyomi 30000 wperiods 3 bperiods 2"
    )
    limits = session.fake.calls[-1].limits
    assert limits == SearchLimits(
        depth=9,
        nodes=5000,
        movetime=3000,
        mate=4,
        wtime=60000,
        btime=50000,
        winc=1000,
        binc=900,
        movestogo=20,
        byoyomi=30000,
        wperiods=3,
        bperiods=2,
        move_overhead=30,
    )
    assert session.errors() == []
    session.send("setoption name Move Overhead value 250")
    session.go("go movetime 1000")
    assert session.fake.calls[-1].limits == SearchLimits(movetime=1000, move_overhead=250)


def test_searchmoves_bans_every_other_move() -> None:
    session = Session()
    session.go("go searchmoves h2e2 b0c2 depth 3")
    call = session.fake.calls[-1]
    assert call.limits.depth == 3
    assert len(call.banned) == 44 - 2
    assert Move.from_iccs("h2e2") not in call.banned
    assert session.bestmoves() == ["bestmove b0c2 ponder a6a5"]


def test_unknown_go_words_and_illegal_searchmoves_are_reported_and_skipped() -> None:
    session = Session()
    out = session.go("go wtime 1000 frobnicate searchmoves h2h8 zz")
    errors = [line for line in out if line.startswith("info string error:")]
    assert errors == [
        "info string error: go: unknown parameter 'frobnicate'; ignored",
        "info string error: go searchmoves: illegal move h2h8 in "
        + START_FEN
        + ": the cannon on h2 cannot move to h8; move ignored",
        "info string error: go searchmoves: invalid ICCS move 'zz': expected four characters "
        "like 'h2e2' (file a-i, rank 0-9, twice); move ignored",
    ]
    assert session.fake.calls[-1].limits == SearchLimits(wtime=1000, move_overhead=30)
    assert session.fake.calls[-1].banned == []
    assert session.bestmoves() == ["bestmove a0a1 ponder a6a5"]


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("go movetime abc", "invalid movetime 'abc': expected a whole number"),
        ("go depth many wtime 1000", "invalid depth 'many': expected a whole number"),
        ("go nodes -5", "invalid nodes '-5': must not be negative"),
        ("go mate -1", "invalid mate '-1': must not be negative"),
        ("go movetime 1e3", "invalid movetime '1e3': expected a whole number"),
        ("go movetime 99999999999999", "invalid movetime '99999999999999': out of range"),
        ("go wtime 1000 movetime", "'movetime' needs a whole number"),
    ],
)
def test_a_go_with_a_malformed_value_is_refused_and_answered(command: str, message: str) -> None:
    # Searching without the limit that was meant could think for ever or past the clock;
    # a GUI waiting for its bestmove still gets one at once.
    session = Session()
    out = session.send(command)
    assert out == [f"info string error: go refused: {message}; not searching", "bestmove (none)"]
    assert session.fake.calls == [] and not session.server.searching


def test_a_refused_ucci_go_is_answered_with_nobestmove() -> None:
    session = Session()
    session.send("ucci")
    out = session.send("go time 1e308")
    assert out == [
        "info string error: go refused: invalid time '1e308': out of range; not searching",
        "nobestmove",
    ]


def test_zero_values_are_no_limit_rather_than_an_error() -> None:
    session = Session()
    session.go("go wtime 1000 btime 1000 movestogo 0 depth 0")
    assert session.errors() == []
    assert session.fake.calls[-1].limits.movestogo == 0
    assert len(session.bestmoves()) == 1


def test_a_refused_go_during_a_search_answers_both() -> None:
    session = Session(block=True)
    session.send("go infinite")
    assert session.fake.started.wait(5)
    session.fake.block = False
    out = session.send("go movetime x")
    assert session.server.wait(5)
    refusal = "go refused: invalid movetime 'x': expected a whole number; not searching"
    assert [line for line in out if not line.startswith("info depth")] == [
        "info string 'go' stops the running search first",
        "bestmove a0a1 ponder a6a5",
        f"info string error: {refusal}",
        "bestmove (none)",
    ]
    assert not session.server.searching


def test_go_while_searching_stops_the_running_search_first() -> None:
    # A GUI may send "stop" and the next "go" back to back, or no "stop" at all: each go
    # still gets its bestmove, and none is left waiting.
    session = Session(block=True)
    session.send("go infinite")
    assert session.fake.started.wait(5)
    out = session.send("position startpos moves h2e2", "go infinite")
    assert [line for line in out if not line.startswith("info depth")] == [
        "info string 'go' stops the running search first",
        "bestmove a0a1 ponder a6a5",
    ]
    assert session.fake.calls[-1].board.move_stack == [Move.from_iccs("h2e2")]
    session.fake.block = False
    out = session.send("stop", "go depth 1")  # stopped already: no notice, just wait
    assert session.server.wait(5)
    assert not any(line.startswith("info string") for line in out)
    session.fake.block = True
    session.fake.started.clear()
    session.send("go infinite")
    assert session.fake.started.wait(5)
    out = session.send("ucinewgame", "go infinite", "setoption name Hash value 8", "stop")
    session.finish()
    notices = [line for line in out if line.startswith("info string")]
    assert notices == [
        "info string 'ucinewgame' stops the running search first",
        "info string 'setoption name Hash' stops the running search first",
    ]
    assert session.fake.new_games == 1 and session.fake.resized == [8]
    assert len(session.bestmoves()) == len(session.fake.calls) == 5
    assert session.errors() == []


def test_info_lines_uci() -> None:
    session = Session()
    out = session.go("go depth 3")
    assert out == [
        "info depth 3 seldepth 5 multipv 1 score cp 15 nodes 1200 nps 30000 time 40 "
        "hashfull 7 pv a0a1 a6a5",
        "bestmove a0a1 ponder a6a5",
    ]
    session = Session(score_cp=None, mate=-3)
    first = session.go("go depth 3")[0]
    assert first.startswith("info depth 3 seldepth 5 multipv 1 score mate -3 ")


def test_format_info_in_both_dialects() -> None:
    info = SearchInfo(
        depth=7,
        seldepth=12,
        nodes=5000,
        time_ms=0,
        pv=[Move.from_iccs("h2e2")],
        multipv=2,
        score_cp=-33,
    )
    assert format_info(info, "uci", Move.iccs) == (
        "info depth 7 seldepth 12 multipv 2 score cp -33 nodes 5000 nps 0 time 0 hashfull 0 pv h2e2"
    )
    assert format_info(info, "uci", Move.fsf).endswith("pv h3e3")
    assert format_info(info, "ucci", Move.iccs) == (
        "info depth 7 score -33 time 0 nodes 5000 pv h2e2"
    )
    info.pv = []
    assert not format_info(info, "uci", Move.iccs).endswith("pv ")
    info.score_cp, info.mate = None, 2
    assert "score 9997 " in format_info(info, "ucci", Move.iccs)
    info.mate = -2
    assert "score -9996 " in format_info(info, "ucci", Move.iccs)


def test_no_legal_move_gives_bestmove_none() -> None:
    session = Session()
    session.send(f"position fen {MATED_FEN}")
    assert session.go("go depth 2")[-1] == "bestmove (none)"
    session = Session()
    session.send("ucci", f"position fen {MATED_FEN}")
    assert session.go("go depth 2")[-1] == "nobestmove"


FORCED_PASS_FEN = "5k3/9/9/9/4r4/9/9/9/r8/3K5 w - - 0 1"  # janggi: Cho can only pass


def real_engine(*lines: str) -> tuple[EngineServer, list[str]]:
    """The server with chuhan's own searcher, after ``lines`` and ``isready`` (which
    creates the searcher, so a ``go`` after it is timed without the import)."""
    out: list[str] = []
    server = EngineServer(out.append, version="9.9")
    for line in (*lines, "isready"):
        server.handle(line)
    return server, out


def test_a_forced_move_is_played_at_once_on_the_clock() -> None:
    server, out = real_engine(
        "uci", "setoption name UCI_Variant value janggi", f"position fen {FORCED_PASS_FEN}"
    )
    server.handle("go wtime 600000 btime 600000")  # a budget of many seconds a move
    assert server.wait(120)  # a bound on a hang only
    assert out[-1].split()[:2] == ["bestmove", "d1d1"]
    # At once: one ply searched, though the clock would have paid for many.
    assert [line.split()[2] for line in out if line.startswith("info depth")] == ["1"]


def test_a_forced_move_is_still_analysed_to_the_depth_asked() -> None:
    server, out = real_engine(
        "uci", "setoption name UCI_Variant value janggi", f"position fen {FORCED_PASS_FEN}"
    )
    server.handle("go depth 3")
    assert server.wait(10)
    assert out[-1].split()[:2] == ["bestmove", "d1d1"]
    assert [line.split()[2] for line in out if line.startswith("info depth")] == ["1", "2", "3"]


def test_a_failing_search_still_answers() -> None:
    session = Session(fail=True)
    out = session.go("go depth 2")
    assert out == ["info string error: search failed: RuntimeError: boom", "bestmove a0a1"]


# ---------------------------------------------------------------------------- stop, ponder


@pytest.mark.parametrize("hold", [False, True])
def test_infinite_waits_for_stop(hold: bool) -> None:
    session = Session(hold=hold)
    session.send("go infinite")
    assert session.fake.started.wait(5)
    time.sleep(0.05)
    assert session.bestmoves() == []  # the search is over, but the answer waits
    assert session.server.searching
    session.send("stop")
    session.finish()
    assert session.bestmoves() == ["bestmove a0a1 ponder a6a5"]
    session.send("stop")  # a stop with nothing running is harmless
    assert session.bestmoves() == ["bestmove a0a1 ponder a6a5"]
    assert session.errors() == []


@pytest.mark.parametrize("hold", [False, True])
def test_ponder_then_ponderhit(hold: bool) -> None:
    session = Session(hold=hold)
    session.send("setoption name Ponder value true", "position startpos moves h2e2 h9g7")
    session.send("go ponder wtime 10000 btime 10000")
    assert session.fake.started.wait(5)
    call = session.fake.calls[-1]
    assert call.limits.ponder and call.control.pondering
    time.sleep(0.05)
    assert session.bestmoves() == []
    before = call.control.started
    session.send("ponderhit")
    session.finish()
    assert not call.control.pondering and call.control.started > before
    assert session.bestmoves() == ["bestmove a0a1 ponder a6a5"]


def test_an_option_changed_during_a_search_does_not_change_its_answer() -> None:
    session = Session(block=True)
    session.send("go infinite")
    assert session.fake.started.wait(5)
    session.send("setoption name UCI_Coordinates value ranks-1-10", "stop")
    session.finish()
    assert session.bestmoves() == ["bestmove a0a1 ponder a6a5"]
    session.fake.block = False
    session.go("go depth 1")
    assert session.bestmoves()[-1] == "bestmove a1a2 ponder a7a6"


def test_ponder_then_stop() -> None:
    session = Session(hold=True)
    session.send("go ponder")
    assert session.fake.started.wait(5)
    session.send("stop")
    session.finish()
    assert session.bestmoves() == ["bestmove a0a1 ponder a6a5"]
    session.send("ponderhit")  # late: nothing to do
    assert len(session.bestmoves()) == 1


def test_bestmove_exactly_once_per_go() -> None:
    session = Session()
    for _ in range(3):
        session.go("go depth 2")
        session.send("stop")
    session.send("go infinite")
    session.send("stop", "stop")
    session.finish()
    assert session.bestmoves() == ["bestmove a0a1 ponder a6a5"] * 4


def test_go_right_after_bestmove_is_accepted() -> None:
    # A GUI sends the next "go" as soon as it reads "bestmove", while the search thread
    # may still be ending: that go must run, not be refused as "already searching".
    out: list[str] = []
    answered = threading.Event()

    def write(line: str) -> None:
        out.append(line)
        if line.startswith("bestmove") and not answered.is_set():
            answered.set()
            time.sleep(0.2)  # keep the first search thread alive a little longer

    server = EngineServer(write, searcher_factory=lambda mb: FakeSearcher())
    server.handle("go depth 1")
    assert answered.wait(5)
    server.handle("go depth 1")
    assert server.wait(5)
    assert [line for line in out if not line.startswith("info depth")] == [
        "bestmove a0a1 ponder a6a5"
    ] * 2


# ---------------------------------------------------------------------------- the rest


def test_quit_stops_the_search() -> None:
    session = Session(block=True)
    session.send("go infinite")
    assert session.fake.started.wait(5)
    assert session.server.handle("quit") is False
    assert not session.server.searching
    assert session.bestmoves() == ["bestmove a0a1 ponder a6a5"]


def test_ucinewgame_clears_the_searcher_and_the_position() -> None:
    session = Session()
    session.send("position startpos moves h2e2", "ucinewgame")
    assert session.fake.new_games == 1
    session.go("go depth 1")
    assert session.fake.calls[-1].board.move_stack == []
    session.send("ucci", "setoption newgame")
    assert session.fake.new_games == 2


def test_unknown_and_malformed_commands() -> None:
    session = Session()
    assert session.send("", "   ") == []
    assert session.send("hello there") == ["info string error: unknown command 'hello there'"]
    assert session.send("debug on") == []
    assert session.server.debug
    assert session.send("debug sideways") == [
        "info string error: invalid 'debug sideways': expected 'debug on|off'"
    ]
    assert session.server.handle("isready") is True


def test_debug_reports_the_time_budget() -> None:
    session = Session()
    session.send("debug on")
    out = session.go("go movetime 1000")
    assert out[0] == (
        f"info string debug: xiangqi:asian {START_FEN}; budget soft 970 ms, hard 970 ms"
    )
    session.send("debug off")
    assert not session.go("go depth 1")[0].startswith("info string")


def test_serve_survives_undecodable_input_and_unencodable_output() -> None:
    stdin = io.TextIOWrapper(
        io.BytesIO(b"\xff\xfe\nposition \xe6\xa3\x8b\nisready\n"), encoding="utf-8"
    )
    raw = io.BytesIO()
    stdout = io.TextIOWrapper(raw, encoding="ascii")
    assert serve(stdin, stdout, searcher_factory=lambda mb: FakeSearcher()) == 0
    lines = raw.getvalue().decode("ascii").splitlines()
    assert lines == [
        "info string error: unknown command '\\ufffd\\ufffd'",
        "info string error: invalid 'position' '\\u68cb': expected 'startpos' or 'fen <FEN>', "
        "then optionally 'moves ...'; the position is unchanged",
        "readyok",
    ]


def test_ucci_session() -> None:
    session = Session()
    session.send("ucci", "position startpos moves h2e2", "banmoves h9g7 b9c7")
    session.go("go time 60 increment 2 opptime 50 oppincrement 1 movestogo 30")
    call = session.fake.calls[-1]
    # Black to move: "time" is black's clock; UCCI times are seconds by default.
    assert (call.limits.btime, call.limits.binc) == (60_000, 2_000)
    assert (call.limits.wtime, call.limits.winc) == (50_000, 1_000)
    assert call.limits.movestogo == 30
    assert call.banned == [Move.from_iccs("h9g7"), Move.from_iccs("b9c7")]
    assert session.bestmoves() == ["bestmove a6a5 ponder a0a1"]
    # usemillisec: milliseconds.
    session.send("setoption usemillisec true", "position startpos")
    session.go("go time 1500 increment 20 depth 4")
    call = session.fake.calls[-1]
    assert (call.limits.wtime, call.limits.winc, call.limits.depth) == (1500, 20, 4)
    assert call.banned == []  # a new position clears the ban list
    session.send("go depth infinite")
    session.send("stop")
    session.finish()
    assert session.fake.calls[-1].limits.infinite
    assert session.server.handle("quit") is False
    assert session.out[-1] == "bye"
    assert session.errors() == []


def test_illegal_banmoves_are_reported_and_skipped() -> None:
    session = Session()
    out = session.send("ucci", "position startpos moves h2e2", "banmoves h9g7 h0g2 zz")
    errors = [line for line in out if line.startswith("info string error:")]
    assert errors[0] == (
        "info string error: banmoves: illegal move h0g2 in "
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1: "
        "the piece on h0 belongs to the side not to move; move ignored"
    )
    assert errors[1].startswith("info string error: banmoves: invalid ICCS move 'zz'")
    session.go("go depth 2")
    assert session.fake.calls[-1].banned == [Move.from_iccs("h9g7")]


def test_changing_the_rules_keeps_the_position_and_changing_the_game_says_so() -> None:
    session = Session()
    session.send("uci", "setoption name UCI_Variant value janggi")
    session.send("position startpos moves b1c3 b10c8")
    out = session.send("setoption name Rules value traditional")
    assert out == ["info string the position is now played under janggi:traditional"]
    session.go("go depth 1")
    call = session.fake.calls[-1]
    assert call.board.variant.name == "janggi:traditional" and call.board.ply == 2
    out = session.send("setoption name UCI_Variant value xiangqi")
    assert out == ["info string the position is now the xiangqi start position"]
    session.go("go depth 1")
    assert session.fake.calls[-1].board.fen() == START_FEN
    assert session.errors() == []


def test_a_rules_change_replays_the_moves_whatever_the_coordinates_now() -> None:
    session = Session()
    session.send("uci", "setoption name UCI_Variant value janggi")  # ranks 1-10
    session.send("position startpos moves e2e3 e9e8")
    session.send("setoption name UCI_Coordinates value ranks-0-9")
    out = session.send("setoption name Rules value modern")
    assert out == ["info string the position is now played under janggi:modern"]
    session.go("go depth 1")
    played = [m.iccs() for m in session.fake.calls[-1].board.move_stack]
    assert played == ["e1e2", "e8e7"]


def test_janggi_errors_name_squares_as_the_gui_does() -> None:
    session = Session()
    session.send("uci", "setoption name UCI_Variant value janggi")  # ranks 1-10
    out = session.send("position startpos moves b1c3 b10c8 a1a9")
    assert out[0].endswith("the chariot on a1 cannot move to a9; the position is unchanged")


def test_ucci_draw_offer() -> None:
    session = Session(score_cp=-450)
    session.send("ucci")
    session.go("go draw depth 3")
    assert session.bestmoves() == ["bestmove a0a1 ponder a6a5 draw"]
    session = Session(score_cp=40)
    session.send("ucci")
    session.go("go draw depth 3")
    assert session.bestmoves() == ["bestmove a0a1 ponder a6a5"]


def test_ucci_ponderhit_draw() -> None:
    session = Session(score_cp=-450, hold=True)
    session.send("ucci", "go ponder time 10 opptime 10")
    assert session.fake.started.wait(5)
    session.send("ponderhit draw")
    session.finish()
    assert session.bestmoves() == ["bestmove a0a1 ponder a6a5 draw"]


def test_ucci_probe() -> None:
    session = Session()
    session.send("ucci")
    assert session.send("probe") == ["pophash"]
    assert session.send("probe startpos moves h2e2") == ["pophash"]
    assert session.send("probe startpos moves h2h8")[0].startswith(
        "info string error: illegal move h2h8 at ply 1"
    )

    def probe(board: Board) -> tuple[Move | None, int, int | None, int | None] | None:
        return (Move.from_iccs("h9g7"), 6, 25, None) if board.ply == 1 else None

    session.fake.probe = probe  # type: ignore[attr-defined]
    assert session.send("probe startpos moves h2e2") == [
        "pophash bestmove h9g7 lowerbound 25 depth 6"
    ]
    assert session.send("probe startpos") == ["pophash"]


def test_run_reads_a_stream_and_eof_stops_the_search() -> None:
    out: list[str] = []
    fake = FakeSearcher(block=True)
    server = EngineServer(out.append, searcher_factory=lambda mb: fake)
    server.run(io.StringIO("uci\nisready\nposition startpos\ngo infinite\n"))
    assert "uciok" in out and "readyok" in out
    assert out[-1] == "bestmove a0a1 ponder a6a5"
    assert not server.searching


# ---------------------------------------------------------------------------- subprocess


class EngineProcess:
    """``python -m chuhan.cli engine`` as a subprocess, driven line by line."""

    def __init__(self) -> None:
        src = Path(__file__).resolve().parents[1] / "src"
        path = os.pathsep.join(p for p in (str(src), os.environ.get("PYTHONPATH")) if p)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "chuhan.cli", "engine"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ, PYTHONPATH=path),
        )

    def send(self, *lines: str) -> None:
        assert self.proc.stdin is not None
        for line in lines:
            self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read_until(self, prefix: str) -> list[str]:
        assert self.proc.stdout is not None
        lines: list[str] = []
        while True:
            line = self.proc.stdout.readline()
            assert line, f"the engine closed its output before {prefix!r}: {lines}"
            lines.append(line.rstrip("\n"))
            if line.startswith(prefix):
                return lines

    def close(self) -> tuple[int, str, str]:
        """Close stdin (EOF) and return the exit code, the rest of stdout, and stderr."""
        try:
            out, err = self.proc.communicate(timeout=20)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode, out, err


def test_subprocess_uci_depth_search() -> None:
    engine = EngineProcess()
    engine.send("uci")
    assert engine.read_until("uciok")[0] == f"id name chuhan {chuhan_version()}"
    # The book off: this is the search's test (the book's: below the handshake tests).
    engine.send("setoption name OwnBook value false")
    engine.send("isready", "position startpos moves h2e2", "go depth 2")
    lines = engine.read_until("bestmove")
    assert lines[0] == "readyok"
    assert [line.split()[2] for line in lines if line.startswith("info depth")] == ["1", "2"]
    board = Board()
    board.push_iccs("h2e2")
    assert board.is_legal(Move.from_iccs(lines[-1].split()[1]))
    code, rest, err = engine.close()  # EOF is quit
    assert (code, rest, err) == (0, "", "")


def test_subprocess_janggi_movetime_and_bad_input() -> None:
    engine = EngineProcess()
    engine.send("uci", "setoption name UCI_Variant value janggi")
    engine.send("position startpos moves b1c3 xx", "gibberish", "isready")
    lines = engine.read_until("readyok")
    assert lines[-3].startswith("info string error: invalid move 'xx' at ply 2")
    assert lines[-2] == "info string error: unknown command 'gibberish'"
    engine.send("position startpos moves b1c3")
    engine.send("go movetime 200")
    lines = engine.read_until("bestmove")  # only the move time ends a search without stop
    assert any(line.startswith("info depth ") for line in lines)
    move = Move.from_fsf(lines[-1].split()[1])  # ranks 1-10 for janggi
    board = Board(variant="janggi")
    board.push_fsf("b1c3")
    assert board.is_legal(move)
    engine.send("quit")
    code, rest, err = engine.close()
    assert (code, rest, err) == (0, "", "")


def test_subprocess_ucci_ponder_stop_and_bye() -> None:
    engine = EngineProcess()
    engine.send("ucci")
    engine.read_until("ucciok")
    engine.send("position startpos moves h2e2 h9g7", "go ponder time 5 opptime 5", "isready")
    assert engine.read_until("readyok")[-1] == "readyok"
    engine.send("ponderhit")
    lines = engine.read_until("bestmove")
    assert not any(line.startswith("info string") for line in lines)
    engine.send("go depth infinite", "isready")
    engine.read_until("readyok")
    engine.send("stop", "quit")
    code, rest, err = engine.close()
    assert code == 0 and err == ""
    assert [line.split()[0] for line in rest.splitlines()[-2:]] == ["bestmove", "bye"]


def chuhan_version() -> str:
    from chuhan import __version__

    return __version__
