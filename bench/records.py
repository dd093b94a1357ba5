"""Record readers on hostile input: the time ``read_pgn`` (or ``read_gib``) takes on each
adversarial shape, at a given size.

Run from the repository root::

    .venv/bin/python bench/records.py                  # every shape at 256 KB, best of 3
    .venv/bin/python bench/records.py --kb 64 --repeat 1 --shape brackets --shape braces
    .venv/bin/python bench/records.py --gib            # the same shapes through read_gib
    .venv/bin/python bench/records.py --server         # with the web server's limits
    .venv/bin/python bench/records.py --growth         # also at a quarter of the size

Times are CPU time of the process (``time.process_time``), so that other work on a shared
machine counts less; best of ``--repeat``. Each shape is text of about the size asked for
(``--kb``; "sibling variations" is always 25,000 of them), read with the library's default
limits (``chuhan.records.ReadLimits()``) unless ``--server`` asks for the web server's
(1,000 plies, 1,000 variations, depth 20, 50 games). A reader that is linear on a shape
shows a growth near 4 (``--growth``: the time at the size over the time at a quarter of
it); a quadratic one near 16.
"""

from __future__ import annotations

import argparse
import contextlib
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

try:
    import chuhan.records as records
except ImportError:  # run from a checkout without ``pip install -e .``
    sys.path.insert(0, str(ROOT / "src"))
    import chuhan.records as records


def _repeat(unit: str, size: int, head: str = "") -> str:
    return head + unit * max(1, (size - len(head)) // len(unit))


#: A main line that never ends: horses out and back (legal forever, repetition aside).
_CYCLE = "h0g2 h9g7 g2h0 g7h9 "

SHAPES: dict[str, Callable[[int], str]] = {
    "brackets": lambda n: "[" * n,
    "braces": lambda n: "{" * n,
    "parens": lambda n: "(" * n,
    "quotes": lambda n: '"' * n,
    "semicolons": lambda n: ";" * n,
    "dollars": lambda n: "$" * n,
    "percents": lambda n: "%" * n,
    "closers": lambda n: _repeat("])}", n),
    "newlines": lambda n: "\n" * n,
    "digits": lambda n: "1" * n,
    "dots": lambda n: _repeat("1.", n),
    "long token": lambda n: "h" * n,
    "huge nag": lambda n: "1. h2e2 $" + "9" * (n - 9),
    "open tags": lambda n: _repeat('[a "', n),
    "open tags spaced": lambda n: _repeat('[a "b ', n),
    "tags": lambda n: _repeat('[a "b"]\n', n),
    "escape lines": lambda n: _repeat("%x\n", n),
    "long tag value": lambda n: '[Event "' + "x" * n + '"]\n1. h2e2 *',
    "long escaped tag value": lambda n: '[Event "' + "\\x" * (n // 2) + '"]\n1. h2e2 *',
    "escaped brackets in tag values": lambda n: _repeat('h0g2 h9g7 {c}\\[a "$)', n),
    "keys ending in a backslash": lambda n: _repeat('[a\\"', n),
    "long move number": lambda n: "1" + "." * n + " h2e2 *",
    "comments": lambda n: _repeat("{c}", n, "1. h2e2 "),
    "line comments": lambda n: _repeat(";c\n", n, "1. h2e2 "),
    "nags": lambda n: _repeat("$1 ", n, "1. h2e2 "),
    "sibling variations": lambda n: "1. h2e2 " + "(h2e2) " * 25_000,
    "empty variations": lambda n: _repeat("() ", n, "1. h2e2 "),
    "deep nesting": lambda n: _repeat("(h2e2 ", n, "1. h2e2 "),
    "deep nesting closed": lambda n: "1. h2e2 " + "(h2e2 " * (n // 7) + ")" * (n // 7),
    "late variations": lambda n: _repeat("(g7h9) ", n, _CYCLE * 500),
    "long main line": lambda n: _repeat(_CYCLE, n),
    "many games": lambda n: _repeat("1. h2e2 *\n", n),
}

SERVER_LIMITS = {"max_plies": 1_000, "max_variations": 1_000, "max_depth": 20, "max_games": 50}


def measure(shape: str, size: int, reader: Callable[..., Any], repeat: int, **kw: Any) -> float:
    text = SHAPES[shape](size)
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        with contextlib.suppress(records.RecordError):
            reader(text, **kw)
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kb", type=int, default=256, help="size of each input (default 256)")
    parser.add_argument("--repeat", type=int, default=3, help="best of (default 3)")
    parser.add_argument("--shape", action="append", choices=sorted(SHAPES), help="repeatable")
    parser.add_argument("--gib", action="store_true", help="read_gib instead of read_pgn")
    parser.add_argument("--server", action="store_true", help="the web server's limits")
    parser.add_argument("--growth", action="store_true", help="also time at size / 4")
    args = parser.parse_args()
    reader = records.read_gib if args.gib else records.read_pgn
    kw: dict[str, Any] = {}
    if args.server:
        kw["limits"] = records.ReadLimits(**SERVER_LIMITS)
    size = args.kb * 1024
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}")
    print(f"{reader.__name__}, {args.kb} KB, best of {args.repeat}")
    for shape in args.shape or list(SHAPES):
        seconds = measure(shape, size, reader, args.repeat, **kw)
        line = f"{shape:24} {seconds * 1000:10.1f} ms"
        if args.growth:
            small = measure(shape, size // 4, reader, args.repeat, **kw)
            line += f"   {args.kb // 4} KB {small * 1000:8.1f} ms   growth {seconds / small:5.1f}x"
        print(line, flush=True)


if __name__ == "__main__":
    main()
