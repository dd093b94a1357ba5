"""SVG pictures of a board of either game, as python-chess's ``chess.svg`` draws chess.

``chuhan.svg.board(board)`` returns the SVG text of the position: the lines of the board
(xiangqi's river, both games' palace diagonals), coordinates, the pieces as Chinese
characters or letters, and on request the last move, arrows and marked points, seen from
either side. :meth:`chuhan.Board._repr_svg_` uses it, so a notebook shows a board as a
picture. Each element carries classes that say what it is (``piece red rook a0``,
``lastmove e2``, ``arrow h2 e2``, ``mark e9``, ``check e9``), for style sheets and tests.

Nothing in the rules imports this module; it needs only the standard library.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from chuhan.board import Board
from chuhan.fen import piece_letter
from chuhan.notation.chinese import piece_character
from chuhan.squares import FILE_NAMES, FILES, RANKS, SQUARE_NAMES, Move, square

__all__ = ["Arrow", "board"]

#: Distance between two lines, and the margin around the grid (where coordinates go).
SPACING = 40
MARGIN = 44
_RADIUS = 17
_COLOURS = {
    # (janggi, first mover): piece outline and character colour.
    (False, True): "#c0392b",  # xiangqi red
    (False, False): "#222222",  # xiangqi black
    (True, True): "#1f6f43",  # janggi Cho (green)
    (True, False): "#c0392b",  # janggi Han (red)
}
_BOARD_FILL, _LINE, _PIECE_FILL = "#f3d9a4", "#5b3a1a", "#fdf3df"
#: A square's point on the picture, (x, y) in pixels.
_At = Callable[[int], tuple[float, float]]


@dataclass(frozen=True)
class Arrow:
    """An arrow from ``tail`` to ``head`` (square numbers), in ``color``."""

    tail: int
    head: int
    color: str = "#2e86c1"

    @classmethod
    def from_move(cls, move: Move, color: str = "#2e86c1") -> Arrow:
        return cls(move.from_square, move.to_square, color)


def board(
    board: Board | None = None,
    *,
    flipped: bool = False,
    lastmove: Move | None = None,
    check: int | None = None,
    arrows: Iterable[Arrow | Move | tuple[int, int]] = (),
    squares: Iterable[int] = (),
    coordinates: bool = True,
    letters: bool = False,
    size: int | None = None,
) -> str:
    """The SVG text of ``board`` (the xiangqi start when ``None``).

    ``flipped`` shows it from the second mover's side (Black's, Han's). ``lastmove``
    highlights a move's two points, ``check`` rings a king's point, ``arrows`` draws
    arrows (an :class:`Arrow`, a :class:`Move` or a ``(tail, head)`` pair of squares) and
    ``squares`` marks points. ``coordinates`` writes files a-i and ranks 0-9 (ICCS) around
    the grid; ``letters`` writes pieces as FEN letters instead of Chinese characters;
    ``size`` sets the width in pixels (the height follows).
    """
    position = board if board is not None else Board()
    janggi = position.variant.is_janggi
    width = 2 * MARGIN + (FILES - 1) * SPACING
    height = 2 * MARGIN + (RANKS - 1) * SPACING
    svg = ET.Element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "version": "1.1",
            "viewBox": f"0 0 {width} {height}",
            "class": f"board {'janggi' if janggi else 'xiangqi'}",
        },
    )
    if size is not None:
        svg.set("width", str(size))
        svg.set("height", str(round(size * height / width)))

    def at(sq: int) -> tuple[float, float]:
        file_index, rank = sq % FILES, sq // FILES
        column = FILES - 1 - file_index if flipped else file_index
        row = rank if flipped else RANKS - 1 - rank
        return MARGIN + column * SPACING, MARGIN + row * SPACING

    ET.SubElement(
        svg,
        "rect",
        {"class": "background", "width": str(width), "height": str(height), "fill": _BOARD_FILL},
    )
    grid = ET.SubElement(svg, "g", {"class": "grid", "stroke": _LINE, "stroke-width": "1.5"})

    def line(a: int, b: int) -> None:
        (x1, y1), (x2, y2) = at(a), at(b)
        ET.SubElement(grid, "line", {"x1": _n(x1), "y1": _n(y1), "x2": _n(x2), "y2": _n(y2)})

    for rank in range(RANKS):
        line(square(0, rank), square(FILES - 1, rank))
    for file_index in range(FILES):
        if janggi or file_index in (0, FILES - 1):
            line(square(file_index, 0), square(file_index, RANKS - 1))
        else:  # xiangqi's river cuts the inner files
            line(square(file_index, 0), square(file_index, 4))
            line(square(file_index, 5), square(file_index, RANKS - 1))
    for low in (0, 7):
        line(square(3, low), square(5, low + 2))
        line(square(3, low + 2), square(5, low))
    if not janggi:
        _river(svg, at, flipped)
    if coordinates:
        _coordinates(svg, at)
    highlight = ET.SubElement(svg, "g", {"class": "highlights"})
    if lastmove is not None:
        for sq in (lastmove.from_square, lastmove.to_square):
            x, y = at(sq)
            ET.SubElement(
                highlight,
                "rect",
                {
                    "class": f"lastmove {SQUARE_NAMES[sq]}",
                    "x": _n(x - SPACING / 2 + 2),
                    "y": _n(y - SPACING / 2 + 2),
                    "width": str(SPACING - 4),
                    "height": str(SPACING - 4),
                    "fill": "#f1c40f",
                    "fill-opacity": "0.45",
                },
            )
    if check is not None:
        x, y = at(check)
        ET.SubElement(
            highlight,
            "circle",
            {
                "class": f"check {SQUARE_NAMES[check]}",
                "cx": _n(x),
                "cy": _n(y),
                "r": str(_RADIUS + 4),
                "fill": "#e74c3c",
                "fill-opacity": "0.6",
            },
        )
    pieces = ET.SubElement(svg, "g", {"class": "pieces"})
    for sq, piece in sorted(position.piece_code_map().items()):
        side = piece > 0
        colour = _COLOURS[janggi, side]
        kind = position.variant.piece_name(abs(piece))
        x, y = at(sq)
        group = ET.SubElement(
            pieces,
            "g",
            {
                "class": f"piece {position.variant.side_name(side)} {kind} {SQUARE_NAMES[sq]}",
                "transform": f"translate({_n(x)},{_n(y)})",
            },
        )
        ET.SubElement(
            group,
            "circle",
            {"r": str(_RADIUS), "fill": _PIECE_FILL, "stroke": colour, "stroke-width": "2"},
        )
        text = piece_letter(piece) if letters else piece_character(piece, janggi=janggi)
        label = ET.SubElement(
            group,
            "text",
            {
                "text-anchor": "middle",
                "dominant-baseline": "central",
                "font-size": "20" if not letters else "18",
                "font-family": "serif" if not letters else "sans-serif",
                "fill": colour,
            },
        )
        label.text = text
    marks = ET.SubElement(svg, "g", {"class": "marks"})
    for sq in squares:
        x, y = at(sq)
        ET.SubElement(
            marks,
            "circle",
            {
                "class": f"mark {SQUARE_NAMES[sq]}",
                "cx": _n(x),
                "cy": _n(y),
                "r": str(_RADIUS + 3),
                "fill": "none",
                "stroke": "#8e44ad",
                "stroke-width": "3",
            },
        )
    for given in arrows:
        arrow = (
            given
            if isinstance(given, Arrow)
            else Arrow.from_move(given)
            if isinstance(given, Move)
            else Arrow(*given)
        )
        _arrow(marks, at, arrow)
    return ET.tostring(svg, encoding="unicode")


def _n(value: float) -> str:
    """A coordinate as SVG writes it: no trailing ``.0``."""
    return f"{value:g}"


def _river(svg: ET.Element, at: _At, flipped: bool) -> None:
    (_, top), (_, bottom) = at(square(0, 5)), at(square(0, 4))
    middle = (top + bottom) / 2
    words = ("楚 河", "漢 界") if not flipped else ("漢 界", "楚 河")
    for text, x in zip(words, (MARGIN + 2 * SPACING, MARGIN + 6 * SPACING), strict=True):
        element = ET.SubElement(
            svg,
            "text",
            {
                "class": "river",
                "x": _n(x),
                "y": _n(middle),
                "text-anchor": "middle",
                "dominant-baseline": "central",
                "font-size": "20",
                "font-family": "serif",
                "fill": _LINE,
            },
        )
        element.text = text


def _coordinates(svg: ET.Element, at: _At) -> None:
    group = ET.SubElement(
        svg,
        "g",
        {"class": "coordinates", "font-size": "13", "font-family": "sans-serif", "fill": _LINE},
    )
    height = 2 * MARGIN + (RANKS - 1) * SPACING
    for file_index, name in enumerate(FILE_NAMES):
        x, _ = at(square(file_index, 0))
        for y in (12.0, height - 12.0):
            text = ET.SubElement(
                group,
                "text",
                {
                    "class": f"file {name}",
                    "x": _n(x),
                    "y": _n(y),
                    "text-anchor": "middle",
                    "dominant-baseline": "central",
                },
            )
            text.text = name
    for rank in range(RANKS):
        _, y = at(square(0, rank))
        text = ET.SubElement(
            group,
            "text",
            {
                "class": f"rank r{rank}",
                "x": "12",
                "y": _n(y),
                "text-anchor": "middle",
                "dominant-baseline": "central",
            },
        )
        text.text = str(rank)


def _arrow(parent: ET.Element, at: _At, arrow: Arrow) -> None:
    (x1, y1), (x2, y2) = at(arrow.tail), at(arrow.head)
    length = ((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5 or 1.0
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    head = 14.0
    bx, by = x2 - ux * head, y2 - uy * head  # the base of the head
    group = ET.SubElement(
        parent,
        "g",
        {
            "class": f"arrow {SQUARE_NAMES[arrow.tail]} {SQUARE_NAMES[arrow.head]}",
            "fill": arrow.color,
            "stroke": arrow.color,
            "opacity": "0.8",
        },
    )
    ET.SubElement(
        group,
        "line",
        {
            "x1": _n(round(x1, 2)),
            "y1": _n(round(y1, 2)),
            "x2": _n(round(bx, 2)),
            "y2": _n(round(by, 2)),
            "stroke-width": "6",
            "stroke-linecap": "round",
        },
    )
    points = [
        (x2, y2),
        (bx - uy * head * 0.6, by + ux * head * 0.6),
        (bx + uy * head * 0.6, by - ux * head * 0.6),
    ]
    ET.SubElement(
        group,
        "polygon",
        {"points": " ".join(f"{_n(round(px, 2))},{_n(round(py, 2))}" for px, py in points)},
    )
