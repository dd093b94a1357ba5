"""Two players at one keyboard: a game of xiangqi or janggi in the terminal.

The board is drawn with Unicode (Chinese characters, or letters with ``--letters``) and
colours where the terminal has them. A move may be typed in any notation chuhan reads
(ICCS ``h2e2``, WXF ``C2.5``, Chinese ``炮二平五``, Korean ``02마83``); an illegal one is
refused with the reason.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TextIO

from chuhan.board import Board
from chuhan.errors import ChuhanError
from chuhan.game import Game
from chuhan.notation import format_move, parse_move
from chuhan.notation.chinese import file_number, piece_character
from chuhan.squares import FILE_NAMES, FILES, RANKS, Move
from chuhan.variants import WXF_LETTERS

_RESET = "\x1b[0m"
_BOLD = "\x1b[1m"
_RED = "\x1b[1;31m"
_BLUE = "\x1b[1;34m"
_BLACK = "\x1b[1;37m"
_DIM = "\x1b[2m"

HELP = """\
Type a move in any notation: ICCS h2e2, WXF C2.5, Chinese 炮二平五, Korean 02마83.
Commands: moves (list the legal moves), undo (take back a move), fen (show the FEN),
flip (turn the board), pass (janggi), resign, draw (agreed), help, quit."""


def use_colour(stream: TextIO) -> bool:
    """Colours only on a terminal that is not dumb and when NO_COLOR is unset."""
    return (
        hasattr(stream, "isatty")
        and stream.isatty()
        and os.environ.get("TERM", "") != "dumb"
        and "NO_COLOR" not in os.environ
    )


def side_label(board: Board, side: bool) -> str:
    if board.variant.is_janggi:
        return "Cho" if side else "Han"
    return "Red" if side else "Black"


def render(
    board: Board, *, letters: bool = False, colour: bool = False, flipped: bool = False
) -> str:
    """The board as text: two columns per point, rank numbers left, files below."""
    janggi = board.variant.is_janggi
    last = board.peek() if board.ply else None
    first_colour = _BLUE if janggi else _RED
    second_colour = _RED if janggi else _BLACK
    ranks = range(RANKS) if flipped else range(RANKS - 1, -1, -1)
    files = range(FILES - 1, -1, -1) if flipped else range(FILES)
    lines = []
    for rank in ranks:
        cells = []
        for file_index in files:
            sq = rank * FILES + file_index
            piece = board.piece_code_at(sq)
            if piece:
                side = piece > 0
                kind = abs(piece)
                text = (
                    (WXF_LETTERS[kind] + " ") if letters else piece_character(piece, janggi=janggi)
                )
                if letters and not side:
                    text = text.lower()
                if colour:
                    mark = "\x1b[4m" if last is not None and sq == last.to_square else ""
                    text = f"{first_colour if side else second_colour}{mark}{text}{_RESET}"
            else:
                text = "· " if letters else "＋"
                if colour:
                    text = f"{_DIM}{text}{_RESET}"
            cells.append(text)
        lines.append(f"{rank} " + "".join(cells))
        if not janggi and ((rank == 5 and not flipped) or (rank == 4 and flipped)):
            river = "  ~~ 楚 河 ~~~~ 漢 界 ~~" if not letters else "  ~~~~~~ river ~~~~~~"
            lines.append(river)
    lines.append("  " + "".join(FILE_NAMES[f] + " " for f in files))
    if not letters and not janggi:
        # File numbers as each side counts them (from its own right), for WXF and Chinese
        # notation: Black's above the board, Red's below.
        black_numbers = "".join(file_number(False, f + 1) for f in files)
        red_numbers = "".join(file_number(True, FILES - f) for f in files)
        lines.insert(0, "  " + (red_numbers if flipped else black_numbers))
        lines.append("  " + (black_numbers if flipped else red_numbers))
    return "\n".join(lines)


def play_terminal(
    *,
    variant: str = "xiangqi",
    rules: str | None = None,
    fen: str | None = None,
    letters: bool = False,
    input_fn: Callable[[str], str] = input,
    output: TextIO | None = None,
) -> int:
    """Run the game loop until the game ends, ``quit`` or end of input. Returns 0."""
    out = output if output is not None else sys.stdout
    colour = use_colour(out)
    try:
        game = Game.new(variant, rules, fen=fen)
    except ChuhanError as error:
        print(f"chuhan: {error}", file=out)
        return 2
    board = game.board
    flipped = False
    notation = "korean" if board.variant.is_janggi else "wxf"
    print(f"{board.variant.title}. {HELP}", file=out)
    while game.setup_pending is not None:
        side = game.setup_pending
        prompt = (
            f"{side_label(board, side)}: your horses and elephants from your left "
            "(마상마상, 상마상마, 마상상마, 상마마상, or letters like HEHE; Enter: 마상상마)> "
        )
        try:
            text = input_fn(prompt).strip() or "마상상마"
        except (EOFError, KeyboardInterrupt):
            print(file=out)
            return 0
        try:
            game.choose_setup(side, text)
        except ChuhanError as error:
            print(f"Not accepted: {error}", file=out)
    while True:
        print(file=out)
        print(render(board, letters=letters, colour=colour, flipped=flipped), file=out)
        outcome = game.outcome()
        if outcome is not None:
            print(outcome.reason, file=out)
            return 0
        status = " — check!" if board.is_check() else ""
        if board.is_bikjang() and board.variant.bikjang:
            status += " — bikjang: the kings face each other"
        prompt = f"{side_label(board, board.turn)} to move{status}> "
        try:
            text = input_fn(prompt).strip()
        except (EOFError, KeyboardInterrupt):
            print(file=out)
            return 0
        if not text:
            continue
        command = text.lower()
        if command in ("quit", "exit", "q"):
            return 0
        if command in ("help", "?"):
            print(HELP, file=out)
            continue
        if command == "fen":
            print(board.fen(), file=out)
            continue
        if command == "flip":
            flipped = not flipped
            continue
        if command == "moves":
            shown = [format_move(board, m, notation) for m in board.legal_moves]
            print(" ".join(shown), file=out)
            continue
        if command in ("undo", "takeback"):
            # Both players sit at this keyboard: the request is granted at once.
            if not board.ply:
                print("Nothing to take back.", file=out)
                continue
            last_mover = not board.turn
            game.request_takeback(last_mover)
            game.accept_takeback(not last_mover)
            continue
        if command == "resign":
            game.resign(board.turn)
            continue
        if command == "draw":
            game.offer_draw(board.turn)
            game.accept_draw(not board.turn)
            continue
        if command == "pass" and board.variant.has_passes:
            king = board.king(board.turn)
            move = Move(king, king)
            if move not in board.legal_moves:
                print("You may not pass now (in check, or the rules forbid it).", file=out)
                continue
        else:
            try:
                move = parse_move(board, text)
            except ChuhanError as error:
                print(f"Not played: {error}", file=out)
                continue
        written = format_move(board, move, notation)
        game.push(move)
        print(f"Played {written} ({move.iccs()}).", file=out)
