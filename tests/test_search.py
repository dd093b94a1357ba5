"""chuhan's own search, through its Python API (the UCI front end has its own tests)."""

from __future__ import annotations

import json
import random
import threading
import time
from pathlib import Path

import pytest

import chuhan
from chuhan.board import Board
from chuhan.book import Book
from chuhan.game import Game, Termination
from chuhan.search.limits import SearchControl, SearchInfo, SearchLimits
from chuhan.search.search import LEVELS, WIN, Searcher
from chuhan.search.tree import MATE, SearchTables, TreeSearch, _check_filter
from chuhan.squares import Move

DATA = Path(__file__).parent / "data"


def test_finds_mate_in_one_and_reports_it_as_mate() -> None:
    board = Board("4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1")
    result = Searcher().search(board, SearchLimits(depth=3))
    assert str(result.best) == "b0b9"
    assert result.lines[0].mate == 1
    assert result.lines[0].score_cp is None


def test_search_does_not_change_the_board() -> None:
    board = Board()
    board.push_iccs("h2e2")
    before = (board.fen(), board.move_stack)
    Searcher().search(board, SearchLimits(depth=3))
    assert (board.fen(), board.move_stack) == before


def test_no_legal_move_gives_no_best_move() -> None:
    board = Board("4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1")
    board.push_iccs("b0b9")
    assert board.is_checkmate()
    result = Searcher().search(board, SearchLimits(depth=2))
    assert result.best is None


def test_never_walks_into_a_perpetual_check_the_referee_rules_a_loss() -> None:
    # Casebook xq-rep-001: red checks with h8h9/h9h8 and the AXF rules make the third
    # repetition a loss for red. Two plies before the end, red to move: playing h8h9 again
    # completes the cycle, so the engine gives up material instead.
    case = json.loads((DATA / "xiangqi-repetition-cases.json").read_text())["cases"][0]
    assert case["id"] == "xq-rep-001"
    board = Board(case["fen"])
    for text in case["moves"][:-2]:
        board.push_iccs(text)
    assert case["moves"][-2] == "h8h9"
    for depth in (1, 3, 5):
        result = Searcher().search(board, SearchLimits(depth=depth))
        assert str(result.best) != "h8h9", depth


def test_claims_the_win_when_the_opponent_must_break_a_perpetual() -> None:
    # Same case seen from black: after red's first repetition of the checks, black's
    # king steps back and red can only repeat (a loss) or give up material: black's
    # score is clearly winning.
    case = json.loads((DATA / "xiangqi-repetition-cases.json").read_text())["cases"][0]
    board = Board(case["fen"])
    for text in case["moves"][:-1]:
        board.push_iccs(text)
    result = Searcher().search(board, SearchLimits(depth=4))
    line = result.lines[0]
    assert (line.score_cp or 0) > 500 or (line.mate or 0) > 0


def _before_the_chasers_last_move(case_id: str) -> tuple[Board, str]:
    """The casebook position just before the move that completes a perpetual chase the
    referee rules a loss, and that move."""
    cases = json.loads((DATA / "xiangqi-repetition-cases.json").read_text())["cases"]
    case = next(c for c in cases if c["id"] == case_id)
    game = Game.new("xiangqi", fen=case["fen"])
    for text in case["moves"]:
        if game.outcome() is not None:
            break
        game.play(text)
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.PERPETUAL_CHASE
    chaser = not outcome.winner
    board = game.board.copy()
    while True:
        last = board.pop()
        if board.turn == chaser:
            return board, last.iccs()


@pytest.mark.parametrize("case_id", ["xq-rep-025", "xq-rep-029", "xq-rep-033", "xq-rep-037"])
def test_never_completes_a_perpetual_chase_the_referee_rules_a_loss(case_id: str) -> None:
    board, chasing = _before_the_chasers_last_move(case_id)
    result = Searcher().search(board, SearchLimits(depth=3))
    assert str(result.best) != chasing
    # Made to play it, the engine knows it loses the game.
    others = [m for m in board.legal_moves if m.iccs() != chasing]
    forced = Searcher().search(board, SearchLimits(depth=3), banned=others)
    assert str(forced.best) == chasing
    assert forced.lines[0].score_cp is not None and forced.lines[0].score_cp <= -(WIN - 10)


