"""GIB, the Korean janggi record format.

A GIB file is PGN-shaped: headers in square brackets with Korean names (``[대회명 "..."]``,
``[초차림 "마상상마"]``, ``[한차림 "상마상마"]``, ``[대국결과 "한 완승"]``), then moves numbered
one per ply in Korean coordinates (``1. 79졸78 2. 32졸33``, ``한수쉼`` for a pass, and
suffixes for a capture or a check, ``74상42병``, ``85포55장군``; see
:mod:`chuhan.notation.korean`). Files are EUC-KR (CP949) or UTF-8, told apart as
:mod:`chuhan.records.encoding` says. The setup headers give the start position: both
``[초차림]`` and ``[한차림]`` list the pieces on files b, c, g, h in the board's file order
(files 1 to 9, from Cho's left), which is how real tournament records replay.
:func:`chuhan.janggi_start_fen` reads Han's choice from Han's own left instead (as a player
sitting on that side names it), so Han's GIB arrangement is the reverse of the one it
takes: 마상마상 in a GIB file is Han's 상마상마.
"""

from __future__ import annotations

from collections.abc import Iterator

from chuhan.errors import ChuhanError
from chuhan.notation import to_korean
from chuhan.records.encoding import decode_bytes
from chuhan.records.game import (
    DEFAULT_READ_LIMITS,
    GameRecord,
    ReadLimits,
    RecordError,
    janggi_arrangements,
    normalize_fen,
)
from chuhan.records.pgn import iter_records
from chuhan.records.stream import RecordSource
from chuhan.records.writing import comment_token, tagged_text
from chuhan.variants import Variant, get_variant, janggi_start_fen, normalize_arrangement

__all__ = [
    "decode_bytes",
    "encode_gib",
    "gib_setup",
    "iter_gib",
    "read_gib",
    "result_from_korean",
    "write_gib",
]

#: Header keys: the setup choices and the result.
CHO_SETUP, HAN_SETUP, RESULT = "초차림", "한차림", "대국결과"
_ENCODINGS = {"utf-8": "utf-8", "utf8": "utf-8", "euc-kr": "cp949", "cp949": "cp949"}


def gib_setup(headers: dict[str, str], rules: str | None = None) -> tuple[Variant, str]:
    """The variant and start FEN a GIB header block describes (default 마상상마 each)."""
    variant = get_variant("janggi", rules)
    fen = headers.get("FEN", "").strip()
    if fen:
        return variant, normalize_fen(fen)
    cho = headers.get(CHO_SETUP, "").strip() or "마상상마"
    han = headers.get(HAN_SETUP, "").strip() or "마상상마"
    return variant, janggi_start_fen(cho=cho, han=_han_from_board_order(han))


def _han_from_board_order(arrangement: str) -> str:
    """Han's arrangement as :func:`janggi_start_fen` takes it (from Han's own left), given in
    the board's file order as GIB writes it; the reverse of it, once its spelling (마/상,
    馬/象, H/E...) is checked."""
    return normalize_arrangement(arrangement)[::-1]


def result_from_korean(text: str) -> str:
    """The PGN result a 대국결과 header says (``"*"`` when it says none)."""
    cleaned = text.replace(" ", "")
    if "무승부" in cleaned or "비김" in cleaned or cleaned == "무":
        return "1/2-1/2"
    if cleaned.startswith(("초", "楚")) and "승" in cleaned:
        return "1-0"
    if cleaned.startswith(("한", "漢")) and "승" in cleaned:
        return "0-1"
    return "*"


_KOREAN_RESULTS = {"1-0": "초 완승", "0-1": "한 완승", "1/2-1/2": "무승부"}


def iter_gib(
    source: RecordSource,
    *,
    rules: str | None = None,
    limits: ReadLimits = DEFAULT_READ_LIMITS,
    encoding: str | None = None,
) -> Iterator[GameRecord]:
    """Yield the games of a GIB text, byte string or open file one at a time (see
    :func:`read_gib`), reading the file only as far as the games asked for."""
    return iter_records(source, rules=rules, korean=True, limits=limits, encoding=encoding)


def read_gib(
    source: RecordSource,
    *,
    rules: str | None = None,
    limits: ReadLimits = DEFAULT_READ_LIMITS,
    encoding: str | None = None,
) -> list[GameRecord]:
    """Read every game of a GIB file (text, bytes or an open file).

    The result comes from 대국결과 (``초 ... 승`` is 1-0, ``한 ... 승`` 0-1, 무승부 a draw);
    the Korean headers are kept as they are. Bytes are decoded in ``encoding`` when given,
    else in the one detected (UTF-8 or EUC-KR in practice). ``limits`` bounds what a game
    may hold (see :class:`ReadLimits`). Problems in a game, a limit it passes included, are
    in its record's ``errors``; the only error raised is :class:`ReadLimitError` for a file
    with more than ``limits.max_games`` games. The time taken is linear in the size of the
    text.
    """
    return list(iter_gib(source, rules=rules, limits=limits, encoding=encoding))


def write_gib(record: GameRecord) -> str:
    """Write a janggi ``record`` as GIB text (encode it with :func:`encode_gib`).

    Only the main line is written, since GIB has no variations; comments are kept in
    braces. Raises :class:`RecordError` for a xiangqi record or a start position that
    is not one of the sixteen setups (GIB has no FEN).
    """
    if not record.variant.is_janggi:
        raise RecordError(f"cannot write {record.describe()} as GIB: GIB holds janggi games")
    setup = janggi_arrangements(record.fen)
    if setup is None or record.fen.split()[1:2] not in ([], ["w"]):
        raise RecordError(
            f"cannot write {record.describe()} as GIB: its start {record.fen!r} is not "
            "one of the janggi setups"
        )
    headers = {
        k: v
        for k, v in record.headers.items()
        if k not in ("Result", "FEN", "Game", "Variant", "SetUp", "Format")
    }
    headers[CHO_SETUP], headers[HAN_SETUP] = setup[0], setup[1][::-1]  # board file order
    if record.result != "*":
        if result_from_korean(headers.get(RESULT, "")) != record.result:
            headers[RESULT] = _KOREAN_RESULTS[record.result]
    tokens: list[str] = []
    if record.root.comment:
        tokens.append(comment_token(record.root.comment))
    board = record.start_board()
    try:
        for ply, node in enumerate(record.root.main_line(), start=1):
            assert node.move is not None
            tokens.append(f"{ply}.")
            tokens.append(to_korean(board, node.move))
            if node.comment:
                tokens.append(comment_token(node.comment))
            board.push(node.move)
    except ChuhanError as error:
        raise RecordError(f"cannot write {record.describe()} as GIB: {error}") from error
    return tagged_text(headers, tokens)


def encode_gib(text: str, encoding: str = "utf-8") -> bytes:
    """Encode GIB text as UTF-8 (default) or EUC-KR (``"euc-kr"``, written as CP949)."""
    codec = _ENCODINGS.get(encoding.strip().lower())
    if codec is None:
        raise RecordError(f"unknown GIB encoding {encoding!r}: expected utf-8 or euc-kr")
    try:
        return text.encode(codec)
    except UnicodeEncodeError as error:
        raise RecordError(f"cannot encode the GIB text as {encoding}: {error}") from error
