"""The opening explorer and the master-game database: for any position, reached by any
move order, the moves masters played from it, with the number of games, Red's wins, the
draws, Black's wins, the average year and the most recent games.

The masters are the Chinese Chess Practical Dataset (CCPD) by Yu-Han Tseng (CC BY 4.0),
shipped with chuhan as ``data/ccpd.tar.xz`` (see the NOTICE file): :meth:`Explorer.lookup`
builds the index from it on first use, once, into the user data folder
(:func:`default_index_path`). :meth:`Explorer.import_collection` adds any other collection
of records (PGN, XQF, GIB, DhtmlXQ, CBF; a file, a folder or an archive) in one
transaction, refusing the records it cannot take with a reason each.

>>> from chuhan import Board
>>> with Explorer(":memory:") as explorer:
...     stats = explorer.lookup(Board())
>>> stats.games, stats.moves
(0, ())

The index (:mod:`chuhan.explorer.index`) is a SQLite file (the standard library's), or a
PostgreSQL database given by its address (:mod:`chuhan.explorer.stores`); the search
keys of names (:mod:`chuhan.explorer.text`) ignore traditional or simplified characters
and full or half width. Nothing here imports the web app.
"""

from chuhan.explorer.ecco import EccoOpening, classify, classify_moves, opening_of
from chuhan.explorer.files import KINDS, CollectionError, CollectionFile, iter_collection, kind_of
from chuhan.explorer.index import (
    GAME_ENDED,
    MASTERS,
    READ_WORKERS,
    SCHEMA_VERSION,
    SITE,
    TOP_GAMES,
    UNIQUE_PLIES,
    Explorer,
    ExplorerError,
    GamePositions,
    GameSummary,
    ImportSummary,
    MoveStats,
    PositionStats,
    Refusal,
    SearchResult,
    default_index_path,
    game_positions,
    is_from_start,
    merge_top,
    position_key,
    position_opening,
    position_stats,
    site_index_path,
    site_source,
    top_game_ids,
    top_token,
)
from chuhan.explorer.masters import MASTERS_ARCHIVE, masters_digest, open_masters
from chuhan.explorer.stores import is_index_url
from chuhan.explorer.text import normalize_date, normalize_ecco, normalize_result, search_key

__all__ = [
    "GAME_ENDED",
    "KINDS",
    "MASTERS",
    "MASTERS_ARCHIVE",
    "READ_WORKERS",
    "SCHEMA_VERSION",
    "SITE",
    "TOP_GAMES",
    "UNIQUE_PLIES",
    "CollectionError",
    "CollectionFile",
    "EccoOpening",
    "Explorer",
    "ExplorerError",
    "GamePositions",
    "GameSummary",
    "ImportSummary",
    "MoveStats",
    "PositionStats",
    "Refusal",
    "SearchResult",
    "classify",
    "classify_moves",
    "default_index_path",
    "game_positions",
    "is_from_start",
    "is_index_url",
    "iter_collection",
    "kind_of",
    "masters_digest",
    "merge_top",
    "normalize_date",
    "normalize_ecco",
    "normalize_result",
    "open_masters",
    "opening_of",
    "position_key",
    "position_opening",
    "position_stats",
    "search_key",
    "site_index_path",
    "site_source",
    "top_game_ids",
    "top_token",
]
