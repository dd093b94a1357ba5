"""chuhan.match and ``chuhan match``: time controls, openings, Elo, and small matches of the
scripted engine in tests/fake_engine.py (and chuhan's own engine) refereed by Game."""

from __future__ import annotations

import math
import re
import shlex
import sys
from pathlib import Path

import pytest

import chuhan.engine
from chuhan.cli import main
from chuhan.clock import TimeControl
from chuhan.engine import EngineError
from chuhan.match import (
    EngineSpec,
    GameResult,
    MatchConfig,
    MatchError,
    MatchResult,
    MatchTimeControl,
    Sprt,
    elo_difference,
    load_openings,
    pentanomial,
    pentanomial_llr,
    run_match,
    score_from_elo,
)
from chuhan.records import GameRecord, read_pgn, write_pgn
from chuhan.squares import Move
from chuhan.variants import get_variant

FAKE = [sys.executable, str(Path(__file__).parent / "fake_engine.py")]
XIANGQI = get_variant("xiangqi")
JANGGI = get_variant("janggi")


def fake(*flags: str) -> EngineSpec:
    return EngineSpec([*FAKE, *flags])


def play(config: MatchConfig) -> tuple[MatchResult, list[str]]:
    lines: list[str] = []
    return run_match(config, out=lines.append), lines


# ---------------------------------------------------------------------- time controls


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("movetime:0.1", MatchTimeControl("movetime", 0.1)),
        ("depth:3", MatchTimeControl("depth", 3)),
        ("nodes:5000", MatchTimeControl("nodes", 5000)),
        ("60+0.5", MatchTimeControl("clock", 0, TimeControl(60, increment=0.5))),
        ("40/60+0.5", MatchTimeControl("clock", 0, TimeControl(60, increment=0.5), moves=40)),
        ("5m+2", MatchTimeControl("clock", 0, TimeControl(300, increment=2))),
        ("60|3x10", MatchTimeControl("clock", 0, TimeControl(60, periods=3, period_seconds=10))),
        ("0.5", MatchTimeControl("clock", 0, TimeControl(0.5))),
    ],
)
def test_time_control_forms(text: str, expected: MatchTimeControl) -> None:
    assert MatchTimeControl.parse(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("movetime:0", "movetime needs seconds > 0"),
        ("depth:2.5", "depth needs a whole number"),
        ("nodes:many", "nodes needs a whole number"),
        ("fast", "expected movetime:S, depth:N"),
        ("0/60", "moves per session must be > 0"),
        ("60|0x10", "'60|0x10': byo-yomi needs at least one period"),
        ("5+x", r"^invalid time control '5\+x': expected movetime:S"),
    ],
)
def test_bad_time_controls(text: str, message: str) -> None:
    with pytest.raises(MatchError, match=message) as raised:
        MatchTimeControl.parse(text)
    assert "minutes" not in str(raised.value)  # the clock parser's minutes are not ours


# ---------------------------------------------------------------------- Elo


