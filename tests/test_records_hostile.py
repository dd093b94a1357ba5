"""Record readers against hostile input: reading work (counted, never timed) linear in the
input's size whatever it holds, limits on what a record may hold, and errors that say which
game and which limit."""

from __future__ import annotations

import contextlib
import copy
import pickle
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from chuhan import Move
from chuhan.records import (
    GameNode,
    GameRecord,
    ReadLimitError,
    ReadLimits,
    RecordError,
    convert,
    read_cbf,
    read_dhtmlxq,
    read_file,
    read_gib,
    read_pgn,
    read_text_record,
    read_xqf,
    write_pgn,
    write_xqf,
)
from chuhan.records import pgn as pgn_module

DATA = Path(__file__).parent / "data" / "records"
#: Horses out and back: a main line as long as wanted, legal in xiangqi and in janggi.
CYCLE = "h0g2 h9g7 g2h0 g7h9 "


def iccs(record: GameRecord) -> list[str]:
    return [move.iccs() for move in record.main_line_moves()]


def tree(node: GameNode) -> list[tuple[str | None, str, int]]:
    """The tree below ``node`` in preorder, each node as its move, comment and number of
    children: flat, since trees here are too deep for recursion (or a nested ``==``)."""
    picture = []
    stack = list(reversed(node.children))
    while stack:
        child = stack.pop()
        picture.append(
            (child.move.iccs() if child.move else None, child.comment, len(child.children))
        )
        stack.extend(reversed(child.children))
    return picture


# ------------------------------------------------------------------ linear time

#: The growth allowed when the input grows 4 times: linear is 4, quadratic 16.
MAX_GROWTH = 8.0


@dataclass
class Work:
    """The work of one read, counted rather than timed, so that a busy machine changes
    nothing: the functions called (Python's and C's, as the profiler sees them) and the
    characters the PGN tag scanner read (all the reading a tokenizer pattern does past the
    token it finds; the other patterns read only what they take, and what a run of C does
    inside one call is the tag scanner's count or linear)."""

    calls: int = 0
    tag_characters: int = 0


def work(read: Callable[[Any], object], data: Any) -> Work:
    done = Work()
    scan = pgn_module._scan_tag

    def counted_scan(text: str, start: int) -> tuple[tuple[str, str] | None, int, int]:
        tag, end, characters = scan(text, start)
        done.tag_characters += characters
        return tag, end, characters

    def profile(frame: object, event: str, arg: object) -> None:
        if event in ("call", "c_call"):
            done.calls += 1

    previous = sys.getprofile()
    with mock.patch.object(pgn_module, "_scan_tag", counted_scan):
        sys.setprofile(profile)
        try:
            with contextlib.suppress(ReadLimitError):
                read(data)
        finally:
            sys.setprofile(previous)
    return done


def growth(
    read: Callable[[Any], object],
    input_at: Callable[[int], Any],
    size: int = 4096,
) -> float:
    """How many times more work ``read`` does when its input grows from ``size`` to 4 times
    that: the larger of the two counts' growth (each plus one, for shapes that never
    reach the tag scanner)."""
    small, large = work(read, input_at(size)), work(read, input_at(4 * size))
    return max(
        (large.calls + 1) / (small.calls + 1),
        (large.tag_characters + 1) / (small.tag_characters + 1),
    )


@dataclass(frozen=True)
class Shape:
    """Text of any size with one form: ``head``, then each part, a part's unit repeated to
    an equal share of the size when it scales, once when it does not."""

    head: str
    parts: tuple[tuple[str, bool], ...]

    def text(self, size: int) -> str:
        share = size // max(1, sum(scaled for _, scaled in self.parts))
        return self.head + "".join(
            unit * max(1, share // len(unit)) if scaled else unit for unit, scaled in self.parts
        )


def runs(*units: str, head: str = "") -> Shape:
    return Shape(head, tuple((unit, True) for unit in units))


#: The pieces hostile text is made of: PGN's special characters, fragments of tags,
#: comments, NAGs, escapes and variations, and moves in each notation.
FRAGMENTS = [
    *'[{(";$%]})\n \\.',
    '[Event "E"]',
    '[a "',
    '[FEN "',
    '"]',
    "$1",
    "$300",
    "1.",
    "1...",
    "1-0",
    "*",
    "{c}",
    ";c\n",
    "%x\n",
    "h2e2",
    "h9g7",
    "(h2e2)",
    "(h2e2 ",
    CYCLE,
    "(g7h9) ",
    "炮二平五",
    "79졸78",
    "한수쉼",
    "Hc3",
    "x",
]
UNITS = st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=6).map("".join)
SHAPES = st.builds(
    Shape,
    st.sampled_from(["", "1. h2e2 ", '[Game "Chinese Chess"]\n\n1. h2e2 ', CYCLE]),
    st.lists(st.tuples(UNITS, st.booleans()), min_size=1, max_size=3)
    .filter(lambda parts: any(scaled for _, scaled in parts))
    .map(tuple),
)
READERS = {"pgn": read_pgn, "gib": read_gib}

