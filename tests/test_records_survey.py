"""The record files issue 27's survey of public repositories found unread, each failure
class on a fixture of its shape (``tests/data/records/README.md`` says what each file
stands for; all were written for these tests): XQF whose side byte the first move
contradicts, WinBoard's soldiers without a letter, DhtmlXQ from dpxq's editor and from web
pages, files whose extension is unknown or wrong, CCBridge's CBF, a FEN with move number 0,
a bad variation in a good game, a tag value broken over two lines; and simplified Chinese
as an output choice."""

from __future__ import annotations

import shutil
from pathlib import Path
from unittest import mock

import pytest

from chuhan import Board, IllegalMoveError, Move
from chuhan.cli import main
from chuhan.records import (
    GameNode,
    GameRecord,
    RecordError,
    RecordWarning,
    VariationError,
    cbf,
    convert,
    normalize_fen,
    parse_san,
    read_cbf,
    read_dhtmlxq,
    read_file,
    read_pgn,
    read_text_record,
    read_xqf,
    sniff_format,
    write_pgn,
    write_xqf,
)

DATA = Path(__file__).parent / "data" / "records"


def iccs(moves: list[Move]) -> list[str]:
    return [move.iccs() for move in moves]


def line(node: GameNode) -> list[str]:
    """The moves of the line that starts with ``node``."""
    assert node.move is not None
    return [node.move.iccs()] + [n.move.iccs() for n in node.main_line() if n.move]


# ------------------------------------------------------------------ XQF side to move

BLACK_FIRST = DATA / "xiangqi_black_first_red_byte.xqf"
BLACK_FIRST_MOVES = ["c6c5", "b2b6", "h7h3", "g3g4", "h3c3", "g2f4"]


def test_xqf_whose_side_byte_says_red_reads_black_first_as_its_first_move_says() -> None:
    record = read_xqf(BLACK_FIRST.read_bytes())
    assert (record.errors, iccs(record.main_line_moves()), record.fen.split()[1]) == (
        [],
        BLACK_FIRST_MOVES,
        "b",
    )


def test_xqf_side_taken_from_the_first_move_is_a_warning_naming_the_game() -> None:
    (warning,) = read_xqf(BLACK_FIRST.read_bytes()).warnings
    assert isinstance(warning, RecordWarning)
    assert str(warning).startswith("game 1 (残局中局选, 中局练习")
    assert "the header says Red moves first, but the first move (c6c5) is Black's" in str(warning)


def test_xqf_whose_side_byte_agrees_has_no_warning() -> None:
    record = read_xqf(BLACK_FIRST.read_bytes())
    again = read_xqf(write_xqf(record))
    assert (again.warnings, iccs(again.main_line_moves())) == ([], BLACK_FIRST_MOVES)


def test_xqf_first_move_illegal_for_either_side_stays_an_error() -> None:
    record = GameRecord()
    record.root.add_variation(Move.from_iccs("a0a9"))  # a chariot through its own soldier
    back = read_xqf(write_xqf(record))
    assert (len(back.errors), back.warnings, back.fen) == (1, [], record.fen)


def test_convert_passes_the_xqf_warning_on_and_writes_black_first(tmp_path: Path) -> None:
    done = convert(BLACK_FIRST, tmp_path / "out.pgn")
    text = (tmp_path / "out.pgn").read_text(encoding="utf-8")
    assert (done.written, len(done.warnings)) == (1, 1)
    assert str(BLACK_FIRST) in str(done.warnings[0]) and " b - - 0 1" in text


# ------------------------------------------------------------------ WinBoard soldiers

WINBOARD_MOVES = [
    "c3c4",
    "g6g5",
    "c4c5",
    "c6c5",
    "g3g4",
    "g5g4",
    "h0g2",
    "g4f4",
    "e3e4",
    "f4e4",
    "i3i4",
    "b9c7",
    "i4i5",
    "h9g7",
    "i5h5",
    "a9a8",
    "h5h6",
    "e4d4",
    "b0c2",
    "d4d3",
]


