"""The referee as players meet it: every way a game ends, with its reason, and the events
beyond moves (setup choice, resignation, draw offers, takebacks, flag fall)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from chuhan.game import Game, GameError, Termination
from chuhan.squares import Move

CASEBOOK = json.loads(
    (Path(__file__).parent / "data" / "xiangqi-repetition-cases.json").read_text("utf-8")
)["cases"]


def play(game: Game, *moves: str) -> Game:
    for move in moves:
        game.play(move)
    return game


# ---------------------------------------------------------------- xiangqi endings


def test_checkmate_names_the_mating_piece() -> None:
    game = play(Game.new(fen="3k5/R8/3R5/9/9/9/9/9/9/4K4 w"), "a8d8")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner is True
    assert outcome.termination is Termination.CHECKMATE
    assert outcome.reason == "Red wins: Black is checkmated by the chariot on d8."
    assert outcome.result() == "1-0"
    with pytest.raises(GameError, match="over"):
        game.play("d9e9")


def test_stalemate_loses_in_xiangqi() -> None:
    outcome = Game.new(fen="3k5/8R/9/9/9/9/9/9/9/4K4 b").outcome()
    assert outcome is not None and outcome.winner is True
    assert outcome.termination is Termination.STALEMATE


def test_perpetual_check_loses_with_the_reason() -> None:
    case = CASEBOOK[0]  # Red checks with the chariot on every move
    game = Game.new(fen=case["fen"])
    for move in case["moves"][:8]:  # the start position comes back a third time
        game.play(move)
    outcome = game.outcome()
    assert outcome is not None and outcome.winner is False
    assert outcome.termination is Termination.PERPETUAL_CHECK
    assert "Red" in outcome.reason and "check" in outcome.reason


def test_the_repetition_count_is_a_setting() -> None:
    case = CASEBOOK[0]
    game = Game.new(fen=case["fen"], repetitions=2)
    play(game, *case["moves"][:4])
    assert game.outcome() is not None
    game = Game.new(fen=case["fen"], repetitions=4)
    play(game, *case["moves"][:8])
    assert game.outcome() is None


def test_insufficient_material_is_a_draw() -> None:
    outcome = Game.new(fen="3k5/4a4/9/9/9/9/9/4B4/9/4K4 w").outcome()
    assert outcome is not None and outcome.winner is None
    assert outcome.termination is Termination.INSUFFICIENT_MATERIAL


def test_natural_move_limit_is_sixty_moves_each_without_capture() -> None:
    fen = "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1"
    shuttle = ["a0a1", "d9d8", "a1a0", "d8d9"] * 30  # 120 plies, no capture, no check
    # Repetition would end this much earlier; count plies with the limit alone.
    game = Game.new(fen=fen, repetitions=1000)
    play(game, *shuttle[:119])
    assert game.outcome() is None
    game.play(shuttle[119])
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.MOVE_LIMIT


def test_checks_beyond_ten_do_not_count_towards_the_move_limit() -> None:
    # Red checks with every move for 120 plies: only ten of its 60 checking moves count,
    # so the limit is not reached although no capture was made.
    game = Game.new(fen="3k5/R8/9/9/9/9/9/9/9/4K4 w", repetitions=1000)
    play(game, *["a8a9", "d9d8", "a9a8", "d8d9"] * 30)
    assert game.board.halfmove_clock == 120
    assert game.outcome() is None


def test_a_mate_on_the_last_move_before_the_limit_still_wins() -> None:
    game = play(Game.new(fen="3k5/R8/3R5/9/9/9/9/9/9/4K4 w - - 119 60"), "a8d8")
    assert game.board.halfmove_clock == 120
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.CHECKMATE


# ---------------------------------------------------------------- events


def test_resignation_and_agreement() -> None:
    game = Game.new()
    game.resign(True)
    outcome = game.outcome()
    assert outcome is not None and outcome.winner is False
    assert outcome.reason == "Black wins: Red resigned."
    game = Game.new()
    game.offer_draw(True)
    assert game.draw_offer is True
    game.accept_draw(False)
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.AGREEMENT


@pytest.mark.parametrize(
    ("draw", "winner", "reason"),
    [
        (False, False, "Black wins: Red left the game."),
        (True, None, "Draw: Red left the game and Black called it a draw."),
    ],
)
def test_a_player_who_left_loses_or_draws_as_the_opponent_claims(
    draw: bool, winner: bool | None, reason: str
) -> None:
    game = Game.new()
    game.offer_draw(True)
    game.abandon(True, draw=draw)
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.ABANDONMENT
    assert (outcome.winner, outcome.reason, game.draw_offer) == (winner, reason, None)
    with pytest.raises(GameError):
        game.abandon(False)


@pytest.mark.parametrize(
    ("no_start", "reason"),
    [
        (False, "Game aborted by Black."),
        (True, "Game aborted: Black did not make a first move in time."),
    ],
)
def test_an_aborted_game_has_no_winner_and_no_result(no_start: bool, reason: str) -> None:
    game = Game.new()
    game.push(Move.from_iccs("h2e2"))
    game.abort(False, no_start=no_start)
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.ABORTED
    assert (outcome.winner, outcome.reason, outcome.result()) == (None, reason, "*")
    with pytest.raises(GameError):
        game.abort(True)


def test_a_draw_offer_lapses_when_the_opponent_moves() -> None:
    game = Game.new()
    game.offer_draw(True)
    game.play("h2e2")  # the offerer may move after offering
    assert game.draw_offer is True
    game.play("h9g7")
    assert game.draw_offer is None
    with pytest.raises(GameError, match="no draw offer"):
        game.accept_draw(False)


def test_takeback_request_accepted_and_declined() -> None:
    game = play(Game.new(), "h2e2", "h9g7")
    game.request_takeback(True)  # Red wants its move back: Black's reply goes too
    game.decline_takeback(False)
    assert game.board.ply == 2
    game.request_takeback(True)
    taken = game.accept_takeback(False)
    assert [str(m) for m in taken] == ["h9g7", "h2e2"]
    assert game.board.ply == 0


def test_flag_fall_loses_unless_the_opponent_cannot_win() -> None:
    game = Game.new()
    game.flag(True)
    outcome = game.outcome()
    assert outcome is not None and outcome.winner is False
    game = Game.new(fen="3k5/4a4/9/9/9/9/9/9/9/R3K4 b")
    game.flag(True)
    outcome = game.outcome()
    assert outcome is not None and outcome.winner is None


# ---------------------------------------------------------------- janggi


def test_janggi_setup_han_chooses_first_then_cho() -> None:
    game = Game.new("janggi")
    assert game.setup_pending is False
    with pytest.raises(GameError, match="Han chooses"):
        game.choose_setup(True, "마상마상")
    with pytest.raises(GameError, match="setup is not finished"):
        game.play("a3a4")
    game.choose_setup(False, "상마상마")
    game.choose_setup(True, "HEHE")
    assert game.setup_pending is None
    assert game.setup == {"han": "상마상마", "cho": "마상마상"}
    assert game.board.fen().split()[0].endswith("RNBA1ANBR")
    game.play("a3a4")


def test_janggi_double_pass_is_settled_on_points() -> None:
    game = Game.new("janggi", setup={"han": "마상상마", "cho": "마상상마"})
    play(game, "e1e1", "e8e8")
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.DOUBLE_PASS
    assert outcome.points == {"cho": 72.0, "han": 73.5}
    assert outcome.winner is False
    assert "73.5" in outcome.reason


def test_janggi_traditional_double_pass_is_a_draw() -> None:
    game = Game.new("janggi", "traditional", fen="4k4/9/9/9/9/9/9/9/3K5/9 w")
    play(game, "d1d1", "e9e9")
    outcome = game.outcome()
    assert outcome is not None and outcome.winner is None


def test_janggi_bikjang_accepted_by_a_pass_goes_to_points() -> None:
    game = Game.new("janggi", fen="4k4/9/9/9/9/9/9/9/9/3K4R w")
    game.play("d0e0")  # Cho's king steps onto the open file: bikjang
    assert game.board.is_bikjang()
    game.play("e9e9")
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.BIKJANG
    assert outcome.winner is True and outcome.points == {"cho": 13.0, "han": 1.5}


def test_a_pass_that_would_end_the_janggi_game_is_known_before_it_is_played() -> None:
    game = Game.new("janggi", setup={"han": "마상상마", "cho": "마상상마"})
    assert game.outcome_if_passed() is None  # a first pass lets the game go on
    play(game, "e1e1")
    ending = game.outcome_if_passed()
    assert ending is not None and ending.termination is Termination.DOUBLE_PASS
    assert ending.points == {"cho": 72.0, "han": 73.5}
    assert game.outcome() is None and game.board.ply == 1  # nothing was played
    play(game, "e8e8")
    assert game.outcome() == ending


def test_a_pass_that_lets_the_opponent_end_the_game_by_passing_back_is_known() -> None:
    game = Game.new("janggi", setup={"han": "마상상마", "cho": "마상상마"})
    answered = game.outcome_if_passed_back()
    assert answered is not None and answered.termination is Termination.DOUBLE_PASS
    assert answered.winner is False and answered.points == {"cho": 72.0, "han": 73.5}
    assert game.board.ply == 0 and game.outcome() is None
    play(game, "e1e1")
    assert game.outcome_if_passed_back() is None  # a pass now ends the game by itself


def test_a_pass_answering_bikjang_is_known_to_end_the_game() -> None:
    game = Game.new("janggi", fen="4k4/9/9/9/9/9/9/9/9/3K4R w")
    game.play("d0e0")
    ending = game.outcome_if_passed()
    assert ending is not None and ending.termination is Termination.BIKJANG


def test_janggi_perpetual_check_loses() -> None:
    game = Game.new("janggi", fen="3k5/9/9/9/9/9/9/9/9/R3K4 w")
    for move in ["a0a9", *["d9d8", "a9a8", "d8d9", "a8a9"] * 3]:
        if game.outcome() is not None:
            break
        game.play(move)
    assert game.board.ply == 9  # the position after Cho's first check, a third time
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.PERPETUAL_CHECK
    assert outcome.winner is False


def test_janggi_modern_fourth_repetition_loses() -> None:
    game = Game.new("janggi", "modern", fen="3k5/9/9/9/9/9/9/9/9/R3K4 w")
    shuttle = ["a0a1", "d9d8", "a1a0", "d8d9"]
    play(game, *shuttle, *shuttle, *shuttle[:3])
    assert game.outcome() is None
    game.play(shuttle[3])
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.REPETITION
    assert outcome.winner is True


# ---------------------------------------------------------------- the command line


def test_adjudicate_judges_the_whole_casebook_quickly() -> None:
    lines = "".join(json.dumps({"fen": c["fen"], "moves": c["moves"]}) + "\n" for c in CASEBOOK)
    lines += "not json\n" + json.dumps({"moves": ["h2h8"]}) + "\n"
    result = subprocess.run(
        [sys.executable, "-m", "chuhan.cli", "adjudicate"],
        input=lines,
        capture_output=True,
        text=True,
        check=True,
    )
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(answers) == len(CASEBOOK) + 2
    right = 0
    for case, answer in zip(CASEBOOK, answers, strict=False):
        assert answer["over"] is True, case["id"]
        moves_played = len(case["moves"])
        red_to_move = (moves_played % 2 == 0) == (" w " in case["fen"] + " ")
        winner = answer["winner"]
        verdict = (
            "draw" if winner is None else ("win" if (winner == "red") == red_to_move else "loss")
        )
        right += verdict == case["verdict"]
    assert right == len(CASEBOOK)
    assert "invalid JSON" in answers[-2]["error"]
    assert "illegal move" in answers[-1]["error"]


def test_a_finished_game_exports_to_pgn_with_its_result_and_reason() -> None:
    from chuhan.records import GameRecord, read_pgn, write_pgn

    game = play(Game.new(fen="3k5/R8/3R5/9/9/9/9/9/9/4K4 w"), "a8d8")
    text = write_pgn(GameRecord.from_game(game, {"Event": "Casebook"}), format="wxf")
    assert '[Result "1-0"]' in text and '[Termination "checkmate"]' in text
    assert "checkmated by the chariot on d8" in text
    (record,) = read_pgn(text)
    assert [str(m) for m in record.main_line_moves()] == ["a8d8"]
    assert record.result == "1-0"


def test_a_draw_offer_cannot_undo_a_checkmate() -> None:
    game = Game.new(fen="3k5/R8/3R5/9/9/9/9/9/9/4K4 w")
    game.offer_draw(True)
    game.play("R9.6")
    with pytest.raises(GameError, match="over"):
        game.accept_draw(False)
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.CHECKMATE


def test_a_takeback_cannot_be_accepted_after_the_game_ended() -> None:
    game = play(Game.new(), "h2e2")
    game.request_takeback(True)
    game.flag(False)
    with pytest.raises(GameError, match="over"):
        game.accept_takeback(False)
    assert game.board.ply == 1


def test_classic_mate_by_a_piece_defended_only_by_its_king_is_a_draw() -> None:
    # Han's king can only take the chariot on e8, which leaves the kings facing.
    fen = "4k4/4R4/9/9/9/9/9/9/4K4/9 b"
    outcome = Game.new("janggi", "classic", fen=fen).outcome()
    assert outcome is not None and outcome.winner is None
    assert "Gollon" in outcome.reason
    assert Game.new("janggi", "official", fen=fen).outcome() is None


def test_classic_side_that_made_the_kings_face_cannot_win() -> None:
    # Cho steps onto Han's file (the kings face), Han steps aside, Cho mates with a chariot.
    moves = ("e0d0", "d9e9", "a8a9")
    fen = "3k5/RR7/9/9/9/9/9/9/9/4K4 w"
    classic = play(Game.new("janggi", "classic", fen=fen), *moves)
    outcome = classic.outcome()
    assert outcome is not None and outcome.winner is None
    assert "gave up the right to win" in outcome.reason
    official = play(Game.new("janggi", "official", fen=fen), *moves)
    outcome = official.outcome()
    assert outcome is not None and outcome.winner is True
    assert outcome.termination is Termination.CHECKMATE


def test_the_verdict_follows_every_change_of_the_board_and_the_setting() -> None:
    # The referee keeps its verdict (and the legal moves) with the position and history it
    # judged: taking a move back, playing another, replacing the position or changing
    # the repetition count is judged afresh.
    game = play(Game.new(fen="3k5/R8/3R5/9/9/9/9/9/9/4K4 w"), "a8d8")
    assert game.outcome() is not None and game.legal_move_codes() == []
    game.board.pop()
    assert game.outcome() is None
    assert game.legal_move_codes() == game.board.legal_move_codes() != []
    start = Game.new()
    before = start.legal_move_codes()
    play(start, "h2e2")
    assert start.outcome() is None
    assert start.legal_move_codes() == start.board.legal_move_codes() != before
    start.board.pop()
    assert start.legal_move_codes() == before
    game.board.set_fen("3k5/8R/9/9/9/9/9/9/9/4K4 b")
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.STALEMATE
    case = CASEBOOK[0]
    game = play(Game.new(fen=case["fen"], repetitions=4), *case["moves"][:4])
    assert game.outcome() is None
    game.repetitions = 2
    assert game.outcome() is not None
    game.repetitions = 4
    assert game.outcome() is None
