"""chuhan's own engine: search, evaluation, time management and the UCI/UCCI front end.

>>> from chuhan import Board
>>> from chuhan.search import SearchLimits, Searcher
>>> result = Searcher().search(Board(), SearchLimits(depth=3))
>>> result.best is not None
True

(To drive an external engine, see :mod:`chuhan.engine`.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chuhan.search.limits import SearchControl, SearchInfo, SearchLimits, SearchResult

if TYPE_CHECKING:
    from chuhan.search.levels import LEVELS
    from chuhan.search.search import Searcher

__all__ = [
    "LEVELS",
    "SearchControl",
    "SearchInfo",
    "SearchLimits",
    "SearchResult",
    "Searcher",
]


def __getattr__(name: str) -> object:
    # The search (and the referee it consults) loads on first use: the limits alone are
    # what chuhan.engine's driver and chuhan engine's handshake need.
    if name == "Searcher":
        from chuhan.search.search import Searcher

        return Searcher
    if name == "LEVELS":
        from chuhan.search.levels import LEVELS

        return LEVELS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