def test_winboard_export_with_soldiers_without_a_letter_replays() -> None:
    (record,) = read_file(DATA / "winboard_soldiers.pgn")
    assert (record.errors, iccs(record.main_line_moves())) == ([], WINBOARD_MOVES)


@pytest.mark.parametrize(
    ("before", "san", "move"),
    [
        ([], "c4", "c3c4"),  # straight on: the target alone
        (["c3c4", "c6c5"], "cxc5", "c4c5"),  # a capture straight on
        (["g3g4", "g6g5", "h0g2", "g5g4", "b0c2"], "gf4", "g4f4"),  # sideways
        (["e3e4", "g6g5", "h0g2", "g5g4", "b0c2", "g4f4", "c3c4"], "fxe4", "f4e4"),
    ],
)
def test_parse_san_reads_a_soldier_without_its_letter(
    before: list[str], san: str, move: str
) -> None:
    board = Board()
    for played in before:
        board.push(Move.from_iccs(played))
    assert parse_san(board, san, first_rank=0) == Move.from_iccs(move)


def test_a_soldier_move_names_the_soldier_file_not_any_piece_on_the_target() -> None:
    # No soldier can reach c5 in the start position: a horse or a chariot is not taken for it.
    with pytest.raises(IllegalMoveError, match="no soldier can do it"):
        parse_san(Board(), "c5", first_rank=0)


def test_piece_san_is_read_as_before_beside_soldiers() -> None:
    board = Board()
    assert (parse_san(board, "Hc2", first_rank=0), parse_san(board, "Hc3")) == (
        Move.from_iccs("b0c2"),
        Move.from_iccs("b0c2"),
    )


# ------------------------------------------------------------------ DhtmlXQ: dpxq's editor


def test_dpxq_editor_end_tags_of_another_tag_are_read_up_to_them() -> None:
    (record,) = read_file(DATA / "xiangqi_dhtmlxq_editor.ubb")
    assert record.errors == [] and len(record.main_line_moves()) == 6
    assert (record.headers["RedTime"], record.headers["BlackTime"]) == ("10分钟", "10分钟")
    assert record.result == "1/2-1/2" and record.root.children[0].comment == "中炮"


def test_dpxq_editor_end_tags_are_warnings_naming_each_tag() -> None:
    (record,) = read_file(DATA / "xiangqi_dhtmlxq_editor.ubb")
    said = [str(warning) for warning in record.warnings]
    assert [text.split(": ", 1)[1] for text in said] == [
        "the tag [DhtmlXQ_redtime] is closed by [/DhtmlXQ_time]: read up to that end tag",
        "the tag [DhtmlXQ_blacktime] is closed by [/DhtmlXQ_time]: read up to that end tag",
    ]
    assert all(text.startswith("game 1 (网络友谊赛") for text in said)


def test_a_move_tag_closed_by_another_end_tag_is_still_an_error() -> None:
    (record,) = read_dhtmlxq("[DhtmlXQ_movelist]7747[/DhtmlXQ_move_0_1_1]")
    assert "closed by [/DhtmlXQ_move_0_1_1]" in str(record.errors[0])


def test_a_tag_left_open_before_the_next_is_an_error_not_a_value() -> None:
    (record,) = read_dhtmlxq("[DhtmlXQ_title]t[DhtmlXQ_movelist]7747[/DhtmlXQ_movelist]")
    assert "[DhtmlXQ_title] is never closed" in str(record.errors[0])


# ------------------------------------------------------------------ DhtmlXQ: web pages

PAGE = DATA / "xiangqi_dhtmlxq_page.html"


