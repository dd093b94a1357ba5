"""python-chess's game-tree API on chuhan's GameNode: board(), san(), game(), next(),
promote / demote / promote_to_main / remove_variation, and [%clk] / [%eval] comments as
pychess.org writes them (issue 27)."""

from __future__ import annotations

import copy
import io
import pickle
from typing import Any

import pytest

from chuhan import Board, Move
from chuhan.engine import PovScore, Score
from chuhan.records.game import SKIP, BaseVisitor, GameNode, GameRecord, RecordError, SkipType
from chuhan.records.pgn import read_pgn, write_pgn

PYCHESS = (
    '[Event "casual"]\n[Variant "xiangqi"]\n[Result "*"]\n\n'
    "1. Che3 {[%clk 0:05:00]} Hc8 {[%eval 0.35] [%clk 0:04:58.5]} "
    "2. Hc3 (2. Hg3 {[%eval #-3,12]}) 2... Ri9 *\n"
)


def _record() -> GameRecord:
    [record] = read_pgn(PYCHESS)
    return record


def test_node_board_and_san_follow_the_path() -> None:
    record = _record()
    first = record.root.next()
    assert first is not None and first.san() == "Che3"
    second = first.next()
    assert second is not None
    expected = Board()
    expected.push_san("Che3")
    expected.push_san("Hc8")
    assert second.board().fen() == expected.fen()
    assert second.board().move_stack == expected.move_stack
    assert second.game() is record and second.root() is record.root
    assert record.root.board().fen() == Board().fen()
    with pytest.raises(RecordError, match="root"):
        record.root.san()
    assert [node.san() for node in record.root.main_line()] == ["Che3", "Hc8", "Hc3", "Ri9"]
    assert record.root.end() is record.end() and record.end().is_end()


def test_variations_promote_and_demote() -> None:
    record = _record()
    node = record.root.next().next()  # type: ignore[union-attr]
    assert node is not None and len(node.children) == 2
    main, side = node.children
    assert main.is_mainline() and not side.is_mainline() and side.starts_variation()
    assert side.san() == "Hg3" and node.variation(1) is side
    assert node.has_variation(side.move) and node.variation(side.move) is side  # type: ignore[arg-type]
    node.promote(side)
    assert node.children == [side, main] and side.is_mainline()
    node.demote(side)
    assert node.children == [main, side]
    node.demote(side)  # already last: nothing moves
    assert node.children == [main, side]
    node.promote_to_main(side.move)  # type: ignore[arg-type]
    assert node.next() is side
    assert "2. h0g2\n{[%eval #-3,12]} ( 2. b0c2 i9i8 )" in write_pgn(record)
    node.remove_variation(main)
    assert node.children == [side] and main.parent is None
    with pytest.raises(KeyError):
        node.variation(Move.from_iccs("a0a1"))


def test_clock_and_eval_from_pychess_comments() -> None:
    record = _record()
    first = record.root.next()
    assert first is not None
    second = first.next()
    assert second is not None
    assert first.clock() == 300.0 and first.eval() is None
    assert second.clock() == 298.5
    assert second.eval() == PovScore(Score(cp=35), True)
    variation = second.children[1]
    score = variation.eval()
    assert score is not None and score.first() == Score(mate=-3)
    assert variation.eval_depth() == 12 and second.eval_depth() is None
    assert record.root.clock() is None and record.root.eval() is None


def test_set_clock_and_set_eval_rewrite_the_comment() -> None:
    node = GameNode(comment="a fine move")
    node.set_clock(3725.25)
    assert node.comment == "[%clk 1:02:05.25] a fine move" and node.clock() == 3725.25
    node.set_clock(0)
    assert node.comment == "[%clk 0:00:00] a fine move"
    node.set_eval(PovScore(Score(cp=50), False), depth=20)
    assert node.eval() == PovScore(Score(cp=-50), True) and node.eval_depth() == 20
    node.set_eval(PovScore(Score(mate=2), True))
    assert "[%eval #2]" in node.comment and node.eval_depth() is None
    node.set_eval(None)
    node.set_clock(None)
    assert node.comment == "a fine move"
    with pytest.raises(ValueError, match="-1"):
        node.set_clock(-1)


def test_the_record_survives_a_copy_and_a_pickle() -> None:
    record = _record()
    for clone in (copy.deepcopy(record), pickle.loads(pickle.dumps(record))):
        end = clone.end()
        assert end.game() is clone and end.san() == "Ri9"


def test_a_detached_node_has_no_board() -> None:
    with pytest.raises(RecordError, match="no game record"):
        GameNode().board()


