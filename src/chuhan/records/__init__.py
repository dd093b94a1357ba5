"""Game records: PGN (xiangqi and pychess.org conventions), GIB (Korean janggi records),
XQF (XQStudio, read and write) and a plain FEN + ICCS text form, all read into one
:class:`GameRecord` value. Readers are lenient and collect errors on the record; nothing in
a file makes them raise anything but :class:`RecordError` (a ``ChuhanError``).

Every reader takes ``limits=``, a :class:`ReadLimits` (plies in a line, variations in a
game, how deep they nest, games in a file); a game that passes one keeps what came before
and gets a :class:`ReadLimitError` in its ``errors``, and a file with too many games
raises it. Reading is linear in the size of the input, whatever the input holds.
"""

from chuhan.records.convert import (
    EXTENSIONS,
    convert,
    read_file,
    read_text_record,
    write_text_record,
)
from chuhan.records.game import (
    DEFAULT_READ_LIMITS,
    RESULTS,
    GameNode,
    GameRecord,
    ReadLimitError,
    ReadLimits,
    RecordError,
    janggi_arrangements,
)
from chuhan.records.gib import decode_bytes, encode_gib, read_gib, write_gib
from chuhan.records.pgn import PGN_FORMATS, parse_san, read_pgn, to_san, write_pgn
from chuhan.records.xqf import read_xqf, write_xqf

__all__ = [
    "DEFAULT_READ_LIMITS",
    "EXTENSIONS",
    "PGN_FORMATS",
    "RESULTS",
    "GameNode",
    "GameRecord",
    "ReadLimitError",
    "ReadLimits",
    "RecordError",
    "convert",
    "decode_bytes",
    "encode_gib",
    "janggi_arrangements",
    "parse_san",
    "read_file",
    "read_gib",
    "read_pgn",
    "read_text_record",
    "read_xqf",
    "to_san",
    "write_gib",
    "write_pgn",
    "write_text_record",
    "write_xqf",
]