def test_a_web_page_reads_its_block_and_its_iframe_game() -> None:
    records = read_file(PAGE)
    assert [(r.headers["Title"], iccs(r.main_line_moves()), r.errors) for r in records] == [
        ("红队&黑队 第1局", ["h2e2", "h9g7", "h0g2", "i9h9"], []),
        ("第2局", ["b2e2", "b9c7"], []),
    ]


def test_html_in_a_comment_reads_as_the_viewer_shows_it() -> None:
    first = read_file(PAGE)[0].root.children[0]
    assert (first.comment, first.children[0].comment) == ("中炮\n开局", "<屏风马>")


def test_tags_in_a_page_script_outside_the_blocks_are_no_game() -> None:
    text = "<script>var s = '[DhtmlXQ_ver]x[/DhtmlXQ_ver]';</script>[DhtmlXQ]"
    text += "[DhtmlXQ_movelist]7747[/DhtmlXQ_movelist][/DhtmlXQ]<script>'[DhtmlXQ_a]b[/DhtmlXQ_a]'"
    assert [iccs(r.main_line_moves()) for r in read_dhtmlxq(text)] == [["h2e2"]]


# ------------------------------------------------------------------ the format of a file


@pytest.mark.parametrize(
    ("fixture", "name"),
    [
        ("xiangqi_black_first_red_byte.xqf", "game.dat"),
        ("xiangqi_ccbridge.cbf", "game.xml"),
        ("xiangqi_dhtmlxq_gbk.ubb", "game"),
        ("xiangqi_dhtmlxq_page.html", "view.asp"),
        ("xiangqi_dhtmlxq_page.html", "view.htm"),
        ("xiangqi_iccs.pgn", "games.che"),
        ("janggi_euckr.gib", "game.dat"),
        ("xiangqi_ccbridge.cbf", "game.pgn"),  # CBF taken for PGN by its name
        ("xiangqi_iccs.pgn", "game.xqf"),  # a PGN saved under XQF's name
        ("xiangqi_dhtmlxq_gbk.ubb", "game.pgn"),
    ],
)
def test_a_file_is_read_by_what_its_bytes_show_whatever_its_name(
    fixture: str, name: str, tmp_path: Path
) -> None:
    copy = tmp_path / name
    shutil.copyfile(DATA / fixture, copy)
    expected = [iccs(r.main_line_moves()) for r in read_file(DATA / fixture)]
    assert [iccs(r.main_line_moves()) for r in read_file(copy)] == expected and expected[0]


def test_a_text_record_of_an_unknown_extension_is_read_as_one(tmp_path: Path) -> None:
    path = tmp_path / "position.fen"
    path.write_text("3k5/9/9/9/9/9/9/9/9/4K2R1 w - - 0 1\nh0h9\n", encoding="utf-8")
    assert iccs(read_file(path)[0].main_line_moves()) == ["h0h9"]


def test_a_file_that_shows_no_format_is_refused_saying_what_was_looked_for(
    tmp_path: Path,
) -> None:
    path = tmp_path / "notes.dat"
    path.write_bytes(b"\x00\x01 shopping list: rice, tea\n")
    with pytest.raises(RecordError, match=r"cannot tell the record format of .*notes\.dat"):
        read_file(path)


@pytest.mark.parametrize(
    ("data", "fmt"),
    [
        ((DATA / "xiangqi_ccbridge.cbf").read_bytes(), "cbf"),
        ((DATA / "xiangqi_dhtmlxq_page.html").read_bytes(), "dhtmlxq"),
        (BLACK_FIRST.read_bytes(), "xqf"),
    ],
)
def test_sniff_format_tells_cbf_web_pages_and_xqf(data: bytes, fmt: str) -> None:
    assert sniff_format(data) == fmt


# ------------------------------------------------------------------ CBF (CCBridge XML)

CBF = DATA / "xiangqi_ccbridge.cbf"
CBF_MOVES = ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "b0c2", "a9b9", "h0h6", "c6c5"]