def result(number: int, score: float) -> GameResult:
    """A game in which engine 1 (always first mover here) scored ``score``."""
    text = {1.0: "1-0", 0.5: "1/2-1/2", 0.0: "0-1"}[score]
    return GameResult(number, (number + 1) // 2, 0, text, "checkmate", "", 10, GameRecord())


def test_elo_with_the_pair_variance() -> None:
    scores = [1.0, 1.0, 1.0, 0.0, 0.5, 0.5, 0.0, 1.0]
    elo, error, model = elo_difference([result(n, s) for n, s in enumerate(scores, 1)])
    assert elo == pytest.approx(88.74, abs=0.01)  # a 62.5% score
    # Pair scores 1, 0.5, 0.5, 0.5: sd sqrt(0.046875), so 0.625 +/- 1.96 * sd / 2.
    margin = 1.959964 * math.sqrt(0.046875) / 2
    low, high = 0.625 - margin, 0.625 + margin
    expected = (-400 * math.log10(1 / high - 1) + 400 * math.log10(1 / low - 1)) / 2
    assert error == pytest.approx(expected)
    assert model == "pentanomial model over 4 game pairs"


def test_elo_falls_back_to_per_game_variance() -> None:
    elo, error, model = elo_difference([result(1, 1.0), result(2, 0.5)])
    assert elo == pytest.approx(190.85, abs=0.01)
    assert model == "per-game variance over 2 games"
    assert error == math.inf  # 0.75 + 1.96 * 0.177 is past a score of 1


def test_even_score_is_zero_elo() -> None:
    elo, error, _ = elo_difference([result(n, 0.5) for n in range(1, 5)])
    assert (elo, error) == (0.0, 0.0)


# ---------------------------------------------------------------------- SPRT


def test_llr_of_pairs_all_won_or_all_lost() -> None:
    # Pairs only at 1 and 0: under "the pair score is s" the likeliest distribution puts
    # s on 1 and 1 - s on 0, so the LLR is W log(s1 / s0) + L log((1 - s1) / (1 - s0)).
    # elo 100 is a score of 0.640065; 10 pairs won and 6 lost: 2.4696 - 1.9721.
    assert score_from_elo(100) == pytest.approx(0.640065, abs=1e-6)
    llr = pentanomial_llr([6, 0, 0, 0, 10], 0, 100)
    assert llr == pytest.approx(0.4975, abs=1e-3)  # the unseen outcomes count 0.001 each
    assert pentanomial_llr([0, 0, 0, 0, 12], 0, 100) == pytest.approx(12 * 0.24696, abs=0.01)


def test_llr_tends_to_the_normal_approximation() -> None:
    # Many pairs, bounds close together: N (s1 - s0)(2m - s0 - s1) / (2 var), m and var
    # the pair scores' mean and variance (m 0.5125, var 0.0434 here).
    counts = [300, 2000, 5000, 2300, 400]
    scores = [0.0, 0.25, 0.5, 0.75, 1.0]
    n = sum(counts)
    mean = sum(c * x for c, x in zip(counts, scores, strict=True)) / n
    variance = sum(c * (x - mean) ** 2 for c, x in zip(counts, scores, strict=True)) / n
    s0, s1 = score_from_elo(0), score_from_elo(5)
    normal = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)
    assert normal == pytest.approx(14.49, abs=0.01)
    assert pentanomial_llr(counts, 0, 5) == pytest.approx(normal, rel=0.01)


def test_llr_is_zero_without_pairs_and_negative_when_even() -> None:
    assert pentanomial_llr([0, 0, 0, 0, 0], 0, 5) == 0.0
    assert pentanomial_llr([10, 20, 40, 20, 10], 0, 5) < 0  # a 50% score favours elo 0


def test_pentanomial_counts_complete_pairs() -> None:
    # Pairs: 1 + 1, 0 + 1/2, 1/2 + 1/2, and game 7 without its pair.
    games = [result(n, s) for n, s in enumerate([1.0, 1.0, 0.0, 0.5, 0.5, 0.5, 1.0], 1)]
    assert pentanomial(games) == (0, 1, 1, 0, 1)


def test_sprt_bounds() -> None:
    sprt = Sprt(0, 5)
    assert sprt.lower == pytest.approx(-2.944, abs=1e-3)  # log(0.05 / 0.95)
    assert sprt.upper == pytest.approx(2.944, abs=1e-3)  # log(0.95 / 0.05)
    assert Sprt(0, 5, alpha=0.1, beta=0.2).lower == pytest.approx(math.log(0.2 / 0.9))
    assert (sprt.decision(3.0), sprt.decision(-3.0), sprt.decision(0.0)) == ("H1", "H0", None)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ((5, 0), "invalid --sprt 5 0: ELO0 must be below ELO1"),
        ((0, math.inf), "invalid --sprt 0 inf: expected numbers"),
        ((0, 5, 0.0), "invalid --alpha 0: expected a rate between 0 and 0.5"),
        ((0, 5, 0.05, 0.7), "invalid --beta 0.7: expected a rate"),
    ],
)
def test_bad_sprt_settings(arguments: tuple[float, ...], message: str) -> None:
    with pytest.raises(MatchError, match=message):
        Sprt(*arguments)


def test_sprt_stops_the_match_when_h1_is_accepted() -> None:
    # Every pair won: 0.2464 a pair, so the 12th pair crosses log(0.95 / 0.05) = 2.944.
    config = MatchConfig(
        engines=(fake(), fake("--name", "Loser", "--illegal-after", "0")),
        variant=XIANGQI,
        time_control=MatchTimeControl.parse("depth:1"),
        games=100,
        sprt=Sprt(0, 100),
    )
    match, lines = play(config)
    assert len(match.games) == 24
    assert (match.decision, match.decided_after_pairs) == ("H1", 12)
    assert match.llr == pytest.approx(2.957, abs=0.01)
    assert lines[0].startswith("Match Fake Engine vs Loser: up to 100 games of xiangqi")
    assert "LLR 2.72 (-2.94, 2.94)" in lines[22] and lines[24].endswith("H1 accepted")
    assert lines[-1].splitlines()[-1] == (
        "SPRT elo0 0 elo1 100 (alpha 0.05, beta 0.05; bounds -2.94, 2.94): "
        "H1 accepted after 12 game pairs, LLR 2.96"
    )


