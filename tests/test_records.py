"""Game records: PGN (xiangqi and pychess.org conventions), GIB, XQF and plain text."""

from __future__ import annotations

import contextlib
import random
from pathlib import Path
from typing import Any

import pyffish
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chuhan import Board, Move, janggi_start_fen
from chuhan.records import (
    Conversion,
    GameNode,
    GameRecord,
    RecordError,
    convert,
    decode_bytes,
    encode_gib,
    parse_san,
    read_file,
    read_gib,
    read_pgn,
    read_text_record,
    read_xqf,
    to_san,
    write_gib,
    write_pgn,
    write_text_record,
    write_xqf,
)

DATA = Path(__file__).parent / "data" / "records"
MAIN_LINE = [
    "h2e2",
    "h9g7",
    "h0g2",
    "i9h9",
    "i0h0",
    "g6g5",
    "c3c4",
    "b9c7",
    "b0a2",
    "h7i7",
    "h0h9",
    "g7h9",
]


def tree(node: GameNode, *, nags: bool = True) -> list[Any]:
    """A comparable picture of a game tree: each child's move, comment, NAGs, subtree."""
    return [
        (
            child.move.iccs() if child.move else None,
            child.comment,
            child.nags if nags else [],
            tree(child, nags=nags),
        )
        for child in node.children
    ]


def iccs(record: GameRecord) -> list[str]:
    return [move.iccs() for move in record.main_line_moves()]


def sample(name: str) -> GameRecord:
    records = read_file(DATA / name)
    assert len(records) >= 1
    return records[0]


def random_record(variant: str, seed: int, plies: int = 30) -> GameRecord:
    """A game of random legal moves with a comment and a variation, for round trips."""
    rng = random.Random(seed)
    record = GameRecord.from_moves([], variant=variant)
    board, node = record.start_board(), record.root
    for ply in range(plies):
        legal = list(board.legal_moves)
        if not legal:
            break
        move = rng.choice(legal)
        if ply == 3 and len(legal) > 1:
            alternative = next(m for m in legal if m != move)
            node.add_variation(alternative, comment="a sideline")
        node = node.add_variation(move, comment=f"ply {ply}" if ply % 7 == 0 else "")
        board.push(move)
    record.headers.update({"Event": "Random", "Date": "2024.01.01"})
    record.result = "1/2-1/2"
    return record


# ------------------------------------------------------------------ sample files


def test_iccs_sample_replays_its_main_line() -> None:
    assert iccs(sample("xiangqi_iccs.pgn")) == MAIN_LINE


def test_iccs_sample_reads_upper_case_dashed_moves_without_errors() -> None:
    assert sample("xiangqi_iccs.pgn").errors == []


def test_iccs_sample_keeps_the_variation_and_its_comment() -> None:
    first = sample("xiangqi_iccs.pgn").root.children[0]
    variation = first.children[1]
    assert (variation.move, variation.comment, variation.nags) == (
        Move.from_iccs("b9c7"),
        "The other horse works too.",
        [5],
    )


def test_iccs_sample_keeps_game_comment_headers_and_result() -> None:
    record = sample("xiangqi_iccs.pgn")
    assert (record.comment, record.headers["Red"], record.result) == (
        "The classic central cannon opening.",
        "Chan Wai",
        "1-0",
    )


def test_chinese_sample_reads_to_the_same_tree_as_the_iccs_sample() -> None:
    assert tree(sample("xiangqi_chinese.pgn").root) == tree(sample("xiangqi_iccs.pgn").root)


def test_board_is_the_final_position_of_the_main_line() -> None:
    board = Board()
    for move in MAIN_LINE:
        board.push_iccs(move)
    assert sample("xiangqi_iccs.pgn").board() == board


