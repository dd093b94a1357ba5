"""The two builds of the rules and the engine (``chuhan._native``): the modules compiled by
mypyc are used only while they match their sources, all of them or none; ``CHUHAN_PURE=1``
and a machine without a C compiler give pure Python that works the same."""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

import chuhan
from chuhan._native import COMPILED_MODULES, GROUP, MANIFEST, PURE_VARIABLE, modules_in_use

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(chuhan.__file__).resolve().parent

needs_compiled = pytest.mark.skipif(
    not chuhan.BUILD.compiled, reason=f"no compiled build in use: {chuhan.BUILD.reason}"
)

#: What a fresh interpreter reports of the chuhan it imports: its build, how each compiled
#: module was loaded, and a perft that goes through the board, move generator and tables.
REPORT = """
import importlib, json, chuhan
from chuhan._native import COMPILED_MODULES, modules_in_use
for name in COMPILED_MODULES:
    importlib.import_module(f"chuhan.{name}")
perft_module = importlib.import_module("chuhan.perft")
print(json.dumps({
    "compiled": chuhan.BUILD.compiled,
    "reason": chuhan.BUILD.reason,
    "modules": modules_in_use(),
    "perft": chuhan.perft(chuhan.Board(variant="janggi"), 2),
    "edited": getattr(perft_module, "EDITED", None),
}))
"""


