"""Differential tests against Fairy-Stockfish (pyffish): seeded random playouts under each
rule set that has a Fairy-Stockfish counterpart, from the start positions, from every
janggi setup arrangement and from the perft.json positions.

For each playout (see ``oracle.compare_with_fsf``): Fairy-Stockfish replays every move we
played and must accept it; the check (and mate) status after every ply must agree; at
sampled plies (every ply in the ``every ply`` tests) and at the end of the game the legal
move sets and full FENs must be equal. Playouts are biased towards passes, bikjang,
captures and checks often enough that janggi games do end by two passes and by a pass in
bikjang, and the tests assert that they did.

The regular suite runs a deterministic sample; ``-m slow`` runs 1,000 playouts per rule
set (janggi ones from random pairs of setup arrangements).
"""

from __future__ import annotations

import random

import pytest

import chuhan
import oracle
from chuhan.variants import Variant, get_variant

pyffish = pytest.importorskip("pyffish")

RULE_SETS = ("xiangqi:asian", "janggi:official", "janggi:traditional", "janggi:modern")
JANGGI_RULE_SETS = tuple(name for name in RULE_SETS if name.startswith("janggi"))

MAX_PLIES = 150
#: Plies per playout whose legal moves and FEN are compared (besides the last one).
SAMPLED_PLIES = 8
REGULAR_PLAYOUTS = 24
SLOW_PLAYOUTS = 1000
SLOW_CHUNKS = 10


def biases(variant: Variant) -> tuple[oracle.Bias, ...]:
    return oracle.JANGGI_BIASES if variant.is_janggi else oracle.XIANGQI_BIASES


def run_playouts(
    variant: Variant,
    seeds: range,
    *,
    start_fen: str | None = None,
    random_arrangements: bool = False,
    max_plies: int = MAX_PLIES,
    sample: int | None = SAMPLED_PLIES,
) -> oracle.Tally:
    """Play and compare one playout per seed; each seed fixes the start (when drawn), the
    bias profile, the moves and the sampled plies."""
    tally = oracle.Tally()
    profiles = biases(variant)
    for seed in seeds:
        rng = random.Random(f"{variant.name}/{start_fen}/{seed}")
        fen = start_fen
        if random_arrangements:
            fen = chuhan.janggi_start_fen(
                cho=rng.choice(oracle.ARRANGEMENTS), han=rng.choice(oracle.ARRANGEMENTS)
            )
        record = oracle.play(
            variant,
            rng.getrandbits(64),
            max_plies,
            start_fen=fen,
            bias=profiles[seed % len(profiles)],
        )
        tally.add(oracle.compare_with_fsf(record, rng, sample))
    return tally


def assert_agrees(tally: oracle.Tally) -> None:
    print(
        f"{tally.playouts} playouts, {tally.plies} plies, {tally.checks_compared} check "
        f"statuses, {tally.positions} move sets and FENs, {tally.fsf_calls} pyffish calls; "
        f"in check {tally.in_check}, passes {tally.passes}, bikjang positions "
        f"{tally.bikjang_positions}, endings {tally.endings}"
    )
    assert not tally.disagreements, tally.report()
    assert tally.checks_compared == tally.plies + tally.playouts


def assert_rare_events_reached(variant: Variant, tally: oracle.Tally) -> None:
    """The playouts must reach what the rule set makes special, or they test nothing."""
    assert tally.in_check > 0
    if variant.is_janggi:
        assert tally.passes > 0
        assert tally.endings.get("double pass", 0) > 0, tally.endings
    else:
        assert tally.endings.get("checkmate", 0) + tally.endings.get("stalemate", 0) > 0
    if variant.bikjang:
        assert tally.bikjang_positions > 0
        assert tally.endings.get("bikjang pass", 0) > 0, tally.endings


