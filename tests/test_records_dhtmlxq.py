"""DhtmlXQ (UBB) records as 东萍 and the Chinese web databases write them
(``tests/data/records/README.md`` says what each fixture reproduces)."""

from __future__ import annotations

from pathlib import Path

import pytest

from chuhan import Board
from chuhan.records import (
    GameNode,
    GameRecord,
    ReadLimitError,
    ReadLimits,
    RecordError,
    convert,
    detect_encoding,
    read_dhtmlxq,
    read_file,
    read_pgn,
    sniff_format,
    write_pgn,
)

DATA = Path(__file__).parent / "data" / "records"
START = Board().fen()


def game_of(path: str, index: int = 0) -> GameRecord:
    record = read_file(DATA / path)[index]
    assert record.errors == []
    return record


def iccs(node: GameNode) -> list[str]:
    """The moves of the line that starts with ``node``."""
    assert node.move is not None
    return [node.move.iccs()] + [n.move.iccs() for n in node.main_line() if n.move]


def one(text: str) -> GameRecord:
    (record,) = read_dhtmlxq(text)
    return record


def test_dpxq_export_is_gbk() -> None:
    assert detect_encoding((DATA / "xiangqi_dhtmlxq_gbk.ubb").read_bytes()) == "gb18030"


def test_movelist_is_the_main_line_four_digits_a_move() -> None:
    record = game_of("xiangqi_dhtmlxq_gbk.ubb")
    moves = [move.iccs() for move in record.main_line_moves()]
    assert moves[:4] == ["h2e2", "h9g7", "h0g2", "i9h9"] and len(moves) == 16


def test_headers_take_their_pgn_names() -> None:
    headers = game_of("xiangqi_dhtmlxq_gbk.ubb").headers
    assert (headers["Title"], headers["Event"], headers["Site"]) == (
        "中炮对屏风马 示例对局",
        "测试杯象棋赛",
        "北京",
    )
    assert (headers["Red"], headers["Black"], headers["Date"]) == ("红方甲", "黑方乙", "2026-11-25")


def test_the_result_in_chinese_is_read() -> None:
    assert game_of("xiangqi_dhtmlxq_gbk.ubb").result == "1-0"
    assert game_of("xiangqi_dhtmlxq_pages.txt", 1).result == "1/2-1/2"
    assert one("[DhtmlXQ_result]黑胜[/DhtmlXQ_result]").result == "0-1"


def test_viewer_settings_are_not_headers() -> None:
    headers = game_of("xiangqi_dhtmlxq_gbk.ubb").headers
    assert "DhtmlXQ_ver" not in headers and "DhtmlXQ_init" not in headers
    assert headers["DhtmlXQ_type"] == "全局"


def test_binit_of_the_usual_start_is_the_start() -> None:
    assert game_of("xiangqi_dhtmlxq_gbk.ubb").fen == START


def test_binit_99_is_a_piece_off_the_board() -> None:
    assert game_of("xiangqi_dhtmlxq_pages.txt").fen == "4k4/9/1R7/R8/9/9/2p6/9/9/3K5 w - - 0 1"


def test_the_first_move_says_which_side_starts() -> None:
    record = game_of("xiangqi_dhtmlxq_pages.txt", 1)
    assert record.fen.split()[1] == "b"
    assert [move.iccs() for move in record.main_line_moves()] == ["a2a0", "d0d1"]


def test_a_game_without_binit_starts_from_the_usual_position() -> None:
    assert one("[DhtmlXQ_movelist]7747[/DhtmlXQ_movelist]").fen == START


def test_a_variation_is_an_alternative_to_its_ply() -> None:
    record = game_of("xiangqi_dhtmlxq_gbk.ubb")
    after_two = record.root.children[0].children[0]
    assert iccs(after_two.children[1]) == ["b0c2", "i9h9", "a0b0"]  # move_0_3_1


def test_a_variation_hangs_from_a_variation() -> None:
    record = game_of("xiangqi_dhtmlxq_gbk.ubb")
    variation = record.root.children[0].children[0].children[1]  # b0c2, ply 3
    assert iccs(variation.children[1]) == ["g6g5", "h0g2"]  # move_1_4_2