def test_sprt_stops_the_match_when_h0_is_accepted() -> None:
    config = MatchConfig(
        engines=(fake("--illegal-after", "0"), fake("--name", "Winner")),
        variant=XIANGQI,
        time_control=MatchTimeControl.parse("depth:1"),
        games=100,
        sprt=Sprt(0, 100),
    )
    match, _ = play(config)
    # Every pair lost: log((1 - s1) / (1 - s0)) = -0.3287 a pair, past -2.944 at the 9th.
    assert (match.decision, match.decided_after_pairs, len(match.games)) == ("H0", 9, 18)


def test_sprt_without_a_decision_says_so() -> None:
    config = MatchConfig(
        engines=(fake(), fake("--name", "Loser", "--illegal-after", "0")),
        variant=XIANGQI,
        time_control=MatchTimeControl.parse("depth:1"),
        games=6,
        sprt=Sprt(0, 100),
    )
    match, lines = play(config)
    assert len(match.games) == 6 and match.decision is None
    assert lines[-1].endswith("no decision after 3 game pairs (the games ran out), LLR 0.74")


# ---------------------------------------------------------------------- openings


def test_openings_from_text(tmp_path: Path) -> None:
    path = tmp_path / "openings.txt"
    path.write_text(
        "# central cannon\nh2e2 h9g7\n\n"
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1 moves b2e2\n",
        encoding="utf-8",
    )
    openings = load_openings(path, XIANGQI)
    assert [len(o.moves) for o in openings] == [2, 1]
    assert openings[1].fen is not None
    assert openings[0].label == "openings.txt:2"


def test_openings_from_pgn(tmp_path: Path) -> None:
    path = tmp_path / "openings.pgn"
    line = [Move.from_iccs(m) for m in ("h2e2", "h9g7", "h0g2")]
    path.write_text(write_pgn(GameRecord.from_moves(line)), encoding="utf-8")
    (opening,) = load_openings(path, XIANGQI)
    assert opening.moves == tuple(line)
    with pytest.raises(MatchError, match="is xiangqi, not janggi"):
        load_openings(path, JANGGI)


def test_bad_opening_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "openings.txt"
    path.write_text("h2e2\nh2h8\n", encoding="utf-8")
    with pytest.raises(MatchError, match=r"openings.txt:2: illegal move h2h8"):
        load_openings(path, XIANGQI)


# ---------------------------------------------------------------------- matches


def test_xiangqi_match_in_colour_swapped_pairs_written_to_pgn(tmp_path: Path) -> None:
    out = tmp_path / "games.pgn"
    config = MatchConfig(
        engines=(
            fake("--name", "Alpha"),
            EngineSpec([*FAKE, "--name", "Beta", "--ranks", "1-10"], coordinates="ranks-1-10"),
        ),
        variant=XIANGQI,
        time_control=MatchTimeControl.parse("10+0.1"),
        games=4,
        random_plies=3,
        pgn=str(out),
        concurrency=2,
        seed=7,
    )
    match, lines = play(config)
    assert len(match.games) == 4
    assert lines[-2].startswith("Score of Alpha vs Beta: ")
    records = read_pgn(out.read_text(encoding="utf-8"))
    assert len(records) == 4 and all(not r.errors for r in records)
    by_round = {r.headers["Round"]: r for r in records}
    for pair in ("1", "2"):
        first, second = by_round[f"{pair}.1"], by_round[f"{pair}.2"]
        assert (first.headers["Red"], first.headers["Black"]) == ("Alpha", "Beta")
        assert (second.headers["Red"], second.headers["Black"]) == ("Beta", "Alpha")
        assert first.main_line_moves()[:3] == second.main_line_moves()[:3]
    for game in match.games:
        record = by_round[f"{game.pair}.{2 - game.number % 2}"]
        assert record.result == game.result
        assert record.board().ply == 3 + game.plies