def perft_cases() -> list[object]:
    """Every perft.json position under each rule set of its game that FSF plays."""
    cases: list[object] = []
    for position in oracle.load_perft_positions():
        if position["variant"] == "xiangqi":
            rule_sets: tuple[str, ...] = ("xiangqi:asian",)
        else:
            rule_sets = JANGGI_RULE_SETS
        cases.extend(
            pytest.param(position["id"], name, position["fen"], id=f"{position['id']}-{name}")
            for name in rule_sets
        )
    return cases


def arrangement_id(arrangement: str) -> str:
    """``마상상마`` -> ``HEEH`` (horse, elephant), for readable test ids."""
    return arrangement.replace("마", "H").replace("상", "E")


# ---------------------------------------------------------------------- regular suite


@pytest.mark.parametrize("name", RULE_SETS)
def test_random_playouts_agree_with_fairy_stockfish(name: str) -> None:
    variant = get_variant(name)
    tally = run_playouts(variant, range(REGULAR_PLAYOUTS))
    assert_agrees(tally)
    assert_rare_events_reached(variant, tally)


@pytest.mark.parametrize("arrangement", oracle.ARRANGEMENTS, ids=arrangement_id)
def test_janggi_playouts_from_each_setup_arrangement_agree_with_fairy_stockfish(
    arrangement: str,
) -> None:
    # Cho plays `arrangement`; Han's arrangement and the rule set rotate with the seed.
    tally = oracle.Tally()
    for index, han in enumerate(oracle.ARRANGEMENTS):
        fen = chuhan.janggi_start_fen(cho=arrangement, han=han)
        for rules in JANGGI_RULE_SETS:
            tally.add(run_playouts(get_variant(rules), range(index, index + 2), start_fen=fen))
    assert_agrees(tally)
    assert tally.passes > 0 and tally.in_check > 0


@pytest.mark.parametrize(("position_id", "name", "fen"), perft_cases())
def test_playouts_from_perft_positions_agree_with_fairy_stockfish(
    position_id: str, name: str, fen: str
) -> None:
    tally = run_playouts(get_variant(name), range(2), start_fen=fen, max_plies=80)
    assert_agrees(tally)
    assert tally.positions >= 2


@pytest.mark.parametrize("name", RULE_SETS)
def test_every_ply_of_short_playouts_agrees_with_fairy_stockfish(name: str) -> None:
    variant = get_variant(name)
    tally = run_playouts(variant, range(100, 103), max_plies=40, sample=None)
    assert_agrees(tally)
    assert tally.positions == tally.plies + tally.playouts


def test_pass_endings_agree_with_fairy_stockfish() -> None:
    # Two passes in a row, and a pass answering bikjang, leave no legal move in both.
    start = chuhan.JANGGI_START_FEN
    bikjang = "3k5/9/9/9/9/9/9/9/4K4/R8 w - - 0 1"
    cases = [
        ("janggi:official", start, ["e1e1", "e8e8"]),
        ("janggi:modern", start, ["e1e1", "e8e8"]),
        ("janggi:official", bikjang, ["e1d1", "d9d9"]),
        ("janggi:traditional", bikjang, ["e1d1", "d9d9"]),
    ]
    for name, fen, moves in cases:
        board = chuhan.Board(fen, variant=name)
        for move in moves:
            board.push_iccs(move)
        fsf_moves = [chuhan.Move.from_iccs(m).fsf() for m in moves]
        fsf = oracle.FSF_VARIANTS[name]
        assert board.is_game_over_by_passing()
        assert list(board.legal_moves) == pyffish.legal_moves(fsf, fen, fsf_moves) == []
        assert board.fen() == pyffish.get_fen(fsf, fen, fsf_moves)
    # Under modern rules the same pass does not end the game: bikjang is no rule there.
    board = chuhan.Board(bikjang, variant="janggi:modern")
    board.push_iccs("e1d1")
    board.push_iccs("d9d9")
    expected = pyffish.legal_moves("janggimodern", bikjang, ["e2d2", "d10d10"])
    assert {m.fsf() for m in board.legal_moves} == set(expected) != set()


