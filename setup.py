"""The build of chuhan: pure Python, plus the hot modules compiled by mypyc where it can.

Everything but the compiled extensions is declared in pyproject.toml. What is compiled, and
how a running chuhan picks its build, is in ``src/chuhan/_native.py``. The compile is tried
when the package is built (``pip install .``, ``pip install -e .``, ``make``) and skipped,
leaving a pure-Python install that works the same, when:

- ``CHUHAN_PURE`` is set (to anything but "" or "0");
- mypy (which brings mypyc) cannot be imported;
- mypyc or the C compiler fails for any reason (no compiler, no Python headers, ...).

A wheel is tagged for what it holds: ``py3-none-any`` when nothing was compiled (it can be
shared and uploaded), ``cp311-cp311-linux_x86_64`` and the like when it holds the compiled
modules (``auditwheel repair`` then makes a manylinux wheel of it; cibuildwheel builds the
others, ``[tool.cibuildwheel]`` in pyproject.toml). The build says what it does and what it
made in one line each, on stderr ("chuhan build: ..."; ``pip install -v .`` shows them, and
pip's own "Created wheel for chuhan: filename=..." line names the tag).

A successful compile writes ``chuhan/_native.json`` (each compiled module's source digest)
last, so a half-finished one is never taken for a build.

The cost of a build, and what keeps it down:

- mypyc's analysis (a type check of the compiled modules and what they import) runs once
  per build, in the command that builds the extensions. pip's editable install also runs
  ``egg_info`` and ``dist_info`` in processes of their own, which finalize build_ext only
  to list the extensions' source files: there the stand-in below (no sources) is enough.
- mypyc writes one C file per module (``multi_file``), and they are compiled in parallel
  on every CPU this process may use (``build_ext --parallel N`` sets another number).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any

from setuptools import Distribution, Extension, setup
from setuptools.command.bdist_wheel import bdist_wheel
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
        # mypyc's extensions are made before setuptools prepares the extensions (once per
        # build: NativeDistribution keeps them).
        dist = self.distribution
        if isinstance(dist, NativeDistribution):
            dist.plan_extensions()
            self._record = dist.native_record
        super().finalize_options()
        if self.parallel is None or self.parallel is True:
            self.parallel = _usable_cpus()

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
        jobs = int(self.parallel or 1)
        _say(
            f"compiling {len(native.COMPILED_MODULES)} modules with mypyc, {jobs} at a time "
            f"(about {_estimate(jobs)}; {native.PURE_VARIABLE}=1 skips it)"
        )
        try:
            super().run()
        except (Exception, SystemExit) as error:  # no compiler, no Python headers, ...
            _fall_back(error)
            return
        manifest.write_text(json.dumps(self._record, indent=1) + "\n", encoding="utf-8")
        if isinstance(self.distribution, NativeDistribution):
            self.distribution.native_compiled = True
        _say(
            f"compiled {len(native.COMPILED_MODULES)} modules ({time.monotonic() - started:.0f} s)"
        )

    def build_extensions(self) -> None:
        # distutils compiles the sources of one extension one by one: mypyc's group has
        # one per module, so they are compiled in parallel here.
        jobs = int(self.parallel or 1)
        if jobs > 1 and hasattr(self.compiler, "_setup_compile"):
            self.compiler.compile = _parallel_compile(self.compiler, jobs)
        super().build_extensions()


#: Commands that finalize build_ext only to list the package's source files.
LISTING_COMMANDS = {"egg_info", "dist_info", "sdist"}

#: The compile's CPU seconds on this project's machine (gcc -O3, README "Two commands").
COMPILE_CPU_SECONDS = 107


def _estimate(jobs: int) -> str:
    wall = COMPILE_CPU_SECONDS / max(1, min(jobs, len(native.COMPILED_MODULES)))
    return f"{COMPILE_CPU_SECONDS} CPU seconds: {wall:.0f} s or more on {jobs} CPU(s)"


class NativeDistribution(Distribution):
    """The distribution, which decides once per build whether it compiles (mypyc's
    analysis is its slowest step): setuptools asks ``has_ext_modules`` before it builds, to
    tag the wheel and lay it out, and finalizes build_ext again for each command."""

    #: The extensions to build (None: not decided yet).
    native_extensions: list[Extension] | None = None
    #: The manifest to write once the extensions are built (None: pure Python).
    native_record: dict[str, object] | None = None
    #: Set by build_ext when it has built them.
    native_compiled = False

    def plan_extensions(self) -> list[Extension]:
        if self.native_extensions is None:
            if set(self.commands) <= LISTING_COMMANDS:
                # Commands that only list the package's files (pip runs them first, in
                # processes of their own): the stand-in is enough, and nothing is said.
                return list(self.ext_modules or [])
            self.native_extensions = self._extensions()
            self.ext_modules = self.native_extensions
        return self.native_extensions

    def has_ext_modules(self) -> bool:
        return bool(self.plan_extensions())

    def _extensions(self) -> list[Extension]:
        if os.environ.get(native.PURE_VARIABLE, "") not in ("", "0"):
            _say(f"{native.PURE_VARIABLE} is set: pure Python, nothing to compile")
            return []
        try:
            import mypy.version
        except ImportError:
            _say("mypy (which brings mypyc) is not installed: pure Python, nothing to compile")
            return []
        # The digests of the sources as they are compiled (taken first: an edit made while
        # the compiler runs must leave the build stale, not be recorded as compiled).
        record = native.manifest(
            PACKAGE, mypy=mypy.version.__version__, python=sys.version.split()[0]
        )
        _say("mypyc is analysing the modules to compile")
        try:
            extensions = _mypyc_extensions(ROOT / "build" / "mypyc")
        except (Exception, SystemExit) as error:  # mypyc exits on a type error
            _fall_back(error)
            return []
        self.native_record = record
        return extensions


class NativeWheel(bdist_wheel):
    """bdist_wheel, tagged for what the wheel holds: ``py3-none-any`` when nothing was
    compiled (CHUHAN_PURE, no mypy, or a compile that failed), the interpreter and platform
    when the compiled modules are in it."""

    def get_tag(self) -> tuple[str, str, str]:
        dist = self.distribution
        if isinstance(dist, NativeDistribution) and not dist.native_compiled:
            self.root_is_pure = True
        return super().get_tag()  # type: ignore[no-any-return]

    def run(self) -> None:
        super().run()
        dist = self.distribution
        compiled = isinstance(dist, NativeDistribution) and dist.native_compiled
        wheel = getattr(dist, "dist_files", [(None, None, "?")])[-1][2]
        what = (
            f"the {len(native.COMPILED_MODULES)} modules compiled by mypyc, for this platform "
            "(auditwheel repair makes it manylinux)"
            if compiled
            else "pure Python, for any platform"
        )
        _say(f"made {Path(wheel).name}: {what}")


def _usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _parallel_compile(compiler: Any, jobs: int) -> Callable[..., list[str]]:
    """``compiler.compile`` (distutils' CCompiler), compiling ``jobs`` sources at a time,
    the largest first (distutils compiles the sources of one extension one by one)."""

    def compile(
        sources: list[str],
        output_dir: str | None = None,
        macros: Any = None,
        include_dirs: Any = None,
        debug: bool = False,
        extra_preargs: Any = None,
        extra_postargs: Any = None,
        depends: Any = None,
    ) -> list[str]:
        macros, objects, extra_postargs, pp_opts, build = compiler._setup_compile(
            output_dir, macros, include_dirs, sources, depends, extra_postargs
        )
        cc_args = compiler._get_cc_args(pp_opts, debug, extra_preargs)
        todo = sorted(
            (obj for obj in objects if obj in build),
            key=lambda obj: os.path.getsize(build[obj][0]),
            reverse=True,
        )

        def one(obj: str) -> None:
            src, ext = build[obj]
            compiler._compile(obj, src, ext, cc_args, extra_postargs, pp_opts)

        with ThreadPoolExecutor(jobs) as pool:
            for _ in pool.map(one, todo):  # the first error is raised here
                pass
        return list(objects)

    return compile


def _fall_back(error: BaseException) -> None:
    _say(f"the compiled modules could not be built ({type(error).__name__}: {error})")
    _say("installing pure Python instead: chuhan works the same, its search is slower")


def _mypyc_extensions(target_dir: Path) -> list[Extension]:
    """mypyc's C code for the modules, and the extensions that build it."""
    from mypyc.build import mypycify

    paths = [str(native.source_path(m, PACKAGE).relative_to(ROOT)) for m in native.COMPILED_MODULES]
    # The modules they import are type-checked for their types only: the optional
    # dependencies of the web app and the record readers need not be in the build. No
    # cache is written: mypyc's analysis does not read one, and `make lint`'s mypy may be
    # writing its own beside the build.
    options = ["--follow-imports=silent", "--ignore-missing-imports", f"--cache-dir={os.devnull}"]
    extensions: list[Extension] = mypycify(
        [*options, *paths],
        opt_level="3",
        multi_file=True,  # one C file per module, compiled in parallel
        group_name=native.GROUP,
        target_dir=str(target_dir),
    )
    # The modules' C files (in target_dir) include the group's header, which mypyc writes
    # in the group's package folder (target_dir/chuhan).
    group_folder = target_dir.joinpath(*native.GROUP.split(".")[:-1])
    for extension in extensions:
        extension.include_dirs.append(str(group_folder))
    return extensions


setup(
    # A stand-in, so that setuptools runs build_ext; NativeDistribution replaces it with
    # mypyc's extensions (or none) before anything is built or tagged.
    ext_modules=[Extension("chuhan._native__mypyc", sources=[])],
    distclass=NativeDistribution,
    cmdclass={"build_ext": BuildNative, "bdist_wheel": NativeWheel},
)
