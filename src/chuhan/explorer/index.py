"""The explorer's index: games and the moves played from every position they reached, in
one SQLite file or one PostgreSQL database (:mod:`chuhan.explorer.stores`: the statements
here are written once for both).

**Positions** are keyed by the board's Zobrist hash (:meth:`chuhan.Board.zobrist_hash`,
placement and side to move, the key repetition rules count; the same in every process), so
every move order that reaches a position meets there. For each ``(source, position, move)``
a row counts the games that played the move from it, Red's wins, the draws and Black's
wins (a game of unknown result counts in the games, in none of the three), the sum of the
years of the dated ones, and the most recent games (:data:`TOP_GAMES`). A game that ends
in a position counts there under :data:`GAME_ENDED`. A game that passes a position twice
counts once for each move played from it.

**Sources** keep collections apart: ``masters`` (the shipped Chinese Chess Practical
Dataset and whatever ``chuhan explorer import`` adds) now, this server's own games later,
each of one game (a source holds xiangqi or janggi games, never both).

**Kinds** (:data:`chuhan.explorer.files.KINDS`): only ``game`` records count in the
statistics, and a game is one from the start position (a record that starts elsewhere,
filed among the games or not, is a ``position``). Openings, midgame, endgame, tactics
and exercise positions and computer games are kept as records of their kind, with their
search keys, never counted.

**Duplicates** (the dataset files one game by player, by event and by opening, and its
copies differ in their tags: 廣東呂欽 and 呂欽, 2007年1月 and 2006-12-31) are recognised by
the moves: two records of one source are one game when they start from the same position
and play the same main line with the same result, for games of at least
:data:`UNIQUE_PLIES` plies; a shorter game is one with another only when its players'
names also match (by :func:`~chuhan.explorer.text.search_key`, spaces ignored). The first
copy read is kept, and later copies fill in what it lacks (the ECCO code, the dataset's
opening folder); ``copies`` counts them.

**Openings**: each xiangqi game from the start is named by its ECCO code as the
classifier (:mod:`chuhan.explorer.ecco`) finds it (``found``), beside the code its record's
tag gives (``ecco``); a game shows its tag's code, else the one found.

**Search** (:meth:`Explorer.search`): by player, event, year, result, ECCO code and by
position: every position a counted game reached is kept with the game (``reached``).

An import is one transaction: it adds every record it can read or none. Its counts are
made here, in Python (per position and move: games, results, years and the most recent
games), and merged with the index's rows :data:`_MERGE_ROWS` at a time; one import writes
at a time (:meth:`~chuhan.explorer.stores.IndexConnection.begin_write`).
"""

from __future__ import annotations

import contextlib
import hashlib
import heapq
import os
import re
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from chuhan.board import Board
from chuhan.errors import ChuhanError
from chuhan.explorer.ecco import DEPTH, EccoOpening, classify_keys, ecco_table, opening_of
from chuhan.explorer.files import CollectionFile, iter_collection, kind_of
from chuhan.explorer.stores import (
    PG_SCHEMA,
    IndexBusy,
    IndexConnection,
    IndexStoreError,
    is_index_url,
    open_index_connection,
    shown_location,
)
from chuhan.explorer.text import (
    RESULT_CODES,
    normalize_date,
    normalize_ecco,
    normalize_result,
    normalize_tag,
    search_key,
    year_of,
)
from chuhan.notation import format_move
from chuhan.records import GameRecord, VariationError, iter_data
from chuhan.squares import Move
from chuhan.variants import JANGGI_ARRANGEMENTS, Variant, get_variant, janggi_start_fen

__all__ = [
    "GAME_ENDED",
    "MASTERS",
    "SCHEMA_VERSION",
    "SITE",
    "TOP_GAMES",
    "UNIQUE_PLIES",
    "Explorer",
    "ExplorerError",
    "GamePositions",
    "GameSummary",
    "ImportSummary",
    "MoveStats",
    "PositionStats",
    "Refusal",
    "SearchResult",
    "default_index_path",
    "game_positions",
    "is_from_start",
    "merge_top",
    "position_key",
    "position_opening",
    "position_stats",
    "site_index_path",
    "site_source",
    "top_game_ids",
    "top_token",
]