def test_janggi_match_with_random_setups(tmp_path: Path) -> None:
    out = tmp_path / "janggi.pgn"
    fsf_like = fake("--name", "Fairy-Stockfish", "--ranks", "1-10", "--variants", "xiangqi,janggi")
    config = MatchConfig(
        engines=(fsf_like, EngineSpec([*FAKE, "--game", "janggi"], coordinates="ranks-0-9")),
        variant=JANGGI,
        time_control=MatchTimeControl.parse("depth:1"),
        games=2,
        janggi_setup="random",
        pgn=str(out),
        seed=3,
    )
    match, _ = play(config)
    records = read_pgn(out.read_text(encoding="utf-8"))
    assert [r.variant.game for r in records] == ["janggi", "janggi"]
    assert records[0].fen == records[1].fen
    assert records[0].headers["White"] == "Fairy-Stockfish"
    assert all(g.termination not in ("illegal_move", "engine_error") for g in match.games)


def test_an_illegal_move_loses_with_the_reason(tmp_path: Path) -> None:
    out = tmp_path / "games.pgn"
    config = MatchConfig(
        engines=(fake(), fake("--name", "Cheat", "--illegal-after", "1")),
        variant=XIANGQI,
        time_control=MatchTimeControl.parse("movetime:0.05"),
        games=2,
        pgn=str(out),
    )
    match, _ = play(config)
    assert [g.score() for g in match.games] == [1.0, 1.0]
    assert {g.termination for g in match.games} == {"illegal_move"}
    record = read_pgn(out.read_text(encoding="utf-8"))[0]
    assert record.termination == "illegal_move"
    assert "Black (Cheat) loses: engine 'Cheat' sent the illegal move 'a0a9'" in (
        record.end().comment
    )


def test_a_crashed_engine_loses_and_is_restarted() -> None:
    config = MatchConfig(
        engines=(fake("--die-after", "2"), fake()),
        variant=XIANGQI,
        time_control=MatchTimeControl.parse("depth:1"),
        games=2,
    )
    match, _ = play(config)
    assert [g.score() for g in match.games] == [0.0, 0.0]
    assert all("terminated (exit code 3)" in g.reason for g in match.games)


def test_a_slow_engine_loses_on_time() -> None:
    config = MatchConfig(
        engines=(fake(), fake("--name", "Slow", "--delay", "0.4")),
        variant=XIANGQI,
        time_control=MatchTimeControl.parse("0.3"),
        games=1,
    )
    match, _ = play(config)
    game = match.games[0]
    assert (game.result, game.termination) == ("1-0", "time")
    assert game.reason == "Red wins: Black ran out of time."


def test_each_session_gives_the_base_time_again() -> None:
    # 0.4 s would not last a whole game at 0.05 s a move; 0.4 s every 2 moves does.
    config = MatchConfig(
        engines=(fake("--delay", "0.05"), fake("--delay", "0.05")),
        variant=XIANGQI,
        time_control=MatchTimeControl.parse("2/0.4"),
        games=1,
    )
    match, _ = play(config)
    assert match.games[0].termination == "repetition_draw"
    assert match.games[0].plies > 8


def test_a_hung_engine_loses_on_time_under_movetime(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chuhan.engine, "GRACE", 0.3)
    config = MatchConfig(
        engines=(fake("--hang-after", "0"), fake()),
        variant=XIANGQI,
        time_control=MatchTimeControl.parse("movetime:0.05"),
        games=1,
        time_margin=0.1,
    )
    match, _ = play(config)
    assert (match.games[0].result, match.games[0].termination) == ("0-1", "time")


def test_ply_limit_only_where_the_rules_have_no_move_limit() -> None:
    config = MatchConfig(
        engines=(fake("--game", "janggi", "--ranks", "1-10"),) * 2,
        variant=get_variant("janggi", "classic"),
        time_control=MatchTimeControl.parse("depth:1"),
        games=1,
        max_plies=6,
    )
    match, _ = play(config)
    assert (match.games[0].termination, match.games[0].plies) == ("adjudication", 6)


def test_a_bad_engine_option_stops_the_match_before_it_starts() -> None:
    config = MatchConfig(
        engines=(EngineSpec(FAKE, options=(("Skill Level", "99"),)), fake()),
        variant=XIANGQI,
        time_control=MatchTimeControl.parse("depth:1"),
    )
    with pytest.raises(EngineError, match="outside its range 0 to 20"):
        play(config)