def test_janggi_side_ahead_on_points_passes_into_bikjang() -> None:
    # Official rules: the kings face each other and Cho, ahead on points (a chariot to
    # nothing), passes: that accepts the bikjang, and the game is settled on points.
    board = Board("4k4/9/9/9/9/9/9/9/R8/4K4 w - - 0 1", variant="janggi")
    assert board.is_bikjang()
    result = Searcher().search(board, SearchLimits(depth=3))
    assert result.best is not None and result.best.is_pass()
    assert result.lines[0].score_cp is not None and result.lines[0].score_cp >= WIN - 2


def test_janggi_side_ahead_on_points_takes_the_double_pass() -> None:
    # Cho has a soldier (2 points) against Han's bare king (1.5 bonus): after Han passes,
    # Cho's pass ends the game and wins on points.
    board = Board("4k4/9/9/9/9/9/9/9/4P4/3K5 b - - 0 1", variant="janggi")
    board.push(Move(4 + 9 * 9, 4 + 9 * 9))  # Han passes
    result = Searcher().search(board, SearchLimits(depth=3))
    assert result.best is not None and result.best.is_pass()
    assert result.lines[0].score_cp is not None and result.lines[0].score_cp >= WIN - 10


def test_janggi_side_behind_on_points_does_not_pass_back() -> None:
    # Han (to move) is behind: a pass after Cho's pass would lose on points.
    board = Board("4k4/9/9/9/9/9/9/9/4P4/3K5 w - - 0 1", variant="janggi")
    board.push(Move(3, 3))  # Cho passes
    result = Searcher().search(board, SearchLimits(depth=3))
    assert result.best is not None and not result.best.is_pass()


def test_multipv_gives_distinct_lines_best_first() -> None:
    result = Searcher().search(Board(), SearchLimits(depth=2), multipv=3)
    assert len(result.lines) == 3
    firsts = [line.pv[0] for line in result.lines]
    assert len(set(firsts)) == 3
    assert result.best == firsts[0]
    scores = [line.score_cp for line in result.lines]
    assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]


def test_banned_moves_are_not_played() -> None:
    board = Board("4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1")
    result = Searcher().search(board, SearchLimits(depth=3), banned=[Move.from_iccs("b0b9")])
    assert result.best is not None and str(result.best) != "b0b9"


def test_info_lines_deepen_and_carry_counts() -> None:
    infos: list[SearchInfo] = []
    Searcher().search(Board(variant="janggi"), SearchLimits(depth=4), on_info=infos.append)
    assert [i.depth for i in infos] == [1, 2, 3, 4]
    assert all(i.nodes > 0 and i.pv for i in infos)
    assert infos[-1].nodes > infos[0].nodes


def test_node_limit_is_respected() -> None:
    result = Searcher().search(Board(), SearchLimits(nodes=3000))
    assert result.best is not None
    assert result.lines[0].nodes <= 3000 + 256


def test_movetime_is_respected() -> None:
    # The move time counts from the control's start: one that began a second ago has
    # spent its 300 ms, and the search stops at its first look at the clock (counted in
    # nodes, not timed) with a move all the same.
    control = SearchControl(started=time.monotonic() - 1)
    result = Searcher().search(Board(), SearchLimits(movetime=300), control=control)
    assert result.best is not None
    assert result.nodes <= 64


def test_a_movetime_search_goes_on_while_its_time_lasts() -> None:
    control = SearchControl(started=time.monotonic() + 3600)  # its time has not begun
    limits = SearchLimits(movetime=300, nodes=3000)
    assert Searcher().search(Board(), limits, control=control).nodes >= 3000