def test_a_variation_of_black_first_move() -> None:
    record = game_of("xiangqi_dhtmlxq_gbk.ubb")
    assert iccs(record.root.children[0].children[1]) == ["b7e7"]  # move_0_2_3


def test_comment0_is_before_the_first_move_and_a_double_bar_is_a_line_break() -> None:
    assert game_of("xiangqi_dhtmlxq_gbk.ubb").comment == "示例对局\n按东萍的写法"


def test_comment_n_follows_ply_n() -> None:
    record = game_of("xiangqi_dhtmlxq_gbk.ubb")
    commented = [(node.ply(), node.comment) for node in record.root.main_line() if node.comment]
    assert commented == [(1, "中炮开局"), (16, "黑方认负")]


def test_a_variation_comment_follows_its_ply() -> None:
    record = game_of("xiangqi_dhtmlxq_gbk.ubb")
    assert record.root.children[0].children[0].children[1].comment == "也可以先跳左马"
    assert record.root.children[0].children[1].comment == "顺炮"


def test_unicode_escapes_in_a_comment_are_characters() -> None:
    record = one(
        "[DhtmlXQ_movelist]7747[/DhtmlXQ_movelist][DhtmlXQ_comment1]\\u4e2d\\u70ae[/DhtmlXQ_comment1]"
    )
    assert record.root.children[0].comment == "中炮"


def test_text_around_the_blocks_is_skipped() -> None:
    assert [r.headers["Title"] for r in read_file(DATA / "xiangqi_dhtmlxq_pages.txt")] == [
        "双车错杀",
        "黑先",
    ]


def test_bare_tags_without_a_block_are_one_game() -> None:
    record = one("[DhtmlXQ_title]t[/DhtmlXQ_title]\n[DhtmlXQ_movelist]77477062[/DhtmlXQ_movelist]")
    assert len(record.main_line_moves()) == 2


def test_a_bad_game_is_refused_alone_naming_the_game_ply_and_digits() -> None:
    records = read_file(DATA / "xiangqi_dhtmlxq_broken.ubb")
    assert [len(record.errors) for record in records] == [0, 1, 0]
    message = str(records[1].errors[0])
    assert message.startswith("game 2 (第二局): the main line (movelist), ply 3 '4740' (e2e9)")
    assert "the cannon on e2 cannot move to e9" in message


def test_the_moves_before_a_bad_move_are_kept() -> None:
    record = read_file(DATA / "xiangqi_dhtmlxq_broken.ubb")[1]
    assert [move.iccs() for move in record.main_line_moves()] == ["h2e2", "h9g7"]


def test_a_bad_variation_names_it() -> None:
    record = one(
        "[DhtmlXQ_movelist]77477062[/DhtmlXQ_movelist][DhtmlXQ_move_0_2_1]4740[/DhtmlXQ_move_0_2_1]"
    )
    assert "variation move_0_2_1, ply 2 '4740'" in str(record.errors[0])


def test_an_alternative_to_a_variation_first_move_hangs_beside_it() -> None:
    record = one(
        "[DhtmlXQ_movelist]77477062[/DhtmlXQ_movelist]"
        "[DhtmlXQ_move_0_2_1]1242[/DhtmlXQ_move_0_2_1][DhtmlXQ_move_1_2_2]1022[/DhtmlXQ_move_1_2_2]"
    )
    after_one = record.root.children[0]
    assert [iccs(child)[0] for child in after_one.children] == ["h9g7", "b7e7", "b9c7"]


def test_a_variation_from_a_ply_its_line_lacks_is_refused() -> None:
    record = one(
        "[DhtmlXQ_movelist]7747[/DhtmlXQ_movelist][DhtmlXQ_move_0_5_1]1242[/DhtmlXQ_move_0_5_1]"
    )
    assert "line 0 has no ply 5" in str(record.errors[0])


