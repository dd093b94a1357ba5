"""Properties of the rules engine on positions from random playouts (hypothesis draws the
game, rule set, seed, length and move bias; the playouts live in ``oracle.py``).

These need no second implementation: they check the board against itself (push/pop,
incremental hash, FEN, the several ways of asking for legal moves), against the rules
(no move leaves the king attacked, bikjang is broken, when a pass is allowed) and against
symmetry (mirrored and colour-flipped positions).
"""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import chuhan
import oracle
from chuhan.squares import FILES, SQUARE_COUNT, Move, flip_square, mirror_square
from chuhan.variants import KING, get_variant

ALL_RULE_SETS = (
    "xiangqi:asian",
    "xiangqi:chinese",
    "janggi:official",
    "janggi:traditional",
    "janggi:modern",
    "janggi:classic",
)
JANGGI_RULE_SETS = tuple(name for name in ALL_RULE_SETS if name.startswith("janggi"))
BIASES = {bias.name: bias for bias in oracle.JANGGI_BIASES + oracle.XIANGQI_BIASES}

PROPERTY_SETTINGS = settings(
    deadline=None, max_examples=50, suppress_health_check=[HealthCheck.too_slow]
)


@st.composite
def played_boards(
    draw: st.DrawFn, rule_sets: tuple[str, ...] = ALL_RULE_SETS, max_plies: int = 120
) -> chuhan.Board:
    """A board (with its move stack) after a random playout from a start position."""
    variant = get_variant(draw(st.sampled_from(rule_sets)))
    fen = None
    if variant.is_janggi:
        fen = chuhan.janggi_start_fen(
            cho=draw(st.sampled_from(oracle.ARRANGEMENTS)),
            han=draw(st.sampled_from(oracle.ARRANGEMENTS)),
        )
    return oracle.random_board(
        variant,
        draw(st.integers(0, 2**32 - 1)),
        draw(st.integers(0, max_plies)),
        fen=fen,
        bias=BIASES[draw(st.sampled_from(sorted(BIASES)))],
    )


PALACE_FILES = (3, 4, 5)


@st.composite
def lone_king_fens(draw: st.DrawFn) -> str:
    """Janggi positions where Cho (to move) has only its king against a few Han pieces:
    Cho is often stuck, which is when the pass rules differ."""
    cho_king = draw(st.sampled_from([r * FILES + f for r in (0, 1, 2) for f in PALACE_FILES]))
    han_king = draw(st.sampled_from([r * FILES + f for r in (7, 8, 9) for f in PALACE_FILES]))
    pieces = {cho_king: "K", han_king: "k"}
    squares = st.integers(0, SQUARE_COUNT - 1)
    for letter in draw(st.lists(st.sampled_from("rrrrccnbp"), min_size=2, max_size=5)):
        sq = draw(squares.filter(lambda s: s not in pieces))
        pieces[sq] = letter
    return oracle.fen_from_pieces(pieces, turn=True)


def janggi_fens() -> st.SearchStrategy[str]:
    return st.one_of(
        played_boards(JANGGI_RULE_SETS).map(lambda board: board.fen()), lone_king_fens()
    )


def kings_face(board: chuhan.Board) -> bool:
    """Whether the kings stand on one file with nothing between them (computed here from
    the placement, not by the board)."""
    low, high = sorted((board.king(True), board.king(False)))
    if (high - low) % FILES:
        return False
    return all(board.piece_code_at(sq) == 0 for sq in range(low + FILES, high, FILES))


def legal_set(board: chuhan.Board) -> set[Move]:
    return set(board.legal_moves)


# ---------------------------------------------------------------------- push and pop


@PROPERTY_SETTINGS
@given(board=played_boards())
def test_push_then_pop_restores_fen_hash_move_stack_and_legal_moves(board: chuhan.Board) -> None:
    fen, key, stack = board.fen(), board.zobrist_hash(), board.move_stack
    legal = legal_set(board)
    over = board.is_game_over_by_passing()
    for move in legal:
        board.push(move)
        assert board.peek() == move
        assert board.move_stack == [*stack, move]
        assert board.pop() == move
        assert board.fen() == fen
        assert board.zobrist_hash() == key
        assert board.move_stack == stack
        assert board.is_game_over_by_passing() == over
    assert legal_set(board) == legal


@PROPERTY_SETTINGS
@given(board=played_boards())
def test_popping_every_move_returns_to_the_start_position(board: chuhan.Board) -> None:
    start = chuhan.Board(board.root().fen(), variant=board.variant)
    while board.move_stack:
        board.pop()
    assert board.fen() == start.fen()
    assert board.zobrist_hash() == start.zobrist_hash()
    assert legal_set(board) == legal_set(start)


# ---------------------------------------------------------------------- hash and FEN


