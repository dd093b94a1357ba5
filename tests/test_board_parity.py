"""The python-chess names on the board: outcome / result / is_game_over / is_repetition,
parse_san / push_san, piece_at -> Piece, pieces / piece_map, checkers, board editing, mirror,
attackers / attacks and SquareSet (issue 27)."""

from __future__ import annotations

import pytest

import chuhan
from chuhan import BLACK, RED, ROOK, Board, Outcome, Piece, SquareSet, Termination, parse_square
from chuhan.game import Game

MATED = "3k5/3R5/3R5/9/9/9/9/9/9/4K4 b - - 0 1"


def test_outcome_agrees_with_the_referee_of_game() -> None:
    board = Board(MATED)
    outcome = board.outcome()
    assert isinstance(outcome, Outcome)
    assert outcome.termination is Termination.CHECKMATE
    assert outcome == Game.new(fen=MATED).outcome()
    assert board.is_game_over()
    assert board.result() == "1-0"
    fresh = Board()
    assert fresh.outcome() is None and not fresh.is_game_over() and fresh.result() == "*"


def test_outcome_by_repetition_matches_the_game() -> None:
    game = Game.new()
    board = Board()
    for _ in range(3):
        for san in ("Ra2", "Ra9", "Ra1", "Ra10"):
            move = board.push_san(san)
            if game.outcome() is None:
                game.push(move)
    assert board.is_repetition(3)
    assert board.outcome() == game.outcome()
    assert board.outcome() is not None


def test_stalemate_is_a_loss_in_xiangqi() -> None:
    board = Board("3k5/4R4/4R4/9/9/9/9/9/9/4K4 b - - 0 1")
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.termination is Termination.STALEMATE and outcome.winner is RED
    assert board.result() == "1-0"


def test_janggi_outcome_uses_the_janggi_referee() -> None:
    board = Board(variant="janggi")
    assert board.outcome() is None
    king = board.king(board.turn)
    board.push(chuhan.Move(king, king))
    other = board.king(board.turn)
    board.push(chuhan.Move(other, other))
    outcome = board.outcome()
    assert outcome is not None and board.result() == outcome.result()


def test_is_repetition_counts_the_current_position() -> None:
    board = Board()
    assert board.is_repetition(1) and not board.is_repetition(2)
    for san in ("Hc3", "Hc8", "Hb1", "Hb10"):
        board.push_san(san)
    assert board.is_repetition(2) and not board.is_repetition(3)


def test_push_san_and_parse_san() -> None:
    board = Board()
    move = board.parse_san("Che3")
    assert move.iccs() == "h2e2" and board.ply == 0
    assert board.push_san("Che3") == move and board.ply == 1
    assert board.san(board.parse_san("Hc8")) == "Hc8"


@pytest.mark.parametrize(
    ("text", "error"),
    [("Zz9", chuhan.InvalidMoveError), ("Re5", chuhan.IllegalMoveError)],
)
def test_parse_san_errors_quote_the_input(text: str, error: type[Exception]) -> None:
    with pytest.raises(error, match=repr(text)) as info:
        Board().parse_san(text)
    assert isinstance(info.value, ValueError)


def test_piece_at_returns_a_piece() -> None:
    board = Board()
    assert board.piece_at(parse_square("a0")) == Piece(ROOK, RED)
    assert board.piece_at(parse_square("a9")) == Piece.from_symbol("r")
    assert board.piece_at(parse_square("e4")) is None
    assert board.piece_type_at(parse_square("a0")) == ROOK
    assert board.color_at(parse_square("a9")) is BLACK
    assert board.piece_code_at(parse_square("a9")) == -ROOK


def test_pieces_is_a_square_set_of_one_kind_and_side() -> None:
    board = Board()
    assert board.pieces(ROOK, RED) == SquareSet([parse_square("a0"), parse_square("i0")])
    assert board.pieces(chuhan.PAWN, BLACK).names() == ["a6", "c6", "e6", "g6", "i6"]
    assert board.pieces(chuhan.KING, BLACK) == SquareSet.from_square(board.king(BLACK))
    assert board.pieces(ROOK, RED).isdisjoint(board.pieces(ROOK, BLACK))
    janggi = Board(variant="janggi")
    assert len(janggi.pieces(chuhan.PAWN, chuhan.CHO)) == 5
    for bad in (0, 8, -5):
        with pytest.raises(ValueError, match=str(bad)):
            board.pieces(bad, RED)


def test_piece_map_holds_pieces_and_piece_code_map_the_ints() -> None:
    board = Board()
    pieces = board.piece_map()
    assert len(pieces) == 32 and list(pieces) == sorted(pieces)
    assert pieces[parse_square("b2")] == Piece.from_symbol("C")
    assert {sq: piece.code() for sq, piece in pieces.items()} == board.piece_code_map()
    assert all(board.piece_at(sq) == piece for sq, piece in pieces.items())
    rooks = board.pieces(ROOK, RED) | board.pieces(ROOK, BLACK)
    assert set(board.piece_map(mask=rooks)) == set(rooks)
    assert board.piece_map(mask=int(rooks)) == board.piece_map(mask=rooks)
    assert board.piece_map(mask=0) == {}


