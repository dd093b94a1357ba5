"""Sphinx's settings for chuhan's API reference (``make docs``: docs/api -> build/docs)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The sources, as the tests import them; pure Python, so that autodoc reads the signatures
# (a module compiled by mypyc keeps its docstrings but not its functions' signatures).
sys.path.insert(0, str(ROOT / "src"))
os.environ["CHUHAN_PURE"] = "1"

import chuhan  # noqa: E402


def _tour() -> str:
    """README.md's "The library in five minutes", in reStructuredText: the tour page is
    made from the README at every build, so the two never differ."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("## The library in five minutes")
    end = lines.index("## The referee and records")
    out = ["The library in five minutes", "============================", ""]
    out += [".. Made from README.md by docs/api/conf.py at every build: edit the README.", ""]
    code = False
    for line in lines[start + 1 : end]:
        if line.startswith("```"):
            if not code:
                out += [f".. code-block:: {line[3:].strip() or 'text'}", ""]
            else:
                out.append("")
            code = not code
        elif code:
            out.append(f"    {line}" if line else "")
        elif image := re.match(r"!\[(.*)\]\((.*)\)", line):
            path = image.group(2).removeprefix("docs/")
            out += [f".. image:: ../{path}", f"   :alt: {image.group(1)}", ""]
        else:  # Markdown's `code` is reStructuredText's ``code``
            out.append(re.sub(r"(?<!`)`([^`]+)`(?!`)", r"``\1``", line))
    return "\n".join(out).rstrip() + "\n"


_TOUR = Path(__file__).with_name("tour.rst")
if not _TOUR.exists() or _TOUR.read_text(encoding="utf-8") != _tour():
    _TOUR.write_text(_tour(), encoding="utf-8")  # unchanged: Sphinx need not read it again

project = "chuhan"
author = "The chuhan developers"
copyright = "The chuhan developers, MIT licence"
release = chuhan.__version__
version = release

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.viewcode"]
# The docstrings are reStructuredText with Sphinx's roles (:class:`Board`, :data:`BUILD`);
# a few use Google-style "Args:"/"Returns:" sections, which napoleon reads.
napoleon_google_docstring = True
napoleon_numpy_docstring = False
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
# The optional dependencies of the record readers need not be installed to build this.
autodoc_mock_imports = ["charset_normalizer"]
# Types named in signatures that Sphinx cannot link (the standard library's, aliases) are not
# errors: -W turns every warning into one, and these would be noise.
nitpicky = False
suppress_warnings = ["ref.python"]

templates_path: list[str] = []
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_title = f"chuhan {release}"