class _Trace(BaseVisitor[list[str]]):
    def __init__(self, skip_variations: bool = False) -> None:
        self.events: list[str] = []
        self.skip_variations = skip_variations

    def begin_game(self) -> None:
        self.events.append("begin")

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.events.append(f"[{tagname}]")

    def visit_move(self, board: Board, move: Move) -> None:
        self.events.append(board.san(move))

    def visit_board(self, board: Board) -> None:
        self.events.append(f"@{board.ply}")

    def visit_comment(self, comment: str) -> None:
        self.events.append("{" + comment + "}")

    def visit_nag(self, nag: int) -> None:
        self.events.append(f"${nag}")

    def begin_variation(self) -> SkipType | None:
        self.events.append("(")
        return SKIP if self.skip_variations else None

    def end_variation(self) -> None:
        self.events.append(")")

    def visit_result(self, result: str) -> None:
        self.events.append(result)

    def end_game(self) -> None:
        self.events.append("end")

    def result(self) -> list[str]:
        return self.events


def test_visitor_walks_in_python_chess_order() -> None:
    [record] = read_pgn(
        '[Event "e"]\n\n{start} 1. Che3 $1 Hc8 (1... Hg8 {alt} 2. Hg3 (2. Hc3)) 2. Hc3 1-0\n'
    )
    events = record.accept(_Trace())
    assert events == [
        "begin", "[Event]", "[Result]", "{start}",
        "Che3", "@1", "$1",
        "Hc8", "@2",
        "(", "Hg8", "@2", "{alt}", "Hg3", "@3", "(", "Hc3", "@3", ")", ")",
        "Hc3", "@3",
        "1-0", "end",
    ]  # fmt: skip
    skipped = record.accept(_Trace(skip_variations=True))
    assert "Hg8" not in skipped and skipped.count("(") == skipped.count(")") == 1


def test_visitor_walks_a_long_game_without_recursion() -> None:
    board = Board()
    moves = []
    for _ in range(400):
        move = next(iter(board.legal_moves))
        if board.is_game_over():
            break
        moves.append(move)
        board.push(move)
    record = GameRecord.from_moves(moves)
    events = record.accept(_Trace())
    assert sum(1 for event in events if event.startswith("@")) == len(moves)


def test_node_accept_starts_at_the_node_and_leaves_its_siblings_out() -> None:
    [record] = read_pgn(
        '[Event "e"]\n\n{start} 1. Che3 $1 Hc8 (1... Hg8 {alt} 2. Hg3 (2. Hc3)) 2. Hc3 1-0\n'
    )
    che3 = record.root.next()
    assert che3 is not None
    assert che3.accept(_Trace()) == [
        "Che3", "@1", "$1",
        "Hc8", "@2",
        "(", "Hg8", "@2", "{alt}", "Hg3", "@3", "(", "Hc3", "@3", ")", ")",
        "Hc3", "@3",
    ]  # fmt: skip
    hg8 = che3.children[1]
    assert hg8.accept(_Trace()) == ["Hg8", "@2", "{alt}", "Hg3", "@3", "(", "Hc3", "@3", ")"]
    assert che3.accept(_Trace(skip_variations=True)).count("(") == 1
    # At the root it is the record's walk, headers and result included.
    assert record.root.accept(_Trace()) == record.accept(_Trace())


def _events(base: type[Any]) -> Any:
    """A visitor (a subclass of ``base``: chuhan's or python-chess's) that lists the moves
    (as "move"), comments and variations it is shown."""

    class Events(base):  # type: ignore[misc]
        def __init__(self) -> None:
            self.events: list[str] = []

        def visit_move(self, board: object, move: object) -> None:
            self.events.append("move")

        def visit_comment(self, comment: str) -> None:
            self.events.append(comment)

        def begin_variation(self) -> None:
            self.events.append("(")

        def end_variation(self) -> None:
            self.events.append(")")

        def result(self) -> list[str]:
            return self.events

    return Events()


def test_node_accept_matches_python_chess_node_by_node() -> None:
    """The same tree shape, with the same comments, walked from each node by chuhan and by
    python-chess (a western game): the same comments, moves and variations in the same
    order."""
    chess_pgn = pytest.importorskip("chess.pgn")
    shape = (
        "1. {} {{a}} (1. {} {{b}} {} {{c}}) 1... {} {{d}} "
        "(1... {} {{e}} 2. {} {{f}} (2. {} {{g}})) 2. {} {{h}} *"
    )
    [record] = read_pgn(shape.format("Che3", "Hc3", "Hc8", "Hc8", "Hg8", "Hg3", "Hc3", "Hc3"))
    western = shape.format("e4", "d4", "d5", "e5", "c5", "Nf3", "Nc3", "Nf3")
    game = chess_pgn.read_game(io.StringIO(western))
    pairs = [(record.root, game)]
    compared = 0
    while pairs:
        ours, theirs = pairs.pop()
        assert ours.accept(_events(BaseVisitor)) == theirs.accept(_events(chess_pgn.BaseVisitor))
        compared += 1
        pairs.extend(zip(ours.children, theirs.variations, strict=True))
    assert compared == 9
