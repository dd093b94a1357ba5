"""XQF, the binary record format of XQStudio (xiangqi only), read and written.

Layout, as documented by the format's readers: a 1024-byte header, then the move tree.

- Header: ``XQ``, the version byte (10 = 1.0 ... 18 = 1.8), a key mask, a product id,
  four ``KeyOr`` bytes, then ``KeysSum``, ``KeyXY``, ``KeyXYf``, ``KeyXYt`` (which add up to
  0 mod 256); the 32 piece places (byte ``10 * file + rank``, rank 0 on red's side, 90 or
  more for a piece off the board) in the order RNBAKABNRCCPPPPP then the same for black;
  the side to move (0 red) at 50 and the result (0 unknown, 1 red wins, 2 black wins, 3
  draw) at 51; then length-prefixed GBK strings: title (80), event (208), date (272), site
  (288), red (304), black (320), opening (336), commentator (464) and author (480).
- The tree, from byte 1024: per node four bytes -- from (plus ``0x18 + KeyXYf``), to (plus
  ``0x20 + KeyXYt``), a tag, a spare -- and maybe a comment: a little-endian 32-bit length
  (plus ``KeyRMKSize``) and that many GBK bytes. The first node is the root (its comment
  is the game's). Tag bit 0x80: a next move follows (the continuation); 0x40: an
  alternative to this move follows after the continuation's whole subtree; 0x20: a
  comment follows (from version 11; before that the length is always there, and the
  tag's high and low nibbles carry the two tree flags).
- From version 11 the file is encrypted: the keys are derived from the header bytes by
  ``k = ((((b*b*3+9)*3+8)*2+1)*3+8) * c mod 256`` (``KeyXY`` from its own byte twice,
  ``KeyXYf`` with ``KeyXY``, ``KeyXYt`` with ``KeyXYf``); ``KeyRMKSize`` is
  ``(KeysSum*256 + KeyXY byte) mod 32000 + 767``; piece places are stored plus ``KeyXY``
  (and from version 12 rotated by ``KeyXY + 1`` places); every byte from 1024 on is stored
  plus ``F32Keys[pos mod 32]``, the 32 bytes of ``"[(C) Copyright Mr. Dong Shiwei.]"``
  each masked with one of the four ``(key byte & KeyMask) | KeyOr`` bytes in turn.
"""

from __future__ import annotations

import struct
from typing import IO

from chuhan.board import Board
from chuhan.errors import ChuhanError
from chuhan.fen import board_fen
from chuhan.records.game import (
    DEFAULT_READ_LIMITS,
    GameNode,
    GameRecord,
    ReadLimitError,
    ReadLimits,
    RecordError,
    VariationError,
    side_from_first_move,
)
from chuhan.squares import FILES, SQUARE_COUNT, Move
from chuhan.variants import ADVISOR, CANNON, ELEPHANT, HORSE, KING, PAWN, ROOK

__all__ = ["read_xqf", "write_xqf"]

HEADER_SIZE = 1024
#: The piece kind of each of a side's 16 places: RNBAKABNR, two cannons, five pawns.
_SLOT_TYPES: tuple[int, ...] = (ROOK, HORSE, ELEPHANT, ADVISOR, KING, ADVISOR, ELEPHANT, HORSE)
_SLOT_TYPES += (ROOK, CANNON, CANNON) + (PAWN,) * 5
_COPYRIGHT = b"[(C) Copyright Mr. Dong Shiwei.]"
_RESULTS = {0: "*", 1: "1-0", 2: "0-1", 3: "1/2-1/2"}
_RESULT_CODES = {value: key for key, value in _RESULTS.items()}
#: (header name, offset, size) of the header's strings.
_STRINGS = (
    ("Title", 80, 64),
    ("Event", 208, 64),
    ("Date", 272, 16),
    ("Site", 288, 16),
    ("Red", 304, 16),
    ("Black", 320, 16),
    ("Opening", 336, 64),
    ("RMKWriter", 464, 16),
    ("Author", 480, 16),
)
_OFF_BOARD = 0xFF


def _calkey(b: int, c: int) -> int:
    return (((((b * b) * 3 + 9) * 3 + 8) * 2 + 1) * 3 + 8) * c % 256


