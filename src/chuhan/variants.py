"""Game and rule-set specifications.

Each playable combination of a game (xiangqi, janggi) and a rule set is one frozen
:class:`Variant` value. Move generation reads its switches (palace diagonals, flying
general, bikjang, passing, cannon style); the referee reads its game-end fields. There
is no subclass per variant: the differences are data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Final, Literal

from chuhan.errors import UnknownVariantError

# Piece types. A piece on the board is ``+type`` for the side that moves first (xiangqi
# red, janggi Cho) and ``-type`` for the other side.
# Final: the compiled modules (chuhan._native) use the values, not a lookup of the names.
KING: Final = 1
ADVISOR: Final = 2
ELEPHANT: Final = 3
HORSE: Final = 4
ROOK: Final = 5
CANNON: Final = 6
PAWN: Final = 7
PIECE_TYPES = (KING, ADVISOR, ELEPHANT, HORSE, ROOK, CANNON, PAWN)

#: English names of the piece types, as messages and referee reasons use them (a janggi
#: advisor is a guard: see :meth:`Variant.piece_name`).
PIECE_NAMES: Mapping[int, str] = MappingProxyType(
    {
        KING: "king",
        ADVISOR: "advisor",
        ELEPHANT: "elephant",
        HORSE: "horse",
        ROOK: "chariot",
        CANNON: "cannon",
        PAWN: "soldier",
    }
)
#: The letter of each piece type in WXF, SAN and boards drawn in letters.
WXF_LETTERS: Mapping[int, str] = MappingProxyType(
    {KING: "K", ADVISOR: "A", ELEPHANT: "E", HORSE: "H", ROOK: "R", CANNON: "C", PAWN: "P"}
)
#: Piece letters as WXF and SAN are read: the letters above, and B (elephant), N (horse).
WXF_LETTER_TYPES: Mapping[str, int] = MappingProxyType(
    {**{letter: kind for kind, letter in WXF_LETTERS.items()}, "B": ELEPHANT, "N": HORSE}
)

# Sides. ``True`` is the side that moves first.
RED = CHO = True
BLACK = HAN = False

XIANGQI_START_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
JANGGI_START_FEN = "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1"

PassRule = Literal["never", "unless_in_check", "only_when_stuck"]

# Janggi point values indexed by piece type (index 0 unused): king 0, guard 3, elephant 3,
# horse 5, chariot 13, cannon 7, soldier 2 -- 72 for a full army.
_JANGGI_POINTS = (0.0, 0.0, 3.0, 3.0, 5.0, 13.0, 7.0, 2.0)
_NO_POINTS = (0.0,) * 8


@dataclass(frozen=True)
class Variant:
    """One game under one rule set. Compare variants with ``==``; they are values."""

    game: Literal["xiangqi", "janggi"]
    rules: str
    title: str
    start_fen: str
    #: Janggi: kings, guards, chariots, cannons and soldiers use the palace diagonals.
    palace_diagonals: bool
    #: Xiangqi: a move may not leave the two kings facing on an open file.
    flying_general: bool
    #: Janggi: kings facing on an open file (bikjang) must be broken by the side to move.
    bikjang: bool
    #: Janggi official/traditional: in bikjang the side to move may pass, even in check,
    #: which accepts it and ends the game.
    bikjang_pass: bool
    pass_rule: PassRule
    #: ``"xiangqi"`` cannon (moves like a chariot, captures over one screen) or ``"janggi"``
    #: cannon (always jumps one non-cannon piece, never captures a cannon).
    cannon: Literal["xiangqi", "janggi"]
    #: Plies without a capture after which the game is over (0: no limit).
    move_limit_plies: int
    #: How repetition is judged: ``"axf"``, ``"chinese"``, ``"points"``, ``"draw"``, ``"modern"``.
    repetition: str
    #: How bikjang accepted by a pass, a double pass and the move limit are settled:
    #: ``"points"`` or ``"draw"`` (empty for games that have no such endings).
    settlement: str
    #: Point value of each piece type (indexed by type; janggi counting).
    piece_points: tuple[float, ...] = _NO_POINTS
    #: Points given to the second player (Han) in janggi point counting.
    second_player_bonus: float = 0.0
    #: Janggi 1995 sheet: a side that makes the kings face each other can at best draw.
    facing_forfeits_win: bool = False
    #: Janggi 1995 sheet (Gollon): a mate whose checking piece is defended only by its own
    #: king -- capturing it would leave the kings facing -- is a draw.
    king_defended_mate_draws: bool = False
    #: When no move is legal and the side is not in check: True if that loses (xiangqi);
    #: False if it is a draw (janggi 1995 sheet).
    stalemate_loses: bool = True

    @property
    def name(self) -> str:
        """``"game:rules"``, e.g. ``"janggi:official"``."""
        return f"{self.game}:{self.rules}"

    @property
    def is_janggi(self) -> bool:
        return self.game == "janggi"

    @property
    def has_passes(self) -> bool:
        return self.pass_rule != "never"

    def piece_name(self, kind: int) -> str:
        """The English name of a piece type in this game (janggi's advisor is a guard)."""
        if kind == ADVISOR and self.game == "janggi":
            return "guard"
        return PIECE_NAMES[kind]

    def side_name(self, side: bool) -> str:
        """``"red"``/``"black"`` in xiangqi, ``"cho"``/``"han"`` in janggi."""
        if self.game == "janggi":
            return "cho" if side else "han"
        return "red" if side else "black"


XIANGQI_ASIAN = Variant(
    game="xiangqi",
    rules="asian",
    title="Xiangqi (Asian rules)",
    start_fen=XIANGQI_START_FEN,
    palace_diagonals=False,
    flying_general=True,
    bikjang=False,
    bikjang_pass=False,
    pass_rule="never",
    cannon="xiangqi",
    move_limit_plies=120,
    repetition="axf",
    settlement="",
)
XIANGQI_CHINESE = replace(
    XIANGQI_ASIAN,
    rules="chinese",
    title="Xiangqi (Chinese association rules)",
    repetition="chinese",
)
# Janggi is the xiangqi definition with its own changes, as in Fairy-Stockfish.
JANGGI_OFFICIAL = replace(
    XIANGQI_ASIAN,
    game="janggi",
    rules="official",
    title="Janggi (official KJA rules)",
    start_fen=JANGGI_START_FEN,
    palace_diagonals=True,
    flying_general=False,
    bikjang=True,
    bikjang_pass=True,
    pass_rule="unless_in_check",
    cannon="janggi",
    move_limit_plies=100,
    repetition="points",
    settlement="points",
    piece_points=_JANGGI_POINTS,
    second_player_bonus=1.5,
)
JANGGI_TRADITIONAL = replace(
    JANGGI_OFFICIAL,
    rules="traditional",
    title="Janggi (traditional rules)",
    repetition="draw",
    settlement="draw",
)
JANGGI_MODERN = replace(
    JANGGI_OFFICIAL,
    rules="modern",
    title="Janggi (modern app rules)",
    bikjang=False,
    bikjang_pass=False,
    move_limit_plies=200,
    repetition="modern",
)
JANGGI_CLASSIC = replace(
    JANGGI_OFFICIAL,
    rules="classic",
    title="Janggi (1995 rule sheet)",
    # The 1995 sheet treats facing kings like a check on the other king: it must be
    # answered, and a pass cannot answer it.
    bikjang_pass=False,
    pass_rule="only_when_stuck",
    move_limit_plies=0,
    repetition="draw",
    settlement="draw",
    facing_forfeits_win=True,
    king_defended_mate_draws=True,
    stalemate_loses=False,
)

VARIANTS: Mapping[str, Variant] = MappingProxyType(
    {
        v.name: v
        for v in (
            XIANGQI_ASIAN,
            XIANGQI_CHINESE,
            JANGGI_OFFICIAL,
            JANGGI_TRADITIONAL,
            JANGGI_MODERN,
            JANGGI_CLASSIC,
        )
    }
)
DEFAULT_RULES: Mapping[str, str] = MappingProxyType({"xiangqi": "asian", "janggi": "official"})
GAMES = tuple(DEFAULT_RULES)


def get_variant(game: str | Variant = "xiangqi", rules: str | None = None) -> Variant:
    """Look up a variant by game and rule-set name (case-insensitive).

    ``game`` may also be ``"janggi:modern"``. Raises :class:`UnknownVariantError` with the
    valid names when the combination does not exist.
    """
    if isinstance(game, Variant):
        if rules is None or rules == game.rules:
            return game
        game = game.game
    if not isinstance(game, str) or not (rules is None or isinstance(rules, str)):
        raise UnknownVariantError(
            f"invalid variant {game!r} / rules {rules!r}: expected names such as "
            "'xiangqi' and 'asian'"
        )
    key = game.strip().lower()
    if ":" in key:
        key, _, embedded = key.partition(":")
        if rules is not None and rules.strip().lower() != embedded:
            raise UnknownVariantError(f"conflicting rule sets {embedded!r} and {rules!r}")
        rules = embedded
    if key not in DEFAULT_RULES:
        raise UnknownVariantError(f"unknown variant {game!r}: expected one of {', '.join(GAMES)}")
    rule_name = (rules or DEFAULT_RULES[key]).strip().lower()
    try:
        return VARIANTS[f"{key}:{rule_name}"]
    except KeyError:
        valid = sorted(v.rules for v in VARIANTS.values() if v.game == key)
        raise UnknownVariantError(
            f"unknown rule set {rules!r} for {key}: expected one of {', '.join(valid)}"
        ) from None


#: The four janggi arrangements of horses (마) and elephants (상) on files b, c, g, h, as
#: each player sees them from their own left. The default start has 마상상마 on both sides.
JANGGI_ARRANGEMENTS = ("마상마상", "상마상마", "마상상마", "상마마상")
_ARRANGEMENT_LETTERS = {
    "마": "n",
    "馬": "n",
    "h": "n",
    "n": "n",
    "상": "b",
    "象": "b",
    "e": "b",
    "b": "b",
}


def normalize_arrangement(text: str) -> str:
    """Parse a janggi setup arrangement to its Hangul form (``"마상마상"``).

    Accepts Hangul (마/상), hanja (馬/象) or letters (H or N for the horse, E or B for the
    elephant), e.g. ``"HEHE"``, ignoring spaces and dashes. Raises
    :class:`UnknownVariantError` for anything else.
    """
    cleaned = "".join(ch for ch in text.strip().lower() if ch not in " -_")
    letters = [_ARRANGEMENT_LETTERS.get(ch) for ch in cleaned]
    if len(letters) != 4 or None in letters:
        raise UnknownVariantError(
            f"invalid janggi arrangement {text!r}: expected four of 마/상 (or H/E), "
            f"one of {', '.join(JANGGI_ARRANGEMENTS)}"
        )
    hangul = "".join("마" if x == "n" else "상" for x in letters)
    if hangul not in JANGGI_ARRANGEMENTS:
        raise UnknownVariantError(
            f"invalid janggi arrangement {text!r}: each wing holds one horse and one "
            f"elephant; expected one of {', '.join(JANGGI_ARRANGEMENTS)}"
        )
    return hangul


def janggi_start_fen(cho: str = "마상상마", han: str = "마상상마") -> str:
    """The janggi start FEN for the chosen arrangements (see :func:`normalize_arrangement`).

    Each arrangement reads from its own player's left: Cho's from file a towards i, Han's
    from file i towards a. (GIB records list Han's in the board's file order, a to i: the
    reverse, which :func:`chuhan.records.read_gib` turns round.)
    """
    cho_letters = ["n" if ch == "마" else "b" for ch in normalize_arrangement(cho)]
    han_letters = ["n" if ch == "마" else "b" for ch in normalize_arrangement(han)]
    han_files = han_letters[::-1]  # Han's left is file i
    top = f"r{han_files[0]}{han_files[1]}a1a{han_files[2]}{han_files[3]}r"
    bottom = f"R{cho_letters[0]}{cho_letters[1]}A1A{cho_letters[2]}{cho_letters[3]}R".upper()
    return f"{top}/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/{bottom} w - - 0 1"