def test_pychess_janggi_export_reads_san_and_king_passes() -> None:
    record = read_pgn((DATA / "pychess_janggi.pgn").read_bytes())[0]
    assert (record.variant.game, record.errors, record.result, len(iccs(record))) == (
        "janggi",
        [],
        "0-1",
        30,
    )
    # "Kd9" at ply 12 is Han's king staying on d8: a pass.
    assert record.main_line_moves()[11].is_pass()


def test_pychess_xiangqi_export_reads_to_the_central_cannon_line() -> None:
    record = read_pgn((DATA / "pychess_janggi.pgn").read_text())[1]
    assert (record.variant.game, iccs(record)[:12], record.headers["WhiteElo"]) == (
        "xiangqi",
        MAIN_LINE,
        "1712",
    )


def test_a_bad_move_stops_only_its_own_game() -> None:
    records = read_pgn((DATA / "multi.pgn").read_text())
    assert [len(iccs(r)) for r in records] == [4, 3, 2]


def test_a_bad_move_error_names_the_game_the_move_number_and_the_text() -> None:
    error = str(read_pgn((DATA / "multi.pgn").read_text())[1].errors[0])
    assert all(part in error for part in ("game 2", "Typo", "move 2...", "'z9z9'"))


def test_games_around_a_bad_one_load_cleanly() -> None:
    records = read_pgn((DATA / "multi.pgn").read_text())
    assert [bool(r.errors) for r in records] == [False, True, False]


def test_gib_utf8_and_euc_kr_samples_read_the_same_game() -> None:
    utf8, euckr = sample("janggi_utf8.gib"), sample("janggi_euckr.gib")
    assert (tree(utf8.root), utf8.headers) == (tree(euckr.root), euckr.headers)


def test_euc_kr_sample_is_not_utf8() -> None:
    with pytest.raises(UnicodeDecodeError):
        (DATA / "janggi_euckr.gib").read_bytes().decode("utf-8")


def test_gib_setup_headers_give_the_start_position() -> None:
    assert sample("janggi_utf8.gib").fen == janggi_start_fen(cho="상마상마", han="마상마상")


def test_gib_result_header_gives_the_result() -> None:
    record = sample("janggi_euckr.gib")
    assert (record.result, record.headers["대국결과"]) == ("0-1", "한 시간승")


def test_gib_sample_replays_with_its_pass_and_comment() -> None:
    record = sample("janggi_utf8.gib")
    moves = record.main_line_moves()
    assert (len(moves), moves[11].is_pass(), record.root.children[0].comment, record.errors) == (
        20,
        True,
        "귀마 차림에서 졸을 옮긴다",
        [],
    )


def test_decode_bytes_prefers_utf8_and_falls_back_to_euc_kr() -> None:
    text = '[대회명 "명인전"]'
    assert (decode_bytes(text.encode("utf-8")), decode_bytes(text.encode("euc-kr"))) == (
        text,
        text,
    )


# ------------------------------------------------------------------ round trips


@pytest.mark.parametrize("notation", ["iccs", "wxf", "chinese", "san"])
def test_pgn_round_trip_keeps_moves_comments_variations_headers_result(notation: str) -> None:
    original = sample("xiangqi_iccs.pgn")
    back = read_pgn(write_pgn(original, notation))[0]
    assert (tree(back.root), back.comment, back.headers | {"Format": "ICCS"}, back.errors) == (
        tree(original.root),
        original.comment,
        original.headers,
        [],
    )


@pytest.mark.parametrize("notation", ["iccs", "korean", "san", "wxf"])
@pytest.mark.parametrize("seed", [1, 2])
def test_janggi_pgn_round_trip_keeps_the_tree(notation: str, seed: int) -> None:
    original = random_record("janggi", seed)
    back = read_pgn(write_pgn(original, notation))[0]
    assert (tree(back.root), back.variant, back.result, back.errors) == (
        tree(original.root),
        original.variant,
        "1/2-1/2",
        [],
    )


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_xiangqi_pgn_round_trip_of_random_games_with_variations(seed: int) -> None:
    original = random_record("xiangqi", seed, plies=60)
    for notation in ("chinese", "wxf"):
        assert tree(read_pgn(write_pgn(original, notation))[0].root) == tree(original.root)