def test_stop_ends_an_infinite_search() -> None:
    control = SearchControl()
    box: dict[str, object] = {}

    deep = threading.Event()

    def on_info(info: SearchInfo) -> None:
        if info.depth >= 3:
            deep.set()

    def run() -> None:
        box["result"] = Searcher().search(
            Board(), SearchLimits(infinite=True), control=control, on_info=on_info
        )

    thread = threading.Thread(target=run)
    thread.start()
    assert deep.wait(timeout=120)  # a bound on a hang only
    assert thread.is_alive()  # infinite: it waits for stop
    control.stop()
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert box["result"].best is not None  # type: ignore[attr-defined]


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_levels_play_legal_moves_quickly(level: int) -> None:
    board = Board()
    result = Searcher(seed=level).search(board, SearchLimits(movetime=2000), level=level)
    assert result.best is not None and board.is_legal(result.best)
    assert result.lines and result.lines[0].nodes <= (LEVELS[level].nodes or 10**9) + 256


def test_level_one_varies_its_moves() -> None:
    moves = {
        str(Searcher(seed=seed).search(Board(), SearchLimits(depth=1), level=1).best)
        for seed in range(12)
    }
    assert len(moves) >= 3


def test_the_last_info_line_of_a_weaker_level_names_the_move_it_plays() -> None:
    for seed in range(12):
        infos: list[SearchInfo] = []
        result = Searcher(seed=seed).search(
            Board(), SearchLimits(depth=2), level=1, on_info=infos.append
        )
        assert infos[-1].pv[0] == result.best, seed


def test_level_eight_is_deterministic() -> None:
    a = Searcher(seed=1).search(Board(), SearchLimits(depth=3), level=8).best
    b = Searcher(seed=2).search(Board(), SearchLimits(depth=3), level=8).best
    assert a == b


def test_bad_settings_are_rejected() -> None:
    with pytest.raises(ValueError, match="skill level"):
        Searcher().search(Board(), SearchLimits(depth=1), level=9)
    with pytest.raises(ValueError, match="MultiPV"):
        Searcher().search(Board(), SearchLimits(depth=1), multipv=0)
    with pytest.raises(ValueError, match="hash"):
        Searcher(hash_mb=0)


@pytest.mark.parametrize("variant", ["xiangqi", "janggi"])
def test_evaluation_is_the_dot_product_of_its_features(variant: str) -> None:
    """The features the tuner fits reproduce the evaluation the search uses."""
    import random

    from chuhan.search.evaluate import evaluate_with, evaluator_for, features, weight_vector

    ev = evaluator_for(variant)
    w = weight_vector(ev.weights)
    rng = random.Random(5)
    for _ in range(10):
        board = Board(variant=variant)
        for _ in range(80):
            moves = board.legal_move_codes()
            if not moves:
                break
            board.push_code(rng.choice(moves))
            f = features(ev, board.placement, board.turn)
            sign = 1 if board.turn else -1
            tempo = w[-2]
            dot = sum(a * c for a, c in zip(f, w, strict=True)) - f[-2] * tempo
            assert abs(evaluate_with(ev, board.placement, board.turn) - (sign * dot + tempo)) <= 2


def test_mate_limit_stops_at_the_mate() -> None:
    board = Board("4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1")
    result = Searcher().search(board, SearchLimits(mate=1))
    assert str(result.best) == "b0b9" and result.lines[0].mate == 1
    assert result.lines[0].depth <= 3


def test_probe_reports_what_the_hash_table_knows() -> None:
    searcher = Searcher()
    board = Board("4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - 0 1")
    assert searcher.probe(board) is None
    searcher.search(board, SearchLimits(depth=3))
    entry = searcher.probe(board)
    assert entry is not None
    best, depth, lower, _upper = entry
    assert str(best) == "b0b9" and depth >= 1
    assert lower is not None and lower > 20000


def test_mate_by_checks_is_found_beyond_the_search_depth() -> None:
    # xiangqibench xq_shi_qing_ya_qu_099: mate in 6 moves, checking all the way, while
    # black threatens mate at once. A depth-4 search alone cannot see it; the mate
    # attempt after each iteration proves it.
    board = Board("2r6/4akN2/C3P2c1/1C4P2/7r1/8R/9/5p3/4p4/5K3 w - - 0 1")
    result = Searcher().search(board, SearchLimits(depth=4))
    assert str(result.best) == "i4f4"
    assert result.lines[0].mate == 6
    assert len(result.lines[0].pv) >= 3


