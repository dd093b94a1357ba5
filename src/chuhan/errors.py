"""Exceptions raised by chuhan, in two families (as python-chess's are).

Bad input is a ``ValueError``: :class:`ChuhanError` and its subclasses, so callers that
only care about "bad input" can catch ``ValueError``. A failing service (an external
engine, a store, a worker) is a ``RuntimeError``: :class:`ServiceError` and its
subclasses, so that such a failure is never reported as a bad move or a bad FEN."""

from __future__ import annotations


class ChuhanError(ValueError):
    """Base class of every error chuhan raises for bad input."""


class ServiceError(RuntimeError):
    """A service chuhan depends on failed: an external engine, a store, a worker."""


class InvalidFenError(ChuhanError):
    """A FEN that cannot describe a position (wrong shape, unknown letter, missing king...)."""


class InvalidMoveError(ChuhanError):
    """A move string that is not syntactically valid in the notation it was given in."""


class IllegalMoveError(ChuhanError):
    """A well-formed move that is not legal in the position it was played in."""


class AmbiguousMoveError(ChuhanError):
    """A move string (WXF, Chinese, Korean) that matches more than one legal move."""


class UnknownVariantError(ChuhanError):
    """An unknown variant or rule-set name."""
