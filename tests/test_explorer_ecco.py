"""ECCO openings (chuhan.explorer.ecco) and the explorer's game search: the classifier on
lines whose published codes were checked by hand, transpositions, the names; search by
player in either script, event, year, result, ECCO and position, in the library and the
command line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from chuhan import Board
from chuhan.cli import main
from chuhan.explorer import (
    EccoOpening,
    Explorer,
    ExplorerError,
    classify,
    classify_moves,
    opening_of,
    position_opening,
)
from chuhan.explorer.ecco import NAMES_PATH
from chuhan.explorer.text import search_key
from chuhan.records import GameRecord, write_pgn


@pytest.mark.parametrize(
    ("moves", "code", "name"),
    [
        # 炮二平五 炮2平5: 中炮对列炮, D50
        ("h2e2 b7e7", "D50", "中炮对列炮"),
        # 炮二平五 马2进3 马二进三 马8进9: 中炮对单提马, B10
        ("h2e2 b9c7 h0g2 h9i7", "B10", "中炮对单提马"),
        # 炮二平六 马8进7: 过宫炮对进左马, A61
        ("h2d2 h9g7", "A61", "过宫炮对进左马"),
        # 兵七进一 炮8平5: 仙人指路对中炮, E03
        ("c3c4 h7e7", "E03", "仙人指路对中炮"),
        # 炮二平五 马8进7 马二进三 车9平8 车一平二 马2进3 炮八平六: 五六炮对屏风马, C50
        ("h2e2 h9g7 h0g2 i9h9 i0h0 b9c7 b2d2", "C50", "五六炮对屏风马"),
    ],
)
def test_known_openings_get_their_published_codes(moves: str, code: str, name: str) -> None:
    opening = classify_moves(moves.split())
    assert opening is not None
    assert (opening.code, opening.name_zh) == (code, name)


def test_a_transposition_is_named_as_the_line_it_reached() -> None:
    # 炮二平五 马2进3 马二进三 马8进7 车一平二 车9平8 炮八平六: the five-six cannons'
    # position, Black's moves in another order.
    transposed = classify_moves(["h2e2", "b9c7", "h0g2", "h9g7", "i0h0", "i9h9", "b2d2"])
    assert transposed is not None and transposed.code == "C50"


def test_a_game_is_named_by_its_deepest_known_position() -> None:
    board = Board()
    for move in ["h2e2", "b9c7", "h0g2", "h9i7"]:
        board.push_iccs(move)
    named = classify(board)
    for move in ["b0c2", "i9h9"]:  # moves past the book keep the name
        board.push_iccs(move)
    assert classify(board) == named


def test_a_game_from_another_start_or_of_janggi_has_no_opening() -> None:
    assert classify_moves(["e1e5"], fen="4k4/9/9/9/9/9/9/9/4C4/4K4 w") is None
    assert classify(Board(variant="janggi")) is None


def test_codes_are_named_in_chinese_and_english() -> None:
    opening = opening_of("C70")
    assert opening is not None
    assert opening.name_zh == "五七炮对屏风马进3卒"
    assert opening.name_en == (
        "Five-Seven Cannons against the Screen Horses with the Third Pawn advanced"
    )
    assert opening.label() == "C70 五七炮对屏风马进3卒"
    family = opening_of("C7")
    assert family is not None and family.name_zh == "五七炮对屏风马(二)"
    unnamed = opening_of("C79")  # a code without a name of its own: its family's
    assert unnamed is not None and unnamed.name_en == family.name_en
    assert [opening_of(code) for code in ("A70", "E99", "F00", "C", "c70", "C7x")] == [None] * 6


#: Every ECCO code, A00 to E99.
ALL_CODES = [f"{letter}{number:02d}" for letter in "ABCDE" for number in range(100)]
#: The codes ECCO 2004 does not use.
UNUSED = {
    code
    for code in ALL_CODES
    if code[:2] in ("A7", "A8", "A9", "B6", "B7", "B8", "B9", "D6", "D7", "D8", "D9")
    or code[:2] in ("E5", "E6", "E7", "E8", "E9")
}


def _rows() -> list[list[str]]:
    text = NAMES_PATH.read_bytes().decode("utf-8")  # strict: the file is UTF-8
    return [line.split("\t") for line in text.splitlines() if not line.startswith("#")]


def test_the_names_file_lists_every_code_once_in_order_with_five_tab_separated_fields() -> None:
    rows = _rows()
    assert all(len(row) == 5 for row in rows)
    assert [row[0] for row in rows] == ALL_CODES  # no code missing, none twice
    assert {code for code, kind, *_ in rows if kind == "unused"} == UNUSED
    for code, kind, *names in rows:
        assert kind in ("own", "family", "unused"), code
        if kind == "own":
            assert all(name and name == name.strip() for name in names), code
        else:
            assert names == ["", "", ""], code


def test_every_code_ecco_uses_has_a_chinese_name_in_both_scripts_and_an_english_one() -> None:
    for code in ALL_CODES:
        opening = opening_of(code)
        if code in UNUSED:
            assert opening is None, code
            continue
        assert opening is not None, code
        assert opening.name_zh and opening.name_zh_hant and opening.name_en, code
        # the traditional name is the simplified one's characters in their traditional form
        assert len(opening.name_zh_hant) == len(opening.name_zh), code
        assert search_key(opening.name_zh_hant) == search_key(opening.name_zh), code
        assert not re.search(r"[\u4e00-\u9fff]", opening.name_en), code


@pytest.mark.parametrize(
    ("code", "name_zh", "name_zh_hant"),
    [
        ("A01", "上仕局", "上仕局"),
        ("A03", "边炮局", "邊炮局"),
        ("A10", "飞相局", "飛相局"),
        ("A12", "列相局", "列相局"),
        ("A32", "飞相进右马对左过宫炮 红直车对黑进7卒", "飛相進右馬對左過宮炮 紅直車對黑進7卒"),
        ("B06", "中炮对龟背炮", "中炮對龜背炮"),
        ("B10", "中炮对单提马", "中炮對單提馬"),
        ("C00", "中炮对屏风马", "中炮對屏風馬"),
        ("C20", "中炮过河车七路马对屏风马两头蛇", "中炮過河車七路馬對屏風馬兩頭蛇"),
        (
            "C36",
            "中炮过河车互进七兵对屏风马左马盘河 红七路马",
            "中炮過河車互進七兵對屏風馬左馬盤河 紅七路馬",
        ),
        ("D24", "顺炮直车对横车 红过河车", "順炮直車對橫車 紅過河車"),
        ("D41", "中炮进中兵对左三步虎骑河车转列炮", "中炮進中兵對左三步虎騎河車轉列炮"),
        ("D55", "中炮双直车对后补列炮", "中炮雙直車對後補列炮"),
        ("E40", "对兵局", "對兵局"),
    ],
)
def test_well_known_codes_have_their_published_names(
    code: str, name_zh: str, name_zh_hant: str
) -> None:
    opening = opening_of(code)
    assert opening is not None
    assert (opening.name_zh, opening.name_zh_hant) == (name_zh, name_zh_hant)


def test_a_code_the_list_leaves_unnamed_takes_its_familys_name_in_both_scripts() -> None:
    assert opening_of("A17") == EccoOpening(
        "A17", "飞相局(一)", "Elephant Opening (1)", "飛相局(一)"
    )
    assert opening_of("A00") == EccoOpening("A00", "非常见开局", "Uncommon openings", "非常見開局")


def test_the_position_itself_is_named_in_the_table() -> None:
    board = Board()
    for move in ["h2e2", "b7e7"]:
        board.push_iccs(move)
    opening = position_opening(board)
    assert opening is not None and opening.code == "D50"
    assert position_opening(Board(variant="janggi")) is None


def _pgn(moves: str, **tags: str) -> str:
    board = Board()
    played = [board.push_iccs(text) for text in moves.split()]
    return write_pgn(GameRecord.from_moves(played, headers=tags), format="chinese")


#: Three games: the first's players written in traditional characters, the second's in
#: simplified and full-width letters.
GAMES = {
    "one.pgn": _pgn(
        "h2e2 b7e7 h0g2 b9c7 i0h0 h9g7",
        Red="楊官璘",
        Black="胡榮華",
        Event="全國象棋個人賽",
        Date="1960.05.01",
        Result="1-0",
    ),
    "two.pgn": _pgn(
        "h2e2 b9c7 h0g2 h9i7 b0c2 i9h9",
        Red="ＬＩ Laiqun",
        Black="杨官璘",
        Event="五羊杯",
        Date="1985.02.01",
        Result="0-1",
        ECCO="B10",
    ),
    "three.pgn": _pgn(
        "c3c4 h7e7 h0g2 h9g7",
        Red="许银川",
        Black="吕钦",
        Event="五羊杯",
        Date="1999.03.02",
        Result="1/2-1/2",
    ),
}


@pytest.fixture
def index(tmp_path: Path, explorer_index: str) -> str:
    """The three games imported into an index of each store."""
    folder = tmp_path / "games"
    folder.mkdir()
    for name, text in GAMES.items():
        (folder / name).write_text(text, encoding="utf-8")
    with Explorer(explorer_index) as explorer:
        explorer.import_collection([folder], workers=1)
    return explorer_index


def _players(index: str, **criteria: object) -> list[tuple[str, str]]:
    with Explorer(index) as explorer:
        found = explorer.search(**criteria)  # type: ignore[arg-type]
    assert found.total == len(found.games)
    return [(game.red, game.black) for game in found.games]


def test_search_by_simplified_and_traditional_names_returns_the_same_games(
    index: str,
) -> None:
    simplified = _players(index, player="杨官璘")
    assert simplified == _players(index, player="楊官璘")
    assert simplified == [("LI Laiqun", "杨官璘"), ("楊官璘", "胡榮華")]
    assert _players(index, red="li laiqun") == _players(index, red="ＬＩ ＬＡＩＱＵＮ")
    assert _players(index, black="楊官璘") == [("LI Laiqun", "杨官璘")]


def test_search_by_event_year_and_result(index: str) -> None:
    assert _players(index, event="五羊") == [("许银川", "吕钦"), ("LI Laiqun", "杨官璘")]
    assert _players(index, event="五羊", years=(1980, 1989)) == [("LI Laiqun", "杨官璘")]
    assert _players(index, result="1/2-1/2") == [("许银川", "吕钦")]
    assert _players(index, player="100%_") == []


def test_search_by_ecco_takes_the_tag_else_the_code_found(index: str) -> None:
    assert _players(index, ecco="D5") == [("楊官璘", "胡榮華")]  # no tag: classified
    assert _players(index, ecco="B10") == [("LI Laiqun", "杨官璘")]  # its tag
    assert _players(index, ecco="e") == [("许银川", "吕钦")]
    with Explorer(index) as explorer:
        listed = explorer.search(ecco="D")
    opening = listed.games[0].ecco_opening
    assert opening is not None and opening.name_en.startswith("Central Cannon against")


def test_search_by_position_finds_every_game_that_reached_it(index: str) -> None:
    board = Board()
    board.push_iccs("h2e2")
    with Explorer(index) as explorer:
        found = explorer.search(board=board)
        transposed = Board()
        for move in ["h0g2", "h7e7", "c3c4", "h9g7"]:  # three.pgn's position, another order
            transposed.push_iccs(move)
        reached = explorer.search(board=transposed)
    assert found.total == 2
    assert {game.ply for game in found.games} == {1}
    assert [(game.red, game.ply) for game in reached.games] == [("许银川", 4)]


@pytest.mark.parametrize(
    ("criteria", "said"),
    [
        ({"ecco": "F1"}, "'F1' is not an ECCO code or its start"),
        ({"result": "red"}, "'red' is not a result"),
        ({"years": (1990, 1980)}, "the years 1990-1980 run backwards"),
        ({"limit": 0}, "a search lists 1 to 500 games at a time, not 0"),
        ({"board": Board(variant="janggi")}, "the masters source holds xiangqi games"),
    ],
)
def test_a_bad_search_is_refused_with_what_is_wrong(
    index: str, criteria: dict[str, object], said: str
) -> None:
    with Explorer(index) as explorer, pytest.raises(ExplorerError, match=said):
        explorer.search(**criteria)  # type: ignore[arg-type]


def test_the_command_searches_and_answers_json(
    index: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["explorer", "search", "--db", str(index), "--source", "masters", "--player", "杨官璘",
         "--year", "1950-1970", "--json"]
    )  # fmt: skip
    answer = json.loads(capsys.readouterr().out)
    assert code == 0 and answer["total"] == 1
    assert answer["games"][0]["red"] == "楊官璘"
    assert answer["games"][0]["ecco_opening"]["code"][:2] == "D5"
    main(["explorer", "search", "--db", str(index), "--source", "masters", "--ecco", "E"])
    out = capsys.readouterr().out
    assert "1 games match" in out and "许银川" in out
    assert "E03 Pawn Opening against Central Cannon" in out
    assert main(["explorer", "search", "--db", str(index), "--year", "19x"]) != 0
    assert "--year '19x' is not a year" in capsys.readouterr().err
