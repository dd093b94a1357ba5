"""The Board API: FEN in and out, validation, push/pop, errors, and the janggi rules that
decide legality (passes, bikjang) under each rule set."""

from __future__ import annotations

import random

import pytest

import chuhan
from chuhan import Board, IllegalMoveError, InvalidFenError, InvalidMoveError, Move, Status
from chuhan.fen import parse_fen
from chuhan.movegen import ALL_SQUARES

XIANGQI_START = chuhan.XIANGQI_START_FEN
JANGGI_START = chuhan.JANGGI_START_FEN


def names(board: Board) -> set[str]:
    return {str(move) for move in board.legal_moves}


# ---------------------------------------------------------------- FEN


def test_default_boards_are_the_start_positions() -> None:
    assert Board().fen() == XIANGQI_START
    assert Board(variant="janggi").fen() == JANGGI_START


def test_fen_round_trips_with_counters() -> None:
    fen = "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 b - - 7 23"
    assert Board(fen).fen() == fen


def test_fen_accepts_e_and_h_as_elephant_and_horse() -> None:
    fen = XIANGQI_START.replace("rnbakabnr", "rheakaehr")
    assert Board(fen).fen() == XIANGQI_START


def test_fen_without_counters_gets_defaults() -> None:
    assert Board(XIANGQI_START.split()[0]).fen() == XIANGQI_START


@pytest.mark.parametrize(
    ("fen", "reason"),
    [
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR w", "expected 10 ranks"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABN w", "8 points"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRR w", "more than 9"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNX w", "unknown piece letter"),
        ("rnba1abnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "king is missing"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBAKABNR w", "2 kings"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBA1ABNR w", "king is missing"),
        ("4k4/9/9/9/9/9/9/9/9/K8 w", "outside its palace"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x", "side to move"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - -1 1", "halfmove"),
        ("", "empty"),
    ],
)
def test_malformed_fen_is_rejected_with_the_reason(fen: str, reason: str) -> None:
    with pytest.raises(InvalidFenError, match=reason) as info:
        Board(fen)
    assert repr(fen) in str(info.value) or fen == ""


def test_unknown_variant_and_rule_set_are_rejected() -> None:
    with pytest.raises(chuhan.UnknownVariantError, match="shogi"):
        Board(variant="shogi")
    with pytest.raises(chuhan.UnknownVariantError, match="official"):
        Board(variant="janggi", rules="asian")


def test_start_positions_are_valid() -> None:
    assert Board().is_valid()
    assert Board(variant="janggi").is_valid()


@pytest.mark.parametrize(
    ("fen", "flag"),
    [
        ("4k4/9/9/9/9/9/9/9/9/3KA4 w", Status.BAD_ADVISOR),
        ("4k4/9/9/9/9/9/4B4/9/9/3K5 w", Status.BAD_ELEPHANT),
        ("4k4/9/9/9/9/9/9/9/4P4/3K5 w", Status.BAD_PAWN),
        ("4k4/9/9/9/9/9/1P7/9/9/3K5 w", Status.BAD_PAWN),
        ("4k4/9/9/9/9/9/9/9/9/4K4 w", Status.KINGS_FACING),
        ("5k3/9/9/9/9/9/9/9/9/3KR4 w", Status.VALID),
        ("3k5/3R5/9/9/9/9/9/9/9/4K4 w", Status.OPPOSITE_CHECK),
        ("3k5/9/9/9/9/9/9/9/9/RRR1K4 w", Status.TOO_MANY_PIECES),
    ],
)
def test_unreachable_placements_are_accepted_and_flagged(fen: str, flag: Status) -> None:
    board = Board(fen)
    if flag == Status.VALID:
        assert board.status() == Status.VALID
    else:
        assert flag in board.status()
        assert not board.is_valid()


def test_janggi_kings_facing_is_not_a_status_problem() -> None:
    assert Board("4k4/9/9/9/9/9/9/9/4K4/9 w", variant="janggi").is_valid()


