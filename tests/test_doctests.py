"""The examples in the docstrings of the python-chess-like API run as tests (pyproject's
pytest options do not collect doctests from the sources)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "chuhan.board",
    "chuhan.engine",
    "chuhan.records.game",
    "chuhan.piece",
    "chuhan.squareset",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
