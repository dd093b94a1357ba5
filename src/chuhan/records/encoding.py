"""The text encodings record files come in, told apart.

Real files are UTF-8 (with or without a byte-order mark), GB18030 / GBK (XQStudio's and most
Chinese programs' PGN exports), Big5 (Taiwanese and Hong Kong sites) or EUC-KR / CP949
(Korean GIB records). Detection, for bytes that are not UTF-8:

1. a byte-order mark decides (UTF-8, UTF-16);
2. bytes that decode as UTF-8 are UTF-8 (a legacy multi-byte text almost never does);
3. otherwise the candidates are those ``charset-normalizer`` proposes (when it is installed:
   ``pip install chuhan[records]``), then GB18030, Big5 and CP949. Each that decodes the
   sample cleanly is scored by how many characters of game notation it yields (piece names,
   炮二平五's numerals and verbs, the Korean 졸/병/차림...): a record's own moves tell which
   reading is right when the text is too short for a statistical detector (one GIB game
   decodes cleanly as Big5 too). The highest score wins; on a tie the detector's order.

A caller that knows the encoding passes it (``encoding="gb18030"``), and no guess is made.
Bytes that do not decode are replaced (U+FFFD), so a bad byte costs at most the game it is
in, which then fails on the move or header that holds it.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from typing import IO

from chuhan.records.game import RecordError

__all__ = ["decode_bytes", "decoded_chunks", "detect_encoding", "normalize_encoding"]

#: The legacy encodings tried when bytes are not UTF-8, as Python codecs: each is the
#: superset of the standard name files give (GBK and GB2312 in GB18030, Big5 in CP950,
#: EUC-KR in CP949).
LEGACY_ENCODINGS = ("gb18030", "cp950", "cp949")
_ALIASES = {
    "utf8": "utf-8",
    "utf-8": "utf-8",
    "utf_8": "utf-8",
    "utf-8-sig": "utf-8-sig",
    "utf_8_sig": "utf-8-sig",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "cp936": "gb18030",
    "gb18030": "gb18030",
    "big5": "cp950",
    "cp950": "cp950",
    "big5hkscs": "big5hkscs",
    "euc-kr": "cp949",
    "euc_kr": "cp949",
    "euckr": "cp949",
    "cp949": "cp949",
    "uhc": "cp949",
    "ks_c_5601-1987": "cp949",
}
#: Characters of game notation: Chinese piece names (both scripts, both sides), numerals,
#: full-width digits, verbs and places; Korean piece names, the pass and the GIB headers.
_NOTATION = frozenset(
    "帥帅將将仕士相象馬马傌車车俥伡炮砲包兵卒楚漢汉進进退平前中後后斜一二三四五六七八九"
    "１２３４５６７８９"
    "장궁사상마차포졸병한수쉼초림대국결과승"
)
#: How much of a file detection looks at: enough for a statistical detector, little enough
#: that a huge file is not read twice.
SAMPLE_BYTES = 64 * 1024
_BLOCK = 64 * 1024


def normalize_encoding(name: str) -> str:
    """The codec a given encoding name is read with (its superset where one exists);
    raises :class:`RecordError` for a name Python does not know."""
    key = name.strip().lower()
    if key in _ALIASES:
        return _ALIASES[key]
    try:
        return codecs.lookup(key).name
    except LookupError:
        raise RecordError(
            f"unknown encoding {name!r}: expected e.g. utf-8, gb18030, big5 or euc-kr"
        ) from None


def _detector_candidates(sample: bytes) -> list[str]:
    """The encodings ``charset-normalizer`` finds plausible, best first (none when it is
    not installed)."""
    try:
        from charset_normalizer import from_bytes
    except ImportError:  # the optional extra is missing: the notation score decides
        return []
    names: list[str] = []
    for match in from_bytes(sample):
        try:
            names.append(normalize_encoding(match.encoding))
        except RecordError:
            continue
    return names


def _notation_score(text: str) -> int:
    return sum(1 for ch in text if ch in _NOTATION)


def detect_encoding(data: bytes) -> str:
    """The encoding of record bytes (a Python codec name), as the module describes;
    looks at the first :data:`SAMPLE_BYTES` only."""
    if data.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    sample = data[:SAMPLE_BYTES]
    if len(data) > SAMPLE_BYTES:
        # Cut at a line end, so no character is split (every candidate keeps ASCII as is).
        sample = sample[: sample.rfind(b"\n") + 1] or sample
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as error:
        # A sample cut inside a long line may end in half a character: that is still UTF-8.
        if error.reason == "unexpected end of data" and error.start >= len(sample) - 3:
            return "utf-8"
    else:
        return "utf-8"
    candidates: list[str] = []
    for name in [*_detector_candidates(sample), *LEGACY_ENCODINGS]:
        if name not in candidates and name not in ("utf-8", "ascii"):
            candidates.append(name)
    best, best_score = "", -1
    for name in candidates:
        try:
            text = sample.decode(name)
        except (UnicodeDecodeError, LookupError):
            continue
        score = _notation_score(text)
        if score > best_score:
            best, best_score = name, score
    return best or LEGACY_ENCODINGS[0]


def decode_bytes(data: bytes, encoding: str | None = None) -> str:
    """Decode record bytes in ``encoding``, or in the one :func:`detect_encoding` finds;
    bytes that do not decode become U+FFFD, so decoding never fails here."""
    name = normalize_encoding(encoding) if encoding else detect_encoding(data)
    if name == "utf-8" and data.startswith(codecs.BOM_UTF8):
        name = "utf-8-sig"
    return data.decode(name, errors="replace")


def decoded_chunks(handle: IO[bytes], encoding: str | None = None) -> Iterator[str]:
    """The text of an open binary file, a block at a time, without reading it all.

    With no ``encoding``, blocks of plain ASCII pass as they are and the first block that
    holds another byte (with up to :data:`SAMPLE_BYTES` more) decides the encoding; a file
    whose Chinese text starts after a megabyte of ASCII headers is still read right.
    """
    decoder: codecs.IncrementalDecoder | None = None
    if encoding:
        decoder = codecs.getincrementaldecoder(normalize_encoding(encoding))(errors="replace")
    first = True
    while True:
        block = handle.read(_BLOCK)
        if not block:
            break
        if first and encoding and normalize_encoding(encoding) == "utf-8":
            block = block.removeprefix(codecs.BOM_UTF8)
        if decoder is None:
            if block.isascii():
                first = False
                yield block.decode("ascii")
                continue
            if len(block) < SAMPLE_BYTES:
                block += handle.read(SAMPLE_BYTES - len(block))
            name = detect_encoding(block) if first else _detect_after_ascii(block)
            decoder = codecs.getincrementaldecoder(name)(errors="replace")
        first = False
        yield decoder.decode(block)
    if decoder is not None:
        tail = decoder.decode(b"", final=True)
        if tail:
            yield tail


def _detect_after_ascii(block: bytes) -> str:
    # A byte-order mark only counts at the start of the file.
    name = detect_encoding(block)
    return "utf-8" if name in ("utf-8-sig", "utf-16") else name
