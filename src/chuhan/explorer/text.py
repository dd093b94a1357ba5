"""What the explorer makes of a record's tags: search keys that ignore the script
(traditional or simplified characters) and the width (full-width ``Ｈｕ`` or ASCII ``Hu``),
dates as ISO text with the year apart, results and ECCO codes checked.

>>> search_key("楊官璘")  == search_key("杨官璘")
True
>>> search_key(" Ｌｉ  Ｌａｉｑｕｎ ")
'li laiqun'
>>> normalize_date("1952年11月3日"), normalize_date("1982.05"), normalize_date("")
('1952-11-03', '1982-05', '')
>>> year_of("1999-05-03"), year_of("")
(1999, None)
>>> normalize_ecco("ｃ９３"), normalize_ecco("Z01")
('C93', '')
"""

from __future__ import annotations

import re
import time
import unicodedata
from functools import cache
from importlib import resources

__all__ = [
    "RESULT_CODES",
    "normalize_date",
    "normalize_ecco",
    "normalize_result",
    "normalize_tag",
    "search_key",
    "year_of",
]

#: Each result the index keeps, and how it is counted: 1 Red won, 0 a draw, 2 Black won,
#: ``None`` unknown (the game counts, but in none of the three).
RESULT_CODES: dict[str, int | None] = {"1-0": 1, "1/2-1/2": 0, "0-1": 2, "*": None}

_SPACES = re.compile(r"\s+")
_DATE_PARTS = re.compile(r"(\d{4})(?:\D{1,3}(\d{1,2}))?(?:\D{1,3}(\d{1,2}))?")
#: ``19800825``: eight digits, year, month and day.
_DATE_DIGITS = re.compile(r"(\d{4})(\d\d)(\d\d)(?!\d)")
#: ``93-12-25`` or ``25.12.93``: a two-digit year (of the 1900s) first or last.
_SHORT_YEAR = re.compile(r"(\d\d)[-/.](\d{1,2})[-/.](\d{1,2})")
_ECCO = re.compile(r"[A-E]\d\d")
#: Results written otherwise than PGN's four: 紅勝 / 红胜 (Red won), 黑勝 / 黑胜, 和 / 和棋.
_RESULT_WORDS = {
    "红胜": "1-0",
    "紅勝": "1-0",
    "黑胜": "0-1",
    "黑勝": "0-1",
    "和": "1/2-1/2",
    "和棋": "1/2-1/2",
    "和局": "1/2-1/2",
    "1/2": "1/2-1/2",
    "½-½": "1/2-1/2",
}


@cache
def _simplified_table() -> dict[int, str]:
    """Traditional to simplified characters (OpenCC's single-character table, shipped as
    ``data/ts_characters.txt``), as a ``str.translate`` table."""
    text = resources.files("chuhan.explorer").joinpath("data/ts_characters.txt")
    table: dict[int, str] = {}
    for line in text.read_text(encoding="utf-8").splitlines():
        if len(line) == 2 and not line.startswith("#"):
            table[ord(line[0])] = line[1]
    return table


def normalize_tag(value: str) -> str:
    """A tag's value as the index shows it: full-width letters and digits made ASCII
    (Unicode's NFKC), runs of spaces made one, the ends trimmed. The script is kept."""
    return _SPACES.sub(" ", unicodedata.normalize("NFKC", value)).strip()


def search_key(value: str) -> str:
    """The key a name, event or site is searched by: :func:`normalize_tag`, then
    traditional characters made simplified and letters made lower case, so that
    楊官璘, 杨官璘 and a full-width or upper-case spelling of one name meet."""
    return normalize_tag(value).translate(_simplified_table()).casefold()


def normalize_date(value: str) -> str:
    """A date tag as ISO text, as precise as it was written: ``1952年11月3日`` is
    ``1952-11-03``, ``1982.05`` is ``1982-05``, ``1982`` is ``1982``, ``19800825`` is
    ``1980-08-25``, ``93-12-25`` is ``1993-12-25`` and ``25.12.93`` too; a four-digit year
    last (``4/17/1996``, whose order of month and day is anyone's guess) keeps its year
    alone; no year, a year to come, a two-digit one that could be any of the three numbers
    (``02-07-14``, ``27.05.01``), an empty tag or PGN's ``????.??.??`` give ``""``. A
    month or day that cannot be one is left out.

    >>> normalize_date("19800825"), normalize_date("93-12-25"), normalize_date("4/17/1996")
    ('1980-08-25', '1993-12-25', '1996')
    >>> normalize_date("27.05.01"), normalize_date("2999年")
    ('', '')
    """
    text = normalize_tag(value)
    short = _SHORT_YEAR.fullmatch(text)
    match = _DATE_DIGITS.match(text) or _DATE_PARTS.search(text)
    if short is not None:
        first, middle, last = short.groups()
        if int(first) > 31:  # 93-12-25: the year first
            year, month, day = str(1900 + int(first)), middle, last
        elif int(last) > 31:  # 25.12.93: the year last
            year, month, day = str(1900 + int(last)), middle, first
        else:
            return ""  # 02-07-14 or 27.05.01: which number is the year is anyone's guess
    elif match is not None:
        year, month, day = match.groups()
    else:
        return ""
    if not 1000 <= int(year) <= time.gmtime().tm_year:
        return ""
    parts = [year]
    if month is not None and 1 <= int(month) <= 12:
        parts.append(f"{int(month):02d}")
        if day is not None and 1 <= int(day) <= 31:
            parts.append(f"{int(day):02d}")
    return "-".join(parts)


def year_of(date: str) -> int | None:
    """The year of a date :func:`normalize_date` gave, or ``None`` for no date."""
    return int(date[:4]) if date else None


def normalize_result(value: str) -> str:
    """A result tag as one of PGN's ``1-0``, ``0-1``, ``1/2-1/2`` or ``*`` (unknown), also
    from full-width text and the Chinese words for a win or a draw."""
    text = normalize_tag(value).replace(" ", "")
    if text in RESULT_CODES:
        return text
    return _RESULT_WORDS.get(text, "*")


def normalize_ecco(value: str) -> str:
    """An ECCO code (``A00``-``E99``) in upper-case ASCII, or ``""`` when the tag holds
    none."""
    text = normalize_tag(value).upper()
    return text if _ECCO.fullmatch(text) else ""
