"""The build of chuhan: pure Python, plus the hot modules compiled by mypyc where it can.

Everything but the compiled extensions is declared in pyproject.toml. What is compiled, and
how a running chuhan picks its build, is in ``src/chuhan/_native.py``. The compile is tried
when the package is built (``pip install .``, ``pip install -e .``, ``make``) and skipped,
leaving a pure-Python install that works the same, when:

- ``CHUHAN_PURE`` is set (to anything but "" or "0");
- mypy (which brings mypyc) cannot be imported;
- mypyc or the C compiler fails for any reason (no compiler, no Python headers, ...).

A successful compile writes ``chuhan/_native.json`` (each compiled module's source digest)
last, so a half-finished one is never taken for a build.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
PACKAGE = ROOT / "src" / "chuhan"


def _load_native():  # type: ignore[no-untyped-def]
    """chuhan._native, loaded from its file (importing chuhan itself would need its
    dependencies, and would pick a build)."""
    spec = importlib.util.spec_from_file_location("_chuhan_native", PACKAGE / "_native.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


native = _load_native()


def _say(message: str) -> None:
    print(f"chuhan build: {message}", file=sys.stderr, flush=True)


class BuildNative(build_ext):
    """build_ext that compiles the modules of chuhan._native.COMPILED_MODULES with mypyc,
    or leaves pure Python when it cannot."""

    #: The manifest to write once the extensions are built (None: pure Python).
    _record: dict[str, object] | None = None

    def finalize_options(self) -> None:
        # mypyc's extensions are made here, before setuptools prepares the extensions.
        self.distribution.ext_modules = self._extensions()
        super().finalize_options()

    def _extensions(self) -> list[Extension]:
        if os.environ.get(native.PURE_VARIABLE, "") not in ("", "0"):
            _say(f"{native.PURE_VARIABLE} is set: pure Python")
            return []
        try:
            import mypy.version
        except ImportError:
            _say("mypy (which brings mypyc) is not installed: pure Python")
            return []
        # The digests of the sources as they are compiled (taken first: an edit made while
        # the compiler runs must leave the build stale, not be recorded as compiled).
        record = native.manifest(
            PACKAGE, mypy=mypy.version.__version__, python=sys.version.split()[0]
        )
        try:
            extensions = _mypyc_extensions(ROOT / "build" / "mypyc")
        except (Exception, SystemExit) as error:  # mypyc exits on a type error
            _fall_back(error)
            return []
        self._record = record
        return extensions

    def run(self) -> None:
        package_dir = Path(self.get_ext_fullpath("chuhan.board")).parent
        manifest = package_dir / native.MANIFEST
        # Whatever happens next, no earlier build's record may outlive its modules.
        manifest.unlink(missing_ok=True)
        if self.inplace:
            # Extensions of an earlier build, some perhaps of modules no longer compiled.
            for stale in package_dir.rglob("*"):
                if stale.name.endswith(tuple(EXTENSION_SUFFIXES)):
                    stale.unlink()
        if self._record is None:
            return
        started = time.monotonic()
        try:
            super().run()
        except (Exception, SystemExit) as error:  # no compiler, no Python headers, ...
            _fall_back(error)
            return
        manifest.write_text(json.dumps(self._record, indent=1) + "\n", encoding="utf-8")
        _say(
            f"compiled {len(native.COMPILED_MODULES)} modules ({time.monotonic() - started:.0f} s)"
        )


def _fall_back(error: BaseException) -> None:
    _say(f"the compiled modules could not be built ({type(error).__name__}: {error})")
    _say("installing pure Python instead: chuhan works the same, its search is slower")


def _mypyc_extensions(target_dir: Path) -> list[Extension]:
    """mypyc's C code for the modules, and the extensions that build it."""
    from mypyc.build import mypycify

    paths = [str(native.source_path(m, PACKAGE).relative_to(ROOT)) for m in native.COMPILED_MODULES]
    # The modules they import are type-checked for their types only: the optional
    # dependencies of the web app and the record readers need not be in the build.
    options = ["--follow-imports=silent", "--ignore-missing-imports"]
    return mypycify(  # type: ignore[no-any-return]
        [*options, *paths],
        opt_level="3",
        group_name=native.GROUP,
        target_dir=str(target_dir),
    )


setup(
    # A stand-in, so that setuptools runs build_ext and tags the wheel for this platform;
    # BuildNative replaces it with mypyc's extensions (or none).
    ext_modules=[Extension("chuhan._native__mypyc", sources=[])],
    cmdclass={"build_ext": BuildNative},
)