# ---------------------------------------------------------------------- command line


def test_match_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli.pgn"
    command = shlex.join(FAKE)
    code = main(
        [
            "match",
            command,
            f"{command} --name Other",
            "--games",
            "4",
            "--tc",
            "depth:1",
            "--option1",
            "Skill Level=3",
            "--pgn",
            str(out),
            "--seed",
            "1",
        ]
    )
    printed = capsys.readouterr().out
    assert code == 0
    assert "Score of Fake Engine vs Other: " in printed
    assert "Elo difference: " in printed and "(95%, pentanomial model over 2 game pairs)" in printed
    games = read_pgn(out.read_text(encoding="utf-8"))
    assert len(games) == 4
    # Without --openings each pair opens with 4 random plies, so the pairs differ.
    first_pair, second_pair = (
        (games[i].fen, [m.iccs() for m in games[i].main_line_moves()][:4]) for i in (0, 2)
    )
    assert first_pair != second_pair


def test_match_command_reports_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "a", "b", "--tc", "fast"]) == 2
    assert "invalid time control 'fast'" in capsys.readouterr().err


def test_match_command_reports_an_engine_that_cannot_start(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["match", "no-such-engine-xyz", "no-such-engine-xyz", "--tc", "depth:1"]) == 2
    assert "chuhan: error: cannot start engine 'no-such-engine-xyz'" in capsys.readouterr().err


def test_match_command_refuses_a_bad_sprt(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "a", "b", "--sprt", "5", "0"]) == 2
    assert "invalid --sprt 5 0: ELO0 must be below ELO1" in capsys.readouterr().err


# ---------------------------------------------------------------------- chuhan's own engine


def test_sprt_match_of_levels_far_apart_stops_early_with_h1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Level 8 against level 1 (a random move 30% of the time), both at depth 1: H1 (400
    # Elo stronger, a score of 0.91) is accepted after about 5 pairs, well before 40 games.
    engine = shlex.join([sys.executable, "-m", "chuhan.cli", "engine"])
    code = main(
        [
            "match",
            engine,
            engine,
            "--option2",
            "Skill Level=1",
            "--tc",
            "depth:1",
            "--games",
            "40",
            "--sprt",
            "0",
            "400",
            "--seed",
            "1",
        ]
    )
    printed = capsys.readouterr().out
    assert code == 0
    verdict = re.search(r"H1 accepted after (\d+) game pairs, LLR", printed)
    assert verdict is not None, printed
    played = int(re.search(r"of (\d+) games?\n", printed)[1])  # type: ignore[index]
    assert played < 40 and int(verdict[1]) < 20


def test_chuhan_engine_against_the_fake_at_depth_1() -> None:
    own = EngineSpec([sys.executable, "-m", "chuhan.cli", "engine"])
    config = MatchConfig(
        engines=(own, fake()),
        variant=XIANGQI,
        time_control=MatchTimeControl.parse("depth:1"),
        games=2,
    )
    match, _ = play(config)
    assert match.names[0].startswith("chuhan")
    assert all(g.termination not in ("illegal_move", "engine_error") for g in match.games)


def test_each_engine_searches_under_its_own_limit_with_tc2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A handicap match (chuhan at 55,000 nodes against Fairy-Stockfish at 16,000 in
    # bench/strength.md): each engine is sent its own limit, whichever colour it has.
    first_log, second_log = tmp_path / "first.log", tmp_path / "second.log"
    command = shlex.join(FAKE)
    code = main(
        [
            "match",
            f"{command} --log {first_log}",
            f"{command} --name Other --log {second_log}",
            "--games",
            "2",
            "--tc",
            "nodes:55000",
            "--tc2",
            "nodes:16000",
            "--seed",
            "1",
        ]
    )
    assert code == 0
    assert "nodes 55000 against nodes 16000" in capsys.readouterr().out
    first = [line for line in first_log.read_text().splitlines() if line.startswith("go")]
    second = [line for line in second_log.read_text().splitlines() if line.startswith("go")]
    assert first and set(first) == {"go nodes 55000"}
    assert second and set(second) == {"go nodes 16000"}


def test_tc2_with_a_clock_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "a", "b", "--tc", "10+0.1", "--tc2", "nodes:100"]) == 2
    assert "the engines can play under different limits only" in capsys.readouterr().err