#: xiangqibench xq_shi_qing_ya_qu_459: red mates in 4 moves, the first a quiet king move
#: (e0e1) and the last a stalemate of black (which loses in xiangqi).
QUIET_MATE_FEN = "4C4/4P4/3k5/9/6b2/9/9/9/9/4K4 w - - 0 1"


def test_a_mate_search_proves_a_mate_that_starts_with_a_quiet_move() -> None:
    board = Board(QUIET_MATE_FEN)
    assert Searcher().search(board, SearchLimits(nodes=8000)).lines[0].mate is None
    found = Searcher().find_mate(board, moves=4, nodes=60_000)
    assert found is not None and found.mate == 4
    assert found.pv[0] == Move.from_iccs("e0e1") and len(found.pv) == 7
    for move in found.pv:
        board.push(move)
    assert not board.legal_moves  # black, to move, has none: lost


def _janggi_mates() -> list[dict[str, object]]:
    path = Path(__file__).parent / "data" / "janggi-mates.jsonl"
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


JANGGI_SHORT_MATES = [c for c in _janggi_mates() if int(str(c["mate_in_plies"])) <= 5]


@pytest.mark.parametrize("case", JANGGI_SHORT_MATES, ids=[str(c["id"]) for c in JANGGI_SHORT_MATES])
def test_a_mate_search_proves_the_janggi_mates_at_their_length(case: dict[str, object]) -> None:
    # The proved janggi mates in 1-3 (tools/make_janggi_mates.py): the same length, and a
    # first move among the winning ones.
    board = Board(str(case["fen"]), variant="janggi", rules=str(case["rules"]))
    found = Searcher().find_mate(board, moves=3, nodes=20_000)
    assert found is not None and found.mate is not None
    assert 2 * found.mate - 1 == case["mate_in_plies"]
    assert found.pv[0].iccs() in case["all_winning_first_moves"]  # type: ignore[operator]


#: xiangqibench xq_shi_qing_ya_qu_288: red mates in 6 moves (a4a9 first), with quiet moves
#: between the checks; the search before the attempt by threats needed 1,973,573 nodes.
THREAT_MATE_FEN = "3ak1Cnr/2P4Rn/3a5/9/9/C8/9/2p1B4/4rp3/3K5 w - - 0 1"


def test_a_mate_with_quiet_moves_is_found_within_a_small_node_budget() -> None:
    result = Searcher().search(Board(THREAT_MATE_FEN), SearchLimits(nodes=40_000))
    assert str(result.best) == "a4a9"
    assert result.lines[0].mate == 6
    assert result.lines[0].nodes < 40_000


def test_the_attempt_by_threats_tries_a_quiet_move_only_if_it_threatens_mate() -> None:
    board = Board(THREAT_MATE_FEN)
    checks_only = TreeSearch(board, SearchTables(capacity=1), SearchControl())
    assert checks_only._mate_attempt(12, 100_000) is None  # no mate by checks alone
    search = TreeSearch(board, SearchTables(capacity=1), SearchControl())
    found = search._mate_attempt(6, 20_000, quiet=True, threats=True)
    assert found is not None
    score, pv = found
    assert score == MATE - 11  # (the line, its first replies, may mate sooner)
    line = [Move(m >> 7, m & 127) for m in pv]
    assert line[0].iccs() == "a4a9"
    quiet_moves = 0
    for i, move in enumerate(line):
        if i % 2 == 0:  # red's
            quiet_moves += not board.gives_check(move)
        board.push(move)
    assert board.is_checkmate() and quiet_moves >= 1
    # A quiet move that threatens no mate by checks is not tried: the mate of
    # QUIET_MATE_FEN (a king move, then a stalemate) is beyond this attempt.
    quiet = TreeSearch(Board(QUIET_MATE_FEN), SearchTables(capacity=1), SearchControl())
    assert quiet._mate_attempt(4, 200_000, quiet=True, threats=True) is None


def test_a_mate_search_finds_no_mate_where_there_is_none() -> None:
    assert Searcher().find_mate(Board(), moves=3, nodes=20_000) is None
    # Not within three moves: the mate of QUIET_MATE_FEN takes four.
    assert Searcher().find_mate(Board(QUIET_MATE_FEN), moves=3, nodes=200_000) is None