# ---------------------------------------------------------------- moves and errors


def test_central_cannon_opening_is_legal() -> None:
    board = Board()
    move = board.push_iccs("h2e2")
    assert str(move) == "h2e2"
    assert board.turn == chuhan.BLACK
    assert board.peek() == move


def test_push_rejects_an_illegal_move_naming_it_and_the_fen() -> None:
    board = Board()
    with pytest.raises(IllegalMoveError) as info:
        board.push(Move.from_iccs("h2h8"))
    assert "h2h8" in str(info.value) and XIANGQI_START in str(info.value)
    assert board.fen() == XIANGQI_START and board.ply == 0


def test_push_iccs_explains_why() -> None:
    board = Board()
    with pytest.raises(IllegalMoveError, match="no piece on e5"):
        board.push_iccs("e5e6")
    with pytest.raises(IllegalMoveError, match="side not to move"):
        board.push_iccs("h7e7")
    with pytest.raises(IllegalMoveError, match="cannot move to"):
        board.push_iccs("b0b2")


def test_malformed_iccs_is_an_invalid_move() -> None:
    for text in ("", "h2", "h2e", "z2e2", "h2e10", "h2e2x"):
        with pytest.raises(InvalidMoveError):
            Move.from_iccs(text)


def test_iccs_and_fsf_coordinates_differ_by_one_rank() -> None:
    move = Move.from_iccs("h2e2")
    assert move.fsf() == "h3e3"
    assert Move.from_fsf("h3e3") == move
    assert Board().parse_fsf("h3e3") == move


def test_pop_restores_fen_and_hash() -> None:
    board = Board()
    fen, key = board.fen(), board.zobrist_hash()
    for text in ("h2e2", "h9g7", "b0c2", "i9h9", "e2e6", "g7e6"):
        board.push_iccs(text)
    assert board.zobrist_hash() == Board(board.fen()).zobrist_hash()
    while board.ply:
        board.pop()
    assert (board.fen(), board.zobrist_hash()) == (fen, key)


def test_pop_on_an_empty_stack_raises() -> None:
    with pytest.raises(IndexError):
        Board().pop()


def test_capture_resets_the_halfmove_clock_and_move_number_counts_pairs() -> None:
    board = Board()
    for text in ("h2e2", "h9g7", "e2e6"):
        board.push_iccs(text)
    assert board.fen().endswith(" b - - 0 2")
    board.push_iccs("a9a8")
    assert board.fen().endswith(" w - - 1 3")


def test_legal_moves_is_a_lazy_view() -> None:
    board = Board()
    assert len(board.legal_moves) == 44
    assert Move.from_iccs("h2e2") in board.legal_moves
    assert Move.from_iccs("h2h8") not in board.legal_moves
    assert "h2e2" not in board.legal_moves  # strings are not moves
    assert bool(board.legal_moves)


def test_copy_is_independent() -> None:
    board = Board()
    copy = board.copy()
    copy.push_iccs("h2e2")
    assert board.ply == 0 and copy.ply == 1
    assert board.copy(stack=False).move_stack == []


# ---------------------------------------------------------------- xiangqi rules


def test_kings_may_not_face_each_other() -> None:
    # Red's king on d0 may not step to e0, under Black's king on the open e-file.
    board = Board("4k4/9/9/9/9/9/9/9/9/3K5 w")
    assert "d0e0" not in names(board)
    assert "d0d1" in names(board)


def test_a_piece_screening_the_kings_is_pinned() -> None:
    board = Board("4k4/9/9/9/9/9/9/9/4R4/4K4 w")
    assert {m for m in names(board) if m.startswith("e1")} == {f"e1e{r}" for r in range(2, 10)}


def test_cannon_captures_over_exactly_one_screen() -> None:
    board = Board("4k4/9/9/9/4p4/9/9/9/9/3KC4 w")
    assert "e0e5" not in names(board)
    board = Board("4k4/9/9/9/4p4/9/9/4P4/9/3KC4 w")
    assert "e0e5" in names(board)