#: Shapes that were quadratic (or raised) before the readers were made linear, and the
#: other shapes the bench measures (bench/records.py).
KNOWN_SHAPES = {
    "brackets": runs("["),
    "braces": runs("{"),
    "parens": runs("("),
    "quotes": runs('"'),
    "semicolons": runs(";"),
    "dollars": runs("$"),
    "percents": runs("%"),
    "closers": runs("])}"),
    "digits": runs("1"),
    "open tags": runs('[a "'),
    "open tags spaced": runs('[a "b '),
    "key runs": runs("[a"),
    "escape lines": runs("%x\n"),
    "long tag value": Shape('[Event "', (("x", True), ('"]\n1. h2e2 *', False))),
    "long escaped tag value": Shape('[Event "', (("\\x", True), ('"]\n1. h2e2 *', False))),
    # A tag's value ran past escaped brackets to the line's end from every tag on it: the
    # shape test_reading_time_grows_linearly found on c31d05e (issue 22), and one whose
    # keys end in a backslash, so that each tag's own quote reads as an escaped one.
    "escaped brackets in tag values": runs('h0g2 h9g7 {c}\\[a "$)'),
    "keys ending in a backslash": runs('[a\\"'),
    "escaped quotes after brackets": runs('[a "\\"[b '),
    "long move number": Shape("1", ((".", True), (" h2e2 *", False))),
    "comments": runs("{c}", head="1. h2e2 "),
    "line comments": runs(";c\n", head="1. h2e2 "),
    "huge nag": runs("9", head="1. h2e2 $"),
    "nags": runs("$1 ", head="1. h2e2 "),
    "sibling variations": runs("(h2e2) ", head="1. h2e2 "),
    "empty variations": runs("() ", head="1. h2e2 "),
    "deep nesting": runs("(h2e2 ", head="1. h2e2 "),
    "late variations": runs(CYCLE, "(g7h9) "),
    "long main line": runs(CYCLE),
    "long format header": Shape(
        '[Variant "Xiangqi"]\n[Format "', (("a", True), ('"]\n1. x ', False), ("h2e2 ", True))
    ),
    "many games": runs("1. h2e2 *\n"),
    # Issue 27: tag values that go on over line breaks, and variations that do not read
    # (passed over to their close, whatever they nest).
    "tag values over lines": runs('[a "b\n'),
    "tags broken over lines": runs('[Event "E\nx"]\n'),
    "bad variations": runs("(h2e2 zz (h2e2) ) ", head="1. h2e2 "),
    "nesting in a bad variation": Shape("1. h2e2 (zz ", (("(h2e2 ", True),)),
    # Slow only: the quadratic cost was the game's length times the variations, and a main
    # line that grows with the input stops at the default 10,000 plies in the slow sizes.
    "variations after 8,000 plies": Shape(CYCLE * 2000, (("(g7h9) ", True),)),
}
FAST_EXAMPLES = [
    "brackets",
    "escaped brackets in tag values",
    "keys ending in a backslash",
    "escaped quotes after brackets",
    "long tag value",
    "huge nag",
    "late variations",
    "long format header",
    "deep nesting",
    "sibling variations",
    "comments",
    "tag values over lines",
    "tags broken over lines",
    "bad variations",
    "nesting in a bad variation",
]


