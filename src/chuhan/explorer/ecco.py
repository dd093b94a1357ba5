"""ECCO openings: a game's opening named by its ECCO code (``A00``-``E99``, the Encyclopedia
of Chinese Chess Openings) and its family's name in Chinese and in English.

The classifier is data derived from the master games (``data/ecco.tsv``, built by
``tools/build_ecco.py`` from the ECCO tags of the Chinese Chess Practical Dataset, CC BY
4.0, see NOTICE): the positions the tagged games share, each with the code most of them
carry. A game is named by the deepest of its first :data:`DEPTH` plies' positions found
there, keyed by Zobrist hash and side to move, so that a transposition is named as the
line it reached.

>>> from chuhan import Board
>>> board = Board()
>>> for move in ("h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7", "b2d2"):
...     _ = board.push_iccs(move)
>>> opening = classify(board)
>>> opening.code, opening.name_zh, opening.name_en
('C50', '五六炮对屏风马', 'Five-Six Cannons against the Screen Horses')
>>> opening_of("A61").name_en
'The Cross-Palace Cannon against the Left Horse advanced'
>>> opening_of("D24").name_zh, opening_of("D24").name_zh_hant
('顺炮直车对横车 红过河车', '順炮直車對橫車 紅過河車')
>>> opening_of("A69").name_zh  # (a code the list gives no name of its own: its family's)
'过宫炮局'
>>> opening_of("A99") is None, opening_of("F00") is None
(True, True)

The names are ECCO 2004's published ones, in simplified and traditional characters, the
English chuhan's own (``data/ecco_names.tsv``, all 500 codes): 259 codes have their own;
81 the list leaves without one are named by their family (ten codes each: ``C20``-``C29``
is 中炮过河车七路马对屏风马两头蛇); the 160 of ``A70``-``A99``, ``B60``-``B99``,
``D60``-``D99`` and ``E50``-``E99`` ECCO does not use.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from chuhan.board import Board

__all__ = [
    "DATA_PATH",
    "DEPTH",
    "FAMILIES",
    "EccoOpening",
    "classify",
    "classify_keys",
    "classify_moves",
    "ecco_table",
    "opening_of",
]

#: The plies of a game the classifier looks at.
DEPTH = 30
#: The shipped table.
DATA_PATH = Path(str(resources.files("chuhan.explorer").joinpath("data/ecco.tsv")))
#: The names of the 500 codes: code, kind (own, family, unused), the Chinese name as
#: published in simplified and in traditional characters, the English name.
NAMES_PATH = Path(str(resources.files("chuhan.explorer").joinpath("data/ecco_names.tsv")))

#: ECCO's families: the first and last code of each, its Chinese name as published (in
#: simplified, then traditional characters), and its name in English (chuhan's translation).
FAMILIES: tuple[tuple[str, str, str, str, str], ...] = (
    ("A00", "A09", "非常见开局", "非常見開局", "Uncommon openings"),
    ("A10", "A19", "飞相局(一)", "飛相局(一)", "Elephant Opening (1)"),
    ("A20", "A29", "飞相局(二)", "飛相局(二)", "Elephant Opening (2)"),
    ("A30", "A39", "飞相局(三)", "飛相局(三)", "Elephant Opening (3)"),
    ("A40", "A49", "起马局", "起馬局", "Horse Opening"),
    ("A50", "A59", "仕角炮局", "仕角炮局", "Advisor-Corner Cannon"),
    ("A60", "A69", "过宫炮局", "過宮炮局", "Cross-Palace Cannon"),
    (
        "B00",
        "B09",
        "中炮对非常见开局",
        "中炮對非常見開局",
        "Central Cannon against uncommon defences",
    ),
    (
        "B10",
        "B19",
        "中炮对单提马",
        "中炮對單提馬",
        "Central Cannon against the Single Lifted Horse",
    ),
    (
        "B20",
        "B29",
        "中炮对左三步虎(不包括转列炮)",
        "中炮對左三步虎(不包括轉列炮)",
        "Central Cannon against the Left Three-Step Tiger (not turning into Opposite Cannons)",
    ),
    (
        "B30",
        "B39",
        "中炮对反宫马(一)",
        "中炮對反宮馬(一)",
        "Central Cannon against the Reversed Palace Horses (1)",
    ),
    (
        "B40",
        "B49",
        "中炮对反宫马(二)——五六炮对反宫马",
        "中炮對反宮馬(二)——五六炮對反宮馬",
        "Central Cannon against the Reversed Palace Horses (2): Five-Six Cannons",
    ),
    (
        "B50",
        "B59",
        "中炮对反宫马(三)——五七炮对反宫马",
        "中炮對反宮馬(三)——五七炮對反宮馬",
        "Central Cannon against the Reversed Palace Horses (3): Five-Seven Cannons",
    ),
    (
        "C00",
        "C09",
        "中炮对屏风马(一)",
        "中炮對屏風馬(一)",
        "Central Cannon against the Screen Horses (1)",
    ),
    (
        "C10",
        "C19",
        "中炮对屏风马(二)",
        "中炮對屏風馬(二)",
        "Central Cannon against the Screen Horses (2)",
    ),
    (
        "C20",
        "C29",
        "中炮过河车七路马对屏风马两头蛇",
        "中炮過河車七路馬對屏風馬兩頭蛇",
        "Central Cannon, River-Crossing Chariot and Seventh-File Horse against the Screen "
        "Horses with the Two-Headed Snake",
    ),
    (
        "C30",
        "C39",
        "中炮过河车互进七兵对屏风马(不包括平炮兑车)",
        "中炮過河車互進七兵對屏風馬(不包括平炮兌車)",
        "Central Cannon and River-Crossing Chariot, both Seventh Pawns advanced, against the "
        "Screen Horses (not the Cannon Shift to trade Chariots)",
    ),
    (
        "C40",
        "C49",
        "中炮过河车互进七兵对屏风马平炮兑车",
        "中炮過河車互進七兵對屏風馬平炮兌車",
        "Central Cannon and River-Crossing Chariot, both Seventh Pawns advanced, against the "
        "Screen Horses with the Cannon Shift to trade Chariots",
    ),
    (
        "C50",
        "C59",
        "五六炮对屏风马",
        "五六炮對屏風馬",
        "Five-Six Cannons against the Screen Horses",
    ),
    (
        "C60",
        "C69",
        "五七炮对屏风马(一)",
        "五七炮對屏風馬(一)",
        "Five-Seven Cannons against the Screen Horses (1)",
    ),
    (
        "C70",
        "C79",
        "五七炮对屏风马(二)",
        "五七炮對屏風馬(二)",
        "Five-Seven Cannons against the Screen Horses (2)",
    ),
    (
        "C80",
        "C89",
        "中炮巡河炮对屏风马",
        "中炮巡河炮對屏風馬",
        "Central Cannon with the River-Patrol Cannon against the Screen Horses",
    ),
    (
        "C90",
        "C99",
        "五八炮和五九炮对屏风马",
        "五八炮和五九炮對屏風馬",
        "Five-Eight and Five-Nine Cannons against the Screen Horses",
    ),
    (
        "D00",
        "D09",
        "顺炮局(不包括顺炮直车局)",
        "順炮局(不包括順炮直車局)",
        "Same-Direction Cannons (not the Straight Chariot lines)",
    ),
    (
        "D10",
        "D19",
        "顺炮直车对缓开车",
        "順炮直車對緩開車",
        "Same-Direction Cannons: Straight Chariot against the Delayed Chariot",
    ),
    (
        "D20",
        "D29",
        "顺炮直车对横车",
        "順炮直車對橫車",
        "Same-Direction Cannons: Straight Chariot against the Crossing Chariot",
    ),
    (
        "D30",
        "D39",
        "中炮对左炮封车转列炮",
        "中炮對左炮封車轉列炮",
        "Central Cannon against the Left Cannon Blocking the Chariot, into Opposite Cannons",
    ),
    (
        "D40",
        "D49",
        "中炮对左三步虎转列炮",
        "中炮對左三步虎轉列炮",
        "Central Cannon against the Left Three-Step Tiger, into Opposite Cannons",
    ),
    (
        "D50",
        "D59",
        "中炮对列炮(包括后补列炮)",
        "中炮對列炮(包括後補列炮)",
        "Central Cannon against Opposite-Direction Cannons (the delayed ones too)",
    ),
    (
        "E00",
        "E09",
        "仙人指路局(不包括仙人指路对卒底炮和对兵局)",
        "仙人指路局(不包括仙人指路對卒底炮和對兵局)",
        "Pawn Opening (not against the Pawn-Bottom Cannon, nor the Mirrored Pawns)",
    ),
    (
        "E10",
        "E19",
        "仙人指路对卒底炮(不包括仙人指路转左中炮对卒底炮飞左象)",
        "仙人指路對卒底炮(不包括仙人指路轉左中炮對卒底炮飛左象)",
        "Pawn Opening against the Pawn-Bottom Cannon (not Red's Left Central Cannon against "
        "the Left Elephant)",
    ),
    (
        "E20",
        "E29",
        "仙人指路转左中炮对卒底炮飞左象(一)",
        "仙人指路轉左中炮對卒底炮飛左象(一)",
        "Pawn Opening into the Left Central Cannon against the Pawn-Bottom Cannon and Left "
        "Elephant (1)",
    ),
    (
        "E30",
        "E39",
        "仙人指路转左中炮对卒底炮飞左象(二)",
        "仙人指路轉左中炮對卒底炮飛左象(二)",
        "Pawn Opening into the Left Central Cannon against the Pawn-Bottom Cannon and Left "
        "Elephant (2)",
    ),
    ("E40", "E49", "对兵局", "對兵局", "Mirrored Pawns"),
)


@dataclass(frozen=True)
class EccoOpening:
    """An ECCO code (or a family's two characters, ``C7``) with its name (its own, else its
    family's) in Chinese as published, simplified and traditional, and in English."""

    code: str
    name_zh: str
    name_en: str
    name_zh_hant: str

    def label(self) -> str:
        """``C70 五七炮对屏风马(二)``: what a PGN's ``[Opening]`` tag says."""
        return f"{self.code} {self.name_zh}"

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "name_zh": self.name_zh,
            "name_zh_hant": self.name_zh_hant,
            "name_en": self.name_en,
        }