def test_horse_is_blocked_at_the_leg() -> None:
    board = Board("4k4/9/9/9/9/9/9/9/1P7/1N1K5 w")
    assert not {"b0a2", "b0c2"} & names(board)
    assert "b0d1" in names(board)


def test_elephant_cannot_cross_the_river() -> None:
    board = Board("4k4/9/9/9/9/2B6/9/9/9/3K5 w")
    assert {m for m in names(board) if m.startswith("c4")} == {"c4a2", "c4e2"}


def test_soldier_moves_sideways_only_after_the_river() -> None:
    assert {m for m in names(Board("4k4/9/9/9/9/9/4P4/9/9/3K5 w")) if m[:2] == "e3"} == {"e3e4"}
    crossed = {m for m in names(Board("4k4/9/9/9/4P4/9/9/9/9/3K5 w")) if m[:2] == "e5"}
    assert crossed == {"e5e6", "e5d5", "e5f5"}


def test_checkmate_and_stalemate() -> None:
    # Rook checks on d8, guarded by the rook behind; e9 would face Red's king.
    mate = Board("3k5/3R5/3R5/9/9/9/9/9/9/4K4 b")
    assert mate.is_check() and mate.is_checkmate() and not mate.is_stalemate()
    # Black's king on d9 is not in check: d8 is covered by the rook, e9 faces Red's king.
    stale = Board("3k5/8R/9/9/9/9/9/9/9/4K4 b")
    assert not stale.is_check()
    assert stale.is_stalemate()


def test_gives_check() -> None:
    board = Board("3k5/9/9/9/9/9/9/9/9/4K3R w")
    assert board.gives_check(Move.from_iccs("i0d0"))
    assert not board.gives_check(Move.from_iccs("i0h0"))


# ---------------------------------------------------------------- janggi rules


def test_janggi_start_arrangements() -> None:
    fen = chuhan.janggi_start_fen(cho="마상마상", han="상마상마")
    assert fen.split()[0].endswith("RNBA1ANBR")
    assert fen.startswith("rnba1anbr/")
    assert chuhan.janggi_start_fen("HEEH", "EHHE") == chuhan.janggi_start_fen(
        "마상상마", "상마마상"
    )
    with pytest.raises(chuhan.UnknownVariantError, match="마마상상"):
        chuhan.janggi_start_fen(cho="마마상상")


def test_janggi_pass_is_the_kings_square_twice() -> None:
    board = Board(variant="janggi")
    assert "e1e1" in names(board)
    board.push_iccs("e1e1")
    assert board.fen().startswith(JANGGI_START.split()[0] + " b")


def test_two_passes_in_a_row_end_the_game() -> None:
    board = Board(variant="janggi")
    board.push_iccs("e1e1")
    board.push_iccs("e8e8")
    assert len(board.legal_moves) == 0
    assert board.is_game_over_by_passing()
    with pytest.raises(IllegalMoveError, match="game is over"):
        board.push_iccs("a0a1")
    board.pop()
    assert len(board.legal_moves) == 32


def test_no_pass_in_check_under_official_rules() -> None:
    board = Board("4k4/9/9/9/9/9/9/9/4R4/3K5 b", variant="janggi")
    assert board.is_check()
    assert "e9e9" not in names(board)


def test_bikjang_must_be_broken_but_may_be_answered_by_a_pass() -> None:
    board = Board("4k4/9/9/9/9/9/9/9/9/4K4 w", variant="janggi")
    assert board.is_bikjang()
    assert names(board) == {"e0d0", "e0f0", "e0e0"}  # e0e1 keeps the kings facing