def test_pgn_keeps_a_non_standard_start_and_rules() -> None:
    fen = "3k5/9/9/9/9/9/9/9/4A4/3K5 b - - 0 1"
    original = GameRecord.from_moves([Move.from_iccs("d9e9")], fen=fen, variant="xiangqi:chinese")
    back = read_pgn(write_pgn(original))[0]
    assert (back.fen, back.variant, iccs(back)) == (fen, original.variant, ["d9e9"])


def test_pgn_header_values_with_quotes_survive() -> None:
    original = GameRecord.from_moves([], headers={"Event": 'The "Grand" \\ Open'})
    assert read_pgn(write_pgn(original))[0].headers["Event"] == 'The "Grand" \\ Open'


@pytest.mark.parametrize("encoding", ["utf-8", "euc-kr"])
def test_gib_round_trip_keeps_moves_comments_headers_result(encoding: str) -> None:
    original = sample("janggi_utf8.gib")
    back = read_gib(encode_gib(write_gib(original), encoding))[0]
    assert (tree(back.root), back.headers, back.fen) == (
        tree(original.root),
        original.headers,
        original.fen,
    )


def test_gib_writes_the_result_when_the_record_has_no_korean_one() -> None:
    record = GameRecord.from_moves([], variant="janggi")
    record.result = "1-0"
    assert '[대국결과 "초 완승"]' in write_gib(record)


def test_gib_refuses_xiangqi() -> None:
    with pytest.raises(RecordError, match="janggi"):
        write_gib(GameRecord())


@pytest.mark.parametrize("version", [10, 11, 12, 16, 18])
@pytest.mark.parametrize("seed", [0, 1, 0x5A, 255])
def test_xqf_round_trip_keeps_tree_comments_headers_result(version: int, seed: int) -> None:
    original = sample("xiangqi_iccs.pgn")
    back = read_xqf(write_xqf(original, version=version, seed=seed))
    kept = ("Event", "Site", "Date", "Red", "Black", "Opening", "Result")
    assert (tree(back.root, nags=False), back.comment, back.errors) == (
        tree(original.root, nags=False),
        original.comment,
        [],
    )
    assert {k: back.headers[k] for k in kept} == {k: original.headers[k] for k in kept}


@pytest.mark.parametrize("version", [10, 18])
def test_xqf_round_trip_of_an_endgame_with_black_to_move(version: int) -> None:
    fen = "3k5/9/9/9/9/9/9/9/4A4/4K4 b - - 0 1"
    original = GameRecord.from_moves([Move.from_iccs("d9d8")], fen=fen)
    back = read_xqf(write_xqf(original, version=version))
    assert (back.fen, iccs(back)) == (fen, ["d9d8"])


@pytest.mark.parametrize("seed", [6, 7])
def test_xqf_round_trip_of_random_games_with_variations(seed: int) -> None:
    original = random_record("xiangqi", seed, plies=80)
    for version in (10, 18):
        assert tree(read_xqf(write_xqf(original, version=version)).root) == tree(original.root)


def test_xqf_encrypted_body_differs_from_the_plain_one() -> None:
    record = sample("xiangqi_iccs.pgn")
    assert write_xqf(record, version=10)[1024:] != write_xqf(record, version=18)[1024:]


def test_xqf_rejects_a_file_without_the_signature() -> None:
    with pytest.raises(RecordError, match="not an XQF file"):
        read_xqf(b"PK" + bytes(2000))


def test_xqf_rejects_a_truncated_move_tree() -> None:
    data = write_xqf(sample("xiangqi_iccs.pgn"), version=18)
    with pytest.raises(RecordError, match="truncated"):
        read_xqf(data[:-7])


def test_xqf_rejects_a_version_newer_than_xqstudio_writes() -> None:
    data = bytearray(write_xqf(GameRecord(), version=10))
    data[2] = 19
    with pytest.raises(RecordError, match="version 19"):
        read_xqf(bytes(data))