class _Keys:
    """The keys derived from a header; all zero (no encryption) before version 11."""

    def __init__(self, header: bytes | bytearray) -> None:
        version = header[2]
        mask, or_bytes = header[3], header[8:12]
        keys_sum, xy, xyf, xyt = header[12], header[13], header[14], header[15]
        self.encrypted = version > 10
        self.rotated = version >= 12
        if not self.encrypted:
            self.xy = self.xyf = self.xyt = self.remark_size = 0
            self.f32 = bytes(32)
            return
        self.xy = _calkey(xy, xy)
        self.xyf = _calkey(xyf, self.xy)
        self.xyt = _calkey(xyt, self.xyf)
        self.remark_size = (keys_sum * 256 + xy) % 32000 + 767
        pairs = zip((keys_sum, xy, xyf, xyt), or_bytes, strict=True)
        key_bytes = [(key & mask) | extra for key, extra in pairs]
        self.f32 = bytes(char & key_bytes[i % 4] for i, char in enumerate(_COPYRIGHT))


def _pascal(data: bytes, offset: int, size: int) -> str:
    length = min(data[offset], size - 1)
    raw = data[offset + 1 : offset + 1 + length]
    return raw.decode("gb18030", errors="replace").strip("\x00").strip()


class _Reader:
    """Reads the decrypted move area byte by byte, with clear errors on truncation."""

    def __init__(self, data: bytes, keys: _Keys) -> None:
        self.data, self.keys, self.pos = data, keys, HEADER_SIZE

    def take(self, size: int, *, what: str) -> bytes:
        if size < 0 or self.pos + size > len(self.data):
            raise RecordError(
                f"truncated XQF file: {what} needs {size} bytes at offset {self.pos}, "
                f"the file has {len(self.data)}"
            )
        raw = self.data[self.pos : self.pos + size]
        f32 = self.keys.f32
        plain = bytes((byte - f32[(self.pos + i) % 32]) % 256 for i, byte in enumerate(raw))
        self.pos += size
        return plain

    def node(self) -> tuple[int, int, int, str]:
        """One node: from and to places (10*file+rank), the tree flags, the comment."""
        keys = self.keys
        raw = self.take(4, what="a move")
        origin = (raw[0] - 0x18 - keys.xyf) % 256
        target = (raw[1] - 0x20 - keys.xyt) % 256
        tag = raw[2]
        if keys.encrypted:
            flags = tag & 0xE0
            has_remark = bool(flags & 0x20)
        else:
            flags = (0x80 if tag & 0xF0 else 0) | (0x40 if tag & 0x0F else 0)
            has_remark = True
        remark = ""
        if has_remark:
            if not keys.encrypted and self.pos + 4 > len(self.data) and not flags:
                # Old files may end without the last node's (empty) comment length.
                return origin, target, flags, ""
            (size,) = struct.unpack("<i", self.take(4, what="a comment length"))
            size -= keys.remark_size
            if size < 0 or size > len(self.data):
                raise RecordError(f"corrupt XQF file: comment length {size} at offset {self.pos}")
            text = self.take(size, what="a comment")
            remark = text.decode("gb18030", errors="replace").rstrip("\x00")
        return origin, target, flags, remark


def _place_square(place: int) -> int:
    file_index, rank = divmod(place, 10)
    if file_index >= FILES or rank >= 10:
        raise RecordError(f"corrupt XQF file: place {place} is off the board")
    return rank * FILES + file_index