def test_a_mate_search_gives_up_after_its_nodes() -> None:
    assert Searcher().find_mate(Board(QUIET_MATE_FEN), moves=4, nodes=2_000) is None


def test_a_line_that_reaches_the_xiangqi_move_limit_is_a_draw() -> None:
    # A chariot against an advisor wins, unless the 60-move limit ends the game first.
    fresh = Searcher().search(
        Board("3k5/4a4/9/9/9/9/9/9/9/R2K5 w - - 100 80"), SearchLimits(depth=4)
    )
    assert fresh.lines[0].score_cp is not None and fresh.lines[0].score_cp > 500
    last = Searcher().search(
        Board("3k5/4a4/9/9/9/9/9/9/9/R2K5 w - - 119 80"), SearchLimits(depth=4)
    )
    assert last.lines[0].score_cp == 0


def test_a_janggi_side_ahead_on_points_plays_for_the_move_limit() -> None:
    # Cho's chariot against Han's bare king, one ply before the 50-move limit: any quiet
    # move ends the game on points, which the search scores as the win it is.
    board = Board("4k4/9/9/9/9/9/9/9/R8/3K5 w - - 99 80", variant="janggi")
    result = Searcher().search(board, SearchLimits(depth=3))
    assert result.lines[0].score_cp is not None and result.lines[0].score_cp >= WIN - 2
    game = Game(board.variant, board.copy())
    assert result.best is not None
    game.play(result.best.iccs())
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.MOVE_LIMIT
    assert outcome.winner is True


def _random_game(rng: random.Random, variant: str) -> Board:
    """A board after 10 to 89 random legal moves from the start (fewer where a side has
    none)."""
    board = Board(variant=variant)
    for _ in range(rng.randrange(10, 90)):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


@pytest.mark.parametrize("variant", ["xiangqi", "janggi"])
def test_quiescence_finds_every_quiet_check(variant: str) -> None:
    """The checks the quiescence search adds at its first ply are all the quiet checks:
    direct ones, discovered ones, new cannon screens, janggi elephant leaps."""
    rng = random.Random(5)
    positions = 0
    for _ in range(150):
        board = _random_game(rng, variant)
        if not list(board.legal_moves):
            continue
        searcher = TreeSearch(board, SearchTables(capacity=1), SearchControl())
        squares = board.placement
        quiet = [m for m in board.legal_move_codes() if not squares[m & 127] and m >> 7 != m & 127]
        expected = set()
        for m in quiet:
            board.push_code(m)
            if board.is_check():
                expected.add(m)
            board.pop_code()
        assert set(searcher._checking(quiet)) == expected, board.fen()
        positions += 1
    assert positions > 100


@pytest.mark.parametrize("variant", ["xiangqi", "janggi"])
def test_the_checks_on_the_placement_are_the_checking_moves(variant: str) -> None:
    """The mate attempts pick their checks on the placement (``_checking``) among all the
    moves, captures included: exactly the legal moves after which the other side is in
    check, along random games."""
    rng = random.Random(26)
    captures = 0
    for _ in range(120):
        board = _random_game(rng, variant)
        legal = [m for m in board.legal_move_codes() if m >> 7 != m & 127]
        if not legal:
            continue
        searcher = TreeSearch(board, SearchTables(capacity=1), SearchControl())
        expected = set()
        for m in legal:
            captured = board.placement[m & 127]
            board.push_code(m)
            if board.is_check():
                expected.add(m)
                captures += bool(captured)
            board.pop_code()
        assert set(searcher._checking(legal)) == expected, board.fen()
        assert board.placement == searcher._board.placement  # put back as it was
    assert captures > 0