def cbf_text(moves: str, *, fen: str = "", encoding: str = "UTF-8", head: str = "") -> str:
    values = "".join(f'<Move value="{value}"/>' for value in ["00-00", *moves.split()])
    fen_element = f"<FEN>{fen}</FEN>" if fen else ""
    return (
        f'<?xml version="1.0" encoding="{encoding}"?>\n<ChineseChessRecord Version="1.0">'
        f"<Head>{head}{fen_element}</Head><MoveList>{values}</MoveList></ChineseChessRecord>"
    )


def test_cbf_file_reads_its_headers_result_and_moves() -> None:
    (record,) = read_file(CBF)
    assert (record.errors, iccs(record.main_line_moves()), record.result) == ([], CBF_MOVES, "1-0")
    assert {key: record.headers[key] for key in ("Title", "Event", "Round", "Red", "ECCO")} == {
        "Title": "中炮对屏风马",
        "Event": "象棋桥测试赛",
        "Round": "3",
        "Red": "红方棋手",
        "ECCO": "C50",
    }
    assert "Creator" not in record.headers and "URL" not in record.headers


def test_cbf_converts_to_pgn(tmp_path: Path) -> None:
    convert(CBF, tmp_path / "out.pgn", format="chinese-simplified")
    (back,) = read_pgn((tmp_path / "out.pgn").read_text(encoding="utf-8"))
    assert iccs(back.main_line_moves()) == CBF_MOVES and back.headers["Event"] == "象棋桥测试赛"


def test_cbf_in_gb2312_is_read_in_the_encoding_it_declares() -> None:
    data = cbf_text("77-47", encoding="GB2312", head="<Red>许银川</Red>").encode("gb2312")
    record = read_cbf(data)
    assert (record.headers["Red"], iccs(record.main_line_moves())) == ("许银川", ["h2e2"])


def test_cbf_whose_fen_gives_the_wrong_side_reads_the_first_move_side_with_a_warning() -> None:
    record = read_cbf(cbf_text("30-31", fen="3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 0"))
    assert (iccs(record.main_line_moves()), record.fen, len(record.warnings)) == (
        ["d9d8"],
        "3k5/9/9/9/9/9/9/9/9/4K4 b - - 0 1",
        1,
    )


def test_cbf_bad_move_stops_the_line_naming_its_ply() -> None:
    record = read_cbf(cbf_text("77-47 70-62 77-70"))
    assert iccs(record.main_line_moves()) == ["h2e2", "h9g7"]
    assert str(record.errors[0]).startswith("game 1: ply 3 '77-70' (h2h9): illegal")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa">]><ChineseChessRecord/>', "type"),
        ("<ChineseChessRecord><Head>", "malformed XML"),
        ("<Record/>", "the root element is <Record>"),
        (cbf_text("", fen="9/9/9/9/9/9/9/9/9/9 w"), "cannot set up the start position"),
    ],
)
def test_cbf_that_is_not_one_is_refused(text: str, said: str) -> None:
    with pytest.raises(RecordError, match=said):
        read_cbf(text.encode("utf-8"))


def test_cbf_larger_than_its_bound_is_refused_unparsed() -> None:
    with (
        mock.patch.object(cbf, "LARGEST_CBF", 100),
        pytest.raises(RecordError, match="too large"),
    ):
        read_cbf(cbf_text("77-47 " * 20).encode("utf-8"))


# ------------------------------------------------------------------ FEN move number 0


def test_a_fen_with_move_number_0_is_read_as_move_1() -> None:
    (record,) = read_file(DATA / "xiangqi_fen_move_zero.pgn")
    assert (record.errors, record.fen, len(record.main_line_moves())) == (
        [],
        "3k5/4a4/9/9/9/9/9/9/4A4/3AK4 b - - 0 1",
        3,
    )


