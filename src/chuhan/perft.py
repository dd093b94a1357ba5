"""Perft: the number of leaf nodes of the legal-move tree, the standard test of a move
generator. Janggi counts include passes and follow the move history (a game ended by
passing has no legal moves)."""

from __future__ import annotations

from chuhan.board import Board
from chuhan.squares import Move


def perft(board: Board, depth: int, *, bulk: bool = True) -> int:
    """Count the leaves ``depth`` plies below ``board`` (which is left as it was).

    With ``bulk`` (the default) the last ply is counted without playing its moves; with
    ``bulk=False`` every leaf is pushed and popped, which measures push/pop as well.
    """
    if depth < 0:
        raise ValueError(f"perft depth must be >= 0, got {depth}")
    if depth == 0:
        return 1
    return _perft(board, depth) if bulk else _perft_full(board, depth)


def _perft(board: Board, depth: int) -> int:
    if depth == 1:
        return len(board.legal_move_codes())
    total = 0
    push = board.push_code
    pop = board.pop_code
    for m in board.legal_move_codes():
        push(m)
        total += _perft(board, depth - 1)
        pop()
    return total


def _perft_full(board: Board, depth: int) -> int:
    moves = board.legal_move_codes()
    push = board.push_code
    pop = board.pop_code
    if depth == 1:
        for m in moves:
            push(m)
            pop()
        return len(moves)
    total = 0
    for m in moves:
        push(m)
        total += _perft_full(board, depth - 1)
        pop()
    return total


def divide(board: Board, depth: int) -> list[tuple[Move, int]]:
    """Perft split by first move: ``[(move, count), ...]`` in generation order."""
    if depth < 1:
        raise ValueError(f"divide depth must be >= 1, got {depth}")
    result = []
    for m in board.legal_move_codes():
        board.push_code(m)
        result.append((Move(m >> 7, m & 127), perft(board, depth - 1)))
        board.pop_code()
    return result