@cache
def _names() -> dict[str, tuple[str, str, str]]:
    """The codes with names of their own: simplified, traditional, English."""
    names: dict[str, tuple[str, str, str]] = {}
    for line in NAMES_PATH.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            code, kind, name_zh, name_zh_hant, name_en = line.split("\t")
            if kind == "own":
                names[code] = (name_zh, name_zh_hant, name_en)
    return names


def opening_of(code: str) -> EccoOpening | None:
    """The opening of an ECCO code (``C70``: its own name when ECCO's list gives it one,
    else its family's), or of a family (``C7``: what the classifier says of a
    game it can place in a family only); ``None`` for a code no family holds
    (``A70``-``A99``, ``B60``-``B99``, ``D60``-``D99`` and ``E50``-``E99`` are not used)
    or that is not one."""
    if not (len(code) in (2, 3) and code[1:].isdigit()):
        return None
    for first, last, name_zh, name_zh_hant, name_en in FAMILIES:
        if first <= code.ljust(3, "0") <= last:
            own = _names().get(code)
            if own is not None:
                name_zh, name_zh_hant, name_en = own
            return EccoOpening(code, name_zh, name_en, name_zh_hant)
    return None


def classify_keys(table: Mapping[int, str], keys: Iterable[int]) -> str:
    """The code of the last of ``keys`` (positions in the order a game reached them) whose
    code ``table`` holds, else the family (``C0``) of the last whose family it holds, else
    ``""``."""
    code = family = ""
    for key in keys:
        found = table.get(key)
        if found is None:
            continue
        if len(found) == 3:
            code = found
        else:
            family = found
    return code or family


