"""chuhan.svg draws what it is asked to: the SVG is parsed and its elements checked."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

import chuhan.svg
from chuhan import Board, Move
from chuhan.squares import parse_square
from chuhan.svg import MARGIN, SPACING, Arrow

NS = "{http://www.w3.org/2000/svg}"


def parse(text: str) -> ET.Element:
    return ET.fromstring(text)


def with_class(root: ET.Element, *names: str) -> list[ET.Element]:
    return [
        element
        for element in root.iter()
        if set(names) <= set((element.get("class") or "").split())
    ]


def piece(root: ET.Element, point: str) -> ET.Element:
    (found,) = with_class(root, "piece", point)
    return found


def character(element: ET.Element) -> str:
    text = element.find(f"{NS}text")
    assert text is not None and text.text is not None
    return text.text


def centre(element: ET.Element) -> tuple[float, float]:
    inside = (element.get("transform") or "").removeprefix("translate(").removesuffix(")")
    x, y = inside.split(",")
    return float(x), float(y)


def test_the_start_shows_32_pieces() -> None:
    assert len(with_class(parse(chuhan.svg.board(Board())), "piece")) == 32


def test_pieces_are_chinese_characters_by_side() -> None:
    root = parse(chuhan.svg.board(Board()))
    assert (character(piece(root, "e0")), character(piece(root, "e9"))) == ("帥", "將")
    assert "red" in piece(root, "e0").get("class", "").split()


def test_letters_replace_the_characters_on_request() -> None:
    root = parse(chuhan.svg.board(Board(), letters=True))
    assert (character(piece(root, "b0")), character(piece(root, "b9"))) == ("N", "n")


def test_a_point_is_drawn_where_red_sees_it() -> None:
    root = parse(chuhan.svg.board(Board()))
    assert centre(piece(root, "a0")) == (MARGIN, MARGIN + 9 * SPACING)


def test_flipped_shows_the_board_from_black_side() -> None:
    root = parse(chuhan.svg.board(Board(), flipped=True))
    assert centre(piece(root, "a0")) == (MARGIN + 8 * SPACING, MARGIN)


def test_xiangqi_river_cuts_the_inner_files() -> None:
    root = parse(chuhan.svg.board(Board()))
    lines = with_class(root, "grid")[0].findall(f"{NS}line")
    assert len(lines) == 10 + 2 + 7 * 2 + 4  # ranks, edge files, cut files, palaces
    assert [t.text for t in with_class(root, "river")] == ["楚 河", "漢 界"]


def test_janggi_has_no_river_and_its_own_pieces() -> None:
    root = parse(chuhan.svg.board(Board(variant="janggi")))
    lines = with_class(root, "grid")[0].findall(f"{NS}line")
    assert len(lines) == 10 + 9 + 4 and with_class(root, "river") == []
    assert character(piece(root, "e1")) == "楚" and "cho" in piece(root, "e1").get("class", "")
    assert character(piece(root, "b7")) == "包"


def test_the_last_move_highlights_both_points() -> None:
    root = parse(chuhan.svg.board(Board(), lastmove=Move.from_iccs("h2e2")))
    marked = {element.get("class") for element in with_class(root, "lastmove")}
    assert marked == {"lastmove h2", "lastmove e2"}


def test_an_arrow_points_at_its_head() -> None:
    root = parse(chuhan.svg.board(Board(), arrows=[Move.from_iccs("h2e2")]))
    (arrow,) = with_class(root, "arrow", "h2", "e2")
    polygon = arrow.find(f"{NS}polygon")
    assert polygon is not None
    tip = polygon.get("points", "").split()[0]
    assert tip == f"{MARGIN + 4 * SPACING},{MARGIN + 7 * SPACING}"


@pytest.mark.parametrize(
    "given",
    [
        Arrow(parse_square("b0"), parse_square("c2"), "red"),
        (parse_square("b0"), parse_square("c2")),
    ],
)
def test_arrows_are_given_as_arrows_or_pairs(given: Arrow | tuple[int, int]) -> None:
    assert len(with_class(parse(chuhan.svg.board(Board(), arrows=[given])), "arrow")) == 1


def test_marked_points_are_ringed() -> None:
    root = parse(chuhan.svg.board(Board(), squares=[parse_square("e9"), parse_square("e5")]))
    assert {e.get("class") for e in with_class(root, "mark")} == {"mark e9", "mark e5"}


def test_coordinates_name_files_and_ranks() -> None:
    root = parse(chuhan.svg.board(Board()))
    assert sorted({e.text or "" for e in with_class(root, "file")}) == list("abcdefghi")
    assert [e.text for e in with_class(root, "rank")] == [str(n) for n in range(10)]
    assert with_class(parse(chuhan.svg.board(Board(), coordinates=False)), "file") == []


def test_size_sets_the_width() -> None:
    root = parse(chuhan.svg.board(Board(), size=200))
    assert root.get("width") == "200"


def test_a_notebook_sees_the_last_move_and_the_check() -> None:
    board = Board("4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1")
    board.push_iccs("a0a9")
    root = parse(board._repr_svg_())
    assert {e.get("class") for e in with_class(root, "lastmove")} == {"lastmove a0", "lastmove a9"}
    assert [e.get("class") for e in with_class(root, "check")] == ["check e9"]


def test_unicode_shows_the_pieces_characters() -> None:
    lines = Board().unicode().splitlines()
    assert "俥傌相仕帥仕相傌俥" in lines[-3] and "車馬象士將士象馬車" in lines[1]


def test_unicode_flipped_puts_red_on_top() -> None:
    assert "俥傌相仕帥仕相傌俥" in Board().unicode(flipped=True).splitlines()[1]


def test_str_is_a_diagram_in_letters() -> None:
    lines = str(Board()).splitlines()
    assert (lines[0], lines[-1]) == ("r n b a k a b n r", "R N B A K A B N R")
