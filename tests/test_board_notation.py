"""Move notation as Board methods, where a python-chess user looks for it."""

from __future__ import annotations

import pytest

from chuhan import Board, IllegalMoveError, Move

CANNON = Move.from_iccs("h2e2")
HORSE = Move.from_iccs("h9g7")


def test_san_is_fairy_stockfish_san() -> None:
    assert Board().san(CANNON) == "Che3"


def test_wxf_chinese_and_korean_are_methods() -> None:
    board = Board()
    assert (board.wxf(CANNON), board.chinese(CANNON)) == ("C2.5", "炮二平五")
    board.push(CANNON)
    assert board.chinese(HORSE, simplified=True) == "马８进７"
    janggi = Board(variant="janggi")
    assert janggi.korean(Move.from_iccs("b0c2")) == "02마83"


def test_an_illegal_move_is_refused_not_described() -> None:
    with pytest.raises(IllegalMoveError, match="h2h8"):
        Board().san(Move.from_iccs("h2h8"))


def test_variation_san_numbers_the_moves() -> None:
    line = [CANNON, HORSE, Move.from_iccs("h0g2")]
    assert Board().variation_san(line) == "1. Che3 Hg8 2. Hg3"


def test_variation_san_when_the_second_mover_starts() -> None:
    board = Board()
    board.push(CANNON)
    assert board.variation_san([HORSE]) == "1... Hg8"


def test_variation_in_wxf_and_chinese() -> None:
    assert Board().variation_san([CANNON, HORSE], notation="wxf") == "1. C2.5 H8+7"
    assert Board().variation_san([CANNON, HORSE], notation="chinese") == "1. 炮二平五 馬８進７"


def test_variation_san_leaves_the_board_as_it_was() -> None:
    board = Board()
    board.variation_san([CANNON, HORSE])
    assert board == Board()


def test_variation_san_names_the_illegal_move() -> None:
    with pytest.raises(IllegalMoveError, match="move 2 of the line, 'h2e2'"):
        Board().variation_san([CANNON, CANNON])
