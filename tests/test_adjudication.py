"""The game-end rulings of chuhan.adjudication called on a board alone, without a Game,
and the record writers' shared helpers (chuhan.records.writing)."""

from __future__ import annotations

from chuhan import Board, Move
from chuhan.adjudication import (
    Outcome,
    Termination,
    janggi_outcome,
    janggi_points,
    xiangqi_outcome,
)
from chuhan.game import Game
from chuhan.records.writing import comment_token, quote_tag_value, tagged_text, wrap_tokens


def test_the_referee_rules_on_a_board_as_the_game_does() -> None:
    board = Board("3k5/R8/3R5/9/9/9/9/9/9/4K4 w")
    board.push(Move.from_iccs("a8d8"))
    outcome = xiangqi_outcome(board)
    assert outcome == Outcome(
        True, Termination.CHECKMATE, "Red wins: Black is checkmated by the chariot on d8."
    )
    game = Game.new(fen="3k5/R8/3R5/9/9/9/9/9/9/4K4 w")
    game.play("a8d8")
    assert game.outcome() == outcome


def test_the_referee_lets_a_game_in_progress_go_on() -> None:
    assert xiangqi_outcome(Board()) is None
    assert janggi_outcome(Board(variant="janggi")) is None


def test_a_double_pass_is_settled_on_points_from_the_board_alone() -> None:
    board = Board(variant="janggi")
    for iccs in ("e1e1", "e8e8"):
        board.push(Move.from_iccs(iccs))
    outcome = janggi_outcome(board)
    assert outcome is not None and outcome.termination is Termination.DOUBLE_PASS
    assert outcome.points == janggi_points(board) == {"cho": 72.0, "han": 73.5}


def test_the_game_module_names_the_same_outcome_and_termination() -> None:
    import chuhan.game

    assert chuhan.game.Outcome is Outcome and chuhan.game.Termination is Termination


def test_a_tag_value_is_quoted_on_one_line() -> None:
    assert quote_tag_value('a "b"\\c\nd') == 'a \\"b\\"\\\\c d'


def test_a_comment_cannot_close_itself_early() -> None:
    assert comment_token("a } b") == "{a ) b}"


def test_movetext_wraps_at_eighty_columns() -> None:
    tokens = ["h2e2"] * 20
    lines = wrap_tokens(tokens).split("\n")
    assert all(len(line) <= 80 for line in lines) and len(lines) == 2
    assert " ".join(lines) == " ".join(tokens)


def test_tags_come_before_the_movetext() -> None:
    assert tagged_text({"Event": "x"}, ["1.", "h2e2", "*"]) == '[Event "x"]\n\n1. h2e2 *\n'