def test_xqf_cuts_the_tree_at_an_illegal_move_and_reports_it() -> None:
    data = bytearray(write_xqf(GameRecord.from_moves([Move.from_iccs("h2e2")]), version=10))
    data[1024 + 8] = (0 * 10 + 0 + 0x18) % 256  # the move's from-point becomes a0
    data[1024 + 9] = (0 * 10 + 9 + 0x20) % 256  # and its to-point a9: not legal
    record = read_xqf(bytes(data))
    assert (iccs(record), "a0a9" in str(record.errors[0])) == ([], True)


def test_xqf_refuses_janggi() -> None:
    with pytest.raises(RecordError, match="xiangqi"):
        write_xqf(GameRecord.from_moves([], variant="janggi"))


# ------------------------------------------------------------------ SAN


@pytest.mark.parametrize("variant", ["xiangqi", "janggi"])
def test_san_matches_fairy_stockfish_both_ways(variant: str) -> None:
    rng = random.Random(variant)
    for _ in range(8):
        board = Board(variant=variant)
        moves: list[Move] = []
        for _ in range(60):
            legal = list(board.legal_moves)
            if not legal:
                break
            moves.append(rng.choice(legal))
            board.push(moves[-1])
        theirs = pyffish.get_san_moves(
            variant, Board(variant=variant).fen(), [m.fsf() for m in moves], False
        )
        board = Board(variant=variant)
        for move, san in zip(moves, theirs, strict=True):
            assert (to_san(board, move), parse_san(board, san)) == (san, move)
            board.push(move)


# ------------------------------------------------------------------ text and convert


def test_text_record_round_trip_for_janggi() -> None:
    original = GameRecord.from_moves([Move.from_iccs("b0c2")], variant="janggi:modern")
    back = read_text_record(write_text_record(original))
    assert (back.variant, iccs(back), back.fen) == (original.variant, ["b0c2"], original.fen)


def test_text_record_rejects_an_illegal_move() -> None:
    with pytest.raises(RecordError, match="illegal"):
        read_text_record(f"{Board().fen()}\nh2h8")


def test_convert_pgn_to_xqf_and_back(tmp_path: Path) -> None:
    xqf, pgn = tmp_path / "game.xqf", tmp_path / "game.pgn"
    assert convert(DATA / "xiangqi_chinese.pgn", xqf) == Conversion(written=1)
    convert(xqf, pgn, format="wxf")
    assert tree(read_file(pgn)[0].root, nags=False) == tree(
        sample("xiangqi_iccs.pgn").root, nags=False
    )


def test_convert_gib_to_pgn_to_euc_kr_gib(tmp_path: Path) -> None:
    pgn, gib = tmp_path / "game.pgn", tmp_path / "out.gib"
    convert(DATA / "janggi_euckr.gib", pgn, format="korean")
    convert(pgn, gib, out_encoding="euc-kr")
    assert tree(read_gib(gib.read_bytes())[0].root) == tree(sample("janggi_utf8.gib").root)


def test_convert_to_text_writes_fen_and_moves(tmp_path: Path) -> None:
    out = tmp_path / "game.txt"
    convert(DATA / "xiangqi_iccs.pgn", out)
    assert out.read_text().split("\n")[1].split() == MAIN_LINE


def test_convert_refuses_several_games_into_one_game_format(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="holds one game"):
        convert(DATA / "pychess_janggi.pgn", tmp_path / "out.txt")


def test_convert_refuses_a_file_with_a_bad_move(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="z9z9"):
        convert(DATA / "multi.pgn", tmp_path / "out.pgn")


def test_convert_refuses_an_unknown_extension(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="unknown record type"):
        convert(DATA / "multi.pgn", tmp_path / "out.doc")


def test_read_file_reports_a_missing_file_as_a_record_error(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="cannot read"):
        read_file(tmp_path / "missing.pgn")