#: The index's layout; an index of another version is refused (rebuild it).
SCHEMA_VERSION = 2
#: The source of the master games.
MASTERS = "masters"
#: An ECCO code or its start, as a search asks for it.
_ECCO_PREFIX = re.compile(r"[A-E]\d{0,2}")
#: The sources of a server's own games, one per game, speed and rating band
#: (:func:`site_source`); asked together as this one name.
SITE = "site"
#: The games kept with each move (and each position): the most recent first.
TOP_GAMES = 5
#: The ``move`` of a position's row that counts the games that ended in it.
GAME_ENDED = -1
#: A game this long is told from others by its moves and result alone (see the module).
UNIQUE_PLIES = 40
#: Rows of the positions games reached kept in Python before they are written.
_STAGE_BATCH = 20_000
#: The (position, move) rows an import counts in Python before it merges them into the
#: index (about 550 bytes a row: some 30 MB at most; 200,000 peaked 88 MB higher on the
#: whole archive, README).
_MERGE_ROWS = 50_000
#: The most processes an import reads records with (parsing the moves is most of its work).
READ_WORKERS = 8
#: Files read by one job of a reading worker; the first batch is read in the importing
#: process, so that a small collection starts no worker.
_READ_BATCH = 200

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sources (
    id {id},
    name TEXT NOT NULL UNIQUE,
    variant TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS imports (
    id {id},
    source {int} NOT NULL REFERENCES sources(id),
    label TEXT NOT NULL,
    digest TEXT NOT NULL,
    imported_at TEXT NOT NULL,
    files {int} NOT NULL,
    games {int} NOT NULL,
    others {int} NOT NULL,
    duplicates {int} NOT NULL,
    refused {int} NOT NULL
);
CREATE TABLE IF NOT EXISTS refusals (
    {rowid}import {int} NOT NULL REFERENCES imports(id),
    origin TEXT NOT NULL,
    reason TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id {id},
    source {int} NOT NULL REFERENCES sources(id),
    kind TEXT NOT NULL,
    identity {blob} NOT NULL,
    fen TEXT NOT NULL,
    moves TEXT NOT NULL,
    plies {int} NOT NULL,
    red TEXT NOT NULL,
    black TEXT NOT NULL,
    event TEXT NOT NULL,
    site TEXT NOT NULL,
    date TEXT NOT NULL,
    year {int},
    result TEXT NOT NULL,
    ecco TEXT NOT NULL,
    found TEXT NOT NULL DEFAULT '',
    opening TEXT NOT NULL,
    red_key TEXT NOT NULL,
    black_key TEXT NOT NULL,
    event_key TEXT NOT NULL,
    origin TEXT NOT NULL,
    copies {int} NOT NULL DEFAULT 1,
    import {int} NOT NULL REFERENCES imports(id),
    UNIQUE (source, identity)
);
CREATE TABLE IF NOT EXISTS positions (
    source {int} NOT NULL,
    position {int} NOT NULL,
    move {int} NOT NULL,
    games {int} NOT NULL,
    red_wins {int} NOT NULL,
    draws {int} NOT NULL,
    black_wins {int} NOT NULL,
    year_total {int} NOT NULL,
    dated {int} NOT NULL,
    top TEXT NOT NULL,
    PRIMARY KEY (source, position, move)
) {without_rowid};
CREATE TABLE IF NOT EXISTS reached (
    position {int} NOT NULL,
    game {int} NOT NULL,
    ply {int} NOT NULL,
    PRIMARY KEY (position, game)
) {without_rowid};
"""


class ExplorerError(ChuhanError):
    """A question the index cannot answer as asked (a janggi position of a xiangqi source,
    an unknown source), or an index file that is not one."""


def _start_keys(variant: Variant) -> set[int]:
    """The keys of a game's start positions: xiangqi's one, and janggi's sixteen (each
    side's arrangement of horses and elephants)."""
    if variant.game != "janggi":
        return {Board(variant=variant).zobrist_hash()}
    return {
        Board(janggi_start_fen(cho=cho, han=han), variant=variant).zobrist_hash()
        for cho in JANGGI_ARRANGEMENTS
        for han in JANGGI_ARRANGEMENTS
    }


def site_index_path(path: str | Path | None = None) -> Path:
    """Where a server before schema step 17 kept its own games, beside the explorer's index
    at ``path`` (default :func:`default_index_path`): ``explorer-site.sqlite3`` beside
    ``explorer.sqlite3`` (a server now keeps them in its game database, and moves such a
    file in when it starts: :mod:`chuhan.web.explorer.site`). Any index may still hold
    ``site/...`` sources (:meth:`Explorer.add_game`)."""
    index = default_index_path() if path is None else Path(path)
    return index.with_name(f"{index.stem}-site{index.suffix}")


def site_source(game: str, speed: str, band: str) -> str:
    """The source of a server's own games of ``game`` at ``speed`` in the rating ``band``:
    ``site/xiangqi/blitz/1500-1799``."""
    for part in (game, speed, band):
        if not part or "/" in part:
            raise ExplorerError(f"a site source's part must be a word without '/': {part!r}")
    return f"{SITE}/{game}/{speed}/{band}"


def position_key(board: Board) -> int:
    """The index's key of the board's position: its Zobrist hash (placement and side to
    move) as a signed 64-bit integer, as SQLite stores it."""
    key = board.zobrist_hash()
    return key - (1 << 64) if key >= 1 << 63 else key


@dataclass(frozen=True)
class Refusal:
    """A record (or file) an import left out: where it is and why."""

    origin: str
    reason: str

    def __str__(self) -> str:
        return f"{self.origin}: {self.reason}"


@dataclass
class ImportSummary:
    """What an import did: files read, games added (counted in the explorer), other
    records added (positions, openings, computer games), duplicates recognised, and the
    refusals with their reasons."""

    label: str
    source: str
    files: int = 0
    games: int = 0
    others: int = 0
    duplicates: int = 0
    refused: list[Refusal] = field(default_factory=list)
    seconds: float = 0.0

    def describe(self) -> str:
        """One line: ``ccpd.tar.xz into masters: 58,468 files, ... in 312.4 s``."""
        return (
            f"{self.label} into {self.source}: {self.files:,} files, {self.games:,} games "
            f"added, {self.others:,} other records (positions, openings, computer games), "
            f"{self.duplicates:,} duplicates, {len(self.refused):,} refused, "
            f"in {self.seconds:.1f} s"
        )


@dataclass(frozen=True)
class GameSummary:
    """A game of the index as the explorer lists it; ``ply`` is where it reached the
    position asked about (the number of moves played before it), when it is listed
    for one."""

    id: int
    red: str
    black: str
    event: str
    date: str
    year: int | None
    result: str
    ecco: str
    opening: str
    ply: int | None = None
    #: Where the game came from: its file in a collection, its id on a server.
    origin: str = ""

    @property
    def ecco_opening(self) -> EccoOpening | None:
        """The game's ECCO opening with its names (``None`` when it has no code)."""
        return opening_of(self.ecco)

    def to_json(self) -> dict[str, Any]:
        opening = self.ecco_opening
        return {
            "id": self.id,
            "origin": self.origin,
            "red": self.red,
            "black": self.black,
            "event": self.event,
            "date": self.date,
            "year": self.year,
            "result": self.result,
            "ecco": self.ecco,
            "ecco_opening": None if opening is None else opening.to_json(),
            "opening": self.opening,
            "ply": self.ply,
        }


@dataclass(frozen=True)
class SearchResult:
    """A search's answer: how many games match (``total``) and those listed."""

    total: int
    games: tuple[GameSummary, ...]

    def to_json(self) -> dict[str, Any]:
        return {"total": self.total, "games": [game.to_json() for game in self.games]}


@dataclass(frozen=True)
class MoveStats:
    """A move played from a position: the move in ICCS, WXF and Chinese, the games that
    played it, how they ended, their average year and the most recent of them."""

    move: Move
    iccs: str
    wxf: str
    chinese: str
    games: int
    red_wins: int
    draws: int
    black_wins: int
    average_year: float | None
    top_games: tuple[GameSummary, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "iccs": self.iccs,
            "wxf": self.wxf,
            "chinese": self.chinese,
            "games": self.games,
            "red_wins": self.red_wins,
            "draws": self.draws,
            "black_wins": self.black_wins,
            "average_year": self.average_year,
            "top_games": [game.to_json() for game in self.top_games],
        }


@dataclass(frozen=True)
class PositionStats:
    """The explorer's answer for a position: its games (those that went on and those that
    ended there), how they ended, and the moves played from it, most played first."""

    fen: str
    source: str
    games: int
    red_wins: int
    draws: int
    black_wins: int
    average_year: float | None
    moves: tuple[MoveStats, ...]
    ended: int
    top_games: tuple[GameSummary, ...]
    #: The ECCO opening of the position (the classifier's, for a xiangqi position its
    #: table holds), else ``None``.
    opening: EccoOpening | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "fen": self.fen,
            "source": self.source,
            "opening": None if self.opening is None else self.opening.to_json(),
            "games": self.games,
            "red_wins": self.red_wins,
            "draws": self.draws,
            "black_wins": self.black_wins,
            "average_year": self.average_year,
            "ended_here": self.ended,
            "moves": [move.to_json() for move in self.moves],
            "top_games": [game.to_json() for game in self.top_games],
        }


def top_token(date: str, game_id: int, ply: int) -> str:
    """A game's place in a top list: its date's digits (unknown parts zero), then its id,
    so that the larger token is the more recent game; then the ply, where it was."""
    digits = date.replace("-", "").ljust(8, "0")
    return f"{digits}:{game_id:010d}:{ply}"


def _best_tokens(tokens: Iterable[str]) -> list[str]:
    return heapq.nlargest(TOP_GAMES, set(tokens))


def merge_top(first: str | None, second: str | None) -> str:
    """Two top lists made one, the :data:`TOP_GAMES` most recent."""
    return " ".join(_best_tokens(f"{first or ''} {second or ''}".split()))