def read_xqf(source: bytes | IO[bytes], *, limits: ReadLimits = DEFAULT_READ_LIMITS) -> GameRecord:
    """Read an XQF file (bytes or an open binary file) into a record.

    Raises :class:`RecordError` for a file that is not XQF, is truncated or corrupt, or
    whose start position is impossible. Moves that are illegal in their position cut the
    tree there and are reported in ``record.errors``, as the text readers do (a
    :class:`VariationError` for a move in a variation: the rest of the game is read); a
    tree that passes one of ``limits`` (see :class:`ReadLimits`) is read up to there, with
    a :class:`ReadLimitError` in ``record.errors``. The time taken is linear in the file's
    size.

    The header's side to move is often wrong in middlegame and endgame files (Black to
    move, the byte says Red): when the first move is legal only for the other side, that
    side moves first, as XQStudio and cchess play such files, and ``record.warnings``
    says so.
    """
    data = source if isinstance(source, bytes) else source.read()
    if len(data) < HEADER_SIZE or data[:2] != b"XQ":
        raise RecordError(
            f"not an XQF file: expected 'XQ' and a {HEADER_SIZE}-byte header, got "
            f"{len(data)} bytes starting {data[:2]!r}"
        )
    version = data[2]
    if version > 18:
        raise RecordError(f"unsupported XQF version {version} (XQStudio writes 10 to 18)")
    keys = _Keys(data)
    places = list(data[16:48])
    if keys.encrypted:
        if keys.rotated:
            rotated = [0] * 32
            for i, place in enumerate(places):
                rotated[(i + keys.xy + 1) % 32] = place
            places = rotated
        places = [(place - keys.xy) % 256 for place in places]
    squares = [0] * SQUARE_COUNT
    for slot, place in enumerate(places):
        if place >= 90:
            continue
        sq = _place_square(place)
        piece = _SLOT_TYPES[slot % 16]
        squares[sq] = piece if slot < 16 else -piece
    turn = "b" if data[50] == 1 else "w"
    headers: dict[str, str] = {"Game": "Chinese Chess"}
    for name, offset, size in _STRINGS:
        value = _pascal(data, offset, size)
        if value:
            headers[name] = value
    headers["Result"] = _RESULTS.get(data[51], "*")
    try:
        record = GameRecord(fen=f"{board_fen(squares)} {turn} - - 0 1", headers=headers)
        board = record.start_board()
    except ChuhanError as error:
        raise RecordError(f"corrupt XQF file: impossible start position: {error}") from error
    _read_tree(_Reader(data, keys), record, board, limits)
    return record


def _read_tree(reader: _Reader, record: GameRecord, board: Board, limits: ReadLimits) -> None:
    """Read the move tree in file order onto ``record``, with ``board`` at its start.

    The nodes still to read are a stack (not recursion, so a long game cannot exhaust
    Python's recursion limit), each entry saying where the node hangs: its parent
    (``None`` below an illegal move: the node is read to keep the file's place, then
    dropped), the parent's ply and nesting depth, and whether the node is a variation
    (an alternative after the first). The file is in depth-first order, so the next
    node's parent is always on ``board``'s path: popping back to the parent's ply is all
    it takes, and every move is pushed and popped once.
    """
    _, _, flags, remark = reader.node()
    record.root.comment = remark
    game = record.describe(0)
    first = True
    pending: list[tuple[GameNode | None, int, int, bool]] = []
    if flags & 0x80:
        pending.append((record.root, 0, 0, False))
    variations = 0
    while pending:
        parent, ply, parent_depth, is_variation = pending.pop()
        origin, target, flags, remark = reader.node()
        depth = parent_depth + is_variation
        if flags & 0x40:
            pending.append((parent, ply, parent_depth, True))
        if parent is None:
            if flags & 0x80:
                pending.append((None, ply + 1, depth, False))
            continue
        variations += is_variation
        passed = _passed_limit(limits, ply + 1, depth, variations)
        if passed:
            reason, limit = passed
            maximum = getattr(limits, limit)
            record.errors.append(ReadLimitError(reason, game=game, limit=limit, maximum=maximum))
            return
        while board.ply > ply:
            board.pop()
        move = Move(_place_square(origin), _place_square(target))
        if first:
            first = False
            board = side_from_first_move(record, board, move, game)
        if not board.is_legal(move):
            dots = "." if board.turn else "..."
            reason = (
                f"move {board.fullmove_number}{dots} {move.iccs()!r} is illegal in {board.fen()}"
            )
            if depth:
                record.errors.append(
                    VariationError(
                        f"{reason} (ply {ply + 1}); the variation is left out from this move",
                        game=game,
                        ply=ply + 1,
                        move=move.iccs(),
                    )
                )
            else:
                record.errors.append(RecordError(reason, game=game))
            if flags & 0x80:
                pending.append((None, ply + 1, depth, False))
            continue
        node = GameNode(move=move, parent=parent, comment=remark)
        parent.children.append(node)
        board.push(move)
        if flags & 0x80:
            pending.append((node, ply + 1, depth, False))


def _passed_limit(
    limits: ReadLimits, ply: int, depth: int, variations: int
) -> tuple[str, str] | None:
    """The message and name of the limit a node at ``ply`` and ``depth`` passes, if any."""
    if depth > limits.max_depth:
        return f"variations nested more than {limits.max_depth} deep", "max_depth"
    if variations > limits.max_variations:
        return f"more than {limits.max_variations} variations", "max_variations"
    if ply > limits.max_plies:
        line = "a variation" if depth else "the main line"
        return f"{line} has more than {limits.max_plies} plies", "max_plies"
    return None


# ---------------------------------------------------------------------- writing


