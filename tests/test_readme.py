"""The README's library tour runs as it stands: every ``python`` block of its section "The
library in five minutes" (and the sections under it, up to the next section) is one
doctest, run in order in one namespace, as a notebook of it would run."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
SECTION = "## The library in five minutes"


def tour() -> str:
    """The section's python blocks, one after the other."""
    text = README.read_text(encoding="utf-8")
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    section = text[start : end if end >= 0 else len(text)]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert blocks, "the tour has no python blocks"
    return "\n".join(blocks)


def test_the_readme_tour_runs_as_doctests() -> None:
    text = tour()
    assert text.count(">>> ") >= 30  # (the tour is written as doctests, not as comments)
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {}, "README tour", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.failed == 0, f"{results.failed} of {results.attempted} README examples failed"