def _report(path: Path, **environ: str) -> dict[str, object]:
    """Import chuhan from ``path`` (a folder holding the package) in a fresh interpreter."""
    env = {name: value for name, value in os.environ.items() if name != PURE_VARIABLE}
    env.update(PYTHONPATH=str(path), **environ)
    result = subprocess.run(
        [sys.executable, "-c", REPORT], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr
    report: dict[str, object] = json.loads(result.stdout)
    return report


def _copy_package(tmp_path: Path) -> Path:
    """A copy of the package as built here (sources, extensions and manifest)."""
    shutil.copytree(PACKAGE, tmp_path / "chuhan", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path / "chuhan"


ALL_COMPILED = dict.fromkeys(COMPILED_MODULES, "compiled")
ALL_SOURCE = dict.fromkeys(COMPILED_MODULES, "source")


@needs_compiled
def test_a_build_that_matches_its_sources_loads_every_compiled_module(tmp_path: Path) -> None:
    report = _report(_copy_package(tmp_path).parent)
    assert report["compiled"] is True and report["modules"] == ALL_COMPILED
    assert report["perft"] == 1024


@needs_compiled
def test_an_edited_module_is_not_shadowed_by_its_compiled_copy(tmp_path: Path) -> None:
    package = _copy_package(tmp_path)
    with (package / "perft.py").open("a", encoding="utf-8") as source:
        source.write("\nEDITED = True\n")
    report = _report(package.parent)
    assert report["edited"] is True
    # All of them from source, not only the edited one: compiled modules call their
    # compiled neighbours directly.
    assert report["compiled"] is False and report["modules"] == ALL_SOURCE
    assert report["reason"] == "chuhan/perft.py changed since it was compiled (rebuild: make)"
    assert report["perft"] == 1024


@needs_compiled
def test_a_build_with_a_module_missing_is_not_used(tmp_path: Path) -> None:
    package = _copy_package(tmp_path)
    for extension in (package / "search").glob("tree.*"):
        if extension.suffix != ".py":
            extension.unlink()
    report = _report(package.parent)
    assert report["compiled"] is False and report["modules"] == ALL_SOURCE
    assert report["reason"] == "no compiled chuhan.search.tree for this Python"


@needs_compiled
def test_a_build_without_its_manifest_is_not_used(tmp_path: Path) -> None:
    package = _copy_package(tmp_path)
    (package / MANIFEST).unlink()
    report = _report(package.parent)
    assert report["compiled"] is False and report["modules"] == ALL_SOURCE


def test_chuhan_pure_asks_for_pure_python() -> None:
    report = _report(PACKAGE.parent, **{PURE_VARIABLE: "1"})
    assert report["compiled"] is False and report["reason"] == f"{PURE_VARIABLE} is set"
    assert report["modules"] == ALL_SOURCE and report["perft"] == 1024


def _can_compile() -> str | None:
    """Why mypyc could not build here, or None if it can."""
    if os.environ.get(PURE_VARIABLE, "") not in ("", "0"):
        return f"{PURE_VARIABLE} is set"
    if shutil.which(os.environ.get("CC", "cc")) is None:
        return "no C compiler"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "no Python headers"
    if importlib.util.find_spec("mypyc") is None:
        return "mypyc is not installed"
    return None


def test_the_engine_runs_compiled_where_it_can_be() -> None:
    """What `make test` tests is what an install runs: where a compiler is, the compiled
    build (a module that mypyc cannot compile fails here, not silently slower)."""
    why_not = _can_compile()
    if why_not is not None:
        pytest.skip(f"pure Python expected here: {why_not}")
    assert chuhan.BUILD.compiled, f"pure Python although mypyc could build: {chuhan.BUILD.reason}"
    for module in COMPILED_MODULES:
        loaded = importlib.import_module(f"chuhan.{module}")
        assert loaded.__file__ is not None
        assert loaded.__file__.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
    assert set(modules_in_use().values()) == {"compiled"}


def _wheel(tmp_path: Path, **environ: str) -> Path:
    """Build chuhan's wheel from a copy of these sources (no build in place)."""
    source = tmp_path / "source"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git",
            ".venv*",
            "build",
            "*.egg-info",
            "__pycache__",
            ".*cache",
            "*.so",
            MANIFEST,
            "test-output",
            ".hypothesis",
            "node_modules",
        ),
    )
    env = {**os.environ, **environ}
    # Without build isolation: the build's requirements (setuptools, mypy) are the dev
    # environment's, so no package index is needed.
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
    built = subprocess.run(
        [*command, "--wheel-dir", str(tmp_path / "dist"), str(source)],
        env=env,
        timeout=900,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (tmp_path / "dist").glob("chuhan-*.whl")
    return wheel


def _install(wheel: Path, target: Path) -> Path:
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(target)
    return target


@pytest.mark.slow
def test_a_machine_without_a_c_compiler_installs_pure_python(tmp_path: Path) -> None:
    wheel = _wheel(tmp_path, CC="/bin/false", LDSHARED="/bin/false")
    # Nothing compiled: a wheel for any platform, which can be shared and uploaded.
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    assert "chuhan/board.py" in names and "chuhan/search/tree.py" in names
    assert not [n for n in names if n.endswith(".so")] and f"chuhan/{MANIFEST}" not in names
    site = _install(wheel, tmp_path / "site")
    report = _report(site)
    assert report["compiled"] is False and report["reason"] == "no compiled modules were built"
    assert report["modules"] == ALL_SOURCE and report["perft"] == 1024
    version = subprocess.run(
        [sys.executable, "-m", "chuhan", "--version"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(site)},
        timeout=60,
    )
    assert version.stdout.strip().endswith("pure Python (no compiled modules were built)")


@pytest.mark.slow
def test_an_install_with_a_c_compiler_runs_the_compiled_engine(tmp_path: Path) -> None:
    why_not = _can_compile()
    if why_not is not None:
        pytest.skip(why_not)
    wheel = _wheel(tmp_path)
    # Tagged for this interpreter and platform (auditwheel repair makes it manylinux).
    assert not wheel.name.endswith("-any.whl") and "-none-" not in wheel.name, wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    group = GROUP.replace(".", "/") + "__mypyc"
    assert [n for n in names if n.startswith(group)] and f"chuhan/{MANIFEST}" in names
    report = _report(_install(wheel, tmp_path / "site"))
    assert report["compiled"] is True and report["modules"] == ALL_COMPILED
    assert report["perft"] == 1024


#: The modules of the search's inner loop: move generation, the board, the evaluation, the
#: tree search.
HOT_MODULES = ("movegen", "board", "search.evaluate", "search.tree")


def _literal(node: ast.expr) -> bool:
    """Whether ``node`` is a number or a tuple of numbers (nested), written out."""
    try:
        value = ast.literal_eval(node)
    except ValueError:
        return False

    def numeric(value: object) -> bool:
        if isinstance(value, tuple):
            return all(numeric(item) for item in value)
        return isinstance(value, int | float) and not isinstance(value, bool)

    return numeric(value)


@pytest.mark.parametrize("module", HOT_MODULES)
def test_the_hot_modules_constants_are_final(module: str) -> None:
    """Compiled, a module-level name is looked up in the module's dictionary at every use
    unless it is ``Final`` (then a number is written into the code, a table is a static):
    such lookups were a tenth of the search's instructions. Every module-level constant of
    a literal value (a number, a tuple of them) in the search's modules is ``Final``."""
    path = PACKAGE / (module.replace(".", "/") + ".py")
    plain = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and node.value is not None and _literal(node.value):
            plain += [ast.unparse(target) for target in node.targets]
        elif (
            isinstance(node, ast.AnnAssign)
            and node.value is not None
            and _literal(node.value)
            and "Final" not in ast.unparse(node.annotation)
        ):
            plain.append(ast.unparse(node.target))
    assert plain == [], f"{module}: module-level constants that are not Final: {plain}"