@pytest.mark.parametrize(
    ("fen", "normal"),
    [
        ("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 0", "4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1"),
        ("4k4/9/9/9/9/9/9/9/9/4K4 r - - 3 7", "4k4/9/9/9/9/9/9/9/9/4K4 w - - 3 7"),
        ("4k4/9/9/9/9/9/9/9/9/4K4", "4k4/9/9/9/9/9/9/9/9/4K4 w"),
    ],
)
def test_normalize_fen(fen: str, normal: str) -> None:
    assert normalize_fen(fen) == normal


def test_text_record_and_dhtmlxq_fen_take_move_number_0() -> None:
    fen = "3k5/9/9/9/9/9/9/9/9/4K2R1 w - - 0 0"
    text = read_text_record(f"{fen}\nh0h9\n")
    (ubb,) = read_dhtmlxq(
        f"[DhtmlXQ_fen]{fen}[/DhtmlXQ_fen][DhtmlXQ_movelist]7970[/DhtmlXQ_movelist]"
    )
    assert (iccs(text.main_line_moves()), iccs(ubb.main_line_moves()), ubb.errors) == (
        ["h0h9"],
        ["h0h9"],
        [],
    )


# ------------------------------------------------------------------ a bad variation

BAD_VARIATION = DATA / "xiangqi_bad_variation.pgn"


def test_a_bad_variation_costs_the_variation_not_the_game() -> None:
    (record,) = read_file(BAD_VARIATION)
    moves = ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "h0h6"]
    assert iccs(record.main_line_moves()) == moves and record.end().comment == "pressure"


def test_a_bad_variation_is_an_error_naming_its_move_and_ply() -> None:
    (record,) = read_file(BAD_VARIATION)
    errors = [error for error in record.errors if isinstance(error, VariationError)]
    assert errors == record.errors
    assert [(error.ply, error.move) for error in errors] == [(5, "i0i9"), (5, "h0h9")]
    said = str(record.errors[0])
    assert "move 3. 'i0i9' (ply 5, line 9)" in said and "variation is left out" in said