def test_write_pgn_refuses_an_unknown_format() -> None:
    with pytest.raises(RecordError, match="unknown PGN move format"):
        write_pgn(GameRecord(), "fen")


# ------------------------------------------------------------------ never a traceback

FUZZ = settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])
PGN_ALPHABET = st.sampled_from(
    [
        *list('[]{}()$;.*"-/ \n'),
        "1.",
        "1...",
        "h2e2",
        "H2-E2",
        "炮二平五",
        "C2.5",
        "Hc3",
        "1-0",
        "79졸78",
        "한수쉼",
        "Ke2",
        "Variant",
        "Janggi",
        "Game",
        "FEN",
        "x",
    ]
)


def _reads_or_record_error(read: Any, data: Any) -> None:
    with contextlib.suppress(RecordError):
        read(data)


@FUZZ
@given(st.lists(PGN_ALPHABET, max_size=40).map("".join))
def test_pgn_reader_survives_token_soup(text: str) -> None:
    for record in read_pgn(text):
        record.board()


@FUZZ
@given(st.text(max_size=300))
def test_pgn_and_gib_readers_survive_random_text(text: str) -> None:
    read_pgn(text)
    read_gib(text)


@FUZZ
@given(st.binary(max_size=300))
def test_text_readers_survive_random_bytes(data: bytes) -> None:
    read_pgn(data)
    read_gib(data)


@FUZZ
@given(st.binary(max_size=1300))
def test_xqf_reader_survives_random_bytes_after_the_signature(data: bytes) -> None:
    _reads_or_record_error(read_xqf, b"XQ" + data)


@FUZZ
@given(st.lists(st.tuples(st.integers(0, 1400), st.integers(0, 255)), max_size=6))
def test_xqf_reader_survives_corrupted_real_files(changes: list[tuple[int, int]]) -> None:
    data = bytearray(write_xqf(sample("xiangqi_iccs.pgn"), version=18))
    for offset, value in changes:
        if offset < len(data):
            data[offset] = value
    _reads_or_record_error(read_xqf, bytes(data))


def test_add_main_line_follows_existing_moves_and_extends_the_line() -> None:
    record = GameRecord.from_moves([Move.from_iccs("h2e2")])
    record.root.add_main_line([Move.from_iccs("h2e2"), Move.from_iccs("h9g7")])
    assert (iccs(record), len(record.root.children)) == (["h2e2", "h9g7"], 1)


def test_from_moves_refuses_an_illegal_move() -> None:
    with pytest.raises(RecordError, match="illegal"):
        GameRecord.from_moves([Move.from_iccs("h2h8")])


def test_result_setter_refuses_an_unknown_result() -> None:
    with pytest.raises(RecordError, match="invalid result"):
        GameRecord().result = "2-0"


def test_termination_is_a_header() -> None:
    record = GameRecord()
    record.termination = "perpetual check"
    assert read_pgn(write_pgn(record))[0].termination == "perpetual check"


def test_comments_semicolon_and_nag_suffixes_are_read() -> None:
    record = read_pgn("1. h2e2! ; strong\n h9g7?! {fine} *")[0]
    first, second = record.root.children[0], record.root.children[0].children[0]
    assert ((first.nags, first.comment), (second.nags, second.comment)) == (
        ([1], "strong"),
        ([6], "fine"),
    )


def test_movetext_without_headers_is_one_xiangqi_game_per_result() -> None:
    records = read_pgn("1. h2e2 h9g7 1-0\n1. c3c4 0-1")
    assert [(iccs(r), r.result) for r in records] == [(["h2e2", "h9g7"], "1-0"), (["c3c4"], "0-1")]


def test_a_bad_fen_header_is_an_error_on_the_record() -> None:
    record = read_pgn('[FEN "not a fen"]\n\n1. h2e2 *')[0]
    assert (iccs(record), "cannot set up" in str(record.errors[0])) == ([], True)