def _summed(rows: Iterable[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Rows of counts of several sources (``move``, the counts, ``top``) summed by move."""
    by_move: dict[int, list[Any]] = {}
    for move, *counts, top in rows:
        summed = by_move.get(move)
        if summed is None:
            by_move[move] = [*counts, str(top)]
        else:
            for place, value in enumerate(counts):
                summed[place] += value
            summed[6] = merge_top(summed[6], str(top))
    return [(move, *summed) for move, summed in by_move.items()]


def _now() -> str:
    """The time of day in UTC as an import is stamped (as SQLite's ``datetime('now')``)."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())


def _average(total: int, count: int) -> float | None:
    return round(total / count, 1) if count else None


def default_index_path() -> Path:
    """Where the explorer's index is kept: ``$CHUHAN_EXPLORER_DB`` when set, else
    ``explorer.sqlite3`` in the user data folder (as platformdirs names it, where the web
    app keeps its games; without platformdirs, ``$XDG_DATA_HOME/chuhan`` or
    ``~/.local/share/chuhan``)."""

    given = os.environ.get("CHUHAN_EXPLORER_DB")
    if given:
        return Path(given)
    try:
        from platformdirs import user_data_dir
    except ImportError:
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        return Path(base) / "chuhan" / "explorer.sqlite3"
    return Path(user_data_dir("chuhan", appauthor=False, roaming=True)) / "explorer.sqlite3"


class Explorer:
    """The explorer's index at ``path``: a SQLite file (created when missing; default
    :func:`default_index_path`) or a PostgreSQL database (``postgresql://...``: the
    index's tables in a schema of their own, created when missing; see
    :mod:`chuhan.explorer.stores`). Reads run beside an import (a SQLite file is in
    write-ahead-log mode): they see the index as it was before the import until it
    commits.

    >>> explorer = Explorer(":memory:")
    >>> explorer.lookup(Board()).games
    0
    >>> explorer.close()
    """

    def __init__(
        self, path: str | Path | None = None, *, statement_seconds: float | None = None
    ) -> None:
        self.path: str | Path = default_index_path() if path is None else path
        #: Whether this opening built the masters' index (:func:`open_masters`).
        self.built_now = False
        try:
            self._db: IndexConnection = open_index_connection(
                self.path, statement_seconds=statement_seconds
            )
        except IndexStoreError as error:
            raise self._unopened(error) from None
        try:
            self._db.create(_SCHEMA.format_map(self._db.words))
            self._check_version()
        except IndexStoreError as error:
            self._db.close()
            raise self._unopened(error) from None
        except BaseException:
            self._db.close()
            raise

    def _unopened(self, error: IndexStoreError) -> ExplorerError:
        """What a store's failure while opening says: a database that did not answer (or
        whose statement was cancelled) cannot be opened, for now, not a verdict; a SQLite
        file that fails is not an index."""
        if is_index_url(self.path):
            return ExplorerError(f"the explorer index {self.where} cannot be opened: {error}")
        return ExplorerError(f"{self.where!r} is not an explorer index: {error}")

    @property
    def where(self) -> str:
        """Where the index is, as told (a file's path, a database's address without its
        password)."""
        return shown_location(self.path)

    def _check_version(self) -> None:
        row = self._db.one("SELECT value FROM meta WHERE name = 'schema'")
        if row is None:
            self._db.execute(
                "INSERT INTO meta (name, value) VALUES ('schema', ?) ON CONFLICT DO NOTHING",
                (str(SCHEMA_VERSION),),
            )
        elif row[0] != str(SCHEMA_VERSION):
            way_out = (
                "delete the file and it is built again"
                if self._db.dialect == "sqlite"
                else f"drop the schema {PG_SCHEMA} and it is built again"
            )
            raise ExplorerError(
                f"the explorer index {self.where!r} is of layout {row[0]}, this chuhan "
                f"reads layout {SCHEMA_VERSION}: {way_out}"
            )

    def close(self) -> None:
        """Close the index (its file, or its database connection)."""
        self._db.close()

    def __enter__(self) -> Explorer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- sources and imports ------------------------------------------------------------

    def _source(self, name: str, variant: Variant | None = None) -> tuple[int, Variant]:
        """The id and game of the source ``name``; created for ``variant`` when it is
        given and the source does not exist yet."""
        row = self._db.one("SELECT id, variant FROM sources WHERE name = ?", (name,))
        if row is not None:
            return int(row[0]), get_variant(str(row[1]))
        if variant is None:
            known = [str(r[0]) for r in self._db.rows("SELECT name FROM sources ORDER BY id")]
            said = ", ".join(known) if known else "none yet"
            raise ExplorerError(f"no source {name!r} in the explorer index (its sources: {said})")
        new_id = self._db.insert(
            "INSERT INTO sources (name, variant) VALUES (?, ?)", (name, variant.game)
        )
        return new_id, variant

    def note_progress(self, label: str, done: int, total: int) -> None:
        """Tell other processes how far an import of ``label`` has gone (``done`` of
        ``total`` files), in the index's ``meta`` table, at once: from a connection other
        than the importing one (its transaction is seen by none until it commits), on
        PostgreSQL (on a SQLite file the import is the one writer: this waits for it)."""
        self._db.execute(
            "INSERT INTO meta (name, value) VALUES (?, ?) "
            "ON CONFLICT (name) DO UPDATE SET value = excluded.value",
            (f"progress {label}", f"{done} {total}"),
        )

    def progress_of(self, label: str) -> tuple[int, int] | None:
        """How far an import of ``label`` has gone as :meth:`note_progress` last told it
        (``done``, ``total``), or ``None``."""
        row = self._db.one("SELECT value FROM meta WHERE name = ?", (f"progress {label}",))
        if row is None:
            return None
        done, _, total = str(row[0]).partition(" ")
        return int(done), int(total)

    @property
    def shared(self) -> bool:
        """Whether the index is a database that processes on other machines may share
        (PostgreSQL), rather than a file of this machine."""
        return self._db.dialect != "sqlite"

    def imported(self, digest: str) -> bool:
        """Whether a collection of this content digest has been imported."""
        return self._db.one("SELECT 1 FROM imports WHERE digest = ?", (digest,)) is not None

    def imported_label(self, label: str) -> bool:
        """Whether a collection of this label has been imported."""
        return self._db.one("SELECT 1 FROM imports WHERE label = ?", (label,)) is not None

    def refusals(self, label: str) -> list[Refusal]:
        """What the imports of this label refused, in order."""
        rows = self._db.rows(
            "SELECT origin, reason FROM refusals JOIN imports ON imports.id = refusals.import "
            "WHERE imports.label = ? ORDER BY refusals.rowid",
            (label,),
        )
        return [Refusal(str(origin), str(reason)) for origin, reason in rows]

    def import_collection(
        self,
        paths: Iterable[str | Path],
        *,
        source: str = MASTERS,
        variant: str = "xiangqi",
        label: str | None = None,
        digest: str = "",
        progress: Callable[[ImportSummary], None] | None = None,
        workers: int | None = None,
    ) -> ImportSummary:
        """Import the record files, folders and archives at ``paths`` into ``source``
        (created for ``variant`` when new), in one transaction: every record read is
        added or none is. A record that cannot be read, of another game than the
        source's, or without a move is refused and listed with its reason in the
        summary; the rest go in. ``progress`` is called with the summary so far after
        each file. ``digest`` names the collection's content (:meth:`imported`)."""
        names = [str(path) for path in paths]
        files = (file for path in names for file in iter_collection(path))
        return self.import_files(
            files,
            source=source,
            variant=variant,
            label=label or ", ".join(Path(name).name for name in names),
            digest=digest,
            progress=progress,
            workers=workers,
        )

    def import_files(
        self,
        files: Iterable[CollectionFile],
        *,
        source: str = MASTERS,
        variant: str = "xiangqi",
        label: str = "records",
        digest: str = "",
        progress: Callable[[ImportSummary], None] | None = None,
        encoding: str | None = None,
        workers: int | None = None,
    ) -> ImportSummary:
        """Import the records of ``files`` (as :meth:`import_collection` does), in the
        ``encoding`` given (default: told per file) and read by ``workers`` processes
        (default: one per CPU, at most :data:`READ_WORKERS`; a collection of a few hundred
        files is read in this process)."""
        started = time.perf_counter()
        summary = ImportSummary(label=label, source=source)
        self._begin_write()
        try:
            if digest and self.imported(digest):
                # Another process imported it while this one waited for the lock.
                self._db.commit()
                return summary
            source_id, spec = self._source(source, get_variant(variant))
            import_id = self._db.insert(
                "INSERT INTO imports (source, label, digest, imported_at, files, games, "
                "others, duplicates, refused) VALUES (?, ?, ?, ?, 0, 0, 0, 0, 0)",
                (source_id, label, digest, _now()),
            )
            importer = _Importer(self._db, source_id, spec, import_id, summary)
            _read_into(importer, files, spec.game, encoding, workers, progress)
            importer.finish()
            summary.seconds = time.perf_counter() - started
            self._db.execute(
                "UPDATE imports SET files = ?, games = ?, others = ?, duplicates = ?, "
                "refused = ? WHERE id = ?",
                (
                    summary.files,
                    summary.games,
                    summary.others,
                    summary.duplicates,
                    len(summary.refused),
                    importer.import_id,
                ),
            )
            self._db.commit()
        except BaseException:
            self._db.rollback()
            raise
        return summary

    def _begin_write(self) -> None:
        try:
            self._db.begin_write()
        except IndexBusy as error:
            raise ExplorerError(
                f"the explorer index {self.where!r} cannot be written ({error}): another "
                "import is writing it; try again when it has finished"
            ) from None

    def add_game(
        self,
        source: str,
        moves: Iterable[str],
        *,
        variant: Variant | str = "xiangqi",
        fen: str | None = None,
        headers: dict[str, str] | None = None,
        origin: str,
    ) -> bool:
        """Add one game (ICCS ``moves`` from ``fen``, default the start; a janggi game
        from any of the sixteen arrangements counts as from the start; ``headers``: PGN
        tags, ``Result`` among them) to ``source`` (created for ``variant`` when new), as
        a game ends on a server: one transaction, counted at once. ``origin`` names the
        game (its id): a game is told from others by it alone, and one already added is
        not added again (returns ``False``). Raises :class:`ExplorerError` for a game that
        does not replay or of another game than the source's."""
        spec = get_variant(variant)
        board = Board(fen, variant=spec)
        played: list[Move] = []
        try:
            for text in moves:
                played.append(board.push_iccs(text))
        except ChuhanError as error:
            raise ExplorerError(f"the game {origin!r} does not replay: {error}") from None
        board = Board(fen, variant=spec)
        kind = "game" if board.zobrist_hash() in _start_keys(spec) else "position"
        given = headers or {}
        if played:
            tags = tuple((tag, given.get(tag, "")) for tag in _TAGS)
            read = _replayed(board, played, origin, kind, "", tags)
        else:
            read = _RecordRead(origin, "a game without a move")
        self._begin_write()
        try:
            source_id, source_variant = self._source(source, spec)
            if source_variant.game != spec.game:
                raise ExplorerError(
                    f"the {source} source holds {source_variant.game} games, not {spec.game}"
                )
            label = f"{source} (games as they end)"
            row = self._db.one(
                "SELECT id FROM imports WHERE source = ? AND label = ?", (source_id, label)
            )
            if row is None:
                import_id = self._db.insert(
                    "INSERT INTO imports (source, label, digest, imported_at, files, games, "
                    "others, duplicates, refused) VALUES (?, ?, '', ?, 0, 0, 0, 0, 0)",
                    (source_id, label, _now()),
                )
            else:
                import_id = int(row[0])
            summary = ImportSummary(label=label, source=source)
            importer = _Importer(self._db, source_id, spec, import_id, summary, distinct=True)
            importer.add_file(CollectionFile(origin, b"-"), origin.encode(), _FileRead("", (read,)))
            importer.finish()
            self._db.execute(
                "UPDATE imports SET files = files + 1, games = games + ?, others = others + ?, "
                "duplicates = duplicates + ?, refused = refused + ? WHERE id = ?",
                (
                    summary.games,
                    summary.others,
                    summary.duplicates,
                    len(summary.refused),
                    import_id,
                ),
            )
            self._db.commit()
        except BaseException:
            self._db.rollback()
            raise
        return summary.duplicates == 0 and not summary.refused

    # -- questions ------------------------------------------------------------------------

    def lookup(
        self,
        board: Board,
        *,
        source: str = MASTERS,
        speeds: Iterable[str] | None = None,
        bands: Iterable[str] | None = None,
    ) -> PositionStats:
        """The moves played from ``board``'s position in the games of ``source``, most
        played first (moves of a stored row that are not legal on ``board``, which only a
        64-bit hash collision could give, are left out). A position no game reached has
        0 games and no moves; a source that does not exist yet is such an empty answer
        too. Raises :class:`ExplorerError` for a board of another game than the
        source's.

        ``source`` :data:`SITE` asks a server's own games of the board's game together
        (:func:`site_source`), of the ``speeds`` and rating ``bands`` given (default
        all)."""
        opening = position_opening(board)
        empty = PositionStats(board.fen(), source, 0, 0, 0, 0, None, (), 0, (), opening)
        columns = "move, games, red_wins, draws, black_wins, year_total, dated, top"
        if source == SITE:
            wanted_speeds = None if speeds is None else set(speeds)
            wanted_bands = None if bands is None else set(bands)
            prefix = f"{SITE}/{board.variant.game}/"
            ids = []
            for source_id, name in self._db.rows("SELECT id, name FROM sources"):
                parts = str(name).split("/")
                if not str(name).startswith(prefix) or len(parts) != 4:
                    continue
                if wanted_speeds is not None and parts[2] not in wanted_speeds:
                    continue
                if wanted_bands is not None and parts[3] not in wanted_bands:
                    continue
                ids.append(int(source_id))
            if not ids:
                return empty
            marks = ", ".join("?" * len(ids))
            rows = _summed(
                self._db.rows(
                    f"SELECT {columns} FROM positions WHERE source IN ({marks}) AND position = ?",
                    [*ids, position_key(board)],
                )
            )
        else:
            row = self._db.one("SELECT id, variant FROM sources WHERE name = ?", (source,))
            if row is None:
                if source == MASTERS and board.variant.game != "xiangqi":
                    raise ExplorerError(_wrong_game(source, "xiangqi", board))
                return empty
            source_id, variant = int(row[0]), str(row[1])
            if board.variant.game != variant:
                raise ExplorerError(_wrong_game(source, variant, board))
            rows = self._db.rows(
                f"SELECT {columns} FROM positions WHERE source = ? AND position = ?",
                (source_id, position_key(board)),
            )
        if not rows:
            return empty
        return position_stats(
            board, source, rows, self._games_of(" ".join(str(r[7]) for r in rows))
        )

    def _games_of(self, tokens: str) -> dict[int, GameSummary]:
        ids = sorted({int(token.split(":")[1]) for token in tokens.split()})
        if not ids:
            return {}
        marks = ", ".join("?" * len(ids))
        rows = self._db.rows(f"SELECT {_SUMMARY_COLUMNS} FROM games WHERE id IN ({marks})", ids)
        return {
            int(r[0]): GameSummary(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], None, r[9])
            for r in rows
        }

    def game(self, game_id: int) -> dict[str, Any]:
        """A game of the index by its id: its tags as stored, its kind, start FEN and ICCS
        moves. Raises :class:`ExplorerError` for an id that is not there."""
        names, rows = self._db.named(
            "SELECT games.*, sources.name AS source_name FROM games "
            "JOIN sources ON sources.id = games.source WHERE games.id = ?",
            (game_id,),
        )
        if not rows:
            raise ExplorerError(f"no game {game_id} in the explorer index")
        row = rows[0]
        found = {
            name: value
            for name, value in zip(names, row, strict=True)
            if name not in ("identity", "source")
        }
        found["source"] = found.pop("source_name")
        found["moves"] = found["moves"].split()
        opening = opening_of(found["ecco"] or found["found"])
        found["ecco_opening"] = None if opening is None else opening.to_json()
        return found

    def search(
        self,
        *,
        source: str = MASTERS,
        player: str = "",
        red: str = "",
        black: str = "",
        event: str = "",
        years: tuple[int, int] | None = None,
        result: str = "",
        ecco: str = "",
        board: Board | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> SearchResult:
        """The games of ``source`` that match every criterion given, most recent first:
        ``player`` (either side), ``red``, ``black`` and ``event`` as parts of the names
        in any script or width (:func:`~chuhan.explorer.text.search_key`: 杨官璘 finds
        楊官璘), ``years`` from and to (inclusive), ``result`` (``1-0``, ``0-1``,
        ``1/2-1/2``), ``ecco`` a code or its start (``C7`` is ``C70``-``C79``; the game's
        tag, else the code the classifier found) and ``board``, a position every game
        listed reached (its ``ply`` says where). Only games (counted in the explorer)
        are searched. Raises :class:`ExplorerError` for a criterion that cannot be one."""
        if not 1 <= limit <= 500:
            raise ExplorerError(f"a search lists 1 to 500 games at a time, not {limit}")
        if offset < 0:
            raise ExplorerError(f"a search's offset cannot be negative ({offset})")
        found_source = self._db.one("SELECT id, variant FROM sources WHERE name = ?", (source,))
        if found_source is None:
            return SearchResult(0, ())
        source_id = int(found_source[0])
        where = ["games.source = ?", "games.kind = 'game'"]
        values: list[Any] = [source_id]
        joins = ""
        ply = "NULL"
        for text, columns in (
            (player, ("red_key", "black_key")),
            (red, ("red_key",)),
            (black, ("black_key",)),
            (event, ("event_key",)),
        ):
            key = search_key(text)
            if not key:
                continue
            pattern = "%" + key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            where.append(
                "(" + " OR ".join(f"games.{column} LIKE ? ESCAPE '\\'" for column in columns) + ")"
            )
            values.extend([pattern] * len(columns))
        if years is not None:
            first, last = years
            if first > last:
                raise ExplorerError(f"the years {first}-{last} run backwards")
            where.append("games.year BETWEEN ? AND ?")
            values.extend([first, last])
        if result:
            normal = normalize_result(result)
            if normal == "*" and result.strip() != "*":
                raise ExplorerError(f"{result!r} is not a result: 1-0, 0-1 or 1/2-1/2")
            where.append("games.result = ?")
            values.append(normal)
        if ecco:
            code = normalize_tag(ecco).upper()
            if not _ECCO_PREFIX.fullmatch(code):
                raise ExplorerError(
                    f"{ecco!r} is not an ECCO code or its start (a letter A-E, then up to "
                    "two digits: C, C7, C70)"
                )
            where.append("(CASE WHEN games.ecco != '' THEN games.ecco ELSE games.found END) LIKE ?")
            values.append(code + "%")
        if board is not None:
            variant = str(found_source[1])
            if board.variant.game != variant:
                raise ExplorerError(_wrong_game(source, variant, board))
            joins = "JOIN reached ON reached.game = games.id AND reached.position = ?"
            values.insert(0, position_key(board))
            ply = "reached.ply"
        condition = " AND ".join(where)
        counted = self._db.one(f"SELECT count(*) FROM games {joins} WHERE {condition}", values)
        total = int(counted[0]) if counted is not None else 0
        rows = self._db.rows(
            f"SELECT {_SUMMARY_COLUMNS.replace('id, ', 'games.id, ', 1)}, {ply} FROM games "
            f"{joins} WHERE {condition} ORDER BY games.date DESC, games.id DESC "
            "LIMIT ? OFFSET ?",
            [*values, limit, offset],
        )
        listed = tuple(
            GameSummary(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[10], r[9])
            for r in rows
        )
        return SearchResult(total, listed)

    def site_games(self) -> Iterator[dict[str, Any]]:
        """The server's own games this index holds (its ``site/...`` sources, games from
        the start only), in the order added: each game's ``origin`` (its id on the
        server), ``source``, ``fen``, ``moves`` (ICCS), ``red``, ``black``, ``date`` and
        ``result`` (for moving them into a server's database)."""
        rows = self._db.rows(
            "SELECT games.origin, sources.name, games.fen, games.moves, games.red, "
            "games.black, games.date, games.result FROM games "
            "JOIN sources ON sources.id = games.source "
            "WHERE sources.name LIKE 'site/%' AND games.kind = 'game' ORDER BY games.id"
        )
        for origin, source, fen, moves, red, black, date, result in rows:
            yield {
                "origin": str(origin),
                "source": str(source),
                "fen": str(fen),
                "moves": str(moves).split(),
                "red": str(red),
                "black": str(black),
                "date": str(date),
                "result": str(result),
            }

    def counts(self, source: str = MASTERS) -> dict[str, int]:
        """How many records of each kind ``source`` holds."""
        rows = self._db.rows(
            "SELECT kind, count(*) FROM games JOIN sources ON sources.id = games.source "
            "WHERE sources.name = ? GROUP BY kind",
            (source,),
        )
        return {str(kind): int(count) for kind, count in rows}


def position_stats(
    board: Board,
    source: str,
    rows: Iterable[tuple[int, int, int, int, int, int, int, str]],
    games: dict[int, GameSummary],
) -> PositionStats:
    """The explorer's answer for ``board`` from its stored ``rows`` (each ``(move code,
    games, red_wins, draws, black_wins, year_total, dated, top)``, one per move, the game's
    end as :data:`GAME_ENDED`) and the ``games`` their top lists name (by id): the one
    reading of the counts, whichever store holds them (this index, or a server's
    database). A move that is not legal on ``board`` (only a 64-bit hash collision could
    give one) is left out."""
    rows = list(rows)
    moves: list[MoveStats] = []
    ended = 0
    totals = [0, 0, 0, 0, 0, 0]
    for code, count, red, draws, black, year_total, dated, top in rows:
        if code == GAME_ENDED:
            ended = count
        else:
            move = Move(code >> 7, code & 127)
            if not board.is_legal(move):
                continue
            moves.append(
                MoveStats(
                    move=move,
                    iccs=move.iccs(),
                    wxf=format_move(board, move, "wxf"),
                    chinese=format_move(board, move, "chinese"),
                    games=count,
                    red_wins=red,
                    draws=draws,
                    black_wins=black,
                    average_year=_average(year_total, dated),
                    top_games=_listed(top, games),
                )
            )
        for place, value in enumerate((count, red, draws, black, year_total, dated)):
            totals[place] += value
    moves.sort(key=lambda stats: (-stats.games, stats.iccs))
    return PositionStats(
        fen=board.fen(),
        source=source,
        games=totals[0],
        red_wins=totals[1],
        draws=totals[2],
        black_wins=totals[3],
        average_year=_average(totals[4], totals[5]),
        moves=tuple(moves),
        ended=ended,
        top_games=_listed(merge_top(" ".join(str(r[7]) for r in rows), ""), games),
        opening=position_opening(board),
    )


def top_game_ids(tops: Iterable[str]) -> list[int]:
    """The ids of the games the top lists ``tops`` name, in order, once each."""
    return sorted({int(token.split(":")[1]) for top in tops for token in str(top).split()})


@dataclass(frozen=True)
class GamePositions:
    """What a game adds to the explorer's counts: each position it passed with the move
    played from it and the ply (once per game), its final position, its length and, for
    a xiangqi game, the ECCO code the classifier finds (``found``; else empty)."""

    passed: tuple[tuple[int, int, int], ...]
    ended: int
    plies: int
    found: str


def game_positions(
    moves: Iterable[str], *, variant: Variant | str = "xiangqi", fen: str | None = None
) -> GamePositions:
    """The positions of a game of ICCS ``moves`` from ``fen`` (default the start) as the
    index counts them (:meth:`Explorer.add_game`). Raises :class:`ExplorerError` for moves
    that do not replay."""
    spec = get_variant(variant)
    board = Board(fen, variant=spec)
    played: list[Move] = []
    try:
        for text in moves:
            played.append(board.push_iccs(text))
    except ChuhanError as error:
        raise ExplorerError(f"the moves do not replay: {error}") from None
    read = _replayed(Board(fen, variant=spec), played, "", "game", "", ())
    assert read.ended is not None
    found = ""
    if spec.game == "xiangqi":
        keys = [key for key, _, ply in read.passed if ply <= DEPTH]
        if read.plies <= DEPTH:
            keys.append(read.ended)
        found = classify_keys(ecco_table(), keys)
    return GamePositions(read.passed, read.ended, read.plies, found)


def is_from_start(board: Board) -> bool:
    """Whether ``board`` is a start position of its game (janggi's sixteen arrangements
    included): only games from the start are counted."""
    return board.zobrist_hash() in _start_keys(board.variant)


#: A game's columns as :class:`GameSummary` takes them (its tag's ECCO code, else the one
#: found).
_SUMMARY_COLUMNS = (
    "id, red, black, event, date, year, result, "
    "CASE WHEN ecco != '' THEN ecco ELSE found END, opening, origin"
)


def position_opening(board: Board) -> EccoOpening | None:
    """The ECCO opening the classifier's table gives ``board``'s position itself (a xiangqi
    position among the masters' openings), else ``None``."""
    if board.variant.game != "xiangqi":
        return None
    code = ecco_table().get(position_key(board))
    return None if code is None else opening_of(code)


def _wrong_game(source: str, variant: str, board: Board) -> str:
    return (
        f"the {source} source holds {variant} games; a {board.variant.game} position "
        f"({board.fen()}) is not among them"
    )


def _listed(top: str, games: dict[int, GameSummary]) -> tuple[GameSummary, ...]:
    listed: list[GameSummary] = []
    for token in top.split():
        _, game_id, ply = token.split(":")
        game = games.get(int(game_id))
        if game is not None and all(other.id != game.id for other in listed):
            listed.append(
                GameSummary(
                    game.id,
                    game.red,
                    game.black,
                    game.event,
                    game.date,
                    game.year,
                    game.result,
                    game.ecco,
                    game.opening,
                    int(ply),
                    game.origin,
                )
            )
    return tuple(listed)


@dataclass(frozen=True, slots=True)
class _RecordRead:
    """A record as a reading worker gives it to the import (plain values: it crosses a
    process boundary): the refusal's reason, or the record's tags, start, moves and,
    for a game from the start, the positions it passed, each with the move played from it
    and the ply (once per game) and its final position."""

    origin: str
    refusal: str = ""
    kind: str = ""
    opening: str = ""
    headers: tuple[tuple[str, str], ...] = ()
    fen: str = ""
    iccs: str = ""
    plies: int = 0
    passed: tuple[tuple[int, int, int], ...] = ()
    ended: int | None = None


@dataclass(frozen=True, slots=True)
class _FileRead:
    """A file's records as read, or the reason it has none."""

    refusal: str
    records: tuple[_RecordRead, ...]


#: The tags the index keeps of a record.
_TAGS = ("Red", "Black", "Result", "Date", "ECCO", "Event", "Site")


def _read_file(name: str, data: bytes, game: str, encoding: str | None) -> _FileRead:
    """Read one file's records (what a reading worker does: parsing the moves, which checks
    each is legal, is most of an import's work) into plain values."""
    if encoding is not None:
        # Given as UTF-8, whose check is cheap, rather than as the encoding: the reader
        # would tell the encoding of the file's start again to tell its format. A file
        # not in the encoding given is left to the reader to tell.
        with contextlib.suppress(UnicodeDecodeError, LookupError):
            data = data.decode(encoding).encode("utf-8")
    try:
        records = list(iter_data(data, name))
    except ChuhanError as error:
        return _FileRead(str(error), ())
    if not records:
        return _FileRead("no game in it", ())
    start_key = Board(variant=get_variant(game)).zobrist_hash()
    folder_kind, opening = kind_of(name)
    read: list[_RecordRead] = []
    for index, record in enumerate(records):
        origin = name if len(records) == 1 else f"{name}, game {index + 1}"
        read.append(_read_record(record, origin, game, start_key, folder_kind, opening))
    return _FileRead("", tuple(read))


def _read_record(
    record: GameRecord,
    origin: str,
    game: str,
    start_key: int,
    folder_kind: str | None,
    opening: str,
) -> _RecordRead:
    errors = [error for error in record.errors if not isinstance(error, VariationError)]
    if errors:
        return _RecordRead(origin, str(errors[0]))
    if record.variant.game != game:
        return _RecordRead(origin, f"a {record.variant.game} game; this source holds {game}")
    try:
        board = record.start_board()
    except ChuhanError as error:
        return _RecordRead(origin, f"its start position does not read: {error}")
    moves = record.main_line_moves()
    kind = folder_kind or "game"
    if kind == "game" and board.zobrist_hash() != start_key:
        kind = "position"  # a fragment (or a handicap game): its positions are not openings
    if not moves and kind in ("game", "computer"):
        return _RecordRead(origin, "a game without a move")
    headers = tuple((tag, record.headers.get(tag, "")) for tag in _TAGS)
    return _replayed(board, moves, origin, kind, opening, headers)


def _replayed(
    board: Board,
    moves: list[Move],
    origin: str,
    kind: str,
    opening: str,
    headers: tuple[tuple[str, str], ...],
) -> _RecordRead:
    """A record's moves (legal: checked as they were read) replayed from ``board`` by their
    codes, with the positions a game passed."""
    fen = board.fen()
    iccs = " ".join(move.iccs() for move in moves)
    passed: list[tuple[int, int, int]] = []
    ended = None
    if kind == "game":
        # The moves were checked as the record was read: replayed here by their codes.
        seen: set[tuple[int, int]] = set()
        for ply, move in enumerate(moves):
            code = move.from_square << 7 | move.to_square
            key = position_key(board)
            if (key, code) not in seen:
                seen.add((key, code))
                passed.append((key, code, ply))
            board.push_code(code)
        ended = position_key(board)
    return _RecordRead(
        origin, "", kind, opening, headers, fen, iccs, len(moves), tuple(passed), ended
    )


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # (not on every system)
        return os.cpu_count() or 1


def _read_into(
    importer: _Importer,
    files: Iterable[CollectionFile],
    game: str,
    encoding: str | None,
    workers: int | None,
    progress: Callable[[ImportSummary], None] | None,
) -> None:
    """Read ``files`` and add their records to ``importer``, in order: the first batch
    here, the rest by ``workers`` processes (several batches ahead) when there are more.
    A text already read (by its digest) is not read again."""
    wanted = min(READ_WORKERS, _cpus()) if workers is None else max(1, workers)
    seen: set[bytes] = set()
    Jobs = list[tuple[str, bytes]]
    window: deque[tuple[list[tuple[CollectionFile, bytes, bool]], Jobs, Any]] = deque()
    pool: ProcessPoolExecutor | None = None
    broken = False

    def add(batch: list[tuple[CollectionFile, bytes, bool]], reads: list[_FileRead]) -> None:
        given = iter(reads)
        for file, digest, new in batch:
            importer.add_file(file, digest, next(given) if new else None)
            if progress is not None:
                progress(importer.summary)

    def drain(ahead: int) -> None:
        nonlocal broken
        while len(window) > ahead:
            batch, jobs, reads = window.popleft()
            if isinstance(reads, Future):
                try:
                    reads = reads.result()
                except BrokenProcessPool:
                    # A worker could not start or died (a script that starts an import
                    # without ``if __name__ == "__main__"`` cannot be run again by one):
                    # the rest is read here.
                    broken = True
                    reads = _read_files(jobs, game, encoding)
            add(batch, reads)

    try:
        for number, batch in enumerate(_batches(files, seen)):
            jobs = [(file.name, file.data) for file, _, new in batch if new]
            if pool is None and number > 0 and wanted > 1:
                pool = ProcessPoolExecutor(wanted, mp_context=get_context("spawn"))
            if pool is None or broken:
                window.append((batch, jobs, _read_files(jobs, game, encoding)))
            else:
                window.append((batch, jobs, pool.submit(_read_files, jobs, game, encoding)))
            drain(2 * wanted if pool is not None and not broken else 0)
        drain(0)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _batches(
    files: Iterable[CollectionFile], seen: set[bytes]
) -> Iterator[list[tuple[CollectionFile, bytes, bool]]]:
    """The files in batches of :data:`_READ_BATCH`, each with its text's digest and
    whether the text is new (to be read)."""
    batch: list[tuple[CollectionFile, bytes, bool]] = []
    for file in files:
        digest = hashlib.blake2b(file.data, digest_size=16).digest()
        new = not file.error and digest not in seen
        if new:
            seen.add(digest)
        batch.append((file, digest, new))
        if len(batch) >= _READ_BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def _read_files(batch: list[tuple[str, bytes]], game: str, encoding: str | None) -> list[_FileRead]:
    """Read a batch of files (a reading worker's job)."""
    return [_read_file(name, data, game, encoding) for name, data in batch]


class _Importer:
    """One import's work inside its transaction: each file's records (read by
    :func:`_read_file`, in worker processes or here) told from duplicates, stored, and
    their positions counted here, by (position, move), then merged into the index's rows
    (:meth:`merge`: at the end, and whenever :data:`_MERGE_ROWS` are counted, so that
    an import's memory is bounded)."""

    def __init__(
        self,
        db: IndexConnection,
        source_id: int,
        variant: Variant,
        import_id: int,
        summary: ImportSummary,
        *,
        distinct: bool = False,
    ) -> None:
        self.db = db
        #: Games told apart by their origin alone (a server's games), not by their moves.
        self.distinct = distinct
        self.source_id = source_id
        self.variant = variant
        self.import_id = import_id
        self.summary = summary
        # The games each file's text gave, by the text's digest: a file whose bytes were
        # seen already (the dataset's copies) is not read again.
        self.texts: dict[bytes, tuple[list[int], list[str]]] = {}
        #: The counts to add, by (position, move): games, Red's wins, draws, Black's wins,
        #: the sum and count of the years, and the most recent games' tokens (unordered).
        self.counts: dict[tuple[int, int], list[Any]] = {}
        self.reached: list[tuple[int, int, int]] = []
        #: Whether the source has rows of counts already (merged with, not just added).
        self.merging = (
            db.one("SELECT 1 FROM positions WHERE source = ? LIMIT 1", (source_id,)) is not None
        )

    def refuse(self, origin: str, reason: str) -> None:
        self.summary.refused.append(Refusal(origin, reason))
        self.db.execute(
            "INSERT INTO refusals (import, origin, reason) VALUES (?, ?, ?)",
            (self.import_id, origin, reason),
        )

    def add_file(self, file: CollectionFile, digest: bytes, read: _FileRead | None) -> None:
        """Add a file's records: ``read`` as read, or ``None`` for a file that could not be
        read (its ``error``) or whose text (``digest``) was read before."""
        self.summary.files += 1
        if file.error:
            self.refuse(file.name, file.error)
            return
        known = self.texts.get(digest)
        if known is not None:
            for game_id in known[0]:
                self.add_copy(game_id, file.name)
            for reason in known[1]:
                self.refuse(file.name, reason)
            return
        assert read is not None
        refused = len(self.summary.refused)
        added: list[int] = []
        if read.refusal:
            self.refuse(file.name, read.refusal)
        for record in read.records:
            kept = self.add_record(record, file.name)
            if kept is not None:
                added.append(kept)
        self.texts[digest] = (added, [r.reason for r in self.summary.refused[refused:]])

    def add_copy(self, game_id: int, name: str) -> None:
        """A duplicate of game ``game_id`` found in file ``name``: counted, and what the
        first copy lacks filled in from the file's folder."""
        self.summary.duplicates += 1
        _, opening = kind_of(name)
        self.db.execute(
            "UPDATE games SET copies = copies + 1, "
            "opening = CASE WHEN opening = '' THEN ? ELSE opening END WHERE id = ?",
            (opening, game_id),
        )

    def add_record(self, record: _RecordRead, name: str) -> int | None:
        """Add one record (or count it as a duplicate); its game's id, or ``None`` when
        it is refused."""
        if record.refusal:
            self.refuse(record.origin, record.refusal)
            return None
        headers = dict(record.headers)
        red = normalize_tag(headers["Red"])
        black = normalize_tag(headers["Black"])
        result = normalize_result(headers["Result"] or "*")
        date = normalize_date(headers["Date"])
        ecco = normalize_ecco(headers["ECCO"])
        start = " ".join(record.fen.split()[:2])
        red_key, black_key = search_key(red), search_key(black)
        parts = [start, record.iccs, result]
        if self.distinct:
            parts = ["origin", record.origin]
        elif record.plies < UNIQUE_PLIES:
            parts += [red_key.replace(" ", ""), black_key.replace(" ", "")]
        identity = hashlib.blake2b("\n".join(parts).encode(), digest_size=16).digest()
        row = self.db.one(
            "SELECT id FROM games WHERE source = ? AND identity = ?", (self.source_id, identity)
        )
        if row is not None:
            game_id = int(row[0])
            self.add_copy(game_id, name)
            self.db.execute(
                "UPDATE games SET ecco = CASE WHEN ecco = '' THEN ? ELSE ecco END WHERE id = ?",
                (ecco, game_id),
            )
            return game_id
        event = normalize_tag(headers["Event"])
        year = year_of(date)
        found = ""
        if record.kind == "game" and self.variant.game == "xiangqi":
            keys = [key for key, _, ply in record.passed if ply <= DEPTH]
            if record.plies <= DEPTH and record.ended is not None:
                keys.append(record.ended)
            found = classify_keys(ecco_table(), keys)
        new_id = self.db.insert(
            "INSERT INTO games (source, kind, identity, fen, moves, plies, red, black, event, "
            "site, date, year, result, ecco, found, opening, red_key, black_key, event_key, "
            "origin, import) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                self.source_id,
                record.kind,
                identity,
                record.fen,
                record.iccs,
                record.plies,
                red,
                black,
                event,
                normalize_tag(headers["Site"]),
                date,
                year,
                result,
                ecco,
                found,
                record.opening,
                red_key,
                black_key,
                search_key(event),
                record.origin,
                self.import_id,
            ),
        )
        if record.kind == "game":
            self.summary.games += 1
            self.stage(record, new_id, RESULT_CODES[result], date, year)
        else:
            self.summary.others += 1
        return new_id

    def stage(
        self, record: _RecordRead, game_id: int, outcome: int | None, date: str, year: int | None
    ) -> None:
        """Count the positions of one game: each position with the move played from it
        (once per game, should the game pass it again) and the final one."""
        counts = self.counts
        found = counts.get
        red, draw, black = int(outcome == 1), int(outcome == 0), int(outcome == 2)
        year_total, dated = (0, 0) if year is None else (year, 1)
        first: dict[int, int] = {}
        ends = ((record.ended, GAME_ENDED, record.plies),) if record.ended is not None else ()
        game = top_token(date, game_id, 0)[:-1]  # (the game's tokens but for their ply)
        for passed in (record.passed, ends):
            for key, code, ply in passed:
                row = found((key, code))
                if row is None:
                    counts[key, code] = [1, red, draw, black, year_total, dated, [f"{game}{ply}"]]
                else:
                    row[0] += 1
                    row[1] += red
                    row[2] += draw
                    row[3] += black
                    row[4] += year_total
                    row[5] += dated
                    top: list[str] = row[6]
                    token = f"{game}{ply}"
                    if len(top) < TOP_GAMES:
                        top.append(token)
                    else:
                        oldest = min(top)
                        if token > oldest:
                            top[top.index(oldest)] = token
                if key not in first:
                    first[key] = ply
        self.reached.extend((key, game_id, ply) for key, ply in first.items())
        if len(self.reached) >= _STAGE_BATCH:
            self.db.copy("reached", ("position", "game", "ply"), self.reached)
            self.reached.clear()
        if len(counts) >= _MERGE_ROWS:
            self.merge()

    def merge(self) -> None:
        """Add the counts so far to the index's rows (those the source has already are
        read, added to, and written back)."""
        counts = self.counts
        if self.merging:
            # The rows already there of the positions counted, read in one join with a
            # temporary table of their keys (not one question per position: thousands of
            # round trips to a PostgreSQL server).
            self.db.execute(
                "CREATE TEMPORARY TABLE IF NOT EXISTS merged_positions "
                f"(position {self.db.words['int']} PRIMARY KEY)"
            )
            self.db.execute("DELETE FROM merged_positions")
            keys = sorted({position for position, _ in counts})
            self.db.copy("merged_positions", ("position",), ((key,) for key in keys))
            for position, move, *stored, top in self.db.rows(
                "SELECT positions.position, move, games, red_wins, draws, black_wins, "
                "year_total, dated, top FROM merged_positions JOIN positions "
                "ON positions.source = ? AND positions.position = merged_positions.position",
                (self.source_id,),
            ):
                row = counts.get((position, move))
                if row is not None:
                    for place, value in enumerate(stored):
                        row[place] += value
                    row[6] = _best_tokens([*row[6], *str(top).split()])
        source_id = self.source_id

        def rows() -> Iterator[tuple[Any, ...]]:
            # (in the key's order, the table's: its pages are filled in turn)
            for (key, code), (games, red, draws, black, year_total, dated, top) in sorted(
                counts.items()
            ):
                if len(top) > 1:
                    top.sort(reverse=True)
                yield (
                    source_id,
                    key,
                    code,
                    games,
                    red,
                    draws,
                    black,
                    year_total,
                    dated,
                    " ".join(top),
                )

        self.db.copy("positions", _POSITION_COLUMNS, rows(), _MERGED if self.merging else "")
        counts.clear()
        self.merging = True

    def finish(self) -> None:
        """Add what is left of the counts to the index's rows."""
        if self.reached:
            self.db.copy("reached", ("position", "game", "ply"), self.reached)
            self.reached.clear()
        if self.counts:
            self.merge()


#: The columns of a row of counts.
_POSITION_COLUMNS = (
    "source",
    "position",
    "move",
    "games",
    "red_wins",
    "draws",
    "black_wins",
    "year_total",
    "dated",
    "top",
)
#: A row of counts written over the one it was merged with.
_MERGED = "ON CONFLICT (source, position, move) DO UPDATE SET " + ", ".join(
    f"{column} = excluded.{column}" for column in _POSITION_COLUMNS[3:]
)
