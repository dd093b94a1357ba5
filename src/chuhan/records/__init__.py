"""Game records: PGN (xiangqi and pychess.org conventions), GIB (Korean janggi records),
XQF (XQStudio, read and write), DhtmlXQ (the UBB tags of 东萍 and the Chinese web
databases, in a file or a web page, read), CBF (CCBridge's XML, read) and a plain FEN +
ICCS text form, all read into one :class:`GameRecord` value. Readers are lenient and
collect errors on the record (a variation that does not read is a
:class:`VariationError`, the rest of the game kept) and say what they read otherwise
than the file says in its ``warnings``; nothing in a file makes them raise anything but
:class:`RecordError` (a ``ChuhanError``). :func:`read_file` tells a file's format from its
bytes or its name.

Every reader takes ``limits=``, a :class:`ReadLimits` (plies in a line, variations in a
game, how deep they nest, games in a file); a game that passes one keeps what came before
and gets a :class:`ReadLimitError` in its ``errors``, and a file with too many games
raises it. Reading is linear in the size of the input, whatever the input holds.

The PGN and GIB readers stream: :func:`iter_pgn`, :func:`iter_gib` and :func:`iter_file`
yield one game at a time from an open file, and :func:`iter_headers` scans the tags alone.
Bytes are decoded in the encoding a caller gives (``encoding=``) or the one detected among
UTF-8, GB18030, Big5 and EUC-KR (:mod:`chuhan.records.encoding`).
"""

from chuhan.records.cbf import looks_like_cbf, read_cbf
from chuhan.records.convert import (
    EXTENSIONS,
    FORMATS,
    Conversion,
    convert,
    iter_file,
    read_file,
    read_text_record,
    sniff_format,
    write_text_record,
)
from chuhan.records.dhtmlxq import iter_dhtmlxq, looks_like_dhtmlxq, read_dhtmlxq
from chuhan.records.encoding import decode_bytes, detect_encoding
from chuhan.records.game import (
    DEFAULT_READ_LIMITS,
    RESULTS,
    GameNode,
    GameRecord,
    ReadLimitError,
    ReadLimits,
    RecordError,
    RecordWarning,
    VariationError,
    janggi_arrangements,
    normalize_fen,
)
from chuhan.records.gib import encode_gib, iter_gib, read_gib, write_gib
from chuhan.records.pgn import (
    PGN_FORMATS,
    XIANGQI_FORMATS,
    iter_headers,
    iter_pgn,
    parse_san,
    read_pgn,
    to_san,
    write_pgn,
)
from chuhan.records.xqf import read_xqf, write_xqf

__all__ = [
    "DEFAULT_READ_LIMITS",
    "EXTENSIONS",
    "FORMATS",
    "PGN_FORMATS",
    "RESULTS",
    "XIANGQI_FORMATS",
    "Conversion",
    "GameNode",
    "GameRecord",
    "ReadLimitError",
    "ReadLimits",
    "RecordError",
    "RecordWarning",
    "VariationError",
    "convert",
    "decode_bytes",
    "detect_encoding",
    "encode_gib",
    "iter_dhtmlxq",
    "iter_file",
    "iter_gib",
    "iter_headers",
    "iter_pgn",
    "janggi_arrangements",
    "looks_like_cbf",
    "looks_like_dhtmlxq",
    "normalize_fen",
    "parse_san",
    "read_cbf",
    "read_dhtmlxq",
    "read_file",
    "read_gib",
    "read_pgn",
    "read_text_record",
    "read_xqf",
    "sniff_format",
    "to_san",
    "write_gib",
    "write_pgn",
    "write_text_record",
    "write_xqf",
]