def _with_examples(test: Callable[..., None]) -> Callable[..., None]:
    for name in reversed(FAST_EXAMPLES):
        test = example(shape=KNOWN_SHAPES[name], reader="pgn")(test)
    return test


# The same shapes every run (derandomized): the counts do not depend on the machine, so a
# reader that is linear on these passes every time and a quadratic one fails every time.
@settings(
    max_examples=16,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(shape=SHAPES, reader=st.sampled_from(sorted(READERS)))
@_with_examples
def test_reading_work_grows_linearly_with_any_shape_of_input(shape: Shape, reader: str) -> None:
    assert growth(READERS[reader], shape.text) < MAX_GROWTH


#: More shapes, new ones each run: slow only, where a shape never tried before may fail.
@pytest.mark.slow
@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(shape=SHAPES, reader=st.sampled_from(sorted(READERS)))
def test_reading_work_grows_linearly_with_random_shapes(shape: Shape, reader: str) -> None:
    assert growth(READERS[reader], shape.text) < MAX_GROWTH


@pytest.mark.slow
@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("name", sorted(KNOWN_SHAPES))
def test_reading_work_grows_linearly_up_to_a_megabyte(name: str, reader: str) -> None:
    assert growth(READERS[reader], KNOWN_SHAPES[name].text, size=256 * 1024) < MAX_GROWTH


def test_a_line_of_broken_tags_is_read_once() -> None:
    """Each tag on the line stops at the next one's ``[``: the scanner reads each
    character of the issue-22 shape a few times, not once for every tag before it."""
    text = KNOWN_SHAPES["escaped brackets in tag values"].text(64 * 1024)
    assert work(read_pgn, text).tag_characters < 3 * len(text)


@pytest.mark.parametrize("name", ["tag values over lines", "tags broken over lines"])
def test_tag_values_over_lines_are_read_a_few_times_at_most(name: str) -> None:
    """A value that goes on over a line break stops at the next tag's ``[`` all the same."""
    text = KNOWN_SHAPES[name].text(64 * 1024)
    assert work(read_pgn, text).tag_characters < 3 * len(text)


#: CYCLE in DhtmlXQ's digits (column, row from the top; four a move).
DHTMLXQ_CYCLE = "7967706267796270"


def dhtmlxq_variations(size: int) -> str:
    """A main line and alternatives to its last ply, both growing with ``size``: replaying
    the game up to each variation would make the reading quadratic."""
    plies = min(size // 8 // 4 * 4, 9996) or 4
    count = max(1, size // 2 // 45)
    tags = "".join(
        f"[DhtmlXQ_move_0_{plies}_{n}]1022[/DhtmlXQ_move_0_{plies}_{n}]"
        for n in range(1, count + 1)
    )
    return f"[DhtmlXQ_movelist]{DHTMLXQ_CYCLE * (plies // 4)}[/DhtmlXQ_movelist]{tags}"


DHTMLXQ_SHAPES: dict[str, Callable[[int], str]] = {
    "open tags never closed": runs("[DhtmlXQ_a]").text,
    "open tags without their bracket": runs("[DhtmlXQ_a").text,
    "block ends": runs("[/DhtmlXQ]").text,
    "many games": runs("[DhtmlXQ][DhtmlXQ_movelist]7747[/DhtmlXQ_movelist][/DhtmlXQ]").text,
    "long main line": Shape(
        "[DhtmlXQ_movelist]", ((DHTMLXQ_CYCLE, True), ("[/DhtmlXQ_movelist]", False))
    ).text,
    "comments": Shape(
        "[DhtmlXQ_movelist]7747[/DhtmlXQ_movelist]",
        (("[DhtmlXQ_comment1]c||[/DhtmlXQ_comment1]", True),),
    ).text,
    "variations at the end of a long line": dhtmlxq_variations,
    "end tags of other tags": runs("[DhtmlXQ_a]x[/DhtmlXQ_b]").text,
    "iframe blocks": runs("[DhtmlXQiFrame][DhtmlXQ_title]t[/DhtmlXQ_title]").text,
    "bad variations": Shape(
        "[DhtmlXQ_movelist]7747[/DhtmlXQ_movelist]",
        (("[DhtmlXQ_move_0_2_1]4740[/DhtmlXQ_move_0_2_1]", True),),
    ).text,
}


@pytest.mark.parametrize("name", sorted(DHTMLXQ_SHAPES))
def test_dhtmlxq_reading_work_grows_linearly(name: str) -> None:
    assert growth(read_dhtmlxq, DHTMLXQ_SHAPES[name]) < MAX_GROWTH


CYCLE_MOVES = [Move.from_iccs(text) for text in CYCLE.split()]


def cycle_record(plies: int, variations: int = 0) -> GameRecord:
    """A main line of ``plies`` horse moves, with ``variations`` alternatives to the first."""
    record = GameRecord.from_moves([CYCLE_MOVES[i % 4] for i in range(plies)])
    for _ in range(variations):
        record.root.add_variation(Move.from_iccs("h2e2"))
    return record


def nested_record(levels: int) -> GameRecord:
    """A game whose every move has one alternative, which holds the next level: variations
    nested ``levels`` deep."""
    record = GameRecord()
    board, node = record.start_board(), record.root
    for level in range(levels):
        alternative = CYCLE_MOVES[level % 4]
        node.add_variation(next(move for move in board.legal_moves if move != alternative))
        node = node.add_variation(alternative)
        board.push(alternative)
    return record


def cbf_game(size: int) -> str:
    """A CBF document of horse moves out and back, growing with ``size``."""
    moves = "".join(f'<Move value="{v}"/>' for v in ["79-67", "70-62", "67-79", "62-70"])
    return (
        '<?xml version="1.0" encoding="UTF-8"?><ChineseChessRecord><Head/><MoveList>'
        f'<Move value="00-00"/>{moves * max(1, size // len(moves))}</MoveList>'
        "</ChineseChessRecord>"
    )


def test_cbf_reading_work_grows_linearly_with_the_length_of_the_game() -> None:
    assert growth(read_cbf, cbf_game) < MAX_GROWTH


def test_xqf_reading_work_grows_linearly_with_the_length_of_the_game() -> None:
    assert growth(read_xqf, lambda size: write_xqf(cycle_record(size // 4))) < MAX_GROWTH


def test_xqf_writing_work_grows_linearly_with_the_number_of_variations() -> None:
    assert growth(write_xqf, lambda size: cycle_record(2, variations=size // 4)) < MAX_GROWTH


# ------------------------------------------------------------------ limits

PLIES, VARIATIONS = ReadLimits(max_plies=4), ReadLimits(max_variations=2)
DEPTH, GAMES = ReadLimits(max_depth=2), ReadLimits(max_games=2)


def test_a_main_line_past_max_plies_stops_its_game_with_an_error() -> None:
    record = read_pgn('[Event "Cup"]\n\n1. ' + CYCLE * 2 + "*", limits=PLIES)[0]
    error = record.errors[0]
    assert (iccs(record), str(error), error.limit, error.maximum) == (  # type: ignore[attr-defined]
        CYCLE.split(),
        "game 1 (Cup): the main line has more than 4 plies",
        "max_plies",
        4,
    )


def test_a_variation_past_max_plies_is_an_error_too() -> None:
    record = read_pgn("1. h2e2 (1. " + CYCLE * 2 + ") *", limits=PLIES)[0]
    assert str(record.errors[0]) == "game 1: a variation has more than 4 plies"


def test_more_variations_than_max_variations_stop_the_game() -> None:
    record = read_pgn("1. h2e2 (1. c3c4) (1. g3g4) (1. a3a4) h9g7 *", limits=VARIATIONS)[0]
    assert (len(record.root.children), str(record.errors[0])) == (
        3,
        "game 1: more than 2 variations",
    )


def test_variations_nested_deeper_than_max_depth_stop_the_game() -> None:
    record = read_pgn("1. h2e2 (1. c3c4 (1. g3g4 (1. a3a4))) *", limits=DEPTH)[0]
    assert str(record.errors[0]) == "game 1: variations nested more than 2 deep"


def test_sibling_variations_are_not_nested() -> None:
    record = read_pgn("1. h2e2 (1. c3c4) (1. g3g4) h9g7 *", limits=DEPTH)[0]
    assert (iccs(record), record.errors) == (["h2e2", "h9g7"], [])


def test_nesting_far_past_the_default_depth_is_an_error_not_a_recursion_error() -> None:
    record = read_pgn("1. h2e2 " + "(1. c3c4 " * 5000)[0]
    assert str(record.errors[0]) == "game 1: variations nested more than 100 deep"


def test_a_file_with_more_games_than_max_games_raises() -> None:
    with pytest.raises(ReadLimitError, match=r"^the file has more than 2 games$"):
        read_pgn("1. h2e2 *\n" * 3, limits=GAMES)


def test_a_file_with_max_games_games_reads() -> None:
    assert len(read_pgn("1. h2e2 *\n" * 2, limits=GAMES)) == 2


def test_gib_reader_has_the_same_limits() -> None:
    record = read_gib('[대회명 "명인전"]\n1. ' + CYCLE * 2, limits=PLIES)[0]
    assert (len(iccs(record)), str(record.errors[0])) == (
        4,
        "game 1 (명인전): the main line has more than 4 plies",
    )


def test_xqf_reader_stops_at_max_plies() -> None:
    record = read_xqf(write_xqf(cycle_record(10)), limits=PLIES)
    assert (len(iccs(record)), str(record.errors[0])) == (
        4,
        "game 1: the main line has more than 4 plies",
    )


def test_xqf_reader_stops_at_max_variations() -> None:
    record = read_xqf(write_xqf(cycle_record(1, variations=5)), limits=VARIATIONS)
    assert (len(record.root.children), str(record.errors[0])) == (
        3,
        "game 1: more than 2 variations",
    )


def test_xqf_reader_stops_at_max_depth() -> None:
    back = read_xqf(write_xqf(nested_record(5)), limits=DEPTH)
    assert str(back.errors[0]) == "game 1: variations nested more than 2 deep"


def test_text_record_longer_than_max_plies_raises() -> None:
    text = GameRecord().fen + "\n" + CYCLE * 2
    with pytest.raises(ReadLimitError, match=r"^game 1: the main line has more than 4 plies$"):
        read_text_record(text, limits=PLIES)


def test_read_file_and_convert_pass_the_limits_on(tmp_path: Path) -> None:
    source = tmp_path / "long.pgn"
    source.write_text('[Event "Cup"]\n\n1. ' + CYCLE * 2 + "*")
    assert len(iccs(read_file(source, limits=PLIES)[0])) == 4
    with pytest.raises(RecordError, match="more than 4 plies"):
        convert(source, tmp_path / "out.pgn", limits=PLIES)


@pytest.mark.parametrize("field", ["max_plies", "max_variations", "max_depth", "max_games"])
def test_read_limits_refuse_a_negative_limit(field: str) -> None:
    with pytest.raises(ValueError, match=f"ReadLimits.{field}"):
        ReadLimits(**{field: -1})


# ------------------------------------------------------------------ errors say it once


def test_a_record_error_names_its_game_once_and_keeps_the_parts() -> None:
    error = read_pgn((DATA / "multi.pgn").read_text())[1].errors[0]
    assert (str(error).count("game 2"), error.game, error.reason.startswith("move 2... ")) == (
        1,
        "game 2 (Blitz 2, Typo)",
        True,
    )


def test_convert_names_the_game_of_a_bad_move_once(tmp_path: Path) -> None:
    with pytest.raises(RecordError) as caught:
        convert(DATA / "multi.pgn", tmp_path / "out.pgn")
    assert str(caught.value).count("game 2 (Blitz 2, Typo)") == 1


def test_record_errors_survive_pickling() -> None:
    error = ReadLimitError("more than 2 variations", game="game 1", limit="max_variations")
    back = pickle.loads(pickle.dumps(error))
    assert (str(back), back.game, back.reason, back.limit) == (
        str(error),
        "game 1",
        "more than 2 variations",
        "max_variations",
    )


def test_a_long_event_name_is_quoted_short_in_an_error() -> None:
    error = read_pgn(f'[Event "{"E" * 100_000}"]\n1. x *')[0].errors[0]
    assert error.game == f"game 1 ({'E' * 40}…)"


def test_a_long_token_is_quoted_short_in_its_error() -> None:
    error = read_pgn("1. " + "h" * 100_000)[0].errors[0]
    assert len(str(error)) < 200 and "longer than 32 characters" in str(error)


# ------------------------------------------------------------------ the PGN grammar


def test_a_huge_nag_is_an_error_not_a_crash() -> None:
    record = read_pgn("1. h2e2 $" + "9" * 10_000 + " h9g7 *")[0]
    assert (iccs(record), "is not a number from 0 to 255" in str(record.errors[0])) == (
        ["h2e2"],
        True,
    )


def test_nags_up_to_255_are_kept() -> None:
    assert read_pgn("1. h2e2 $255 $0 *")[0].root.children[0].nags == [255, 0]


def test_a_percent_line_is_an_escape_and_not_read() -> None:
    record = read_pgn("%XQStudio export\n1. h2e2 % not an escape\n%h9g7\n*")[0]
    assert (iccs(record), "'%'" in str(record.errors[0])) == (["h2e2"], True)


def test_a_header_key_does_not_swallow_the_brackets_before_it() -> None:
    assert read_pgn('[[Event "Cup"]\n1. h2e2 *')[0].headers["Event"] == "Cup"


def test_many_comments_on_one_move_are_kept_in_order() -> None:
    record = read_pgn("1. h2e2 {a} ;b\n {c}" + " {d}" * 1000 + " *")[0]
    assert record.root.children[0].comment == "a b c" + " d" * 1000


def _random_tree(seed: int, nodes: int, variant: str = "xiangqi") -> GameRecord:
    """A tree of random legal moves with deep and sibling variations and comments."""
    rng = random.Random(seed)
    record = GameRecord.from_moves([], variant=variant)
    board, stack = record.start_board(), [record.root]
    for step in range(nodes):
        node = stack[-1]
        legal = list(board.legal_moves)
        if not legal or (len(stack) > 1 and rng.random() < 0.15):
            stack.pop()
            board.pop()
            continue
        move = rng.choice(legal)
        child = node.add_variation(move, comment=f"c{step}" if step % 5 == 0 else "")
        if rng.random() < 0.3 and len(node.children) == 1:
            node.add_variation(rng.choice(legal))
        board.push(move)
        stack.append(child)
    return record


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_pgn_round_trip_of_a_bushy_tree_keeps_every_line(seed: int) -> None:
    original = _random_tree(seed, 400)
    back = read_pgn(write_pgn(original, "wxf"))[0]
    assert (tree(back.root), back.errors) == (tree(original.root), [])


@pytest.mark.parametrize("seed", [4, 5])
def test_xqf_round_trip_of_a_bushy_tree_keeps_every_line(seed: int) -> None:
    original = _random_tree(seed, 400)
    back = read_xqf(write_xqf(original))
    assert (tree(back.root), back.errors) == (tree(original.root), [])


def test_write_pgn_writes_variations_nested_thousands_deep() -> None:
    record = nested_record(3000)
    deep = ReadLimits(max_depth=3000)
    assert tree(read_pgn(write_pgn(record), limits=deep)[0].root) == tree(record.root)


def test_xqf_drops_the_whole_subtree_of_an_illegal_move_and_reads_on() -> None:
    record = GameRecord()
    record.root.add_variation(Move.from_iccs("a0a9")).add_variation(
        Move.from_iccs("h9g7")
    ).add_variation(Move.from_iccs("h0g2"))
    record.root.add_variation(Move.from_iccs("c3c4"))
    back = read_xqf(write_xqf(record, version=10))
    assert (tree(back.root), len(back.errors)) == ([("c3c4", "", 0)], 1)


def test_a_long_game_with_variations_survives_pickling_and_deepcopy() -> None:
    record = _random_tree(6, 400)
    record.root.children[0].nags.append(3)
    for line in CYCLE_MOVES * 500:
        record.end().add_variation(line)
    for copied in (pickle.loads(pickle.dumps(record)), copy.deepcopy(record)):
        assert (tree(copied.root), copied.headers, copied.fen, copied.root.children[0].nags) == (
            tree(record.root),
            record.headers,
            record.fen,
            [3],
        )


def test_the_repr_of_a_long_game_does_not_recurse_through_it() -> None:
    record = cycle_record(5000)
    assert repr(record.end()).startswith("GameNode(move=") and "GameRecord(" in repr(record)