@pytest.mark.parametrize("variant", ["xiangqi", "janggi"])
def test_a_move_outside_the_check_filter_never_gives_check(variant: str) -> None:
    """The search tests a move for check only if it starts or lands where it could give
    one (``_check_filter``): every legal move outside those points, captures and passes
    included, leaves the other king unattacked, along random games."""
    rng = random.Random(9)
    moves_seen = filtered = 0
    for _ in range(100):
        board = Board(variant=variant)
        for _ in range(rng.randrange(10, 120)):
            legal = board.legal_move_codes()
            if not legal:
                break
            near, reach = _check_filter(variant == "janggi", board.king(not board.turn))
            squares = board.placement
            for m in legal:
                piece = squares[m >> 7]
                if near[m >> 7] or reach[abs(piece)][m & 127]:
                    continue
                board.push_code(m)
                assert not board.is_check(), (board.fen(), m)
                board.pop_code()
                filtered += 1
            moves_seen += len(legal)
            board.push_code(rng.choice(legal))
    assert filtered > moves_seen // 3


def test_a_full_hash_table_forgets_its_oldest_quarter_not_everything() -> None:
    tables = SearchTables(capacity=100)
    board = Board("r1bakab1r/9/1cn4cn/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R b - - 3 2")
    TreeSearch(board, tables, SearchControl()).run(SearchLimits(nodes=4_000))
    filled = list(tables.tt)
    assert 75 <= len(filled) <= 100  # it overflowed, and was never emptied
    assert tables.hashfull >= 750
    tables.make_room()
    assert list(tables.tt) == filled[len(filled) // 4 :]  # the newest three quarters stay


@pytest.mark.parametrize("variant", ["xiangqi", "janggi"])
def test_history_counts_go_down_for_quiet_moves_that_failed_and_stay_bounded(
    variant: str,
) -> None:
    """A cutoff by a quiet move takes its bonus off the quiet moves searched before it
    (counts below zero), and the pull back towards zero keeps every count within the
    bound however long the search ("gravity")."""
    from chuhan.search.tree import _HISTORY_MAX

    tables = SearchTables(capacity=1 << 16)
    board = Board(variant=variant)
    for _ in range(3):  # a game's searches, the counts carried from one to the next
        TreeSearch(board, tables, SearchControl()).run(SearchLimits(nodes=60_000))
        assert all(-_HISTORY_MAX <= h <= _HISTORY_MAX for h in tables.history)
        tables.next_search()
    assert any(h < 0 for h in tables.history)
    assert any(h > 0 for h in tables.history)


def test_rulings_cached_under_one_rule_set_are_not_used_under_another() -> None:
    # One ply before janggi's move limit at the start: official rules settle it on points
    # (Han's 1.5 wins), traditional rules call it a draw. The same searcher searches both.
    fen = "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 99 50"
    searcher = Searcher()
    official = searcher.search(Board(fen, variant="janggi"), SearchLimits(depth=2))
    assert official.lines[0].score_cp is not None and official.lines[0].score_cp <= -(WIN - 10)
    traditional = Board(fen, variant="janggi", rules="traditional")
    assert searcher.search(traditional, SearchLimits(depth=2)).lines[0].score_cp == 0


def test_a_mate_reported_near_the_move_limit_is_a_mate_the_referee_gives() -> None:
    # Mate in 6 by checks at a halfmove clock of 0; at 119 the limit draws the game first,
    # and the checks-only mate attempt, which does not count towards it, is not trusted.
    board = Board("2r6/4akN2/C3P2c1/1C4P2/7r1/8R/9/5p3/4p4/5K3 w - - 119 1")
    line = Searcher().search(board, SearchLimits(depth=4)).lines[0]
    game = Game(board.variant, board.copy())
    for move in line.pv:
        if game.outcome() is not None:
            break
        game.play(move.iccs())
    outcome = game.outcome()
    if line.mate is not None and line.mate > 0:
        assert outcome is not None and outcome.termination is Termination.CHECKMATE
    else:
        assert line.mate is None


# ---------------------------------------------------------------------------- null move


#: A test that spies on the search's methods needs the pure-Python search: compiled by
#: mypyc, it calls its own methods directly. `make test` runs this file in both builds.
pure_search_only = pytest.mark.skipif(
    chuhan.BUILD.compiled, reason="spies on the search's methods: pure Python only"
)


def _null_movers(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Record, for every null move the search makes, the side that made it. The null move's
    child is the only node searched with ``null_ok`` false; its side to move is the other."""
    movers: list[bool] = []
    original = TreeSearch._pvs

    def spy(
        self: TreeSearch, depth: int, alpha: int, beta: int, ply: int, in_check: bool, null_ok: bool
    ) -> int:
        if not null_ok:
            movers.append(not self._board.turn)
        return original(self, depth, alpha, beta, ply, in_check, null_ok)

    monkeypatch.setattr(TreeSearch, "_pvs", spy)
    return movers


@pure_search_only
def test_null_moves_prune_the_middlegame(monkeypatch: pytest.MonkeyPatch) -> None:
    # bench/search.py's first middlegame (with the master-fitted evaluation the null move
    # saves 44 % here at depth 6; after h2e2 h9g7 h0g2 i9h9 i0h0 b9c7, this test's position
    # before, it saves nothing: which nodes a null move cuts depends on the evaluation).
    board = Board("r1bakab1r/9/1cn4cn/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R b - - 3 2")
    movers = _null_movers(monkeypatch)
    with_null = Searcher().search(board, SearchLimits(depth=6))
    assert movers  # null moves were tried
    monkeypatch.setattr(TreeSearch, "_has_heavy", lambda self, side: False)
    movers.clear()
    without = Searcher().search(board, SearchLimits(depth=6))
    assert movers == []
    assert with_null.lines[0].nodes * 1.2 < without.lines[0].nodes


@pure_search_only
def test_no_null_move_for_a_side_without_chariot_horse_or_cannon(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The zugzwang guard: Black (king, advisors, elephants, soldiers) may have to move into
    # a loss, so passing its turn would prove nothing; Red (a cannon more) may still try one.
    board = Board("2bak4/4a4/4b4/p1p1p1p1p/9/9/P1P1P1P1P/4B4/4C4/2BAKA3 w - - 0 1")
    movers = _null_movers(monkeypatch)
    result = Searcher().search(board, SearchLimits(depth=7))
    assert result.best is not None
    assert True in movers and False not in movers


# ---------------------------------------------------------------------------- the book


def _book_moves(board: Board) -> set[Move]:
    return {move for move, _ in Book.load().entries(board.zobrist_hash())}


def test_a_level_with_the_book_plays_a_book_move_from_the_start() -> None:
    played = set()
    for seed in range(8):
        result = Searcher(seed=seed).search(Board(), SearchLimits(depth=2), level=8, book=True)
        assert result.best in _book_moves(Board()) and result.lines == [], seed
        played.add(result.best)
    assert len(played) >= 2  # chosen by weight among the book's moves, not always the top


def test_the_book_choice_follows_the_searchers_seed() -> None:
    def moves(seed: int) -> list[Move | None]:
        searcher = Searcher(seed=seed)
        return [
            searcher.search(Board(), SearchLimits(depth=1), level=6, book=True).best
            for _ in range(6)
        ]

    assert moves(5) == moves(5)


def test_a_level_without_the_book_plays_its_search_move() -> None:
    for seed in range(4):
        with_book = Searcher(seed=seed).search(Board(), SearchLimits(depth=1), level=1, book=True)
        searched = Searcher(seed=seed).search(Board(), SearchLimits(depth=1), level=1)
        assert with_book.lines and with_book.best == searched.best, seed


def test_the_book_is_left_past_the_levels_depth_and_out_of_the_book() -> None:
    board = Board()
    for move in ("h2e2", "h9g7", "h0g2"):  # three plies: past level 2's two
        board.push_iccs(move)
    assert _book_moves(board)
    assert Searcher(seed=1).search(board, SearchLimits(depth=1), level=2, book=True).lines
    assert not Searcher(seed=1).search(board, SearchLimits(depth=1), level=7, book=True).lines
    odd = Board()
    for move in ("a3a4", "a6a5", "a4a5"):  # no master opens so
        odd.push_iccs(move)
    assert not _book_moves(odd)
    result = Searcher(seed=1).search(odd, SearchLimits(depth=1), level=8, book=True)
    assert result.lines and odd.is_legal(result.best)  # type: ignore[arg-type]


def test_an_analysis_search_ignores_the_book() -> None:
    control = SearchControl()
    control.stop()
    result = Searcher().search(
        Board(), SearchLimits(infinite=True), control=control, level=8, book=True
    )
    assert result.best not in _book_moves(Board())  # stopped at once: its first move