def test_a_bad_variation_keeps_its_moves_before_the_bad_one_and_the_good_variations() -> None:
    (record,) = read_file(BAD_VARIATION)
    after_one, after_two = record.root.children[0], record.root.children[0].children[0]
    assert [line(child) for child in after_one.children] == [
        ["h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "h0h6"],
        ["b9c7", "h0g2", "a9b9"],
    ]
    assert [line(child) for child in after_two.children] == [
        ["h0g2", "i9h9", "i0h0", "b9c7", "h0h6"],
        ["b0c2", "b9c7"],  # cut at 3. i0i9, with the variation inside what follows it
    ]


def test_a_bad_dhtmlxq_variation_costs_only_itself() -> None:
    (record,) = read_dhtmlxq(
        "[DhtmlXQ_movelist]77477062[/DhtmlXQ_movelist][DhtmlXQ_comment2]c[/DhtmlXQ_comment2]"
        "[DhtmlXQ_move_0_2_1]10224740[/DhtmlXQ_move_0_2_1]"
        "[DhtmlXQ_move_0_2_2]1242[/DhtmlXQ_move_0_2_2]"
    )
    after_one = record.root.children[0]
    assert [line(child) for child in after_one.children] == [["h9g7"], ["b9c7"], ["b7e7"]]
    assert after_one.children[0].comment == "c"
    (error,) = record.errors
    assert isinstance(error, VariationError) and (error.ply, error.move) == (3, "4740")


def test_a_bad_xqf_variation_costs_only_itself() -> None:
    record = GameRecord.from_moves([Move.from_iccs(m) for m in ("h2e2", "h9g7", "h0g2")])
    alternative = record.root.children[0].add_variation(Move.from_iccs("b9c7"))
    alternative.add_variation(Move.from_iccs("e2e9"))  # over two screens
    back = read_xqf(write_xqf(record))
    assert iccs(back.main_line_moves()) == ["h2e2", "h9g7", "h0g2"]
    assert [line(c) for c in back.root.children[0].children] == [["h9g7", "h0g2"], ["b9c7"]]
    (error,) = back.errors
    assert isinstance(error, VariationError) and (error.ply, error.move) == (3, "e2e9")


def test_convert_refuses_a_bad_variation_unless_told_to_skip_errors(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match=r"'i0i9' .*variation is left out"):
        convert(BAD_VARIATION, tmp_path / "refused.pgn")
    done = convert(BAD_VARIATION, tmp_path / "out.pgn", skip_errors=True)
    (back,) = read_pgn((tmp_path / "out.pgn").read_text(encoding="utf-8"))
    assert (done.written, done.skipped, [e.move for e in done.cut]) == (1, (), ["i0i9", "h0h9"])
    assert len(back.main_line_moves()) == 7 and back.errors == []


# ------------------------------------------------------------------ tags over two lines


def test_a_tag_value_broken_over_lines_is_one_value_not_a_second_game() -> None:
    records = read_file(DATA / "xiangqi_wrapped_tags.pgn")
    assert [(r.headers.get("Event"), r.headers.get("Annotator"), r.errors) for r in records] == [
        ("第二十届“五羊杯”全国象棋冠军邀请赛", None, []),
        ("Club match", "A long name broken over two lines by an editor", []),
    ]
    assert [len(r.main_line_moves()) for r in records] == [4, 1]


def test_a_tag_value_does_not_run_on_past_a_blank_line() -> None:
    (record,) = read_pgn('[Event "Cup\n\n1. h2e2 *\n')
    assert (record.headers["Event"], iccs(record.main_line_moves())) == ("Cup", ["h2e2"])


def test_a_tag_without_its_end_before_the_next_tag_line_is_read_loosely() -> None:
    (record,) = read_pgn('[Event "Cup\n[Site "Here"]\n\n1. h2e2 *\n')
    assert (record.headers["Event"], record.headers["Site"]) == ("Cup", "Here")


# ------------------------------------------------------------------ output notations


def test_simplified_chinese_is_written_and_read_back() -> None:
    record = GameRecord.from_moves([Move.from_iccs(m) for m in ("h0g2", "h9g7", "i0h0")])
    text = write_pgn(record, "chinese-simplified")
    assert "马二进三 马８进７ 2. 车一平二" in text and '[Format "Chinese"]' in text
    assert "傌二進三" in write_pgn(record, "chinese")
    assert read_pgn(text)[0].main_line_moves() == record.main_line_moves()


def test_korean_notation_is_refused_for_xiangqi() -> None:
    with pytest.raises(RecordError, match="Korean notation: it is janggi's"):
        write_pgn(GameRecord.from_moves([Move.from_iccs("h2e2")]), "korean")


def test_cli_convert_writes_simplified_chinese(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "out.pgn"
    code = main(["convert", str(CBF), str(target), "--format", "chinese-simplified"])
    assert code == 0 and "马二进三" in target.read_text(encoding="utf-8")


def test_cli_convert_refuses_korean_for_xiangqi(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["convert", str(CBF), str(tmp_path / "out.pgn"), "--format", "korean"])
    err = capsys.readouterr().err
    assert code == 2 and "janggi" in err and not (tmp_path / "out.pgn").exists()


def test_cli_convert_lists_warnings_and_variations_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["convert", str(BLACK_FIRST), str(tmp_path / "a.pgn")]) == 0
    assert "warning: " in capsys.readouterr().err
    assert main(["convert", str(BAD_VARIATION), str(tmp_path / "b.pgn"), "--skip-errors"]) == 0
    err = capsys.readouterr().err
    assert "left out 2 variations that do not read:" in err and "'h0h9'" in err


def test_pgn_saved_as_txt_is_read_as_pgn(tmp_path: Path) -> None:
    path = tmp_path / "games.txt"
    shutil.copyfile(DATA / "multi.pgn", path)
    assert len(read_file(path)) == len(read_file(DATA / "multi.pgn"))