def test_a_variation_of_a_missing_line_is_refused() -> None:
    record = one(
        "[DhtmlXQ_movelist]7747[/DhtmlXQ_movelist][DhtmlXQ_move_4_2_5]1242[/DhtmlXQ_move_4_2_5]"
    )
    assert "its parent line 4 is not in the game" in str(record.errors[0])


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[DhtmlXQ_movelist]7747", "[DhtmlXQ_movelist] is never closed"),
        ("[DhtmlXQ_movelist]7747[/DhtmlXQ_binit]", "closed by [/DhtmlXQ_binit]"),
        ("[DhtmlXQ_movelist]774[/DhtmlXQ_movelist]", "3 digits, not a multiple of 4"),
        ("[DhtmlXQ_movelist]77a7[/DhtmlXQ_movelist]", "something other than digits"),
        ("[DhtmlXQ_movelist]9747[/DhtmlXQ_movelist]", "ply 1 '9747': '97' is off the board"),
        ("[DhtmlXQ_binit]8979[/DhtmlXQ_binit]", "binit '8979' is not 64 digits"),
        ("[DhtmlXQ_binit]" + "99" * 32 + "[/DhtmlXQ_binit]", "cannot set up the start position"),
    ],
)
def test_a_malformed_game_says_what_is_wrong(text: str, said: str) -> None:
    record = one("[DhtmlXQ_title]Cup[/DhtmlXQ_title]" + text)
    assert len(record.errors) == 1 and said in str(record.errors[0]), record.errors
    assert str(record.errors[0]).startswith("game 1 (Cup)")


def test_two_pieces_on_one_point_are_refused() -> None:
    binit = "8979695949392919097717866646260600102030405060708012720323436383"
    record = one(f"[DhtmlXQ_binit]{binit[:2]}{binit[:62]}[/DhtmlXQ_binit]")
    assert "are both at '89'" in str(record.errors[0])


def test_limits_bound_a_game_and_a_file() -> None:
    record = read_dhtmlxq(
        "[DhtmlXQ_movelist]77477062[/DhtmlXQ_movelist]", limits=ReadLimits(max_plies=1)
    )[0]
    assert isinstance(record.errors[0], ReadLimitError)
    two = "[DhtmlXQ][DhtmlXQ_movelist]7747[/DhtmlXQ_movelist][/DhtmlXQ]" * 2
    with pytest.raises(ReadLimitError, match="more than 1 games"):
        read_dhtmlxq(two, limits=ReadLimits(max_games=1))


def test_the_tree_survives_conversion_to_pgn() -> None:
    record = game_of("xiangqi_dhtmlxq_gbk.ubb")
    back = read_pgn(write_pgn(record))[0]
    assert back.errors == [] and write_pgn(back) == write_pgn(record)


def test_convert_skips_the_bad_game_by_number(tmp_path: Path) -> None:
    out = tmp_path / "out.pgn"
    done = convert(DATA / "xiangqi_dhtmlxq_broken.ubb", out, skip_errors=True)
    assert done.written == 2 and [e.game.split(", ")[-1] for e in done.skipped] == [
        "game 2 (第二局)"
    ]


def test_dhtmlxq_is_not_written(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="read, not written"):
        convert(DATA / "xiangqi_iccs.pgn", tmp_path / "out.ubb")


@pytest.mark.parametrize(
    ("path", "fmt"),
    [
        ("xiangqi_dhtmlxq_gbk.ubb", "dhtmlxq"),
        ("xiangqi_dhtmlxq_pages.txt", "dhtmlxq"),
        ("janggi_euckr.gib", "gib"),
        ("janggi_utf8.gib", "gib"),
        ("xiangqi_gb18030.pgn", "pgn"),
        ("pychess_janggi.pgn", "pgn"),
    ],
)
def test_a_file_format_is_told_from_its_bytes(path: str, fmt: str) -> None:
    assert sniff_format((DATA / path).read_bytes()) == fmt


def test_a_fen_tag_sets_the_start_as_some_viewers_write_it() -> None:
    record = one(
        "[DhtmlXQ_fen]4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1[/DhtmlXQ_fen]"
        "[DhtmlXQ_movelist]0900[/DhtmlXQ_movelist]"
    )
    assert record.errors == [] and [m.iccs() for m in record.main_line_moves()] == ["a0a9"]