# Found by the slow playouts: a janggi piece that captures an enemy cannon standing first
# on a line from its own king, with a second enemy cannon right behind it, becomes the
# screen of that second cannon and so leaves its king in check. Fairy-Stockfish rejects
# these captures; we generate them. (The first position is a minimal one; the others are
# where the playouts met it, with the move in FSF coordinates.)
CANNON_BEHIND_CANNON = [
    ("janggi:official", "5k3/9/9/9/6R2/9/9/3K2cc1/9/9 w - - 0 1", "g6g3"),
    (
        "janggi:official",
        "1b2R4/3k5/1nc6/p6n1/1p3p3/2PCp4/9/3CA4/3RKN1N1/1B5B1 b - - 2 36",
        "e5d5",
    ),
    ("janggi:traditional", "2bk5/8B/5a3/1p7/9/2P6/2PP5/6n2/3A1A3/1c1cK4 w - - 5 30", "d2d1"),
    ("janggi:modern", "7b1/C2k5/P1n6/9/4pb3/2n2p1P1/7P1/2N1K4/4c4/4c4 w - - 2 49", "c3e2"),
    (
        "janggi:modern",
        "1CC1kanb1/9/1n1ac4/2rp2p2/pP7/6p2/RP1P1p1PR/9/3A1K3/1B2A1Bc1 b - - 0 37",
        "b8c10",
    ),
    (
        "janggi:modern",
        "3aa1b2/9/C2Ck3n/7p1/2c5p/2P2p3/r3pP3/4A4/1R3K1N1/5A1r1 b - - 18 54",
        "g10d8",
    ),
]


@pytest.mark.parametrize(
    ("name", "fen", "capture"),
    CANNON_BEHIND_CANNON,
    ids=[f"{name}-{capture}" for name, _, capture in CANNON_BEHIND_CANNON],
)
def test_capturing_a_cannon_that_hides_another_cannon_is_illegal_as_in_fairy_stockfish(
    name: str, fen: str, capture: str
) -> None:
    board = chuhan.Board(fen, variant=name)
    ours = {m.fsf() for m in board.legal_moves}
    fsf = set(pyffish.legal_moves(oracle.FSF_VARIANTS[name], fen, []))
    assert capture not in fsf
    assert ours == fsf, f"only ours {sorted(ours - fsf)}, only FSF {sorted(fsf - ours)}"


# ---------------------------------------------------------------------- slow suite


@pytest.fixture(autouse=True)
def slow_only_when_selected(request: pytest.FixtureRequest) -> None:
    """The slow playouts run only when ``-m`` selects them (``-m slow``), so that a plain
    ``pytest tests/test_differential.py`` stays quick."""
    expression = request.config.option.markexpr or ""
    selected = "slow" in expression and "not slow" not in expression
    if request.node.get_closest_marker("slow") and not selected:
        pytest.skip("slow: run with -m slow")


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(SLOW_CHUNKS))
@pytest.mark.parametrize("name", RULE_SETS)
def test_thousand_random_playouts_per_rule_set_agree_with_fairy_stockfish(
    name: str, chunk: int
) -> None:
    variant = get_variant(name)
    size = SLOW_PLAYOUTS // SLOW_CHUNKS
    seeds = range(10_000 + chunk * size, 10_000 + (chunk + 1) * size)
    tally = run_playouts(variant, seeds, random_arrangements=variant.is_janggi)
    assert_agrees(tally)
    assert tally.playouts == size
    assert_rare_events_reached(variant, tally)


@pytest.mark.slow
@pytest.mark.parametrize(("position_id", "name", "fen"), perft_cases())
def test_many_playouts_from_perft_positions_agree_with_fairy_stockfish(
    position_id: str, name: str, fen: str
) -> None:
    tally = run_playouts(get_variant(name), range(1000, 1012), start_fen=fen)
    assert_agrees(tally)
