"""Which build of the rules and the engine runs: the modules compiled by mypyc, or pure Python.

The hot modules (:data:`COMPILED_MODULES`: the board, its move generator and tables, perft,
the search tree and its evaluation, the JSON texts the web server writes of every
position, and a live game's path: the clock, the referee, the notations, the round's state,
rules and rendering and the client frame's parser) can be compiled to C extensions by mypyc when the
package is built (``setup.py``; ``make`` does it, and so does ``pip install .`` where a C
compiler is found). The build writes :data:`MANIFEST` beside them: the SHA-256 of each
module's source as it was compiled. Compiled or not, every ``.py`` file stays where it was.

At import (``chuhan/__init__.py`` calls :func:`install` before anything else), the sources
are hashed and compared with the manifest. The compiled modules are used only if all of
them are there for this interpreter and every source is the one they were compiled from;
otherwise *all* of them load from their ``.py`` files: an edited module is never shadowed
by an old compiled copy, and compiled and interpreted halves of the engine never mix (a
compiled module calls its compiled neighbours directly, not through their Python names).
``CHUHAN_PURE=1`` in the environment asks for pure Python whatever is built.

:data:`BUILD` says which was chosen and why (``chuhan --version`` prints it).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

__all__ = ["BUILD", "COMPILED_MODULES", "GROUP", "MANIFEST", "Build", "install", "modules_in_use"]

#: The modules mypyc compiles, by their name under ``chuhan``: where the search and perft
#: spend their time, and where a move in the web server spent most of its. (Compiling
#: squares, variants and fen too gained 3 %, within the noise,
#: and would turn their parsers' errors for arguments of the wrong type into mypyc's
#: TypeError; errors, compiled, lost its exceptions' pickled attributes.)
COMPILED_MODULES = (
    "movegen",
    "board",
    "perft",
    "search.evaluate",
    "search.tree",
    "jsontext",
    "clock",
    "game",
    "notation.wxf",
    "notation.chinese",
    "web.round.state",
    "web.round.view",
    "web.round.rules",
    "web.sockets.protocol",
)
#: The shared library mypyc puts the compiled code of all of them in
#: (``chuhan/_native__mypyc.*.so``); each module's own extension is a small shim into it.
GROUP = "chuhan._native"
#: The build's record of what it compiled, beside this file.
MANIFEST = "_native.json"
#: Set (to anything but "" or "0") for pure Python whatever is built.
PURE_VARIABLE = "CHUHAN_PURE"

PACKAGE_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True, slots=True)
class Build:
    """Which build runs: ``compiled`` (mypyc's extensions) or not, and why."""

    compiled: bool
    reason: str

    def describe(self) -> str:
        """The build and why, as ``chuhan --version`` says it."""
        return f"{'compiled' if self.compiled else 'pure Python'} ({self.reason})"


def source_path(module: str, package_dir: Path = PACKAGE_DIR) -> Path:
    """The ``.py`` file of ``module`` (a name from :data:`COMPILED_MODULES`)."""
    return package_dir.joinpath(*module.split(".")).with_suffix(".py")


def source_digest(path: Path) -> str:
    """The SHA-256 of a source file, as the manifest records it."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def manifest(package_dir: Path = PACKAGE_DIR, **facts: str) -> dict[str, object]:
    """The manifest of a build of the sources in ``package_dir`` (written by ``setup.py``
    once the compiled modules are built): each module's source digest, and ``facts``."""
    digests = {m: source_digest(source_path(m, package_dir)) for m in COMPILED_MODULES}
    return {"modules": digests, **facts}


def _extension(name: str, package_dir: Path) -> Path | None:
    """This interpreter's extension file of ``name`` (dotted, under ``chuhan``), if any."""
    stem = package_dir.joinpath(*name.split("."))
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = stem.with_name(stem.name + suffix)
        if candidate.is_file():
            return candidate
    return None


def choose(package_dir: Path = PACKAGE_DIR, environ: dict[str, str] | None = None) -> Build:
    """Decide whether the compiled modules in ``package_dir`` may be used (see the module
    docstring)."""
    env = os.environ if environ is None else environ
    if env.get(PURE_VARIABLE, "") not in ("", "0"):
        return Build(False, f"{PURE_VARIABLE} is set")
    try:
        record = json.loads((package_dir / MANIFEST).read_text(encoding="utf-8"))
        digests = record["modules"]
    except FileNotFoundError:
        return Build(False, "no compiled modules were built")
    except (OSError, ValueError, KeyError, TypeError) as error:
        return Build(False, f"the build's manifest {MANIFEST} cannot be read ({error})")
    if not isinstance(digests, dict) or set(digests) != set(COMPILED_MODULES):
        return Build(False, "the compiled modules were built for another set of modules")
    for module in (GROUP.removeprefix("chuhan.") + "__mypyc", *COMPILED_MODULES):
        if _extension(module, package_dir) is None:
            return Build(False, f"no compiled chuhan.{module} for this Python")
    for module in COMPILED_MODULES:
        path = source_path(module, package_dir)
        try:
            digest = source_digest(path)
        except OSError as error:
            return Build(False, f"the source {path.name} cannot be read ({error})")
        if digest != digests[module]:
            relative = path.relative_to(package_dir.parent)
            return Build(False, f"{relative} changed since it was compiled (rebuild: make)")
    mypy = record.get("mypy", "?")
    return Build(True, f"mypyc {mypy}, sources unchanged since the build")


class _SourceFirst:
    """A meta path finder that loads chuhan's modules from their ``.py`` files, not from an
    extension beside them: all of them when the compiled build is not used, and otherwise
    every module outside it (an extension left by an older build that compiled more
    modules is never loaded)."""

    def __init__(self, compiled: frozenset[str]) -> None:
        self._compiled = compiled

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith("chuhan.") or fullname in self._compiled or path is None:
            return None
        name = fullname.rpartition(".")[2]
        for folder in path:
            source = Path(folder, name + ".py")
            if source.is_file():
                return importlib.util.spec_from_file_location(fullname, source)
        return None  # a package, or no such module: the usual finders say


def modules_in_use(modules: Sequence[str] = COMPILED_MODULES) -> dict[str, str]:
    """Of ``modules`` (names under ``chuhan``), those imported in this process, each with
    how it was loaded: ``"compiled"`` (its extension) or ``"source"`` (its ``.py`` file)."""
    loaded = {}
    for module in modules:
        imported = sys.modules.get(f"chuhan.{module}")
        if imported is not None:
            path = getattr(imported, "__file__", None) or ""
            compiled = path.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
            loaded[module] = "compiled" if compiled else "source"
    return loaded


def install() -> Build:
    """Choose the build and put the finder that loads the sources of the modules it does
    not compile first on the import path. Called by ``chuhan/__init__.py`` before it
    imports any other of chuhan's modules."""
    build = choose()
    compiled = frozenset(
        f"chuhan.{m}" for m in (*COMPILED_MODULES, GROUP.removeprefix("chuhan.") + "__mypyc")
    )
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _SourceFirst)]
    sys.meta_path.insert(0, _SourceFirst(compiled if build.compiled else frozenset()))
    return build


BUILD = install()