def test_a_pass_that_accepts_bikjang_ends_the_game() -> None:
    board = Board("4k4/9/9/9/9/9/9/9/9/3K5 w", variant="janggi")
    board.push_iccs("d0e0")  # Cho offers bikjang
    assert board.is_bikjang()
    board.push_iccs("e9e9")  # Han accepts
    assert board.is_game_over_by_passing()
    assert len(board.legal_moves) == 0


def test_modern_rules_have_no_bikjang() -> None:
    board = Board("4k4/9/9/9/9/9/9/9/9/4K4 w", variant="janggi", rules="modern")
    assert names(board) == {"e0d0", "e0f0", "e0e1", "e0e0"}
    board.push_iccs("e0e0")
    assert not board.is_game_over_by_passing()


def test_classic_rules_pass_only_when_nothing_else_is_legal() -> None:
    start = Board(variant="janggi", rules="classic")
    assert "e1e1" not in names(start)
    # Cho's lone king on d0 is not in check, but the chariots cover d1, e1 and e0.
    stuck = Board("5k3/9/9/9/4r4/9/9/9/r8/3K5 w", variant="janggi", rules="classic")
    assert not stuck.is_check()
    assert names(stuck) == {"d0d0"}


def test_classic_rules_forbid_answering_bikjang_by_a_pass() -> None:
    board = Board("4k4/9/9/9/9/9/9/9/9/4K4 w", variant="janggi", rules="classic")
    assert names(board) == {"e0d0", "e0f0"}


def test_janggi_cannon_cannot_jump_or_capture_a_cannon() -> None:
    board = Board("4k4/9/9/9/9/4c4/9/9/4P4/3KC4 w", variant="janggi")
    cannon = {m for m in names(board) if m.startswith("e0")}
    assert "e0e4" not in cannon and "e0e2" in cannon
    board = Board("4k4/9/9/9/9/9/9/4C4/9/3KC4 w", variant="janggi")
    assert not {m for m in names(board) if m.startswith("e0") and m[3] > "2"}


def test_janggi_chariot_moves_along_the_palace_diagonal() -> None:
    board = Board("3k5/9/9/9/9/9/9/9/9/3R1K3 w", variant="janggi")
    assert {"d0e1", "d0f2"} <= names(board)


def test_janggi_elephant_is_blocked_at_either_point() -> None:
    free = Board("3k5/9/9/9/9/9/9/9/9/2B1K4 w", variant="janggi")
    assert {"c0e3", "c0a3"} <= names(free)
    blocked = Board("3k5/9/9/9/9/9/9/3P5/9/2B1K4 w", variant="janggi")  # d2 occupied
    assert "c0e3" not in names(blocked)


def test_janggi_soldier_moves_forward_along_the_enemy_palace_diagonal() -> None:
    board = Board("5k3/9/3P5/9/9/9/9/9/9/4K4 w", variant="janggi")
    assert {"d7e8", "d7d8", "d7c7", "d7e7"} <= names(board)


@pytest.mark.parametrize(
    "fen",
    [
        "rnbakabnr/9/1c5c1/p1p1p1p1p/²7/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
        "rnbakabnr/9/1c5c1/p1p1p1p1p/٩/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
        XIANGQI_START.rsplit(" ", 1)[0] + " " + "9" * 5000,
        XIANGQI_START.rsplit(" ", 2)[0] + " ² 1",
    ],
)
def test_non_ascii_digits_and_huge_counters_are_invalid_fen(fen: str) -> None:
    with pytest.raises(InvalidFenError):
        Board(fen)


def test_wrong_argument_types_give_chuhan_errors() -> None:
    with pytest.raises(chuhan.UnknownVariantError):
        Board(variant=3)
    with pytest.raises(InvalidMoveError):
        Move.from_iccs(3)  # type: ignore[arg-type]


def test_position_keys_list_the_positions_before_each_move() -> None:
    board = Board()
    start_key = board.zobrist_hash()
    board.push_iccs("h2e2")
    board.push_iccs("h9g7")
    keys = board.position_keys()
    assert len(keys) == 2 and keys[0] == start_key
    assert board.move_number_at(0) == 1 and board.move_number_at(1) == 1
    assert board.move_number_at(2) == 2