@PROPERTY_SETTINGS
@given(board=played_boards())
def test_incremental_hash_equals_hash_of_board_built_from_fen_at_every_ply(
    board: chuhan.Board,
) -> None:
    # A janggi board built from a FEN forgets the pass history; that changes whether the
    # game is over, never the hash.
    while True:
        fresh = chuhan.Board(board.fen(), variant=board.variant)
        assert board.zobrist_hash() == fresh.zobrist_hash(), board.fen()
        if not board.move_stack:
            break
        board.pop()


@PROPERTY_SETTINGS
@given(board=played_boards())
def test_fen_round_trips_at_every_ply(board: chuhan.Board) -> None:
    while True:
        fen = board.fen()
        assert chuhan.Board(fen, variant=board.variant).fen() == fen
        if not board.move_stack:
            break
        board.pop()


@PROPERTY_SETTINGS
@given(board=played_boards())
def test_equal_positions_have_equal_hashes_and_different_sides_to_move_do_not(
    board: chuhan.Board,
) -> None:
    placement, side, *rest = board.fen().split()
    other_side = "b" if side == "w" else "w"
    same = chuhan.Board(" ".join([placement, side, *rest]), variant=board.variant)
    other = chuhan.Board(" ".join([placement, other_side, *rest]), variant=board.variant)
    assert same.zobrist_hash() == board.zobrist_hash()
    assert other.zobrist_hash() != board.zobrist_hash()


# ---------------------------------------------------------------------- legality


@PROPERTY_SETTINGS
@given(board=played_boards())
# Capturing the front one of two enemy cannons on a line from the king makes the capturing
# piece the rear cannon's screen (found by the differential playouts; see there).
@example(board=chuhan.Board("5k3/9/9/9/6R2/9/9/3K2cc1/9/9 w - - 0 1", variant="janggi"))
@example(
    board=chuhan.Board(
        "2bk5/8B/5a3/1p7/9/2P6/2PP5/6n2/3A1A3/1c1cK4 w - - 5 30", variant="janggi:traditional"
    )
)
def test_no_legal_move_leaves_the_movers_king_attacked_or_kings_facing_in_xiangqi(
    board: chuhan.Board,
) -> None:
    mover = board.turn
    bikjang_pass = board.variant.bikjang_pass and board.is_bikjang()
    for move in legal_set(board):
        board.push(move)
        # Accepting bikjang by passing is allowed even in check.
        if not (move.is_pass() and bikjang_pass):
            attacked = board.is_attacked_by(not mover, board.king(mover))
            assert not attacked, f"{move} in {board.root().fen()} leaves the king attacked"
        if board.variant.flying_general:
            assert not kings_face(board), f"{move} leaves the kings facing"
        board.pop()


@PROPERTY_SETTINGS
@given(board=played_boards(JANGGI_RULE_SETS))
def test_every_janggi_move_in_bikjang_breaks_it_when_bikjang_is_a_rule(
    board: chuhan.Board,
) -> None:
    if not (board.variant.bikjang and kings_face(board)):
        return
    for move in legal_set(board):
        if move.is_pass():
            continue
        board.push(move)
        assert not kings_face(board), f"{move} keeps the bikjang"
        board.pop()


@PROPERTY_SETTINGS
@given(board=played_boards())
def test_gives_check_equals_push_then_is_check(board: chuhan.Board) -> None:
    for move in legal_set(board):
        expected = board.gives_check(move)
        board.push(move)
        assert board.is_check() == expected, f"{move} in {board.root().fen()}"
        board.pop()


@PROPERTY_SETTINGS
@given(board=played_boards())
def test_legal_move_views_agree_length_iteration_and_membership(board: chuhan.Board) -> None:
    moves = list(board.legal_moves)
    assert len(moves) == len(set(moves)), "duplicate legal moves"
    assert len(board.legal_moves) == len(moves)
    assert bool(board.legal_moves) == bool(moves)
    for move in moves:
        assert move in board.legal_moves
        assert board.is_legal(move)


@PROPERTY_SETTINGS
@given(board=played_boards(), others=st.lists(st.tuples(st.integers(0, 89), st.integers(0, 89))))
def test_push_accepts_exactly_the_generated_legal_moves(
    board: chuhan.Board, others: list[tuple[int, int]]
) -> None:
    # Every from-to pair from the mover's pieces (and some arbitrary pairs) is tried.
    legal = legal_set(board)
    fen, key = board.fen(), board.zobrist_hash()
    own = [
        sq
        for sq in range(SQUARE_COUNT)
        if board.piece_code_at(sq) and (board.piece_code_at(sq) > 0) == board.turn
    ]
    pairs = [(fr, to) for fr in own for to in range(SQUARE_COUNT)] + others
    for fr, to in pairs:
        move = Move(fr, to)
        if move in legal:
            board.push(move)
            board.pop()
        else:
            try:
                board.push(move)
            except chuhan.IllegalMoveError:
                pass
            else:
                raise AssertionError(f"push accepted {move}, not a legal move in {fen}")
            assert move not in board.legal_moves
        assert board.fen() == fen
        assert board.zobrist_hash() == key