@cache
def ecco_table() -> dict[int, str]:
    """The shipped classifier: ECCO codes by position key (read once)."""
    table: dict[int, str] = {}
    for line in DATA_PATH.read_text(encoding="ascii").splitlines():
        if line and not line.startswith("#"):
            key, code = line.split("\t")
            value = int(key, 16)
            table[value - (1 << 64) if value >= 1 << 63 else value] = code
    return table


def _key(board: Board) -> int:
    key = board.zobrist_hash()
    return key - (1 << 64) if key >= 1 << 63 else key


def classify(board: Board) -> EccoOpening | None:
    """The opening of the game ``board`` holds (its move stack from the start position,
    the first :data:`DEPTH` plies), or ``None`` for a game the table cannot name (one of
    janggi, or from another start, or that left the masters' openings at once)."""
    if board.variant.game != "xiangqi":
        return None
    stack = list(board.move_stack)
    replay = board.root()
    if replay.fen() != Board().fen():
        return None
    keys = [_key(replay)]
    for move in stack[:DEPTH]:
        replay.push(move)
        keys.append(_key(replay))
    code = classify_keys(ecco_table(), keys)
    return opening_of(code) if code else None


def classify_moves(moves: Iterable[str], fen: str | None = None) -> EccoOpening | None:
    """The opening of a game given by its ICCS ``moves`` from ``fen`` (default the start);
    ``None`` when it is not from the start or the table cannot name it."""
    board = Board(fen)
    for number, text in enumerate(moves):
        if number >= DEPTH:
            break
        board.push_iccs(text)
    return classify(board)