@pytest.mark.parametrize("variant", ["xiangqi", "janggi"])
def test_capture_generator_matches_the_captures_among_legal_moves(variant: str) -> None:
    """The quiescence search's capture-only path gives exactly the captures of the full
    legal move generator (the one perft proves), along random games of both variants."""
    import random

    rng = random.Random(7)
    positions = 0
    for _ in range(60):
        board = Board(variant=variant)
        for _ in range(160):
            legal = board.legal_move_codes()
            if not legal:
                break
            squares = board.placement
            expected = sorted(m for m in legal if squares[m & 127] and m >> 7 != m & 127)
            assert sorted(board.legal_capture_codes()) == expected, board.fen()
            positions += 1
            board.push_code(rng.choice(legal))
    assert positions > 5000


@pytest.mark.parametrize("variant", ["xiangqi", "janggi"])
def test_legal_among_keeps_the_legal_moves_in_the_generators_order(variant: str) -> None:
    """``legal_among`` (the search's legality test for the few quiet checks it picks from
    the pseudo-legal moves) gives exactly the legal moves among any subset of them, in
    the order ``legal_move_codes`` lists them, along random games of both variants."""
    import random

    from chuhan.movegen import ALL_SQUARES, kernel_for

    generate = kernel_for(variant).generate
    rng = random.Random(11)
    positions = 0
    for _ in range(60):
        board = Board(variant=variant)
        for _ in range(160):
            legal = board.legal_move_codes()
            if not legal:
                break
            pseudo = generate(board.placement, board.turn, ALL_SQUARES, set(), None)
            subset = [m for m in pseudo if rng.random() < 0.5]
            assert board.legal_among(pseudo) == [m for m in legal if m >> 7 != m & 127]
            assert board.legal_among(subset) == [m for m in legal if m in subset], board.fen()
            positions += 1
            board.push_code(rng.choice(legal))
    assert positions > 5000


def test_a_move_number_0_is_read_as_1_as_python_chess_reads_it() -> None:
    fen = "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 b - - 0 0"
    assert Board(fen).fen() == fen[: -len("0 0")] + "0 1"
    with pytest.raises(InvalidFenError, match="move number"):
        Board(fen[: -len("0")] + "-1")


@pytest.mark.parametrize("variant", ["xiangqi", "janggi"])
def test_the_fen_of_each_position_of_a_game_reads_back_as_its_placement(variant: str) -> None:
    """The FEN's placement (written by the compiled ``placement_fen``) reads back as the
    board's placement, position after position of a game."""
    rng = random.Random(5)
    board = Board(variant=variant)
    for _ in range(80):
        assert parse_fen(board.fen()).squares == tuple(board.placement)
        codes = board.legal_move_codes()
        if not codes:
            break
        board.push_code(rng.choice(codes))


@pytest.mark.parametrize("variant", ["xiangqi", "janggi"])
def test_in_check_the_legal_moves_are_every_pseudo_legal_move_that_leaves_the_king_safe(
    variant: str,
) -> None:
    """In check the board tests only the moves that could end it (``evasion_points``); the
    legal moves are still every pseudo-legal move that leaves the king safe, in order."""
    rng = random.Random(30)
    checks = 0
    for _ in range(300):
        board = Board(variant=variant)
        for _ in range(rng.randrange(10, 120)):
            codes = board.legal_move_codes()
            if not codes:
                break
            board.push_code(rng.choice(codes))
            if board.is_check() and not board.is_bikjang():
                side = board.turn
                pseudo = board._kernel.generate(board.placement, side, ALL_SQUARES, set(), None)
                expected = [m for m in pseudo if board._is_safe(m, False)]
                assert board.legal_move_codes() == expected, board.fen()
                checks += 1
    assert checks > 200