@PROPERTY_SETTINGS
@given(board=played_boards())
def test_a_position_without_legal_moves_is_exactly_one_of_mate_stalemate_or_passed_out(
    board: chuhan.Board,
) -> None:
    endings = [board.is_checkmate(), board.is_stalemate(), board.is_game_over_by_passing()]
    if board.legal_moves:
        assert endings == [False, False, False]
    else:
        assert sum(endings) == 1
        if not board.is_game_over_by_passing():
            assert board.is_checkmate() == board.is_check()


# ---------------------------------------------------------------------- janggi passes


def pass_of(board: chuhan.Board) -> Move:
    king = board.king(board.turn)
    return Move(king, king)


@PROPERTY_SETTINGS
@given(fen=janggi_fens())
@example(fen="5k3/9/9/9/4r4/9/9/9/8r/3K5 w - - 0 1")  # Cho stuck, not in check
@example(fen="4k4/9/9/9/3r1r3/9/9/9/9/4K4 w - - 0 1")  # Cho stuck in bikjang
def test_classic_rules_allow_a_pass_only_when_no_other_move_and_no_check_or_facing(
    fen: str,
) -> None:
    classic = chuhan.Board(fen, variant="janggi", rules="classic")
    official = chuhan.Board(fen, variant="janggi", rules="official")
    classic_moves = legal_set(classic)
    others = {m for m in legal_set(official) if not m.is_pass()}
    assert {m for m in classic_moves if not m.is_pass()} == others
    stuck = not others and not classic.is_check() and not kings_face(classic)
    assert (pass_of(classic) in classic_moves) == stuck
    assert classic_moves == others | ({pass_of(classic)} if stuck else set())
    # The pass, when listed, must also be accepted by `in` and `push`.
    assert (pass_of(classic) in classic.legal_moves) == stuck
    if stuck:
        classic.push(pass_of(classic))
        assert classic.pop() == pass_of(classic)


@PROPERTY_SETTINGS
@given(fen=janggi_fens())
@example(fen="5k3/9/9/9/4r4/9/9/9/8r/3K5 w - - 0 1")
@example(fen="4k4/9/9/9/3r1r3/9/9/9/9/4K4 w - - 0 1")
def test_official_and_modern_rules_allow_a_pass_unless_in_check_and_official_in_bikjang(
    fen: str,
) -> None:
    for rules in ("official", "traditional", "modern"):
        board = chuhan.Board(fen, variant="janggi", rules=rules)
        bikjang = board.variant.bikjang and kings_face(board)
        expected = bikjang or not board.is_check()
        assert (pass_of(board) in legal_set(board)) == expected, rules


@PROPERTY_SETTINGS
@given(board=played_boards(("janggi:official", "janggi:traditional", "janggi:modern")))
def test_two_passes_in_a_row_end_the_janggi_game(board: chuhan.Board) -> None:
    for _ in range(2):
        if pass_of(board) not in board.legal_moves:
            return
        board.push(pass_of(board))
    assert board.is_game_over_by_passing()
    assert not board.legal_moves


# ---------------------------------------------------------------------- symmetry


def flip_fen(fen: str) -> str:
    """The position turned half a circle with the colours swapped."""
    placement, side, *rest = fen.split()
    rows = [row[::-1].swapcase() for row in reversed(placement.split("/"))]
    return " ".join(["/".join(rows), "b" if side == "w" else "w", *rest])


@PROPERTY_SETTINGS
@given(board=played_boards())
def test_mirrored_positions_have_mirrored_legal_moves(board: chuhan.Board) -> None:
    fen = board.fen()
    plain = chuhan.Board(fen, variant=board.variant)
    mirrored = chuhan.Board(oracle.mirror_fen(fen), variant=board.variant)
    assert {oracle.mirror_move(m) for m in plain.legal_moves} == legal_set(mirrored)
    assert mirrored.is_check() == plain.is_check()
    assert mirrored.is_bikjang() == plain.is_bikjang()


@PROPERTY_SETTINGS
@given(board=played_boards())
def test_colour_flipped_positions_have_flipped_legal_moves(board: chuhan.Board) -> None:
    fen = board.fen()
    plain = chuhan.Board(fen, variant=board.variant)
    flipped = chuhan.Board(flip_fen(fen), variant=board.variant)
    expected = {
        Move(flip_square(m.from_square), flip_square(m.to_square)) for m in plain.legal_moves
    }
    assert expected == legal_set(flipped)
    assert flipped.is_check() == plain.is_check()
    assert abs(flipped.piece_code_at(flip_square(plain.king(True)))) == KING


def test_mirror_helpers_are_involutions() -> None:
    fen = chuhan.janggi_start_fen(cho="마상마상", han="상마마상")
    assert oracle.mirror_fen(oracle.mirror_fen(fen)) == fen
    assert oracle.mirror_fen(fen) != fen
    assert flip_fen(flip_fen(fen)) == fen
    assert all(mirror_square(mirror_square(sq)) == sq for sq in range(SQUARE_COUNT))