def test_checkers_is_a_square_set() -> None:
    assert Board().checkers() == SquareSet() and not Board().checkers()
    double = Board("4k4/9/3H5/9/9/9/4R4/9/9/4K4 b - - 0 1")  # the rook and the horse
    assert double.checkers().names() == ["e3", "d7"]
    assert len(Board(MATED).checkers()) == 1
    # In xiangqi a king facing the other across an open file gives check too.
    facing = Board("3k5/9/9/9/9/9/9/9/9/3K5 b - - 0 1")
    assert facing.checkers() == SquareSet.from_square(facing.king(RED))
    # Mated by a rook with the kings facing: the reason names the rook, not the king.
    mated = Board("R2k5/9/9/9/9/9/9/9/9/3K5 b - - 0 1")
    assert mated.checkers().names() == ["d0", "a9"]
    outcome = mated.outcome()
    assert outcome is not None and outcome.termination is Termination.CHECKMATE
    assert "by the chariot on a9" in outcome.reason


def test_piece_values() -> None:
    piece = Piece.from_symbol("H")
    assert piece.symbol() == "N" and str(piece) == "N" and piece.color is RED
    assert Piece.from_code(piece.code()) == piece
    assert hash(Piece(ROOK, RED)) == hash(Piece.from_symbol("R"))
    for bad in ("x", "", "RR"):
        with pytest.raises(ValueError, match=repr(bad)):
            Piece.from_symbol(bad)
    with pytest.raises(ValueError, match="9"):
        Piece(9, RED)


@pytest.mark.parametrize("variant", ["xiangqi", "janggi"])
def test_unicode_symbol_is_the_character_the_board_draws(variant: str) -> None:
    board = Board(variant=variant)
    janggi = variant == "janggi"
    rows = {line[0]: line[2:] for line in board.unicode().splitlines() if line[:1].isdigit()}
    for sq, piece in board.piece_map().items():
        drawn = rows[str(sq // 9)][sq % 9]
        assert piece.unicode_symbol(janggi=janggi) == drawn
        other = Piece(piece.piece_type, not piece.color)
        assert piece.unicode_symbol(janggi=janggi, invert_color=True) == other.unicode_symbol(
            janggi=janggi
        )
    assert Piece.from_symbol("C").unicode_symbol() == "炮"
    assert Piece.from_symbol("c").unicode_symbol() == "砲"
    assert Piece.from_symbol("C").unicode_symbol(janggi=True) == "包"
    assert Piece.from_symbol("n").unicode_symbol(simplified=True) == "马"


def test_set_and_remove_piece_keep_the_board_consistent() -> None:
    board = Board()
    board.push_san("Che3")
    e5 = parse_square("e5")
    board.set_piece_at(e5, Piece.from_symbol("R"))
    assert board.piece_at(e5) == Piece.from_symbol("R")
    assert board.move_stack == [] and not board.turn
    assert board.zobrist_hash() == Board(board.fen()).zobrist_hash()
    assert board.remove_piece_at(e5) == Piece.from_symbol("R")
    assert board.piece_at(e5) is None
    assert board.remove_piece_at(e5) is None
    # Moving the king by editing keeps king() right.
    king = board.king(RED)
    board.remove_piece_at(king)
    board.set_piece_at(parse_square("d0"), Piece.from_symbol("K"))
    assert board.king(RED) == parse_square("d0")
    with pytest.raises(ValueError, match="90"):
        board.set_piece_at(90, None)


def test_mirror() -> None:
    board = Board()
    board.push_san("Che3")
    mirrored = board.mirror()
    assert mirrored.turn is RED
    assert mirrored.piece_at(parse_square("e7")) == Piece.from_symbol("c")
    assert mirrored.mirror().board_fen() == board.board_fen()
    assert board.ply == 1  # the original is untouched
    janggi = Board(variant="janggi")
    assert janggi.mirror().variant == janggi.variant


def test_attackers_and_attacks() -> None:
    board = Board()
    assert board.attackers(RED, parse_square("c4")) == SquareSet([parse_square("c3")])
    assert board.attackers(BLACK, parse_square("e5")).names() == ["e6"]
    assert board.attacks(parse_square("b0")).names() == ["a2", "c2"]
    assert board.attacks(parse_square("e4")) == SquareSet()
    # Defended squares count: the red rook a0 guards its pawn a3.
    assert parse_square("a0") in board.attackers(RED, parse_square("a1"))
    assert parse_square("a0") in board.attackers(RED, parse_square("a3"))
    # The board is left as it was.
    assert board.fen() == Board().fen()


def test_janggi_cannon_does_not_attack_a_cannon() -> None:
    board = Board("4k4/9/4c4/9/4P4/9/9/4C4/9/4K4 w - - 0 1", variant="janggi")
    assert board.attackers(RED, parse_square("e7")) == SquareSet()
    board = Board("4k4/9/4r4/9/4P4/9/9/4C4/9/4K4 w - - 0 1", variant="janggi")
    assert board.attackers(RED, parse_square("e7")).names() == ["e2"]


def test_square_set() -> None:
    a = SquareSet([0, 5, 89])
    b = SquareSet.from_square(5)
    assert list(a) == [0, 5, 89] and len(a) == 3 and 89 in a and 4 not in a
    assert a & b == b and (a - b) == SquareSet([0, 89]) and (a | [1]) == SquareSet([0, 1, 5, 89])
    assert (a ^ b) == SquareSet([0, 89]) and len(~a) == 87 and int(a) == a.mask
    assert b.issubset(a) and a.issuperset(b) and not a.isdisjoint(b)
    a.add(7)
    a.discard(0)
    assert list(a) == [5, 7, 89]
    with pytest.raises(KeyError):
        a.remove(0)
    assert str(SquareSet([0])).splitlines()[-1] == "1 . . . . . . . ."
    for bad in (90, -1):
        with pytest.raises(ValueError, match=str(bad)):
            SquareSet([bad])