def write_xqf(record: GameRecord, *, version: int = 18, seed: int = 0x5A) -> bytes:
    """Write a xiangqi ``record`` as XQF: ``version`` 10 is the plain layout, 11-18 the
    encrypted one (12 and up also rotate the piece places). ``seed`` picks the key bytes.

    Raises :class:`RecordError` for janggi, a position with more pieces of a kind than
    XQF has places for, or a string too long for its header field.
    """
    if record.variant.is_janggi:
        raise RecordError(f"cannot write {record.describe()} as XQF: XQF holds xiangqi games")
    if not 10 <= version <= 18:
        raise RecordError(f"unsupported XQF version {version}: expected 10 to 18")
    header = bytearray(HEADER_SIZE)
    header[0:2] = b"XQ"
    header[2] = version
    if version > 10:
        xy, xyf, xyt = seed % 256, (seed * 7 + 13) % 256, (seed * 31 + 101) % 256
        header[3] = 0xFF  # KeyMask
        header[8:12] = bytes((seed * 3) % 256 & 0x5F for _ in range(4))
        header[12:16] = bytes(((256 - (xy + xyf + xyt)) % 256, xy, xyf, xyt))
    keys = _Keys(header)
    board = record.start_board()
    places = _places(board, record)
    if keys.encrypted:
        places = [(place + keys.xy) % 256 for place in places]
        if keys.rotated:
            places = [places[(i + keys.xy + 1) % 32] for i in range(32)]
    header[16:48] = bytes(places)
    header[50] = 0 if board.turn else 1
    header[51] = _RESULT_CODES.get(record.result, 0)
    for name, offset, size in _STRINGS:
        value = record.headers.get(name, "").encode("gb18030", errors="replace")
        if len(value) > size - 1:
            raise RecordError(f"cannot write XQF: {name} is longer than {size - 1} bytes")
        header[offset] = len(value)
        header[offset + 1 : offset + 1 + len(value)] = value
    body = bytearray()
    for node, has_sibling in _preorder(record.root):
        body += _node_bytes(node, has_sibling, keys)
    f32 = keys.f32
    encrypted = bytes((byte + f32[(HEADER_SIZE + i) % 32]) % 256 for i, byte in enumerate(body))
    return bytes(header) + encrypted


def _places(board: Board, record: GameRecord) -> list[int]:
    places = [_OFF_BOARD] * 32
    for sq, piece in sorted(board.piece_code_map().items()):
        base = 0 if piece > 0 else 16
        slots = [i for i, kind in enumerate(_SLOT_TYPES) if kind == abs(piece)]
        free = [slot for slot in slots if places[base + slot] == _OFF_BOARD]
        if not free:
            raise RecordError(
                f"cannot write {record.describe()} as XQF: too many pieces of one kind"
            )
        places[base + free[0]] = (sq % FILES) * 10 + sq // FILES
    return places


def _preorder(root: GameNode) -> list[tuple[GameNode, bool]]:
    """Nodes in file order: a node, its continuation's subtree, then its next sibling;
    each with whether a sibling follows it."""
    order: list[tuple[GameNode, bool]] = []
    # Each node with its place among its siblings (the root has none).
    stack: list[tuple[GameNode, int]] = [(root, 0)]
    while stack:
        node, place = stack.pop()
        siblings = node.parent.children if node.parent is not None else [node]
        has_sibling = place + 1 < len(siblings)
        order.append((node, has_sibling))
        if has_sibling:
            stack.append((siblings[place + 1], place + 1))
        if node.children:
            stack.append((node.children[0], 0))
    return order


def _node_bytes(node: GameNode, has_sibling: bool, keys: _Keys) -> bytes:
    move = node.move
    origin = target = 0
    if move is not None:
        origin = (move.from_square % FILES) * 10 + move.from_square // FILES
        target = (move.to_square % FILES) * 10 + move.to_square // FILES
    remark = node.comment.encode("gb18030", errors="replace")
    if keys.encrypted:
        tag = (0x80 if node.children else 0) | (0x40 if has_sibling else 0)
        tag |= 0x20 if remark else 0
    else:
        tag = (0xF0 if node.children else 0) | (0x0F if has_sibling else 0)
    out = bytes(((origin + 0x18 + keys.xyf) % 256, (target + 0x20 + keys.xyt) % 256, tag, 0))
    if remark or not keys.encrypted:
        out += struct.pack("<i", len(remark) + keys.remark_size) + remark
    return out
