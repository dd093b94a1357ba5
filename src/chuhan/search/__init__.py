"""chuhan's own engine: search, evaluation, time management and the UCI/UCCI front end.

>>> from chuhan import Board
>>> from chuhan.search import Limits, Searcher
>>> result = Searcher().search(Board(), Limits(depth=3))
>>> result.best is not None
True

(To drive an external engine, see :mod:`chuhan.engine`.)
"""

from chuhan.search.levels import LEVELS
from chuhan.search.limits import Limits, SearchControl, SearchInfo, SearchResult
from chuhan.search.search import Searcher

__all__ = ["LEVELS", "Limits", "SearchControl", "SearchInfo", "SearchResult", "Searcher"]
