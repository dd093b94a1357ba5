"""chuhan: xiangqi (Chinese chess) and janggi (Korean chess) for Python."""

# First: whether the compiled modules may load, or their sources (see chuhan._native).
from chuhan._native import BUILD, Build
from chuhan.adjudication.outcome import Outcome, Termination
from chuhan.board import Board, LegalMoveGenerator, Status
from chuhan.errors import (
    AmbiguousMoveError,
    ChuhanError,
    IllegalMoveError,
    InvalidFenError,
    InvalidMoveError,
    ServiceError,
    UnknownVariantError,
)
from chuhan.perft import divide, perft
from chuhan.piece import Piece
from chuhan.squares import SQUARE_NAMES, Move, parse_square, square, square_name
from chuhan.squareset import SquareSet
from chuhan.variants import (
    ADVISOR,
    BLACK,
    CANNON,
    CHO,
    ELEPHANT,
    HAN,
    HORSE,
    JANGGI_START_FEN,
    KING,
    PAWN,
    RED,
    ROOK,
    VARIANTS,
    XIANGQI_START_FEN,
    Variant,
    get_variant,
    janggi_start_fen,
)

__version__ = "0.1.0"

__all__ = [
    "ADVISOR",
    "BLACK",
    "BUILD",
    "CANNON",
    "CHO",
    "ELEPHANT",
    "HAN",
    "HORSE",
    "JANGGI_START_FEN",
    "KING",
    "PAWN",
    "RED",
    "ROOK",
    "SQUARE_NAMES",
    "VARIANTS",
    "XIANGQI_START_FEN",
    "AmbiguousMoveError",
    "Board",
    "Build",
    "ChuhanError",
    "IllegalMoveError",
    "InvalidFenError",
    "InvalidMoveError",
    "LegalMoveGenerator",
    "Move",
    "Outcome",
    "Piece",
    "ServiceError",
    "SquareSet",
    "Status",
    "Termination",
    "UnknownVariantError",
    "Variant",
    "__version__",
    "divide",
    "get_variant",
    "janggi_start_fen",
    "parse_square",
    "perft",
    "square",
    "square_name",
]
