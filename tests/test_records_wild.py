"""Records as real files write them: each convention of issue 11 on a fixture that
reproduces it (``tests/data/records/README.md`` says what each file stands for)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from chuhan import Board, IllegalMoveError, Move, janggi_start_fen
from chuhan.notation import parse_korean, parse_move, to_wxf
from chuhan.records import (
    GameRecord,
    RecordError,
    convert,
    decode_bytes,
    detect_encoding,
    iter_data,
    iter_file,
    iter_headers,
    iter_pgn,
    parse_san,
    read_file,
    read_gib,
    read_pgn,
    write_gib,
    write_pgn,
)

DATA = Path(__file__).parent / "data" / "records"


def clean(path: str) -> list[GameRecord]:
    """The games of a fixture, each read without an error."""
    records = read_file(DATA / path)
    assert [record.errors for record in records] == [[] for _ in records]
    return records


def plies(records: list[GameRecord]) -> list[int]:
    return [len(record.main_line_moves()) for record in records]


# ------------------------------------------------------------------ GIB setups


def test_gib_han_arrangement_lists_the_files_in_board_order() -> None:
    record = read_gib('[초차림 "마상상마"]\n[한차림 "상마상마"]\n\n*')[0]
    # b9 elephant, c9 horse, g9 elephant, h9 horse: files 1 to 9 from Cho's left.
    assert record.fen.split("/")[0] == "rbna1abnr"


def test_gib_han_arrangement_is_han_own_left_reversed() -> None:
    record = read_gib('[초차림 "상마상마"]\n[한차림 "마상마상"]\n\n*')[0]
    assert record.fen == janggi_start_fen(cho="상마상마", han="상마상마")


def test_gib_writer_gives_han_arrangement_in_board_order() -> None:
    record = GameRecord(variant=Board(variant="janggi").variant)
    record.fen = janggi_start_fen(cho="마상마상", han="마상마상")
    assert '[한차림 "상마상마"]' in write_gib(record)


def test_tournament_shaped_gib_replays_every_move() -> None:
    assert plies(clean("janggi_suffixes_euckr.gib")) == [70]


# ------------------------------------------------------------------ GIB suffixes


def test_gib_capture_suffix_names_the_captured_piece() -> None:
    record = clean("janggi_suffixes_euckr.gib")[0]
    board = record.start_board()
    for move in record.main_line_moves()[:3]:
        board.push(move)
    assert parse_korean(board, "32포72졸") == Move.from_iccs("b7b3")


def test_gib_check_suffix_is_read_on_a_checking_move() -> None:
    board = Board("4k4/9/9/9/9/9/9/9/4R4/3K5 w", variant="janggi")
    assert parse_korean(board, "95차35장군") == Move.from_iccs("e1e7")


def test_gib_capture_suffix_naming_the_wrong_piece_is_an_error() -> None:
    record = clean("janggi_suffixes_euckr.gib")[0]
    board = record.start_board()
    for move in record.main_line_moves()[:3]:
        board.push(move)
    with pytest.raises(IllegalMoveError, match=r"captured horse \(마\) but the piece on 72"):
        parse_korean(board, "32포72마")


def test_gib_capture_suffix_on_an_empty_point_is_an_error() -> None:
    with pytest.raises(IllegalMoveError, match="is empty"):
        parse_korean(Board(janggi_start_fen(), variant="janggi"), "79졸78병")


def test_gib_check_word_on_a_move_that_gives_no_check_is_an_error() -> None:
    with pytest.raises(IllegalMoveError, match="gives none"):
        parse_korean(Board(janggi_start_fen(), variant="janggi"), "79졸78장군")


def test_a_wrong_suffix_stops_its_game_with_the_ply_and_the_token() -> None:
    text = (DATA / "janggi_suffixes_euckr.gib").read_bytes().decode("cp949")
    record = read_gib(text.replace("32포72졸", "32포72마"))[0]
    error = str(record.errors[0])
    assert (len(record.main_line_moves()), "ply 4" in error, "'32포72마'" in error) == (
        3,
        True,
        True,
    )


# ------------------------------------------------------------------ encodings


@pytest.mark.parametrize(
    ("path", "encoding"),
    [
        ("xiangqi_gb18030.pgn", "gb18030"),
        ("xiangqi_big5.pgn", "cp950"),
        ("xiangqi_utf8_bom.pgn", "utf-8-sig"),
        ("janggi_euckr.gib", "cp949"),
        ("janggi_suffixes_euckr.gib", "cp949"),
        ("janggi_utf8.gib", "utf-8"),
    ],
)
def test_the_encoding_of_each_sample_is_detected(path: str, encoding: str) -> None:
    assert detect_encoding((DATA / path).read_bytes()) == encoding


def test_gb18030_export_reads_its_chinese_moves_and_names() -> None:
    records = clean("xiangqi_gb18030.pgn")
    assert (plies(records), records[1].headers["Event"]) == ([40, 40], "第一届全国象棋测试赛")


def test_big5_export_reads_its_chinese_moves() -> None:
    records = clean("xiangqi_big5.pgn")
    gb = clean("xiangqi_gb18030.pgn")[0]
    assert (records[0].main_line_moves(), records[0].headers["Red"]) == (
        gb.main_line_moves(),
        "陳紅",
    )


def test_utf8_with_a_byte_order_mark_reads() -> None:
    records = clean("xiangqi_utf8_bom.pgn")
    assert (plies(records), records[0].headers["Game"]) == ([40], "Chinese Chess")


def test_a_trailer_line_after_the_last_game_is_not_a_game() -> None:
    assert len(clean("xiangqi_gb18030.pgn")) == 2


def test_text_after_a_trailer_line_is_not_a_game() -> None:
    text = '[Event "x"]\n1. h2e2 h9g7 1-0\n==========\nMade by a program\nwww.example.com\n'
    records = read_pgn(text)
    assert ([r.errors for r in records], plies(records)) == ([[]], [2])


def test_a_game_after_a_trailer_and_its_tags_is_read() -> None:
    text = '1. h2e2 *\n=====\nsome words\n[Event "y"]\n1. h0g2 *\n'
    assert [r.headers.get("Event") for r in read_pgn(text)] == [None, "y"]


def test_one_short_gb18030_game_is_not_taken_for_korean() -> None:
    text = "1. 炮二平五 马８进７ *\n"
    assert decode_bytes(text.encode("gb18030")) == text


def test_one_short_euc_kr_game_is_not_taken_for_big5() -> None:
    text = "1. 75졸74 2. 47병46 *\n"
    assert decode_bytes(text.encode("euc-kr")) == text


def test_a_given_encoding_is_used_without_a_guess() -> None:
    data = '[Event "象棋"]\n1. 炮二平五 *\n'.encode("gb18030")
    record = read_pgn(data, encoding="gbk")[0]
    assert (record.headers["Event"], [m.iccs() for m in record.main_line_moves()]) == (
        "象棋",
        ["h2e2"],
    )


def test_a_wrong_given_encoding_costs_the_moves_not_the_reader() -> None:
    data = "1. 炮二平五 *\n".encode("gb18030")
    record = read_pgn(data, encoding="big5")[0]
    assert (record.main_line_moves(), len(record.errors)) == ([], 1)


def test_an_unknown_encoding_is_a_record_error() -> None:
    with pytest.raises(RecordError, match="unknown encoding 'klingon'"):
        read_pgn(b"1. h2e2 *", encoding="klingon")


def test_chinese_text_after_a_long_ascii_start_is_still_detected() -> None:
    ascii_games = '[Event "x"]\n1. h2e2 *\n\n' * 10_000  # ~200 KB before the first CJK byte
    data = (ascii_games + '[Event "象棋"]\n1. 炮二平五 *\n').encode("gb18030")
    records = list(iter_pgn(io.BytesIO(data)))
    assert (len(records), records[-1].headers["Event"]) == (10_001, "象棋")


# ------------------------------------------------------------------ full-width WXF


def test_full_width_wxf_database_reads() -> None:
    assert plies(clean("xiangqi_wxf_fullwidth.pgn")) == [40]


def test_full_width_wxf_move_is_the_ascii_one() -> None:
    assert parse_move(Board(), "Ｃ２＝５") == Move.from_iccs("h2e2")


def test_full_width_wxf_reads_to_the_same_moves_as_the_gb18030_game() -> None:
    assert clean("xiangqi_wxf_fullwidth.pgn")[0].main_line_moves() == (
        clean("xiangqi_gb18030.pgn")[1].main_line_moves()
    )


# ------------------------------------------------------------------ WinBoard SAN


def test_winboard_san_with_ranks_from_zero_replays() -> None:
    record = clean("winboard_xiangqi.pgn")[0]
    assert (len(record.main_line_moves()), record.board().is_checkmate()) == (27, True)


def test_winboard_first_move_legal_either_way_is_read_from_zero() -> None:
    record = clean("winboard_xiangqi.pgn")[0]
    assert record.main_line_moves()[0] == Move.from_iccs("a0a2")


def test_san_legal_both_ways_is_read_the_way_its_capture_mark_fits() -> None:
    # 'Rxa3' is a0-a2 counting ranks from 1 (no capture) or a0xa3 counting from 0.
    text = '[Variant "xiangqi"]\n[FEN "3k5/9/9/9/9/9/p8/9/9/R3K4 w"]\n\n1. Rxa3 *\n'
    assert read_pgn(text)[0].main_line_moves() == [Move.from_iccs("a0a3")]


def test_parse_san_counts_ranks_from_zero_when_told() -> None:
    assert parse_san(Board(), "Che2", first_rank=0) == Move.from_iccs("h2e2")


def test_parse_san_counts_ranks_from_one_by_default() -> None:
    assert parse_san(Board(), "Che3") == Move.from_iccs("h2e2")


# ------------------------------------------------------------------ tags


def test_a_tag_value_with_bare_quotes_runs_to_its_closing_quote() -> None:
    event = clean("bare_quotes.pgn")[1].headers["Event"]
    assert event == '"Huangshan Cup" National GM,CM Tournament 2002'


def test_a_bad_tag_does_not_cost_the_game_before_it() -> None:
    assert plies(clean("bare_quotes.pgn")) == [10, 10]


def test_a_tag_line_without_its_closing_quote_is_read_loosely() -> None:
    record = read_pgn('[Event "Cup]\n[Red "Wang"]\n1. h2e2 *')[0]
    assert (record.headers["Event"], record.headers["Red"], record.errors) == ("Cup", "Wang", [])


# ------------------------------------------------------------------ our SAN and WXF


def test_san_with_a_rank_hint_reads_back_as_san() -> None:
    # Two red horses on file b: the move names its rank, 'H1c3', which is also ICCS-shaped.
    record = GameRecord.from_moves([Move.from_iccs("b0c2")], fen="3k5/9/9/9/9/1N7/9/9/9/1N2K4 w")
    text = write_pgn(record, "san")
    assert ("H1c3" in text, read_pgn(text)[0].main_line_moves()) == (True, [Move.from_iccs("b0c2")])


def test_a_wxf_tandem_pawn_move_is_not_a_move_number() -> None:
    # Three red pawns on file 7 (c) and two on file 3 (g): the middle one is '77'.
    fen = "3k5/9/9/2P6/2P3P2/2P3P2/9/9/9/4K4 w"
    move = Move.from_iccs("c5d5")
    assert to_wxf(Board(fen), move) == "77.6"
    record = GameRecord.from_moves([move], fen=fen)
    assert read_pgn(write_pgn(record, "wxf"))[0].main_line_moves() == [move]


# ------------------------------------------------------------------ streaming


class CountingReader(io.BytesIO):
    """A binary file that remembers how far it was read."""

    furthest = 0

    def read(self, size: int | None = -1) -> bytes:
        data = super().read(size)
        self.furthest = max(self.furthest, self.tell())
        return data


def test_iter_pgn_reads_an_open_file_a_game_at_a_time() -> None:
    data = ('[Event "x"]\n1. h2e2 h9g7 *\n\n' * 50_000).encode("ascii")  # 1.5 MB
    handle = CountingReader(data)
    first = next(iter_pgn(handle))
    assert (first.headers["Event"], handle.furthest < len(data) // 10) == ("x", True)


def test_iter_headers_scans_the_tags_of_every_game() -> None:
    headers = list(iter_headers((DATA / "multi.pgn").read_bytes()))
    assert [(h["Event"], h["Result"]) for h in headers] == [
        ("Blitz 1", "1/2-1/2"),
        ("Blitz 2", "0-1"),
        ("Blitz 3", "*"),
    ]


def test_iter_file_closes_the_file_when_the_games_are_read() -> None:
    games = iter_file(DATA / "multi.pgn")
    assert len(list(games)) == 3


def test_iter_data_reads_a_files_bytes_as_iter_file_reads_the_file() -> None:
    from_bytes = list(iter_data((DATA / "multi.pgn").read_bytes(), "multi.pgn"))
    from_file = list(iter_file(DATA / "multi.pgn"))
    assert [g.main_line_moves() for g in from_bytes] == [g.main_line_moves() for g in from_file]
    assert [g.headers for g in from_bytes] == [g.headers for g in from_file]


def test_iter_data_names_the_file_it_cannot_tell() -> None:
    with pytest.raises(RecordError, match=r"'notes\.dat'"):
        list(iter_data(b"nothing here", "notes.dat"))


def test_a_bad_move_error_names_its_line() -> None:
    lines = (DATA / "multi.pgn").read_text(encoding="utf-8").splitlines()
    line = next(number for number, text in enumerate(lines, 1) if "z9z9" in text)
    error = str(read_pgn((DATA / "multi.pgn").read_bytes())[1].errors[0])
    assert f"line {line}" in error


def test_convert_skip_errors_writes_the_good_games_and_names_the_bad(tmp_path: Path) -> None:
    done = convert(DATA / "multi.pgn", tmp_path / "out.pgn", skip_errors=True)
    written = read_pgn((tmp_path / "out.pgn").read_bytes())
    assert (done.written, [r.headers["Event"] for r in written], len(done.skipped)) == (
        2,
        ["Blitz 1", "Blitz 3"],
        1,
    )
    assert "game 2 (Blitz 2, Typo)" in str(done.skipped[0])


def test_convert_without_skip_errors_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="game 2"):
        convert(DATA / "multi.pgn", tmp_path / "out.pgn")
    assert list(tmp_path.iterdir()) == []


def test_cli_convert_takes_the_input_encoding_and_skips_bad_games(tmp_path: Path) -> None:
    source = tmp_path / "games.pgn"
    good = '[Event "象棋"]\n1. 炮二平五 *\n\n'
    source.write_bytes((good + '[Event "bad"]\n1. 炮二平九 *\n\n' + good).encode("gb18030"))
    target = tmp_path / "out.pgn"
    result = subprocess.run(
        [
            *(sys.executable, "-m", "chuhan.cli", "convert", str(source), str(target)),
            *("--encoding", "gb18030", "--skip-errors"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (result.returncode, result.stdout.strip(), "game 2 (bad)" in result.stderr) == (
        0,
        "converted 2 games",
        True,
    )
    assert "Traceback" not in result.stderr


def test_games_with_no_tags_stream_in_bounded_pieces() -> None:
    data = ("1. h2e2 h9g7 *\n" * 200_000).encode("ascii")  # 3 MB, no tags at all
    handle = CountingReader(data)
    games = iter_pgn(handle)
    first = next(games)
    assert (len(first.main_line_moves()), handle.furthest < len(data) // 2) == (2, True)


def test_a_file_of_one_huge_line_reads_in_linear_time() -> None:
    data = ("h2e2 h9g7 e2h2 g7h9 " * 150_000 + "*").encode("ascii")  # 3 MB, one line
    record = next(iter_pgn(io.BytesIO(data)))
    assert len(record.main_line_moves()) == 10_000 and "more than 10000 plies" in str(
        record.errors[0]
    )


def test_gib_check_word_cut_to_one_syllable_is_read() -> None:
    board = Board("4k4/9/9/9/9/9/9/9/4R4/3K5 w", variant="janggi")
    assert parse_korean(board, "95차35장") == Move.from_iccs("e1e7")
