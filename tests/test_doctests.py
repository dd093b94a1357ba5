"""The examples in the docstrings of the python-chess-like API run as tests (pyproject's
pytest options do not collect doctests from the sources).

A module compiled by mypyc keeps no docstrings doctest can find, so its examples are read
from its ``.py`` source, loaded beside it as a module of its own; they import from
``chuhan`` and so run against the build in use."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

MODULES = [
    "chuhan.board",
    "chuhan.book",
    "chuhan.engine",
    "chuhan.explorer",
    "chuhan.explorer.ecco",
    "chuhan.explorer.files",
    "chuhan.explorer.index",
    "chuhan.explorer.text",
    "chuhan.records.game",
    "chuhan.piece",
    "chuhan.squareset",
]


def _with_docstrings(module: ModuleType) -> ModuleType:
    path = Path(module.__file__ or "")
    if path.suffix == ".py":
        return module
    source = path.parent / (module.__name__.rsplit(".", 1)[-1] + ".py")
    spec = importlib.util.spec_from_file_location(f"{module.__name__}_source", source)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = _with_docstrings(importlib.import_module(name))
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 0, f"no examples found in {name}"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
