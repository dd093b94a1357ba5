"""Exceptions raised by chuhan. All are ``ValueError`` subclasses, so callers that
only care about "bad input" can catch ``ValueError``."""

from __future__ import annotations


class ChuhanError(ValueError):
    """Base class of every error chuhan raises for bad input."""


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
